"""Quantization scales of int8 tensors in a spec: TensorRT's dynamic range (``ITensor::setDynamicRange``).

A network input, a constant or a layer (its output tensor) may say ``dynamic_range: R`` (the range
[-R, R]) or ``dynamic_range: [MIN, MAX]``; like TensorRT, only symmetric ranges exist, so the larger
of |MIN| and |MAX| is used. The int8 value q then stands for q * scale with scale = R / 127
(float32). What a layer computes with it: ``Network.quantization`` and docs/semantics.md, "int8
quantization scales". Plain data only: the references import ``network``, which uses nothing here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import SpecError
from ..network import Layer, TensorType
from ..schema import parse_number

FIELD = "dynamic_range"
LAYER_HELP = [  # what ``spec2onnx layers`` says under every TensorRT layer kind
    "  dynamic_range (default none): number R or [MIN, MAX]; an int8 output only",
    "      the output tensor's quantization range (TensorRT setDynamicRange): int8 values stand for q * R / 127",
]


def parse_dynamic_range(value: Any, ttype: TensorType) -> float:
    """The scale (range / 127, a float32 value) that ``dynamic_range: value`` gives an int8 tensor."""
    if ttype.dtype.name != "int8":
        raise SpecError(f"a dynamic range is the quantization range of an int8 tensor; this tensor is {ttype.dtype.name}")
    if isinstance(value, list):
        if len(value) != 2:
            raise SpecError(f"expected a number R (the range [-R, R]) or [MIN, MAX], got a list of {len(value)} values")
        low, high = (parse_number(v) for v in value)
        if low > high:
            raise SpecError(f"[{value[0]!r}, {value[1]!r}]: MIN must not be above MAX (TensorRT's setDynamicRange)")
        bound = max(abs(low), abs(high))
    else:
        bound = parse_number(value)
        if bound < 0:
            raise SpecError(f"{value!r} is negative: give the bound R of the range [-R, R], or [MIN, MAX]")
    with np.errstate(over="ignore", under="ignore"):
        scale = np.float32(bound) / np.float32(127)
    if not np.isfinite(scale):
        raise SpecError(f"{value!r} is too large: the scale {bound} / 127 is not a float32 number")
    if not scale > 0:
        raise SpecError(f"{value!r} gives the scale 0 (range / 127): every value would be quantized to 0")
    if scale < np.finfo(np.float32).tiny:  # (OpenVINO 2026.4.1 flushes it: +-1, +-2 came out -128/127, a real 0 -128)
        raise SpecError(f"{value!r} gives the subnormal scale {float(scale):.3g} (range / 127, below float32's smallest "
                        "normal number 1.18e-38): runtimes flush such scales to 0; give a range of at least 1.5e-36")
    return float(scale)


def check_quantized_layers(layers: list[Layer], scales: dict[str, float]) -> None:
    """Only TensorRT layers compute with dynamic ranges (a DirectML layer takes its scale as an input)."""
    for layer in layers:
        if layer.op.startswith("trt."):
            continue
        for j, tensor in enumerate(layer.inputs):
            if tensor in scales:
                raise SpecError(f"{tensor!r} has a dynamic_range (a TensorRT quantization scale), which {layer.op} "
                                f"does not apply: give the scale as the layer's input", field=f"{layer.field}.inputs[{j}]")
        if layer.name in scales:
            raise SpecError(f"{layer.op} does not take a dynamic_range (TensorRT layers do)", field=f"{layer.field}.{FIELD}")
