"""`check` infers types once per group of equal nodes (targets/model_view.grouped_view) instead of running onnx's
shape inference on the whole model: it must give the same types, shapes, constants and verdicts as whole-model
inference on every model it accepts (here: onnx's own node test models and real models shipped with onnx, also with
the value_info a previous shape inference wrote into them, and generated chains), and decline models whose node
types depend on more than a group holds (data propagation, subgraphs, functions)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import given, settings, strategies as st
from onnx import TensorProto, helper

from spec2onnx.targets.check import check_model
from spec2onnx.targets.model_view import ModelView, _constant_key, grouped_view
from spec2onnx.targets.profiles import PROFILES

TARGETS = sorted(PROFILES)


def _names(model):
    g = model.graph
    names = {i.name for i in g.input} | {o.name for o in g.output} | {t.name for t in g.initializer}
    for node in g.node:
        names.update(node.input)
        names.update(node.output)
    names.discard("")
    return names


def same_as_whole_model(model, groups=None) -> bool:
    """Asserts grouped_view agrees with whole-model inference; False when it declined the model."""
    fast = grouped_view(model, groups=groups)
    if fast is None:
        return False
    full = ModelView(model)
    for name in _names(model):
        assert (fast.types.get(name), fast.shapes.get(name)) == (full.types.get(name), full.shapes.get(name)), name
    assert fast.constants.keys() == full.constants.keys()
    for name, value in full.constants.items():
        assert _constant_key(fast.constants[name]) == _constant_key(value)
    assert fast.graph_io == full.graph_io
    for target in TARGETS:
        assert [(p.node, p.reason, p.severity) for p in check_model(model, target, view=fast)] == \
               [(p.node, p.reason, p.severity) for p in check_model(model, target, view=full)], target
    return True


def _checked(model) -> bool:
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError:
        return False
    return True


def _node_models():
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [c.model for c in collect_testcases(None)]


def test_onnx_node_test_models():
    accepted = declined = 0
    for model in _node_models():
        if not _checked(model):
            continue
        if same_as_whole_model(model):
            accepted += 1
        else:
            declined += 1
        # the same model with every intermediate type declared (value_info), as a previous inference leaves it
        try:
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
        except Exception:  # noqa: BLE001 - models onnx cannot infer are covered above
            continue
        if inferred.graph.value_info and _checked(inferred):
            same_as_whole_model(inferred)
    assert accepted > 1000 and declined > 50, (accepted, declined)  # most are simple graphs; Loop/If/Shape decline


def test_real_models_shipped_with_onnx():
    folder = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    models = sorted(folder.glob("*.onnx"))
    assert models
    for path in models:
        model = onnx.load(path)
        assert _checked(model)
        # a Conv reading its own weights (distinct constants) is a group of its own: check may decline such a model
        # as slower than whole-model inference; here every group is inferred on its own, to compare
        assert same_as_whole_model(model, groups=10**6), path


def test_declines_what_a_group_does_not_determine():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    shape = helper.make_graph([helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Reshape", ["x", "s"], ["y"])],
                              "g", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    assert grouped_view(helper.make_model(shape, opset_imports=[helper.make_opsetid("", 17)])) is None
    body = helper.make_graph([helper.make_node("Identity", ["x"], ["z"])], "b", [],
                             [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    branch = helper.make_graph([helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)], "g",
                               [x, cond], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    assert grouped_view(helper.make_model(branch, opset_imports=[helper.make_opsetid("", 17)])) is None


def test_constant_values_reach_inference():
    """Two Reshapes alike but for the Constant shape they read: different groups, each its own inferred shape."""
    nodes, outputs = [], []
    for i, dims in enumerate(([2, 2], [4, 1], [2, 2])):
        nodes += [helper.make_node("Constant", [], [f"s{i}"], value=helper.make_tensor("v", TensorProto.INT64, [2], dims)),
                  helper.make_node("Reshape", ["x", f"s{i}"], [f"y{i}"])]
        outputs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])], outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    assert same_as_whole_model(model)
    view = grouped_view(model)
    assert [view.shapes.get(f"y{i}") for i in range(3)] == [(2, 2), (4, 1), (2, 2)]  # hand-computed
    assert len([g for g in view.groups() if g[0].op == "Reshape"]) == 2


def test_a_model_without_value_info_gets_inferred_types():
    """The types a verdict reads come from inference where the file declares none: a float16 Celu chain (no kernel
    on ort-cpu for float16 Celu, onnxruntime's registry) is refused at every Celu, though only x is typed."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Celu", ["a"], ["b"]),
             helper.make_node("Relu", ["b"], ["c"]), helper.make_node("Celu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    view = grouped_view(model)
    assert view is not None and not model.graph.value_info
    assert view.types.get("b") == "float16" and view.shapes.get("c") == (2, 3)
    assert same_as_whole_model(model)


OPS = {"Relu": 1, "Add": 2, "Mul": 2, "Neg": 1, "Sigmoid": 1, "Celu": 1, "Cast": 1, "Transpose": 1, "MatMul": 2}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 2), st.sampled_from(["float", "float16", "int32"])),
                min_size=1, max_size=12),
       st.sampled_from([[2, 3], [3, 3], ["N", 3], [1, 3, 3]]))
def test_generated_chains(steps, shape):
    """Chains of ops with constants, casts and transposes, typed only at the graph input: equal to whole-model."""
    nodes, inits, prev = [], [], "x"
    for i, (op, which, to) in enumerate(steps):
        out = f"t{i}"
        if op == "Cast":
            nodes.append(helper.make_node(op, [prev], [out], to=helper.np_dtype_to_tensor_dtype(np.dtype(
                {"float": "float32"}.get(to, to)))))
        elif op == "Transpose":
            nodes.append(helper.make_node(op, [prev], [out]))
        elif OPS[op] == 2:
            other = [prev, f"c{which}", "x"][which]
            if other.startswith("c") and other not in {t.name for t in inits}:
                inits.append(helper.make_tensor(other, TensorProto.FLOAT, [3], [0.5, 1.0, 2.0]))
            nodes.append(helper.make_node(op, [prev, other], [out]))
        else:
            nodes.append(helper.make_node(op, [prev], [out]))
        prev = out
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(prev, TensorProto.UNDEFINED, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    if _checked(model) and not same_as_whole_model(model):
        # declined only where some node reads a tensor whole-model inference leaves untyped (a refused Add of int32)
        full = ModelView(model)
        assert any(full.types.get(name) is None for node in model.graph.node for name in node.input)
