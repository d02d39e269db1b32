"""check on a model with model-local functions: onnxruntime inlines each call when it loads the model
(graph_partitioner.cc InlineFunctionsAOT), so check judges the inlined nodes; the verdicts are onnxruntime's own."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from ..helpers import ort_cpu_loads
from converter.targets.check import check_model, errors

ort = pytest.importorskip("onnxruntime")


def local_model(inner_op: str = "Relu", dtype=TensorProto.FLOAT, nested: bool = False) -> onnx.ModelProto:
    """IR 8, opset 17: y = local.MyAct(x), MyAct(a) = inner_op(a) + a (through local.Outer when ``nested``)."""
    act = helper.make_function("local", "MyAct", ["a"], ["b"],
                               [helper.make_node(inner_op, ["a"], ["t"]), helper.make_node("Add", ["t", "a"], ["b"])],
                               [helper.make_opsetid("", 17)])
    functions, called = [act], "MyAct"
    if nested:
        functions.append(helper.make_function("local", "Outer", ["a"], ["b"],
                                              [helper.make_node("MyAct", ["a"], ["b"], domain="local")],
                                              [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)]))
        called = "Outer"
    graph = helper.make_graph([helper.make_node(called, ["x"], ["y"], domain="local", name="call")], "g",
                              [helper.make_tensor_value_info("x", dtype, [2, 3])],
                              [helper.make_tensor_value_info("y", dtype, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                              ir_version=8, functions=functions)
    onnx.checker.check_model(model, full_check=True)
    return model


def onnxruntime_runs(model: onnx.ModelProto, dtype) -> bool:
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        session.run(None, {"x": np.array([[-1, 2, 3], [4, -5, 6]], dtype)})
        return True
    except Exception:  # noqa: BLE001 - onnxruntime refuses the model: that is the answer
        return False


@pytest.mark.parametrize("nested", [False, True])
def test_a_call_of_a_local_function_runs_where_its_body_does(nested):
    """Was "domain 'local': no kernels of this domain" on both onnxruntime targets."""
    model = local_model(nested=nested)
    assert onnxruntime_runs(model, np.float32)
    assert errors(check_model(model, "ort-cpu")) == []
    assert errors(check_model(model, "ort-cuda")) == []


def test_a_body_node_without_a_kernel_is_refused_as_onnxruntime_refuses_it():

    """Relu on int64: onnx's Relu-14 takes it, the CPU EP registers Relu-14 for double, float, int32 and int8 (the
    ort-cpu table, onnxruntime's registry)."""
    model = local_model("Relu", TensorProto.INT64)
    assert not onnxruntime_runs(model, np.int64)
    found = errors(check_model(model, "ort-cpu"))
    assert len(found) == 1 and found[0].node == "call"
    assert "in the model-local function local.MyAct (onnxruntime inlines it)" in found[0].reason
    assert "(Relu): no kernel for types T=int64" in found[0].reason


def test_openvino_still_refuses_a_local_function():
    """OpenVINO's ONNX frontend does not inline local functions: its read_model fails on the call."""
    ov = pytest.importorskip("openvino")
    model = local_model()
    with pytest.raises(RuntimeError, match="local.MyAct"):
        ov.Core().read_model(model.SerializeToString())
    assert errors(check_model(model, "openvino"))


@pytest.mark.parametrize("op, dtype, np_type", [("Relu", TensorProto.INT64, np.int64), ("Elu", TensorProto.DOUBLE, np.float64)])
def test_a_function_body_registered_after_the_models_opset_is_not_inlined(op, dtype, np_type):
    """onnx 1.23 gives Relu-14 and Elu-6 function bodies registered at opset 18 only: at opset 17 OpSchema::GetFunction
    has none, so a node without a kernel stays without one (check said it runs as the body)."""
    node = helper.make_node(op, ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", dtype, [2, 3])],
                              [helper.make_tensor_value_info("y", dtype, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    assert not onnxruntime_runs(model, np_type)
    found = errors(check_model(model, "ort-cpu"))
    assert len(found) == 1 and found[0].reason.startswith("no kernel for types T=")


UNARY = ["Relu", "Neg", "Abs", "Sqrt", "Exp", "Sigmoid", "Tanh", "Floor", "Ceil", "Softsign", "Elu", "Selu", "HardSwish",
         "Sign", "Reciprocal", "LeakyRelu", "HardSigmoid", "Softplus", "Mish", "Round", "Erf"]
ELEMENT = {"float": TensorProto.FLOAT, "double": TensorProto.DOUBLE, "float16": TensorProto.FLOAT16,
           "int8": TensorProto.INT8, "int32": TensorProto.INT32, "int64": TensorProto.INT64, "uint8": TensorProto.UINT8}


@settings(max_examples=80, deadline=None)
@given(op=st.sampled_from(UNARY), element=st.sampled_from(sorted(ELEMENT)), opset=st.sampled_from([17, 18, 21]),
       local=st.booleans())
def test_check_says_runs_exactly_where_onnxruntime_makes_the_session(op, element, opset, local):
    """A unary op of any type onnx allows, at opsets 17, 18 and 21, as a plain node or inside a model-local function:
    check's ort-cpu verdict is onnxruntime's (a session that builds). Before: every local call was refused, and seven
    plain ones said to run at opset 17 (Relu int64, Softsign, Elu, Selu, HardSwish, HardSigmoid, Softplus double) whose
    function bodies onnx registers at 18."""
    dtype = ELEMENT[element]
    node = helper.make_node(op, ["x"], ["y"])
    functions = []
    if local:
        functions = [helper.make_function("local", "F", ["a"], ["b"], [helper.make_node(op, ["a"], ["b"])],
                                          [helper.make_opsetid("", opset)])]
        node = helper.make_node("F", ["x"], ["y"], domain="local")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", dtype, [2])],
                              [helper.make_tensor_value_info("y", dtype, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("local", 1)],
                              ir_version=8, functions=functions)
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception:  # noqa: BLE001 - a type onnx's schema does not allow: not a model
        assume(False)
    builds = ort_cpu_loads(model)
    assert (not errors(check_model(model, "ort-cpu"))) == builds
