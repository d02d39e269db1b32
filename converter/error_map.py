"""Where two arrays differ, in a few kilobytes: what the HTML report (``--html``) draws of a failing comparison.

Computed where the arrays are (inside run MODEL's comparison, inside validate's worker), so that only this small
summary travels (to the parent process, to the page), never the arrays themselves. Bounded whatever the output's
size: a histogram of the absolute error over every element (its bins the float32 numbers' own: four per power of
two, read from the bits of the error, so no range is needed up front and no second pass), the count of elements
exactly equal, a sample of (|expected|, |error|) pairs (the worst elements of the slices shown and an even spread
over the rest: at most SCATTER_POINTS), and for outputs of rank >= 2 the |error| of at most MAX_SLICES 2-D
slices over the last two axes (for NCHW: one per channel), the worst first, each max-pooled down to at most
MAX_PIXELS x MAX_PIXELS. The arrays are read once, in blocks of BLOCK_ELEMENTS (a block's temporaries stay in the
CPU's cache; a block without a difference costs one subtraction and one maximum), then the slices shown.

The error is compare's: ``|actual - expected|`` in float64, 0 where both are equal (the same infinity, NaN and
NaN), +inf where a NaN or an infinity meets another value. numpy only: no plotting here.
"""

from __future__ import annotations

import numpy as np

MAX_SLICES = 8
MAX_PIXELS = 256
SCATTER_POINTS = 2000
WORST_POINTS = 200  # of the scatter's points, per slice shown: its largest errors
BLOCK_ELEMENTS = 1 << 16  # 256 KiB of float32 temporaries per block
BIN_SHIFT = 21  # a float32 |error|'s bits >> 21: its exponent and 2 leading mantissa bits, 4 bins per power of 2
_BINS = 1 << (32 - BIN_SHIFT)  # (the sign bit is 0: 1024 keys; from 0x7f800000 >> 21 on, infinity and NaN)
_INF_BIN = 0x7F800000 >> BIN_SHIFT
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _errors(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """compare's |actual - expected| of one block (module docstring): float32 for floats of at most 4 bytes (a
    picture needs no more; where that overflows, float64), float64 for the rest."""
    if a.dtype.kind == "f" and a.dtype.itemsize <= 4 or a.dtype.name == "bfloat16":
        err = np.subtract(a, e, dtype=np.float32)
        np.abs(err, out=err)
        if np.isfinite(err.max()):
            return err
    return _errors64(a, e)


def _errors64(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        err = np.abs(a64 - e64)
    if not np.isfinite(err).all():  # (rare: a NaN or an infinity on either side)
        same = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
        err = np.where(same, 0.0, np.where(np.isnan(err), np.inf, err))
    return err


def bin_edges(first: int, last: int) -> np.ndarray:
    """The float32 edges of histogram bins ``first`` .. ``last`` (a bin: the numbers whose bits >> BIN_SHIFT
    are its key; bin 0 starts at 0)."""
    return (np.arange(first, last + 2, dtype=np.uint32) << BIN_SHIFT).view(np.float32).astype(np.float64)


def summarize(actual: np.ndarray, expected: np.ndarray, worst_index=()) -> dict | None:
    """The bounded picture of ``actual`` against ``expected`` (module docstring), a dict of plain values and small
    arrays; None where there is nothing to draw (a shape or dtype problem, strings, an empty output). ``worst_index``:
    the element the comparison names as the worst (compare.Mismatch.worst_index), else the largest error's. One pass
    over the arrays (per-slice maxima and the histogram), then the slices shown."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape or a.size == 0 or a.dtype.kind not in "fiub" and a.dtype.name != "bfloat16":
        return None
    full = a.shape
    kept = [i for i, d in enumerate(full) if d != 1]  # axes of length 1 left out: 1x1000x1x1 is a vector, no picture
    kept = kept or list(range(len(full)))[-1:]  # (a single element: its last axis; a scalar: one element, no axis)
    shape = tuple(full[i] for i in kept) or (1,)
    a, e = a.reshape(shape), e.reshape(shape)
    rows, cols = (shape[-2], shape[-1]) if a.ndim >= 2 else (1, a.size)
    per_slice = rows * cols
    slices = a.size // per_slice
    flat_a, flat_e = a.reshape(-1), e.reshape(-1)  # (a view where a is contiguous)
    narrow = a.dtype.kind == "f" and a.dtype.itemsize <= 4 or a.dtype.name == "bfloat16"
    work = np.empty(min(BLOCK_ELEMENTS, a.size), np.float32)
    counts = np.zeros(_BINS, np.int64)
    slice_max = np.zeros(slices, np.float64)
    zeros, binned_zeros = 0, 0
    for start in range(0, a.size, BLOCK_ELEMENTS):
        ab, eb = flat_a[start:start + BLOCK_ELEMENTS], flat_e[start:start + BLOCK_ELEMENTS]
        n = ab.size
        if narrow:
            err = work[:n]
            with np.errstate(invalid="ignore", over="ignore"):
                np.subtract(ab, eb, out=err, dtype=np.float32)
            np.abs(err, out=err)
            top = float(err.max())
            if top == 0.0:  # (the usual block of a local error: nothing differs, nothing more to do)
                zeros += n
                continue
            if not top <= _FLOAT32_MAX:  # a NaN, an infinity, or a float32 overflow: float64 and compare's rule
                err = _errors64(ab, eb)
        else:
            err = _errors64(ab, eb) if a.dtype.kind == "f" else np.abs(ab.astype(np.float64) - eb.astype(np.float64))
        top = float(err.max())
        first, last = start // per_slice, (start + n - 1) // per_slice
        if first == last:
            slice_max[first] = max(slice_max[first], top)
        else:  # the block spans slices: each one's maximum
            bounds = np.arange(first, last + 1) * per_slice - start
            bounds[0] = 0
            slice_max[first:last + 1] = np.maximum(slice_max[first:last + 1], np.maximum.reduceat(err, bounds))
        if err.dtype != np.float32:  # (the histogram reads float32 bits; above float32's range: the last finite bin)
            err = np.where(np.isinf(err), np.inf, np.minimum(err, _FLOAT32_MAX)).astype(np.float32)
        binned_zeros += n - int(np.count_nonzero(err))
        counts += np.bincount(err.view(np.uint32) >> BIN_SHIFT, minlength=_BINS)
    nonfinite = int(counts[_INF_BIN:].sum())
    counts[_INF_BIN:] = 0
    zeros += binned_zeros
    counts[0] -= binned_zeros  # (bin 0: the exact zeros, counted apart, and differences below 2^-128)
    used = np.flatnonzero(counts)
    first_bin, last_bin = (int(used[0]), int(used[-1])) if used.size else (0, 0)
    # the worst element: the comparison's, else the first largest error
    if worst_index and len(worst_index) == len(full):
        worst = tuple(int(worst_index[i]) for i in kept)
    else:
        s = int(np.argmax(slice_max))
        flat = int(np.argmax(_errors(flat_a[s * per_slice:(s + 1) * per_slice], flat_e[s * per_slice:(s + 1) * per_slice])))
        worst = tuple(int(i) for i in np.unravel_index(s * per_slice + flat, shape)) if a.ndim else ()
    worst_slice = int(np.ravel_multi_index(worst[:-2], shape[:-2])) if a.ndim > 2 else 0
    order = [worst_slice] + [int(i) for i in np.argsort(-slice_max, kind="stable")[:MAX_SLICES + 1]
                             if i != worst_slice and slice_max[i] > 0]  # (slices without an error: not drawn)
    shown = order[:MAX_SLICES] if a.ndim >= 2 else []
    # the scatter: an even spread over every element, and the largest errors of the slices shown
    spread = np.linspace(0, a.size - 1, min(a.size, SCATTER_POINTS - WORST_POINTS * len(shown))).astype(np.int64)
    picks = [spread]
    maps = []
    for s in shown:
        err = _errors(flat_a[s * per_slice:(s + 1) * per_slice], flat_e[s * per_slice:(s + 1) * per_slice])
        k = min(WORST_POINTS, err.size)
        picks.append(s * per_slice + np.argpartition(-err, k - 1)[:k])
        maps.append(_slice_map(err.reshape(rows, cols), s, shape, worst if s == worst_slice else None))
        lead, maps[-1]["index"] = maps[-1]["index"], [0] * len(full)  # (in the output's own axes; None: drawn)
        for axis, i in zip(kept, lead + [None, None]):
            maps[-1]["index"][axis] = i
    flat = np.unique(np.concatenate(picks))
    ref = np.abs(flat_e[flat].astype(np.float64))
    err = _errors(flat_a[flat], flat_e[flat])
    worst_full = [0] * len(full)
    for axis, i in zip(kept, worst):
        worst_full[axis] = i
    return {"shape": list(full), "dtype": a.dtype.name, "worst_index": worst_full,
            "slices_total": slices if a.ndim >= 2 else 0,
            "slices_with_errors": int(np.count_nonzero(slice_max > 0)) if a.ndim >= 2 else 0, "nonfinite": nonfinite,
            "zeros": zeros, "hist_edges": bin_edges(first_bin, last_bin),
            "hist_counts": counts[first_bin:last_bin + 1].copy(), "scatter_ref": ref.astype(np.float32),
            "scatter_err": err.astype(np.float32), "slices": maps}


def _slice_map(err: np.ndarray, s: int, shape: tuple, worst) -> dict:
    """One 2-D slice's |error|, max-pooled to at most MAX_PIXELS a side (an infinity kept as inf)."""
    rows, cols = err.shape
    fr, fc = -(-rows // MAX_PIXELS), -(-cols // MAX_PIXELS)
    if fr > 1 or fc > 1:
        padded = np.zeros((-(-rows // fr) * fr, -(-cols // fc) * fc), err.dtype)
        padded[:rows, :cols] = err
        pooled = padded.reshape(padded.shape[0] // fr, fr, padded.shape[1] // fc, fc).max(axis=(1, 3))
    else:
        pooled = err
    lead = [int(i) for i in np.unravel_index(s, shape[:-2])] if len(shape) > 2 else []
    return {"index": lead, "max": float(err.max()), "size": [rows, cols], "pool": [fr, fc], "map": pooled.astype(np.float32),
            "worst": [worst[-2] // fr, worst[-1] // fc] if worst is not None else None}
