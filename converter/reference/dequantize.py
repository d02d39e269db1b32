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
    inputs = list(inputs)
    for role, strides in (layer.attrs.get("strides") or {}).items():  # DML_BUFFER_TENSOR_DESC strides
        index = {"scale": 1, "zero_point": 2}[role]
        inputs[index] = strided_view(inputs[index], inputs[0].shape, strides)
    x, scale = inputs[0], inputs[1]
    difference = x.astype(np.int64)
    if len(inputs) > 2:
        difference = difference - inputs[2].astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        product = difference.astype(np.float32) * scale.astype(np.float32)
        return product.astype(scale.dtype)


def strided_view(buffer: np.ndarray, sizes: tuple[int, ...], strides) -> np.ndarray:
    """The tensor DirectML reads from ``buffer`` with these Sizes and Strides (in elements): its memory view."""
    flat = np.ascontiguousarray(buffer).reshape(-1)
    if 0 not in sizes and 1 + sum((n - 1) * s for n, s in zip(sizes, strides)) > flat.size:
        raise ValueError(f"Sizes {list(sizes)} with Strides {list(strides)} read past the {flat.size}-element buffer")
    return np.lib.stride_tricks.as_strided(flat, shape=sizes, strides=[s * flat.itemsize for s in strides], writeable=False)
