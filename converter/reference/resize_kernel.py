"""Independent numpy reference for TensorRT's IResizeLayer.

Pure numpy on purpose: this module must never import onnx, onnxruntime or
anything from ``converter.lowering``; it is the oracle the lowering is checked
against.

Semantics (TensorRT's, per the IResizeLayer documentation):

* The resize is separable: every axis whose length changes is processed on its
  own, one after the other (innermost axis first), with a gather of index arrays
  plus per-output weights.  Axes whose length does not change are untouched (all
  three coordinate transformations map an unchanged axis onto itself).
* Coordinates are mapped with the LENGTH ratio ``r = L_in / L_out`` (not a user
  scale):

  - ASYMMETRIC:    ``x_in = x_out * r``
  - HALF_PIXEL:    ``x_in = (x_out + 0.5) * r - 0.5``
  - ALIGN_CORNERS: ``x_in = x_out * (L_in - 1) / (L_out - 1)``

  They are evaluated as exact integer fractions ``num / den`` (int64: with
  lengths up to 2^31 nothing overflows).  NEAREST rounds them with integer
  arithmetic only, so integers and exact halves (the ties that decide the
  rounding modes) are never misjudged; LINEAR and CUBIC split them into an exact
  integer part and a float64 fraction.
* Output length 1: with selector ``UPPER`` the single output samples coordinate 0
  (the upper-left pixel) whatever the transformation; with ``FORMULA`` the formula
  is used, and ALIGN_CORNERS (whose formula divides 0 by 0) is defined to give 0,
  as onnx's ``align_corners`` does in onnxruntime and in the onnx reference.
* NEAREST: ``nearest_rounding`` FLOOR / CEIL / HALF_UP (ties go up) / HALF_DOWN
  (ties go down), then the index is clamped into ``[0, L_in - 1]``.  Values are
  copied, never converted, for every dtype.
* LINEAR: the coordinate is clamped into ``[0, L_in - 1]`` first, then 2-tap
  linear interpolation between ``floor(x)`` and ``floor(x) + 1`` (clamped).
* CUBIC (innermost two axes only): Keys cubic convolution with coefficient
  ``A = cubic_coeff`` on the 4 taps ``floor(x) - 1 .. floor(x) + 2``; the
  coordinate is NOT clamped, tap indices are clamped to the edge (edge
  replication, i.e. no exclude_outside renormalisation).

Numerics:

* Coordinates and weights are computed in float64 and cast once to the compute
  type.
* float32 and float16 inputs are interpolated in float32 (the precision
  TensorRT's and onnxruntime's kernels use); float16 is rounded to float16 once,
  at the very end, after all axes.  float64 inputs are interpolated in float64.
* int8 (TensorRT's quantized type) and other integer inputs are interpolated in
  float32 (float64 for integers wider than 16 bits), rounded half to even
  (``np.rint``) once at the end, saturated to the dtype's range and cast back.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = [
    "resize",
    "coordinate_fractions",
    "source_coordinates",
    "nearest_indices",
    "RESIZE_MODES",
    "COORDINATE_TRANSFORMATIONS",
    "SELECTORS",
    "NEAREST_ROUNDINGS",
]

RESIZE_MODES = ("NEAREST", "LINEAR", "CUBIC")
COORDINATE_TRANSFORMATIONS = ("ALIGN_CORNERS", "ASYMMETRIC", "HALF_PIXEL")
SELECTORS = ("FORMULA", "UPPER")
NEAREST_ROUNDINGS = ("HALF_UP", "HALF_DOWN", "FLOOR", "CEIL")


def _norm(value: str, allowed: tuple[str, ...], what: str) -> str:
    name = str(value).upper()
    # accept enum-like spellings such as "ResizeMode.LINEAR" or "kLINEAR"
    if "." in name:
        name = name.rsplit(".", 1)[1]
    if name not in allowed and name.startswith("K") and name[1:] in allowed:
        name = name[1:]
    if name not in allowed:
        raise ValueError(f"unsupported {what} {value!r}; expected one of {allowed}")
    return name


def coordinate_fractions(length_in: int, length_out: int, coordinate_transformation: str = "ASYMMETRIC",
                         selector_for_single_pixel: str = "FORMULA") -> tuple[np.ndarray, int]:
    """The input coordinate of each output position of one axis as an exact fraction ``num / den``.

    ``num`` is an int64 array (one per output position, may be negative), ``den`` a positive int.
    With lengths up to 2^31 every numerator fits in int64: ``(2 * L_out - 1) * L_in < 2^63``.
    """
    ct = _norm(coordinate_transformation, COORDINATE_TRANSFORMATIONS, "coordinate_transformation")
    sel = _norm(selector_for_single_pixel, SELECTORS, "selector_for_single_pixel")
    l_in, l_out = int(length_in), int(length_out)
    i = np.arange(l_out, dtype=np.int64)
    if l_out == 1 and (sel == "UPPER" or ct == "ALIGN_CORNERS"):
        return np.zeros(1, dtype=np.int64), 1  # the upper-left pixel; ALIGN_CORNERS' 0/0 is defined as 0
    if ct == "ASYMMETRIC":
        return i * l_in, l_out
    if ct == "HALF_PIXEL":
        # (i + 1/2) * l_in / l_out - 1/2  ==  ((2i + 1) * l_in - l_out) / (2 * l_out)
        return (2 * i + 1) * l_in - l_out, 2 * l_out
    return i * (l_in - 1), l_out - 1  # ALIGN_CORNERS


def source_coordinates(length_in: int, length_out: int, coordinate_transformation: str = "ASYMMETRIC",
                       selector_for_single_pixel: str = "FORMULA") -> np.ndarray:
    """Input coordinate (float64, unclamped) sampled by each output position of one axis."""
    num, den = coordinate_fractions(length_in, length_out, coordinate_transformation, selector_for_single_pixel)
    q, r = np.divmod(num, den)  # floor division: q = floor(num / den), 0 <= r < den
    return q + r / np.float64(den)


def nearest_indices(num: np.ndarray, den: int, length_in: int, nearest_rounding: str = "FLOOR") -> np.ndarray:
    """Round the exact coordinates ``num / den`` to input indices, clamped into [0, length_in - 1].

    Integer arithmetic only, so exact integers and exact halves (the ties) are never misjudged.
    """
    rnd = _norm(nearest_rounding, NEAREST_ROUNDINGS, "nearest_rounding")
    q, r = np.divmod(np.asarray(num, dtype=np.int64), den)
    if rnd == "CEIL":
        q = q + (r > 0)
    elif rnd == "HALF_UP":
        q = q + (2 * r >= den)  # ties go up
    elif rnd == "HALF_DOWN":
        q = q + (2 * r > den)  # ties go down
    return np.clip(q, 0, length_in - 1).astype(np.intp)


def _floor_and_fraction(num: np.ndarray, den: int) -> tuple[np.ndarray, np.ndarray]:
    q, r = np.divmod(num, den)
    return q, r / np.float64(den)


def _linear_taps(num: np.ndarray, den: int, length_in: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    # the coordinate is clamped into [0, length_in - 1] first (edge clamping)
    num = np.clip(num, 0, (length_in - 1) * den)
    q, t = _floor_and_fraction(num, den)
    i0 = q.astype(np.intp)
    i1 = np.minimum(i0 + 1, length_in - 1)
    return [i0, i1], [1.0 - t, t]


def _cubic_taps(num: np.ndarray, den: int, length_in: int, a: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    base, t = _floor_and_fraction(num, den)  # the coordinate itself is not clamped
    a = float(a)
    s0 = t + 1.0  # distance to tap floor-1, in [1, 2)
    s1 = t  # distance to tap floor,   in [0, 1)
    s2 = 1.0 - t  # distance to tap floor+1, in (0, 1]
    s3 = 2.0 - t  # distance to tap floor+2, in (1, 2]
    w0 = ((a * s0 - 5.0 * a) * s0 + 8.0 * a) * s0 - 4.0 * a
    w1 = ((a + 2.0) * s1 - (a + 3.0)) * s1 * s1 + 1.0
    w2 = ((a + 2.0) * s2 - (a + 3.0)) * s2 * s2 + 1.0
    w3 = ((a * s3 - 5.0 * a) * s3 + 8.0 * a) * s3 - 4.0 * a
    idx = [np.clip(base + k, 0, length_in - 1).astype(np.intp) for k in (-1, 0, 1, 2)]  # edge-clamped taps
    return idx, [w0, w1, w2, w3]


def _gather_weighted(x: np.ndarray, axis: int, idx: list[np.ndarray], weights: list[np.ndarray],
                     out: np.ndarray, term: np.ndarray) -> np.ndarray:
    """sum_k x[..., idx[k], ...] * weights[k] along ``axis``, into ``out`` (``term``: a buffer of its shape).

    The taps are added in order, each product rounded to the compute type: the same operations, in the
    same order, for every output element. ``mode="clip"`` is exact here (the taps are clamped already) and
    lets ``np.take`` write into the buffer without a temporary.
    """
    bshape = (-1,) + (1,) * (x.ndim - axis - 1)
    for k, (ind, w) in enumerate(zip(idx, weights)):
        dest = out if k == 0 else term
        np.take(x, ind, axis=axis, out=dest, mode="clip")
        dest *= w.astype(x.dtype).reshape(bshape)
        if k:
            out += term
    return out


@functools.lru_cache(maxsize=256)
def _axis_taps(l_in: int, l_out: int, mode: str, ct: str, sel: str, rnd: str, cubic_coeff: float):
    """(indices, weights) of one resized axis: a pure function of the lengths and the modes, kept for the
    next call (a suite resizes the same few shapes again and again). The arrays are read-only."""
    num, den = coordinate_fractions(l_in, l_out, ct, sel)
    if mode == "NEAREST":
        idx, weights = [nearest_indices(num, den, l_in, rnd)], None
    elif mode == "LINEAR":
        idx, weights = _linear_taps(num, den, l_in)
    else:
        idx, weights = _cubic_taps(num, den, l_in, cubic_coeff)
    for array in [*idx, *(weights or [])]:
        array.flags.writeable = False
    return tuple(idx), None if weights is None else tuple(weights)


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    if dtype == np.float64:
        return np.dtype(np.float64)
    if np.issubdtype(dtype, np.floating):
        return np.dtype(np.float32)
    if np.issubdtype(dtype, np.integer):
        return np.dtype(np.float32) if dtype.itemsize <= 2 else np.dtype(np.float64)
    raise TypeError(f"LINEAR/CUBIC resize does not support dtype {dtype}")


def resize(x: np.ndarray, out_shape: tuple[int, ...], *, resize_mode: str = "NEAREST",
           coordinate_transformation: str = "ASYMMETRIC", selector_for_single_pixel: str = "FORMULA",
           nearest_rounding: str = "FLOOR", cubic_coeff: float = -0.75) -> np.ndarray:
    """Resize ``x`` to ``out_shape`` with TensorRT IResizeLayer semantics (see module docstring).

    Returns an array of ``x.dtype`` and shape ``out_shape``.
    """
    x = np.asarray(x)
    out_shape = tuple(int(d) for d in out_shape)
    mode = _norm(resize_mode, RESIZE_MODES, "resize_mode")
    ct = _norm(coordinate_transformation, COORDINATE_TRANSFORMATIONS, "coordinate_transformation")
    sel = _norm(selector_for_single_pixel, SELECTORS, "selector_for_single_pixel")
    rnd = _norm(nearest_rounding, NEAREST_ROUNDINGS, "nearest_rounding")

    if len(out_shape) != x.ndim:
        raise ValueError(f"out_shape {out_shape} must have rank {x.ndim}")
    if any(d < 0 for d in out_shape):
        raise ValueError(f"negative output dimension in {out_shape}")
    changed = [ax for ax in range(x.ndim) if x.shape[ax] != out_shape[ax]]
    if mode == "CUBIC":
        if x.ndim < 2 or any(ax < x.ndim - 2 for ax in changed):
            raise ValueError("CUBIC resize only resizes the innermost 2 axes of a tensor of rank >= 2; "
                             f"got {x.shape} -> {out_shape}")
    elif any(ax < x.ndim - 3 for ax in changed):
        raise ValueError(f"{mode} resize only resizes the innermost 3 axes; got {x.shape} -> {out_shape}")
    for ax in changed:
        if x.shape[ax] == 0:
            raise ValueError(f"cannot resize an empty axis {ax} of {x.shape} to length {out_shape[ax]}")

    if not changed:
        return x.copy()
    if 0 in out_shape or x.size == 0:
        return np.empty(out_shape, dtype=x.dtype)

    # The dimensions before the first resized one are untouched: process them in blocks, so that the
    # temporaries (one gathered tap and one partial result per axis) stay small next to input and output.
    lead = min(changed)
    outer = int(np.prod(x.shape[:lead], dtype=np.int64))
    inner_in, inner_out = x.shape[lead:], out_shape[lead:]
    xs = x.reshape((outer,) + inner_in)
    plan = []  # (axis in the blocked view, indices, weights), innermost first
    for ax in sorted(changed, reverse=True):
        taps = _axis_taps(x.shape[ax], out_shape[ax], mode, ct, sel, rnd, float(cubic_coeff))
        plan.append((ax - lead + 1, *taps))
    widest = max(int(np.prod(inner_out, dtype=np.int64)), int(np.prod(inner_in, dtype=np.int64)), 1)
    block = max(1, _BLOCK_ELEMENTS // widest)
    out = np.empty((outer,) + tuple(inner_out), dtype=x.dtype)
    work = _Workspace(min(block, outer), inner_in, plan, x.dtype if mode == "NEAREST" else _compute_dtype(x.dtype))
    for start in range(0, outer, block):
        _resize_block(xs[start:start + block], plan, mode, out[start:start + block], work)
    return out.reshape(out_shape)


_BLOCK_ELEMENTS = 1 << 19  # elements of one block's widest slab (2 MiB of float32: the temporaries stay in cache)


class _Workspace:
    """Buffers for one block's intermediate results, made once and reused by every block: a fresh
    multi-MiB array per block and axis is a fresh mmap, and page faults cost as much as the arithmetic."""

    def __init__(self, block: int, inner_in: tuple[int, ...], plan, dtype: np.dtype):
        shape = [block, *inner_in]
        self.buffers = []  # per resized axis: (result, term)
        for ax, idx, _ in plan:
            shape[ax] = len(idx[0])
            self.buffers.append((np.empty(shape, dtype), np.empty(shape, dtype)))

    def get(self, k: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """The buffers of plan step ``k`` for a block of ``rows`` leading rows (the last block may be short)."""
        result, term = self.buffers[k]
        return result[:rows], term[:rows]


def _resize_block(x: np.ndarray, plan, mode: str, dest: np.ndarray, work: _Workspace) -> None:
    """Resize one block of the leading dimensions into ``dest`` (a contiguous slice of the output)."""
    rows, last = x.shape[0], len(plan) - 1
    if mode == "NEAREST":
        y = x
        for k, (ax, (idx,), _) in enumerate(plan):
            y = np.take(y, idx, axis=ax, out=dest if k == last else work.get(k, rows)[0], mode="clip")
        return
    y = x.astype(_compute_dtype(x.dtype), copy=False)  # (_gather_weighted never writes into its input)
    direct = y.dtype == dest.dtype  # the last axis can be written straight into the output
    for k, (ax, idx, weights) in enumerate(plan):
        result, term = work.get(k, rows)
        y = _gather_weighted(y, ax, idx, weights, dest if k == last and direct else result, term)
    if not direct and np.issubdtype(dest.dtype, np.integer):
        info = np.iinfo(dest.dtype)
        dest[...] = np.clip(np.rint(y), info.min, info.max)
    elif not direct:  # float16, bfloat16: computed in float32, rounded once
        dest[...] = y
