"""Where two arrays differ, in a few kilobytes: what the HTML report (``--html``) draws of a failing comparison.

Computed where the arrays are (inside run MODEL's comparison, inside validate's worker), so that only this small
summary travels (to the parent process, to the page), never the arrays themselves. Bounded whatever the output's
size: a histogram of the absolute error (HIST_BINS bins), a sample of (|expected|, |error|) pairs (the worst
elements of the slices shown and an even spread over the rest: at most SCATTER_POINTS), and for outputs of rank
>= 2 the |error| of at most MAX_SLICES 2-D slices over the last two axes (for NCHW: one per channel), the worst
first, each max-pooled down to at most MAX_PIXELS x MAX_PIXELS. The arrays are read in blocks of about
BLOCK_ELEMENTS elements (or one 2-D slice where that is bigger): the extra memory is a few float64 buffers of one
block.

The error is compare's: ``|actual - expected|`` in float64, 0 where both are equal (the same infinity, NaN and
NaN), +inf where a NaN or an infinity meets another value. numpy only: no plotting here.
"""

from __future__ import annotations

import math

import numpy as np

MAX_SLICES = 8
MAX_PIXELS = 256
SCATTER_POINTS = 2000
WORST_POINTS = 200  # of the scatter's points, per slice shown: its largest errors
HIST_BINS = 40
BLOCK_ELEMENTS = 1 << 20


def _errors(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """compare's |actual - expected| of one block (module docstring): float32 for floats of at most 4 bytes (a
    picture needs no more; where that overflows, float64), float64 for the rest."""
    if a.dtype.kind == "f" and a.dtype.itemsize <= 4 or a.dtype.name == "bfloat16":
        err = np.subtract(a, e, dtype=np.float32)
        np.abs(err, out=err)
        if np.isfinite(err.max()):
            return err
    with np.errstate(invalid="ignore", over="ignore"):
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        err = np.abs(a64 - e64)
    if not np.isfinite(err).all():  # (rare: a NaN or an infinity on either side)
        same = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
        err = np.where(same, 0.0, np.where(np.isnan(err), np.inf, err))
    return err


def summarize(actual: np.ndarray, expected: np.ndarray, worst_index=(), max_abs: float | None = None) -> dict | None:
    """The bounded picture of ``actual`` against ``expected`` (module docstring), a dict of plain values and small
    arrays; None where there is nothing to draw (a shape or dtype problem, strings, an empty output). ``worst_index``:
    the element the comparison names as the worst (compare.Mismatch.worst_index), else the largest error's;
    ``max_abs``: the largest finite error where the comparison knows it (else one more pass finds it): the
    histogram's range. One pass over the arrays (per-slice maxima and the histogram), then the slices shown."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape or a.size == 0 or a.dtype.kind not in "fiub" and a.dtype.name != "bfloat16":
        return None
    full = a.shape
    kept = [i for i, d in enumerate(full) if d != 1]  # axes of length 1 left out: 1x1000x1x1 is a vector, no picture
    kept = kept or list(range(len(full)))[-1:]  # (a single element: its last axis; a scalar: one element, no axis)
    shape = tuple(full[i] for i in kept) or (1,)
    a, e = a.reshape(shape), e.reshape(shape)
    rows, cols = (shape[-2], shape[-1]) if a.ndim >= 2 else (1, a.size)
    slices = a.size // (rows * cols)
    a3, e3 = a.reshape(slices, rows * cols), e.reshape(slices, rows * cols)  # (a view where a is contiguous)
    per = max(1, BLOCK_ELEMENTS // (rows * cols))  # slices per block (a slice above BLOCK_ELEMENTS: one at a time)
    if max_abs is None or not math.isfinite(max_abs):
        max_abs = 0.0
        for s in range(0, slices, per):
            err = _errors(a3[s:s + per], e3[s:s + per])
            max_abs = max(max_abs, float(err[np.isfinite(err)].max(initial=0.0)))
    top = float(max_abs) if max_abs > 0 else 1.0
    edges = np.linspace(0.0, top, HIST_BINS + 1)
    counts = np.zeros(HIST_BINS, np.int64)
    slice_max = np.empty(slices, np.float64)
    nonfinite = 0
    for s in range(0, slices, per):
        err = _errors(a3[s:s + per], e3[s:s + per])
        slice_max[s:s + per] = err.max(axis=1)
        if not np.isfinite(slice_max[s:s + per]).all():
            inf = np.isinf(err)
            nonfinite += int(inf.sum())
            err = err[~inf]
        err *= HIST_BINS / top
        bins = err.astype(np.int32).ravel()
        np.minimum(bins, HIST_BINS - 1, out=bins)
        counts += np.bincount(bins, minlength=HIST_BINS)
    # the worst element: the comparison's, else the first largest error
    if worst_index and len(worst_index) == len(full):
        worst = tuple(int(worst_index[i]) for i in kept)
    else:
        s = int(np.argmax(slice_max))
        flat = int(np.argmax(_errors(a3[s], e3[s])))
        worst = tuple(int(i) for i in np.unravel_index(s * rows * cols + flat, shape)) if a.ndim else ()
    worst_slice = int(np.ravel_multi_index(worst[:-2], shape[:-2])) if a.ndim > 2 else 0
    order = [worst_slice] + [int(i) for i in np.argsort(-slice_max, kind="stable")[:MAX_SLICES + 1]
                             if i != worst_slice and slice_max[i] > 0]  # (slices without an error: not drawn)
    shown = order[:MAX_SLICES] if a.ndim >= 2 else []
    # the scatter: an even spread over every element, and the largest errors of the slices shown
    spread = np.linspace(0, a.size - 1, min(a.size, SCATTER_POINTS - WORST_POINTS * len(shown))).astype(np.int64)
    picks = [spread]
    maps = []
    for s in shown:
        err = _errors(a3[s], e3[s])
        k = min(WORST_POINTS, err.size)
        picks.append(s * rows * cols + np.argpartition(-err, k - 1)[:k])
        maps.append(_slice_map(err.reshape(rows, cols), s, shape, worst if s == worst_slice else None))
        lead, maps[-1]["index"] = maps[-1]["index"], [0] * len(full)  # (in the output's own axes; None: drawn)
        for axis, i in zip(kept, lead + [None, None]):
            maps[-1]["index"][axis] = i
    flat = np.unique(np.concatenate(picks))
    where = np.unravel_index(flat, shape)
    ref = np.abs(e[where].astype(np.float64))
    err = _errors(a[where], e[where])
    worst_full = [0] * len(full)
    for axis, i in zip(kept, worst):
        worst_full[axis] = i
    return {"shape": list(full), "dtype": a.dtype.name, "worst_index": worst_full,
            "slices_total": slices if a.ndim >= 2 else 0,
            "slices_with_errors": int(np.count_nonzero(slice_max > 0)) if a.ndim >= 2 else 0, "nonfinite": nonfinite,
            "hist_edges": edges,
            "hist_counts": counts, "scatter_ref": ref.astype(np.float32), "scatter_err": err.astype(np.float32),
            "slices": maps}


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
    return {"index": lead, "max": float(err.max()), "pool": [fr, fc], "map": pooled.astype(np.float32),
            "worst": [worst[-2] // fr, worst[-1] // fc] if worst is not None else None}
