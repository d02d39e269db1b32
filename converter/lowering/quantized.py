"""int8 tensors with a quantization scale (TensorRT's dynamic range): dequantize -> op -> quantize.

A TensorRT layer that reads or writes an int8 tensor with a ``dynamic_range`` (``Network.scales``)
computes on real values: each int8 input ``q`` becomes ``q * scale`` in float32, the layer runs as
its float32 form (the same lowering, given float32 types), and an int8 output is
``saturate(round_half_even(y / scale))``, NaN -> 0. An int8 tensor of such a layer without a range
has scale 1. Layers touching no range keep their own int8 lowering. docs/semantics.md, "int8
quantization scales".
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..dtypes import FLOAT32, INT8
from ..network import Layer, TensorType
from .builder import Lowered, LoweringContext, NodeBuilder
from .scale import to_int8


def lower_quantized(lower, layer: Layer, ctx: LoweringContext, in_scales, out_scale) -> Lowered:
    """``lower`` (the layer kind's lowering) wrapped in dequantize / quantize nodes."""
    b = NodeBuilder(layer)
    inputs, input_types, constants = [], [], []
    for name, ttype, scale, value in zip(layer.inputs, ctx.input_types, in_scales, ctx.constant_inputs):
        if scale is None:  # not an int8 tensor: as it is (e.g. Resize's shape input)
            inputs.append(name)
            input_types.append(ttype)
            constants.append(value)
            continue
        inputs.append(_dequantize(b, name, scale, ctx))
        input_types.append(TensorType(FLOAT32, ttype.shape))
        constants.append(None if value is None else value.astype(np.float32) * np.float32(scale))
    out_type = ctx.output_type
    inner_out = TensorType(FLOAT32, out_type.shape) if out_type.dtype == INT8 else out_type
    inner_layer = dataclasses.replace(layer, name=f"{layer.name}/real", inputs=tuple(inputs))
    inner_ctx = dataclasses.replace(ctx, input_types=tuple(input_types), output_type=inner_out,
                                    constant_inputs=tuple(constants))
    inner = lower(inner_layer, inner_ctx)
    b.lowered.extend(inner)
    y = inner_layer.name
    if out_type.dtype == INT8:
        # (an input whose -128 * scale overflows float32 dequantizes to an infinity, and inf - inf is NaN: a range
        # above 127/128 of float32's largest number, accepted by the loader)
        overflows = any(s is not None and float(s) * 128 > float(np.finfo(np.float32).max) for s in in_scales)
        y = _quantize(b, y, out_scale, ctx, may_be_nan=overflows or _may_be_nan(layer, ctx.constant_inputs))
    return b.finish(y)


def _dequantize(b: NodeBuilder, x: str, scale: float, ctx: LoweringContext) -> str:
    why = "int8 with a dynamic range: dequantize, q * scale in float32"
    if ctx.target.includes("tensorrt"):  # TensorRT's explicit quantization: IDequantizeLayer (same float32 product)
        return b.op("DequantizeLinear", [x, b.scalar("input_scale", scale, FLOAT32)], why=why + " (TensorRT reads int8 only so)")
    x = b.cast(x, FLOAT32, why=why)
    return x if scale == 1.0 else b.op("Mul", [x, b.scalar("input_scale", scale, FLOAT32)], why="dequantize: times the input's scale")


def _may_be_nan(layer: Layer, constants=()) -> bool:
    """Whether the float32 layer can give NaN from finite inputs: not Scale with finite coefficients and no
    power, nor SUM/SUB/PROD/MAX/MIN (finite operands give a finite value or +-inf, never NaN), nor DIV and
    FLOOR_DIV by a constant without zeros (a finite dividend over a nonzero divisor is finite or +-inf)."""
    if layer.op == "trt.ElementWise" and layer.attrs["operation"] in ("DIV", "FLOOR_DIV"):
        divisor = constants[1] if len(constants) > 1 else None
        if divisor is not None and bool(np.all(np.asarray(divisor) != 0)):
            return False
    if layer.op == "trt.Scale":
        coeff = [np.asarray(layer.attrs[k], np.float64) for k in ("scale", "shift")]
        power = np.asarray(layer.attrs["power"])
        return not (all(np.all(np.isfinite(c)) for c in coeff) and (power.size == 0 or np.all(power == 1)))
    return not (layer.op == "trt.ElementWise" and layer.attrs["operation"] in ("SUM", "SUB", "PROD", "MAX", "MIN"))


def _quantize(b: NodeBuilder, y: str, scale: float, ctx: LoweringContext, may_be_nan: bool = True) -> str:
    if ctx.target.includes("tensorrt"):  # IQuantizeLayer: round(y / scale) half to even, clamp (onnxruntime divides too)
        if not may_be_nan and ctx.target.name == "tensorrt-dla":  # no IsNaN/Where layers on DLA; none needed
            return b.op("QuantizeLinear", [y, b.scalar("output_scale", scale, FLOAT32), b.scalar("int8_zero", 0, INT8)],
                        why="quantize: y / scale rounded half to even, saturated to [-128, 127]; the layer cannot "
                            "give NaN from finite values, so no NaN -> 0 (no IsNaN/Where layers on DLA)")
        y = b.op("Where", [b.op("IsNaN", [y]), b.scalar("zero", 0, FLOAT32), y], why="NaN has no int8 value: spec2onnx defines it as 0")
        return b.op("QuantizeLinear", [y, b.scalar("output_scale", scale, FLOAT32), b.scalar("int8_zero", 0, INT8)],
                    why="quantize: y / scale rounded half to even, saturated to [-128, 127] (TensorRT writes int8 only so)")
    if scale != 1.0:
        y = b.op("Div", [y, b.scalar("output_scale", scale, FLOAT32)], why="quantize: divide by the output's scale")
    return to_int8(b, y, may_be_nan=True)
