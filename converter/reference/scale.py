"""Reference for trt.Scale: (x * scale + shift) ** power in float32, rounded once to the input type.

Written for speed on large tensors as well as for clarity: one float32 output buffer,
updated in place (allocating fresh 64 MiB temporaries costs more than the arithmetic),
and in CHANNEL mode one channel slice at a time, so each slice is multiplied, shifted and
raised while it is in cache (benchmarks/reference.py).

A uniform power of 2, -1 or 0.5 is ``x*x``, ``1/x`` and ``sqrt``: the operations the lowering emits
(docs/semantics.md, Scale), written out rather than left to numpy's ``power`` (whose shortcuts change
with its version). Every other power is C ``powf`` (powf.py), per-channel and per-element ones too,
also where they are all 0.5 (skipped for a channel's power of 1, and ``x*x`` for 2: both exactly
what ``powf`` gives).
"""

from __future__ import annotations

import numpy as np

from ..dtypes import quantize_int8
from ..network import Layer
from .powf import powf

_DEFAULTS = {"scale": 1.0, "shift": 0.0, "power": 1.0}
_BLOCK = 1 << 15  # elements per channel slice from which slicing pays for its Python loop


def reference(layer: Layer, inputs: list[np.ndarray], arithmetic: str | None = None) -> np.ndarray:
    """``arithmetic``: None (the spec's: float32 inside, rounded once), "tensorrt" (float16 weights rounded to
    float16, as TensorRT does with a warning) or "tensorrt-dla" (also x * scale rounded to FP16 before the shift
    is added, as DLA computes). docs/deployment.md."""
    (x,) = inputs
    coeff = {k: np.asarray(layer.attrs[k], np.float32) for k in _DEFAULTS}
    coeff = {k: (None if v.size == 0 else v) for k, v in coeff.items()}
    if arithmetic in ("tensorrt", "tensorrt-dla") and x.dtype == np.float16:
        coeff = {k: None if v is None else v.astype(np.float16).astype(np.float32) for k, v in coeff.items()}
        if arithmetic == "tensorrt-dla":  # DLA rounds to FP16 after each step: x * scale, + shift, ^ power
            for key in ("scale", "shift", "power"):
                if coeff[key] is not None:
                    x = reference_with(layer, x, {k: coeff[key] if k == key else None for k in coeff})
            return x
    return reference_with(layer, x, coeff)


def reference_with(layer: Layer, x: np.ndarray, coeff: dict) -> np.ndarray:
    """The Scale of ``x`` with the coefficients ``coeff`` (float32 arrays or None), in float32, rounded once."""
    mode, axis = layer.attrs["mode"], layer.attrs["channel_axis"]
    y = np.empty(x.shape, np.float32)
    with np.errstate(all="ignore"):
        block = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        if mode == "CHANNEL" and block >= _BLOCK:
            for index in np.ndindex(*x.shape[: axis + 1]):
                channel = index[axis]
                _affine_power(x[index], y[index], {k: None if v is None else v[channel: channel + 1] for k, v in coeff.items()})
        else:
            _affine_power(x, y, {k: _broadcastable(v, mode, x.shape, axis) for k, v in coeff.items()})
    if x.dtype == np.int8:
        return quantize_int8(y)
    with np.errstate(over="ignore"):  # overflow to inf is the rounding rule for float16 and bfloat16
        return y if x.dtype == np.float32 else y.astype(x.dtype)


def _affine_power(x: np.ndarray, y: np.ndarray, c: dict) -> None:
    """y = (x * scale + shift) ** power, in float32, in place in ``y``."""
    if c["scale"] is not None:
        np.multiply(x, c["scale"], out=y, dtype=np.float32)
    else:
        np.copyto(y, x, casting="unsafe")
    if c["shift"] is not None:
        np.add(y, c["shift"], out=y)
    power = c["power"]
    if power is None:
        return
    if power.ndim == 0:  # uniform: what the lowering emits for 2, -1 and 0.5 (lowering/scale.py, _power)
        p = float(power)
        if p == 2.0:
            np.multiply(y, y, out=y)
        elif p == -1.0:
            np.divide(np.float32(1), y, out=y)
        elif p == 0.5:
            np.sqrt(y, out=y)  # (sqrt(-inf) is NaN and sqrt(-0) -0, where powf gives +inf and +0)
        elif p != 1.0:
            powf(y, power, out=y)
    elif power.size == 1 and power[0] in (1.0, 2.0):  # one channel: powf(x, 1) is x, powf(x, 2) is exactly x*x
        if power[0] == 2.0:
            np.multiply(y, y, out=y)
    else:
        powf(y, power, out=y)


def _broadcastable(values: np.ndarray | None, mode: str, shape: tuple[int, ...], axis: int) -> np.ndarray | None:
    if values is None:
        return None
    if mode == "UNIFORM":
        return values.reshape(())
    if mode == "CHANNEL":
        # coefficient c applies to every element whose index along channel_axis is c
        return values.reshape((-1,) + (1,) * (len(shape) - axis - 1))
    return values.reshape(shape[axis:])  # ELEMENTWISE: indexed by [a_axis, ..., a_n]
