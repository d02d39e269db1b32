"""`spec2onnx run MODEL` on a model that carries optimization profiles (issue 31, section 2).

``convert`` writes a dynamic spec's profiles into the model's metadata (``spec2onnx.profiles``); run generates the
inputs at the first profile's opt shapes and shape inputs' values (trtexec's --optShapes), ``--profile N`` and
``--profile-shapes min|opt|max`` pick others, ``--shapes`` wins for its input inside the profile's range. Before,
every dimension was 1 and ``linear_half`` came out [1, 1, 0, 0].

The shapes expected come from the spec files themselves (read with yaml here), the values from numpy computing what
the layer does at those shapes (a nearest x2 upsample repeats each element; a linear half-pixel halving averages
2x2 blocks; a linear align-corners resize interpolates between the corners), never from this program's output.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

import tests.fuzz.conftest  # noqa: F401  (registers and loads the hypothesis profiles: ci, nightly, dev)
from cli import main
from converter.errors import UserError
from converter.model.inputs import bind_shapes, pick_profile, profile_shapes, profile_values
from converter.untrusted.declared import Tensor
from converter.untrusted.profiles import read_profiles

from .conftest import SPECS

KEY = "spec2onnx.profiles"
PROFILES_SPEC = SPECS / "trt_resize" / "dynamic-profiles.yaml"  # x float16[n, c, h, w]; two profiles, no cases
SHAPE_INPUT_SPEC = SPECS / "trt_resize" / "dynamic-shape-input.yaml"  # x float32[1, 3, h, w]; size: a shape input
F16 = {"atol": 1e-3, "rtol": 1e-3}  # validate's float16 tolerance (docs/cli.md, run)


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def spec_profiles(path):
    return yaml.safe_load(path.read_text())["network"]["profiles"]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """The two bundled dynamic specs, converted as a user converts them."""
    folder = tmp_path_factory.mktemp("profiles")
    models = {}
    for spec in (PROFILES_SPEC, SHAPE_INPUT_SPEC):
        out = folder / f"{spec.stem}.onnx"
        result = invoke("convert", spec, "-o", out)
        assert result.exit_code == 0, result.output
        models[spec.stem] = out
    return models


def run_saved(tmp_path, model, *args, runtime="onnxruntime"):
    """Run the model, saving its inputs and the first runtime's outputs; (result, inputs, outputs)."""
    result = invoke("run", model, "--runtime", runtime, "--save-inputs", tmp_path / "in.npz",
                    "--save-outputs", tmp_path / "out.npz", *args)
    assert result.exit_code == 0, result.output
    return result, dict(np.load(tmp_path / "in.npz")), dict(np.load(tmp_path / "out.npz"))


def nearest_x2(x):  # trt.Resize scales 2, ASYMMETRIC, FLOOR: output i reads input floor(i / 2)
    return x.repeat(2, axis=2).repeat(2, axis=3)


def linear_half(x):  # LINEAR, HALF_PIXEL, scale 0.5: output i sits at input 2i + 0.5, the mean of 2i and 2i + 1
    n, c, h, w = x.shape
    return x.astype(np.float32).reshape(n, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5))


def align_corners(x, sizes):  # LINEAR, ALIGN_CORNERS: output i sits at input i * (in - 1) / (out - 1)
    out = x.astype(np.float64)
    for axis, n_out in ((2, sizes[2]), (3, sizes[3])):
        n_in = out.shape[axis]
        at = np.arange(n_out) * (n_in - 1) / (n_out - 1) if n_out > 1 else np.zeros(1)
        lo = np.floor(at).astype(int).clip(0, n_in - 1)
        hi = np.minimum(lo + 1, n_in - 1)
        shape = [1] * out.ndim
        shape[axis] = n_out
        w = (at - lo).reshape(shape)
        out = np.take(out, lo, axis=axis) * (1 - w) + np.take(out, hi, axis=axis) * w
    return out


# The model's own profile


def test_a_converted_dynamic_model_runs_at_its_first_profiles_opt_shapes(converted, tmp_path):
    opt = spec_profiles(PROFILES_SPEC)[0]["x"]["opt"]  # [1, 3, 8, 8]
    result, inputs, outputs = run_saved(tmp_path, converted["dynamic-profiles"])
    x = inputs["x"]
    assert x.shape == tuple(opt) and x.dtype == np.float16
    assert "note:" not in result.stderr  # every dimension is bound: no dimension defaulted to 1
    assert f"profile 0 of 2 at opt (metadata {KEY})" in result.stdout and f"x float16{opt}" in result.stdout
    np.testing.assert_array_equal(outputs["nearest_x2"], nearest_x2(x))
    assert outputs["linear_half"].shape == (1, 3, 4, 4)  # was [1, 1, 0, 0]
    np.testing.assert_allclose(outputs["linear_half"].astype(np.float32), linear_half(x), **F16)


@pytest.mark.parametrize("corner", ["min", "opt", "max"])
def test_profile_shapes_picks_min_opt_or_max(converted, tmp_path, corner):
    want = spec_profiles(PROFILES_SPEC)[0]["x"][corner]
    result, inputs, outputs = run_saved(tmp_path, converted["dynamic-profiles"], "--profile-shapes", corner)
    x = inputs["x"]
    assert list(x.shape) == want and f"profile 0 of 2 at {corner}" in result.stdout
    np.testing.assert_array_equal(outputs["nearest_x2"], nearest_x2(x))
    np.testing.assert_allclose(outputs["linear_half"].astype(np.float32), linear_half(x), **F16)


@pytest.mark.parametrize("corner", ["min", "opt", "max"])
def test_profile_picks_the_second_profile(converted, tmp_path, corner):
    # (h is 1 in every corner of profile 1, so linear_half's height is floor(0.5) = 0: onnxruntime refuses a zero
    # scale, onnx's reference evaluator gives the empty tensor; the shapes are what is checked here)
    want = spec_profiles(PROFILES_SPEC)[1]["x"][corner]
    result, inputs, outputs = run_saved(tmp_path, converted["dynamic-profiles"], "--profile", 1, "--profile-shapes",
                                        corner, runtime="onnx-reference")
    assert list(inputs["x"].shape) == want and f"profile 1 of 2 at {corner}" in result.stdout
    np.testing.assert_array_equal(outputs["nearest_x2"], nearest_x2(inputs["x"]))
    assert outputs["linear_half"].shape == (want[0], want[1], 0, want[3] // 2)


def test_a_shape_input_takes_the_profiles_values(converted, tmp_path):
    profile = spec_profiles(SHAPE_INPUT_SPEC)[0]
    result, inputs, outputs = run_saved(tmp_path, converted["dynamic-shape-input"])
    x, size = inputs["x"], inputs["size"]
    assert list(x.shape) == profile["x"]["opt"] and size.dtype == np.int32 and list(size) == profile["size"]["opt"]
    assert f"size = {profile['size']['opt']}" in result.stdout
    assert outputs["nearest"].shape == tuple(profile["size"]["opt"])
    np.testing.assert_array_equal(outputs["nearest"], nearest_x2(x))  # 4 -> 8, ASYMMETRIC FLOOR: floor(i / 2)
    np.testing.assert_allclose(outputs["linear"], align_corners(x, size), atol=1e-6, rtol=1e-5)
    _, at_max, out_max = run_saved(tmp_path, converted["dynamic-shape-input"], "--profile-shapes", "max")
    assert list(at_max["size"]) == profile["size"]["max"] and list(at_max["x"].shape) == profile["x"]["max"]
    np.testing.assert_allclose(out_max["linear"], align_corners(at_max["x"], at_max["size"]), atol=1e-6, rtol=1e-5)


def test_shapes_wins_over_the_profile_for_its_input(converted, tmp_path):
    result, inputs, outputs = run_saved(tmp_path, converted["dynamic-profiles"], "--shapes", "x:2x4x6x10")
    x = inputs["x"]
    assert x.shape == (2, 4, 6, 10) and "x from --shapes" in result.stdout
    np.testing.assert_allclose(outputs["linear_half"].astype(np.float32), linear_half(x), **F16)
    # the shape input's model: x bound, size still the profile's values
    _, inputs, _ = run_saved(tmp_path, converted["dynamic-shape-input"], "--shapes", "x:1x3x2x7")
    assert inputs["x"].shape == (1, 3, 2, 7)
    assert list(inputs["size"]) == spec_profiles(SHAPE_INPUT_SPEC)[0]["size"]["opt"]


@pytest.mark.parametrize("args, message", [
    (["--shapes", "x:4x3x8x8"], "--shapes x:4x3x8x8: dimension 0 ('n') is 4, outside profile 0's range 1 to 2 "
                                "(input 'x': min 1x1x2x2, max 2x4x16x16)"),
    (["--shapes", "x:1x3x8x17"], "dimension 3 ('w') is 17, outside profile 0's range 2 to 16"),
    (["--profile", "1", "--shapes", "x:8x1x1x32"], "dimension 3 ('w') is 32, outside profile 1's range 64 to 256"),
    (["--profile", "2"], "--profile 2: the model has 2 optimization profiles (0 to 1)"),
])
def test_a_binding_outside_the_profile_is_refused_naming_the_range(converted, tmp_path, args, message):
    model = converted["dynamic-profiles"]
    result = invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", tmp_path / "in.npz", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"spec2onnx: error: {model}: ") and message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "in.npz").exists()


def test_options_that_contradict_the_profile_are_refused(converted, tmp_path):
    shape_model = converted["dynamic-shape-input"]
    ranged = invoke("run", shape_model, "--val-range", "size:1,4")
    assert ranged.exit_code == 2 and "--val-range size: input 'size' is a shape input" in ranged.stderr
    np.savez(tmp_path / "in.npz", x=np.zeros((1, 3, 2, 2), np.float32), size=np.array([1, 3, 4, 4], np.int32))
    loaded = invoke("run", shape_model, "--load-inputs", tmp_path / "in.npz", "--profile", 0)
    assert loaded.exit_code == 2 and "--profile: the inputs come from --load-inputs" in loaded.stderr
    length = invoke("run", shape_model, "--shapes", "size:5")
    assert length.exit_code == 2 and "input 'size' is a shape input of profile 0, which gives it 4 values" in length.stderr
    # loaded inputs keep their own shapes and values, the profile untouched
    assert invoke("run", shape_model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz").exit_code == 0


def _model(path, metadata=None, inputs=(("x", ["N", 3]), ("y", ["N", 3]))):
    """x + y (float32), with the metadata ``{KEY: metadata}`` where given (a str, or a dict written as JSON)."""
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"])], "g",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    if metadata is not None:
        value = metadata if isinstance(metadata, str) else json.dumps(metadata)
        helper.set_model_props(model, {KEY: value})
    onnx.save(model, path)
    return path


def test_a_symbol_shapes_binds_reaches_the_profiles_other_inputs_within_range(tmp_path):
    model = _model(tmp_path / "m.onnx", {"profiles": [{"x": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]},
                                                       "y": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]}}]})
    result = invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", tmp_path / "in.npz")
    assert result.exit_code == 0, result.output
    assert {k: v.shape for k, v in np.load(tmp_path / "in.npz").items()} == {"x": (2, 3), "y": (2, 3)}
    bound = invoke("run", model, "--runtime", "onnxruntime", "--shapes", "x:3x3", "--save-inputs", tmp_path / "b.npz")
    assert bound.exit_code == 0, bound.output
    assert {k: v.shape for k, v in np.load(tmp_path / "b.npz").items()} == {"x": (3, 3), "y": (3, 3)}
    only_x = _model(tmp_path / "x.onnx", {"profiles": [{"x": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]}}]})
    refused = invoke("run", only_x, "--shapes", "y:5x3")
    assert refused.exit_code == 2
    assert "--shapes y:5x3: dimension 0 ('N') of input 'x' is 5, outside profile 0's range 1 to 4" in refused.stderr


def test_a_model_without_profiles_refuses_the_profile_options(tmp_path):
    model = _model(tmp_path / "m.onnx")
    for args in (["--profile", "0"], ["--profile-shapes", "max"]):
        result = invoke("run", model, *args)
        assert result.exit_code == 2 and "the model carries no optimization profiles" in result.stderr, result.output
        assert args[0] in result.stderr


VALID = {"profiles": [{"x": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]}}]}


@pytest.mark.parametrize("metadata, message", [
    ("{not json", "not JSON"),
    ("[" * 100000 + "]" * 100000, "not JSON"),  # deeper than json's recursion
    ("1" + "0" * 5000, "not JSON"),  # more digits than Python's int() reads
    ('{"profiles": []}', "with at least one profile"),
    ({"profiles": [{"w": {"min": [1], "opt": [1], "max": [1]}}]}, "profile 0: the model has no input 'w'"),
    ({"profiles": [{"x": {"min": [1, 3], "opt": [2, 3]}}]}, "profile 0, input 'x': expected"),
    ({"profiles": [{"x": {"min": [1, 3], "opt": [2.5, 3], "max": [4, 3]}}]}, "'opt' is not a list of integers"),
    ({"profiles": [{"x": {"min": [1, 3], "opt": [True, 3], "max": [4, 3]}}]}, "'opt' is not a list of integers"),
    ({"profiles": [{"x": {"min": [-1, 3], "opt": [2, 3], "max": [4, 3]}}]}, "'min' is not a list of integers"),
    ({"profiles": [{"x": {"min": [1, 3], "opt": [2, 3], "max": [2**63, 3]}}]}, "'max' is not a list of integers"),
    ({"profiles": [{"x": {"min": [3, 3], "opt": [2, 3], "max": [4, 3]}}]}, "dimension 0 is min/opt/max 3/2/4"),
    ({"profiles": [{"x": {"min": [1, 3, 1], "opt": [2, 3, 1], "max": [4, 3, 1]}}]}, "3 dimensions; the input is"),
    ({"profiles": [{"x": {"min": [1], "opt": [2, 3], "max": [4, 3]}}]}, "min, opt and max have 1, 2, 2 values"),
    ({"profiles": [{"x": {"min": [1, 2], "opt": [2, 3], "max": [4, 3]}}]}, "dimension 1 is 2/3/3 (min/opt/max)"),
    ({"profiles": [{"x": {"min": [1, 3], "opt": [2, 3], "max": [4, 3]},
                    "y": {"min": [1, 3], "opt": [3, 3], "max": [4, 3]}}]}, "'N' is min/opt/max 1/3/4 at input 'y'"),
    ({**VALID, "shape_inputs": "x"}, "'shape_inputs' is not a list of input names"),
    ({**VALID, "shape_inputs": ["x"]}, "shape input 'x' is float32[N, 3]; a shape input is a 1-D int32 or int64"),
    ({"profiles": [[1, 2]]}, "profile 0 is not an object"),
])
def test_metadata_that_is_not_profiles_of_the_model_is_bad_input_naming_the_key(tmp_path, metadata, message):
    model = _model(tmp_path / "m.onnx", metadata)
    result = invoke("run", model, "--save-inputs", tmp_path / "in.npz")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"spec2onnx: error: {model}: metadata {KEY}: "), result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "in.npz").exists()


def test_the_profile_key_given_twice_is_bad_input(tmp_path):
    model = onnx.load(_model(tmp_path / "m.onnx", VALID))
    model.metadata_props.add(key=KEY, value=json.dumps(VALID))
    onnx.save(model, tmp_path / "twice.onnx")
    result = invoke("run", tmp_path / "twice.onnx")
    assert result.exit_code == 2 and f"metadata {KEY}: given 2 times" in result.stderr, result.output


def test_the_hint_for_an_unbound_input_has_the_inputs_rank(tmp_path):
    model = _model(tmp_path / "m.onnx", inputs=(("x", ["N", 3, None, "W"]), ("y", [1, 3, 1, 1])))
    result = invoke("run", model, "--runtime", "onnxruntime")
    assert result.exit_code == 0, result.output
    assert "(bind with --shapes x:Dx3xDxD)" in result.stderr, result.stderr


def test_help_names_the_profile_options():
    text = invoke("run", "--help").output
    assert "--profile N" in text and "--profile-shapes [min|opt|max]" in text and "--optShapes" in text


# Properties: any metadata value is profiles or one bad-input line; a valid profile's corner is what runs

_JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-2**64, 2**64) | st.floats() | st.text(max_size=4),
                        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                            st.sampled_from(["profiles", "shape_inputs", "x", "s", "min", "opt", "max", "y"]), inner,
                            max_size=4), max_leaves=30)
_INPUTS = [Tensor("x", TensorProto.FLOAT, ("N", 3, None)), Tensor("y", TensorProto.FLOAT, ("N",)),
           Tensor("s", TensorProto.INT64, (2,))]


@given(_JSONISH)
def test_any_metadata_reads_as_profiles_or_is_bad_input(doc):
    try:
        profiles, shape_inputs = read_profiles(json.dumps(doc), _INPUTS, KEY)
    except UserError as exc:
        assert exc.field == f"metadata {KEY}" and "\n" not in str(exc)
        return
    for profile in profiles:  # what reads is usable: every corner min <= opt <= max, of the input's length
        for name, (low, opt, high) in profile.items():
            assert len(low) == len(opt) == len(high)
            assert all(a <= b <= c for a, b, c in zip(low, opt, high))


_RANGE = st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)).map(sorted)


@given(n=_RANGE, d=_RANGE, values=st.lists(_RANGE, min_size=2, max_size=2), corner=st.sampled_from(["min", "opt", "max"]),
       bind=st.none() | st.integers(0, 8))
def test_a_valid_profiles_corner_is_what_the_inputs_get_and_shapes_stays_in_range(n, d, values, corner, bind):
    k = ["min", "opt", "max"].index(corner)
    doc = {"profiles": [{"x": {c: [n[i], 3, d[i]] for i, c in enumerate(["min", "opt", "max"])},
                         "s": {c: [v[i] for v in values] for i, c in enumerate(["min", "opt", "max"])}}],
           "shape_inputs": ["s"]}
    profiles, shape_inputs = read_profiles(json.dumps(doc), _INPUTS, KEY)
    profile = pick_profile(profiles, shape_inputs, None, corner, KEY)
    given_shapes = {} if bind is None else {"y": (bind,)}  # y is in no profile: its N reaches x
    try:
        explicit = profile_shapes(_INPUTS, given_shapes, profile)
    except UserError as exc:
        assert bind is not None and not n[0] <= bind <= n[2] and f"outside profile 0's range {n[0]} to {n[2]}" in str(exc)
        return
    shapes, notes = bind_shapes(_INPUTS, explicit)
    assert shapes["x"] == (n[k] if bind is None else bind, 3, d[k]) and shapes["s"] == (2,) and notes == []
    assert shapes["y"] == (n[k] if bind is None else bind,)
    assert profile_values(_INPUTS, profile)["s"].tolist() == [v[k] for v in values]


@pytest.mark.parametrize("how", ["--shapes", "profile"])
def test_lengths_no_array_can_have_are_bad_input_not_an_internal_error(tmp_path, how):
    # numpy refuses an array whose nonzero lengths times its item size pass 2^63 bytes, though it holds 0 elements
    # (measured here: np.empty((0, 2**61), np.float32) raises, (0, 2**61 - 1) does not)
    for length, refused in ((2**61, True), (2**61 - 1, False)):
        shape = [0, length]
        if how == "--shapes":
            model, args = _model(tmp_path / "m.onnx", inputs=(("x", ["N", "M"]), ("y", [1]))), ["--shapes",
                                                                                            f"x:0x{length}"]
        else:
            model, args = _model(tmp_path / "m.onnx", {"profiles": [{"x": {"min": shape, "opt": shape, "max": shape}}]},
                                 inputs=(("x", ["N", "M"]), ("y", [1]))), []
        result = invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", tmp_path / "in.npz", *args)
        if refused:
            assert result.exit_code == 2, result.output
            assert f"input 'x' at 0x{length}: no array has these lengths" in result.stderr
        else:
            assert result.exit_code in (0, 1), result.output  # (what onnxruntime makes of it is its own answer)
            assert np.load(tmp_path / "in.npz")["x"].shape == (0, length)


# The command line on random profiles: what runs is the profile's corner or --shapes inside its range; anything
# else is one line of bad input, never an internal error

CLI_RUNS = settings(max_examples=max(10, settings.default.max_examples // 4))


@CLI_RUNS
@given(n=_RANGE.map(lambda r: [v + 1 for v in r]), corner=st.sampled_from(["min", "opt", "max"]),
       bind=st.none() | st.integers(0, 9), broken=st.none() | st.sampled_from(["swap", "rank", "float", "text"]))
def test_run_takes_the_profile_or_refuses_in_one_line(n, corner, bind, broken):
    entry = {c: [n[i], 3] for i, c in enumerate(["min", "opt", "max"])}
    if broken == "swap" and n[0] != n[2]:
        entry["min"], entry["max"] = entry["max"], entry["min"]
    elif broken == "rank":
        entry["opt"] = entry["opt"] + [1]
    elif broken == "float":
        entry["max"] = [n[2] + 0.5, 3]
    metadata = "{'profiles': 1}" if broken == "text" else {"profiles": [{"x": entry, "y": entry}]}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        model = _model(tmp / "m.onnx", metadata)
        args = ["--profile-shapes", corner] + ([] if bind is None else ["--shapes", f"x:{bind}x3"])
        result = invoke("run", model, "--runtime", "onnxruntime", "--save-inputs", tmp / "in.npz", *args)
        invalid = broken is not None and not (broken == "swap" and n[0] == n[2])
        if invalid or (bind is not None and not n[0] <= bind <= n[2]):
            assert result.exit_code == 2, result.output
            assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
            assert (f"metadata {KEY}" if invalid else f"outside profile 0's range {n[0]} to {n[2]}") in result.stderr
            return
        assert result.exit_code == 0, result.output
        want = n[["min", "opt", "max"].index(corner)] if bind is None else bind
        assert {k: v.shape for k, v in np.load(tmp / "in.npz").items()} == {"x": (want, 3), "y": (want, 3)}


def test_an_int64_shape_input_a_resize_reads_directly_takes_the_profiles_values(tmp_path):
    """docs/dynamic-shapes.md's example: ``size`` (int64) is the Resize's shape input with no Cast between, so run
    MODEL's rule for shape-taking inputs (generated >= 1) met it too, and named a --val-range for an input the
    profile gives and nothing generates: exit 2 "--val-range size: the model has no input 'size'" without any
    --val-range (found in review; the int32 spec of the other tests has a Cast). It runs at the profile's opt."""
    doc = Path(__file__).resolve().parents[1] / "docs" / "dynamic-shapes.md"
    text = doc.read_text(encoding="utf-8").split("```yaml\n", 1)[1].split("```", 1)[0]
    spec = tmp_path / "docex.yaml"
    spec.write_text(text)
    opt = yaml.safe_load(text)["network"]["profiles"][0]
    model = tmp_path / "docex.onnx"
    assert invoke("convert", spec, "-o", model).exit_code == 0
    result = invoke("run", model)
    assert result.exit_code == 0, result.output
    assert f"size = {opt['size']['opt']}" in result.output
    x = "x float32[" + ", ".join(map(str, opt["x"]["opt"])) + "]"
    assert x in result.output and "size int64[4]" in result.output


def test_run_says_which_target_convert_wrote_the_model_for(converted, tmp_path):
    """A model convert wrote carries its target (metadata spec2onnx.target): run, which may run it anywhere, says so
    on its first line and in the JSON report's model section; a model convert did not write has none."""
    model = converted["dynamic-shape-input"]
    wrote_for = next(p.value for p in onnx.load(model).metadata_props if p.key == "spec2onnx.target")
    result = invoke("run", model, "--runtime", "onnxruntime", "--json", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith(f"{model}: 4 nodes, opset 17, written by spec2onnx convert for "
                                                    f"{wrote_for}; inputs"), result.stdout
    assert json.loads((tmp_path / "r.json").read_text())["model"]["written_for"] == wrote_for
    plain = onnx.load(model)
    del plain.metadata_props[:]
    onnx.save(plain, tmp_path / "plain.onnx")
    result = invoke("run", tmp_path / "plain.onnx", "--runtime", "onnxruntime", "--shapes", "x:1x3x4x4", "--json",
                    tmp_path / "p.json")
    assert "written by" not in result.stdout, result.output
    assert json.loads((tmp_path / "p.json").read_text())["model"]["written_for"] is None
