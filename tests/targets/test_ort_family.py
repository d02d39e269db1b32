"""What every onnxruntime target shares, whatever its execution provider (profiles.ONNXRUNTIME): onnxruntime folds
Constant nodes into initializers when it builds its Graph (microsoft/onnxruntime onnxruntime/core/graph/graph.cc,
Graph::Graph: "Copy constant nodes _value to name_to_initial_tensor_ ... remove constant nodes"), before any
execution provider is offered a node. Issue 26: ``check --target ort-dml`` said "#0 (Constant): no kernel for this op".
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from cli import main
from converter.targets.check import check_model, errors
from converter.targets.profiles import ONNXRUNTIME, PROFILES
from converter.installed.providers import PROVIDER_TARGETS, TARGET_PROVIDERS

# every target whose model an onnxruntime execution provider runs as its own EP (not tensorrt/openvino: onnxruntime's
# TensorRT and OpenVINO EPs are not what those targets model; their models go to the runtimes themselves)
ORT_TARGETS = sorted(t for t, p in TARGET_PROVIDERS.items() if t.startswith("ort-"))


def constant_plus_input(opset=17) -> onnx.ModelProto:
    """y = x + c, c made by a Constant node (float32: every onnxruntime EP here has a float Add kernel)."""
    c = helper.make_node("Constant", [], ["c"], name="const", value=numpy_helper.from_array(np.float32([1, 2, 3]), "c"))
    add = helper.make_node("Add", ["x", "c"], ["y"], name="add")
    graph = helper.make_graph([c, add], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def test_the_onnxruntime_targets_are_the_ones_its_providers_imply():
    assert ORT_TARGETS == ["ort-cpu", "ort-cuda", "ort-dml"]
    assert {PROVIDER_TARGETS[p] for p in ("CPUExecutionProvider", "CUDAExecutionProvider", "DmlExecutionProvider")} \
        == set(ORT_TARGETS)


@pytest.mark.parametrize("target", ORT_TARGETS)
def test_every_onnxruntime_target_shares_the_familys_properties(target):
    profile = PROFILES[target]
    assert {k: profile[k] for k in ONNXRUNTIME} == ONNXRUNTIME  # from the one place, not a copy per target


@pytest.mark.parametrize("target", ORT_TARGETS)
def test_a_constant_node_needs_no_kernel_on_any_onnxruntime_target(target):
    assert errors(check_model(constant_plus_input(), target)) == []


def test_the_runtime_folds_constants_before_any_execution_provider():
    """Ground truth: the installed onnxruntime's CPU EP registers no Constant kernel, yet runs a model with a
    Constant node; so the folding is the graph's, before partitioning, and holds for every EP."""
    ort = pytest.importorskip("onnxruntime")
    from converter.targets import ort_kernels

    # (the registry as a child process reads it: in this process, onnxruntime-gpu 1.31.1's call dies of SIGSEGV)
    registry = ort_kernels.registry_table("CPUExecutionProvider")
    if registry is None:
        pytest.skip(f"this onnxruntime's registry cannot be read: {ort_kernels.ort_build.build().failure}")
    assert "Constant" not in registry["ops"] and "Constant" not in registry["domains"].get("ai.onnx", {})
    session = ort.InferenceSession(constant_plus_input().SerializeToString(), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": np.float32([1, 1, 1])})[0].tolist() == [2.0, 3.0, 4.0]


def test_check_ort_dml_says_nothing_about_the_constant(tmp_path):
    path = tmp_path / "c.onnx"
    onnx.save(constant_plus_input(), path)
    result = CliRunner().invoke(main, ["check", str(path), "--target", "ort-dml"])
    assert result.exit_code == 0, result.output
    assert "Constant" not in result.output and "every node runs on ort-dml" in result.output
