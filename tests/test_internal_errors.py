"""Internal errors (our bugs) are told apart from user errors.

Exit status 3, one line on stderr naming the spec and how to report it, and the
Python traceback only with --debug. A lowering is monkeypatched to fail.
"""

from __future__ import annotations

import dataclasses

import pytest
from click.testing import CliRunner

from cli import main
from converter import registry
from converter.errors import InternalError
from converter.lowering.builder import NodeBuilder

EXIT_BAD_INPUT, EXIT_INTERNAL = 2, 3
SPEC = """\
name: t
network: {inputs: {x: {dtype: float32, shape: [1,1,1,2]}}, layers: [{name: y, op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [2]}], outputs: [y]}
cases: [{name: c, inputs: {x: [[[[1, 2]]]]}}]
"""


def _raise(exc):
    def lower(layer, ctx):
        raise exc

    return lower


def _invalid_node(layer, ctx):
    """A lowering with a bug: an operator ONNX does not have, so the model fails the checker."""
    b = NodeBuilder(layer)
    b.op("NoSuchOperator", [layer.inputs[0]])
    b.lowered.nodes[-1].output[0] = layer.name
    return b.lowered


@pytest.fixture
def broken_scale(monkeypatch):
    """Install a broken lowering for trt.Scale; returns a setter taking the lower function."""
    registry.layer_kinds()  # load the built-in kinds first

    def install(lower):
        kind = registry._KINDS["trt.Scale"]
        monkeypatch.setitem(registry._KINDS, "trt.Scale", dataclasses.replace(kind, lower=lower))

    return install


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "my-spec.yaml"
    path.write_text(SPEC)
    return path


def _stderr_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


LOWERINGS = {
    "RuntimeError": _raise(RuntimeError("boom")),
    "KeyError": _raise(KeyError("mode")),
    "InternalError": _raise(InternalError("lowering of trt.Scale lost a tensor")),
    "checker": _invalid_node,
}


@pytest.mark.parametrize("lowering", list(LOWERINGS))
@pytest.mark.parametrize("command", ["convert", "run"])
def test_internal_error_is_one_line_with_exit_3(broken_scale, spec_file, tmp_path, lowering, command):
    broken_scale(LOWERINGS[lowering])
    out = tmp_path / "model.onnx"
    args = [command, str(spec_file)] + (["-o", str(out)] if command == "convert" else ["-o", str(tmp_path)])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == EXIT_INTERNAL, result.output
    lines = _stderr_lines(result)
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("spec2onnx: error: internal error"), line
    assert str(spec_file) in line, line
    assert "bug in spec2onnx" in line and "report" in line and "--debug" in line, line
    assert "Traceback" not in result.output
    assert not out.exists() and not list(tmp_path.glob("*.npy"))


@pytest.mark.parametrize("command", ["convert", "run"])
def test_debug_shows_the_traceback(broken_scale, spec_file, tmp_path, command):
    broken_scale(_raise(RuntimeError("boom")))
    result = CliRunner().invoke(main, [command, str(spec_file), "-o", str(tmp_path / ("m.onnx" if command == "convert" else "")), "--debug"])
    assert result.exit_code == EXIT_INTERNAL, result.output
    assert "Traceback (most recent call last)" in result.stderr
    assert 'raise exc' in result.stderr and "RuntimeError: boom" in result.stderr
    assert _stderr_lines(result)[-1].startswith("spec2onnx: error: internal error"), result.stderr


def test_user_errors_are_not_internal(spec_file, tmp_path):
    spec_file.write_text(SPEC.replace("UNIFORM", "UNIFORMX"))
    result = CliRunner().invoke(main, ["convert", str(spec_file), "-o", str(tmp_path / "m.onnx"), "--debug"])
    assert result.exit_code == EXIT_BAD_INPUT
    assert "Traceback" not in result.output and "internal error" not in result.output


def test_internal_error_without_a_spec(monkeypatch):
    import converter.api

    monkeypatch.setattr(converter.api, "describe_layers", lambda: {}["missing"])
    result = CliRunner().invoke(main, ["layers"])
    assert result.exit_code == EXIT_INTERNAL
    lines = _stderr_lines(result)
    assert len(lines) == 1 and "internal error" in lines[0] and "report" in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_multi_line_exception_message_stays_one_line(broken_scale, spec_file, tmp_path):
    broken_scale(_raise(RuntimeError("first line\nsecond line\nthird line")))
    result = CliRunner().invoke(main, ["convert", str(spec_file), "-o", str(tmp_path / "m.onnx")])
    assert result.exit_code == EXIT_INTERNAL
    assert len(_stderr_lines(result)) == 1, result.stderr


def test_validate_reports_an_internal_error_per_case_and_exits_3(broken_scale, spec_file):
    broken_scale(_raise(KeyError("oops")))
    result = CliRunner().invoke(main, ["validate", str(spec_file), "-j", "0"])
    assert result.exit_code == EXIT_INTERNAL, result.output
    assert "ERROR t/c" in result.output
    assert "KeyError while building the model" in result.output and f"please report it with {spec_file}" in result.output
    assert "Traceback" not in result.output


def test_validate_exits_3_for_an_internal_error_beside_a_malformed_spec(broken_scale, spec_file, tmp_path):
    """A bug of spec2onnx outranks a user's malformed spec in the exit status (docs/cli.md): a CI that sends exit 3 to
    the tool's owners must not lose it because another spec of the run did not load."""
    broken_scale(_raise(KeyError("oops")))
    malformed = tmp_path / "malformed.yaml"
    malformed.write_text(SPEC.replace("name: t", "name: u").replace("UNIFORM", "UNIFORMX"))
    result = CliRunner().invoke(main, ["validate", str(spec_file), str(malformed), "-j", "0"])
    assert f"ERROR {malformed} (not loaded)" in result.output and "ERROR t/c" in result.output, result.output
    assert result.exit_code == EXIT_INTERNAL, result.output
