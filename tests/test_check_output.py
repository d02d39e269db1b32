"""What ``spec2onnx check`` prints (issue 26, "what a new user stumbled on"): -q, warnings grouped and counted once
(not once per op, not again under portable), a hint naming a command a pip user has, check's own --help, and a
legend for the "?" of --layers. Expected counts are hand counted from the hand-made models below."""

from __future__ import annotations

import os
import re

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from cli import main
from converter.targets import TARGET_NAMES

F = TensorProto.FLOAT


def _model(nodes, opset, inits=(), ir_version=7):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [2])],
                              [helper.make_tensor_value_info("y", F, [2])], initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)


@pytest.fixture
def old_opset(tmp_path):
    """Opset 7: Sigmoid-6 and Pow-7 on float, which the OpenVINO table never measured (it holds onnx's node tests,
    the lowerings' models and onnx's light models, none with these since-versions): 3 Sigmoid and 2 Pow nodes, 5 "not
    measured" warnings. (Relu-6 and Add-7 were these until the light models' ops were measured.)"""
    nodes = [helper.make_node("Sigmoid", ["x"], ["r0"], name="r0"), helper.make_node("Sigmoid", ["r0"], ["r1"], name="r1"),
             helper.make_node("Pow", ["r1", "x"], ["a0"], name="a0"), helper.make_node("Sigmoid", ["a0"], ["r2"], name="r2"),
             helper.make_node("Pow", ["r2", "x"], ["y"], name="a1")]
    path = tmp_path / "old.onnx"
    onnx.save(_model(nodes, 7, ir_version=3), path)
    return path


def _check(*args):
    result = CliRunner().invoke(main, ["check", *map(str, args)])
    assert "Traceback" not in result.output, result.output
    return result


def _lines(output: str, prefix: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(prefix)]


def test_warnings_that_share_a_reason_are_one_line_with_counts_per_op(old_opset):
    result = _check(old_opset, "--target", "openvino")
    assert result.exit_code == 0, result.output  # warnings allowed
    [line] = _lines(result.output, "WARN")  # was one line per op (Relu, Add), and 1,625 lines per node before that
    assert "openvino: 5 nodes of 2 op forms (3 Sigmoid (float), 2 Pow (float))" in line
    assert "(r0 (Sigmoid), a0 (Pow), ...)" in line  # the first node of each form
    assert "every node runs on openvino (5 nodes, 5 warnings)" in result.output


def test_v_lists_every_node_and_q_no_warning(old_opset):
    verbose = _check(old_opset, "--target", "openvino", "-v")
    assert [re.match(r"WARN  openvino: (\w+) ", line).group(1) for line in _lines(verbose.output, "WARN")] == \
        ["r0", "r1", "a0", "r2", "a1"]
    quiet = _check(old_opset, "--target", "openvino", "-q")
    assert quiet.exit_code == 0 and _lines(quiet.output, "WARN") == []
    assert quiet.output.strip().splitlines() == [f"{old_opset}: every node runs on openvino (5 nodes, 5 warnings)"]
    errors_only = _check(old_opset, "--target", "tensorrt", "-q")  # opset 7 is outside onnx-tensorrt's 9..24
    assert errors_only.exit_code == 1 and len(_lines(errors_only.output, "ERROR tensorrt")) == 1
    both = _check(old_opset, "-q", "-v")
    assert both.exit_code == 2 and "-q and -v" in both.output


def test_portable_does_not_repeat_a_member_checked_on_its_own(old_opset):
    result = _check(old_opset, "--target", "portable", "--target", "openvino")
    assert len([line for line in _lines(result.output, "WARN") if "not measured" in line]) == 1  # was 2
    assert "(portable includes openvino: its 5 problems are listed under openvino)" in result.output
    alone = _check(old_opset, "--target", "portable")  # without openvino named, portable shows them
    assert len([line for line in _lines(alone.output, "WARN") if "not measured" in line]) == 1


def test_the_hint_names_a_command_every_install_has(old_opset):
    """Was `python -m tools.measure_openvino`: a developer tool of the checkout, not in the wheel."""
    result = _check(old_opset, "--target", "openvino", "-v")
    assert "tools.measure_openvino" not in result.output
    hint = re.findall(r"spec2onnx check [^)]*", result.output)
    assert hint and all(h == hint[0] for h in hint)
    command = hint[0].split(" asks ")[0].split()
    assert command == ["spec2onnx", "check", "--probe", "--target", "openvino"]
    helped = CliRunner().invoke(main, ["check", "--help"]).output
    assert "--probe" in helped and "--target" in helped
    pytest.importorskip("openvino")
    probed = _check(old_opset, *command[2:])  # the command the hint names runs, and answers
    assert probed.exit_code == 0 and "openvino: probed:" in probed.output and "not measured" not in probed.output


def test_old_opset_model_from_the_onnx_wheel_is_a_handful_of_lines():
    """light_densenet121 (onnx's own test data): 1,625 "not measured" warning lines at the issue's time, then one line
    for them; now the OpenVINO table measures the light models (issue 31) and there is none."""
    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", "light_densenet121.onnx")
    if not os.path.isfile(path):
        pytest.skip("this onnx wheel has no light models")
    result = _check(path, "--target", "portable", "--target", "openvino")
    assert result.exit_code == 0, result.output
    assert "every node runs on openvino (1,746 nodes)" in result.output
    assert [line for line in _lines(result.output, "WARN") if "not measured" in line] == []


# --- check --help ---

def _help(*command) -> str:
    result = CliRunner().invoke(main, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    return " ".join(result.output.split())


def _listed_targets(text: str) -> set[str]:
    listed = text.split("A target: ", 1)[1].split("; or one a --plugin adds")[0]
    return {re.sub(r" \(.*", "", part.strip()) for part in listed.split("; ")}  # "name (summary); name (summary)"


@pytest.mark.parametrize("command", ["check", "convert", "validate"])
def test_help_names_every_built_in_target(command):
    """The list the help teaches is the registry's (it was a hand-written list without ort-dml in check)."""
    assert _listed_targets(_help(command)) == set(TARGET_NAMES)


def test_check_help_has_checks_own_exit_statuses_and_says_model():
    text = _help("check")
    assert "Exit status: 0 every node of every file runs on every target" in text
    assert "1 some node does not run on some target" in text and "2 a file cannot be read as an ONNX model" in text
    assert "a case failed" not in text and "XPASS" not in text  # validate's statuses
    assert "Memory budget for one model" in text and "one spec" not in text
    assert "Memory budget for one spec" in _help("validate")


# --- check --layers ---

def test_layers_explains_the_question_mark(tmp_path):
    """trt_importer.py: a node of an op the view does not model is "?OP" (ConstantOfShape here)."""
    shape = numpy_helper.from_array(np.int64([2]), "shape")
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["c"], name="c",
                              value=numpy_helper.from_array(np.float32([1]), "v")),
             helper.make_node("Add", ["x", "c"], ["y"], name="add")]
    path = tmp_path / "cos.onnx"
    onnx.save(_model(nodes, 17, inits=[shape], ir_version=8), path)
    result = _check(path, "--target", "tensorrt", "--layers")
    assert "c: ?ConstantOfShape" in result.output
    assert '"?OP": a node of an op this view does not model' in result.output
    plain = tmp_path / "relu.onnx"
    onnx.save(_model([helper.make_node("Relu", ["x"], ["y"], name="r")], 17, ir_version=8), plain)
    result = _check(plain, "--target", "tensorrt", "--layers")
    assert "r: IActivationLayer" in result.output and '"?OP"' not in result.output  # said only where there is one


def test_an_interrupted_check_writes_its_reports_with_the_files_checked(tmp_path, monkeypatch):
    """Ctrl-C on the second file: the first file's verdict is in --json (marked interrupted) and --html, status 130;
    nothing was written before."""
    import json

    from converter.model import check as model_check

    for name in ("a", "b"):
        graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8),
                  tmp_path / f"{name}.onnx")
    real = model_check.check_file

    def interrupted(path, *args):
        if str(path).endswith("b.onnx"):
            raise KeyboardInterrupt
        return real(path, *args)

    monkeypatch.setattr(model_check, "check_file", interrupted)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--target",
                                       "ort-cpu", "--json", str(tmp_path / "c.json"), "--html", str(tmp_path / "c.html")])
    assert result.exit_code == 130, result.output
    report = json.loads((tmp_path / "c.json").read_text())
    assert report["interrupted"] is True and [f["path"] for f in report["files"]] == [str(tmp_path / "a.onnx")]
    assert (tmp_path / "c.html").exists()
