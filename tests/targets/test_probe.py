"""``check --probe``: the installed runtime asked, and the output says which verdicts were probed (issue 21, item 3)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from cli import main
from converter.targets.probe import check

needs_ort = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
pytestmark = pytest.mark.runtime  # .ci/run runs these with onnxruntime-gpu too
needs_ov = pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="OpenVINO is not installed")


def relu(opset=17):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def gru(layout):
    w = numpy_helper.from_array(np.ones((1, 12, 3), np.float32), "w")
    r = numpy_helper.from_array(np.ones((1, 12, 4), np.float32), "r")
    graph = helper.make_graph([helper.make_node("GRU", ["x", "w", "r"], ["y"], hidden_size=4, layout=layout)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=[w, r])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def test_static_is_the_default_and_says_so():
    (verdict,) = check(relu(), "ort-cpu")
    assert verdict.how.startswith("static") and verdict.problems == []


@needs_ort
def test_onnxruntime_is_asked():
    (ok,) = check(relu(), "ort-cpu", probe=True)
    assert ok.how.startswith("probed: onnxruntime") and ok.problems == []
    # GRU layout=1: onnxruntime refuses it when it builds the kernel (deep_cpu_gru.h:56)
    (bad,) = check(gru(1), "ort-cpu", probe=True)
    assert bad.problems and "layout" in bad.problems[0].reason


@needs_ort
def test_ort_cuda_stays_static_where_cuda_cannot_run():
    # a CPU build has no CUDAExecutionProvider; onnxruntime-gpu on a machine without a GPU (or its CUDA libraries)
    # lists it but cannot create it (it only logs that, and goes on with the CPU)
    import onnxruntime as ort

    from converter.installed import ort_build

    if "CUDAExecutionProvider" in ort.get_available_providers() and ort_build.unusable("CUDAExecutionProvider") is None:
        pytest.skip("CUDA runs here: ort-cuda is probed")
    (verdict,) = check(relu(), "ort-cuda", probe=True)
    assert verdict.how.startswith("static") and "CUDAExecutionProvider" in verdict.how


@needs_ov
def test_openvino_is_asked():
    (ok,) = check(relu(), "openvino", probe=True)
    assert ok.how.startswith("probed: OpenVINO") and ok.problems == []


def test_tensorrt_is_never_probed_here():
    verdicts = {v.target: v for v in check(relu(), "portable", probe=True)}
    assert set(verdicts) == {"ort-cpu", "ort-cuda", "tensorrt", "openvino"}
    assert verdicts["tensorrt"].how.startswith("static")


@needs_ort
def test_cli_names_probed_and_static_verdicts(tmp_path):
    path = tmp_path / "gru.onnx"
    path.write_bytes(gru(1).SerializeToString())
    result = CliRunner().invoke(main, ["check", str(path), "--target", "ort-cpu", "--probe"])
    assert result.exit_code == 1, result.output
    assert "ort-cpu: probed: onnxruntime" in result.output
    path.write_bytes(relu().SerializeToString())
    result = CliRunner().invoke(main, ["check", str(path), "--target", "portable", "--probe"])
    assert "tensorrt: static" in result.output and "ort-cpu: probed" in result.output
    plain = CliRunner().invoke(main, ["check", str(path), "--target", "ort-cpu"])
    assert plain.exit_code == 0 and "probed:" not in plain.output


@needs_ov
def test_openvino_read_refusal_says_why_on_one_line(tmp_path):
    """onnx's test_loop13_seq: OpenVINO's message opens with where it was thrown ('Exception from
    src/inference/src/cpp/core.cpp:84:', which was the whole line) and says why further down; that line, taken from
    OpenVINO here, is the one shown."""
    import warnings

    import openvino as ov
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        model = next(c.model for c in collect_testcases() if c.name == "test_loop13_seq")
    path = tmp_path / "loop13_seq.onnx"
    path.write_bytes(model.SerializeToString())
    with pytest.raises(Exception) as refused:  # noqa: PT011 - whatever OpenVINO raises
        ov.Core().read_model(str(path))
    why = next(line for line in str(refused.value).splitlines() if "No conversion rule found" in line)
    result = CliRunner().invoke(main, ["check", str(path), "--target", "openvino", "--probe", "-q"])
    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.output.splitlines() if "OpenVINO cannot read the model" in line]
    assert line.endswith(f"OpenVINO cannot read the model: {why.removeprefix('-- ')}"), result.output
    assert "Exception from" not in result.output and "SequenceInsert" in line, result.output
