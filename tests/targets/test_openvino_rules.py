"""The OPENVINO rules of converter/targets/profiles.py against OpenVINO itself (its CPU plugin, as runners/openvino.py
compiles models): hand-made models on both sides of each rule; the expected verdict is OpenVINO's own."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.targets.check import check_model, errors

pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')


def openvino_runs(model, feeds) -> bool:
    from converter.runners.openvino import runner

    try:
        runner(model.SerializeToString())(feeds)
    except Exception:  # noqa: BLE001 - OpenVINO's refusal is the verdict
        return False
    return True


@pytest.mark.parametrize("op, opset", [("ReduceSum", 13), ("ReduceMean", 18), ("ReduceMax", 18), ("ReduceL2", 18)])
def test_a_reduction_of_dynamic_rank_is_refused_as_openvino_refuses_it(op, opset):
    # the CPU plugin takes no operation of dynamic rank; a reduction's rank is dynamic with non-constant axes,
    # keepdims=0 and not exactly one axis (reduce_shape_inference.hpp)
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    checked = 0
    for keepdims, constant, axes in itertools.product((0, 1), (True, False), ([1], [0, 2])):
        axes = np.array(axes, np.int64)
        inits = [numpy_helper.from_array(axes, "axes")] if constant else []
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])]
        if not constant:
            inputs.append(helper.make_tensor_value_info("axes", TensorProto.INT64, [len(axes)]))
        graph = helper.make_graph([helper.make_node(op, ["x", "axes"], ["y"], keepdims=keepdims)], "g", inputs,
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
        feeds = {"x": data} if constant else {"x": data, "axes": axes}
        said = [str(p) for p in errors(check_model(model, "openvino"))]
        assert (not said) == openvino_runs(model, feeds), (keepdims, constant, axes.tolist(), said)
        checked += 1
        refused = keepdims == 0 and not constant and len(axes) != 1
        assert bool(said) == refused and (not refused or "dynamic output rank" in said[0]), said
    assert checked == 8
