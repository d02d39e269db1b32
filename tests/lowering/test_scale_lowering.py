"""trt.Scale lowering: no node that does nothing, cheap exact powers, legalization said in the model."""

from __future__ import annotations

import numpy as np
import pytest

from converter.lowering import build_model
from converter.runners.onnxruntime import OrtRunner, max_supported_opset

from ..helpers import node_types, one_layer_spec


def scale_spec(dtype="float32", **attrs):
    return one_layer_spec("trt.Scale", {"x": (dtype, (1, 2, 2, 2))}, {"mode": "CHANNEL", **attrs})


@pytest.mark.parametrize("attrs, nodes", [
    ({}, ["Identity"]),
    ({"scale": [1, 1], "shift": [-0.0, -0.0], "power": [1, 1]}, ["Identity"]),
    ({"scale": [1, 1], "shift": [0, 0], "power": [1, 1]}, ["Add"]),  # x + 0 turns -0 into +0
    ({"scale": [2, 3]}, ["Mul"]),
    ({"shift": [1, -1]}, ["Add"]),
    ({"power": [2, 3]}, ["Pow"]),
    ({"power": [2, 2]}, ["Pow"]),  # per-channel powers are powf's, even when they are all equal
    ({"power": [0.5, 0.5]}, ["Pow"]),
    ({"mode": "UNIFORM", "power": [2]}, ["Mul"]),
    ({"mode": "UNIFORM", "power": [-1]}, ["Reciprocal"]),
    ({"mode": "UNIFORM", "power": [3]}, ["Pow"]),
    ({"mode": "UNIFORM", "power": [0.5]}, ["Sqrt"]),
    ({"scale": [2, 3], "shift": [-0.0, -0.0], "power": [1, 1]}, ["Mul"]),
    ({"scale": [2, 3], "shift": [0, 0], "power": [2, 2]}, ["Mul", "Pow"]),  # (+-0) ** 2 is +0 either way
    ({"scale": [1, 1], "shift": [1, 2], "power": [0.5, 1]}, ["Add", "Pow"]),
    ({"scale": [2, 3], "shift": [1, 2]}, ["BatchNormalization"]),
])
def test_float32_emits_only_nodes_that_do_something(attrs, nodes):
    assert node_types(scale_spec(**attrs)) == nodes


def test_int8_is_computed_in_float_then_rounded_and_saturated_and_says_why():
    model = build_model(scale_spec("int8", scale=[0.5, 2]).network)
    assert [n.op_type for n in model.graph.node] == ["Cast", "Mul", "Round", "Clip", "Cast"]
    assert "int8 is quantized" in model.graph.node[0].doc_string
    legalizations = {p.key: p.value for p in model.metadata_props}["spec2onnx.legalizations"]
    assert "round half to even" in legalizations


def test_int8_with_fractional_power_guards_nan():
    assert node_types(scale_spec("int8", power=[0.5, 1])) == ["Cast", "Pow", "IsNaN", "Where", "Round", "Clip", "Cast"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_computes_in_float32_and_rounds_once(dtype):
    assert node_types(scale_spec(dtype, scale=[2, 3], shift=[1, 1])) == ["Cast", "BatchNormalization", "Cast"]
    assert node_types(scale_spec(dtype, scale=[2, 3])) == ["Cast", "Mul", "Cast"]


@pytest.mark.parametrize("attrs, nodes", [
    ({"mode": "CHANNEL", "scale": [2, 3], "shift": [1, -1]}, ["BatchNormalization"]),
    ({"mode": "UNIFORM", "scale": [2], "shift": [1], "power": [2]}, ["BatchNormalization", "Mul"]),
    ({"mode": "CHANNEL", "channel_axis": 2, "scale": [2, 3], "shift": [1, -1]}, ["Mul", "Add"]),  # not BN's axis
    ({"mode": "ELEMENTWISE", "channel_axis": 3, "scale": [2, 3], "shift": [1, -1]}, ["Mul", "Add"]),
])
def test_scale_and_shift_fuse_into_one_batch_normalization_on_axis_1(attrs, nodes):
    spec = one_layer_spec("trt.Scale", {"x": ("float32", (1, 2, 2, 2))}, attrs)
    assert node_types(spec) == nodes


@pytest.mark.parametrize("shape", [(2, 5, 7, 9), (1, 3, 2, 4, 5), (1, 2, 2, 3, 2, 2)])
def test_batch_normalization_is_bit_identical_to_multiply_then_add(shape):
    """The fused pass must round x*scale and then +shift separately, like the reference: no FMA."""
    from converter.reference import run_network

    rng = np.random.default_rng(5)
    c = shape[1]
    attrs = {"mode": "CHANNEL", "scale": rng.uniform(-3, 3, c).tolist(), "shift": rng.uniform(-1e3, 1e3, c).tolist()}
    spec = one_layer_spec("trt.Scale", {"x": ("float32", shape)}, attrs)
    x = rng.uniform(-1e4, 1e4, shape).astype(np.float32)
    for level in ("all", "disabled"):
        got = OrtRunner(build_model(spec.network).SerializeToString(), opt_level=level).run({"x": x})["y"]
        np.testing.assert_array_equal(got, run_network(spec.network, {"x": x})["y"])


def test_bfloat16_runs_on_the_cpu_ep_where_onnxruntime_has_no_bf16_kernels():
    import ml_dtypes

    spec = scale_spec("bfloat16", scale=[2, 3])
    runner = OrtRunner(build_model(spec.network).SerializeToString())
    x = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2).astype(ml_dtypes.bfloat16)
    out = runner.run({"x": x})["y"]
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), np.arange(8).reshape(1, 2, 2, 2) * np.array([2, 3]).reshape(1, 2, 1, 1))


@pytest.mark.parametrize("opset", sorted({13, 14, 17, 18, 21, max_supported_opset()}))
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8"])
def test_every_supported_opset_gives_a_valid_runnable_model(opset, dtype):
    """At every opset the model passes onnx's checker, loads, runs, and gives what the numpy reference gives
    (converter/reference/scale.py: independent of the lowering), at the dtype's default tolerance."""
    from converter.compare import compare, default_tolerance
    from converter.reference import run_network

    spec = scale_spec(dtype, scale=[2, 3], shift=[1, 0], power=[2, 1])
    model = build_model(spec.network, opset=opset)  # runs onnx's full checker and strict shape inference
    rng = np.random.default_rng(opset)
    if dtype == "int8":  # the whole range: (2x + 1)^2 saturates at 127 on channel 0, 3x at -128/127 on channel 1
        x = rng.integers(-128, 128, (1, 2, 2, 2)).astype(np.int8)
    else:  # small values, exact in every dtype, so that (2x + 1)^2 stays finite in float16
        x = (rng.integers(-32, 32, (1, 2, 2, 2)) / 8).astype(spec.network.types["x"].dtype.numpy)
    got = OrtRunner(model.SerializeToString()).run({"x": x})["y"]
    want = run_network(spec.network, {"x": x})["y"]
    assert got.dtype == want.dtype and got.shape == want.shape == (1, 2, 2, 2)
    assert compare(got, want, default_tolerance(spec.network.types["y"].dtype)) is None, (got, want)
    assert not np.array_equal(want.astype(np.float32), x.astype(np.float32))  # the layer does something here


def test_per_channel_powers_are_powf_even_when_all_equal():
    """powf(-inf, 0.5) is +inf; a Sqrt shortcut would give NaN (only a UNIFORM power takes it)."""
    from converter.reference import run_network

    spec = scale_spec(power=[0.5, 0.5])
    x = np.array([-np.inf, 4, -0.0, 9, -np.inf, 1, 0, 16], np.float32).reshape(1, 2, 2, 2)
    got = OrtRunner(build_model(spec.network).SerializeToString()).run({"x": x})["y"]
    want = run_network(spec.network, {"x": x})["y"]
    np.testing.assert_array_equal(got, want)
    assert got[0, 0, 0, 0] == np.inf


def test_batch_normalization_only_for_the_cpu_ep():
    spec = scale_spec(scale=[2, 3], shift=[1, 2])
    cpu = [n.op_type for n in build_model(spec.network).graph.node]
    cuda = [n.op_type for n in build_model(spec.network, provider="CUDAExecutionProvider").graph.node]
    assert cpu == ["BatchNormalization"] and cuda == ["Mul", "Add"]


# --- signed zeros: a dropped coefficient must not change the sign of a zero (IEEE 754 by hand) -----

INF = np.inf
X_ZEROS = [-0.0, 0.0, 2.0, -4.0]


@pytest.mark.parametrize("attrs, want", [
    # (x + 0) ** -1: -0 + +0 is +0 (round to nearest), so 1 / (+0) = +inf for both zeros
    ({"shift": [0], "power": [-1]}, [INF, INF, 0.5, -0.25]),
    # x + (-0) is x: the -0 shift may be dropped, 1 / -0 = -inf
    ({"shift": [-0.0], "power": [-1]}, [-INF, INF, 0.5, -0.25]),
    # x * -1 = [+0, -0, -2, 4], + 0 = [+0, +0, -2, 4], ** -1
    ({"scale": [-1], "shift": [0], "power": [-1]}, [INF, INF, -0.5, 0.25]),
    # a scale of 1 is dropped: x * 1 is x, signed zeros included
    ({"scale": [1], "power": [-1]}, [-INF, INF, 0.5, -0.25]),
    # no power: the +0 shift itself is the output's sign
    ({"shift": [0]}, [0.0, 0.0, 2.0, -4.0]),
    # odd power 3: (+0) ** 3 = +0
    ({"shift": [0], "power": [3]}, [0.0, 0.0, 8.0, -64.0]),
    # uniform 0.5 is Sqrt, and sqrt(-0) = -0: the +0 shift makes it sqrt(+0) = +0
    ({"shift": [0], "power": [0.5]}, [0.0, 0.0, 1.4142135, np.nan]),
    # power 1 with a scale of 1 and a shift of -0: all dropped, x itself
    ({"scale": [1], "shift": [-0.0], "power": [1]}, [-0.0, 0.0, 2.0, -4.0]),
])
@pytest.mark.parametrize("target", ["ort-cpu", "ort-cuda", "portable"])
def test_dropped_coefficients_keep_the_sign_of_zero(attrs, want, target):
    from converter.targets import Target

    spec = one_layer_spec("trt.Scale", {"x": ("float32", (1, 1, 1, 4))}, {"mode": "UNIFORM", **attrs})
    x = np.array(X_ZEROS, np.float32).reshape(1, 1, 1, 4)
    got = OrtRunner(build_model(spec.network, target=Target(target)).SerializeToString()).run({"x": x})["y"].reshape(-1)
    want = np.array(want, np.float32)
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)
    assert np.signbit(got[numbers]).tolist() == np.signbit(want[numbers]).tolist(), (got, want)
    for level in ("basic", "disabled"):  # onnxruntime's NoopElimination (basic and above) must not drop a +0
        again = OrtRunner(build_model(spec.network, target=Target(target)).SerializeToString(), opt_level=level).run({"x": x})["y"]
        assert np.signbit(again.reshape(-1)[numbers]).tolist() == np.signbit(want[numbers]).tolist(), level


def test_zero_shifts_that_cannot_reach_the_output_are_still_dropped():
    def ops(**attrs):
        return node_types(one_layer_spec("trt.Scale", {"x": ("float32", (1, 2, 1, 1))}, {"mode": "UNIFORM", **attrs}))
    assert ops(shift=[0], power=[2]) == ["Mul"]  # (+-0) ** 2 = +0 either way
    assert ops(shift=[0], power=[-2]) == ["Pow"]  # +inf either way
    assert ops(shift=[-0.0], power=[-1]) == ["Reciprocal"]  # x + (-0) is x
    assert ops(shift=[0], power=[-1]) == ["Sum", "Reciprocal"]
    int8 = one_layer_spec("trt.Scale", {"x": ("int8", (1, 2, 1, 1))}, {"mode": "UNIFORM", "shift": [0], "power": [3]})
    assert "Add" not in node_types(int8)  # int8 keeps no sign of zero, and int8 -> float32 never gives -0


def test_int8_infinity_from_a_zero_keeps_its_sign():
    # x * -1 for x = 0 is -0; + 0 gives +0; 1 / +0 = +inf saturates to 127 (not -inf -> -128).
    # x = 2: -2 + 0 = -2, 1 / -2 = -0.5, rounded half to even: -0 -> 0.
    spec = one_layer_spec("trt.Scale", {"x": ("int8", (1, 1, 1, 2))}, {"mode": "UNIFORM", "scale": [-1], "shift": [0], "power": [-1]})
    got = OrtRunner(build_model(spec.network).SerializeToString()).run({"x": np.array([0, 2], np.int8).reshape(1, 1, 1, 2)})["y"]
    np.testing.assert_array_equal(got.reshape(-1), [127, 0])


def test_batch_normalization_keeps_a_minus_zero_shift_under_a_negative_scale():
    # channel 0: x * -2 + (-0): x = +0 -> -0 + -0 = -0 -> 1/x = -inf; x = -0 -> +0 + -0 = +0 -> +inf
    # channel 1: x * 2 + 1 -> 1, 1 -> 1/1 = 1
    spec = one_layer_spec("trt.Scale", {"x": ("float32", (1, 2, 1, 2))},
                          {"mode": "CHANNEL", "scale": [-2, 2], "shift": [-0.0, 1], "power": [-1, -1]})
    model = build_model(spec.network)
    assert [n.op_type for n in model.graph.node] == ["BatchNormalization", "Pow"]
    x = np.array([0.0, -0.0, 0.0, -0.0], np.float32).reshape(1, 2, 1, 2)
    for level in ("all", "disabled"):
        got = OrtRunner(model.SerializeToString(), opt_level=level).run({"x": x})["y"].reshape(-1)
        np.testing.assert_array_equal(got, [-INF, INF, 1.0, 1.0])
