"""Five TensorRT sample scripts (tests/trt_samples/), written as NVIDIA's Python samples are, run unchanged but
for their import line (issues 19 and 27). Each built model runs on onnxruntime against values computed by hand here,
and the network goes through the library's validate API (numpy reference, onnxruntime)."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import spec2onnx
from spec2onnx import trt


SAMPLES = Path(__file__).parent / "trt_samples"
IMPORT = "import spec2onnx.trt as trt  # was: import tensorrt as trt"


def sample(name: str):
    text = (SAMPLES / f"{name}.py").read_text()
    # The one line that differs from a TensorRT script; no other code names spec2onnx (comments aside).
    code = [line for line in text.splitlines() if "spec2onnx" in line.split("#")[0]]
    assert code == [IMPORT], (name, code)
    return importlib.import_module(f"tests.trt_samples.{name}")


def run_plan(plan, feeds: dict) -> list[np.ndarray]:
    return ort.InferenceSession(bytes(plan), providers=["CPUExecutionProvider"]).run(None, feeds)


def built(module, tmp_path, *args) -> "trt.IHostMemory":
    path = tmp_path / "model.plan"
    plan = module.main(str(path), *args)
    assert path.read_bytes() == plan.tobytes() == bytes(plan) and plan.nbytes == len(plan)
    assert spec2onnx.check(plan.model, plan.target).ok
    return plan


def test_sample_scale_with_weights(tmp_path):
    s = sample("scale_weights")
    plan = built(s, tmp_path)
    assert plan.target == "tensorrt" and plan.placement == {"normalize": trt.DeviceType.GPU}
    # (x - mean) / std with mean 128, 64, 32 and std 2, 4, 0.5: each channel gives 0, 1, -1, 2
    x = np.array([[[[128, 130], [126, 132]], [[64, 68], [60, 72]], [[32, 32.5], [31.5, 33]]]], np.float32)
    want = np.tile(np.array([[0, 1], [-1, 2]], np.float32), (1, 3, 1, 1))
    np.testing.assert_array_equal(run_plan(plan, {"image": x})[0], want)
    network = trt.INetworkDefinition()
    s.populate_network(network, s.get_weights())
    report = network.validate({"inputs": {"image": x}, "expected": {"normalized": want}})
    assert report.ok, report.summary()


def test_sample_elementwise_chain_with_constants(tmp_path):
    s = sample("elementwise_constants")
    plan = built(s, tmp_path)
    x = np.array([[[[-3, -2, -1], [0, 1, 2]], [[-4, -3, -2], [1, 2, 3]]]], np.float32)
    # by hand: channel 0: 2x + [1, .5, -.5] = [-5, -3.5, -2.5], [1, 2.5, 3.5]; channel 1: -x + bias = [5, 3.5, 1.5],
    # [0, -1.5, -3.5]; then max with 0
    want = np.array([[[[0, 0, 0], [1, 2.5, 3.5]], [[5, 3.5, 1.5], [0, 0, 0]]]], np.float32)
    np.testing.assert_array_equal(run_plan(plan, {"x": x})[0], want)
    network = trt.INetworkDefinition()
    s.populate_network(network, s.get_weights())
    assert [network.get_layer(i).type for i in range(network.num_layers)] == ["CONSTANT"] * 3 + ["ELEMENTWISE"] * 3
    report = network.validate({"inputs": {"x": x}, "expected": {"y": want}})
    assert report.ok, report.summary()


def test_sample_resize_with_every_property(tmp_path):
    s = sample("resize_properties")
    plan = built(s, tmp_path)
    # LINEAR, HALF_PIXEL, x2: source coordinates -0.25, 0.25, 0.75, 1.25, clamped to 0, .25, .75, 1 per axis
    x = np.array([[[[0, 4], [8, 12]]]], np.float32)
    want = np.array([[[[0, 1, 3, 4], [2, 3, 5, 6], [6, 7, 9, 10], [8, 9, 11, 12]]]], np.float32)
    np.testing.assert_array_equal(run_plan(plan, {"feature": x})[0], want)
    network = trt.INetworkDefinition()
    layer = s.populate_network(network)
    assert (layer.selector_for_single_pixel, layer.nearest_rounding, layer.cubic_coeff, layer.exclude_outside) == \
        (trt.ResizeSelector.UPPER, trt.ResizeRoundMode.HALF_DOWN, -0.5, False)
    report = network.validate({"inputs": {"feature": x}, "expected": {"upsampled": want}})
    assert report.ok, report.summary()
    # every settable property of TensorRT's IResizeLayer (Python API) exists here; the unsupported one says so
    for name in ("shape", "scales", "resize_mode", "coordinate_transformation", "selector_for_single_pixel",
                 "nearest_rounding", "cubic_coeff", "exclude_outside", "name"):
        assert isinstance(getattr(trt.IResizeLayer, name), property), name
    with pytest.raises(NotImplementedError, match=r"^IResizeLayer\.exclude_outside = True: not supported"):
        layer.exclude_outside = True


def test_sample_dla_fp16_with_gpu_fallback(tmp_path):
    s = sample("dla_fp16_fallback")
    plan = built(s, tmp_path)
    # DLA runs normalize and upsample in FP16; Scale with power 2 is not a DLA layer (Scale, DLA Support): GPU
    # DLA resizes by scales, not output dimensions (NvInfer.h 10.7, IResizeLayer): the sample sets scales 2 x 2, exact
    # (a * 2 = b), so the model's Resize is fed ONNX scales, which onnx-tensorrt imports with setScales: on DLA
    (resize,) = [n for n in plan.model.graph.node if n.op_type == "Resize"]
    assert len(resize.input) == 3 and resize.input[2] != ""  # X, roi, scales; no sizes
    assert plan.placement == {"normalize": trt.DeviceType.DLA, "upsample": trt.DeviceType.DLA, "square": trt.DeviceType.GPU}
    fallback = dict(plan.gpu_fallback)
    assert set(fallback) == {"square"} and "custom power" in fallback["square"]
    assert plan.target == "tensorrt"  # a mixed DLA/GPU engine: the model onnx-tensorrt parses, placed at build
    props = {p.key: p.value for p in plan.model.metadata_props}
    assert props["spec2onnx.trt.builder_flags"] == "FP16,GPU_FALLBACK,TF32"
    assert props["spec2onnx.trt.default_device_type"] == "DLA" and props["spec2onnx.trt.DLA_core"] == "0"
    assert props["spec2onnx.trt.memory_pool_limit.DLA_MANAGED_SRAM"] == str(1 << 20)
    # FP16 permits, it does not force: the model keeps the network's float32 types
    assert {i.type.tensor_type.elem_type for i in plan.model.graph.input} == {1}
    c0 = np.array([[2, 4], [6, 8]], np.float32)  # * 0.5 - 1 -> 0 1 / 2 3
    c1 = np.array([[0, 4], [8, 12]], np.float32)  # * 0.25 + 2 -> 2 3 / 4 5
    x = np.stack([c0, c1])[None]
    normalized = np.stack([[[0, 1], [2, 3]], [[2, 3], [4, 5]]]).astype(np.float32)
    want = np.kron(normalized ** 2, np.ones((2, 2), np.float32))[None]  # NEAREST x2 repeats each pixel 2 x 2
    np.testing.assert_array_equal(run_plan(plan, {"image": x})[0], want)
    network = trt.INetworkDefinition()
    s.populate_network(network)
    report = network.validate({"inputs": {"image": x}, "expected": {"energy": want}})
    assert report.ok, report.summary()


def test_sample_dynamic_batch_and_spatial_dims_with_two_profiles(tmp_path):
    """Issue 27's done-when: a TensorRT script with a dynamic batch, dynamic spatial dimensions and two profiles ports
    unchanged but for its import; its model runs on onnxruntime at min, opt, max and random shapes between them of
    each profile and matches the values computed by hand here, and validate (the numpy reference) passes at min, opt and max of each."""
    s = sample("dynamic_profiles")
    plan = built(s, tmp_path)
    assert plan.target == "tensorrt"
    (image,) = plan.model.graph.input  # the -1 dimensions stay dynamic (no dim_value), the static one 3
    assert [d.dim_value if d.HasField("dim_value") else None for d in image.type.tensor_type.shape.dim] == [None, 3, None, None]
    w = s.get_weights()
    session = ort.InferenceSession(bytes(plan), providers=["CPUExecutionProvider"])
    pick = np.random.default_rng(27)
    for shapes in s.ModelData.PROFILES:
        inside = [tuple(int(pick.integers(a, c + 1)) for a, c in zip(shapes[0], shapes[2])) for _ in range(6)]
        for shape in list(shapes) + inside:  # min, opt, max and shapes between them (odd sizes too)
            x = np.random.default_rng(sum(shape)).uniform(-8, 8, shape).astype(np.float32)
            # by hand: x * scale + shift per channel, minus the mean, each pixel repeated 2 x 2 (NEAREST, ASYMMETRIC, FLOOR)
            centered = x * w["scale"].reshape(1, 3, 1, 1) + w["shift"].reshape(1, 3, 1, 1) - w["mean"]
            want = centered.repeat(2, axis=2).repeat(2, axis=3)
            got = session.run(None, {"image": x})[0]
            assert got.shape == (shape[0], 3, shape[2] * 2, shape[3] * 2)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    builder = trt.Builder(s.TRT_LOGGER)
    network = builder.create_network(0)
    s.populate_network(network, w)
    config = builder.create_builder_config()
    s.add_profiles(builder, config)
    report = network.validate(config=config)  # min, opt and max of each profile: 6 cases, against the numpy reference
    assert report.ok and len(report.results) == 6, report.summary()
