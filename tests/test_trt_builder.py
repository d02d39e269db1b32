"""spec2onnx.trt: TensorRT Python code ports by changing the import; outputs are checked against the
values TensorRT's documents print (the seeds, the TensorRT cookbook) or hand computation."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from click.testing import CliRunner

import spec2onnx
from spec2onnx import trt


def run(network: "trt.Network", feeds: dict) -> list[np.ndarray]:
    """The network's outputs on onnxruntime (the model to_onnx gives)."""
    session = ort.InferenceSession(network.to_onnx(target="ort-cpu").SerializeToString())
    return session.run(None, {t.name: v for t, v in feeds.items()})


def test_cookbook_scale_example_ports_by_changing_the_import():
    # NVIDIA/trt-samples-for-hackathon-cn, cookbook "Scale layer", first example (network part, verbatim)
    nIn, cIn, hIn, wIn = 1, 3, 3, 3
    data = np.arange(1, 1 + nIn * cIn * wIn * wIn, dtype=np.float32).reshape(nIn, cIn, hIn, wIn)
    logger = trt.Logger(trt.Logger.ERROR)
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    inputT0 = network.add_input('inputT0', trt.DataType.FLOAT, (nIn, cIn, hIn, wIn))
    scale = np.array([0.5], dtype=np.float32)
    shift = np.array([-7.0], dtype=np.float32)
    power = np.array([1.0], dtype=np.float32)
    scaleLayer = network.add_scale(inputT0, trt.ScaleMode.UNIFORM, shift, scale, power)
    network.mark_output(scaleLayer.get_output(0))
    # the output the cookbook prints: -6.5 ... 6.5 in steps of 0.5
    printed = np.arange(-6.5, 7.0, 0.5, dtype=np.float32).reshape(1, 3, 3, 3)
    np.testing.assert_array_equal(run(network, {inputT0: data})[0], printed)
    assert scaleLayer.get_output(0).shape == (1, 3, 3, 3) and scaleLayer.get_output(0).dtype == trt.float32
    report = network.validate({"inputs": {inputT0: data}, "expected": {scaleLayer.get_output(0): printed}})
    assert report.ok, report.summary()


def test_cookbook_add_scale_nd_with_channel_axis_0():
    # the cookbook's add_scale_nd example: channel_axis 0 scales along N; zeros in, shift per batch out
    data = np.zeros([2, 2, 3, 4], dtype=np.float32)
    network = trt.Builder(trt.Logger(trt.Logger.ERROR)).create_network(0)
    inputT0 = network.add_input('inputT0', trt.DataType.FLOAT, (2, 2, 3, 4))
    scale = np.array([1.0, 1.0], dtype=np.float32)
    shift = np.array([2.0, 3.0], dtype=np.float32)
    power = np.array([1.0, 1.0], dtype=np.float32)
    scaleLayer = network.add_scale_nd(inputT0, trt.ScaleMode.CHANNEL, shift, scale, power, 0)
    scaleLayer.channel_axis = 0
    network.mark_output(scaleLayer.get_output(0))
    out = run(network, {inputT0: data})[0]
    np.testing.assert_array_equal(out[0], np.full((2, 3, 4), 2.0))
    np.testing.assert_array_equal(out[1], np.full((2, 3, 4), 3.0))


def test_seed_elementwise_broadcast_example():
    network = trt.Network()
    in1 = network.add_input("input1", dtype=trt.float32, shape=(2, 3))
    in2 = network.add_input("input2", dtype=trt.float32, shape=(1, 3))
    layer = network.add_elementwise(in1, in2, op=trt.ElementWiseOperation.PROD)
    network.mark_output(layer.get_output(0))
    inputs = {in1: np.array([[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], np.float32), in2: np.array([[4.0, 5.0, 6.0]], np.float32)}
    expected = np.array([[-12.0, -10.0, -6.0], [0.0, 5.0, 12.0]])
    np.testing.assert_array_equal(run(network, inputs)[0], expected)
    assert layer.get_output(0).shape == (2, 3)


def test_pow_is_tensorrts_name_of_power_and_comparisons_give_bool():
    network = trt.Network()
    a = network.add_input("a", trt.float32, (1, 3))
    b = network.add_input("b", trt.float32, (1, 3))
    power = network.add_elementwise(a, b, trt.ElementWiseOperation.POW)
    less = network.add_elementwise(a, b, trt.ElementWiseOperation.LESS)
    network.mark_output(power.get_output(0))
    network.mark_output(less.get_output(0))
    assert less.get_output(0).dtype == trt.bool
    got = run(network, {a: np.array([[2, 3, 4]], np.float32), b: np.array([[3, 2, 0.5]], np.float32)})
    np.testing.assert_array_equal(got[0], [[8, 9, 2]])
    np.testing.assert_array_equal(got[1], [[True, False, False]])


def test_seed_resize_examples_linear_align_corners_and_nearest_by_scales():
    network = trt.Network()
    x = network.add_input("input", dtype=trt.float32, shape=(1, 1, 3, 3))
    linear = network.add_resize(x)
    linear.resize_mode = trt.InterpolationMode.LINEAR
    linear.shape = (1, 1, 5, 5)
    linear.coordinate_transformation = trt.ResizeCoordinateTransformation.ALIGN_CORNERS
    nearest = network.add_resize(x)
    nearest.resize_mode = trt.InterpolationMode.NEAREST
    nearest.scales = (1, 1, 2, 2)
    nearest.coordinate_transformation = trt.ResizeCoordinateTransformation.ALIGN_CORNERS
    network.mark_output(linear.get_output(0))
    network.mark_output(nearest.get_output(0))
    got = run(network, {x: np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)})
    np.testing.assert_array_equal(got[0][0, 0], [[0, 0.5, 1, 1.5, 2], [1.5, 2, 2.5, 3, 3.5], [3, 3.5, 4, 4.5, 5],
                                                 [4.5, 5, 5.5, 6, 6.5], [6, 6.5, 7, 7.5, 8]])
    np.testing.assert_array_equal(got[1][0, 0], [[0, 0, 0, 1, 1, 2]] * 3 + [[3, 3, 3, 4, 4, 5]] * 2 + [[6, 6, 6, 7, 7, 8]])
    assert nearest.get_output(0).shape == (1, 1, 6, 6)


def test_resize_properties_default_as_in_tensorrt_and_a_shape_tensor_sets_the_size():
    network = trt.Network()
    x = network.add_input("x", trt.float32, (1, 1, 2, 2))
    layer = network.add_resize(x)
    assert (layer.resize_mode, layer.coordinate_transformation, layer.selector_for_single_pixel, layer.nearest_rounding,
            layer.cubic_coeff) == (trt.InterpolationMode.NEAREST, trt.ResizeCoordinateTransformation.ASYMMETRIC,
                                   trt.ResizeSelector.FORMULA, trt.ResizeRoundMode.FLOOR, -0.75)
    network.mark_output(layer.get_output(0))
    data = np.array([[[[1, 2], [3, 4]]]], np.float32)
    np.testing.assert_array_equal(run(network, {x: data})[0], data)  # no shape, no scales: the input's shape
    size = network.add_constant([4], np.array([1, 1, 4, 4], dtype=np.int32))
    layer.set_input(1, size.get_output(0))
    layer.nearest_rounding = trt.ResizeRoundMode.HALF_UP
    assert layer.shape is None and layer.num_inputs == 2
    # ASYMMETRIC x2: x_in = x_out / 2 rounded half up: 0, 0.5 -> 1, 1, 1.5 -> 2 (clamped to 1)
    np.testing.assert_array_equal(run(network, {x: data})[0][0, 0], [[1, 2, 2, 2], [3, 4, 4, 4], [3, 4, 4, 4], [3, 4, 4, 4]])


def test_cubic_coefficient_reaches_the_model():
    network = trt.Network()
    x = network.add_input("x", trt.float32, (1, 1, 4, 4))
    layer = network.add_resize(x)
    layer.resize_mode = trt.ResizeMode.CUBIC
    layer.cubic_coeff = -0.5
    layer.shape = [1, 1, 8, 8]
    network.mark_output(layer.get_output(0))
    assert network.to_spec_dict()["network"]["layers"][0]["cubic_coeff"] == -0.5
    assert network.validate().ok


def test_errors_name_the_call_and_the_argument():
    network = trt.Network()
    x = network.add_input("x", trt.float32, (1, 3, 2, 2))
    with pytest.raises(spec2onnx.UserError, match=r"^add_scale\(\) \(layer 0\) 'scale_0': scale: CHANNEL needs 3 values"):
        network.add_scale(x, trt.ScaleMode.CHANNEL, scale=np.ones(2, np.float32))
    assert network.num_layers == 0  # the refused layer is not kept
    with pytest.raises(spec2onnx.UserError, match=r"^add_scale\(\) \(layer 0\): mode: 'PER_TENSOR' is not one of ScaleMode"):
        network.add_scale(x, "PER_TENSOR")
    with pytest.raises(spec2onnx.UserError, match=r"^add_elementwise\(\) \(layer 0\): input2: expected an ITensor"):
        network.add_elementwise(x, np.ones(3), trt.ElementWiseOperation.SUM)
    other = trt.Network().add_input("y", trt.float32, (1, 3, 2, 2))
    with pytest.raises(spec2onnx.UserError, match="belongs to another network"):
        network.add_elementwise(x, other, trt.ElementWiseOperation.SUM)
    resize = network.add_resize(x)
    with pytest.raises(ValueError, match=r"^add_resize\(\) \(layer 0\) 'resize_0': shape: \[1, 3, 4\] has 3 values; "
                                         r"the input 'x' has rank 4"):
        resize.shape = (1, 3, 4)  # refused at the assignment (issue 19 item 10), it was at the next call
    assert resize.shape is None and resize.get_output(0).shape == (1, 3, 2, 2)
    with pytest.raises(spec2onnx.UserError, match=r"add_resize\(\) \(layer 0\): resize_mode: 'BILINEAR' is not one of"):
        resize.resize_mode = "BILINEAR"
    with pytest.raises(spec2onnx.UserError, match=r"mark_output\('x'\): tensor: only a layer's output"):
        network.mark_output(x)
    assert network.get_layer(0) is resize and network.get_input(0) is x
    for call in (network.get_layer, network.get_input, network.get_output):  # was an IndexError
        with pytest.raises(spec2onnx.UserError, match=rf"^{call.__name__}\(5\): the network has \d "):
            call(5)
    bad = trt.Network()
    with pytest.raises(spec2onnx.UserError, match=r"^add_input\('y'\): shape \[1, -2, 2, 2\]: dimension 1 is -2"):
        bad.add_input("y", trt.float32, (1, -2, 2, 2))


def test_to_spec_writes_a_file_the_cli_validates(tmp_path):
    from converter.cli import main

    network = trt.Network()
    x = network.add_input("x", np.float16, (1, 2, 2, 2))  # a numpy type is taken for a DataType
    layer = network.add_scale(x, trt.ScaleMode.ELEMENTWISE, scale=np.arange(8, dtype=np.float32), power=None)
    layer.name = "scaled"
    network.mark_output(layer.get_output(0))
    path = network.to_spec(tmp_path / "built.yaml")
    assert spec2onnx.load_spec(path).network.outputs == ["scaled"]
    result = CliRunner().invoke(main, ["validate", "-j", "0", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 case: 1 passed" in result.output
    assert network.to_spec(tmp_path / "built.json", name="as-json").name == "built.json"
    assert spec2onnx.load_spec(tmp_path / "built.json").name == "as-json"
    with pytest.raises(spec2onnx.UserError, match=r"to_spec\(\): path '.*x.txt': a spec file ends in"):
        network.to_spec(tmp_path / "x.txt")


def test_validate_reports_a_wrong_expectation():
    network = trt.Network()
    x = network.add_input("x", trt.int8, (1, 1, 1, 2))
    layer = network.add_scale(x, trt.ScaleMode.UNIFORM, shift=[1], scale=[3])
    network.mark_output(layer.get_output(0))
    good = network.validate({"inputs": {"x": [[[[2, -5]]]]}, "expected": {layer.get_output(0): [[[[7, -14]]]]}})
    assert good.ok
    bad = network.validate({"inputs": {"x": [[[[2, -5]]]]}, "expected": {"scale_0": [[[[7, -13]]]]}})
    assert not bad.ok and "want -13" in bad.summary()


def test_datatype_and_nptype():
    assert trt.nptype(trt.float16) is np.float16 and trt.nptype(trt.DataType.INT32) is np.int32
    assert trt.DataType.FLOAT is trt.float32 and trt.ResizeMode is trt.InterpolationMode


def test_cookbook_resize_nearest_rounding_ceil_matches_tensorrts_printed_output():
    # NVIDIA/trt-samples-for-hackathon-cn, cookbook/02-API/Layer/ResizeLayer/Nearest_rounding.py (network part)
    nB, nC, nH, nW = 1, 3, 4, 5
    nOut, nCOut, nHOut, nWOut = 2, 3, 6, 10
    data = np.arange(nB * nC * nH * nW, dtype=np.float32).reshape(nB, nC, nH, nW)
    logger = trt.Logger(trt.Logger.ERROR)
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    inputT0 = network.add_input("inputT0", trt.float32, (nB, nC, nH, nW))
    resizeLayer = network.add_resize(inputT0)
    resizeLayer.shape = (nB, nCOut, nHOut, nWOut)
    resizeLayer.nearest_rounding = trt.ResizeRoundMode.CEIL
    network.mark_output(resizeLayer.get_output(0))
    # result-Nearest_rounding.log, channel 0 as TensorRT printed it (channels 1, 2 are it plus 20, 40)
    printed = np.array([[0, 1, 1, 2, 2, 3, 3, 4, 4, 4], [5, 6, 6, 7, 7, 8, 8, 9, 9, 9],
                        [10, 11, 11, 12, 12, 13, 13, 14, 14, 14], [10, 11, 11, 12, 12, 13, 13, 14, 14, 14],
                        [15, 16, 16, 17, 17, 18, 18, 19, 19, 19], [15, 16, 16, 17, 17, 18, 18, 19, 19, 19]], np.float32)
    want = np.stack([printed, printed + 20, printed + 40])[None]
    np.testing.assert_array_equal(run(network, {inputT0: data})[0], want)
    assert network.validate({"inputs": {inputT0: data}, "expected": {resizeLayer.get_output(0): want}}).ok


def test_set_dynamic_range_is_the_specs_int8_quantization_range():
    """TensorRT's int8 API: ITensor.set_dynamic_range / .dynamic_range become the spec's ``dynamic_range``."""
    network = trt.Network()
    x = network.add_input("x", trt.int8, (1, 1, 1, 5))
    assert x.dynamic_range is None and x.set_dynamic_range(-63.5, 63.5)  # scale 63.5 / 127 = 0.5
    layer = network.add_scale(x, trt.ScaleMode.UNIFORM, None, np.array([3], np.float32), None)
    layer.get_output(0).dynamic_range = (-127, 127)  # scale 1
    network.mark_output(layer.get_output(0))
    doc = network.to_spec_dict()["network"]
    assert doc["inputs"]["x"]["dynamic_range"] == [-63.5, 63.5] and doc["layers"][0]["dynamic_range"] == [-127, 127]
    # by hand: q * 0.5 * 3 = 1.5, 3, 4.5, -192, 190.5 -> round half to even, saturate: 2, 3, 4, -128, 127
    cases = {"inputs": {x: np.array([[[[1, 2, 3, -128, 127]]]], np.int8)},
             "expected": {layer.get_output(0): np.array([[[[2, 3, 4, -128, 127]]]], np.int8)}}
    assert network.validate(cases).ok
    x.dynamic_range = (5, 1)
    with pytest.raises(spec2onnx.UserError, match=r"^add_input\('x'\): dynamic_range: \[5, 1\]: MIN must not be above MAX"):
        network.validate(cases)
    x.reset_dynamic_range()
    assert "dynamic_range" not in network.to_spec_dict()["network"]["inputs"]["x"]
