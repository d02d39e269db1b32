"""Dynamic specs on every target: the model keeps its symbolic dimensions, computes in the graph what depends on a
dynamic one, validates on onnxruntime at every case's shapes through one session, and check judges TensorRT's
limits at the profile's max; DLA refuses a dynamic dimension, citing NVIDIA's rule."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.pipeline import stages as pipeline
from converter.errors import TargetRefusal, TargetRuleError
from converter.pipeline.stages import Options, convert, model_for_target, validate_spec
from converter.pipeline.spec import parse_spec
from converter.targets import TARGET_NAMES, resolve_target
from converter.targets.check import check_model, errors
from converter.targets.trt_importer import importer_view
from converter.untrusted.profiles import PROFILES_KEY, model_profiles

from .test_spec_format import spec_doc

PROFILE4 = {"min": [1, 3, 4, 4], "opt": [2, 3, 6, 8], "max": [3, 3, 9, 12]}


def _spec(layers, outputs, dtype="float32", extra_inputs=None, extra_profile=None, cases=None):
    inputs = {"x": {"dtype": dtype, "shape": ["batch", 3, "h", "w"]}, **(extra_inputs or {})}
    profile = {"x": PROFILE4, **(extra_profile or {})}
    return parse_spec(spec_doc(inputs, layers, outputs, [profile], cases), Path("t.yaml"))


FAMILIES = {
    "scale": lambda: _spec([{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "CHANNEL",
                             "scale": [0.5, 2, -1], "shift": [1, 0, 0.25]}], ["y"]),
    "elementwise": lambda: _spec([{"name": "y", "op": "trt.ElementWise", "inputs": ["x", "b"], "operation": "PROD"}], ["y"],
                                 extra_inputs={"b": {"dtype": "float32", "shape": ["batch", 3, 1, 1]}},
                                 extra_profile={"b": {"min": [1, 3, 1, 1], "opt": [2, 3, 1, 1], "max": [3, 3, 1, 1]}}),
    "resize-scales": lambda: _spec([{"name": "y", "op": "trt.Resize", "inputs": ["x"], "scales": [1, 1, 2, 1.5],
                                     "resize_mode": "LINEAR", "coordinate_transformation": "HALF_PIXEL"}], ["y"]),
    "resize-nearest": lambda: _spec([{"name": "y", "op": "trt.Resize", "inputs": ["x"], "scales": 3,
                                      "coordinate_transformation": "HALF_PIXEL", "nearest_rounding": "HALF_DOWN"}], ["y"]),
    "resize-sizes": lambda: _spec([{"name": "y", "op": "trt.Resize", "inputs": ["x", "size"], "resize_mode": "CUBIC"}], ["y"],
                                  extra_inputs={"size": {"dtype": "int32", "shape": [4], "shape_tensor": True}},
                                  extra_profile={"size": {"min": [1, 3, 2, 2], "opt": [1, 3, 8, 8], "max": [1, 3, 16, 24]},
                                                 "x": {"min": [1, 3, 4, 4], "opt": [1, 3, 6, 8], "max": [1, 3, 9, 12]}},
                                  cases=[{"name": f"c{i}", "inputs": {"x": {"random": "uniform", "shape": [1, 3, h, w]},
                                                                      "size": [1, 3, oh, ow]}}
                                         for i, (h, w, oh, ow) in enumerate([(4, 4, 2, 2), (9, 5, 16, 24), (6, 8, 7, 3)])]),
}


def _dq_spec():
    return parse_spec(spec_doc(
        {"q": {"dtype": "int8", "shape": ["n", "c", "w"]}, "s": {"dtype": "float32", "shape": ["n", "c", "w"]},
         "zp": {"dtype": "int8", "shape": ["n", "c", "w"]}},
        [{"name": "y", "op": "dml.DequantizeLinear", "inputs": ["q", "s", "zp"]}], ["y"],
        [{n: {"min": [1, 1, 1], "opt": [2, 3, 4], "max": [3, 4, 7]} for n in ("q", "s", "zp")}]), Path("t.yaml"))


def _dq_strided_spec():
    """A per-channel scale buffer read through DirectML strides [0, 1, 0] of run-time sizes: offsets in the graph."""
    return parse_spec(spec_doc(
        {"q": {"dtype": "uint8", "shape": ["n", 4, "w"]}, "s": {"dtype": "float32", "shape": [4]},
         "zp": {"dtype": "uint8", "shape": [4]}},
        [{"name": "y", "op": "dml.DequantizeLinear", "inputs": ["q", "s", "zp"],
          "strides": {"scale": [0, 1, 0], "zero_point": [0, 1, 0]}}], ["y"],
        [{"q": {"min": [1, 4, 1], "opt": [2, 4, 5], "max": [3, 4, 9]}}]), Path("t.yaml"))


FAMILIES["dequantize"] = _dq_spec
FAMILIES["dequantize-strides"] = _dq_strided_spec
TARGETS = [t for t in TARGET_NAMES if t != "tensorrt-dla"]
# (target, family): a dynamic Resize's shape computation, which onnxruntime places on the CPU beside the CUDA EP
CPU_SHAPE_CHAINS = {(t, f) for t in ("ort-cuda", "portable") for f in ("resize-nearest", "resize-scales", "resize-sizes")}
# (not ort-cuda's Resize given its sizes as a graph input: its LINEAR/CUBIC Resize runs at the input's own rank, and
# no Shape node (a kernel writing to CPU memory, where GetCpuPreferredNodes starts) computes its sizes)
CPU_SHAPE_CHAINS -= {("ort-cuda", "resize-sizes")}


def _dims(value_info):
    return [d.dim_param or (d.dim_value if d.HasField("dim_value") else None) for d in value_info.type.tensor_type.shape.dim]


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("target", TARGETS)
def test_each_family_runs_on_each_target_at_every_case_shape(family, target):
    spec = FAMILIES[family]()
    model, _, _, problems = model_for_target(spec, resolve_target(target), 17)
    if (target, family) in CPU_SHAPE_CHAINS:
        # The shape computation of a Resize at run-time shapes (Shape of a dynamic input -> Slice/Cast/Mul/Concat)
        # is what onnxruntime's GetCpuPreferredNodes puts on the CPU (converter/targets/placement.py): a CUDA
        # session without CPU fallback refuses it, and so do ort-cuda and portable (docs/semantics.md, Resize).
        failing = errors(problems)
        assert failing and all("GetCpuPreferredNodes" in p.reason for p in failing), [str(p) for p in problems]
        with pytest.raises(TargetRefusal, match="GetCpuPreferredNodes"):
            convert(spec, resolve_target(target), 17)
        return
    assert not errors(problems), [str(p) for p in problems]
    for value, name in zip(model.graph.input, spec.network.inputs):  # the spec's names are the model's dim_params
        assert _dims(value) == [d if d != -1 else None for d in spec.network.inputs[name].dims()]
    assert model_profiles(model)[0], "the model carries its profiles"
    results = list(validate_spec(spec, Options(target=resolve_target(target))))
    assert len(results) == len(spec.cases) >= 3
    bad = [f"{r.case} ({r.shapes}): {r.problems}" for r in results if r.outcome != "PASS"]
    assert not bad, bad
    assert len({r.shapes for r in results}) == len(results)  # each case at its own shapes


def test_one_session_serves_every_shape(monkeypatch):
    made = []
    real = pipeline.session

    def counting(config, model_bytes, threads=1, optimized=None):
        made.append(config)
        return real(config, model_bytes, threads=threads, optimized=optimized)

    monkeypatch.setattr(pipeline, "session", counting)
    spec = FAMILIES["resize-scales"]()
    results = list(validate_spec(spec, Options()))
    assert [r.outcome for r in results] == ["PASS"] * 3 and len(made) == 1


def _node_ops(model):
    return [n.op_type for n in model.graph.node]


def test_tensorrt_keeps_a_resize_by_integer_scales_as_one_layer_with_its_scales():
    model = model_for_target(FAMILIES["resize-nearest"](), resolve_target("tensorrt"), 17)[0]
    assert _node_ops(model) == ["Resize"]
    (layer,) = importer_view(model)
    assert layer.kind == "IResizeLayer" and layer.attr("scales") == (1.0, 1.0, 3.0, 3.0)


def test_tensorrt_resizes_by_run_time_sizes_where_a_scale_is_not_exact_at_every_size():
    """1.5 * a is an integer for even a only: the sizes floor(a * 1.5) are computed in the graph (Shape, Cast, Mul,
    Floor, Cast) and the Resize reads them at run time: one IResizeLayer with its input 1 (onnxOpImporters.cpp:4560)."""
    model = model_for_target(FAMILIES["resize-scales"](), resolve_target("tensorrt"), 17)[0]
    resizes = [n for n in model.graph.node if n.op_type == "Resize"]
    assert len(resizes) == 1 and resizes[0].input[3] and resizes[0].input[3] not in {i.name for i in model.graph.initializer}
    assert {"Shape", "Floor"} <= set(_node_ops(model))
    layers = [layer for layer in importer_view(model) if layer.kind == "IResizeLayer"]
    assert len(layers) == 1 and layers[0].attr("output_dims") == "input1" and layers[0].source == "onnxOpImporters.cpp:4560"


def test_tensorrt_feeds_a_shape_input_to_the_one_resize():
    model = model_for_target(FAMILIES["resize-sizes"](), resolve_target("tensorrt"), 17)[0]
    assert _node_ops(model) == ["Cast", "Resize"]  # int32 -> int64: ONNX's sizes are int64
    assert _dims(model.graph.output[0]) == ["batch", 3, None, None]
    assert [layer.kind for layer in importer_view(model)] == ["ICastLayer", "IResizeLayer"]


def test_tensorrt_dla_refuses_a_dynamic_dimension_citing_the_guide():
    with pytest.raises(TargetRuleError, match=r"network\.profiles\[0\]\.x: dimension 0 \('batch'\) is min/opt/max "
                                              r"1/2/3: DLA does not support dynamic dimensions.*General Restrictions"):
        model_for_target(FAMILIES["scale"](), resolve_target("tensorrt-dla"), 17)


def test_tensorrt_dla_takes_a_named_dimension_fixed_by_its_profile():
    fixed = {"min": [2, 3, 8, 8], "opt": [2, 3, 8, 8], "max": [2, 3, 8, 8]}
    doc = spec_doc({"x": {"dtype": "float16", "shape": ["batch", 3, 8, 8]}},
                   [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "scales": [1, 1, 2, 2]}], ["y"], [{"x": fixed}])
    spec = parse_spec(doc, Path("t.yaml"))
    model, _, _, problems = model_for_target(spec, resolve_target("tensorrt-dla"), 17)
    assert not problems, [str(p) for p in problems]
    assert [r.outcome for r in validate_spec(spec, Options(target=resolve_target("tensorrt-dla")))] == ["PASS"] * 3


def _resize_model(profiles=None):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 1024, 1024])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3, None, None])
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, 4, 4])
    graph = helper.make_graph([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="r")], "g", [x], [y], [scales])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    if profiles is not None:
        helper.set_model_props(model, {PROFILES_KEY: json.dumps({"profiles": profiles})})
    return model


def test_check_judges_the_element_limit_at_each_profiles_max():
    """[n, 3, 4096, 4096] holds 50,331,648 n elements: under 2^31 up to n = 42, over it at n = 64."""
    small = [{"x": {"min": [1, 3, 1024, 1024], "opt": [1, 3, 1024, 1024], "max": [42, 3, 1024, 1024]}}]
    big = small + [{"x": {"min": [1, 3, 1024, 1024], "opt": [8, 3, 1024, 1024], "max": [64, 3, 1024, 1024]}}]
    assert not check_model(_resize_model(small), "tensorrt")
    (problem,) = check_model(_resize_model(big), "tensorrt")
    assert problem.node == "r" and "3,221,225,472 elements at profile 1's max [64, 3, 4096, 4096]" in problem.reason


def test_check_does_not_judge_a_dynamic_tensor_without_profiles():
    assert not check_model(_resize_model(), "tensorrt")


def test_check_warns_of_dla_dynamic_dimensions_without_profiles_and_refuses_unequal_ones():
    model_problems = [p for p in check_model(_resize_model(), "tensorrt-dla") if not p.node]
    assert [p.severity for p in model_problems] == ["warning"] and "DLA does not support dynamic" in model_problems[0].reason
    fixed = [{"x": {"min": [2, 3, 1024, 1024], "opt": [2, 3, 1024, 1024], "max": [2, 3, 1024, 1024]}}]
    assert not [p for p in check_model(_resize_model(fixed), "tensorrt-dla") if not p.node]
    ranged = [{"x": {"min": [1, 3, 1024, 1024], "opt": [2, 3, 1024, 1024], "max": [2, 3, 1024, 1024]}}]
    assert [p.severity for p in check_model(_resize_model(ranged), "tensorrt-dla") if not p.node] == ["error"]


def test_reports_name_each_cases_shapes(tmp_path):
    from converter.report import to_junit

    results = list(validate_spec(FAMILIES["resize-sizes"](), Options()))
    assert [r.shapes for r in results] == ["x [1, 3, 4, 4], size = [1, 3, 2, 2]", "x [1, 3, 9, 5], size = [1, 3, 16, 24]",
                                           "x [1, 3, 6, 8], size = [1, 3, 7, 3]"]
    xml = to_junit(results, 1.0).decode()
    assert '<property name="shapes" value="x [1, 3, 9, 5], size = [1, 3, 16, 24]" />' in xml


def test_a_static_spec_reports_no_shapes():
    doc = spec_doc({"x": {"dtype": "float32", "shape": [1, 3, 2, 2]}},
                   [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM"}], ["y"],
                   cases=[{"name": "c", "inputs": {"x": np.zeros((1, 3, 2, 2)).tolist()}}])
    assert [r.shapes for r in validate_spec(parse_spec(doc, Path("t.yaml")), Options())] == [""]


def test_an_onnx_model_of_a_dynamic_spec_runs_at_every_shape_of_the_profile():
    """The done-when of issue 27: the model runs on onnxruntime at every shape of the profile and matches the
    reference (converter/reference, numpy only)."""
    import onnxruntime as ort

    from converter.reference import run_network

    spec = FAMILIES["resize-scales"]()
    model = model_for_target(spec, resolve_target("ort-cpu"), 17)[0]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for n in range(1, 4):
        for h in range(4, 10):
            for w in range(4, 13):
                x = rng.uniform(-1, 1, (n, 3, h, w)).astype(np.float32)
                (got,) = session.run(None, {"x": x})
                want = run_network(spec.network, {"x": x})["y"]
                assert got.shape == want.shape == (n, 3, 2 * h, int(np.floor(np.float32(w) * np.float32(1.5))))
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_run_takes_input_files_of_any_shape_inside_a_profile(tmp_path):
    import yaml

    from converter.api import run_spec
    from converter.errors import UserError

    spec_path = tmp_path / "s.yaml"
    spec_path.write_text(yaml.safe_dump(spec_doc({"x": {"dtype": "float32", "shape": ["batch", 3, 4, 4]}},
                                                 [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM",
                                                   "scale": [2.0]}], ["y"],
                                                 [{"x": {"min": [1, 3, 4, 4], "opt": [2, 3, 4, 4], "max": [4, 3, 4, 4]}}])))
    np.save(tmp_path / "x.npy", np.full((3, 3, 4, 4), 1.5, np.float32))
    (name, path, array), = run_spec(spec_path, None, [f"x={tmp_path / 'x.npy'}"], tmp_path / "out")
    assert name == "y" and array.shape == (3, 3, 4, 4) and np.all(array == 3.0)
    np.save(tmp_path / "big.npy", np.zeros((5, 3, 4, 4), np.float32))
    with pytest.raises(UserError, match=r"--input: the case's shapes \(x \[5, 3, 4, 4\]\) lie outside every profile"):
        run_spec(spec_path, None, [f"x={tmp_path / 'big.npy'}"], tmp_path / "out")


def test_the_sizes_of_a_dynamic_resize_count_as_a_shape_computation_onnxruntime_puts_on_the_cpu():
    """onnxruntime places every node fed only by CPU tensors (Shape's output, small initializers) on the CPU, float32
    too (GetCpuPreferredNodes skips float16/bfloat16/float8 only): with --provider cuda those nodes are allowed, the
    data path is not (converter/runners/placement.py)."""
    from converter.runners.placement import shape_only_nodes

    model = model_for_target(FAMILIES["resize-scales"](), resolve_target("ort-cuda"), 17)[0]
    allowed = shape_only_nodes(model)
    by_name = {n.name: n for n in model.graph.node}
    sizes_ops = {by_name[name].op_type for name in allowed}
    assert {"Shape", "Cast", "Mul", "Floor", "Where"} <= sizes_ops
    assert "Resize" not in sizes_ops and not any(by_name[n].op_type == "Reshape" and by_name[n].input[0] == "x" for n in allowed)


def test_check_judges_dlas_dimension_limit_at_the_profiles_max():
    """DLA: "The maximum supported size for non-batch dimensions is 8192" (General Restrictions); a fixed profile
    whose max holds one more is a GPU fallback (a warning), as a static shape of that size is."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, ["n", 4, "w"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT16, ["n", 4, "w"])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    def model_problems(width):
        fixed = {"x": {k: [1, 4, width] for k in ("min", "opt", "max")}}
        helper.set_model_props(model, {PROFILES_KEY: json.dumps({"profiles": [fixed]})})
        return [p for p in check_model(model, "tensorrt-dla") if not p.node]

    assert model_problems(8192) == []
    (problem,) = model_problems(8193)
    assert problem.severity == "warning" and "[1, 4, 8193] at the profile's max" in problem.reason


def test_a_resize_whose_input_is_empty_at_run_time_gives_an_empty_output(tmp_path):
    """A down-scale of a length-1 width is 0 at the profile's min (floor(1 * 0.5)); the next Resize's input is then
    empty, and so is its output (docs/semantics.md: an empty input gives an empty output). onnxruntime refused to
    resize the 0 it was given to the 1 the lowering raised it to ("Input dim is zero but required output dim is
    non-zero"), and a rank-3 fold failed in its Reshape (a 0 in the shape copies the input's dimension)."""
    from click.testing import CliRunner

    from cli import main

    for rank, mode, scales in ((4, "LINEAR", [1, 1, 2, 0.5]), (4, "CUBIC", [1, 1, 2, 0.5]), (3, "LINEAR", [1, 2, 2])):
        lead = [1] * (rank - 2)
        spec = tmp_path / f"e{rank}{mode}.yaml"
        spec.write_text(f"""
name: empty-{rank}-{mode.lower()}
network:
  inputs: {{x: {{dtype: float32, shape: {lead + [4, 'w']}}}}}
  layers:
    - {{name: down, op: trt.Resize, inputs: [x], resize_mode: NEAREST, scales: {[1] * (rank - 1) + [0.5]}}}
    - {{name: up, op: trt.Resize, inputs: [down], resize_mode: {mode}, scales: {scales}}}
  outputs: [up]
  profiles: [{{x: {{min: {lead + [4, 1]}, opt: {lead + [4, 4]}, max: {lead + [4, 8]}}}}}]
""")
        result = CliRunner().invoke(main, ["validate", "-j", "0", str(spec)])
        assert result.exit_code == 0 and "0 errors" in result.output, result.output
