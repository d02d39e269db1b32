"""check_model(model, target) on hand-made ONNX models, each expectation from a named source."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from cli import main
from ..helpers import ort_cpu_loads
from converter.targets import TARGET_NAMES, resolve_target
from converter.targets.check import check_model, errors


def one_node(op, inputs, output, *, opset=17, inits=(), **attrs):
    """A model of one node; ``inputs``: (name, elem_type, shape) for graph inputs."""
    node = helper.make_node(op, [i[0] for i in inputs] + [t.name for t in inits], [output[0]], name="n", **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(*i) for i in inputs], [helper.make_tensor_value_info(*output)],
        initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def batchnorm(rank: int, dtype=TensorProto.FLOAT):
    shape = [1, 2] + [1] * (rank - 2)
    coeff = [numpy_helper.from_array(np.ones(2, np.float32), n) for n in ("s", "b", "m", "v")]
    return one_node("BatchNormalization", [("x", dtype, shape)], ("y", dtype, shape), inits=coeff)


def reasons(model, target):
    return [p.reason for p in errors(check_model(model, target))]


def test_rank6_batchnorm_runs_on_cpu_but_not_on_cuda():
    # measured on an H100 (cuda-h100-2026-11-23.md): "Input dim size should be < 6 for BatchNorm, but got 6"
    assert reasons(batchnorm(6), "ort-cpu") == []
    found = reasons(batchnorm(6), "ort-cuda")
    assert len(found) == 1 and "< 6" in found[0] and "input rank 6" in found[0]
    assert reasons(batchnorm(5), "ort-cuda") == []


def test_cuda_batchnorm_needs_coefficients_of_the_input_type():
    # ort-cuda-notes.md (c): an fp16 X with fp32 scale/mean/var matches no CUDA kernel
    found = reasons(batchnorm(4, TensorProto.FLOAT16), "ort-cuda")
    assert found and "different types" in found[0]


@pytest.mark.parametrize("opset", [18, 19])
def test_cuda_equal_19_is_registered_though_the_document_has_13_plus(opset):
    # OperatorKernels.md at 001d12d lists CUDA Equal as "13+" only (which matches since-version 13 only: notes,
    # section 0), but onnxruntime-gpu 1.31.1 ran onnx's test_equal (Equal-19, int32) on the CUDA EP alone (H100,
    # tools/data/cuda-ep-node-cases-2026-11-27.json): the table has a measured row for it
    model = one_node("Equal", [("a", TensorProto.INT32, [4]), ("b", TensorProto.INT32, [4])], ("y", TensorProto.BOOL, [4]),
                     opset=opset)
    assert reasons(model, "ort-cuda") == []
    assert reasons(model, "ort-cpu") == []  # the CPU EP registers Equal 19+


def test_cuda_gru_22_has_no_kernel_and_goes_to_the_cpu():
    # CUDA GRU is "14+" (matches since-version 14 only); at opset 22 the node is GRU-22, and onnx's GRU cases at
    # opset 22 were all assigned to the CPU EP on the H100 ("graph nodes that are assigned to the default CPU EP")
    x, w, r = [1, 2, 3], [1, 6, 3], [1, 6, 2]
    model = one_node("GRU", [("x", TensorProto.FLOAT, x), ("w", TensorProto.FLOAT, w), ("r", TensorProto.FLOAT, r)],
                     ("y", TensorProto.FLOAT, [1, 1, 2, 2]), opset=22, hidden_size=2)
    found = reasons(model, "ort-cuda")
    assert len(found) == 1 and "since-version 22" in found[0] and "14+" in found[0] and "CPU EP" in found[0]
    assert reasons(model, "ort-cpu") == []


def test_int8_max_has_no_cuda_kernel():
    # ort-cuda-kernels.md: Max 13+ takes int32, int64, uint32, uint64 and floats, no int8
    model = one_node("Max", [("a", TensorProto.INT8, [4]), ("b", TensorProto.INT8, [4])], ("y", TensorProto.INT8, [4]))
    found = reasons(model, "ort-cuda")
    assert found and "T=int8" in found[0]
    assert reasons(model, "ort-cpu") == []
    assert reasons(model, "tensorrt")  # onnx-tensorrt: Max FP32, FP16, BF16, INT32, INT64


def test_blocked_int8_dequantize_fails_on_cuda():
    # ort-cuda-notes.md (a): blocked DequantizeLinear is implemented for int4/uint4 only on CUDA
    scale = numpy_helper.from_array(np.ones((2, 2), np.float32), "scale")
    model = one_node("DequantizeLinear", [("x", TensorProto.INT8, [2, 4])], ("y", TensorProto.FLOAT, [2, 4]),
                     opset=21, inits=[scale], axis=1, block_size=2)
    found = reasons(model, "ort-cuda")
    assert found and "int4" in found[0]
    assert reasons(model, "ort-cpu") == []


def test_float16_add_runs_on_cpu_through_inserted_casts():
    # the CPU EP has no float16 Add kernel; onnxruntime's InsertCastTransformer runs it in float
    model = one_node("Add", [("a", TensorProto.FLOAT16, [4]), ("b", TensorProto.FLOAT16, [4])], ("y", TensorProto.FLOAT16, [4]))
    assert reasons(model, "ort-cpu") == []
    assert reasons(model, "ort-cuda") == []


def resize(mode, rank=4, opset=17, **attrs):
    shape_in, shape_out = [1, 1] + [2] * (rank - 2), [1, 1] + [4] * (rank - 2)
    sizes = numpy_helper.from_array(np.array(shape_out, np.int64), "sizes")
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="n", mode=mode, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape_in)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape_out)], initializer=[sizes])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def test_resize_modes_per_target():
    # onnx-tensorrt's Resize importer maps cubic to kCUBIC (onnxOpImporters.cpp:4406, release/10.1-GA; its
    # docs/operators.md prose says nearest/linear only); upsamplebase.h: cubic 2-D or 4-D only
    assert reasons(resize("cubic"), "ort-cpu") == []
    assert reasons(resize("cubic"), "tensorrt") == []
    assert any("mode='bicubic'" in r for r in reasons(resize("bicubic"), "tensorrt"))
    assert reasons(resize("linear"), "tensorrt") == []
    assert any("'Cubic' mode" in r for r in reasons(resize("cubic", rank=5), "ort-cpu"))
    assert reasons(resize("linear", rank=5), "ort-cuda") == []


def test_dla_node_rules():
    # seeds, ElementWise DLA Support: POW needs exactly one constant input; comparisons broadcast NCHW/NC11/N111
    pow_model = one_node("Pow", [("a", TensorProto.FLOAT16, [1, 2, 2, 2]), ("b", TensorProto.FLOAT16, [1, 2, 2, 2])],
                         ("y", TensorProto.FLOAT16, [1, 2, 2, 2]))
    assert any("exactly one" in r for r in reasons(pow_model, "tensorrt-dla"))
    assert reasons(pow_model, "tensorrt") == []
    less = one_node("Less", [("a", TensorProto.FLOAT16, [1, 2, 2, 2]), ("b", TensorProto.FLOAT16, [1, 1, 2, 1])],
                    ("y", TensorProto.BOOL, [1, 2, 2, 2]))
    assert any("NC11" in r for r in reasons(less, "tensorrt-dla"))
    nc11 = one_node("Less", [("a", TensorProto.FLOAT16, [1, 2, 2, 2]), ("b", TensorProto.FLOAT16, [1, 2, 1, 1])],
                    ("y", TensorProto.BOOL, [1, 2, 2, 2]))
    assert reasons(nc11, "tensorrt-dla") == []
    # seeds, Resize DLA Support: NEAREST with ASYMMETRIC/FLOOR or HALF_PIXEL/HALF_DOWN or HALF_PIXEL/HALF_UP; these
    # models are float32: DLA runs them in FP16 when the build allows it (--fp16; dla.precision_problem), not otherwise
    fp16 = resolve_target("tensorrt-dla", precision=["fp16"])
    assert reasons(resize("nearest"), fp16) == []  # ONNX defaults: half_pixel, round_prefer_floor
    assert [r for r in reasons(resize("nearest"), "tensorrt-dla") if "float32 runs there in FP16 when the build allows FP16" in r]
    assert any("not a DLA Resize" in r for r in reasons(resize("nearest", coordinate_transformation_mode="align_corners"), fp16))
    assert reasons(resize("nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"), fp16) == []


def test_portable_is_every_member_target():
    found = check_model(batchnorm(6), "portable")
    assert {p.target for p in errors(found)} == {"ort-cuda"}
    assert set(TARGET_NAMES) >= {p.target for p in found}


def test_openvino_known_numerical_differences_are_warnings():
    model = one_node("Max", [("a", TensorProto.FLOAT, [4]), ("b", TensorProto.FLOAT, [4])], ("y", TensorProto.FLOAT, [4]))
    found = check_model(model, "openvino")
    assert [p.severity for p in found] == ["warning"] and "NaN" in found[0].reason


def test_unknown_domain_and_op():
    node = helper.make_node("Foo", ["x"], ["y"], domain="com.example")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
                              ir_version=8)  # onnxruntime 1.31 refuses the default IR 14 before the domain
    assert "domain" in reasons(model, "ort-cpu")[0]


def test_check_command_exit_codes(tmp_path):
    good, bad, junk = tmp_path / "good.onnx", tmp_path / "bad.onnx", tmp_path / "junk.onnx"
    onnx.save(batchnorm(4), good)
    onnx.save(batchnorm(6), bad)
    junk.write_bytes(b"\x00not a model")
    runner = CliRunner()
    result = runner.invoke(main, ["check", str(good), "--target", "ort-cuda"])
    assert result.exit_code == 0 and "every node runs on ort-cuda" in result.output
    result = runner.invoke(main, ["check", str(bad), "--target", "ort-cuda"])
    assert result.exit_code == 1
    assert "ERROR ort-cuda: n (BatchNormalization): " in result.output and "input rank 6" in result.output
    result = runner.invoke(main, ["check", str(junk)])
    assert result.exit_code == 2 and "junk.onnx" in result.output and "Traceback" not in result.output
    result = runner.invoke(main, ["check", str(good), "--target", "cuda"])
    assert result.exit_code == 2 and "ort-cuda" in result.output
    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\n")
    result = runner.invoke(main, ["check", str(spec)])  # the CLI checks models; a spec gets a pointer to what checks it
    assert result.exit_code == 2 and "s.yaml: not an ONNX model" in result.output
    assert "`spec2onnx convert SPEC --target T`" in result.output


def test_openvino_table_is_measured_a_combination_never_measured_is_a_warning():
    # openvino.json holds what tools/measure_openvino.py compiled (onnx's node tests and the lowerings' models);
    # both have Hardmax at since-version 13 only: Hardmax-11 (opset 11) was never measured
    model = one_node("Hardmax", [("a", TensorProto.FLOAT, [2, 3])], ("y", TensorProto.FLOAT, [2, 3]), opset=11)
    found = check_model(model, "openvino")
    assert [p.severity for p in found] == ["warning"] and "not measured" in found[0].reason
    assert reasons(model, "ort-cpu") == []


def test_tensorrt_quantize_linear_types_are_those_of_x():
    # onnx-tensorrt docs/operators.md: QuantizeLinear FP32, FP16, BF16 (x); the zero point must be all zeros
    # (onnxOpImporters.cpp:1491, release/10.1-GA: "TensorRT only supports symmetric quantization")
    scale = numpy_helper.from_array(np.array(1, np.float32), "scale")
    zero = numpy_helper.from_array(np.array(0, np.int8), "zero")
    model = one_node("QuantizeLinear", [("x", TensorProto.FLOAT, [4])], ("y", TensorProto.INT8, [4]), inits=[scale, zero])
    assert reasons(model, "tensorrt") == []
    one = numpy_helper.from_array(np.array(1, np.int8), "zero")
    model = one_node("QuantizeLinear", [("x", TensorProto.FLOAT, [4])], ("y", TensorProto.INT8, [4]), inits=[scale, one])
    assert any("zero point must be all zeros" in r and "onnxOpImporters.cpp:1491" in r for r in reasons(model, "tensorrt"))


def test_a_model_with_external_data_is_read_and_a_missing_data_file_is_one_line(tmp_path):
    # onnx.save(..., save_as_external_data=True): what models over 2 GB must use; it was an internal error (exit 3).
    scale = numpy_helper.from_array(np.ones(4, np.float32), "s")
    zero = numpy_helper.from_array(np.zeros(4, np.int8), "zp")
    model = one_node("DequantizeLinear", [("x", TensorProto.INT8, [4])], ("y", TensorProto.FLOAT, [4]),
                     inits=(scale, zero), axis=0)
    onnx.save(model, tmp_path / "m.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
              location="m.data", size_threshold=0)
    runner = CliRunner()
    result = runner.invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", "tensorrt"])
    # external data is never read (docs/check.md): the zero point's value cannot be told, a warning
    assert result.exit_code == 0 and "every node runs on tensorrt (1 node, 1 warning)" in result.output, result.output
    assert "not verified" in result.output and "(not read)" in result.output
    (tmp_path / "m.data").unlink()
    result = runner.invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", "tensorrt"])
    assert result.exit_code == 2 and "m.onnx: initializer 's': cannot read the model's external data 'm.data'" in result.output, result.output


@pytest.mark.parametrize("opset", [26, 27, 28])
def test_an_opset_onnxruntime_does_not_load_is_an_error_for_its_targets(opset, monkeypatch):
    """onnx 1.23 writes opsets up to 28; onnxruntime 1.31 refuses a model above 26 at load time, 1.32 loads 28.

    Without onnxruntime (the committed tables, 1.31.1's) the limit is 26; with one installed, ort-cpu's is what
    that onnxruntime loads, and onnxruntime itself is the judge."""
    from converter.targets import ort_kernels

    model = one_node("Add", [("a", TensorProto.FLOAT, [2]), ("b", TensorProto.FLOAT, [2])], ("y", TensorProto.FLOAT, [2]),
                     opset=opset)
    model.ir_version = 10  # one IR version for all three: only the opset differs
    monkeypatch.setenv("SPEC2ONNX_KERNEL_TABLES", "committed")
    ort_kernels.kernel_table.cache_clear()
    try:
        for target in ("ort-cpu", "ort-cuda", "portable"):
            found = [r for r in reasons(model, target) if "newer than onnxruntime" in r]
            assert found == ([] if opset <= 26 else [f"opset {opset} is newer than onnxruntime 1.31.1 loads (at most 26)"] *
                             (2 if target == "portable" else 1)), (target, found)
    finally:
        monkeypatch.delenv("SPEC2ONNX_KERNEL_TABLES")
        ort_kernels.kernel_table.cache_clear()
    try:
        import onnxruntime as ort
    except ImportError:
        return
    refused = any("newer than onnxruntime" in r for r in reasons(model, "ort-cpu"))
    loads = ort_cpu_loads(model)
    assert loads == (not refused), (ort.__version__, opset)
