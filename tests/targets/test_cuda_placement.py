"""ort-cuda: what onnxruntime does around the CUDA EP's kernels, on hand-made models and onnx's own cases.

Expectations: the H100 recording (tools/data/cuda-ep-node-cases-2026-11-27.json, onnxruntime-gpu 1.31.1, the CUDA
EP alone) where a case of it shows the behaviour; otherwise worked by hand from the source each test names
(GetCpuPreferredNodes in onnxruntime/core/framework/fallback_cpu_capability.cc, GetCapability in
onnxruntime/core/providers/cuda/cuda_execution_provider.cc), step by step in the comments.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.targets.check import check_model, errors
from tools import ground_truth as gt

F, I64, F16 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.FLOAT16


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs], initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def refused(m, target="ort-cuda") -> dict[str, str]:
    """node name -> the reason of its first error."""
    found = {}
    for p in errors(check_model(m, target)):
        found.setdefault(p.node, p.reason)
    return found


def index(name, value):
    return numpy_helper.from_array(np.array(value, np.int64), name)


def test_a_shape_computation_on_a_cpu_tensor_is_moved_to_the_cpu():
    # Shape writes to CPU memory (cuda/tensor/shape_op.cc OutputMemoryType); Gather's inputs are that CPU tensor
    # (Gather reads its data from GPU memory, so the CPU tensor is not "intended as CPU input") and a
    # 1-element initializer (small): GetCpuPreferredNodes places Gather on the CPU
    m = model([helper.make_node("Shape", ["x"], ["s"], name="shape"),
               helper.make_node("Gather", ["s", "i"], ["y"], name="gather", axis=0)],
              [("x", F, ["n", 3])], [("y", I64, [1])], inits=[index("i", [0])])
    found = refused(m)
    assert list(found) == ["gather"] and "GetCpuPreferredNodes" in found["gather"] and "s (from shape (Shape))" in found["gather"]
    assert refused(m, "ort-cpu") == {}


def test_a_shape_of_a_static_shape_is_folded_before_partitioning():
    # the same graph with x's shape known: level-1 ConstantFolding makes Shape an initializer (and then Gather,
    # all of whose inputs are constant): nothing writes to CPU memory when the CUDA EP partitions
    m = model([helper.make_node("Shape", ["x"], ["s"], name="shape"),
               helper.make_node("Gather", ["s", "i"], ["y"], name="gather", axis=0)],
              [("x", F, [2, 3])], [("y", I64, [1])], inits=[index("i", [0])])
    assert refused(m) == {}


def test_an_input_the_cuda_kernel_reads_from_cpu_memory_keeps_the_node():
    # Reshape-14 reads its shape input from CPU memory (cuda/tensor/reshape.cc InputMemoryType(OrtMemTypeCPUInput, 1)):
    # the CPU tensor from Shape is what it wants, so it stays on CUDA
    m = model([helper.make_node("Shape", ["x"], ["s"], name="shape"),
               helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
              [("x", F, ["n", 3])], [("y", F, ["n", 3])])
    assert refused(m) == {}


def test_a_float16_input_keeps_the_node_and_a_large_initializer_too():
    # the Cast of Shape's output has one CPU input: moved. The Mul has a float16 input: stays ("skip placing on
    # CPU if the data type is float16"). The Add's other input is an initializer of 101 elements ([101, 1], which
    # broadcasts with the [2] shape): not small, not a CPU tensor: stays
    m = model([helper.make_node("Shape", ["x"], ["s"], name="shape"),
               helper.make_node("Cast", ["s"], ["h"], name="cast", to=F16),
               helper.make_node("Mul", ["h", "w"], ["y"], name="mul"),
               helper.make_node("Add", ["s", "big"], ["z"], name="add")],
              [("x", F, ["n", "m"]), ("w", F16, [2])], [("y", F16, [2]), ("z", I64, [101, 2])],
              inits=[index("big", np.zeros((101, 1), np.int64))])
    found = refused(m)
    assert list(found) == ["cast"], found


def test_a_consumer_of_a_moved_node_is_moved_too():
    # Sub's inputs: the Gather's output (moved to the CPU: a CPU tensor) and a graph input: moved as well
    m = model([helper.make_node("Shape", ["x"], ["s"], name="shape"),
               helper.make_node("Gather", ["s", "i"], ["g"], name="gather", axis=0),
               helper.make_node("Sub", ["g", "k"], ["y"], name="sub")],
              [("x", F, ["n", 3]), ("k", I64, [1])], [("y", I64, [1])], inits=[index("i", [0])])
    assert list(refused(m)) == ["gather", "sub"]


@pytest.fixture(scope="module")
def onnx_cases():
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {c.name: c.model for c in collect_testcases()}


@pytest.fixture(scope="module")
def recorded():
    return {c["case"]: c for c in json.loads(gt.CUDA_CASES.read_text(encoding="utf-8"))["cases"]}


@pytest.mark.parametrize("case", ["test_group_normalization_example", "test_group_normalization_example_expanded",
                                  "test_group_normalization_epsilon", "test_group_normalization_epsilon_expanded"])
def test_an_inlined_function_body_is_not_constant_folded(case, onnx_cases, recorded):
    # GroupNormalization has no kernel on either EP: onnxruntime inlines its body while partitioning, after
    # constant folding ran, so the body's Shape nodes write to CPU memory and their consumers move to the CPU;
    # the _expanded case has the same nodes from the start, folded before partitioning. The H100 agrees.
    found = refused(onnx_cases[case])
    assert (found == {}) == recorded[case]["cuda_only"] == case.endswith("_expanded")
    if found:
        assert "GetCpuPreferredNodes" in next(iter(found.values()))


@pytest.mark.parametrize("case, ran", [
    ("test_acos", False),  # no CUDA kernel, a CPU one: the CPU EP takes it
    ("test_castlike_FLOAT_to_FLOAT16", True),  # no kernel on either EP: inlined, its Cast runs on CUDA
    ("test_sce_mean_weight", True),  # SoftmaxCrossEntropyLoss: inlined likewise
    ("test_argmax_keepdims_example_select_last_index", False),  # GetCapability (measured) leaves it to the CPU
    ("test_convtranspose_autopad_same", False),  # ConvTransposeNeedFallbackToCPU: auto_pad SAME_*
    ("test_lstm_with_peepholes", False),  # RNNNeedFallbackToCPU: a peephole input
    ("test_lstm_defaults", True),
    ("test_attention_4d_with_qk_matmul_softmax", False),  # qk_matmul_output_mode 3 with the output requested
    ("test_attention_4d_with_qk_matmul", True),  # mode 0
    ("test_attention_4d_diff_heads_mask4d_padded_kv", False),  # mask's last dim 4, key/value length 6
    ("test_attention_4d_causal_nonpad_attn_mask_composition", True),  # mask's last dim 6 = K's 6
    ("test_if_opt", False),  # an optional output: no CUDA If kernel takes it
    ("test_if_seq", True),
])
def test_ort_cuda_agrees_with_the_h100_on_each_mechanism(case, ran, onnx_cases, recorded):
    assert recorded[case]["cuda_only"] is ran  # the recording says so (the expected value's source)
    assert (refused(onnx_cases[case]) == {}) is ran


@pytest.mark.parametrize("attrs, ok", [
    ({"pads": [1, 1, 1, 1]}, True), ({"pads": [0, 0, 1, 1]}, False), ({"auto_pad": "SAME_UPPER"}, False),
    ({"auto_pad": "VALID"}, True),
])
def test_cuda_convtranspose_needs_symmetric_pads(attrs, ok):
    # ConvTransposeNeedFallbackToCPU: pads[i] != pads[i + rank] or auto_pad SAME_UPPER/SAME_LOWER -> CPU
    w = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
    m = model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="ct", **attrs)],
              [("x", F, [1, 1, 4, 4])], [("y", F, None)], inits=[w], opset=11)
    assert (refused(m) == {}) is ok
    assert refused(m, "ort-cpu") == {}


@pytest.mark.parametrize("attrs, ok", [
    ({}, True), ({"activations": ["Sigmoid", "Tanh", "Tanh"]}, True), ({"activations": ["sigmoid", "relu", "tanh"]}, False),
    ({"clip": 1.0}, False), ({"input_forget": 1}, False),
])
def test_cuda_lstm_takes_what_cudnn_has(attrs, ok):
    # RNNNeedFallbackToCPU: activations compared lower-case with sigmoid, tanh, tanh; clip; input_forget != 0
    w = numpy_helper.from_array(np.ones((1, 8, 3), np.float32), "w")
    r = numpy_helper.from_array(np.ones((1, 8, 2), np.float32), "r")
    m = model([helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="lstm", hidden_size=2, **attrs)],
              [("x", F, [1, 1, 3])], [("y", F, [1, 1, 1, 2])], inits=[w, r], opset=14)
    assert (refused(m) == {}) is ok


# ---- a property: the priority-queue walk of GetCpuPreferredNodes is a walk in topological order ----------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from converter.targets.model_view import ModelView  # noqa: E402
from converter.targets.placement import cpu_preferred  # noqa: E402
from converter.targets.profiles import CUDA_PLACEMENT  # noqa: E402


def _in_order(view: ModelView) -> set[int]:
    """GetCpuPreferredNodes restated without its queue: popped in topological order, a candidate (a consumer of
    a CPU tensor) is decided after every node before it, so one pass in graph order decides the same nodes."""
    graph = view.graph
    inputs = {i.name for i in graph.input}
    small = {i.name for i in graph.initializer if int(np.prod(i.dims)) <= 100}
    cpu_args = {n.output[0] for n in graph.node if n.op_type in ("Shape", "Size")}
    moved = set()
    for i, node in enumerate(graph.node):
        if node.op_type in ("Shape", "Size") or not any(n in cpu_args for n in node.input):
            continue
        reads = CUDA_PLACEMENT["cpu_inputs"].get(node.op_type, [])
        if all(view.types.get(n) != "float16" and (n in small or n in inputs or (n in cpu_args and k not in reads))
               for k, n in enumerate(node.input)):
            moved.add(i)
            cpu_args.update(node.output)
    return moved


@st.composite
def shape_graphs(draw):
    """x (a run-time shape) -> Shape -> a random chain of int64 and float16 nodes over earlier tensors, a graph
    input k, a small and a large initializer (each node's first input is not a constant: nothing is folded)."""
    ints, halves, nodes = ["s", "k", "small", "big"], [], [helper.make_node("Shape", ["x"], ["s"], name="shape")]
    for i in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(["Add", "Mul", "Neg", "Concat", "Gather", "Cast16", "Reshape"]))
        a, b = draw(st.sampled_from([t for t in ints if t not in ("small", "big")])), draw(st.sampled_from(ints))
        out = f"t{i}"
        if op == "Cast16":
            nodes.append(helper.make_node("Cast", [a], [out], name=out, to=F16))
            halves.append(out)
            continue
        if op == "Reshape":  # reads its shape from CPU memory: stays on CUDA
            nodes.append(helper.make_node("Reshape", ["x", "s"], [out], name=out))
            continue
        if op == "Neg":
            nodes.append(helper.make_node("Neg", [a], [out], name=out))
        elif op == "Concat":
            nodes.append(helper.make_node("Concat", [a, b], [out], name=out, axis=0))
        elif op == "Gather":
            nodes.append(helper.make_node("Gather", [a, "small"], [out], name=out, axis=0))
        else:
            nodes.append(helper.make_node(op, [a, b], [out], name=out))
        ints.append(out)
    if halves and draw(st.booleans()):  # a float16 consumer of a Cast: stays (its input is float16)
        nodes.append(helper.make_node("Add", [halves[0], halves[0]], ["h"], name="h"))
    outs = [n.output[0] for n in nodes[1:]] or ["s"]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, ["n", "m"]),
                                           helper.make_tensor_value_info("k", I64, [2])],
                              [helper.make_tensor_value_info(o, 0, None) for o in outs],
                              initializer=[index("small", [0, 1]), index("big", np.zeros(101, np.int64))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@settings(deadline=None)
@given(m=shape_graphs())
def test_cpu_preferred_nodes_are_those_of_one_pass_in_topological_order(m):
    view = ModelView(m)
    moved = cpu_preferred(view, set(range(len(m.graph.node))), CUDA_PLACEMENT, lambda i: True)
    assert set(moved) == _in_order(view)
