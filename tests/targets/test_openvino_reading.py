"""check --target openvino on real models (the light_* models onnx ships), and the way it models OpenVINO reading a model.

OpenVINO 2026.4 answers differently for one model read from a file path, from bytes or through convert_model
(tools/openvino_read_paths.py, docs/ground-truth.md). The table (tools/measure_openvino.py), --probe and the
runner all read a file path, as a deployment does, and check says so."""

from __future__ import annotations

import warnings

import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from converter.cli import main
from converter.targets.check import check_model, errors
from converter.targets.probe import check as probed
from tools.measure_openvino import light_models

LIGHT = {path.stem: path for path in light_models()}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def node_case(name: str) -> onnx.ModelProto:
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return next(c.model for c in collect_testcases() if c.name == name)


def test_onnx_ships_the_light_models():
    assert {"light_resnet50", "light_densenet121", "light_inception_v1", "light_squeezenet", "light_vgg19"} <= set(LIGHT)


@pytest.mark.parametrize("name", sorted(LIGHT))
def test_a_plain_cnns_ops_are_measured(name):
    """light_resnet50 warned over 362 nodes 'not measured' (Conv-1, Relu-6, Sum-8, MaxPool-8, ConstantOfShape-9): the
    table now holds what the installed OpenVINO compiled of these models, and no node of them is unmeasured."""
    model = onnx.load(LIGHT[name])
    problems = check_model(model, "openvino")
    assert [str(p) for p in problems if "not measured" in p.reason] == []
    assert errors(problems) == []


@pytest.mark.parametrize("name", sorted(LIGHT))
def test_the_installed_openvino_compiles_the_light_models_from_their_path(name):
    """The verdict the table gives them is the installed OpenVINO's (read_model of the file, compile at f32)."""
    ov = pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    core = ov.Core()
    core.compile_model(core.read_model(str(LIGHT[name])), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


def test_check_says_which_way_of_reading_it_models(tmp_path):
    path = tmp_path / "relu.onnx"
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    result = invoke("check", path, "--target", "openvino")
    assert result.exit_code == 0, result.output
    assert "openvino: checked as a deployment reads a model: Core.read_model(file path)" in result.output
    portable = invoke("check", path)  # portable includes openvino: the same line
    assert "openvino: checked as a deployment reads a model" in portable.output
    quiet = invoke("check", path, "--target", "openvino", "-q")
    assert "checked as" not in quiet.output
    other = invoke("check", path, "--target", "ort-cpu")
    assert "checked as" not in other.output


@pytest.mark.parametrize("case", ["test_nllloss_NCd1_ii", "test_bernoulli_seed"])
def test_probe_reads_a_file_path_as_the_static_check_models(case):
    """NLLLoss with ignore_index and Bernoulli compile from bytes, not from a path (OpenVINO 2026.4): --probe answers
    as read_model(path) does, which is what the table measured, so both say the model does not run."""
    ov = pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    model = node_case(case)
    core = ov.Core()
    core.compile_model(core.read_model(model.SerializeToString()), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})  # bytes
    (verdict,) = probed(model, "openvino", probe=True)
    assert verdict.how.startswith("probed: OpenVINO") and "read_model(file path)" in verdict.how
    assert errors(verdict.problems)
    assert errors(check_model(model, "openvino"))


@pytest.mark.parametrize("case", ["test_col2im", "test_col2im_5d", "test_col2im_pads", "test_col2im_strides"])
def test_a_form_that_compiles_at_some_shapes_is_judged_at_its_own(case):
    """Col2Im-18 float32 with a rank-3 input and two 1-D inputs compiles where image_shape and block_shape hold 2
    values and is refused with 3 ("output_size must be a 1D input of shape [2]. Got: [3]"): one form, two
    outcomes. check said refused for both; the table's refusal now holds the shapes it was measured at. The
    verdict is the installed OpenVINO's (read_model of the file, compile at f32)."""
    ov = pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    model = node_case(case)
    core = ov.Core()
    try:
        core.compile_model(core.read_model(model.SerializeToString(), b""), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        compiled = True
    except Exception:  # noqa: BLE001 - OpenVINO's own refusal
        compiled = False
    assert compiled == (case != "test_col2im_5d")  # (what OpenVINO 2026.4 answers, as measured)
    assert (errors(check_model(model, "openvino")) == []) == compiled


def test_a_shape_dependent_refusal_is_kept_where_the_shapes_are_unknown():
    """The same 3-D Col2Im with its inputs' dimensions unknown: check cannot tell which shapes it gets, and keeps the
    measured refusal (a refusal, not a guess that it compiles)."""
    model = node_case("test_col2im_5d")
    for value in model.graph.input:
        for dim in value.type.tensor_type.shape.dim:
            dim.Clear()
            dim.dim_param = "d"
    assert errors(check_model(model, "openvino"))
