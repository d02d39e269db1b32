"""The one validation pass of a model, before any target rule reads it (``validate``), once per group of equal nodes.

For each group of nodes that read the same op, attributes, types, shapes and constants (ModelView.groups(),
which a check of 10^6 nodes already makes), on the group's first node:

* **every tensor** in its attributes, recursively through its subgraphs (their initializers, sparse
  initializers and nodes' tensor attributes): a known data_type, dims >= 0, exactly the data its dims declare
  (converter/untrusted/reading.py validate_tensor, validate_sparse). A malformed one is bad input: UserError, one
  line naming the file, the node, the attribute and the field (exit status 2). The main graph's initializers
  and Constant values are validated when the file is read, before anything reads their values;
* **onnx's checker on the node** (``onnx.checker.check_graph`` of a graph of that node alone, its outer names as
  inputs: what onnxruntime runs on each node when it loads a model, Graph::VerifyNodeAndOpMatch), so that a
  checker complaint about one node never hides another's. Where it refuses the node, every attribute of a type
  other than the schema's, unknown to the schema, or required and missing is reported, each on its own;
* **the enumerations** of tables/attribute-values.json (Resize's modes, Pad's mode, auto_pad, ...): a value
  outside them is refused by onnxruntime when it loads the model, and implemented by no other runtime;
* **onnx's shape inference of the node, strict**: onnxruntime runs each node's inference when it loads a model
  and refuses the model where it fails ("[ShapeInferenceError] axis must be in [-rank, rank-1]"; an output
  whose inferred element type differs from the declared one: "Type Error ... does not match expected type").

And once per model: sparse initializers (onnxruntime makes each dense when it loads the model, and refuses one
over 2 GiB: tensorprotoutils.cc SparseTensorProtoToDenseTensorProto), and every tensor's element count (more
than 2^63 - 1 elements: onnxruntime's shape arithmetic overflows, SafeInt "Integer overflow").

What is found is a ``Finding`` per group; converter/targets/check.py makes it a problem of each target
(``severity``). The rules then read only attributes of the schema's types (converter/targets/attributes.py).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

from ..errors import UserError
from ..untrusted import walk
from ..untrusted.infer import CONSTANT_ATTRIBUTE, InferenceError, infer, unsafe, within
from ..untrusted.reading import check_value_types, validate_sparse, validate_tensor
from ..installed.ort_build import newest_loadable_opset
from .attributes import TABLE, constant_tensor, type_name
from .checker import strip_external_data
from .model_view import ModelView, NodeView, Unread
from .model_view import type_name as element_type_name

INT_MAX = 2**31 - 1  # onnx's checker context takes C ints (an opset or IR version of 2^63 - 1 is clamped)
ELEMENTS_MAX = 2**63 - 1  # a tensor with more elements than an int64 counts: no runtime can address it
SPARSE_DENSE_MAX = 2**31  # onnxruntime densifies a sparse initializer at load; over 2 GiB it refuses the model

# Finding scopes: who refuses the model. "everywhere": onnx's checker (no runtime loads the node), a value
# no runtime implements, a tensor no runtime can address; "onnxruntime": onnxruntime refuses it when it loads
# the model (other targets: a warning, their loaders do not run onnx's inference); "onnxruntime only": a limit of
# onnxruntime's loader alone (nothing for the other targets).
EVERYWHERE, ONNXRUNTIME, ONNXRUNTIME_ONLY = "everywhere", "onnxruntime", "onnxruntime only"
BUT_ONNXRUNTIME = "everywhere but onnxruntime"  # a Constant node's: onnxruntime never checks it (_constant_findings)


@dataclass(frozen=True)
class Enumeration:
    """A row of tables/attribute-values.json "values": the values onnxruntime accepts for an attribute."""

    ops: tuple
    attribute: str
    since: tuple  # (low, high or None): the op's since-versions it holds for
    source: str
    values: tuple | None = None  # an enumeration (of each element, for a list attribute)
    bounds: dict = field(default_factory=dict)  # gt/ge/le/lt/odd/nan (converter/untrusted/infer.py within), axis_of
    domain: str = ""
    when: dict = field(default_factory=dict)  # other attribute -> values: the entry holds only there
    output: tuple | None = None  # the entry holds only where the node has one of these outputs
    scope: str = "everywhere"  # "onnxruntime": a bound of onnxruntime's kernel, not of ONNX


_BOUNDS = ("gt", "ge", "le", "lt", "ne", "odd", "permutation", "nan", "axis_of", "per_direction", "at_least", "data_type", "one_element",
           "ge_attribute", "ne_attribute", "lt_attribute_per_axis", "le_length_of", "length_of", "index_of", "count", "truncated")
_DATA_TYPES = set(TensorProto.DataType.values())


def _outputs(value) -> tuple | None:
    return None if value is None else tuple(value) if isinstance(value, (list, tuple)) else (value,)


def has_output(node: onnx.NodeProto, outputs) -> bool:
    """Whether the node gives one of the outputs (indices; None: any node does)."""
    return outputs is None or any(len(node.output) > i and node.output[i] for i in _outputs(outputs))


def _enumerations() -> tuple[Enumeration, ...]:
    rows = json.loads(TABLE.read_text(encoding="utf-8"))["values"]
    return tuple(Enumeration(ops=tuple([r["op"]] if isinstance(r["op"], str) else r["op"]), attribute=r["attribute"],
                             since=tuple(r["since"]), source=r["source"],
                             values=tuple(r["values"]) if "values" in r else None,
                             bounds={k: r[k] for k in _BOUNDS if k in r}, domain=r.get("domain", ""),
                             when=r.get("when", {}), output=_outputs(r.get("output")), scope=r.get("scope", EVERYWHERE))
                 for r in rows)


ENUMERATIONS = _enumerations()
_BY_OP: dict[tuple, list] = {}
for _entry in ENUMERATIONS:
    for _op in _entry.ops:
        _BY_OP.setdefault((_entry.domain, _op), []).append(_entry)


@dataclass(frozen=True)
class Finding:
    reason: str
    scope: str  # EVERYWHERE, ONNXRUNTIME or ONNXRUNTIME_ONLY
    checker: bool = False  # a refusal of onnx's checker (of the node's attributes, or its own words)


def severity(finding: Finding, profile: dict) -> str | None:
    """A finding's severity for a target (its profile): "error"; "warning" where onnxruntime refuses it and the target
    is not onnxruntime; None (not a problem there) for a limit of onnxruntime's loader alone."""
    if finding.scope == BUT_ONNXRUNTIME:
        return None if profile.get("family") == "onnxruntime" else "error"
    if finding.scope == EVERYWHERE or profile.get("family") == "onnxruntime":
        return "error"
    return "warning" if finding.scope == ONNXRUNTIME else None


def validate(view: ModelView, path: str = "") -> list[tuple[Finding, NodeView | None, list | None]]:
    """The findings of the model in ``view``: (finding, the NodeView of a group's first node or None for the model,
    the group's node indices or None). Made once per view; a malformed tensor raises UserError naming ``path``."""
    found = getattr(view, "_validated", None)
    if found is not None:
        return found
    where = path or getattr(view, "source", "") or "model"
    folder = getattr(view, "folder", None)
    found = [(f, None, None) for f in _model_findings(view, where, folder)] + _huge_tensors(view)
    found += _propagation_refusal(view)
    ctx = context(view.model)
    for node, members in view.groups():
        for finding in node_findings(view, node, ctx, where, folder):
            found.append((finding, node, members))
    view._validated = found
    return found


def refused_by_checker(view: ModelView) -> bool:
    """Whether onnx's checker refuses some node of the view (each such node has its findings)."""
    return any(f.checker for f, _, _ in validate(view))


# ---- the model --------------------------------------------------------------------------------------------------

def _model_findings(view: ModelView, where: str, folder) -> list[Finding]:
    found = []
    sparse = list(view.model.graph.sparse_initializer)
    for node in view.graph.node if sparse or _has_sparse_constant(view) else ():
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            sparse += [a.sparse_tensor for a in node.attribute if a.name == "sparse_value" and a.type == AttributeProto.SPARSE_TENSOR]
    for tensor in sparse:
        dense = validate_sparse(where, "sparse initializer", tensor, folder)
        if dense > SPARSE_DENSE_MAX:
            found.append(Finding(f"sparse tensor {tensor.values.name!r} {list(tensor.dims)} is {dense:,} bytes dense: "
                                 "onnxruntime makes it dense when it loads the model and refuses it over 2 GiB "
                                 "(tensorprotoutils.cc, SparseTensorProtoToDenseTensorProto; measured with 1.32.0)",
                                 ONNXRUNTIME_ONLY))
    return found


def _has_sparse_constant(view: ModelView) -> bool:
    return any(node.op == "Constant" for node, _ in view.groups())


def _huge_tensors(view: ModelView) -> list[tuple[Finding, NodeView | None, list | None]]:
    """Tensors of more than 2^63 - 1 elements (declared or inferred: Expand to [2^62, 3]), at the node that makes
    them (or the model, for a graph input): nothing can address them."""
    shapes = view.distinct_shapes()
    if all(s is None or None in s or math.prod(s) <= ELEMENTS_MAX for s in shapes):
        return []
    huge = {name: shape for name, shape in view.shapes.items()
            if shape is not None and None not in shape and math.prod(shape) > ELEMENTS_MAX}
    found = []
    for i, node in enumerate(view.graph.node):
        for name in node.output:
            if name in huge:
                found.append((_huge(name, huge.pop(name)), view.node_view(i), [i]))
    return found + [(_huge(name, shape), None, None) for name, shape in huge.items()]


def _huge(name: str, shape) -> Finding:
    return Finding(f"tensor {name!r} {list(shape)} has {math.prod(shape):,} elements, more than an int64 counts "
                   "(2^63 - 1): no runtime can address it (onnxruntime: 'Integer overflow' in its shape arithmetic, "
                   "SafeInt)", EVERYWHERE)


def _propagation_refusal(view: ModelView) -> list[tuple[Finding, NodeView | None, list | None]]:
    """Where values computed from shapes (Shape, Size) flow into other nodes, onnxruntime propagates them when it
    loads the model, and refuses it where a later node's inference then fails ("Node () Op (Expand)
    [ShapeInferenceError] Incompatible dimensions"). onnx's strict inference with data propagation, of the model
    without its declared shapes (onnxruntime only warns where those disagree), finds the first such node."""
    if not any(node.op in ("Shape", "Size") for node, _ in view.groups()):  # per group: a pass over groups, not nodes
        return []
    model = _copy(view.model)  # (infer makes a copy without the attribute values onnx crashes or hangs on)
    if not merges_shapes(view):
        del model.graph.value_info[:]
        for out in model.graph.output:
            if out.type.HasField("tensor_type"):
                out.type.tensor_type.ClearField("shape")
    try:  # a whole model: under the time limit
        infer(model, strict=True, data_prop=True, limit=True, parse=False)
    except InferenceError as exc:
        text = " ".join(str(exc).split())
    except Exception:  # noqa: BLE001 - onnx fails otherwise: not an inference verdict
        return []
    else:
        return []
    finding = Finding(f"onnx's shape inference with the values propagated from Shape/Size refuses the model, as "
                      f"onnxruntime does when it loads it: {text[:400]}", ONNXRUNTIME)
    named = re.search(r"\(op_type:(\w+)(?:, node name: ([^)]*))?\)", text)
    if named and named.group(1) == "Constant":  # onnxruntime makes initializers of Constants and never infers them
        return []
    if named and named.group(2) is not None:
        for i, node in enumerate(view.graph.node):
            if node.op_type == named.group(1) and node.name == named.group(2):
                return [(finding, view.node_view(i), [i])]
    return [(finding, None, None)]


def _copy(model: onnx.ModelProto) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    return copy


# ---- one node (the first of its group) ---------------------------------------------------------------------------

def _clamp(value: int) -> int:
    return max(-INT_MAX - 1, min(INT_MAX, int(value)))


def context(model: onnx.ModelProto):
    """onnx's checker context of ``model``: its IR version and opsets (clamped to C ints)."""
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version = _clamp(model.ir_version)
    ctx.opset_imports = {o.domain: _clamp(o.version) for o in model.opset_import}
    return ctx


def node_findings(view: ModelView, node: NodeView, context, where: str = "model", folder=None) -> list[Finding]:
    for attr in node.node.attribute:
        _validate_attribute_tensors(where, node.index, node.node, attr, folder)
    found = []
    refusal = _checker(node, context)
    if refusal is not None:
        details = _attribute_problems(node)
        found += [Finding(f"{text} (onnx's checker refuses the node; so does every runtime)", EVERYWHERE, True)
                  for text, _ in details]
        if not any(re.search(rf"\b{re.escape(name)}\b", refusal) for _, name in details):  # said in other words
            found.append(Finding(f"onnx's checker refuses the node (no runtime loads it): {refusal}", EVERYWHERE, True))
    found += _value_problems(node)
    crash = unsafe(node.node)
    if crash is not None:  # never inferred (onnx would crash); onnxruntime's load crashes as well
        return found + [Finding(f"onnx's shape inference cannot take the node: {crash}", EVERYWHERE)]
    inferred = _inference_refusal(view, node)
    if inferred is not None:
        found.append(Finding(f"onnx's shape inference refuses the node, as onnxruntime does when it loads the model: "
                             f"{inferred}", ONNXRUNTIME))
    return _constant_findings(node.node, found) if is_constant(node.node) else found


def is_constant(node: onnx.NodeProto) -> bool:
    return node.op_type == "Constant" and node.domain in ("", "ai.onnx")


# The attribute types onnxruntime makes an initializer of (ConstantNodeProtoToTensorProto's cases)
_CONSTANT_TYPES = frozenset(CONSTANT_ATTRIBUTE)


def _constant_findings(node: onnx.NodeProto, found: list[Finding]) -> list[Finding]:
    """A Constant node as onnxruntime takes it: when it builds the graph it makes an initializer of the node's FIRST
    attribute, by that attribute's type, and drops the node, which is then never checked nor inferred (onnxruntime/
    core/graph/graph.cc, Graph constructor; core/framework/tensorprotoutils.cc, ConstantNodeProtoToTensorProto:
    'has no data attributes', 'Unsupported attribute value type'; measured with 1.32.0: a second value attribute,
    an unknown one or a value_float of inf after the first load). What onnx's checker refuses stays an error
    elsewhere; what only onnx's inference refuses (onnxruntime's reason to refuse it) is not a problem."""
    kept = [Finding(f.reason, BUT_ONNXRUNTIME, f.checker) for f in found if f.scope == EVERYWHERE]
    first = node.attribute[0] if len(node.attribute) else None
    if first is None:
        kept.append(Finding("Constant without attributes: onnxruntime refuses it when it loads the model ('has no "
                            "data attributes', tensorprotoutils.cc ConstantNodeProtoToTensorProto)", ONNXRUNTIME_ONLY))
    elif first.type not in _CONSTANT_TYPES:
        kept.append(Finding(f"attribute {first.name!r} (the first, which onnxruntime makes the constant of) is "
                            f"{type_name(first.type)}: onnxruntime refuses it when it loads the model ('Unsupported "
                            "attribute value type', tensorprotoutils.cc ConstantNodeProtoToTensorProto)",
                            ONNXRUNTIME_ONLY))
    return kept


def _validate_attribute_tensors(where: str, index: int, node: onnx.NodeProto, attr: AttributeProto, folder) -> None:
    """Every tensor an attribute holds, sparse ones too, through subgraphs at any depth and in attributes of any
    declared type (converter/untrusted/walk.py), and the value types of those subgraphs (UserError when one is
    malformed)."""
    for item in walk.attribute_items(index, node, attr):
        place = walk.label(item.steps, item.field)
        if item.kind == walk.GRAPH:
            check_value_types(where, item.value, f"{place}:", subgraphs=False)  # (the walk enters the inner ones)
        elif item.kind == walk.SPARSE:
            validate_sparse(where, place, item.value, folder)
        elif item.field == walk.INITIALIZER:
            validate_tensor(where, place, item.value, folder)
        else:
            validate_tensor(where, f"{place}:", item.value, folder, label=False)


def _attribute_problems(node: NodeView) -> list[tuple[str, str]]:
    """(what, the attribute's name) for each attribute the node's schema does not know, gives another type, or
    requires and the node lacks."""
    schema = node.schema
    if schema is None:
        return []
    op = f"{node.op}-{node.since}"
    found, given = [], set()
    for attr in node.node.attribute:
        given.add(attr.name)
        formal = schema.attributes.get(attr.name)
        if formal is None:
            found.append((f"attribute {attr.name!r}: {op} has no such attribute", attr.name))
        elif attr.type != int(formal.type.value):
            found.append((f"attribute {attr.name!r} is {type_name(attr.type)}; {op} takes "
                          f"{type_name(int(formal.type.value))}", attr.name))
    found += [(f"attribute {name!r}: required by {op}, missing", name) for name, formal in schema.attributes.items()
              if formal.required and name not in given]
    return found


def _checker(node: NodeView, context) -> str | None:
    """onnx's checker on a graph of the node alone (its outer names as inputs): None, or its refusal's first line.
    An op onnx has no schema for is not its to refuse (the kernel tables say whether it runs)."""
    if node.schema is None:
        return None
    graph = onnx.GraphProto(name="node")
    for name in _free_names(node.node):
        _typed(graph.input.add(name=name), TensorProto.FLOAT, ())  # the checker reads no types: any will do
    graph.node.append(node.node)
    strip_external_data(graph)  # found (or refused) in the model's folder already; the checker looks here
    try:
        onnx.checker.check_graph(graph, context)
    except onnx.checker.ValidationError as exc:
        lines = str(exc).strip().splitlines()
        return " ".join(lines[0].split()) if lines else type(exc).__name__
    return None


def _free_names(node: onnx.NodeProto) -> list[str]:
    """The names the node reads from outside: its inputs, and what its subgraphs read from outer scopes."""
    names = [n for n in node.input if n]
    for attr in node.attribute:
        for graph in walk.subgraphs(attr):  # (whatever the attribute's declared type: onnx's checker enters it)
            names += _graph_free_names(graph)
    return list(dict.fromkeys(names))


def _graph_free_names(graph: onnx.GraphProto) -> list[str]:
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer} | \
              {s.values.name for s in graph.sparse_initializer}
    used = []
    for node in graph.node:
        used += [n for n in _free_names(node) if n not in defined]
        defined.update(node.output)
    return used


def _value_problems(node: NodeView) -> list[Finding]:
    """The node's attributes (or their defaults) outside tables/attribute-values.json's values and bounds."""
    domain = "" if node.node.domain == "ai.onnx" else node.node.domain
    entries = _BY_OP.get((domain, node.op))
    if not entries or node.since is None:
        return []
    found = []
    for entry in entries:
        low, high = entry.since
        if node.since < low or (high is not None and node.since > high):
            continue
        if any(node.attrs.get(k) not in v for k, v in entry.when.items()):
            continue
        if not has_output(node.node, entry.output):
            continue
        value = node.attrs.get(entry.attribute)
        if value is None:
            continue
        why = _outside(entry, value, node)
        if why is None:
            continue
        scope = ONNXRUNTIME_ONLY if entry.scope == "onnxruntime" else EVERYWHERE
        tail = "" if scope == ONNXRUNTIME_ONLY else "; no runtime implements a value ONNX does not define"
        found.append(Finding(f"attribute {entry.attribute}={value!r}: {node.op}-{node.since} {why} (onnxruntime refuses "
                             f"it when it loads the model, {entry.source}{tail})", scope))
    return found


def _outside(entry: Enumeration, value, node: NodeView) -> str | None:
    """What the value breaks of the entry (None: nothing)."""
    if entry.values is not None:
        bad = [v for v in (value if isinstance(value, list) else [value]) if v not in entry.values]
        return f"takes {', '.join(repr(v) for v in entry.values)}" if bad else None
    bounds = entry.bounds
    if "data_type" in bounds:
        if bounds.get("truncated") == "int32" and type(value) is int:  # its low 32 bits, as onnxruntime reads it
            value = (value + 2**31) % 2**32 - 2**31
        good = type(value) is not int or (value in _DATA_TYPES and (value != 0 or bounds["data_type"] == "any"))
        read = ", read as a 32-bit int" if bounds.get("truncated") == "int32" else ""
        return None if good else f"takes an ONNX element type (TensorProto.DataType{read})"
    if "one_element" in bounds:
        good = not isinstance(value, TensorProto) or list(value.dims) == [1]
        return None if good else f"takes a tensor of one element, dims [1] (not {list(value.dims)})"
    other = node.attrs.get(bounds.get("ge_attribute") or bounds.get("ne_attribute") or bounds.get("le_length_of")
                           or bounds.get("length_of") or bounds.get("index_of") or bounds.get("lt_attribute_per_axis") or "")
    if "lt_attribute_per_axis" in bounds:  # pads [x1_begin, x2_begin, ..., x1_end, ...] against kernel_shape [k1, ...]
        bad = isinstance(value, list) and isinstance(other, list) and other and any(
            type(v) is int and type(other[i % len(other)]) is int and v >= other[i % len(other)]
            for i, v in enumerate(value))
        return f"takes values below {bounds['lt_attribute_per_axis']} ({other}), axis by axis" if bad else None
    if "ne_attribute" in bounds:
        same = _numbers(value, other) and value == other
        return f"takes another value than {bounds['ne_attribute']} ({other})" if same else None
    if "ge_attribute" in bounds:
        return f"takes at least {bounds['ge_attribute']} ({other})" if _numbers(value, other) and value < other else None
    if "le_length_of" in bounds:
        return f"takes at most the {len(other)} values of {bounds['le_length_of']}" \
            if type(value) is int and isinstance(other, list) and value > len(other) else None
    if "index_of" in bounds:  # each value an index into that list attribute
        bad = isinstance(other, list) and any(type(v) is int and not 0 <= v < len(other)
                                              for v in (value if isinstance(value, list) else [value]))
        return f"takes indices of {bounds['index_of']} (0 to {len(other) - 1})" if bad else None
    if "length_of" in bounds:
        # (an empty list the node sets itself counts: onnxruntime reads it as given; fuzz seed 3110137386)
        given = bool(value) or entry.attribute in node.explicit
        return f"takes one value per value of {bounds['length_of']} ({len(other)})" \
            if isinstance(value, list) and given and isinstance(other, list) and len(value) != len(other) else None
    if "permutation" in bounds:
        bad = isinstance(value, list) and all(type(v) is int for v in value) and sorted(value) != list(range(len(value)))
        return f"takes a permutation of 0..{len(value) - 1}" if bad else None
    if "count" in bounds:
        count = scan_count(node.attrs, len(node.node.input), len(node.node.output), bounds["count"])
        each = "scan input" if bounds["count"] == "num_scan_inputs" else "scan output"
        return f"takes {count} value{'' if count == 1 else 's'} (one per {each})" \
            if isinstance(value, list) and count is not None and len(value) != count else None
    if "per_direction" in entry.bounds:
        count = entry.bounds["per_direction"] * (2 if node.attrs.get("direction") == "bidirectional" else 1)
        short = isinstance(value, list) and (len(value) < count if entry.bounds.get("at_least") else len(value) != count)
        return f"takes {'at least ' if entry.bounds.get('at_least') else ''}{count} values " \
               f"({entry.bounds['per_direction']} per direction)" if short else None
    if "axis_of" in entry.bounds:
        rank = node.rank(entry.bounds["axis_of"])
        if type(value) is int and rank is None and _no_axis(value):
            return (f"takes an axis of input {entry.bounds['axis_of']}: {value} is none at any rank, nor is it read "
                    f"as a 32-bit int ({_int32(value)}), as onnx's inference and onnxruntime read it")
        return f"takes an axis of input {entry.bounds['axis_of']} (rank {rank})" \
            if type(value) is int and rank is not None and not -rank <= value < rank else None
    if within(entry.bounds, value, len(node.node.output)):
        return None
    shown = ", ".join(f"{'>' if k == 'gt' else '>=' if k == 'ge' else '<=' if k == 'le' else '!=' if k == 'ne' else '<'} {v}"
                      for k, v in entry.bounds.items() if k in ("gt", "ge", "le", "lt", "ne"))
    return f"takes {shown}{', odd' if entry.bounds.get('odd') else ''}"


# No tensor has this many dimensions: a shape of 2^30 dimensions takes 8 GiB of int64 lengths (and a model proto
# holds at most 2 GiB). An axis whose magnitude reaches it is no axis at any rank the input may have at run time.
RANK_BOUND = 2**30


def _int32(value: int) -> int:
    """``value`` read as a C int, as onnx's inference (static_cast<int>) and onnxruntime's load read some axes."""
    return (value + 2**31) % 2**32 - 2**31


def _no_axis(value: int) -> bool:
    """Whether ``value`` is an axis of no tensor whichever way it is read (int64 or int32): where the input's rank is
    unknown to check, onnxruntime finds it after its own optimizations and refuses the session (fuzz: Split's axis
    -2147483649 read as 2147483647 in test_rotary_embedding_no_position_ids_expanded)."""
    return all(not -RANK_BOUND <= v < RANK_BOUND for v in (value, _int32(value)))


def scan_count(attrs: dict, inputs: int, outputs: int, what: str) -> int | None:
    """A Scan's scan inputs ("num_scan_inputs") or scan outputs ("scan_outputs": its outputs less its loop state
    variables, which are its inputs less the scan inputs), as onnxruntime's Scan constructor counts them (scan_9.cc,
    scan_8.cc: Scan-8's first input is sequence_lens); None where num_scan_inputs is not an int."""
    scan_inputs = attrs.get("num_scan_inputs")
    if type(scan_inputs) is not int:
        return None
    if what == "num_scan_inputs":
        return scan_inputs
    return outputs - (inputs - scan_inputs)


def _numbers(*values) -> bool:
    return all(type(v) in (int, float) for v in values)


def _inference_refusal(view: ModelView, node: NodeView) -> str | None:
    """onnx's shape inference of the node alone, strict: None, or its refusal's first line. Run on a model of the
    node with its inputs' types (constants as initializers, as onnxruntime folds them) and its outputs' declared
    element types; skipped (None) where an input's type is unknown: the node is then not refused. An op whose
    schema has no inference function (onnx would infer its function body; onnxruntime does not: it loads
    MeanVarianceNormalization, whose body onnx 1.23 cannot infer) is not inferred here either."""
    if node.schema is None or not node.schema.has_type_and_shape_inference_function:
        return None
    tiny = onnx.ModelProto(ir_version=view.model.ir_version)
    tiny.opset_import.extend(view.model.opset_import)
    graph = tiny.graph
    graph.name = "node"
    for name in _free_names(node.node):
        value = view.constants.get(name)
        if value is not None and not isinstance(value, Unread) and value.dtype.kind != "O":
            try:  # (a typed input too: an IR-version-3 model's inference types initializers through its inputs)
                graph.initializer.append(numpy_helper.from_array(value, name))
            except Exception:  # noqa: BLE001 - a value numpy_helper cannot store: a typed input only
                pass
        elem, shape = _constant_types(view).get(name) or (view.types.get(name), view.shapes.get(name))
        other = view.other_type(name) if elem is None else None
        if other is not None:  # a sequence, map or optional (Loop's state, SequenceMap's inputs): its own type
            graph.input.add(name=name).type.ParseFromString(other)
            continue
        if elem is None or elem.upper() not in TensorProto.DataType.keys():
            return None
        _typed(graph.input.add(name=name), getattr(TensorProto, elem.upper()), shape)
    declared, whole = _declared(view), merges_shapes(view)
    for name in node.node.output:
        if name:  # a declared tensor type (its element type; its shape too where onnxruntime merges shapes strictly)
            out = graph.output.add(name=name)
            if name in declared:
                if whole:
                    out.type.ParseFromString(declared[name])
                else:
                    out.type.tensor_type.elem_type = onnx.TypeProto.FromString(declared[name]).tensor_type.elem_type
    graph.node.append(node.node)
    try:  # its answer unparsed (only a refusal is read), checking types (check_type): each input of a type its formal
        # parameter permits, a type parameter bound to one type (Add of int64 and float), as onnxruntime's
        # Graph::InferAndVerifyTypeMatch checks when it loads the model. One node, screened by node_findings: no limit
        infer(tiny, strict=True, check_type=True, parse=False)
    except InferenceError as exc:
        lines = str(exc).strip().splitlines()
        return " ".join(lines[0].split()) if lines else type(exc).__name__
    except Exception:  # noqa: BLE001 - onnx fails otherwise (not an inference verdict): not a refusal of ours
        return None
    return None


def _constant_types(view: ModelView) -> dict:
    """A Constant's output -> (element type, shape) as onnxruntime makes it, from the node's first attribute
    (_constant_findings); onnx's inference gives none where it refuses the node. Made once per view, from the
    groups of Constant nodes only."""
    found = getattr(view, "_constant_types", None)
    if found is None:
        found = {}
        for node, members in view.groups():
            if not is_constant(node.node):
                continue
            made = constant_tensor(node.node)
            if made is None:
                continue
            typed = (element_type_name(made[0]), made[1])
            for i in members:
                for name in view.graph.node[i].output[:1]:
                    found[name] = typed
        view._constant_types = found
    return found


def _typed(info: onnx.ValueInfoProto, elem_type: int, shape) -> None:
    """``info`` a tensor of ``elem_type`` and ``shape`` (None: unknown rank; a None dimension: unknown)."""
    tensor = info.type.tensor_type
    tensor.elem_type = elem_type
    if shape is not None:
        dims = tensor.shape.dim
        tensor.shape.SetInParent()
        for d in shape:
            dim = dims.add()
            if d is not None:
                dim.dim_value = d


def _declared(view: ModelView) -> dict:
    """name -> the tensor type the model itself declares for it (graph outputs, value_info; serialized), made once."""
    found = getattr(view, "_declared", None)
    if found is None:
        found = {}
        graph = view.model.graph
        for info in list(graph.output) + list(graph.value_info):
            if info.type.HasField("tensor_type") and info.type.tensor_type.elem_type:
                found.setdefault(info.name, info.type.SerializeToString())
        view._declared = found
    return found


def merges_shapes(view: ModelView) -> bool:
    """Whether onnxruntime refuses a declared shape that its inference contradicts: for a model of the newest opset
    it knows; an older model's conflict is only a warning (Graph::InferAndVerifyTypeMatch, 'Error merging shape info',
    onnxruntime/core/graph/graph.cc: strict unless !is_latest_onnx_version)."""
    return view.opset is not None and view.opset >= newest_loadable_opset()
