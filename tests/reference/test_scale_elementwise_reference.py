"""The Scale and ElementWise references on the seed examples and hand-computed values."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from converter.network import Layer
from converter.reference import elementwise, scale


def scale_layer(mode, channel_axis=1, **coeff):
    attrs = {"mode": mode, "channel_axis": channel_axis}
    for key in ("scale", "shift", "power"):
        attrs[key] = np.asarray(coeff.get(key, []), np.float32)
    return Layer("y", "trt.Scale", ("x",), attrs)


def test_seed_scale_4d():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    out = scale.reference(scale_layer("UNIFORM", scale=[2], shift=[1], power=[2]), [x])
    np.testing.assert_array_equal(out, [[[[9, 25, 49], [81, 121, 169], [225, 289, 361]]]])


def test_seed_scale_5d_channel_axis_1():
    x = np.tile(np.arange(1, 10, dtype=np.float32).reshape(1, 1, 1, 3, 3), (1, 2, 1, 1, 1))
    out = scale.reference(scale_layer("CHANNEL", 1, scale=[1, 2], shift=[0, 1], power=[1, 2]), [x])
    np.testing.assert_array_equal(out[0, 0, 0], x[0, 0, 0])
    np.testing.assert_array_equal(out[0, 1, 0], [[9, 25, 49], [81, 121, 169], [225, 289, 361]])


def test_channel_mode_addresses_the_channel_axis_not_axis_1():
    x = np.ones((1, 1, 2, 3), np.float32)
    out = scale.reference(scale_layer("CHANNEL", 3, scale=[1, 2, 3]), [x])
    np.testing.assert_array_equal(out[0, 0], [[1, 2, 3], [1, 2, 3]])


def test_int8_rounds_half_to_even_and_saturates():
    x = np.array([1, 3, 5, -1, 100, -100, 127, -128], np.int8).reshape(1, 1, 2, 4)
    np.testing.assert_array_equal(scale.reference(scale_layer("UNIFORM", scale=[0.5]), [x]).ravel(), [0, 2, 2, 0, 50, -50, 64, -64])
    np.testing.assert_array_equal(scale.reference(scale_layer("UNIFORM", scale=[2]), [x]).ravel(), [2, 6, 10, -2, 127, -128, 127, -128])


def test_bfloat16_rounds_once_to_nearest_even():
    x = np.array([1, 2, 3, 4], ml_dtypes.bfloat16).reshape(1, 1, 1, 4)
    out = scale.reference(scale_layer("UNIFORM", scale=[1.00390625]), [x])
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32).ravel(), [1, 2, 3.015625, 4])


def ew(op, a, b):
    return elementwise.reference(Layer("y", "trt.ElementWise", ("a", "b"), {"operation": op}), [a, b])


def test_seed_elementwise_broadcast():
    a = np.array([[-3, -2, -1], [0, 1, 2]], np.float32)
    b = np.array([[4, 5, 6]], np.float32)
    np.testing.assert_array_equal(ew("PROD", a, b), [[-12, -10, -6], [0, 5, 12]])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_division_truncates_floor_div_floors_and_zero_divisor_gives_zero(dtype):
    a = np.array([7, -7, 7, -7, 5, np.iinfo(dtype).min], dtype)
    b = np.array([2, 2, -2, -2, 0, -1], dtype)
    np.testing.assert_array_equal(ew("DIV", a, b), [3, -3, -3, 3, 0, np.iinfo(dtype).min])
    np.testing.assert_array_equal(ew("FLOOR_DIV", a, b), [3, -4, -4, 3, 0, np.iinfo(dtype).min])


def test_int8_division_saturates_and_nan_becomes_zero():
    a = np.array([7, -7, -128, 5, 0, -5], np.int8)
    b = np.array([2, 2, -1, 0, 0, 0], np.int8)
    np.testing.assert_array_equal(ew("DIV", a, b), [3, -3, 127, 127, 0, -128])
    np.testing.assert_array_equal(ew("FLOOR_DIV", a, b), [3, -4, 127, 127, 0, -128])


def test_comparisons_output_bool():
    out = ew("GREATER", np.array([1, 2], np.int32), np.array([2, 1], np.int32))
    assert out.dtype == np.bool_ and out.tolist() == [False, True]
