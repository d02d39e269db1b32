"""Node attributes as the target rules read them: decoded once, checked against the op's schema, typed.

``decode(attr, expected)`` turns an AttributeProto into a plain Python value (int, float, str, a list of
them, a TensorProto, a GraphProto, ...) only when the attribute's declared type is the one ``expected``
(the schema's type; any known type where the op has no schema); else ``INVALID``. converter/targets/
model_view.py builds ``NodeView.attrs`` with it, so an attribute of the wrong type (``axis`` given as a
string, ``perm`` as floats) never reaches a rule: converter/targets/validation.py reports it as a
refusal, and the rules see the schema's default instead.

The rules read ``NodeView.attrs`` only through the readers below, one per attribute type, each returning
the value in its type or the default (tests/targets/test_validation.py greps that no rule in targets/
reads an attribute another way). A value of the right type may still be out of range (``axis=2**62``):
``axis`` normalizes an axis against a rank and returns None outside [-rank, rank - 1].
"""

from __future__ import annotations

from pathlib import Path

from onnx import AttributeProto, GraphProto, NodeProto, SparseTensorProto, TensorProto

INVALID = object()  # decode(): the attribute's declared type is not the expected one

A = AttributeProto
TYPE_NAMES = {v: k for k, v in A.AttributeType.items()}  # 1 -> "FLOAT", ...


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


_DECODERS = {
    A.FLOAT: lambda a: float(a.f), A.INT: lambda a: int(a.i), A.STRING: lambda a: _text(a.s),
    A.TENSOR: lambda a: a.t, A.GRAPH: lambda a: a.g, A.SPARSE_TENSOR: lambda a: a.sparse_tensor,
    A.TYPE_PROTO: lambda a: a.tp,
    A.FLOATS: lambda a: [float(v) for v in a.floats], A.INTS: lambda a: [int(v) for v in a.ints],
    A.STRINGS: lambda a: [_text(v) for v in a.strings], A.TENSORS: lambda a: list(a.tensors),
    A.GRAPHS: lambda a: list(a.graphs), A.SPARSE_TENSORS: lambda a: list(a.sparse_tensors),
    A.TYPE_PROTOS: lambda a: list(a.type_protos),
}


def decode(attr: AttributeProto, expected: int | None = None):
    """The attribute's value when its declared type is ``expected`` (None: any known type), else INVALID."""
    if attr.type not in _DECODERS or (expected is not None and attr.type != expected):
        return INVALID
    return _DECODERS[attr.type](attr)


def constant_tensor(node: NodeProto) -> tuple[int, list] | None:
    """(element type, dims) of the tensor onnxruntime makes of a Constant node when it loads the graph: from the
    node's FIRST attribute, by that attribute's type, whatever its name (onnxruntime/core/framework/
    tensorprotoutils.cc, ConstantNodeProtoToTensorProto); None where it makes none (no attribute, or a type it
    refuses: a graph)."""
    if not len(node.attribute):
        return None
    first = node.attribute[0]
    if first.type == A.TENSOR:
        return first.t.data_type, list(first.t.dims)
    if first.type == A.SPARSE_TENSOR:
        return first.sparse_tensor.values.data_type, list(first.sparse_tensor.dims)
    scalar = {A.FLOAT: TensorProto.FLOAT, A.INT: TensorProto.INT64, A.STRING: TensorProto.STRING}
    if first.type in scalar:
        return scalar[first.type], []
    listed = {A.FLOATS: (TensorProto.FLOAT, "floats"), A.INTS: (TensorProto.INT64, "ints"),
              A.STRINGS: (TensorProto.STRING, "strings")}
    if first.type in listed:
        elem, field_name = listed[first.type]
        return elem, [len(getattr(first, field_name))]
    return None


def type_name(attr_type: int) -> str:
    return TYPE_NAMES.get(attr_type, f"type {attr_type}")


# ---- the readers: NodeView.attrs (validated) -> the value in its type, or the default -------------------------

def _read(node, name, default, check):
    value = node.attrs.get(name, default)
    return value if check(value) else default


def _is_int(v) -> bool:
    return type(v) is int


def _is_float(v) -> bool:
    return type(v) in (float, int)


def int_attr(node, name: str, default=None):
    return _read(node, name, default, _is_int)


def float_attr(node, name: str, default=None):
    value = _read(node, name, default, _is_float)
    return float(value) if type(value) is int else value


def string_attr(node, name: str, default=None):
    return _read(node, name, default, lambda v: type(v) is str)


def ints_attr(node, name: str, default=None):
    return _read(node, name, default, lambda v: type(v) is list and all(_is_int(x) for x in v))


def floats_attr(node, name: str, default=None):
    return _read(node, name, default, lambda v: type(v) is list and all(_is_float(x) for x in v))


def strings_attr(node, name: str, default=None):
    return _read(node, name, default, lambda v: type(v) is list and all(type(x) is str for x in v))


def tensor_attr(node, name: str, default=None):
    return _read(node, name, default, lambda v: isinstance(v, (TensorProto, SparseTensorProto)))


def graph_attr(node, name: str, default=None):
    return _read(node, name, default, lambda v: isinstance(v, GraphProto))


def value_attr(node, name: str, default=None):
    """Any validated value (the data-driven limits of converter/targets/profiles.py compare it with listed values)."""
    return node.attrs.get(name, default)


def is_set(node, name: str) -> bool:
    """Whether the node itself sets ``name`` (with a value of the schema's type), not only its schema default."""
    return name in node.explicit


def explicit_values(node) -> dict:
    """The attributes the node itself sets (validated), plain values only (numbers, strings, lists of them)."""
    return {name: node.attrs[name] for name in node.explicit if isinstance(node.attrs.get(name), (int, float, str, list))}


def axis(value, rank) -> int | None:
    """``value`` (an int attribute or None) as an axis in [0, rank), negative counted from the end; None when the
    rank is unknown, the value is not an int, or it lies outside [-rank, rank - 1]."""
    if rank is None or type(value) is not int or not -rank <= value < rank:
        return None
    return value + rank if value < 0 else value


# ---- the table of attribute values (validation's enumerations and bounds; its "unsafe" rows, the values onnx's
# inference crashes or hangs on, are converter/untrusted/infer.py's, with the bounds ``within``) ------------------

TABLE = Path(__file__).parent / "tables" / "attribute-values.json"
