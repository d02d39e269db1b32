"""Reference for trt.Resize: the output shape from the attributes or the shape input, then resize_kernel.resize."""

from __future__ import annotations

import math

import numpy as np

from ..network import MAX_ELEMENTS, Layer
from ..schema import per_dimension
from . import resize_kernel



def output_shape(layer: Layer, x_shape: tuple[int, ...], shape_input: np.ndarray | None = None) -> tuple[int, ...]:
    """TensorRT's b_i: shape_i, floor(a_i * scales_i) (float32, as onnxruntime computes it), or the run-time shape."""
    attrs = layer.attrs
    if shape_input is not None:
        values = np.asarray(shape_input)
        if values.shape != (len(x_shape),):
            raise ValueError(f"the shape input {values.tolist()} must hold {len(x_shape)} values")
        out = tuple(int(v) for v in values)
    elif attrs["shape"] is not None:
        out = tuple(int(v) for v in attrs["shape"])
    else:
        scales = per_dimension(attrs["scales"], len(x_shape))
        out = tuple(a if s == 1 else int(np.floor(np.float32(a) * s)) for a, s in zip(x_shape, scales))
    if any(d < 0 for d in out):
        raise ValueError(f"negative output dimension in {list(out)}")
    if math.prod(out) > MAX_ELEMENTS:
        raise ValueError(f"the output {list(out)} has more than 2^31 elements")
    return out


def reference(layer: Layer, inputs: list[np.ndarray]) -> np.ndarray:
    x = inputs[0]
    out = output_shape(layer, x.shape, inputs[1] if len(inputs) > 1 else None)
    attrs = layer.attrs
    return resize_kernel.resize(
        x, out,
        resize_mode=attrs["resize_mode"],
        coordinate_transformation=attrs["coordinate_transformation"],
        selector_for_single_pixel=attrs["selector_for_single_pixel"],
        nearest_rounding=attrs["nearest_rounding"],
        cubic_coeff=attrs["cubic_coeff"],
    )
