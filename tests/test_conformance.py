"""Every case of every spec in specs/, on onnxruntime's CPU EP, at the default and with optimizations off.

Each case is compared three ways (onnxruntime vs the numpy reference, and both
vs the spec's expected values); a failure message names the output, the worst
element and both values.
"""

from __future__ import annotations

import functools

import pytest

from converter.pipeline.selection import spec_files as find_spec_files
from converter.pipeline.spec import load_spec
from converter.runners import RunConfig
from converter.pipeline.stages import Options, validate_spec

from .conftest import SPECS

OPT_LEVELS = ("all", "disabled")


def _collect():
    params = []
    for path in find_spec_files([SPECS]):
        spec = load_spec(path)
        for case in spec.cases:
            params.append(pytest.param(path, case.name, id=f"{spec.name}/{case.name}"))
    return params


@functools.lru_cache(maxsize=None)
def _results(path):
    spec = load_spec(path)
    options = Options(configs=tuple(RunConfig(opt_level=level) for level in OPT_LEVELS))
    return {(r.case, r.opt_level): r for r in validate_spec(spec, options)}


@pytest.mark.parametrize("path, case", _collect())
def test_case(path, case):
    for level in OPT_LEVELS:
        result = _results(path)[(case, level)]
        assert result.outcome == "PASS", f"[ort-opt={level}] " + "\n".join(result.problems)


def test_suite_covers_every_seed_example():
    names = {load_spec(p).name for p in find_spec_files([SPECS])}
    assert {"trt-scale-seed-4d", "trt-scale-seed-5d", "trt-elementwise-seed-broadcast"} <= names
