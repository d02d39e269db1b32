"""trt.Resize lowering: every legal configuration converts, passes the checker and matches the reference on onnxruntime.

Also: NEAREST picks exact indices where onnxruntime's own Resize is one off, the in-graph index
arithmetic (run-time shapes) agrees with the reference on every size pair up to 59, and int8
results are rounded half to even.
"""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter import reference
from converter.pipeline.stages import Options, _resolved
from converter.pipeline.stages import _tolerance as spec_tolerances
from converter.compare import compare, resolve_tolerance
from converter.pipeline.legalize import host_model
from converter.lowering import build_model
from converter.lowering import resize as lowering
from converter.lowering.builder import NodeBuilder
from converter.network import Layer
from converter.reference.resize_kernel import resize as kernel_resize
from converter.registry import layer_kind
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.spec import load_spec
from converter.targets import TARGET_NAMES, Target

from ..helpers import one_layer_spec

TRANSFORMS = ("ASYMMETRIC", "HALF_PIXEL", "ALIGN_CORNERS")
ROUNDINGS = ("FLOOR", "CEIL", "HALF_UP", "HALF_DOWN")
DTYPES = ("float32", "float16", "int8")
DATA = {"int8": {"random": "integers", "low": -128, "high": 127, "seed": 1}, "float16": {"random": "normal", "seed": 1},
        "float32": {"random": "normal", "seed": 1}}


def resize_spec(in_shape, dtype="float32", shape_input=None, **attrs):
    """One trt.Resize layer 'y' over input x; shape_input=('int32', values) makes the output shape a run-time input."""
    inputs = {"x": (dtype, tuple(in_shape))}
    if shape_input:
        inputs["s"] = (shape_input[0], (len(in_shape),))
    spec = one_layer_spec("trt.Resize", inputs, attrs)
    spec.cases[0].inputs["x"] = materialize(in_shape, dtype)
    if shape_input:
        spec.cases[0].inputs["s"] = np.array(shape_input[1], dtype=shape_input[0])
    return spec


def materialize(shape, dtype, seed=1):
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        return rng.integers(-128, 128, size=shape).astype(np.int8)
    return rng.normal(size=shape).astype(dtype)


def host(model, target: str):
    """What validate runs on the CPU EP: a deployment model's host-legalized copy (converter/pipeline/legalize.py)."""
    return host_model(model, dla=target == "tensorrt-dla")[0] if Target(target).deployment else model


def run_and_compare(spec, opset=17, level="all", target="ort-cpu"):
    """Lower (with the full checker), run on onnxruntime, compare with the reference under the layer's default tolerance."""
    model = build_model(spec.network, opset=opset, target=Target(target))
    feeds = spec.cases[0].inputs
    got = OrtRunner(host(model, target).SerializeToString(), opt_level=level).run(feeds)["y"]
    want = reference.run_network(spec.network, feeds, arithmetic=target if Target(target).deployment else None)["y"]
    layer = spec.network.layers[0]
    kind_tol = layer_kind("trt.Resize").tolerance(layer, [spec.network.types[t] for t in layer.inputs])
    mismatch = compare(got, want, resolve_tolerance(spec.network.types["y"].dtype, kind_tol))
    assert mismatch is None, mismatch.describe()
    return model, got


def _configurations():
    """Every mode x dtype x rank (1..8; CUBIC 2..8) x way of giving the size, with attributes and the target
    (converter/targets) cycling through all values."""
    rng = np.random.default_rng(0)
    combos = itertools.cycle(itertools.product(TRANSFORMS, ("FORMULA", "UPPER"), ROUNDINGS))
    out = []
    for mode, dtype, rank, how in itertools.product(("NEAREST", "LINEAR", "CUBIC"), DTYPES, range(1, 9), ("shape", "scales", "int32", "int64")):
        if mode == "CUBIC" and rank < 2:
            continue
        window = lowering.window(mode, rank)
        in_shape = [int(v) for v in rng.integers(1, 3, size=rank - window)] + [int(v) for v in rng.integers(1, 5, size=window)]
        scales = [1.0] * (rank - window) + [float(rng.choice([0.5, 1.0, 1.5, 2.0, 2.5])) for _ in range(window)]
        transform, selector, rounding = next(combos)
        target = TARGET_NAMES[len(out) % len(TARGET_NAMES)]
        out.append(pytest.param(mode, dtype, in_shape, scales, how, transform, selector, rounding, target,
                                id=f"{mode}-{dtype}-rank{rank}-{how}-{transform}-{selector}-{rounding}-{target}"))
    return out


@pytest.mark.parametrize("mode, dtype, in_shape, scales, how, transform, selector, rounding, target", _configurations())
def test_every_legal_configuration_converts_checks_and_matches(mode, dtype, in_shape, scales, how, transform, selector, rounding, target):
    out_shape = [a if s == 1 else max(1, int(np.floor(np.float32(a) * np.float32(s)))) for a, s in zip(in_shape, scales)]
    attrs = dict(resize_mode=mode, coordinate_transformation=transform, selector_for_single_pixel=selector, nearest_rounding=rounding)
    if how == "shape":
        spec = resize_spec(in_shape, dtype, shape=out_shape, **attrs)
    elif how == "scales":
        spec = resize_spec(in_shape, dtype, scales=[s if a * s >= 1 else 1.0 for a, s in zip(in_shape, scales)], **attrs)
    else:
        spec = resize_spec(in_shape, dtype, shape_input=(how, out_shape), **attrs)
    run_and_compare(spec, target=target)
    run_and_compare(spec, opset=21, target=target)  # DequantizeLinear's since-version 21


@pytest.mark.parametrize("opset", range(13, 27))
@pytest.mark.parametrize("mode", ["NEAREST", "LINEAR", "CUBIC"])
def test_every_opset_from_13(mode, opset):
    run_and_compare(resize_spec([2, 3, 4], "int8" if opset % 2 else "float32", shape=[2, 6, 8], resize_mode=mode,
                                coordinate_transformation="HALF_PIXEL", selector_for_single_pixel="UPPER"), opset=opset)
    run_and_compare(resize_spec([2, 3, 4], "float16", shape_input=("int32", [2, 5, 2]), resize_mode=mode), opset=opset, level="disabled")


# --- NEAREST: exact indices -------------------------------------------------------------------

ORT_NEAREST = {"FLOOR": "floor", "CEIL": "ceil", "HALF_UP": "round_prefer_ceil", "HALF_DOWN": "round_prefer_floor"}
# (transform, rounding, L_in, L_out) where onnxruntime 1.31's Resize (float32 scale L_out / L_in) is one off
ORT_OFF = [("ASYMMETRIC", "FLOOR", 14, 8), ("ASYMMETRIC", "FLOOR", 14, 16), ("HALF_PIXEL", "FLOOR", 7, 1),
           ("HALF_PIXEL", "FLOOR", 10, 6), ("HALF_PIXEL", "FLOOR", 18, 10), ("HALF_PIXEL", "CEIL", 7, 19), ("HALF_PIXEL", "CEIL", 11, 13)]


def _ort_own_resize(x, transform, rounding, l_out):
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest", nearest_mode=ORT_NEAREST[rounding],
                            coordinate_transformation_mode=transform.lower())
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=[helper.make_tensor("sizes", TensorProto.INT64, [1], [l_out])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return OrtRunner(model.SerializeToString()).run({"x": x})["y"]


@pytest.mark.parametrize("transform, rounding, l_in, l_out", ORT_OFF)
def test_nearest_is_exact_where_onnxruntime_resize_is_one_off(transform, rounding, l_in, l_out):
    x = np.arange(l_in, dtype=np.float32)
    want = kernel_resize(x, (l_out,), coordinate_transformation=transform, nearest_rounding=rounding)
    assert not np.array_equal(_ort_own_resize(x, transform, rounding, l_out), want), "onnxruntime's Resize is no longer off here"
    for size in ({"shape": [l_out]}, {"shape_input": ("int64", [l_out])}):
        spec = resize_spec([l_in], coordinate_transformation=transform, nearest_rounding=rounding, **size)
        spec.cases[0].inputs["x"] = x
        _, got = run_and_compare(spec)
        np.testing.assert_array_equal(got, want)


def _index_graph(attrs) -> OrtRunner:
    """build_nearest_indices alone: int64 scalars L_in, L_out in, indices out."""
    b = NodeBuilder(Layer("idx", "trt.Resize", (), attrs))
    out = b.op("Identity", [lowering.build_nearest_indices(b, "l_in", "l_out", attrs)])
    graph = helper.make_graph(b.lowered.nodes, "g", [helper.make_tensor_value_info(n, TensorProto.INT64, []) for n in ("l_in", "l_out")],
                              [helper.make_tensor_value_info(out, TensorProto.INT64, [None])], initializer=b.lowered.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model, full_check=True)
    return OrtRunner(model.SerializeToString())


@pytest.mark.parametrize("transform, selector", [(t, s) for t in TRANSFORMS for s in ("FORMULA", "UPPER")])
def test_nearest_indices_on_every_size_pair_up_to_59(transform, selector):
    """The numpy constants (static shapes) and the in-graph integer math (run-time shapes) both equal the reference."""
    for rounding in ROUNDINGS:
        attrs = {"coordinate_transformation": transform, "selector_for_single_pixel": selector, "nearest_rounding": rounding}
        runner = _index_graph(attrs)
        for l_in, l_out in itertools.product(range(1, 60), repeat=2):
            want = kernel_resize(np.arange(l_in), (l_out,), coordinate_transformation=transform,
                                 selector_for_single_pixel=selector, nearest_rounding=rounding)
            static = lowering.nearest_indices(l_in, l_out, transform, selector, rounding)
            dynamic = next(iter(runner.run({"l_in": np.array(l_in), "l_out": np.array(l_out)}).values()))
            assert static.tolist() == want.tolist() == dynamic.tolist(), (rounding, l_in, l_out)


def test_nearest_lowers_to_gathers_that_say_why_where_onnxruntime_is_off():
    model = build_model(resize_spec([1, 3, 14, 5], shape=[1, 3, 8, 2]).network)  # 14 -> 8 ASYMMETRIC FLOOR: one off
    assert [n.op_type for n in model.graph.node] == ["Gather", "Gather"]
    assert all("exactly computed indices" in n.doc_string for n in model.graph.node)


@pytest.mark.parametrize("in_shape, out_shape, attrs", [
    ([1, 3, 4, 5], [1, 3, 8, 2], {}),  # 4 -> 8 (scale 2, exact), 5 -> 2 (x = 0, 2.5: far from an integer)
    ([1, 16, 32, 32], [1, 16, 64, 64], {"coordinate_transformation": "HALF_PIXEL", "nearest_rounding": "HALF_UP"}),
    ([2, 3, 9], [2, 3, 5], {"coordinate_transformation": "ALIGN_CORNERS", "nearest_rounding": "HALF_DOWN"}),
    ([2, 6, 8], [2, 3, 4], {"coordinate_transformation": "HALF_PIXEL", "nearest_rounding": "CEIL"}),  # 1/2: exact scale
])
@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_nearest_is_one_resize_where_onnxruntime_is_exact(in_shape, out_shape, attrs, dtype):
    spec = resize_spec(in_shape, dtype, shape=out_shape, **attrs)
    model, got = run_and_compare(spec)
    assert [n.op_type for n in model.graph.node] == ["Resize"]
    node = model.graph.node[0]
    assert "exact indices" in node.doc_string and list(node.input)[1:3] == ["", ""]
    np.testing.assert_array_equal(got, kernel_resize(spec.cases[0].inputs["x"], out_shape, **attrs))  # bit-exact


def test_nearest_float16_stays_gather_as_cpu_resize_has_no_float16():
    model = build_model(resize_spec([1, 3, 4, 4], "float16", shape=[1, 3, 8, 8]).network)
    assert [n.op_type for n in model.graph.node] == ["Gather", "Gather"]


ORT_MODES = [(t, s, r) for t, s in [("ASYMMETRIC", "FORMULA"), ("HALF_PIXEL", "FORMULA"), ("HALF_PIXEL", "UPPER"),
                                    ("ALIGN_CORNERS", "FORMULA")] for r in ROUNDINGS]


@pytest.mark.parametrize("transform, selector, rounding", ORT_MODES)
def test_one_resize_is_chosen_only_where_onnxruntime_gives_the_exact_indices(transform, selector, rounding):
    """The rule against onnxruntime's own NEAREST Resize: every size pair up to 40, random pairs up to 4,096, and
    integer factors. Wherever the rule picks a Resize, onnxruntime's indices equal the exact ones."""
    attrs = {"coordinate_transformation": transform, "selector_for_single_pixel": selector, "nearest_rounding": rounding}
    onnx_transform = "pytorch_half_pixel" if selector == "UPPER" else transform.lower()
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest", nearest_mode=ORT_NEAREST[rounding],
                            coordinate_transformation_mode=onnx_transform)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None]),
                                            helper.make_tensor_value_info("sizes", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    run = OrtRunner(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8).SerializeToString()).run
    rng = np.random.default_rng(0)
    pairs = list(itertools.product(range(1, 41), repeat=2)) + [tuple(int(v) for v in rng.integers(1, 4097, 2)) for _ in range(300)]
    pairs += [(a, k * a) for a in range(1, 200, 7) for k in (2, 3, 4)] + [(k * a, a) for a in range(1, 200, 7) for k in (2, 3, 4)]
    accepted = 0
    for l_in, l_out in pairs:
        if l_in == l_out or not lowering.ort_nearest_exact(l_in, l_out, attrs):
            continue
        accepted += 1
        got = next(iter(run({"x": np.arange(l_in, dtype=np.float32), "sizes": np.array([l_out], np.int64)}).values()))
        want = kernel_resize(np.arange(l_in, dtype=np.float32), (l_out,), **attrs)
        assert got.tolist() == want.tolist(), (l_in, l_out)
    assert accepted > len(pairs) // 4  # the rule is not vacuous
    assert lowering.ort_nearest_exact(512, 1024, attrs) and lowering.ort_nearest_exact(1024, 512, attrs)


@pytest.mark.parametrize("transform, rounding, l_in, l_out", ORT_OFF)
def test_the_rule_refuses_every_known_one_off_pair(transform, rounding, l_in, l_out):
    attrs = {"coordinate_transformation": transform, "selector_for_single_pixel": "FORMULA", "nearest_rounding": rounding}
    assert not lowering.ort_nearest_exact(l_in, l_out, attrs)


# --- LINEAR / CUBIC structure ------------------------------------------------------------------


@pytest.mark.parametrize("mode, dtype, in_shape, out_shape, nodes", [
    ("LINEAR", "float32", [2, 3, 4, 5], [2, 3, 8, 10], ["Resize"]),  # [N, C, H, W], outer scales 1: as is
    ("LINEAR", "float32", [2, 3, 4, 5, 6], [2, 3, 8, 1, 7], ["Resize"]),
    ("CUBIC", "float32", [2, 3, 4, 5], [2, 3, 8, 10], ["Resize"]),
    ("LINEAR", "float32", [4, 5], [8, 10], ["Reshape", "Resize", "Reshape"]),  # folded to [1, 1, 4, 5]
    ("LINEAR", "float32", [2, 3, 4, 5], [2, 6, 8, 10], ["Reshape", "Resize", "Reshape"]),  # m = 3: [1, 2, 3, 4, 5]
    ("CUBIC", "float32", [2, 2, 2, 3, 4, 5], [2, 2, 2, 3, 6, 7], ["Reshape", "Resize", "Reshape"]),
    ("LINEAR", "int8", [1, 1, 4, 4], [1, 1, 8, 8], ["Cast", "Resize", "Round", "Clip", "Cast"]),
    ("CUBIC", "float16", [1, 1, 4, 4], [1, 1, 8, 8], ["Cast", "Resize", "Cast"]),
    ("CUBIC", "float32", [1, 1, 4, 4], [1, 1, 4, 4], ["Identity"]),
])
def test_interpolation_emits_a_real_resize_and_folds_only_when_needed(mode, dtype, in_shape, out_shape, nodes):
    model = build_model(resize_spec(in_shape, dtype, shape=out_shape, resize_mode=mode).network)
    assert [n.op_type for n in model.graph.node] == nodes
    for node in model.graph.node:
        if node.op_type == "Resize":
            assert list(node.input)[1:3] == ["", ""]  # explicit sizes, never a scale
        if node.op_type == "Reshape" or node.op_type == "Cast":
            assert node.doc_string


@pytest.mark.parametrize("transform, selector, onnx_mode", [
    ("ASYMMETRIC", "FORMULA", b"asymmetric"), ("ASYMMETRIC", "UPPER", b"asymmetric"), ("ALIGN_CORNERS", "UPPER", b"align_corners"),
    ("HALF_PIXEL", "FORMULA", b"half_pixel"), ("HALF_PIXEL", "UPPER", b"pytorch_half_pixel"),
])
def test_coordinate_transformation_mapping(transform, selector, onnx_mode):
    model = build_model(resize_spec([1, 1, 4, 4], shape=[1, 1, 1, 3], resize_mode="CUBIC", cubic_coeff=-0.5,
                                    coordinate_transformation=transform, selector_for_single_pixel=selector).network)
    attrs = {a.name: helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
    assert attrs["coordinate_transformation_mode"] == onnx_mode and attrs["exclude_outside"] == 0
    assert attrs["cubic_coeff_a"] == pytest.approx(-0.5)


# --- int8: round half to even ------------------------------------------------------------------


@pytest.mark.parametrize("mode, values, expected", [
    # ASYMMETRIC 4 -> 8: x = 0, .5, 1, ..., 3.5 (clamped to 3): the odd positions are exact halves
    ("LINEAR", [1, 4, -3, 6], [1, 2, 4, 0, -3, 2, 6, 6]),  # 2.5 -> 2, 0.5 -> 0, 1.5 -> 2 (truncation: 2, 0, 1)
    ("LINEAR", [-1, -2, -3, -4], [-1, -2, -2, -2, -3, -4, -4, -4]),  # -1.5 -> -2, -2.5 -> -2, -3.5 -> -4
    # Keys A = -0.75 at t = .5: (-0.09375, 0.59375, 0.59375, -0.09375): -0.5 -> 0, overshoot saturates
    ("CUBIC", [-128, 127, 127, -128], [-128, 0, 127, 127, 127, 0, -128, -128]),
])
@pytest.mark.parametrize("how", ["shape", "int32"])
def test_int8_is_rounded_half_to_even_and_saturated(mode, values, expected, how):
    kw = {"shape": [1, 8]} if how == "shape" else {"shape_input": ("int32", [1, 8])}
    spec = resize_spec([1, 4], "int8", resize_mode=mode, **kw)
    spec.cases[0].inputs["x"] = np.array([values], np.int8)
    _, got = run_and_compare(spec)
    np.testing.assert_array_equal(got, np.array([expected], np.int8))


# --- default tolerance, odd shapes ---------------------------------------------------------------


def _tolerance(in_shape, dtype="float32", **attrs):
    spec = resize_spec(in_shape, dtype, **attrs)
    return lowering.tolerance(spec.network.layers[0], [spec.network.types["x"]])


def test_default_tolerance():
    assert _tolerance([4, 4], shape=[8, 8]) is None  # NEAREST: exact
    assert _tolerance([4, 4], "int8", resize_mode="LINEAR", shape=[8, 8]).atol == 0  # power-of-two ratio: exact
    assert _tolerance([4, 4], "int8", resize_mode="LINEAR", shape=[8, 6]).atol == 1  # 4 / 6: .5 ties may move
    assert _tolerance([4, 4], "int8", resize_mode="CUBIC", shape=[8, 8], cubic_coeff=-0.6).atol == 1
    small = _tolerance([4, 4], resize_mode="LINEAR", shape=[8, 8])
    large = _tolerance([2, 1000], resize_mode="LINEAR", shape=[2, 1001])
    assert small.atol < 1e-4 and 1e-3 < large.atol < 1e-2 and large.rtol > small.rtol


def test_a_dynamic_resize_feeds_a_static_one():
    doc_layers = [{"name": "r1", "op": "trt.Resize", "inputs": ["x", "s"], "resize_mode": "LINEAR"},
                  {"name": "y", "op": "trt.Resize", "inputs": ["r1"], "resize_mode": "CUBIC", "scales": [1, 1, 1.5, 0.5]}]
    from converter.pipeline.spec import parse_spec

    spec = parse_spec({"name": "t", "network": {"inputs": {"x": {"dtype": "float32", "shape": [2, 3, 4, 4]}, "s": {"dtype": "int64", "shape": [4]}},
                                                "layers": doc_layers, "outputs": ["y"]},
                       "cases": [{"name": "c", "inputs": {"x": {"random": "normal"}, "s": [2, 3, 6, 3]}}]}, __import__("pathlib").Path("t.yaml"))
    assert str(spec.network.types["y"]) == "float32[2, ?, ?, ?]"  # LINEAR's run-time shape may change dimension 1
    model = build_model(spec.network)
    got = OrtRunner(model.SerializeToString()).run(spec.cases[0].inputs)["y"]
    want = reference.run_network(spec.network, spec.cases[0].inputs)["y"]
    assert got.shape == want.shape == (2, 3, 9, 1)
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("mode", ["NEAREST", "LINEAR", "CUBIC"])
def test_empty_outputs(mode):
    run_and_compare(resize_spec([2, 3, 4], "float16", shape=[2, 0, 5], resize_mode=mode))
    run_and_compare(resize_spec([2, 3, 4], "float32", shape_input=("int64", [2, 0, 5]), resize_mode=mode))


def test_scales_multiply_in_float32():
    # 10 * 0.7 is 7 in float32 (6.9999999 with the float32 scale in float64); 3 * 1.5 = 4.5 -> 4
    spec = resize_spec([3, 10], scales=[1.5, 0.7])
    assert spec.network.types["y"].shape == (4, 7)


# --- targets: every bundled spec, lowered for each target, still validates on the CPU EP --------

SPECS = sorted((__import__("pathlib").Path(__file__).parents[2] / "specs" / "trt_resize").glob("*.yaml"))


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_every_bundled_resize_spec_lowered_for_each_target_validates_on_cpu(target):
    """Within tolerance of the reference, and bit-exact wherever the CPU lowering is bit-exact."""
    for path in SPECS:
        spec = load_spec(path)
        opset = spec.opset or 17
        base = OrtRunner(build_model(spec.network, opset=opset).SerializeToString())
        runner = OrtRunner(host(build_model(spec.network, opset=opset, target=Target(target)), target).SerializeToString())
        tolerances = {name: spec_tolerances(spec, name, Options()) for name in spec.network.outputs}
        for case in spec.cases:
            want = reference.run_network(spec.network, case.inputs)
            got, ref_cpu = runner.run(case.inputs), base.run(case.inputs)
            for name in spec.network.outputs:
                mismatch = compare(got[name], want[name], _resolved(tolerances, name, case))
                assert mismatch is None, f"{path.name}/{case.name}/{name} for {target}: {mismatch.describe()}"
                if np.array_equal(ref_cpu[name], want[name], equal_nan=True):
                    np.testing.assert_array_equal(got[name], want[name], err_msg=f"{path.name}/{case.name}/{name}")


@pytest.mark.parametrize("opset", [17, 22, 23])
@pytest.mark.parametrize("how", ["int32", "int64"])
def test_run_time_shapes_on_static_inputs_compute_no_shapes_for_cuda(how, opset):
    """onnxruntime places a chain of nodes fed by Shape on the CPU, which a CUDA session without CPU fallback
    refuses (trt-resize-dynamic-int32/-int64, trt-resize-cubic-single-pixel-upper on the H100): a known input
    shape is a constant instead. int8 results round by Add/Sub arithmetic: Round has no CUDA kernel for its
    since-version 22, QuantizeLinear none for 23."""
    for mode in ("NEAREST", "LINEAR", "CUBIC"):
        for dtype in ("float32", "int8"):
            spec = resize_spec([1, 2, 4, 4], dtype, shape_input=(how, [1, 2, 8, 3]), resize_mode=mode)
            model = build_model(spec.network, opset=opset, target=Target("ort-cuda"))
            ops = {n.op_type for n in model.graph.node}
            assert not ops & {"Shape", "Size", "Round"}, (mode, dtype, ops)
            if dtype == "int8" and mode != "NEAREST":
                assert {"Clip", "Add", "Sub", "Cast"} <= ops and "QuantizeLinear" not in ops
            run_and_compare(spec, opset=opset)


@pytest.mark.parametrize("target", ["portable", "tensorrt"])
def test_int8_through_quantize_dequantize_runs_exactly_on_openvino(target):
    """OpenVINO's low-precision passes move a DequantizeLinear through Interpolate (and failed on a per-axis
    scale); the no-op Max after it keeps it in place. Every int8 output equals the reference."""
    pytest.importorskip("openvino")
    from converter.runners import RunConfig, session

    for name in ("dtypes.yaml", "ranks.yaml"):
        spec = load_spec(SPECS[0].parent / name)
        model = build_model(spec.network, opset=spec.opset or 17, target=Target(target))
        assert "QuantizeLinear" in {n.op_type for n in model.graph.node}
        run = session(RunConfig(runtime="openvino"), model.SerializeToString())
        for case in spec.cases:
            got, want = run(case.inputs), reference.run_network(spec.network, case.inputs)
            for out, value in want.items():
                if value.dtype == np.int8:
                    np.testing.assert_array_equal(got[out], value, err_msg=f"{name}/{case.name}/{out}")


@pytest.mark.parametrize("target", ["portable"])
@pytest.mark.parametrize("in_shape, out_shape, attrs", [
    ([1, 1, 4, 6], [1, 1, 8, 3], {"coordinate_transformation": "HALF_PIXEL"}),
    ([2, 3, 5, 4], [2, 3, 1, 7], {"coordinate_transformation": "HALF_PIXEL", "selector_for_single_pixel": "UPPER"}),
    ([3, 5, 4], [3, 9, 2], {"coordinate_transformation": "ALIGN_CORNERS", "cubic_coeff": -0.5}),
    ([6, 4], [6, 11], {"coordinate_transformation": "ASYMMETRIC"}),
])
def test_cubic_for_portable_is_gather_taps_bit_identical_to_the_reference(target, in_shape, out_shape, attrs):
    """A portable model avoids cubic Resize (runtimes disagree on it): CUBIC becomes Gather * weight sums, the
    reference's own float32 arithmetic (static shape), or the same computed in the graph (run-time shape).
    (tensorrt's deployment model is one cubic Resize: tests/test_legalize.py.)"""
    spec = resize_spec(in_shape, shape=out_shape, resize_mode="CUBIC", **attrs)
    model, got = run_and_compare(spec, target=target)
    ops = [n.op_type for n in model.graph.node]
    assert "Resize" not in ops and "Gather" in ops
    np.testing.assert_array_equal(got, kernel_resize(spec.cases[0].inputs["x"], out_shape, resize_mode="CUBIC", **attrs))
    dynamic = resize_spec(in_shape, shape_input=("int32", out_shape), resize_mode="CUBIC", **attrs)
    model, got = run_and_compare(dynamic, target=target)
    assert "Resize" not in {n.op_type for n in model.graph.node}
    np.testing.assert_allclose(got, kernel_resize(dynamic.cases[0].inputs["x"], out_shape, resize_mode="CUBIC", **attrs),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("target", ["openvino", "portable", "ort-cpu", "ort-dml"])
@pytest.mark.parametrize("mode, dtype", [("NEAREST", "float32"), ("LINEAR", "float16"), ("CUBIC", "float32"),
                                         ("NEAREST", "int8"), ("LINEAR", "int8"), ("CUBIC", "float16")])
def test_a_resize_to_a_0_length_keeps_every_axis_on_openvino_and_onnxruntime(target, mode, dtype):
    """A static output with a 0 length has no value to compute. It was a Gather with an empty index constant, which
    OpenVINO's ONNX frontend reads as a scalar: the axis vanished ([1, 3, 8] for [1, 3, 0, 8]). Both runtimes must
    give the empty [1, 3, 0, 8] of the input's type."""
    pytest.importorskip("openvino")
    from converter.runners import RunConfig, session

    spec = resize_spec([1, 3, 4, 4], dtype, resize_mode=mode, shape=[1, 3, 0, 8])
    model = build_model(spec.network, opset=17, target=Target(target))
    x = {"x": materialize([1, 3, 4, 4], dtype)}
    for runtime in ("openvino", "onnxruntime"):
        got = session(RunConfig(runtime=runtime), host(model, target).SerializeToString())(x)["y"]
        assert got.shape == (1, 3, 0, 8), (runtime, got.shape)
        assert got.dtype == x["x"].dtype, (runtime, got.dtype)
