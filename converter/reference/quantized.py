"""Reference for TensorRT layers on int8 tensors with a quantization scale (a dynamic range).

TensorRT's rule (docs/semantics.md, "int8 quantization scales"): an int8 value q stands for the
real value q * scale; the layer computes on real values in float32; an int8 output is
round_half_even(y / scale) saturated to [-128, 127] (NaN -> 0). So: dequantize the int8 inputs,
run the layer's float32 reference, quantize the output.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..dtypes import quantize_int8
from ..network import Layer


def run_quantized(fn: Callable[[Layer, list[np.ndarray]], np.ndarray], layer: Layer, inputs: list[np.ndarray],
                  in_scales: Sequence[float | None], out_scale: float | None) -> np.ndarray:
    with np.errstate(over="ignore"):  # (-128 * a scale above FLT_MAX / 128 is -inf, as float32 gives it: no warning)
        real = [x if s is None else x.astype(np.float32) * np.float32(s) for x, s in zip(inputs, in_scales)]
    y = fn(layer, real)
    if out_scale is None:  # not int8 (a comparison's bool): as the float32 layer gives it
        return y
    with np.errstate(all="ignore"):
        return quantize_int8(np.asarray(y, np.float32) / np.float32(out_scale))
