"""Tests for the numpy reference of TensorRT's IResizeLayer (converter/reference/resize_kernel.py).

Every expected value below comes from the seed page (TensorRT IResizeLayer, seed 003), from
TensorRT outputs printed in NVIDIA's trt-samples-for-hackathon-cn cookbook (ResizeLayer README,
input arange(60).reshape(1,3,4,5)), or from hand computation shown in the comments. None of
them was produced by running the code under test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from converter.reference.resize_kernel import resize  # noqa: E402

ROUNDINGS = ("FLOOR", "CEIL", "HALF_UP", "HALF_DOWN")
TRANSFORMS = ("ASYMMETRIC", "HALF_PIXEL", "ALIGN_CORNERS")


def row(values, dtype=np.float32):
    """A 1-D signal as a (1, L) tensor (CUBIC needs rank >= 2; only the last axis is resized)."""
    return np.asarray(values, dtype=dtype).reshape(1, -1)


# --------------------------------------------------------------------------------------------
# Seed examples
# --------------------------------------------------------------------------------------------

SEED_INPUT = np.array([[[[0, 1, 2], [3, 4, 5], [6, 7, 8]]]], dtype=np.float32)


def test_seed_linear_align_corners_3x3_to_5x5():
    # The seed prints the expected value with one nesting level missing; the output is [1, 1, 5, 5].
    expected = np.array([[[
        [0, 0.5, 1, 1.5, 2],
        [1.5, 2, 2.5, 3, 3.5],
        [3, 3.5, 4, 4.5, 5],
        [4.5, 5, 5.5, 6, 6.5],
        [6, 6.5, 7, 7.5, 8],
    ]]], dtype=np.float32)
    out = resize(SEED_INPUT, (1, 1, 5, 5), resize_mode="LINEAR", coordinate_transformation="ALIGN_CORNERS")
    assert out.shape == (1, 1, 5, 5) and out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-6)


def test_seed_nearest_align_corners_scales_2():
    # scales (1,1,2,2): b_i = floor(a_i * scale_i) -> [1,1,6,6]; default nearest_rounding FLOOR.
    # ALIGN_CORNERS: x_in = x_out * 2/5 = 0, .4, .8, 1.2, 1.6, 2.0 -> floor 0,0,0,1,1,2 (both axes).
    expected = np.array([[[
        [0.0, 0.0, 0.0, 1.0, 1.0, 2.0],
        [0.0, 0.0, 0.0, 1.0, 1.0, 2.0],
        [0.0, 0.0, 0.0, 1.0, 1.0, 2.0],
        [3.0, 3.0, 3.0, 4.0, 4.0, 5.0],
        [3.0, 3.0, 3.0, 4.0, 4.0, 5.0],
        [6.0, 6.0, 6.0, 7.0, 7.0, 8.0],
    ]]], dtype=np.float32)
    out_shape = tuple(int(np.floor(a * s)) for a, s in zip(SEED_INPUT.shape, (1, 1, 2, 2)))
    assert out_shape == (1, 1, 6, 6)
    out = resize(SEED_INPUT, out_shape, resize_mode="NEAREST", coordinate_transformation="ALIGN_CORNERS")
    np.testing.assert_array_equal(out, expected)


# --------------------------------------------------------------------------------------------
# TensorRT outputs from the cookbook: input arange(60).reshape(1,3,4,5) -> (1,3,6,10).
# Channel c equals channel 0 plus 20*c.
# --------------------------------------------------------------------------------------------

COOKBOOK_INPUT = np.arange(60, dtype=np.float32).reshape(1, 3, 4, 5)

COOKBOOK_NEAREST = {  # default coordinate_transformation (ASYMMETRIC), channel 0
    "FLOOR": [[0, 0, 1, 1, 2, 2, 3, 3, 4, 4], [0, 0, 1, 1, 2, 2, 3, 3, 4, 4], [5, 5, 6, 6, 7, 7, 8, 8, 9, 9],
              [10, 10, 11, 11, 12, 12, 13, 13, 14, 14], [10, 10, 11, 11, 12, 12, 13, 13, 14, 14],
              [15, 15, 16, 16, 17, 17, 18, 18, 19, 19]],
    "CEIL": [[0, 1, 1, 2, 2, 3, 3, 4, 4, 4], [5, 6, 6, 7, 7, 8, 8, 9, 9, 9], [10, 11, 11, 12, 12, 13, 13, 14, 14, 14],
             [10, 11, 11, 12, 12, 13, 13, 14, 14, 14], [15, 16, 16, 17, 17, 18, 18, 19, 19, 19],
             [15, 16, 16, 17, 17, 18, 18, 19, 19, 19]],
    "HALF_DOWN": [[0, 0, 1, 1, 2, 2, 3, 3, 4, 4], [5, 5, 6, 6, 7, 7, 8, 8, 9, 9], [5, 5, 6, 6, 7, 7, 8, 8, 9, 9],
                  [10, 10, 11, 11, 12, 12, 13, 13, 14, 14], [15, 15, 16, 16, 17, 17, 18, 18, 19, 19],
                  [15, 15, 16, 16, 17, 17, 18, 18, 19, 19]],
    # The cookbook's fourth table is captioned CEIL a second time; by hand it is HALF_UP:
    # rows y*4/6 = 0, .67, 1.33, 2, 2.67, 3.33 -> 0,1,1,2,3,3; cols x*5/10 = 0,.5,...,4.5 -> 0,1,1,2,...,4,5->4.
    "HALF_UP": [[0, 1, 1, 2, 2, 3, 3, 4, 4, 4], [5, 6, 6, 7, 7, 8, 8, 9, 9, 9], [5, 6, 6, 7, 7, 8, 8, 9, 9, 9],
                [10, 11, 11, 12, 12, 13, 13, 14, 14, 14], [15, 16, 16, 17, 17, 18, 18, 19, 19, 19],
                [15, 16, 16, 17, 17, 18, 18, 19, 19, 19]],
}

COOKBOOK_LINEAR = {  # channel 0, printed to 3 decimals
    "HALF_PIXEL": [
        [0., 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75, 4.],
        [2.5, 2.75, 3.25, 3.75, 4.25, 4.75, 5.25, 5.75, 6.25, 6.5],
        [5.833, 6.083, 6.583, 7.083, 7.583, 8.083, 8.583, 9.083, 9.583, 9.833],
        [9.167, 9.417, 9.917, 10.417, 10.917, 11.417, 11.917, 12.417, 12.917, 13.167],
        [12.5, 12.75, 13.25, 13.75, 14.25, 14.75, 15.25, 15.75, 16.25, 16.5],
        [15., 15.25, 15.75, 16.25, 16.75, 17.25, 17.75, 18.25, 18.75, 19.]],
    "ALIGN_CORNERS": [
        [0., 0.444, 0.889, 1.333, 1.778, 2.222, 2.667, 3.111, 3.556, 4.],
        [3., 3.444, 3.889, 4.333, 4.778, 5.222, 5.667, 6.111, 6.556, 7.],
        [6., 6.444, 6.889, 7.333, 7.778, 8.222, 8.667, 9.111, 9.556, 10.],
        [9., 9.444, 9.889, 10.333, 10.778, 11.222, 11.667, 12.111, 12.556, 13.],
        [12., 12.444, 12.889, 13.333, 13.778, 14.222, 14.667, 15.111, 15.556, 16.],
        [15., 15.444, 15.889, 16.333, 16.778, 17.222, 17.667, 18.111, 18.556, 19.]],
    "ASYMMETRIC": [
        [0., 0.5, 1., 1.5, 2., 2.5, 3., 3.5, 4., 4.],
        [3.333, 3.833, 4.333, 4.833, 5.333, 5.833, 6.333, 6.833, 7.333, 7.333],
        [6.667, 7.167, 7.667, 8.167, 8.667, 9.167, 9.667, 10.167, 10.667, 10.667],
        [10., 10.5, 11., 11.5, 12., 12.5, 13., 13.5, 14., 14.],
        [13.333, 13.833, 14.333, 14.833, 15.333, 15.833, 16.333, 16.833, 17.333, 17.333],
        [15., 15.5, 16., 16.5, 17., 17.5, 18., 18.5, 19., 19.]],
}


def _three_channels(ch0):
    ch0 = np.asarray(ch0, dtype=np.float32)
    return np.stack([ch0 + 20 * c for c in range(3)])[None]


@pytest.mark.parametrize("rounding", sorted(COOKBOOK_NEAREST))
def test_cookbook_nearest_rounding(rounding):
    out = resize(COOKBOOK_INPUT, (1, 3, 6, 10), resize_mode="NEAREST", nearest_rounding=rounding)
    np.testing.assert_array_equal(out, _three_channels(COOKBOOK_NEAREST[rounding]))


@pytest.mark.parametrize("transform", sorted(COOKBOOK_LINEAR))
def test_cookbook_linear(transform):
    out = resize(COOKBOOK_INPUT, (1, 3, 6, 10), resize_mode="LINEAR", coordinate_transformation=transform)
    np.testing.assert_allclose(out, _three_channels(COOKBOOK_LINEAR[transform]), rtol=0, atol=6e-4)


# --------------------------------------------------------------------------------------------
# NEAREST: rounding modes, ties, transformations
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rounding,expected", [
    # ASYMMETRIC 5 -> 4: x_in = 1.25 * i = 0, 1.25, 2.5, 3.75 (exact tie at 2.5)
    ("FLOOR", [10, 20, 30, 40]),      # 0, 1, 2, 3
    ("CEIL", [10, 30, 40, 50]),       # 0, 2, 3, 4
    ("HALF_UP", [10, 20, 40, 50]),    # 0, 1, 3, 4
    ("HALF_DOWN", [10, 20, 30, 50]),  # 0, 1, 2, 4
])
def test_nearest_roundings_asymmetric_downsample(rounding, expected):
    out = resize(row([10, 20, 30, 40, 50]), (1, 4), nearest_rounding=rounding)
    np.testing.assert_array_equal(out, row(expected))


@pytest.mark.parametrize("rounding,expected", [
    # ASYMMETRIC 4 -> 8: x_in = 0, .5, 1, 1.5, 2, 2.5, 3, 3.5 (ties everywhere); CEIL/HALF_UP 3.5 -> 4 -> clamp 3
    ("FLOOR", [10, 10, 20, 20, 30, 30, 40, 40]),
    ("HALF_DOWN", [10, 10, 20, 20, 30, 30, 40, 40]),
    ("CEIL", [10, 20, 20, 30, 30, 40, 40, 40]),
    ("HALF_UP", [10, 20, 20, 30, 30, 40, 40, 40]),
])
def test_nearest_roundings_ties_upsample(rounding, expected):
    out = resize(row([10, 20, 30, 40]), (1, 8), nearest_rounding=rounding)
    np.testing.assert_array_equal(out, row(expected))


@pytest.mark.parametrize("rounding,expected", [
    # HALF_PIXEL 4 -> 2: x_in = (i + .5) * 2 - .5 = 0.5, 2.5 (ties)
    ("FLOOR", [10, 30]), ("HALF_DOWN", [10, 30]), ("CEIL", [20, 40]), ("HALF_UP", [20, 40]),
])
def test_nearest_half_pixel_ties(rounding, expected):
    out = resize(row([10, 20, 30, 40]), (1, 2), coordinate_transformation="HALF_PIXEL", nearest_rounding=rounding)
    np.testing.assert_array_equal(out, row(expected))


def test_nearest_half_pixel_negative_coordinate_clamps():
    # HALF_PIXEL 2 -> 4: x_in = 0.5 i - 0.25 = -0.25, 0.25, 0.75, 1.25
    x = row([10, 20])
    np.testing.assert_array_equal(resize(x, (1, 4), coordinate_transformation="HALF_PIXEL", nearest_rounding="FLOOR"),
                                  row([10, 10, 10, 20]))  # -1->0, 0, 0, 1
    np.testing.assert_array_equal(resize(x, (1, 4), coordinate_transformation="HALF_PIXEL", nearest_rounding="CEIL"),
                                  row([10, 20, 20, 20]))  # 0, 1, 1, 2->1
    np.testing.assert_array_equal(resize(x, (1, 4), coordinate_transformation="HALF_PIXEL", nearest_rounding="HALF_UP"),
                                  row([10, 10, 20, 20]))  # 0, 0, 1, 1


def test_nearest_exact_integer_coordinates_use_length_ratio():
    # ASYMMETRIC 14 -> 8: x_in = 1.75 i = 0, 1.75, 3.5, 5.25, 7, 8.75, 10.5, 12.25 -> floor 0,1,3,5,7,8,10,12.
    # x_in = 7 exactly at i = 4 (a float32 scale 8/14 would give 6.9999995 -> 6).
    out = resize(row(np.arange(14)), (1, 8), nearest_rounding="FLOOR")
    np.testing.assert_array_equal(out, row([0, 1, 3, 5, 7, 8, 10, 12]))


@pytest.mark.parametrize("transform,expected", [
    ("ASYMMETRIC", [0, 1, 3, 4]),     # 6 -> 4: 1.5 i = 0, 1.5, 3, 4.5 -> floor
    ("HALF_PIXEL", [0, 1, 3, 4]),     # (i + .5) * 1.5 - .5 = .25, 1.75, 3.25, 4.75 -> floor
    ("ALIGN_CORNERS", [0, 1, 3, 5]),  # i * 5/3 = 0, 1.67, 3.33, 5 -> floor
])
def test_nearest_transformations_downsample(transform, expected):
    out = resize(row(np.arange(6)), (1, 4), coordinate_transformation=transform, nearest_rounding="FLOOR")
    np.testing.assert_array_equal(out, row(expected))


def test_nearest_three_innermost_axes():
    # (1,2,2,2) -> (1,4,1,3), ASYMMETRIC FLOOR: axis1 2->4: 0,0,1,1; axis2 2->1: 0; axis3 2->3: 0, 0, 1
    x = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)   # x[0,a,b,c] = 4a + 2b + c
    expected = np.array([[0, 0, 1], [0, 0, 1], [4, 4, 5], [4, 4, 5]], dtype=np.float32).reshape(1, 4, 1, 3)
    np.testing.assert_array_equal(resize(x, (1, 4, 1, 3)), expected)


def test_nearest_int8_copies_values():
    x = np.array([[-128, 127, 5]], dtype=np.int8)
    out = resize(x, (1, 6), nearest_rounding="FLOOR")  # 0, .5, 1, 1.5, 2, 2.5 -> 0,0,1,1,2,2
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, np.array([[-128, -128, 127, 127, 5, 5]], dtype=np.int8))


# --------------------------------------------------------------------------------------------
# Output length 1 and selector_for_single_pixel
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["NEAREST", "LINEAR", "CUBIC"])
@pytest.mark.parametrize("transform,formula_value", [
    ("ASYMMETRIC", 10.0),     # x_in = 0
    ("HALF_PIXEL", 30.0),     # x_in = 0.5 * 5 - 0.5 = 2 (exact; cubic weights at t=0 are 0,1,0,0)
    ("ALIGN_CORNERS", 10.0),  # 0/0: defined as x_in = 0
])
def test_single_pixel_selectors(mode, transform, formula_value):
    x = row([10, 20, 30, 40, 50])
    formula = resize(x, (1, 1), resize_mode=mode, coordinate_transformation=transform,
                     selector_for_single_pixel="FORMULA")
    upper = resize(x, (1, 1), resize_mode=mode, coordinate_transformation=transform,
                   selector_for_single_pixel="UPPER")
    np.testing.assert_allclose(formula, [[formula_value]], rtol=0, atol=1e-6)
    np.testing.assert_allclose(upper, [[10.0]], rtol=0, atol=1e-6)


def test_single_pixel_half_pixel_formula_tie_and_linear():
    x = row([10, 20, 30, 40])  # HALF_PIXEL, L_out = 1: x_in = 0.5 * 4 - 0.5 = 1.5
    kw = dict(coordinate_transformation="HALF_PIXEL")
    assert resize(x, (1, 1), nearest_rounding="HALF_UP", **kw)[0, 0] == 30
    assert resize(x, (1, 1), nearest_rounding="HALF_DOWN", **kw)[0, 0] == 20
    assert resize(x, (1, 1), resize_mode="LINEAR", **kw)[0, 0] == pytest.approx(25.0)
    assert resize(x, (1, 1), resize_mode="LINEAR", selector_for_single_pixel="UPPER", **kw)[0, 0] == 10


def test_single_pixel_2d():
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    # HALF_PIXEL FORMULA: y = 0.5*3 - 0.5 = 1, x = 0.5*4 - 0.5 = 1.5 -> (x[1,1] + x[1,2]) / 2 = 5.5
    out = resize(x, (1, 1, 1, 1), resize_mode="LINEAR", coordinate_transformation="HALF_PIXEL")
    np.testing.assert_allclose(out, [[[[5.5]]]], atol=1e-6)
    out = resize(x, (1, 1, 1, 1), resize_mode="LINEAR", coordinate_transformation="HALF_PIXEL",
                 selector_for_single_pixel="UPPER")
    np.testing.assert_array_equal(out, [[[[0.0]]]])


# --------------------------------------------------------------------------------------------
# LINEAR
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("transform,expected", [
    ("ASYMMETRIC", [0, 6, 12, 18, 20]),     # 3 -> 5: 0, .6, 1.2, 1.8, 2.4 -> clamp 2
    ("HALF_PIXEL", [0, 4, 10, 16, 20]),     # -.2 -> 0, .4, 1, 1.6, 2.2 -> 2
    ("ALIGN_CORNERS", [0, 5, 10, 15, 20]),  # 0, .5, 1, 1.5, 2
])
def test_linear_upsample_1d(transform, expected):
    out = resize(np.array([0, 10, 20], dtype=np.float32), (5,), resize_mode="LINEAR",
                 coordinate_transformation=transform)
    np.testing.assert_allclose(out, np.array(expected, dtype=np.float32), rtol=0, atol=1e-5)


@pytest.mark.parametrize("transform,expected", [
    ("HALF_PIXEL", [2.5, 17.5, 32.5, 47.5]),  # 6 -> 4: .25, 1.75, 3.25, 4.75 (no antialiasing)
    ("ASYMMETRIC", [0, 15, 30, 45]),          # 0, 1.5, 3, 4.5
    ("ALIGN_CORNERS", [0, 50 / 3, 100 / 3, 50]),  # 0, 5/3, 10/3, 5
])
def test_linear_downsample_1d(transform, expected):
    out = resize(row([0, 10, 20, 30, 40, 50]), (1, 4), resize_mode="LINEAR", coordinate_transformation=transform)
    np.testing.assert_allclose(out, row(expected), rtol=0, atol=1e-5)


def test_linear_float16_keeps_dtype():
    x = np.array([[0, 1, 2, 5]], dtype=np.float16)
    out = resize(x, (1, 8), resize_mode="LINEAR")  # ASYMMETRIC: 0,.5,1,1.5,2,2.5,3,3.5->3
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, np.array([[0, 0.5, 1, 1.5, 2, 3.5, 5, 5]], dtype=np.float16))


@pytest.mark.parametrize("values,expected", [
    # ASYMMETRIC 4 -> 8: 0, .5, 1, 1.5, 2, 2.5, 3, 3.5->3; halves rounded to even
    ([0, 1, 2, 3], [0, 0, 1, 2, 2, 2, 3, 3]),            # 0.5->0, 1.5->2, 2.5->2
    ([-1, -2, -3, -4], [-1, -2, -2, -2, -3, -4, -4, -4]),  # -1.5->-2, -2.5->-2, -3.5->-4
    ([2, 3, -3, -4], [2, 2, 3, 0, -3, -4, -4, -4]),       # 2.5->2, 0.0, -3.5->-4
])
def test_linear_int8_round_half_even(values, expected):
    out = resize(np.array([values], dtype=np.int8), (1, 8), resize_mode="LINEAR")
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, np.array([expected], dtype=np.int8))


# --------------------------------------------------------------------------------------------
# CUBIC (Keys kernel; hand-computed weights)
#   A = -0.75, t = 0.5 : (-0.09375, 0.59375, 0.59375, -0.09375)
#   A = -0.75, t = 0.25: (-0.10546875, 0.87890625, 0.26171875, -0.03515625)
#   A = -0.75, t = 0.75: (-0.03515625, 0.26171875, 0.87890625, -0.10546875)
#   A = -0.5,  t = 0.25: (-0.0703125, 0.8671875, 0.2265625, -0.0234375)
#   A = -0.5,  t = 0.5 : (-0.0625, 0.5625, 0.5625, -0.0625)
# --------------------------------------------------------------------------------------------

def test_cubic_upsample_asymmetric_edge_taps_clamped():
    # 4 -> 8 ASYMMETRIC: x_in = 0, .5, ..., 3.5.
    # i=1 (x=.5): taps -1,0,1,2 -> 0,0,1,2: -.09375*1 + .59375*1 + .59375*2 - .09375*4 = 1.3125
    # i=3 (x=1.5): taps 0..3: -.09375*1 + .59375*2 + .59375*4 - .09375*8 = 2.71875
    # i=5 (x=2.5): taps 1,2,3,4->3: -.09375*2 + .59375*4 + .59375*8 - .09375*8 = 6.1875
    # i=7 (x=3.5): taps 2,3,4->3,5->3: -.09375*4 + .59375*8 + .59375*8 - .09375*8 = 8.375 (overshoot)
    out = resize(row([1, 2, 4, 8]), (1, 8), resize_mode="CUBIC")
    np.testing.assert_allclose(out, row([1, 1.3125, 2, 2.71875, 4, 6.1875, 8, 8.375]), rtol=0, atol=1e-6)


def test_cubic_downsample_coefficient_a():
    # 5 -> 4 ASYMMETRIC, A = -0.5: x_in = 0, 1.25, 2.5, 3.75 on [1, 2, 4, 8, 16]
    # i=1: -.0703125*1 + .8671875*2 + .2265625*4 - .0234375*8 = 2.3828125
    # i=2: -.0625*2 + .5625*4 + .5625*8 - .0625*16 = 5.625
    # i=3: taps 2,3,4,5->4: -.0234375*4 + .2265625*8 + .8671875*16 - .0703125*16 = 14.46875
    out = resize(row([1, 2, 4, 8, 16]), (1, 4), resize_mode="CUBIC", cubic_coeff=-0.5)
    np.testing.assert_allclose(out, row([1, 2.3828125, 5.625, 14.46875]), rtol=0, atol=1e-6)


def test_cubic_negative_coordinate_not_clamped():
    # 3 -> 6 HALF_PIXEL: x_in = 0.5 i - 0.25.
    # i=0: x=-.25, floor -1, t=.75, taps -2,-1,0,1 -> 0,0,0,1 on [0,16,32]: -.10546875*16 = -1.6875
    #      (clamping the coordinate to 0 would give 0 instead)
    # i=1: x=.25, taps -1,0,1,2 -> 0,0,1,2: .26171875*16 - .03515625*32 = 3.0625
    out = resize(row([0, 16, 32]), (1, 6), resize_mode="CUBIC", coordinate_transformation="HALF_PIXEL")
    np.testing.assert_allclose(out[0, :2], [-1.6875, 3.0625], rtol=0, atol=1e-6)


def test_cubic_2d_align_corners():
    # 2x2 -> 3x3 ALIGN_CORNERS: x_in = 0, .5, 1 on both axes; with 2 samples and clamped taps the
    # t=.5 weights give (-.09375 + .59375) a + (.59375 - .09375) b = (a + b) / 2.
    x = np.array([[[[0, 4], [8, 12]]]], dtype=np.float32)
    expected = np.array([[[[0, 2, 4], [4, 6, 8], [8, 10, 12]]]], dtype=np.float32)
    out = resize(x, (1, 1, 3, 3), resize_mode="CUBIC", coordinate_transformation="ALIGN_CORNERS")
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-6)


def test_cubic_int8_saturates_and_rounds_half_even():
    # 4 -> 8 ASYMMETRIC, A=-0.75 on [-128, 127, 127, -128]
    # i=1: taps 0,0,1,2: -.09375*-128 + .59375*-128 + .59375*127 - .09375*127 = -0.5 -> 0 (half to even)
    # i=3: -.09375*-128 + .59375*127 + .59375*127 - .09375*-128 = 174.8125 -> 127
    # i=5: taps 1,2,3,3: -.09375*127 + .59375*127 + .59375*-128 - .09375*-128 = -0.5 -> 0
    # i=7: taps 2,3,3,3: -.09375*127 + .59375*-128 + .59375*-128 - .09375*-128 = -151.90625 -> -128
    x = np.array([[-128, 127, 127, -128]], dtype=np.int8)
    out = resize(x, (1, 8), resize_mode="CUBIC")
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, np.array([[-128, 0, 127, 127, 127, 0, -128, -128]], dtype=np.int8))


# --------------------------------------------------------------------------------------------
# Shapes, identity, validation
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["NEAREST", "LINEAR", "CUBIC"])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_unchanged_shape_is_identity(mode, transform):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5 - 3
    out = resize(x, x.shape, resize_mode=mode, coordinate_transformation=transform)
    np.testing.assert_array_equal(out, x)


def test_outer_axes_are_passed_through():
    # rank 6, only the innermost axis resized: every outer slice is resized independently
    x = np.arange(2 * 1 * 2 * 1 * 2 * 2, dtype=np.float32).reshape(2, 1, 2, 1, 2, 2)
    out = resize(x, (2, 1, 2, 1, 2, 4), resize_mode="LINEAR", coordinate_transformation="ALIGN_CORNERS")
    # each row [a, a+1] -> ALIGN_CORNERS 2 -> 4: a, a+1/3, a+2/3, a+1
    expected = x[..., :1] + np.array([0, 1 / 3, 2 / 3, 1], dtype=np.float32)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-6)


def test_cubic_rejects_non_inner_axes():
    with pytest.raises(ValueError):
        resize(np.zeros((2, 3, 4), np.float32), (3, 3, 5), resize_mode="CUBIC")


def test_linear_rejects_fourth_innermost_axis():
    with pytest.raises(ValueError):
        resize(np.zeros((2, 3, 4, 5), np.float32), (3, 3, 4, 5), resize_mode="LINEAR")


def test_rejects_rank_mismatch_and_bad_enum():
    with pytest.raises(ValueError):
        resize(np.zeros((2, 3), np.float32), (2, 3, 1))
    with pytest.raises(ValueError):
        resize(np.zeros((2, 3), np.float32), (2, 6), nearest_rounding="ROUND_EVEN")


def test_nearest_rounding_is_exact_for_axes_near_2_31():
    # L_in = 2^31 - 1 -> L_out = 2^31 - 2, last outputs: the coordinate is just below an integer
    # (i * L_in / L_out = i + i / L_out, i = L_out - 1); a float64 division rounds it up to that integer.
    from fractions import Fraction

    from converter.reference.resize_kernel import nearest_indices

    l_in, l_out = 2**31 - 1, 2**31 - 2
    for i in (l_out - 1, l_out - 2):
        for num, den in ((i * l_in, l_out), ((2 * i + 1) * l_in - l_out, 2 * l_out)):  # ASYMMETRIC, HALF_PIXEL
            assert np.floor(np.float64(num) / den) != int(Fraction(num, den))  # the trap
            for rounding, want in (("FLOOR", int(Fraction(num, den))), ("CEIL", -(-num // den))):
                assert nearest_indices(np.array([num], np.int64), den, l_in, rounding).tolist() == [want]
