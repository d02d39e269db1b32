"""Values in messages, abbreviated: one line whatever the size of the list or array a message names."""

from __future__ import annotations

from typing import Any

LIMIT = 6  # values shown in full up to this many
WIDTH = 80  # characters of anything else (a mapping, a long text)


def brief(value: Any, limit: int = LIMIT) -> str:
    """``value`` for a message, at most about WIDTH characters: a list, tuple or array of at most ``limit``
    values as Python writes it; a longer one as its first values and its count, ``[2.0 x120]`` when they
    are all equal, ``[1.0, 2.0, 3.0, ... 120 values]`` otherwise (with the shape when it has several
    dimensions); anything else as ``repr`` gives it, cut after WIDTH characters with its length."""
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # a numpy array (or scalar)
        shape, value = tuple(value.shape), value.tolist()
    elif isinstance(value, (list, tuple)):
        shape = None
    else:
        return shortened(repr(value))
    flat = list(_flatten(value))
    if len(flat) <= limit:
        return shortened(repr(list(value) if isinstance(value, tuple) else value))
    dims = f", shape {'x'.join(map(str, shape))}" if shape and len(shape) > 1 else ""
    if all(_same(v, flat[0]) for v in flat):
        return f"[{shortened(repr(flat[0]), 30)} x{len(flat)}{dims}]"
    return f"[{', '.join(shortened(repr(v), 15) for v in flat[:3])}, ... {len(flat)} values{dims}]"


def shortened(text: str, width: int = WIDTH) -> str:
    """``text`` cut after about ``width`` characters, its length said (a path or a name a user may make huge)."""
    return text if len(text) <= width else f"{text[:max(width - 20, 8)]}... ({len(text):,} characters)"


def nonfinite_counts(nan: int, posinf: int, neginf: int) -> str:
    """``9 NaN, 1 +inf``: the counts of an array's non-finite elements that are not 0."""
    return ", ".join(f"{n} {what}" for n, what in ((nan, "NaN"), (posinf, "+inf"), (neginf, "-inf")) if n)


def _flatten(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten(item)
    else:
        yield value


def _same(a, b) -> bool:
    try:
        return bool(a == b or (a != a and b != b))  # (NaN equals NaN here)
    except Exception:  # noqa: BLE001 - values that do not compare are not the same
        return False


def counted(count: int, noun: str) -> str:
    """``1 node``, ``2 nodes``, ``1,024 nodes``: a count with its noun, plural unless the count is one (nouns made
    plural by an s: node, error, case, comparison)."""
    return f"{count:,} {noun}{'s' * (count != 1)}"


def disagreement_line(d: dict, reason: str = "") -> str:
    """A runtime disagreement (a case's ``disagreements`` entry: an output against the first runtime configuration's)
    as the terminal and the HTML page say it; ``reason``: the case's known-failure reason. A ``max_abs`` read back
    from a JSON report may be null (an infinity): shown as it is."""
    worst = d.get("max_abs")
    worst = f"{worst:.6g}" if isinstance(worst, (int, float)) else str(worst)
    known = f" (known: {reason})" if reason else ""
    return (f"output {d.get('output')!r} differs from {d.get('with')}: {d.get('count')}/{d.get('total')} elements, "
            f"max abs err {worst}{known}")
