"""What a capability check needs to know about each node of any ONNX model.

Types and ranks come from onnx's shape inference (non-strict: a model it cannot fully infer is
still checked, with unknown types skipped); constant inputs are initializers and Constant nodes;
attributes are resolved with their schema defaults. A node's since-version is the newest version
of its schema at or below the model's opset: onnx.defs.get_schema(op, max_inclusive_version=opset).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, defs, helper, numpy_helper

from ..untrusted import walk
from ..untrusted.infer import infer, unsafe
from .attributes import INVALID, decode

SCHEMA_VERSION_MAX = 2**31 - 1  # onnx's get_schema takes a C int: a larger opset (2^63 - 1) finds the newest schema


def type_name(elem_type: int) -> str:
    """ONNX element type -> the name onnxruntime's kernel tables use (float, float16, int8, bool, ...); a number that
    is no element type (a tensor of data_type 999, whose type inference passes on) gets a name no table lists."""
    name = _TYPE_NAMES.get(elem_type)
    return name if name is not None else f"element type {elem_type}"


_TYPE_NAMES = {v: k.lower() for k, v in TensorProto.DataType.items()}


@dataclass
class NodeView:
    node: onnx.NodeProto
    index: int
    since: int | None  # None: no such op in this opset (or not in the ai.onnx domain)
    schema: object | None
    attrs: dict = field(default_factory=dict)  # every schema attribute, defaults filled in; only values of the
    # schema's type (converter/targets/attributes.py): an attribute of another type is left out, and reported
    explicit: frozenset = frozenset()  # the attributes the node sets itself (of the schema's type)
    inputs: list = field(default_factory=list)  # names ("" for an omitted optional input)
    input_types: list = field(default_factory=list)  # type names, None when unknown
    output_types: list = field(default_factory=list)
    input_shapes: list = field(default_factory=list)  # tuples of int|None, or None when the rank is unknown
    output_shapes: list = field(default_factory=list)
    constants: list = field(default_factory=list)  # numpy value of each constant input, else None

    @property
    def op(self) -> str:
        return self.node.op_type

    @property
    def name(self) -> str:
        return self.node.name or f"#{self.index}"  # (messages add the op: "#0 (Conv)")

    def bindings(self) -> dict[str, set[str]]:
        """Type-constraint name (T, T1, ...) -> the element types this node binds it to."""
        if self.schema is None:
            return {}
        names = {c.type_param_str for c in self.schema.type_constraints}
        bound: dict[str, set[str]] = {}
        for formals, types in ((self.schema.inputs, self.input_types), (self.schema.outputs, self.output_types)):
            for i, t in enumerate(types):
                if t is None or not formals:
                    continue
                formal = formals[min(i, len(formals) - 1)]
                if formal.type_str in names:
                    bound.setdefault(formal.type_str, set()).add(t)
        return bound

    def input_constraint(self, i: int) -> str | None:
        if self.schema is None or not self.schema.inputs:
            return None
        formal = self.schema.inputs[min(i, len(self.schema.inputs) - 1)]
        return formal.type_str if formal.type_str in {c.type_param_str for c in self.schema.type_constraints} else None

    def rank(self, i: int = 0) -> int | None:
        shape = self.input_shapes[i] if i < len(self.input_shapes) else None
        return None if shape is None else len(shape)


class UnreadValue(Exception):
    """A check asked for the value of a constant whose data was not read (the message names it)."""


class Unread:
    """A constant input whose data ``check`` did not read (external data, or a large initializer of an untrusted
    file): its type and shape are known (``shape``, ``ndim``, ``size``, ``dtype``), asking for a value raises
    UnreadValue, which the check reports as a rule it could not verify."""

    __slots__ = ("type_name", "dims", "name")

    def __init__(self, type_name: str, dims, name: str = ""):
        self.type_name, self.dims, self.name = type_name, tuple(int(d) for d in dims), name

    shape = property(lambda self: self.dims)
    ndim = property(lambda self: len(self.dims))
    size = property(lambda self: int(np.prod(self.dims, dtype=object)) if self.dims else 1)

    @property
    def dtype(self):
        try:
            return helper.tensor_dtype_to_np_dtype(getattr(TensorProto, self.type_name.upper()))
        except (AttributeError, KeyError, ValueError, TypeError):
            return np.dtype(object)

    def __getattr__(self, name):  # ravel, tolist, astype, item, ...: values
        raise UnreadValue(repr(self))

    def __bool__(self) -> bool:
        return True

    def __len__(self):
        raise UnreadValue(repr(self))

    def __iter__(self):
        raise UnreadValue(repr(self))

    def __getitem__(self, key):
        raise UnreadValue(repr(self))

    def __array__(self, *args, **kwargs):
        raise UnreadValue(repr(self))

    def __repr__(self) -> str:
        return f"{self.name + ' ' if self.name else ''}{self.type_name}{list(self.dims)} (not read)"


def int_values(value) -> list[int] | None:
    """A constant's values as Python ints, or None when it is not an integer (or bool) tensor (a rule then decides
    nothing from it). An Unread constant raises UnreadValue (check reports the rule as not verified)."""
    if value is None or value.dtype.kind not in "iub":
        return None
    return [int(v) for v in value.ravel()]


def infer_whole(model: onnx.ModelProto, data: bytes | None = None) -> onnx.ModelProto:
    """onnx's shape inference of the whole model (converter/untrusted/infer.py: non-strict, under the time limit, a
    node onnx would crash on inferred without that attribute, which validation refuses; ``data``: the model
    serialized, cheaper to infer), or the model itself where onnx cannot infer it."""
    try:
        inferred = infer(model, data, data_prop=needs_data_prop(model), limit=True)
    except Exception:  # noqa: BLE001 - a model onnx cannot infer (or not in time) is still checked, with what it declares
        return model
    split_ranks(inferred.graph)
    return inferred


def split_ranks(graph: onnx.GraphProto) -> None:
    """Give a Split's outputs its input's rank where onnx's inference gives them no shape at all (its ``split``
    lengths computed at run time), as onnxruntime's own inference does: a later node's axis is then checked
    against that rank (fuzz: a Split's ``axis`` of -7 after a Split, in the expanded RotaryEmbedding, which
    onnxruntime refuses at load). The dimensions stay unknown. In node order: a Split of a Split's output too."""
    splits = [n for n in graph.node if n.op_type == "Split" and n.domain in ("", "ai.onnx") and n.input]
    if not splits:
        return  # (most models: no map of their values is made)
    infos = {i.name: i for part in (graph.input, graph.value_info, graph.output) for i in part}
    ranks = {i.name: len(i.dims) for i in graph.initializer}
    for name, info in infos.items():
        if info.type.WhichOneof("value") == "tensor_type" and info.type.tensor_type.HasField("shape"):
            ranks[name] = len(info.type.tensor_type.shape.dim)
    for node in splits:
        if node.input[0] not in ranks:
            continue
        for out in node.output:
            info = infos.get(out)  # (a value onnx gave no type either is left alone)
            if info is None or info.type.WhichOneof("value") != "tensor_type" or info.type.tensor_type.HasField("shape"):
                continue
            shape = info.type.tensor_type.shape  # (creates the shape: every dimension unknown)
            for _ in range(ranks[node.input[0]]):
                shape.dim.add()
            ranks[out] = ranks[node.input[0]]


_A = onnx.AttributeProto
# The numpy type onnxruntime makes of a Constant's number attribute, by the attribute's type
_VALUE_DTYPES = {_A.FLOAT: np.float32, _A.FLOATS: np.float32, _A.INT: np.int64, _A.INTS: np.int64}


def constant_value(node: onnx.NodeProto):
    """The value onnxruntime makes of a Constant node: its FIRST attribute, by that attribute's type whatever its name
    (converter/untrusted/infer.py, CONSTANT_ATTRIBUTE): a tensor, or a float(s) or int(s) as ``value_float(s)``/
    ``value_int(s)`` hold them, as a numpy array, an Unread for external data, or None (another type, or none)."""
    if not len(node.attribute):
        return None
    attr = node.attribute[0]
    if attr.type == onnx.AttributeProto.TENSOR:
        if attr.t.data_location == TensorProto.EXTERNAL:
            return Unread(type_name(attr.t.data_type), attr.t.dims, node.output[0])
        return numpy_helper.to_array(attr.t)
    dtype = _VALUE_DTYPES.get(attr.type)
    if dtype is not None:
        value = decode(attr)
        if value is not INVALID:
            with np.errstate(over="ignore"):  # a float beyond float32 is an infinity there, as in onnxruntime
                return np.array(value, dtype=dtype)
    return None


def needs_data_prop(model: onnx.ModelProto) -> bool:
    """Whether onnx's data propagation can learn anything: only values computed from Shape/Size nodes."""
    return any(node.op_type in ("Shape", "Size") for node in model.graph.node)


class ModelView:
    """``inferred``: the model after onnx's shape inference, when the caller ran it (from bytes: cheaper);
    ``unread``: initializer name -> (type, dims) of large initializers read without their data
    (converter/untrusted/reading.py), graph inputs of ``model``, seen here as constants of unknown value."""

    source = ""  # the file the model was read from (messages name it), when there is one
    folder = None  # its folder (external data is resolved there); None: a model in memory
    _validated = None  # converter/targets/validation.py: the findings, made once
    _declared = None

    def __init__(self, model: onnx.ModelProto, inferred: onnx.ModelProto | None = None, unread: dict | None = None):
        self.model = model
        # domain ("" for ai.onnx) -> imported version
        self.opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
        self.opset = self.opsets.get("")
        if inferred is None:
            inferred = infer_whole(model)
        graph = inferred.graph
        self.types: dict[str, str | None] = {}
        self.shapes: dict[str, tuple | None] = {}
        decoded: dict[bytes, tuple] = {}  # a serialized TypeProto -> (type, shape), its number: most repeat
        types, shapes = self.types, self.shapes
        self._type_ids: dict[str, int] = {}  # name -> the number of its (type, shape), from 1 (groups() keys)
        self._other_types: dict[str, bytes] = {}  # name -> its TypeProto, serialized: a sequence, map, optional
        type_ids = self._type_ids
        for infos in (graph.input, graph.output, graph.value_info):
            for info in infos:
                key = info.type.SerializeToString()
                found = decoded.get(key)
                if found is None:
                    found = decoded[key] = (_decode(info.type), len(decoded) + 1)
                record, number = found
                if record is not None:
                    name = info.name
                    types[name], shapes[name] = record
                    type_ids[name] = number
                elif info.type.WhichOneof("value") is not None:
                    self._other_types[info.name] = key
        self._type_count = len(decoded)
        self.constants: dict[str, object] = {}
        for init in graph.initializer:
            # external data not loaded (check never reads it): a constant of known type and shape, unknown value
            self.constants[init.name] = (Unread(type_name(init.data_type), init.dims, init.name)
                                         if init.data_location == TensorProto.EXTERNAL else numpy_helper.to_array(init))
            self.types.setdefault(init.name, type_name(init.data_type))
            self.shapes.setdefault(init.name, tuple(init.dims))
        unread = unread or {}
        for name, (dtype, dims) in unread.items():
            self.constants[name] = Unread(dtype, dims, name)
            self.types.setdefault(name, dtype)
            self.shapes.setdefault(name, tuple(dims))
        for node in graph.node:
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and len(node.output) == 1:
                value = constant_value(node)
                if value is not None:
                    self.constants[node.output[0]] = value
        self.graph_io = ({i.name for i in graph.input} | {o.name for o in graph.output}) - set(unread)
        self.graph = graph
        self._nodes = None
        self._groups = None
        self._schemas: dict = {}
        self._defaults: dict = {}

    def other_type(self, name: str) -> bytes | None:
        """The serialized TypeProto of a value that is not a tensor (a sequence, a map, an optional), declared or
        inferred; None for a tensor or a value of unknown type."""
        return self._other_types.get(name)

    def distinct_shapes(self) -> set:
        """Every tensor shape of the model, each once (few, even in a huge model)."""
        return self.shapes.distinct() if isinstance(self.shapes, _ByName) else set(self.shapes.values())

    @property
    def nodes(self) -> list[NodeView]:
        """A NodeView of every node, in order (made on first use)."""
        if self._nodes is None:
            self._nodes = [self._view(i, node) for i, node in enumerate(self.graph.node)]
        return self._nodes

    def groups(self) -> list[tuple[NodeView, list[int]]]:
        """The nodes grouped by everything a check reads (op, attributes, types, shapes, constants, graph I/O):
        (a NodeView of the first node of each group, the indices of all its nodes), in node order.

        Every check gives the nodes of one group the same verdict; only names in its wording differ."""
        if self._groups is None:
            self._groups = self._group()
        return self._groups

    def _group(self) -> list[tuple[NodeView, list[int]]]:
        groups: dict[tuple, list[int]] = {}
        first: dict[tuple, int] = {}
        types, shapes, io = self.types, self.shapes, self.graph_io
        const_keys = {name: _constant_key(value) for name, value in self.constants.items()}
        # What a check reads of one tensor name, as a small int (a key of ints hashes fast): the number of its
        # (type, shape) for most names; constants and graph inputs/outputs (few) numbered apart; "" is omitted.
        info = dict(self._type_ids)
        info[""] = 0
        base = self._type_count + 1
        distinct: dict[tuple, int] = {}
        for name in {*const_keys, *io}:
            key = (types.get(name), shapes.get(name), const_keys.get(name), name in io)
            info[name] = base + distinct.setdefault(key, len(distinct))
        get = info.get
        nodes = self.graph.node
        for i, node in enumerate(nodes):
            attrs = tuple([a.SerializeToString() for a in node.attribute]) if len(node.attribute) else ()
            ins = node.input
            key = (node.op_type, node.domain, attrs, len(ins), *map(get, ins), *map(get, node.output))
            members = groups.get(key)
            if members is None:
                groups[key] = members = []
                first[key] = i
            members.append(i)
        return [(self._view(first[key], nodes[first[key]]), members) for key, members in groups.items()]

    def node_view(self, index: int) -> NodeView:
        return self._view(index, self.graph.node[index])

    def _schema(self, op: str, domain: str):
        key = (op, domain)
        if key not in self._schemas:
            self._schemas[key], self._defaults[key] = schema_of(op, domain, self.opsets)
        return self._schemas[key], self._defaults[key]

    def _view(self, index: int, node: onnx.NodeProto) -> NodeView:
        schema, defaults = self._schema(node.op_type, node.domain)
        since = schema.since_version if schema is not None else None
        attrs, explicit = node_attributes(node, schema, defaults)
        ins, outs = list(node.input), list(node.output)
        return NodeView(
            node=node, index=index, since=since, schema=schema, attrs=attrs, explicit=explicit, inputs=ins,
            input_types=[self.types.get(n) if n else None for n in ins],
            output_types=[self.types.get(n) if n else None for n in outs],
            input_shapes=[self.shapes.get(n) if n else None for n in ins],
            output_shapes=[self.shapes.get(n) if n else None for n in outs],
            constants=[self.constants.get(n) if n else None for n in ins],
        )


def schema_of(op: str, domain: str, opsets: dict):
    """(onnx's schema of ``op`` at the model's opset of its domain, or None; that schema's attribute defaults)."""
    domain = "" if domain == "ai.onnx" else domain
    version = opsets.get(domain)
    schema = None
    if type(version) is int and version >= 0:  # ai.onnx, ai.onnx.ml, ...: the schemas onnx knows
        try:
            schema = defs.get_schema(op, max_inclusive_version=min(version, SCHEMA_VERSION_MAX), domain=domain)
        except defs.SchemaError:
            schema = None
    defaults = {}
    if schema is not None:
        for name, attr in schema.attributes.items():
            if attr.default_value.type:
                value = decode(attr.default_value)
                if value is not INVALID:
                    defaults[name] = value
    return schema, defaults


def node_attributes(node: onnx.NodeProto, schema, defaults: dict) -> tuple[dict, frozenset]:
    """(name -> value: the schema's defaults, then each attribute the node sets whose type is the schema's
    type; the names the node sets with such a value). An attribute the schema does not know, or of another
    type, is left out (converter/targets/validation.py reports it)."""
    attrs = dict(defaults)
    explicit = []
    for attr in node.attribute:
        if schema is not None:
            formal = schema.attributes.get(attr.name)
            if formal is None:
                continue
            value = decode(attr, int(formal.type.value))
        else:
            value = decode(attr)
        if value is not INVALID:
            attrs[attr.name] = value
            explicit.append(attr.name)
    return attrs, frozenset(explicit)


def _decode(tproto) -> tuple | None:
    """(element type name or None, shape or None) of a tensor TypeProto; None for other types."""
    if not tproto.HasField("tensor_type"):
        return None
    ttype = tproto.tensor_type
    elem = type_name(ttype.elem_type) if ttype.elem_type else None
    if not ttype.HasField("shape"):
        return elem, None
    return elem, tuple(d.dim_value if d.HasField("dim_value") else None for d in ttype.shape.dim)


def _constant_key(value) -> tuple:
    if isinstance(value, Unread):
        return ("unread", value.type_name, value.dims)
    return (value.dtype.str, value.shape, value.tobytes() if value.dtype.kind != "O" else repr(value.tolist()))


class _ByName:
    """name -> one field of a (type, shape) record, through a name -> record number dict and a table of the
    records (no per-name copy: a 10^6-node model has a few distinct records). Unknown names and untyped
    records read as absent, as in a dict of the typed tensors only."""

    __slots__ = ("_ids", "_table", "_field")

    def __init__(self, ids: dict, table: list, field_: int):
        self._ids, self._table, self._field = ids, table, field_

    def get(self, name, default=None):
        record = self._table[self._ids.get(name, 0)]
        return default if record is None else record[self._field]

    def __getitem__(self, name):
        record = self._table[self._ids.get(name, 0)]
        if record is None:
            raise KeyError(name)
        return record[self._field]

    def __contains__(self, name) -> bool:
        return self._table[self._ids.get(name, 0)] is not None

    def __iter__(self):
        return (name for name, i in self._ids.items() if self._table[i] is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def keys(self):
        return list(self)

    def distinct(self) -> set:
        """Each value once, from the records (a superset: a record no name uses is counted too)."""
        return {record[self._field] for record in self._table if record is not None}

    def values(self):
        table, f = self._table, self._field
        return [table[i][f] for i in self._ids.values() if table[i] is not None]

    def items(self):
        table, f = self._table, self._field
        return [(name, table[i][f]) for name, i in self._ids.items() if table[i] is not None]


class _Untensored:
    """name -> the serialized TypeProto of a value that is no tensor (a sequence, map, optional), read through the
    grouped view's record numbers (as _ByName: no per-name copy, no pass over the names)."""

    __slots__ = ("_ids", "_table", "_bytes")

    def __init__(self, ids: dict, table: list, type_bytes: list):
        self._ids, self._table, self._bytes = ids, table, type_bytes

    def get(self, name) -> bytes | None:
        number = self._ids.get(name, 0)
        return self._bytes[number] or None if number and self._table[number] is None else None


class _Declined(Exception):
    """The model is outside what per-group inference reproduces exactly: infer the whole model instead."""


# groups inferred one by one before declining (+ 1 per 50 nodes): measured, a group's inference takes ~50 µs and
# whole-model inference ~3.6 µs per node, so a declined model has spent at most ~0.3x of the latter on groups
GROUP_INFERENCE_MISSES = 256


def grouped_view(model: onnx.ModelProto, unread: dict | None = None, groups: int | None = None) -> ModelView | None:
    """A ModelView whose types come from onnx's shape inference run once per group of nodes, not on the whole model;
    None where that would not give what whole-model inference gives (the caller then infers the whole model).

    onnx's inference of a node reads its op, domain, attributes, the types of its inputs, the values of constant
    inputs (initializers, Constant nodes) and the declared types of its outputs (graph outputs, value_info), and
    merges what it infers with the declared types. Nodes equal in all of these get equal output types, so the first
    node of each such group is inferred by onnx (infer_shapes on a model of that node, its Constant producers, its
    inputs with their types and constant values, its outputs as declared, the model's opsets and IR version), and
    the others take its answer. What makes a node depend on more than that declines (None): data propagation
    (Shape, Size), subgraphs, model-local functions, a domain other than ai.onnx, an input of unknown type; and so
    does a model with more groups than ``groups`` (default: more than inferring the whole model costs). Only dim_param names differ from whole-model
    inference (its generated ``unk__N`` names are unique in the model, here in the group): a dim_param reads as an
    unknown dimension (None) either way. The grouping is ModelView.groups() (tests/targets/test_grouped_view.py
    compares both on onnx's node test models). ``model``: one onnx's checker accepts (node domains imported)."""
    graph = model.graph
    if model.functions:
        return None
    view = ModelView.__new__(ModelView)
    view.model, view.graph = model, graph
    view.opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    view.opset = view.opsets.get("")
    if view.opset is None:
        return None
    unread = unread or {}
    interned: dict[tuple, int] = {}  # (TypeProto bytes, tag) -> record number; 0: unknown
    table: list = [None]  # record number -> (element type name, shape) or None (not a typed tensor)
    type_bytes: list = [b""]

    def record(tbytes: bytes, tag) -> int:
        key = (tbytes, tag)
        number = interned.get(key)
        if number is None:
            number = interned[key] = len(table)
            table.append(_decode(onnx.TypeProto.FromString(tbytes)))
            type_bytes.append(tbytes)
        return number

    ids: dict[str, int] = {"": 0}  # tensor name -> record number (with what a check reads of it: constant, graph I/O)
    constants: dict[str, object] = {}
    inputs = {i.name: i for i in graph.input}
    for info in graph.input:
        ids[info.name] = record(info.type.SerializeToString(), "io")
    initializers = {}
    for init in graph.initializer:
        value = (Unread(type_name(init.data_type), init.dims, init.name)
                 if init.data_location == TensorProto.EXTERNAL else numpy_helper.to_array(init))
        constants[init.name] = value
        initializers[init.name] = init
        tbytes = (inputs[init.name].type.SerializeToString() if init.name in inputs else
                  helper.make_tensor_type_proto(init.data_type, list(init.dims)).SerializeToString())
        ids[init.name] = record(tbytes, ("io" if init.name in inputs else "const", _constant_key(value)))
    for name, (dtype, dims) in unread.items():  # graph inputs of the read model, constants of unknown value
        constants[name] = Unread(dtype, dims, name)
        ids[name] = record(inputs[name].type.SerializeToString(), ("const", _constant_key(constants[name])))
    declared: dict[str, int] = {"": -1}  # output name -> record number of its declared type
    outputs = {o.name for o in graph.output}
    for info in graph.output:
        declared[info.name] = record(info.type.SerializeToString(), "io")
    for info in graph.value_info:
        declared.setdefault(info.name, record(info.type.SerializeToString(), None))
    producers: dict[str, onnx.NodeProto] = {}  # Constant outputs: onnx's inference reads their values
    nodes = graph.node
    misses = [GROUP_INFERENCE_MISSES + len(nodes) // 50 if groups is None else groups]

    def infer_group(node, attrs) -> tuple:
        misses[0] -= 1
        if misses[0] < 0 or node.domain not in ("", "ai.onnx") or node.op_type in ("Shape", "Size") or any(
                walk.subgraphs(a) for a in node.attribute) or unsafe(node):
            raise _Declined
        tiny = onnx.ModelProto(ir_version=model.ir_version)
        tiny.opset_import.extend(model.opset_import)
        tg = tiny.graph
        tg.name = "group"
        seen = set()
        for name in node.input:
            if not name or name in seen:
                continue
            seen.add(name)
            if name in producers:
                tg.node.append(producers[name])
                continue
            if name in initializers:
                tg.initializer.append(initializers[name])
                if name not in inputs:
                    continue
            number = ids.get(name)
            if number is None or table[number] is None:
                raise _Declined  # an input of unknown type: whole-model inference sees none, a graph input an empty one
            tg.input.add(name=name).type.ParseFromString(type_bytes[number])
        for name in node.output:
            if name:
                out = tg.output.add(name=name)
                if name in declared:
                    out.type.ParseFromString(type_bytes[declared[name]])
        tg.node.append(node)
        try:
            found = infer(tiny).graph  # one node, screened above (unsafe): no time limit
        except Exception:  # noqa: BLE001 - onnx cannot infer this node at all (a malformed attribute): whole-model
            raise _Declined from None  # inference (which tolerates it) decides
        split_ranks(found)  # (as infer_whole does)
        outputs = found.output
        inferred = {o.name: o.type.SerializeToString() for o in outputs}
        const = node.op_type == "Constant"
        return tuple(record(inferred.get(name, b""), ("io" if name in outputs else "", attrs if const else None))
                     if name else 0 for name in node.output)

    groups: dict[tuple, tuple] = {}
    get, declared_get, update = ids.get, declared.get, ids.update
    # onnx's checker refuses a node whose domain the model imports no opset of: with ai.onnx imported alone, every
    # node's domain is "" or "ai.onnx", which name the same operators (reading it costs a tenth of the pass)
    other_domains = any(o.domain not in ("", "ai.onnx") for o in model.opset_import)
    try:
        for i, node in enumerate(nodes):
            attrs = tuple([a.SerializeToString() for a in node.attribute]) if len(node.attribute) else ()
            outs = node.output[:]  # a slice: a list, made at half the cost of iterating the field
            op = node.op_type
            domain = node.domain if other_domains else ""
            key = (op, domain, attrs, tuple(map(get, node.input[:])), tuple(map(declared_get, outs)))
            found = groups.get(key)
            if found is None:
                found = groups[key] = (infer_group(node, attrs), [])
            found[1].append(i)
            if len(outs) == 1:
                ids[outs[0]] = found[0][0]
            else:
                update(zip(outs, found[0]))
            if op == "Constant" and domain in ("", "ai.onnx") and len(outs) == 1:
                producers[outs[0]] = node
                value = constant_value(node)
                if value is not None:
                    constants[outs[0]] = value
    except _Declined:
        return None
    view.types, view.shapes = _ByName(ids, table, 0), _ByName(ids, table, 1)
    view.constants = constants
    view.graph_io = (set(inputs) | outputs) - set(unread)
    view._type_ids, view._type_count = ids, len(table)
    view._other_types = _Untensored(ids, table, type_bytes)
    view._nodes = None
    view._schemas, view._defaults = {}, {}
    view._groups = [(view._view(members[0], nodes[members[0]]), members) for _, members in groups.values()]
    return view
