"""Where the bundled suite lives, and writing output files atomically (all or nothing)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np


def bundled_specs_dir() -> Path:
    """The conformance suite shipped with spec2onnx (the repo's specs/, also installed into the wheel)."""
    source_tree = Path(__file__).resolve().parent.parent / "specs"
    if source_tree.is_dir():
        return source_tree
    from importlib import resources

    return Path(str(resources.files("converter") / "bundled_specs"))


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write to a temporary file beside ``path`` and rename it into place: readers see the old or the new file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_npy_atomic(path: str | Path, array: np.ndarray) -> None:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    write_atomic(path, buffer.getvalue())
