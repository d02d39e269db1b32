"""The importer view (converter/targets/trt_importer.py): layers and attributes read off onnx-tensorrt's source.

Expected layers come from the cited lines of onnx/onnx-tensorrt release/10.1-GA, worked by hand.
"""

from __future__ import annotations

import numpy as np
from click.testing import CliRunner
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from cli import main
from converter.targets.trt_importer import TrtLayer, importer_view
from tests.targets.test_tensorrt_rules import X4, binary, f32, model, resize


def kinds(m):
    return [(l.kind, dict(l.attrs)) for l in importer_view(m)]


def test_binary_ops_are_one_elementwise_layer_each():
    # onnxOpImporters.cpp:3570 Mul -> kPROD, :179 Add -> kSUM, :4066 Pow -> kPOW; elementwiseHelper adds one layer per pair
    for op, trt in (("Mul", "kPROD"), ("Add", "kSUM"), ("Pow", "kPOW"), ("Equal", "kEQUAL"), ("Div", "kDIV")):
        layers = importer_view(binary(op, T.FLOAT16))
        assert [l.kind for l in layers] == ["IElementWiseLayer"] and layers[0].attr("op") == trt
        assert layers[0].inputs == ("kHALF", "kHALF")


def test_batchnorm_with_constant_weights_is_one_channel_scale_with_folded_weights():
    # onnxOpImporters.cpp:377-381: scale' = scale / sqrt(var + eps), shift' = B - mean * scale'; ScaleMode::kCHANNEL
    consts = [("s", f32(2, 4, 1)), ("b", f32(1, 0, 0)), ("m", f32(1, 1, 0)), ("v", f32(3, 15, 0.25))]
    m = model("BatchNormalization", [("x", T.FLOAT, X4)], consts, epsilon=1.0)
    (layer,) = importer_view(m)
    assert layer.kind == "IScaleLayer" and layer.attr("mode") == "kCHANNEL"
    assert np.allclose(layer.attr("scale"), [1.0, 1.0, 1 / np.sqrt(1.25)])  # 2/2, 4/4, 1/sqrt(1.25)
    assert np.allclose(layer.attr("shift"), [0.0, -1.0, 0.0])


def test_resize_attributes_follow_the_importer():
    # onnxOpImporters.cpp:4406 cubic -> kCUBIC, :4507 cubic_coeff_a (default -0.75); :4432 default kHALF_DOWN
    (cubic,) = importer_view(resize(mode="cubic"))
    assert str(cubic).startswith("IResizeLayer") and dict(cubic.attrs) == {
        "mode": "kCUBIC", "coordinate_transformation": "kHALF_PIXEL", "selector": "kFORMULA",
        "nearest_rounding": "kHALF_DOWN", "cubic_coeff": -0.75, "exclude_outside": 0, "scales": (1.0, 1.0, 2.0, 2.0)}
    # :4462 pytorch_half_pixel -> kHALF_PIXEL with selector kUPPER
    (pt,) = importer_view(resize(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"))
    assert (pt.attr("coordinate_transformation"), pt.attr("selector")) == ("kHALF_PIXEL", "kUPPER")
    # :4457 tf_half_pixel_for_nn -> kHALF_PIXEL, rounding kCEIL
    (tf,) = importer_view(resize(coordinate_transformation_mode="tf_half_pixel_for_nn"))
    assert (tf.attr("coordinate_transformation"), tf.attr("nearest_rounding")) == ("kHALF_PIXEL", "kCEIL")
    # :4572 opset 10: asymmetric, nearest rounds down
    m = model("Resize", [("x", T.FLOAT, X4)], [("sc", f32(1, 1, 2, 2))], opset=10)
    (old,) = importer_view(m)
    assert (old.attr("coordinate_transformation"), old.attr("nearest_rounding")) == ("kASYMMETRIC", "kFLOOR")


def test_layers_compare_by_kind_attributes_and_types_not_by_node_name():
    a = TrtLayer("IElementWiseLayer", (("op", "kSUM"),), ("kFLOAT", "kFLOAT"), ("kFLOAT",), node="a", source="x")
    b = TrtLayer("IElementWiseLayer", (("op", "kSUM"),), ("kFLOAT", "kFLOAT"), ("kFLOAT",), node="b", source="y")
    assert a == b and hash(a) == hash(b) and sorted([b, a]) == [a, b]


def test_constants_give_no_layer_and_unknown_ops_are_marked():
    c = model("Constant", [], value=numpy_helper.from_array(f32(1)))
    assert importer_view(c) == []
    assert [l.kind for l in importer_view(model("Hardmax", [("x", T.FLOAT, [2, 3])]))] == ["?Hardmax"]


def test_cli_check_layers(tmp_path):
    import onnx

    path = tmp_path / "m.onnx"
    onnx.save(resize(mode="cubic"), path)
    result = CliRunner().invoke(main, ["check", str(path), "--target", "tensorrt", "--layers"])
    assert result.exit_code == 0, result.output
    assert "IResizeLayer" in result.output and "mode=kCUBIC" in result.output and "release/10.1-GA" in result.output
    dla = CliRunner().invoke(main, ["check", str(path), "--target", "tensorrt-dla"])
    assert "DLA rules: TensorRT 10.7" in dla.output
    bad = CliRunner().invoke(main, ["check", str(path), "--target", "ort-cpu", "--layers"])
    assert bad.exit_code == 2 and "--layers" in bad.output and len(bad.output.strip().splitlines()) == 1


def test_every_op_the_lowerings_emit_for_tensorrt_is_modeled():
    # the bundled suite lowered for tensorrt: no node falls through to "?Op" (tools/survey_targets.py lowers the same)
    from spec2onnx.files import bundled_specs_dir
    from spec2onnx.pipeline.selection import spec_files
    from spec2onnx.pipeline.spec import load_spec
    from tools.survey_targets import lowered

    unknown = set()
    for path in spec_files([bundled_specs_dir()]):
        built, _ = lowered(load_spec(path), "tensorrt")
        if built is not None:
            unknown |= {l.kind for l in importer_view(built[0]) if l.kind.startswith("?")}
    assert unknown == set()


def test_per_channel_dequantize_axis_defaults_to_0_in_the_importer():
    from tests.targets.test_tensorrt_rules import qdq

    (layer,) = importer_view(qdq("DequantizeLinear", x=T.INT8, scale=f32(1, 1, 1), shape=[3, 2, 2, 2]))
    assert layer.kind == "IDequantizeLayer" and layer.attr("axis") == 0
    (layer,) = importer_view(qdq("DequantizeLinear", x=T.INT8, scale=f32(1, 1, 1), shape=[1, 3, 2, 2], axis=1))
    assert layer.attr("axis") == 1
