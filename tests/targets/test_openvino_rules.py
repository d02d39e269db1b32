"""The OPENVINO rules of converter/targets/profiles.py against OpenVINO itself (its CPU plugin, as runners/openvino.py
compiles models): hand-made models on both sides of each rule; the expected verdict is OpenVINO's own."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.targets.check import check_model, errors

pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')


def openvino_runs(model, feeds) -> bool:
    from converter.runners.openvino import runner

    try:
        runner(model.SerializeToString())(feeds)
    except Exception:  # noqa: BLE001 - OpenVINO's refusal is the verdict
        return False
    return True


@pytest.mark.parametrize("op, opset", [("ReduceSum", 13), ("ReduceMean", 18), ("ReduceMax", 18), ("ReduceL2", 18)])
def test_a_reduction_of_dynamic_rank_is_refused_as_openvino_refuses_it(op, opset):
    # the CPU plugin takes no operation of dynamic rank; a reduction's rank is dynamic with non-constant axes,
    # keepdims=0 and not exactly one axis (reduce_shape_inference.hpp)
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    checked = 0
    for keepdims, constant, axes in itertools.product((0, 1), (True, False), ([1], [0, 2])):
        axes = np.array(axes, np.int64)
        inits = [numpy_helper.from_array(axes, "axes")] if constant else []
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])]
        if not constant:
            inputs.append(helper.make_tensor_value_info("axes", TensorProto.INT64, [len(axes)]))
        graph = helper.make_graph([helper.make_node(op, ["x", "axes"], ["y"], keepdims=keepdims)], "g", inputs,
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
        feeds = {"x": data} if constant else {"x": data, "axes": axes}
        said = [str(p) for p in errors(check_model(model, "openvino"))]
        assert (not said) == openvino_runs(model, feeds), (keepdims, constant, axes.tolist(), said)
        checked += 1
        refused = keepdims == 0 and not constant and len(axes) != 1
        assert bool(said) == refused and (not refused or "dynamic output rank" in said[0]), said
    assert checked == 8


def _node_case(name: str):
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return next(c for c in collect_testcases() if c.name == name)


def test_the_runner_names_each_output_by_its_graph_name():
    """OpenVINO inlines RotaryEmbedding's expanded body: the output port's tensor carries the graph output's name
    'output' and an inner one ('..._YTransposed'), and get_any_name() gave the inner one: `run --runtime openvino`
    said 'openvino produced no such output'. The values are onnx's own golden ones."""
    from converter.runners.openvino import runner

    case = _node_case("test_rotary_embedding_with_interleaved_rotary_dim_expanded")
    inputs, outputs = case.data_sets[0]
    names = [i.name for i in case.model.graph.input]
    got = runner(case.model.SerializeToString())(dict(zip(names, inputs)))
    assert list(got) == ["output"]
    np.testing.assert_allclose(got["output"], outputs[0], rtol=1e-5, atol=1e-6)


def test_the_runner_does_not_feed_an_input_the_frontend_dropped():
    """ReduceSum-13 with an empty axes input (reduce every axis): OpenVINO's model has no port for 'axes', and feeding
    it failed ('Port for tensor name axes was not found'). numpy gives the expected value."""
    from converter.runners.openvino import runner

    case = _node_case("test_reduce_sum_default_axes_keepdims_random")
    (data, axes), _ = case.data_sets[0]
    assert axes.size == 0
    got = runner(case.model.SerializeToString())({"data": data, "axes": axes})
    np.testing.assert_allclose(got["reduced"], np.sum(data, keepdims=True), rtol=1e-5)



def _dequantize(x_shape, scale_shape, axis, block_size, opset=21):
    """One DequantizeLinear of an int8 graph input x and a float graph input scale (no zero point)."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.INT8, x_shape),
              helper.make_tensor_value_info("scale", TensorProto.FLOAT, scale_shape)]
    attrs = {"axis": axis} | ({} if block_size is None else {"block_size": block_size})
    graph = helper.make_graph([helper.make_node("DequantizeLinear", ["x", "scale"], ["y"], **attrs)], "g", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


# (x shape, scale shape, axis, block_size, the shapes fed to x and scale). OpenVINO 2026.4.1 reads a blocked
# DequantizeLinear (a scale of rank > 1) only with every dimension of X static, whichever axis is dynamic; per-axis and
# per-tensor ones of a dynamic X read and run
_DQ_CASES = [
    ([4, 3, 4], [2, 3, 4], 0, 2, [4, 3, 4], [2, 3, 4]),           # blocked, static: runs
    (["n", 3, 4], [2, 3, 4], 0, 2, [4, 3, 4], [2, 3, 4]),         # blocked, the blocked axis dynamic
    ([4, "c", 4], [2, 3, 4], 0, 2, [4, 3, 4], [2, 3, 4]),         # blocked, another axis dynamic
    ([4, 3, None], [2, 3, 4], 0, 2, [4, 3, 4], [2, 3, 4]),        # blocked, an unknown (unnamed) dimension
    (["n", "c", 4], ["m", "c", 4], 0, 2, [4, 3, 4], [2, 3, 4]),   # blocked, scale dynamic too
    ([4, 3, 4], [4, 3, 2], 2, 2, [4, 3, 4], [4, 3, 2]),           # blocked on the last axis, static: runs
    ([4, 3, "w"], [4, 3, 2], 2, 2, [4, 3, 4], [4, 3, 2]),         # ... and that axis dynamic
    (["n", 3, 4], [3], 1, None, [4, 3, 4], [3]),                  # per-axis, dynamic: runs
    (["n", 3, 4], [3], 1, 0, [4, 3, 4], [3]),                     # per-axis with block_size=0, dynamic: runs
    (["n", 3, 4], [], 1, None, [4, 3, 4], []),                    # per-tensor, dynamic: runs
    ([5], [3], 0, 2, [5], [3]),      # 1-D blocked: read as per-axis, 3 scales for 5 elements: refused at read
    (["k"], [3], 0, 2, [5], [3]),    # ... of a dynamic length: read, then the broadcast fails when it runs
    ([4], [1], 0, 4, [4], [1]),      # 1-D, one block: a single scale, per-tensor: runs
    (["k"], [4], 0, 1, [4], [4]),    # 1-D, blocks of 1: one scale per element: runs
    ([4, 3, 4], None, 1, None, [4, 3, 4], []),                    # a scale of unknown rank: refused at read
]


@pytest.mark.parametrize("x_shape, scale_shape, axis, block_size, x_fed, scale_fed", _DQ_CASES)
def test_dequantize_linear_is_refused_as_openvino_reads_it(x_shape, scale_shape, axis, block_size, x_fed, scale_fed):
    """OpenVINO's ONNX frontend (dequantize_linear.cpp, opset_21) reads a scale of rank > 1 only with a static X
    ('DequantizeLinear cannot operate with dynamic shapes of input X'), a 1-D X's blocked scale as per-axis, and no
    scale of unknown rank; check said a blocked one of a dynamic X runs (gen-dml-dq-dynamic-*-blocked-opset21)."""
    model = _dequantize(x_shape, scale_shape, axis, block_size)
    feeds = {"x": np.ones(x_fed, np.int8), "scale": np.ones(scale_fed, np.float32)}
    said = [str(p) for p in errors(check_model(model, "openvino"))]
    runs = openvino_runs(model, feeds)
    assert (not said) == runs, (said, runs)
    assert all("(DequantizeLinear)" in s and "OpenVINO's ONNX frontend" in s and "\n" not in s for s in said), said


def _non_tensor_node_cases() -> list:
    """onnx's node cases with a sequence or optional value (a graph input, output or inferred intermediate)."""
    import warnings

    import onnx
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    out = []
    for case in cases:
        try:
            inferred = onnx.shape_inference.infer_shapes(case.model)
        except Exception:  # noqa: BLE001 - the declared types are enough
            inferred = case.model
        values = [*inferred.graph.input, *inferred.graph.output, *inferred.graph.value_info]
        if any(v.type.WhichOneof("value") not in ("tensor_type", None) for v in values):
            out.append(case)
    return out


def test_sequence_and_optional_values_are_judged_as_openvino_reads_them(tmp_path):
    """check --target openvino said "every node runs" (a "not measured" warning at most) for 20 of onnx's 29 node
    cases with sequence or optional values, which OpenVINO refuses to read or compile. Each case is given to OpenVINO
    itself (read_model of the file, compile_model on the CPU) and to check: the verdicts must agree."""
    import onnx
    import openvino as ov

    core, cases, disagree = ov.Core(), _non_tensor_node_cases(), []
    assert len(cases) >= 20, len(cases)  # (the corpus of the pinned onnx)
    for case in cases:
        path = tmp_path / f"{case.name}.onnx"
        onnx.save(case.model, path)
        try:
            core.compile_model(core.read_model(str(path)), "CPU")
            runs = True
        except Exception:  # noqa: BLE001 - whatever OpenVINO raises: it does not run the model
            runs = False
        if runs != (not errors(check_model(case.model, "openvino"))):
            disagree.append((case.name, runs))
    assert disagree == []


@pytest.mark.parametrize("opset", [13, 21, 24, 25])
def test_an_unsqueeze_of_dynamic_rank_is_refused_as_openvino_refuses_it(opset):
    """Axes as a graph input: the output rank is dynamic, which the CPU plugin refuses at every since-version (check
    said "runs" below opset 25, where the measured rows had constant axes); constant axes run."""
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for constant in (True, False):
        axes = np.array([0], np.int64)
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4, 5])]
        inits = [numpy_helper.from_array(axes, "axes")] if constant else []
        if not constant:
            inputs.append(helper.make_tensor_value_info("axes", TensorProto.INT64, [1]))
        graph = helper.make_graph([helper.make_node("Unsqueeze", ["x", "axes"], ["y"])], "g", inputs,
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
        said = [str(p) for p in errors(check_model(model, "openvino"))]
        runs = openvino_runs(model, {"x": x} if constant else {"x": x, "axes": axes})
        assert runs == constant and (not said) == runs, (opset, constant, said)


@pytest.mark.parametrize("op, domain, version, inputs, attrs", [
    ("Gelu", "com.microsoft", 1, [[2, 3]], {}),
    ("FusedMatMul", "com.microsoft", 1, [[2, 3], [3, 2]], {}),
    ("Normalizer", "ai.onnx.ml", 3, [[2, 3]], {"norm": "L2"}),
])
def test_an_op_of_another_domain_is_not_measured_rather_than_refused(op, domain, version, inputs, attrs):
    """openvino.json measured the ai.onnx domain only; OpenVINO's ONNX frontend converts these (check said 'only the
    ai.onnx domain is supported', an error, for models of onnxruntime's transformer optimizer): a warning that
    points to --probe, as for an ai.onnx combination never measured, and OpenVINO runs them."""
    from converter.targets.check import check_model as check

    values = [helper.make_tensor_value_info(f"x{i}", TensorProto.FLOAT, shape) for i, shape in enumerate(inputs)]
    node = helper.make_node(op, [v.name for v in values], ["y"], domain=domain, **attrs)
    graph = helper.make_graph([node], "g", values, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(domain, version)],
                              ir_version=10)
    found = check(model, "openvino")
    assert errors(found) == [] and [p.severity for p in found] == ["warning"], [str(p) for p in found]
    assert "not measured" in found[0].reason and "--probe" in found[0].reason
    feeds = {v.name: np.ones(shape, np.float32) for v, shape in zip(values, inputs)}
    assert openvino_runs(model, feeds)
    assert [p.reason for p in errors(check(model, "tensorrt"))] == [f"domain {domain!r}: only the ai.onnx domain is supported"]
