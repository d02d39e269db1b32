"""dml.DequantizeLinear (DirectML DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC).

Seed: shared/seeds/004. output = (input - zero_point) * scale, element by element:
input, scale, zero point and output have the same dimension count and sizes (no
broadcasting), input and zero point share an integer type, the output has the
scale's float type. ``feature_level`` enforces that DirectML level's tensor table.

Arithmetic (docs/semantics.md): input - zero_point is exact (int32/int64), rounded
once to float32, multiplied by the scale in float32; a float16 output is that float32
product rounded once. Every lowering path below gives these bits on onnxruntime's CPU EP.

Paths, best first; the chosen one is named in each node's doc string ("[path] why"):
  native-per-tensor, native-per-axis  constant scale (and zero point) uniform along all
                                      axes / all but one: ONNX DequantizeLinear, opset >= 13
  native-blocked                      a full-shape scale as blocked quantization
                                      (block_size 1 on an axis of length >= 2), opset >= 21
  (native paths to float16 for the GPU and deployment targets: on the CPU EP the decomposition is faster)
  decomposed                          Cast / Sub / Cast / Mul (/ Cast to float16) otherwise
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import FLOAT16, FLOAT32, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, DType
from ..errors import SpecError
from ..network import Layer, TensorType, tensor_type
from ..registry import BuilderHook, LayerKind, register_layer
from ..targets import dla
from ..schema import Attr, Enum
from .builder import Lowered, LoweringContext, NodeBuilder
from .scale import int8_to_float
from .strides import ROLES, Strides, check_strides, lower_strided

INTEGER_TYPES = (INT8, INT16, INT32, UINT8, UINT16, UINT32)
FLOAT_TYPES = (FLOAT32, FLOAT16)
MAX_RANK = 8


@dataclass(frozen=True)
class LevelTable:
    """One 'DML_FEATURE_LEVEL_x and above' tensor-support table of the seed."""

    ranks: tuple[int, int]  # lowest and highest dimension count
    input_types: tuple[DType, ...]  # InputTensor and ZeroPointTensor
    scale_types: tuple[DType, ...]  # ScaleTensor and OutputTensor
    zero_point_optional: bool


FEATURE_LEVELS: dict[str, LevelTable] = {
    "1.0": LevelTable((4, 4), (UINT8,), (FLOAT32,), False),
    "2.1": LevelTable((4, 4), INTEGER_TYPES, (FLOAT32,), False),
    "3.0": LevelTable((1, MAX_RANK), INTEGER_TYPES, (FLOAT32,), False),
    "6.0": LevelTable((1, MAX_RANK), INTEGER_TYPES, FLOAT_TYPES, False),
    "6.2": LevelTable((1, MAX_RANK), INTEGER_TYPES, FLOAT_TYPES, True),
}
NEWEST_LEVEL = "6.2"


@dataclass(frozen=True)
class FeatureLevel(Attr):
    """A DirectML feature level with a DequantizeLinear table, written 6.2 or "6.2"."""

    def parse(self, value: Any) -> str:
        for level in FEATURE_LEVELS:
            if value == level or (isinstance(value, (int, float)) and not isinstance(value, bool) and value == float(level)):
                return level
        raise SpecError(f"{value!r} is not a DirectML feature level with a DequantizeLinear table; allowed: {', '.join(FEATURE_LEVELS)}")

    def describe(self) -> str:
        return " | ".join(FEATURE_LEVELS)


ATTRIBUTES = {
    "feature_level": FeatureLevel("DirectML feature level whose tensor table applies (default: the newest)", default=NEWEST_LEVEL),
    "strides": Strides("DML_BUFFER_TENSOR_DESC strides of the scale / zero point buffers (stride 0 broadcasts)", default={}),
    "output_dtype": Enum("OutputTensor's data type; must be the scale's (default: the scale's)", default="", choices=("float32", "float16")),
}


def _names(types) -> str:
    return ", ".join(t.name for t in types)


def _first_level(allows) -> str:
    """The lowest feature level whose table passes ``allows``, for 'from feature level X' hints."""
    return next(level for level, table in FEATURE_LEVELS.items() if allows(table))


def check(layer: Layer, in_types) -> TensorType:
    x, scale = in_types[0], in_types[1]
    zero_point = in_types[2] if len(in_types) > 2 else None
    x_name, s_name = layer.inputs[0], layer.inputs[1]
    if x.dtype not in INTEGER_TYPES:
        raise SpecError(f"input {x_name!r} is {x.dtype}; dml.DequantizeLinear allows {_names(INTEGER_TYPES)}", field="inputs[0]")
    if scale.dtype not in FLOAT_TYPES:
        raise SpecError(f"scale {s_name!r} is {scale.dtype}; dml.DequantizeLinear allows {_names(FLOAT_TYPES)}", field="inputs[1]")
    if zero_point is not None and zero_point.dtype != x.dtype:
        raise SpecError(f"zero point {layer.inputs[2]!r} is {zero_point.dtype} but input {x_name!r} is {x.dtype}; "
                        "DirectML requires one data type for InputTensor and ZeroPointTensor", field="inputs[2]")
    out_dtype = layer.attrs["output_dtype"]
    if out_dtype and out_dtype != scale.dtype.name:
        raise SpecError(f"output_dtype {out_dtype} differs from scale {s_name!r} ({scale.dtype}); "
                        "DirectML requires one data type for OutputTensor and ScaleTensor", field="output_dtype")
    if not 1 <= x.rank <= MAX_RANK:
        raise SpecError(f"input {x_name!r} has {x.rank} dimensions; DirectML allows 1 to {MAX_RANK}", field="inputs[0]")
    strided = check_strides(layer, in_types)  # a strided tensor is a buffer read through its strides
    for j, (what, t) in enumerate((("scale", scale), ("zero point", zero_point)), start=1):
        if t is not None and j not in strided and not same_sizes(t, x):
            raise SpecError(f"{what} {layer.inputs[j]!r} has shape {t.dims()}, input {x_name!r} has {x.dims()}; "
                            "DirectML requires the same dimension count and sizes (no broadcasting)", field=f"inputs[{j}]")
    _check_level(layer, x, scale, zero_point is not None)
    return tensor_type(scale.dtype, *_output_dims(x, scale, zero_point, strided))


def same_sizes(t: TensorType, x: TensorType) -> bool:
    """Whether ``t`` may have ``x``'s sizes: the same rank, and no two static dimensions that differ (a dynamic one
    is checked at each case's shapes: converter/pipeline/shapes.py)."""
    return t.rank == x.rank and all(a is None or b is None or a == b for a, b in zip(t.shape, x.shape))


def _output_dims(x: TensorType, scale: TensorType, zero_point: TensorType | None, strided) -> tuple[list, list]:
    """The output's sizes (all tensors have the input's): per dimension the static size one of the dense tensors
    gives, else the first name one of them gives."""
    dense = [t for j, t in ((0, x), (1, scale), (2, zero_point)) if t is not None and j not in strided]
    shape, names = [], []
    for axis in range(x.rank):
        shape.append(next((t.shape[axis] for t in dense if t.shape[axis] is not None), None))
        names.append(next((t.name(axis) for t in dense if t.name(axis)), None))
    return shape, names


def _check_level(layer: Layer, x: TensorType, scale: TensorType, has_zero_point: bool) -> None:
    level = layer.attrs["feature_level"]
    table = FEATURE_LEVELS[level]
    low, high = table.ranks
    if not low <= x.rank <= high:
        allowed = f"exactly {low}" if low == high else f"{low} to {high}"
        since = _first_level(lambda t: t.ranks[0] <= x.rank <= t.ranks[1])
        raise SpecError(f"feature_level {level} allows {allowed} dimensions, input {layer.inputs[0]!r} has {x.rank} "
                        f"(allowed from feature level {since})", field="inputs[0]")
    if x.dtype not in table.input_types:
        since = _first_level(lambda t: x.dtype in t.input_types)
        raise SpecError(f"feature_level {level} allows input type {_names(table.input_types)} only, got {x.dtype} "
                        f"(allowed from feature level {since})", field="inputs[0]")
    if scale.dtype not in table.scale_types:
        since = _first_level(lambda t: scale.dtype in t.scale_types)
        raise SpecError(f"feature_level {level} allows scale and output type {_names(table.scale_types)} only, got {scale.dtype} "
                        f"(allowed from feature level {since})", field="inputs[1]")
    if not has_zero_point and not table.zero_point_optional:
        since = _first_level(lambda t: t.zero_point_optional)
        raise SpecError(f"feature_level {level} requires a zero point (inputs: [input, scale, zero_point]); "
                        f"it is optional from feature level {since}", field="inputs")


# --- lowering ----------------------------------------------------------------------------------

# The first opset whose DequantizeLinear takes each input type (uint32 has none), float16 scales, block_size.
DQ_INPUT_OPSET = {INT8: 13, UINT8: 13, INT32: 13, INT16: 21, UINT16: 21}
DQ_FLOAT16_OPSET = 19
DQ_BLOCKED_OPSET = 21


# Targets whose DequantizeLinear to float16 stays one node: one pass on a GPU, and the deployment model of DirectML
# (the seed's own operator) and OpenVINO, whose model is the user's network (the CPU EP's speed is the validating
# machine's concern). Elsewhere (the CPU EP, and portable, which runs there too) a float16 output takes the float32
# decomposition, which is faster on onnxruntime's CPU EP.
NATIVE_FLOAT16_TARGETS = ("ort-cuda", "tensorrt", "tensorrt-dla", "ort-dml", "openvino")


@dataclass(frozen=True)
class Plan:
    path: str  # native-per-tensor | native-per-axis | native-blocked | decomposed
    reason: str
    use_zero_point: bool  # False when there is none, or it is a constant of zeros
    axis: int | None = None


def _same_along(array: np.ndarray, axis: int) -> bool:
    """Whether every slice along ``axis`` equals the first, bit for bit (so -0.0 != 0.0 and NaN == NaN)."""
    bits = array.view(f"u{array.dtype.itemsize}")
    return bool(np.all(bits == np.take(bits, [0], axis=axis)))


def varying_axes(*arrays: np.ndarray | None) -> list[int]:
    """The axes along which any of the (same-shape) constant arrays changes value."""
    present = [a for a in arrays if a is not None]
    if any(a.size == 0 for a in present):
        return list(range(present[0].ndim))
    return [axis for axis in range(present[0].ndim) if not all(_same_along(a, axis) for a in present)]


def compact(array: np.ndarray, keep: list[int]) -> np.ndarray:
    """The array with every axis not in ``keep`` reduced to its first slice (same rank, still broadcastable)."""
    for axis in range(array.ndim):
        if axis not in keep and array.shape[axis] > 1:
            array = np.take(array, [0], axis=axis)
    return array


def _native_blocker(ctx: LoweringContext, use_zero_point: bool) -> str:
    """Why no ONNX DequantizeLinear can compute this layer exactly, or '' when one can."""
    x_type, out = ctx.input_types[0], ctx.output_type.dtype
    if x_type.dtype == UINT32:
        return "ONNX DequantizeLinear has no uint32 input"
    if x_type.size == 0:
        return "empty tensor"
    if ctx.constant_inputs[0] is not None:
        return ("the quantized input is a constant: onnxruntime rewrites DequantizeLinear of constant weights (QDQ "
                "propagation, int8->uint8), which has zeroed negative values (onnxruntime issues 27845, 28491); "
                "Cast/Sub/Mul of constants is folded instead")
    if x_type.dtype == INT32 and use_zero_point:
        return ("int32 with a zero point: ONNX allows no int32 zero point, and onnxruntime subtracts it in int32, "
                "which overflows (2147483647 - (-2147483648))")
    first = DQ_INPUT_OPSET[x_type.dtype]
    if ctx.opset < first:
        return f"opset {ctx.opset} has no {x_type.dtype} DequantizeLinear (from opset {first})"
    if out == FLOAT16 and ctx.opset < DQ_FLOAT16_OPSET:
        return f"opset {ctx.opset} has no float16 DequantizeLinear (from opset {DQ_FLOAT16_OPSET})"
    return ""


def choose_plan(ctx: LoweringContext) -> Plan:
    plan = _choose_plan(ctx)
    if plan.path != "decomposed":
        refusal = _target_refusal(ctx, plan)
        if refusal:
            return Plan("decomposed", refusal, plan.use_zero_point)
    return plan


# The CUDA EP's DequantizeLinear rows (docs/OperatorKernels.md at onnxruntime 001d12d): since-versions 13, 19
# and 21, int8/uint8 only; a node whose since-version is newer (23 and later) gets no CUDA kernel.
CUDA_DQ_TYPES = (INT8, UINT8)
CUDA_DQ_LAST_OPSET = 22


def _target_refusal(ctx: LoweringContext, plan: Plan) -> str:
    """Why the target cannot run this native DequantizeLinear, or '' when it can."""
    x_type = ctx.input_types[0]
    target = ctx.target
    if target.includes("ort-cuda"):
        if x_type.dtype not in CUDA_DQ_TYPES:
            return f"onnxruntime's CUDA EP has no {x_type.dtype} DequantizeLinear kernel (int8 and uint8 only)"
        if plan.path == "native-blocked":
            return ("onnxruntime's CUDA EP computes blocked DequantizeLinear for int4/uint4 only; int8/uint8 fail at "
                    "run time with 'Unsupported quantization type'")
        if ctx.opset > CUDA_DQ_LAST_OPSET:
            return (f"at opset {ctx.opset} DequantizeLinear's since-version is newer than the CUDA EP's kernel "
                    "(registered from 21), so onnxruntime would run it on the CPU")
        if plan.path == "native-per-axis" and x_type.rank < 2:
            return "onnxruntime's CUDA per-axis DequantizeLinear needs an input of rank 2 or more"
    if target.name == "ort-dml" and x_type.dtype not in CUDA_DQ_TYPES:  # tables/ort-dml.json: int8/uint8 (19: int32; 21: int4/uint4)
        return f"onnxruntime's DirectML EP has no {x_type.dtype} DequantizeLinear kernel at every opset (int8 and uint8)"
    if target.includes("openvino") and plan.path == "native-blocked" and not x_type.is_static:
        return ("OpenVINO's ONNX frontend converts blocked DequantizeLinear of a static input only: \"DequantizeLinear "
                "cannot operate with dynamic shapes of input X\" (openvino src/frontends/onnx/frontend/src/op/"
                "dequantize_linear.cpp, opset 21)")
    if target.includes("tensorrt"):
        if x_type.dtype != INT8:
            return f"TensorRT's ONNX parser takes int8 DequantizeLinear only, not {x_type.dtype}"
        if plan.use_zero_point:
            return "TensorRT's ONNX parser requires DequantizeLinear's zero point to be zero"
        if plan.path == "native-blocked":
            return "TensorRT's block quantization is for int4 weights only"
        scale = ctx.constant_inputs[1]
        if scale is not None and not np.all(np.asarray(scale, np.float64) > 0):  # (NaN too)
            return ("onnx-tensorrt imports DequantizeLinear only when its constant scales are all positive "
                    "(onnxOpImporters.cpp:1404); this scale holds a value that is not")
    return ""


def _choose_plan(ctx: LoweringContext) -> Plan:
    shape = ctx.input_types[0].shape
    scale_const = ctx.constant_inputs[1]
    has_zero_point = len(ctx.input_types) == 3
    zp_const = ctx.constant_inputs[2] if has_zero_point else None
    use_zero_point = has_zero_point and not (zp_const is not None and not np.any(zp_const))
    blocker = _native_blocker(ctx, use_zero_point)
    if blocker:
        return Plan("decomposed", blocker, use_zero_point)
    if ctx.output_type.dtype == FLOAT16 and ctx.target.name not in NATIVE_FLOAT16_TARGETS:
        return Plan("decomposed", "float16 output: onnxruntime's CPU DequantizeLinear writes float16 element by element, "
                                  "slower than Cast/Sub/Mul in float32 and one Cast (0.5-1.0 against 1.2-2.0 of the naive "
                                  "form: benchmarks/graphs.py --dequantize-matrix)", use_zero_point)
    if scale_const is not None and (not use_zero_point or zp_const is not None):
        varying = varying_axes(scale_const, zp_const if use_zero_point else None)
        what = "constant scale and zero point" if use_zero_point else "constant scale"
        if not varying:
            return Plan("native-per-tensor", f"the {what} hold one value: per-tensor DequantizeLinear", use_zero_point)
        if len(varying) == 1:
            return Plan("native-per-axis", f"the {what} vary only along axis {varying[0]}: per-axis DequantizeLinear",
                        use_zero_point, varying[0])
    if ctx.opset < DQ_BLOCKED_OPSET:
        return Plan("decomposed", f"a full-shape scale needs blocked DequantizeLinear (opset >= {DQ_BLOCKED_OPSET}), "
                                  f"the target is opset {ctx.opset}", use_zero_point)
    axis = next((i for i, d in enumerate(shape) if d is not None and d >= 2), None)
    if axis is None:
        return Plan("decomposed", f"shape {ctx.input_types[0].dims()} has no static axis of length >= 2 for blocked DequantizeLinear "
                                  "(onnxruntime takes a one-element 1-D scale as per-tensor and then refuses block_size)", use_zero_point)
    return Plan("native-blocked", f"full-shape scale as blocked DequantizeLinear: block_size 1 along axis {axis} "
                                  f"(length {shape[axis]}), one scale per element", use_zero_point, axis)


def lower(layer: Layer, ctx: LoweringContext) -> Lowered:
    if layer.attrs["strides"]:  # the strided buffers become full-shape views first (strides.py)
        return lower_strided(_lower_dense, layer, ctx, choose_plan)
    return _lower_dense(layer, ctx)


def _lower_dense(layer: Layer, ctx: LoweringContext) -> Lowered:
    plan = choose_plan(ctx)
    b = NodeBuilder(layer)
    if plan.path == "decomposed" and _dla_float16(ctx):
        return b.finish(_dla_decomposed(b, layer, ctx, plan))
    if plan.path == "decomposed":
        return b.finish(_decomposed(b, layer, ctx, plan))
    return b.finish(_native(b, layer, ctx, plan))


def _native(b: NodeBuilder, layer: Layer, ctx: LoweringContext, plan: Plan) -> str:
    inputs = [layer.inputs[0]]
    if plan.path == "native-blocked":
        inputs += layer.inputs[1:3] if plan.use_zero_point else layer.inputs[1:2]
        attrs = {"axis": plan.axis, "block_size": 1}
    else:
        keep = [] if plan.axis is None else [plan.axis]
        target = () if plan.axis is None else (-1,)
        inputs.append(b.const("scale", compact(ctx.constant_inputs[1], keep).reshape(target)))
        if plan.use_zero_point:
            inputs.append(b.const("zero_point", compact(ctx.constant_inputs[2], keep).reshape(target)))
        attrs = {} if plan.axis is None else {"axis": plan.axis}
    return b.op("DequantizeLinear", inputs, why=f"[{plan.path}] {plan.reason}", **attrs)


def _dla_float16(ctx: LoweringContext) -> bool:
    return (ctx.target.name == "tensorrt-dla" and ctx.input_types[0].dtype == INT8
            and ctx.output_type.dtype == FLOAT16 and ctx.opset >= DQ_FLOAT16_OPSET)


def _dla_decomposed(b: NodeBuilder, layer: Layer, ctx: LoweringContext, plan: Plan) -> str:
    """tensorrt-dla (FP16 and INT8 only, no Cast layer), int8 -> float16, all in float16 and still exact:
    DequantizeLinear with scale 1 gives each int8 value exactly, x - zero_point (|d| <= 255 < 2^11) is exact,
    and one float16 Mul rounds the exact product (at most 8 + 11 significant bits) once, as the reference's
    float32 product rounded once to float16 does."""
    tag = f"[{plan.path}] tensorrt-dla: in float16 (DLA has no Cast layer), exact"
    constants = [c for c in ctx.constant_inputs[1:] if c is not None]
    keep = varying_axes(*constants) if constants else []
    def to_half(tensor: str) -> str:
        return b.op("DequantizeLinear", [tensor, b.scalar("unit_scale", 1, FLOAT16)], why=f"{tag}: int8 -> float16")
    y = to_half(layer.inputs[0])
    if plan.use_zero_point:
        zp_const = ctx.constant_inputs[2]
        zero_point = (b.const("zero_point", compact(zp_const, keep).astype(np.float16)) if zp_const is not None
                      else to_half(layer.inputs[2]))
        y = b.op("Sub", [y, zero_point], why=f"{tag}: exact difference")
    scale_const = ctx.constant_inputs[1]
    scale = b.const("scale", compact(scale_const, keep).astype(np.float16)) if scale_const is not None else layer.inputs[1]
    return b.op("Mul", [y, scale], why=f"{tag}: one float16 multiplication by the scale")


def _decomposed(b: NodeBuilder, layer: Layer, ctx: LoweringContext, plan: Plan) -> str:
    tag = f"[{plan.path}]"
    x_dtype, out = ctx.input_types[0].dtype, ctx.output_type.dtype
    # Every 8- and 16-bit value and difference (|d| <= 65535 < 2^24) is exact in float32: subtract there.
    # 32-bit differences need 33 bits: subtract in int64, then round once to float32. (float64 is as exact and its
    # Cast to float32 is faster on onnxruntime's CPU EP, but the layer gained 0-5%, within noise; TensorRT has no
    # double and OpenVINO computes it in float32: docs/semantics.md.)
    wide = INT64 if x_dtype in (INT32, UINT32) else FLOAT32
    constants = [c for c in ctx.constant_inputs[1:] if c is not None]
    keep = varying_axes(*constants) if constants else []
    def widen(tensor: str, why: str, to: DType = wide) -> str:
        if x_dtype == INT8:  # float32 either way; a DequantizeLinear with scale 1 where the target casts no int8 (TensorRT)
            return int8_to_float(b, tensor, ctx.target, why)
        return b.cast(tensor, to, why=why)

    if plan.use_zero_point and wide == INT64 and _split_for_openvino(ctx):
        y = _split_difference(b, layer, ctx, tag, compact(ctx.constant_inputs[2], keep)
                              if ctx.constant_inputs[2] is not None else None)
    elif plan.use_zero_point:
        y = widen(layer.inputs[0], f"{tag} {plan.reason}; input - zero_point is computed exactly in {wide}")
        zp_const = ctx.constant_inputs[2]
        if ctx.input_types[2].dtype == FLOAT32:  # -zp: an int8 strided view dequantized for TensorRT (strides.py)
            y = b.op("Add", [y, layer.inputs[2]], why=f"{tag} exact difference: x + (-zp)")
        else:
            zero_point = (b.const("zero_point", compact(zp_const, keep).astype(wide.numpy)) if zp_const is not None
                          else widen(layer.inputs[2], f"{tag} zero point widened exactly to {wide}"))
            y = b.op("Sub", [y, zero_point], why=f"{tag} exact difference")
        if wide != FLOAT32:
            y = b.cast(y, FLOAT32, why=f"{tag} round the exact difference once to float32")
    else:
        y = widen(layer.inputs[0], f"{tag} {plan.reason}; no zero point: round the input once to float32", FLOAT32)
    scale_const = ctx.constant_inputs[1]
    if scale_const is not None:
        scale = b.const("scale", compact(scale_const, keep).astype(np.float32))
    elif out == FLOAT16:
        scale = b.cast(layer.inputs[1], FLOAT32, why=f"{tag} float16 scale widened exactly to float32")
    else:
        scale = layer.inputs[1]
    y = b.op("Mul", [y, scale], why=f"{tag} one float32 multiplication by the scale")
    if out == FLOAT16:
        y = b.cast(y, FLOAT16, why=f"{tag} round the float32 product once to float16")
    return y


def _split_for_openvino(ctx: LoweringContext) -> bool:
    """Whether the exact 32-bit difference avoids 64-bit integers (_split_difference): for openvino, whose CPU plugin
    computes int64 in int32 (values wrap at 32 bits: measured, OpenVINO 2026.4.1). Other targets keep the int64 Sub."""
    return ctx.target.name == "openvino"


SPLIT_WHY = ("exact 32-bit difference without int64 (OpenVINO's CPU plugin computes int64 in int32): each operand as "
             "65536 * h + l with h, l small, the h parts subtracted in float32 and the l parts in int32 (both exact), "
             "the two added in float32: the exact difference rounded once")


def _split_difference(b: NodeBuilder, layer: Layer, ctx: LoweringContext, tag: str, zp_const) -> str:
    """input - zero_point of int32 or uint32 operands, rounded once to float32, in 32-bit arithmetic only.

    Each operand x is 65536 * h + l: h = max(floor((float32(x) - 256) / 65536), LOW) (LOW = -32768 for int32, 0 for
    uint32), and l = x - 65536 * h, computed in x's own type. float32(x) is within 128 of x and, from 2^31 on, a
    multiple of 256, so the subtraction is exact and h is x's high half or one less: 0 <= l < 2^17, and no product or
    difference leaves 32 bits. Then (h_x - h_z) * 65536 and l_x - l_z are exact in float32 (17 and 18 significant
    bits) and their float32 sum is the exact difference rounded once. Every op is opset 13's; OpenVINO's int32
    arithmetic on uint32 keeps the same low 32 bits (measured, OpenVINO 2026.4.1)."""
    x_dtype = ctx.input_types[0].dtype
    why = f"{tag} {SPLIT_WHY}"
    low_bound = -32768 if x_dtype == INT32 else 0

    def parts(tensor: str) -> tuple[str, str]:
        shifted = b.op("Sub", [b.cast(tensor, FLOAT32, why=why), b.scalar("by_256", 256, FLOAT32)], why=why)
        high = b.op("Max", [b.op("Floor", [b.op("Mul", [shifted, b.scalar("by_2_to_minus_16", 2.0**-16, FLOAT32)],
                                                why=why)], why=why), b.scalar("low_bound", low_bound, FLOAT32)], why=why)
        low = b.op("Sub", [tensor, b.op("Mul", [b.cast(high, x_dtype, why=why), b.scalar("by_65536", 65536, x_dtype)],
                                        why=why)], why=why)
        return high, (low if x_dtype == INT32 else b.cast(low, INT32, why=why))

    x_high, x_low = parts(layer.inputs[0])
    if zp_const is not None:  # (exactly the same split, in numpy)
        z = zp_const.astype(np.int64)
        z_high = np.maximum(np.floor((z.astype(np.float32) - np.float32(256)) * np.float32(2.0**-16)), low_bound)
        z_high, z_low = b.const("zero_point_high", z_high.astype(np.float32)), b.const(
            "zero_point_low", (z - z_high.astype(np.int64) * 65536).astype(np.int32))
    else:
        z_high, z_low = parts(layer.inputs[2])
    high = b.op("Mul", [b.op("Sub", [x_high, z_high], why=why), b.scalar("by_65536_f", 65536, FLOAT32)], why=why)
    low = b.cast(b.op("Sub", [x_low, z_low], why=why), FLOAT32, why=why)
    return b.op("Add", [high, low], why=why)


register_layer(LayerKind(
    name="dml.DequantizeLinear",
    summary="output = (input - zero_point) * scale, element by element (DirectML element-wise dequantize)",
    inputs=("input", "scale", "zero_point"),
    min_inputs=2,
    attributes=ATTRIBUTES,
    check=check,
    lower=lower,
    notes="input/zero point int8, int16, int32, uint8, uint16, uint32; scale/output float32, float16; "
          "1 to 8 dims, all inputs of one shape (or scale/zero point buffers read through strides); feature_level 1.0, 2.1, 3.0, 6.0, 6.2 enforce the seed's tables",
    reference=".dequantize:reference",  # converter/reference/dequantize.py
    builder=BuilderHook("dequantize_linear", front="dml", tensors=("input", "scale", "zero_point"),
                        arguments={"output_dtype": "output_dtype", "feature_level": "feature_level"}),
    strategy="tests.fuzz.strategies:dequantize_specs",  # the fuzz tests' valid specs of the kind (never imported here)
    target_rules={"tensorrt-dla": functools.partial(dla.check_strides, roles=ROLES)},
))
