"""DirectML strides (DML_BUFFER_TENSOR_DESC) on dml.DequantizeLinear's scale and zero point."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.errors import SpecError
from converter.lowering import build_model
from converter.reference import run_network
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.spec import parse_spec

CPU = "CPUExecutionProvider"


def _spec(shape, buffers, strides, *, x_dtype="uint8", constant=True, opset=None):
    """x of ``shape``; scale (and zero point) buffers given as arrays; constants or network inputs."""
    inputs = {"x": {"dtype": x_dtype, "shape": list(shape)}}
    constants, names = {}, ["x"]
    for role, dtype in (("scale", "float32"), ("zero_point", x_dtype)):
        if role not in buffers:
            continue
        value = np.asarray(buffers[role])
        entry = {"dtype": dtype, "shape": list(value.shape)}
        if constant:
            constants[role] = {**entry, "data": value.tolist()}
        else:
            inputs[role] = entry
        names.append(role)
    doc = {"name": "s", "network": {"inputs": inputs, "constants": constants,
                                    "layers": [{"name": "y", "op": "dml.DequantizeLinear", "inputs": names, "strides": strides}],
                                    "outputs": ["y"]},
           "cases": [{"name": "c", "inputs": {n: {"random": "uniform" if n == "scale" else "integers", "low": -3 if n == "scale" else 0,
                                                  "high": 3 if n == "scale" else 100, "seed": i} for i, n in enumerate(inputs)}}]}
    if opset:
        doc["opset"] = opset
    return parse_spec(doc, Path("s.yaml"))


def _run(spec, opset=17):
    feeds = spec.cases[0].inputs
    model = build_model(spec.network, name="s", opset=opset, provider=CPU)
    return model, OrtRunner(model.SerializeToString(), CPU).run(feeds)["y"], run_network(spec.network, feeds)["y"]


# --- validation --------------------------------------------------------------------------------------

@pytest.mark.parametrize("strides, message", [
    ({"scale": [0, 1, 0]}, r"network.layers\[0\].strides.scale: 3 strides for the rank-4 input; DirectML needs one per dimension"),
    ({"scale": [0, -1, 0, 0]}, r"network.layers\[0\].strides.scale\[1\]: -1 is not a non-negative integer"),
    ({"scale": [0, 1.5, 0, 0]}, r"network.layers\[0\].strides.scale\[1\]: 1.5 is not a non-negative integer"),
    ({"scale": [0, 2, 0, 0]}, r"network.layers\[0\].strides.scale: Sizes \[1, 3, 2, 2\] with Strides \[0, 2, 0, 0\] read 5 "
                              r"elements of buffer 'scale', which holds 3"),
    ({"input": [1, 1, 1, 1]}, r"network.layers\[0\].strides.input: the input is dense here"),
    ({"output": [1, 1, 1, 1]}, r"network.layers\[0\].strides.output: the output is dense here"),
    ({"bias": [0, 0, 0, 0]}, r"network.layers\[0\].strides.bias: unknown tensor; strides apply to scale, zero_point"),
    ({"zero_point": [0, 1, 0, 0]}, r"network.layers\[0\].strides.zero_point: the layer has no zero_point input"),
    ([0, 1, 0, 0], r"network.layers\[0\].strides: expected a mapping"),
])
def test_bad_strides_name_the_field(strides, message):
    with pytest.raises(SpecError, match=message):
        _spec([1, 3, 2, 2], {"scale": [1.0, 2.0, 3.0]}, strides)


def test_without_strides_a_buffer_of_another_shape_is_still_refused():
    with pytest.raises(SpecError, match=r"scale 'scale' has shape \[3\], input 'x' has \[1, 3, 2, 2\]"):
        _spec([1, 3, 2, 2], {"scale": [1.0, 2.0, 3.0]}, {})


def test_a_buffer_may_be_larger_than_the_view_reads():
    spec = _spec([1, 3, 2, 2], {"scale": [1.0, 2.0, 3.0, 4.0]}, {"scale": [0, 1, 0, 0]})
    x = spec.cases[0].inputs["x"].astype(np.float32)
    want = x * np.array([1.0, 2.0, 3.0], np.float32).reshape(1, 3, 1, 1)  # by hand: buffer[c]; buffer[3] is never read
    _, got, ref = _run(spec)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ref, want)


# --- what it computes, and how it lowers -------------------------------------------------------------

def test_per_channel_constant_buffers_become_one_per_axis_dequantize_linear():
    spec = _spec([2, 3, 4, 5], {"scale": [0.5, -2.0, 4.0], "zero_point": [1, 7, 200]},
                 {"scale": [0, 1, 0, 0], "zero_point": [0, 1, 0, 0]})
    model, got, ref = _run(spec)
    assert [(n.op_type, [a.i for a in n.attribute if a.name == "axis"]) for n in model.graph.node] == [("DequantizeLinear", [1])]
    x = spec.cases[0].inputs["x"].astype(np.int64)
    want = ((x - np.array([1, 7, 200]).reshape(3, 1, 1)).astype(np.float32) * np.array([0.5, -2, 4], np.float32).reshape(3, 1, 1))
    np.testing.assert_array_equal(ref, want)
    np.testing.assert_array_equal(got, want)


def test_all_zero_strides_are_one_per_tensor_dequantize_linear():
    spec = _spec([2, 3], {"scale": [0.25]}, {"scale": [0, 0]}, x_dtype="int8")
    model, got, ref = _run(spec)
    node = model.graph.node[0]
    assert node.op_type == "DequantizeLinear" and not node.attribute
    np.testing.assert_array_equal(got, spec.cases[0].inputs["x"].astype(np.float32) * np.float32(0.25))
    np.testing.assert_array_equal(ref, got)


@pytest.mark.parametrize("opset, expands", [(21, 2), (17, 0)])
def test_run_time_buffers_are_gathered_and_expanded_where_blocked(opset, expands):
    # blocked DequantizeLinear (opset 21) reads full-shape views; the decomposition (opset 17) broadcasts the compact
    # ones. The scale view reads its whole buffer in order (a Reshape); the zero point's reads 2 of 3 elements (Gather).
    spec = _spec([2, 3, 4], {"scale": [0.5, 1.0, 2.0, 4.0], "zero_point": [3, 5, 9]}, {"scale": [0, 0, 1], "zero_point": [1, 0, 0]},
                 constant=False)
    model, got, ref = _run(spec, opset)
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("Gather") == 1 and ops.count("Expand") == expands
    assert ("DequantizeLinear" in ops) == (opset == 21)
    feeds = spec.cases[0].inputs
    want = ((feeds["x"].astype(np.int64) - feeds["zero_point"][:2].reshape(2, 1, 1)).astype(np.float32)
            * feeds["scale"].reshape(1, 1, 4))
    np.testing.assert_array_equal(ref, want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("opset", [13, 17, 21])
@pytest.mark.parametrize("constant", [True, False])
@pytest.mark.parametrize("x_dtype", ["uint8", "int8", "int16", "int32", "uint32"])
def test_onnxruntime_matches_the_reference_for_overlapping_and_transposed_views(x_dtype, constant, opset):
    rng = np.random.default_rng(0)
    buffers = {"scale": rng.uniform(-4, 4, 12).astype(np.float32), "zero_point": rng.integers(0, 100, 8)}
    strides = {"scale": [1, 3, 0], "zero_point": [2, 1, 0]}  # transposed / overlapping reads; the last dimension repeats
    spec = _spec([3, 4, 2], buffers, strides, x_dtype=x_dtype, constant=constant)
    _, got, ref = _run(spec, opset)
    np.testing.assert_array_equal(got, ref)
    feeds = spec.cases[0].inputs
    x = feeds["x"].astype(np.int64)
    i, j = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    scale = feeds.get("scale", buffers["scale"])[i + 3 * j][..., None]  # run-time buffers come from the case
    zero_point = feeds.get("zero_point", buffers["zero_point"]).astype(np.int64)[2 * i + j][..., None]
    np.testing.assert_array_equal(ref, ((x - zero_point).astype(np.float32) * scale).astype(np.float32))


def test_an_empty_view_needs_no_buffer_elements():
    spec = _spec([2, 0, 3], {"scale": np.zeros(0, np.float32)}, {"scale": [0, 1, 0]}, x_dtype="int8")
    _, got, ref = _run(spec)
    assert got.shape == ref.shape == (2, 0, 3)


def test_layers_lists_the_strides_attribute():
    from converter.api import describe_layers

    text = describe_layers()
    assert "strides (default {}): mapping {scale: [...], zero_point: [...]}" in text[text.index("dml.DequantizeLinear:"):]


@pytest.mark.parametrize("target", ["tensorrt", "portable"])
def test_run_time_uint8_buffers_are_cast_to_int32_first_for_tensorrt(target):
    # TensorRT has UINT8 only as a network input/output type (onnx-tensorrt docs/operators.md): the zero point
    # buffer is cast to int32 at the input, before Reshape/Gather/Expand; the result stays exact.
    from converter.targets import Target
    from converter.targets.check import check_model

    spec = _spec([2, 3, 4], {"scale": [0.5, 1.0, 2.0, 4.0], "zero_point": [3, 250]}, {"scale": [0, 0, 1], "zero_point": [1, 0, 0]},
                 constant=False)
    model = build_model(spec.network, name="s", opset=17, provider=CPU, target=Target(target))
    assert [p for p in check_model(model, target) if p.severity == "error"] == []
    casts = [n for n in model.graph.node if n.op_type == "Cast"]
    assert casts[0].input[0] == "zero_point" and casts[0].attribute[0].i == 6  # onnx.TensorProto.INT32
    feeds = {**spec.cases[0].inputs, "zero_point": np.array([3, 250], np.uint8)}
    got = OrtRunner(model.SerializeToString(), CPU).run(feeds)["y"]
    want = ((feeds["x"].astype(np.int64) - np.array([3, 250]).reshape(2, 1, 1)).astype(np.float32)
            * feeds["scale"].reshape(1, 1, 4))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("opset", [13, 17, 21])
@pytest.mark.parametrize("constant", [True, False])
@pytest.mark.parametrize("sizes, strides", [
    ([2, 0, 3], [0, 1, 0]),  # the empty dimension has a stride: the compact view is empty too
    ([2, 0, 3], [0, 0, 1]),  # ... or stride 0: the view reads nothing, although [1, 1, 3] offsets would read 3 elements
    ([0, 3], [0, 1]),
])
def test_an_empty_view_reads_no_buffer_elements_as_a_constant_or_at_run_time(sizes, strides, constant, opset):
    # An empty view reads 0 elements (elements_read), so an empty buffer is valid. Run time: the in-order Reshape
    # would be given a 0 it cannot place (Reshape treats 0 as "copy the input's dimension" before opset 14's
    # allowzero), and stride-0 offsets [0, 1, 2] would index past the empty buffer (Gather out of bounds).
    spec = _spec(sizes, {"scale": np.zeros(0, np.float32)}, {"scale": strides}, x_dtype="int8", constant=constant)
    model = build_model(spec.network, name="s", opset=opset, provider=CPU)
    feeds = {"x": np.zeros(sizes, np.int8), **({} if constant else {"scale": np.zeros(0, np.float32)})}
    got = OrtRunner(model.SerializeToString(), CPU).run(feeds)["y"]
    assert got.shape == tuple(sizes) and got.dtype == np.float32
    assert run_network(spec.network, feeds)["y"].shape == tuple(sizes)


@pytest.mark.parametrize("opset", [13, 17, 21, 22])  # (22: the newest at which ort-cuda, in portable, runs every node)
@pytest.mark.parametrize("target", ["tensorrt", "portable"])
@pytest.mark.parametrize("strides, elements, op", [([4, 0, 1], 8, "Reshape"), ([0, 0, 1], 4, "Reshape"), ([1, 2, 0], 8, "Gather")])
def test_run_time_int8_zero_points_reach_tensorrt_as_float(target, strides, elements, op, opset):
    # onnx-tensorrt's Reshape and Gather take no int8 (int8 is a quantized type there, reached only through
    # DequantizeLinear): the buffer is dequantized with scale 1 (exact) and negated before its view, and the
    # decomposition adds that float32 view. A DequantizeLinear feeding the Reshape/Gather directly gave 0 for every
    # negative zero point (onnxruntime's QDQ propagation, opsets < 21) or failed to load (opset >= 21).
    # Expected values by hand: (x - zp[view]) * scale, all small integers times 0.5.
    from converter.targets import Target
    from converter.targets.check import check_model

    zp = np.array([-128, 127, 5, -1, 0, 3, 9, -9][:elements], np.int8)
    spec = _spec([2, 3, 4], {"scale": np.full(1, 0.5, np.float32), "zero_point": zp},
                 {"scale": [0, 0, 0], "zero_point": strides}, x_dtype="int8", constant=False)
    model = build_model(spec.network, name="s", opset=opset, provider=CPU, target=Target(target))
    assert [str(p) for p in check_model(model, target) if p.severity == "error"] == []
    assert op in [n.op_type for n in model.graph.node]
    x = np.array([-128, 127, 0, -1, 1, 64, -64, 100, -100, 3, -3, 7] * 2, np.int8).reshape(2, 3, 4)
    i, j, k = np.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing="ij")
    view = zp.astype(np.int64)[i * strides[0] + j * strides[1] + k * strides[2]]
    want = ((x.astype(np.int64) - view) * 0.5).astype(np.float32)
    feeds = {"x": x, "scale": np.full(1, 0.5, np.float32), "zero_point": zp}
    for level in ("all", "disabled"):
        np.testing.assert_array_equal(OrtRunner(model.SerializeToString(), CPU, opt_level=level).run(feeds)["y"], want)
    np.testing.assert_array_equal(run_network(spec.network, feeds)["y"], want)
