"""trt.ElementWise (TensorRT IElementWiseLayer): a binary operation with TensorRT broadcasting.

Seed: shared/seeds/002. Inputs must have the same rank; each dimension pair is
equal or one of them is 1. Types follow the seed's table exactly. int8 is
quantized (computed in float32, rounded, saturated); integer division by zero
yields 0. See docs/semantics.md.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import BFLOAT16, BOOL, FLOAT16, FLOAT32, INT8, INT32, INT64, DType
from ..errors import SpecError
from ..network import Layer, TensorType
from ..registry import LayerKind, register_layer
from ..schema import Enum
from .builder import Lowered, LoweringContext, NodeBuilder
from .scale import KEEP_PLUS_ZERO, int8_to_float, to_int8

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

# tensorrt-dla runs FP16 natively and has no Cast layer: these stay in float16. Comparisons are exact, and one
# float16 division rounds the exact quotient once, as float32 then float16 does (24 >= 2 * 11 + 2 bits: double
# rounding is innocuous for + - * /, Figueroa 1995), so the result is the reference's.
DLA_FLOAT16_NATIVE = ("DIV", "EQUAL", "GREATER", "LESS")

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
    if dtype == INT8 and (op not in ("MAX", "MIN") or ctx.target.includes("tensorrt")):
        return b.finish(_int8(b, op, x, y, ctx.target))
    if dtype == INT8 and ctx.target.includes("ort-cuda"):  # MAX/MIN: exact in int32
        why = "onnxruntime's CUDA EP has no int8 Max/Min kernel: compare in int32 (exact), cast back"
        x, y = b.cast(x, INT32, why=why), b.cast(y, INT32, why=why)
        return b.finish(b.cast(b.op(_ONNX_OP[op], [x, y]), INT8, why="the int32 maximum/minimum is one of the int8 inputs"))
    if dtype in (INT32, INT64) and op in ("DIV", "FLOOR_DIV"):
        return b.finish(_integer_division(b, op, x, y, dtype, ctx.constant_inputs[1]))
    compute = dtype
    dla_native = dtype == FLOAT16 and ctx.target.name == "tensorrt-dla" and op in DLA_FLOAT16_NATIVE
    if dtype == BFLOAT16 or (dtype == FLOAT16 and op in FLOAT16_IN_FLOAT32 and not dla_native):
        why = ("the CPU EP has no bfloat16 kernels: compute in float32 (exact for bfloat16 values), round once"
               if dtype == BFLOAT16 else FLOAT16_IN_FLOAT32[op])
        x, y = b.cast(x, FLOAT32, why=why), b.cast(y, FLOAT32, why=why)
        compute = FLOAT32
    if op == "FLOOR_DIV":
        z = b.op("Floor", [b.op("Div", [x, y])])
    elif op in ("SUM", "SUB") and _deleted_as_noop(op, ctx.constant_inputs):
        if op == "SUB":  # x - (-0) is x + (+0)
            y = b.scalar("zero", 0.0, compute)
        z = b.op("Sum", [x, y], why=KEEP_PLUS_ZERO)
    else:
        z = b.op(_ONNX_OP[op], [x, y])
    if compute != dtype and ctx.output_type.dtype != BOOL:
        z = b.cast(z, dtype, why="round the float32 result once to the output type")
    return b.finish(z)


def _deleted_as_noop(op: str, constants) -> bool:
    """Whether onnxruntime's NoopElimination would delete this float Add/Sub although it changes -0.

    It deletes x + c and x - c for a constant c of at most one element equal to 0.0 (-0.0 included):
    right for x + (-0) and x - (+0), which are x, but x + (+0) and x - (-0) turn -0 into +0.
    """
    def zero(value, sign: bool | None):
        if value is None or value.size > 1 or value.dtype.kind in "iub":
            return False
        v = np.asarray(value, np.float32)
        return bool(np.all(v == 0)) and (sign is None or bool(np.all(np.signbit(v)) == sign))
    a, c = constants
    if op == "SUM":
        return zero(a, False) or zero(c, False)
    return zero(c, True)


def _int8(b: NodeBuilder, op: str, x: str, y: str, target) -> str:
    why = "int8 is quantized in TensorRT: compute in float32, then round and saturate"
    xf, yf = int8_to_float(b, x, target, why), int8_to_float(b, y, target, why)
    if op in ("DIV", "FLOOR_DIV"):
        q = b.op("Div", [xf, yf])
        # x/0 is +-inf and saturates; 0/0 is NaN and becomes 0. DIV truncates toward zero, FLOOR_DIV floors.
        rounding = "Trunc" if op == "DIV" and target.includes("tensorrt") else ""  # else the final Cast truncates
        if op == "FLOOR_DIV":
            q = b.op("Floor", [q])
        return to_int8(b, q, may_be_nan=True, rounding=rounding, target=target)
    z = b.op(_ONNX_OP[op], [xf, yf])
    # SUM, SUB, PROD, MAX and MIN of int8 values are exact integers in float32: only POWER needs rounding.
    return to_int8(b, z, may_be_nan=False, rounding="Round" if op == "POWER" else "", target=target)


def _integer_division(b: NodeBuilder, op: str, x: str, y: str, dtype: DType, y_const) -> str:
    """int32/int64 DIV (truncating) and FLOOR_DIV that never trap: x/0 = 0, MIN/-1 wraps to MIN.

    Divide by a divisor that cannot trap, P = |y| (1 where y = 0), and put the sign back on the
    quotient: trunc(x / y) = trunc(x / |y|) * sign(y). |MIN| is MIN itself (two's complement wraps,
    as it does in onnxruntime, CUDA and numpy): P stays MIN, x / MIN is already right, and its
    multiplier is +1. So M = sign(y) * sign(P): 0 where y = 0 (x / 0 = 0), -1 where y = -1 (x * -1
    wraps MIN to MIN, where Div(MIN, -1) would trap). No Equal/Where guards: every node is one cheap
    pass over y, and x goes through one Div and one Mul (benchmarks/graphs.py).
    """
    np_type = np.dtype(dtype.numpy).type
    with np.errstate(over="ignore"):
        if y_const is not None:  # the same arithmetic, done here once
            s = np.sign(y_const).astype(np_type)
            u = np.abs(y_const.astype(np_type))
            p = (u + np.maximum(np_type(1) - u, np_type(0))).astype(np_type)
            m = (s * np.sign(p)).astype(np_type)
            sign, divisor = b.const("sign", s), b.const("divisor", p)
            multiplier = None if np.all(m == 1) else b.const("multiplier", m)
        else:
            why = "integer division must not trap on 0 or MIN / -1: divide by |y| (1 for 0), then multiply by sign(y)"
            magnitude = b.op("Abs", [y], why=why)
            lift = b.op("Max", [b.op("Sub", [b.scalar("one", 1, dtype), magnitude]), b.scalar("zero", 0, dtype)],
                        why="1 where y = 0, else 0 (1 - |MIN| wraps to MIN + 1 < 0): P = |y| is never 0")
            divisor = b.op("Add", [magnitude, lift])
            sign = b.op("Sign", [y])
            multiplier = b.op("Mul", [sign, b.op("Sign", [divisor])], why="sign(y), but +1 for y = MIN (P = |MIN| = MIN)")
    t = b.op("Div", [x, divisor])
    q = b.op("Mul", [t, multiplier], why="x / 0 = 0 and MIN / -1 = MIN (wraps)") if multiplier else t
    if op == "FLOOR_DIV":
        # trunc is one too high where the remainder is non-zero and its sign differs from y's: r * sign(y) < 0.
        # (|r| < |y|, so r * sign(y) cannot overflow. onnxruntime's integer Mod(fmod=1) goes through double.)
        r = b.op("Sub", [x, b.op("Mul", [t, divisor])])
        late = b.op("Less", [b.op("Mul", [r, sign]), b.scalar("zero", 0, dtype)])
        q = b.op("Sub", [q, b.cast(late, dtype, why="floor = trunc - 1 where the remainder's sign differs from y's")])
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
