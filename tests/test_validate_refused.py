"""``validate --target T``: a spec the target refuses is its own outcome, REFUSED, not a broken spec (issue 26: it was
an ERROR with exit status 2). And ``--save-host-model DIR`` says, once, when it has nothing to write.

The refusals here are the target's documented rules: onnx-tensorrt has no int16 tensor (docs/operators.md,
converter/targets/spec_rules.py), DLA runs FP16 and INT8 only (the seeds' DLA rules); the int16 spec has 1 case and
the float32 seed 2 (read in the spec files)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from cli import main
from converter.pipeline.stages import CaseResult
from converter.report import summary_line, summary_table, to_junit

from .conftest import SPECS

INT16 = SPECS / "dml_dequantize" / "strides-transposed-decomposed.yaml"  # input 't' is int16: tensorrt refuses it
SEED = SPECS / "trt_scale" / "seed-scale-4d.yaml"  # float32: tensorrt runs it, tensorrt-dla refuses it


def _validate(*args):
    result = CliRunner().invoke(main, ["validate", "-j", "0", *map(str, args)])
    assert "Traceback" not in result.output, result.output
    return result


def test_a_refused_spec_is_refused_not_an_error_and_the_run_passes(tmp_path):
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    result = _validate(INT16, SEED, "--target", "tensorrt", "--json", report, "--junit", junit)
    assert result.exit_code == 0, result.output  # was 2: a broken spec
    assert "REFUSED dml-dq-strides-transposed-decomposed/by-hand" in result.output
    assert "input 't' is int16: tensorrt needs TensorRT types" in result.output
    assert "ERROR" not in result.output.replace("  ERROR  ", "")  # (the table's column header)
    assert "3 cases: 2 passed, 0 failed, 0 errors, 1 refused" in result.output
    header = next(line for line in result.output.splitlines() if line.startswith("layer kind"))
    assert header.split()[-1] == "REFUSED"
    document = json.loads(report.read_text())
    assert document["schema"] == "spec2onnx-report/4"
    assert document["summary"]["REFUSED"] == 1 and document["summary"]["ERROR"] == 0
    [refused] = [c for c in document["cases"] if c["outcome"] == "REFUSED"]
    assert refused["id"] == "dml-dq-strides-transposed-decomposed/by-hand [tensorrt]" and not refused["bad_input"]
    skipped = ET.parse(junit).getroot().find("./testsuite/testcase/skipped[@type='REFUSED']")
    assert skipped is not None and "int16" in skipped.get("message")


def test_refused_fail_fails_the_run_on_a_refusal(tmp_path):
    junit = tmp_path / "r.xml"
    result = _validate(INT16, SEED, "--target", "tensorrt", "--refused", "fail", "--junit", junit, "-q")
    assert result.exit_code == 1
    assert "REFUSED dml-dq-strides-transposed-decomposed/by-hand" in result.output  # a failure: shown under -q
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("failures") == "1" and suite.get("skipped") == "0"
    assert suite.find("./testcase/failure[@type='REFUSED']") is not None


def test_q_leaves_out_skipped_refusals_and_keeps_their_count():
    result = _validate(INT16, SEED, "--target", "tensorrt", "-q")
    assert result.exit_code == 0 and "REFUSED dml" not in result.output and "1 refused" in result.output


def test_a_run_where_the_target_refuses_every_case_validated_nothing():
    result = _validate(SEED, "--target", "tensorrt-dla")
    assert result.exit_code == 1  # not 2 (no bad input), not 0 (nothing validated)
    assert result.output.count("REFUSED trt-scale-seed-4d/") == 2
    assert "no case ran: the target refused every case selected (2; the first, trt-scale-seed-4d/doc-example [tensorrt-dla]: " \
           "network.layers[0]: tensor 'input1' is float32; tensorrt-dla runs FP16 and INT8 only" in result.output


def test_a_bad_refused_value_is_a_usage_error():
    result = _validate(SEED, "--refused", "ignore")
    assert result.exit_code == 2 and "--refused" in result.output and "skip" in result.output


def test_the_api_counts_refusals_and_fails_on_them_when_asked():
    import converter as spec2onnx

    report = spec2onnx.validate([str(INT16), str(SEED)], target="tensorrt")
    assert report.counts()["REFUSED"] == 1 and report.ok and report.failures == ()
    strict = spec2onnx.validate([str(INT16), str(SEED)], target="tensorrt", refused="fail")
    assert not strict.ok and [r.outcome for r in strict.failures] == ["REFUSED"]
    nothing = spec2onnx.validate(str(SEED), target="tensorrt-dla")
    assert not nothing.ok and nothing.failures == ()  # every case refused: nothing validated
    with pytest.raises(spec2onnx.UserError, match="--refused maybe: not one of skip, fail"):
        spec2onnx.validate(str(SEED), refused="maybe")


def test_reports_show_the_refused_column_only_where_there_is_one():
    plain = [CaseResult("s", "a", "PASS", ops=("trt.Scale",))]
    assert "REFUSED" not in summary_table(plain) and "refused" not in summary_line(plain)
    mixed = plain + [CaseResult("s", "b", "REFUSED", ops=("trt.Scale",), problems=["tensorrt-dla refuses"])]
    table = summary_table(mixed).splitlines()
    assert table[0].split() == ["layer", "kind", "PASS", "FAIL", "ERROR", "XFAIL", "XPASS", "REFUSED"]
    assert table[-1].split() == ["total", "1", "0", "0", "0", "0", "1"]
    assert summary_line(mixed) == "2 cases: 1 passed, 0 failed, 0 errors, 1 refused"
    root = ET.fromstring(to_junit(mixed, 1.0))
    assert root.find("testsuite").get("skipped") == "1" and root.find("testsuite").get("failures") == "0"
    root = ET.fromstring(to_junit(mixed, 1.0, refused="fail"))
    assert root.find("testsuite").get("skipped") == "0" and root.find("testsuite").get("failures") == "1"


# --- --save-host-model ---


def test_save_host_model_says_once_when_the_target_has_no_host_copy(tmp_path):
    folder = tmp_path / "hosts"
    result = _validate(SEED, SPECS / "trt_scale" / "seed-scale-5d.yaml", "--target", "ort-cpu",
                       "--save-host-model", folder)
    assert result.exit_code == 0
    lines = [line for line in result.output.splitlines() if "--save-host-model" in line]
    assert lines == [f"spec2onnx: warning: --save-host-model {folder}: nothing written: only the targets whose host "
                     "runs a legalized copy (ort-dml, tensorrt, tensorrt-dla, openvino) write one, and ort-cpu has no "
                     "such copy: its host runs the very model convert writes (docs/deployment.md)"]  # one line a run
    assert list(folder.iterdir()) == []


def test_save_host_model_says_where_it_wrote_and_nothing_when_every_spec_was_refused(tmp_path):
    folder = tmp_path / "hosts"
    written = _validate(SEED, "--target", "tensorrt", "--save-host-model", folder)
    assert written.exit_code == 0 and [p.name for p in folder.iterdir()] == ["trt-scale-seed-4d.host.onnx"]
    assert f"written to {folder} as <spec>.host.onnx" in written.output
    refused = _validate(INT16, "--target", "tensorrt", "--save-host-model", tmp_path / "none")
    assert "nothing written" in refused.output and "no spec of this run was lowered for tensorrt" in refused.output
