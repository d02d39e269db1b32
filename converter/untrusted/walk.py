"""The one walk over what an untrusted ONNX graph holds: its subgraphs, its tensors, its sparse tensors.

Every reader of an untrusted file that looks past the main graph's nodes goes through here: the reading of
``run MODEL`` (external data to load, converter/untrusted/reading.py), the value types of subgraphs
(``check_value_types``), the validation of every tensor of a node (converter/targets/validation.py), onnx's
checker run without external data (converter/targets/checker.py), the screen of the attribute values onnx's shape
inference crashes or hangs on (converter/untrusted/infer.py). Before this module there were three walkers that
disagreed: one looked into UNDEFINED-typed attributes, one into sparse tensors, none into both (issue 32).

What the walk takes as held, whatever an attribute's declared ``type`` says (the union of the safest rules):

* **subgraphs**: ``g`` and ``graphs`` of an attribute of any type. onnx's shape inference takes the subgraph of
  any attribute that has ``g`` (InferenceContextImpl: ``attr.has_g()``), an UNDEFINED-typed one included, so a
  reader that trusts the type misses what inference then reads;
* **tensors**: ``t`` and ``tensors`` of an attribute of any type, and every graph's ``initializer``;
* **sparse tensors**: ``sparse_tensor`` and ``sparse_tensors`` of an attribute of any type, and every graph's
  ``sparse_initializer``; a sparse tensor's ``values`` and ``indices`` are tensors too (either may name external
  data);
* **external data**: a tensor whose ``data_location`` is EXTERNAL, wherever it is (``external``).

An attribute's fields are read by presence (``HasField``, a repeated field's length), a few hundred nanoseconds
per attribute: the walks over every node run where the file says there is something to find (reading.py looks
for the bytes ``location`` first) or per group of equal nodes (validation).

Each item comes with its ``steps``: the (node index, node, attribute, subgraph) chain that leads to it, which
``label`` turns into the words messages use: ``node #0 (If) attribute 'then_branch' (graph 'g') node w (Constant)
attribute 'value'``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from onnx import AttributeProto, GraphProto, NodeProto, TensorProto

TENSOR, SPARSE, GRAPH = "tensor", "sparse", "graph"  # Item.kind
INITIALIZER, SPARSE_INITIALIZER, ATTRIBUTE = "initializer", "sparse initializer", "attribute"  # Item.field


@dataclass(frozen=True)
class Step:
    """One node on the way to an item: its index in its graph, the node, the attribute, and the subgraph of that
    attribute the walk entered (None: the attribute itself holds the item)."""

    index: int
    node: NodeProto
    attribute: str
    graph: GraphProto | None = None


@dataclass(frozen=True)
class Item:
    kind: str  # TENSOR, SPARSE or GRAPH
    value: object  # a TensorProto, SparseTensorProto or GraphProto
    field: str  # INITIALIZER, SPARSE_INITIALIZER or ATTRIBUTE (a subgraph: ATTRIBUTE)
    steps: tuple = ()  # the Steps from the walked graph to the item

    def tensors(self) -> tuple:
        """The TensorProtos of the item: a tensor itself; a sparse tensor's values and indices; none for a graph."""
        if self.kind == TENSOR:
            return (self.value,)
        if self.kind == SPARSE:
            return (self.value.values, self.value.indices)
        return ()


def subgraphs(attr: AttributeProto) -> list[GraphProto]:
    """The graphs an attribute holds, whatever its declared type (``g``, then ``graphs``)."""
    found = [attr.g] if attr.HasField("g") else []
    if len(attr.graphs):
        found.extend(attr.graphs)
    return found


def has_subgraph(node: NodeProto) -> bool:
    """Whether some attribute of ``node`` holds a graph (whatever its declared type)."""
    return any(attr.HasField("g") or len(attr.graphs) for attr in node.attribute)


def attribute_items(index: int, node: NodeProto, attr: AttributeProto, steps: tuple = (),
                    into: bool = True) -> Iterator[Item]:
    """What ``attr`` of ``node`` (the ``index``-th of its graph) holds: its tensors, its sparse tensors, its
    subgraphs, and (``into``) everything in them, depth first, in the order of the fields."""
    here = steps + (Step(index, node, attr.name),)
    if attr.HasField("t"):
        yield Item(TENSOR, attr.t, ATTRIBUTE, here)
    for tensor in attr.tensors:
        yield Item(TENSOR, tensor, ATTRIBUTE, here)
    if attr.HasField("sparse_tensor"):
        yield Item(SPARSE, attr.sparse_tensor, ATTRIBUTE, here)
    for sparse in attr.sparse_tensors:
        yield Item(SPARSE, sparse, ATTRIBUTE, here)
    for graph in subgraphs(attr):
        inner = steps + (Step(index, node, attr.name, graph),)
        yield Item(GRAPH, graph, ATTRIBUTE, inner)
        if into:
            yield from walk(graph, inner)


def walk(graph: GraphProto, steps: tuple = (), own: bool = True) -> Iterator[Item]:
    """Every item ``graph`` holds, its subgraphs' at any depth: (``own``) its initializers and sparse initializers,
    then each node's attributes in order (``attribute_items``). ``own`` False: the graph's own initializers and
    sparse initializers are left out (the caller reads them), its subgraphs' are not."""
    if own:
        for init in graph.initializer:
            yield Item(TENSOR, init, INITIALIZER, steps)
        for sparse in graph.sparse_initializer:
            yield Item(SPARSE, sparse, SPARSE_INITIALIZER, steps)
    for i, node in enumerate(graph.node):
        if not len(node.attribute):
            continue
        for attr in node.attribute:
            yield from attribute_items(i, node, attr, steps)


def graphs(graph: GraphProto, steps: tuple = ()) -> Iterator[tuple[tuple, GraphProto]]:
    """(steps, graph) of ``graph`` itself and of each of its subgraphs, at any depth, in ``walk``'s order (only the
    graph fields are read: what ``walk`` yields of kind GRAPH)."""
    yield steps, graph
    for i, node in enumerate(graph.node):
        for attr in node.attribute:
            for sub in subgraphs(attr):
                yield from graphs(sub, steps + (Step(i, node, attr.name, sub),))


def tensors(graph: GraphProto, own: bool = True) -> Iterator[tuple[Item, TensorProto]]:
    """(item, tensor) of every TensorProto ``graph`` holds, a sparse tensor's values and indices included."""
    for item in walk(graph, own=own):
        for tensor in item.tensors():
            yield item, tensor


def external(graph: GraphProto, own: bool = True) -> Iterator[tuple[Item, TensorProto]]:
    """(item, tensor) of every tensor that names external data (data_location EXTERNAL)."""
    return ((item, t) for item, t in tensors(graph, own) if t.data_location == TensorProto.EXTERNAL)


def label(steps: tuple, field: str = "") -> str:
    """The words a message names an item's place with: ``node NAME (Op) attribute 'a'`` for each step (a node's
    name, or ``#index`` where it has none), `` (graph 'NAME')`` after a subgraph's, then ``field`` (``initializer``,
    ``sparse initializer``; nothing for an attribute's own)."""
    parts = []
    for step in steps:
        parts.append(f"node {step.node.name or f'#{step.index}'} ({step.node.op_type}) attribute {step.attribute!r}")
        if step.graph is not None:
            parts.append(f"(graph {step.graph.name!r})")
    if field and field != ATTRIBUTE:
        parts.append(field)
    return " ".join(parts)

