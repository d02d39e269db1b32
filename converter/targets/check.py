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
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import onnx

from ..installed.ort_build import newest_loadable_ir, newest_loadable_opset
from ..untrusted.infer import unsafe
from . import dla, dla_guide, dynamic, tensorrt_rules
from .attributes import explicit_values
from .functions import expand as expand_function, inline_local, local_function
from .limits import Unverified, applies, broken
from .model_view import ModelView, NodeView, UnreadValue
from .ort_kernels import committed, formals, installed_registry, kernel_table, modelled_version
from .placement import cpu_preferred
from .profiles import ORT_TABLES_VERSION
from .target import Target, resolve_target
from .validation import context, node_findings, severity, validate

TABLES = Path(__file__).parent / "tables"
# What a user can do about a combination the OpenVINO table never measured: a command every install has (the table's
# own maker, tools/measure_openvino.py, is a developer tool of the checkout, not installed)
NOT_MEASURED_HINT = "spec2onnx check --probe --target openvino asks the installed OpenVINO"


@dataclass(frozen=True)
class Problem:
    target: str
    node: str  # node name (or #index when it has none; str() adds the op); "" for the model itself
    op: str
    reason: str
    severity: str = "error"  # "error": it does not run there; "warning": it runs, results known to differ
    index: int = field(default=-1, compare=False)  # the node's index in the graph; -1 for the model
    types: str = field(default="", compare=False)  # the node's element types (for summaries), e.g. "float"
    # the reason without what differs from node to node (since-version, types): problems of several ops that share
    # it are one line of check's summary (model_check.summary_lines); "": the reason itself
    summary: str = field(default="", compare=False)
    # the runtime fails only when it runs the node (a limit's "at_run"): check --probe, which builds the session or
    # compiles the model but runs nothing, keeps such an error of the static check beside its own answer
    at_run: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        where = f"{self.node} ({self.op})" if self.node else "model"
        tag = "" if self.severity == "error" else " [warning]"
        return f"{self.target}: {where}: {self.reason}{tag}"


@lru_cache(maxsize=None)
def table(name: str) -> dict:
    """A target's table: a file in tables/ by name, or (a target added outside the package) an absolute path."""
    return json.loads((TABLES / name).read_text(encoding="utf-8"))


def check_model(model: onnx.ModelProto, target: Target | str, view: ModelView | None = None) -> list[Problem]:
    """Every problem ``target`` has with ``model``; errors first, in node order. ``target``: a Target, or a name
    (resolved here, the entry of a check from Python: a UserError naming the targets for an unknown one).

    ``view``: the model's ModelView when the caller made one (converter/model/check.py does, from bytes)."""
    target = resolve_target(target)
    view = view if view is not None else ModelView(model)
    problems = expand(view, _check(view, target))
    return sorted(problems, key=lambda p: (p.severity != "error", p.index))


def check_grouped(view: ModelView, target: Target) -> list[tuple[Problem, list[int] | None]]:
    """The problems of ``target`` with the model, nodes with the same verdict sharing one: (problem of the first
    node, the graph indices of every node it holds for), or (problem, None) for a problem of one node or the model."""
    return _check(view, target)


def expand(view: ModelView, grouped) -> list[Problem]:
    """One Problem per node from check_grouped's answer (in group order)."""
    graph_nodes = view.graph.node
    problems = []
    for found, members in grouped:
        if members is None:
            problems.append(found)
            continue
        for i in members:
            other = graph_nodes[i]
            label = other.name or f"#{i}"  # (Problem.__str__ adds the op)
            problems.append(replace(found, node=label, index=i))
    return problems


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def _check(view: ModelView, target: Target) -> list[tuple[Problem, list[int] | None]]:
    """``target.precision``: what the build allows (targets.PRECISIONS), for the DLA rules."""
    if target.members:
        return [p for member in target.members for p in _check(view, member)]
    name, profile = target.name, target.profile  # (the onnxruntime family's keys: ONNXRUNTIME in profiles.py)
    problems = []
    if view.opset is None:
        # onnxruntime loads a model that imports only other domains (ai.onnx.ml, com.microsoft); a node of
        # the ai.onnx domain in it has no opset to resolve against
        if not profile.get("registry") or any(n.domain in ("", "ai.onnx") for n in view.graph.node):
            return [(Problem(name, "", "", "the model imports no ai.onnx opset"), None)]
    for what, value, key, probed in (("opset", view.opset, "max_opset", newest_loadable_opset),
                                     ("IR version", view.model.ir_version, "max_ir_version", newest_loadable_ir)):
        if key in profile and value is not None:  # the installed onnxruntime's limit where its registry is the table
            newest = probed() if profile.get("registry") and installed_registry(name) else profile[key]
            if value > newest:
                problems.append(Problem(name, "", "", f"{what} {value} is newer than onnxruntime "
                                                      f"{_ort_version(name, profile)} loads (at most {newest})"))
    if target.matrix:
        low, high = table(target.matrix)["opset"]
        if view.opset is not None and not low <= view.opset <= high:
            problems.append(Problem(name, "", "", f"opset {view.opset} is outside TensorRT's {low}..{high}"))
    if "tensor_limits" in profile:
        problems += _tensor_limits(view, name, profile["tensor_limits"])
    if not target.dynamic_shapes:  # DLA: no dynamic dimension (converter/targets/dynamic.py)
        problems += [Problem(name, "", "", reason, severity) for reason, severity in dynamic.dla_problems(view.model)]
    return [(p, None) for p in problems] + _nodes(view, target)


def _nodes(view: ModelView, target: Target, depth: int = 0) -> list[tuple[Problem, list[int] | None]]:
    """The problems of the graph's nodes (check_grouped's answer without the model's own)."""
    name, profile = target.name, target.profile
    grouped = _validation(view, name, profile, depth)
    for node, members in view.groups():
        found, by_rule = _verdict(view, node, target, depth)
        if not found:
            continue
        if by_rule and len(members) > 1:  # a rule's wording may name the node's tensors: each node on its own
            for i in members:
                grouped += [(p, None) for p in _verdict(view, view.node_view(i), target, depth)[0]]
            continue
        grouped += [(p, members) for p in found]
    if profile.get("placement"):
        grouped += _placed_on_cpu(view, name, profile, grouped, inlined=depth > 0)
    return grouped


def _placed_on_cpu(view: ModelView, name: str, profile: dict, grouped, inlined: bool) -> list[tuple[Problem, None]]:
    """The nodes onnxruntime moves to the CPU EP although the target's EP takes them (converter/targets/placement.py)."""
    if not any(node.op in profile["placement"]["cpu_outputs"] for node, _ in view.groups()):
        return []  # nothing writes to CPU memory: nothing is moved (decided on the groups, not node by node)
    refused = {i for p, members in grouped if p.severity == "error" for i in (members if members is not None else [p.index])}
    taken = set(range(len(view.graph.node))) - refused
    fallback = _fallback_kernels(name, profile) if profile.get("fallback") else None

    def has_cpu_kernel(i: int) -> bool:  # constant folding runs a node on the CPU EP's kernel
        if fallback is None:
            return True
        node = view.node_view(i)
        ops = _domain_ops(fallback, node.node.domain)
        return ops is not None and node.since is not None and _kernel(node, fallback, view.opset, ops=ops) is None

    moved = cpu_preferred(view, taken, profile["placement"], has_cpu_kernel, fold=not inlined)
    problems = []
    for i, why in sorted(moved.items()):
        node = view.node_view(i)
        problems.append((Problem(name, node.name, node.op, why, index=i, types=_types(node)), None))
    return problems


def _fallback_kernels(name: str, profile: dict) -> dict:
    """The kernel table of the EP that takes what the target's EP does not (ort-cuda: the CPU EP's), from the same
    onnxruntime as the target's own table: the installed registry where that is in use, else the committed file."""
    fallback = profile["fallback"]
    return kernel_table(fallback) if installed_registry(name) else committed(fallback)


def _domain_ops(kernels: dict, domain: str) -> dict | None:
    """A kernel table's ops of ``domain`` ("" or "ai.onnx": the ai.onnx ops); None where it has no such domain."""
    return kernels["ops"] if domain in ("", "ai.onnx") else kernels.get("domains", {}).get(domain)


def _types(node: NodeView) -> str:
    return ",".join(sorted({t for t in node.input_types if t})) or ",".join(sorted({t for t in node.output_types if t}))


def _tensor_limits(view: ModelView, name: str, limits: dict) -> list[Problem]:
    """Tensors over the target's per-tensor limits (elements, rank), at the node that makes them (or the model)."""
    max_elements, max_rank = limits["elements"], limits["rank"]

    def within(shape) -> bool:
        return shape is None or (len(shape) <= max_rank and (None in shape or math.prod(shape) <= max_elements))

    over = {}
    # a dynamic tensor at each profile's max (the profiles the model carries: converter/targets/dynamic.py)
    for tensor, shape, i in dynamic.over_limit_at_max(view.model, max_elements):
        over[tensor] = (f"tensor {tensor!r} has {math.prod(shape):,} elements at profile {i}'s max {list(shape)}; "
                        f"{limits['why_elements']}")
    if not over and all(within(shape) for shape in view.distinct_shapes()):  # distinct shapes: few, even in a huge model
        return []
    for tensor, shape in view.shapes.items():
        if shape is None:
            continue
        if len(shape) > max_rank:
            over[tensor] = f"tensor {tensor!r} has rank {len(shape)}; {limits['why_rank']}"
        elif None not in shape:
            count = math.prod(shape)
            if count > max_elements:
                over[tensor] = (f"tensor {tensor!r} {list(shape)} has {count:,} elements; {limits['why_elements']}")
    if not over:
        return []
    problems = []
    for i, node in enumerate(view.graph.node):
        for out in node.output:
            if out in over:
                problems.append(Problem(name, node.name or f"#{i}", node.op_type, over.pop(out), index=i))
    return [Problem(name, "", "", why) for why in over.values()] + problems


def _ort_version(name: str, profile: dict) -> str:
    """The onnxruntime version the target's table models: the registry's in use, else the committed tables'."""
    return (modelled_version(name) if profile.get("registry") else None) or ORT_TABLES_VERSION


def _shown_here(limit: dict, name: str, profile: dict) -> bool:
    """A limit shown on one onnxruntime version (``onnxruntime``: "1.31") holds where that version is modelled."""
    shown = limit.get("onnxruntime")
    if shown is None or not profile.get("registry"):
        return True
    version = _ort_version(name, profile)
    return version == shown or version.startswith(shown + ".")


def _kernels(target: Target) -> dict:
    """The kernel table of a target: onnxruntime's registry (converter/targets/ort_kernels.py), or a committed table."""
    if target.profile.get("registry"):
        return kernel_table(target.name)
    return table(target.kernels)


def _verdict(view: ModelView, node: NodeView, target: Target, depth: int = 0) -> tuple[list[Problem], bool]:
    """The node's problems, and whether a limit or DLA rule (whose wording may name tensors) found some."""
    name, profile, precision = target.name, target.profile, target.precision
    types = _types(node)

    def problem(reason: str, severity: str = "error", summary: str = "", at_run: bool = False) -> Problem:
        return Problem(name, node.name, node.op, reason, severity, index=node.index, types=types, summary=summary,
                       at_run=at_run)

    def limit_problems() -> list[Problem]:
        found = []
        for limit in target.limits:
            if not limit.get("at_load") and _shown_here(limit, name, profile) and applies(limit, node):
                why = broken(limit, node, view)
                if why:
                    detail = "" if why == "always" else f": {why}"
                    severity = "warning" if isinstance(why, Unverified) else limit.get("severity", "error")
                    found.append(problem(f"{limit['why']}{detail}", severity, at_run=bool(limit.get("at_run"))))
        return found

    domain = "" if node.node.domain == "ai.onnx" else node.node.domain
    if profile.get("local_functions") and domain != "" and local_function(view, node) is not None:
        return _local_call(view, node, target, depth, problem), True
    if profile.get("constants_folded") and domain == "" and node.op == "Constant":
        return [], False  # onnxruntime makes every Constant node an initializer when it loads the graph (graph.cc)
    kernels = _kernels(target) if target.kernels else None
    ops = None
    if domain == "":
        ops = kernels["ops"] if kernels else None
    elif kernels is not None and domain in kernels.get("domains", {}):  # ort-cpu/cuda registry, ort-dml's doc table
        ops = kernels["domains"][domain]
        if node.since is None and domain in view.opsets:  # a domain onnx has no schemas for (com.microsoft)
            node = replace(node, since=view.opsets[domain])
    elif profile.get("measured") and node.node.domain in profile.get("frontend_domains", ()):  # (openvino.json
        # measured onnx's node cases, the ai.onnx domain; OpenVINO's ONNX frontend converts many com.microsoft contrib
        # ops, ai.onnx.ml's Normalizer, its own org.openvinotoolkit ones)
        return [problem(f"domain {node.node.domain!r}: not measured ({NOT_MEASURED_HINT})", "warning",
                        summary=f"not measured (openvino.json has rows of the ai.onnx domain only; other domains' ops "
                                f"may well compile: {NOT_MEASURED_HINT})")], False
    else:
        return [problem(f"domain {node.node.domain!r}: only the ai.onnx domain is supported"
                        if not (kernels and kernels.get("domains")) else f"domain {node.node.domain!r}: no kernels of this domain")], False
    if node.since is None:
        return [problem(f"no ONNX operator {node.op} at opset {view.opsets.get(domain)}")], False
    for limit in target.limits:  # a model the runtime refuses to load: before any kernel or function
        if limit.get("at_load") and _shown_here(limit, name, profile) and applies(limit, node) and broken(limit, node, view):
            return [problem(limit["why"])], False
    if kernels is not None and profile.get("registry") and domain and node.schema is None:
        refused = _schema_refusal(node)  # onnxruntime's own schema refuses the types when it loads the model
        if refused:
            return [problem(refused)], False
    if kernels is not None:
        reason = _kernel(node, kernels, view.opsets.get(domain), ops=ops)
        if reason and profile.get("float16_via_float") and "float16" in node.input_types + node.output_types:
            # onnxruntime's InsertCastTransformer runs a float16 node that has only a float kernel in float
            if _kernel(node, kernels, view.opsets.get(domain), as_float=True, ops=ops) is None:
                reason = None
        if reason and profile.get("fallback"):
            # onnxruntime's partitioner offers a node the EP does not take to the next EP (the CPU EP) before it
            # inlines a function: a session without CPU fallback then refuses it
            fallback = _fallback_kernels(name, profile)
            ops_there = _domain_ops(fallback, domain)
            if ops_there is not None and _kernel(node, fallback, view.opsets.get(domain), ops=ops_there) is None:
                return [problem(f"{reason}; onnxruntime gives it to the CPU EP")], False
        if reason and profile.get("functions") and depth < 8 and not unsafe(node.node):
            expanded = expand_function(view, node)  # converter/targets/functions.py: onnxruntime inlines the body
            if expanded is not None:
                inner = expand(expanded, _nodes(expanded, target, depth + 1))
                return [problem(f"in its function body (onnxruntime expands {node.op}, which has no kernel): "
                                f"{p.node}: {p.reason}", p.severity) for p in inner], True
    else:
        reason = _matrix(node, table(target.matrix))
    if profile.get("measured"):
        # a measured table (OpenVINO): a refusal measured in this very form (attributes, constant inputs, ranks)
        # is an error even where another form compiled; else a compiled row runs; else a refusal of these
        # types is an error; a combination never measured, a warning
        exact = _measured_refusal(node, kernels, exact=True)
        refused = exact or (_measured_refusal(node, kernels) if reason else None)
        bound = "; ".join(f"{c}={','.join(sorted(v))}" for c, v in sorted(node.bindings().items()))
        if refused is not None:
            return [problem(f"refused at since-version {node.since} with {bound}: {refused}")], False
        if reason:
            known = [p for p in limit_problems() if p.severity == "error"]  # (a limit's refusal outranks "not measured")
            if known:
                return known, False
            return [problem(f"not measured at since-version {node.since} with {bound} ({NOT_MEASURED_HINT})", "warning",
                            summary=f"not measured (openvino.json has no row of their since-version and types; they "
                                    f"may well compile: {NOT_MEASURED_HINT})")], False
    if reason:
        return [problem(reason)], False
    found = limit_problems()
    try:
        if target.importer:
            found += [problem(tensorrt_rules.describe(rule, detail))
                      for rule, detail in tensorrt_rules.node_problems(node)]
        if target.dla:
            found += [problem(r) for r in dla.node_problems(node, view, precision)]
            found += [problem(r, "warning") for r in dla_guide.node_warnings(node, view)]
    except UnreadValue as exc:  # a rule needs a constant's value that check did not read
        found.append(problem(f"not verified: a rule needs the value of {exc}, whose data check does not read "
                             "(external data, or over 64 KiB)", "warning"))
    return found, True


def _local_call(view: ModelView, node: NodeView, target: Target, depth: int, problem) -> list[Problem]:
    """The problems of the nodes a call of a model-local function stands for: onnxruntime inlines every such call when
    it loads the model (converter/targets/functions.py inline_local), then assigns the body's nodes to kernels."""
    what = f"the model-local function {node.node.domain}.{node.op}"
    if depth >= 8:
        return [problem(f"{what}: local functions nested deeper than 8 calls are not checked", "warning")]
    try:
        inlined = inline_local(view, node)
    except Exception as exc:  # noqa: BLE001 - onnx's inliner refuses the body: so would onnxruntime's
        return [problem(f"{what} cannot be inlined: {str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__}")]
    inner = expand(inlined, _nodes(inlined, target, depth + 1))
    return [problem(f"in {what} (onnxruntime inlines it): {p.node} ({p.op}): {p.reason}", p.severity) for p in inner]


def _validation(view: ModelView, name: str, profile: dict, depth: int) -> list[tuple[Problem, list[int] | None]]:
    """converter/targets/validation.py's findings, before any rule: the model's (depth 0), or those of the nodes of a
    function body onnxruntime inlines (its shape inference runs on the body's nodes when it loads the model)."""
    if depth == 0:
        found = validate(view)
    else:
        ctx = context(view.model)
        found = [(f, node, members) for node, members in view.groups() for f in node_findings(view, node, ctx)]
    grouped = []
    for finding, node, members in found:
        level = severity(finding, profile)
        if level is None:
            continue
        if node is None:
            grouped.append((Problem(name, "", "", finding.reason, level), None))
        else:
            grouped.append((Problem(name, node.name, node.op, finding.reason, level, index=node.index,
                                    types=_types(node)), members))
    return grouped


def _kernel(node: NodeView, kernels: dict, opset: int, as_float: bool = False, ops: dict | None = None) -> str | None:
    """None when some row of the kernel table runs ``node`` (its float16 taken as float: ``as_float``), else why none does."""
    rows = (kernels["ops"] if ops is None else ops).get(node.op)
    if not rows:
        return "no kernel for this op"
    by_version = [r for r in rows if r["start"] == node.since or (r["end"] is not None and r["start"] <= node.since <= r["end"])]
    if not by_version:
        listed = ", ".join(_span(r) for r in rows)
        return (f"no kernel for since-version {node.since} (opset {opset}); kernels: {listed} "
                "(an open row N+ matches since-version N only)")
    bindings = _bindings(node)
    if as_float:
        bindings = {c: {"float" if t == "float16" else t for t in v} for c, v in bindings.items()}
    for row in by_version:
        if all(bindings.get(c, set()) <= set(allowed) for c, allowed in row["types"].items()):
            return None
    row = by_version[0]
    bad = {c: sorted(bindings.get(c, set()) - set(allowed)) for c, allowed in row["types"].items()}
    shown = "; ".join(f"{c}={','.join(v)} (kernel {_span(row)} takes {', '.join(row['types'][c])})" for c, v in bad.items() if v)
    return f"no kernel for types {shown}"


def _bindings(node: NodeView) -> dict[str, set[str]]:
    """The node's type-constraint bindings: from onnx's schema, or for an op of onnxruntime's own domains
    (com.microsoft, ...), which onnx has no schema for, from onnxruntime's (tables/ort-contrib-formals.json); without
    either, none (every row's types then hold)."""
    if node.schema is not None:
        return node.bindings()
    entry = formals(node.node.domain, node.op, node.since)
    if entry is None:
        return {}
    bound: dict[str, set[str]] = {}
    for kinds, types in ((entry["inputs"], node.input_types), (entry["outputs"], node.output_types)):
        for i, t in enumerate(types):
            if t is None or not kinds:
                continue
            kind = kinds[min(i, len(kinds) - 1)]  # the last formal is the variadic one where there is one
            if kind in entry["constraints"]:
                bound.setdefault(kind, set()).add(t)
    return bound


def _schema_refusal(node: NodeView) -> str | None:
    """Why onnxruntime's own schema of a node of its domains (com.microsoft, ...) refuses the node's types, or None."""
    entry = formals(node.node.domain, node.op, node.since)
    if entry is None:
        return None
    for constraint, types in sorted(_bindings(node).items()):
        allowed = entry["constraints"].get(constraint, [])
        bad = sorted(types - set(allowed))
        if bad:
            return (f"type {constraint}={','.join(bad)}: onnxruntime's schema of {node.node.domain}.{node.op} takes "
                    f"{', '.join(allowed)} (a Type Error when the model loads)")
    return None


def _measured_refusal(node: NodeView, kernels: dict, exact: bool = False) -> str | None:
    """The error measured for this op, since-version and types; ``exact``: only one measured in this node's form."""
    bindings = {c: sorted(v) for c, v in node.bindings().items()}
    rows = [r for r in kernels.get("failed", {}).get(node.op, []) if r["start"] == node.since and r["types"] == bindings]
    form = {"attrs": explicit_values(node),  # as tools/measure_openvino.py records them
            "constants": [c is not None for c in node.constants],
            "ranks": [node.rank(i) for i in range(len(node.inputs))]}
    for row in rows:
        if all(row.get(key, value) == value for key, value in form.items()) and _same_shapes(row, node):
            return row["error"]
    return rows[0]["error"] if rows and not exact else None


def _same_shapes(row: dict, node: NodeView) -> bool:
    """A refusal measured where the same form also compiled holds the shapes it was refused at (measure_openvino's
    shape_dependent): the node is that refusal where its shapes are those, a dimension it does not know counting
    as the same (a refusal, not a guess that it compiles); a row without shapes stands for its whole form."""
    shapes = row.get("shapes")
    if shapes is None:
        return True
    mine = list(node.input_shapes) + [None] * (len(shapes) - len(node.input_shapes))
    return all(_same_dims(want, have) for want, have in zip(shapes, mine))


def _same_dims(want: list | None, have: tuple | None) -> bool:
    """A measured shape against a node's: the same where either is unknown, or each known dimension is equal."""
    if want is None or have is None:
        return True
    return len(have) == len(want) and all(h is None or h == w for h, w in zip(have, want))


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
