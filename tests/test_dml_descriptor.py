"""spec2onnx.dml: DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC as a dict; values by hand from f = (input - zero_point) * scale."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

import spec2onnx
from spec2onnx import dml


def test_descriptor_members_and_hand_computed_values():
    desc = dml.dequantize_linear(dml.tensor_desc(dml.DML_TENSOR_DATA_TYPE_UINT8, [1, 1, 2, 2]),
                                 np.full((1, 1, 2, 2), 0.5, np.float32), np.full((1, 1, 2, 2), 128, np.uint8),
                                 dml.DML_TENSOR_DATA_TYPE_FLOAT32, feature_level=dml.DML_FEATURE_LEVEL_1_0)
    assert set(desc) == {"InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"}
    assert desc["OutputTensor"] == {"DataType": "DML_TENSOR_DATA_TYPE_FLOAT32", "DimensionCount": 4, "Sizes": [1, 1, 2, 2]}
    assert desc["ZeroPointTensor"]["DataType"] == "DML_TENSOR_DATA_TYPE_UINT8"
    data = np.array([[[[128, 130], [126, 255]]]], np.uint8)
    want = np.array([[[[0, 1], [-1, 63.5]]]], np.float32)  # (q - 128) * 0.5
    report = desc.validate({"inputs": {"InputTensor": data}, "expected": {"output": want}})
    assert report.ok, report.summary()
    got = ort.InferenceSession(desc.to_onnx().SerializeToString()).run(None, {"input": data})[0]
    np.testing.assert_array_equal(got, want)


def test_every_tensor_may_be_an_input_and_the_zero_point_is_optional(tmp_path):
    desc = dml.dequantize_linear({"DataType": "INT8", "Sizes": [3]}, dml.tensor_desc("FLOAT16", [3]))
    assert desc["ZeroPointTensor"] is None and desc["OutputTensor"]["DataType"] == "DML_TENSOR_DATA_TYPE_FLOAT16"
    cases = {"inputs": {"input": [-128, 0, 127], "scale": [0.25, 2, -1]}, "expected": {"output": [-32, 0, -127]}}
    assert desc.validate(cases).ok
    path = desc.to_spec(tmp_path / "dq.yaml", cases=cases)
    spec = spec2onnx.load_spec(path)
    assert spec.network.layers[0].inputs == ("input", "scale") and spec2onnx.validate(path).ok
    assert desc.validate().ok  # seeded random inputs when no case is given


def test_errors_name_the_call_and_the_argument():
    x, s = dml.tensor_desc("INT8", [2, 3]), dml.tensor_desc("FLOAT32", [2, 3])
    with pytest.raises(spec2onnx.UserError, match=r"^dml.dequantize_linear\(\): scale: scale 'scale' has shape \[2, 2\]"):
        dml.dequantize_linear(x, dml.tensor_desc("FLOAT32", [2, 2]))
    with pytest.raises(spec2onnx.UserError, match=r"^dml.dequantize_linear\(\): input: feature_level 1.0 allows exactly 4"):
        dml.dequantize_linear(x, s, feature_level="DML_FEATURE_LEVEL_1_0")
    with pytest.raises(spec2onnx.UserError, match=r"^dml.dequantize_linear\(\): output_dtype: output_dtype float16 differs"):
        dml.dequantize_linear(x, s, output_dtype="DML_TENSOR_DATA_TYPE_FLOAT16")
    with pytest.raises(spec2onnx.UserError, match=r"^dml.dequantize_linear\(\): input DataType: 'FLOAT64' is not"):
        dml.dequantize_linear({"DataType": "FLOAT64", "Sizes": [2, 3]}, s)
    with pytest.raises(spec2onnx.UserError, match=r"^dml.dequantize_linear\(\): scale: required"):
        dml.dequantize_linear(x, None)
    with pytest.raises(spec2onnx.UserError, match=r"input: DimensionCount 3 differs from the 2 Sizes"):
        dml.dequantize_linear({"DataType": "INT8", "Sizes": [2, 3], "DimensionCount": 3}, s)


def test_strides_on_a_descriptor_are_refused_unless_dense():
    # DML_BUFFER_TENSOR_DESC.Strides [0, 1, 0, 0] reads a per-channel buffer; dropping it (as was done) read it as dense.
    x = dml.tensor_desc("UINT8", [1, 2, 2, 2])
    with pytest.raises(spec2onnx.UserError, match=r"^dml.dequantize_linear\(\): scale: Strides \[0, 1, 0, 0\]: a descriptor "
                                                  r"here is dense \(Strides \[8, 4, 2, 1\] or none\)"):
        dml.dequantize_linear(x, {"DataType": "FLOAT32", "Sizes": [1, 2, 2, 2], "Strides": [0, 1, 0, 0]})
    with pytest.raises(spec2onnx.UserError, match=r"scale: 'Stride' is not a DML_BUFFER_TENSOR_DESC member"):
        dml.dequantize_linear(x, {"DataType": "FLOAT32", "Sizes": [1, 2, 2, 2], "Stride": [0, 1, 0, 0]})
    dense = {"DataType": "FLOAT32", "Sizes": [1, 2, 2, 2], "Strides": [0, 4, 2, 1], "Flags": 0}  # size-1 dim: any stride
    cases = {"inputs": {"input": np.full((1, 2, 2, 2), 3, np.uint8), "scale": np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)},
             "expected": {"output": 3 * np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)}}
    assert dml.dequantize_linear(x, dense).validate(cases).ok


def test_a_descriptor_refuses_changes_rather_than_ignoring_them():
    """Its model and checks are made from the members as they were at creation: setting InputTensor to INT8 and the
    output to FLOAT16 afterwards left a uint8-in, float32-out model, silently. A change is refused (UserError); a
    copy, a deep copy and a pickle keep the descriptor whole; the caller's own tensor_desc stays the caller's."""
    import copy
    import pickle

    x = dml.tensor_desc(dml.DML_TENSOR_DATA_TYPE_UINT8, [1, 1, 2, 2])
    desc = dml.dequantize_linear(x, np.full((1, 1, 2, 2), 0.5, np.float32))
    for change in (lambda d: d.__setitem__("InputTensor", dml.tensor_desc(dml.DML_TENSOR_DATA_TYPE_INT8, [1, 1, 2, 2])),
                   lambda d: d["OutputTensor"].__setitem__("DataType", dml.DML_TENSOR_DATA_TYPE_FLOAT16),
                   lambda d: d.update(ZeroPointTensor=None), lambda d: d.pop("ScaleTensor")):
        with pytest.raises(spec2onnx.UserError, match=r"read-only once made .* make a new one with "
                                                       r"dml\.dequantize_linear"):
            change(desc)
    x["DataType"] = dml.DML_TENSOR_DATA_TYPE_INT8  # the caller's dict: the descriptor holds its own copy
    assert desc["InputTensor"]["DataType"] == "DML_TENSOR_DATA_TYPE_UINT8"
    model = desc.to_onnx(target="ort-cpu")
    assert model.graph.input[0].type.tensor_type.elem_type == 2  # uint8, as the descriptor still says
    for again in (copy.copy(desc), copy.deepcopy(desc), pickle.loads(pickle.dumps(desc))):
        assert type(again) is type(desc) and again == desc
        assert again.to_onnx(target="ort-cpu").graph.input[0].type.tensor_type.elem_type == 2


def test_a_descriptors_lists_are_read_only_too():
    """desc["InputTensor"]["Sizes"][3] = 7 and .append(9) were accepted: the descriptor showed an operator its model
    was not. They compare equal to plain lists still."""
    desc = dml.dequantize_linear(dml.tensor_desc(dml.DML_TENSOR_DATA_TYPE_UINT8, [1, 1, 2, 2]),
                                 np.full((1, 1, 2, 2), 0.5, np.float32))
    sizes = desc["InputTensor"]["Sizes"]
    assert sizes == [1, 1, 2, 2]
    for change in (lambda: sizes.__setitem__(3, 7), lambda: sizes.append(9), lambda: sizes.extend([1]),
                   lambda: sizes.pop(), lambda: sizes.clear(), lambda: sizes.sort()):
        with pytest.raises(spec2onnx.UserError, match="read-only"):
            change()
    assert desc["InputTensor"]["Sizes"] == [1, 1, 2, 2]


@pytest.mark.parametrize("size", [0, -1, -2])
def test_a_size_below_one_is_refused_naming_the_index(size):
    """DML_BUFFER_TENSOR_DESC: Sizes are UINTs and "a size of zero in any dimension is invalid"; -1 was read as a
    dynamic dimension, and the error that followed was about TensorRT's optimization profiles."""
    with pytest.raises(spec2onnx.UserError, match=rf"sizes\[1\]: {size}: a DirectML size is at least 1"):
        dml.tensor_desc(dml.DML_TENSOR_DATA_TYPE_UINT8, [1, size, 2, 2])
