"""`run MODEL --load-inputs DIR --load-outputs DIR` on onnx's own node test cases, in onnx's test_data_set layout
(input_K.pb, output_K.pb: what onnx ships under onnx/backend/test/data/node). Expected values are onnx's golden
outputs (onnx.backend.test.case.node) or computed by hand (stated).

- OpenVINO refused the read-only arrays a .pb file gives (numpy_helper.to_array: np.frombuffer) where they are 0-d
  ("ValueError ... array is not writeable": test_clip's min and max, test_cumsum_1d's axis, test_if's cond, ...).
- A model without inputs has no input_K.pb in its folder (test_constant: output_0.pb alone): that is its layout.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from cli import main

needs_ov = pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="OpenVINO is not installed")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def node_case(name: str):
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return next(c for c in collect_testcases() if c.name == name)  # (unfiltered: a filter sticks for the process)


def write_case(case, folder):
    """(model path, test_data_set_0 folder) of ``case`` as onnx writes them (onnx.backend.test.cmd_tools)."""
    folder.mkdir(exist_ok=True)
    model = folder / "model.onnx"
    model.write_bytes(case.model.SerializeToString())
    data = folder / "test_data_set_0"
    data.mkdir()
    inputs, outputs = case.data_sets[0]
    for prefix, arrays, values in (("input", inputs, case.model.graph.input),
                                   ("output", outputs, case.model.graph.output)):
        for k, (array, value) in enumerate(zip(arrays, values)):
            (data / f"{prefix}_{k}.pb").write_bytes(numpy_helper.from_array(array, value.name).SerializeToString())
    return model, data


@needs_ov
def test_openvino_takes_a_read_only_0d_input():
    """Clip(x, min, max) with min and max 0-d and read-only, as a .pb file gives them. By hand: x clipped to
    [-1, 2]."""
    from converter.runners.openvino import runner

    scalar = [("min", TensorProto.FLOAT, []), ("max", TensorProto.FLOAT, [])]
    graph = helper.make_graph([helper.make_node("Clip", ["x", "min", "max"], ["y"])], "g",
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in [("x", TensorProto.FLOAT, [4])]
                               + scalar], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    low = numpy_helper.to_array(numpy_helper.from_array(np.array(-1, np.float32)))
    high = np.array(2, np.float32)
    high.flags.writeable = False
    assert not low.flags.writeable and low.shape == ()
    got = runner(model.SerializeToString())({"x": np.array([-3, -0.5, 1.5, 7], np.float32), "min": low, "max": high})
    np.testing.assert_array_equal(got["y"], np.array([-1, -0.5, 1.5, 2], np.float32))


@needs_ov
def test_run_feeds_onnx_test_clip_folder_to_openvino(tmp_path):
    """test_clip: x float32[3, 4, 5], min and max float32[] from .pb files; passes against onnx's golden output."""
    model, data = write_case(node_case("test_clip"), tmp_path)
    result = invoke("run", model, "--runtime", "openvino", "--load-inputs", data, "--load-outputs", data)
    assert result.exit_code == 0 and "1 comparison: 1 passed" in result.output, result.output


def test_a_folder_without_input_files_is_the_layout_of_a_model_without_inputs(tmp_path):
    """test_constant: no graph input, and onnx's folder holds output_0.pb alone: taken. test_clip (3 inputs) given a
    folder with its output_0.pb alone: still refused, exit status 2, one line."""
    model, data = write_case(node_case("test_constant"), tmp_path / "constant")
    assert sorted(p.name for p in data.iterdir()) == ["output_0.pb"]
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", data, "--load-outputs", data)
    assert result.exit_code == 0 and "1 comparison: 1 passed" in result.output, result.output
    model, data = write_case(node_case("test_clip"), tmp_path / "clip")
    outputs_alone = tmp_path / "outputs_alone"
    outputs_alone.mkdir()
    (outputs_alone / "output_0.pb").write_bytes((data / "output_0.pb").read_bytes())
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", outputs_alone)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    line = result.output.strip().splitlines()[-1]
    assert f"--load-inputs {outputs_alone}: no input_K.pb file" in line, result.output
