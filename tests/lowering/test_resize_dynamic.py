"""trt.Resize to a run-time shape on onnxruntime (issue 34, item 1): as fast as the static model, bit-identical to it.

NEAREST: an ``If`` runs onnxruntime's own Resize where, at the run's lengths, its float32 coordinates give the exact
indices, else the exact Gathers. The in-graph test (``build_ort_nearest_exact``, integer arithmetic) must say what
``ort_nearest_exact`` (the static lowering's rule, itself checked against onnxruntime in test_resize.py) says, on
every size pair up to 48, at the limits, and on random pairs; and the dynamic model's output must be the static
model's, bit for bit, and the numpy reference's, at random shapes inside the profile, for every mode, coordinate
transformation, selector and rounding.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

import tests.fuzz.conftest  # noqa: F401  (registers and loads the hypothesis profiles: ci, nightly, dev)
from converter.lowering import resize as lowering
from converter.lowering.builder import NodeBuilder
from converter.network import Layer
from converter.pipeline.stages import model_for_target
from converter.reference.resize_kernel import resize as kernel_resize
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.spec import parse_spec
from converter.targets import resolve_target

ROUNDINGS = ("FLOOR", "CEIL", "HALF_UP", "HALF_DOWN")
MODES = [(t, s, r) for t, s in [("ASYMMETRIC", "FORMULA"), ("ASYMMETRIC", "UPPER"), ("HALF_PIXEL", "FORMULA"),
                                ("HALF_PIXEL", "UPPER"), ("ALIGN_CORNERS", "FORMULA"), ("ALIGN_CORNERS", "UPPER")]
         for r in ROUNDINGS]


def _attrs(transform, selector, rounding):
    return {"coordinate_transformation": transform, "selector_for_single_pixel": selector, "nearest_rounding": rounding}


def _rule_graph(attrs):
    """build_ort_nearest_exact alone: int64 vectors L_in, L_out in (one entry per axis), a bool out."""
    b = NodeBuilder(Layer("rule", "trt.Resize", (), attrs))
    out = b.op("Identity", [lowering.build_ort_nearest_exact(b, "l_in", "l_out", attrs)])
    graph = helper.make_graph(b.lowered.nodes, "g", [helper.make_tensor_value_info(n, TensorProto.INT64, [None]) for n in ("l_in", "l_out")],
                              [helper.make_tensor_value_info(out, TensorProto.BOOL, [])], initializer=b.lowered.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    run = OrtRunner(model.SerializeToString()).run
    return lambda l_in, l_out: bool(next(iter(run({"l_in": np.array(l_in, np.int64).reshape(-1),
                                                   "l_out": np.array(l_out, np.int64).reshape(-1)}).values())))


LIMIT_PAIRS = [(2**22 - 1, 2**21), (2**22, 2**21), (2**21, 2**22), (2**22 - 1, 2**22 - 2), (2**22 + 1, 1), (2**22, 1),
               (2**22 - 1, 1), (4095, 4097), (4096, 4096), (4097, 4095), (2**12, 2**13), (3 * 2**20, 2**21),
               (2**23 - 1, 2**23 - 1)]


@pytest.mark.parametrize("transform, selector, rounding", MODES)
def test_the_in_graph_rule_says_what_ort_nearest_exact_says(transform, selector, rounding):
    attrs = _attrs(transform, selector, rounding)
    in_graph = _rule_graph(attrs)
    accepted = 0
    for l_in, l_out in list(itertools.product(range(1, 49), repeat=2)) + LIMIT_PAIRS:
        want = lowering.ort_nearest_exact(l_in, l_out, attrs)
        accepted += want
        assert in_graph(l_in, l_out) == want, (l_in, l_out)
    assert 0 < accepted < 48 * 48 + len(LIMIT_PAIRS)  # neither side is vacuous


@settings(max_examples=max(20, settings.default.max_examples))
@given(mode=st.sampled_from(MODES), l_in=st.integers(1, 2**23), l_out=st.integers(1, 2**23),
       factor=st.sampled_from((None, 2, 3, 4, 8, 1 / 2, 1 / 4, 3 / 2, 2 / 3)),
       second=st.tuples(st.integers(1, 300), st.integers(1, 300)))
def test_the_in_graph_rule_agrees_on_random_pairs(mode, l_in, l_out, factor, second):
    """One axis, then two (the graph tests every resized axis in one pass: all of them must pass)."""
    if factor is not None:  # the ratios resizes are made with
        l_out = max(1, int(l_in * factor))
    attrs = _attrs(*mode)
    rule = _rule_graph(attrs)
    want = lowering.ort_nearest_exact(l_in, l_out, attrs)
    assert rule(l_in, l_out) == want
    both = want and lowering.ort_nearest_exact(*second, attrs)
    assert rule([l_in, second[0]], [l_out, second[1]]) == rule([second[0], l_in], [second[1], l_out]) == both


# --- the converted models --------------------------------------------------------------------------


def _doc(dims, dtype, attrs, profile=None):
    layer = {"name": "y", "op": "trt.Resize", "inputs": ["x"], **attrs}
    network = {"inputs": {"x": {"dtype": dtype, "shape": list(dims)}}, "layers": [layer], "outputs": ["y"]}
    if profile:
        network["profiles"] = [profile]
    return {"name": "resize", "network": network, "cases": []}


def _model(doc, target="ort-cpu") -> onnx.ModelProto:
    spec = parse_spec(doc, Path("resize.yaml"), require_cases=False)
    return model_for_target(spec, resolve_target(target), 17)[0]


def _data(shape, dtype, seed=0, special=True):
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        return rng.integers(-128, 128, shape).astype(np.int8)
    x = rng.normal(size=shape).astype(dtype)
    if special:  # copied bits, not values: NaN, -0 and inf included
        x.reshape(-1)[:3] = [np.nan, -0.0, np.inf][: x.size]
    return x


PROFILE = {"x": {"min": [1, 2, 1, 1], "opt": [1, 2, 8, 8], "max": [2, 3, 40, 40]}}


def test_dynamic_nearest_runs_one_resize_exactly_where_the_rule_accepts_the_lengths():
    """The If's condition, made a graph output, is the rule over the resized axes; the output is the reference's
    whichever branch ran (14 -> 21 HALF_PIXEL FLOOR is accepted, 7 -> 10 refused: onnxruntime is off there)."""
    attrs = {"scales": [1, 1, 1.5, 1.5], "coordinate_transformation": "HALF_PIXEL"}
    model = _model(_doc(["n", "c", "h", "w"], "float32", attrs, PROFILE))
    (cond,) = [n.input[0] for n in model.graph.node if n.op_type == "If"]
    model.graph.output.append(helper.make_tensor_value_info(cond, TensorProto.BOOL, []))
    run = OrtRunner(model.SerializeToString()).run
    rule = _attrs("HALF_PIXEL", "FORMULA", "FLOOR")
    seen = set()
    for h, w in [(14, 14), (7, 7), (14, 7), (32, 40), (1, 1), (2, 3), (40, 17)]:
        x = _data((2, 3, h, w), "float32")
        out = (2, 3, int(h * 1.5), int(w * 1.5))
        got = run({"x": x})
        want_cond = all(lowering.ort_nearest_exact(a, b, rule) for a, b in zip((h, w), out[2:]))
        assert bool(got[cond]) == want_cond, (h, w)
        seen.add(want_cond)
        np.testing.assert_array_equal(got["y"], kernel_resize(x, out, coordinate_transformation="HALF_PIXEL"))
        assert got["y"].tobytes() == kernel_resize(x, out, coordinate_transformation="HALF_PIXEL").tobytes()
    assert seen == {True, False}


def test_dynamic_nearest_on_other_targets_keeps_the_gathers():
    """Only onnxruntime's Resize is what the rule describes: OpenVINO and portable models keep exact Gathers."""
    attrs = {"scales": [1, 1, 2, 2]}
    for target in ("openvino", "portable"):
        ops = [n.op_type for n in _model(_doc(["n", "c", "h", "w"], "float32", attrs, PROFILE), target).graph.node]
        assert "If" not in ops and ops.count("Gather") >= 2, (target, ops)
    assert "If" in [n.op_type for n in _model(_doc(["n", "c", "h", "w"], "float32", attrs, PROFILE), "ort-cuda").graph.node]


SCALES = (1.0, 2.0, 0.5, 1.5, 3.0, 0.75, 4.0, 1.25)


@pytest.mark.parametrize("mode, transform, scales, shape", [
    ("LINEAR", "ASYMMETRIC", [1, 1, 1.0, 0.75], [1, 2, 2, 4]),  # a CI seed (2503253196): 2 ulp apart, fixed
    ("LINEAR", "HALF_PIXEL", [1, 1, 1.0, 0.5], [2, 3, 5, 8]),
    ("LINEAR", "ALIGN_CORNERS", [1, 1, 0.75, 1.0], [1, 2, 4, 7]),
    ("CUBIC", "ASYMMETRIC", [1, 1, 1.0, 0.75], [1, 2, 3, 4]),
])
def test_a_downscale_keeping_an_axis_is_bit_identical_to_the_static_model(mode, transform, scales, shape):
    """A scale below 1 (an output length may be 0 at run time) with an axis kept: the dynamic model once folded the
    outer dimensions into one, and onnxruntime's bilinear kernel then saw one row where the static model has H (its
    0.5/0.5 weights for a single row round differently). Now it resizes at the input's own rank, as the static does."""
    attrs = {"resize_mode": mode, "scales": scales, "coordinate_transformation": transform}
    x = _data(shape, "float32", seed=sum(shape), special=False)
    dynamic = OrtRunner(_model(_doc(["n", "c", "h", "w"], "float32", attrs, PROFILE)).SerializeToString()).run({"x": x})["y"]
    static = OrtRunner(_model(_doc(shape, "float32", attrs)).SerializeToString()).run({"x": x})["y"]
    assert dynamic.shape == static.shape == tuple(int(np.floor(np.float32(a) * np.float32(s))) for a, s in zip(shape, scales))
    assert dynamic.tobytes() == static.tobytes()
    np.testing.assert_allclose(dynamic, kernel_resize(x, dynamic.shape, resize_mode=mode,
                                                      coordinate_transformation=transform), rtol=1e-5, atol=1e-5)


@settings(max_examples=max(20, settings.default.max_examples // 2), deadline=None)
@given(data=st.data())
def test_dynamic_models_are_bit_identical_to_static_ones_at_random_shapes(data):
    """Every mode, transformation, selector and rounding; float32, float16 and int8: the ort-cpu model with named
    dimensions and a profile, at a shape drawn inside the profile, gives the bytes of the model with that shape
    written in; NEAREST's (of data with NaN, -0 and inf) also equal the numpy reference's."""
    mode = data.draw(st.sampled_from(("NEAREST", "LINEAR", "CUBIC")), label="mode")
    transform, selector, rounding = data.draw(st.sampled_from(MODES), label="transform, selector, rounding")
    dtype = data.draw(st.sampled_from(("float32", "float16", "int8")), label="dtype")
    scales = [1.0, 1.0] + [data.draw(st.sampled_from(SCALES), label=f"scale {ax}") for ax in (2, 3)]
    shape = [data.draw(st.integers(lo, hi), label=f"dim {ax}")
             for ax, (lo, hi) in enumerate(zip(PROFILE["x"]["min"], PROFILE["x"]["max"]))]
    attrs = {"resize_mode": mode, "scales": scales, "coordinate_transformation": transform,
             "selector_for_single_pixel": selector, "nearest_rounding": rounding}
    out = [a if s == 1 else int(np.floor(np.float32(a) * np.float32(s))) for a, s in zip(shape, scales)]
    note(f"{shape} -> {out}")
    # (finite data for LINEAR/CUBIC: the static model's bicubic over [N, C, H, W] weighs the taps of an unchanged H by
    # 0, and 0 * NaN spreads a NaN to the next rows, which neither the reference nor the dynamic model does)
    x = _data(shape, dtype, seed=sum(shape), special=mode == "NEAREST")
    dynamic = OrtRunner(_model(_doc(["n", "c", "h", "w"], dtype, attrs, PROFILE)).SerializeToString()).run({"x": x})["y"]
    static = OrtRunner(_model(_doc(shape, dtype, attrs)).SerializeToString()).run({"x": x})["y"]
    assert dynamic.shape == static.shape == tuple(out)
    if mode == "NEAREST":  # copies: every bit, NaN's included
        assert dynamic.tobytes() == static.tobytes()
    else:  # arithmetic on finite data: every bit (-0 too)
        assert dynamic.tobytes() == static.tobytes()
    if mode == "NEAREST":
        want = kernel_resize(x, out, coordinate_transformation=transform, selector_for_single_pixel=selector,
                             nearest_rounding=rounding)
        assert dynamic.tobytes() == want.tobytes()


@pytest.mark.parametrize("mode", ["LINEAR", "CUBIC"])
def test_dynamic_interpolation_by_scales_from_1_up_is_the_resize_alone(mode):
    """Scales >= 1 never make a length 0 (floor(a * s) >= a): the [N, C, H, W] input goes to onnxruntime's Resize as
    it is, without the folding Reshapes and the Slice (the last Reshape copied the whole output: 12% of the Resize);
    a scale below 1 keeps the Slice, which makes a run-time length of 0."""
    ops = [n.op_type for n in _model(_doc(["n", "c", "h", "w"], "float32", {"resize_mode": mode, "scales": [1, 1, 2, 1.5]},
                                          PROFILE)).graph.node]
    assert ops.count("Resize") == 1 and not {"Reshape", "Slice"} & set(ops), ops
    model = _model(_doc(["n", "c", "h", "w"], "float32", {"resize_mode": mode, "scales": [1, 1, 0.5, 2]}, PROFILE))
    assert "Slice" in [n.op_type for n in model.graph.node]
    x = _data((2, 3, 1, 5), "float32")
    got = OrtRunner(model.SerializeToString()).run({"x": x})["y"]
    assert got.shape == (2, 3, 0, 10) == kernel_resize(x, (2, 3, 0, 10), resize_mode=mode).shape
