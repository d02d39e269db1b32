"""The deployment model (convert --target tensorrt) and its host-legalized copy (converter/pipeline/legalize.py).

Expected values: hand computation (NEAREST indices, FP16 roundings) or the independent numpy reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from converter.pipeline.legalize import host_model
from converter.lowering import build_model
from converter.reference import run_network
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.spec import parse_spec
from converter.targets import Target
from converter.targets.check import check_model, errors
from converter.targets.dla_guide import FALLBACK
from converter.targets.trt_importer import importer_view

TRT = Target("tensorrt")


def _spec(inputs, layers, outputs=("y",)):
    net = {"inputs": inputs, "layers": layers, "outputs": list(outputs)}
    data = {n: {"random": "integers" if t["dtype"].startswith("int") else "uniform", "low": -2, "high": 2, "seed": 0}
            for n, t in inputs.items()}
    return parse_spec({"name": "s", "network": net, "cases": [{"name": "c", "inputs": data}]}, Path("s.yaml"))


def _deploy(spec, target=TRT, opset=17):
    model = build_model(spec.network, name="s", opset=opset, target=target)
    assert [str(p) for p in errors(check_model(model, target))] == []
    return model


def _ops(model):
    return [n.op_type for n in model.graph.node]


def test_float16_scale_is_one_batch_normalization_without_casts_and_the_host_rounds_once_at_the_layer_output():
    spec = _spec({"x": {"dtype": "float16", "shape": [1, 2, 1, 3]}},
                 [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "CHANNEL", "scale": [0.5, 3], "shift": [1, -0.25]}])
    model = _deploy(spec)
    before = model.SerializeToString()
    assert _ops(model) == ["BatchNormalization"]
    assert model.graph.node[0].input[1] and all(t.data_type == 10 for t in model.graph.initializer)  # FP16 weights
    host, changes, changed = host_model(model)
    assert model.SerializeToString() == before  # the host pass never changes the deployment model
    assert changed == 1 and changes[0].startswith("y: float16 computed in float32")
    assert _ops(host) == ["Cast", "BatchNormalization", "Cast"]
    x = np.array([[[[1.0009765625, -3, 65504]], [[0.0999755859375, 2, -0.0]]]], np.float16)
    got = OrtRunner(host.SerializeToString()).run({"x": x})["y"]
    # by hand, channel 0: x * 0.5 + 1 -> 1.50048828125 -> FP16 1.5 (a tie between steps of 2^-10, to even); -0.5;
    # 65504 * 0.5 + 1 = 32753 -> FP16 32752 (steps of 16 in [2^14, 2^15))
    assert got[0, 0, 0].tolist() == [1.5, -0.5, 32752.0]
    assert got.tobytes() == run_network(spec.network, {"x": x}, arithmetic="tensorrt")["y"].tobytes()


def test_weights_that_float16_cannot_hold_are_rounded_with_a_warning_and_the_reference_rounds_them_too():
    spec = _spec({"x": {"dtype": "float16", "shape": [1, 1, 1, 2]}},
                 [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM", "scale": [0.1]}])
    model = _deploy(spec)
    props = {p.key: p.value for p in model.metadata_props}
    assert "warning: scale holds values that float16 cannot hold" in props["spec2onnx.legalizations"]
    x = np.array([[[[7, 3]]]], np.float16)
    got = OrtRunner(host_model(model)[0].SerializeToString()).run({"x": x})["y"]
    # 0.1 -> FP16 0.0999755859375; 7 * that = 0.6998291015625 -> FP16 0.69970703125 (1433.25 steps of 2^-11)
    assert got[0, 0, 0, 0] == np.float16(0.69970703125)
    assert got.tobytes() == run_network(spec.network, {"x": x}, arithmetic="tensorrt")["y"].tobytes()


@pytest.mark.parametrize("operation, onnx_op", [("SUM", "Add"), ("PROD", "Mul"), ("DIV", "Div"), ("POWER", "Pow"),
                                                ("MAX", "Max"), ("EQUAL", "Equal"), ("LESS", "Less")])
def test_float16_elementwise_is_its_one_onnx_op(operation, onnx_op):
    spec = _spec({"a": {"dtype": "float16", "shape": [1, 2, 2, 2]}, "b": {"dtype": "float16", "shape": [1, 2, 1, 1]}},
                 [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": operation}])
    model = _deploy(spec)
    assert _ops(model) == [onnx_op]
    a = np.linspace(-2, 2, 8, dtype=np.float16).reshape(1, 2, 2, 2)
    b = np.array([0.75, 3], np.float16).reshape(1, 2, 1, 1)
    got = OrtRunner(host_model(model)[0].SerializeToString()).run({"a": a, "b": b})["y"]
    want = run_network(spec.network, {"a": a, "b": b})["y"]
    np.testing.assert_array_equal(got, want)


def test_nearest_where_onnxruntime_is_one_off_is_one_resize_deployed_and_exact_gathers_on_the_host():
    """14 -> 8 ASYMMETRIC FLOOR: index floor(i * 14 / 8) = 0 1 3 5 7 8 10 12 (onnxruntime's float32 scale 8/14 is
    one off at i = 4: 4 / fl(8/14) = 6.9999...; tests/lowering/test_resize.py ORT_OFF)."""
    spec = _spec({"x": {"dtype": "float32", "shape": [1, 14]}},
                 [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "shape": [1, 8]}])
    model = _deploy(spec)
    assert _ops(model) == ["Resize"]
    attrs = {a.name: helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
    assert attrs["coordinate_transformation_mode"] == b"asymmetric" and attrs["nearest_mode"] == b"floor"
    host, changes, _ = host_model(model)
    assert _ops(host) == ["Gather"] and "NEAREST" in changes[0]
    x = np.arange(14, dtype=np.float32).reshape(1, 14)
    assert OrtRunner(host.SerializeToString()).run({"x": x})["y"].tolist() == [[0, 1, 3, 5, 7, 8, 10, 12]]


def test_half_pixel_upper_is_pytorch_half_pixel_and_cubic_is_one_resize():
    spec = _spec({"x": {"dtype": "float16", "shape": [2, 3, 4]}},
                 [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "shape": [2, 5, 7], "resize_mode": "CUBIC",
                   "coordinate_transformation": "HALF_PIXEL", "selector_for_single_pixel": "UPPER", "cubic_coeff": -0.5}])
    model = _deploy(spec)
    assert _ops(model) == ["Resize"]
    attrs = {a.name: helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
    assert attrs["mode"] == b"cubic" and attrs["cubic_coeff_a"] == -0.5
    assert attrs["coordinate_transformation_mode"] == b"pytorch_half_pixel"
    host, changes, _ = host_model(model)  # rank 3 cubic: folded to [1, 2, H, W] for onnxruntime, in float32
    assert _ops(host) == ["Cast", "Reshape", "Resize", "Reshape", "Cast"]
    x = np.linspace(-1, 1, 24, dtype=np.float16).reshape(2, 3, 4)
    got = OrtRunner(host.SerializeToString()).run({"x": x})["y"]
    np.testing.assert_allclose(got.astype(np.float32), run_network(spec.network, {"x": x})["y"].astype(np.float32),
                               atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("shape, mode", [([3], "LINEAR"), ([1], "LINEAR"), ([2, 1, 1, 1, 1, 3], "LINEAR"),
                                         ([3, 2, 1], "CUBIC")])
def test_a_resize_to_its_own_shape_that_onnxruntime_refuses_at_that_rank_is_folded_on_the_host(shape, mode):
    # found by the target property test: onnxruntime's ScalesValidation refuses a rank-1 'Linear' Resize even with
    # scale 1 (upsamplebase.h: "'Linear' mode only supports 2-D inputs or 3-D inputs ..."); the host copy folds it
    spec = _spec({"x": {"dtype": "float32", "shape": shape}},
                 [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "shape": shape, "resize_mode": mode}])
    host, changes, _ = host_model(_deploy(spec))
    assert _ops(host) == ["Reshape", "Resize", "Reshape"] and "folded" in changes[0]
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    np.testing.assert_array_equal(OrtRunner(host.SerializeToString()).run({"x": x})["y"], x)  # resized to itself


def test_integer_floor_div_keeps_its_exact_nodes_each_saying_why():
    spec = _spec({"a": {"dtype": "int32", "shape": [1, 1, 1, 4]}, "b": {"dtype": "int32", "shape": [1, 1, 1, 4]}},
                 [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": "FLOOR_DIV"}])
    model = _deploy(spec)
    assert len(model.graph.node) > 1 and all(n.doc_string for n in model.graph.node)


# --- Resize fed scales: DLA's IResizeLayer takes scales, not output dimensions (docs/deployment.md) ---------------

DLA = Target("tensorrt-dla")


def _resize_spec(dtype, in_shape, **attrs):
    return _spec({"x": {"dtype": dtype, "shape": in_shape}}, [{"name": "y", "op": "trt.Resize", "inputs": ["x"], **attrs}])


def _inits(model):
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def test_dla_nearest_x2_given_scales_is_fed_scales_imports_with_set_scales_and_stays_on_dla():
    spec = _resize_spec("float16", [1, 2, 2, 3], scales=[1, 1, 2, 2])
    model = _deploy(spec, DLA)
    (node,) = model.graph.node
    # ONNX Resize(X, roi, scales): onnx-tensorrt calls IResizeLayer::setScales for constant scales (onnxOpImporters.cpp:4624)
    assert node.op_type == "Resize" and list(node.input)[:2] == ["x", ""] and len(node.input) == 3
    assert _inits(model)[node.input[2]].tolist() == [1, 1, 2, 2] and _inits(model)[node.input[2]].dtype == np.float32
    (layer,) = importer_view(model)
    assert layer.kind == "IResizeLayer" and layer.attr("scales") == (1.0, 1.0, 2.0, 2.0) and layer.attr("output_dims") is None
    assert (layer.attr("mode"), layer.attr("coordinate_transformation"), layer.attr("nearest_rounding")) == \
        ("kNEAREST", "kASYMMETRIC", "kFLOOR")
    assert not [p for p in check_model(model, DLA) if p.reason.startswith(FALLBACK)]
    # the host copy: NEAREST x2, ASYMMETRIC FLOOR, index floor(i / 2): every pixel repeated 2 x 2 (by hand)
    host, _, _ = host_model(model)
    x = np.arange(12, dtype=np.float16).reshape(1, 2, 2, 3) - 5.5
    want = x.repeat(2, axis=2).repeat(2, axis=3)
    assert OrtRunner(host.SerializeToString()).run({"x": x})["y"].tobytes() == want.tobytes()
    # the same layer given its output shape: output dimensions, which DLA does not run (NvInfer.h:4103): GPU fallback
    by_shape = _deploy(_resize_spec("float16", [1, 2, 2, 3], shape=[1, 2, 4, 6]), DLA)
    assert importer_view(by_shape)[0].attr("output_dims") == (1, 2, 4, 6)
    assert any("output dimensions (sizes) instead of scales" in p.reason for p in check_model(by_shape, DLA))


def test_a_scale_that_is_not_exact_keeps_sizes_because_onnx_would_map_coordinates_by_it():
    """5 -> 6 at scale 1.3 (floor(6.5) = 6), ASYMMETRIC FLOOR: the spec's index is floor(i * 5 / 6) = 0 0 1 2 3 4;
    ONNX with scales maps by 1 / 1.3 and takes floor(5 / 1.3) = 3 at i = 5 (onnxruntime, run below)."""
    spec = _resize_spec("float32", [1, 1, 1, 5], scales=[1, 1, 1, 1.3])
    model = _deploy(spec)
    (node,) = model.graph.node
    assert len(node.input) == 4 and node.input[2] == "" and _inits(model)[node.input[3]].tolist() == [1, 1, 1, 6]
    assert importer_view(model)[0].attr("output_dims") == (1, 1, 1, 6)
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 1, 5)
    host = OrtRunner(host_model(model)[0].SerializeToString())
    assert host.run({"x": x})["y"].ravel().tolist() == [0, 0, 1, 2, 3, 4]
    by_scales = onnx.ModelProto()
    by_scales.CopyFrom(model)
    del by_scales.graph.node[0].input[3:]
    by_scales.graph.node[0].input[2] = "s"
    by_scales.graph.initializer.append(numpy_helper.from_array(np.array([1, 1, 1, 1.3], np.float32), "s"))
    assert OrtRunner(by_scales.SerializeToString()).run({"x": x})["y"].ravel().tolist() == [0, 0, 1, 2, 3, 3]


@pytest.mark.parametrize("dtype, shape, attrs, host_ops", [
    # int8 NEAREST x2: Q/DQ around one Resize fed scales
    ("int8", [1, 1, 2, 3], {"scales": [1, 1, 2, 2]}, ["DequantizeLinear", "Max", "Resize", "QuantizeLinear"]),
    # rank-3 CUBIC: onnxruntime needs it folded; the host fold gets sizes (rule 7, then rule 3)
    ("float32", [2, 3, 4], {"scales": [1, 2, 0.5], "resize_mode": "CUBIC", "coordinate_transformation": "HALF_PIXEL"},
     ["Reshape", "Resize", "Reshape"]),
    # LINEAR HALF_PIXEL x2, float16 (a DLA combination): one Resize fed scales, computed in float32 on the host
    ("float16", [1, 2, 3, 3], {"scales": 2, "resize_mode": "LINEAR", "coordinate_transformation": "HALF_PIXEL"},
     ["Cast", "Resize", "Cast"]),
    # 14 -> 7: NEAREST HALF_PIXEL HALF_UP; scale 0.5 is exact (14 * 0.5 = 7)
    ("float32", [1, 14], {"scales": [1, 0.5], "coordinate_transformation": "HALF_PIXEL", "nearest_rounding": "HALF_UP"},
     None),
])
def test_a_resize_fed_scales_runs_on_the_host_as_the_reference_computes_it(dtype, shape, attrs, host_ops):
    spec = _resize_spec(dtype, shape, **attrs)
    target = DLA if dtype in ("float16", "int8") and attrs.get("resize_mode", "NEAREST") != "CUBIC" else TRT
    model = _deploy(spec, target)
    resize = next(n for n in model.graph.node if n.op_type == "Resize")
    assert len(resize.input) == 3 and resize.input[2] in _inits(model)  # fed scales
    host, _, _ = host_model(model)
    if host_ops is not None:
        assert _ops(host) == host_ops
    rng = np.random.default_rng(1)
    x = (rng.integers(-128, 128, shape) if dtype == "int8" else rng.uniform(-4, 4, shape)).astype(dtype)
    got = OrtRunner(host.SerializeToString()).run({"x": x})["y"]
    want = run_network(spec.network, {"x": x}, arithmetic=target.name)["y"]
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), atol=1e-5 if dtype == "float32" else 0, rtol=0)
