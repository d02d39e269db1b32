"""onnxruntime's Resize refuses a scale <= 0 (upsamplebase.h, ScalesValidation: "Scale value should be greater than 0"),
given as a constant (when the session is created) or computed from constant sizes as size / input length (at run time),
and a 0-long axis resized to another length (ParseScalesDataAndAdjustOutputSize: "Input dim is zero but required output
dim is non-zero"). Each case is given to onnxruntime's CPU EP, and check's verdict for ort-cpu must be its own."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.targets.check import check_model, errors

ort = pytest.importorskip("onnxruntime")

SCALES = "onnxruntime's Resize needs every scale > 0"  # constant scales: the session fails
SIZES = "onnxruntime's Resize computes each scale from sizes"  # constant sizes: the run fails


def _resize(shape, mode, sizes=None, scales=None, opset=19, elem=TensorProto.FLOAT16, **attrs):
    inits, inputs = [], ["x", "", ""]
    if scales is not None:
        inits.append(numpy_helper.from_array(np.array(scales, np.float32), "scales"))
        inputs[2] = "scales"
    if sizes is not None:
        inits.append(numpy_helper.from_array(np.array(sizes, np.int64), "sizes"))
        inputs.append("sizes")
    graph = helper.make_graph([helper.make_node("Resize", inputs, ["y"], mode=mode, **attrs)], "g",
                              [helper.make_tensor_value_info("x", elem, shape)],
                              [helper.make_tensor_value_info("y", elem, None)], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def _onnxruntime_error(model, fed) -> str | None:
    """onnxruntime's error making the session ("session: ...") or running it on ones of shape ``fed`` ("run: ..."),
    or None where it runs."""
    dtype = np.float16 if model.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT16 else np.float32
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime's refusal is the verdict
        return f"session: {exc}"
    try:
        session.run(None, {"x": np.ones(fed, dtype)})
    except Exception as exc:  # noqa: BLE001
        return f"run: {exc}"
    return None


# (input shape, Resize's constants and attributes): the case first (float16 [1,3,4,4] to sizes [1,3,0,8])
CASES = [
    ([1, 3, 4, 4], {"sizes": [1, 3, 0, 8]}),
    ([1, 3, 4, 4], {"sizes": [1, 3, 0, 0]}),
    ([1, 3, 4, 4], {"sizes": [1, 3, -1, 8]}),
    ([1, 3, 0, 4], {"sizes": [1, 3, 0, 8]}),  # a 0-long axis resized to 0: runs
    ([1, 3, 0, 4], {"sizes": [1, 3, 2, 8]}),  # a 0-long axis resized to 2
    ([1, 3, 4, 4], {"sizes": [1, 3, 2, 8]}),  # runs
    ([1, 3, 4, 4], {"sizes": [0, 8], "axes": [2, 3]}),
    ([1, 3, 4, 4], {"sizes": [0, 8], "axes": [-2, -1]}),
    ([1, 3, 4, 4], {"sizes": [0, 8], "axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}),
    ([1, 3, 4, 4], {"sizes": [0, 8], "axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"}),  # the greatest, 2: runs
    ([1, 3, 4, 4], {"sizes": [0, 0], "axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"}),
    ([1, 3, 0, 4], {"sizes": [0, 0], "axes": [2, 3], "keep_aspect_ratio_policy": "not_smaller"}),  # 0-long: scale 1
    ([1, 3, 0, 4], {"sizes": [0, 0], "axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}),
    ([1, 3, 4, 4], {"scales": [1, 1, 0, 2]}),
    ([1, 3, 4, 4], {"scales": [1, 1, -1, 2]}),
    ([1, 3, 0, 4], {"scales": [1, 1, 0, 2]}),  # a scale 0 is refused even on a 0-long axis
    ([1, 3, 4, 4], {"scales": [1, 1, 0.1, 2]}),  # an output length 0 from a scale > 0: runs
    ([1, 3, 4, 4], {"scales": [0, 2], "axes": [2, 3]}),
]


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("shape, given", CASES, ids=[f"{s}-{g}" for s, g in CASES])
def test_a_resize_scale_not_above_zero_is_refused_as_onnxruntime_refuses_it(shape, given, mode):
    given = dict(given)
    model = _resize(shape, mode, sizes=given.pop("sizes", None), scales=given.pop("scales", None), **given)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        said = [str(p) for p in errors(check_model(model, "ort-cpu"))]
    refused = _onnxruntime_error(model, shape)
    assert (not said) == (refused is None), (said, refused)
    if refused is not None:  # one of the refusals these rules model, told as the rule of its moment, one line
        assert "Scale value should be greater than 0" in refused or "Input dim is zero" in refused, refused
        rule = SCALES if refused.startswith("session: ") else SIZES
        assert len(said) == 1 and said[0].startswith("ort-cpu: #0 (Resize): " + rule) and "\n" not in said[0], said


def test_a_size_0_on_an_axis_of_unknown_length_is_not_judged():
    """The length of a dynamic axis is known at run time only: onnxruntime runs a size 0 where it is 0 long and refuses
    it where it is not; check tells neither (no rule decides on a size it does not know)."""
    model = _resize([1, 3, "h", 4], "nearest", sizes=[1, 3, 0, 8])
    assert "Scale value should be greater than 0" in _onnxruntime_error(model, [1, 3, 4, 4])
    assert _onnxruntime_error(model, [1, 3, 0, 4]) is None
    assert not errors(check_model(model, "ort-cpu"))


def test_resize_10_scales_are_input_1():
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Resize", ["x", "scales"], ["y"], mode="nearest")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.array([1, 1, 0, 2], np.float32), "scales")]),
        opset_imports=[helper.make_opsetid("", 10)], ir_version=9)
    assert "Scale value should be greater than 0" in _onnxruntime_error(model, [1, 3, 4, 4])
    said = [str(p) for p in errors(check_model(model, "ort-cpu"))]
    assert len(said) == 1 and SCALES in said[0], said


def test_the_cuda_target_shares_the_rule_and_directml_does_not():
    """upsamplebase.h is the CPU and the CUDA Resize's base (cuda/tensor/resize.h derives from UpsampleBase); the
    DirectML EP has its own Resize kernel, whose limits are not known."""
    model = _resize([1, 3, 4, 4], "linear", sizes=[1, 3, 0, 8])
    assert any(SIZES in str(p) for p in errors(check_model(model, "ort-cuda")))
    assert not any(SIZES in str(p) for p in check_model(model, "ort-dml"))


def test_check_probe_keeps_the_refusal_the_session_does_not_see():
    """--probe builds the session and runs nothing: onnxruntime builds this one, and fails only when it runs it."""
    from converter.targets.probe import check

    model = _resize([1, 3, 4, 4], "linear", sizes=[1, 3, 0, 8])
    assert _onnxruntime_error(model, [1, 3, 4, 4]).startswith("run: ")
    (verdict,) = check(model, "ort-cpu", probe=True)
    assert verdict.how.startswith("probed: ")
    said = errors(verdict.problems)
    assert len(said) == 1 and said[0].reason.startswith(SIZES) and said[0].node == "#0", said
