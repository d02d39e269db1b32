"""ort-dml's kernel table is the WHOLE DmlExecutionProvider section of onnxruntime's docs/OperatorKernels.md.

Every expectation here was read in microsoft/onnxruntime docs/OperatorKernels.md at
001d12d2623fd411ce0f83d05abb5e82304a3389, section "Operators implemented by DmlExecutionProvider"
(the quoted rows), not taken from the program: before this table held only the 42 ops spec2onnx's
lowerings emit, and `check --target ort-dml` said "no kernel" for Relu, Conv, MatMul, ... on any other model.
"""

from __future__ import annotations

import pytest
from onnx import TensorProto, helper

from converter.targets.check import check_model, errors

F, F16, I8, U8, I32, I64, B = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT8, TensorProto.UINT8,
                               TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL)


def model(op, inputs, outputs, *, opset, domain="", **attrs):
    node = helper.make_node(op, [i[0] for i in inputs], [o[0] for o in outputs], name="n", domain=domain, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs])
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return helper.make_model(graph, opset_imports=imports, ir_version=8)


def reasons(m, target="ort-dml"):
    return [p.reason for p in errors(check_model(m, target))]


# (doc row) -> a one-node model it covers
RUNS = {
    # |Relu|...|14+|**T** = tensor(float), tensor(float16), tensor(int16), tensor(int32), tensor(int8)|
    "Relu-14 float16": model("Relu", [("x", F16, [2, 3])], [("y", F16, [2, 3])], opset=14),
    "Relu-14 int8": model("Relu", [("x", I8, [2, 3])], [("y", I8, [2, 3])], opset=14),
    # |||6+|**T** = tensor(float), tensor(float16)|
    "Relu-6 float": model("Relu", [("x", F, [2, 3])], [("y", F, [2, 3])], opset=12),
    # |Conv|...|11+|**T** = tensor(float), tensor(float16)|
    "Conv-11 float16": model("Conv", [("x", F16, [1, 2, 5, 5]), ("w", F16, [3, 2, 3, 3])], [("y", F16, [1, 3, 3, 3])],
                             opset=17),
    "Conv-11 float": model("Conv", [("x", F, [1, 2, 5, 5]), ("w", F, [3, 2, 3, 3])], [("y", F, [1, 3, 3, 3])], opset=11),
    # |MatMul|...|13+|**T** = tensor(float), tensor(float16)|
    "MatMul-13 float": model("MatMul", [("a", F, [2, 3]), ("b", F, [3, 4])], [("y", F, [2, 4])], opset=17),
    "MatMul-13 float16": model("MatMul", [("a", F16, [2, 3]), ("b", F16, [3, 4])], [("y", F16, [2, 4])], opset=13),
    # |Gemm|...|13+|**T** = tensor(float), tensor(float16)|
    "Gemm-13 float16": model("Gemm", [("a", F16, [2, 3]), ("b", F16, [3, 4])], [("y", F16, [2, 4])], opset=17),
    # |Softmax|...|13+|**T** = tensor(float), tensor(float16)|
    "Softmax-13 float": model("Softmax", [("x", F, [2, 3])], [("y", F, [2, 3])], opset=17),
    # |||11+|**T** = tensor(float), tensor(float16)|
    "Softmax-11 float16": model("Softmax", [("x", F16, [2, 3])], [("y", F16, [2, 3])], opset=11),
    # |MaxPool|...|12+|**I** = tensor(int64)<br/> **T** = tensor(float), tensor(float16), tensor(int8), tensor(uint8)|
    "MaxPool-12 uint8": model("MaxPool", [("x", U8, [1, 1, 4, 4])], [("y", U8, [1, 1, 2, 2])], opset=17,
                              kernel_shape=[2, 2], strides=[2, 2]),
    "MaxPool-12 float": model("MaxPool", [("x", F, [1, 1, 4, 4])], [("y", F, [1, 1, 2, 2])], opset=12,
                              kernel_shape=[2, 2], strides=[2, 2]),
    # |Concat|...|13+|**T** = tensor(bool), tensor(double), tensor(float), ..., tensor(uint8)|
    "Concat-13 int64": model("Concat", [("a", I64, [2]), ("b", I64, [3])], [("y", I64, [5])], opset=17, axis=0),
    "Concat-13 bool": model("Concat", [("a", B, [2]), ("b", B, [3])], [("y", B, [5])], opset=13, axis=0),
    # |Transpose|...|21+|... and |||13+|**T** = tensor(bool), tensor(double), ..., tensor(uint8)|
    "Transpose-13 uint8": model("Transpose", [("x", U8, [2, 3])], [("y", U8, [3, 2])], opset=17),
    "Transpose-13 float16": model("Transpose", [("x", F16, [2, 3])], [("y", F16, [3, 2])], opset=13),
    # com.microsoft: |Gelu|*in* X:**T**<br> *out* Y:**T**|1+|**T** = tensor(float), tensor(float16)|
    "com.microsoft Gelu-1 float16": model("Gelu", [("x", F16, [2, 3])], [("y", F16, [2, 3])], opset=17,
                                          domain="com.microsoft"),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_common_ops_run_on_dml(name):
    assert reasons(RUNS[name]) == []


REFUSED = {
    # Compress: the CPU section has |Compress|...|11+| ; the DML section has no Compress row at all
    "Compress-11 (no DML kernel)": (
        model("Compress", [("x", F, [4]), ("c", B, [4])], [("y", F, [None])], opset=17, axis=0), True),
    # |MatMul| DML rows are float/float16 only (the CPU section also registers int32, int64, ...)
    "MatMul-13 int32 (type)": (model("MatMul", [("a", I32, [2, 3]), ("b", I32, [3, 4])], [("y", I32, [2, 4])], opset=17),
                               True),
}


def test_a_type_the_schema_does_not_allow_is_refused_as_onnxruntime_refuses_it_at_load():
    # Relu-13's schema takes float types only (int8 from Relu-14), so this model is invalid before any EP is asked:
    # onnxruntime refuses to load it ("Type 'tensor(int8)' of input parameter (x) of operator (Relu) ... is
    # invalid"), and so must check, on ort-dml as on ort-cpu; the DML kernel question comes after
    import onnxruntime as ort

    m = model("Relu", [("x", I8, [2, 3])], [("y", I8, [2, 3])], opset=13)
    with pytest.raises(Exception, match="tensor\\(int8\\).*invalid"):
        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for target in ("ort-dml", "ort-cpu"):
        found = reasons(m, target)
        assert found and "unsupported type: tensor(int8)" in found[0], (target, found)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_dml_section_lacks_is_refused(name):
    m, cpu_runs = REFUSED[name]
    found = reasons(m)
    assert len(found) == 1 and "kernel" in found[0], found
    if cpu_runs:  # the same model does have a CPU kernel: the refusal is DML's, not the model's
        assert reasons(m, "ort-cpu") == []


def test_a_domain_the_dml_section_lacks_is_refused():
    # the DML section's domains are ai.onnx, com.microsoft and com.microsoft.dml: no ai.onnx.ml
    m = model("Binarizer", [("x", F, [2])], [("y", F, [2])], opset=17, domain="ai.onnx.ml")
    found = reasons(m)
    assert len(found) == 1 and "no kernels of this domain" in found[0], found
