"""A PASS says what it rests on beyond finite values compared (principle: "PASS only where values were compared and
were finite"): an output holding NaN or infinities that matched the reference's, an empty output whose shape alone
was compared. In every report: the terminal line, --json's ``notes``, a JUnit property, the HTML page."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from click.testing import CliRunner

from cli import main
from converter.pipeline.stages import value_notes

import numpy as np
import ml_dtypes

SPEC = """
name: edges
network:
  inputs:
    a: {dtype: float32, shape: [2, 3]}
    b: {dtype: float32, shape: [2, 3]}
  layers:
    - {name: q, op: trt.ElementWise, inputs: [a, b], operation: DIV}
  outputs: [q]
cases:
  - name: zero-by-zero
    inputs: {a: [[0, 1, -1], [1, 2, 3]], b: [[0, 0, 0], [1, 1, 1]]}
  - name: finite
    inputs: {a: [[1, 1, 1], [1, 2, 3]], b: [[1, 1, 1], [1, 1, 1]]}
"""
EMPTY = """
name: empty
network:
  inputs: {a: {dtype: float32, shape: [0, 3]}}
  layers: [{name: s, op: trt.ElementWise, inputs: [a, a], operation: SUM}]
  outputs: [s]
cases: [{name: none, inputs: {a: {random: uniform, seed: 1}}}]
"""


def test_value_notes_count_what_is_not_a_finite_value():
    """Hand-counted: 0/0 is NaN, 1/0 +inf, -1/0 -inf; integers and finite floats say nothing."""
    q = np.array([[np.nan, np.inf, -np.inf], [1, 2, 3]], np.float32)
    assert value_notes({"q": q}, ["q"]) == [
        "output 'q': 1 NaN, 1 +inf, 1 -inf of 6 elements, compared as values (NaN matches NaN, an infinity the same "
        "infinity)"]
    assert value_notes({"q": np.ones(3, np.float32), "i": np.arange(3)}, ["q", "i"]) == []
    assert value_notes({"e": np.zeros((0, 3), np.float16)}, ["e"]) == [
        "output 'e' is empty [0, 3]: its shape was compared, no value"]
    assert value_notes({"b": np.array([np.nan, 1], ml_dtypes.bfloat16)}, ["b"])[0].startswith("output 'b': 1 NaN of 2")


def test_every_report_says_what_a_pass_rested_on(tmp_path):
    (tmp_path / "edges.yaml").write_text(SPEC)
    (tmp_path / "empty.yaml").write_text(EMPTY)
    result = CliRunner().invoke(main, ["validate", "-j", "0", str(tmp_path), "--json", str(tmp_path / "r.json"),
                                       "--junit", str(tmp_path / "r.xml"), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output  # (the reference gives the same NaN and infinities: they pass)
    lines = [line.split("  [")[0] for line in result.output.splitlines()]  # (less a PASS's time)
    first = lines.index("PASS  edges/zero-by-zero")
    assert lines[first + 1] == ("      note: output 'q': 1 NaN, 1 +inf, 1 -inf of 6 elements, compared as values (NaN "
                                "matches NaN, an infinity the same infinity)"), lines
    assert not lines[lines.index("PASS  edges/finite") + 1].startswith("      note:"), lines
    assert "      note: output 's' is empty [0, 3]: its shape was compared, no value" in lines
    cases = {c["id"]: c for c in json.loads((tmp_path / "r.json").read_text())["cases"]}
    assert cases["edges/finite"]["notes"] == [] and len(cases["edges/zero-by-zero"]["notes"]) == 1
    assert cases["empty/none"]["notes"] == ["output 's' is empty [0, 3]: its shape was compared, no value"]
    junit = ET.parse(tmp_path / "r.xml").getroot()
    notes = {c.get("name"): [p.get("value") for p in c.iter("property") if p.get("name") == "note"]
             for c in junit.iter("testcase")}
    assert notes["finite"] == [] and notes["none"] == cases["empty/none"]["notes"]
    assert "its shape was compared, no value" in (tmp_path / "r.html").read_text()
    merged = CliRunner().invoke(main, ["report", "merge", str(tmp_path / "r.json")])  # (notes read back)
    assert merged.exit_code == 0, merged.output
