"""`run MODEL`'s verdicts (issue 31): a PASS means values were compared and were finite.

An output holding NaN or an infinity fails by default (as Polygraphy's --validate checks it), --allow-nonfinite
compares such values instead; a run where every output is empty compared nothing and fails; an integer input that
gives a node its shape is generated >= 1. Expected values come from numpy (np.log, np.exp, np.broadcast_shapes,
np.tile, np.reshape) and from the ONNX operator definitions, never from this program's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from cli import main

SIMPLE = Path(onnx.__file__).parent / "backend" / "test" / "data" / "simple"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_node(path, op, inputs, outputs, opset=17, **attrs):
    """A model of one node: ``inputs``/``outputs`` are (name, elem type, shape)."""
    node = helper.make_node(op, [i[0] for i in inputs], [o[0] for o in outputs], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8), path)
    return path


F, I64 = TensorProto.FLOAT, TensorProto.INT64


# NaN and infinities


def test_a_nan_output_fails_naming_the_output_the_count_and_the_first_index(tmp_path):
    model = one_node(tmp_path / "log.onnx", "Log", [("x", F, [16])], [("y", F, [16])])
    x = np.linspace(-1, 0.5, 16, dtype=np.float32)[::-1].copy()  # 0.5 down to -1: log gives -inf at 0, NaN below
    np.savez(tmp_path / "in.npz", x=x)
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np.log(x)
    nans, neginf = int(np.isnan(want).sum()), int(np.isneginf(want).sum())
    first = int(np.flatnonzero(~np.isfinite(want))[0])
    assert (nans, neginf, first) == (10, 1, 5)  # (by hand: x[5] is 0, log(0) = -inf; 10 negatives follow)
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz", "--json", tmp_path / "r.json")
    assert result.exit_code == 1, result.output
    for label in ("ort[cpu]", "onnx-reference"):  # both runtimes agree (NaN equals NaN); both are named
        assert (f"output 'y': {label} gives {nans} NaN, {neginf} -inf of 16 elements, the first at [{first}] (-inf)"
                in result.output)
    assert "--allow-nonfinite" in result.output
    case = json.loads((tmp_path / "r.json").read_text())["cases"][0]
    assert case["outcome"] == "FAIL"
    assert {"output": "y", "actual": "ort[cpu]", "nonfinite": {"nan": nans, "posinf": 0, "neginf": neginf}, "total": 16,
            "first_index": [first]} in case["comparisons"]


def test_an_infinite_output_of_a_lone_runtime_fails(tmp_path):
    model = one_node(tmp_path / "exp.onnx", "Exp", [("x", F, [16])], [("y", F, [16])])
    result = invoke("run", model, "--runtime", "onnxruntime", "--val-range", "100,200")
    with np.errstate(over="ignore"):
        assert np.isposinf(np.exp(np.float32(100)))  # e^100 > float32's largest (3.4e38 = e^88.7)
    assert result.exit_code == 1, result.output
    assert "output 'y': ort[cpu] gives 16 +inf of 16 elements, the first at [0] (inf)" in result.output
    assert "1 comparison: 0 passed, 1 failed" in result.output


def test_allow_nonfinite_compares_nan_with_nan_and_an_infinity_only_with_its_own_sign(tmp_path):
    model = one_node(tmp_path / "log.onnx", "Log", [("x", F, [3])], [("y", F, [3])])
    x = np.array([-1, 0, 1], np.float32)  # log: NaN, -inf, 0
    np.savez(tmp_path / "in.npz", x=x)
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz", "--allow-nonfinite")
    assert result.exit_code == 0, result.output
    assert "ort[cpu] gives 1 NaN, 1 -inf of 3 elements, the first at [0] (nan); compared as values" in result.output
    np.savez(tmp_path / "golden.npz", y=np.array([np.nan, np.inf, 0], np.float32))  # +inf where log(0) is -inf
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz",
                    "--load-outputs", tmp_path / "golden.npz", "--allow-nonfinite", "--atol", "inf")
    assert result.exit_code == 1, result.output
    assert "1/3 elements differ" in result.output and "worst at [1]: got -inf, want inf" in result.output


def test_a_golden_output_holding_nan_is_named_too(tmp_path):
    model = one_node(tmp_path / "relu.onnx", "Relu", [("x", F, [2])], [("y", F, [2])])
    np.savez(tmp_path / "in.npz", x=np.array([1, 2], np.float32))
    np.savez(tmp_path / "golden.npz", y=np.array([1, np.nan], np.float32))
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz",
                    "--load-outputs", tmp_path / "golden.npz")
    assert result.exit_code == 1, result.output
    assert "output 'y': golden gives 1 NaN of 2 elements, the first at [1] (nan)" in result.output


def test_mark_all_tensors_may_hold_infinities_the_outputs_are_judged(tmp_path):
    # a -inf mask before Softmax is normal: only the model's outputs are checked, not what --mark-all adds
    nodes = [helper.make_node("Log", ["x"], ["masked"]), helper.make_node("Softmax", ["masked"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [4])],
                              [helper.make_tensor_value_info("y", F, [4])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), tmp_path / "m.onnx")
    x = np.array([0, 1, 2, 3], np.float32)  # log(0) = -inf: softmax gives it 0
    np.savez(tmp_path / "in.npz", x=x)
    result = invoke("run", tmp_path / "m.onnx", "--load-inputs", tmp_path / "in.npz", "--mark-all")
    assert result.exit_code == 0, result.output


# Empty outputs


def expand_model(tmp_path):
    return one_node(tmp_path / "expand.onnx", "Expand", [("x", F, [1]), ("s", I64, [2])], [("y", F, ["a", "b"])])


def test_every_output_empty_compared_nothing_and_fails(tmp_path):
    model = expand_model(tmp_path)
    np.savez(tmp_path / "in.npz", x=np.ones(1, np.float32), s=np.zeros(2, np.int64))
    assert np.broadcast_shapes((1,), (0, 0)) == (0, 0)  # Expand is numpy's broadcast: the output is empty
    for runtimes in (("--runtime", "onnxruntime"), ()):  # a lone runtime, and a pair of runtimes
        result = invoke("run", model, "--load-inputs", tmp_path / "in.npz", *runtimes)
        assert result.exit_code == 1, result.output
        assert "nothing compared: every output is empty ('y' [0, 0])" in result.output
        assert "output 'y' is empty (0 elements, nothing to compare): shape [0, 0]" in result.output
        assert "input 's' (the shape of Expand node #0) holds [0, 0]" in result.output


def test_one_empty_output_among_others_passes_with_a_note(tmp_path):
    nodes = [helper.make_node("NonZero", ["x"], ["idx"]), helper.make_node("Relu", ["x"], ["r"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [4])],
                              [helper.make_tensor_value_info("idx", I64, [1, "n"]),
                               helper.make_tensor_value_info("r", F, [4])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), tmp_path / "m.onnx")
    assert np.array(np.nonzero(np.zeros(4))).shape == (1, 0)  # NonZero of zeros: [rank, 0]
    result = invoke("run", tmp_path / "m.onnx", "--val-range", "0,0")
    assert result.exit_code == 0, result.output
    assert "output 'idx' is empty (0 elements, nothing to compare): shape [1, 0] (ort[cpu], onnx-reference)" \
        in result.output


def test_every_output_empty_passes_where_golden_outputs_fix_the_empty_shape(tmp_path):
    """onnx's own node case test_constantofshape_int_shape_zero: golden data holds an empty output, an independent
    expectation of its shape (as validate's reference is), so the shapes agreeing is the check (every pair)."""
    model = expand_model(tmp_path)
    np.savez(tmp_path / "in.npz", x=np.ones(1, np.float32), s=np.zeros(2, np.int64))
    np.savez(tmp_path / "golden.npz", y=np.ones((0, 0), np.float32))
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz", "--load-outputs", tmp_path / "golden.npz")
    assert result.exit_code == 0, result.output
    assert "nothing compared" not in result.output
    assert "3 comparisons: 3 passed" in result.output  # ort vs golden, onnx-reference vs golden, and the pair
    np.savez(tmp_path / "golden.npz", y=np.ones((0, 1), np.float32))  # a golden empty shape that differs: a failure
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz", "--load-outputs", tmp_path / "golden.npz")
    assert result.exit_code == 1, result.output
    assert "shape [0, 0] != expected [0, 1]" in result.output


def test_an_empty_output_against_a_golden_one_with_elements_is_a_shape_mismatch(tmp_path):
    model = expand_model(tmp_path)
    np.savez(tmp_path / "in.npz", x=np.ones(1, np.float32), s=np.zeros(2, np.int64))
    np.savez(tmp_path / "golden.npz", y=np.ones((1, 1), np.float32))
    result = invoke("run", model, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "in.npz",
                    "--load-outputs", tmp_path / "golden.npz")
    assert result.exit_code == 1, result.output
    assert "shape [0, 0] != expected [1, 1]" in result.output


# Shape inputs generated inside the model's domain


def ran_shape(output: str, label: str = "ort[cpu]") -> str:
    line = next(line for line in output.splitlines() if line.startswith(f"ran {label} "))
    return line.split(": ", 1)[1]


def test_onnx_expand_shape_model_gets_a_shape_of_ones_and_says_so():
    model = SIMPLE / "test_expand_shape_model1" / "model.onnx"  # X float[1, 3, 1], shape int64[2]
    result = invoke("run", model)
    assert result.exit_code == 0, result.output
    assert ran_shape(result.output) == f"Y float32{list(np.broadcast_shapes((1, 3, 1), (1, 1)))}"
    assert "input 'shape' (the shape of Expand node #0 'test'): generated [1, 1], integers in [1, 1]: a shape input " \
           "takes values >= 1" in result.output
    assert "shape in [1, 1], other values in [0, 1]" in result.output  # the inputs line says it too


def test_a_shape_input_takes_the_range_in_force_raised_to_one_and_its_own_range_as_given(tmp_path):
    model = one_node(tmp_path / "tile.onnx", "Tile", [("x", F, [2]), ("r", I64, [1])], [("y", F, ["n"])])
    result = invoke("run", model, "--val-range", "3,3")
    assert result.exit_code == 0, result.output
    assert ran_shape(result.output) == f"y float32{list(np.tile(np.zeros(2), 3).shape)}"
    result = invoke("run", model, "--val-range", "r:0,0")  # the user's own range for it: taken as given
    assert result.exit_code == 1, result.output
    assert "input 'r' (the repeats of Tile node #0): generated [0] (--val-range r:0,0)" in result.output
    assert "nothing compared" in result.output


def test_constant_of_shape_gets_ones(tmp_path):
    model = one_node(tmp_path / "cos.onnx", "ConstantOfShape", [("s", I64, [3])], [("y", F, ["a", "b", "c"])])
    result = invoke("run", model, "--runtime", "onnxruntime")
    assert result.exit_code == 0, result.output
    assert ran_shape(result.output) == "y float32[1, 1, 1]"


def test_reshape_gets_minus_one_then_ones(tmp_path):
    model = one_node(tmp_path / "reshape.onnx", "Reshape", [("x", F, [2, 3]), ("s", I64, [2])], [("y", F, ["a", "b"])])
    result = invoke("run", model)
    assert result.exit_code == 0, result.output
    assert ran_shape(result.output) == f"y float32{list(np.reshape(np.zeros((2, 3)), (-1, 1)).shape)}"
    assert "input 's' (the shape of Reshape node #0): generated [-1, 1]: -1 takes every element" in result.output


def test_loaded_shape_inputs_are_taken_as_they_are(tmp_path):
    model = expand_model(tmp_path)
    np.savez(tmp_path / "in.npz", x=np.ones(1, np.float32), s=np.array([2, 3], np.int64))
    result = invoke("run", model, "--load-inputs", tmp_path / "in.npz")
    assert result.exit_code == 0, result.output
    assert ran_shape(result.output) == "y float32[2, 3]" and "generated" not in result.output.split("inputs (")[1]


# validate: the reference and the expected values decide where NaN and infinities belong, whatever the tolerance

DIV_SPEC = """\
name: div-edges
source: IEEE 754 division, by hand (1/0 = inf, 0/0 = NaN)
tolerance: {atol: .inf}
network:
  inputs:
    a: {dtype: float32, shape: [3]}
    b: {dtype: float32, shape: [3]}
  layers:
    - {name: y, op: trt.ElementWise, inputs: [a, b], operation: DIV}
  outputs: [y]
cases:
  - name: finite-expected
    inputs: {a: [1, 0, 1], b: [0, 0, 1]}
    expected: {y: [5, 0, 1]}
  - name: same-expected
    inputs: {a: [1, 0, 1], b: [0, 0, 1]}
    expected: {y: [.inf, .nan, 1]}
"""


def test_validate_fails_a_non_finite_value_where_expected_is_finite_even_at_an_infinite_atol(tmp_path):
    with np.errstate(divide="ignore", invalid="ignore"):
        got = np.float32([1, 0, 1]) / np.float32([0, 0, 1])
    assert np.isposinf(got[0]) and np.isnan(got[1])
    (tmp_path / "div.yaml").write_text(DIV_SPEC)
    result = invoke("validate", tmp_path / "div.yaml", "-v")
    assert result.exit_code == 1, result.output
    assert "FAIL  div-edges/finite-expected" in result.output
    assert "onnxruntime vs expected (atol=inf, rtol=1e-05): 2/3 elements differ" in result.output
    assert "worst at [0]: got inf, want 5.0; first: [0] got inf want 5.0, [1] got nan want 0.0" in result.output
    assert "PASS  div-edges/same-expected" in result.output  # NaN where expected has NaN, inf where inf


def test_allow_nonfinite_from_python_is_a_bool_or_refused():
    """The API takes True or False: "no" (a string, truthy) would have turned the check off."""
    from converter.errors import UserError
    from converter.model.run import make_run_options

    assert make_run_options(allow_nonfinite=True).allow_nonfinite is True
    with pytest.raises(UserError, match="allow_nonfinite 'no'"):
        make_run_options(allow_nonfinite="no")
