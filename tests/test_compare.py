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


# --- chunked comparison: the same verdict and statistics whatever the chunk size ------------------------

import tracemalloc

import ml_dtypes

from converter import compare as compare_module


def _mixed(dtype, size=1000, seed=0):
    rng = np.random.default_rng(seed)
    expected = rng.uniform(-4, 4, size).astype(dtype)
    actual = expected.copy()
    for where, value in ((rng.integers(0, size, 40), None), ([3, 500], np.nan), ([7], np.inf), ([600], -np.inf)):
        actual[where] = (expected[where].astype(np.float32) * 1.01 + 0.02).astype(dtype) if value is None else value
    expected[[500, 601]] = np.nan  # one NaN pair (matches), one NaN against a number
    expected[[7, 602]] = [np.inf, 0]
    return actual.reshape(10, 100), expected.reshape(10, 100)


def _ints(dtype, size=1000, seed=1):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    expected = rng.integers(info.min, info.max, size, endpoint=True, dtype=dtype)
    actual = expected.copy()
    where = rng.integers(0, size, 30)
    actual[where] = rng.integers(info.min, info.max, 30, endpoint=True, dtype=dtype)
    actual[0], expected[0] = info.max, info.min  # the largest difference the type has
    return actual, expected


CASES = [
    ("float32", lambda: _mixed(np.float32), Tolerance(1e-6, 1e-5)),
    ("float32-ulp", lambda: _mixed(np.float32), Tolerance(1e-6, 1e-5, ulp=3)),
    ("float16", lambda: _mixed(np.float16), Tolerance(1e-3, 1e-3)),
    ("bfloat16", lambda: _mixed(ml_dtypes.bfloat16), Tolerance(8e-3, 8e-3)),
    ("int8", lambda: _ints(np.int8), Tolerance(1, 0)),
    ("int64", lambda: _ints(np.int64), Tolerance(0, 0)),
    ("uint64", lambda: _ints(np.uint64), Tolerance(0, 0)),
]


@pytest.mark.parametrize("name,make,tol", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_chunks_give_the_statistics_of_one_pass(monkeypatch, name, make, tol, chunk):
    actual, expected = make()
    whole = compare(actual, expected, tol).to_dict()  # 1000 elements: one chunk
    monkeypatch.setattr(compare_module, "CHUNK_ELEMENTS", chunk)
    chunked = compare(actual, expected, tol).to_dict()
    assert chunked.pop("mean_abs") == pytest.approx(whole.pop("mean_abs"), rel=1e-12)
    assert repr(chunked) == repr(whole)  # repr: NaN statistics compare equal


def test_64_bit_integer_differences_are_exact_before_rounding():
    big = np.array([2**63 - 1, 2**53 + 1], np.int64)
    m = compare(big, np.array([-2**63, 2**53], np.int64), Tolerance(0, 0))
    assert m.count == 2 and m.max_abs == float(2**64 - 1) and m.worst_index == (0,)
    assert compare(np.array([2**53 + 1], np.int64), np.array([2**53], np.int64), Tolerance(1, 0)) is None


def test_worst_element_is_the_first_of_equal_errors_across_chunks(monkeypatch):
    monkeypatch.setattr(compare_module, "CHUNK_ELEMENTS", 4)
    actual = np.zeros(12, np.float32)
    actual[[2, 6, 10]] = 5.0
    m = compare(actual, np.zeros(12, np.float32), Tolerance(0, 0))
    assert m.worst_index == (2,) and [i for i, _, _ in m.first] == [(2,), (6,), (10,)]
    assert m.min_rtol is None  # expected 0 everywhere: no rtol would do


def test_comparing_a_big_output_needs_a_few_chunks_of_memory():
    expected = np.random.default_rng(0).uniform(size=(4, 1024, 1024)).astype(np.float32)  # 16 MiB
    actual = expected.copy()
    actual[1::2] = np.nextafter(actual[1::2], np.float32(2))  # half the elements differ by one ulp: all pass
    actual[3, 5, 7] = 9.0
    tracemalloc.start()
    try:
        m = compare(actual, expected, Tolerance(1e-6, 1e-5))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert m.count == 1 and m.worst_index == (3, 5, 7)
    assert peak < 8 * 2**20  # a few chunks of float64, whatever the size (the whole-array version took 14x the output)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_the_quick_chunk_check_never_passes_what_the_full_check_fails(dtype):
    """compare's three-pass shortcut (largest difference against the smallest limit) is only an early yes:
    wherever it says within, the element-by-element float64 check says so too. Tolerances are put right at
    the largest difference, where a rounding in the wrong direction would show."""
    np_type = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    rng = np.random.default_rng(7)
    buffers = compare_module._Buffers(512)
    quick_yes = 0
    for trial in range(400):
        span = 6 if dtype == "float16" else 20  # float16: no overflow, few subnormals
        scale = 2.0 ** rng.integers(-span, span)
        e = (rng.standard_normal(512) * scale).astype(np_type)
        e[e == 0] = 1  # min|e| > 0: rtol below is finite
        a = (e.astype(np.float64) * (1 + rng.standard_normal(512) * 2.0**-rng.integers(5, 12))).astype(np_type)
        diff = np.abs(a.astype(np.float64) - e.astype(np.float64)).max()
        nudge = 1 + float(rng.choice([-2.0**-20, -2.0**-40, 0.0, 2.0**-40, 2.0**-20]))
        if trial % 2:
            atol, rtol = diff * nudge, 0.0
        else:
            atol, rtol = 0.0, float(diff / np.abs(e.astype(np.float64)).min() * nudge)
        quick = buffers.quick_within(a, e, atol, rtol)
        quick_yes += quick
        assert not quick or buffers.within(a, e, atol, rtol), (trial, atol, rtol)
    assert quick_yes > 0  # the shortcut is taken at all


def test_the_quick_chunk_check_leaves_nan_inf_and_overflow_to_the_full_check():
    buffers = compare_module._Buffers(4)
    f32 = np.float32
    assert not buffers.quick_within(np.array([np.nan, 1], f32), np.array([np.nan, 1], f32), 1.0, 0.0)
    assert not buffers.quick_within(np.array([np.inf, 1], f32), np.array([np.inf, 1], f32), 1.0, 0.0)
    big = np.finfo(f32).max
    assert not buffers.quick_within(np.array([big], f32), np.array([-big], f32), 1e39, 0.0)  # float32 overflow
    assert buffers.quick_within(np.array([1.0, -0.0], f32), np.array([1.0, 0.0], f32), 0.0, 0.0)  # equal values
    # exactly at the limit: the full check's yes, the shortcut's "look closer"
    a, e = np.array([1 + 2.0**-23], f32), np.array([1.0], f32)
    assert not buffers.quick_within(a, e, 2.0**-23, 0.0) and buffers.within(a, e, 2.0**-23, 0.0)
    assert compare(a, e, Tolerance(atol=2.0**-23, rtol=0.0)) is None


def test_the_quick_chunk_check_takes_a_long_double_difference_in_float64():
    """Below float64 the shortcut subtracts in float32, which is exact only for float32 and narrower
    inputs: two long doubles 2^-40 apart both cast to 1.0f, and a zero difference there is not the
    full check's 2^-40 (in float64)."""
    buffers = compare_module._Buffers(1)
    a, e = np.array([1 + np.longdouble(2) ** -40]), np.array([np.longdouble(1)])
    assert not buffers.within(a, e, 0.0, 0.0)
    assert not buffers.quick_within(a, e, 0.0, 0.0)
    assert not buffers.quick_within(a, e, 2.0**-41, 0.0)
    assert buffers.quick_within(a, e, 2.0**-40, 0.0) and buffers.within(a, e, 2.0**-40, 0.0)


def test_float64_arrays_compare_with_ulp_distances_like_the_narrower_floats():
    """compare() is public: float64 arrays (no spec dtype, but numpy's default) get the same statistics."""
    one_up = np.nextafter(1.0, 2.0)
    a, e = np.array([1.0, 2.0, -0.0]), np.array([one_up, 2.0, 0.0])
    mismatch = compare(a, e, Tolerance(atol=0.0, rtol=0.0))
    assert (mismatch.count, mismatch.max_ulp, mismatch.worst_index) == (1, 1, (0,))
    assert compare(a, e, Tolerance(atol=0.0, rtol=0.0, ulp=1)) is None
    big = np.finfo(np.float64).max
    far = compare(np.array([big]), np.array([-big]), Tolerance(atol=0.0, rtol=0.0))
    assert far.count == 1 and far.max_ulp == np.iinfo(np.int64).max - 1  # about 2^64 units: capped below the NaN mark
    assert compare_module.ulp_distance(np.array([np.nan, 1.0]), np.array([np.nan, np.nan])).tolist() == [
        0, np.iinfo(np.int64).max]


# A NaN or an infinity against a finite value fails whatever the tolerance (issue 31): an infinite atol or rtol (spec
# files allow inf) made |inf - 1| <= inf true, and an ulp budget let +inf through against the largest float (1 ulp).

F32_MAX = float(np.finfo(np.float32).max)


@pytest.mark.parametrize("got, want, tol", [
    (np.inf, F32_MAX, Tolerance(0, 0, 1)),  # +inf is the next float32 after the largest: 1 ulp away
    (-np.inf, -F32_MAX, Tolerance(0, 0, 1)),
    (np.inf, 1.0, Tolerance(float("inf"), 0)),
    (np.nan, 1.0, Tolerance(float("inf"), 0)),
    (1.0, np.nan, Tolerance(float("inf"), 0)),  # the reference's NaN is to be matched, not waved through
    (np.inf, -np.inf, Tolerance(float("inf"), float("inf"))),
    (np.inf, 1.0, Tolerance(0, float("inf"))),
])
def test_a_non_finite_value_never_matches_another_value_whatever_the_tolerance(got, want, tol):
    m = compare(np.array([got, 2], np.float32), np.array([want, 2], np.float32), tol)
    assert m is not None and m.count == 1 and m.worst_index == (0,)
    assert m.max_ulp is None  # no distance is claimed between a non-finite value and a number


def test_an_infinite_tolerance_still_passes_finite_differences_and_equal_non_finite_values():
    inf = float("inf")
    assert compare(np.array([1e30, np.nan, np.inf, -np.inf], np.float32),
                   np.array([-1e30, np.nan, np.inf, -np.inf], np.float32), Tolerance(inf, inf)) is None


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SPECIAL = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, 1.0, -2.5, F32_MAX, -F32_MAX])


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(_SPECIAL, _SPECIAL), min_size=1, max_size=40),
       atol=st.sampled_from([0.0, 1.0, float("inf")]), rtol=st.sampled_from([0.0, 1e-5, float("inf")]),
       ulp=st.sampled_from([None, 0, 1, 2**40]), dtype=st.sampled_from([np.float16, np.float32, np.float64]))
def test_property_non_finite_elements_match_only_themselves(pairs, atol, rtol, ulp, dtype):
    with np.errstate(over="ignore"):  # F32_MAX is inf in float16: one more infinity
        got = np.array([p[0] for p in pairs], np.float64).astype(dtype)
        want = np.array([p[1] for p in pairs], np.float64).astype(dtype)
    m = compare(got, want, Tolerance(atol, rtol, ulp))
    g, w = got.astype(np.float64), want.astype(np.float64)
    # independent of compare's arithmetic: which elements a non-finite value makes differ
    differ = [i for i in range(len(pairs)) if not (np.isfinite(g[i]) and np.isfinite(w[i]))
              and not (g[i] == w[i] or (np.isnan(g[i]) and np.isnan(w[i])))]
    finite_pairs_equal = all(g[i] == w[i] for i in range(len(pairs)) if np.isfinite(g[i]) and np.isfinite(w[i]))
    if finite_pairs_equal:  # then only the non-finite elements differ, whatever the tolerance
        assert (m.count if m else 0) == len(differ)
        assert ({list(index)[0] for index, _, _ in m.first} if m else set()) == set(differ[:5])
    else:  # finite pairs may differ within the tolerance or not; the non-finite ones differ all the same
        assert not differ or (m is not None and m.count >= len(differ))


# nonfinite: the counts run MODEL fails an output on (issue 31), against numpy's own predicates, across chunk boundaries


@settings(max_examples=100, deadline=None)
@given(size=st.integers(0, 70), chunk=st.sampled_from([1, 4, 16, 1 << 16]), seed=st.integers(0, 2**32 - 1),
       dtype=st.sampled_from([np.float16, np.float32, np.float64, ml_dtypes.bfloat16]))
def test_property_nonfinite_counts_nan_and_infinities_and_finds_the_first(size, chunk, seed, dtype):
    rng = np.random.default_rng(seed)
    values = rng.choice(np.array([0.5, -3.0, np.nan, np.inf, -np.inf]), size=size, p=[0.4, 0.3, 0.1, 0.1, 0.1])
    array = values.astype(dtype).reshape((size,) if size % 2 else (size // 2, 2) if size else (0, 3))
    old, compare_module.CHUNK_ELEMENTS = compare_module.CHUNK_ELEMENTS, chunk
    try:
        found = compare_module.nonfinite(array)
    finally:
        compare_module.CHUNK_ELEMENTS = old
    wide = values  # (every value drawn is exact in each of the types)
    bad = np.flatnonzero(~np.isfinite(wide))
    if not bad.size:
        assert found is None
        return
    assert (found.nan, found.posinf, found.neginf, found.total) == (
        int(np.isnan(wide).sum()), int(np.isposinf(wide).sum()), int(np.isneginf(wide).sum()), size)
    assert found.first_index == tuple(int(i) for i in np.unravel_index(bad[0], array.shape))


def test_nonfinite_leaves_integers_alone_and_counts_a_complex_element_once():
    assert compare_module.nonfinite(np.array([1, 2], np.int64)) is None
    assert compare_module.nonfinite(np.array([1], ml_dtypes.int4)) is None
    found = compare_module.nonfinite(np.array([1 + 1j, complex(np.inf, np.nan), complex(3, -np.inf)]))
    assert (found.nan, found.posinf, found.neginf, found.first_index) == (1, 0, 1, (1,))


# The shortcut for equal arrays (compare_stats without statistics, as validate compares): the same verdict as the
# full pass, which compare_stats with statistics takes element by element


_ANY = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 65504.0, 3e38, 1e-40])


@settings(max_examples=200, deadline=None)
@given(values=st.lists(_ANY, max_size=30), changed=st.lists(st.tuples(st.integers(0, 29), _ANY), max_size=3),
       dtype=st.sampled_from([np.float16, np.float32, np.float64, ml_dtypes.bfloat16, np.int32, np.uint8, np.bool_]),
       tol=st.sampled_from([Tolerance(0, 0), Tolerance(1e-5, 1e-5), Tolerance(0, 0, 1)]))
def test_property_the_shortcut_for_equal_arrays_gives_the_full_passs_verdict(values, changed, dtype, tol):
    from converter.compare import compare_stats

    with np.errstate(over="ignore", invalid="ignore"):
        want = np.array(values, np.float64)
        got = want.copy()
        for i, v in changed:
            if i < got.size:
                got[i] = v
        if np.dtype(dtype).kind in "iub":  # (no NaN or infinity there: their integer images)
            want, got = np.nan_to_num(want), np.nan_to_num(got)
        want, got = want.astype(dtype), got.astype(dtype)
    quick, _ = compare_stats(got, want, tol, statistics=False)
    full, _ = compare_stats(got, want, tol, statistics=True)
    assert (quick is None) == (full is None)
    assert quick is None or (quick.count, quick.worst_index) == (full.count, full.worst_index)
    if not changed and not np.isnan(want.astype(np.float64)).any():  # the shortcut's own case, by hand: a pass
        assert quick is None


# --- the "would pass with" hint passes when followed -------------------------------------------------------------

_FINITE = st.floats(-1e6, 1e6, allow_nan=False, width=32)


def _hint(text: str, name: str) -> float | None:
    import re

    found = re.search(rf"would pass with .*?\b{name} >= ([0-9.e+-]+)", text)
    return float(found.group(1)) if found else None


@given(got=st.lists(_FINITE, min_size=1, max_size=20), noise=st.lists(_FINITE, min_size=1, max_size=20),
       atol=st.sampled_from([0.0, 1e-6, 1e-3, 0.5]), rtol=st.sampled_from([0.0, 1e-5, 1e-3, 0.1]),
       dtype=st.sampled_from(["float16", "float32", "float64"]))
@settings(max_examples=300, deadline=None)
def test_property_the_would_pass_hint_passes_when_followed(got, noise, atol, rtol, dtype):
    """`would pass with atol >= X or rtol >= Y`: the run passes with X (rtol unchanged) and with Y (atol unchanged), and
    X and Y are within the rounding of three digits of the bounds (a hundredth). It said rtol >= 0.333 where 0.33333
    was needed (.3g rounds to nearest), and the run still failed with 0.333."""
    n = min(len(got), len(noise))
    with np.errstate(over="ignore"):  # (float16 overflows to inf: such a draw is left out below)
        want = np.array(got[:n], np.float64).astype(dtype)
        actual = (np.array(got[:n], np.float64) + np.array(noise[:n], np.float64) * 1e-3).astype(dtype)
    if not (np.isfinite(want).all() and np.isfinite(actual).all()):
        return
    mismatch = compare(actual, want, Tolerance(atol, rtol))
    if mismatch is None:
        return
    text = mismatch.describe()
    shown_atol, shown_rtol = _hint(text, "atol"), _hint(text, "rtol")
    assert shown_atol is not None, text  # (finite values: some atol always passes)
    assert compare(actual, want, Tolerance(shown_atol, rtol)) is None, text
    assert mismatch.min_atol <= shown_atol <= mismatch.min_atol * 1.01, text
    if shown_rtol is not None:
        assert compare(actual, want, Tolerance(atol, shown_rtol)) is None, text
        assert mismatch.min_rtol <= shown_rtol <= mismatch.min_rtol * 1.01, text


def test_the_hint_rounds_up_where_three_digits_would_fail():
    # got 2, want 3: |err| 1, rtol needed 1/3 at atol 0 (the newcomer's case); 0.333 fails, 0.334 passes
    text = compare(np.array([2.0], np.float32), np.array([3.0], np.float32), Tolerance(0.0, 0.0)).describe()
    assert "would pass with atol >= 1 or rtol >= 0.334" in text, text
    assert compare(np.array([2.0], np.float32), np.array([3.0], np.float32), Tolerance(0.0, 0.333)) is not None


def test_an_integer_outputs_hint_names_only_an_atol_and_where_it_comes_from():
    """rtol never applies to integers (resolve_tolerance) and --atol applies to float outputs only, so the hint
    "would pass with atol >= 12 or rtol >= 1.01" could not be followed as written. It names the atol alone and where
    an integer output takes one; a spec's atol of that value passes."""
    got, want = np.array([3, 5, 100], np.int64), np.array([3, 5, 112], np.int64)
    tol = resolve_tolerance(DTYPES["int64"])
    text = compare(got, want, tol).describe()
    assert text.endswith("; would pass with atol >= 12 (an integer output's atol comes from a spec's tolerance; --atol "
                         "is for float outputs)"), text
    assert compare(got, want, resolve_tolerance(DTYPES["int64"], Tolerance(atol=12))) is None
    floats = compare(got.astype(np.float32), want.astype(np.float32), resolve_tolerance(DTYPES["float32"])).describe()
    assert "rtol >=" in floats and "integer output" not in floats


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64])
def test_an_integer_mismatch_names_no_rtol_that_would_pass(dtype):
    """No rtol applies to an integer output (resolve_tolerance: exact unless a spec gives an atol), so neither the
    mismatch nor the error statistics may report one that "would pass" (the reports printed min_rtol 0.125 for
    an expected 8 off by one, a tolerance that could never be used)."""
    from converter.compare import compare_stats

    actual, expected = np.array([9, 2], dtype), np.array([8, 2], dtype)
    tol = resolve_tolerance(DTYPES[np.dtype(dtype).name], Tolerance(0.0, 0.125))
    assert (tol.atol, tol.rtol) == (0.0, 0.0)
    mismatch, stats = compare_stats(actual, expected, tol, "elemwise")
    assert mismatch.count == 1 and mismatch.min_atol == 1.0 and mismatch.min_rtol is None
    assert mismatch.to_dict()["min_rtol"] is None
    assert stats.max_rel == 0.125 and stats.min_atol == 1.0 and stats.min_rtol is None
