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
from ..network import Layer, TensorType, tensor_type
from ..registry import BuilderHook, LayerKind, register_layer
from ..targets import dla
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
# kernel it inserts its own Casts around the op (to float32, then back to float16) and merges its closing Cast with
# a following Cast to float32, so the next layer reads the unrounded value: found by tests/fuzz twice, Scale(x * 1e-12)
# then EQUAL 0, and float16 SUM then POWER (fuzz seed 3545243378: 2 ulp off, and (-3)^(-3) read as NaN because the
# exponent 2.999999 was never rounded to 3). Explicit Casts are kept (measured: Cast f32->f16->f32 of ours rounds at
# every optimization level), so every op without a float16 CPU kernel (Add, Sub, Mul, Div, Pow, Equal, Greater,
# Less: ../shared/reference/ort-cpu-kernels.md; Max and Min have one) computes in float32 and rounds once, itself.
# DIV, POWER and the comparisons do so on every target but the deployment forms (as before); SUM, SUB and PROD only
# where the model must run on the CPU EP (ort-cpu, portable): the CUDA and DirectML EPs have float16 Add/Sub/Mul.
_NO_FP16_KERNEL = "onnxruntime's CPU EP has no float16 kernel for this op; explicit float32 keeps every rounding"
FLOAT16_IN_FLOAT32 = {
    "FLOOR_DIV": "floor(a/b) must see the float32 quotient, not one rounded to float16 first",
    **{op: _NO_FP16_KERNEL for op in ("DIV", "POWER", "EQUAL", "GREATER", "LESS")},
}
FLOAT16_IN_FLOAT32_ON_CPU = {op: _NO_FP16_KERNEL for op in ("SUM", "SUB", "PROD")}

# The deployment form (tensorrt, tensorrt-dla: ctx.target.deployment) keeps float16 and float32 in their type: one
# ONNX op per operation, which onnx-tensorrt imports as one IElementWiseLayer. One float16 + - * / rounds the exact
# result once, as float32 then float16 does (24 >= 2 * 11 + 2 bits: double rounding is innocuous, Figueroa 1995);
# the host runs a copy computed in float32 and rounded at the layer's output (converter/pipeline/legalize.py).
INTEGER_DIVISION = ("integer DIV/FLOOR_DIV: spec2onnx defines x / 0 = 0 and MIN / -1 = MIN, which one Div leaves "
                    "undefined (a trap on onnxruntime); these are the fewest exact nodes (docs/deployment.md)")
FLOAT_FLOOR_DIV = ("FLOOR_DIV: onnx-tensorrt imports no ONNX op as kFLOOR_DIV (onnxOpImporters.cpp), so Div then Floor: "
                   "the fewest exact nodes (docs/deployment.md)")

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


def broadcast_type(dtype, a: TensorType, b: TensorType) -> TensorType | None:
    """broadcast_shape with dynamic dimensions: a dynamic one against 1 is itself (its name kept), against a static
    n > 1 it is n (it must be n or 1 at run time), against another dynamic one of the same name itself, else unknown
    (checked at each case's shapes: converter/pipeline/shapes.py). None when static dimensions do not broadcast."""
    if a.rank != b.rank:
        return None
    shape, names = [], []
    for axis, (x, y) in enumerate(zip(a.shape, b.shape)):
        nx, ny = a.name(axis), b.name(axis)
        if x is not None and y is not None:
            if x != y and 1 not in (x, y):
                return None
            shape.append(y if x == 1 else x)
            names.append(None)
        elif x is None and y is None:
            shape.append(None)
            names.append(nx if nx == ny else None)
        else:
            known, name = (x, ny) if x is not None else (y, nx)
            shape.append(None if known == 1 else known)
            names.append(name if known == 1 else None)
    return tensor_type(dtype, shape, names)


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
    out = broadcast_type(out_dtype or a.dtype, a, b)
    if out is None:
        raise SpecError(f"shapes {a.dims()} and {b.dims()} do not broadcast: each dimension must match or be 1", field="inputs")
    return out


def lower(layer: Layer, ctx: LoweringContext) -> Lowered:
    b = NodeBuilder(layer)
    op = layer.attrs["operation"]
    dtype = ctx.input_types[0].dtype
    x, y = layer.inputs
    if dtype == INT8 and (op not in ("MAX", "MIN") or ctx.target.includes("tensorrt")):
        return b.finish(_int8(b, op, x, y, ctx.target, divisor=ctx.constant_inputs[1]))
    if dtype == INT8 and ctx.target.includes("ort-cuda"):  # MAX/MIN: exact in int32
        why = "onnxruntime's CUDA EP has no int8 Max/Min kernel: compare in int32 (exact), cast back"
        x, y = b.cast(x, INT32, why=why), b.cast(y, INT32, why=why)
        return b.finish(b.cast(b.op(_ONNX_OP[op], [x, y]), INT8, why="the int32 maximum/minimum is one of the int8 inputs"))
    if dtype in (INT32, INT64) and op in ("DIV", "FLOOR_DIV"):
        divisor, output = ctx.input_types[1].size, ctx.output_type.size  # None: dynamic (a plugin's layer, say)
        small = divisor is not None and output is not None and divisor * 16 <= output
        result = _integer_division(b, op, x, y, dtype, ctx.constant_inputs[1], ctx.target, small)
        if ctx.target.deployment:  # every extra node of a deployment model says why it is there
            for node in b.lowered.nodes:
                node.doc_string = node.doc_string or INTEGER_DIVISION
        return b.finish(result)
    compute = dtype
    deployment = ctx.target.deployment and dtype in (FLOAT16, FLOAT32)  # the target's own type, no Casts
    widen = {**FLOAT16_IN_FLOAT32, **(FLOAT16_IN_FLOAT32_ON_CPU if ctx.target.includes("ort-cpu") else {})}
    if not deployment and (dtype == BFLOAT16 or (dtype == FLOAT16 and op in widen)):
        why = ("the CPU EP has no bfloat16 kernels: compute in float32 (exact for bfloat16 values), round once"
               if dtype == BFLOAT16 else widen[op])
        x, y = b.cast(x, FLOAT32, why=why), b.cast(y, FLOAT32, why=why)
        compute = FLOAT32
    if op == "FLOOR_DIV":
        z = b.op("Floor", [b.op("Div", [x, y], why=FLOAT_FLOOR_DIV if deployment else "")],
                 why=FLOAT_FLOOR_DIV if deployment else "")
    elif op in ("SUM", "SUB") and not deployment and _deleted_as_noop(op, ctx.constant_inputs):
        # (a deployment model keeps Add/Sub, its importer's op; the host copy makes it a Sum: converter/pipeline/legalize.py)
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
        if value is None or value.size != 1 or value.dtype.kind in "iub":  # (an empty one: nothing to keep, and a
            # scalar zero in its place would broadcast the empty result to a non-empty one; found by tests/fuzz)
            return False
        v = np.asarray(value, np.float32)
        return bool(np.all(v == 0)) and (sign is None or bool(np.all(np.signbit(v)) == sign))
    a, c = constants
    if op == "SUM":
        return zero(a, False) or zero(c, False)
    return zero(c, True)


def _int8(b: NodeBuilder, op: str, x: str, y: str, target, divisor=None) -> str:
    why = "int8 is quantized in TensorRT: compute in float32, then round and saturate"
    # A constant divisor without zeros never gives 0/0: no NaN -> 0 step (no IsNaN/Where, which DLA lacks)
    nan_free = divisor is not None and bool(np.all(np.asarray(divisor) != 0))
    xf, yf = int8_to_float(b, x, target, why), int8_to_float(b, y, target, why)
    if op in ("DIV", "FLOOR_DIV"):
        q = b.op("Div", [xf, yf])
        # x/0 is +-inf and saturates; 0/0 is NaN and becomes 0. DIV truncates toward zero, FLOOR_DIV floors.
        rounding = "Trunc" if op == "DIV" and target.includes("tensorrt") else ""  # else the final Cast truncates
        if op == "FLOOR_DIV":
            q = b.op("Floor", [q])
        return to_int8(b, q, may_be_nan=not nan_free, rounding=rounding, target=target)
    z = b.op(_ONNX_OP[op], [xf, yf])
    # SUM, SUB, PROD, MAX and MIN of int8 values are exact integers in float32: only POWER needs rounding.
    return to_int8(b, z, may_be_nan=False, rounding="Round" if op == "POWER" else "", target=target)


def _integer_division(b: NodeBuilder, op: str, x: str, y: str, dtype: DType, y_const, target,
                      small_divisor: bool) -> str:
    """int32/int64 DIV (truncating) and FLOOR_DIV that never trap: x / 0 = 0, MIN / -1 wraps to MIN.

    No Div here ever sees a divisor of 0, nor -1 (Div(MIN, -1) kills onnxruntime with SIGFPE), and no
    Equal/Where guards (they cost more than the Div on onnxruntime's CPU EP). The identities and why
    nothing overflows are in docs/semantics.md; tests/lowering/test_elementwise_lowering.py checks every
    pair of edge values against Python's exact integers.
    """
    if y_const is not None:
        return _constant_division(b, op, x, np.asarray(y_const), dtype, target)
    if op == "FLOOR_DIV" and small_divisor:
        return _floor_by_small_divisor(b, x, y, dtype, target)
    zero, minus_one = b.scalar("zero", 0, dtype), b.scalar("minus_one", -1, dtype)
    # P = max(y, |min(y, -1)|) is y for y > 0, 1 for y = 0, |y| for y < 0 and MIN for MIN (|MIN| wraps to MIN,
    # and x / MIN is exact). P is never 0 or -1, and trunc(x / y) = trunc(x / P) * M with M = sign(y), but
    # M = +1 for y = MIN. Three passes make P, three make M: no program of fewer than five such passes gives
    # both (benchmarks/graphs.py, README), and these six cost the same as the five-pass ones.
    divisor = b.op("Max", [y, b.op("Abs", [b.op("Min", [y, minus_one])])],
                   why="integer division must not trap: divide by P = |y| (1 for y = 0; |MIN| wraps to MIN), never 0 or -1")
    t = b.op("Div", [x, divisor])
    if op == "DIV":
        multiplier = b.op("Sub", [zero, b.op("Sign", [b.op("Sub", [zero, y])])],
                          why="M = 0 - sign(0 - y): sign(y), but +1 for y = MIN (0 - MIN wraps to MIN), as P = MIN needs")
        return b.op("Mul", [t, multiplier], why="trunc(x / y) = trunc(x / P) * M: x / 0 = 0, MIN / -1 wraps to MIN")
    sign = b.op("Sign", [y])
    multiplier = b.op("Mul", [sign, b.op("Sign", [divisor])], why="M = sign(y), but +1 for y = MIN (P = |MIN| = MIN)")
    q = b.op("Mul", [t, multiplier], why="trunc(x / y) = trunc(x / P) * M: x / 0 = 0, MIN / -1 wraps to MIN")
    # trunc is one too high where the remainder r = x - t * P is non-zero and its sign differs from y's:
    # r * sign(y) < 0. |r| < |y|, so r * sign(y) cannot overflow; clamped to [-1, 0] it is the correction.
    r = b.op("Sub", [x, b.op("Mul", [t, divisor])])
    late = _clamp(b, b.op("Mul", [r, sign]), minus_one, zero, target, scalars=True,
                  why="floor = trunc - 1 where the remainder's sign differs from y's: r * sign(y) clamped to [-1, 0]")
    return b.op("Add", [q, late])


def _floor_by_small_divisor(b: NodeBuilder, x: str, y: str, dtype: DType, target) -> str:
    """FLOOR_DIV by a run-time divisor of at most 1/16 of the output (per channel, say): _floor_by_steps, whose
    D, L, H and S are computed over y (sixteen passes over the small tensor for one fewer over x)."""
    info = np.iinfo(np.dtype(dtype.numpy))
    one = b.scalar("one", 1, dtype)
    why = "FLOOR_DIV by a small run-time divisor: D, L, H, S for trunc((x - k) / D) + k * S, computed over y"
    c = b.op("Max", [b.op("Min", [y, one], why=why), b.scalar("minus_two", -2, dtype)])  # clamp(y, -2, 1)
    # c * (c + 1) is 0 exactly where y is 0 or -1, 2 elsewhere: regular = 1 there, 0 at 0 and -1
    regular = b.op("Min", [b.op("Mul", [c, b.op("Add", [c, one])]), one])
    special = b.op("Sub", [one, regular])
    divisor = b.op("Add", [b.op("Mul", [y, regular]), special], why="D = y, but 1 where y is 0 or -1: never 0 or -1")
    high = b.op("Add", [b.op("Max", [b.op("Sub", [b.scalar("minus_one", -1, dtype), c]), b.scalar("zero", 0, dtype)]),
                        b.op("Mul", [special, b.scalar("max", info.max, dtype)])], why="H = 1 where y < -1, 0 where y > 0, MAX where y is 0 or -1")
    low = b.op("Sub", [b.op("Mul", [special, b.scalar("min", info.min, dtype)]), b.op("Max", [c, b.scalar("zero", 0, dtype)])],
               why="L = -1 where y > 0, 0 where y < -1, MIN where y is 0 or -1")
    return _floor_by_steps(b, x, divisor, low, high, b.op("Sign", [y]), target, scalars=False)


def _constant_division(b: NodeBuilder, op: str, x: str, y: np.ndarray, dtype: DType, target) -> str:
    """A constant divisor: every guard is computed here, so the run time is the passes over x only.

    DIV: Div(x, D) with D = y, but 1 where y is 0 or -1, times M = 1, but y there (x * -1 wraps MIN);
    M is left out when y holds neither. FLOOR_DIV: _floor_by_steps with its D, L, H and S.
    """
    np_type = np.dtype(dtype.numpy).type
    y = y.astype(np_type)
    special = (y == 0) | (y == -1)
    d = np.where(special, np_type(1), y).astype(np_type)
    if op == "DIV":
        q = b.op("Div", [x, b.const("divisor", d)])
        if not special.any():
            return q
        return b.op("Mul", [q, b.const("multiplier", np.where(special, y, np_type(1)).astype(np_type))],
                    why="the divisor holds 0 or -1 (divided by 1 instead): x / 0 = 0, x / -1 = -x (MIN wraps)")
    info = np.iinfo(np_type)
    low = np.where(special, info.min, np.where(y > 0, -1, 0)).astype(np_type)
    high = np.where(special, info.max, np.where(y < 0, 1, 0)).astype(np_type)
    uniform = [np.unique(v) for v in (low, high, np.sign(y))]
    if all(u.size == 1 for u in uniform):  # e.g. all > 0: scalar bounds (k is one Clip on ort-cpu), S a number
        return _floor_by_steps(b, x, b.const("divisor", d), b.scalar("low", uniform[0][0], dtype),
                               b.scalar("high", uniform[1][0], dtype), int(uniform[2][0]), target, scalars=True)
    return _floor_by_steps(b, x, b.const("divisor", d), b.const("low", low), b.const("high", high),
                           b.const("sign", np.sign(y).astype(np_type)), target, scalars=False)


def _floor_by_steps(b: NodeBuilder, x: str, divisor: str, low: str, high: str, sign, target, *, scalars: bool) -> str:
    """floor(x / y) = trunc((x - k) / D) + k * S with k = clamp(x, L, H), none of it trapping (docs/semantics.md).

    y > 0: D = y, [L, H] = [-1, 0], S = 1; y < -1: D = y, [L, H] = [0, 1], S = -1 (MIN included);
    y = 0: D = 1, k = x, S = 0 (so 0); y = -1: D = 1, k = x, S = -1 (so -x, MIN wraps). ``sign`` is S as a
    tensor name, or a number (1, -1 or 0) when it is one value for all of y.
    """
    why = "floor(x / y) = trunc((x - k) / D) + k * S: k = -1 where x < 0 < y, 1 where y < 0 < x, x where y is 0 or -1"
    k = _clamp(b, x, low, high, target, scalars=scalars, why=why)
    t = b.op("Div", [b.op("Sub", [x, k]), divisor])
    if isinstance(sign, str):
        return b.op("Add", [t, b.op("Mul", [k, sign])])
    return {1: lambda: b.op("Add", [t, k]), -1: lambda: b.op("Sub", [t, k]), 0: lambda: t}[sign]()


def _clamp(b: NodeBuilder, v: str, lo: str, hi: str, target, *, scalars: bool, why: str) -> str:
    """min(max(v, lo), hi): one Clip where the bounds are scalars and the target has an integer Clip kernel
    (onnxruntime's CPU EP; its CUDA EP lacks int32, TensorRT and OpenVINO integer Clip), else Min and Max."""
    if scalars and target.name == "ort-cpu":
        return b.op("Clip", [v, lo, hi], why=why)
    return b.op("Max", [b.op("Min", [v, hi], why=why), lo])


register_layer(LayerKind(
    name="trt.ElementWise",
    summary="binary operation with TensorRT broadcasting (same rank; each dim equal or 1)",
    inputs=("input1", "input2"),
    min_inputs=2,
    attributes=ATTRIBUTES,
    check=check,
    lower=lower,
    notes="types per operation as in the seed's table; EQUAL/GREATER/LESS output bool",
    reference=".elementwise:reference",  # converter/reference/elementwise.py
    builder=BuilderHook("add_elementwise", layer="IElementWiseLayer", arguments={"op": "operation"}),
    strategy="tests.fuzz.strategies:elementwise_specs",  # the fuzz tests' valid specs of the kind (never imported here)
    target_rules={"tensorrt-dla": dla.check_elementwise},
))
