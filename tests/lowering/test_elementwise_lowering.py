"""trt.ElementWise lowering: native where onnxruntime is exact, guarded integer division, legalized int8/bf16."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from converter.errors import SpecError
from converter.lowering import build_model
from converter.lowering.elementwise import OPERATIONS, TYPE_TABLE, broadcast_shape
from converter.runners.onnxruntime import OrtRunner
from converter.targets import resolve_target

from ..helpers import node_types, one_layer_spec


def ew(op, dtype="float32", a=(2, 3), b=(2, 3), constants=None, layer_inputs=None):
    inputs = {"a": (dtype, a), "b": (dtype, b)}
    if constants:
        inputs = {"a": (dtype, a)}
    return one_layer_spec("trt.ElementWise", inputs, {"operation": op}, constants, layer_inputs)


def test_type_table_is_the_seeds():
    assert OPERATIONS == ("SUM", "PROD", "MAX", "MIN", "SUB", "DIV", "POWER", "FLOOR_DIV", "AND", "OR", "XOR",
                          "EQUAL", "GREATER", "LESS")
    assert [t.name for t in TYPE_TABLE["POWER"][0]] == ["int8", "float16", "float32", "bfloat16"]
    assert [t.name for t in TYPE_TABLE["EQUAL"][0]] == ["int32", "int64", "float16", "float32", "bfloat16"]
    assert TYPE_TABLE["LESS"][1].name == "bool" and TYPE_TABLE["SUM"][1] is None


@pytest.mark.parametrize("a, b, out", [
    ((2, 3), (1, 3), (2, 3)), ((1, 3), (2, 1), (2, 3)), ((4, 1, 5), (4, 6, 5), (4, 6, 5)),
    ((2, 3), (3, 2), None), ((2, 3), (3,), None), ((0, 1), (1, 5), (0, 5)),
])
def test_tensorrt_broadcast_rule(a, b, out):
    assert broadcast_shape(a, b) == out


def test_onnx_style_rank_broadcast_is_refused():
    with pytest.raises(SpecError, match="equal ranks"):
        ew("SUM", a=(2, 3), b=(3,))


@pytest.mark.parametrize("op, onnx_op", [("SUM", "Add"), ("PROD", "Mul"), ("MAX", "Max"), ("MIN", "Min"),
                                         ("SUB", "Sub"), ("DIV", "Div"), ("POWER", "Pow"), ("EQUAL", "Equal"),
                                         ("GREATER", "Greater"), ("LESS", "Less")])
def test_float32_is_one_native_node(op, onnx_op):
    assert node_types(ew(op)) == [onnx_op]


def test_float_floor_div_is_floor_of_div():
    assert node_types(ew("FLOOR_DIV")) == ["Div", "Floor"]


def test_bfloat16_is_legalized_with_casts():
    assert node_types(ew("SUM", "bfloat16")) == ["Cast", "Cast", "Add", "Cast"]
    assert node_types(ew("LESS", "bfloat16")) == ["Cast", "Cast", "Less"]


def test_integer_division_has_no_where_guards_and_a_constant_divisor_is_one_div():
    runtime = node_types(ew("DIV", "int32"))
    assert "Where" not in runtime and "Equal" not in runtime and runtime.count("Div") == 1
    assert node_types(ew("FLOOR_DIV", "int32")).count("Div") == 1
    constant = {"k": {"dtype": "int32", "shape": [2, 3], "data": [[1, 2, 3], [4, 5, 6]]}}
    assert node_types(ew("DIV", "int32", constants=constant, layer_inputs=["a", "k"])) == ["Div"]
    with_zero = {"k": {"dtype": "int32", "shape": [2, 3], "data": [[0, -1, 3], [4, 5, -2147483648]]}}
    assert node_types(ew("DIV", "int32", constants=with_zero, layer_inputs=["a", "k"])) == ["Div", "Mul"]


def _wrapped(value: int, bits: int) -> int:
    return (value + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)


def _python_division(op: str, a: int, b: int, bits: int) -> int:
    """docs/semantics.md with Python's exact integers: x / 0 = 0, truncation (DIV) or floor, then wrap."""
    if b == 0:
        return 0
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncated
    if op == "FLOOR_DIV" and q * b != a and (a < 0) != (b < 0):
        q -= 1
    return _wrapped(q, bits)


def _edge_pairs(dtype, divisors=None):
    """Every pair of edge values (dividend, divisor) as one row, and a row of random dividends by small divisors."""
    info = np.iinfo(dtype)
    edges = [info.min, info.min + 1, info.min // 2, -7, -3, -2, -1, 0, 1, 2, 3, 7, info.max // 2, info.max - 1, info.max]
    divisors = edges if divisors is None else divisors
    a, b = (v.reshape(1, -1) for v in np.meshgrid(np.array(edges, dtype), np.array(divisors, dtype)))
    rng = np.random.default_rng(3)
    a = np.concatenate([a, rng.integers(info.min, info.max, a.shape, dtype, endpoint=True)], axis=0)
    small = [v for v in divisors if -9 <= v <= 9] or divisors
    b = np.concatenate([b, rng.choice(np.array(small, dtype), b.shape)], axis=0)
    return a, b


def _check_division(op, dtype, a, b, divisor, target=None):
    if divisor == "constant":
        constant = {"k": {"dtype": dtype, "shape": list(b.shape), "data": b.tolist()}}
        spec, feeds = ew(op, dtype, a=a.shape, constants=constant, layer_inputs=["a", "k"]), {"a": a}
    else:
        spec, feeds = ew(op, dtype, a=a.shape, b=b.shape), {"a": a, "b": b}
    bits = np.iinfo(dtype).bits
    bb = np.broadcast_to(b, a.shape)
    want = np.array([[_python_division(op, int(x), int(y), bits) for x, y in zip(ra, rb)] for ra, rb in zip(a, bb)], dtype)
    proto = build_model(spec.network, target=target)
    used = {i for n in proto.graph.node for i in n.input}
    assert [init.name for init in proto.graph.initializer if init.name not in used] == []
    model = proto.SerializeToString()
    for level in ("all", "disabled"):
        np.testing.assert_array_equal(OrtRunner(model, opt_level=level).run(feeds)["y"], want)
    return model


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", ["DIV", "FLOOR_DIV"])
@pytest.mark.parametrize("divisor", ["runtime", "constant"])
@pytest.mark.parametrize("target", ["ort-cpu", "portable"])  # portable: Min and Max where ort-cpu has Clip
def test_integer_division_on_every_pair_of_edge_values(dtype, op, divisor, target):
    a, b = _edge_pairs(dtype)
    _check_division(op, dtype, a, b, divisor, resolve_target(target))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", ["DIV", "FLOOR_DIV"])
@pytest.mark.parametrize("signs", ["positive", "negative", "mixed"])
@pytest.mark.parametrize("target", ["ort-cpu", "portable"])
def test_constant_divisor_without_0_or_minus_1_is_exact_and_short(dtype, op, signs, target):
    """The constant paths: all divisors > 0 (one Clip), all < 0 (MIN included), mixed signs (per-element bounds)."""
    info = np.iinfo(dtype)
    divisors = {"positive": [1, 2, 3, 7, info.max // 2, info.max - 1, info.max],
                "negative": [info.min, info.min + 1, info.min // 2, -7, -3, -2],
                "mixed": [info.min, -7, -2, 1, 2, 3, info.max]}[signs]
    a, b = _edge_pairs(dtype, divisors)
    model = onnx.load_model_from_string(_check_division(op, dtype, a, b, "constant", resolve_target(target)))
    ops = [n.op_type for n in model.graph.node]
    if op == "DIV":
        assert ops == ["Div"]
    elif signs == "mixed":  # per-element bounds and signs: k = max(min(x, H), L); trunc((x - k) / y) + k * S
        assert ops == ["Min", "Max", "Sub", "Div", "Mul", "Add"]
    else:
        clamp = ["Clip"] if target == "ort-cpu" else ["Min", "Max"]
        assert ops == clamp + ["Sub", "Div", "Add" if signs == "positive" else "Sub"]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", ["DIV", "FLOOR_DIV"])
@pytest.mark.parametrize("value", [0, -1])
def test_constant_divisor_of_only_0_or_only_minus_1(dtype, op, value):
    a, _ = _edge_pairs(dtype)
    _check_division(op, dtype, a, np.full(a.shape, value, dtype), "constant")  # (all initializers used)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", ["DIV", "FLOOR_DIV"])
@pytest.mark.parametrize("target", ["ort-cpu", "portable"])
def test_integer_division_by_a_small_runtime_divisor(dtype, op, target):
    """A divisor [1, C] holding every edge divisor, each column against every edge dividend: FLOOR_DIV's
    path for a divisor of at most 1/16 of the output (bounds computed over the divisor)."""
    a, b = _edge_pairs(dtype)
    columns = b[:1]  # the first row: each edge divisor against each edge dividend
    rows = np.concatenate([np.roll(a[:1], s, axis=1) for s in range(a.shape[1])] + [a[1:]], axis=0)
    model = onnx.load_model_from_string(_check_division(op, dtype, rows, columns, "runtime", resolve_target(target)))
    if op == "FLOOR_DIV":
        assert [n.op_type for n in model.graph.node][-6:] == ["Min", "Max", "Sub", "Div", "Mul", "Add"]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("op", ["DIV", "FLOOR_DIV"])
@pytest.mark.parametrize("divisor", ["runtime", "constant"])
@pytest.mark.parametrize("a_shape, b_shape", [
    ((2, 3, 4, 5), (1, 3, 1, 1)),  # per channel: the small-divisor path (3 * 16 <= 120)
    ((2, 3, 4, 5), (1, 1, 1, 5)),  # per column: small too
    ((2, 3, 4, 5), (1, 1, 1, 1)),  # scalar-like
    ((2, 3, 4, 5), (2, 3, 4, 5)),  # full size
    ((1, 3, 1, 1), (2, 3, 4, 5)),  # the dividend broadcasts, not the divisor
    ((1, 1, 4, 1), (2, 3, 1, 5)),  # both broadcast
    ((0, 3), (1, 3)),              # empty
])
def test_integer_division_broadcasts_at_every_opset_and_every_target_runs_it(dtype, op, divisor, a_shape, b_shape):
    """Edge values through every broadcast form, against Python's integers at opsets 13 and the newest onnxruntime
    loads, and the static check of every target at opsets 13 and 17 (tensorrt-dla refuses int32/int64 before lowering)."""
    from converter.runners.onnxruntime import max_supported_opset
    from converter.targets import TARGET_NAMES
    from converter.targets.check import check_model, errors
    from converter.pipeline.stages import model_for_target
    from converter.targets.spec_rules import TargetRuleError

    info = np.iinfo(dtype)
    edges = np.array([info.min, info.min + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, info.max - 1, info.max], dtype)
    rng = np.random.default_rng(11)
    a, b = rng.choice(edges, a_shape).astype(dtype), rng.choice(edges, b_shape).astype(dtype)
    b.flat[:min(b.size, 4)] = np.array([0, -1, info.min, 1], dtype)[:min(b.size, 4)]  # the guarded divisors, always
    out = np.broadcast_shapes(a_shape, b_shape)
    want = np.array([_python_division(op, int(x), int(y), info.bits)
                     for x, y in zip(np.broadcast_to(a, out).ravel(), np.broadcast_to(b, out).ravel())], dtype).reshape(out)
    if divisor == "constant":
        constant = {"k": {"dtype": dtype, "shape": list(b_shape), "data": b.tolist()}}
        spec, feeds = ew(op, dtype, a=a_shape, constants=constant, layer_inputs=["a", "k"]), {"a": a}
    else:
        spec, feeds = ew(op, dtype, a=a_shape, b=b_shape), {"a": a, "b": b}
    for opset in (13, max_supported_opset()):
        model = build_model(spec.network, opset=opset).SerializeToString()
        for level in ("all", "disabled"):
            np.testing.assert_array_equal(OrtRunner(model, opt_level=level).run(feeds)["y"], want)
    for name in TARGET_NAMES:
        for opset in (13, 17):
            try:
                model = model_for_target(spec, resolve_target(name), opset, fixed=True)[0]
            except TargetRuleError:
                assert name == "tensorrt-dla"
                continue
            assert [str(p) for p in errors(check_model(model, name))] == []


@pytest.mark.parametrize("op, want", [
    ("DIV", [[3, 3, 0], [-1073741824, -2, 0]]),
    ("FLOOR_DIV", [[3, 3, 0], [-1073741824, -3, 0]]),
])
def test_integer_division_of_tensors_whose_shape_is_dynamic(op, want):
    """A plugin layer may declare an integer output whose dimensions only the data decides (None): the
    small-divisor choice cannot size it, and the general run-time lowering takes it."""
    from pathlib import Path

    from converter.pipeline.plugins import load_plugins
    from converter.pipeline.spec import parse_spec

    from ..conftest import REPO

    load_plugins((str(REPO / "tests" / "plugins" / "dynamic_shape_layer.py"),))
    spec = parse_spec({"name": "dynamic", "network": {
        "inputs": {"a": {"dtype": "int32", "shape": [2, 3]}, "b": {"dtype": "int32", "shape": [2, 3]}},
        "layers": [{"name": "da", "op": "test.DynamicIdentity", "inputs": ["a"]},
                   {"name": "db", "op": "test.DynamicIdentity", "inputs": ["b"]},
                   {"name": "y", "op": "trt.ElementWise", "inputs": ["da", "db"], "operation": op}],
        "outputs": ["y"]}, "cases": [{"name": "c", "inputs": {"a": {"random": "integers", "low": 0, "high": 1},
                                                           "b": {"random": "integers", "low": 1, "high": 2}}}]},
        Path("dynamic.yaml"))
    a = np.array([[7, -7, 7], [-2**31, 5, -5]], np.int32)
    b = np.array([[2, -2, 0], [2, -2, 0]], np.int32)
    out = OrtRunner(build_model(spec.network).SerializeToString()).run({"a": a, "b": b})["y"]
    np.testing.assert_array_equal(out, np.array(want, np.int32))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_never_traps(dtype):
    """onnxruntime raises on x/0 and dies of SIGFPE on MIN/-1: the lowering must avoid both."""
    info = np.iinfo(dtype)
    a = np.array([[info.min, 7, -7], [5, info.max, 0]], dtype)
    b = np.array([[-1, 0, 2], [-1, -1, 0]], dtype)
    for op, want in (("DIV", [[info.min, 0, -3], [-5, -info.max, 0]]), ("FLOOR_DIV", [[info.min, 0, -4], [-5, -info.max, 0]])):
        out = OrtRunner(build_model(ew(op, dtype).network).SerializeToString()).run({"a": a, "b": b})["y"]
        np.testing.assert_array_equal(out, np.array(want, dtype))


@pytest.mark.parametrize("op, constant, want_bits", [
    # -0 + (+0) = +0 and 0 + (+0) = +0 (IEEE 754, round to nearest)
    ("SUM", 0.0, [False, False]),
    # x + (-0) is x: -0 stays -0
    ("SUM", -0.0, [True, False]),
    # x - (-0) = x + (+0): +0 for both zeros
    ("SUB", -0.0, [False, False]),
    # x - (+0) is x
    ("SUB", 0.0, [True, False]),
])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_adding_a_constant_zero_keeps_ieee_signed_zeros(op, constant, want_bits, dtype):
    """onnxruntime's NoopElimination deletes Add(x, 0) and Sub(x, 0) (also for -0), which x = -0 would notice."""
    import ml_dtypes

    spec = ew(op, dtype, a=(1, 2), constants={"k": {"dtype": dtype, "shape": [1, 1], "data": [[constant]]}},
              layer_inputs=["a", "k"])
    np_type = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    x = np.array([[-0.0, 0.0]], np.float32).astype(np_type)
    model = build_model(spec.network).SerializeToString()
    for level in ("all", "basic", "disabled"):
        got = OrtRunner(model, opt_level=level).run({"a": x})["y"].astype(np.float32)
        assert np.signbit(got).reshape(-1).tolist() == want_bits, level
        assert np.all(got == 0)
