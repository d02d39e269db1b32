"""`spec2onnx run MODEL.onnx` (issue 26): any ONNX model on several runtimes, every pair compared.

Expected values come from outside this program: the onnx wheel's light_* models with the outputs onnx ships
for them (and the inputs onnx's backend test runner makes for them), numpy computing what the ONNX text
says (Softmax-11's coercion to 2-D, int64 arithmetic), and the runtimes themselves.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from cli import main

from .conftest import REPO, RUN_CLI, SPECS, child_env

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
LIGHT_MODELS = sorted(p.stem for p in LIGHT.glob("light_*.onnx"))
HAS_OPENVINO = importlib.util.find_spec("openvino") is not None
needs_openvino = pytest.mark.skipif(not HAS_OPENVINO, reason="OpenVINO is not installed")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def save_model(path, nodes, inputs, outputs, opset=17, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8), path)
    return path


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def onnx_runner_inputs(model_path: Path) -> dict:
    """The inputs onnx's backend test runner makes for a light model (runner/__init__.py generate_dummy_data,
    random=False): arange(n) / n in the input's shape, unknown dimensions 1."""
    model = onnx.load(model_path)
    initialized = {i.name for i in model.graph.initializer}
    feeds = {}
    for x in model.graph.input:
        if x.name in initialized:
            continue
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in x.type.tensor_type.shape.dim)
        n = int(np.prod(shape))
        feeds[x.name] = (np.arange(n).reshape(shape) / n).astype(np.float32)
    return feeds


def light_golden(tmp_path, name):
    """(inputs.npz, golden.npz) of a light model: onnx's inputs and the output onnx ships beside the model."""
    model = onnx.load(LIGHT / f"{name}.onnx")
    expected = numpy_helper.to_array(onnx.load_tensor(str(LIGHT / f"{name}_output_0.pb")))
    np.savez(tmp_path / "in.npz", **onnx_runner_inputs(LIGHT / f"{name}.onnx"))
    np.savez(tmp_path / "golden.npz", **{model.graph.output[0].name: expected})
    return tmp_path / "in.npz", tmp_path / "golden.npz"


# Runtimes compared on the onnx wheel's light models


@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_models_on_onnxruntime_give_the_outputs_onnx_ships_for_them(name, tmp_path):
    inputs, golden = light_golden(tmp_path, name)
    result = invoke("run", LIGHT / f"{name}.onnx", "--runtime", "onnxruntime", "--load-inputs", inputs,
                    "--load-outputs", golden)
    assert result.exit_code == 0, result.output
    assert f"PASS  {name}.onnx/ort[cpu] vs golden" in result.stdout
    assert "1 comparison: 1 passed, 0 failed, 0 errors" in result.stdout


@needs_openvino
@pytest.mark.parametrize("name", ["light_resnet50", "light_shufflenet", "light_inception_v1"])
def test_light_models_agree_on_onnxruntime_and_openvino_and_with_onnxs_own_outputs(name, tmp_path):
    """(All nine agree: docs/cli.md, run; the three here keep the suite's time down.)"""
    inputs, golden = light_golden(tmp_path, name)
    result = invoke("run", LIGHT / f"{name}.onnx", "--runtime", "onnxruntime", "--runtime", "openvino",
                    "--load-inputs", inputs, "--load-outputs", golden)
    assert result.exit_code == 0, result.output
    assert f"PASS  {name}.onnx/openvino vs ort[cpu]" in result.stdout
    assert f"{name}.onnx/ort[cpu] vs golden" in result.stdout and f"{name}.onnx/openvino vs golden" in result.stdout
    assert "3 comparisons: 3 passed, 0 failed, 0 errors" in result.stdout


def test_light_model_generated_inputs_say_where_they_come_from_and_json_and_junit_report_it(tmp_path):
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    result = invoke("run", LIGHT / "light_zfnet512.onnx", "--runtime", "onnxruntime", "--json", report,
                    "--junit", junit)
    assert result.exit_code == 0, result.output
    assert "inputs (generated: seed 1, values in [0, 1]): gpu_0/data_0 float32[1, 3, 224, 224]" in result.stdout
    doc = json.loads(report.read_text())
    assert doc["schema"] == "spec2onnx-report/4" and doc["summary"]["PASS"] == 1 and doc["summary"]["total"] == 1
    assert doc["model"]["inputs"] == [{"name": "gpu_0/data_0", "dtype": "float32", "shape": [1, 3, 224, 224]}]
    assert doc["model"]["runtimes"][0]["label"] == "ort[cpu]" and doc["model"]["runtimes"][0]["error"] is None
    assert doc["cases"][0]["spec"] == "light_zfnet512.onnx" and "Conv" in doc["cases"][0]["ops"]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("tests") == "1" and suite.get("failures") == "0"


# The first node that differs: real differences between runtimes


def softmax11_model(path):
    """Relu -> Softmax (opset 11, default axis 1) -> Add: the shape of squeezenet's last Softmax, [1, 4, 1, 1]."""
    one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
    return save_model(path, [helper.make_node("Relu", ["x"], ["r"], name="relu"),
                             helper.make_node("Softmax", ["r"], ["s"], name="softmax"),
                             helper.make_node("Add", ["s", "one"], ["y"], name="add")],
                      [tensor("x", TensorProto.FLOAT, [1, 4, 1, 1])], [tensor("y", TensorProto.FLOAT, [1, 4, 1, 1])],
                      opset=11, initializers=[one])


def test_mark_all_names_the_softmax_where_the_reference_evaluator_leaves_the_onnx_text(tmp_path):
    model = softmax11_model(tmp_path / "m.onnx")
    x = np.array([0.5, -1.0, 2.0, 1.0], np.float32).reshape(1, 4, 1, 1)
    np.savez(tmp_path / "in.npz", x=x)
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz", "--mark-all", "--save-outputs",
                    tmp_path / "ort.npz", "--json", tmp_path / "r.json")
    assert result.exit_code == 1, result.output
    assert "FAIL  m.onnx/onnx-reference vs ort[cpu]" in result.stdout
    assert "output 'y': onnx-reference vs ort[cpu]" in result.stdout
    assert "first differing node: #1 'softmax' (Softmax), output 's'" in result.stdout
    assert "that is the node to look at" in result.stdout
    # which side is right: Softmax-11 coerces [1, 4, 1, 1] to [1, 4] at axis 1 (the ONNX text); onnxruntime's
    # outputs (--save-outputs: the first runtime's, every tensor with --mark-all) are that
    r = np.maximum(x, 0).reshape(1, 4)
    want = (np.exp(r) / np.exp(r).sum(axis=1, keepdims=True)).reshape(1, 4, 1, 1)
    saved = np.load(tmp_path / "ort.npz")
    assert sorted(saved.files) == ["r", "s", "y"]
    np.testing.assert_allclose(saved["s"], want, rtol=1e-6)
    np.testing.assert_allclose(saved["y"], want + 1, rtol=1e-6)
    first = [c for c in json.loads((tmp_path / "r.json").read_text())["cases"][0]["comparisons"]
             if c.get("first_difference")]
    assert [(c["node"], c["op"], c["node_index"], c["output"]) for c in first] == [("softmax", "Softmax", 1, "s")]


def test_mark_all_against_golden_outputs_names_the_first_node_that_differs_from_them(tmp_path):
    model = softmax11_model(tmp_path / "m.onnx")
    golden = tmp_path / "reference.npz"
    made = invoke("run", model, "--runtime", "onnx-reference", "--mark-all", "--save-outputs", golden,
                  "--save-inputs", tmp_path / "in.npz")
    assert made.exit_code == 0, made.output
    assert sorted(np.load(golden).files) == ["r", "s", "y"]
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz",
                    "--load-outputs", golden, "--mark-all")
    assert result.exit_code == 1, result.output
    assert "FAIL  m.onnx/ort[cpu] vs golden" in result.stdout
    assert "first differing node: #1 'softmax' (Softmax), output 's' (ort[cpu] vs golden" in result.stdout


@needs_openvino
def test_mark_all_names_the_first_int64_node_openvino_wraps_at_32_bits(tmp_path):
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Mul", ["a", "b"], ["p"], name="mul"),
                                             helper.make_node("Add", ["p", "b"], ["s"], name="add"),
                                             helper.make_node("Sub", ["s", "a"], ["z"], name="sub")],
                       [tensor("a", TensorProto.INT64, [3]), tensor("b", TensorProto.INT64, [3])],
                       [tensor("z", TensorProto.INT64, [3])])
    a, b = np.array([1, 2, 3], np.int64), np.array([2**20, 3, 2**31], np.int64)
    np.savez(tmp_path / "in.npz", a=a, b=b)
    result = invoke("run", model, "--runtime", "onnxruntime", "--runtime", "openvino", "--load-inputs",
                    tmp_path / "in.npz", "--mark-all", "--save-outputs", tmp_path / "ort.npz")
    assert result.exit_code == 1, result.output
    assert "first differing node: #0 'mul' (Mul), output 'p' (openvino vs ort[cpu]" in result.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "ort.npz")["z"], (a * b + b) - a)  # onnxruntime: int64


def test_mark_all_skips_a_difference_no_differing_output_depends_on(tmp_path):
    """squeezenet's Dropout (opset 9): onnx's reference returns its unused mask as bool (opset 10's type), not
    float; the difference reaching the output starts at the Softmax."""
    name = "light_squeezenet"
    inputs, golden = light_golden(tmp_path, name)
    result = invoke("run", LIGHT / f"{name}.onnx", "--load-inputs", inputs, "--load-outputs", golden, "--mark-all")
    assert result.exit_code == 1, result.output
    assert "PASS  light_squeezenet.onnx/ort[cpu] vs golden" in result.stdout
    assert "FAIL  light_squeezenet.onnx/onnx-reference vs golden" in result.stdout
    assert "first differing node: #104 'n65' (Softmax), output 'softmaxout_1' (onnx-reference vs ort[cpu]" \
        in result.stdout
    assert "Dropout" not in result.stdout


# Golden outputs


def add_model(path, shape=(2, 3)):
    return save_model(path, [helper.make_node("Add", ["x", "y"], ["z"], name="add")],
                      [tensor("x", TensorProto.FLOAT, list(shape)), tensor("y", TensorProto.FLOAT, list(shape))],
                      [tensor("z", TensorProto.FLOAT, list(shape))])


def test_saved_inputs_and_outputs_round_trip_and_a_wrong_golden_output_fails_naming_it(tmp_path):
    model = add_model(tmp_path / "m.onnx")
    first = invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", tmp_path / "in.npz",
                   "--save-outputs", tmp_path / "out.npz", "--seed", 7)
    assert first.exit_code == 0, first.output
    feeds, outs = np.load(tmp_path / "in.npz"), np.load(tmp_path / "out.npz")
    np.testing.assert_array_equal(outs["z"], feeds["x"] + feeds["y"])  # float32 Add, exactly
    same = invoke("run", model, "--load-inputs", tmp_path / "in.npz", "--load-outputs", tmp_path / "out.npz")
    assert same.exit_code == 0, same.output
    assert "3 comparisons: 3 passed" in same.stdout
    wrong = outs["z"].copy()
    wrong[1, 2] += 0.5
    np.savez(tmp_path / "bad.npz", z=wrong)
    bad = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz",
                 "--load-outputs", tmp_path / "bad.npz")
    assert bad.exit_code == 1, bad.output
    assert "FAIL  m.onnx/ort[cpu] vs golden" in bad.stdout
    assert "output 'z': ort[cpu] vs golden" in bad.stdout and "worst at [1, 2]" in bad.stdout
    assert f"got {float(outs['z'][1, 2])!r}, want {float(wrong[1, 2])!r}" in bad.stdout


@pytest.mark.parametrize("arrays, message", [
    ({"z": np.zeros((2, 3), np.float32), "w": np.zeros(1, np.float32)}, "array 'w' is no output of the model"),
    ({}, "no array for output 'z'"),
    ({"z": np.zeros((2, 3), np.int32)}, "array 'z' is int32; output 'z' is float32"),
])
def test_golden_outputs_that_do_not_fit_the_model_are_bad_input(tmp_path, arrays, message):
    model = add_model(tmp_path / "m.onnx")
    np.savez(tmp_path / "g.npz", **arrays)
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-outputs", tmp_path / "g.npz")
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output


# Inputs


@pytest.mark.parametrize("arrays, message", [
    ({"x": np.zeros((2, 3), np.float32)}, "no array for input 'y'"),
    ({"x": np.zeros((2, 3), np.float32), "y": np.zeros((2, 3), np.float32), "q": np.zeros(1)},
     "array 'q' is no input of the model"),
    ({"x": np.zeros((2, 3), np.float64), "y": np.zeros((2, 3), np.float32)},
     "array 'x' is float64[2, 3]; input 'x' is float32[2, 3]"),
    ({"x": np.zeros((3, 2), np.float32), "y": np.zeros((2, 3), np.float32)},
     "array 'x' has shape [3, 2]; input 'x' is float32[2, 3]"),
])
def test_loaded_inputs_are_checked_against_the_model_naming_the_input(tmp_path, arrays, message):
    model = add_model(tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", **arrays)
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz")
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_loaded_inputs_are_never_unpickled(tmp_path):
    model = add_model(tmp_path / "m.onnx")
    objects = np.empty((2, 3), dtype=object)
    np.savez(tmp_path / "in.npz", x=objects, y=np.zeros((2, 3), np.float32))
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz")
    assert result.exit_code == 2 and "array 'x' holds Python objects" in result.stderr
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    assert "not a .npz (zip) file" in invoke("run", model, "--load-inputs", tmp_path / "junk.npz").stderr
    # onnx's light models ship their golden output as one TensorProto file: the message says how to give it
    from onnx import numpy_helper

    (tmp_path / "out_0.pb").write_bytes(numpy_helper.from_array(np.zeros((2, 3), np.float32), "z").SerializeToString())
    result = invoke("run", model, "--load-outputs", tmp_path / "out_0.pb")
    assert result.exit_code == 2 and "give the folder" in result.stderr and "output_K.pb" in result.stderr


def _corrupt_npz(path, name, how):
    """An .npz of one float32[64, 1024] array ``name`` whose data is cut short (a consistent zip, 8 bytes missing:
    numpy's 'EOF: reading array data') or has one byte flipped (zipfile's 'Bad CRC-32', met at the member's end)."""
    member = io.BytesIO()
    np.lib.format.write_array(member, np.ones((64, 1024), np.float32))
    data = member.getvalue()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}.npy", data[:-8] if how == "truncated" else data)
    if how == "bad crc":
        raw = bytearray(path.read_bytes())
        raw[len(data) // 2] ^= 0xFF  # inside the member's data (the local header and .npy header come first)
        path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize("how, why", [("truncated", "EOF: reading array data"), ("bad crc", "Bad CRC-32")])
@pytest.mark.parametrize("option, name", [("--load-inputs", "x"), ("--load-outputs", "y")])
def test_a_corrupt_npz_member_is_bad_input_naming_the_file_and_member(tmp_path, how, why, option, name):
    model = save_model(tmp_path / "r.onnx", [helper.make_node("Relu", ["x"], ["y"])],
                       [tensor("x", TensorProto.FLOAT, [64, 1024])], [tensor("y", TensorProto.FLOAT, [64, 1024])])
    npz = _corrupt_npz(tmp_path / "c.npz", name, how)
    result = invoke("run", model, "--runtime", "onnxruntime", option, npz, "--save-inputs", tmp_path / "i.npz")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"spec2onnx: error: {option} {npz}: member '{name}.npy' ")
    assert why in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "i.npz").exists()  # nothing written


@pytest.mark.parametrize("option, message", [
    ("--save-inputs", "input 'a\\x00b' holds a NUL byte"), ("--save-outputs", "output 'y\\x00z' holds a NUL byte")])
def test_a_name_an_npz_member_cannot_carry_is_refused_at_save(tmp_path, option, message):
    """zipfile cuts a member's name at a NUL byte: 'a\\0b' was saved as member 'a', which --load-inputs refused."""
    model = save_model(tmp_path / "nul.onnx", [helper.make_node("Relu", ["a\0b"], ["y\0z"])],
                       [tensor("a\0b", TensorProto.FLOAT, [2])], [tensor("y\0z", TensorProto.FLOAT, [2])])
    result = invoke("run", model, "--runtime", "onnxruntime", option, tmp_path / "s.npz")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"spec2onnx: error: {option} {tmp_path / 's.npz'}: {message}")
    assert result.stderr.count("\n") == 1 and not (tmp_path / "s.npz").exists()


def dynamic_model(path):
    """x: float32[N, 3, ?] + y: float32[N, 3, 1] -> Relu."""
    return save_model(path, [helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Relu", ["s"], ["z"])],
                      [tensor("x", TensorProto.FLOAT, ["N", 3, None]), tensor("y", TensorProto.FLOAT, ["N", 3, 1])],
                      [tensor("z", TensorProto.FLOAT, None)])


def test_shapes_bind_symbolic_dims_in_every_input_and_unbound_ones_are_1_and_said(tmp_path):
    model = dynamic_model(tmp_path / "m.onnx")
    result = invoke("run", model, "--shapes", "x:4x3x5", "--save-inputs", tmp_path / "in.npz")
    assert result.exit_code == 0, result.output
    feeds = np.load(tmp_path / "in.npz")
    assert feeds["x"].shape == (4, 3, 5) and feeds["y"].shape == (4, 3, 1)  # N bound through x
    assert "note" not in result.stderr
    plain = invoke("run", model, "--runtime", "onnxruntime")
    assert plain.exit_code == 0, plain.output
    assert "note: input 'x' is float32[N, 3, ?]: 'N', dimension 2 not bound, using 1: 1x3x1" in plain.stderr
    both = invoke("run", model, "--runtime", "onnxruntime", "--shapes", "x:[2,3,7],y:[2,3,1]", "--save-inputs",
                  tmp_path / "in2.npz")
    assert both.exit_code == 0, both.output
    assert np.load(tmp_path / "in2.npz")["x"].shape == (2, 3, 7)


@pytest.mark.parametrize("shapes, message", [
    (["x:2x4x5"], "--shapes x:2x4x5: dimension 1 is 4; input 'x' is float32[N, 3, ?], whose dimension 1 is fixed at 3"),
    (["x:2x3"], "--shapes x:2x3: rank 2; input 'x' is float32[N, 3, ?], rank 3"),
    (["x:2x3x5,y:3x3x1"], "--shapes y:3x3x1: dimension 0 ('N') is 3, but --shapes x binds 'N' to 2"),
    (["w:2x3"], "--shapes w: the model has no input 'w'"),
    (["x:2x3x5", "x:2x3x6"], "input 'x' is given twice"),
    (["x:2xAx5"], "'A' is not a length"),
    (["2x3x5"], "expected NAME:DxDxD"),
])
def test_shapes_that_contradict_the_model_are_refused_naming_the_input(tmp_path, shapes, message):
    model = dynamic_model(tmp_path / "m.onnx")
    args = [a for s in shapes for a in ("--shapes", s)]
    result = invoke("run", model, "--runtime", "onnxruntime", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1, result.stderr  # one line
    if message.startswith("--shapes") and "is not a length" not in message:  # checked against the model: named
        assert result.stderr.startswith(f"spec2onnx: error: {model}: {message}"), result.stderr


def test_an_input_of_unknown_rank_needs_shapes(tmp_path):
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Relu", ["x"], ["z"])],
                       [tensor("x", TensorProto.FLOAT, None)], [tensor("z", TensorProto.FLOAT, None)])
    result = invoke("run", model, "--runtime", "onnxruntime")
    assert result.exit_code == 2 and "input 'x': the model does not declare its shape" in result.stderr
    assert invoke("run", model, "--runtime", "onnxruntime", "--shapes", "x:2x2").exit_code == 0


def test_val_range_and_seed(tmp_path):
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Add", ["f", "f"], ["g"]),
                                             helper.make_node("Add", ["i", "i"], ["j"])],
                       [tensor("f", TensorProto.FLOAT, [1000]), tensor("i", TensorProto.INT32, [1000])],
                       [tensor("g", TensorProto.FLOAT, [1000]), tensor("j", TensorProto.INT32, [1000])])
    out = tmp_path / "in.npz"
    assert invoke("run", model, "--runtime", "onnxruntime", "--val-range", "f:-3,-2", "--val-range", "i:[5, 7]",
                  "--save-inputs", out).exit_code == 0
    f, i = np.load(out)["f"], np.load(out)["i"]
    assert f.min() >= -3 and f.max() < -2 and set(np.unique(i)) == {5, 6, 7}  # integers: both ends
    assert invoke("run", model, "--runtime", "onnxruntime", "--val-range", "10,20", "--save-inputs", out).exit_code == 0
    assert np.load(out)["f"].min() >= 10 and np.load(out)["i"].max() <= 20
    default = invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", out)
    assert default.exit_code == 0 and set(np.unique(np.load(out)["i"])) == {0, 1}  # Polygraphy's default [0, 1]
    again = tmp_path / "again.npz"
    assert invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", again).exit_code == 0
    np.testing.assert_array_equal(np.load(out)["f"], np.load(again)["f"])
    assert invoke("run", model, "--runtime", "onnxruntime", "--seed", 2, "--save-inputs", again).exit_code == 0
    assert not np.array_equal(np.load(out)["f"], np.load(again)["f"])
    for bad, message in (("f:3,2", "LOW 3 is above HIGH 2"), ("q:0,1", "the model has no input 'q'"),
                         ("f:0,nan", "'nan' is not a finite number"), ("i:0.2,0.7", "no integer lies in the range"),
                         ("i:0,3e9", "out of range for int32")):
        result = invoke("run", model, "--runtime", "onnxruntime", "--val-range", bad)
        assert result.exit_code == 2 and message in result.stderr, (bad, result.output)
        if not bad.startswith(("f:3", "f:0,nan")):  # checked against the model (the others: the option's syntax)
            assert result.stderr.startswith(f"spec2onnx: error: {model}: "), result.stderr


# Runtimes that cannot run a model, files, options


def test_a_runtime_that_cannot_run_the_model_is_a_failure_of_that_runtime(tmp_path):
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Relu", ["x"], ["r"]),
                                             helper.make_node("Gelu", ["r"], ["z"], domain="com.microsoft")],
                       [tensor("x", TensorProto.FLOAT, [3])], [tensor("z", TensorProto.FLOAT, [3])])
    m = onnx.load(model)
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(m, model)
    result = invoke("run", model)  # onnxruntime has the contrib op Gelu; onnx's reference has no such op
    assert result.exit_code == 1, result.output
    assert "ERROR m.onnx/onnx-reference" in result.stdout
    assert "onnx-reference cannot load the model" in result.stdout
    assert "PASS  m.onnx/ort[cpu]\n" in result.stdout  # it ran; nothing is left to compare it with
    assert "Traceback" not in result.output


@needs_openvino
def test_a_runtime_without_the_op_says_which_and_the_others_results_stay(tmp_path):
    """OpenVINO's ONNX frontend has no RegexFullMatch (opset 20); onnxruntime and onnx's reference run it. OpenVINO's
    message opens with the C++ file that threw it; the line says what it found instead."""
    model = save_model(tmp_path / "m.onnx", [helper.make_node("RegexFullMatch", ["s"], ["z"], pattern="a.*")],
                       [tensor("s", TensorProto.STRING, [2])], [tensor("z", TensorProto.BOOL, [2])], opset=20)
    np.savez(tmp_path / "in.npz", s=np.array(["abc", "xbc"]))
    result = invoke("run", model, "--runtime", "onnxruntime", "--runtime", "openvino", "--runtime", "onnx-reference",
                    "--load-inputs", tmp_path / "in.npz", "--save-outputs", tmp_path / "out.npz")
    assert result.exit_code == 1, result.output
    assert "ERROR m.onnx/openvino" in result.stdout
    assert "No conversion rule found for operations: RegexFullMatch-20" in result.stdout, result.stdout
    assert "PASS  m.onnx/onnx-reference vs ort[cpu]" in result.stdout
    assert list(np.load(tmp_path / "out.npz")["z"]) == [True, False]  # the pattern matches the whole string


@pytest.mark.parametrize("field, text", [("graph.node[0].input[0]", "x"), ("graph.node[0].op_type", "Relu"),
                                         ("graph.node[0].attribute[0].name", "alpha"),
                                         ("graph.input[0].type.tensor_type.shape.dim[0].dim_param", "N")])
def test_a_name_that_is_not_utf8_is_bad_input_naming_the_field(tmp_path, field, text):
    """onnx.proto is proto2: its parser takes a string field that is not UTF-8, and Python's protobuf hands it
    over as bytes (an internal error, exit 3, where run sorted or encoded names). The byte 0xff is never UTF-8."""
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Relu", ["x"], ["z"], alpha=0.5)],
                       [tensor("x", TensorProto.FLOAT, ["N", 3])], [tensor("z", TensorProto.FLOAT, ["N", 3])])
    data = model.read_bytes()
    marker = bytes([len(text)]) + text.encode()  # the length byte and the text, as protobuf writes them: the first one
    # in the file (the graph writes its nodes before its inputs)
    assert data.count(marker) >= 1
    model.write_bytes(data.replace(marker, bytes([len(text)]) + b"\xff" + text.encode()[1:], 1))
    result = invoke("run", model)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"spec2onnx: error: {model}: {field}: b'\\xff") and "is not UTF-8" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_external_data_is_read_inside_the_models_folder_only(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    k = np.full((2, 3), 3, np.float32)
    model_path = save_model(folder / "m.onnx", [  # an initializer and a Constant's value, both in w.bin
        helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(k)),
        helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Mul", ["s", "k"], ["z"])],
        [tensor("x", TensorProto.FLOAT, [2, 3])], [tensor("z", TensorProto.FLOAT, [2, 3])],
        initializers=[numpy_helper.from_array(w, "w")])
    onnx.save(onnx.load(model_path), model_path, save_as_external_data=True, all_tensors_to_one_file=True,
              location="w.bin", size_threshold=0, convert_attribute=True)
    saved = onnx.load(model_path, load_external_data=False)
    assert saved.graph.initializer[0].data_location == saved.graph.node[0].attribute[0].t.data_location == \
        TensorProto.EXTERNAL
    np.savez(tmp_path / "in.npz", x=np.ones((2, 3), np.float32))
    ok = invoke("run", model_path, "--load-inputs", tmp_path / "in.npz", "--save-outputs", tmp_path / "o.npz")
    assert ok.exit_code == 0, ok.output
    np.testing.assert_array_equal(np.load(tmp_path / "o.npz")["z"], (w + 1) * 3)
    outside = tmp_path / "elsewhere.bin"
    os.replace(folder / "w.bin", outside)
    os.symlink(outside, folder / "w.bin")
    escaped = invoke("run", model_path, "--load-inputs", tmp_path / "in.npz")
    assert escaped.exit_code == 2 and "outside the model's folder" in escaped.stderr
    os.unlink(folder / "w.bin")
    missing = invoke("run", model_path, "--load-inputs", tmp_path / "in.npz")
    assert missing.exit_code == 2 and "cannot read the model's external data 'w.bin'" in missing.stderr


@pytest.mark.parametrize("option", ["--save-outputs", "--save-inputs", "--json", "--junit"])
@pytest.mark.parametrize("how", ["path", "symlink", "hard link"])
def test_no_output_overwrites_the_models_external_data(tmp_path, option, how):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    model_path = save_model(tmp_path / "m.onnx", [helper.make_node("Add", ["x", "w"], ["y"])],
                            [tensor("x", TensorProto.FLOAT, [2, 3])], [tensor("y", TensorProto.FLOAT, [2, 3])],
                            initializers=[numpy_helper.from_array(w, "w")])
    onnx.save(onnx.load(model_path), model_path, save_as_external_data=True, location="w.bin", size_threshold=0)
    data = tmp_path / "w.bin"
    before = data.read_bytes()
    assert len(before) == w.nbytes  # the 24 bytes of w: the file the model reads
    named = {"path": data, "symlink": tmp_path / "link.bin", "hard link": tmp_path / "hard.bin"}[how]
    if how == "symlink":
        os.symlink(data, named)
    elif how == "hard link":
        os.link(data, named)
    result = invoke("run", model_path, "--runtime", "onnxruntime", option, named)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"spec2onnx: error: {option} {named}: is ") and result.stderr.count("\n") == 1
    assert "an input of this run; refusing to overwrite it" in result.stderr
    assert data.read_bytes() == before and "Traceback" not in result.output
    ok = invoke("run", model_path, "--runtime", "onnxruntime", "--seed", "3", "--save-inputs", tmp_path / "i.npz",
                "--save-outputs", tmp_path / "o.npz")  # the weights intact: y = x + w
    assert ok.exit_code == 0, ok.output
    np.testing.assert_array_equal(np.load(tmp_path / "o.npz")["y"], np.load(tmp_path / "i.npz")["x"] + w)


def test_run_dispatches_on_what_the_file_is(tmp_path):
    spec = SPECS / "trt_elementwise/seed-broadcast-prod.yaml"
    model = tmp_path / "model.bin"  # no .onnx suffix: it parses as a model
    assert invoke("convert", spec, "-o", tmp_path / "m.onnx").exit_code == 0
    model.write_bytes((tmp_path / "m.onnx").read_bytes())
    assert invoke("run", model, "--runtime", "onnxruntime").exit_code == 0
    assert invoke("run", spec, "--case", "doc-example", "-o", tmp_path).exit_code == 0
    for args, message in (((model, "--case", "x"), "--case: " + str(model) + " is an ONNX model"),
                          ((spec, "--mark-all"), "--mark-all: " + str(spec) + " is a spec file"),
                          ((spec, "--runtime", "openvino"), "--runtime: ")):
        result = invoke("run", *args)
        assert result.exit_code == 2 and message in result.stderr, result.output
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(os.urandom(64))
    result = invoke("run", junk)
    assert result.exit_code == 2 and "not an ONNX model" in result.stderr and "Traceback" not in result.output


def test_outputs_are_refused_before_any_work_when_they_are_inputs(tmp_path):
    model = add_model(tmp_path / "m.onnx")
    result = invoke("run", model, "--save-outputs", model)
    assert result.exit_code == 2 and "is an input of this run" in result.stderr
    assert onnx.load(model).graph.node[0].op_type == "Add"
    clash = invoke("run", model, "--save-inputs", tmp_path / "a.npz", "--json", tmp_path / "a.npz")
    assert clash.exit_code == 2 and "writes the same file" in clash.stderr


@pytest.mark.parametrize("option", ["--save-outputs", "--save-inputs", "--json", "--junit"])
@pytest.mark.parametrize("read", ["--load-inputs", "--load-outputs"])
def test_no_output_overwrites_a_load_file_through_a_link(tmp_path, option, read):
    model = add_model(tmp_path / "m.onnx")
    loaded = tmp_path / "loaded.npz"
    np.savez(loaded, **({"x": np.ones((2, 3), np.float32), "y": np.ones((2, 3), np.float32)} if read == "--load-inputs"
                        else {"z": np.full((2, 3), 2, np.float32)}))
    before = loaded.read_bytes()
    os.link(loaded, tmp_path / "hard.npz")
    os.symlink(loaded, tmp_path / "soft.npz")
    for named in (tmp_path / "hard.npz", tmp_path / "soft.npz"):
        result = invoke("run", model, "--runtime", "onnxruntime", read, loaded, option, named)
        assert result.exit_code == 2 and f"{option} {named}: is the same file as {loaded}, an input" in result.stderr
    assert loaded.read_bytes() == before


# The deployment model: run takes the file convert writes (docs/deployment.md)


def test_run_compares_the_tensorrt_deployment_model_with_its_host_copy(tmp_path):
    """A float16 Scale with a power: the deployment model is a float16 BatchNormalization and Pow; the host copy
    computes in float32 and rounds once (converter/pipeline/legalize.py). run takes the deployment model on the runtimes that load it and
    compares them, and each with the host copy's outputs."""
    spec = SPECS / "trt_scale/gen-trt-scale-channel-float16-r4-axis1.yaml"
    deployment = tmp_path / "scale.onnx"
    assert invoke("convert", spec, "--target", "tensorrt", "-o", deployment).exit_code == 0
    hosts = tmp_path / "host"
    validated = invoke("validate", spec, "--target", "tensorrt", "--save-host-model", hosts, "-j", 0)
    assert validated.exit_code == 0, validated.output
    host = next(hosts.glob("*.host.onnx"))
    golden = invoke("run", host, "--runtime", "onnxruntime", "--save-inputs", tmp_path / "in.npz",
                    "--save-outputs", tmp_path / "host.npz")
    assert golden.exit_code == 0, golden.output
    ops, host_ops = ([n.op_type for n in onnx.load(m).graph.node] for m in (deployment, host))
    assert ops == ["BatchNormalization", "Pow"] and "Cast" not in ops and "Cast" in host_ops
    runtimes = ["onnxruntime", "onnx-reference"] + (["openvino"] if HAS_OPENVINO else [])
    result = invoke("run", deployment, *[a for r in runtimes for a in ("--runtime", r)],
                    "--load-inputs", tmp_path / "in.npz", "--load-outputs", tmp_path / "host.npz")
    assert result.exit_code == 0, result.output
    assert "scale.onnx/onnx-reference vs ort[cpu]" in result.stdout and "scale.onnx/ort[cpu] vs golden" in result.stdout
    assert f"{len(runtimes) * (len(runtimes) + 1) // 2} passed" in result.stdout


def test_string_tensors_run_and_compare_exactly(tmp_path):
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Identity", ["s"], ["t"])],
                       [tensor("s", TensorProto.STRING, [2])], [tensor("t", TensorProto.STRING, [2])])
    np.savez(tmp_path / "in.npz", s=np.array(["ab", "c"]))
    generated = invoke("run", model)
    assert generated.exit_code == 2 and "input 's' is string: run cannot generate it" in generated.stderr
    saved = invoke("run", model, "--load-inputs", tmp_path / "in.npz", "--save-outputs", tmp_path / "out.npz")
    assert saved.exit_code == 0, saved.output
    assert list(np.load(tmp_path / "out.npz")["t"]) == ["ab", "c"]
    assert "inputs (--load-inputs" in saved.stdout and ": s string[2]" in saved.stdout  # not numpy's '<U2'
    assert "ran ort[cpu] in" in saved.stdout and "t string[2]" in saved.stdout
    np.savez(tmp_path / "bad.npz", t=np.array(["ab", "d"]))
    bad = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz", "--load-outputs",
                 tmp_path / "bad.npz")
    assert bad.exit_code == 1 and "1/2 elements differ; first at [1]: got 'c', want 'd'" in bad.stdout


def test_an_unavailable_provider_or_a_sequence_output_is_bad_input(tmp_path):
    import onnxruntime

    model = add_model(tmp_path / "m.onnx")
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        result = invoke("run", model, "--provider", "cuda")
        assert result.exit_code == 2 and "--provider cuda" in result.stderr
    seq = save_model(tmp_path / "s.onnx", [helper.make_node("SplitToSequence", ["x"], ["s"])],
                     [tensor("x", TensorProto.FLOAT, [4])],
                     [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)])
    result = invoke("run", seq)
    assert result.exit_code == 2 and "graph output 's' is a sequence; run feeds and compares tensors only" in result.stderr


def test_without_onnxruntime_run_model_says_which_extra_to_install_and_the_other_runtimes_still_run(tmp_path):
    from .targets.test_no_onnxruntime import spec2onnx as without_onnxruntime

    model = add_model(tmp_path / "m.onnx")
    proc = without_onnxruntime("run", model, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert 'onnxruntime is not installed: pip install "spec2onnx[cpu]"' in proc.stderr
    proc = without_onnxruntime("run", model, "--runtime", "onnx-reference", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "ran onnx-reference" in proc.stdout and "PASS  m.onnx/onnx-reference" in proc.stdout


def test_a_runtime_that_crashes_is_that_runtimes_failure_and_the_others_still_run(tmp_path, monkeypatch):
    """Each runtime runs in a child process (converter/process/isolation.py): here onnx's reference segfaults (a read of
    address 0), as a runtime may on a malformed model; the command goes on and says so."""
    import ctypes

    from converter.runners import onnx_reference

    monkeypatch.setattr(onnx_reference, "runner", lambda model_bytes: ctypes.string_at(0))
    model = add_model(tmp_path / "m.onnx")
    result = invoke("run", model, "--json", tmp_path / "r.json")
    assert result.exit_code == 1, result.output
    assert "onnx-reference crashed: the process running it died of SIGSEGV" in result.stdout
    assert "PASS  m.onnx/ort[cpu]" in result.stdout and "Traceback" not in result.output
    cases = json.loads((tmp_path / "r.json").read_text())["cases"]
    assert sorted((c["case"], c["outcome"]) for c in cases) == [("onnx-reference", "ERROR"), ("ort[cpu]", "PASS")]


def test_an_input_of_unknown_rank_takes_its_shape_from_load_inputs(tmp_path):
    """Generated inputs need a rank (refused without --shapes); loaded ones bring their shape (Relu: numpy's max)."""
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Relu", ["x"], ["y"])],
                       [tensor("x", TensorProto.FLOAT, None)], [tensor("y", TensorProto.FLOAT, None)])
    refused = invoke("run", model, "--runtime", "onnxruntime")
    assert refused.exit_code == 2 and "input 'x': the model does not declare its shape" in refused.output
    x = np.array([[-1.5, 2.0, 0.0]], np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz",
                    "--save-outputs", tmp_path / "out.npz")
    assert result.exit_code == 0, result.output
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_array_equal(out["y"], np.maximum(x, 0))


def test_bfloat16_inputs_and_outputs_round_trip_through_npz(tmp_path):
    """numpy stores ml_dtypes' bfloat16 as |V2 records: read back as bfloat16, for inputs and golden outputs."""
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Identity", ["x"], ["y"])],
                       [tensor("x", TensorProto.BFLOAT16, [2, 3])], [tensor("y", TensorProto.BFLOAT16, [2, 3])])
    first = invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", tmp_path / "in.npz",
                   "--save-outputs", tmp_path / "out.npz")
    assert first.exit_code == 0, first.output
    with np.load(tmp_path / "in.npz") as saved:
        assert saved["x"].dtype == np.dtype("V2")  # how numpy keeps it
    again = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz",
                   "--load-outputs", tmp_path / "out.npz")
    assert again.exit_code == 0, again.output
    assert "PASS  m.onnx/ort[cpu] vs golden" in again.output


@pytest.mark.parametrize("extra", [(), ("--mark-all",)])
def test_a_model_onnxruntimes_load_never_returns_on_is_reported_not_waited_for(tmp_path, extra):
    """Einsum "a-b->ab": onnx 1.23's Einsum shape inference, which onnxruntime runs when it loads a model, never
    moves past the '-' (measured: tests/targets/test_validation.py). The run (and --mark-all's inference) ends
    at once: onnxruntime is an ERROR that says why it was not tried, the other runtime's verdict stays."""
    model = save_model(tmp_path / "m.onnx", [helper.make_node("Einsum", ["x"], ["y"], equation="a-b->ab")],
                       [tensor("x", TensorProto.FLOAT, [2, 3])], [tensor("y", TensorProto.FLOAT, None)], opset=17)
    proc = subprocess.run([sys.executable, "-c", RUN_CLI, "run", str(model), *extra], capture_output=True, text=True,
                          cwd=tmp_path, env=child_env(PYTHONPATH=str(REPO)), timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ERROR m.onnx/ort[cpu]" in proc.stdout
    assert "ort[cpu] cannot load the model (not tried)" in proc.stdout and "equation='a-b->ab'" in proc.stdout
    assert "m.onnx/onnx-reference" in proc.stdout and "Traceback" not in proc.stdout + proc.stderr
    checked = subprocess.run([sys.executable, "-c", RUN_CLI, "check", str(model)], capture_output=True, text=True,
                             cwd=tmp_path, env=child_env(PYTHONPATH=str(REPO)), timeout=120)
    assert checked.returncode == 1 and "onnx's shape inference cannot take the node" in checked.stdout, checked


def test_a_model_newer_than_onnxruntime_loads_says_so_in_checks_words(tmp_path):
    """An opset onnxruntime does not load: its ERROR said onnxruntime's C++ signature text; it now says what check
    says (a user's walk-through), and onnx's reference still runs it."""
    import onnxruntime as ort

    from converter.installed.opset import ORT_MAX_OPSET
    from converter.installed.ort_build import newest_loadable_opset

    newest = newest_loadable_opset()  # (the installed onnxruntime's own answer, probed)
    opset = max(newest, ORT_MAX_OPSET) + 1
    model = save_model(tmp_path / "new.onnx", [helper.make_node("Relu", ["x"], ["y"])],
                       [tensor("x", TensorProto.FLOAT, [2, 3])], [tensor("y", TensorProto.FLOAT, [2, 3])], opset=opset)
    result = invoke("run", model)
    assert result.exit_code == 1
    assert (f"ort[cpu] cannot load the model (not tried): opset {opset} is newer than onnxruntime "
            f"{ort.__version__} loads (at most {newest})") in result.output
    assert "ran onnx-reference" in result.output


def test_an_interrupted_run_writes_its_reports_with_what_finished(tmp_path, monkeypatch):
    """Ctrl-C while the second runtime runs (its child killed on the way): the first runtime's results are printed and
    the reports written, marked interrupted, and the status is 130; nothing was written before (README: "130
    Ctrl-C, 143 SIGTERM (reports are still written)", for every command)."""
    from converter.model import run as model_run

    path = save_model(tmp_path / "relu.onnx", [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", TensorProto.FLOAT,
                      [2, 3])], [tensor("y", TensorProto.FLOAT, [2, 3])])
    real = model_run._run_isolated

    def interrupted(config, *args, **kwargs):
        if config.runtime == "onnx-reference":
            raise KeyboardInterrupt
        return real(config, *args, **kwargs)

    monkeypatch.setattr(model_run, "_run_isolated", interrupted)
    result = invoke("run", path, "--runtime", "onnxruntime", "--runtime", "onnx-reference", "--json", tmp_path / "r.json",
                    "--junit", tmp_path / "r.xml", "--html", tmp_path / "r.html")
    assert result.exit_code == 130, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["interrupted"] is True and [c["case"] for c in report["cases"]] == ["ort[cpu]"]
    assert any(n.startswith("interrupted: 1 of the 2 runtimes finished") for n in report["model"]["notes"])
    suite = ET.parse(tmp_path / "r.xml").getroot()
    assert "(interrupted)" in [c.get("name") for c in suite.iter("testcase")]
    assert (tmp_path / "r.html").exists()
