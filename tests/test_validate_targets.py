"""Issue 31 item 3: one target and precision vocabulary across commands. ``validate`` runs every ``--target`` given
(as ``check`` and the pytest plugin's ``--s2o-target`` do), each case id ending in `` [TARGET]`` as the plugin's
items, every case of the JSON report saying which target ran, the reproduction command keeping ``--target``; it
takes ``--fp16``/``--int8`` as ``convert`` and ``check`` do; a precision flag for a target that does not read it
is said, not ignored."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import yaml
from click.testing import CliRunner

import spec2onnx
from converter.cli import main
from converter.files import bundled_specs_dir

# a float32 Scale (4-D, per tensor): DLA runs it in FP16 when the build allows FP16, and refuses it otherwise
FLOAT32 = bundled_specs_dir() / "trt_scale" / "gen-trt-scale-uniform-float32-r4-axis1.yaml"

FAILING = """
name: s
network:
  inputs: {x: {dtype: int32, shape: [1]}}
  layers: [{name: y, op: trt.ElementWise, operation: SUM, inputs: [x, x]}]
  outputs: [y]
cases:
  - {name: c, inputs: {x: [1]}, expected: {y: [3]}}
"""


def _cases_of(path: Path) -> list[str]:
    return [case["name"] for case in yaml.safe_load(path.read_text())["cases"]]


def _validate(*args):
    return CliRunner().invoke(main, ["validate", "-j", "0", *map(str, args)])


def test_validate_runs_every_target_given_each_case_id_ending_in_its_target(tmp_path):
    names = _cases_of(FLOAT32)
    report = tmp_path / "r.json"
    result = _validate(FLOAT32, "--target", "ort-cpu", "--target", "tensorrt-dla", "--fp16", "--json", report)
    assert result.exit_code == 0, result.output
    cases = json.loads(report.read_text())["cases"]
    ids = {f"gen-trt-scale-uniform-float32-r4-axis1/{n} [{t}]" for n in names for t in ("ort-cpu", "tensorrt-dla")}
    assert {c["id"] for c in cases} == ids and len(cases) == 2 * len(names)
    assert {(c["case"], c["target"]) for c in cases} == {(n, t) for n in names for t in ("ort-cpu", "tensorrt-dla")}
    assert all(c["outcome"] == "PASS" for c in cases)
    # the deployment target's host runs a legalized copy of its model; ort-cpu's runs convert's model itself
    assert {c["target"] for c in cases if c["host"]} == {"tensorrt-dla"}
    for case_id in ids:
        assert f"PASS  {case_id}" in result.output
    assert json.loads(report.read_text())["schema"] == "spec2onnx-report/4"


def test_validate_takes_fp16_so_a_float32_spec_runs_on_dla_without_editing_it(tmp_path):
    names = _cases_of(FLOAT32)
    without, with_fp16 = tmp_path / "without.json", tmp_path / "with.json"
    refused = _validate(FLOAT32, "--target", "tensorrt-dla", "--json", without)
    assert refused.exit_code == 1  # every case refused: nothing validated
    cases = json.loads(without.read_text())["cases"]
    assert [c["outcome"] for c in cases] == ["REFUSED"] * len(names)
    assert all("float32 runs there in FP16 when the build allows FP16 (--fp16" in c["problems"][0] for c in cases)
    ran = _validate(FLOAT32, "--target", "tensorrt-dla", "--fp16", "--json", with_fp16)
    assert ran.exit_code == 0, ran.output
    assert [c["outcome"] for c in json.loads(with_fp16.read_text())["cases"]] == ["PASS"] * len(names)
    assert "means nothing" not in ran.output  # tensorrt-dla reads --fp16


def test_without_target_ids_are_unchanged_and_the_report_names_the_target_the_provider_implies(tmp_path):
    report = tmp_path / "r.json"
    result = _validate(FLOAT32, "--json", report)
    assert result.exit_code == 0, result.output
    cases = json.loads(report.read_text())["cases"]
    assert {c["id"] for c in cases} == {f"gen-trt-scale-uniform-float32-r4-axis1/{n}" for n in _cases_of(FLOAT32)}
    assert {c["target"] for c in cases} == {"ort-cpu"}  # what the CPU execution provider implies


def test_list_names_each_case_once_per_target():
    result = _validate(FLOAT32, "--list", "--target", "tensorrt", "--target", "openvino")
    assert result.exit_code == 0, result.output
    listed = [line for line in result.output.splitlines() if line.startswith("gen-trt")]
    assert listed == [f"gen-trt-scale-uniform-float32-r4-axis1/{n} [{t}]" for n in _cases_of(FLOAT32)
                      for t in ("tensorrt", "openvino")]


def test_each_targets_reproduction_keeps_its_target_and_reproduces_the_failure(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(FAILING)  # 1 + 1 = 2, the spec expects 3: FAIL on every target
    repro = tmp_path / "repro"
    result = _validate(spec, "--target", "ort-cpu", "--target", "tensorrt", "--repro-dir", repro)
    assert result.exit_code == 1, result.output
    for target in ("ort-cpu", "tensorrt"):
        folder = repro / "s" / "c" / f"{target}-onnxruntime-cpu-all"
        command = shlex.split((folder / "command.txt").read_text().splitlines()[0])
        assert command[command.index("--target") + 1] == target and command.count("--target") == 1
        again = CliRunner().invoke(main, [*command[1:], "-j", "0"])
        assert again.exit_code == 1 and f"FAIL  s/c [{target}]" in again.output, again.output
        assert "s/c [" + ("tensorrt" if target == "ort-cpu" else "ort-cpu") + "]" not in again.output


def test_a_spec_that_does_not_load_is_reported_once_whatever_the_targets(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: b\nnetwork: 3\ncases: []\n")
    result = _validate(bad, FLOAT32, "--target", "ort-cpu", "--target", "tensorrt")
    assert result.exit_code == 2
    for target in ("ort-cpu", "tensorrt"):  # the spec that loads runs for every target
        assert all(f"/{n} [{target}]" in result.output for n in _cases_of(FLOAT32)), result.output
    assert result.output.count(f"ERROR {bad} (not loaded)") == 1, result.output


def test_a_precision_flag_for_a_target_that_does_not_read_it_is_said(tmp_path):
    runner = CliRunner()
    out = tmp_path / "m.onnx"
    idle = runner.invoke(main, ["convert", str(FLOAT32), "--target", "ort-cuda", "--int8", "-o", str(out)])
    assert idle.exit_code == 0 and out.exists()
    assert "warning: --int8 means nothing for ort-cuda" in idle.stderr, idle.stderr
    read = runner.invoke(main, ["convert", str(FLOAT32), "--target", "tensorrt-dla", "--fp16", "-o", str(out)])
    assert read.exit_code == 0 and "means nothing" not in read.stderr, read.stderr
    checked = runner.invoke(main, ["check", str(out), "--target", "openvino", "--fp16"])
    assert "warning: --fp16 means nothing for openvino" in checked.stderr, checked.stderr
    both = _validate(FLOAT32, "--target", "ort-cpu", "--target", "tensorrt-dla", "--fp16")
    assert both.exit_code == 0 and "warning: --fp16 means nothing for ort-cpu:" in both.stderr


def test_the_python_api_validates_every_target_given():
    report = spec2onnx.validate(str(FLOAT32), target=["ort-cpu", "tensorrt-dla"], precision=["fp16"])
    assert report.ok, report.summary()
    names = _cases_of(FLOAT32)
    assert sorted((r.case, r.target) for r in report.results) == sorted((n, t) for n in names
                                                                         for t in ("ort-cpu", "tensorrt-dla"))
    assert all(r.id.endswith(f" [{r.target}]") for r in report.results)


def test_a_case_whose_worker_died_is_reported_for_its_target(tmp_path):
    from .test_runner import MISBEHAVING_SPEC, PLUGIN  # a plugin kind whose case 'segfault' kills its worker

    spec, report = tmp_path / "m.yaml", tmp_path / "r.json"
    spec.write_text(MISBEHAVING_SPEC)
    result = CliRunner().invoke(main, ["validate", str(spec), "--plugin", PLUGIN, "-j", "1", "-k", "fine-1", "-k",
                                       "segfault", "--target", "ort-cpu", "--target", "portable", "--json", str(report)])
    assert result.exit_code == 1, result.output
    cases = {(c["id"], c["target"]): c["outcome"] for c in json.loads(report.read_text())["cases"]}
    assert cases == {(f"misbehaving/{case} [{target}]", target): outcome for target in ("ort-cpu", "portable")
                     for case, outcome in (("fine-1", "PASS"), ("segfault", "ERROR"))}


def test_save_host_model_writes_each_targets_copies_in_a_folder_of_its_own(tmp_path):
    folder = tmp_path / "hosts"
    result = _validate(FLOAT32, "--target", "tensorrt", "--target", "tensorrt-dla", "--fp16", "--save-host-model", folder)
    assert result.exit_code == 0, result.output
    written = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.onnx"))
    assert written == sorted(f"{t}/gen-trt-scale-uniform-float32-r4-axis1.host.onnx" for t in ("tensorrt", "tensorrt-dla"))
    assert "host: legalized copies of 2 deployment models ran" in result.output
    assert f"written to {folder}/<target> as <spec>.host.onnx" in result.output


F16_CHAIN = """
name: f16-chain
network:
  inputs: {x: {dtype: float16, shape: [2]}}
  layers:
    - {name: e, op: trt.ElementWise, inputs: [x, x], operation: SUM}
    - {name: e2, op: trt.ElementWise, inputs: [e, x], operation: SUB}
  outputs: [e2]
cases:
  - name: overflow
    inputs: {x: [60000, 1]}
    expected: {e2: [.inf, 1]}
"""


def test_ort_dml_models_are_validated_through_a_host_copy(tmp_path):
    """60000 + 60000 overflows float16 (its largest finite value is 65504): inf, then inf - 60000 = inf (by hand).
    DirectML computes float16 Add and Sub natively, rounding each; the CPU EP has no float16 kernel for them and
    computed both in float32 without rounding between them (60000): validate runs a legalized host copy, as for
    tensorrt, and the model convert writes keeps DirectML's native float16 ops."""
    import onnx

    spec = tmp_path / "chain.yaml"
    spec.write_text(F16_CHAIN)
    host = tmp_path / "host"
    result = _validate(spec, "--target", "ort-dml", "--save-host-model", host)
    assert result.exit_code == 0 and "PASS  f16-chain/overflow [ort-dml]" in result.output, result.output
    assert (host / "f16-chain.host.onnx").exists()
    assert CliRunner().invoke(main, ["convert", str(spec), "--target", "ort-dml", "-o", str(tmp_path / "m.onnx")]).exit_code == 0
    model = onnx.load(tmp_path / "m.onnx")
    assert [n.op_type for n in model.graph.node] == ["Add", "Sub"]  # (float16 in, float16 out: no Cast)


def test_openvino_models_run_as_written_on_openvino_and_through_a_host_copy_on_onnxruntime(tmp_path, monkeypatch):
    """The openvino target's model keeps float16 Add and Sub (OpenVINO's CPU plugin takes them); the host, whose
    CPU EP computes them in float32 without rounding between the two layers, runs the legalized copy (it gave 60000
    where the spec says inf, by hand: 60000 + 60000 overflows float16), and OpenVINO, where it runs, the model itself."""
    import onnx
    import pytest

    from converter.pipeline import stages

    pytest.importorskip("openvino")
    spec = tmp_path / "chain.yaml"
    spec.write_text(F16_CHAIN)
    ran = {}
    real = stages._session

    def session(config, model_bytes, threads):
        ran[config.runtime] = [n.op_type for n in onnx.load_model_from_string(model_bytes).graph.node]
        return real(config, model_bytes, threads)

    monkeypatch.setattr(stages, "_session", session)
    result = _validate(spec, "--target", "openvino", "--runtime", "onnxruntime", "--runtime", "openvino")
    assert "PASS  f16-chain/overflow [openvino ort[cpu]]" in result.output, result.output
    assert ran["openvino"] == ["Add", "Sub"] and "Cast" in ran["onnxruntime"], ran
