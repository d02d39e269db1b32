"""check_model(model, target): every node of an ONNX model that a target cannot run, and why.

Kernel tables (onnxruntime, OpenVINO) are matched the way onnxruntime's kernel registry does it:
a row [a, b] matches a node whose since-version is in a..b, an open row ``N+`` only since-version N
(kernel_registry.cc VerifyKernelDef), and every type constraint the row names must hold the
node's types. The TensorRT matrix lists the types of an op's data inputs. Then the target's
known run-time limits (converter/targets/profiles.py); for tensorrt and tensorrt-dla, onnx-tensorrt's
importer conditions (converter/targets/tensorrt_rules.py, each citing its source line) and, for
tensorrt-dla, the DLA rules (converter/targets/dla.py: the seeds' rules, errors; NVIDIA's DLA guide,
converter/targets/dla_guide.py: a layer DLA does not run is a "GPU fallback" warning).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import onnx

from . import dla
from .limits import applies, broken
from .model_view import ModelView, NodeView
from .profiles import PROFILES

TABLES = Path(__file__).parent / "tables"


@dataclass(frozen=True)
class Problem:
    target: str
    node: str  # node name (or #index (op) when it has none); "" for the model itself
    op: str
    reason: str
    severity: str = "error"  # "error": it does not run there; "warning": it runs, results known to differ

    def __str__(self) -> str:
        where = f"{self.node} ({self.op})" if self.node else "model"
        tag = "" if self.severity == "error" else " [warning]"
        return f"{self.target}: {where}: {self.reason}{tag}"


@lru_cache(maxsize=None)
def table(name: str) -> dict:
    return json.loads((TABLES / name).read_text(encoding="utf-8"))


def check_model(model: onnx.ModelProto, target) -> list[Problem]:
    """Every problem ``target`` (a Target or a name) has with ``model``; errors first, in node order."""
    name = getattr(target, "name", target)
    view = ModelView(model)
    problems = _check(view, name)
    return sorted(problems, key=lambda p: p.severity != "error")


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def _check(view: ModelView, name: str) -> list[Problem]:
    profile = PROFILES[name]
    if "all_of" in profile:
        return [p for member in profile["all_of"] for p in _check(view, member)]
    problems = []
    if view.opset is None:
        return [Problem(name, "", "", "the model imports no ai.onnx opset")]
    if view.opset > profile.get("max_opset", view.opset):
        problems.append(Problem(name, "", "", f"opset {view.opset} is newer than onnxruntime 1.31 loads "
                                              f"(at most {profile['max_opset']})"))
    if "matrix" in profile:
        low, high = table(profile["matrix"])["opset"]
        if not low <= view.opset <= high:
            problems.append(Problem(name, "", "", f"opset {view.opset} is outside TensorRT's {low}..{high}"))
    for node in view.nodes:
        problems += _check_node(view, node, name, profile)
    return problems


def _check_node(view: ModelView, node: NodeView, name: str, profile: dict) -> list[Problem]:
    def problem(reason: str, severity: str = "error") -> Problem:
        return Problem(name, node.name, node.op, reason, severity)

    if node.node.domain not in ("", "ai.onnx"):
        return [problem(f"domain {node.node.domain!r}: only the ai.onnx domain is supported")]
    if node.since is None:
        return [problem(f"no ONNX operator {node.op} at opset {view.opset}")]
    if "kernels" in profile:
        reason = _kernel(node, table(profile["kernels"]), view.opset)
        if reason and profile.get("float16_via_float") and "float16" in node.input_types + node.output_types:
            # onnxruntime's InsertCastTransformer runs a float16 node that has only a float kernel in float
            if _kernel(node, table(profile["kernels"]), view.opset, as_float=True) is None:
                reason = None
    else:
        reason = _matrix(node, table(profile["matrix"]))
    if reason and profile.get("measured"):
        # a measured table (OpenVINO): a refusal it recorded is an error; a combination never measured, a warning
        refused = _measured_refusal(node, table(profile["kernels"]))
        bound = "; ".join(f"{c}={','.join(sorted(v))}" for c, v in sorted(node.bindings().items()))
        if refused is None:
            return [problem(f"not measured at since-version {node.since} with {bound} "
                            "(python -m tools.measure_openvino)", "warning")]
        return [problem(f"refused at since-version {node.since} with {bound}: {refused}")]
    if reason:
        return [problem(reason)]
    found = []
    for limit in profile.get("limits", ()):
        if applies(limit, node):
            why = broken(limit, node, view)
            if why:
                detail = "" if why == "always" else f": {why}"
                found.append(problem(f"{limit['why']}{detail}", limit.get("severity", "error")))
    if profile.get("importer"):
        from . import tensorrt_rules

        found += [problem(tensorrt_rules.describe(rule, detail)) for rule, detail in tensorrt_rules.node_problems(node)]
    if profile.get("dla"):
        found += [problem(r) for r in dla.node_problems(node, view)]
        from . import dla_guide

        found += [problem(r, "warning") for r in dla_guide.node_warnings(node, view)]
    return found


def _kernel(node: NodeView, kernels: dict, opset: int, as_float: bool = False) -> str | None:
    """None when some row of the kernel table runs ``node`` (its float16 taken as float: ``as_float``), else why none does."""
    rows = kernels["ops"].get(node.op)
    if not rows:
        return "no kernel for this op"
    by_version = [r for r in rows if r["start"] == node.since or (r["end"] is not None and r["start"] <= node.since <= r["end"])]
    if not by_version:
        listed = ", ".join(_span(r) for r in rows)
        return (f"no kernel for since-version {node.since} (opset {opset}); kernels: {listed} "
                "(an open row N+ matches since-version N only)")
    bindings = node.bindings()
    if as_float:
        bindings = {c: {"float" if t == "float16" else t for t in v} for c, v in bindings.items()}
    for row in by_version:
        if all(bindings.get(c, set()) <= set(allowed) for c, allowed in row["types"].items()):
            return None
    row = by_version[0]
    bad = {c: sorted(bindings.get(c, set()) - set(allowed)) for c, allowed in row["types"].items()}
    shown = "; ".join(f"{c}={','.join(v)} (kernel {_span(row)} takes {', '.join(row['types'][c])})" for c, v in bad.items() if v)
    return f"no kernel for types {shown}"


def _measured_refusal(node: NodeView, kernels: dict) -> str | None:
    bindings = {c: sorted(v) for c, v in node.bindings().items()}
    for row in kernels.get("failed", {}).get(node.op, []):
        if row["start"] == node.since and row["types"] == bindings:
            return row["error"]
    return None


def _matrix(node: NodeView, matrix: dict) -> str | None:
    entry = matrix["ops"].get(node.op)
    if entry is None or not entry["supported"]:
        return "not supported by onnx-tensorrt"
    checked = {node.input_constraint(i) for i in range(len(node.inputs)) if node.inputs[i]}
    if node.op in ("DequantizeLinear", "QuantizeLinear"):  # the matrix lists the types of x; scale and zero point follow
        checked = {node.input_constraint(0)}
    bindings = node.bindings()
    if node.op in ("Cast", "CastLike"):
        checked |= set(bindings)
    for constraint in sorted(c for c in checked if c):
        bad = bindings.get(constraint, set()) - set(entry["types"])
        if bad:
            return f"type {','.join(sorted(bad))} (onnx-tensorrt: {', '.join(entry['types'])})"
    return None


def _span(row: dict) -> str:
    if row["end"] is None:
        return f"{row['start']}+"
    return str(row["start"]) if row["start"] == row["end"] else f"[{row['start']}, {row['end']}]"


def load_model_file(path) -> onnx.ModelProto:
    """An ONNX model from ``path``; a UserError naming the file when it cannot be read as one."""
    from ..errors import UserError

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    hint = ("; for a spec file, `spec2onnx convert SPEC --target T` (or `validate --target T`) checks the model "
            "lowered from it" if Path(path).suffix.lower() in (".yaml", ".yml", ".json") else "")
    try:
        model = onnx.load_model_from_string(data)
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and friends: not an ONNX model
        raise UserError(f"{path}: not an ONNX model ({type(exc).__name__}){hint}") from None
    if not model.graph.node and not model.opset_import:
        raise UserError(f"{path}: not an ONNX model (no graph, no opset){hint}")
    try:  # tensors saved as external data (models over 2 GB): read from their files, next to the model
        from onnx.external_data_helper import load_external_data_for_model

        load_external_data_for_model(model, str(Path(path).parent))
    except Exception as exc:  # noqa: BLE001 - a missing or unsafe data file, a wrong offset: onnx raises several types
        raise UserError(f"{path}: cannot read the model's external data ({exc})") from None
    return model
