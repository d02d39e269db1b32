"""Names: the one rule for names in a spec, and the 'did you mean' hint every refusal of a name gives.

Part of the core layer: imports nothing of the package (pyproject.toml, [tool.importlinter]).
"""

from __future__ import annotations

import re
from typing import Any

MAX_NAME_LENGTH = 128
NAME_RULE = f"1 to {MAX_NAME_LENGTH} letters, digits, '_', '.' or '-', starting with a letter or '_'"
_NAME = re.compile(rf"[A-Za-z_][A-Za-z0-9_.\-]{{0,{MAX_NAME_LENGTH - 1}}}")  # ASCII only; used with fullmatch


def is_valid_name(value: Any) -> bool:
    """The one rule for every name in a spec (the spec's, its cases', tensors' and layers'): ``NAME_RULE``.

    The whole text must match (a trailing newline or space is not allowed): names become case ids,
    report entries, ONNX tensor names and folder names (``--repro-dir``), so they hold no separators
    ('/', whitespace, control characters) and cannot be '.' or '..'.
    """
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def did_you_mean(word: str, candidates) -> str:
    """A ' (did you mean 'X'?)' suffix for a misspelled name, or ''."""
    if not isinstance(word, str):
        return ""
    lowered = {c.lower(): c for c in candidates}
    member = word.rsplit(".", 1)[-1].lower()  # an enum's qualified name, as TensorRT's Python API writes it:
    if member != word.lower() and member in lowered:  # trt.ScaleMode.UNIFORM for UNIFORM
        return f" (did you mean {lowered[member]!r}?)"
    import difflib  # start-up time: only a refusal asks (the CLI's --help imports this module through the targets)

    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""
