"""check --target ort-cuda on the com.microsoft domain: the CUDA EP's contrib kernels, as onnxruntime's own
docs/OperatorKernels.md lists them (tools/data/ort-cuda-contrib-kernels.md, transcribed at 001d12d; registered by
onnxruntime/contrib_ops/cuda/cuda_contrib_kernels.cc), and a GPU build's registry where it answers."""

from __future__ import annotations

import pytest
from onnx import TensorProto, helper

from converter.targets import ort_kernels
from converter.targets.check import check_model, errors
from tools import measure_cuda
from tools.make_ort_tables import parse_domains

CONTRIB = parse_domains(measure_cuda.CONTRIB.read_text(encoding="utf-8"))["com.microsoft"]


@pytest.fixture
def committed_tables(monkeypatch, request):
    monkeypatch.setenv("SPEC2ONNX_KERNEL_TABLES", "committed")  # as on a machine without a CUDA build
    ort_kernels.kernel_table.cache_clear()
    request.addfinalizer(ort_kernels.kernel_table.cache_clear)


def contrib_model(op: str, dtype: str = "float"):
    elem = TensorProto.DataType.Value(dtype.upper())
    node = helper.make_node(op, ["x"], ["y"], domain="com.microsoft")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, [2, 3])],
                              [helper.make_tensor_value_info("y", elem, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                             ir_version=8)


def test_the_committed_ort_cuda_table_has_the_documents_com_microsoft_rows():
    table = ort_kernels.committed("ort-cuda")
    assert table["domains"]["com.microsoft"] == CONTRIB
    assert "tools/data/ort-cuda-contrib-kernels.md" in table["source"]
    # the ops the issue names, as the document lists them (every CUDA contrib kernel is registered from version 1)
    for op in ("Gelu", "FastGelu", "BiasGelu", "FusedMatMul"):
        assert CONTRIB[op] == [{"start": 1, "end": None, "types": {"T": ["bfloat16", "double", "float", "float16"]}}]


@pytest.mark.parametrize("op", sorted(CONTRIB))
def test_every_transcribed_com_microsoft_op_runs_on_ort_cuda(op, committed_tables):
    """Was 'domain com.microsoft: only the ai.onnx domain is supported' for each."""
    assert errors(check_model(contrib_model(op), "ort-cuda")) == []


def test_a_com_microsoft_op_only_the_cpu_ep_has_goes_to_the_cpu_ep(committed_tables):
    """QLinearAdd: the CPU EP's contrib kernels have it (the ort-cpu table, from onnxruntime's registry), the CUDA EP's
    document does not: onnxruntime places it on the CPU EP, which a session without CPU fallback refuses."""
    assert "QLinearAdd" not in CONTRIB and "QLinearAdd" in ort_kernels.committed("ort-cpu")["domains"]["com.microsoft"]
    found = errors(check_model(contrib_model("QLinearAdd", "int8"), "ort-cuda"))
    assert [p.reason for p in found] == ["no kernel for this op; onnxruntime gives it to the CPU EP"]


def test_a_gpu_builds_registry_outranks_the_transcription(monkeypatch, request):
    """Where a CUDA build's registry answers, its com.microsoft kernels are the ones check uses: here the committed
    rows without Gelu stand for a build that does not register it."""
    from converter import ort_build

    real = ort_build.registry_rows
    registry = {"": ort_kernels.committed("ort-cuda")["ops"],
                "com.microsoft": {op: rows for op, rows in CONTRIB.items() if op != "Gelu"}}
    monkeypatch.setattr(ort_build, "registry_wanted", lambda: True)
    monkeypatch.setattr(ort_build, "registry_rows",
                        lambda provider: registry if provider == "CUDAExecutionProvider" else real(provider))
    ort_kernels.kernel_table.cache_clear()
    request.addfinalizer(ort_kernels.kernel_table.cache_clear)
    assert ort_kernels.installed_registry("ort-cuda")
    assert errors(check_model(contrib_model("FastGelu"), "ort-cuda")) == []
    found = errors(check_model(contrib_model("Gelu"), "ort-cuda"))
    assert found and found[0].reason.startswith("no kernel for this op")
