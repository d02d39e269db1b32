"""trt.Scale lowering: no node that does nothing, cheap exact powers, legalization said in the model."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from converter.lowering import build_model
from converter.runtime import OrtRunner, max_supported_opset

from ..helpers import node_types, one_layer_spec


def scale_spec(dtype="float32", **attrs):
    return one_layer_spec("trt.Scale", {"x": (dtype, (1, 2, 2, 2))}, {"mode": "CHANNEL", **attrs})


@pytest.mark.parametrize("attrs, nodes", [
    ({}, ["Identity"]),
    ({"scale": [1, 1], "shift": [0, 0], "power": [1, 1]}, ["Identity"]),
    ({"scale": [2, 3]}, ["Mul"]),
    ({"shift": [1, -1]}, ["Add"]),
    ({"power": [2, 3]}, ["Pow"]),
    ({"power": [2, 2]}, ["Pow"]),  # per-channel powers are powf's, even when they are all equal
    ({"power": [0.5, 0.5]}, ["Pow"]),
    ({"mode": "UNIFORM", "power": [2]}, ["Mul"]),
    ({"mode": "UNIFORM", "power": [-1]}, ["Reciprocal"]),
    ({"mode": "UNIFORM", "power": [3]}, ["Pow"]),
    ({"mode": "UNIFORM", "power": [0.5]}, ["Sqrt"]),
    ({"scale": [2, 3], "shift": [0, 0], "power": [1, 1]}, ["Mul"]),
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
    spec = scale_spec(dtype, scale=[2, 3], shift=[1, 0], power=[2, 1])
    model = build_model(spec.network, opset=opset)  # runs onnx's full checker and strict shape inference
    ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


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
