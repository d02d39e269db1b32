"""Round trip: the importer view (converter/targets/trt_importer.py, onnx-tensorrt's importer read line by line)
of ``convert --target tensorrt`` gives back the spec's layer: one IElementWiseLayer with the operation, one
IResizeLayer with the mode, coordinate transformation, selector, rounding and cubic coefficient, in the layer's
own TensorRT type (float16 stays kHALF). Random valid single-layer specs (tests/fuzz/strategies.py);
examples: the hypothesis profile's, or SPEC2ONNX_TARGET_EXAMPLES."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from converter.pipeline.spec import parse_spec
from converter.targets import resolve_target
from converter.pipeline.stages import model_for_target
from converter.targets.spec_rules import TargetRuleError
from converter.targets.trt_importer import importer_view

from .strategies import KINDS, VALID

EXAMPLES = int(os.environ.get("SPEC2ONNX_TARGET_EXAMPLES", "0")) or None
_limit = settings(max_examples=EXAMPLES) if EXAMPLES else (lambda f: f)
TRT_TYPE = {"float16": "kHALF", "float32": "kFLOAT"}
ELEMENTWISE_OP = {"SUM": "kSUM", "PROD": "kPROD", "MAX": "kMAX", "MIN": "kMIN", "SUB": "kSUB", "DIV": "kDIV",
                  "POWER": "kPOW", "EQUAL": "kEQUAL", "GREATER": "kGREATER", "LESS": "kLESS"}


def _deployed(doc, opset):
    spec = parse_spec(doc, Path("fuzz.yaml"))
    layer = spec.network.layers[0]
    dtype = spec.network.types[layer.inputs[0]].dtype.name
    assume(dtype in TRT_TYPE)
    try:
        model, _, _, _ = model_for_target(spec, resolve_target("tensorrt"), min(opset, 24))  # TensorRT: opsets 9..24
    except TargetRuleError:
        assume(False)
    return spec, layer, dtype, importer_view(model)


@_limit
@given(pair=VALID["trt.ElementWise"](operations=ELEMENTWISE_OP, dtypes=TRT_TYPE) if "trt.ElementWise" in KINDS
       else st.nothing())
def test_a_float_elementwise_layer_comes_back_as_one_elementwise_layer(pair):
    spec, layer, dtype, view = _deployed(*pair)
    op = layer.attrs["operation"]
    assume(op in ELEMENTWISE_OP)  # FLOOR_DIV is Div + Floor (docs/deployment.md)
    assert [v.kind for v in view] == ["IElementWiseLayer"], [str(v) for v in view]
    assert view[0].attr("op") == ELEMENTWISE_OP[op]
    assert view[0].outputs == (("kBOOL",) if op in ("EQUAL", "GREATER", "LESS") else (TRT_TYPE[dtype],))


@_limit
@given(pair=VALID["trt.Resize"]() if "trt.Resize" in KINDS else st.nothing())
def test_a_float_resize_layer_comes_back_as_one_resize_layer_with_its_attributes(pair):
    spec, layer, dtype, view = _deployed(*pair)
    assume(len(layer.inputs) == 1)  # a run-time int32 shape input adds its Cast to int64 (docs/deployment.md)
    assert [v.kind for v in view] == ["IResizeLayer"], [str(v) for v in view]
    got, attrs = view[0], layer.attrs
    assert got.attr("mode") == "k" + attrs["resize_mode"]
    assert got.attr("coordinate_transformation") == "k" + attrs["coordinate_transformation"]
    if attrs["coordinate_transformation"] == "HALF_PIXEL":  # pytorch_half_pixel carries UPPER
        assert got.attr("selector") == "k" + attrs["selector_for_single_pixel"]
    if attrs["resize_mode"] == "NEAREST":
        assert got.attr("nearest_rounding") == "k" + attrs["nearest_rounding"]
    if attrs["resize_mode"] == "CUBIC":
        assert abs(got.attr("cubic_coeff") - attrs["cubic_coeff"]) < 1e-6
    assert got.outputs == (TRT_TYPE[dtype],)
