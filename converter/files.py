"""Where the bundled suite lives, and writing output files atomically (all or nothing)."""

from __future__ import annotations

import io
import os
import secrets
import stat
from pathlib import Path

import numpy as np

TEMP_SUFFIX = ".tmp"  # temporary files are named .<target name>.<random hex>.tmp, beside the target


def bundled_specs_dir() -> Path:
    """The conformance suite shipped with spec2onnx (the repo's specs/, also installed into the wheel)."""
    source_tree = Path(__file__).resolve().parent.parent / "specs"
    if source_tree.is_dir():
        return source_tree
    from importlib import resources

    return Path(str(resources.files(__package__) / "bundled_specs"))


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` all or nothing: readers (and an interrupted run) see the old file or the new one.

    The bytes go to a temporary file beside ``path`` (same folder, so the rename cannot cross file systems),
    are flushed to disk, and the file is renamed over ``path``. On any exception, KeyboardInterrupt included,
    the temporary file is removed and ``path`` is untouched. The new file gets the old file's permissions,
    or the usual ones for a new file (0666 less the umask; ``tempfile.mkstemp`` would give 0600).
    """
    path = Path(path)
    folder = path.parent
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = None
    fd, tmp = _create_temp(folder, path.name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _create_temp(folder: Path, name: str) -> tuple[int, str]:
    """A new, exclusively created temporary file ``.<name>.<random>.tmp`` in ``folder`` (mode 0666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file in {folder}")


def save_npy_atomic(path: str | Path, array: np.ndarray) -> None:
    """Save ``array`` as .npy (never pickled) with ``write_atomic``; it is serialized fully before anything is written."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    write_atomic(path, buffer.getvalue())
