"""`spec2onnx report merge`: the JSON reports of a run's shards as one report (issue 26 item 4).

The expected report is the unsharded run's own: the merged cases and summary must be what `validate` without
`--shard` writes for the same specs.
"""

from __future__ import annotations

import json
import shutil
import sys
import xml.etree.ElementTree as ET
from unittest import mock

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from cli import main
from converter.report import missing_ranges, run_options, shard_of

from .conftest import SPECS

PICKED = ["trt_scale/seed-scale-4d.yaml", "trt_scale/seed-scale-5d.yaml", "trt_elementwise/seed-broadcast-prod.yaml"]


def invoke(*args):
    """The command in-process, with sys.argv as the console script has it (reports record it as the command)."""
    argv = [str(a) for a in args]
    with mock.patch.object(sys, "argv", ["spec2onnx", *argv]):
        return CliRunner().invoke(main, argv)


@pytest.fixture
def suite(tmp_path):
    folder = tmp_path / "suite"
    for name in PICKED:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SPECS / name, target)
    return folder


def shard_reports(tmp_path, suite, total=2, *extra):
    paths = []
    for i in range(1, total + 1):
        path = tmp_path / f"shard{i}.json"
        result = invoke("validate", suite, "-j", 0, "--shard", f"{i}/{total}", "--json", path, *extra)
        assert result.exit_code == 0, result.output
        paths.append(path)
    return paths


def cases_of(document):
    return [(c["id"], c["outcome"]) for c in document["cases"]]


def test_merged_shards_are_the_whole_runs_report(tmp_path, suite):
    whole = tmp_path / "whole.json"
    assert invoke("validate", suite, "-j", 0, "--json", whole).exit_code == 0
    a, b = shard_reports(tmp_path, suite)
    merged, junit = tmp_path / "merged.json", tmp_path / "merged.xml"
    result = invoke("report", "merge", a, b, "--json", merged, "--junit", junit)
    assert result.exit_code == 0, result.output
    want, got = json.loads(whole.read_text()), json.loads(merged.read_text())
    assert cases_of(got) == cases_of(want) and got["summary"] == want["summary"]
    assert [m["shard"] for m in got["merged"]] == ["1/2", "2/2"] and got["missing_shards"] == []
    assert "layer kind" in result.stdout and "trt.Scale" in result.stdout
    assert f"merged 2 reports: {want['summary']['total']} cases: {want['summary']['PASS']} passed" in result.stdout
    suite_xml = ET.parse(junit).getroot().find("testsuite")
    assert suite_xml.get("tests") == str(want["summary"]["total"]) and suite_xml.get("failures") == "0"


def test_a_missing_shard_is_named_and_fails_the_merge(tmp_path, suite):
    a, b, c = shard_reports(tmp_path, suite, 3)
    result = invoke("report", "merge", a, c, "--json", tmp_path / "m.json")
    assert result.exit_code == 1, result.output
    assert "spec2onnx: error: shard 2/3 missing: the merged report has 2 of 3 shards" in result.stderr
    assert json.loads((tmp_path / "m.json").read_text())["missing_shards"] == ["2/3"]


def test_duplicates_and_reports_of_other_runs_are_refused(tmp_path, suite):
    a, b = shard_reports(tmp_path, suite)
    twice = invoke("report", "merge", a, b, a)
    assert twice.exit_code == 2 and "shard 1/2 again (also" in twice.stderr
    other = tmp_path / "other.json"
    assert invoke("validate", suite, "-j", 0, "--shard", "2/2", "--json", other, "--atol", "0.5").exit_code == 0
    mixed = invoke("report", "merge", a, other)
    assert mixed.exit_code == 2 and "not a shard of the same run" in mixed.stderr and "--atol" in mixed.stderr
    three = tmp_path / "three.json"
    assert invoke("validate", suite, "-j", 0, "--shard", "2/3", "--json", three).exit_code == 0
    assert "shards of one run share N" in invoke("report", "merge", a, three).stderr
    whole = tmp_path / "whole.json"
    assert invoke("validate", suite, "-j", 0, "--json", whole).exit_code == 0
    again = invoke("report", "merge", whole, tmp_path / "whole.json")
    assert again.exit_code == 2 and "is also in" in again.stderr


@pytest.mark.parametrize("text, message", [
    ("not json", "not JSON"),
    ('{"schema": "spec2onnx-check/1"}', "schema: 'spec2onnx-check/1'"),
    ('{"schema": "spec2onnx-report/4", "cases": 3, "command": [], "seconds": 1, "started": "x"}', "cases: 3 is not a list"),
    ('{"schema": "spec2onnx-report/4", "cases": [{"spec": "s", "case": "c", "outcome": "GREAT"}], "command": [],'
     ' "seconds": 1, "started": "x"}', "cases[0].outcome: 'GREAT' is not one of PASS"),
    ('{"schema": "spec2onnx-report/4", "cases": [{"spec": "s", "outcome": "PASS"}], "command": [],'
     ' "seconds": 1, "started": "x"}', "cases[0].case: missing"),
    # seconds no float holds (10**400: OverflowError, exit 3), or not finite, or negative
    ('{"schema": "spec2onnx-report/4", "cases": [], "command": [], "seconds": 1' + "0" * 400 + ', "started": "x"}',
     "seconds: an integer of 401 digits is not a number of seconds (finite, >= 0)"),
    ('{"schema": "spec2onnx-report/4", "cases": [], "command": [], "seconds": Infinity, "started": "x"}',
     "seconds: Infinity is not a number of seconds"),
    ('{"schema": "spec2onnx-report/4", "cases": [], "command": [], "seconds": NaN, "started": "x"}',
     "seconds: NaN is not a number of seconds"),
    ('{"schema": "spec2onnx-report/4", "cases": [], "command": [], "seconds": -1, "started": "x"}',
     "seconds: -1 is not a number of seconds"),
    ('{"schema": "spec2onnx-report/4", "cases": [{"spec": "s", "case": "c", "outcome": "PASS", "seconds": 1' +
     "0" * 400 + '}], "command": [], "seconds": 1, "started": "x"}', "cases[0].seconds: an integer of 401 digits"),
    # an absurd N: more digits than int() converts, or more shards than any run has reports
    ('{"schema": "spec2onnx-report/4", "cases": [], "command": ["spec2onnx", "validate", "--shard", "1/' + "9" * 5000 +
     '"], "seconds": 1, "started": "x"}', "shard (or --shard in command): I/N with more digits"),
    ('{"schema": "spec2onnx-report/4", "cases": [], "command": [], "shard": "1/4000000", "seconds": 1, '
     '"started": "x"}', "shard 1/4000000: N is above 1,000,000"),
])
def test_a_report_that_cannot_be_read_is_bad_input_naming_the_field(tmp_path, text, message):
    path = tmp_path / "r.json"
    path.write_text(text)
    result = invoke("report", "merge", path)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and str(path) in result.stderr and "Traceback" not in result.output


def test_the_merged_exit_status_is_the_whole_runs(tmp_path, suite):
    (suite / "broken.yaml").write_text("name: b\nnetwork: 3\ncases: []\n")
    paths = []
    for i in (1, 2):
        path = tmp_path / f"s{i}.json"
        invoke("validate", suite, "-j", 0, "--shard", f"{i}/2", "--json", path)
        paths.append(path)
    result = invoke("report", "merge", *paths)
    assert result.exit_code == 2, result.output  # a spec that did not load: bad input, as the whole run says


def test_a_shard_with_nothing_to_run_passes_and_the_merge_decides(tmp_path, suite):
    """A fixed CI matrix of more shards than spec files, or a -k that leaves a shard empty: the shard passes with a
    note saying why (it found its spec files; they went to the other shards), and the merge gives the whole run's
    status: 0 where some shard ran cases, 1 where none did (a stale -k)."""
    paths = shard_reports(tmp_path, suite, 5)  # 3 spec files, 5 shards: shards 4 and 5 are empty (each asserts exit 0)
    result = invoke("validate", suite, "-j", 0, "--shard", "5/5")
    assert result.stderr.strip() == ("spec2onnx: note: shard 5/5 has nothing to run: none of the 3 spec files found "
                                     "falls in it (the files are dealt to the shards in turn)"), result.output
    assert invoke("report", "merge", *paths).exit_code == 0
    stale = []
    for i in (1, 2):
        stale.append(tmp_path / f"stale{i}.json")
        result = invoke("validate", suite, "-j", 0, "--shard", f"{i}/2", "-k", "no-such-case", "--json", stale[-1])
        assert result.exit_code == 0, result.output
        assert "has nothing to run: no case of its" in result.stderr and "matches -k" in result.stderr
    result = invoke("report", "merge", *stale)
    assert result.exit_code == 1, result.output
    assert "no case ran in any of the shards" in result.stderr
    assert invoke("validate", suite, "-j", 0, "-k", "no-such-case").exit_code == 1  # unsharded: nothing ran, as before


def test_a_spec_name_used_twice_is_refused_by_the_shard_of_the_second_file(tmp_path, suite):
    """Unsharded, the second file with a name is not loaded (exit 2). Each shard sees only its own files, and both
    passed; the merge then blamed the sharding ("each case belongs to one shard"). Now the shard holding the second
    file refuses it as the unsharded run does, and the merge says what that run says."""
    shutil.copy(suite / PICKED[0], suite / "trt_scale" / "seed-scale-4e.yaml")  # its name, sorted right after it:
    # the files are dealt in turn, so the two are in different shards
    whole = invoke("validate", suite, "-j", 0)
    assert whole.exit_code == 2 and "is also the name of" in whole.output
    paths, codes = [], []
    for i in (1, 2):
        paths.append(tmp_path / f"s{i}.json")
        result = invoke("validate", suite, "-j", 0, "--shard", f"{i}/2", "--json", paths[-1])
        codes.append(result.exit_code)
    assert sorted(codes) == [0, 2]
    merged = invoke("report", "merge", *paths)
    assert merged.exit_code == 2, merged.output
    got = sorted(c["id"] for c in json.loads(paths[codes.index(2)].read_text())["cases"] if c["case"] == "<load>")
    assert got == [f"{suite / 'trt_scale' / 'seed-scale-4e.yaml'} (not loaded)"]


def test_an_internal_error_outranks_a_spec_not_loaded_in_the_merged_status():
    from converter.report import merged_status
    from converter.results import ERROR, CaseResult

    bug = CaseResult("a", "c", ERROR, internal=True)
    not_loaded = CaseResult("b.yaml", "<load>", ERROR, bad_input=True)
    assert merged_status([not_loaded, bug], []) == 3  # as validate's own verdict (docs/cli.md: 3 before 2)
    assert merged_status([not_loaded], []) == 2


def test_run_options_leave_out_what_differs_between_shards():
    a = ["/usr/bin/spec2onnx", "validate", "specs", "--shard", "1/4", "--json=a.json", "-j", "8", "-q", "--atol", "1"]
    b = ["spec2onnx", "validate", "specs", "--shard=3/4", "--json", "b.json", "--junit", "b.xml", "--atol", "1"]
    assert run_options(a) == run_options(b) == ("validate", "specs", "--atol", "1")
    assert shard_of({"command": a}) == (1, 4) and shard_of({"command": b}) == (3, 4)
    assert shard_of({"shard": "2/5", "command": a}) == (2, 5) and shard_of({"command": ["spec2onnx", "validate"]}) is None


def test_refused_cases_merge_as_the_whole_run_counts_them(tmp_path, suite):
    """validate --target tensorrt-dla refuses the float32 specs (DLA runs FP16 and INT8 only): REFUSED, counted,
    not a failure unless --refused fail, and a run whose every case was refused validated nothing; the merged
    counts and exit status are the whole run's."""
    mixed = tmp_path / "mixed"
    shutil.copytree(suite, mixed)
    shutil.copy(SPECS / "trt_scale/gen-trt-scale-only-scale-float16.yaml", mixed / "f16.yaml")
    for folder, extra in ((suite, ()), (suite, ("--refused", "fail")), (mixed, ()), (mixed, ("--refused", "fail"))):
        whole = tmp_path / "whole.json"
        status = invoke("validate", folder, "-j", 0, "--target", "tensorrt-dla", "--json", whole, "--junit",
                        tmp_path / "whole.xml", *extra).exit_code
        paths = []
        for i in (1, 2):
            path = tmp_path / f"s{i}.json"
            invoke("validate", folder, "-j", 0, "--target", "tensorrt-dla", "--shard", f"{i}/2", "--json", path, *extra)
            paths.append(path)
        result = invoke("report", "merge", *paths, "--json", tmp_path / "m.json", "--junit", tmp_path / "m.xml")
        want = json.loads(whole.read_text())["summary"]
        assert result.exit_code == status, (folder.name, extra, result.output)
        assert json.loads((tmp_path / "m.json").read_text())["summary"] == want and want["REFUSED"] == 6
        assert f"{want['REFUSED']} refused" in result.stdout and "REFUSED" in result.stdout
        got, expected = (ET.parse(tmp_path / x).getroot().find("testsuite").attrib for x in ("m.xml", "whole.xml"))
        assert {k: got[k] for k in ("tests", "failures", "skipped")} == \
            {k: expected[k] for k in ("tests", "failures", "skipped")}
    assert status == 1  # the mixed run with --refused fail


def _report(path, shard):
    """A report of an empty shard (what read_report requires, nothing else)."""
    path.write_text(json.dumps({"schema": "spec2onnx-report/4", "spec2onnx": "1", "onnx": "1", "onnxruntime": "1",
                                "command": ["spec2onnx", "validate", "--shard", shard], "seconds": 1.5,
                                "started": "2026-01-01T00:00:00+00:00", "cases": []}))
    return path


def test_missing_shards_are_ranges_whatever_n_is(tmp_path):
    """One report of --shard 1/4000000 took 856 MB and printed 67 MB, a line per missing shard: the missing
    shards are now ranges, as many as the reports given plus one."""
    n = 10**6
    a, b = _report(tmp_path / "a.json", f"3/{n}"), _report(tmp_path / "b.json", f"7/{n}")
    merged = tmp_path / "m.json"
    result = invoke("report", "merge", a, b, "--json", merged)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [f"spec2onnx: error: shards 1-2/{n}, 4-6/{n}, 8-{n}/{n} missing: the merged "
                                          f"report has 2 of 1,000,000 shards"]
    assert json.loads(merged.read_text())["missing_shards"] == [f"1-2/{n}", f"4-6/{n}", f"8-{n}/{n}"]
    assert len(result.output) < 1000 and merged.stat().st_size < 2000
    refused = invoke("validate", tmp_path, "--shard", "1/4000000")  # validate's --shard has the same bound
    assert refused.exit_code == 2 and "--shard 1/4000000: N is above 1,000,000" in refused.stderr


@settings(deadline=None)
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(1, n)))))
def test_missing_ranges_are_exactly_the_missing_shards(drawn):
    total, present = drawn
    ranges = missing_ranges(present, total)
    covered = [i for first, last in ranges for i in range(first, last + 1)]
    assert covered == sorted(set(range(1, total + 1)) - present)  # every missing shard once, in order
    assert all(first <= last for first, last in ranges) and len(ranges) <= len(present) + 1
    assert all(later[0] > earlier[1] + 1 for earlier, later in zip(ranges, ranges[1:]))  # maximal: no two touch
