"""check --target ort-cuda on the com.microsoft domain: the CUDA EP's contrib kernels, as onnxruntime's own
docs/OperatorKernels.md lists them (tools/data/ort-cuda-contrib-kernels.md, transcribed at 001d12d; registered by
onnxruntime/contrib_ops/cuda/cuda_contrib_kernels.cc), and a GPU build's registry where it answers."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from ..helpers import ort_cpu_loads
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


def typed_call(op: str):
    """A node of ``op`` whose every input is of the first type the CUDA row allows its formal parameter (onnxruntime's
    schema says which constraint each input binds: tables/ort-contrib-formals.json)."""
    (row,) = CONTRIB[op]
    formal = ort_kernels.formals("com.microsoft", op, 1)
    inputs = []
    for i, kind in enumerate(formal["inputs"]):
        element = (row["types"].get(kind) or formal["constraints"].get(kind) or [kind[len("tensor("):-1]])[0]
        inputs.append(helper.make_tensor_value_info(f"x{i}", TensorProto.DataType.Value(element.upper()), [2, 2]))
    node = helper.make_node(op, [v.name for v in inputs], [f"y{i}" for i in range(len(formal["outputs"]))],
                            domain="com.microsoft")
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info(n, 0, None) for n in node.output])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                             ir_version=8)


@pytest.mark.parametrize("op", sorted(CONTRIB))
def test_every_transcribed_com_microsoft_op_runs_on_ort_cuda(op, committed_tables):
    """Was 'domain com.microsoft: only the ai.onnx domain is supported' for each."""
    assert errors(check_model(typed_call(op), "ort-cuda")) == []


def test_a_com_microsoft_op_only_the_cpu_ep_has_goes_to_the_cpu_ep(committed_tables):
    """QLinearAdd: the CPU EP's contrib kernels have it (the ort-cpu table, from onnxruntime's registry), the CUDA EP's
    document does not: onnxruntime places it on the CPU EP, which a session without CPU fallback refuses."""
    assert "QLinearAdd" not in CONTRIB and "QLinearAdd" in ort_kernels.committed("ort-cpu")["domains"]["com.microsoft"]
    found = errors(check_model(contrib_model("QLinearAdd", "int8"), "ort-cuda"))
    assert [p.reason for p in found] == ["no kernel for this op; onnxruntime gives it to the CPU EP"]


def test_a_gpu_builds_registry_outranks_the_transcription(monkeypatch, request):
    """Where a CUDA build's registry answers, its com.microsoft kernels are the ones check uses: here the committed
    rows without Gelu stand for a build that does not register it."""
    from converter.installed import ort_build

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


# com.microsoft ops whose inputs are all of one shape-compatible kind (x0, x1, ... [2, 2]) and their input counts
CONTRIB_OPS = {"Gelu": 1, "FastGelu": 1, "QuickGelu": 1, "BiasGelu": 2, "Inverse": 1, "BiasSoftmax": 2, "FusedMatMul": 2,
               "TransposeMatMul": 2, "ComplexMul": 2, "BiasAdd": 3, "SkipLayerNormalization": 3}
# measured on onnxruntime 1.32.0: the CPU EP's kernels are float, but the contrib schemas' function bodies run in
# double, which check does not expand (it has onnxruntime's formal parameters, not its function bodies)
FUNCTION_BODIES = {("FastGelu", "double"), ("QuickGelu", "double")}


def test_the_committed_formal_parameters_are_the_installed_onnxruntimes():
    """tables/ort-contrib-formals.json is what python -m tools.make_ort_tables --contrib-formals writes."""
    ort = pytest.importorskip("onnxruntime")
    from tools.make_ort_tables import contrib_formals

    committed = json.loads((ort_kernels.TABLES / ort_kernels.FORMALS).read_text(encoding="utf-8"))
    if f"onnxruntime {ort.__version__} " not in committed["source"]:
        pytest.skip(f"the committed formals are another onnxruntime's: {committed['source']}")
    assert contrib_formals() == committed


@settings(max_examples=60, deadline=None)
@given(op=st.sampled_from(sorted(CONTRIB_OPS)),
       element=st.sampled_from(["float", "double", "float16", "bfloat16", "int32", "int64", "uint8"]))
def test_a_com_microsoft_nodes_types_are_checked_as_onnxruntime_checks_them(op, element):
    """Was 'runs' for any type (onnx has no schema of com.microsoft ops to bind types with): Gelu on int32, which
    onnxruntime's schema refuses at load, and BiasGelu on double, which no CPU kernel takes. Now onnxruntime's
    schemas bind the types: check's ort-cpu verdict is whether onnxruntime 1.32.0 builds the session."""
    pytest.importorskip("onnxruntime")
    assume((op, element) not in FUNCTION_BODIES)
    dtype = TensorProto.DataType.Value(element.upper())
    names = [f"x{i}" for i in range(CONTRIB_OPS[op])]
    graph = helper.make_graph([helper.make_node(op, names, ["y"], domain="com.microsoft")], "g",
                              [helper.make_tensor_value_info(n, dtype, [2, 2]) for n in names],
                              [helper.make_tensor_value_info("y", dtype, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              ir_version=8)
    builds = ort_cpu_loads(model)
    assert (not errors(check_model(model, "ort-cpu"))) == builds


def test_onnxruntimes_schema_refuses_a_type_on_every_onnxruntime_target(committed_tables):
    """Gelu on int32: onnxruntime's com.microsoft schema takes float types only, so no EP loads it."""
    for target in ("ort-cpu", "ort-cuda"):
        (found,) = errors(check_model(contrib_model("Gelu", "int32"), target))
        assert found.reason.startswith("type T=int32: onnxruntime's schema of com.microsoft.Gelu takes bfloat16, double")
