"""Lowered-graph speed: each lowering on a large tensor, against the single-pass floor and the naive lowering.

For every configuration the table gives the lowered model's time on onnxruntime's CPU EP
divided by (a) one Mul over the same tensor (the memory floor of one pass) and (b) the naive
lowering of the same layer (Scale: always Mul -> Add -> Pow; DequantizeLinear: always
Cast/Sub/Mul). All times are the best of several runs taken side by side in this process.

    python -m benchmarks.graphs [--shape 1 64 512 512] [--provider cpu]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from converter.dtypes import DTYPES
from converter.lowering import build_model
from converter.runners.onnxruntime import OrtRunner, resolve_provider
from converter.pipeline.spec import parse_spec

from .common import best_of, machine, table


def layer_spec(op: str, inputs: dict, attrs: dict, constants: dict | None = None, layer_inputs=None):
    doc = {"name": "bench", "network": {
        "inputs": {n: {"dtype": d, "shape": list(s)} for n, (d, s) in inputs.items()},
        "constants": constants or {},
        "layers": [{"name": "y", "op": op, "inputs": layer_inputs or list(inputs), **attrs}], "outputs": ["y"]},
        "cases": [{"name": "c", "inputs": {n: {"random": "integers", "low": 0, "high": 1} for n in inputs}}]}
    return parse_spec(doc, Path("bench.yaml"))


def _model(nodes, inputs, output, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "naive", inputs, [output], initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=helper.find_min_ir_version_for([helper.make_opsetid("", opset)]))


def mul_floor(shape, dtype: str) -> onnx.ModelProto:
    t = DTYPES[dtype].onnx
    return _model([helper.make_node("Mul", ["x", "k"], ["y"])], [helper.make_tensor_value_info("x", t, shape)],
                  helper.make_tensor_value_info("y", t, shape), [numpy_helper.from_array(np.array(2, DTYPES[dtype].numpy), "k")])


def naive_scale(shape, dtype: str, scale, shift, power) -> onnx.ModelProto:
    """Always Mul -> Add -> Pow, in float32 (with casts around a float16 input); one coefficient or one per channel."""
    cshape = [] if len(scale) == 1 else [len(scale), 1, 1]
    consts = [numpy_helper.from_array(np.array(v, np.float32).reshape(cshape), n) for n, v in (("s", scale), ("b", shift), ("p", power))]
    t = DTYPES[dtype].onnx
    nodes, x = [], "x"
    if dtype != "float32":
        nodes.append(helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT))
        x = "xf"
    nodes += [helper.make_node("Mul", [x, "s"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
              helper.make_node("Pow", ["a", "p"], ["yf" if dtype != "float32" else "y"])]
    if dtype != "float32":
        nodes.append(helper.make_node("Cast", ["yf"], ["y"], to=t))
    return _model(nodes, [helper.make_tensor_value_info("x", t, shape)], helper.make_tensor_value_info("y", t, shape), consts)


def timed(model: onnx.ModelProto, feeds: dict, provider: str) -> float:
    run = OrtRunner(model.SerializeToString(), provider).run
    run(feeds)
    return best_of(lambda: run(feeds), repeat=7)


def scale_rows(shape, dtype, provider):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 2.0, size=shape).astype(DTYPES[dtype].numpy)
    floor = timed(mul_floor(shape, dtype), {"x": x}, provider)
    c = shape[1]
    configs = [
        ("Scale CHANNEL power 1", "CHANNEL", [1.5] * c, [0.25] * c, [1.0] * c),
        ("Scale UNIFORM power 2", "UNIFORM", [1.5], [0.25], [2.0]),
        ("Scale UNIFORM power 3", "UNIFORM", [1.5], [0.25], [3.0]),
        ("Scale UNIFORM power 0.5", "UNIFORM", [1.5], [0.25], [0.5]),
        ("Scale UNIFORM power -1", "UNIFORM", [1.5], [0.25], [-1.0]),
        ("Scale CHANNEL per-channel power", "CHANNEL", [1.5] * c, [0.25] * c, [1.0 + (i % 3) for i in range(c)]),
    ]
    rows = []
    for label, mode, scale, shift, power in configs:
        spec = layer_spec("trt.Scale", {"x": (dtype, shape)}, {"mode": mode, "scale": scale, "shift": shift, "power": power})
        lowered = timed(build_model(spec.network), {"x": x}, provider)
        naive = timed(naive_scale(list(shape), dtype, scale, shift, power), {"x": x}, provider)
        rows.append([f"{label} ({dtype})", lowered * 1e3, lowered / floor, lowered / naive])
    return rows


def elementwise_rows(shape, dtype, provider):
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 2.0, size=shape).astype(DTYPES[dtype].numpy)
    bshape = (1, shape[1], 1, shape[3])
    b = rng.uniform(0.5, 2.0, size=bshape).astype(DTYPES[dtype].numpy)
    floor = timed(mul_floor(shape, dtype), {"x": a}, provider)
    rows = []
    for op in ("SUM", "PROD"):
        spec = layer_spec("trt.ElementWise", {"a": (dtype, shape), "b": (dtype, bshape)}, {"operation": op})
        lowered = timed(build_model(spec.network), {"a": a, "b": b}, provider)
        rows.append([f"ElementWise {op} broadcast ({dtype})", lowered * 1e3, lowered / floor, 1.0])
    return rows


def resize_rows(shape, dtype, provider):
    """LINEAR and CUBIC x2 on the innermost two axes; int8 and a 5-D case; against a native Resize where one runs."""
    rng = np.random.default_rng(2)
    rows = []
    n, c, h, w = shape
    configs = [("LINEAR", dtype, (n, c, h, w)), ("CUBIC", dtype, (n, c, h, w))]
    if dtype == "float32":
        configs += [("LINEAR", "int8", (n, c, h, w)), ("LINEAR", "float32", (2, c // 2, 4, h // 4, w))]
    for mode, dt, in_shape in configs:
        out_shape = in_shape[:-2] + (in_shape[-2] * 2, in_shape[-1] * 2)
        x = (rng.integers(-128, 128, size=in_shape) if dt == "int8" else rng.uniform(-1, 1, size=in_shape)).astype(DTYPES[dt].numpy)
        spec = layer_spec("trt.Resize", {"x": (dt, in_shape)}, {"resize_mode": mode, "shape": list(out_shape),
                                                               "coordinate_transformation": "HALF_PIXEL"})
        lowered = timed(build_model(spec.network), {"x": x}, provider)
        floor = timed(mul_floor(list(in_shape), dt), {"x": x}, provider)
        native = _native_resize(in_shape, out_shape, dt, mode)
        try:
            ratio = lowered / timed(native, {"x": x}, provider)
        except Exception:  # noqa: BLE001 - onnxruntime has no kernel for it: nothing to compare with
            ratio = float("nan")
        rows.append([f"Resize {mode} x2 {'x'.join(map(str, in_shape))} ({dt})", lowered * 1e3, lowered / floor, ratio])
    return rows


def nearest_rows(shape, dtype, provider):
    """NEAREST: the lowering (one Resize where onnxruntime's coordinates are exact, else Gathers) against one native
    Resize and against one exact Gather per resized axis (the lowering before), large and small, side by side."""
    from converter.lowering.resize import nearest_indices

    if dtype != "float32":
        return []
    rng = np.random.default_rng(4)
    n, c, h, w = shape
    configs = [("ASYMMETRIC", "FLOOR", (n, c, h, w), (2 * h, 2 * w)),
               ("HALF_PIXEL", "HALF_UP", (n, c, h, w), (2 * h, 2 * w)),
               ("HALF_PIXEL", "FLOOR", (n, c, h, w), (h // 2, w // 2)),
               ("ASYMMETRIC", "FLOOR", (1, 16, 32, 32), (64, 64)),
               ("ASYMMETRIC", "FLOOR", (n, c, 7 * (h // 7), 7 * (w // 7)), (4 * (h // 7), 4 * (w // 7)))]  # 7 -> 4: ORT off
    rows = []
    for transform, rounding, in_shape, hw in configs:
        out_shape = in_shape[:2] + hw
        x = rng.uniform(-1, 1, size=in_shape).astype(np.float32)
        attrs = {"shape": list(out_shape), "coordinate_transformation": transform, "nearest_rounding": rounding}
        model = build_model(layer_spec("trt.Resize", {"x": ("float32", in_shape)}, attrs).network)
        how = "one Resize" if [nd.op_type for nd in model.graph.node] == ["Resize"] else "Gathers"
        lowered = timed(model, {"x": x}, provider)
        native = timed(_native_resize(in_shape, out_shape, "float32", "NEAREST", transform, rounding), {"x": x}, provider)
        gathers, y = [], "x"
        for ax in (3, 2):
            idx = nearest_indices(in_shape[ax], out_shape[ax], transform, "FORMULA", rounding)
            gathers.append((helper.make_node("Gather", [y, f"i{ax}"], [f"g{ax}"], axis=ax), numpy_helper.from_array(idx, f"i{ax}")))
            y = f"g{ax}"
        gathers[-1][0].output[0] = "y"
        gather_model = _model([g for g, _ in gathers], [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(in_shape))],
                              helper.make_tensor_value_info("y", TensorProto.FLOAT, list(out_shape)), [i for _, i in gathers])
        two_gathers = timed(gather_model, {"x": x}, provider)
        size = f"{'x'.join(map(str, in_shape))}->{'x'.join(map(str, hw))}"
        rows.append([f"Resize NEAREST {transform} {rounding} {size} ({how})", lowered * 1e3, lowered / native, lowered / two_gathers,
                     two_gathers / native])
    return rows


def _native_resize(in_shape, out_shape, dtype, mode, transform="HALF_PIXEL", rounding="FLOOR"):
    """One ONNX Resize on the tensor as it is: what runs without legalization (int8 truncates, float16 natively)."""
    t = DTYPES[dtype].onnx
    modes = {"FLOOR": "floor", "CEIL": "ceil", "HALF_UP": "round_prefer_ceil", "HALF_DOWN": "round_prefer_floor"}
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode.lower(), nearest_mode=modes[rounding],
                            coordinate_transformation_mode=transform.lower(), cubic_coeff_a=-0.75)
    sizes = numpy_helper.from_array(np.array(out_shape, np.int64), "sizes")
    return _model([node], [helper.make_tensor_value_info("x", t, list(in_shape))],
                  helper.make_tensor_value_info("y", t, list(out_shape)), [sizes], opset=19)



def _dequantize_model(folder: Path, inputs: dict, constants: dict, opset: int, strides: dict | None = None):
    """(spec, model, the legalization paths its nodes name) for one dml.DequantizeLinear layer y = f(x, s, z)."""
    layer = {"name": "y", "op": "dml.DequantizeLinear", "inputs": ["x", "s", "z"], **({"strides": strides} if strides else {})}
    doc = {"name": "bench", "network": {
        "inputs": {n: {"dtype": d, "shape": list(s_)} for n, (d, s_) in inputs.items()}, "constants": constants,
        "layers": [layer], "outputs": ["y"]},
        "cases": [{"name": "c", "inputs": {n: {"random": "integers", "low": 0, "high": 1} for n in inputs}}]}
    spec = parse_spec(doc, folder / "bench.yaml")
    model = build_model(spec.network, opset=opset)
    taken = {n.doc_string.split("]")[0].strip("[") for n in model.graph.node if n.doc_string.startswith("[")}
    return spec, model, taken

def dequantize_rows(shape, dtype, provider):
    """int8 -> float32 (or float16) on each lowering path, against always-Cast/Sub/Mul."""
    import tempfile

    rng = np.random.default_rng(3)
    out = "float32" if dtype == "float32" else "float16"
    x = rng.integers(-128, 128, size=shape).astype(np.int8)
    scale = rng.uniform(0.01, 0.1, size=shape).astype(DTYPES[out].numpy)
    zp = rng.integers(-5, 5, size=shape).astype(np.int8)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "s.npy", np.full(shape, 0.05, DTYPES[out].numpy))
        np.save(Path(tmp) / "z.npy", np.full(shape, 3, np.int8))
        configs = [
            ("native-per-tensor", 17 if out == "float32" else 19, {"x": ("int8", shape)}, {"s": (out, "s.npy"), "z": ("int8", "z.npy")}),
            ("native-blocked", 21, {"x": ("int8", shape), "s": (out, shape), "z": ("int8", shape)}, {}),
            ("decomposed", 17, {"x": ("int8", shape), "s": (out, shape), "z": ("int8", shape)}, {}),
        ]
        for path, opset, inputs, constants in configs:
            consts = {n: {"dtype": d, "shape": list(shape), "data": f} for n, (d, f) in constants.items()}
            spec, model, taken = _dequantize_model(Path(tmp), inputs, consts, opset)
            label = path if taken == {path} else f"{path} configuration (takes {'/'.join(sorted(taken))})"
            feeds = {"x": x, "s": scale, "z": zp}
            feeds = {k: v for k, v in feeds.items() if k in inputs}
            lowered = timed(model, feeds, provider)
            naive_feeds = {"x": x, "s": spec.network.constants.get("s", scale), "z": spec.network.constants.get("z", zp)}
            naive = timed(_naive_dequantize(shape, out), naive_feeds, provider)
            floor = timed(mul_floor(list(shape), out), {"x": scale}, provider)
            rows.append([f"DequantizeLinear int8->{out} {label}", lowered * 1e3, lowered / floor, lowered / naive])
    return rows


def _naive_dequantize(shape, out: str, x_type: str = "int8", param_shape=None):
    """Always Cast(x) - Cast(zp), times the scale: Cast/Sub/Mul in float32 (then Cast to float16); the scale and
    zero point of ``param_shape`` (default: the input's), broadcast by Sub and Mul."""
    f = TensorProto.FLOAT
    nodes = [helper.make_node("Cast", ["x"], ["xf"], to=f), helper.make_node("Cast", ["z"], ["zf"], to=f),
             helper.make_node("Sub", ["xf", "zf"], ["d"])]
    if out == "float32":
        nodes.append(helper.make_node("Mul", ["d", "s"], ["y"]))
    else:
        nodes += [helper.make_node("Cast", ["s"], ["sf"], to=f), helper.make_node("Mul", ["d", "sf"], ["yf"]),
                  helper.make_node("Cast", ["yf"], ["y"], to=TensorProto.FLOAT16)]
    t = DTYPES[out].onnx
    xt = DTYPES[x_type].onnx
    param_shape = list(shape if param_shape is None else param_shape)
    inputs = [helper.make_tensor_value_info("x", xt, list(shape)),
              helper.make_tensor_value_info("s", t, param_shape), helper.make_tensor_value_info("z", xt, param_shape)]
    return _model(nodes, inputs, helper.make_tensor_value_info("y", t, list(shape)))


def integer_division_table(shape, provider, repeat: int = 15) -> list[list]:
    """int32/int64 DIV and FLOOR_DIV against one unguarded ONNX Div, one Mul, and the previous Where guards.

    The unguarded Div is what a naive converter emits; it traps on x / 0 and MIN / -1, so the divisor
    here holds neither (the lowering's time does not depend on the values). The divisor is a full-size
    run-time tensor (the worst case: six of DIV's eight nodes are passes over it), a per-channel
    [1, C, 1, ...] run-time one, or the same per-channel values as a constant, as they are (mixed signs)
    and made positive (guards computed at conversion; the ratio is to the per-channel unguarded Div).
    All models run round-robin, best of ``repeat`` each, so that a busy machine slows them alike.
    """
    import time

    rng = np.random.default_rng(4)
    runs = {}
    for it in ("int32", "int64"):
        info = np.iinfo(it)
        a = rng.integers(info.min, info.max, size=shape, dtype=it)
        runs[(it, "", "Mul")] = (OrtRunner(mul_floor(list(shape), it).SerializeToString(), provider).run, {"x": a})
        for label, bshape in (("full-size", tuple(shape)), ("per-channel", (1, shape[1]) + (1,) * (len(shape) - 2))):
            b = (rng.integers(2, 1000, size=bshape, dtype=it) * rng.choice(np.array([-1, 1], it), size=bshape)).astype(it)
            feeds = {"a": a, "b": b}
            div = _model([helper.make_node("Div", ["a", "b"], ["y"])],
                         [helper.make_tensor_value_info("a", DTYPES[it].onnx, list(shape)),
                          helper.make_tensor_value_info("b", DTYPES[it].onnx, list(bshape))],
                         helper.make_tensor_value_info("y", DTYPES[it].onnx, list(shape)))
            runs[(it, label, "Div")] = (OrtRunner(div.SerializeToString(), provider).run, feeds)
            for op in ("DIV", "FLOOR_DIV"):
                spec = layer_spec("trt.ElementWise", {"a": (it, shape), "b": (it, bshape)}, {"operation": op})
                runs[(it, label, op)] = (OrtRunner(build_model(spec.network).SerializeToString(), provider).run, feeds)
                runs[(it, label, op + " previous")] = (
                    OrtRunner(_guarded_division(shape, bshape, it, op).SerializeToString(), provider).run, feeds)
                if label == "per-channel":  # the same values as a constant (D, M and FLOOR_DIV's bounds folded), and > 0
                    for name, values in (("constant", b), ("constant > 0", np.abs(b))):
                        constant = {"k": {"dtype": it, "shape": list(bshape), "data": values.tolist()}}
                        spec = layer_spec("trt.ElementWise", {"a": (it, shape)}, {"operation": op}, constant, ["a", "k"])
                        runs[(it, name, op)] = (OrtRunner(build_model(spec.network).SerializeToString(), provider).run,
                                                {"a": a})
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for key, (run, feeds) in runs.items():
            t0 = time.perf_counter()
            run(feeds)
            best[key] = min(best[key], time.perf_counter() - t0)
    rows = []
    for it in ("int32", "int64"):
        mul = best[(it, "", "Mul")]
        for label in ("full-size", "per-channel", "constant", "constant > 0"):
            div = best[(it, "per-channel" if label.startswith("constant") else label, "Div")]
            for op in ("DIV", "FLOOR_DIV"):
                lowered = best[(it, label, op)]
                previous = best.get((it, label, op + " previous"), float("nan") * div)
                name = {"constant": "constant per-channel (mixed signs)", "constant > 0": "constant per-channel > 0"}.get(label, label)
                rows.append([f"{op} {it}, {name} divisor", lowered * 1e3, lowered / mul, lowered / div, previous / div])
        rows.append([f"(one unguarded Div {it}, full-size)", best[(it, "full-size", "Div")] * 1e3,
                     best[(it, "full-size", "Div")] / mul, 1.0, float("nan")])
    return rows


def _guarded_division(shape, bshape, dtype: str, op: str) -> onnx.ModelProto:
    """The previous lowering, for comparison: Equal/Or/Where guards around Div (8 nodes; FLOOR_DIV 16)."""
    t = DTYPES[dtype].onnx
    k = {n: numpy_helper.from_array(np.array(v, DTYPES[dtype].numpy), n) for n, v in (("zero", 0), ("one", 1), ("m1", -1))}
    n = helper.make_node
    nodes = [n("Equal", ["b", "zero"], ["z"]), n("Equal", ["b", "m1"], ["m"]), n("Or", ["z", "m"], ["u"]),
             n("Where", ["u", "one", "b"], ["d"]), n("Div", ["a", "d"], ["q0"])]
    q = "q0"
    if op == "FLOOR_DIV":
        nodes += [n("Mul", ["q0", "d"], ["qd"]), n("Sub", ["a", "qd"], ["r"]), n("Sign", ["r"], ["sr"]), n("Sign", ["d"], ["sd"]),
                  n("Mul", ["sr", "sd"], ["ss"]), n("Less", ["ss", "zero"], ["late"]), n("Sub", ["q0", "one"], ["q1"]),
                  n("Where", ["late", "q1", "q0"], ["qf"])]
        q = "qf"
    nodes += [n("Neg", ["a"], ["na"]), n("Where", ["m", "na", q], ["q2"]), n("Where", ["z", "zero", "q2"], ["y"])]
    return _model(nodes, [helper.make_tensor_value_info("a", t, list(shape)), helper.make_tensor_value_info("b", t, list(bshape))],
                  helper.make_tensor_value_info("y", t, list(shape)), list(k.values()))


DQ_INPUT_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32")


def dequantize_matrix(shape, provider, repeat: int = 15) -> list[list]:
    """Every DequantizeLinear path x input type x output type the lowering can take, against always-Cast/Sub/Mul.

    per-tensor / per-axis: constant scale and zero point (uniform / varying along axis 1); blocked: run-time
    full-shape scale and zero point at opset 21; decomposed: the same at opset 20 (or any opset for uint32);
    "decomposed const zp": a run-time full-shape scale and a constant zero point of 3 at opset 20;
    "decomposed per-channel": run-time scale and zero point buffers of C values read through strides
    [0, 1, 0, ...] at opset 20. The naive form gets the same tensors as run-time inputs (full-shape, or the
    per-channel buffers as [1, C, 1, ...], broadcast), nonzero zero points for every type. Each configuration's
    lowered model and naive form take turns.
    """
    import tempfile

    rng = np.random.default_rng(5)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for out in ("float32", "float16"):
            scale = rng.uniform(0.01, 0.1, size=shape).astype(DTYPES[out].numpy)
            for it in DQ_INPUT_TYPES:
                info = np.iinfo(it)
                x = rng.integers(info.min, info.max, size=shape, dtype=it)
                zp_native = np.full(shape, 3, it) if it != "int32" else np.zeros(shape, it)  # int32: no native zero point
                zp = np.full(shape, 3, it)
                per_axis = np.broadcast_to(np.linspace(0.01, 0.1, shape[1]).reshape(1, -1, *([1] * (len(shape) - 2))), shape)
                np.save(Path(tmp) / "s_tensor.npy", np.full(shape, 0.05, DTYPES[out].numpy))
                np.save(Path(tmp) / "s_axis.npy", per_axis.astype(DTYPES[out].numpy))
                np.save(Path(tmp) / "z.npy", zp_native)
                np.save(Path(tmp) / "z3.npy", zp)
                channels = (shape[1],)
                per_channel = (1, shape[1]) + (1,) * (len(shape) - 2)
                strides = [0, 1] + [0] * (len(shape) - 2)
                configs = [("native-per-tensor", 21, "s_tensor.npy"), ("native-per-axis", 21, "s_axis.npy"),
                           ("native-blocked", 21, None), ("decomposed", 20, None),
                           ("decomposed const zp", 20, "z3.npy"), ("decomposed per-channel", 20, "strides")]
                for label, opset, const in configs:
                    path = label.split()[0]
                    if it == "uint32" and path != "decomposed":
                        continue
                    inputs, constants, layer_strides = {"x": (it, shape)}, {}, None
                    feeds = {"x": x, "s": scale, "z": zp}
                    if label.startswith("native-per"):
                        constants = {"s": {"dtype": out, "shape": list(shape), "data": const},
                                     "z": {"dtype": it, "shape": list(shape), "data": "z.npy"}}
                    elif const == "z3.npy":
                        inputs["s"] = (out, shape)
                        constants = {"z": {"dtype": it, "shape": list(shape), "data": const}}
                    elif const == "strides":
                        inputs.update({"s": (out, channels), "z": (it, channels)})
                        layer_strides = {"scale": strides, "zero_point": strides}
                        feeds = {"x": x, "s": scale.reshape(-1)[:shape[1]].copy(), "z": zp.reshape(-1)[:shape[1]].copy()}
                    else:
                        inputs.update({"s": (out, shape), "z": (it, shape)})
                    spec, model, taken = _dequantize_model(Path(tmp), inputs, constants, opset, layer_strides)
                    if const == "strides":
                        naive_feeds = {"x": x, "s": feeds["s"].reshape(per_channel), "z": feeds["z"].reshape(per_channel)}
                        naive_model = _naive_dequantize(shape, out, it, per_channel)
                    else:
                        naive_feeds = {"x": x, "s": spec.network.constants.get("s", scale), "z": spec.network.constants.get("z", zp)}
                        naive_model = _naive_dequantize(shape, out, it)
                    name = f"{it}->{out} {label}" + ("" if taken == {path} else f" (took {'/'.join(sorted(taken))})")
                    lowered_feeds = {k: v for k, v in feeds.items() if k in inputs}
                    runs = [(OrtRunner(model.SerializeToString(), provider).run, lowered_feeds),
                            (OrtRunner(naive_model.SerializeToString(), provider).run, naive_feeds)]
                    rows.append([name, *_round_robin(runs, repeat)])
    return rows


def _round_robin(runs, repeat: int) -> list[float]:
    """[lowered ms, naive ms, lowered / naive]: the two take turns, best of ``repeat`` each, so that a busy machine
    slows them alike."""
    import time

    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, (run, feeds) in enumerate(runs):
            t0 = time.perf_counter()
            run(feeds)
            best[i] = min(best[i], time.perf_counter() - t0)
    return [best[0] * 1e3, best[1] * 1e3, best[0] / best[1]]


SECTIONS = [scale_rows, elementwise_rows, resize_rows, dequantize_rows]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", type=int, nargs="+", default=[1, 64, 512, 512])
    parser.add_argument("--provider", default="cpu")
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float16"])
    parser.add_argument("--nearest-only", action="store_true", help="only the NEAREST table")
    parser.add_argument("--integer-division", action="store_true",
                        help="only: int32/int64 DIV and FLOOR_DIV against one unguarded Div and the previous guards")
    parser.add_argument("--dequantize-matrix", action="store_true",
                        help="only: every DequantizeLinear path x input type x output type against the naive form")
    args = parser.parse_args(argv)
    provider = resolve_provider(args.provider)
    shape = tuple(args.shape)
    if args.integer_division:
        print(f"Integer division on {list(shape)}, {provider} ({machine()})\n")
        print(table(["configuration", "lowered (ms)", "/ one Mul", "/ one unguarded Div", "previous Where guards / one Div"],
                    integer_division_table(shape, provider)))
        return
    if args.dequantize_matrix:
        print(f"DequantizeLinear paths on {list(shape)}, {provider} ({machine()})\n")
        print(table(["input->output path", "lowered (ms)", "naive (ms)", "/ naive"], dequantize_matrix(shape, provider)))
        return
    if not args.nearest_only:
        rows = []
        for dtype in args.dtypes:
            for section in SECTIONS:
                rows += section(shape, dtype, provider)
        print(f"Lowered-graph speed on {list(shape)}, {provider} ({machine()})\n")
        print(table(["configuration", "lowered (ms)", "/ one Mul pass", "/ naive lowering"], rows))
    print(f"\nNEAREST on {provider} ({machine()})\n")
    print(table(["configuration", "lowered (ms)", "/ native Resize", "/ exact Gathers", "Gathers / native"],
                nearest_rows(shape, "float32", provider)))


if __name__ == "__main__":
    main()
