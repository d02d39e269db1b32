from __future__ import annotations

import numpy as np
import pytest

from converter.compare import Tolerance, compare, resolve_tolerance
from converter.dtypes import DTYPES
from converter.errors import SpecError


def test_equal_arrays_match():
    a = np.array([1.0, 2.0], np.float32)
    assert compare(a, a.copy(), Tolerance(0, 0)) is None


def test_nan_matches_nan_and_infinities_match_only_themselves():
    a = np.array([np.nan, np.inf, -np.inf], np.float32)
    assert compare(a, a.copy(), Tolerance(0, 0)) is None
    m = compare(np.array([np.inf], np.float32), np.array([-np.inf], np.float32), Tolerance(1, 1))
    assert m is not None and m.count == 1
    m = compare(np.array([1.0], np.float32), np.array([np.nan], np.float32), Tolerance(1, 1))
    assert m is not None and m.count == 1


def test_mismatch_names_worst_element_and_both_values():
    actual = np.array([[1.0, 2.0], [3.0, 10.0]], np.float32)
    expected = np.array([[1.0, 2.5], [3.0, 4.0]], np.float32)
    m = compare(actual, expected, Tolerance(0.1, 0))
    assert (m.count, m.total, m.worst_index) == (2, 4, (1, 1))
    assert (m.actual_value, m.expected_value) == (10.0, 4.0)
    assert m.max_abs == 6.0 and m.max_rel == pytest.approx(1.5)
    assert "worst at [1, 1]: got 10.0, want 4.0" in m.describe()


def test_tolerance_formula_is_atol_plus_rtol_times_expected():
    e = np.array([100.0], np.float32)
    assert compare(np.array([100.5], np.float32), e, Tolerance(0.0, 0.005)) is None
    assert compare(np.array([100.6], np.float32), e, Tolerance(0.0, 0.005)) is not None


def test_integers_are_exact_by_default_and_shapes_must_agree():
    assert resolve_tolerance(DTYPES["int32"]) == Tolerance(0.0, 0.0)
    assert resolve_tolerance(DTYPES["int8"], Tolerance(atol=1)) == Tolerance(1.0, 0.0)
    assert compare(np.array([1], np.int32), np.array([2], np.int32), Tolerance(0, 0)).count == 1
    assert "shape" in compare(np.zeros(2, np.int32), np.zeros(3, np.int32), Tolerance(0, 0)).describe()


def test_override_order_case_then_spec_then_default():
    f32 = DTYPES["float32"]
    assert resolve_tolerance(f32) == Tolerance(1e-6, 1e-5)
    assert resolve_tolerance(f32, Tolerance(atol=1.0), Tolerance(atol=2.0, rtol=3.0)) == Tolerance(1.0, 3.0)


def test_tolerance_parse_rejects_unknown_keys_and_negatives():
    assert Tolerance.parse({"atol": "1e-5"}) == Tolerance(1e-5, None)
    with pytest.raises(SpecError, match="unknown key 'atoll'"):
        Tolerance.parse({"atoll": 1})
    with pytest.raises(SpecError, match="non-negative"):
        Tolerance.parse({"rtol": -1})


def test_nan_against_a_number_has_no_ulp_distance():
    m = compare(np.array([1.0, 5.0], np.float32), np.array([np.nan, 4.0], np.float32), Tolerance(0, 0))
    assert m.count == 2 and m.max_ulp == 2**21  # 5 vs 4 in float32; the NaN pair has no distance
    assert compare(np.array([1.0], np.float32), np.array([np.nan], np.float32), Tolerance(0, 0)).max_ulp is None
