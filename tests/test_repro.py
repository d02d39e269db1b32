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


def _run_line(folder) -> list[str]:
    import shlex

    lines = [line for line in (folder / "command.txt").read_text().splitlines() if not line.startswith("#")]
    assert [shlex.split(line)[:2] for line in lines] == [["spec2onnx", "validate"], ["spec2onnx", "run"]], lines
    return shlex.split(lines[1])


def test_a_reproduction_runs_again_from_anywhere_and_its_model_alone_from_its_folder(tmp_path, monkeypatch):
    """The folder stands by itself: its validate line names the spec by an absolute path (the run's working folder is
    recorded nowhere), and its run line feeds the model the case's inputs from .npz files, which run reads (one
    .npy per tensor it does not), against the values it failed on, at the case's tolerances."""
    import shlex

    (tmp_path / "one.yaml").write_text(SPEC.format(spec="s", case="c", want=3))  # 1 + 1 = 2, the spec says 3
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["validate", "-j", "0", "one.yaml", "--repro-dir", "repro"])
    assert result.exit_code == 1, result.output
    folder = tmp_path / "repro" / "s" / "c" / "onnxruntime-cpu-all"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    validate = shlex.split((folder / "command.txt").read_text().splitlines()[0])
    assert validate[2] == str(tmp_path / "one.yaml")
    again = CliRunner().invoke(main, [*validate[1:], "-j", "0"])
    assert again.exit_code == 1 and "FAIL  s/c" in again.output, again.output
    run = _run_line(folder)
    assert run[run.index("--load-outputs") + 1] == "expected.npz"  # the runtime agrees with the reference: 2
    monkeypatch.chdir(folder)
    alone = CliRunner().invoke(main, run[1:])
    assert alone.exit_code == 1 and "FAIL  model.onnx/ort[cpu] vs golden" in alone.output, alone.output
    assert "got 2, want 3" in alone.output, alone.output


def test_the_run_line_of_a_runtime_that_differs_from_the_reference_loads_the_reference(tmp_path, monkeypatch):
    """Where the runtime failed against the reference, the reference's outputs are the golden data, with that
    comparison's tolerances, in the outputs' own type (float16 here). onnxruntime agrees with the reference on every
    bundled case, so the result is made by hand."""
    import numpy as np

    from converter.pipeline.repro import write_repro
    from converter.network import Case

    res = CaseResult("s", "c", "FAIL", path=str(tmp_path / "s.yaml"), opset=17, comparisons=[
        {"output": "y", "actual": "onnxruntime", "against": "reference", "passed": False,
         "tolerance": {"atol": 0.001, "rtol": 0.002, "ulp": None}}], problems=["output 'y': differs"])
    case = Case("c", {"x": np.ones(2, np.float16)}, {})
    folder = write_repro(str(tmp_path / "r"), res, b"model", case, {"y": np.zeros(2, np.float16)},
                         {"y": np.full(2, 2, np.float16)})
    run = _run_line(folder)
    assert run[run.index("--load-outputs") + 1] == "reference.npz"
    assert run[run.index("--atol") + 1] == "y:0.001" and run[run.index("--rtol") + 1] == "y:0.002"
    loaded = np.load(folder / "reference.npz")
    assert loaded["y"].dtype == np.float16 and loaded["y"].tolist() == [2.0, 2.0]
    assert np.load(folder / "inputs.npz")["x"].tolist() == [1.0, 1.0]
