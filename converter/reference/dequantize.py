"""Reference for dml.DequantizeLinear: output = (input - zero_point) * scale, element by element.

Written from the seed (shared/seeds/004) and docs/semantics.md: the difference is
exact (int64 holds every uint32 - uint32 and int32 - int32), rounded once to
float32 and multiplied by the scale in float32 (IEEE: a zero scale gives +-0, an
infinite one +-inf or NaN); a float16 output is the float32 product rounded once
(to nearest even; beyond 65504 it is +-inf).
"""

from __future__ import annotations

import numpy as np

from ..network import Layer


def reference(layer: Layer, inputs: list[np.ndarray]) -> np.ndarray:
    x, scale = inputs[0], inputs[1]
    difference = x.astype(np.int64)
    if len(inputs) > 2:
        difference = difference - inputs[2].astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        product = difference.astype(np.float32) * scale.astype(np.float32)
        return product.astype(scale.dtype)
