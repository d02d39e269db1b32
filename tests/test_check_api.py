"""``spec2onnx.check`` on several files is what ``spec2onnx check`` prints and writes (issue 32 item 5: the file loop,
the probe and the grouping live in the library; the command only prints). Expected verdicts are hand-made: a Relu
runs everywhere, an op of a domain no runtime has runs nowhere, and bytes that are no model are not read."""

from __future__ import annotations

import json

import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

import spec2onnx
from cli import main

F = TensorProto.FLOAT


def _save(path, op: str, domain: str = ""):
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], domain=domain, name="n0")], "g",
                              [helper.make_tensor_value_info("x", F, [2])], [helper.make_tensor_value_info("y", F, [2])])
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    onnx.save(helper.make_model(graph, opset_imports=opsets, ir_version=8), path)
    return path


@pytest.fixture
def three(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    relu = _save(folder / "a_relu.onnx", "Relu")
    custom = _save(folder / "b_custom.onnx", "Frobnicate", "com.example.nowhere")
    junk = folder / "c_junk.onnx"
    junk.write_bytes(b"\xff\xfe not a model \x00")
    return folder, [relu, custom, junk]


@pytest.mark.parametrize("targets", [["portable"], ["tensorrt", "openvino"]])
def test_the_api_on_several_files_gives_the_commands_json_status_and_lines(three, tmp_path, targets):
    folder, files = three
    report = tmp_path / "check.json"
    args = ["check", *map(str, files), *(a for t in targets for a in ("--target", t)), "--json", str(report)]
    result = CliRunner().invoke(main, args)
    checked = spec2onnx.check([str(f) for f in files], target=targets)
    assert isinstance(checked, spec2onnx.CheckRun)
    assert checked.json == json.loads(report.read_text())
    assert result.exit_code == checked.status == 2  # a file was not read
    for target in targets:  # by hand: the Relu runs, the unknown domain's op does not, the junk is not read
        assert checked.json["summary"][target] == {"runs": 1, "refused": 1, "unreadable": 1}
    assert [f.runs(targets[0]) for f in checked.files] == [True, False, None]
    printed = [line for f in checked.files for line in f.lines] + checked.table.splitlines()
    assert result.stdout.splitlines() == printed
    assert result.stderr.splitlines() == [f"spec2onnx: error: {checked.files[2].error.splitlines()[0]}"]


def test_a_folder_is_its_onnx_files_in_order_as_for_the_command(three):
    folder, files = three
    checked = spec2onnx.check(folder, target="portable")
    assert [f.path for f in checked.files] == [str(f) for f in files]
    assert not checked.ok and checked.json["exit_status"] == 2
    one = spec2onnx.check(str(files[0]), target="portable")  # one model: the CheckReport, as before
    assert isinstance(one, spec2onnx.CheckReport) and one.ok


def test_several_targets_for_one_model_are_refused_with_a_user_error(three):
    _, files = three
    with pytest.raises(spec2onnx.UserError, match="one target name"):
        spec2onnx.check(str(files[0]), target=["tensorrt", "openvino"])


def test_a_list_of_models_in_memory_is_refused_naming_the_way(three):
    """check([ModelProto, ...]) took each model for a path: a CheckRun of status 2 whose "file" was the model's text
    dump. A list holds paths; a model in memory is checked on its own, which works."""
    _, files = three
    model = onnx.load(files[0])
    with pytest.raises(spec2onnx.UserError, match=r"^check\(\[\.\.\.\]\): a list holds \.onnx files or folders "
                                                  r"\(paths\), not ModelProto; check one model or spec on its own"):
        spec2onnx.check([model, model], target="ort-cpu")
    assert spec2onnx.check(model, target="ort-cpu").ok
