"""dml.DequantizeLinear lowering: which path each configuration takes, and that every path,
at every opset and optimization level, gives the reference's bits."""

from __future__ import annotations

import re

import numpy as np
import pytest

from converter import reference
from converter.lowering import build_model
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.selection import spec_files as find_spec_files
from converter.pipeline.spec import load_spec

from ..conftest import SPECS
from ..helpers import newest_opset_with_every_kernel, one_layer_spec

PATHS = ("native-per-tensor", "native-per-axis", "native-blocked", "decomposed")
INPUT_TYPES = ("int8", "int16", "int32", "uint8", "uint16", "uint32")
OPSETS = tuple(range(13, newest_opset_with_every_kernel() + 1))  # (onnxruntime 1.32 loads 28, has no DequantizeLinear-28)
OPT_LEVELS = ("all", "disabled")


def dq_spec(x_type="int8", out_type="float32", shape=(2, 3), zp="runtime", scale="runtime", zp_value=None, scale_value=None, **attrs):
    """A one-layer spec; zp / scale are 'runtime', 'none' (zp only) or 'const' (then *_value is the constant's data)."""
    inputs, constants, layer_inputs = {"x": (x_type, shape)}, {}, ["x", "s"]
    for name, kind, dtype, value in (("s", scale, out_type, scale_value), ("z", zp, x_type, zp_value)):
        if kind == "runtime":
            inputs[name] = (dtype, shape)
        elif kind == "const":
            constants[name] = {"dtype": dtype, "shape": list(shape), "data": np.broadcast_to(value, shape).tolist()}
        if kind != "none" and name == "z":
            layer_inputs.append("z")
    return one_layer_spec("dml.DequantizeLinear", inputs, attrs, constants=constants, layer_inputs=layer_inputs)


def path_of(model) -> str:
    """The path named in the doc strings of the layer's nodes (they all carry the same one)."""
    found = {m.group(1) for n in model.graph.node for m in [re.match(r"\[([a-z-]+)\]", n.doc_string)] if m}
    assert len(found) == 1, [n.doc_string for n in model.graph.node]
    return found.pop()


def extremes_and_random(dtype: str, shape, seed: int) -> np.ndarray:
    info = np.iinfo(dtype)
    values = np.random.default_rng(seed).integers(info.min, info.max, size=shape, endpoint=True)
    flat = values.reshape(-1)
    flat[:2] = (info.min, info.max) if seed % 2 else (info.max, info.min)
    return values.astype(dtype)


def feeds_for(spec, seed=0):
    feeds = {}
    for i, (name, ttype) in enumerate(spec.network.inputs.items()):
        if ttype.dtype.is_float:
            feeds[name] = np.random.default_rng(seed + i).uniform(-2, 2, ttype.shape).astype(ttype.dtype.numpy)
        else:
            feeds[name] = extremes_and_random(ttype.dtype.name, ttype.shape, seed + i)
    return feeds


def assert_same_bits(got: np.ndarray, want: np.ndarray):
    assert got.dtype == want.dtype and got.shape == want.shape
    unsigned = f"u{got.dtype.itemsize}"
    bad = got.view(unsigned) != want.view(unsigned)
    assert not bad.any(), f"{bad.sum()} differ, e.g. got {got[bad][:4]} want {want[bad][:4]}"


def run_everywhere(spec, opset, feeds):
    """Outputs at each optimization level, checked bit for bit against the reference."""
    want = reference.run_network(spec.network, feeds)["y"]
    model = build_model(spec.network, opset=opset)
    for level in OPT_LEVELS:
        assert_same_bits(OrtRunner(model.SerializeToString(), opt_level=level).run(feeds)["y"], want)
    return model


# --- which path ----------------------------------------------------------------------------------

AXIS1 = [[0.5, 1.0, 2.0]]  # varies along axis 1 of a (2, 3) tensor
FULL = [[0.5, 1.0, 2.0], [4.0, 8.0, 16.0]]


@pytest.mark.parametrize("kwargs, opset, path", [
    (dict(scale="const", scale_value=0.25, zp="const", zp_value=3), 13, "native-per-tensor"),
    (dict(scale="const", scale_value=0.25, zp="none"), 13, "native-per-tensor"),
    (dict(scale="const", scale_value=AXIS1, zp="const", zp_value=[[1, 2, 3]]), 13, "native-per-axis"),
    (dict(scale="const", scale_value=0.25, zp="const", zp_value=[[1], [2]]), 13, "native-per-axis"),
    (dict(x_type="int32", scale="const", scale_value=AXIS1, zp="const", zp_value=0), 13, "native-per-axis"),
    (dict(out_type="float16", scale="const", scale_value=AXIS1, zp="none"), 19, "decomposed"),  # float16: faster on CPU
    (dict(x_type="uint16", scale="const", scale_value=0.5, zp="const", zp_value=9), 21, "native-per-tensor"),
    (dict(scale="const", scale_value=FULL, zp="none"), 21, "native-blocked"),
    (dict(scale="const", scale_value=0.25, zp="runtime"), 21, "native-blocked"),
    (dict(), 21, "native-blocked"),
    (dict(x_type="int32", zp="none"), 21, "native-blocked"),
    (dict(out_type="float16"), newest_opset_with_every_kernel(), "decomposed"),
    (dict(), 20, "decomposed"),  # a full-shape scale needs opset 21
    (dict(scale="const", scale_value=FULL, zp="none"), 13, "decomposed"),
    (dict(x_type="uint32", scale="const", scale_value=0.5, zp="none"), 21, "decomposed"),
    (dict(x_type="int32"), 21, "decomposed"),  # int32 zero point
    (dict(x_type="int32", scale="const", scale_value=0.5, zp="const", zp_value=1), 21, "decomposed"),
    (dict(x_type="int16", scale="const", scale_value=0.5, zp="none"), 20, "decomposed"),
    (dict(out_type="float16", scale="const", scale_value=0.5, zp="none"), 18, "decomposed"),
    (dict(shape=(1, 1, 1)), 21, "decomposed"),  # no axis of length >= 2 for a blocked scale
    (dict(shape=(0, 3)), 21, "decomposed"),
])
def test_each_configuration_takes_its_path(kwargs, opset, path):
    spec = dq_spec(**kwargs)
    model = build_model(spec.network, opset=opset)
    assert path_of(model) == path
    ops = [n.op_type for n in model.graph.node]
    assert ops == ["DequantizeLinear"] if path.startswith("native") else "DequantizeLinear" not in ops
    legalizations = {p.key: p.value for p in model.metadata_props}["spec2onnx.legalizations"]
    assert f"[{path}]" in legalizations


@pytest.mark.parametrize("target, kwargs, opset, path", [
    ("ort-cuda", dict(out_type="float16", scale="const", scale_value=AXIS1, zp="none"), 19, "native-per-axis"),
    ("ort-cuda", dict(out_type="float16", scale="const", scale_value=0.5, zp="const", zp_value=3), 21, "native-per-tensor"),
    ("ort-cuda", dict(out_type="float16"), 21, "decomposed"),  # blocked: int4/uint4 only on CUDA
    ("ort-cuda", dict(x_type="int16", scale="const", scale_value=0.5, zp="none"), 21, "decomposed"),  # no CUDA int16
    ("ort-cuda", dict(scale="const", scale_value=0.5, zp="none"), 23, "decomposed"),  # DequantizeLinear-23: no CUDA kernel
    ("ort-cuda", dict(shape=(3,), scale="const", scale_value=[0.5, 1.0, 2.0], zp="none"), 13, "decomposed"),  # rank 1 per-axis
    ("tensorrt", dict(out_type="float16", scale="const", scale_value=AXIS1, zp="none"), 19, "native-per-axis"),
    ("tensorrt", dict(scale="const", scale_value=0.5, zp="const", zp_value=3), 13, "decomposed"),  # zero point must be 0
    ("tensorrt", dict(x_type="uint8", scale="const", scale_value=0.5, zp="none"), 13, "decomposed"),  # int8 only
    ("portable", dict(out_type="float16", scale="const", scale_value=AXIS1, zp="none"), 19, "decomposed"),
    ("portable", dict(scale="const", scale_value=AXIS1, zp="none"), 13, "native-per-axis"),
])
def test_each_target_takes_a_path_it_runs_and_keeps_the_bits(target, kwargs, opset, path):
    from converter.targets import Target

    spec = dq_spec(**kwargs)
    model = build_model(spec.network, opset=opset, target=Target(target))
    assert path_of(model) == path
    feeds = feeds_for(spec, seed=opset)
    want = reference.run_network(spec.network, feeds)["y"]
    for level in OPT_LEVELS:
        assert_same_bits(OrtRunner(model.SerializeToString(), opt_level=level).run(feeds)["y"], want)


@pytest.mark.parametrize("opset", (19, 21, 22))
@pytest.mark.parametrize("x_type", ("int8", "uint8"))
def test_native_float16_paths_give_the_references_bits(x_type, opset):
    """The CPU EP lowers float16 outputs through float32; the native float16 paths (for GPUs) must agree, bit for bit."""
    from converter.targets import Target

    for kwargs in (dict(scale="const", scale_value=0.125, zp="const", zp_value=3),
                   dict(scale="const", scale_value=AXIS1, zp="none")):
        spec = dq_spec(x_type, "float16", **kwargs)
        model = build_model(spec.network, opset=opset, target=Target("ort-cuda"))
        assert path_of(model).startswith("native")
        feeds = feeds_for(spec, seed=opset)
        want = reference.run_network(spec.network, feeds)["y"]
        for level in OPT_LEVELS:
            assert_same_bits(OrtRunner(model.SerializeToString(), opt_level=level).run(feeds)["y"], want)


def test_per_axis_and_per_tensor_use_compact_constants():
    model = build_model(dq_spec(scale="const", scale_value=AXIS1, zp="const", zp_value=[[1, 2, 3]]).network, opset=13)
    (node,) = model.graph.node
    assert {a.name: a.i for a in node.attribute} == {"axis": 1}
    shapes = {init.name: list(init.dims) for init in model.graph.initializer}
    assert [shapes[name] for name in node.input[1:]] == [[3], [3]]
    (node,) = build_model(dq_spec(scale="const", scale_value=0.5, zp="const", zp_value=3).network, opset=13).graph.node
    assert not node.attribute


def test_blocked_takes_the_first_axis_of_length_two_or_more():
    (node,) = build_model(dq_spec(shape=(1, 1, 3, 2)).network, opset=21).graph.node
    assert {a.name: a.i for a in node.attribute} == {"axis": 2, "block_size": 1}


def test_a_scale_with_signed_zeros_is_not_uniform():
    # -0.0 == 0.0 numerically, but (x - zp) * scale keeps the sign: a per-tensor scale would lose it.
    spec = dq_spec(scale="const", scale_value=[[0.0, -0.0, 0.0]], zp="none")
    model = build_model(spec.network, opset=13)
    assert path_of(model) == "native-per-axis"
    run_everywhere(spec, 13, {"x": np.array([[3, 3, -3], [-3, -3, 3]], np.int8)})


def test_a_constant_quantized_input_is_never_fed_to_dequantize_linear():
    # onnxruntime rewrote DequantizeLinear of constant int8 weights and zeroed negatives (issues 27845, 28491).
    spec = one_layer_spec("dml.DequantizeLinear", {"s": ("float32", (2, 2))}, {}, layer_inputs=["w", "s"],
                          constants={"w": {"dtype": "int8", "shape": [2, 2], "data": [[12, -45], [7, -3]]}})
    for opset in (13, 21):
        model = run_everywhere(spec, opset, {"s": np.full((2, 2), 0.02, np.float32)})
        assert path_of(model) == "decomposed"


def test_bundled_spec_names_say_the_path_they_take():
    checked = 0
    for path in find_spec_files([SPECS / "dml_dequantize"]):
        spec = load_spec(path)
        named = [p for p in PATHS if re.search(rf"-{p}(-opset\d+)?$", spec.name)]
        assert len(named) == 1, spec.name
        assert path_of(build_model(spec.network, opset=spec.opset)) == named[0], spec.name
        checked += 1
    assert checked >= 40


def test_the_bundled_suite_exercises_every_path():
    names = [load_spec(p).name for p in find_spec_files([SPECS / "dml_dequantize"])]
    for path in PATHS:
        assert any(f"-{path}" in name for name in names), path


# --- same bits everywhere ------------------------------------------------------------------------


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("x_type", INPUT_TYPES)
def test_every_type_and_opset_matches_the_reference_bit_for_bit(x_type, opset):
    for out_type in ("float32", "float16"):
        for zp in ("runtime", "none"):
            spec = dq_spec(x_type, out_type, shape=(3, 4), zp=zp)
            run_everywhere(spec, opset, feeds_for(spec, seed=opset))


@pytest.mark.parametrize("opset", (13, 19, 21, newest_opset_with_every_kernel()))
@pytest.mark.parametrize("x_type", INPUT_TYPES)
def test_constant_scales_and_zero_points_match_the_reference(x_type, opset):
    zero_points = {"int8": [[-128, 0, 127]], "int16": [[-32768, 0, 32767]], "int32": [[0, 0, 0]],
                   "uint8": [[0, 128, 255]], "uint16": [[0, 1, 65535]], "uint32": [[0, 1, 4294967295]]}
    for out_type in ("float32", "float16"):
        for scale_value in (0.125, AXIS1, FULL):
            spec = dq_spec(x_type, out_type, scale="const", scale_value=scale_value, zp="const", zp_value=zero_points[x_type])
            run_everywhere(spec, opset, feeds_for(spec, seed=opset))


def test_hand_values_on_every_path():
    # (x - zp) * scale with x = [-128, 127, 5], zp = 2: -130 * 0.5, 125 * 0.5, 3 * 0.5
    x = np.array([[-128, 127, 5], [-128, 127, 5]], np.int8)
    want = np.array([[-65.0, 62.5, 1.5]] * 2, np.float32)
    configs = [(dict(scale="const", scale_value=0.5, zp="const", zp_value=2), 13, {}),
               (dict(scale="const", scale_value=0.5, zp="runtime"), 21, {"z": np.full((2, 3), 2, np.int8)}),
               (dict(scale="const", scale_value=0.5, zp="runtime"), 17, {"z": np.full((2, 3), 2, np.int8)})]
    for kwargs, opset, extra in configs:
        spec = dq_spec(**kwargs)
        model = build_model(spec.network, opset=opset)
        for level in OPT_LEVELS:
            got = OrtRunner(model.SerializeToString(), opt_level=level).run({"x": x, **extra})["y"]
            np.testing.assert_array_equal(got, want)


def test_int32_zero_point_extremes_do_not_wrap():
    # onnxruntime's int32 DequantizeLinear subtracts in int32: 2147483647 - (-2147483648) would wrap to -1.
    spec = dq_spec("int32", shape=(1, 2))
    feeds = {"x": np.array([[2147483647, -2147483648]], np.int32), "s": np.ones((1, 2), np.float32),
             "z": np.array([[-2147483648, 2147483647]], np.int32)}
    model = build_model(spec.network, opset=21)
    for level in OPT_LEVELS:
        got = OrtRunner(model.SerializeToString(), opt_level=level).run(feeds)["y"]
        np.testing.assert_array_equal(got, [[4294967296.0, -4294967296.0]])  # float32(+-4294967295)


# --- attributes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("written, level", [(6.2, "6.2"), ("6.2", "6.2"), (6, "6.0"), (2.1, "2.1"), ("1.0", "1.0")])
def test_feature_level_is_written_as_a_number_or_text(written, level):
    spec = dq_spec("uint8", shape=(1, 2, 2, 1), feature_level=written)  # 4-D uint8: allowed at every level
    assert spec.network.layers[0].attrs["feature_level"] == level


def test_defaults_are_the_newest_level_and_the_scales_type():
    spec = dq_spec(out_type="float16", zp="none")
    assert spec.network.layers[0].attrs["feature_level"] == "6.2"
    assert spec.network.types["y"].dtype.name == "float16"
    assert dq_spec(out_type="float16", output_dtype="float16").network.types["y"].dtype.name == "float16"


# --- 32-bit differences: exact, then rounded once ----------------------------------------------------------------

def round_to_bits(d: int, bits: int) -> int:
    """The integer d rounded to ``bits`` significant bits, ties to even: Python integers only (no float casts)."""
    m = abs(d)
    shift = max(m.bit_length() - bits, 0)
    if shift == 0:
        return d
    q, r = divmod(m, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return (q << shift) * (1 if d >= 0 else -1)


# (x, zero point, float32(x - zero point)), the last worked out by hand: float32 has 24 significant bits, so
# from 2^24 to 2^25 the spacing is 2, from 2^25 to 2^26 it is 4, from 2^30 to 2^31 128, from 2^31 to 2^32 256;
# a tie goes to the even significand (the multiple of twice the spacing).
EDGES_32 = {
    "int32": [
        (16777217, 0, 16777216),  # 2^24 + 1: tie between 2^24 and 2^24 + 2 -> 2^24
        (16777219, 0, 16777220),  # 2^24 + 3: tie between 2^24 + 2 and 2^24 + 4 -> 2^24 + 4
        (16777217, 1, 16777216),  # exact 2^24 (float32 would give 2^24 - 1 = 16777215 from the rounded operands)
        (33554433, 0, 33554432),  # 2^25 + 1: nearer 2^25 than 2^25 + 4
        (33554434, 0, 33554432),  # 2^25 + 2: tie -> 2^25
        (33554438, 0, 33554440),  # 2^25 + 6: tie between 2^25 + 4 and 2^25 + 8 -> 2^25 + 8
        (1073741824, -64, 1073741824),  # 2^30 + 64: tie between 2^30 and 2^30 + 128 -> 2^30
        (2147483647, -2147483648, 4294967296),  # 2^32 - 1 -> 2^32 (not a wrapped -1)
        (-2147483648, 2147483647, -4294967296),
        (2147483647, -129, 2147483648),  # 2^31 + 128: tie between 2^31 and 2^31 + 256 -> 2^31
        (2147483647, -385, 2147484160),  # 2^31 + 384: tie between 2^31 + 256 and 2^31 + 512 -> 2^31 + 512
        (2147483647, -386, 2147484160),  # 2^31 + 385: above the tie
        (-2147483648, 129, -2147483904),  # -(2^31 + 129): nearer -(2^31 + 256) than -2^31
        (-1, 2147483647, -2147483648),  # -2^31, exact
        (-2, 2147483647, -2147483648),  # -(2^31 + 1) -> -2^31
        (-2147483648, -2147483648, 0),
        (5, 5, 0),
        (-7, 2, -9),
    ],
    "uint32": [
        (4294967295, 0, 4294967296),  # 2^32 - 1 -> 2^32
        (0, 4294967295, -4294967296),
        (4294967295, 4294967295, 0),
        (16777217, 0, 16777216),
        (16777217, 1, 16777216),
        (4294967295, 2147483519, 2147483648),  # 2^31 + 128: tie -> 2^31
        (2147484032, 0, 2147484160),  # 2^31 + 384: tie -> 2^31 + 512
        (0, 2147483776, -2147483648),  # -(2^31 + 128): tie -> -2^31
        (4294967294, 0, 4294967296),  # 2^32 - 2 -> 2^32
        (4294967167, 0, 4294967040),  # 2^32 - 129: nearer 2^32 - 256 than 2^32
        (4294967168, 0, 4294967296),  # 2^32 - 128: tie between 2^32 - 256 (odd significand) and 2^32 -> 2^32
        (3, 10, -7),
    ],
}


def test_the_hand_worked_edges_agree_with_integer_rounding():
    for rows in EDGES_32.values():
        for x, z, want in rows:
            assert round_to_bits(x - z, 24) == want, (x, z)


def _edge_spec(x_type, out_type, zp, zp_value=None):
    """x of shape (2, n): both rows the table's inputs; the zero point full-shape (runtime / const) or one row read
    through strides [0, 1] (runtime-strided)."""
    n = len(EDGES_32[x_type])
    shape = (2, n)
    if zp == "runtime-strided":
        return one_layer_spec("dml.DequantizeLinear", {"x": (x_type, shape), "s": (out_type, shape), "z": (x_type, (n,))},
                              {"strides": {"zero_point": [0, 1]}})
    return dq_spec(x_type, out_type, shape=shape, zp=zp, zp_value=zp_value)


@pytest.mark.parametrize("zp", ["runtime", "const", "runtime-strided"])
@pytest.mark.parametrize("x_type", ["int32", "uint32"])
def test_32_bit_differences_are_exact_then_rounded_once(x_type, zp):
    rows = EDGES_32[x_type]
    x = np.array([[r[0] for r in rows]] * 2, x_type)
    z = np.array([r[1] for r in rows], x_type)
    diff = [r[2] for r in rows]
    # float32: scales 1 and -2^-20 keep the product exact; float16: 2^-17 keeps it within float16's normal range
    # (|d| <= 2^32 -> at most 2^15), so the output is float32(d) rounded once more to 11 significant bits.
    for out_type, scale, rounded in (("float32", 1.0, diff), ("float32", -(2.0 ** -20), diff),
                                     ("float16", 2.0 ** -17, [round_to_bits(d, 11) for d in diff])):
        spec = _edge_spec(x_type, out_type, zp, zp_value=np.broadcast_to(z, x.shape))
        feeds = {"x": x, "s": np.full(x.shape, scale, out_type)}
        if zp != "const":
            feeds["z"] = z if zp == "runtime-strided" else np.broadcast_to(z, x.shape).copy()
        want = np.array([[d * scale for d in rounded]] * 2, out_type)
        assert [float(v) for v in want[0]] == [d * scale for d in rounded]  # every expected value is representable
        np.testing.assert_array_equal(reference.run_network(spec.network, feeds)["y"], want)
        for opset in (13, 17, 21, newest_opset_with_every_kernel()):
            model = build_model(spec.network, opset=opset)
            assert path_of(model) == "decomposed"
            for level in OPT_LEVELS:
                assert_same_bits(OrtRunner(model.SerializeToString(), opt_level=level).run(feeds)["y"], want)


# --- openvino: the 32-bit difference without int64 ---------------------------------------------------------------

def _edges(dtype: str) -> np.ndarray:
    """Values where a high/low split can go wrong: the type's ends, around 2^16, 2^24 and 2^31, and just below
    multiples of 65536 that float32 rounds up (x = 65536 k - 1 for large k)."""
    info = np.iinfo(dtype)
    picks = [info.min, info.min + 1, info.max - 1, info.max, 0, 1, 255, 256, 65535, 65536, 65537, 2**24 - 1, 2**24 + 1,
             2**31 - 65537, 2**31 - 65536, 2**31 - 129, 2**31 - 128, 2**31 - 1, 65536 * 40000 - 1, 65536 * 40000 + 127,
             -1, -65536, -65537, -(2**31) + 65535, -(2**24) - 3]
    return np.array([v for v in picks if info.min <= v <= info.max], np.int64)


@pytest.mark.parametrize("x_type", ["int32", "uint32"])
@pytest.mark.parametrize("zp", ["runtime", "const"])
@pytest.mark.parametrize("out_type", ["float32", "float16"])
def test_openvino_subtracts_32_bit_operands_exactly_on_openvino_and_onnxruntime(x_type, zp, out_type):
    """OpenVINO's CPU plugin computes int64 in int32: the int64 Sub gave uint32 3000000000 - 1 as -1294967296 and int32
    2147483647 - (-2147483648) as -1 there. The openvino model splits each operand instead (_split_difference); on
    both runtimes every pair of edge values and random ones gives float32(x - zp) * scale, x - zp computed exactly in
    Python integers here."""
    pytest.importorskip("openvino")
    from converter.targets import Target
    from converter.runners import RunConfig, session

    edges = _edges(x_type)
    rng = np.random.default_rng(7)
    info = np.iinfo(x_type)
    x = np.concatenate([np.repeat(edges, len(edges)), rng.integers(info.min, info.max, 300, endpoint=True)])
    z = np.concatenate([np.tile(edges, len(edges)), rng.integers(info.min, info.max, 300, endpoint=True)])
    if zp == "const":
        z = np.full_like(z, edges[len(edges) // 2 + 3])  # (a constant zero point is one value here)
    shape = (1, x.size)
    scale = rng.choice(np.array([1, 0.5, 3.0, 1e-3], np.float32), size=shape).astype(out_type)
    spec = dq_spec(x_type, out_type, shape=shape, scale="runtime", zp=zp, zp_value=z.reshape(shape) if zp == "const" else None)
    feeds = {"x": x.reshape(shape).astype(x_type), "s": scale}
    if zp == "runtime":
        feeds["z"] = z.reshape(shape).astype(x_type)
    exact = [float(a) - float(b) for a, b in zip(x.tolist(), z.tolist())]  # (Python ints: exact, then one rounding)
    with np.errstate(over="ignore"):  # (a float16 product past 65504 is inf: the rounding rule)
        want = (np.array(exact, np.float64).astype(np.float32).reshape(shape) * scale.astype(np.float32)).astype(out_type)
    model = build_model(spec.network, opset=17, target=Target("openvino"))
    assert not any(t.data_type == 7 for t in model.graph.initializer)  # (no int64 constant: nothing 64-bit)
    assert "Cast" in {n.op_type for n in model.graph.node}
    for runtime in ("openvino", "onnxruntime"):
        got = session(RunConfig(runtime=runtime), model.SerializeToString())(feeds)["y"]
        assert_same_bits(got, want)


@pytest.mark.parametrize("target", ["ort-dml", "openvino"])
def test_a_float16_output_stays_one_node_for_the_deployment_targets(target):
    """The float16 decomposition is for onnxruntime's CPU EP's speed: it went into the ort-dml and openvino models too,
    an onnxruntime workaround in another runtime's model. Those keep the one DequantizeLinear, with the reference's bits
    on onnxruntime (and on OpenVINO where installed)."""
    from converter.targets import Target

    spec = dq_spec("int8", "float16", shape=(2, 3), scale="runtime", zp="runtime")
    model = build_model(spec.network, opset=21, target=Target(target))
    assert [n.op_type for n in model.graph.node] == ["DequantizeLinear"]
    feeds = feeds_for(spec)
    want = reference.run_network(spec.network, feeds)["y"]
    assert_same_bits(OrtRunner(model.SerializeToString()).run(feeds)["y"], want)
    cpu = build_model(spec.network, opset=21, target=Target("ort-cpu"))
    assert "DequantizeLinear" not in {n.op_type for n in cpu.graph.node}  # (the CPU EP's decomposition stays)
