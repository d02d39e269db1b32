"""Run-time placement from a real onnxruntime profile (CPU session: every node lands on the CPU EP)."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from converter.runners.placement import judge, read_profile, shape_only_nodes


def shape_then_compute_model() -> onnx.ModelProto:
    """y = Reshape(x, Concat(Shape(x)[0:1], [-1])) + 1: a shape subgraph feeding Reshape's shape input."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Slice", ["s", "zero", "one"], ["n"], name="take_n"),
        helper.make_node("Concat", ["n", "minus_one"], ["new_shape"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "new_shape"], ["flat"], name="reshape"),
        helper.make_node("Add", ["flat", "c"], ["y"], name="add"),
    ]
    inits = [numpy_helper.from_array(np.array([0], np.int64), "zero"),
             numpy_helper.from_array(np.array([1], np.int64), "one"),
             numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
             numpy_helper.from_array(np.array(1, np.float32), "c")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 6])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_a_real_cpu_profile_names_every_node_and_its_provider(tmp_path):
    model = shape_then_compute_model()
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(tmp_path / "p")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # keep every node as written
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": np.arange(12, dtype=np.float32).reshape(2, 2, 3)})
    np.testing.assert_array_equal(y, np.arange(12, dtype=np.float32).reshape(2, 6) + 1)
    placements = read_profile(session.end_profiling())
    assert [(p.node, p.op, p.provider) for p in placements] == [
        (n.name, n.op_type, "CPUExecutionProvider") for n in model.graph.node]

    assert shape_only_nodes(model) == {"shape", "take_n", "concat"}
    bad, allowed = judge(placements, model, "CUDAExecutionProvider")  # as if CUDA had been asked for
    assert [p.node for p in bad] == ["reshape", "add"]
    assert [p.node for p in allowed] == ["shape", "take_n", "concat"]
    assert judge(placements, model, "CPUExecutionProvider") == ([], [])
