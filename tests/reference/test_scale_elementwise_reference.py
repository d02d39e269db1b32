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


# x ^ 0.5 at -inf and -0: C powf gives +inf and +0 (C99 F.9.4.4, onnxruntime's Pow), a square root NaN and -0.
# numpy 2 takes the square root for an exponent broadcast from one element and numpy 1.26 does not: the reference
# must give powf's values whatever the exponent's shape, the tensor's size or numpy's version (the one shortcut is
# Scale's uniform 0.5, which the lowering writes as Sqrt: docs/semantics.md, Scale).
_HALF_BASES = np.array([-np.inf, -0.0, 0.0, 4.0, np.inf], np.float32)
_POWF_HALF = np.array([np.inf, 0.0, 0.0, 2.0, np.inf], np.float32)  # by hand, C99 F.9.4.4; sqrt(4) = 2


def _same_bits(actual, expected):
    np.testing.assert_array_equal(actual, expected)
    numbers = ~np.isnan(expected)  # (+0 and -0 compare equal; a NaN's sign is no value)
    np.testing.assert_array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers]))


@pytest.mark.parametrize("exponent_shape", [(1, 1), (1, 5)])
def test_elementwise_power_of_a_half_is_powf_whatever_the_exponent_shape(exponent_shape):
    layer = Layer("p", "trt.ElementWise", ("a", "b"), {"operation": "POWER"})
    out = elementwise.reference(layer, [_HALF_BASES.reshape(1, 5), np.full(exponent_shape, 0.5, np.float32)])
    _same_bits(out.ravel(), _POWF_HALF)


def test_elementwise_power_of_a_half_in_float16_is_powf():
    layer = Layer("p", "trt.ElementWise", ("a", "b"), {"operation": "POWER"})
    out = elementwise.reference(layer, [_HALF_BASES.astype(np.float16), np.full((1,), 0.5, np.float16)])
    _same_bits(out.astype(np.float32), _POWF_HALF)


@pytest.mark.parametrize("mode", ["CHANNEL", "ELEMENTWISE"])
def test_scale_per_channel_and_per_element_powers_of_a_half_are_powf(mode):
    x = _HALF_BASES.reshape(1, 1, 1, 5)  # one channel: the coefficient broadcasts from one element
    power = [0.5] if mode == "CHANNEL" else np.full(5, 0.5)
    out = scale.reference(scale_layer(mode, 3 if mode == "ELEMENTWISE" else 1, power=power), [x])
    _same_bits(out.ravel(), _POWF_HALF)


def test_scale_channel_power_is_powf_in_the_sliced_path_for_big_channels_too():
    x = np.full((1, 2, 256, 128), 4.0, np.float32)  # 2^15 elements a channel: computed one channel slice at a time
    x[0, :, 0, :5] = _HALF_BASES
    out = scale.reference(scale_layer("CHANNEL", power=[0.5, 0.5]), [x])
    for channel in range(2):
        _same_bits(out[0, channel, 0, :5], _POWF_HALF)
    assert np.all(out[0, :, 1:] == 2)


def test_scale_uniform_power_of_a_half_is_a_square_root_as_lowered():
    out = scale.reference(scale_layer("UNIFORM", power=[0.5]), [_HALF_BASES.reshape(1, 1, 1, 5)])
    _same_bits(out.ravel(), np.array([np.nan, -0.0, 0.0, 2.0, np.inf], np.float32))  # sqrt's, by hand (IEEE 754)


def test_scale_uniform_powers_two_and_minus_one_are_the_lowered_products():
    x = np.array([-np.inf, -0.0, 3.0, 1e-30], np.float32).reshape(1, 1, 1, 4)
    _same_bits(scale.reference(scale_layer("UNIFORM", power=[2]), [x]).ravel(), np.array([np.inf, 0.0, 9.0, 0.0], np.float32))
    _same_bits(scale.reference(scale_layer("UNIFORM", power=[-1]), [x]).ravel(),
               np.array([-0.0, -np.inf, np.float32(1) / np.float32(3), np.float32(1) / np.float32(1e-30)], np.float32))
