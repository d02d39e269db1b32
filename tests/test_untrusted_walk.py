"""converter/untrusted/walk.py: the one walk over an untrusted graph (issue 32 item 3), and the holes the three walkers
it replaced left open, each closed where the walk is used (run's reading, validation, onnx's checker's copy).

The property builds graphs of nested subgraphs (If/Loop/Scan bodies) held by attributes of their type, of UNDEFINED
type or of another type altogether, with tensors in initializers, tensor attributes, sparse tensors (attributes and
sparse initializers) and external data, and counts what it builds as it builds it: the walk must visit exactly that.
"""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from converter.cli import main
from converter.errors import UserError
from converter.targets.checker import findings, strip_external_data
from converter.untrusted import walk
from converter.untrusted.reading import read_model_with_data

A = AttributeProto


class Built:
    """What a drawn model holds, counted while it is built."""

    def __init__(self):
        self.names = itertools.count()
        self.tensors: list[str] = []  # every TensorProto's name (a sparse tensor's values and indices: two)
        self.external: list[str] = []
        self.sparse: list[str] = []
        self.graphs: list[str] = []

    def tensor(self, external: bool) -> TensorProto:
        name = f"t{next(self.names)}"
        tensor = numpy_helper.from_array(np.arange(2, dtype=np.float32), name)
        if external:
            tensor.ClearField("raw_data")
            tensor.data_location = TensorProto.EXTERNAL
            tensor.external_data.add(key="location", value="w.bin")
            self.external.append(name)
        self.tensors.append(name)
        return tensor

    def sparse_tensor(self, external: tuple) -> onnx.SparseTensorProto:
        values, indices = self.tensor(external[0]), self.tensor(external[1])
        indices.data_type = TensorProto.INT64
        sparse = onnx.SparseTensorProto(values=values, indices=indices, dims=[4])
        self.sparse.append(values.name)
        return sparse


# an attribute: which field it fills, and the type it declares (its own, UNDEFINED, or a wrong one: INT)
FIELDS = ("t", "tensors", "sparse_tensor", "sparse_tensors", "g", "graphs")
OWN_TYPE = {"t": A.TENSOR, "tensors": A.TENSORS, "sparse_tensor": A.SPARSE_TENSOR, "sparse_tensors": A.SPARSE_TENSORS,
            "g": A.GRAPH, "graphs": A.GRAPHS}


@st.composite
def graph_plans(draw, depth=0):
    """A plan: (initializers: [external], sparse initializers: [(external, external)], nodes: [(op, [attribute])]),
    an attribute (field, declared type, content): a tensor's external flag, a list of them, or subgraph plans."""
    flags = st.lists(st.booleans(), max_size=2)
    pairs = st.lists(st.tuples(st.booleans(), st.booleans()), max_size=2)
    fields = FIELDS if depth < 3 else FIELDS[:4]
    attribute = st.sampled_from(fields).flatmap(lambda f: st.tuples(
        st.just(f), st.sampled_from(["own", "UNDEFINED", "INT"]),
        st.booleans() if f == "t" else flags if f == "tensors" else st.tuples(st.booleans(), st.booleans())
        if f == "sparse_tensor" else pairs if f == "sparse_tensors" else graph_plans(depth + 1) if f == "g"
        else st.lists(graph_plans(depth + 1), max_size=2)))
    nodes = st.lists(st.tuples(st.sampled_from(["If", "Loop", "Scan", "Constant", "Relu"]),
                               st.lists(attribute, max_size=3)), max_size=3)
    return draw(flags), draw(pairs), draw(nodes)


def build(plan, built: Built, name: str = "main") -> onnx.GraphProto:
    inits, sparse, nodes = plan
    graph = onnx.GraphProto(name=name)
    built.graphs.append(name)
    graph.initializer.extend(built.tensor(e) for e in inits)
    graph.sparse_initializer.extend(built.sparse_tensor(e) for e in sparse)
    for i, (op, attributes) in enumerate(nodes):
        node = graph.node.add(op_type=op, name=f"{name}.n{i}")
        for j, (fname, declared, content) in enumerate(attributes):
            attr = node.attribute.add(name=f"a{j}")
            attr.type = OWN_TYPE[fname] if declared == "own" else A.UNDEFINED if declared == "UNDEFINED" else A.INT
            if fname == "t":
                attr.t.CopyFrom(built.tensor(content))
            elif fname == "tensors":
                attr.tensors.extend(built.tensor(e) for e in content)
            elif fname == "sparse_tensor":
                attr.sparse_tensor.CopyFrom(built.sparse_tensor(content))
            elif fname == "sparse_tensors":
                attr.sparse_tensors.extend(built.sparse_tensor(e) for e in content)
            elif fname == "g":
                attr.g.CopyFrom(build(content, built, f"{name}.n{i}.a{j}"))
            else:
                attr.graphs.extend(build(p, built, f"{name}.n{i}.a{j}.{k}") for k, p in enumerate(content))
    return graph


@settings(max_examples=150, deadline=None)
@given(graph_plans())
def test_the_walk_visits_exactly_the_tensors_sparse_tensors_and_graphs_built(plan):
    built = Built()
    graph = build(plan, built)
    assert sorted(t.name for _, t in walk.tensors(graph)) == sorted(built.tensors)
    assert sorted(t.name for _, t in walk.external(graph)) == sorted(built.external)
    assert sorted(i.value.values.name for i in walk.walk(graph) if i.kind == walk.SPARSE) == sorted(built.sparse)
    assert sorted(g.name for _, g in walk.graphs(graph)) == sorted(built.graphs)
    assert [(s, g.name) for s, g in walk.graphs(graph)][1:] == \
           [(i.steps, i.value.name) for i in walk.walk(graph) if i.kind == walk.GRAPH]  # the same steps, in order
    # own=False leaves out the walked graph's own initializers and sparse initializers, not its subgraphs'
    own = {init.name for init in graph.initializer} | {s.values.name for s in graph.sparse_initializer} | \
          {s.indices.name for s in graph.sparse_initializer}
    assert sorted(t.name for _, t in walk.tensors(graph, own=False)) == sorted(set(built.tensors) - own)


@settings(max_examples=100, deadline=None)
@given(graph_plans())
def test_stripping_external_data_leaves_none_anywhere(plan):
    built = Built()
    graph = build(plan, built)
    assert strip_external_data(graph) == bool(built.external)
    assert not any(t.data_location == TensorProto.EXTERNAL or len(t.external_data) for _, t in walk.tensors(graph))
    assert sorted(t.name for _, t in walk.tensors(graph)) == sorted(built.tensors)  # emptied, not removed


def test_labels_name_each_node_attribute_and_subgraph_on_the_way():
    inner = helper.make_graph([helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", 1, [1], [1.0]))],
                              "body", [], [])
    inner.initializer.append(helper.make_tensor("w", TensorProto.FLOAT, [1], [2.0]))
    outer = helper.make_graph([helper.make_node("If", ["x"], ["y"], name="branching", then_branch=inner)], "g", [], [])
    outer.node[0].attribute[0].type = A.UNDEFINED
    labels = {(item.kind, walk.label(item.steps, item.field)) for item in walk.walk(outer)}
    assert labels == {
        ("graph", "node branching (If) attribute 'then_branch' (graph 'body')"),
        ("tensor", "node branching (If) attribute 'then_branch' (graph 'body') initializer"),
        ("tensor", "node branching (If) attribute 'then_branch' (graph 'body') node #0 (Constant) attribute 'value'"),
    }


# ---- each former walker's blind spot, where it was used ------------------------------------------------------------

def _model(graph: onnx.GraphProto) -> onnx.ModelProto:
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _sparse_model(location: str) -> onnx.ModelProto:
    """y = x + dense(sparse initializer s): its values in external data at ``location``."""
    values = numpy_helper.from_array(np.array([5.0, 7.0], np.float32), "s")
    values.ClearField("raw_data")
    values.data_location = TensorProto.EXTERNAL
    values.external_data.add(key="location", value=location)
    values.external_data.add(key="length", value="8")
    indices = numpy_helper.from_array(np.array([1, 3], np.int64), "s_idx")
    sparse = onnx.SparseTensorProto(values=values, indices=indices, dims=[4])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("Add", ["x", "s"], ["y"])], "g", [x], [y])
    graph.sparse_initializer.append(sparse)
    return _model(graph)


def test_run_reads_a_sparse_initializers_external_data(tmp_path):
    # reading.py's walker had no sparse tensors: run handed the runtimes a model whose sparse values named a file
    # they resolve against their own folder (or refuse)
    (tmp_path / "w.bin").write_bytes(np.array([5.0, 7.0], np.float32).tobytes())
    onnx.save(_sparse_model("w.bin"), tmp_path / "m.onnx")
    model, total, _, files = read_model_with_data(tmp_path / "m.onnx")
    values = model.graph.sparse_initializer[0].values
    assert total == 8 and [f.name for f in files] == ["w.bin"]
    assert values.data_location == TensorProto.DEFAULT
    assert numpy_helper.to_array(values).tolist() == [5.0, 7.0]


def test_run_refuses_a_sparse_initializers_external_data_outside_the_folder(tmp_path):
    (tmp_path / "secret.bin").write_bytes(bytes(8))
    (tmp_path / "m").mkdir()
    onnx.save(_sparse_model("../secret.bin"), tmp_path / "m" / "m.onnx")
    with pytest.raises(UserError, match=r"sparse initializer 's' values 's': external data location '\.\./secret\.bin': "
                                        r"must be a file inside the model's folder"):
        read_model_with_data(tmp_path / "m" / "m.onnx")


def test_run_refuses_a_malformed_sparse_initializer(tmp_path):
    model = _sparse_model("w.bin")
    sparse = model.graph.sparse_initializer[0]
    sparse.values.CopyFrom(numpy_helper.from_array(np.array([5.0, 7.0], np.float32), "s"))
    sparse.indices.CopyFrom(numpy_helper.from_array(np.array([1, 3, 2], np.int64), "s_idx"))  # 3 indices, 2 values
    onnx.save(model, tmp_path / "m.onnx")
    with pytest.raises(UserError, match=r"sparse initializer 's': indices int64\[3\]: indices are int64 \[NNZ\]"):
        read_model_with_data(tmp_path / "m.onnx")


def _undefined_if(body: onnx.GraphProto) -> onnx.ModelProto:
    """An If whose then_branch attribute declares no type (UNDEFINED) and holds ``body``."""
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    other = helper.make_graph([helper.make_node("Constant", [], ["o"], value=helper.make_tensor("k", 1, [1], [0.0]))],
                              "other", [], [helper.make_tensor_value_info("o", TensorProto.FLOAT, [1])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=other)
    (then,) = [a for a in node.attribute if a.name == "then_branch"]
    then.type = A.UNDEFINED
    return _model(helper.make_graph([node], "g", [c], [y]))


def _body_with(tensor: TensorProto) -> onnx.GraphProto:
    return helper.make_graph([helper.make_node("Identity", [tensor.name], ["b"])], "body", [],
                             [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])], [tensor])


def test_run_reads_external_data_in_an_undefined_typed_attributes_graph(tmp_path):
    # reading.py's walker entered GRAPH and GRAPHS attributes only
    w = numpy_helper.from_array(np.array([3.0], np.float32), "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="w.bin")
    (tmp_path / "w.bin").write_bytes(np.array([3.0], np.float32).tobytes())
    onnx.save(_undefined_if(_body_with(w)), tmp_path / "m.onnx")
    model, total, _, _ = read_model_with_data(tmp_path / "m.onnx")
    (then,) = [a for a in model.graph.node[0].attribute if a.name == "then_branch"]
    loaded = then.g.initializer[0]
    assert total == 4 and numpy_helper.to_array(loaded).tolist() == [3.0]


def test_check_validates_tensors_in_an_undefined_typed_attributes_graph(tmp_path):
    # validation's walker entered GRAPH and GRAPHS attributes only: the malformed initializer went unseen
    bad = helper.make_tensor("w", TensorProto.FLOAT, [1], [1.0])
    bad.dims[0] = 2  # dims [2], one value
    onnx.save(_undefined_if(_body_with(bad)), tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", "ort-cpu"])
    assert result.exit_code == 2, result.output
    assert "node #0 (If) attribute 'then_branch' (graph 'body') initializer 'w': float_data has 1 entries; " \
           "float[2] takes 2" in result.output


def test_the_checkers_copy_has_no_sparse_external_data(tmp_path):
    # checker.py's walker had no sparse tensors: onnx's checker looked for the values' file in the current folder
    model = _sparse_model("w.bin")
    data = model.SerializeToString()
    assert any("should be stored in" in f.text for f in findings(data, None))  # the checker alone refuses it
    assert findings(data, model) == [findings(data, model)[0]] and findings(data, model)[0].tolerated
