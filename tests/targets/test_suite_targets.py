"""Every bundled spec, lowered for each target, passes that target's static check; portable models run.

A target still marked xfail below is one whose lowerings do not yet legalize every bundled spec
(the list of what fails: python -m tools.survey_targets). The marks are strict: when a target
starts passing, remove its mark.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from converter.api import make_options, run_validation
from converter.pipeline.selection import spec_files
from converter.pipeline.spec import load_spec
from converter.targets import TARGET_NAMES, resolve_target
from converter.targets.check import errors
from converter.targets.spec_rules import TargetRuleError
from converter.pipeline.stages import model_for_target
from converter.pipeline.stages import ERROR, FAIL

from ..conftest import SPECS

SPEC_FILES = spec_files([SPECS])
NOT_YET = {  # target -> why it is still xfail (see /work/wt/TARGET-FAILURES.md while issue 10 is open)
}
# (target, spec) -> why the target's check refuses that bundled spec. Strict: a spec that starts passing must go.
# A Resize of an input with a dynamic dimension computes its shapes from Shape(x) in the graph; onnxruntime places
# that computation on the CPU (GetCpuPreferredNodes, converter/targets/placement.py), which ort-cuda (a CUDA session
# without CPU fallback) and so portable refuse (docs/semantics.md, Resize, "Folding").
_CPU_SHAPES = "a dynamic Resize's shape computation, which onnxruntime places on the CPU (GetCpuPreferredNodes)"
REFUSED_BY_CHECK = {(t, s): _CPU_SHAPES for t in ("ort-cuda", "portable")
                    for s in ("trt-resize-dynamic-profiles", "trt-resize-dynamic-scales", "trt-resize-dynamic-shape-input")}


def _targets():
    return [pytest.param(t, marks=pytest.mark.xfail(reason=NOT_YET[t], strict=True)) if t in NOT_YET else t
            for t in TARGET_NAMES]


@pytest.mark.parametrize("target", _targets())
def test_every_bundled_spec_lowered_for_a_target_passes_its_static_check(target):
    failures, checked, refused = [], 0, set()
    for path in SPEC_FILES:
        spec = load_spec(path)
        try:
            _, _, _, problems = model_for_target(spec, resolve_target(target), spec.opset or 17)
        except TargetRuleError:
            continue  # a spec the target cannot take (spec_rules.py): refused before lowering, tested elsewhere
        checked += 1
        found = [f"{spec.name}: {p}" for p in errors(problems)]
        if (target, spec.name) in REFUSED_BY_CHECK:
            assert found and all("GetCpuPreferredNodes" in f for f in found), (spec.name, found[:3])
            refused.add(spec.name)
            continue
        failures += found
    assert failures == []
    assert refused == {s for t, s in REFUSED_BY_CHECK if t == target}
    assert checked >= 10, f"only {checked} bundled specs reach {target}'s check: the test would pass checking nothing"


FAMILIES = sorted(p.name for p in SPECS.iterdir() if p.is_dir() and not p.name.startswith("_"))
KNOWN_RUNTIME_FAILURES: dict[str, str] = {}  # "spec [runtime]" -> why; strict: a fixed one must be removed


@pytest.mark.parametrize("family", FAMILIES)
def test_portable_models_pass_on_onnxruntime_openvino_and_onnx_reference(family):
    pytest.importorskip("openvino")
    options = replace(make_options(runtimes=("onnxruntime", "openvino", "onnx-reference"), target="portable"),
                      static_check=False)  # the static check is the test above; here: what the runtimes compute
    results = list(run_validation(spec_files([SPECS / family]), options, jobs=0))
    assert {r.runtime for r in results} == {"onnxruntime", "openvino", "onnx-reference"}
    # XFAIL: a spec's declared known failure of that runtime; XPASS is allowed here because some are declared
    # for the default (ort-cpu) lowering, e.g. onnx-reference's missing DequantizeLinear before opset 19.
    # onnx-reference counts only where it has the op ("No implementation for operator ...").
    results = [r for r in results if not r.bad_input]  # specs portable cannot take (spec_rules.py): refused, not run
    bad = {f"{r.spec} [{r.runtime}]" for r in results if r.outcome in (FAIL, ERROR)
           and not (r.runtime == "onnx-reference" and any("No implementation for operator" in p for p in r.problems))}
    names = {r.spec for r in results}
    assert bad == {k for k in KNOWN_RUNTIME_FAILURES if k.split(" [")[0] in names}
