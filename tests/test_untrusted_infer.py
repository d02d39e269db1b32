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


# ---- the memory limit ------------------------------------------------------------------------------------------------

def _rank_from_a_value(value: int) -> onnx.ModelProto:
    """The shape computation of the expanded LayerNormalization (onnx's node test model), its axis a Constant:
    Reshape(x, Concat(Slice(Shape(x), 0, axis), ConstantOfShape(Size(Shape(x)) - axis))). onnx's data propagation
    makes a shape of 2 - value dimensions of it (test_check_mutations seed 2560429631, where a stray attribute of the
    Constant gave the value)."""
    def constant(name, v):
        return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, TensorProto.INT64, [1], [v]))
    nodes = [constant("axis", value), constant("zero", 0), helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Size", ["s"], ["rank"]), helper.make_node("Slice", ["s", "zero", "axis"], ["prefix"]),
             helper.make_node("Sub", ["rank", "axis"], ["n"]),
             helper.make_node("ConstantOfShape", ["n"], ["ones"],
                              value=helper.make_tensor("one", TensorProto.INT64, [1], [1])),
             helper.make_node("Concat", ["prefix", "ones"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


def test_data_propagation_makes_a_rank_of_a_value():
    # the mechanism, small: 2 - (-5) = 7 dimensions (a regression of the model below would take the memory it asks)
    (y,) = infer(_rank_from_a_value(-5), data_prop=True).graph.output
    assert len(y.type.tensor_type.shape.dim) == 7


def test_inference_past_its_memory_limit_is_not_inferred(forks, monkeypatch):
    # was: 2^31 + 3 dimensions, which took 24 GB before onnx failed (the fuzz's child was killed, -9)
    monkeypatch.setattr(infer_module, "BASE_MEMORY", 256 * 2**20)
    model = _rank_from_a_value(-(2**31) - 1)
    with pytest.raises(NotInferred, match=r"needed more than 256 MiB of memory"):
        infer(model, data_prop=True, limit=True)
    infer(_rank_from_a_value(-5), data_prop=True, limit=True)  # the same limit: a model of sense is inferred
    assert infer(model, limit=True).graph.output  # without data propagation: no such shape


def test_the_memory_limit_grows_with_the_model():
    assert infer_module.memory_limit(0) == 2 * 2**30
    assert infer_module.memory_limit(2**30) == 6 * 2**30


# Runs a command under an 8 GiB address space (a regression fails instead of taking the machine's memory), then
# prints the largest resident size of it and its children, in KiB (ru_maxrss: the fresh process has no other child)
_BOUNDED = """import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, resource.RLIM_INFINITY))
code = subprocess.run(sys.argv[1:]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""


def test_check_of_a_model_whose_data_propagation_asks_for_2_to_the_31_dimensions_stays_in_its_memory(tmp_path):
    # was: the inference child grew to the 8 GiB bound in 20 s (24 GB unbounded: the fuzz's child killed, -9); now
    # 2.1 GB (2 GiB past the fork) in 4 s. onnxruntime loads the model (its propagation does not go there): it runs
    ort = pytest.importorskip("onnxruntime")
    model = _rank_from_a_value(-(2**31) - 1)
    ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])  # loads
    onnx.save(model, tmp_path / "m.onnx")
    proc = subprocess.run([sys.executable, "-c", _BOUNDED, sys.executable, "-m", "converter.cli", "check",
                           str(tmp_path / "m.onnx"), "--target", "ort-cpu"],
                          capture_output=True, text=True, timeout=300, cwd=REPO, env=child_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    *printed, peak_kib = proc.stdout.splitlines()
    assert "every node runs on ort-cpu" in printed[-1]
    assert int(peak_kib) * 1024 < infer_module.memory_limit(0) + 2**30, peak_kib


# ---- Constant nodes as onnxruntime reads them -------------------------------------------------------------------------

def _constant_of_shape(extra: tuple | None, first: bool) -> onnx.ModelProto:
    """Constant(value=[1], and ``extra`` (name, value) before or after it) -> ConstantOfShape -> z, and Shape(z)."""
    node = helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", TensorProto.INT64, [1], [1]))
    if extra is not None:
        attrs = [helper.make_attribute(*extra), *node.attribute] if first else [*node.attribute,
                                                                                helper.make_attribute(*extra)]
        del node.attribute[:]
        node.attribute.extend(attrs)
    nodes = [node, helper.make_node("ConstantOfShape", ["k"], ["z"]), helper.make_node("Shape", ["z"], ["s"])]
    graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info("z", TensorProto.FLOAT, None),
                                                helper.make_tensor_value_info("s", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


@pytest.mark.parametrize("first", [False, True], ids=["after", "before"])
@pytest.mark.parametrize("extra", [None, ("zz", 5), ("zz", [7, 8]), ("zz", 2.5), ("zz", "abc"), ("value_ints", [3, 4]),
                                   ("value", 6)], ids=str)
def test_a_constant_is_inferred_as_onnxruntime_reads_it(extra, first):
    # onnxruntime makes the FIRST attribute the constant, by its type; onnx's data propagation took the last number
    # attribute (z inferred [5] from a stray zz=5 after value=[1]). Expected: the shapes onnxruntime's own inference
    # gives the outputs when it loads the model, or its refusal
    ort = pytest.importorskip("onnxruntime")
    model = _constant_of_shape(extra, first)
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - onnxruntime refuses it: a float or a string for ConstantOfShape's shape
        with pytest.raises(InferenceError):
            infer(model, strict=True, check_type=True, data_prop=True)
        return
    expected = {o.name: o.shape for o in session.get_outputs()}
    for data_prop in (False, True):
        inferred = {o.name: [d.dim_value for d in o.type.tensor_type.shape.dim]
                    for o in infer(model, data_prop=data_prop).graph.output}
        assert inferred == expected, data_prop
    assert infer_module.any_misread(model.graph.node) == (extra is not None)
