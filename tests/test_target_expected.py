"""validate --target tensorrt / tensorrt-dla compares a spec's expected values also where the target's arithmetic
differs from the spec's (FP16 weights, DLA's rounding of x * scale): at the tolerance widened by what that
arithmetic may add (reference.expected_widening, derived in docs/deployment.md), or, where no such bound follows,
against the spec's own arithmetic. Expected values are computed by hand in exact decimal arithmetic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.compare import Tolerance, compare
from converter.reference import expected_widening, run_network
from converter.pipeline.spec import load_spec, parse_spec
from converter.targets import resolve_target
from converter.pipeline.stages import Options, validate_spec
from converter.results import FAIL, PASS

X = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
# y = 1.1 x - 0.7, exact: 0.4, 1.5, ..., 10.3
EXACT = [0.4, 1.5, 2.6, 3.7, 4.8, 5.9, 7.0, 8.1, 9.2, 10.3]


def _spec(expected, power=None, tolerance=(0, 0), scale=1.1, shift=-0.7, x=X):
    layer = {"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM", "scale": [scale], "shift": [shift]}
    if power is not None:
        layer["power"] = [power]
    net = {"inputs": {"x": {"dtype": "float16", "shape": [1, 1, 1, len(x)]}}, "layers": [layer], "outputs": ["y"]}
    case = {"name": "c", "inputs": {"x": [[[x]]]}, "expected": {"y": [[[expected]]]},
            "tolerance": {"atol": tolerance[0], "rtol": tolerance[1]}}
    return parse_spec({"name": "s", "network": net, "cases": [case]}, Path("s.yaml"))


def _results(spec, target):
    return list(validate_spec(spec, Options(target=resolve_target(target))))


def test_the_widening_is_the_derived_bound():
    # by hand: fl16(1.1) = 1126 / 1024 (1.1 * 1024 = 1126.4); fl16(0.7) = 1434 / 2048 (0.7 * 2048 = 1433.6); the spec's
    # coefficients are float32 values
    s32, b32 = float(np.float32(1.1)), float(np.float32(-0.7))
    eps, e_b = (s32 - 1126 / 1024) / s32, abs(-1434 / 2048 - b32)
    u, sigma = 2.0**-11, 2.0**-25
    spec = _spec(EXACT)
    atol, rtol = expected_widening(spec.network, "y", "tensorrt")
    assert rtol == pytest.approx(eps + 2.0**-22 + 2 * u, rel=1e-12)
    assert atol == pytest.approx((eps + 2.0**-23) * abs(b32) + e_b + 2 * sigma, rel=1e-12)
    # DLA: also x * fl16(1.1) rounded to FP16 before the shift: u more relative, u * |b| + sigma more absolute
    atol_dla, rtol_dla = expected_widening(spec.network, "y", "tensorrt-dla")
    assert rtol_dla == pytest.approx(rtol + u, rel=1e-12) and atol_dla == pytest.approx(atol + u * abs(b32) + sigma, rel=1e-12)
    assert expected_widening(spec.network, "y", None) == (0.0, 0.0)


@pytest.mark.parametrize("target", ["tensorrt", "tensorrt-dla"])
def test_expected_values_in_exact_arithmetic_pass_at_the_widened_tolerance_and_a_wrong_one_fails(target):
    spec = _spec(EXACT)  # tolerance 0: only what the target's arithmetic adds
    x = np.array(X, np.float16).reshape(1, 1, 1, -1)
    on_target = run_network(spec.network, {"x": x}, arithmetic=target)["y"]
    assert compare(on_target, np.array(EXACT, np.float16).reshape(1, 1, 1, -1), Tolerance(0, 0))  # they differ
    assert [r.outcome for r in _results(spec, target)] == [PASS]
    wrong = EXACT[:-1] + [10.35]  # 0.05 off: more than the widened tolerance allows at 10.35 (about 0.014 or 0.019)
    (result,) = _results(_spec(wrong), target)
    assert result.outcome == FAIL
    assert any("reference vs expected" in p for p in result.problems)
    assert any(p.startswith("output 'y': onnxruntime vs expected") for p in result.problems)
    assert not any("vs reference" in p for p in result.problems)  # the run still matches the target's arithmetic


def test_a_custom_power_has_no_such_bound_and_expected_values_meet_the_spec_arithmetic():
    # y = (0.1 x) ^ 2 for x = 1, 2, 3, exact: 0.01, 0.04, 0.09 (default float16 tolerance)
    spec = _spec([0.01, 0.04, 0.09], power=2, tolerance=(1e-3, 1e-3), scale=0.1, shift=0, x=[1, 2, 3])
    assert expected_widening(spec.network, "y", "tensorrt") is None
    assert [r.outcome for r in _results(spec, "tensorrt")] == [PASS]
    (result,) = _results(_spec([0.01, 0.04, 0.1], power=2, tolerance=(1e-3, 1e-3), scale=0.1, shift=0, x=[1, 2, 3]), "tensorrt")
    assert result.outcome == FAIL and any("reference in the spec's arithmetic vs expected" in p for p in result.problems)


def test_an_output_the_difference_does_not_reach_is_compared_as_before():
    spec = load_spec(Path(__file__).parents[1] / "specs" / "trt_scale" / "low-precision-rounding.yaml")
    assert expected_widening(spec.network, "b_out", "tensorrt") == (0.0, 0.0)  # bfloat16: not a float16 Scale
    atol, rtol = expected_widening(spec.network, "h_out", "tensorrt")  # 1 + 2^-11 -> FP16 1: eps = 2^-11 / (1 + 2^-11)
    assert rtol == pytest.approx(2.0**-11 / (1 + 2.0**-11) + 2.0**-22 + 2.0**-10, rel=1e-12) and atol == 2.0**-24
    assert [r.outcome for r in _results(spec, "tensorrt")] == [PASS]
