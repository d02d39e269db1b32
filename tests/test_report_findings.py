"""Reports review, findings 7, 8, 10 and 14 (docs/cli.md, report merge; docs/report-schema.md):

- 10: the JUnit report of an interrupted run (validate's, and report merge's of an interrupted report) is marked:
  an errored testcase ``(interrupted)`` and the suite's property ``interrupted``, so that a CI system reading only
  JUnit does not show the run green;
- 8: every field report merge reads is type-checked (exit 2, one line naming the file, the field and the value),
  and a report that contradicts itself (a summary that does not count its cases, an id that is not its spec and
  case, a PASS whose comparison failed) is refused the same way;
- 7: the options of the shards of one run are compared by what they mean, not as written; ``--html`` is per-shard;
- 14: merging a ``run MODEL --json`` report keeps its ``model`` section.

Expected values are written by hand from the documents, never taken from the program's output.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
import xml.etree.ElementTree as ET
from unittest import mock

import pytest
from click.testing import CliRunner

from cli import main
from converter.errors import UserError
from converter.report import merge, merged_junit, read_report, to_junit
from converter.results import CaseResult

from .conftest import SPECS
from .helpers import relu_model


def invoke(*args):
    """The command in-process, with sys.argv as the console script has it (reports record it as the command)."""
    argv = [str(a) for a in args]
    with mock.patch.object(sys, "argv", ["spec2onnx", *argv]):
        return CliRunner().invoke(main, argv)


def case(spec="s", name="c", outcome="PASS", **more) -> dict:
    """A case as `validate --json` writes it (the fields merge reads)."""
    return {"id": f"{spec}/{name}", "spec": spec, "case": name, "outcome": outcome, "path": f"{spec}.yaml",
            "ops": ["trt.Scale"], "seconds": 0.5, "problems": [], "comparisons": [], "disagreements": [], **more}


def report(shard="1/2", cases=None, command=None, **more) -> dict:
    """A whole, consistent report of a validate shard: two passing cases unless ``cases``."""
    cases = [case("s", "a"), case("s", "b")] if cases is None else cases
    summary = {o: sum(c["outcome"] == o for c in cases) for o in ("PASS", "FAIL", "ERROR", "XFAIL", "XPASS", "REFUSED")}
    command = command or ["spec2onnx", "validate", "specs", *(["--shard", shard] if shard else [])]
    return {"schema": "spec2onnx-report/4", "spec2onnx": "0.1.0", "onnx": "1.23.2", "onnxruntime": "1.32.0",
            "python": "3.11.7", "platform": "Linux", "started": "2026-11-21T19:50:00+00:00", "seconds": 1.0,
            "command": command, "interrupted": False, "shard": shard, "summary": summary | {"total": len(cases)},
            "cases": cases, **more}


def write(path, document):
    path.write_text(json.dumps(document))
    return path


def two_shards(tmp_path, first: dict | None = None, second: dict | None = None):
    a = write(tmp_path / "a.json", first or report("1/2", [case("s", "a")]))
    b = write(tmp_path / "b.json", second or report("2/2", [case("t", "b")]))
    return a, b


# 10. An interrupted run's JUnit report


def suite_of(data: bytes):
    root = ET.fromstring(data)
    return root, root.find("testsuite")


def test_the_junit_of_an_interrupted_run_has_an_errored_testcase_and_a_property():
    finished = [CaseResult("s", "a", "PASS"), CaseResult("s", "b", "PASS"), CaseResult("t", "c", "FAIL",
                                                                                        problems=["x"])]
    root, suite = suite_of(to_junit(finished, 2.0, interrupted=True))
    # 3 finished cases and the testcase that marks the interruption: 4 tests, 1 failure, 1 error
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "1")
    assert root.get("tests") == "4"
    assert len(suite.findall("testcase")) == 4
    (marker,) = [c for c in suite.findall("testcase") if c.get("name") == "(interrupted)"]
    error = marker.find("error")
    assert error.get("type") == "INTERRUPTED"
    assert "interrupted" in error.get("message") and "after 3 finished cases" in error.get("message")
    assert [(p.get("name"), p.get("value")) for p in suite.find("properties")] == [("interrupted", "true")]
    # where the caller knows how many cases were selected, the message says how many did not run: 10 - 3
    _, suite = suite_of(to_junit(finished, 2.0, interrupted=True, selected=10))
    marker = next(c for c in suite.findall("testcase") if c.get("name") == "(interrupted)")
    assert "7 of the 10 cases selected did not run" in marker.find("error").get("message")


def test_the_junit_of_a_whole_run_has_no_interruption_marker():
    _, suite = suite_of(to_junit([CaseResult("s", "a", "PASS")], 1.0))
    assert (suite.get("tests"), suite.get("errors")) == ("1", "0")
    assert suite.find("properties") is None and [c.get("name") for c in suite.findall("testcase")] == ["a"]


def test_validate_interrupted_writes_a_junit_report_that_is_not_green(tmp_path):
    """Ctrl-C after two cases (the run's generator raises KeyboardInterrupt): exit 130, JSON interrupted: true, and
    the JUnit report no longer an ordinary passing suite (docs/cli.md: reports are still written)."""
    def two_then_ctrl_c(*args, **kwargs):
        yield CaseResult("seed-scale-4d", "doc-example", "PASS", path="x.yaml", ops=("trt.Scale",))
        yield CaseResult("seed-scale-4d", "random", "PASS", path="x.yaml", ops=("trt.Scale",))
        raise KeyboardInterrupt

    spec = SPECS / "trt_scale" / "seed-scale-4d.yaml"
    r_json, r_xml = tmp_path / "r.json", tmp_path / "r.xml"
    with mock.patch("converter.api.specs.run_targets", two_then_ctrl_c):
        result = invoke("validate", spec, "-j", 0, "-q", "--json", r_json, "--junit", r_xml)
    assert result.exit_code == 130, result.output
    assert json.loads(r_json.read_text())["interrupted"] is True
    _, suite = suite_of(r_xml.read_bytes())
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "0", "1")
    assert "(interrupted)" in [c.get("name") for c in suite.findall("testcase")]


def test_the_merged_junit_of_an_interrupted_report_is_not_green(tmp_path):
    a, b = two_shards(tmp_path, second=report("2/2", [case("t", "b")], interrupted=True))
    merged, results, problems = merge([(str(a), read_report(a)), (str(b), read_report(b))])
    assert merged["interrupted"] is True and [m["interrupted"] for m in merged["merged"]] == [False, True]
    _, suite = suite_of(merged_junit(merged, results))
    assert (suite.get("tests"), suite.get("errors")) == ("3", "1")
    marker = next(c for c in suite.findall("testcase") if c.get("name") == "(interrupted)")
    assert str(b) in marker.find("error").get("message") and str(a) not in marker.find("error").get("message")
    assert [(p.get("name"), p.get("value")) for p in suite.find("properties")] == [("interrupted", "true")]


def test_report_merge_junit_of_an_interrupted_report_is_not_green(tmp_path):
    a = write(tmp_path / "i.json", report(None, [case("s", "a")], interrupted=True))
    result = invoke("report", "merge", a, "--junit", tmp_path / "m.xml")
    assert result.exit_code == 1, result.output
    _, suite = suite_of((tmp_path / "m.xml").read_bytes())
    assert (suite.get("tests"), suite.get("errors")) == ("2", "1")


# 8. Every field merge reads is checked; a report that contradicts itself is refused


def _set(path: str, value):
    def change(document):
        *parents, last = path.split(".")
        target = document
        for name in parents:
            target = target[int(name)] if isinstance(target, list) else target[name]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return change


FAILED = {"output": "y", "actual": "onnxruntime", "against": "expected", "passed": False, "count": 1, "total": 4}


@pytest.mark.parametrize("change, message", [
    (_set("interrupted", "no"), 'interrupted: "no" is not true or false'),
    (_set("interrupted", 1), "interrupted: 1 is not true or false"),
    (_set("cases.0.id", 5), "cases[0].id: 5 is not"),
    (_set("cases.0.id", "zzz/other"), 'cases[0].id: "zzz/other" is not "s/a"'),
    (_set("started", "yesterday"), 'started: "yesterday" is not an ISO 8601 date and time'),
    (_set("shard", "abc"), 'shard: "abc" is not I/N'),
    (_set("shard", 3), "shard: 3 is not I/N"),
    (_set("shard", "2/2"), 'shard: "2/2", but its command has --shard 1/2'),
    (_set("command", ["spec2onnx", "validate", "--shard", "x"]), 'command: --shard: "x" is not I/N'),
    (_set("onnx", 1.23), "onnx: 1.23 is not text"),
    (_set("model", [1]), "model: [1] is not a mapping"),
    (_set("cases.0.comparisons", [3]), "cases[0].comparisons[0]: 3 is not a mapping"),
    (_set("cases.0.comparisons", [{"passed": "yes"}]), 'cases[0].comparisons[0].passed: "yes" is not true or false'),
    # the summary says 100 passed of 107; the report holds 1 case, which passed
    (_set("summary", {"PASS": 100, "FAIL": 0, "ERROR": 0, "XFAIL": 0, "XPASS": 0, "REFUSED": 0, "total": 107}),
     "summary: PASS 100, total 107, but its 1 case count PASS 1, total 1"),
    (_set("summary", "all good"), 'summary: "all good" is not a mapping of counts'),
    # an outcome that contradicts the case's own comparisons
    (_set("cases.0.comparisons", [FAILED]), "cases[0].outcome: PASS, but its comparisons[0] failed"),
])
def test_a_field_of_the_wrong_kind_or_a_report_that_contradicts_itself_is_bad_input(tmp_path, change, message):
    document = report("1/2", [case("s", "a")])
    change(document)
    bad, good = two_shards(tmp_path, document)
    for order in ((bad, good), (good, bad)):  # the line names the bad file, whichever comes first
        result = invoke("report", "merge", *order)
        assert result.exit_code == 2, result.output
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"spec2onnx: error: {bad}: ") and message in line, line
        assert "Traceback" not in result.output


def test_a_failed_comparison_in_a_failing_or_known_failing_case_is_no_contradiction(tmp_path):
    cases = [case("s", "a", "FAIL", comparisons=[FAILED], problems=["output 'y': ..."]),
             case("s", "b", "XFAIL", comparisons=[FAILED], problems=["output 'y': ..."], reason="known")]
    a, b = two_shards(tmp_path, report("1/2", cases))
    result = invoke("report", "merge", a, b)
    assert result.exit_code == 1, result.output  # a FAIL: the merged run fails, as the whole run did
    assert "1 failed" in result.stdout


def test_the_merged_start_is_the_earliest_in_time_not_in_text(tmp_path):
    # 10:00 at UTC+5 is 05:00 UTC, before 06:00 UTC, although "...T06" sorts before "...T10" as text; a time with
    # no offset is UTC (docs/report-schema.md)
    a, b = two_shards(tmp_path, report("1/2", [case("s", "a")], started="2026-01-01T06:00:00+00:00"),
                      report("2/2", [case("t", "b")], started="2026-01-01T10:00:00+05:00"))
    merged, _, _ = merge([(str(p), read_report(p)) for p in (a, b)])
    assert merged["started"] == "2026-01-01T10:00:00+05:00"
    c = write(tmp_path / "c.json", report("2/2", [case("t", "b")], started="2026-01-01T05:30:00"))
    merged, _, _ = merge([(str(p), read_report(p)) for p in (a, c)])
    assert merged["started"] == "2026-01-01T05:30:00"


def test_a_whole_report_merged_with_a_shard_says_which_is_which(tmp_path):
    whole = write(tmp_path / "w.json", report(None, [case("s", "a")]))
    shard = write(tmp_path / "s.json", report("2/2", [case("t", "b")]))
    result = invoke("report", "merge", whole, shard)
    assert result.exit_code == 2
    assert f"{shard}: --shard 2/2; {whole} is a whole run (no --shard): shards of one run share N" in result.stderr


# 7. Options compared by what they mean


SPELLINGS = [
    (["--html", "h1.html"], ["--html", "h2.html"]),
    (["--atol=0.5"], ["--atol", "0.5"]),
    (["--atol", "0.5", "--rtol", "0"], ["--rtol", "0", "--atol", "0.5"]),
    (["--target=ort-cpu"], ["--target", "ort-cpu"]),
    (["--timeout", "30"], ["--timeout", "30.0"]),
    (["-x"], ["--fail-fast"]),
    (["-qx", "-j2"], ["--fail-fast", "--jobs=4", "-v"]),
    (["--refused", "skip", "--timeout", "60"], []),  # the defaults, written or not
    (["--atol", "out:0.5"], ["--atol=out:.5"]),
]


@pytest.mark.parametrize("first, second", SPELLINGS, ids=[" ".join(a) or "-" for a, _ in SPELLINGS])
def test_shards_whose_options_differ_only_in_how_they_are_written_merge(tmp_path, first, second):
    a, b = two_shards(tmp_path, report("1/2", [case("s", "a")], ["spec2onnx", "validate", ".", "--shard", "1/2",
                                                                  *first]),
                      report("2/2", [case("t", "b")], ["spec2onnx", "validate", *(["./"] if first else ["."]),
                                                      "--shard=2/2", *second]))
    result = invoke("report", "merge", a, b)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("first, second, named", [
    (["--atol", "0.5"], ["--atol", "1"], "--atol 1 here, 0.5 there"),
    (["-x"], [], "--fail-fast (not given) here, (given) there"),
    (["--timeout", "30"], ["--timeout", "31"], "--timeout 31 here, 30 there"),
    # the first runtime is the one the others' disagreements are measured from (docs/report-schema.md)
    (["--runtime", "onnxruntime", "--runtime", "openvino"], ["--runtime", "openvino", "--runtime", "onnxruntime"],
     "--runtime openvino onnxruntime here, onnxruntime openvino there"),
])
def test_shards_whose_options_mean_different_runs_are_refused_naming_the_option(tmp_path, first, second, named):
    a, b = two_shards(tmp_path, report("1/2", [case("s", "a")], ["spec2onnx", "validate", ".", "--shard", "1/2",
                                                                  *first]),
                      report("2/2", [case("t", "b")], ["spec2onnx", "validate", ".", "--shard", "2/2", *second]))
    result = invoke("report", "merge", a, b)
    assert result.exit_code == 2, result.output
    assert f"{b}: not a shard of the same run as {a}: " in result.stderr and named in result.stderr


def test_shards_with_their_own_html_pages_merge(tmp_path):
    """The reviewer's run: each shard writes its page as a CI artifact, as it writes its --json and --junit."""
    suite = tmp_path / "suite"
    for name in ("trt_scale/seed-scale-4d.yaml", "trt_elementwise/seed-broadcast-prod.yaml"):
        (suite / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SPECS / name, suite / name)
    paths = []
    for i in (1, 2):
        paths.append(tmp_path / f"h{i}.json")
        result = invoke("validate", suite, "-j", 0, "-q", "--shard", f"{i}/2", "--json", paths[-1], "--html",
                        tmp_path / f"h{i}.html")
        assert result.exit_code == 0, result.output
    result = invoke("report", "merge", *paths, "--json", tmp_path / "m.json")
    assert result.exit_code == 0, result.output
    assert "--html" not in json.loads((tmp_path / "m.json").read_text())["command"]


# 14. run MODEL's report keeps its model section


def test_merging_a_run_model_report_keeps_its_model_section(tmp_path):
    model = relu_model(tmp_path / "relu.onnx")
    g = tmp_path / "g.json"
    result = invoke("run", model, "--runtime", "onnxruntime", "--runtime", "onnx-reference", "-q", "--json", g)
    assert result.exit_code == 0, result.output
    merged = tmp_path / "gm.json"
    result = invoke("report", "merge", g, "--json", merged)
    assert result.exit_code == 0, result.output
    original, kept = json.loads(g.read_text()), json.loads(merged.read_text())
    assert kept["model"] == original["model"]
    assert kept["model"]["inputs_from"] == "generated: seed 1, values in [0, 1]"  # (docs/report-schema.md's form)


def test_run_reports_with_different_model_sections_are_refused(tmp_path):
    command = ["spec2onnx", "run", "m.onnx", "--json", "g.json"]
    section = {"path": "m.onnx", "nodes": 1, "inputs_from": "generated: seed 1, values in [0, 1]", "runtimes": []}
    first = report(None, [case("m.onnx", "onnxruntime vs onnx-reference")], command, model=section)
    other = copy.deepcopy(first) | {"cases": [case("m.onnx", "openvino vs onnx-reference")]}
    other["model"] = section | {"inputs_from": "--load-inputs in.npz"}
    a, b = two_shards(tmp_path, first, other)
    result = invoke("report", "merge", a, b)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"spec2onnx: error: {b}: model: ") and str(a) in line
    with pytest.raises(UserError, match="model: a report of run MODEL"):  # one with, one without
        no_model = {k: v for k, v in other.items() if k != "model"}
        merge([(str(a), read_report(a)), (str(b), read_report(write(b, no_model)))])
