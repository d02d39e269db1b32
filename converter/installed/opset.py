"""The opset policy, in one place: the opsets spec2onnx lowers to, the IR version each needs, how the newest
opset and IR version the installed onnxruntime loads are probed (converter/installed/ort_build.py asks, in a child
process), and the range check every entry point applies.

Part of the core layer: imports nothing of the package but errors.py (pyproject.toml, [tool.importlinter]);
onnx is imported on first use, onnxruntime never (it runs the probes in a child process).
"""

from __future__ import annotations

from ..errors import UserError

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


# onnxruntime 1.31.1 (the committed kernel tables' version) loads models up to opset 26: InferenceSession refuses a
# one-node model at 27 and 28, which onnx 1.23 writes; and up to IR version 13: "Unsupported model IR version: 14,
# max supported IR version: 13" (onnxruntime/core/graph/model.cc, Model::Model; 1.32.0 loads 28 and 14). The
# limits of the committed tables (targets/profiles.py), and what is assumed where the installed onnxruntime
# could not be asked (converter/installed/ort_build.py: the probes below run in a child process).
ORT_MAX_OPSET = 26
ORT_MAX_IR_VERSION = 13


def probe_model(opset: int, ir_version: int) -> bytes:
    """A one-node (Identity) model of ``opset`` and ``ir_version``: whether onnxruntime loads it says whether it
    loads that opset and IR version."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version).SerializeToString()


def loadable_probes() -> dict[str, list[tuple[int, bytes]]]:
    """The probes of the newest opset and IR version onnxruntime loads, newest first: the first model a session
    loads gives the answer (ort_build.newest_loadable_opset / newest_loadable_ir). IR versions are probed with
    an opset-13 model (1.31.1: 13; 1.32.0: 14)."""
    import onnx

    return {"opset": [(o, probe_model(o, ir_version_for(o))) for o in range(newest_onnx_opset(), MIN_OPSET - 1, -1)],
            "ir": [(ir, probe_model(MIN_OPSET, ir)) for ir in range(onnx.IR_VERSION, 7, -1)]}


def check_opset(opset, newest: int, by: str, *, label: str = "--opset ", error: type = UserError) -> int:
    """``opset`` when it is an integer from MIN_OPSET to ``newest`` (what ``by`` loads, named in the message);
    otherwise ``error`` (a UserError class) naming the value and the range."""
    if isinstance(opset, bool) or not isinstance(opset, int):
        raise error(f"{label}{opset!r}: not an integer opset version" if label else f"{opset!r} is not an integer opset version")
    if not MIN_OPSET <= opset <= newest:
        raise error(f"{label}{opset}: supported opsets are {MIN_OPSET} to {newest} ({by})" if label
                    else f"opset {opset} is outside {MIN_OPSET} to {newest} ({by})")
    return opset
