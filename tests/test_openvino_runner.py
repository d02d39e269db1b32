"""The OpenVINO runner feeds and reads each port as the graph input or output it is, whatever OpenVINO named it.

OpenVINO's ONNX frontend folds a Dropout (or an Identity) away and moves names: a graph input handed straight to an
output becomes a Parameter named after the output (onnx's node test test_dropout_default: input x arrives as port
'y'), and x -> Relu r -> Dropout d leaves r's port named d. Fed by name, x was not fed at all and OpenVINO computed on
memory nobody wrote, with no error (run MODEL: NaN and 1e-37 values, FAIL, and reduce blamed the Dropout of
light_squeezenet); read by name, run --mark-all lost r. Expected values: Dropout in inference is the identity (ONNX
Dropout: "the output is the input" when training_mode is false), so by hand y = x, r = relu(x), d = r, -r.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.runners.openvino import bind_inputs, output_names

F32 = np.dtype(np.float32)


def test_a_port_that_kept_an_input_name_is_that_input():
    ports = [({"a"}, F32, 2), ({"b", "b_alias"}, F32, 1)]
    assert bind_inputs(ports, [("a", F32, 2), ("b", F32, 1)]) == {0: "a", 1: "b"}


def test_a_renamed_port_is_the_input_left_in_order():
    # test_dropout_default: one input x, its port named after the output y
    assert bind_inputs([({"y"}, F32, 3)], [("x", F32, 3)]) == {0: "x"}
    # test_sequence_model1: X, Y, Z with Y's port named 'out'
    ports = [({"X"}, F32, 2), ({"out"}, F32, 2), ({"Z"}, F32, 2)]
    assert bind_inputs(ports, [("X", F32, 2), ("Y", F32, 2), ("Z", F32, 2)]) == {0: "X", 1: "Y", 2: "Z"}


def test_a_renamed_port_beside_a_dropped_input_is_told_by_dtype_and_rank():
    # test_dropout_default_ratio: inputs x (float, rank 3) and the ratio r (float, rank 0), which nothing else reads:
    # one port, named y, of rank 3
    assert bind_inputs([({"y"}, F32, 3)], [("x", F32, 3), ("r", F32, 0)]) == {0: "x"}
    assert bind_inputs([({"y"}, F32, 0)], [("x", F32, 3), ("r", F32, 0)]) == {0: "r"}


def test_which_input_a_renamed_port_is_is_never_guessed():
    with pytest.raises(RuntimeError, match=r"which of the inputs \['x', 'w'\] each is cannot be told \(2 fit\)"):
        bind_inputs([({"y"}, F32, 3)], [("x", F32, 3), ("w", F32, 3)])
    with pytest.raises(RuntimeError, match=r"\(0 fit\)"):
        bind_inputs([({"y"}, np.dtype(np.int64), 3)], [("x", F32, 3)])


def test_output_ports_are_the_graph_outputs_in_order_whatever_their_names():
    assert output_names([{"y"}, {"d"}, {"d"}], ["y", "d", "d"], ["y", "r", "d"]) == [["y"], ["r"], ["d"]]
    # (fewer ports than outputs: by name, an inner name left for the one the graph has)
    assert output_names([{"y", "inner"}], ["inner"], ["y", "z"]) == [["y"]]


def _model(nodes, inputs, outputs, opset=13) -> bytes:
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8).SerializeToString()


@pytest.fixture
def runner():
    pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    from converter.runners.openvino import runner

    return runner


X = np.arange(-12, 12, dtype=np.float32).reshape(2, 3, 4) / 4


def test_an_input_openvino_renamed_is_fed(runner):
    run = runner(_model([helper.make_node("Dropout", ["x"], ["y"])], [("x", TensorProto.FLOAT, [2, 3, 4])], ["y"]))
    np.testing.assert_array_equal(run({"x": X})["y"], X)  # (was: NaN and values near 1e-37)
    with_ratio = _model([helper.make_node("Dropout", ["x", "r"], ["y"])],
                        [("x", TensorProto.FLOAT, [2, 3, 4]), ("r", TensorProto.FLOAT, [])], ["y"])
    np.testing.assert_array_equal(runner(with_ratio)({"x": X, "r": np.array(0.5, np.float32)})["y"], X)


def test_every_marked_output_comes_back_under_its_own_name(runner):
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Dropout", ["r"], ["d"]),
             helper.make_node("Neg", ["d"], ["y"])]
    got = runner(_model(nodes, [("x", TensorProto.FLOAT, [2, 3, 4])], ["y", "r", "d"]))({"x": X})
    relu = np.maximum(X, 0)
    assert sorted(got) == ["d", "r", "y"]  # (r was missing: its port is named d)
    np.testing.assert_array_equal(got["r"], relu)
    np.testing.assert_array_equal(got["d"], relu)
    np.testing.assert_array_equal(got["y"], -relu)
