"""A model's optimization profiles (metadata ``spec2onnx.profiles``, converter/untrusted/profiles.py) are read the same
way by ``check`` and ``run``: a malformed value is bad input for both (exit 2, one line naming the file and the
metadata key), never an internal error, and a well-formed one is taken by both.

Found by hand: ``check --target tensorrt`` of a model whose profile's max held 99999999999999999999 (over int64)
ended in an internal error (exit 3, onnx's "Value out of range"), and check's lenient reader took profiles
that run refused (min, opt and max of different lengths; an input the model does not have)."""

from __future__ import annotations

import json

import onnx
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from cli import main

KEY = "spec2onnx.profiles"


def _model(path, metadata: str | None):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    if metadata is not None:
        model.metadata_props.add(key=KEY, value=metadata)
    onnx.save(model, path)
    return path


def _invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _check(model, target: str = "tensorrt"):
    return _invoke("check", model, "--target", target)


def _run(model):
    return _invoke("run", model, "--runtime", "onnxruntime")


def test_a_dimension_over_int64_is_bad_input_for_check_and_run(tmp_path):
    profile = {"x": {"min": [1, 3], "opt": [2, 3], "max": [99999999999999999999, 3]}}
    model = _model(tmp_path / "m.onnx", json.dumps({"profiles": [profile]}))
    for result in (_check(model), _check(model, "tensorrt-dla"), _check(model, "ort-cpu"), _run(model)):
        assert result.exit_code == 2, result.output
        assert f"m.onnx: metadata {KEY}: profile 0, input 'x': 'max' is not a list of integers in " \
               f"[0, {2**63 - 1}]" in result.output


def test_check_refuses_what_run_refuses_and_names_the_file(tmp_path):
    for profile, why in [({"x": {"min": [1], "opt": [2, 3], "max": [4, 3]}}, "min, opt and max have 1, 2, 2 values"),
                         ({"zz": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]}}, "the model has no input 'zz'"),
                         ({"x": [1, 2]}, 'expected {"min": [...], "opt": [...], "max": [...]}')]:
        model = _model(tmp_path / "m.onnx", json.dumps({"profiles": [profile]}))
        good = _model(tmp_path / "good.onnx", None)
        checked = _invoke("check", model, good, "--target", "tensorrt-dla")  # the other file is still checked
        assert checked.exit_code == 2 and why in checked.output, checked.output
        assert f"m.onnx: metadata {KEY}" in checked.output and "good.onnx:" in checked.output
        ran = _run(model)
        assert ran.exit_code == 2 and why in ran.output, ran.output


def test_well_formed_profiles_are_taken_by_both(tmp_path):
    profile = {"x": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]}}
    model = _model(tmp_path / "m.onnx", json.dumps({"profiles": [profile]}))
    assert _check(model).exit_code == 0
    ran = _run(model)
    assert ran.exit_code == 0 and "x float32[2, 3]" in ran.output, ran.output  # the profile's opt, as trtexec
    dla = _check(model, "tensorrt-dla")  # min, opt and max differ: DLA's rule (an error), not a malformed profile
    assert dla.exit_code == 1 and "DLA does not support dynamic dimensions" in dla.output, dla.output


def test_a_profile_leaving_out_a_dynamic_input_is_bad_input_for_both(tmp_path):
    """Profile 1 gives x alone, and z's ? is a dimension no input of it binds: run bound it to 1 and passed, check
    took the file. A spec's profiles are refused so (every profile gives every dynamic input); so is the metadata.
    A dimension named by a symbol that an input the profile gives carries (z's n) is bound by it: no need to repeat."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", None])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", None])
    model = helper.make_model(helper.make_graph([helper.make_node("Add", ["x", "z"], ["y"])], "g", [x, z], [out]),
                              opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    both = {"x": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]}, "z": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]}}
    model.metadata_props.add(key=KEY, value=json.dumps({"profiles": [both, {"x": both["x"]}]}))
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    for result in (_check(path), _check(path, "ort-cpu"), _run(path)):
        assert result.exit_code == 2, result.output
        assert result.output.strip() == (f"spec2onnx: error: {path}: metadata {KEY}: profile 1: no min/opt/max for "
                                         "input 'z' (float32[n, ?]), whose dynamic dimensions no input of the profile "
                                         "binds: every profile gives every dynamic input"), result.output
    del model.metadata_props[:]
    model.metadata_props.add(key=KEY, value=json.dumps({"profiles": [both]}))
    onnx.save(model, path)
    assert _run(path).exit_code == 0


_NUMBERS = st.one_of(st.integers(-3, 6), st.integers(2**62, 2**65), st.integers(-2**65, -2**62), st.booleans(),
                     st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=2), st.none())
_CORNER = st.one_of(st.lists(_NUMBERS, max_size=3), _NUMBERS)
_ENTRY = st.one_of(st.fixed_dictionaries({"min": _CORNER, "opt": _CORNER, "max": _CORNER}),
                   st.dictionaries(st.sampled_from(["min", "opt", "max", "mid"]), _CORNER, max_size=4), _CORNER)
_PROFILE = st.dictionaries(st.sampled_from(["x", "y", "n"]), _ENTRY, max_size=2)
_DOC = st.one_of(st.fixed_dictionaries({"profiles": st.lists(_PROFILE, max_size=2)},
                                       optional={"shape_inputs": st.one_of(st.lists(st.sampled_from(["x", "q"]), max_size=2),
                                                                           _NUMBERS)}),
                 st.lists(_PROFILE, max_size=1), _NUMBERS)


@settings(max_examples=25, deadline=None)
@given(doc=_DOC)
def test_check_and_run_agree_on_any_profiles_metadata(tmp_path_factory, doc):
    model = _model(tmp_path_factory.mktemp("p") / "m.onnx", json.dumps(doc))
    checked, ran = _check(model), _run(model)
    for result in (checked, ran):
        assert result.exit_code in (0, 1, 2) and "internal error" not in result.output, result.output
    bad = [r.exit_code == 2 and f"metadata {KEY}" in r.output for r in (checked, ran)]
    assert bad[0] == bad[1], (checked.output, ran.output)
    if bad[0]:
        assert f"m.onnx: metadata {KEY}" in checked.output, checked.output
