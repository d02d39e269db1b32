"""The opset policy, in one place: the opsets spec2onnx lowers to, the IR version each needs, the newest
opset the installed onnxruntime loads, and the range check every entry point applies.

Part of the core layer: imports nothing of the package (pyproject.toml, [tool.importlinter]); onnx and
onnxruntime are imported on first use (onnxruntime is an optional dependency: the [cpu]/[cuda] extras).
"""

from __future__ import annotations

import functools

from .errors import UserError

DEFAULT_OPSET = 17
MIN_OPSET = 13


def newest_onnx_opset() -> int:
    """The newest default-domain opset the installed onnx writes."""
    from onnx.defs import onnx_opset_version

    return onnx_opset_version()


def ir_version_for(opset: int) -> int:
    """The lowest IR version that carries ``opset``: onnx's default (the newest) is rejected by older runtimes."""
    from onnx import helper

    return helper.find_min_ir_version_for([helper.make_opsetid("", opset)])


def _onnxruntime_loads(opset: int, ir_version: int) -> bool:
    """Whether the installed onnxruntime loads a one-node (Identity) model of ``opset`` and ``ir_version``."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)
    try:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return True
    except Exception:  # noqa: BLE001 - any refusal means "not this one"
        return False


@functools.lru_cache(maxsize=None)
def newest_loadable_opset() -> int:
    """The newest default-domain opset the installed onnxruntime loads (probed once with a one-node model).

    onnxruntime must be installed (callers check first: runners.onnxruntime.require_onnxruntime)."""
    return next((o for o in range(newest_onnx_opset(), 12, -1) if _onnxruntime_loads(o, ir_version_for(o))), 13)


@functools.lru_cache(maxsize=None)
def newest_loadable_ir() -> int:
    """The newest IR version the installed onnxruntime loads (probed once with a one-node opset-13 model; 1.31.1:
    13, 'Unsupported model IR version: 14'; 1.32.0: 14). onnxruntime must be installed."""
    import onnx

    return next((ir for ir in range(onnx.IR_VERSION, 7, -1) if _onnxruntime_loads(13, ir)), 7)


def check_opset(opset, newest: int, by: str, *, label: str = "--opset ", error: type = UserError) -> int:
    """``opset`` when it is an integer from MIN_OPSET to ``newest`` (what ``by`` loads, named in the message);
    otherwise ``error`` (a UserError class) naming the value and the range."""
    if isinstance(opset, bool) or not isinstance(opset, int):
        raise error(f"{label}{opset!r}: not an integer opset version" if label else f"{opset!r} is not an integer opset version")
    if not MIN_OPSET <= opset <= newest:
        raise error(f"{label}{opset}: supported opsets are {MIN_OPSET} to {newest} ({by})" if label
                    else f"opset {opset} is outside {MIN_OPSET} to {newest} ({by})")
    return opset
