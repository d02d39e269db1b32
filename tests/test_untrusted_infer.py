"""converter/untrusted/infer.py: the one call of onnx's shape inference (issue 32 item 3), its safety rule (the
tabled hazards at any depth, the size limit, the time limit) and the scan that keeps it the only one."""

from __future__ import annotations

import ast
import subprocess
import sys
import time

import onnx
import pytest
from onnx import AttributeProto, TensorProto, helper

from converter.untrusted import infer as infer_module
from converter.untrusted.infer import InferenceError, NotInferred, infer

from .conftest import REPO, child_env

PACKAGE = REPO / "converter"
INFER = PACKAGE / "untrusted" / "infer.py"


def _calls_shape_inference(tree: ast.AST) -> list[int]:
    """Lines that reach onnx's shape inference: ``*.shape_inference`` (a call, an exception class: every use goes
    through infer.py), an import of it, ``check_model(..., full_check=...)`` (which runs it)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "shape_inference":
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and ("shape_inference" in (node.module or "")
                                                   or any("shape_inference" in a.name for a in node.names)):
            lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any("shape_inference" in a.name for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and any(k.arg == "full_check" for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_infer_py_is_the_only_file_of_the_package_that_calls_onnx_shape_inference():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == INFER:
            continue
        lines = _calls_shape_inference(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found += [f"{path.relative_to(REPO)}:{n}" for n in lines]
    assert not found, "onnx's shape inference outside converter/untrusted/infer.py (call infer()):\n" + "\n".join(found)
    assert _calls_shape_inference(ast.parse(INFER.read_text(encoding="utf-8")))  # the scan sees the one that does


@pytest.mark.parametrize("source", ["import onnx.shape_inference\n", "from onnx import shape_inference\n",
                                    "onnx.shape_inference.infer_shapes(m)\n", "onnx.checker.check_model(m, full_check=True)\n",
                                    "from onnx.onnx_cpp2py_export.shape_inference import infer_shapes\n"])
def test_the_scan_sees_each_way_in(source):
    assert _calls_shape_inference(ast.parse(source)) == [1]


# ---- the tabled hazards, at any depth, in any attribute that holds a graph -------------------------------------------

def _if_holding(body: onnx.GraphProto, declared: int) -> onnx.ModelProto:
    """x -> If(c) whose then_branch (declared of type ``declared``) is ``body``; its else branch is Identity(d)."""
    d = helper.make_tensor_value_info("d", TensorProto.FLOAT, [2, 2])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    other = helper.make_graph([helper.make_node("Identity", ["d"], ["h"])], "else", [],
                              [helper.make_tensor_value_info("h", TensorProto.FLOAT, None)])
    node = helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=other)
    (then,) = [a for a in node.attribute if a.name == "then_branch"]
    then.type = declared
    return helper.make_model(helper.make_graph([node], "m", [c, d], [y]), opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8)


def _looping_einsum_body() -> onnx.GraphProto:
    """Einsum 'a.b' of the outer d [2, 2]: onnx 1.23's inference loops forever on it (the table's Einsum row)."""
    return helper.make_graph([helper.make_node("Einsum", ["d"], ["g"], equation="a.b")], "then", [],
                             [helper.make_tensor_value_info("g", TensorProto.FLOAT, None)])


@pytest.mark.parametrize("declared", [AttributeProto.GRAPH, AttributeProto.UNDEFINED, AttributeProto.INT])
def test_a_hazard_in_a_subgraph_is_screened_whatever_type_its_attribute_declares(declared):
    # The old screen entered GRAPH and GRAPHS attributes only; onnx's inference enters any attribute that has a graph
    # (measured: it loops on this model whichever the declared type). A regression hangs: the child's time limit ends it
    model = _if_holding(_looping_einsum_body(), declared)
    assert infer_module.any_unsafe(model.graph.node)
    inferred = infer(model)
    (then,) = [a for a in inferred.graph.node[0].attribute if a.name == "then_branch"]
    assert then.g.node[0].attribute[0].s == b"a.b"  # the caller's nodes, the unsafe value included


def test_check_of_a_hazard_in_an_undefined_typed_subgraph_finishes(tmp_path):
    # was: check never returned (onnx's inference of the whole model looped in the UNDEFINED-typed then_branch)
    onnx.save(_if_holding(_looping_einsum_body(), AttributeProto.UNDEFINED), tmp_path / "m.onnx")
    proc = subprocess.run([sys.executable, "-m", "converter.cli", "check", str(tmp_path / "m.onnx"), "--target",
                           "ort-cpu"], capture_output=True, text=True, timeout=120, cwd=REPO, env=child_env())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "onnx's shape inference cannot take the node: in its subgraph 'then': Einsum: attribute equation='a.b'" \
           in proc.stdout


# ---- the time limit and the size limit ---------------------------------------------------------------------------------

def _relu(declared_out: int = TensorProto.FLOAT) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", declared_out, [2])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["y"], ["z"])],
                              "g", [x], [y, z])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.fixture
def forks(monkeypatch):
    """infer(limit=True) forks here whatever threads the test process has started (pytest's, hypothesis')."""
    monkeypatch.setattr(infer_module, "_THREADS_AT_IMPORT", 10**6)


def test_the_child_answers_what_inference_here_answers(forks):
    model = _relu()
    assert infer(model, limit=True) == infer(model)
    assert [(v.name, v.type.tensor_type.elem_type) for v in infer(model, limit=True).graph.output] == \
           [("y", TensorProto.FLOAT), ("z", TensorProto.FLOAT)]


def test_a_refusal_in_the_child_is_onnxs_inference_error(forks):
    model = _relu(TensorProto.INT64)  # y declared int64; Relu of float gives float
    with pytest.raises(InferenceError) as here:
        infer(model, strict=True)
    with pytest.raises(InferenceError) as child:
        infer(model, strict=True, limit=True)
    assert str(child.value) == str(here.value) and "elem type" in str(here.value).lower()
    infer(model, limit=True)  # lenient: no refusal


def test_inference_past_its_time_limit_is_not_inferred(forks, monkeypatch):
    monkeypatch.setattr(infer_module, "_onnx_infer", lambda *args: time.sleep(60))  # a hang nobody has tabled
    monkeypatch.setattr(infer_module, "BASE_SECONDS", 1.0)
    start = time.perf_counter()
    with pytest.raises(NotInferred, match=r"did not finish within 1 s"):
        infer(_relu(), limit=True)
    assert time.perf_counter() - start < 20


def test_a_crash_in_the_child_is_not_inferred(forks, monkeypatch):
    import os
    import signal

    monkeypatch.setattr(infer_module, "_onnx_infer", lambda *args: os.kill(os.getpid(), signal.SIGSEGV))
    with pytest.raises(NotInferred, match="SIGSEGV"):
        infer(_relu(), limit=True)


def test_a_model_over_the_protobuf_limit_is_not_inferred(monkeypatch):
    model = _relu()
    size = len(model.SerializeToString())
    monkeypatch.setattr(infer_module, "PROTOBUF_LIMIT", size - 1)
    with pytest.raises(NotInferred, match="over the 2 GiB onnx can parse"):
        infer(model)
    monkeypatch.setattr(infer_module, "PROTOBUF_LIMIT", size)
    infer(model)


def test_the_time_limit_grows_with_the_nodes():
    assert infer_module.time_limit(0) == 60.0
    assert infer_module.time_limit(10**6) == pytest.approx(80.0)
