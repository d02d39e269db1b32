"""`spec2onnx reduce SPEC` (issue 33, section 2): the layer, and the lowered nodes within it, where a spec's lowering
first differs from the reference.

A test-only plugin (tests/plugins/wrong_lowering.py) lowers ``test.Double`` (2 * x) as 2 * x + 1 on purpose; put in
the middle of a three-layer spec, reduce must name exactly that layer and its two nodes, and nothing in a spec whose
layers are all built-in. Expected values are the hand computation on the case's inputs (numpy), never the program's.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner

from cli import main
from tests.helpers import assert_reproduces

PLUGIN = str(Path(__file__).parent / "plugins" / "wrong_lowering.py")
X = [[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]]
Y = [[4.0, 5.0, -6.0], [1.0, 2.0, 3.0]]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def write_spec(path: Path, middle: dict, cases=None) -> Path:
    """s = x + y, then ``middle`` (layer d, reading s), then p = d * y."""
    spec = {
        "name": path.stem,
        "network": {
            "inputs": {"x": {"dtype": "float32", "shape": [2, 3]}, "y": {"dtype": "float32", "shape": [2, 3]}},
            "layers": [{"name": "s", "op": "trt.ElementWise", "inputs": ["x", "y"], "operation": "SUM"},
                       {"name": "d", **middle},
                       {"name": "p", "op": "trt.ElementWise", "inputs": ["d", "y"], "operation": "PROD"}],
            "outputs": ["p"],
        },
        "cases": cases or [{"name": "hand", "inputs": {"x": X, "y": Y}}],
    }
    path.write_text(json.dumps(spec))
    return path


WRONG = {"op": "test.Double", "inputs": ["s"]}
RIGHT = {"op": "trt.ElementWise", "inputs": ["s", "s"], "operation": "SUM"}


def test_the_wrong_lowering_is_named_with_its_nodes(tmp_path):
    spec = write_spec(tmp_path / "wrong.json", WRONG)
    small = tmp_path / "small.onnx"
    result = invoke("reduce", spec, "--plugin", PLUGIN, "-o", small)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("layer 'd' (test.Double) differs from its reference on its own inputs") for line in lines)
    model = onnx.load(small)
    nodes = [(n.name, n.op_type) for n in model.graph.node]
    assert [op for _, op in nodes] == ["Mul", "Add"] and nodes[-1][0] == "d"
    assert f"its 2 lowered nodes: {nodes[0][0]!r} (Mul), 'd' (Add)" in result.output
    assert "agree on every tensor inside it" in result.output  # the runtimes compute the wrong graph alike
    x, y = np.array(X, np.float32), np.array(Y, np.float32)
    fed = dict(np.load(tmp_path / "small.inputs.npz"))
    assert list(fed) == ["s"]
    np.testing.assert_array_equal(fed["s"], x + y)
    want = dict(np.load(tmp_path / "small.outputs.npz"))
    assert list(want) == ["d"]
    np.testing.assert_array_equal(want["d"], 2 * (x + y))
    rerun = assert_reproduces(invoke, result, small, "onnxruntime")
    assert "output 'd'" in rerun.output


def test_a_correct_spec_has_nothing_to_reduce(tmp_path):
    spec = write_spec(tmp_path / "right.json", RIGHT)
    small = tmp_path / "small.onnx"
    result = invoke("reduce", spec, "-o", small)
    assert result.exit_code == 0, result.output
    assert "its 1 cases" not in result.output and "case hand: the lowering agrees with the reference" in result.output
    assert not small.exists() and not (tmp_path / "small.inputs.npz").exists()


def test_the_first_failing_case_by_default_and_case_picks_one(tmp_path):
    """x = -y makes s zero and p = (2 * 0 + 1) * y = y, the reference 0 * y = 0: it fails too, unless y is zero
    too: a case of zeros passes (2 * 0 + 1) * 0 = 0. The default looks at each case up to the first failing."""
    zeros = [[0.0] * 3] * 2
    cases = [{"name": "zeros", "inputs": {"x": zeros, "y": zeros}}, {"name": "hand", "inputs": {"x": X, "y": Y}}]
    spec = write_spec(tmp_path / "wrong.json", WRONG, cases)
    result = invoke("reduce", spec, "--plugin", PLUGIN, "-o", tmp_path / "small.onnx")
    assert result.exit_code == 1, result.output
    assert "case hand: output 'p' differs from the reference" in result.output
    only = invoke("reduce", spec, "--plugin", PLUGIN, "--case", "zeros", "-o", tmp_path / "other.onnx")
    assert only.exit_code == 0, only.output
    assert "case zeros: the lowering agrees with the reference" in only.output
    assert not (tmp_path / "other.onnx").exists()
    missing = invoke("reduce", spec, "--plugin", PLUGIN, "--case", "nope", "-o", tmp_path / "other.onnx")
    assert missing.exit_code == 2 and "has no such case" in missing.output


@pytest.mark.parametrize("option", [("--runtime", "onnx-reference"), ("--load-inputs", "in.npz")])
def test_model_options_on_a_spec_are_refused(tmp_path, option):
    spec = write_spec(tmp_path / "right.json", RIGHT)
    result = invoke("reduce", spec, *option, "-o", tmp_path / "small.onnx")
    assert result.exit_code == 2, result.output
    assert "is a spec file" in result.output and len(result.output.strip().splitlines()) == 1


def test_debug_is_every_commands_option_not_a_model_option(tmp_path):
    """--debug (the traceback of an internal error) was refused for a SPEC as if it were MODEL-only: exit 2."""
    spec = write_spec(tmp_path / "right.json", RIGHT)
    result = invoke("reduce", spec, "--debug", "-o", tmp_path / "small.onnx")
    assert result.exit_code == 0, result.output
    assert "case hand: the lowering agrees with the reference" in result.output


def test_spec_options_on_a_model_are_refused(tmp_path):
    from tests.test_reduce import chain

    model = chain(tmp_path / "m.onnx", ["Relu", "Softmax"])
    result = invoke("reduce", model, "--case", "x", "-o", tmp_path / "small.onnx")
    assert result.exit_code == 2 and "is an ONNX model" in result.output, result.output


def test_the_first_node_that_differs_between_the_runtimes_is_named(tmp_path):
    """Inside the layer's nodes, the first whose output differs between onnxruntime and onnx-reference: in a chain
    Relu, Softmax (opset 9, which onnx-reference computes over an axis of its own), Abs, the Softmax."""
    from converter import spec_reduce
    from converter.compare import Tolerance
    from tests.test_reduce import chain

    small = chain(tmp_path / "small.onnx", ["Relu", "Softmax", "Abs"])
    np.savez(tmp_path / "small.inputs.npz", x=np.random.default_rng(0).random((2, 3, 4), dtype=np.float32))
    first, note = spec_reduce._first_between_runtimes(small, Tolerance(1e-6, 1e-5), None)
    assert first == ("n1", "Softmax", "t1"), note
    agree = chain(tmp_path / "agree.onnx", ["Relu", "Abs"])
    np.savez(tmp_path / "agree.inputs.npz", x=np.ones((2, 3, 4), np.float32))
    assert spec_reduce._first_between_runtimes(agree, Tolerance(1e-6, 1e-5), None)[0] is None


def test_ctrl_c(tmp_path, monkeypatch):
    """Before the layer is found, Ctrl-C stops with nothing written; once it is written, Ctrl-C during the runtimes'
    comparison inside it keeps the files and says so (exit 130)."""
    from converter import spec_reduce
    from converter.pipeline import plugins

    plugins.load_plugins([PLUGIN])
    spec = write_spec(tmp_path / "wrong.json", WRONG)
    small = tmp_path / "small.onnx"

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(spec_reduce, "_first_between_runtimes", interrupt)
    done = spec_reduce.reduce_spec(spec, small)
    assert done.interrupted == 130 and done.layer == "d" and "interrupted" in done.runtimes_note
    assert [n.op_type for n in onnx.load(small).graph.node] == ["Mul", "Add"]
    small.unlink()
    monkeypatch.setattr(spec_reduce, "run_model", interrupt)
    with pytest.raises(KeyboardInterrupt):
        spec_reduce.reduce_spec(spec, small)
    assert not small.exists()


def test_output_naming_the_spec_is_refused(tmp_path):
    spec = write_spec(tmp_path / "wrong.json", WRONG)
    before = spec.read_bytes()
    result = invoke("reduce", spec, "--plugin", PLUGIN, "-o", spec)
    assert result.exit_code == 2 and "-o" in result.output, result.output
    assert spec.read_bytes() == before
