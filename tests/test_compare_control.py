"""Issue 33, item 1: comparison control for `run MODEL` and `validate`: per-output tolerances (--atol/--rtol
[OUTPUT:]VALUE), the error statistic (--check-error-stat), run --fail-fast, statistics in every report, and golden
data in onnx's test_data_set layout. Expected values come from numpy or from hand computation (stated)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper, numpy_helper

from cli import main
from converter import compare as compare_mod
from converter.compare import (Tolerance, command_line_stats, command_line_tolerance, compare_stats, error_stat_for,
                               value_stats)
from converter.errors import UserError


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def two_outputs(path: Path, shape=(100, 100)) -> None:
    """y = Identity(x), z = Identity(x): two float outputs that equal the input exactly."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(shape)) for n in ("y", "z")]
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"]), helper.make_node("Identity", ["x"], ["z"])],
                              "g", [x], outs)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)


@pytest.fixture
def golden_2e3(tmp_path):
    """A model, its input, and golden outputs: y 2e-3 off everywhere (float32 of x + 2e-3), z exact."""
    model = tmp_path / "m.onnx"
    two_outputs(model)
    x = np.random.default_rng(0).random((100, 100), dtype=np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    np.savez(tmp_path / "out.npz", y=x + np.float32(2e-3), z=x)
    return model, tmp_path / "in.npz", tmp_path / "out.npz"


@pytest.mark.parametrize("options, status", [
    ((), 1),  # float32's default atol 1e-6, rtol 1e-5: 2e-3 is far outside
    (("--atol", "1e-2"), 0),
    (("--atol", "y:1e-2"), 0),
    (("--atol", "z:1e-2"), 1),  # z's tolerance does not reach y
    (("--atol", "1e-2", "--atol", "y:1e-4"), 1),  # y's own wins over the bare one: 2e-3 > 1e-4 + 1e-5 * |y|
    (("--atol", "1e-4", "--atol", "y:1e-2"), 0),
    (("--rtol", "y:1"), 0),  # x in [0, 1) + 2e-3: |err| <= 1 * |want| wherever want >= 1e-3 (always: want >= 2e-3)
])
def test_per_output_tolerances(golden_2e3, options, status):
    model, inputs, outputs = golden_2e3
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", inputs, "--load-outputs", outputs,
                    *options)
    assert result.exit_code == status, result.output
    if status:
        assert "output 'y'" in result.output and "output 'z'" not in result.output


@pytest.mark.parametrize("option", ["--atol", "--rtol", "--check-error-stat"])
def test_an_output_the_model_lacks_is_refused_naming_those_it_has(golden_2e3, option):
    model, inputs, outputs = golden_2e3
    value = "w:max" if option == "--check-error-stat" else "w:1e-2"
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", inputs, option, value)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "'w'" in lines[0] and "'y', 'z'" in lines[0], lines


@pytest.mark.parametrize("value, why", [(":1e-2", "no output name"), ("y:abc", "not a number"), ("y:-1", ">= 0")])
def test_a_bad_per_output_value_is_a_usage_error(golden_2e3, value, why):
    model, inputs, _ = golden_2e3
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", inputs, "--atol", value)
    assert result.exit_code == 2 and why in result.output and "--atol" in result.output, result.output


def test_the_output_name_is_what_precedes_the_last_colon():
    tol = command_line_tolerance(("1e-3", "a:b:0.5"), ("a:b:0.25",))
    own, other = tol.for_output("a:b"), tol.for_output("c")
    assert (own.atol, own.rtol, other.atol, other.rtol) == (0.5, 0.25, 1e-3, None)
    assert command_line_tolerance((), ()) is None
    stats = command_line_stats(("mean", "y:max"))
    assert (error_stat_for(stats, "y"), error_stat_for(stats, "q")) == ("max", "mean")
    assert error_stat_for(command_line_stats(()), "y") == "elemwise"
    with pytest.raises(UserError, match="--check-error-stat y:quantile: 'quantile' is not one of"):
        command_line_stats(("y:quantile",))


# --check-error-stat: one element of 10^4 off by 1.0, atol 1e-3, rtol 0 (the example). By hand: the max
# abs error is 1 > 1e-3; the mean is 1e-4 <= 1e-3; the median 0.


@pytest.fixture
def one_off(tmp_path):
    model = tmp_path / "m.onnx"
    two_outputs(model)
    x = np.random.default_rng(1).random((100, 100), dtype=np.float32) + np.float32(0.5)
    y = x.copy()
    y[37, 11] += np.float32(1.0)
    np.savez(tmp_path / "in.npz", x=x)
    np.savez(tmp_path / "out.npz", y=y, z=x)
    return model, tmp_path / "in.npz", tmp_path / "out.npz"


@pytest.mark.parametrize("stat, status", [("elemwise", 1), ("max", 1), ("mean", 0), ("median", 0),
                                          ("y:mean", 0), ("z:mean", 1)])
def test_the_error_statistic_decides(one_off, stat, status):
    model, inputs, outputs = one_off
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", inputs, "--load-outputs", outputs,
                    "--atol", "1e-3", "--rtol", "0", "--check-error-stat", stat)
    assert result.exit_code == status, result.output
    if stat == "max":
        assert "max abs err 1 > atol 0.001 and max rel err" in result.output, result.output


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), chunk=st.integers(1, 9))
def test_error_statistics_are_numpys(data, n, chunk):
    """Over every element and in chunks of any size: max, mean and median of |a - e| and of |a - e| / |e| (an
    expected 0 taken as 2^-52, Polygraphy's epsilon), and the smallest atol and rtol that pass, from numpy."""
    values = hnp.arrays(np.float64, n, elements=st.floats(-1e6, 1e6, allow_nan=False, width=32))
    actual = data.draw(values).astype(np.float32)
    expected = data.draw(values).astype(np.float32)
    atol, rtol = data.draw(st.sampled_from([0.0, 1e-3])), data.draw(st.sampled_from([0.0, 1e-2]))
    old = compare_mod.CHUNK_ELEMENTS
    compare_mod.CHUNK_ELEMENTS = chunk
    try:
        mismatch, stats = compare_stats(actual, expected, Tolerance(atol, rtol), "median")
    finally:
        compare_mod.CHUNK_ELEMENTS = old
    err = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    e = np.abs(expected.astype(np.float64))
    rel = err / np.where(e == 0, 2.0**-52, e)
    assert stats.count == n
    if n == 0:
        assert stats.max_abs is None and mismatch is None
        return
    assert stats.max_abs == err.max() and stats.max_rel == pytest.approx(rel.max(), rel=1e-12)
    assert stats.mean_abs == pytest.approx(err.mean(), rel=1e-9, abs=1e-300)
    assert stats.median_abs == np.median(err) and stats.median_rel == np.median(rel)
    assert stats.min_atol == pytest.approx(max(0.0, (err - rtol * e).max()), rel=1e-12, abs=1e-12)
    need = np.where(err > atol, (err - atol) / np.where(e > 0, e, np.nan), 0.0)
    if np.isnan(need).any():
        assert stats.min_rtol is None
    else:
        assert stats.min_rtol == pytest.approx(max(0.0, need.max()), rel=1e-12, abs=1e-12)
    # Polygraphy's rule for median: fails where the median abs error is above atol and the median rel above rtol
    assert (mismatch is not None) == bool(np.median(err) > atol and np.median(rel) > rtol) or \
        abs(np.median(err) - atol) < 1e-6 or abs(np.median(rel) - rtol) < 1e-6


@settings(max_examples=60, deadline=None)
@given(array=hnp.arrays(st.sampled_from([np.float32, np.float64, np.int32, np.float16]), st.integers(0, 30)),
       chunk=st.integers(1, 7))
def test_value_statistics_are_numpys(array, chunk):
    old = compare_mod.CHUNK_ELEMENTS
    compare_mod.CHUNK_ELEMENTS = chunk
    try:
        got = value_stats(array)
    finally:
        compare_mod.CHUNK_ELEMENTS = old
    x = array.astype(np.float64)
    finite = x[np.isfinite(x)]
    assert (got["nan"], got["inf"]) == (int(np.isnan(x).sum()), int(np.isinf(x).sum()))
    if not finite.size:
        assert got["min"] is got["mean"] is None
        return
    assert (got["min"], got["max"]) == (finite.min(), finite.max())
    with np.errstate(over="ignore"):
        mean, std = finite.mean(), finite.std()
    if np.isfinite(mean) and np.isfinite(std):
        assert got["mean"] == pytest.approx(mean, rel=1e-9, abs=1e-9 * np.abs(finite).max())
        assert got["std"] == pytest.approx(std, rel=1e-6, abs=1e-6 * np.abs(finite).max())


def test_a_passing_comparison_carries_its_statistics(golden_2e3, tmp_path):
    model, inputs, outputs = golden_2e3
    report = tmp_path / "r.json"
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", inputs, "--load-outputs", outputs,
                    "--atol", "1e-2", "--json", report)
    assert result.exit_code == 0, result.output
    doc = json.loads(report.read_text())
    assert doc["schema"] == "spec2onnx-report/4"
    (case,) = doc["cases"]
    by_output = {c["output"]: c for c in case["comparisons"]}
    x = np.load(inputs)["x"]
    want = np.load(outputs)["y"]
    err = np.abs(x.astype(np.float64) - want.astype(np.float64))
    y = by_output["y"]
    assert y["passed"] is True and y["tolerance"]["atol"] == 1e-2 and y["error_stat"] == "elemwise"
    assert y["max_abs"] == err.max() and y["median_abs"] == pytest.approx(np.median(err), rel=1e-6)
    assert y["mean_abs"] == pytest.approx(err.mean(), rel=1e-9)
    assert y["min_atol"] == pytest.approx((err - 1e-5 * np.abs(want.astype(np.float64))).max(), rel=1e-9)
    assert by_output["z"]["max_abs"] == 0 and by_output["z"]["max_ulp"] == 0
    stats = {r["label"]: r["stats"] for r in doc["model"]["runtimes"]}["ort[cpu]"]["y"]
    assert stats == {"min": float(x.min()), "max": float(x.max()), "mean": pytest.approx(x.astype(np.float64).mean()),
                     "std": pytest.approx(x.astype(np.float64).std()), "nan": 0, "inf": 0}
    assert doc["model"]["golden"]["stats"]["y"]["max"] == float(want.max())


def test_fail_fast_stops_at_the_first_failing_comparison(golden_2e3):
    """Three sides (onnxruntime, onnx's reference, golden): three comparisons; the first (reference vs ort)
    passes, the second (ort vs golden) fails, and --fail-fast makes no third."""
    model, inputs, outputs = golden_2e3
    args = ("run", model, "--runtime", "onnxruntime", "--runtime", "onnx-reference", "--load-inputs", inputs,
            "--load-outputs", outputs)
    every = invoke(*args)
    assert every.exit_code == 1 and "3 comparisons: 1 passed, 2 failed" in every.output, every.output
    fast = invoke(*args, "--fail-fast")
    assert fast.exit_code == 1 and "2 comparisons: 1 passed, 1 failed" in fast.output, fast.output
    assert "--fail-fast: stopped at the first failure; 1 of the 3 comparisons not made" in fast.output


# golden data in onnx's own layout


PYTORCH = Path(onnx.__file__).parent / "backend/test/data/pytorch-converted"


def test_a_test_data_set_folder_is_read_in_the_models_order(tmp_path):
    model = tmp_path / "m.onnx"
    two_outputs(model, (2, 3))
    data = tmp_path / "test_data_set_0"
    data.mkdir()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (data / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    (data / "output_0.pb").write_bytes(numpy_helper.from_array(x, "y").SerializeToString())
    (data / "output_1.pb").write_bytes(numpy_helper.from_array(x + 1, "z").SerializeToString())  # z differs by 1
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", data, "--load-outputs", data)
    assert result.exit_code == 1 and "output 'z'" in result.output and "output 'y'" not in result.output, \
        result.output
    assert invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", data, "--load-outputs", data,
                  "--atol", "z:1").exit_code == 0
    (data / "output_2.pb").write_bytes(b"")
    bad = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", data, "--load-outputs", data)
    assert bad.exit_code == 2 and "output_2.pb: the model has 2 outputs" in bad.output, bad.output
    os.remove(data / "output_2.pb")
    (data / "output_1.pb").write_bytes(b"\xff\xff\xff")
    bad = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", data, "--load-outputs", data)
    assert bad.exit_code == 2 and "output_1.pb: not a serialized TensorProto" in bad.output, bad.output
    lying = numpy_helper.from_array(x, "z")
    lying.dims[:] = [20, 30]  # 600 elements declared, 6 given
    (data / "output_1.pb").write_bytes(lying.SerializeToString())
    bad = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", data, "--load-outputs", data)
    assert bad.exit_code == 2 and "raw_data has 24 bytes" in bad.output, bad.output


@pytest.mark.parametrize("case", sorted(p.name for p in PYTORCH.iterdir()) if PYTORCH.is_dir() else [])
def test_every_pytorch_converted_model_of_the_onnx_wheel(case):
    """Each passes against its shipped outputs where onnxruntime loads it; where it does not, the run is an ERROR
    line with onnxruntime's own reason (taken from onnxruntime here, independently)."""
    folder = PYTORCH / case
    data = folder / "test_data_set_0"
    result = invoke("run", folder / "model.onnx", "--runtime", "onnxruntime", "--load-inputs", data,
                    "--load-outputs", data)
    try:
        ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime's reason, whatever its type
        reason = str(exc).split(" : ")[-1].strip().splitlines()[0]
        assert result.exit_code == 1 and "ERROR" in result.output and reason[:60] in result.output, result.output
        return
    assert result.exit_code == 0, result.output


# validate: the same options, on specs


SCALE_4D = Path(__file__).resolve().parent.parent / "specs/trt_scale/seed-scale-4d.yaml"  # one output: 'scale'


def test_validate_takes_a_tolerance_per_output_and_refuses_one_no_spec_has(tmp_path):
    report = tmp_path / "r.json"
    result = invoke("validate", SCALE_4D, "-j", 0, "--atol", "scale:0.5", "--atol", "1e-3", "--rtol", "scale:0.25",
                    "--check-error-stat", "scale:mean", "--json", report)
    assert result.exit_code == 0, result.output
    doc = json.loads(report.read_text())
    entries = [c for case in doc["cases"] for c in case["comparisons"]]
    assert entries and all(c["tolerance"]["atol"] == 0.5 and c["tolerance"]["rtol"] == 0.25 for c in entries)
    assert all(c["passed"] is True and c["error_stat"] == "mean" and c["error"]["count"] == 9 for c in entries)
    refused = invoke("validate", SCALE_4D, "-j", 0, "--atol", "nope:1", "--json", tmp_path / "x.json")
    assert refused.exit_code == 2, refused.output
    line = refused.output.strip().splitlines()[-1]
    assert "--atol nope" in line and "'scale'" in line and not (tmp_path / "x.json").exists()


def test_validate_fails_on_the_statistic_asked_for(tmp_path):
    """The spec's expected 361 made 360 (docs/cli.md's wrong.yaml): 1 of 9 elements 1 off, for onnxruntime and the
    reference alike. By hand: mean abs err 1/9 = 0.111 <= atol 0.2 (passes), max abs err 1 > 0.2 and max rel err
    1/360 > rtol 0 (fails); elemwise fails on that element."""
    spec = tmp_path / "wrong.yaml"
    text = SCALE_4D.read_text()
    assert "361]]]]" in text
    spec.write_text(text.replace("361]]]]", "360]]]]"))
    base = ("validate", spec, "-j", 0, "--atol", "0.2", "--rtol", "0")
    assert invoke(*base).exit_code == 1
    assert invoke(*base, "--check-error-stat", "mean").exit_code == 0
    assert invoke(*base, "--check-error-stat", "scale:mean").exit_code == 0
    failed = invoke(*base, "--check-error-stat", "max")
    assert failed.exit_code == 1 and "max abs err 1 > atol 0.2 and max rel err 0.00277778 > rtol 0" in failed.output


@settings(max_examples=100, deadline=None)
@given(dtype=st.sampled_from([np.float16, np.float32]), data=st.data())
def test_the_fast_ulp_distance_is_ulp_distance_on_finite_values(dtype, data):
    """compare's statistics take the ULP distance of finite chunks in fewer passes: the same numbers."""
    values = hnp.arrays(dtype, st.integers(1, 20), elements=hnp.from_dtype(np.dtype(dtype), allow_nan=False,
                                                                            allow_infinity=False))
    a, b = data.draw(values), data.draw(values)
    n = min(a.size, b.size)
    assert np.array_equal(compare_mod._finite_ulp_distance(a[:n], b[:n]), compare_mod.ulp_distance(a[:n], b[:n]))


def test_value_statistics_count_nan_and_infinities(tmp_path):
    """y = x / x on x = [0, 1, 2, inf]: [NaN, 1, 1, NaN] (0/0 and inf/inf); z = 1 / x: [inf, 1, 0.5, 0]. By hand:
    y's finite elements 1, 1 (mean 1, std 0), 2 NaN; z's 1, 0.5, 0 (mean 0.5, std sqrt(1/6)), 1 inf."""
    model = tmp_path / "m.onnx"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("y", "z")]
    one = numpy_helper.from_array(np.array(1, np.float32), "one")
    graph = helper.make_graph([helper.make_node("Div", ["x", "x"], ["y"]), helper.make_node("Div", ["one", "x"], ["z"])],
                              "g", [x], outs, initializer=[one])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), model)
    np.savez(tmp_path / "in.npz", x=np.array([0, 1, 2, np.inf], np.float32))
    report = tmp_path / "r.json"
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz", "--allow-nonfinite",
                    "--json", report)
    assert result.exit_code == 0, result.output
    stats = json.loads(report.read_text())["model"]["runtimes"][0]["stats"]
    assert stats["y"] == {"min": 1.0, "max": 1.0, "mean": 1.0, "std": 0.0, "nan": 2, "inf": 0}
    assert stats["z"] == {"min": 0.0, "max": 1.0, "mean": 0.5, "std": pytest.approx((1 / 6) ** 0.5), "nan": 0, "inf": 1}
