"""--repro-dir: one unambiguous, readable folder per failing case and configuration."""

from __future__ import annotations

from click.testing import CliRunner

from cli import main
from converter.pipeline.repro import repro_parts
from converter.pipeline.stages import CaseResult

SPEC = """
name: {spec}
network:
  inputs: {{x: {{dtype: int32, shape: [1]}}}}
  layers: [{{name: y, op: trt.ElementWise, operation: SUM, inputs: [x, x]}}]
  outputs: [y]
cases:
  - {{name: {case}, inputs: {{x: [1]}}, expected: {{y: [{want}]}}}}
"""


def test_cases_whose_joined_names_coincide_get_different_folders(tmp_path):
    # spec 'a__b' case 'c' and spec 'a' case 'b__c' were both 'a__b__c__onnxruntime'
    (tmp_path / "one.yaml").write_text(SPEC.format(spec="a__b", case="c", want=3))
    (tmp_path / "two.yaml").write_text(SPEC.format(spec="a", case="b__c", want=5))
    repro = tmp_path / "repro"
    result = CliRunner().invoke(main, ["validate", "-j", "0", str(tmp_path), "--repro-dir", str(repro)])
    assert result.exit_code == 1, result.output
    first = repro / "a__b" / "c" / "onnxruntime-cpu-all"
    second = repro / "a" / "b__c" / "onnxruntime-cpu-all"
    assert (first / "command.txt").read_text().count("-k =a__b/c ") == 1
    assert (second / "command.txt").read_text().count("-k =a/b__c ") == 1
    assert sorted(p.name for p in first.iterdir()) == sorted(p.name for p in second.iterdir())


def test_configurations_get_their_own_folder():
    base = dict(spec="s", case="c", outcome="FAIL")
    parts = {repro_parts(CaseResult(**base, opt_level=level)) for level in ("all", "basic")}
    parts.add(repro_parts(CaseResult(**base, runtime="openvino")))
    assert parts == {("s", "c", "onnxruntime-cpu-all"), ("s", "c", "onnxruntime-cpu-basic"), ("s", "c", "openvino")}


def test_a_part_that_is_not_a_name_is_made_a_safe_folder_name():
    (spec, case, config) = repro_parts(CaseResult("..", "a/b", "FAIL", runtime="x y"))
    assert (spec, case, config) == ("_..", "a_b", "x_y")
