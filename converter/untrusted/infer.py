"""The one call of onnx's shape inference in the package, with one safety rule (issue 32 item 3).

Every file of the package that infers a model calls ``infer`` (tests/test_untrusted_infer.py fails naming any other
file that reaches ``onnx.shape_inference``, or runs it through ``check_model(full_check=True)``). The rule:

* **the tabled hazards**: attribute values onnx's inference crashes on (a segmentation fault) or hangs on
  (converter/targets/tables/attribute-values.json "unsafe", found by tests/fuzz/test_check_mutations.py) are looked
  for in every node, subgraphs at any depth included (in any attribute that holds one, whatever its declared type:
  onnx's inference enters every attribute that has a graph; converter/untrusted/walk.py). Where one is found the model
  inferred is a copy without those attribute values (onnx then takes the default), and the answer carries the
  caller's own nodes (the copy's types, the model's nodes: validation reports the attribute);
* **the size limit**: a model of more than 2 GiB serialized is no protobuf message onnx can parse: ``NotInferred``;
* **the time limit** (``limit=True``): inference runs in a child process (converter/process/isolation.py, forked:
  nothing is copied but the answer) that is killed after ``time_limit(nodes)`` seconds, 60 s and 20 µs per node
  (whole-model inference takes about 3.6 µs per node); a child that does not answer in time, or dies, is
  ``NotInferred``. For a whole model read from a user's file (check, run --mark-all, the profiles' shapes,
  validation's data propagation), where a hang nobody has tabled would otherwise hold the command forever. Not for
  the inference of one node or one group of equal nodes (validation, the grouped view: thousands of calls of about
  50 µs, each node screened by the table first), nor where this process has started threads since this module was
  imported (a forked child may wait forever on a lock one of them held: the same guard as onnx's checker's child,
  converter/targets/checker.py): those run here, unlimited;
* **the memory limit** (with the time limit): the child's address space may grow by ``memory_limit(bytes)``, 2 GiB
  and four times the model's bytes. onnx's data propagation turns a value into a shape's rank: a Constant of
  -2147483649 subtracted from a Shape's Size and given to ConstantOfShape makes a shape of 2^31 dimensions, which
  took 24 GB and 55 s before it failed (test_check_mutations, seed 2560429631); the child now fails in seconds
  (``NotInferred``) instead of taking the machine's memory;
* **Constant nodes as onnxruntime reads them**: onnxruntime makes a Constant's FIRST attribute the constant, by that
  attribute's type, whatever its name (converter/targets/validation.py, _constant_findings); onnx's data
  propagation takes another (the last number attribute: a stray ``zz=5`` after ``value=[1]`` made a shape [5],
  measured with onnx 1.23). A Constant with more than one attribute, or one named otherwise than its type's
  ``value*`` name, is inferred in the copy as its first attribute under that name (``CONSTANT_ATTRIBUTE``);

and the parameters that the callers genuinely differ in, each as onnx names it:

* ``strict``: an inference error is raised (``InferenceError``, onnx's own class): validation reads it as
  onnxruntime's refusal, the lowering as its own bug; otherwise onnx goes on past it (what is not inferred is
  left untyped);
* ``check_type``: each input's type checked against the schema's type constraints (validation of a node, the
  lowering's full check);
* ``data_prop``: values computed from shapes (Shape, Size) propagated into later shapes (the check's whole-model
  inference where the model has Shape or Size nodes, the profiles' shapes at their corners, validation's
  propagation check);
* ``data``: the model serialized, where the caller has it (cheaper than serializing it again);
* ``parse``: False returns onnx's answer serialized (validation reads only whether it refuses).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from onnx import AttributeProto, ModelProto, NodeProto
from onnx.onnx_cpp2py_export.shape_inference import InferenceError, infer_shapes as _onnx_infer  # bytes in, bytes out

from ..budget import PROTOBUF_LIMIT, show
from ..process import isolation
from . import walk

__all__ = ["InferenceError", "NotInferred", "infer", "time_limit", "memory_limit", "UNSAFE", "unsafe", "any_unsafe",
           "first_unsafe", "sanitized", "within", "CONSTANT_ATTRIBUTE"]

A = AttributeProto
TABLE = Path(__file__).parent.parent / "targets" / "tables" / "attribute-values.json"
BASE_SECONDS = 60.0  # the time limit: this much, and PER_NODE_SECONDS per node of the main graph
PER_NODE_SECONDS = 20e-6
BASE_MEMORY = 2 * 2**30  # the memory limit: this much, and MEMORY_PER_BYTE bytes per byte of the model
MEMORY_PER_BYTE = 4  # onnx parses the model, infers into it and serializes the answer, which Python then copies
# The name onnx gives a Constant's value of each attribute type (onnxruntime reads the first attribute by its type)
CONSTANT_ATTRIBUTE = {A.TENSOR: "value", A.SPARSE_TENSOR: "sparse_value", A.INT: "value_int", A.INTS: "value_ints",
                      A.FLOAT: "value_float", A.FLOATS: "value_floats", A.STRING: "value_string",
                      A.STRINGS: "value_strings"}


class NotInferred(Exception):
    """onnx's shape inference gave no answer: the model is over the size limit, or the child running it did not
    answer within the time limit, ran past its memory limit, or died. Not a verdict on the model (an
    ``InferenceError`` is one)."""


def time_limit(nodes: int) -> float:
    """The seconds a whole model of ``nodes`` nodes is given (``infer(limit=True)``)."""
    return BASE_SECONDS + PER_NODE_SECONDS * nodes


def memory_limit(size: int) -> int:
    """The bytes of memory the inference of a model of ``size`` bytes may take (``infer(limit=True)``)."""
    return BASE_MEMORY + MEMORY_PER_BYTE * size


def infer(model: ModelProto, data: bytes | None = None, *, strict: bool = False, check_type: bool = False,
          data_prop: bool = False, limit: bool = False, parse: bool = True):
    """onnx's shape inference of ``model`` under the rule above: the inferred ModelProto (``parse`` False: its bytes).
    ``InferenceError`` (strict): onnx refuses the model; ``NotInferred``: no answer (size, time, memory)."""
    original = model
    if any_unsafe(model.graph.node) or any_misread(model.graph.node):
        model, data = sanitized(model), None
    if data is None:
        try:
            data = model.SerializeToString()
        except ValueError as exc:  # a protobuf that refuses to make a message over 2 GiB
            raise NotInferred(f"the model cannot be serialized for onnx ({exc})") from None
    if len(data) > PROTOBUF_LIMIT:
        raise NotInferred(f"the model takes {show(len(data))} serialized, over the 2 GiB onnx can parse")
    if limit and _may_fork():
        answer = _in_child(data, check_type, strict, data_prop, time_limit(len(model.graph.node)))
    else:
        answer = _onnx_infer(data, check_type, strict, data_prop)
    if not parse and model is original:
        return answer
    inferred = ModelProto.FromString(answer)
    if model is not original:  # the copy's types, the caller's nodes
        del inferred.graph.node[:]
        inferred.graph.node.extend(original.graph.node)
    return inferred if parse else inferred.SerializeToString()


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


_THREADS_AT_IMPORT = _threads()


def _may_fork() -> bool:
    """A child for the time limit: not in a pool worker, which may have none (the inference raised there, and
    validate's static check went on without shapes: a false refusal), nor with threads started since the import."""
    threads = _threads()
    return isolation.FORKS and isolation.can_have_children() and 0 < threads <= _THREADS_AT_IMPORT


def _answer(data: bytes, check_type: bool, strict: bool, data_prop: bool) -> tuple[str, bytes | str]:
    """The child's work: ("ok", onnx's answer), ("refused", an InferenceError's text) or ("memory", "")."""
    try:
        return "ok", _onnx_infer(data, check_type, strict, data_prop)
    except InferenceError as exc:
        return "refused", str(exc)
    except MemoryError:  # (onnx's std::bad_alloc, past the child's memory limit)
        return "memory", ""


def _in_child(data: bytes, check_type: bool, strict: bool, data_prop: bool, seconds: float) -> bytes:
    memory = memory_limit(len(data))
    reply = isolation.run(isolation.Call(_answer, (data, check_type, strict, data_prop), memory=memory),
                          timeout=seconds)
    if reply.timed_out is not None:  # (killed)
        raise NotInferred(f"onnx's shape inference did not finish within {seconds:.0f} s")
    if not reply.ok:
        raise NotInferred(f"onnx's shape inference ended without an answer: {reply.ended('the process running it')}")
    kind, value = reply.value
    if kind == "refused":
        raise InferenceError(value)
    if kind == "memory":
        raise NotInferred(f"onnx's shape inference needed more than {show(memory)} of memory")
    return value


# ---- the tabled hazards: attribute values onnx's inference crashes or hangs on --------------------------------------

def within(entry: dict, value, outputs: int = 0) -> bool:
    """Whether a number (or each number of a list) meets the entry's bounds (tables/attribute-values.json: "gt",
    "ge", "le", "lt", "ne", "odd"; "le": "outputs" is the node's output count). NaN meets none, unless the entry says
    "nan": "allowed"."""
    if isinstance(value, list):
        return all(within(entry, v, outputs) for v in value)
    if type(value) not in (int, float):
        return True  # another type: validation reports the type
    if value != value:  # NaN
        return entry.get("nan") == "allowed"
    high = entry.get("le")
    high = outputs if high == "outputs" else high
    return not (("gt" in entry and not value > entry["gt"]) or ("ge" in entry and not value >= entry["ge"])
                or (high is not None and not value <= high) or ("lt" in entry and not value < entry["lt"])
                or (entry.get("odd") and not (type(value) is int and value % 2 == 1))
                or ("ne" in entry and value == entry["ne"]))


def _unsafe_table() -> dict:
    rows = json.loads(TABLE.read_text(encoding="utf-8")).get("unsafe", [])
    found: dict[str, list] = {}
    for row in rows:
        found.setdefault(row["op"], []).append(row)
    return found


UNSAFE = _unsafe_table()  # op -> entries: attribute values onnx's shape inference crashes (or hangs) on
_CONTROL_FLOW = ("If", "Loop", "Scan", "SequenceMap")


def unsafe(node: NodeProto, onnxruntime: str | None = None) -> str | None:
    """Why onnx's shape inference must not see ``node`` (an attribute value it crashes or hangs on: tables/attribute-
    values.json "unsafe"), also in its subgraphs; None when it may. ``onnxruntime``: only the values on which
    onnxruntime's load does that ("crashes", "hangs", "refuses")."""
    for entry in UNSAFE.get(node.op_type, ()):
        if onnxruntime is not None and entry["onnxruntime"] != onnxruntime:
            continue
        for attr in node.attribute:
            if attr.name == entry["attribute"] and _breaks(entry, attr, len(node.output)):
                return f"attribute {attr.name}={_shown(attr)}: {entry['source']}"
    if node.op_type in _CONTROL_FLOW or len(node.attribute):
        for attr in node.attribute:
            for graph in walk.subgraphs(attr):
                for inner in graph.node:
                    why = unsafe(inner, onnxruntime)
                    if why:
                        return f"in its subgraph {graph.name!r}: {inner.op_type}: {why}"
    return None


def _breaks(entry: dict, attr: AttributeProto, outputs: int) -> bool:
    """Whether ``attr`` holds a value of the unsafe entry: an integer out of its bounds, or a string that does not
    match its pattern once the ignored characters are gone (matched byte by byte: onnx's C++ reads bytes)."""
    if "pattern" in entry:
        if attr.type != A.STRING:
            return False
        text = attr.s.decode("latin-1").translate({ord(c): None for c in entry.get("ignore", "")})
        return re.fullmatch(entry["pattern"], text, re.DOTALL) is None
    if attr.type == A.INT:
        return not within(entry, int(attr.i), outputs)
    return attr.type == A.INTS and not within(entry, [int(v) for v in attr.ints], outputs)


def _shown(attr: AttributeProto) -> str:
    """The value of an attribute ``_breaks`` found (an INT, INTS or STRING) in a message, on one line (a string that
    is not UTF-8 as the bytes it is)."""
    if attr.type == A.INT:
        return repr(int(attr.i))
    if attr.type == A.INTS:
        return repr([int(v) for v in attr.ints])
    try:
        return repr(attr.s.decode("utf-8"))
    except UnicodeDecodeError:
        return repr(attr.s)


def any_unsafe(nodes) -> bool:
    """Whether some node (of a graph's, at any depth) is unsafe()."""
    return _any(nodes, unsafe, _UNSAFE_OPS)


_UNSAFE_OPS = frozenset(UNSAFE) | frozenset(_CONTROL_FLOW)  # the op types unsafe() may find something in at once


def _any(nodes, test, ops: frozenset) -> bool:
    """Whether ``test`` holds for some of ``nodes`` whose op type is among ``ops`` or that hold a subgraph (the loop
    reads only op types, attribute counts and whether an attribute holds a graph)."""
    return any(test(node) for node in nodes
               if node.op_type in ops or (len(node.attribute) and walk.has_subgraph(node)))


def first_unsafe(nodes, onnxruntime: str | None = None) -> tuple[int, NodeProto, str] | None:
    """(index, node, why) of the first of ``nodes`` that is unsafe(node, onnxruntime); None where none is (any_unsafe
    first: a graph without such a node is told from its op types)."""
    if not any_unsafe(nodes):
        return None
    return next(((i, node, why) for i, node in enumerate(nodes) for why in [unsafe(node, onnxruntime)] if why), None)


def misread(node: NodeProto) -> bool:
    """Whether onnx's inference would read a Constant's value otherwise than onnxruntime (in ``node`` or, at any
    depth, in its subgraphs): a Constant of more than one attribute, or whose one is not named for its type."""
    if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
        attrs = node.attribute
        return len(attrs) > 1 or (len(attrs) == 1 and CONSTANT_ATTRIBUTE.get(attrs[0].type, attrs[0].name)
                                  != attrs[0].name)
    return bool(len(node.attribute)) and any(misread(inner) for attr in node.attribute
                                             for graph in walk.subgraphs(attr) for inner in graph.node)


def any_misread(nodes) -> bool:
    """Whether some node (of a graph's, at any depth) is misread()."""
    return _any(nodes, misread, _CONSTANT_OPS)


_CONSTANT_OPS = frozenset(("Constant",))


def sanitized(model: ModelProto) -> ModelProto:
    """A copy of ``model`` without the unsafe attribute values (removed: onnx's inference then takes the default),
    and with each misread Constant's first attribute alone, named for its type (as onnxruntime reads it)."""
    copy = ModelProto()
    copy.CopyFrom(model)
    _sanitize(copy.graph.node)
    return copy


def _sanitize(nodes) -> None:
    for node in nodes:
        if node.op_type == "Constant" and misread(node):  # (a Constant has no subgraph to go into)
            first = node.attribute[0]
            first.name = CONSTANT_ATTRIBUTE.get(first.type, first.name)
            del node.attribute[1:]
            continue
        entries = {e["attribute"]: e for e in UNSAFE.get(node.op_type, ())}
        kept = [a for a in node.attribute if not (a.name in entries and _breaks(entries[a.name], a, len(node.output)))]
        if len(kept) != len(node.attribute):
            del node.attribute[:]
            node.attribute.extend(kept)
        for attr in node.attribute:
            for graph in walk.subgraphs(attr):
                _sanitize(graph.node)

