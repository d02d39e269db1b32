"""Reference for trt.ElementWise, written from the seed's formulas and docs/semantics.md.

Floats compute in float32 and round once to the tensor type (exact for float16 and
bfloat16 inputs). int8 is quantized: float32 math, then round half to even (POWER),
truncate (DIV) or floor (FLOOR_DIV), saturate to [-128, 127], NaN -> 0.
int32/int64 are exact integers: wrap-around on overflow, DIV truncates toward zero,
x / 0 = 0.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import quantize_int8
from ..network import Layer
from .powf import powf

_FLOAT_OPS = {
    "SUM": np.add, "PROD": np.multiply, "MAX": np.maximum, "MIN": np.minimum, "SUB": np.subtract,
    "DIV": np.divide, "POWER": powf, "FLOOR_DIV": lambda a, b: np.floor(np.divide(a, b)),
    "EQUAL": np.equal, "GREATER": np.greater, "LESS": np.less,
}
_BOOL_OPS = {"AND": np.logical_and, "OR": np.logical_or, "XOR": np.logical_xor}


def reference(layer: Layer, inputs: list[np.ndarray]) -> np.ndarray:
    a, b = inputs
    op = layer.attrs["operation"]
    if op in _BOOL_OPS:
        return _BOOL_OPS[op](a, b)
    with np.errstate(all="ignore"):
        if a.dtype == np.int8:
            return _int8(op, a, b)
        if a.dtype.kind == "i":
            return _integer(op, a, b)
        z = _FLOAT_OPS[op](a.astype(np.float32), b.astype(np.float32))
        return z if z.dtype == np.bool_ else z.astype(a.dtype)  # overflow to inf is the rounding rule


def _int8(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if op in ("MAX", "MIN"):
        return _FLOAT_OPS[op](a, b)
    z = _FLOAT_OPS[op](a.astype(np.float32), b.astype(np.float32))
    if op == "DIV":
        z = np.trunc(z)
    return quantize_int8(z)


def _integer(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if op in ("EQUAL", "GREATER", "LESS", "MAX", "MIN", "SUM", "PROD", "SUB"):
        return _FLOAT_OPS[op](a, b).astype(a.dtype) if op not in ("EQUAL", "GREATER", "LESS") else _FLOAT_OPS[op](a, b)
    a, b = np.broadcast_arrays(a, b)
    zero, neg1 = b == 0, b == -1
    safe = np.where(zero | neg1, 1, b).astype(a.dtype)
    floored = np.floor_divide(a, safe)
    if op == "DIV":  # truncate toward zero: floor, plus one where the division was inexact and signs differ
        inexact = (a - floored * safe) != 0
        floored = floored + (inexact & ((a < 0) != (safe < 0))).astype(a.dtype)
    out = np.where(neg1, np.negative(a), floored)
    return np.where(zero, 0, out).astype(a.dtype)
