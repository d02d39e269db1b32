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
        with np.errstate(invalid="ignore", over="ignore"):  # (inf - inf: NaN, judged below; --html adds no warning)
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
    over the arrays (per-slice maxima and the histogram), then the slices shown. A comparison that reads the
    arrays anyway passes a Picture to compare.compare_stats instead: the same summary, without this pass."""
    picture = Picture.start(actual, expected)
    if picture is None:
        return None
    flat_a, flat_e = picture.flat_a, picture.flat_e
    work = np.empty(min(BLOCK_ELEMENTS, flat_a.size), np.float32 if picture.narrow else np.float64)
    for start in range(0, flat_a.size, BLOCK_ELEMENTS):
        ab, eb = flat_a[start:start + BLOCK_ELEMENTS], flat_e[start:start + BLOCK_ELEMENTS]
        err = work[:ab.size]
        if picture.is_float:
            with np.errstate(invalid="ignore", over="ignore"):
                np.subtract(ab, eb, out=err, dtype=err.dtype)
            np.abs(err, out=err)
        else:
            err = np.abs(ab.astype(np.float64) - eb.astype(np.float64))
        picture.add(start, err, float(err.max()), ab, eb)
    return picture.finish(worst_index)


def for_comparison(actual, expected) -> "Picture | None":
    """A Picture for compare.compare_stats to feed (``sink``): floats only (its quick check is where the
    differences are); None for the rest, which summarize reads on its own where they fail."""
    picture = Picture.start(actual, expected)
    return picture if picture is not None and picture.is_float else None


class Picture:
    """A summary gathered block by block, in the order of the flattened arrays: ``add`` each block's raw
    ``|actual - expected|`` (float32 for floats of at most 4 bytes, else float64: a NaN or an infinity as the
    subtraction left it), then ``finish``. compare.compare_stats feeds one with the differences its quick check
    computes anyway (``sink``), so a failing comparison's picture costs no pass of its own."""

    @classmethod
    def start(cls, actual, expected) -> "Picture | None":
        """None where there is nothing to draw (a shape or dtype problem, strings, an empty output)."""
        a, e = np.asarray(actual), np.asarray(expected)
        if a.shape != e.shape or a.dtype != e.dtype or a.size == 0 or a.dtype.kind not in "fiub" \
                and a.dtype.name != "bfloat16":
            return None
        return cls(a, e)

    def __init__(self, a: np.ndarray, e: np.ndarray):
        self.full = a.shape
        kept = [i for i, d in enumerate(self.full) if d != 1]  # axes of length 1 left out: 1x1000x1x1 is a vector
        self.kept = kept or list(range(len(self.full)))[-1:]  # (one element: its last axis; a scalar: no axis)
        self.shape = tuple(self.full[i] for i in self.kept) or (1,)
        self.rank = len(self.shape) if a.ndim else 0
        self.rows, self.cols = (self.shape[-2], self.shape[-1]) if self.rank >= 2 else (1, a.size)
        self.per_slice = self.rows * self.cols
        self.flat_a = np.require(a, requirements="C").reshape(-1)  # (C order: compare's chunks, a view)
        self.flat_e = np.require(e, requirements="C").reshape(-1)
        self.dtype = a.dtype
        self.is_float = a.dtype.kind == "f" or a.dtype.name == "bfloat16"
        self.narrow = self.is_float and a.dtype.itemsize <= 4
        self.counts = np.zeros(_BINS, np.int64)
        self.slice_max = np.zeros(a.size // self.per_slice, np.float64)
        self.zeros = self.binned_zeros = 0

    def add(self, start: int, err: np.ndarray, largest: float, a: np.ndarray, e: np.ndarray) -> None:
        """One block at flat offset ``start``: ``err`` its raw |a - e| (overwritten), ``largest`` err's maximum."""
        n = err.size
        if largest == 0.0:  # (the usual block of a local error: nothing differs, nothing more to do)
            self.zeros += n
            return
        if not largest <= _FLOAT32_MAX:  # a NaN, an infinity, or beyond float32: float64 and compare's rule
            err = _errors64(a, e)
            largest = float(err.max())
        first, last = start // self.per_slice, (start + n - 1) // self.per_slice
        if first == last:
            self.slice_max[first] = max(self.slice_max[first], largest)
        else:  # the block spans slices: each one's maximum
            bounds = np.arange(first, last + 1) * self.per_slice - start
            bounds[0] = 0
            spanned = self.slice_max[first:last + 1]
            np.maximum(spanned, np.maximum.reduceat(err, bounds), out=spanned)
        if err.dtype != np.float32:  # (the histogram reads float32 bits; above float32's range: the last finite bin)
            err = np.where(np.isinf(err), np.inf, np.minimum(err, _FLOAT32_MAX)).astype(np.float32)
        self.binned_zeros += n - int(np.count_nonzero(err))
        self.counts += np.bincount(err.view(np.uint32) >> BIN_SHIFT, minlength=_BINS)

    @property
    def exact(self) -> bool:
        """Whether every element added so far was equal on both sides (the same number, NaN aside)."""
        return self.zeros == self.flat_a.size

    def finish(self, worst_index=()) -> dict:
        """The summary (summarize's dict), ``worst_index`` as there."""
        counts, full, kept, shape = self.counts.copy(), self.full, self.kept, self.shape
        flat_a, flat_e, per_slice, rows, cols = self.flat_a, self.flat_e, self.per_slice, self.rows, self.cols
        slice_max = self.slice_max
        nonfinite = int(counts[_INF_BIN:].sum())
        counts[_INF_BIN:] = 0
        counts[0] -= self.binned_zeros  # (bin 0: the exact zeros, counted apart, and differences below 2^-128)
        used = np.flatnonzero(counts)
        first_bin, last_bin = (int(used[0]), int(used[-1])) if used.size else (0, 0)
        # the worst element: the comparison's, else the first largest error
        if worst_index and len(worst_index) == len(full):
            worst = tuple(int(worst_index[i]) for i in kept)
        else:
            s = int(np.argmax(slice_max))
            part = slice(s * per_slice, (s + 1) * per_slice)
            flat = int(np.argmax(_errors(flat_a[part], flat_e[part])))
            worst = tuple(int(i) for i in np.unravel_index(s * per_slice + flat, shape)) if self.rank else ()
        worst_slice = int(np.ravel_multi_index(worst[:-2], shape[:-2])) if self.rank > 2 else 0
        order = [worst_slice] + [int(i) for i in np.argsort(-slice_max, kind="stable")[:MAX_SLICES + 1]
                                 if i != worst_slice and slice_max[i] > 0]  # (slices without an error: not drawn)
        shown = order[:MAX_SLICES] if self.rank >= 2 else []
        # the scatter: an even spread over every element, and the largest errors of the slices shown
        size = flat_a.size
        spread = np.linspace(0, size - 1, min(size, SCATTER_POINTS - WORST_POINTS * len(shown))).astype(np.int64)
        picks = [spread]
        maps = []
        for s in shown:
            err = _errors(flat_a[s * per_slice:(s + 1) * per_slice], flat_e[s * per_slice:(s + 1) * per_slice])
            differ = np.flatnonzero(err)  # (a local error: a few elements; the largest WORST_POINTS of them)
            if differ.size > WORST_POINTS:
                differ = differ[np.argpartition(err[differ], differ.size - WORST_POINTS)[-WORST_POINTS:]]
            picks.append(s * per_slice + differ)
            maps.append(_slice_map(err.reshape(rows, cols), s, shape, worst if s == worst_slice else None))
            lead, maps[-1]["index"] = maps[-1]["index"], [0] * len(full)  # (in the output's own axes; None: drawn)
            for axis, i in zip(kept, lead + [None, None]):
                maps[-1]["index"][axis] = i
        flat = np.sort(np.concatenate(picks))
        flat = flat[np.concatenate([[True], flat[1:] != flat[:-1]])]  # (np.unique: its first call costs 20 ms)
        ref = np.abs(flat_e[flat].astype(np.float64))
        err = _errors(flat_a[flat], flat_e[flat])
        worst_full = [0] * len(full)
        for axis, i in zip(kept, worst):
            worst_full[axis] = i
        return {"shape": list(full), "dtype": self.dtype.name, "worst_index": worst_full,
                "slices_total": slice_max.size if self.rank >= 2 else 0,
                "slices_with_errors": int(np.count_nonzero(slice_max > 0)) if self.rank >= 2 else 0,
                "nonfinite": nonfinite, "zeros": self.zeros + self.binned_zeros,
                "hist_edges": bin_edges(first_bin, last_bin), "hist_counts": counts[first_bin:last_bin + 1],
                "scatter_ref": ref.astype(np.float32), "scatter_err": err.astype(np.float32), "slices": maps}


def _slice_map(err: np.ndarray, s: int, shape: tuple, worst) -> dict:
    """One 2-D slice's |error|, max-pooled to at most MAX_PIXELS a side (an infinity kept as inf)."""
    rows, cols = err.shape
    fr, fc = -(-rows // MAX_PIXELS), -(-cols // MAX_PIXELS)
    if fr > 1 or fc > 1:
        padded = err
        if rows % fr or cols % fc:
            padded = np.zeros((-(-rows // fr) * fr, -(-cols // fc) * fc), err.dtype)
            padded[:rows, :cols] = err
        # rows first (fr whole rows at a time, elementwise), then columns: 3x faster than one max over two axes
        pooled = padded.reshape(padded.shape[0] // fr, fr, padded.shape[1]).max(axis=1)
        pooled = pooled.reshape(pooled.shape[0], pooled.shape[1] // fc, fc).max(axis=2)
    else:
        pooled = err
    lead = [int(i) for i in np.unravel_index(s, shape[:-2])] if len(shape) > 2 else []
    return {"index": lead, "max": float(pooled.max()), "size": [rows, cols], "pool": [fr, fc],
            "map": pooled.astype(np.float32),
            "worst": [worst[-2] // fr, worst[-1] // fc] if worst is not None else None}
