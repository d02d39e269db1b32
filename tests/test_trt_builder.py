"""spec2onnx.trt: TensorRT Python code ports by changing the import; outputs are checked against the
values TensorRT's documents print (the seeds, the TensorRT cookbook) or hand computation."""

from __future__ import annotations

import enum
import inspect
import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

import spec2onnx
from spec2onnx import trt



def run(network: "trt.INetworkDefinition", feeds: dict) -> list[np.ndarray]:
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
    network = trt.INetworkDefinition()
    in1 = network.add_input("input1", dtype=trt.float32, shape=(2, 3))
    in2 = network.add_input("input2", dtype=trt.float32, shape=(1, 3))
    layer = network.add_elementwise(in1, in2, op=trt.ElementWiseOperation.PROD)
    network.mark_output(layer.get_output(0))
    inputs = {in1: np.array([[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], np.float32), in2: np.array([[4.0, 5.0, 6.0]], np.float32)}
    expected = np.array([[-12.0, -10.0, -6.0], [0.0, 5.0, 12.0]])
    np.testing.assert_array_equal(run(network, inputs)[0], expected)
    assert layer.get_output(0).shape == (2, 3)


def test_pow_is_tensorrts_name_of_power_and_comparisons_give_bool():
    network = trt.INetworkDefinition()
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
    network = trt.INetworkDefinition()
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
    network = trt.INetworkDefinition()
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


def test_a_refused_set_input_keeps_the_scales_set_after_a_shape_tensor():
    """A refused set_input puts back what the layer had just before it, not a size saved by an earlier call."""
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.float32, (1, 1, 4, 4))
    layer = network.add_resize(x)
    layer.set_input(1, network.add_constant([4], np.array([1, 1, 8, 8], dtype=np.int32)).get_output(0))
    layer.scales = [1, 1, 2, 2]  # replaces the shape tensor (TensorRT)
    assert layer.num_inputs == 1
    rank3 = network.add_input("y", trt.float32, (1, 4, 4))
    with pytest.raises(trt.BuilderValueError):
        layer.set_input(0, rank3)  # the scales have four values: refused, undone
    assert (layer.get_input(0).name, layer.scales, layer.shape) == ("x", [1.0, 1.0, 2.0, 2.0], None)


def test_cubic_coefficient_reaches_the_model():
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.float32, (1, 1, 4, 4))
    layer = network.add_resize(x)
    layer.resize_mode = trt.ResizeMode.CUBIC
    layer.cubic_coeff = -0.5
    layer.shape = [1, 1, 8, 8]
    network.mark_output(layer.get_output(0))
    assert network.to_spec_dict()["network"]["layers"][0]["cubic_coeff"] == -0.5
    assert network.validate().ok


def test_errors_name_the_call_and_the_argument():
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.float32, (1, 3, 2, 2))
    with pytest.raises(spec2onnx.UserError, match=r"^add_scale\(\) \(layer 0\) 'scale_0': scale: CHANNEL needs 3 values"):
        network.add_scale(x, trt.ScaleMode.CHANNEL, scale=np.ones(2, np.float32))
    assert network.num_layers == 0  # the refused layer is not kept
    with pytest.raises(spec2onnx.UserError, match=r"^add_scale\(\) \(layer 0\) 'scale_0': mode: 'PER_TENSOR' is not one of ScaleMode"):
        network.add_scale(x, "PER_TENSOR")
    with pytest.raises(spec2onnx.UserError, match=r"^add_elementwise\(\) \(layer 0\): input2: expected an ITensor"):
        network.add_elementwise(x, np.ones(3), trt.ElementWiseOperation.SUM)
    other = trt.INetworkDefinition().add_input("y", trt.float32, (1, 3, 2, 2))
    with pytest.raises(spec2onnx.UserError, match="belongs to another network"):
        network.add_elementwise(x, other, trt.ElementWiseOperation.SUM)
    resize = network.add_resize(x)
    with pytest.raises(ValueError, match=r"^add_resize\(\) \(layer 0\) 'resize_0': shape: \[1, 3, 4\] has 3 values; "
                                         r"the input 'x' has rank 4"):
        resize.shape = (1, 3, 4)  # refused at the assignment (issue 19 item 10), it was at the next call
    assert resize.shape is None and resize.get_output(0).shape == (1, 3, 2, 2)
    with pytest.raises(spec2onnx.UserError, match=r"add_resize\(\) \(layer 0\) 'resize_0': resize_mode: 'BILINEAR' is not one of"):
        resize.resize_mode = "BILINEAR"
    with pytest.raises(spec2onnx.UserError, match=r"mark_output\('x'\): tensor: only a layer's output"):
        network.mark_output(x)
    assert network.get_layer(0) is resize and network.get_input(0) is x
    for call in (network.get_layer, network.get_input, network.get_output):  # was an IndexError
        with pytest.raises(spec2onnx.UserError, match=rf"^{call.__name__}\(5\): the network has \d "):
            call(5)
    bad = trt.INetworkDefinition()
    with pytest.raises(trt.BuilderValueError, match=r"^add_input\('y'\): shape: \[1, -2, 2, 2\]: dimension 1 is -2; a "
                                                  r"dimension is -1 \(dynamic\) or a non-negative integer"):
        bad.add_input("y", trt.float32, (1, -2, 2, 2))


def test_to_spec_writes_a_file_the_cli_validates(tmp_path):
    from converter.cli import main

    network = trt.INetworkDefinition()
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
    network = trt.INetworkDefinition()
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
    network = trt.INetworkDefinition()
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
    # TensorRT's setDynamicRange: "Requires that min and max be finite, and min <= max ... Whether the dynamic range
    # was set successfully": False, the range kept; the property, which cannot return False, refuses at once
    assert x.set_dynamic_range(5, 1) is False and x.dynamic_range == (-63.5, 63.5)
    with pytest.raises(trt.BuilderValueError, match=r"ITensor.dynamic_range \('x'\): \(5, 1\): min must not be above max"):
        x.dynamic_range = (5, 1)
    assert x.dynamic_range == (-63.5, 63.5) and network.validate(cases).ok
    x.reset_dynamic_range()
    assert "dynamic_range" not in network.to_spec_dict()["network"]["inputs"]["x"]


# --- issue 19 item 10: properties behave as TensorRT's Python objects ----------------------------------------


def _resize_network():
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.float32, (1, 1, 2, 2))
    resize = network.add_resize(x)
    resize.name = "up"
    return network, x, resize


def test_unknown_properties_raise_attribute_error_at_the_assignment():
    network, x, resize = _resize_network()
    with pytest.raises(AttributeError, match=r"no attribute 'coordinate_transform' \(did you mean 'coordinate_transformation'\?\)"):
        resize.coordinate_transform = trt.ResizeCoordinateTransformation.HALF_PIXEL
    with pytest.raises(AttributeError, match="no attribute 'align_corners'"):  # TensorRT 7's, removed since
        resize.align_corners = True
    scale = network.add_scale(x, trt.ScaleMode.UNIFORM)
    with pytest.raises(AttributeError, match="no attribute 'channelaxis'"):
        scale.channelaxis = 0
    with pytest.raises(AttributeError, match="no attribute 'nmae'"):
        x.nmae = "y"
    with pytest.raises(AttributeError, match="no attribute 'outputs'"):
        network.outputs = []
    with pytest.raises(AttributeError):
        resize.num_inputs = 3  # read-only, as in TensorRT
    assert resize.coordinate_transformation == trt.ResizeCoordinateTransformation.ASYMMETRIC  # nothing was dropped in


def test_unsupported_tensorrt_properties_name_themselves():
    _, _, resize = _resize_network()
    resize.exclude_outside = False  # TensorRT's default: accepted
    with pytest.raises(NotImplementedError, match=r"^IResizeLayer\.exclude_outside = True: not supported by spec2onnx .*allowed: False"):
        resize.exclude_outside = True
    assert resize.exclude_outside is False
    with pytest.raises(spec2onnx.UserError, match=r"^ILayer\.precision = .*not supported"):
        resize.precision = trt.float16


def test_bad_values_raise_at_the_assignment_with_tensorrts_names():
    network, x, resize = _resize_network()
    with pytest.raises(ValueError, match=r"^add_resize\(\) \(layer 0\) 'up': scales: \[2\.0, 2\.0\] has 2 values; the input 'x' has rank 4"):
        resize.scales = [2.0, 2.0]
    assert resize.scales is None
    add = network.add_elementwise(x, x, trt.ElementWiseOperation.SUM)  # the next call is not blamed any more
    assert add.get_output(0).shape == (1, 1, 2, 2)
    with pytest.raises(TypeError, match=r"resize_mode: 'BILINEAR' is not one of InterpolationMode's members"):
        resize.resize_mode = "BILINEAR"
    with pytest.raises(TypeError, match=r"cubic_coeff: expected a number, got str 'a'"):
        resize.cubic_coeff = "a"
    with pytest.raises(ValueError, match=r"cubic_coeff: nan is not a finite number"):
        resize.cubic_coeff = float("nan")
    with pytest.raises(ValueError, match=r"shape: \[1, 1, -4, 4\]: dimension 2 is -4; a dimension is a non-negative integer"):
        resize.shape = (1, 1, -4, 4)
    # a value the layer's rules refuse with the other properties as set: raised here, and undone
    resize.shape = (1, 1, 4, 4)
    with pytest.raises(ValueError, match=r"^add_resize\(\) \(layer 0\) 'resize_0': resize_mode: CUBIC resizes the innermost 2"):
        network2 = trt.INetworkDefinition()
        r = network2.add_resize(network2.add_input("v", trt.float32, (4,)))
        r.resize_mode = trt.InterpolationMode.CUBIC  # CUBIC needs rank >= 2
    assert r.resize_mode == trt.InterpolationMode.NEAREST
    scale = network.add_scale(x, trt.ScaleMode.CHANNEL, scale=np.ones(1, np.float32))
    with pytest.raises(ValueError, match=r"'scale_\d+': scale: CHANNEL needs 1 values?.*got 3"):
        scale.scale = np.ones(3, np.float32)
    assert scale.scale == [1.0]


def test_add_resize_of_a_type_resize_refuses_fails_at_the_call():
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.int32, (1, 1, 2, 2))
    with pytest.raises(spec2onnx.UserError, match=r"^add_resize\(\) \(layer 0\) 'resize_0': input: input 'x' is int32; trt\.Resize allows"):
        network.add_resize(x)
    assert network.num_layers == 0


def test_conversion_errors_name_the_builder_call_not_a_dict():
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.float32, (1, 1, 2, 2))
    network.add_constant((1,), np.ones(1, np.float32))
    layer = network.add_scale(x, trt.ScaleMode.UNIFORM, scale=np.array([2.0], np.float32))
    layer.name = "doubled"
    network.mark_output(layer.get_output(0))
    with pytest.raises(spec2onnx.UserError) as info:
        network.to_onnx(target="tensorrt-dla")  # float32: DLA runs FP16 and INT8 only
    assert str(info.value).startswith("add_scale() (layer 1) 'doubled': ") and "<dict>" not in str(info.value)


# --- issue 19 item 11: IBuilderConfig and build_serialized_network -------------------------------------------


def test_builder_config_holds_what_tensorrt_scripts_set():
    builder = trt.Builder(trt.Logger(trt.Logger.WARNING))
    config = builder.create_builder_config()
    assert config.get_flag(trt.BuilderFlag.TF32) and not config.get_flag(trt.BuilderFlag.FP16)  # TensorRT's defaults
    assert config.default_device_type == trt.DeviceType.GPU and config.DLA_core == -1
    config.set_flag(trt.BuilderFlag.FP16)
    config.set_flag(trt.BuilderFlag.INT8)
    config.clear_flag(trt.BuilderFlag.INT8)
    assert config.flags == (1 << int(trt.BuilderFlag.FP16)) | (1 << int(trt.BuilderFlag.TF32))
    config.flags = 1 << int(trt.BuilderFlag.GPU_FALLBACK)
    assert config.get_flag(trt.BuilderFlag.GPU_FALLBACK) and not config.get_flag(trt.BuilderFlag.FP16)
    with pytest.raises(TypeError, match=r"set_flag\(\): flag: 0 is not one of BuilderFlag's members"):
        config.set_flag(0)
    config.default_device_type = trt.DeviceType.DLA
    config.DLA_core = 1
    with pytest.raises(ValueError, match="DLA_core: -2"):
        config.DLA_core = -2
    # MemoryPoolType's documented defaults of the DLA pools; DLA pools are >= 4 KiB and a power of 2
    assert config.get_memory_pool_limit(trt.MemoryPoolType.DLA_LOCAL_DRAM) == 1 << 30
    assert config.get_memory_pool_limit(trt.MemoryPoolType.WORKSPACE) is None
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, 1 << 30)
    assert config.get_memory_pool_limit(trt.MemoryPoolType.WORKSPACE) == 1 << 30
    with pytest.raises(ValueError, match="at least 4 KiB and a power of 2"):
        config.set_memory_pool_limit(trt.MemoryPoolType.DLA_GLOBAL_DRAM, 3000)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 3), (1, 3), (1, 3))
    assert config.add_optimization_profile(profile) == 0 and config.num_optimization_profiles == 1
    config.builder_optimization_level = 5
    with pytest.raises(ValueError):
        config.builder_optimization_level = 6
    with pytest.raises(AttributeError, match="no attribute 'max_workspace_size'"):
        config.max_workspace_size = 1 << 30  # TensorRT 8 moved it to set_memory_pool_limit
    with pytest.raises(AttributeError, match=r"Builder\.build_engine: not available: .*build_serialized_network"):
        builder.build_engine
    with pytest.raises(AttributeError, match=r"Builder\.max_workspace_size: not available: .*set_memory_pool_limit"):
        builder.max_workspace_size = 1 << 20
    with pytest.raises(AttributeError, match=r"spec2onnx\.trt\.Runtime: not available"):
        trt.Runtime(trt.Logger())


def _float16_network():
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.float16, (1, 2, 2, 2))
    scale = network.add_scale(x, trt.ScaleMode.UNIFORM, scale=np.array([2.0], np.float32))
    scale.name = "double"
    one = network.add_constant((1, 1, 1, 1), np.ones((1, 1, 1, 1), np.float16))
    add = network.add_elementwise(scale.get_output(0), one.get_output(0), trt.ElementWiseOperation.SUM)
    add.name = "plus_one"
    network.mark_output(add.get_output(0))
    return network, scale, add


def test_build_serialized_network_maps_the_device_to_a_target():
    builder = trt.Builder()
    network, scale, add = _float16_network()
    config = builder.create_builder_config()
    gpu = builder.build_serialized_network(network, config)
    assert gpu.target == "tensorrt" and set(gpu.placement.values()) == {trt.DeviceType.GPU}
    config.default_device_type = trt.DeviceType.DLA
    # float16 runs on DLA in FP16 as it is typed (the one DLA rule, converter/targets/dla.py precision_problem:
    # convert and check of a float16 spec or model say the same); float32 needs FP16 (next test)
    assert config.can_run_on_DLA(scale) and builder.is_network_supported(network, config)
    dla = builder.build_serialized_network(network, config)
    assert dla.target == "tensorrt-dla" and dla.gpu_fallback == ()  # every layer on DLA: the DLA lowering
    assert spec2onnx.check(dla.model, "tensorrt-dla").ok
    data = (np.arange(8, dtype=np.float16) - 4).reshape(1, 2, 2, 2)
    got = ort.InferenceSession(bytes(dla)).run(None, {"x": data})[0]
    np.testing.assert_array_equal(got, data * 2 + 1)  # small integers: exact in float16
    # a layer set to the GPU leaves DLA: the engine is mixed; the DLA lowering is a tensorrt model too
    config.set_device_type(add, trt.DeviceType.GPU)
    assert config.is_device_type_set(add) and config.get_device_type(add) == trt.DeviceType.GPU
    mixed = builder.build_serialized_network(network, config)
    assert (mixed.target, mixed.lowered_for) == ("tensorrt", "tensorrt-dla") and mixed.placement == {"double": trt.DeviceType.DLA, "plus_one": trt.DeviceType.GPU}
    config.reset_device_type(add)
    assert config.get_device_type(add) == trt.DeviceType.DLA
    with pytest.raises(TypeError, match="expected an IBuilderConfig"):
        builder.build_serialized_network(network, None)


def _float32_network():
    network = trt.Builder().create_network(0)
    x = network.add_input("x", trt.float32, (1, 2, 2, 2))
    scale = network.add_scale(x, trt.ScaleMode.UNIFORM, shift=np.array([1.0], np.float32), scale=np.array([2.0], np.float32))
    scale.name = "double"
    network.mark_output(scale.get_output(0))
    return network, scale


def test_dla_float32_needs_fp16_and_builder_convert_and_check_say_so_alike(tmp_path):
    """Issue 27 item 5: one rule (converter/targets/dla.py precision_problem) for the three fronts. A float32 network
    placed on DLA runs there in FP16 when the build allows FP16 (BuilderFlag.FP16; convert/check --fp16 as trtexec's;
    the spec's precision: [fp16]), the model staying float32; without it each front refuses it."""
    from converter.cli import main

    builder = trt.Builder()
    network, scale = _float32_network()
    config = builder.create_builder_config()
    config.default_device_type = trt.DeviceType.DLA
    data = (np.arange(8, dtype=np.float32) - 4).reshape(1, 2, 2, 2)
    # --- without FP16: refused by the builder, convert and check ---
    assert not config.can_run_on_DLA(scale)
    with pytest.raises(trt.BuilderValueError, match=r"^build_serialized_network\(\): add_scale\(\) \(layer 0\) 'double' "
                                                    r"cannot run on DLA: tensor 'x' is float32; tensorrt-dla runs FP16 and "
                                                    r"INT8 only \(DLA Support\): float32 runs there in FP16 when the build allows FP16"):
        builder.build_serialized_network(network, config)
    plain = network.to_spec(tmp_path / "plain.yaml", config=config)  # no precision flag: no precision field
    assert "precision" not in spec2onnx.load_spec(plain).__dict__ or spec2onnx.load_spec(plain).precision == ()
    runner = CliRunner()
    refused = runner.invoke(main, ["convert", str(plain), "--target", "tensorrt-dla", "-o", str(tmp_path / "no.onnx")])
    assert refused.exit_code == 2 and "tensor 'x' is float32; tensorrt-dla runs FP16 and INT8 only" in refused.output
    assert "--fp16" in refused.output and not (tmp_path / "no.onnx").exists()
    gpu_model = tmp_path / "gpu.onnx"
    assert runner.invoke(main, ["convert", str(plain), "--target", "tensorrt", "-o", str(gpu_model)]).exit_code == 0
    checked = runner.invoke(main, ["check", str(gpu_model), "--target", "tensorrt-dla"])
    assert checked.exit_code == 1 and "input x is float32; tensorrt-dla runs FP16 and INT8 only" in checked.output, checked.output
    assert not spec2onnx.check(plain, "tensorrt-dla").ok
    # --- with FP16: run by all three, one model ---
    config.set_flag(trt.BuilderFlag.FP16)
    assert config.can_run_on_DLA(scale)
    plan = builder.build_serialized_network(network, config)
    assert (plan.target, plan.lowered_for, plan.gpu_fallback) == ("tensorrt-dla", "tensorrt-dla", ())
    assert {i.type.tensor_type.elem_type for i in plan.model.graph.input} == {1}  # float32 stays float32
    flagged = network.to_spec(tmp_path / "fp16.yaml", config=config)
    assert spec2onnx.load_spec(flagged).precision == ("fp16",)  # the config's flag, kept by the spec
    by_flag, by_field = tmp_path / "by-flag.onnx", tmp_path / "by-field.onnx"
    assert runner.invoke(main, ["convert", str(plain), "--target", "tensorrt-dla", "--fp16", "-o", str(by_flag)]).exit_code == 0
    assert runner.invoke(main, ["convert", str(flagged), "--target", "tensorrt-dla", "-o", str(by_field)]).exit_code == 0
    for path in (by_flag, by_field):
        model = onnx.load(path)
        assert [n.op_type for n in model.graph.node] == [n.op_type for n in plan.model.graph.node]
        assert {p.key: p.value for p in model.metadata_props}["spec2onnx.precision"] == "fp16"
        ok = runner.invoke(main, ["check", str(path), "--target", "tensorrt-dla", "--fp16"])
        assert ok.exit_code == 0, ok.output
    assert spec2onnx.check(plain, "tensorrt-dla", precision=["fp16"]).ok and spec2onnx.check(flagged, "tensorrt-dla").ok
    assert spec2onnx.check(plan.model, "tensorrt-dla", precision=["fp16"]).ok
    # the model computes (x * 2 + 1) in float32 on onnxruntime (TensorRT would in FP16: small integers, exact either way)
    np.testing.assert_array_equal(ort.InferenceSession(bytes(plan)).run(None, {"x": data})[0], data * 2 + 1)


@pytest.mark.parametrize("how, value, rule", [
    # DLA's IResizeLayer takes scales, not output dimensions (TensorRT 10.7 NvInfer.h:4103; dla_guide resize.output-dims):
    # a layer given its output shape is a Resize with ONNX sizes, which onnx-tensorrt imports with setOutputDimensions
    ("shape", (1, 1, 4, 4), r"IResizeLayer: scales, not output dimensions: output dimensions \(sizes\) instead of scales; NvInfer\.h:4103"),
    # NEAREST H and W scales are integers in [1, 32] on DLA (NvInfer.h:4136; dla_guide resize.scales)
    ("scales", (1, 1, 1, 64), r"IResizeLayer: 4 scales, .*: scales \[1\.0, 1\.0, 1\.0, 64\.0\]: H and W scales integers "
                              r"in \[1, 32\]; NvInfer\.h:4136"),
])
def test_a_layer_whose_lowered_nodes_dla_cannot_run_falls_back_or_fails_the_build(how, value, rule):
    # a float16 NEAREST ASYMMETRIC FLOOR Resize: a seed-legal DLA combination (dla.RESIZE_COMBINATIONS), lowered to
    # one Resize node; the DLA guide's rule on that node decides (its "GPU fallback" verdict)
    builder = trt.Builder()
    network = builder.create_network(0)
    x = network.add_input("x", trt.float16, (1, 1, 2, 2))
    up = network.add_resize(x)
    up.name = "up"
    setattr(up, how, value)
    network.mark_output(up.get_output(0))
    config = builder.create_builder_config()
    config.set_flag(trt.BuilderFlag.FP16)
    config.default_device_type = trt.DeviceType.DLA
    assert config.can_run_on_DLA(up)  # the seed rules (the layer's attributes) allow it: the node's form refuses it
    with pytest.raises(ValueError, match=r"add_resize\(\) \(layer 0\) 'up' cannot run on DLA: its node up \(Resize\) does "
                                         r"not run on DLA: GPU fallback: .*" + rule):
        builder.build_serialized_network(network, config)
    config.set_flag(trt.BuilderFlag.GPU_FALLBACK)
    plan = builder.build_serialized_network(network, config)
    assert plan.target == "tensorrt" and plan.placement == {"up": trt.DeviceType.GPU}
    assert [name for name, _ in plan.gpu_fallback] == ["up"] and re.search(rule, plan.gpu_fallback[0][1])
    assert spec2onnx.check(plan.model, "tensorrt").ok
    assert [n.op_type for n in plan.model.graph.node] == ["Resize"]
    # the same layer by scales 2 x 2 (setting scales clears shape, as in TensorRT) runs on DLA: no fallback, the
    # whole engine is tensorrt-dla
    up.scales = (1, 1, 2, 2)
    plan = builder.build_serialized_network(network, config)
    assert plan.target == "tensorrt-dla" and plan.placement == {"up": trt.DeviceType.DLA} and plan.gpu_fallback == ()


# --- issue 27 item 4: dynamic shapes and optimization profiles, as TensorRT's --------------------------------------

def test_optimization_profiles_are_checked_at_set_shape_naming_the_dimension():
    builder = trt.Builder()
    profile = builder.create_optimization_profile()
    with pytest.raises(trt.BuilderValueError, match=r"^IOptimizationProfile\.set_shape\('x'\): dimension 2: min 8 > opt 4"):
        profile.set_shape("x", (1, 3, 8, 8), (1, 3, 4, 4), (1, 3, 16, 16))
    with pytest.raises(trt.BuilderValueError, match=r"set_shape\('x'\): dimension 0: opt 4 > max 2"):
        profile.set_shape("x", (1, 3, 8, 8), (4, 3, 8, 8), (2, 3, 8, 8))
    with pytest.raises(trt.BuilderValueError, match=r"min, opt and max have ranks \[4, 3, 4\]; they must have one"):
        profile.set_shape("x", (1, 3, 1, 1), (1, 3, 1), (1, 3, 1, 1))
    with pytest.raises(trt.BuilderValueError, match=r"min: \[1, -1, 1, 1\]: dimension 1 is -1; a dimension is a non-negative"):
        profile.set_shape("x", (1, -1, 1, 1), (1, 3, 1, 1), (1, 3, 1, 1))
    with pytest.raises(trt.BuilderTypeError, match=r"set_shape\(3\): input: expected text, got int 3"):
        profile.set_shape(3, (1,), (1,), (1,))
    with pytest.raises(trt.BuilderValueError, match=r"max: \[9223372036854775808, 3\]: dimension 0 is 9223372036854775808; "
                                                    r"a dimension is a non-negative integer up to int64's maximum 2\^63-1"):
        profile.set_shape("x", (1, 3), (1, 3), (2**63, 3))  # TensorRT 10's Dims hold int64
    with pytest.raises(trt.BuilderTypeError, match=r"set_shape_input\('size'\): opt: 1.5 \(value 1\) is not an integer value"):
        profile.set_shape_input("size", (1, 1), (1, 1.5), (1, 1))
    assert profile.get_shape("x") == []  # nothing refused was kept
    profile.set_shape("x", trt.Dims4(1, 3, 8, 8), (2, 3, 16, 16), [4, 3, 32, 32])
    assert profile.get_shape("x") == [(1, 3, 8, 8), (2, 3, 16, 16), (4, 3, 32, 32)]
    with pytest.raises(trt.BuilderValueError, match=r"set_shape_input\('size'\): value 3: min 9 > opt 4"):
        profile.set_shape_input("size", (1, 3, 4, 9), (1, 3, 4, 4), (1, 3, 4, 9))
    profile.set_shape_input("size", (1, 3, 4, 4), (2, 3, 16, 16), (4, 3, 64, 64))
    assert profile.get_shape_input("size") == [(1, 3, 4, 4), (2, 3, 16, 16), (4, 3, 64, 64)] and profile.get_shape_input("x") == []
    config = builder.create_builder_config()
    assert [config.add_optimization_profile(p) for p in (profile, builder.create_optimization_profile())] == [0, 1]
    assert config.num_optimization_profiles == 2


def test_a_static_network_keeps_its_profile_in_its_spec_and_validates_at_it():
    # TensorRT takes a profile for a static input when min = opt = max = its shape; the spec keeps it (FORMAT: "A static
    # input MAY appear in a profile"), so the spec-file path has the builder's profiles and default cases.
    builder = trt.Builder()
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3, 1, 1))
    network.mark_output(network.add_scale(x, trt.ScaleMode.UNIFORM, scale=np.array([2.0], np.float32)).get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (2, 3, 1, 1), (2, 3, 1, 1), (2, 3, 1, 1))
    assert config.add_optimization_profile(profile) == 0
    doc = network.to_spec_dict(config=config)
    assert doc["network"]["profiles"] == [{"x": {"min": [2, 3, 1, 1], "opt": [2, 3, 1, 1], "max": [2, 3, 1, 1]}}]
    assert "cases" not in doc  # the loader's cases at the profile's min, opt and max
    report = network.validate(config=config)
    assert [r.case for r in report.results] == ["profile0-min", "profile0-opt", "profile0-max"]
    assert report.ok


def test_the_build_checks_each_profile_against_the_network_as_tensorrt():
    builder = trt.Builder()
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3, 1, 1))
    layer = network.add_scale(x, trt.ScaleMode.UNIFORM)
    network.mark_output(layer.get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 3, 1, 1), (2, 3, 1, 1), (8, 3, 1, 1))
    config.add_optimization_profile(profile)
    # TensorRT: "for dimension number 0 in profile 0 does not match network definition (got min=1, opt=2, max=8),
    # expected min=opt=max=2"
    with pytest.raises(trt.BuilderValueError, match=r"optimization profile 0: input 'x': dimension 0 \(got min=1, opt=2, "
                                                    r"max=8\) does not match network definition, expected min=opt=max=2"):
        builder.build_serialized_network(network, config)
    profile.set_shape("x", (2, 3, 1), (2, 3, 1), (2, 3, 1))
    with pytest.raises(trt.BuilderValueError, match=r"input 'x': min/opt/max have rank 3; the input has shape \[2, 3, 1, 1\]"):
        builder.build_serialized_network(network, config)
    profile.set_shape("x", (2, 3, 1, 1), (2, 3, 1, 1), (2, 3, 1, 1))
    assert builder.build_serialized_network(network, config).target == "tensorrt"
    profile.set_shape("y", (2, 3, 1, 1), (2, 3, 1, 1), (2, 3, 1, 1))
    with pytest.raises(ValueError, match=r"optimization profile 0: set_shape\('y'\): 'y' is not a network input"):
        builder.build_serialized_network(network, config)


def _dynamic_network():
    """x: (-1, 3, -1, -1) float32 -> (x * [.5, 1, 2] + [-1, 0, 1]) - x (broadcast), as TensorRT's dynamic samples."""
    builder = trt.Builder(trt.Logger(trt.Logger.WARNING))
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    x = network.add_input("x", trt.float32, (-1, 3, -1, -1))
    scale = network.add_scale(x, trt.ScaleMode.CHANNEL, shift=np.array([-1, 0, 1], np.float32),
                              scale=np.array([0.5, 1, 2], np.float32))
    diff = network.add_elementwise(scale.get_output(0), x, trt.ElementWiseOperation.SUB)
    diff.name = "y"
    network.mark_output(diff.get_output(0))
    return builder, network, x


def _by_hand(x: np.ndarray) -> np.ndarray:
    a, b = np.array([0.5, 1, 2], np.float32).reshape(1, 3, 1, 1), np.array([-1, 0, 1], np.float32).reshape(1, 3, 1, 1)
    return (x * a + b) - x


def test_add_input_takes_minus_one_and_a_build_without_profile_is_refused_as_tensorrt_refuses_it():
    network = trt.Builder().create_network(0)
    x = network.add_input("x", trt.float32, (-1, 3, -1, -1))
    assert x.shape == (-1, 3, -1, -1) and x.is_network_input and not x.is_shape_tensor
    y = network.add_input("y", trt.float32, trt.Dims([-1, 2]))
    assert y.shape == (-1, 2)


def test_a_dynamic_network_builds_with_symbolic_dims_and_runs_at_every_profile_shape():
    builder, network, x = _dynamic_network()
    assert network.get_output(0).shape == (-1, 3, -1, -1)
    config = builder.create_builder_config()
    with pytest.raises(trt.BuilderValueError, match=r"^build_serialized_network\(\): Network has dynamic or shape inputs, "
                                                    r"but no optimization profile has been defined\."):
        builder.build_serialized_network(network, config)
    corners = [((1, 3, 2, 2), (2, 3, 4, 4), (4, 3, 8, 8)), ((1, 3, 16, 16), (1, 3, 20, 24), (2, 3, 32, 32))]
    for shapes in corners:
        profile = builder.create_optimization_profile()
        profile.set_shape("x", *shapes)
        assert config.add_optimization_profile(profile) == corners.index(shapes)
    plan = builder.build_serialized_network(network, config)
    # -1 dimensions stay dynamic in the model: no dim_value (a -1 is a dynamic dimension of its own, ONNX's unknown
    # dimension: helper dynamic's choice); the static one keeps its value
    dims = [[d.dim_value if d.HasField("dim_value") else None for d in i.type.tensor_type.shape.dim] for i in plan.model.graph.input]
    assert dims == [[None, 3, None, None]]
    session = ort.InferenceSession(bytes(plan), providers=["CPUExecutionProvider"])
    for shapes in corners:
        for shape in shapes:
            data = np.random.default_rng(sum(shape)).uniform(-4, 4, shape).astype(np.float32)
            np.testing.assert_allclose(session.run(None, {"x": data})[0], _by_hand(data), rtol=1e-6, atol=1e-6)
    doc = network.to_spec_dict(config=config)
    assert doc["network"]["inputs"]["x"]["shape"] == [-1, 3, -1, -1] and "cases" not in doc
    assert doc["network"]["profiles"] == [{"x": dict(zip(("min", "opt", "max"), map(list, s)))} for s in corners]
    report = network.validate(config=config)  # the loader's cases: min, opt and max of each profile
    assert report.ok and len(report.results) == 6, report.summary()


def _dla_dynamic_build(builder, shapes):
    """Issue 31 item 3's network: a -1 batch, a Scale DLA runs, DLA by default with FP16, one profile ``shapes``."""
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (-1, 3, 8, 8))
    scale = network.add_scale(x, trt.ScaleMode.UNIFORM, shift=np.array([1.0], np.float32))
    scale.name = "shifted"
    network.mark_output(scale.get_output(0))
    config = builder.create_builder_config()
    config.default_device_type = trt.DeviceType.DLA
    config.set_flag(trt.BuilderFlag.FP16)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", *shapes)
    config.add_optimization_profile(profile)
    return network, config


def test_dla_takes_no_dynamic_profile_the_build_fails_or_falls_back_as_tensorrt_and_convert_refuses_alike(tmp_path):
    """Issue 31 item 3: DLA runs no dynamic dimension (TensorRT guide, DLA Supported Layers and Restrictions: "the
    profile's min, max, and opt values must be equal for wildcard dimensions"). TensorRT's build logs "DLA requests
    all profiles have same min, max, and opt value" and, with GPU_FALLBACK, runs all DLA layers on the GPU; without
    it the build fails. The build returned a tensorrt-dla plan that check then refused."""
    from converter.cli import main

    builder = trt.Builder()
    network, config = _dla_dynamic_build(builder, ((1, 3, 8, 8), (2, 3, 8, 8), (4, 3, 8, 8)))
    assert config.can_run_on_DLA(network.get_layer(0))  # the layer alone: yes; the profile is what DLA refuses
    with pytest.raises(trt.BuilderValueError, match=r"^build_serialized_network\(\): DLA requests all profiles have same "
                                                    r"min, max, and opt value: profiles\[0\]\.x: dimension 0 is min/opt/max "
                                                    r"1/2/4: DLA does not support dynamic dimensions.*GPU_FALLBACK"):
        builder.build_serialized_network(network, config)
    spec = network.to_spec(tmp_path / "dynamic.yaml", config=config)
    refused = CliRunner().invoke(main, ["convert", str(spec), "--target", "tensorrt-dla", "-o", str(tmp_path / "m.onnx")])
    assert refused.exit_code == 2 and "DLA does not support dynamic dimensions" in refused.output, refused.output
    assert not (tmp_path / "m.onnx").exists()
    # GPU_FALLBACK: every layer on the GPU, a tensorrt model that check passes
    config.set_flag(trt.BuilderFlag.GPU_FALLBACK)
    plan = builder.build_serialized_network(network, config)
    assert (plan.target, plan.lowered_for, plan.placement) == ("tensorrt", "tensorrt", {"shifted": trt.DeviceType.GPU})
    assert [name for name, _ in plan.gpu_fallback] == ["shifted"]
    assert plan.gpu_fallback[0][1].startswith("DLA requests all profiles have same min, max, and opt value")
    assert spec2onnx.check(plan.model, plan.target, precision=["fp16"]).ok
    assert not spec2onnx.check(plan.model, "tensorrt-dla", precision=["fp16"]).ok
    # a static profile (min = opt = max) is what DLA takes: a tensorrt-dla plan, as before
    network, config = _dla_dynamic_build(builder, ((2, 3, 8, 8),) * 3)
    plan = builder.build_serialized_network(network, config)
    assert (plan.target, plan.gpu_fallback) == ("tensorrt-dla", ())
    assert spec2onnx.check(plan.model, plan.target, precision=["fp16"]).ok


def test_a_resize_takes_its_output_shape_from_a_shape_input_with_profile_values():
    builder = trt.Builder()
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (1, 1, 2, 2))
    size = network.add_input("size", trt.int32, (4,))
    up = network.add_resize(x)
    up.set_input(1, size)  # IResizeLayer: "input 1: the output shape tensor"
    assert size.is_shape_tensor and up.get_output(0).shape == (1, -1, -1, -1)  # NEAREST resizes the innermost 3
    network.mark_output(up.get_output(0))
    config = builder.create_builder_config()
    with pytest.raises(trt.BuilderValueError, match=r"Network has dynamic or shape inputs, but no optimization profile"):
        builder.build_serialized_network(network, config)
    profile = builder.create_optimization_profile()
    config.add_optimization_profile(profile)
    with pytest.raises(trt.BuilderValueError, match=r"optimization profile 0: size: optimization profile is missing values "
                                                    r"for shape input"):
        builder.build_serialized_network(network, config)
    profile.set_shape_input("size", (1, 1, 2, 2), (1, 1, 4, 4), (1, 1, 6, 8))
    plan = builder.build_serialized_network(network, config)
    resize = [n for n in plan.model.graph.node if n.op_type == "Resize"]
    assert len(resize) == 1 and resize[0].input[3]  # one layer with a run-time sizes input, as onnx-tensorrt imports it
    doc = network.to_spec_dict(config=config)["network"]
    assert doc["inputs"]["size"] == {"dtype": "int32", "shape": [4], "shape_tensor": True}
    assert doc["profiles"] == [{"size": {"min": [1, 1, 2, 2], "opt": [1, 1, 4, 4], "max": [1, 1, 6, 8]}}]
    # NEAREST ASYMMETRIC FLOOR (TensorRT's defaults) to 4 x 4: each pixel twice in each direction
    data = np.array([[[[1, 2], [3, 4]]]], np.float32)
    got = ort.InferenceSession(bytes(plan)).run(None, {"x": data, "size": np.array([1, 1, 4, 4], np.int32)})[0]
    np.testing.assert_array_equal(got[0, 0], np.kron(data[0, 0], np.ones((2, 2), np.float32)))
    assert network.validate(config=config).ok


_RESIZE_VALUES = {
    "resize_mode": st.sampled_from([*trt.InterpolationMode, "BILINEAR", 3]),
    "coordinate_transformation": st.sampled_from([*trt.ResizeCoordinateTransformation, "PYTORCH_HALF_PIXEL"]),
    "selector_for_single_pixel": st.sampled_from(list(trt.ResizeSelector)),
    "nearest_rounding": st.sampled_from(list(trt.ResizeRoundMode)),
    "cubic_coeff": st.one_of(st.floats(-2, 2), st.just(float("nan")), st.just("x")),
    "scales": st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0, -1.0]), min_size=1, max_size=5),
    "shape": st.lists(st.integers(-1, 6), min_size=1, max_size=5),
    "exclude_outside": st.booleans(),
}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(_RESIZE_VALUES)).flatmap(lambda k: st.tuples(st.just(k), _RESIZE_VALUES[k])),
                max_size=8))
def test_each_resize_assignment_holds_or_raises_and_changes_nothing(assignments):
    """Property (item 10): an assignment either takes, the network staying valid, or raises a UserError that is
    a TypeError/ValueError/NotImplementedError and leaves every property as it was; the final network converts."""
    network, x, resize = _resize_network()
    network.mark_output(resize.get_output(0))
    for name, value in assignments:
        before = {k: getattr(resize, k) for k in _RESIZE_VALUES}
        try:
            setattr(resize, name, value)
        except (TypeError, ValueError, NotImplementedError) as exc:
            assert isinstance(exc, spec2onnx.UserError), exc
            assert {k: getattr(resize, k) for k in _RESIZE_VALUES} == before
        assert len(resize.get_output(0).shape) == 4  # the network checks after every step
    data = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    assert network.validate({"inputs": {x: data}}).ok


# --- issue 25 class 3: every public call raises TensorRT-style errors for arguments of the wrong type or range ----

# Values of every wrong kind: other types, out of range, non-finite, huge, empty, nested, foreign objects.
_JUNK = [None, True, False, 0, 1, -1, -2, 3, 2**31, 2**63, 2**70, -(2**70), 10**30, 10**400, 1.5, -0.0, float("nan"),
         float("inf"), -float("inf"), 1e39, "x", "", "FLOAT", "\0", b"x", [], [1], [1, 2, 3, 4], [-1, 2], [[1, 2]],
         [1.5, 2.0], ["a"], [None], (1, 1, 2, 2), (), {}, {"a": 1}, {1, 2}, object(), np.array([]),
         np.array([[1, 2]]), np.array(["a"]), np.float64("nan"), np.int64(2**62), np.array(3), np.bool_(True),
         trt.DeviceType.DLA, trt.ScaleMode.CHANNEL, trt.BuilderFlag.FP16, trt.DataType.BOOL, trt.MemoryPoolType.WORKSPACE,
         trt.InterpolationMode.CUBIC, trt.ElementWiseOperation.POW, trt.Weights(), lambda: 1]


def _objects():
    """One of every public builder class, wired up (a network with an input, a constant and one layer of each kind)."""
    builder = trt.Builder(trt.Logger())
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (1, 2, 2, 2))
    constant = network.add_constant((1, 2, 1, 1), np.ones((1, 2, 1, 1), np.float32))
    scale = network.add_scale(x, trt.ScaleMode.UNIFORM)
    add = network.add_elementwise(scale.get_output(0), constant.get_output(0), trt.ElementWiseOperation.SUM)
    resize = network.add_resize(add.get_output(0))
    network.mark_output(resize.get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    other = trt.INetworkDefinition().add_input("y", trt.float32, (1,))
    objects = {"builder": builder, "network": network, "tensor": x, "constant": constant, "scale": scale, "add": add,
               "resize": resize, "config": config, "profile": profile, "weights": trt.Weights(np.ones(2, np.float32)),
               "logger": trt.Logger(), "foreign": other}
    # a dynamic network whose Resize takes a shape input, and a config with a profile for it (issue 27)
    dynamic = builder.create_network(0)
    image = dynamic.add_input("image", trt.float32, (-1, 2, -1, -1))
    size = dynamic.add_input("size", trt.int32, (4,))
    sized = dynamic.add_resize(image)
    sized.set_input(1, size)
    dynamic.mark_output(sized.get_output(0))
    ranged = builder.create_optimization_profile()
    ranged.set_shape("image", (1, 2, 2, 2), (2, 2, 4, 4), (3, 2, 8, 8))
    ranged.set_shape_input("size", (1, 2, 1, 1), (2, 2, 8, 8), (3, 2, 16, 16))
    profiled = builder.create_builder_config()
    profiled.add_optimization_profile(ranged)
    return {**objects, "dynamic": dynamic, "sized": sized, "ranged": ranged, "profiled": profiled}


def _public_calls(objects):
    """(label, callable or (object, property name)) for every public method and property setter of those objects,
    and every public class and function of the module (constructors included)."""
    calls = []
    for label, obj in objects.items():
        if label == "foreign":
            continue
        for name in dir(type(obj)):
            if name.startswith("_"):
                continue
            attr = getattr(type(obj), name)
            if isinstance(attr, property):
                if attr.fset is not None:
                    calls.append((f"{type(obj).__name__}.{name} =", (obj, name)))
            elif callable(attr) and not isinstance(attr, type):
                calls.append((f"{type(obj).__name__}.{name}()", getattr(obj, name)))
    for name in trt.__all__:
        value = getattr(trt, name)
        if (isinstance(value, type) and not issubclass(value, (Exception, enum.Enum))) or inspect.isfunction(value):
            calls.append((f"trt.{name}()", value))
    return calls


def _parameters(fn) -> tuple[int, list[str]]:
    """(how many positional arguments ``fn`` needs, the names of its optional ones)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1, []
    needed = sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)
    optional = [p.name for p in parameters if p.default is not p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return needed, optional


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_every_public_call_refuses_bad_arguments_with_tensorrt_style_errors(data):
    """Property: a public builder call or property assignment given values of a wrong type or out of range either
    takes them or raises a Builder*Error (a UserError naming the call), never a plain TypeError, ValueError,
    IndexError or OverflowError from inside (issue 25 class 3)."""
    objects = _objects()
    label, target = data.draw(st.sampled_from(_public_calls(objects)), label="call")
    pool = _JUNK + [objects["tensor"], objects["foreign"], objects["scale"], objects["constant"].get_output(0),
                    objects["network"], objects["config"], objects["profile"], "x", "image", "size", (1, 2, 4, 4),
                    [-1, 2, 4, 4]]  # half-right ones too
    if "dynamic" in objects:
        pool += [objects["dynamic"], objects["profiled"], objects["ranged"], objects["dynamic"].get_input(1)]
    try:
        if isinstance(target, tuple):
            value = data.draw(st.sampled_from(pool), label="value")
            setattr(*target, value)
        else:
            count, optional = _parameters(target)
            args = [data.draw(st.sampled_from(pool), label=f"argument {i}") for i in range(count)]
            names = data.draw(st.lists(st.sampled_from(optional), unique=True, max_size=2), label="optional") if optional else []
            kwargs = {name: data.draw(st.sampled_from(pool), label=name) for name in names}
            target(*args, **kwargs)
    except (trt.BuilderTypeError, trt.BuilderValueError, trt.BuilderUnsupportedError) as exc:
        assert isinstance(exc, spec2onnx.UserError) and str(exc) and "\n" not in str(exc).strip(), exc
    except AttributeError as exc:  # a read-only TensorRT attribute, or an older API refused with its way forward
        assert "not available" in str(exc) or "no attribute" in str(exc), (label, exc)


@pytest.mark.parametrize("call, pattern", [
    # the three examples of issue 25 (class 3), each refused at the call, naming it
    (lambda r: r.get_input("x"), r"^IResizeLayer\.get_input\('x'\): index: expected an integer, got str 'x'"),
    (lambda r: r.get_output(np.array([])), r"^IResizeLayer\.get_output\(array\(\[\], dtype=float64\)\): index: expected "
                                          r"an integer, got ndarray"),
    # 10**30 is a float32 value (TensorRT's setCubicCoeff(float) takes it: it builds, see below); 10**40 is not one
    (lambda r: setattr(r, "cubic_coeff", 10**40), r"^add_resize\(\) \(layer 0\) 'up': cubic_coeff: 10000000000000000000000000"
                                                  r"000000000000000 is not a finite number within float32's range"),
    (lambda r: setattr(r, "cubic_coeff", 10**400), r"cubic_coeff: \d+\.\.\. is not a finite number"),
    (lambda r: r.get_input(5), r"^IResizeLayer\.get_input\(5\): the layer has 1 inputs \(index 0 to 0\)"),
    (lambda r: r.set_input(True, r.get_input(0)), r"^IResizeLayer\.set_input\(True\): index: expected an integer, got bool"),
])
def test_the_issue_25_examples_raise_builder_errors_at_the_call(call, pattern):
    _, _, resize = _resize_network()
    with pytest.raises((trt.BuilderTypeError, trt.BuilderValueError), match=pattern):
        call(resize)
    assert resize.cubic_coeff == -0.75  # nothing was kept
    network = trt.INetworkDefinition()
    x = network.add_input("x", trt.float32, (1, 1, 2, 2))
    layer = network.add_resize(x)
    layer.resize_mode = trt.InterpolationMode.CUBIC
    layer.cubic_coeff = -0.5
    network.mark_output(layer.get_output(0))
    assert network.validate().ok  # the build (the lowering) sees only checked values
    layer.cubic_coeff = 10**30  # issue 25: accepted, then a TypeError at the build; now a float32 value that builds
    assert layer.cubic_coeff == 1e30 and network.to_spec_dict()["network"]["layers"][0]["cubic_coeff"] == 1e30
    assert trt.Builder().build_serialized_network(network, trt.Builder().create_builder_config()).target == "tensorrt"


@pytest.mark.parametrize("values, narrowed", [([3.4028235e38, -1.0], [3.4028234663852886e38, -1.0]),  # max, rounded to it
                                              ([np.inf, np.nan], [np.inf, np.nan]),  # given: kept (later rules decide)
                                              ([3.4028236e38], None), ([-1e300, 0.0], None)])  # past max + half an ulp
def test_float64_constant_weights_are_read_as_float32_or_refused_where_a_finite_value_overflows(values, narrowed):
    # was: a RuntimeWarning ("overflow encountered in cast") and an infinity made of 1e300 (a fuzz run's warning)
    network = trt.Builder(trt.Logger()).create_network()
    if narrowed is None:
        with pytest.raises(trt.BuilderValueError, match=r"^add_constant\(\) \(layer 0\) 'constant_0': weights: .*"
                                                          r"read as float32, whose range \(±3\.4e38\)"):
            network.add_constant((len(values),), np.array(values, np.float64))
        return
    layer = network.add_constant((len(values),), np.array(values, np.float64))
    assert layer.weights.dtype == np.float32
    np.testing.assert_array_equal(layer.weights.astype(np.float64), np.array(narrowed))


def test_the_with_form_of_nvidias_samples_builds_as_tensorrt_10_does():
    """`with trt.Builder(L) as builder, builder.create_network(0) as network, builder.create_builder_config() as
    config:` (NVIDIA's samples up to TensorRT 8): TensorRT 10 keeps __enter__/__exit__ on these (deprecated, no
    effect); a ported script failed with "'Builder' object does not support the context manager protocol"."""
    logger = trt.Logger(trt.Logger.WARNING)
    with trt.Builder(logger) as builder, builder.create_network(0) as network, \
            builder.create_builder_config() as config:
        x = network.add_input("x", trt.float32, (1, 2, 1, 1))
        layer = network.add_scale(x, trt.ScaleMode.CHANNEL, shift=trt.Weights(np.array([1, 2], np.float32)),
                                  scale=trt.Weights(np.array([3, 4], np.float32)))
        network.mark_output(layer.get_output(0))
        plan = builder.build_serialized_network(network, config)
    session = ort.InferenceSession(bytes(plan))
    got = session.run(None, {"x": np.array([[[[10]], [[20]]]], np.float32)})[0]
    assert got.ravel().tolist() == [31.0, 82.0]  # 10 * 3 + 1, 20 * 4 + 2


def test_weights_of_float64_read_as_float_the_type_layers_take_them_as():
    """trt.Weights(np.array([1.0])) (numpy's default float64) was made, then reading .dtype raised "dtype('float64')
    is not one of DataType's members"; the layers take such weights as float32 (docs/builder.md)."""
    weights = trt.Weights(np.array([3.0, 4.0]))
    assert weights.dtype == trt.DataType.FLOAT and trt.Weights(np.array([1], np.int32)).dtype == trt.DataType.INT32
    network = trt.Builder().create_network(0)
    x = network.add_input("x", trt.float32, (1, 2, 1, 1))
    layer = network.add_scale(x, trt.ScaleMode.CHANNEL, scale=weights)
    network.mark_output(layer.get_output(0))
    assert run(network, {x: np.array([[[[1]], [[2]]]], np.float32)})[0].ravel().tolist() == [3.0, 8.0]  # 1 * 3, 2 * 4


def test_layer_types_and_the_network_as_a_sequence_as_in_tensorrts_python_api():
    """`layer.type == trt.LayerType.SCALE`, `len(network)`, `network[i]`, `for layer in network` (TensorRT's Python
    INetworkDefinition and ILayer.type); a ported script's checks of them failed (no trt.LayerType, no __len__)."""
    network = trt.Builder().create_network(0)
    x = network.add_input("x", trt.float32, (1, 2, 1, 1))
    scale = network.add_scale(x, trt.ScaleMode.UNIFORM, scale=trt.Weights(np.array([2], np.float32)))
    total = network.add_elementwise(scale.get_output(0), x, trt.ElementWiseOperation.SUM)
    assert len(network) == network.num_layers == 2
    assert network[0] is scale and network[1] is total and list(network) == [scale, total]
    assert scale.type == trt.LayerType.SCALE and total.type == trt.LayerType.ELEMENTWISE
    assert scale.type == "SCALE"  # (a str enum: what .type gave before still compares equal)
    with pytest.raises(trt.BuilderValueError, match=r"get_layer\(2\): the network has 2 layers"):
        network[2]


def test_a_tensor_of_nothing_cannot_be_made_by_hand():
    """docs/builder.md: tensors have no constructor, a network makes them. trt.ITensor(network, "ghost") was made all the
    same, and its .shape then raised a bare KeyError; so was a second tensor for an existing input."""
    network = trt.Builder(trt.Logger()).create_network()
    x = network.add_input("x", trt.float32, (1, 1, 2, 2))
    for name in ("ghost", "x"):
        with pytest.raises(trt.BuilderTypeError, match=r"^trt\.ITensor\(\): no constructor: a network makes them"):
            trt.ITensor(network, name)
    assert x.shape == (1, 1, 2, 2) and network.get_input(0) is x


def test_a_network_input_renamed_is_renamed_in_its_network():
    """TensorRT: "For a network input, the name is assigned by the application" (NvInfer.h, ITensor::setName). The
    rename was kept on the tensor alone, and every later call failed, blamed on the layer reading it."""
    network = trt.Builder(trt.Logger()).create_network()
    x = network.add_input("x", trt.float32, (1, 3, 4, 4))
    scale = network.add_scale(x, trt.ScaleMode.UNIFORM, np.array([1.0], np.float32), np.array([2.0], np.float32))
    network.mark_output(scale.get_output(0))
    x.name = "image"
    model = network.to_onnx()
    assert [i.name for i in model.graph.input] == ["image"] and model.graph.node[0].input[0] == "image"
    assert network.get_input(0).name == "image"
    with pytest.raises(trt.BuilderValueError, match="already has a tensor of that name"):
        x.name = scale.get_output(0).name
    assert x.name == "image"


@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.uint32])
def test_a_constant_of_no_tensorrt_type_is_refused_at_add_constant(dtype):
    """trt.DataType has no int16, uint16 or uint32: get_output(0).dtype then raised a plain ValueError from enum.py."""
    network = trt.Builder(trt.Logger()).create_network()
    with pytest.raises(trt.BuilderTypeError, match=f"weights: numpy {np.dtype(dtype).name} is no trt.DataType"):
        network.add_constant((1, 2), np.ones((1, 2), dtype))


def test_dynamic_ranges_on_float_tensors_are_tensorrts_int8_hints_and_change_no_model():
    """TensorRT's INT8 build without a calibrator sets a range on every tensor (sampleINT8API: "provide TensorRT with
    the dynamic range for each network tensor"); on a float network they change no value. set_dynamic_range said True
    and then every later call failed ("a dynamic range is the quantization range of an int8 tensor")."""
    def network(ranged: bool):
        builder = trt.Builder(trt.Logger())
        net = builder.create_network()
        x = net.add_input("x", trt.float32, (1, 3, 4, 4))
        c = net.add_constant((1, 3, 1, 1), np.ones((1, 3, 1, 1), np.float32))
        s = net.add_scale(x, trt.ScaleMode.UNIFORM, np.array([1.0], np.float32), np.array([2.0], np.float32))
        e = net.add_elementwise(s.get_output(0), c.get_output(0), trt.ElementWiseOperation.SUM)
        net.mark_output(e.get_output(0))
        if ranged:
            for t in [net.get_input(0)] + [net.get_layer(i).get_output(0) for i in range(net.num_layers)]:
                assert t.set_dynamic_range(-4.0, 4.0) and t.dynamic_range == (-4.0, 4.0)
        config = builder.create_builder_config()
        config.set_flag(trt.BuilderFlag.INT8)
        return builder.build_serialized_network(net, config).model

    plain, ranged = network(False), network(True)
    assert [n.op_type for n in ranged.graph.node] == [n.op_type for n in plain.graph.node]
    assert ranged.graph.SerializeToString() == plain.graph.SerializeToString()
