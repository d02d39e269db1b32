"""The dml.DequantizeLinear reference on hand-computed values (shared/seeds/004, docs/semantics.md).

output = float32(input - zero_point) * scale, the difference exact, a float16 output rounded
once from the float32 product. Every expected value is worked out in the comments.
"""

from __future__ import annotations

import numpy as np
import pytest

from converter.network import Layer
from converter.reference.dequantize import reference

LAYER = Layer("y", "dml.DequantizeLinear", ("x", "s", "z"), {"feature_level": "6.2", "output_dtype": ""})


def dq(x, scale, zero_point=None, x_type=np.int8, out_type=np.float32):
    inputs = [np.array(x, x_type), np.array(scale, out_type)]
    if zero_point is not None:
        inputs.append(np.array(zero_point, x_type))
    return reference(LAYER, inputs)


def bits(array):
    array = np.asarray(array)
    return array.view(f"u{array.dtype.itemsize}")


def test_seed_formula_with_the_type_extremes():
    # (-128 - 127) * 0.5 = -127.5; (127 - (-128)) * -0.25 = -63.75; 0 * 3 = 0; (-7 - (-3)) * 1.5 = -6
    out = dq([-128, 127, 5, -7], [0.5, -0.25, 3.0, 1.5], [127, -128, 5, -3])
    assert out.dtype == np.float32 and out.shape == (4,)
    np.testing.assert_array_equal(out, [-127.5, -63.75, 0.0, -6.0])


def test_without_zero_point_the_input_is_scaled():
    np.testing.assert_array_equal(dq([0, 255, 200, 7], [0.5, -0.25, 0.125, 2.0], x_type=np.uint8), [0.0, -63.75, 25.0, 14.0])


@pytest.mark.parametrize("x_type, big", [(np.int32, 2**31 - 1), (np.uint32, 2**32 - 1)])
def test_32_bit_differences_are_exact_then_rounded_once(x_type, big):
    low = np.iinfo(x_type).min
    # big - low = 4294967295 exactly (no int32 wrap-around); float32 rounds it to 2^32.
    # 16777217 - 1 = 16777216 exactly; float32 subtraction would give float32(16777217) - 1 = 16777215.
    out = dq([big, low, 16777217], [1.0, 1.0, 1.0], [low, big, 1], x_type=x_type)
    np.testing.assert_array_equal(out, [4294967296.0, -4294967296.0, 16777216.0])


def test_float16_output_is_the_float32_product_rounded_once():
    # 2049 * 1.5 = 3073.5 in float32; float16's step in [2048, 4096) is 2, so 3074.
    # (Rounding the difference to float16 first would give 2048 * 1.5 = 3072.)
    # 32767 * 2^-10 = 31.9990234375 -> 32 (step 2^-6 in [16, 32)); 65535 * 1 -> inf (above 65504 + 16).
    out = dq([2049, 32767, 32767], [1.5, 2.0**-10, 1.0], [0, 0, -32768], x_type=np.int16, out_type=np.float16)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, np.array([3074.0, 32.0, np.inf], np.float16))


def test_float16_overflow_boundary_rounds_half_to_even():
    # 65519 rounds down to 65504, the largest float16; 65520 is halfway to 65536 and rounds (to even) to inf.
    out = dq([65504, 65519, 65520], [1.0, 1.0, 1.0], x_type=np.uint16, out_type=np.float16)
    np.testing.assert_array_equal(out.astype(np.float32), [65504.0, 65504.0, np.inf])


def test_tiny_scales_keep_subnormals():
    # float32: 1 * 2^-149 is the smallest subnormal; float16: 255 * 2^-24 is a subnormal multiple of 2^-24.
    out32 = dq([1, -1], [2.0**-149, 2.0**-149], [0, 0])
    np.testing.assert_array_equal(out32, np.array([2.0**-149, -(2.0**-149)], np.float32))
    out16 = dq([255], [2.0**-24], x_type=np.uint8, out_type=np.float16)
    assert float(out16[0]) == 255 * 2.0**-24


def test_zero_scale_gives_signed_zeros_and_nonfinite_scales_follow_ieee():
    # 5 * 0 = 0, -5 * -0 = +0, -5 * 0 = -0, 0 * -0 = -0; 5 * inf = inf, 0 * inf = nan
    out = dq([5, -5, -5, 0, 5, 0], [0.0, -0.0, 0.0, -0.0, np.inf, np.inf], [0] * 6)
    want = np.array([0.0, 0.0, -0.0, -0.0, np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(bits(out[:5]), bits(want[:5]))
    assert np.isnan(out[5])


def test_shapes_of_any_rank_are_elementwise():
    x = np.arange(16, dtype=np.int8).reshape((2,) * 4 + (1,) * 4)
    scale = np.full(x.shape, 0.5, np.float32)
    zero_point = np.full(x.shape, 1, np.int8)
    out = reference(LAYER, [x, scale, zero_point])
    assert out.shape == x.shape
    np.testing.assert_array_equal(out.reshape(-1), (np.arange(16) - 1) * 0.5)
