"""trt.Scale (TensorRT IScaleLayer): output = (input * scale + shift) ^ power.

Seed: shared/seeds/000 (English) and 001 (Chinese). Coefficients apply per
tensor (UNIFORM), per channel (CHANNEL: indexed by a[channel_axis]) or per
element (ELEMENTWISE: indexed by a[channel_axis:]). The computation is done in
float32 and rounded once to the input type; int8 is quantized (round half to
even, saturate to [-128, 127]). See docs/semantics.md.
"""

from __future__ import annotations

import numpy as np

from ..brief import counted
from ..dtypes import BFLOAT16, FLOAT16, FLOAT32, INT8, DType
from ..errors import SpecError
from ..network import Layer, TensorType
from ..registry import BuilderHook, LayerKind, register_layer
from ..targets import dla
from ..schema import Enum, Number, NumberArray
from .builder import Lowered, LoweringContext, NodeBuilder

MODES = ("UNIFORM", "CHANNEL", "ELEMENTWISE")
TYPES = (INT8, FLOAT16, FLOAT32, BFLOAT16)
DEFAULTS = {"scale": 1.0, "shift": 0.0, "power": 1.0}
EMPTY = np.zeros(0, np.float32)

ATTRIBUTES = {
    "mode": Enum("how coefficients are shared: one for all, one per channel, one per element", choices=MODES),
    "scale": NumberArray("scale coefficients; empty means 1", default=EMPTY),
    "shift": NumberArray("shift coefficients; empty means 0", default=EMPTY),
    "power": NumberArray("power coefficients; empty means 1", default=EMPTY),
    "channel_axis": Number("index of the channel axis (CHANNEL, ELEMENTWISE)", default=1, integer=True, minimum=0),
}


def coefficient_shape(mode: str, shape: tuple[int, ...], channel_axis: int) -> tuple[int, ...]:
    """The shape a coefficient tensor has, aligned to the trailing axes of the input."""
    if mode == "UNIFORM":
        return ()
    if mode == "CHANNEL":
        return (shape[channel_axis],) + (1,) * (len(shape) - channel_axis - 1)
    return tuple(shape[channel_axis:])


def check(layer: Layer, in_types) -> TensorType:
    (x,) = in_types
    if x.dtype not in TYPES:
        raise SpecError(f"input {layer.inputs[0]!r} is {x.dtype}; trt.Scale allows {', '.join(t.name for t in TYPES)}", field="inputs[0]")
    if x.rank < 4:
        raise SpecError(f"input {layer.inputs[0]!r} has rank {x.rank}; trt.Scale needs rank >= 4", field="inputs[0]")
    mode, axis = layer.attrs["mode"], layer.attrs["channel_axis"]
    if axis >= x.rank:
        raise SpecError(f"{axis} is not an axis of the rank-{x.rank} input (0 to {x.rank - 1})", field="channel_axis")
    target = coefficient_shape(mode, x.shape, axis)
    for key in DEFAULTS:
        values = layer.attrs[key]
        if values.size == 0:
            continue
        if None in target:
            dynamic = [a for a in range(axis, x.rank) if x.shape[a] is None][0]
            raise SpecError(f"{mode} coefficients are indexed by dimension {dynamic} of input {layer.inputs[0]!r} "
                            f"({x}), which is dynamic: TensorRT's weights have a fixed size, so the dimensions they "
                            "index must be build-time constants (TensorRT guide, Dynamic Shapes, restrictions)", field=key)
        count = int(np.prod(target, dtype=np.int64))
        if mode != "UNIFORM" and values.ndim > 1 and values.shape != tuple(x.shape[axis:]):
            raise SpecError(f"nested shape {list(values.shape)} does not match the input's {list(x.shape[axis:])} (axes {axis}..{x.rank - 1})", field=key)
        if values.size != count:
            name = layer.inputs[0]
            what = {"UNIFORM": "1 value",
                    "CHANNEL": f"{counted(count, 'value')} (one per channel: input {name!r} has {x.shape[axis]} along "
                               f"axis {axis})",
                    "ELEMENTWISE": f"{counted(count, 'value')} (one per element of axes {axis}..{x.rank - 1} of input "
                                   f"{name!r}, {list(x.shape[axis:])})"}[mode]
            raise SpecError(f"{mode} needs {what} or none, got {values.size}", field=key)
    return x


def coefficients(layer: Layer, shape: tuple[int, ...], dtype: DType = FLOAT32) -> dict[str, np.ndarray | None]:
    """Each coefficient reshaped for broadcasting, or None where it is empty or may be dropped.

    A scale of 1 and a power of 1 are dropped: ``x * 1`` and ``powf(x, 1)`` are ``x`` for every x,
    signed zeros and NaN included. A shift of 0 is subtler: ``x + (-0.0)`` is ``x`` for every x, but
    ``x + (+0.0)`` turns -0 into +0 (IEEE 754, round to nearest: the sum of opposite zeros is +0),
    which ``1 / x`` or an odd power carries to the output (-inf instead of +inf). So a shift of zeros
    is dropped only when every one is -0.0, or when the sign of a zero cannot reach the output.
    """
    target = coefficient_shape(layer.attrs["mode"], shape, layer.attrs["channel_axis"])
    out = {}
    for key, default in DEFAULTS.items():
        values = layer.attrs[key]
        out[key] = None if values.size == 0 else values.astype(np.float32).reshape(target)
    for key in ("scale", "power"):
        if out[key] is not None and np.all(out[key] == DEFAULTS[key]):
            out[key] = None
    shift = out["shift"]
    if shift is not None and np.all(shift == 0.0):
        may_be_minus_zero = dtype != INT8 or out["scale"] is not None  # int8 -> float32 never gives -0
        if np.all(np.signbit(shift)) or not (may_be_minus_zero and zero_sign_reaches_output(out["power"], dtype)):
            out["shift"] = None
    return out


def zero_sign_reaches_output(power: np.ndarray | None, dtype: DType) -> bool:
    """Whether +0 and -0 entering the power step can give different outputs (docs/semantics.md, Scale).

    ``powf(+-0, p)`` differs in sign only for an odd integer p (+-0 for p > 0, +-inf for p < 0); a
    uniform power of 0.5 (a 0-d coefficient) is lowered to ``Sqrt``, and ``sqrt(-0)`` is -0. No power
    passes the zero through. int8 outputs lose the sign of a zero, not of an infinity (127 / -128).
    """
    if power is None:
        return dtype != INT8
    p = power.astype(np.float64)
    odd = (np.mod(p, 2) == 1) & (p == np.round(p))
    if dtype == INT8:
        return bool(np.any(odd & (p < 0)))
    return bool(np.any(odd)) or (power.ndim == 0 and float(power) == 0.5)


def lower(layer: Layer, ctx: LoweringContext) -> Lowered:
    b = NodeBuilder(layer)
    x_type = ctx.input_types[0]
    coeff = coefficients(layer, x_type.shape, x_type.dtype)
    y = layer.inputs[0]
    if all(v is None for v in coeff.values()):
        if ctx.target.deployment and x_type.dtype in (FLOAT16, FLOAT32):
            # still one layer (DLA has no Identity layer): x * 1, which is x for every x (-0 and NaN included)
            return b.finish(b.op("Mul", [y, b.scalar("one", 1, x_type.dtype)],
                                 why="a Scale without coefficients: x * 1, one layer (no Identity layer on DLA)"))
        if x_type.dtype == INT8 and ctx.target.includes("tensorrt"):  # no int8 Identity there: Q/DQ with scale 1 (exact)
            why = "int8 is quantized in TensorRT: the unchanged input through DequantizeLinear / QuantizeLinear"
            y = to_int8(b, int8_to_float(b, y, ctx.target, why), may_be_nan=False, rounding="", target=ctx.target)
        return b.finish(y)
    if ctx.target.deployment and x_type.dtype in (FLOAT16, FLOAT32):
        return b.finish(_deployment(b, layer, y, x_type, coeff))
    if x_type.dtype != FLOAT32:
        why = {INT8: "int8 is quantized in TensorRT: compute in float32, then round half to even and saturate",
               FLOAT16: "compute in float32 and round once to float16, as the reference does",
               BFLOAT16: "the CPU EP has no bfloat16 Mul/Add/Pow; compute in float32, round once to bfloat16"}[x_type.dtype]
        y = int8_to_float(b, y, ctx.target, why) if x_type.dtype == INT8 else b.cast(y, FLOAT32, why=why)
    channels = _per_channel_affine(layer, x_type.shape, coeff) if ctx.target.preferences.get("scale_batchnorm") else None
    if channels is not None:
        y = _batch_norm(b, y, *channels)
    else:
        if coeff["scale"] is not None:
            y = b.op("Mul", [y, b.const("scale", coeff["scale"])])
        if coeff["shift"] is not None:
            y = add_constant(b, y, b.const("shift", coeff["shift"]), coeff["shift"])
    if coeff["power"] is not None:
        y = _power(b, y, coeff["power"])
    if x_type.dtype == INT8:
        y = to_int8(b, y, may_be_nan=coeff["power"] is not None and not np.all(coeff["power"] == np.round(coeff["power"])),
                    target=ctx.target)
    elif x_type.dtype != FLOAT32:
        y = b.cast(y, x_type.dtype, why="round the float32 result once to the output type")
    return b.finish(y)


DEPLOYMENT_WHY = ("TensorRT runs the layer in its own type: one IScaleLayer (BatchNormalization, onnx-tensorrt "
                  "onnxOpImporters.cpp BatchNormalization importer) or its one IElementWiseLayer per coefficient")


def _deployment(b: NodeBuilder, layer: Layer, y: str, x_type: TensorType, coeff: dict) -> str:
    """The deployment form (tensorrt, tensorrt-dla): in the input's type, no Casts. Per tensor or per channel on
    axis 1, scale and shift are one BatchNormalization (mean 0, variance 1, epsilon 0), which onnx-tensorrt
    imports as one IScaleLayer (kCHANNEL); else Mul and Add. A power is one more node (Pow, or Mul/Sqrt/Reciprocal).
    Coefficients take the input's type: float16 weights are rounded to float16, as TensorRT does with a warning;
    the reference for these targets rounds them the same way (converter/reference/scale.py)."""
    dtype = x_type.dtype
    cast = {k: None if v is None else v.astype(dtype.numpy) for k, v in coeff.items()}
    for key, value in coeff.items():
        if value is not None and np.any((cast[key].astype(np.float32) != value) & ~np.isnan(value)):
            b.lowered.legalizations.append(f"{layer.name}: warning: {key} holds values that {dtype} cannot hold: "
                                           f"rounded to {dtype}, as TensorRT does with FP16 weights")
    channels = _per_channel_affine(layer, x_type.shape, cast)
    if channels is not None:
        y = _batch_norm(b, y, *channels)
    else:
        if cast["scale"] is not None:
            y = b.op("Mul", [y, b.const("scale", cast["scale"])])
        if cast["shift"] is not None:
            y = b.op("Add", [y, b.const("shift", cast["shift"])])  # (the host copy keeps a +0: legalize.py)
    if cast["power"] is not None:
        y = _power(b, y, cast["power"])
    return y


def _per_channel_affine(layer: Layer, shape: tuple[int, ...], coeff: dict):
    """(scale, shift) as vectors over axis 1 when x * scale + shift can be one BatchNormalization, else None.

    That needs both coefficients (one of them alone is already a single pass) applying per tensor, or
    per channel along axis 1, BatchNormalization's channel axis. Only for the CPU EP (the caller), whose
    kernel is measured to round the product and the sum separately; another EP may fuse them (FMA).
    """
    mode, axis = layer.attrs["mode"], layer.attrs["channel_axis"]
    if coeff["scale"] is None or coeff["shift"] is None or shape[1] in (0, None):
        return None
    if mode == "UNIFORM" or (mode == "CHANNEL" and axis == 1):
        return tuple(np.broadcast_to(coeff[k].reshape(-1)[:shape[1]] if mode == "CHANNEL" else coeff[k].reshape(()),
                                     (shape[1],)).copy() for k in ("scale", "shift"))
    return None


def _batch_norm(b: NodeBuilder, y: str, scale: np.ndarray, shift: np.ndarray) -> str:
    """x * scale + shift in one pass: BatchNormalization with mean 0, variance 1, epsilon 0.

    onnxruntime folds that into x * (scale / sqrt(1 + 0)) + (shift - 0 * scale): exactly scale and
    shift, then a multiply and an add rounded separately, as the reference does (bit-identical,
    tests/lowering/test_scale_lowering.py), signed zeros included. TensorRT's ONNX parser imports it as
    an IScaleLayer.
    """
    channels = scale.shape[0]
    # The mean is a zero with the scale's sign, so that mean * scale is +0 and shift - mean * scale keeps a
    # shift of -0.0 (with mean +0 and a negative scale it would be -0 - (-0) = +0, and -0 * scale + shift +0).
    mean = np.copysign(np.zeros(channels, scale.dtype), scale)
    inputs = [y, b.const("scale", scale), b.const("shift", shift),
              b.const("mean", mean), b.const("variance", np.ones(channels, scale.dtype))]
    return b.op("BatchNormalization", inputs, epsilon=0.0,
                why="x * scale + shift in one pass (mean 0, variance 1, epsilon 0 leave scale and shift exact)")


KEEP_PLUS_ZERO = ("x + 0 turns -0 into +0 (IEEE 754), which the result keeps; Sum, because onnxruntime's "
                  "NoopElimination deletes Add(x, 0) (level basic and above)")


def add_constant(b: NodeBuilder, y: str, name: str, value: np.ndarray) -> str:
    """y + value for a constant ``value``: Add, or Sum where value is a zero that onnxruntime would delete.

    onnxruntime's NoopElimination removes Add/Sub of a constant zero of at most one element (it compares
    the value with 0.0, so -0.0 too), which changes x = -0 from +0 to -0: Sum computes the same sum
    and is left alone (tests/lowering/test_scale_lowering.py, test_elementwise_lowering.py).
    """
    if value.size <= 1 and np.all(value == 0):
        return b.op("Sum", [y, name], why=KEEP_PLUS_ZERO)
    return b.op("Add", [y, name])


def _power(b: NodeBuilder, y: str, power: np.ndarray) -> str:
    """x ** power, with cheaper ops than Pow for the common uniform powers (docs/semantics.md, Scale).

    Only a UNIFORM power (a 0-d coefficient) takes the shortcuts: per-channel and per-element powers
    are powf's, also where they all happen to be equal (powf(-inf, 0.5) is +inf, sqrt(-inf) NaN).
    """
    if power.ndim == 0:
        p = float(power)
        if p == 2.0:
            return b.op("Mul", [y, y])  # exactly pow(x, 2): one rounding of x*x
        # 3 stays Pow: onnxruntime's Pow computes a scalar exponent of 3 (and 2) in one fused pass,
        # faster than two Mul passes (benchmarks/graphs.py).
        if p == 0.5:
            return b.op("Sqrt", [y])  # pow(x, 0.5) except x = -inf (sqrt: NaN, pow: +inf)
        if p == -1.0:
            return b.op("Reciprocal", [y])  # exactly pow(x, -1): one rounding of 1/x
    return b.op("Pow", [y, b.const("power", power)])


def to_int8(b: NodeBuilder, y: str, *, may_be_nan: bool, rounding: str = "Round", target=None) -> str:
    """float32 -> int8 the TensorRT way: round half to even, saturate; NaN becomes 0.

    ``rounding`` "Round" rounds half to even, "Trunc" truncates toward zero, "" means y is already
    integral. For a target that includes tensorrt (onnx-tensorrt casts no int8: int8 is a quantized
    type there) the result is QuantizeLinear(y, 1, int8 0), which rounds half to even and saturates.
    """
    if may_be_nan:
        y = b.op("Where", [b.op("IsNaN", [y]), b.scalar("zero", 0, FLOAT32), y], why="NaN has no int8 value: spec2onnx defines it as 0")
    if rounding == "Trunc":
        # trunc(y) = sign(y) * floor(|y|): exact, and +-inf stay +-inf (they saturate below)
        y = b.op("Mul", [b.op("Sign", [y]), b.op("Floor", [b.op("Abs", [y])])], why="int8 result: truncate toward zero")
    if target is not None and target.includes("tensorrt"):
        return b.op("QuantizeLinear", [y, b.scalar("unit_scale", 1, FLOAT32), b.scalar("int8_zero", 0, INT8)],
                    why="int8 result: QuantizeLinear with scale 1 rounds half to even and saturates to [-128, 127] "
                        "(TensorRT takes int8 only through quantization)")
    if rounding == "Round":
        y = b.op(rounding, [y], why="int8 result: round (half to even) before saturating")
    y = b.op("Clip", [y, b.scalar("int8_min", -128, FLOAT32), b.scalar("int8_max", 127, FLOAT32)], why="int8 result: saturate to [-128, 127]")
    return b.cast(y, INT8, why="int8 result: the value is already integral and in range")


def int8_to_float(b: NodeBuilder, x: str, target, why: str) -> str:
    """int8 -> float32, exactly: Cast, or DequantizeLinear with scale 1 for a target that includes tensorrt."""
    if target is not None and target.includes("tensorrt"):
        return b.op("DequantizeLinear", [x, b.scalar("unit_scale", 1, FLOAT32)],
                    why=why + " (DequantizeLinear with scale 1: TensorRT takes int8 only through dequantization)")
    return b.cast(x, FLOAT32, why=why)


register_layer(LayerKind(
    name="trt.Scale",
    summary="output = (input * scale + shift) ^ power, coefficients per tensor, channel or element",
    inputs=("input",),
    min_inputs=1,
    attributes=ATTRIBUTES,
    check=check,
    lower=lower,
    notes="types int8, float16, float32, bfloat16; rank >= 4; output type = input type",
    reference=".scale:reference",  # converter/reference/scale.py
    builder=BuilderHook("add_scale", layer="IScaleLayer", arguments={
        "mode": "mode", "shift": "shift", "scale": "scale", "power": "power", "channel_axis": "channel_axis"}),
    strategy="tests.fuzz.strategies:scale_specs",  # the fuzz tests' valid specs of the kind (never imported here)
    target_rules={"tensorrt-dla": dla.check_scale},
))
