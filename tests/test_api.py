"""The library without the CLI: the simplest entry point validates specs in this process."""

from __future__ import annotations

from converter.api import validate_paths

from .conftest import SPECS


def test_validate_paths_runs_every_case_of_the_given_specs():
    results = validate_paths([SPECS / "trt_scale/seed-scale-4d.yaml"])
    assert [(r.case, r.outcome) for r in results] == [("doc-example", "PASS"), ("random", "PASS")]
