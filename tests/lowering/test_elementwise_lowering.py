"""trt.ElementWise lowering: native where onnxruntime is exact, guarded integer division, legalized int8/bf16."""

from __future__ import annotations

import numpy as np
import pytest

from converter.errors import SpecError
from converter.lowering import build_model
from converter.lowering.elementwise import OPERATIONS, TYPE_TABLE, broadcast_shape
from converter.runtime import OrtRunner

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


def test_integer_division_guards_are_dropped_for_a_safe_constant_divisor():
    guarded = node_types(ew("DIV", "int32"))
    assert guarded.count("Where") == 3 and "Neg" in guarded
    constant = {"k": {"dtype": "int32", "shape": [2, 3], "data": [[1, 2, 3], [4, 5, 6]]}}
    assert node_types(ew("DIV", "int32", constants=constant, layer_inputs=["a", "k"])) == ["Div"]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_never_traps(dtype):
    """onnxruntime raises on x/0 and dies of SIGFPE on MIN/-1: the lowering must avoid both."""
    info = np.iinfo(dtype)
    a = np.array([[info.min, 7, -7], [5, info.max, 0]], dtype)
    b = np.array([[-1, 0, 2], [-1, -1, 0]], dtype)
    for op, want in (("DIV", [[info.min, 0, -3], [-5, -info.max, 0]]), ("FLOOR_DIV", [[info.min, 0, -4], [-5, -info.max, 0]])):
        out = OrtRunner(build_model(ew(op, dtype).network).SerializeToString()).run({"a": a, "b": b})["y"]
        np.testing.assert_array_equal(out, np.array(want, dtype))
