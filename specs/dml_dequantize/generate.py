"""Generate the dml.DequantizeLinear conformance specs (shared/seeds/004).

Run from the repo root: python -m specs.dml_dequantize.generate

* type matrix: every input type x output type x zero point present/absent, ranks 1 to 8
  spread over them; a literal case (the hand table below, tiled) and a random case;
* lowering paths: constant scales / zero points that select per-tensor, per-axis and
  blocked DequantizeLinear and each reason for the decomposition, at opsets 13 to 26;
* edges: tiny, negative, zero and non-finite scales, float32 and float16 overflow;
* feature levels: an allowed combination of each level (the refused ones are in
  tests/bad_specs/dml_dequantize/).

Each spec name ends with the lowering path it is meant to take at its opset for the CPU EP
(tests/lowering/test_dequantize.py checks that it does): float16 outputs take the decomposition
there, faster than onnxruntime's CPU DequantizeLinear to float16; their native paths are lowered
for ort-cuda and tensorrt and checked in the same test file. Every expected value below is
computed by hand from output = float32(input - zero_point) * scale, rounded once to the
output type (docs/semantics.md); the comments show the steps. Random cases carry no
expected values: they are checked against the numpy reference. Tolerance is 0: every
lowering path is meant to give the reference's bits.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from specs._tools.writer import write_specs

SOURCE = "DirectML DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC (shared/seeds/004)"
SHORT = {"float32": "f32", "float16": "f16"}
INF = float("inf")
NAN = float("nan")

# Four elements per input type: input at its minimum with the zero point at its maximum,
# input at its maximum with the zero point at its minimum, then two small values.
# expected[(output type, zero point?)] = (input - zero_point) * scale, rounded by hand.
HAND = {
    "int8": dict(
        x=[-128, 127, 5, -7], zp=[127, -128, 5, -3], scale=[0.5, -0.25, 3.0, 1.5],
        # differences -255, 255, 0, -4; without zero point -128, 127, 5, -7; all products exact in float16
        expected={("float32", True): [-127.5, -63.75, 0.0, -6.0], ("float32", False): [-64.0, -31.75, 15.0, -10.5],
                  ("float16", True): [-127.5, -63.75, 0.0, -6.0], ("float16", False): [-64.0, -31.75, 15.0, -10.5]}),
    "uint8": dict(
        x=[0, 255, 200, 7], zp=[255, 0, 100, 10], scale=[0.5, -0.25, 0.125, 2.0],
        # differences -255, 255, 100, -3; without zero point 0, 255, 200, 7
        expected={("float32", True): [-127.5, -63.75, 12.5, -6.0], ("float32", False): [0.0, -63.75, 25.0, 14.0],
                  ("float16", True): [-127.5, -63.75, 12.5, -6.0], ("float16", False): [0.0, -63.75, 25.0, 14.0]}),
    "int16": dict(
        x=[-32768, 32767, 1000, -1], zp=[32767, -32768, 999, 1], scale=[0.5, -0.25, 3.0, 1.5],
        # differences -65535, 65535, 1, -2 -> -32767.5, -16383.75, 3, -3 (exact in float32);
        # float16 steps are 16 in [16384, 32768) and 8 in [8192, 16384): -32768, -16384.
        # without zero point: -16384, -8191.75, 3000, -1.5; float16 step 4 in [4096, 8192): -8192.
        expected={("float32", True): [-32767.5, -16383.75, 3.0, -3.0], ("float32", False): [-16384.0, -8191.75, 3000.0, -1.5],
                  ("float16", True): [-32768.0, -16384.0, 3.0, -3.0], ("float16", False): [-16384.0, -8192.0, 3000.0, -1.5]}),
    "uint16": dict(
        x=[0, 65535, 40000, 3], zp=[65535, 0, 39999, 5], scale=[0.5, -0.25, 0.5, 1.5],
        # differences -65535, 65535, 1, -2 -> -32767.5, -16383.75, 0.5, -3; float16 as for int16.
        # without zero point: 0, -16383.75, 20000, 4.5; 20000 is a multiple of float16's step 16.
        expected={("float32", True): [-32767.5, -16383.75, 0.5, -3.0], ("float32", False): [0.0, -16383.75, 20000.0, 4.5],
                  ("float16", True): [-32768.0, -16384.0, 0.5, -3.0], ("float16", False): [0.0, -16384.0, 20000.0, 4.5]}),
    "int32": dict(
        x=[-2147483648, 2147483647, 16777217, -5], zp=[2147483647, -2147483648, 1, -2], scale=[0.5, -0.25, 1.0, 2.0],
        # exact differences -4294967295, 4294967295, 16777216, -3; float32 rounds them to -2^32, 2^32, 2^24, -3.
        # (float32 subtraction would give 16777216 - 1 = 16777215; int32 subtraction would wrap to 1 and -1.)
        # without zero point float32(x) = -2^31, 2^31, 2^24 (16777217 ties to even), -5.
        expected={("float32", True): [-2147483648.0, -1073741824.0, 16777216.0, -6.0],
                  ("float32", False): [-1073741824.0, -536870912.0, 16777216.0, -10.0]}),
    "uint32": dict(
        x=[0, 4294967295, 16777217, 5], zp=[4294967295, 0, 1, 7], scale=[0.5, -0.25, 1.0, 1.5],
        # exact differences -4294967295, 4294967295, 16777216, -2 -> float32 -2^32, 2^32, 2^24, -2.
        # without zero point float32(x) = 0, 2^32, 2^24, 5.
        expected={("float32", True): [-2147483648.0, -1073741824.0, 16777216.0, -3.0],
                  ("float32", False): [0.0, -1073741824.0, 16777216.0, 7.5]}),
}
# float16 outputs of 32-bit inputs use tiny scales (2^-24 is float16's smallest subnormal) so the results stay finite:
# 2^32 * 2^-24 = 256, 2^32 * -2^-20 = -4096, 2^24 * 2^-14 = 1024; without zero point 2^31 * 2^-24 = 128, 2^31 * -2^-20 = -2048.
TINY_F16_SCALES = [2.0**-24, -(2.0**-20), 2.0**-14]
HAND["int32"]["scale_f16"] = TINY_F16_SCALES + [2.0]
HAND["int32"]["expected"].update({("float16", True): [-256.0, -4096.0, 1024.0, -6.0], ("float16", False): [-128.0, -2048.0, 1024.0, -10.0]})
HAND["uint32"]["scale_f16"] = TINY_F16_SCALES + [1.5]
HAND["uint32"]["expected"].update({("float16", True): [-256.0, -4096.0, 1024.0, -3.0], ("float16", False): [0.0, -4096.0, 1024.0, 7.5]})

# One shape per rank, each with a multiple of 4 elements (the hand table is tiled) and an axis of length >= 2.
SHAPES = {1: [8], 2: [3, 4], 3: [2, 3, 2], 4: [2, 2, 3, 2], 5: [2, 1, 3, 2, 2], 6: [1, 2, 2, 1, 3, 2],
          7: [2, 1, 2, 1, 1, 3, 2], 8: [1, 2, 1, 2, 1, 2, 1, 3]}
INPUT_TYPES = ("int8", "int16", "int32", "uint8", "uint16", "uint32")


def tiled(values, shape):
    """The 4 hand values repeated to fill ``shape``, as nested lists."""
    count = int(np.prod(shape))
    return np.resize(np.array(values, dtype=object), count).reshape(shape).tolist()


def spec(name, opset, inputs, layer_inputs, cases, constants=None, **attrs):
    network = {"inputs": {n: {"dtype": d, "shape": list(s)} for n, (d, s) in inputs.items()}}
    if constants:
        network["constants"] = {n: {"dtype": d, "shape": list(np.shape(v)), "data": v} for n, (d, v) in constants.items()}
    network["layers"] = [{"name": "y", "op": "dml.DequantizeLinear", "inputs": layer_inputs, **attrs}]
    network["outputs"] = ["y"]
    return {"name": name, "source": SOURCE, "opset": opset, "tolerance": {"atol": 0, "rtol": 0}, "network": network, "cases": cases}


def random_scale(x_type, out_type, seed):
    # 32-bit differences reach 2^32: keep float16 products finite with scales below 1e-5 (float16 subnormals).
    bound = 1e-5 if out_type == "float16" and x_type.endswith("32") else 2.0
    return {"random": "uniform", "low": -bound, "high": bound, "seed": seed}


def type_matrix() -> list[dict]:
    out, index = [], 0
    for x_type in INPUT_TYPES:
        for out_type in ("float32", "float16"):
            for with_zp in (True, False):
                rank = index % 8 + 1
                shape = SHAPES[rank]
                hand = HAND[x_type]
                scale = hand["scale_f16"] if out_type == "float16" and "scale_f16" in hand else hand["scale"]
                path = "decomposed" if x_type == "uint32" or (x_type == "int32" and with_zp) or out_type == "float16" else "native-blocked"
                inputs = {"x": (x_type, shape), "scale": (out_type, shape)}
                literal = {"x": tiled(hand["x"], shape), "scale": tiled(scale, shape)}
                rand = {"x": {"random": "integers", "seed": 10 * index}, "scale": random_scale(x_type, out_type, 10 * index + 1)}
                if with_zp:
                    inputs["zp"] = (x_type, shape)
                    literal["zp"] = tiled(hand["zp"], shape)
                    rand["zp"] = {"random": "integers", "seed": 10 * index + 2}
                cases = [{"name": "hand-extremes", "inputs": literal, "expected": {"y": tiled(hand["expected"][(out_type, with_zp)], shape)}},
                         {"name": "random", "inputs": rand}]
                zp_tag = "zp" if with_zp else "nozp"
                out.append(spec(f"gen-dml-dq-{x_type}-{SHORT[out_type]}-r{rank}-{zp_tag}-{path}", 21, inputs, list(inputs), cases))
                index += 1
    return out


def path_specs() -> list[dict]:
    out = []
    # per-tensor, opset 13: scale 0.25 and zero point -3 everywhere; (x + 3) / 4.
    x = [[[-128, 127], [0, -3]], [[1, 2], [3, 4]]]
    out.append(spec(
        "gen-dml-dq-int8-f32-r3-zp-native-per-tensor-opset13", 13, {"x": ("int8", [2, 2, 2])}, ["x", "scale", "zp"],
        [{"name": "hand", "inputs": {"x": x}, "expected": {"y": [[[-31.25, 32.5], [0.75, 0.0]], [[1.0, 1.25], [1.5, 1.75]]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 1}}}],
        constants={"scale": ("float32", [[[0.25] * 2] * 2] * 2), "zp": ("int8", [[[-3] * 2] * 2] * 2)}))
    # per-axis along axis 1, opset 13: scale [0.5, 1, 2] and zero point [0, 128, 255] per column.
    out.append(spec(
        "gen-dml-dq-uint8-f32-r2-zp-native-per-axis-opset13", 13, {"x": ("uint8", [2, 3])}, ["x", "scale", "zp"],
        # row 0: (0-0)*0.5, (128-128)*1, (255-255)*2; row 1: (255-0)*0.5, (0-128)*1, (1-255)*2
        [{"name": "hand", "inputs": {"x": [[0, 128, 255], [255, 0, 1]]}, "expected": {"y": [[0.0, 0.0, 0.0], [127.5, -128.0, -508.0]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 2}}}],
        constants={"scale": ("float32", [[0.5, 1.0, 2.0]] * 2), "zp": ("uint8", [[0, 128, 255]] * 2)}))
    # per-axis along axis 0 with float16, opset 19 (the first with float16 DequantizeLinear).
    out.append(spec(
        "gen-dml-dq-int8-f16-r2-zp-decomposed-opset19", 19, {"x": ("int8", [3, 2])}, ["x", "scale", "zp"],
        # differences [[126, -129], [-127, 128], [100, -100]] times 0.5, -2, 0.125 per row
        [{"name": "hand", "inputs": {"x": [[127, -128], [-128, 127], [100, -100]]},
          "expected": {"y": [[63.0, -64.5], [254.0, -256.0], [12.5, -12.5]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 3}}}],
        constants={"scale": ("float16", [[0.5, 0.5], [-2.0, -2.0], [0.125, 0.125]]), "zp": ("int8", [[1, 1], [-1, -1], [0, 0]])}))
    # per-tensor float16 without zero point, opset 21 (int16 needs 21): scale 2^-10.
    # 32767 / 1024 = 31.9990234375; float16's step in [16, 32) is 2^-6, so it rounds to 32.
    out.append(spec(
        "gen-dml-dq-int16-f16-r2-nozp-decomposed-opset21", 21, {"x": ("int16", [2, 2])}, ["x", "scale"],
        [{"name": "hand", "inputs": {"x": [[-32768, 32767], [1, -1]]}, "expected": {"y": [[-32.0, 32.0], [2.0**-10, -(2.0**-10)]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 4}}}],
        constants={"scale": ("float16", [[2.0**-10] * 2] * 2)}))
    # int32 with a zero point of zeros: the zero point is dropped, so DequantizeLinear applies (per-axis, axis 1).
    # float32(2147483647) = 2^31; float32(16777217) = 2^24.
    out.append(spec(
        "gen-dml-dq-int32-f32-r2-zp-zeros-native-per-axis-opset13", 13, {"x": ("int32", [2, 2])}, ["x", "scale", "zp"],
        [{"name": "hand", "inputs": {"x": [[2147483647, -2147483648], [16777217, 3]]},
          "expected": {"y": [[2147483648.0, -1073741824.0], [16777216.0, 1.5]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 5}}}],
        constants={"scale": ("float32", [[1.0, 0.5]] * 2), "zp": ("int32", [[0, 0]] * 2)}))
    # constant scale varying along both axes: blocked. (x - zp) * [[1, 2], [3, 4]].
    out.append(spec(
        "gen-dml-dq-int8-f32-r2-zp-const-scale-native-blocked-opset21", 21, {"x": ("int8", [2, 2]), "zp": ("int8", [2, 2])},
        ["x", "scale", "zp"],
        [{"name": "hand", "inputs": {"x": [[127, -128], [0, 5]], "zp": [[-128, 127], [0, 6]]}, "expected": {"y": [[255.0, -510.0], [0.0, -4.0]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 6}, "zp": {"random": "integers", "seed": 7}}}],
        constants={"scale": ("float32", [[1.0, 2.0], [3.0, 4.0]])}))
    # uniform constant scale but a runtime zero point: not per-tensor, blocked (opset 26, the newest here).
    out.append(spec(
        "gen-dml-dq-uint16-f16-r3-zp-runtime-zp-decomposed-opset26", 26, {"x": ("uint16", [1, 2, 2]), "zp": ("uint16", [1, 2, 2])},
        ["x", "scale", "zp"],
        # scale 2: (65535-0)*2 = 131070 overflows float16 -> inf; (0-65535)*2 -> -inf; (7-3)*2 = 8; (3-7)*2 = -8
        [{"name": "hand", "inputs": {"x": [[[65535, 0], [7, 3]]], "zp": [[[0, 65535], [3, 7]]]}, "expected": {"y": [[[INF, -INF], [8.0, -8.0]]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 8}, "zp": {"random": "integers", "seed": 9}}}],
        constants={"scale": ("float16", [[[2.0, 2.0], [2.0, 2.0]]])}))
    # decomposed: int16 before opset 21, float16 before opset 19, no axis of length >= 2, a constant input.
    out.append(spec(
        "gen-dml-dq-int16-f32-r2-zp-decomposed-opset13", 13, {"x": ("int16", [2, 2]), "scale": ("float32", [2, 2]), "zp": ("int16", [2, 2])},
        ["x", "scale", "zp"],
        [{"name": "hand", "inputs": {"x": [[-32768, 32767], [0, 0]], "scale": [[1.0, 1.0], [1.0, -1.0]], "zp": [[32767, -32768], [0, 1]]},
          "expected": {"y": [[-65535.0, 65535.0], [0.0, 1.0]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 10}, "scale": {"random": "uniform", "low": -1, "high": 1, "seed": 11},
                                       "zp": {"random": "integers", "seed": 12}}}]))
    out.append(spec(
        "gen-dml-dq-uint8-f16-r3-zp-decomposed-opset17", 17, {"x": ("uint8", [2, 1, 2])}, ["x", "scale", "zp"],
        # per-axis constants, but float16 DequantizeLinear starts at opset 19: (x - [0, 255]) * [1, -0.5]
        [{"name": "hand", "inputs": {"x": [[[255, 0]], [[1, 254]]]}, "expected": {"y": [[[255.0, 127.5]], [[1.0, 0.5]]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 13}}}],
        constants={"scale": ("float16", [[[1.0, -0.5]], [[1.0, -0.5]]]), "zp": ("uint8", [[[0, 255]], [[0, 255]]])}))
    out.append(spec(
        "gen-dml-dq-int8-f32-r3-zp-ones-shape-decomposed-opset21", 21, {"x": ("int8", [1, 1, 1]), "scale": ("float32", [1, 1, 1]),
                                                                        "zp": ("int8", [1, 1, 1])}, ["x", "scale", "zp"],
        [{"name": "hand", "inputs": {"x": [[[-128]]], "scale": [[[-0.5]]], "zp": [[[127]]]}, "expected": {"y": [[[127.5]]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 14}, "scale": {"random": "uniform", "low": -2, "high": 2, "seed": 15},
                                       "zp": {"random": "integers", "seed": 16}}}]))
    out.append(spec(
        "gen-dml-dq-int8-f32-r2-zp-constant-input-decomposed-opset21", 21, {"scale": ("float32", [2, 2])}, ["w", "scale", "zp"],
        # the onnxruntime issue's weights [12, -45, 7, -3] with zero point 0: negatives must stay negative
        [{"name": "hand", "inputs": {"scale": [[0.5, 0.5], [0.25, -1.0]]}, "expected": {"y": [[6.0, -22.5], [1.75, 3.0]]}},
         {"name": "random", "inputs": {"scale": {"random": "uniform", "low": -2, "high": 2, "seed": 17}}}],
        constants={"w": ("int8", [[12, -45], [7, -3]]), "zp": ("int8", [[0, 0], [0, 0]])}))
    out.append(spec(
        "gen-dml-dq-uint32-f32-r2-zp-per-axis-consts-decomposed-opset21", 21, {"x": ("uint32", [2, 3])}, ["x", "scale", "zp"],
        # uint32 never has DequantizeLinear; the per-axis constants stay compact: zp [0, 1, 4294967295], scale [1, 0.5, -1]
        [{"name": "hand", "inputs": {"x": [[4294967295, 1, 0], [0, 4294967295, 4294967295]]},
          "expected": {"y": [[4294967296.0, 0.0, 4294967296.0], [0.0, 2147483648.0, -0.0]]}},
         {"name": "random", "inputs": {"x": {"random": "integers", "seed": 18}}}],
        constants={"scale": ("float32", [[1.0, 0.5, -1.0]] * 2), "zp": ("uint32", [[0, 1, 4294967295]] * 2)}))
    out.append(spec(
        "gen-dml-dq-int8-f32-r2-zp-empty-decomposed-opset21", 21, {"x": ("int8", [0, 3]), "scale": ("float32", [0, 3]), "zp": ("int8", [0, 3])},
        ["x", "scale", "zp"],
        [{"name": "random", "inputs": {"x": {"random": "integers", "seed": 19}, "scale": {"random": "uniform", "seed": 20},
                                       "zp": {"random": "integers", "seed": 21}}}]))
    return out


def edge_specs() -> list[dict]:
    out = []
    min_sub, min_normal, max_f32 = 2.0**-149, 2.0**-126, float(np.finfo(np.float32).max)
    out.append(spec(
        "gen-dml-dq-int16-f32-r1-zp-tiny-negative-scales-native-blocked", 21,
        {"x": ("int16", [6]), "scale": ("float32", [6]), "zp": ("int16", [6])}, ["x", "scale", "zp"],
        # differences 1, -2, 1, 65535, 2, -1 times -2^-149, 2^-126, -max, 2^-140, max, -2^-149:
        # -2^-149 (smallest subnormal), -2^-125, -max, 65535 * 2^-140 (exact: 16 bits), 2 * max overflows to inf, +2^-149
        [{"name": "hand", "inputs": {"x": [1, -2, 0, 32767, 1, 0], "zp": [0, 0, -1, -32768, -1, 1],
                                     "scale": [-min_sub, min_normal, -max_f32, 2.0**-140, max_f32, -min_sub]},
          "expected": {"y": [-min_sub, -(2.0**-125), -max_f32, 65535 * 2.0**-140, INF, min_sub]}},
         {"name": "random-tiny", "inputs": {"x": {"random": "integers", "seed": 30}, "zp": {"random": "integers", "seed": 31},
                                            "scale": {"random": "uniform", "low": -1e-38, "high": 1e-38, "seed": 32}}}]))
    out.append(spec(
        "gen-dml-dq-uint8-f16-r1-nozp-subnormal-scales-decomposed", 21, {"x": ("uint8", [4]), "scale": ("float16", [4])}, ["x", "scale"],
        # 255 * 2^-24 and 3 * 3*2^-24 stay float16 subnormals (multiples of 2^-24); 1 * -2^-14 is the smallest normal
        [{"name": "hand", "inputs": {"x": [255, 3, 1, 0], "scale": [2.0**-24, 3 * 2.0**-24, -(2.0**-14), -(2.0**-24)]},
          "expected": {"y": [255 * 2.0**-24, 9 * 2.0**-24, -(2.0**-14), -0.0]}},
         {"name": "random-tiny", "inputs": {"x": {"random": "integers", "seed": 33},
                                            "scale": {"random": "uniform", "low": -1e-6, "high": 1e-6, "seed": 34}}}]))
    out.append(spec(
        "gen-dml-dq-uint16-f16-r1-nozp-overflow-decomposed", 21, {"x": ("uint16", [4]), "scale": ("float16", [4])}, ["x", "scale"],
        # float16's largest finite value is 65504; 65519 rounds down to it, 65520 is the halfway point and rounds (to even) to inf
        [{"name": "hand", "inputs": {"x": [65504, 65519, 65520, 65535], "scale": [1.0, 1.0, 1.0, -1.0]},
          "expected": {"y": [65504.0, 65504.0, INF, -INF]}}]))
    out.append(spec(
        "gen-dml-dq-int8-f32-r1-zp-zero-and-nonfinite-scales-native-blocked", 21,
        {"x": ("int8", [8]), "scale": ("float32", [8]), "zp": ("int8", [8])}, ["x", "scale", "zp"],
        # DirectML leaves a zero scale undefined; spec2onnx computes the IEEE product: differences 5, -5, -5, 0 times
        # 0, -0, 0, -0 give 0, +0, -0, -0; differences 5, 5, 0, 1 times inf, -inf, inf, nan give inf, -inf, nan, nan
        [{"name": "hand", "inputs": {"x": [5, -5, -5, 0, 5, 5, 0, 1], "zp": [0, 0, 0, 0, 0, 0, 0, 0],
                                     "scale": [0.0, -0.0, 0.0, -0.0, INF, -INF, INF, NAN]},
          "expected": {"y": [0.0, 0.0, -0.0, -0.0, INF, -INF, NAN, NAN]}}]))
    return out


def feature_level_specs() -> list[dict]:
    """One allowed combination per feature level (each level's refused ones are bad specs)."""
    out = []
    combos = [("1.0", "uint8", "float32", True, 4), ("2.1", "int16", "float32", True, 4), ("2.1", "uint32", "float32", True, 4),
              ("3.0", "int32", "float32", True, 1), ("3.0", "uint16", "float32", True, 8), ("6.0", "int8", "float16", True, 5),
              ("6.0", "uint32", "float16", True, 2), ("6.2", "uint8", "float16", False, 3)]
    for seed, (level, x_type, out_type, with_zp, rank) in enumerate(combos, start=40):
        shape = SHAPES[rank]
        path = "decomposed" if x_type == "uint32" or (x_type == "int32" and with_zp) or out_type == "float16" else "native-blocked"
        inputs = {"x": (x_type, shape), "scale": (out_type, shape)}
        rand = {"x": {"random": "integers", "seed": seed}, "scale": random_scale(x_type, out_type, seed + 100)}
        if with_zp:
            inputs["zp"] = (x_type, shape)
            rand["zp"] = {"random": "integers", "seed": seed + 200}
        name = f"gen-dml-dq-fl{level}-{x_type}-{SHORT[out_type]}-r{rank}-{'zp' if with_zp else 'nozp'}-{path}"
        out.append(spec(name, 21, inputs, list(inputs), [{"name": "random", "inputs": rand}], feature_level=float(level)))
    return out


# Where another runtime departs from these semantics (seen with --runtime openvino / onnx-reference).
OPENVINO_INT64 = ("OpenVINO's CPU plugin computes int64 tensors in int32 (it lowers i64 precision), so the exact "
                  "int64 difference of 32-bit inputs and zero points wraps (the openvino target's model subtracts "
                  "without int64)")
INT64_TARGETS = ("ort-*", "portable", "tensorrt*")  # every target but openvino: their models subtract in int64
ONNX_REFERENCE_DQ13 = "onnx's ReferenceEvaluator implements DequantizeLinear only from opset 19"
OPENVINO_BLOCKED_DYNAMIC = ("OpenVINO's ONNX frontend converts blocked DequantizeLinear of a static input only ('DequantizeLinear "
                            "cannot operate with dynamic shapes of input X', dequantize_linear.cpp): the model of ort-cpu and "
                            "ort-dml keeps it native; the other targets' take the decomposition, which it runs")


def dynamic_specs() -> list[dict]:
    """Dynamic dimensions (issue 27): input, scale and zero point share symbolic dimensions (DirectML's Sizes are one
    for all); the hand table tiled over each case's shape gives the expected values. A per-channel buffer read through
    strides of run-time sizes computes its offsets in the graph (lowering/strides.py); its cases are the default ones."""
    out = []
    for x_type, out_type, zero_point, path, opset, dims, shapes, bounds in (
        # blocked DequantizeLinear along the static axis of length 2 (a dynamic one may be 1 at run time)
        ("int8", "float32", True, "native-blocked", 21, ["n", "c", 2], ([1, 2, 2], [3, 2, 2]),
         ([1, 1, 2], [2, 2, 2], [4, 4, 2])),
        ("uint16", "float16", False, "decomposed", 21, [4, -1], ([4, 1], [4, 3]), ([4, 1], [4, 2], [4, 8])),
        ("int32", "float32", True, "decomposed", 17, ["n", "c", "w", "h"], ([2, 2, 1, 1], [1, 2, 2, 3]),
         ([1, 1, 1, 1], [2, 2, 2, 2], [2, 4, 2, 3])),
    ):
        hand = HAND[x_type]
        rank = len(dims)
        names = ["x", "scale"] + (["zp"] if zero_point else [])
        inputs = {"x": (x_type, dims), "scale": (out_type, dims)}
        if zero_point:
            inputs["zp"] = (x_type, dims)
        scale = hand.get("scale_f16", hand["scale"]) if out_type == "float16" else hand["scale"]
        cases = [{"name": f"hand-{'x'.join(map(str, shape))}",
                  "inputs": {"x": tiled(hand["x"], shape), "scale": tiled(scale, shape),
                             **({"zp": tiled(hand["zp"], shape)} if zero_point else {})},
                  "expected": {"y": tiled(hand["expected"][(out_type, zero_point)], shape)}} for shape in shapes]
        doc = spec(f"gen-dml-dq-dynamic-{x_type}-{SHORT[out_type]}-r{rank}-{'zp' if zero_point else 'nozp'}-{path}-opset{opset}",
                   opset, inputs, names, cases)
        doc["network"]["profiles"] = [{n: dict(zip(("min", "opt", "max"), bounds)) for n in names}]
        out.append(doc)
    doc = spec("gen-dml-dq-dynamic-uint8-f32-r4-zp-strides-per-channel-native-blocked", 21,
               {"x": ("uint8", ["batch", 3, "h", "w"]), "scale": ("float32", [3]), "zp": ("uint8", [3])}, ["x", "scale", "zp"], [],
               strides={"scale": [0, 1, 0, 0], "zero_point": [0, 1, 0, 0]})
    del doc["cases"]  # one case at the min, opt and max of each profile
    doc["network"]["profiles"] = [{"x": {"min": [1, 3, 1, 1], "opt": [2, 3, 4, 4], "max": [4, 3, 8, 8]}}]
    out.append(doc)
    return out


def known_failures(doc: dict) -> list[dict]:
    network = doc["network"]
    x, *rest = network["layers"][0]["inputs"]
    x_type = {**network.get("inputs", {}), **network.get("constants", {})}[x]["dtype"]
    rules = []
    if x_type in ("int32", "uint32") and len(rest) == 2 and "decomposed" in doc["name"]:
        rules += [{"runtime": "openvino", "target": target, "reason": OPENVINO_INT64} for target in INT64_TARGETS]
    if doc["opset"] < 19 and "native" in doc["name"]:
        rules.append({"runtime": "onnx-reference", "reason": ONNX_REFERENCE_DQ13})
    if "native-blocked" in doc["name"] and network.get("profiles"):  # the targets whose model keeps it native
        rules += [{"runtime": "openvino", "target": target, "reason": OPENVINO_BLOCKED_DYNAMIC}
                  for target in ("ort-cpu", "ort-dml")]
    return rules


def with_known_failures(doc: dict) -> dict:
    rules = known_failures(doc)
    return {**doc, "xfail": rules} if rules else doc


def specs() -> list[dict]:
    return [with_known_failures(d) for d in type_matrix() + path_specs() + edge_specs() + feature_level_specs() + dynamic_specs()]


if __name__ == "__main__":
    n = write_specs(Path(__file__).parent, specs(), "specs/dml_dequantize/generate.py")
    print(f"wrote {n} specs")
