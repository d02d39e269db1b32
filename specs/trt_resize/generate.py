"""Writes the trt.Resize conformance suite (deterministic): python specs/trt_resize/generate.py

Expected values come from ``exact_resize`` below: TensorRT's formulas (shared/seeds/003)
evaluated with exact fractions, rounded once to the output type. It is a third
implementation, independent of converter/reference/resize_kernel.py and of the lowering.
The two seed specs (seed-*.yaml) are written by hand and left alone.
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
ROUNDINGS = ("FLOOR", "CEIL", "HALF_UP", "HALF_DOWN")
SELECTORS = ("FORMULA", "UPPER")
SLUG = {"ASYMMETRIC": "asymmetric", "HALF_PIXEL": "half-pixel", "ALIGN_CORNERS": "align-corners"}
# per transformation: (up, down) shapes of a [4, 6] input chosen so that exact .5 coordinates (ties) occur
TIE_SHAPES = {"ASYMMETRIC": ([8, 12], [2, 4]), "HALF_PIXEL": ([5, 9], [2, 3]), "ALIGN_CORNERS": ([7, 11], [3, 3])}
GRID = [[10 * r + c for c in range(6)] for r in range(4)]  # x[r][c] = 10 r + c: an output value names its source


# --- exact reference: TensorRT's formulas with fractions -------------------------------------


def coordinate(i: int, l_in: int, l_out: int, transform: str, selector: str) -> F:
    if l_out == 1 and (selector == "UPPER" or transform == "ALIGN_CORNERS"):
        return F(0)  # UPPER: the upper-left pixel; ALIGN_CORNERS' 0/0 is defined as 0
    if transform == "ASYMMETRIC":
        return F(i * l_in, l_out)
    if transform == "HALF_PIXEL":
        return (i + F(1, 2)) * F(l_in, l_out) - F(1, 2)
    return F(i * (l_in - 1), l_out - 1)


def taps(c: F, l_in: int, mode: str, rounding: str, a: F) -> list[tuple[int, F]]:
    clamp = lambda k: min(max(k, 0), l_in - 1)  # noqa: E731
    if mode == "NEAREST":
        k = {"FLOOR": math.floor(c), "CEIL": math.ceil(c), "HALF_UP": math.floor(c + F(1, 2)), "HALF_DOWN": math.ceil(c - F(1, 2))}[rounding]
        return [(clamp(k), F(1))]
    if mode == "LINEAR":
        c = min(max(c, F(0)), F(l_in - 1))
        k = math.floor(c)
        return [(k, 1 - (c - k)), (clamp(k + 1), c - k)]
    k = math.floor(c)  # CUBIC: Keys kernel, coordinate not clamped, taps clamped to the edge

    def keys(s: F) -> F:
        s = abs(s)
        return (a + 2) * s**3 - (a + 3) * s**2 + 1 if s <= 1 else a * s**3 - 5 * a * s**2 + 8 * a * s - 4 * a

    return [(clamp(k + d), keys(c - (k + d))) for d in (-1, 0, 1, 2)]


def exact_resize(x, out_shape, resize_mode="NEAREST", coordinate_transformation="ASYMMETRIC", selector_for_single_pixel="FORMULA",
                 nearest_rounding="FLOOR", cubic_coeff="-0.75", dtype="float32"):
    mode, transform, selector, rounding = resize_mode, coordinate_transformation, selector_for_single_pixel, nearest_rounding
    y = np.vectorize(lambda v: F(v), otypes=[object])(np.array(x, dtype=object))  # exact: F(0.5), F(-1.25), ...
    for axis in reversed(range(y.ndim)):
        l_in, l_out = y.shape[axis], out_shape[axis]
        if l_in == l_out:
            continue
        rows = []
        for i in range(l_out):
            c = coordinate(i, l_in, l_out, transform, selector)
            rows.append(sum(np.take(y, k, axis=axis) * w for k, w in taps(c, l_in, mode, rounding, F(cubic_coeff))))
        y = np.stack(rows, axis=axis)
    if dtype == "int8":
        return np.vectorize(lambda v: min(max(round(v), -128), 127), otypes=[object])(y).tolist()  # half to even
    to = np.float32 if dtype == "float32" else np.float16
    return np.vectorize(lambda v: float(str(to(v))), otypes=[object])(y).tolist()  # shortest text that rounds back


# --- spec documents ----------------------------------------------------------------------------


def layer(name, x, **attrs):
    return {"name": name, "op": "trt.Resize", "inputs": [x] if isinstance(x, str) else x, **attrs}


def spec(name, source, inputs, layers, cases, opset=None, description="", tolerance=None, xfail=None):
    doc = {"name": name, "source": source}
    if description:
        doc["description"] = description
    if opset:
        doc["opset"] = opset
    if tolerance:
        doc["tolerance"] = tolerance
    if xfail:
        doc["xfail"] = xfail
    doc["network"] = {"inputs": {k: {"dtype": d, "shape": list(s)} for k, (d, s) in inputs.items()},
                      "layers": layers, "outputs": [entry["name"] for entry in layers]}
    doc["cases"] = cases
    return doc


def expected_for(layers, data, dtypes):
    out = {}
    for entry in layers:
        attrs = {k: v for k, v in entry.items() if k not in ("name", "op", "inputs", "shape", "scales")}
        x = data[entry["inputs"][0]]
        shape = entry.get("shape") or [a if s == 1 else int(np.floor(np.float32(a) * np.float32(s)))
                                       for a, s in zip(np.shape(x), entry["scales"])]
        out[entry["name"]] = exact_resize(x, shape, dtype=dtypes[entry["inputs"][0]], **{k: str(v) if k == "cubic_coeff" else v for k, v in attrs.items()})
    return out


SOURCE = "TensorRT IResizeLayer (shared/seeds/003); expected values: specs/trt_resize/generate.py (exact fractions)"


def nearest_specs():
    for transform, (up, down) in TIE_SHAPES.items():
        for selector in SELECTORS:
            layers = []
            for rounding in ROUNDINGS:
                for kind, shape in (("up", up), ("down", down), ("one", [1, 1])):
                    layers.append(layer(f"{kind}_{rounding.lower()}", "x", shape=shape, coordinate_transformation=transform,
                                        selector_for_single_pixel=selector, nearest_rounding=rounding))
            data = {"x": GRID}
            yield f"nearest-{SLUG[transform]}-{selector.lower()}", spec(
                f"trt-resize-nearest-{SLUG[transform]}-{selector.lower()}", SOURCE, {"x": ("float32", (4, 6))}, layers,
                [{"name": "ties", "inputs": data, "expected": expected_for(layers, data, {"x": "float32"})}],
                description=f"NEAREST, {transform}, {selector}: every rounding mode on [4, 6] -> {up} (up), {down} (down), [1, 1]; "
                            "the shapes put exact .5 coordinates (ties) on both axes; x = 10 row + column")


def interpolating_specs(mode):
    for transform, (up, down) in TIE_SHAPES.items():
        layers = []
        for selector in SELECTORS:
            for kind, shape in (("up", up), ("down", down), ("one", [1, 1])):
                if mode == "CUBIC" and kind == "one" and selector == "UPPER":
                    continue  # in cubic-single-pixel-upper.yaml (the onnx reference evaluator disagrees there)
                layers.append(layer(f"{kind}_{selector.lower()}", "x", resize_mode=mode, shape=shape,
                                    coordinate_transformation=transform, selector_for_single_pixel=selector))
        if mode == "CUBIC":
            layers.append(layer("up_coeff_-0.5", "x", resize_mode=mode, shape=up, coordinate_transformation=transform, cubic_coeff=-0.5))
        data = {"x": GRID}
        name = f"{mode.lower()}-{SLUG[transform]}"
        yield name, spec(f"trt-resize-{name}", SOURCE, {"x": ("float32", (4, 6))}, layers, [
            {"name": "grid", "inputs": data, "expected": expected_for(layers, data, {"x": "float32"})},
            {"name": "random", "inputs": {"x": {"random": "normal", "seed": 11}}},
        ], description=f"{mode}, {transform}, both selectors: [4, 6] -> {up}, {down}, [1, 1]")


def cubic_single_pixel_spec():
    layers = [layer(f"{t.lower()}_one", "x", resize_mode="CUBIC", shape=[1, 1], coordinate_transformation=t, selector_for_single_pixel="UPPER")
              for t in TIE_SHAPES]
    layers.append(layer("half_pixel_dynamic", ["x", "s"], resize_mode="CUBIC", coordinate_transformation="HALF_PIXEL", selector_for_single_pixel="UPPER"))
    grid = {"x": GRID, "s": [1, 1]}
    expected = expected_for(layers[:-1], grid, {"x": "float32"})
    expected["half_pixel_dynamic"] = exact_resize(GRID, [1, 1], "CUBIC", "HALF_PIXEL", "UPPER")
    yield "cubic-single-pixel-upper", spec(
        "trt-resize-cubic-single-pixel-upper", SOURCE, {"x": ("float32", (4, 6)), "s": ("int64", (2,))}, layers,
        [{"name": "grid", "inputs": grid, "expected": expected},
         {"name": "random-mixed", "inputs": {"x": {"random": "normal", "seed": 12}, "s": [1, 9]}}],
        xfail=[{"runtime": "onnx-reference", "reason": "onnx.reference samples coordinate -0.5 for pytorch_half_pixel with an output length "
                "of 1, where the ONNX operator text (and onnxruntime, and TensorRT's UPPER) say 0; cubic does not clamp it "
                "(onnx/onnx#4275, open)"}],
        description="CUBIC, UPPER, output length 1: coordinate 0 (the upper-left pixel) for every transformation; "
                    "HALF_PIXEL + UPPER lowers to ONNX pytorch_half_pixel")


def rank_spec():
    inputs = {"r1": ("float32", (5,)), "r2": ("float32", (3, 4)), "r3": ("float16", (2, 3, 4)), "r4": ("float32", (2, 2, 3, 4)),
              "r5": ("float32", (1, 2, 2, 3, 4)), "r6": ("int8", (2, 1, 2, 2, 3, 3))}
    layers = [
        layer("r1_linear_m1", "r1", resize_mode="LINEAR", shape=[9], coordinate_transformation="HALF_PIXEL"),
        layer("r2_nearest_m0", "r2", shape=[3, 4]),
        layer("r2_cubic_m2", "r2", resize_mode="CUBIC", shape=[5, 7], coordinate_transformation="HALF_PIXEL"),
        layer("r3_linear_m3", "r3", resize_mode="LINEAR", shape=[3, 5, 2], coordinate_transformation="ALIGN_CORNERS"),
        layer("r4_nearest_m3", "r4", shape=[2, 3, 5, 2], coordinate_transformation="HALF_PIXEL", nearest_rounding="HALF_DOWN"),
        layer("r4_cubic_m1", "r4", resize_mode="CUBIC", shape=[2, 2, 3, 7]),
        layer("r5_linear_m2", "r5", resize_mode="LINEAR", shape=[1, 2, 2, 5, 7]),
        layer("r5_linear_m3", "r5", resize_mode="LINEAR", shape=[1, 2, 4, 2, 6], coordinate_transformation="HALF_PIXEL", selector_for_single_pixel="UPPER"),
        layer("r6_nearest_m3", "r6", shape=[2, 1, 2, 4, 1, 5], coordinate_transformation="ALIGN_CORNERS", nearest_rounding="CEIL"),
        layer("r6_linear_m2", "r6", resize_mode="LINEAR", shape=[2, 1, 2, 2, 6, 6]),
        layer("r6_cubic_m2", "r6", resize_mode="CUBIC", shape=[2, 1, 2, 2, 6, 12]),
    ]
    cases = [{"name": "random", "inputs": {k: {"random": "integers", "low": -100, "high": 100, "seed": 5} if d == "int8"
                                            else {"random": "uniform", "low": -4, "high": 4, "seed": 5} for k, (d, _) in inputs.items()}}]
    yield "ranks", spec("trt-resize-ranks", SOURCE, inputs, layers, cases, opset=13,
                        description="ranks 1 to 6, m = 0 to 3 resized innermost dimensions; the int8 layers use exact (power-of-two) ratios")


def dtype_spec():
    inputs = {"h": ("float16", (1, 2, 3, 4)), "q": ("int8", (1, 4)), "qs": ("int8", (1, 4))}
    layers = [
        layer("h_nearest", "h", shape=[1, 2, 5, 3], coordinate_transformation="HALF_PIXEL", nearest_rounding="HALF_UP"),
        layer("h_linear", "h", resize_mode="LINEAR", shape=[1, 2, 5, 7], coordinate_transformation="HALF_PIXEL"),
        layer("h_cubic", "h", resize_mode="CUBIC", shape=[1, 2, 2, 9], coordinate_transformation="ALIGN_CORNERS"),
        layer("q_nearest", "q", shape=[1, 6], nearest_rounding="HALF_DOWN"),
        layer("q_linear_half_even", "q", resize_mode="LINEAR", shape=[1, 8]),
        layer("qs_cubic_saturate", "qs", resize_mode="CUBIC", shape=[1, 8]),
    ]
    data = {"h": [[[[0.5, -1.25, 2, 3.5], [4, 4.5, -5, 6], [7, 8.25, 9, -10]], [[1, 2, 3, 4], [-1, -2, -3, -4], [0.125, 0.25, 0.5, 1]]]],
            "q": [[1, 4, -3, 6]], "qs": [[-128, 127, 127, -128]]}
    types = {k: d for k, (d, _) in inputs.items()}
    yield "dtypes", spec("trt-resize-dtypes", SOURCE, inputs, layers, [
        {"name": "literal", "inputs": data, "expected": expected_for(layers, data, types)},
        {"name": "random", "inputs": {"h": {"random": "normal", "seed": 2}, "q": {"random": "integers", "seed": 2},
                                      "qs": {"random": "integers", "seed": 3}}},
    ], opset=21, description="float16 (computed in float32, rounded once) and int8 (interpolated in float32, rounded half to even, "
                             "saturated): q 4 -> 8 ASYMMETRIC gives 2.5, 0.5, 1.5 at the odd positions (-> 2, 0, 2), qs overshoots past the int8 range")


def dynamic_specs():
    for index_type, dtype, opset in (("int32", "float32", 17), ("int64", "int8", 26)):
        data = {"random": "integers", "low": -100, "high": 100, "seed": 8} if dtype == "int8" else {"random": "normal", "seed": 8}
        layers = [layer("nearest", ["x", "s"], coordinate_transformation="HALF_PIXEL", nearest_rounding="HALF_UP"),
                  layer("linear", ["x", "s"], resize_mode="LINEAR"),
                  layer("cubic", ["x", "s"], resize_mode="CUBIC", coordinate_transformation="HALF_PIXEL")]
        shapes = {"up": [1, 2, 8, 8], "down": [1, 2, 2, 2], "one": [1, 2, 1, 1], "mixed": [1, 2, 1, 16], "same": [1, 2, 4, 4]}
        yield f"dynamic-{index_type}", spec(f"trt-resize-dynamic-{index_type}", SOURCE,
                                            {"x": (dtype, (1, 2, 4, 4)), "s": (index_type, (4,))}, layers,
                                            [{"name": k, "inputs": {"x": data, "s": v}} for k, v in shapes.items()], opset=opset,
                                            tolerance={"atol": 0} if dtype == "int8" else None,
                                            description=f"the output shape as a run-time {index_type} input; power-of-two ratios keep "
                                                        "onnxruntime's int8 results exact, so the spec asks for atol 0")


def values(shape, offset=0):
    """A literal input whose every value names its place: x[..., r, c] = 10 r + c + 100 k (k counts the outer rows)."""
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    rows, cols = shape[-2], shape[-1]
    outer = x // (rows * cols)
    return ((x % cols) + 10 * ((x // cols) % rows) + 100 * outer + offset).astype(float).tolist()


def dynamic_shape_specs():
    """Dynamic dimensions (issue 27): scales on a dynamic batch and spatial size, computed at each case's shapes, and
    the output shape as a shape input (IResizeLayer's input1) bounded by a profile's values. Expected values from
    exact_resize at each case's shapes; the cases at each profile's min, opt and max are the default ones."""
    layers = [layer("nearest_x2", "x", scales=[1, 1, 2, 2], coordinate_transformation="HALF_PIXEL", nearest_rounding="HALF_DOWN"),
              layer("linear", "x", resize_mode="LINEAR", scales=[1, 1, 1.5, 0.5], coordinate_transformation="HALF_PIXEL"),
              layer("cubic_x3", "x", resize_mode="CUBIC", scales=[1, 1, 1, 3], coordinate_transformation="ASYMMETRIC")]
    cases = []
    for name, shape in (("one-row", [1, 2, 1, 2]), ("odd", [2, 2, 3, 5]), ("wide", [3, 2, 2, 9])):
        data = {"x": values(shape)}
        cases.append({"name": name, "inputs": data, "expected": expected_for(layers, data, {"x": "float32"})})
    doc = spec("trt-resize-dynamic-scales", SOURCE, {"x": ("float32", ("batch", 2, "height", "width"))}, layers, cases,
               description="scales on dynamic dimensions: b = floor(a * s) at each case's shapes (3 * 1.5 -> 4, 5 * 0.5 -> 2); "
                           "the batch passes through")
    doc["network"]["profiles"] = [{"x": {"min": [1, 2, 1, 1], "opt": [2, 2, 4, 6], "max": [3, 2, 8, 12]}}]
    yield "dynamic-scales", doc
    layers = [layer("nearest", ["x", "size"], coordinate_transformation="ASYMMETRIC"),
              layer("linear", ["x", "size"], resize_mode="LINEAR", coordinate_transformation="ALIGN_CORNERS")]
    cases = []
    for name, shape, out in (("up", [1, 3, 2, 3], [1, 3, 5, 7]), ("down", [1, 3, 6, 6], [1, 3, 2, 4]),
                             ("mixed", [1, 3, 4, 1], [1, 3, 1, 6])):
        data = {"x": values(shape), "size": out}
        expected = {entry["name"]: exact_resize(data["x"], out, **{k: v for k, v in entry.items() if k not in ("name", "op", "inputs")})
                    for entry in layers}
        cases.append({"name": name, "inputs": data, "expected": expected})
    doc = spec("trt-resize-dynamic-shape-input", SOURCE, {"x": ("float32", (1, 3, "h", "w")), "size": ("int32", (4,))}, layers, cases,
               description="the output shape as a shape input (shape_tensor, IResizeLayer's input1) of a dynamic input; the "
                           "profile bounds its values")
    doc["network"]["inputs"]["size"]["shape_tensor"] = True
    doc["network"]["profiles"] = [{"x": {"min": [1, 3, 1, 1], "opt": [1, 3, 4, 4], "max": [1, 3, 8, 8]},
                                   "size": {"min": [1, 3, 1, 1], "opt": [1, 3, 8, 8], "max": [1, 3, 16, 16]}}]
    yield "dynamic-shape-input", doc
    doc = spec("trt-resize-dynamic-profiles", SOURCE, {"x": ("float16", ("n", "c", "h", "w"))},
               [layer("nearest_x2", "x", scales=2), layer("linear_half", "x", resize_mode="LINEAR", scales=[1, 1, 0.5, 0.5],
                                                          coordinate_transformation="HALF_PIXEL")], [],
               description="two profiles and no cases: a case at the min, opt and max of each (random data)")
    del doc["cases"]
    doc["network"]["profiles"] = [{"x": {"min": [1, 1, 2, 2], "opt": [1, 3, 8, 8], "max": [2, 4, 16, 16]}},
                                  {"x": {"min": [8, 1, 1, 64], "opt": [8, 1, 1, 128], "max": [16, 1, 1, 256]}}]
    yield "dynamic-profiles", doc


def scales_spec():
    inputs = {"x": ("float32", (2, 3, 5)), "t": ("float32", (1, 10))}
    layers = [
        layer("nearest", "x", scales=[1, 1.5, 0.7]),
        layer("linear", "x", resize_mode="LINEAR", scales=[1, 1.5, 0.7]),
        layer("linear_half_pixel", "x", resize_mode="LINEAR", scales=[1, 2.5, 1.3], coordinate_transformation="HALF_PIXEL"),
        layer("float32_floor", "t", scales=[1, 0.7]),
    ]
    data = {"x": [[[1, 2, 3, 4, 5], [10, 20, 30, 40, 50], [-1, -2, -3, -4, -5]], [[0, 6, 0, 6, 0], [1, 1, 1, 1, 1], [8, 4, 2, 1, 0]]],
            "t": [list(range(10))]}
    yield "scales-non-integer", spec("trt-resize-scales-non-integer", SOURCE, inputs, layers,
                                     [{"name": "literal", "inputs": data, "expected": expected_for(layers, data, {"x": "float32", "t": "float32"})}],
                                     description="b_i = floor(a_i * scales_i): 3 * 1.5 = 4.5 -> 4, 5 * 0.7 = 3.5 -> 3, 3 * 2.5 -> 7, 5 * 1.3 -> 6; "
                                                 "coordinates use the length ratio (3/4, 5/3), not 1/scale; 10 * 0.7 is 7 in float32")


def trap_spec():
    inputs = {"a14": ("float32", (1, 14)), "a7": ("float32", (7,)), "a10": ("float32", (10,))}
    layers = [layer("asym_14_to_8_floor", "a14", shape=[1, 8]),
              layer("half_pixel_7_to_1_floor", "a7", shape=[1], coordinate_transformation="HALF_PIXEL"),
              layer("half_pixel_7_to_19_ceil", "a7", shape=[19], coordinate_transformation="HALF_PIXEL", nearest_rounding="CEIL"),
              layer("half_pixel_10_to_6_floor", "a10", shape=[6], coordinate_transformation="HALF_PIXEL")]
    data = {"a14": [list(range(14))], "a7": list(range(7)), "a10": list(range(10))}
    yield "nearest-exact-ties", spec("trt-resize-nearest-exact-ties", SOURCE, inputs, layers,
                                     [{"name": "arange", "inputs": data, "expected": expected_for(layers, data, {k: "float32" for k in inputs})}],
                                     description="size pairs where onnxruntime's own Resize (float32 scale) picks an index one off: "
                                                 "14 -> 8 hits x = 7 exactly at i = 4; HALF_PIXEL 7 -> 1 hits x = 3")


def long_axis_spec():
    inputs = {"x": ("float32", (2, 1000)), "y": ("float32", (1, 2, 300))}
    layers = [layer("linear_1000_to_1001", "x", resize_mode="LINEAR", shape=[2, 1001], coordinate_transformation="HALF_PIXEL"),
              layer("cubic_300_to_301", "y", resize_mode="CUBIC", shape=[1, 3, 301], coordinate_transformation="ASYMMETRIC")]
    yield "long-axis", spec("trt-resize-long-axis", SOURCE, inputs, layers,
                            [{"name": "random", "inputs": {"x": {"random": "normal", "seed": 9}, "y": {"random": "uniform", "low": -8, "high": 8, "seed": 9}}}],
                            description="onnxruntime's float32 coordinates drift with the length: the default tolerance grows with it")


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data):  # write repeated shapes out, no &id001 anchors
        return True


def main() -> None:
    generators = [nearest_specs(), interpolating_specs("LINEAR"), interpolating_specs("CUBIC"), cubic_single_pixel_spec(), rank_spec(), dtype_spec(),
                  dynamic_specs(), dynamic_shape_specs(), scales_spec(), trap_spec(), long_axis_spec()]
    for gen in generators:
        for stem, doc in gen:
            text = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=160)
            (HERE / f"{stem}.yaml").write_text("# generated by specs/trt_resize/generate.py; edit that script, not this file\n" + text)


if __name__ == "__main__":
    main()
