"""Small builders for tests: a one-layer spec document, loaded and lowered."""

from __future__ import annotations

import os
from pathlib import Path

from converter.lowering import build_model
from converter.casedata import materialize
from converter.network import Case
from converter.pipeline.spec import parse_spec


def one_layer_spec(op: str, inputs: dict, attrs: dict, constants: dict | None = None, layer_inputs=None):
    """A validated Spec with one layer named 'y' over the given inputs ({name: (dtype, shape)})."""
    doc = {
        "name": "t",
        "network": {
            "inputs": {n: {"dtype": d, "shape": list(s)} for n, (d, s) in inputs.items()},
            "constants": constants or {},
            "layers": [{"name": "y", "op": op, "inputs": layer_inputs or list(inputs), **attrs}],
            "outputs": ["y"],
        },
    }
    spec = parse_spec(doc, Path("test.yaml"), require_cases=False)
    # One case of placeholder data (integers 0 and 1), made as the loader makes it but not checked through the network
    # (converter/pipeline/shapes.py check_case): callers put the data they test in it, e.g. a shape input's values.
    generator = {"random": "integers", "low": 0, "high": 1}
    spec.cases.append(Case("c", {n: materialize(generator, spec.network.inputs[n], Path(".")) for n in inputs}, None))
    return spec


def node_types(spec, opset: int = 17) -> list[str]:
    return [n.op_type for n in build_model(spec.network, opset=opset).graph.node]


class TouchesWhenUnpickled:
    """A pickle that would run ``touch marker`` (os.system) if an unpickler let it: a cache must refuse it."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def newest_opset_with_every_kernel() -> int:
    """The newest opset at which the installed onnxruntime runs what the lowerings emit, not only loads it.

    ``converter.runners.onnxruntime.max_supported_opset`` is the newest opset onnxruntime *loads* (a one-node
    Identity model). onnxruntime 1.32.0 loads opset 28 but has no CPU kernel for DequantizeLinear-28
    ("Could not find an implementation for DequantizeLinear(28)"), the one op of the lowerings new at 28
    (onnx 1.23: DequantizeLinear-28), so tests of "the newest opset" run at the newest one with its kernel,
    and at most the newest opset the ort-cpu profile (converter/targets/profiles.py) knows.
    """
    return _newest_opset_with_every_kernel()


def _newest_opset_with_every_kernel(_memo: list = []) -> int:  # noqa: B006 - a per-process answer
    if _memo:
        return _memo[0]
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from converter.installed.opset import ir_version_for
    from converter.runners.onnxruntime import max_supported_opset

    from converter.targets.profiles import ORT_MAX_OPSET

    # and no newer than spec2onnx's ort-cpu profile says onnxruntime loads (its tables are onnxruntime 1.31's: 26;
    # the default validate path checks against them, so a newer runtime's 27 would be a static-check error)
    for opset in range(min(max_supported_opset(), ORT_MAX_OPSET), 12, -1):
        graph = helper.make_graph(
            [helper.make_node("DequantizeLinear", ["x", "s"], ["y"])], "probe",
            [helper.make_tensor_value_info("x", TensorProto.INT8, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
            [helper.make_tensor("s", TensorProto.FLOAT, [], [0.5])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version_for(opset))
        try:
            ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - no kernel (or not loadable) at this opset
            continue
        _memo.append(opset)
        return opset
    _memo.append(13)
    return 13


def ort_cpu_loads(model) -> bool:
    """Whether onnxruntime's CPU EP makes a session of ``model`` (its refusal, of any kind, is the answer): what the
    ort-cpu check is held to."""
    import onnxruntime as ort

    try:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - onnxruntime's refusal
        return False
    return True


def assert_reproduces(invoke, result, small: Path, runtime: str):
    """reduce's printed command (run SMALL.onnx on ``runtime`` with its inputs and outputs files, beside it) is in
    its output, and running it fails (exit 1). Returns that run's result."""
    inputs, outputs = small.with_name(small.stem + ".inputs.npz"), small.with_name(small.stem + ".outputs.npz")
    assert f"spec2onnx run {small} --runtime {runtime} --load-inputs {inputs} --load-outputs {outputs}" in result.output
    rerun = invoke("run", small, "--runtime", runtime, "--load-inputs", inputs, "--load-outputs", outputs)
    assert rerun.exit_code == 1, rerun.output
    return rerun


def relu_model(path: Path) -> Path:
    """A one-node float32 Relu model of x [2, 3] (opset 17, IR 8), written to ``path``: any ONNX model, for the
    commands' own behaviour."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
                     .SerializeToString())
    return path
