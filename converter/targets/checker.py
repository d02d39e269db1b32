"""onnx's checker on a whole model, every finding: it stops at its first complaint, so a tolerated one is fixed
in a copy and the checker runs again, until it accepts the copy or refuses it for good.

Refusals of onnx's checker that onnxruntime does not share (``TOLERATED``: it loads and runs the model, measured
with onnxruntime 1.31.1): a graph input or output whose type has no shape; an initializer that is not a graph
input in an IR-version-3 model (onnxruntime's own datasets/mul_1.onnx); and, given bytes, external data the
checker looks for in the current folder, which ``check`` has found in the model's folder
(converter/untrusted/reading.py). Each is reported as a warning, and no longer hides what comes after it: the copy
gets the shape, the graph input, or the tensor without its external data, and the checker goes on (up to
``ROUNDS`` times). Complaints about one node ("Bad node spec") are also found, for every node, by
converter/targets/validation.py.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import onnx
from onnx import TensorProto

from ..process import isolation
from ..untrusted import walk

TOLERATED = ("Field 'shape' of 'type' is required but missing", "in initializer but not in graph input",
             "should be stored in")
ROUNDS = 1 + len(TOLERATED)  # each tolerated complaint fixed once, then one more verdict


@dataclass(frozen=True)
class CheckerFinding:
    text: str  # the complaint's first line
    tolerated: bool  # onnxruntime loads the model anyway: a warning
    node: bool  # a complaint about one node ("Bad node spec"), which validation reports per node


def findings(data: bytes, model: onnx.ModelProto | None = None) -> list[CheckerFinding]:
    """onnx's checker on the serialized model: every complaint it makes (tolerated ones fixed in a copy of
    ``model``, the parsed model, to go on); empty when it accepts the model."""
    found: list[CheckerFinding] = []
    copy = None
    for _ in range(ROUNDS):
        try:
            onnx.checker.check_model(data)
            return found
        except onnx.checker.ValidationError as exc:
            text = str(exc).strip()
            lines = text.splitlines()
            first = " ".join(lines[0].split()) if lines else type(exc).__name__
            tolerated = model is not None and any(t in first for t in TOLERATED)
            if tolerated and any(f.text == first for f in found):
                break  # the fix did not take: the topological order is checked here instead
            found.append(CheckerFinding(first, tolerated, "Bad node spec" in text))
            if not tolerated:
                return found
            if copy is None:
                copy = onnx.ModelProto()
                copy.CopyFrom(model)
            _fix(copy, first)
            data = copy.SerializeToString()
    return found + ([CheckerFinding(why, False, False)] if (why := unsorted(copy or model)) else [])


class Pending:
    """onnx's checker running beside the caller (``start``): ``result()`` waits for its findings."""

    def __init__(self, found: list | None = None, child=None, data: bytes = b"", model=None):
        self._found, self._child, self._data, self._model = found, child, data, model

    @property
    def forked(self) -> bool:
        return self._child is not None

    def result(self) -> list[CheckerFinding]:
        global CHILD_PEAK_KIB
        if self._found is not None:
            return self._found
        reply = self._child.reply()
        rows = None
        if reply.signal is not None:  # the checker died before it answered
            self._found = [CheckerFinding(f"onnx's checker crashed on the model (signal {reply.signal})", False, False)]
        elif reply.ok:
            rows, CHILD_PEAK_KIB = reply.value
        if self._found is None:  # (rows None: it raised something else than a refusal: here, so that the caller sees what)
            self._found = findings(self._data, self._model) if rows is None else [CheckerFinding(*row) for row in rows]
        return self._found


CHILD_PEAK_KIB = 0  # what the last checker process added to the memory it shares with its parent: its peak RSS less
# its RSS when it was forked (benchmarks/check_scale.py adds it to the parent's peak)


PARALLEL_NODES = 100_000  # from this many nodes on, the checker runs beside the caller (it takes ~2.3 us a node)


def _threads() -> int:
    """This process's OS threads (Linux; 0 where it cannot be told)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


_THREADS_AT_IMPORT = _threads()  # the interpreter's and its libraries' idle pools (OpenBLAS): fork-safe


def start(data: bytes, model: onnx.ModelProto | None = None) -> Pending:
    """``findings(data, model)`` in a child process (isolation.Call, forked: it shares the parent's pages) while the
    caller goes on: onnx's checker is C++ that holds the GIL, so on another core it costs no wall time; and it
    cannot take the caller down (a crash is a finding). Only for a model of PARALLEL_NODES nodes or more, and only
    where the process has no more threads than when this module was imported: a thread started since (an
    onnxruntime session's pool, the caller's own) may hold a lock that the forked child would wait on forever
    (seen: the fuzz test's child, after hundreds of onnxruntime sessions). Otherwise, and without fork (Windows),
    it runs here."""
    nodes = len(model.graph.node) if model is not None else 0
    threads = _threads()
    if not isolation.FORKS or nodes < PARALLEL_NODES or not threads or threads > _THREADS_AT_IMPORT \
            or not isolation.can_have_children() or os.environ.get("SPEC2ONNX_CHECKER_INLINE"):
        return Pending(findings(data, model))
    with warnings.catch_warnings():  # Python 3.12+ warns of fork() in a process with threads: see above
        warnings.simplefilter("ignore", DeprecationWarning)
        child = isolation.start(isolation.Call(_in_child, (data, model)))
    return Pending(child=child, data=data, model=model)


def _in_child(data: bytes, model) -> tuple:
    """In the child: (the checker's findings as rows, or None where it raised something else than a refusal;
    the memory it added to the pages it shares with the parent, in KiB)."""
    shared = _status_kib("VmRSS")  # the pages it shares with the parent (copy-on-write)
    try:
        rows = [(f.text, f.tolerated, f.node) for f in findings(data, model)]
    except Exception:  # noqa: BLE001 - the parent runs it again and sees the exception itself
        rows = None
    return rows, max(0, _status_kib("VmHWM") - shared)


def _status_kib(field: str) -> int:
    """A memory figure of this process (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))
    except (OSError, StopIteration, ValueError):
        return 0


def _fix(model: onnx.ModelProto, complaint: str) -> None:
    graph = model.graph
    if TOLERATED[0] in complaint:  # a shape (any: the checker reads none) where the main graph's types lack one
        for info in list(graph.input) + list(graph.output) + list(graph.value_info):
            which = info.type.WhichOneof("value")
            if which in ("tensor_type", "sparse_tensor_type") and not getattr(info.type, which).HasField("shape"):
                getattr(info.type, which).shape.SetInParent()
    elif TOLERATED[1] in complaint:
        inputs = {i.name for i in graph.input}
        graph.input.extend(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                           for t in graph.initializer if t.name not in inputs)
    else:
        strip_external_data(graph)


def strip_external_data(graph: onnx.GraphProto) -> bool:
    """Make every tensor with external data that ``graph`` holds (converter/untrusted/walk.py: initializers, tensor
    attributes, sparse tensors' values and indices, subgraphs at any depth, in attributes of any declared type) an
    empty tensor, for onnx's checker, which looks for its file in the current folder: check has found (or refused) it
    in the model's folder itself. A sparse tensor with either part external is emptied whole (values and indices
    of no element), which the checker accepts. Whether there was one."""
    found = False
    for item in walk.walk(graph):
        parts = item.tensors()
        if any(t.data_location == TensorProto.EXTERNAL for t in parts):
            for tensor in parts:
                _empty(tensor)
            found = True
    return found


def _empty(tensor: onnx.TensorProto) -> None:
    """``tensor`` without data: no external data, no data field, dims [0]."""
    del tensor.external_data[:]
    tensor.data_location = TensorProto.DEFAULT
    for name in ("raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data"):
        tensor.ClearField(name)
    del tensor.dims[:]
    tensor.dims.append(0)


def unsorted(model: onnx.ModelProto) -> str | None:
    """The first node input not produced before the node (a cycle, or nodes out of order), as onnx's checker says."""
    graph = model.graph
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer} | \
              {s.values.name for s in graph.sparse_initializer} | {""}
    for i, node in enumerate(graph.node):
        for name in node.input:
            if name not in defined:
                return (f"Nodes in a graph must be topologically sorted, however input '{name}' of node "
                        f"{node.name or f'#{i}'} ({node.op_type}) is not output of any previous nodes.")
        defined.update(node.output)
    return None
