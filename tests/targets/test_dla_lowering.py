"""tensorrt-dla lowerings (FP16 natively, int8 through Q/DQ, only ops with DLA layers) and the DLA refusals
that come with them (converter/targets/dla.py). Expected values: hand computation or the numpy reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.lowering import build_model
from converter.reference import run_network
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.spec import parse_spec
from converter.targets import Target
from converter.targets.check import check_model, errors
from converter.targets.spec_rules import TargetRuleError, refuse_spec

DLA = Target("tensorrt-dla")
CPU = "CPUExecutionProvider"


def _spec(inputs, layers, outputs, opset=17):
    net = {"inputs": inputs, "layers": layers, "outputs": outputs}
    data = {n: {"random": "integers" if t["dtype"] == "int8" else "uniform", "low": -2, "high": 2, "seed": 0}
            for n, t in inputs.items()}  # (the tests feed their own values)
    return parse_spec({"name": "s", "opset": opset, "network": net, "cases": [{"name": "c", "inputs": data}]}, Path("s.yaml"))


def _lower(spec, opset=17):
    refuse_spec(spec, DLA)
    model = build_model(spec.network, name="s", opset=opset, provider=CPU, target=DLA)
    assert [p.reason for p in errors(check_model(model, DLA))] == []
    return model, {n.op_type for n in model.graph.node}




def test_float16_scale_whose_coefficients_are_float16_values_matches_the_reference_bit_for_bit():
    x = np.array([[[[1.5, -2.0009765625, 65504.0]], [[0.0999755859375, 3.0, -0.0]]]], np.float16)
    spec = _spec({"x": {"dtype": "float16", "shape": [1, 2, 1, 3]}},
                 [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "CHANNEL", "scale": [0.0999755859375, -3.0]}], ["y"])
    model, ops = _lower(spec)
    assert ops == {"Mul"}
    got = OrtRunner(model.SerializeToString(), CPU).run({"x": x})["y"]
    want = (x.astype(np.float32) * np.array([0.0999755859375, -3.0], np.float32).reshape(1, 2, 1, 1)).astype(np.float16)
    assert got.dtype == np.float16 and got.tobytes() == want.tobytes()
    assert got.tobytes() == run_network(spec.network, {"x": x})["y"].tobytes()


def test_float16_scale_with_scale_and_shift_converts_and_the_host_rounds_x_times_scale_first():
    """DLA rounds x * scale to FP16 before adding the shift, and keeps FP16 weights (0.1 -> 0.0999755859375).
    By hand, x = 7: 7 * 0.0999755859375 = 0.6998291015625 -> FP16 0.69970703125 (1433.25 steps of 2^-11);
    + 1 = 1.69970703125, a tie between 1740 and 1741 steps of 2^-10 -> 1.69921875 (even). Rounded once it would
    be 1.6998291015625 -> 1.7001953125."""
    from converter.pipeline.legalize import host_model
    from converter.reference import arithmetic_differs

    spec = _spec({"x": {"dtype": "float16", "shape": [1, 1, 1, 2]}},
                 [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM", "scale": [0.1], "shift": [1]}], ["y"])
    model, ops = _lower(spec)  # converts (no refusal) and passes its own check
    assert ops == {"BatchNormalization"}  # one IScaleLayer
    host, changes, changed = host_model(model, dla=True)
    assert changed == 1 and changes
    x = np.array([[[[7.0, 1.0]]]], np.float16)
    got = OrtRunner(host.SerializeToString(), CPU).run({"x": x})["y"]
    assert got[0, 0, 0, 0] == np.float16(1.69921875)
    assert got.tobytes() == run_network(spec.network, {"x": x}, arithmetic="tensorrt-dla")["y"].tobytes()
    assert run_network(spec.network, {"x": x})["y"][0, 0, 0, 0] == np.float16(1.7001953125)  # the spec's arithmetic
    assert arithmetic_differs(spec.network, "tensorrt-dla") and not arithmetic_differs(spec.network, None)


def test_int8_div_converts_for_dla_truncating_with_its_extra_layers_as_gpu_fallback():
    """The seeds allow DIV on DLA with at most one constant input and name no type (ElementWise "DLA 支持"), so
    int8 DIV converts. Without a range it truncates toward zero with 0/0 -> 0 (docs/semantics.md, ElementWise):
    Sign/Floor (IUnaryLayer kSIGN/kFLOOR: DLA runs kABS only, NvInfer.h:2810) and IsNaN/Where (ISelectLayer:
    not a DLA layer) are GPU-fallback warnings, never errors. By hand: 7/2 = 3.5 -> 3, -7/2 -> -3, 0/0 -> 0,
    5/0 = inf -> 127, -128/-1 = 128 -> 127, -5/0 = -inf -> -128."""
    shape = {"dtype": "int8", "shape": [1, 1, 1, 6]}
    spec = _spec({"a": dict(shape), "b": dict(shape)},
                 [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": "DIV"}], ["y"])
    model, ops = _lower(spec)  # no refusal, no check error
    assert {"DequantizeLinear", "Div", "QuantizeLinear"} <= ops
    warnings = [p.reason for p in check_model(model, DLA) if p.severity == "warning"]
    assert any("kSIGN" in w and "NvInfer.h:2810" in w for w in warnings)
    assert any("kFLOOR" in w and "NvInfer.h:2810" in w for w in warnings)
    assert any("ISelectLayer" in w for w in warnings) and all(w.startswith("GPU fallback") for w in warnings)
    a = np.array([7, -7, 0, 5, -128, -5], np.int8).reshape(1, 1, 1, 6)
    b = np.array([2, 2, 0, 0, -1, 0], np.int8).reshape(1, 1, 1, 6)
    got = OrtRunner(model.SerializeToString(), CPU).run({"a": a, "b": b})["y"]
    assert got.ravel().tolist() == [3, -3, 0, 127, 127, -128]
    assert got.tobytes() == run_network(spec.network, {"a": a, "b": b})["y"].tobytes()


def test_plain_int8_div_by_a_nonzero_constant_needs_no_nan_step():
    """x / c with c a constant without zeros is never 0/0: no IsNaN/Where; the truncation (Sign, Floor) stays.
    By hand: 7/-3 = -2.33 -> -2, -128/2 = -64, 127/-3 = -42.33 -> -42, 1/2 -> 0."""
    spec = parse_spec({"name": "s", "opset": 17, "network": {
        "inputs": {"a": {"dtype": "int8", "shape": [1, 2, 1, 2]}},
        "constants": {"c": {"dtype": "int8", "shape": [1, 2, 1, 1], "data": [[[[-3]], [[2]]]]}},
        "layers": [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "c"], "operation": "DIV"}],
        "outputs": ["y"]}, "cases": [{"name": "c", "inputs": {"a": {"random": "integers", "seed": 0}}}]}, Path("s.yaml"))
    model, ops = _lower(spec)
    assert not ops & {"IsNaN", "Where"} and {"Sign", "Floor"} <= ops
    a = np.array([7, 127, -128, 1], np.int8).reshape(1, 2, 1, 2)
    got = OrtRunner(model.SerializeToString(), CPU).run({"a": a})["y"]
    assert got.ravel().tolist() == [-2, -42, -64, 0]
    assert got.tobytes() == run_network(spec.network, {"a": a})["y"].tobytes()


def test_int8_div_by_a_nonzero_constant_with_a_range_is_all_dla_q_dq_around_one_div():
    """A quantized DIV (dynamic range: the real quotient, rounded half to even; docs/semantics.md) by a constant
    without zeros cannot give 0/0, so no NaN step: DequantizeLinear, Div, QuantizeLinear, all DLA layers, and
    the importer view shows IDequantizeLayer -> IElementWiseLayer kDIV -> IQuantizeLayer with per-tensor
    (scalar) scales. By hand (all scales 1, range 127): 7/2 = 3.5 -> 4, -7/2 -> -4, 5/2 = 2.5 -> 2 (even),
    1/2 = 0.5 -> 0, 127/2 = 63.5 -> 64, -128/2 = -64."""
    from converter.targets.trt_importer import importer_view

    spec = parse_spec({"name": "s", "opset": 17, "network": {
        "inputs": {"a": {"dtype": "int8", "shape": [1, 1, 1, 6]}},
        "constants": {"two": {"dtype": "int8", "shape": [1, 1, 1, 1], "data": [[[[2]]]]}},
        "layers": [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "two"], "operation": "DIV", "dynamic_range": 127}],
        "outputs": ["y"]}, "cases": [{"name": "c", "inputs": {"a": {"random": "integers", "seed": 0}}}]}, Path("s.yaml"))
    model, ops = _lower(spec)
    assert ops == {"DequantizeLinear", "Div", "QuantizeLinear"}
    assert [p.reason for p in check_model(model, DLA)] == []  # not even a GPU-fallback warning
    kinds = [(l.kind, l.attr("op")) for l in importer_view(model)]
    assert kinds == [("IDequantizeLayer", None), ("IDequantizeLayer", None), ("IElementWiseLayer", "kDIV"),
                     ("IQuantizeLayer", None)]
    inits = {i.name: i for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type in ("QuantizeLinear", "DequantizeLinear"):
            assert list(inits[node.input[1]].dims) == []  # a scalar scale: per-tensor quantization
    a = np.array([7, -7, 5, 1, 127, -128], np.int8).reshape(1, 1, 1, 6)
    got = OrtRunner(model.SerializeToString(), CPU).run({"a": a})["y"]
    assert got.ravel().tolist() == [4, -4, 2, 0, 64, -64]
    assert got.tobytes() == run_network(spec.network, {"a": a})["y"].tobytes()


def test_float16_div_and_less_stay_in_float16():
    a = np.array([[[[1, 2, -7, 65504]]]], np.float16)
    b = np.array([[[[3, 3, 0.0999755859375, 0.5]]]], np.float16)
    for op, onnx_op in (("DIV", "Div"), ("LESS", "Less")):
        spec = _spec({"a": {"dtype": "float16", "shape": [1, 1, 1, 4]}, "b": {"dtype": "float16", "shape": [1, 1, 1, 4]}},
                     [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": op}], ["y"])
        model, ops = _lower(spec)
        assert ops == {onnx_op}
        got = OrtRunner(model.SerializeToString(), CPU).run({"a": a, "b": b})["y"]
        with np.errstate(over="ignore"):
            want = (a.astype(np.float32) / b.astype(np.float32)).astype(np.float16) if op == "DIV" else a < b
        assert got.tobytes() == np.asarray(want).tobytes()  # 65504 / 0.5 overflows to inf in both


def test_int8_to_float16_dequantize_with_a_run_time_zero_point_is_float16_and_exact():
    spec = _spec({"x": {"dtype": "int8", "shape": [2, 3]}, "s": {"dtype": "float16", "shape": [2, 3]},
                  "zp": {"dtype": "int8", "shape": [2, 3]}},
                 [{"name": "y", "op": "dml.DequantizeLinear", "inputs": ["x", "s", "zp"]}], ["y"], opset=21)
    model, ops = _lower(spec, opset=21)
    assert ops == {"DequantizeLinear", "Sub", "Mul"}
    feeds = {"x": np.array([[-128, 127, 0], [5, -5, 100]], np.int8),
             "s": np.array([[0.0999755859375, 3, -1], [65504, 0.5, 1e-4]], np.float16),
             "zp": np.array([[127, -128, 0], [5, 1, -100]], np.int8)}
    got = OrtRunner(model.SerializeToString(), CPU).run(feeds)["y"]
    # by hand: (x - zp) exactly, times the scale in float32, rounded once to float16
    want = ((feeds["x"].astype(np.int32) - feeds["zp"]).astype(np.float32) * feeds["s"].astype(np.float32)).astype(np.float16)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("role", ["scale", "zero_point"])
def test_strided_run_time_buffers_are_refused_for_dla_and_constant_ones_lower(role):
    # A run-time view is Reshape/Gather (no DLA layer); a constant buffer is read through its strides at conversion.
    inputs = {"x": {"dtype": "int8", "shape": [1, 2, 1, 2]}, "s": {"dtype": "float16", "shape": [2]},
              "zp": {"dtype": "int8", "shape": [2]}}
    layer = {"name": "y", "op": "dml.DequantizeLinear", "inputs": ["x", "s", "zp"], "strides": {role: [0, 1, 0, 0]}}
    dense = {"scale": "s", "zero_point": "zp"}
    other = "zp" if role == "scale" else "s"
    inputs[other]["shape"] = [1, 2, 1, 2]
    with pytest.raises(TargetRuleError, match=rf"strides on the run-time {role} '{dense[role]}': its view needs Reshape"):
        refuse_spec(_spec(inputs, [layer], ["y"], opset=21), DLA)
    buffer = {"dtype": inputs[dense[role]]["dtype"], "shape": [2], "data": [0.5, -2.0] if role == "scale" else [3, -4]}
    del inputs[dense[role]]
    spec = parse_spec({"name": "s", "opset": 21, "network": {"inputs": inputs, "constants": {dense[role]: buffer},
                                                              "layers": [layer], "outputs": ["y"]},
                       "cases": [{"name": "c", "inputs": {n: {"random": "integers", "seed": 0} for n in inputs}}]}, Path("s.yaml"))
    model, _ = _lower(spec, opset=21)
    feeds = {"x": np.array([-128, 127, 5, -5], np.int8).reshape(1, 2, 1, 2),
             "s": np.array([0.5, 4, -1, 2], np.float16).reshape(1, 2, 1, 2),
             "zp": np.array([1, -1, 0, 127], np.int8).reshape(1, 2, 1, 2)}
    feeds = {n: v for n, v in feeds.items() if n in inputs}
    got = OrtRunner(model.SerializeToString(), CPU).run(feeds)["y"]
    # by hand: channel c reads buffer[c]
    if role == "scale":
        want = np.array([(-128 - 1) * 0.5, (127 + 1) * 0.5, (5 - 0) * -2.0, (-5 - 127) * -2.0], np.float16)
    else:
        want = np.array([(-128 - 3) * 0.5, (127 - 3) * 4, (5 + 4) * -1, (-5 + 4) * 2], np.float16)
    assert got.tobytes() == want.reshape(1, 2, 1, 2).tobytes()


def test_int8_sum_with_a_dynamic_range_needs_no_nan_handling_on_dla():
    spec = _spec({"a": {"dtype": "int8", "shape": [1, 1, 1, 3], "dynamic_range": 63.5},
                  "b": {"dtype": "int8", "shape": [1, 1, 1, 3]}},
                 [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": "SUM", "dynamic_range": 254}], ["y"])
    model, ops = _lower(spec)
    assert ops == {"DequantizeLinear", "Add", "QuantizeLinear"}
    feeds = {"a": np.array([[[[-128, 3, 127]]]], np.int8), "b": np.array([[[[-128, 5, 127]]]], np.int8)}
    got = OrtRunner(model.SerializeToString(), CPU).run(feeds)["y"]
    # real a = q * 0.5, b scale 1; y = (a + b) / 2 rounded half to even: (-64-128)/2 = -96; (1.5+5)/2 = 3.25 -> 3; (63.5+127)/2 = 95.25 -> 95
    assert got.tolist() == [[[[-96, 3, 95]]]]


def test_int8_dla_export_keeps_explicit_quantization_per_tensor_q_dq_around_the_layer():
    """The tensorrt-dla deployment model keeps INT8 as explicit quantization (docs/deployment.md, "INT8 on DLA"):
    the importer view is IDequantizeLayer -> IScaleLayer -> IQuantizeLayer, each Q/DQ with one scalar scale
    (per-tensor: the DLA calibrator's per activation tensor scaling, NvInfer.h:7920) equal to range / 127 in
    float32. By hand, input scale fl(12.7) / 127 (0.1 in float32), output scale 63.5 / 127 = 0.5:
    channel 0 (2x + 1): x = 10, -20, 5 -> 3, -3, 2 -> 6, -6, 4; channel 1 (-0.5x): x = 3, 7, -128 ->
    -0.15, -0.35, 6.4 -> -0.3 (-> 0), -0.7 (-> -1), 12.8 (-> 13)."""
    from onnx import numpy_helper

    from converter.targets.trt_importer import importer_view

    spec = parse_spec({"name": "s", "opset": 17, "network": {
        "inputs": {"x": {"dtype": "int8", "shape": [1, 2, 1, 3], "dynamic_range": 12.7}},
        "layers": [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "CHANNEL", "scale": [2, -0.5],
                    "shift": [1, 0], "dynamic_range": 63.5}],
        "outputs": ["y"]}, "cases": [{"name": "c", "inputs": {"x": {"random": "integers", "seed": 0}}}]}, Path("s.yaml"))
    model, _ = _lower(spec)
    assert [p.reason for p in check_model(model, DLA)] == []  # every node a DLA layer
    layers = importer_view(model)
    assert [(l.kind, l.inputs, l.outputs) for l in layers] == [
        ("IDequantizeLayer", ("kINT8",), ("kFLOAT",)), ("IScaleLayer", ("kFLOAT",), ("kFLOAT",)),
        ("IQuantizeLayer", ("kFLOAT",), ("kINT8",))]
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    scales = [inits[n.input[1]] for n in model.graph.node if n.op_type in ("DequantizeLinear", "QuantizeLinear")]
    assert [s.shape for s in scales] == [(), ()]  # per-tensor
    assert scales[0] == np.float32(12.7) / np.float32(127) and scales[1] == np.float32(0.5)
    x = np.array([10, -20, 5, 3, 7, -128], np.int8).reshape(1, 2, 1, 3)
    got = OrtRunner(model.SerializeToString(), CPU).run({"x": x})["y"]
    assert got.ravel().tolist() == [6, -6, 4, 0, -1, 13]
    assert got.tobytes() == run_network(spec.network, {"x": x})["y"].tobytes()
