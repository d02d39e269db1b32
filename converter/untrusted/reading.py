"""Reading an ONNX file nobody here made (``spec2onnx check``): its structure only, in bounded memory.

What is read and what is promised (docs/check.md):

* only a regular file (a FIFO, a device such as /dev/zero, a folder: one line, exit status 2), opened
  without blocking, of at most 2 GiB (one protobuf message: an ONNX file cannot be larger; larger
  tensors live in external data files);
* the memory budget (``--max-memory``, default 1/8 of the RAM, converter/budget.py) is checked before
  reading (``READ_FACTOR`` times the file size) and again once the graph is parsed, before the checker
  and shape inference copy it (``NODE_BYTES`` per node);
* external data is never read: its metadata (location inside the model's folder, a regular file long
  enough for offset + length) is checked with ``stat``;
* every initializer (and Constant value) is validated from its metadata: a known data_type, dims >= 0,
  a data field holding exactly the elements its dims declare, UTF-8 strings. A malformed one is a
  ``UserError`` naming the file, the tensor and the field;
* initializer data above ``KEEP_BYTES`` is then dropped: the tensor becomes a graph input of the same
  type and shape (what onnx's checker and shape inference need); smaller data is kept, as the static
  check reads small constants (zero points, shape inputs).

``read_model_with_data`` is the reading of ``spec2onnx run MODEL``, which needs every value: the same
checks, then the external data is read as onnxruntime reads it (each file resolved inside the model's
folder, symbolic links included; offset and length as the tensor says), within the memory budget, into
the model, which must then serialize to one protobuf message (2 GiB) that every runtime is given.
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from ..budget import PROTOBUF_LIMIT, _describe_budget as describe_budget, default_budget, show
from ..errors import UserError
from . import walk
from .file import READ_FACTOR, file_kind, read_bounded

KEEP_BYTES = 64 * 2**10  # initializer data kept for the check (zero points, shapes); larger data is dropped
NODE_BYTES = 1400  # per node: the parsed graph, shape inference's copy with a type per tensor, the grouping (measured
# 1.3 KB per node: 1.40 GiB peak for the 10^6-node chain of benchmarks/check_scale.py)

_TYPES = {v for k, v in TensorProto.DataType.items() if k != "UNDEFINED"}
_TYPE_NAMES = {v: k.lower() for k, v in TensorProto.DataType.items()}  # float, int64, ... as messages name them
_BITS = {TensorProto.INT4: 4, TensorProto.UINT4: 4}
for _name in ("FLOAT4E2M1",):
    if hasattr(TensorProto, _name):
        _BITS[getattr(TensorProto, _name)] = 4
for _name in ("INT2", "UINT2"):
    if hasattr(TensorProto, _name):
        _BITS[getattr(TensorProto, _name)] = 2
# the typed field each element type is stored in (onnx.proto), and how many entries one element takes
_FIELD = {TensorProto.FLOAT: ("float_data", 1), TensorProto.COMPLEX64: ("float_data", 2),
          TensorProto.DOUBLE: ("double_data", 1), TensorProto.COMPLEX128: ("double_data", 2),
          TensorProto.INT64: ("int64_data", 1), TensorProto.UINT32: ("uint64_data", 1),
          TensorProto.UINT64: ("uint64_data", 1), TensorProto.STRING: ("string_data", 1)}
_DATA_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


@dataclass
class ModelFile:
    """An ONNX file read for checking: its structure, and what was left unread."""

    path: str
    model: onnx.ModelProto  # initializers over KEEP_BYTES moved to graph inputs, without data
    data: bytes  # ``model`` serialized: what onnx's checker and shape inference read
    size: int  # the file's bytes
    unread: dict = field(default_factory=dict)  # initializer name -> (element type name, dims), data not kept


def read_model(path, max_memory: int | None = None) -> ModelFile:
    """Read ``path`` as an untrusted ONNX model, structure only; a UserError (one line) when it cannot be."""
    path = str(path)
    budget = default_budget() if max_memory is None else max_memory
    data, model, _ = _parse(path, budget, "checking")
    folder = Path(path).parent
    size = len(data)
    # (Constant nodes: a file without the bytes "Constant" has none, and a huge one is spared the loop)
    unread = validate_graph_tensors(path, model.graph, folder, constants=b"Constant" in data)
    # subgraph value types: per group of equal nodes in the validation pass (converter/targets/validation.py), which
    # runs before anything reads them; here they would cost a walk over every node's attributes (~1 s at 10^6 nodes)
    check_value_types(path, model.graph, subgraphs=False)
    _check_inputs_typed(path, model.graph)
    if unread:
        model = without_data(model, unread)
        data = model.SerializeToString()
    return ModelFile(path, model, data, size=size, unread=unread)


def _parse(path: str, budget: int, doing: str) -> tuple[bytes, onnx.ModelProto, tuple]:
    """The file's bytes (bounded), the model parsed from them and the file's identity (model_file.identity); a
    UserError when it is no ONNX model or ``doing`` (checking, running) it would need more than ``budget``."""
    data, read = read_bounded(path, budget)
    hint = ("; for a spec file, `spec2onnx convert SPEC --target T` (or `validate --target T`) checks the model "
            "lowered from it" if Path(path).suffix.lower() in (".yaml", ".yml", ".json") else "")
    try:
        model = onnx.load_model_from_string(data)  # never reads external data
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and friends: not an ONNX model
        raise UserError(f"{path}: not an ONNX model ({type(exc).__name__}){hint}") from None
    if not model.graph.node and not model.opset_import:
        raise UserError(f"{path}: not an ONNX model (no graph, no opset){hint}")
    nodes = len(model.graph.node)
    need = READ_FACTOR * len(data) + NODE_BYTES * nodes
    if need > budget:
        raise UserError(f"{path}: {doing} this model ({show(len(data))}, {nodes:,} nodes) needs an estimated "
                        f"{show(need)}, above the memory budget of {describe_budget(budget)}")
    return data, model, read


def _check_utf8(path: str, model: onnx.ModelProto) -> None:
    """Every string field (names, op types, domains, attribute names and strings, ...) is UTF-8, as onnx.proto
    says. onnx.proto is proto2, whose parser does not check it: a field that is not UTF-8 comes back from the
    Python protobuf as bytes, where every name is a str (it was an internal error, exit 3, of check and run).
    Tensor strings (``string_data``, ``strings``) are bytes fields, checked with the tensor's values.
    Every message is visited (ListFields): 60 ms on light_inception_v2's 916 nodes, 0.1 s on light_densenet121's
    1,746; run only (check's cost per node is held to its benchmark; onnx.proto rebuilt as an edition with
    utf8_validation VERIFY would have the C parser check it instead)."""
    stack = [(model, None)]
    while stack:
        message, where = stack.pop()
        for fd, value in message.ListFields():
            repeated = fd.is_repeated if hasattr(fd, "is_repeated") else fd.label == fd.LABEL_REPEATED
            if fd.type == fd.TYPE_STRING:
                for i, text in enumerate(value if repeated else (value,)):
                    if text.__class__ is bytes:
                        field = _field_path((where, fd.name, i if repeated else None))
                        raise UserError(f"{path}: {field}: {text[:60]!r} is not UTF-8; ONNX strings are UTF-8")
            elif fd.type == fd.TYPE_MESSAGE:
                if repeated:
                    stack.extend((m, (where, fd.name, i)) for i, m in enumerate(value))
                else:
                    stack.append((value, (where, fd.name, None)))


def non_utf8_field(path, max_memory: int | None = None) -> str | None:
    """The message (file, field) naming a string field of ``path`` that is not UTF-8, or None. check reads a file
    again for it only after a UnicodeError (onnx's checker meets such a field while formatting its refusal):
    the walk visits every message, which run pays on every model and check's cost per node is held from."""
    path = str(path)
    _, model, _ = _parse(path, default_budget() if max_memory is None else max_memory, "checking")
    try:
        _check_utf8(path, model)
    except UserError as exc:
        return str(exc)
    return None


def _field_path(where) -> str:
    """graph.node[9].op_type from the chain of (parent, field name, index) _check_utf8 keeps."""
    parts = []
    while where is not None:
        where, name, index = where
        parts.append(name if index is None else f"{name}[{index}]")
    return ".".join(reversed(parts))


def _check_constants_and_types(path: str, model: onnx.ModelProto, data: bytes, folder: Path) -> None:
    """Constant values (as initializers), and the element types of the graph's values, subgraphs' too
    (check_value_types, _check_inputs_typed)."""
    # Constant values are read by the check (tensor attributes of other ops are not); a file without the bytes
    # "Constant" (an op_type is stored as its UTF-8 bytes) has no Constant node, and a huge one is spared the loop
    _validate_constants(path, model.graph.node if b"Constant" in data else (), folder)
    check_value_types(path, model.graph)
    _check_inputs_typed(path, model.graph)


def read_model_with_data(path, max_memory: int | None = None) -> tuple[onnx.ModelProto, int, tuple, list[Path]]:
    """(model with every value, bytes of external data read into it, the file's identity as read: model_file.
    identity, the external data files read): ``path`` read as ``read_model`` reads it, then its external data
    read as onnxruntime reads it, inside the model's folder. A UserError (one
    line) when the file or its data cannot be read, the budget would be exceeded, or the model with its
    data is larger than one protobuf message."""
    path = str(path)
    budget = default_budget() if max_memory is None else max_memory
    data, model, read = _parse(path, budget, "running")
    _check_utf8(path, model)
    folder = Path(path).parent
    external = []
    for init in model.graph.initializer:  # as read_model: the initializers, then the Constant values
        nbytes = validate_tensor(path, "initializer", init, folder)
        if init.data_location == TensorProto.EXTERNAL:
            external.append((f"initializer {init.name!r}:", init, nbytes))
    _check_constants_and_types(path, model, data, folder)
    # Sparse initializers: validated as check validates them (onnxruntime makes each dense when it loads the model)
    for sparse in model.graph.sparse_initializer:
        validate_sparse(path, "sparse initializer", sparse, folder)
    # External data elsewhere (a tensor attribute, a subgraph's initializer, a sparse tensor's values or indices, in
    # any attribute whatever its declared type: converter/untrusted/walk.py): its entries name a "location", so a
    # file without those bytes has none, and a large graph is spared the walk
    for item, tensor in walk.external(model.graph) if b"location" in data else ():
        if item.field == walk.INITIALIZER and not item.steps:
            continue  # the main graph's initializers: above
        where = _where(item, tensor)
        external.append((where, tensor, validate_tensor(path, where, tensor, folder, label=False)))
    total = sum(n for _, _, n in external)
    need = READ_FACTOR * len(data) + 2 * total  # the data read, and its copy in the serialized model
    if need > budget:
        raise UserError(f"{path}: running this model ({show(len(data))} and {show(total)} of external data) needs "
                        f"an estimated {show(need)}, above the memory budget of {describe_budget(budget)}")
    if len(data) + total > PROTOBUF_LIMIT:
        raise UserError(f"{path}: the model with its external data takes {show(len(data) + total)}; run gives every "
                        "runtime the model as one protobuf message, at most 2 GiB")
    files = list(dict.fromkeys(_load_external(path, where, tensor, nbytes, folder) for where, tensor, nbytes in external))
    return model, total, read, files


def _where(item: walk.Item, tensor: onnx.TensorProto) -> str:
    """How a message names ``tensor``, held by ``item`` (walk.walk's): its node and attribute, the subgraphs on the
    way, and the tensor's own name where it is an initializer; a sparse tensor's part (values, indices)."""
    place = walk.label(item.steps, item.field)
    if item.kind == walk.SPARSE:
        part = "values" if tensor is item.value.values else "indices"
        return f"{place} {item.value.values.name!r} {part}:".lstrip()
    if item.field == walk.INITIALIZER:
        return f"{place} {tensor.name!r}:".lstrip()
    return f"{place}:"


def _load_external(path: str, where: str, tensor: onnx.TensorProto, nbytes: int, folder: Path) -> Path:
    """Read a tensor's external data into ``raw_data``: its file resolved (links followed) must lie inside the
    model's folder, as onnxruntime requires of external data. Returns that file (resolved)."""
    entries = {e.key: e.value for e in tensor.external_data}
    location, offset = entries["location"], int(entries.get("offset", 0))
    length = int(entries["length"]) if "length" in entries else nbytes
    root = folder.resolve()
    file = (folder / location).resolve()
    if root not in file.parents:
        raise UserError(f"{path}: {where} external data {location!r} resolves to {file}, outside the model's folder")
    try:
        with open(file, "rb") as handle:
            handle.seek(offset)
            raw = handle.read(length)
    except OSError as exc:
        raise UserError(f"{path}: {where} cannot read external data {location!r} ({exc.strerror or exc})") from None
    if len(raw) != length:
        raise UserError(f"{path}: {where} external data {location!r} ended after {len(raw):,} of {length:,} bytes")
    del tensor.external_data[:]
    tensor.data_location = TensorProto.DEFAULT
    tensor.raw_data = raw
    return file


def is_onnx_model(path) -> bool:
    """Whether ``run`` takes ``path`` as an ONNX model rather than a spec: a .onnx file is one; a .yaml, .yml or
    .json file is not; any other file is one when it parses as an ONNX model (within the default budget)."""
    suffix = Path(str(path)).suffix.lower()
    if suffix in (".onnx", ".yaml", ".yml", ".json"):
        return suffix == ".onnx"
    try:
        _parse(str(path), default_budget(), "reading")
    except UserError:
        return False
    return True


def validate_graph_tensors(path: str, graph: onnx.GraphProto, folder: Path | None, constants: bool = True) -> dict:
    """Validate the tensors whose values the check reads: the graph's initializers and its Constant nodes' values
    (``constants``: the graph may hold Constant nodes). Returns the initializers whose data is not kept (over
    KEEP_BYTES, or external): name -> (element type name, dims). The other tensors (in other attributes,
    subgraphs, sparse tensors) are validated with the nodes (converter/targets/validation.py)."""
    unread = {}
    for init in graph.initializer:
        nbytes = validate_tensor(path, "initializer", init, folder)
        if nbytes > KEEP_BYTES or init.data_location == TensorProto.EXTERNAL:
            unread[init.name] = (TensorProto.DataType.Name(init.data_type).lower(), tuple(init.dims))
    _validate_constants(path, graph.node if constants else (), folder)
    return unread


def _validate_constants(path: str, nodes, folder: Path | None) -> None:
    """The tensor values of the Constant nodes among ``nodes``."""
    for node in nodes:
        if node.op_type != "Constant":
            continue
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                validate_tensor(path, f"node {node.name or node.op_type!r} attribute {attr.name!r}:", attr.t, folder,
                                label=False)


def check_value_types(path: str, graph: onnx.GraphProto, what: str = "graph", subgraphs: bool = True) -> None:
    """A graph input, output or value_info whose tensor elem_type is no ONNX element type is bad input (exit 2):
    onnx's enum has no name for it, so nothing downstream can read it. ``subgraphs`` too, at any depth, in any
    attribute that holds one whatever its declared type (walk.graphs: a walk over every node's attributes)."""
    for steps, sub in walk.graphs(graph) if subgraphs else [((), graph)]:
        _check_graph_value_types(path, sub, f"{what} {walk.label(steps)}" if steps else what)


def _check_graph_value_types(path: str, graph: onnx.GraphProto, what: str) -> None:
    for section in ("input", "output", "value_info"):
        for info in getattr(graph, section):
            tproto = info.type
            while True:  # a tensor type, possibly inside sequence/optional types
                which = tproto.WhichOneof("value")
                if which in ("sequence_type", "optional_type"):
                    tproto = getattr(tproto, which).elem_type
                    continue
                break
            if which in ("tensor_type", "sparse_tensor_type"):
                et = getattr(tproto, which).elem_type
                if et and et not in _TYPES:
                    raise UserError(f"{path}: {what} {section} {info.name!r}: elem_type {et} is not an ONNX element "
                                    f"type (TensorProto.DataType: {min(_TYPES)}..{max(_TYPES)})")


def _check_inputs_typed(path: str, graph: onnx.GraphProto) -> None:
    """A tensor input of the main graph with elem_type 0 (UNDEFINED) is bad input (exit 2): nothing can be fed to
    it, and onnxruntime ('Invalid tensor data type 0') and OpenVINO refuse the model. (Subgraph inputs may leave
    their types to inference, so only the main graph's are held to this.)"""
    initialized = {init.name for init in graph.initializer}
    for info in graph.input:
        if info.name not in initialized and info.type.WhichOneof("value") == "tensor_type" \
                and info.type.tensor_type.elem_type == 0:
            raise UserError(f"{path}: graph input {info.name!r}: elem_type 0 (UNDEFINED): an input needs an element type")


def element_bytes(data_type: int, count: int) -> int:
    """Bytes of ``count`` elements of ``data_type`` stored densely (raw_data); sub-byte types packed."""
    if data_type in _BITS:
        return math.ceil(count * _BITS[data_type] / 8)
    return count * helper.tensor_dtype_to_np_dtype(data_type).itemsize


def validate_tensor(path: str, what: str, tensor: onnx.TensorProto, folder: Path | None, label: bool = True) -> int:
    """Check a tensor's metadata and data sizes without reading its values as numbers; its bytes. (Messages
    are made only when one is raised: a large model has thousands of tensors.)"""

    def bad(detail: str) -> UserError:
        where = f"{what} {tensor.name!r}:" if label else what
        return UserError(f"{path}: {where} {detail}")

    dt = tensor.data_type
    if dt not in _TYPES:
        raise bad(f"data_type {dt} is not an ONNX element type (TensorProto.DataType: "
                  f"{min(_TYPES)}..{max(_TYPES)})")
    dims = list(tensor.dims)
    if any(d < 0 for d in dims):
        raise bad(f"dims {dims}: a dimension is negative ({min(dims)}); dims must be >= 0")
    count = math.prod(dims)
    name = _TYPE_NAMES[dt]
    if dt == TensorProto.STRING:
        nbytes = 0
    else:
        nbytes = element_bytes(dt, count)
    if tensor.data_location == TensorProto.EXTERNAL:
        _check_external(tensor, folder, nbytes, bad, f"{name}{dims}")
        return nbytes
    present = [f for f in _DATA_FIELDS if len(getattr(tensor, f))]
    if tensor.HasField("raw_data"):
        present.append("raw_data")
    if len(present) > 1:
        raise bad(f"data in {' and '.join(present)}: a tensor holds its data in one field")
    if not present:
        if count:
            raise bad(f"no data: dims {dims} declare {count:,} elements, and no data field (raw_data, "
                      f"{_FIELD.get(dt, ('int32_data',))[0]}) or external data holds them")
        return 0
    (where_data,) = present
    if where_data == "raw_data":
        if dt == TensorProto.STRING:
            raise bad("raw_data for a string tensor: strings go in string_data")
        got = len(tensor.raw_data)
        if got != nbytes:
            raise bad(f"raw_data has {got:,} bytes; {name}{dims} takes {nbytes:,}")
        return nbytes
    expected_field, per = _FIELD.get(dt, ("int32_data", 1))
    if where_data != expected_field:
        raise bad(f"data in {where_data}; {name} data goes in {expected_field} (or raw_data)")
    entries = count * per
    if dt in _BITS:
        entries = math.ceil(count * _BITS[dt] / 8)  # packed: one byte of elements per int32_data entry
    got = len(getattr(tensor, where_data))
    if got != entries:
        raise bad(f"{where_data} has {got:,} entries; {name}{dims} takes {entries:,}")
    if dt == TensorProto.STRING:
        for i, value in enumerate(tensor.string_data):
            try:
                value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise bad(f"string_data[{i}] is not UTF-8 (byte {exc.start}); ONNX strings are UTF-8") from None
            nbytes += len(value)
    return nbytes


def _check_external(tensor, folder: Path | None, nbytes: int, bad, shown: str) -> None:
    """External data is not read: its location must be a regular file in the model's folder, long enough.

    The location is resolved as onnxruntime resolves it: its real path (symbolic links followed) must lie inside
    the model's folder; onnxruntime (1.30 and later; measured with 1.32.0) refuses one that does not ("External
    data path escapes model directory"), also through a link inside the folder. ``folder`` None (a model in
    memory, no file): the metadata alone is checked."""
    entries = {e.key: e.value for e in tensor.external_data}
    location = entries.get("location")
    if not location:
        raise bad("external data without a location")
    if "\x00" in location:
        raise bad(f"external data location {location!r} holds a NUL byte; a location is a file name")
    rel = Path(location)
    if rel.is_absolute() or ".." in rel.parts:
        raise bad(f"external data location {location!r}: must be a file inside the model's folder")
    try:
        offset = int(entries.get("offset", 0))
        length = int(entries["length"]) if "length" in entries else None
    except ValueError:
        raise bad(f"external data offset/length {entries.get('offset')!r}/{entries.get('length')!r}: not integers") from None
    if offset < 0 or (length is not None and length < 0):
        raise bad(f"external data offset {offset}, length {length}: must be >= 0")
    if length is not None and tensor.data_type != TensorProto.STRING and length != nbytes:
        raise bad(f"external data length {length:,}; {shown} takes {nbytes:,} bytes")
    if folder is None:
        return
    base = os.path.realpath(folder)
    real = os.path.realpath(os.path.join(base, location))
    if os.path.commonpath([base, real]) != base:
        raise bad(f"external data location {location!r} resolves to {real}, outside the model's folder {base} "
                  "(onnxruntime refuses it: 'External data path escapes model directory')")
    try:
        info = os.stat(real)
    except (OSError, ValueError) as exc:
        raise bad(f"cannot read the model's external data {location!r} ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise bad(f"external data {location!r}: not a regular file ({file_kind(info.st_mode)})")
    end = offset + (length if length is not None else nbytes)
    if info.st_size < end:
        raise bad(f"external data {location!r} has {info.st_size:,} bytes; offset {offset:,} + {end - offset:,} "
                  f"bytes of {shown} need {end:,}")


def validate_sparse(path: str, what: str, sparse: onnx.SparseTensorProto, folder: Path | None) -> int:
    """Check a sparse tensor's metadata (values, indices, dims) without reading values; its dense size in bytes."""
    name = sparse.values.name
    where = f"{what} {name!r}:"

    def bad(detail: str) -> UserError:
        return UserError(f"{path}: {where} {detail}")

    dims = list(sparse.dims)
    if any(d < 0 for d in dims):
        raise bad(f"dims {dims}: a dimension is negative ({min(dims)}); dims must be >= 0")
    validate_tensor(path, f"{what} {name!r} values", sparse.values, folder)
    validate_tensor(path, f"{what} {name!r} indices", sparse.indices, folder)
    nnz = math.prod(sparse.values.dims) if len(sparse.values.dims) == 1 else None
    if nnz is None:
        raise bad(f"values have dims {list(sparse.values.dims)}; a sparse tensor's values are 1-D [NNZ]")
    index_dims = list(sparse.indices.dims)
    if sparse.indices.data_type != TensorProto.INT64 or index_dims not in ([nnz], [nnz, len(dims)]):
        raise bad(f"indices {TensorProto.DataType.Name(sparse.indices.data_type).lower() if sparse.indices.data_type in _TYPES else sparse.indices.data_type}"
                  f"{index_dims}: indices are int64 [NNZ] or [NNZ, rank] (NNZ {nnz}, rank {len(dims)})")
    dense = math.prod(dims)
    if nnz > dense:
        raise bad(f"{nnz:,} values for dims {dims} of {dense:,} elements")
    return 0 if sparse.values.data_type == TensorProto.STRING else element_bytes(sparse.values.data_type, dense)


def without_data(model: onnx.ModelProto, unread: dict) -> onnx.ModelProto:
    """A copy of ``model`` whose unread initializers are graph inputs of the same type and shape."""
    graph = model.graph
    inputs = {i.name for i in graph.input}
    added = [helper.make_tensor_value_info(init.name, init.data_type, list(init.dims))
             for init in graph.initializer if init.name in unread and init.name not in inputs]
    kept = []
    for init in graph.initializer:
        if init.name not in unread:
            copy = onnx.TensorProto()
            copy.CopyFrom(init)
            kept.append(copy)
    del graph.initializer[:]  # ``model`` is ours: copy it without the data, whose arena goes with it
    out = onnx.ModelProto()
    out.CopyFrom(model)
    out.graph.initializer.extend(kept)
    out.graph.input.extend(added)
    return out


# --load-inputs DIR / --load-outputs DIR: onnx's own test data layout


@dataclass(frozen=True)
class LoadedArray:
    """One array of a test data set, as model_inputs.load_arrays' members: dtype, shape, read()."""

    dtype: object
    shape: tuple
    array: object

    def read(self):
        return self.array


def read_test_data_set(option: str, folder, prefix: str, names: list[str], budget: int) -> dict[str, LoadedArray]:
    """{name: array} of one ``test_data_set_N`` folder in onnx's layout (onnx/backend/test/data/*/*/test_data_set_N,
    as onnx's onnx_test_runner and the model zoo ship them): ``PREFIX_K.pb`` (input_K.pb, output_K.pb) is a
    serialized TensorProto, the K-th of ``names`` (the model's inputs or outputs, in order); none where ``names`` is
    empty (a model without inputs: onnx's test_constant folder holds output_0.pb alone). Untrusted, read
    bounded: each file a regular file, their bytes times READ_FACTOR within ``budget``, each tensor checked
    (validate_tensor: sizes against dims, no external data) before numpy_helper.to_array reads it."""
    from onnx import numpy_helper

    folder = Path(folder)
    pattern = f"{prefix}_"
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:
        raise UserError(f"{option} {folder}: cannot read ({exc.strerror or exc})") from None
    files = {}
    for entry in entries:
        stem, dot, ext = entry.name.partition(".")
        if not (stem.startswith(pattern) and ext == "pb" and stem[len(pattern):].isdigit()):
            continue
        k = int(stem[len(pattern):])
        if k >= len(names):
            raise UserError(f"{option} {entry}: the model has {len(names)} {prefix}s ({', '.join(map(repr, names))}); "
                            f"{prefix}_K.pb is the K-th, from 0")
        files[k] = entry
    if not files and names:  # (a model without inputs: onnx ships no input_K.pb, test_constant's folder)
        raise UserError(f"{option} {folder}: no {prefix}_K.pb file (onnx's test_data_set layout: {prefix}_0.pb, "
                        f"{prefix}_1.pb, ... in the model's {prefix} order)")
    found, total = {}, 0
    for k, file in sorted(files.items()):
        try:
            info = file.stat()
        except OSError as exc:
            raise UserError(f"{option} {file}: cannot read ({exc.strerror or exc})") from None
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{option} {file}: not a regular file")
        total += READ_FACTOR * info.st_size
        if total > budget or info.st_size > PROTOBUF_LIMIT:
            raise UserError(f"{option} {folder}: its {prefix} files take more than the memory budget "
                            f"({describe_budget(budget)})")
        try:
            with open(file, "rb") as handle:
                data = handle.read(info.st_size + 1)
        except OSError as exc:
            raise UserError(f"{option} {file}: cannot read ({exc.strerror or exc})") from None
        if len(data) != info.st_size:
            raise UserError(f"{option} {file}: changed while read")
        tensor = TensorProto()
        try:
            tensor.ParseFromString(data)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError (and RuntimeWarning-like errors): not a tensor
            raise UserError(f"{option} {file}: not a serialized TensorProto") from None
        validate_tensor(f"{option} {file}", "tensor", tensor, None, label=False)
        if tensor.data_type == TensorProto.STRING:
            array = np.array([s.decode("utf-8") for s in tensor.string_data], dtype=str).reshape(tuple(tensor.dims))
        else:
            array = numpy_helper.to_array(tensor)
        found[names[k]] = LoadedArray(array.dtype, tuple(array.shape), array)
    return found
