"""Reference for trt.Scale: (x * scale + shift) ** power in float32, rounded once to the input type."""

from __future__ import annotations

import numpy as np

from ..dtypes import quantize_int8
from ..network import Layer

_DEFAULTS = {"scale": 1.0, "shift": 0.0, "power": 1.0}


def _broadcastable(values: np.ndarray, mode: str, shape: tuple[int, ...], axis: int) -> np.ndarray:
    if values.size == 0:
        return None
    if mode == "UNIFORM":
        return values.reshape(())
    if mode == "CHANNEL":
        # coefficient c applies to every element whose index along channel_axis is c
        return values.reshape((-1,) + (1,) * (len(shape) - axis - 1))
    return values.reshape(shape[axis:])  # ELEMENTWISE: indexed by [a_axis, ..., a_n]


def reference(layer: Layer, inputs: list[np.ndarray]) -> np.ndarray:
    (x,) = inputs
    mode, axis = layer.attrs["mode"], layer.attrs["channel_axis"]
    y = x.astype(np.float32)
    c = {k: _broadcastable(np.asarray(layer.attrs[k], np.float32), mode, x.shape, axis) for k in _DEFAULTS}
    with np.errstate(all="ignore"):
        if c["scale"] is not None:
            y = y * c["scale"]
        if c["shift"] is not None:
            y = y + c["shift"]
        if c["power"] is not None:
            y = np.power(y, c["power"])
    y = np.broadcast_to(y, x.shape).astype(np.float32)
    if x.dtype == np.int8:
        return quantize_int8(y)
    with np.errstate(over="ignore"):  # overflow to inf is the rounding rule for float16 and bfloat16
        return y.astype(x.dtype)
