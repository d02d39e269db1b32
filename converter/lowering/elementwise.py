"""trt.ElementWise (TensorRT IElementWiseLayer): a binary operation with TensorRT broadcasting.

Seed: shared/seeds/002. Inputs must have the same rank; each dimension pair is
equal or one of them is 1. Types follow the seed's table exactly. int8 is
quantized (computed in float32, rounded, saturated); integer division by zero
yields 0. See docs/semantics.md.
"""

from __future__ import annotations

from ..dtypes import BFLOAT16, BOOL, FLOAT16, FLOAT32, INT8, INT32, INT64, DType
from ..errors import SpecError
from ..network import Layer, TensorType
from ..registry import LayerKind, register_layer
from ..schema import Enum
from .builder import Lowered, LoweringContext, NodeBuilder
from .scale import to_int8

ARITHMETIC = (INT8, INT32, INT64, FLOAT16, FLOAT32, BFLOAT16)
COMPARABLE = (INT32, INT64, FLOAT16, FLOAT32, BFLOAT16)
# operation -> (allowed input types T1, output type T2 or None for T2 == T1)
TYPE_TABLE: dict[str, tuple[tuple[DType, ...], DType | None]] = {
    "SUM": (ARITHMETIC, None), "PROD": (ARITHMETIC, None), "MAX": (ARITHMETIC, None),
    "MIN": (ARITHMETIC, None), "SUB": (ARITHMETIC, None), "DIV": (ARITHMETIC, None),
    "POWER": ((INT8, FLOAT16, FLOAT32, BFLOAT16), None), "FLOOR_DIV": (ARITHMETIC, None),
    "AND": ((BOOL,), None), "OR": ((BOOL,), None), "XOR": ((BOOL,), None),
    "EQUAL": (COMPARABLE, BOOL), "GREATER": (COMPARABLE, BOOL), "LESS": (COMPARABLE, BOOL),
}
OPERATIONS = tuple(TYPE_TABLE)
_ONNX_OP = {"SUM": "Add", "PROD": "Mul", "MAX": "Max", "MIN": "Min", "SUB": "Sub", "DIV": "Div", "POWER": "Pow",
            "AND": "And", "OR": "Or", "XOR": "Xor", "EQUAL": "Equal", "GREATER": "Greater", "LESS": "Less"}

# float16 operations computed in float32 with explicit Casts. Where onnxruntime's CPU EP lacks a float16
# kernel it inserts its own Cast to float32 and may merge it with a preceding layer's Cast to float16,
# skipping that rounding (found by tests/fuzz: Scale(x * 1e-12) then EQUAL 0); explicit Casts are kept.
_NO_FP16_KERNEL = "onnxruntime's CPU EP has no float16 kernel for this op; explicit float32 keeps earlier roundings"
FLOAT16_IN_FLOAT32 = {
    "FLOOR_DIV": "floor(a/b) must see the float32 quotient, not one rounded to float16 first",
    "DIV": _NO_FP16_KERNEL, "POWER": _NO_FP16_KERNEL, "EQUAL": _NO_FP16_KERNEL, "GREATER": _NO_FP16_KERNEL,
    "LESS": _NO_FP16_KERNEL,
}

ATTRIBUTES = {"operation": Enum("the binary operation", choices=OPERATIONS)}


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """TensorRT's rule: same rank, each dimension equal or one of them 1. None when it does not apply."""
    if len(a) != len(b):
        return None
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(out)


def check(layer: Layer, in_types) -> TensorType:
    a, b = in_types
    op = layer.attrs["operation"]
    allowed, out_dtype = TYPE_TABLE[op]
    if a.dtype != b.dtype:
        raise SpecError(f"inputs differ in type ({a.dtype} and {b.dtype}); {op} needs both of one type T1", field="inputs")
    if a.dtype not in allowed:
        raise SpecError(f"{op} does not allow {a.dtype}; allowed: {', '.join(t.name for t in allowed)}", field="inputs")
    if a.rank != b.rank:
        raise SpecError(f"inputs have ranks {a.rank} and {b.rank}; TensorRT needs equal ranks (no implicit unsqueeze)", field="inputs")
    shape = broadcast_shape(a.shape, b.shape)
    if shape is None:
        raise SpecError(f"shapes {list(a.shape)} and {list(b.shape)} do not broadcast: each dimension must match or be 1", field="inputs")
    return TensorType(out_dtype or a.dtype, shape)


def lower(layer: Layer, ctx: LoweringContext) -> Lowered:
    b = NodeBuilder(layer)
    op = layer.attrs["operation"]
    dtype = ctx.input_types[0].dtype
    x, y = layer.inputs
    if dtype == INT8 and op not in ("MAX", "MIN"):
        return b.finish(_int8(b, op, x, y))
    if dtype in (INT32, INT64) and op in ("DIV", "FLOOR_DIV"):
        return b.finish(_integer_division(b, op, x, y, dtype, ctx.constant_inputs[1]))
    compute = dtype
    if dtype == BFLOAT16 or (dtype == FLOAT16 and op in FLOAT16_IN_FLOAT32):
        why = ("the CPU EP has no bfloat16 kernels: compute in float32 (exact for bfloat16 values), round once"
               if dtype == BFLOAT16 else FLOAT16_IN_FLOAT32[op])
        x, y = b.cast(x, FLOAT32, why=why), b.cast(y, FLOAT32, why=why)
        compute = FLOAT32
    if op == "FLOOR_DIV":
        z = b.op("Floor", [b.op("Div", [x, y])])
    else:
        z = b.op(_ONNX_OP[op], [x, y])
    if compute != dtype and ctx.output_type.dtype != BOOL:
        z = b.cast(z, dtype, why="round the float32 result once to the output type")
    return b.finish(z)


def _int8(b: NodeBuilder, op: str, x: str, y: str) -> str:
    why = "int8 is quantized in TensorRT: compute in float32, then round and saturate"
    xf, yf = b.cast(x, FLOAT32, why=why), b.cast(y, FLOAT32, why=why)
    if op in ("DIV", "FLOOR_DIV"):
        q = b.op("Div", [xf, yf])
        if op == "FLOOR_DIV":
            q = b.op("Floor", [q])
        # x/0 is +-inf and saturates; 0/0 is NaN and becomes 0. DIV truncates toward zero (the final Cast).
        return to_int8(b, q, may_be_nan=True, rounding="")
    z = b.op(_ONNX_OP[op], [xf, yf])
    # SUM, SUB and PROD of int8 values are exact integers in float32: only POWER needs rounding.
    return to_int8(b, z, may_be_nan=False, rounding="Round" if op == "POWER" else "")


def _integer_division(b: NodeBuilder, op: str, x: str, y: str, dtype: DType, y_const) -> str:
    """int32/int64 DIV (truncating) and FLOOR_DIV that never trap: x/0 = 0, MIN/-1 wraps to MIN."""
    guard_zero = y_const is None or bool((y_const == 0).any())
    guard_neg1 = y_const is None or bool((y_const == -1).any())
    zero, one, minus_one = (b.scalar(n, v, dtype) for n, v in (("zero", 0, ), ("one", 1), ("minus_one", -1)))
    is_zero = b.op("Equal", [y, zero]) if guard_zero else None
    is_neg1 = b.op("Equal", [y, minus_one]) if guard_neg1 else None
    unsafe = [m for m in (is_zero, is_neg1) if m]
    divisor = y
    if unsafe:
        mask = unsafe[0] if len(unsafe) == 1 else b.op("Or", unsafe)
        divisor = b.op("Where", [mask, one, y], why="integer division by 0 or -1 can trap: divide by 1 there instead")
    q = b.op("Div", [x, divisor])  # truncates toward zero
    if op == "FLOOR_DIV":
        # The truncated quotient is one too high where the remainder is non-zero and its sign differs from
        # the divisor's. (onnxruntime's integer Mod with fmod=1 goes through double: inexact for int64.)
        r = b.op("Sub", [x, b.op("Mul", [q, divisor])])
        sign_differs = b.op("Less", [b.op("Mul", [b.op("Sign", [r]), b.op("Sign", [divisor])]), zero])
        q = b.op("Where", [sign_differs, b.op("Sub", [q, one]), q])
    if is_neg1:
        q = b.op("Where", [is_neg1, b.op("Neg", [x]), q], why="x / -1 = -x (MIN wraps to MIN, two's complement)")
    if is_zero:
        q = b.op("Where", [is_zero, zero, q], why="integer division by zero: spec2onnx defines the result as 0")
    return q


register_layer(LayerKind(
    name="trt.ElementWise",
    summary="binary operation with TensorRT broadcasting (same rank; each dim equal or 1)",
    inputs=("input1", "input2"),
    min_inputs=2,
    attributes=ATTRIBUTES,
    check=check,
    lower=lower,
    notes="types per operation as in the seed's table; EQUAL/GREATER/LESS output bool",
))
