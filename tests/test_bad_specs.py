"""The bad-input corpus: each file in tests/bad_specs/ is one fault, and its first line says the error.

``# error: TEXT`` — `spec2onnx validate FILE` must exit 2 and print one line
naming the file that contains TEXT, with no traceback.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli import main

from .conftest import BAD_SPECS

EXIT_BAD_INPUT = 2


def _corpus():
    files = sorted(p for p in BAD_SPECS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    return [pytest.param(p, id=str(p.relative_to(BAD_SPECS))) for p in files]


def _expected_error(path) -> str:
    first = path.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    assert first.startswith(("# error: ", "// error: ")), f"{path} must start with '# error: <text>'"
    return first.split("error: ", 1)[1].strip()


@pytest.mark.parametrize("path", _corpus())
def test_bad_spec_exits_2_with_one_located_line(path):
    want = _expected_error(path)
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("      ")]
    assert len(error_lines) == 1, result.output
    line = error_lines[0].strip()
    assert line.startswith(f"{path}: "), line
    assert want in line, f"{want!r} not in {line!r}"
    assert "Traceback" not in result.output


@pytest.mark.parametrize("path", _corpus()[:3])
def test_convert_of_a_bad_spec_writes_nothing(path, tmp_path):
    out = tmp_path / "model.onnx"
    result = CliRunner().invoke(main, ["convert", str(path), "-o", str(out)])
    assert result.exit_code == EXIT_BAD_INPUT
    assert not out.exists() and list(tmp_path.iterdir()) == []
