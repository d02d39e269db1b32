"""Target legalization of the Scale, ElementWise and DequantizeLinear lowerings (issue 10).

Every bundled spec of these families, lowered for each target, still validates on onnxruntime's CPU
EP, bit for bit what the ort-cpu lowering gives. A model lowered for ort-cuda or portable has a CUDA
kernel for the types of every node, by converter.targets' check of onnxruntime's kernel table.
"""

from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest

from converter import reference
from converter.pipeline.legalize import host_model
from converter.lowering import build_model
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.selection import spec_files as find_spec_files
from converter.pipeline.spec import load_spec
from converter.targets import TARGET_NAMES, Target
from converter.pipeline.stages import Options, _compare_outputs, _tolerance, opset_for

from ..conftest import SPECS

FAMILIES = ("trt_scale", "trt_elementwise", "dml_dequantize")
SPEC_FILES = [p for family in FAMILIES for p in find_spec_files([SPECS / family])]


def _id(path) -> str:
    return path.stem


@functools.lru_cache(maxsize=None)
def _model_bytes(path, target: str) -> bytes:
    spec = load_spec(path)
    model = build_model(spec.network, opset=opset_for(spec, Options()), target=Target(target))
    if Target(target).deployment:  # what validate runs on the CPU EP: the host-legalized copy
        model = host_model(model, dla=target == "tensorrt-dla")[0]
    return model.SerializeToString()


def _run(path, target: str) -> dict:
    spec = load_spec(path)
    runner = OrtRunner(_model_bytes(path, target))
    return {case.name: runner.run(case.inputs) for case in spec.cases}


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("path", SPEC_FILES, ids=_id)
def test_every_target_validates_on_the_cpu_ep_with_the_cpu_lowerings_bits(path):
    spec = load_spec(path)
    baseline = _run(path, "ort-cpu")
    tolerances = {name: _tolerance(spec, name, Options()) for name in spec.network.outputs}
    seen = {_model_bytes(path, "ort-cpu")}
    for target in TARGET_NAMES:
        if _model_bytes(path, target) in seen:
            continue
        seen.add(_model_bytes(path, target))
        got = _run(path, target)
        arithmetic = target if Target(target).deployment else None  # the target's arithmetic (FP16 weights, DLA)
        for case in spec.cases:
            want = reference.run_network(spec.network, case.inputs, arithmetic=arithmetic)
            widening = {name: reference.expected_widening(spec.network, name, arithmetic) for name in spec.network.outputs}
            problems, _ = _compare_outputs(spec, case, target, got[case.name], tolerances, against_reference=want,
                                           widening=widening)
            assert not problems, f"[{target}] {case.name}: {problems}"
            if reference.arithmetic_differs(spec.network, arithmetic):
                continue  # other arithmetic: other bits than the CPU lowering's, by design
            for name in spec.network.outputs:
                assert _same_bits(got[case.name][name], baseline[case.name][name]), f"[{target}] {case.name}/{name}"


# --- the targets' static check (converter/targets/check.py, onnxruntime's CUDA kernel table) ----------


def cuda_errors(model: onnx.ModelProto) -> list[str]:
    from converter.targets.check import check_model, errors

    return [p.reason for p in errors(check_model(model, "ort-cuda"))]


@pytest.mark.parametrize("target", ["ort-cuda", "portable"])
@pytest.mark.parametrize("path", SPEC_FILES, ids=_id)
def test_every_node_has_a_cuda_kernel_for_its_types(path, target):
    """At the spec's opset no node lacks a CUDA kernel for its types; at opset <= 18 none lacks one at all.

    A node whose since-version is newer than its CUDA row (Cast at 24+, Round at 22+, ...) is the opset's
    problem, not the types': converter.pipeline.stages lowers such a model at an older opset (next test).
    """
    spec = load_spec(path)
    opset = opset_for(spec, Options())
    problems = cuda_errors(build_model(spec.network, opset=opset, target=Target(target)))
    assert not [p for p in problems if "since-version" not in p], problems
    if opset <= 18:
        assert not problems


def test_the_cuda_check_sees_what_onnxruntime_refused_on_the_h100():
    """Failures measured on an H100 (int8 Max, int16 DequantizeLinear, blocked int8 DequantizeLinear), lowered
    for ort-cpu, are found by the check, and gone when lowered for ort-cuda."""
    for name in ("gen-trt-elementwise-max-int8", "gen-dml-dq-int16-f32-r5-zp-native-blocked", "gen-dml-dq-int8-f32-r2-nozp-native-blocked"):
        (path,) = [p for p in SPEC_FILES if p.stem == name]
        spec = load_spec(path)
        opset = opset_for(spec, Options())
        assert cuda_errors(build_model(spec.network, opset=opset, target=Target("ort-cpu"))), name
        assert not cuda_errors(build_model(spec.network, opset=opset, target=Target("ort-cuda"))), name


def _int8_casts(model: onnx.ModelProto) -> list[str]:
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in
             list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
    int8 = onnx.TensorProto.INT8
    return [n.name for n in model.graph.node if n.op_type in ("Cast", "Max", "Min")
            and (types.get(n.input[0]) == int8 or types.get(n.output[0]) == int8)]


@pytest.mark.parametrize("target", ["tensorrt", "portable"])
def test_int8_reaches_tensorrt_only_through_quantize_and_dequantize(target):
    """onnx-tensorrt casts no int8 (a quantized type there): int8 enters by DequantizeLinear, leaves by QuantizeLinear."""
    checked = 0
    for path in SPEC_FILES:
        spec = load_spec(path)
        if not any(t.dtype.name == "int8" for t in spec.network.types.values()) or "dml_dequantize" in str(path):
            continue
        model = build_model(spec.network, opset=opset_for(spec, Options()), target=Target(target))
        assert not _int8_casts(model), path.stem
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("path", SPEC_FILES, ids=_id)
def test_the_targets_checker_finds_nothing_for_ort_cuda(path):
    """converter.targets' check_model, at the opset converter.pipeline.stages picks for ort-cuda."""
    from converter.targets.check import check_model, errors
    from converter.pipeline.stages import model_for_target

    spec = load_spec(path)
    model = model_for_target(spec, Target("ort-cuda"), opset_for(spec, Options()))[0]
    assert not errors(check_model(model, "ort-cuda"))
