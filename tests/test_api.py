"""The library without the CLI: the simplest entry point validates specs in this process."""

from __future__ import annotations

import pytest

import converter

from .conftest import SPECS


def test_validate_runs_every_case_of_the_given_specs():
    results = converter.validate([SPECS / "trt_scale/seed-scale-4d.yaml"]).results
    assert [(r.case, r.outcome) for r in results] == [("doc-example", "PASS"), ("random", "PASS")]


def _dup_specs(tmp_path, second_text=None):
    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text()
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(second_text or text.replace("- name: random", "- name: only-in-b"))
    return [tmp_path / "a.yaml", tmp_path / "b.yaml"]


@pytest.mark.parametrize("jobs", [0, 2])
def test_a_second_spec_with_a_taken_name_is_one_load_error_and_none_of_its_cases_run(tmp_path, jobs):
    from converter.api import make_options, run_validation

    files = _dup_specs(tmp_path)
    results = list(run_validation(files, make_options(), jobs=jobs))
    assert sorted((r.path, r.case, r.outcome) for r in results) == [
        (str(files[0]), "doc-example", "PASS"), (str(files[0]), "random", "PASS"), (str(files[1]), "<load>", "ERROR")]
    (error,) = [r for r in results if r.outcome == "ERROR"]
    assert error.bad_input
    assert error.problems == [f"{files[1]}: name: 'trt-scale-seed-4d' is also the name of {files[0]}; spec names must be unique"]


def test_a_taken_name_the_cheap_read_cannot_see_is_still_reported_once(tmp_path):
    from converter.api import make_options, run_validation
    from converter.pipeline.selection import spec_name_of

    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text()
    hidden = text.replace("name: trt-scale-seed-4d\n", "label: &n trt-scale-seed-4d\n", 1).replace("source:", "name: *n\nsource:", 1)
    files = _dup_specs(tmp_path, hidden.replace("label:", "description:"))
    assert spec_name_of(files[1]) is None
    results = list(run_validation(files, make_options(), jobs=0))
    assert sorted((r.path, r.case) for r in results) == [
        (str(files[0]), "doc-example"), (str(files[0]), "random"), (str(files[1]), "<load>")]


def test_a_duplicate_appears_once_in_the_json_and_junit_reports(tmp_path):
    import json
    import xml.etree.ElementTree as ET

    from click.testing import CliRunner

    from cli import main

    files = _dup_specs(tmp_path)
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    result = CliRunner().invoke(main, ["validate", "-j", "0", *map(str, files), "--json", str(report), "--junit", str(junit)])
    assert result.exit_code == 2, result.output
    assert sorted(c["id"] for c in json.loads(report.read_text())["cases"]) == sorted([
        "trt-scale-seed-4d/doc-example", "trt-scale-seed-4d/random", f"{files[1]} (not loaded)"])
    assert len(list(ET.parse(junit).getroot().iter("testcase"))) == 3
    assert "only-in-b" not in result.output and result.output.count("is also the name of") == 1
