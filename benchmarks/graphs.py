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
from converter.runtime import OrtRunner, resolve_provider
from converter.spec import parse_spec

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


def naive_scale(shape, dtype: str, mode: str, scale, shift, power) -> onnx.ModelProto:
    """Always Mul -> Add -> Pow, in float32 (with casts around a float16 input), coefficients broadcast like ours."""
    c = 1 if mode == "UNIFORM" else shape[1]
    cshape = [] if mode == "UNIFORM" else [c, 1, 1]
    consts = [numpy_helper.from_array(np.broadcast_to(np.float32(v), (c,)).reshape(cshape).astype(np.float32), n)
              for n, v in (("s", scale), ("b", shift), ("p", power))]
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
        naive = timed(naive_scale(list(shape), dtype, mode, scale[0], shift[0], power[0] if mode == "UNIFORM" else 1.0)
                      if mode == "UNIFORM" else naive_scale_per_channel(list(shape), dtype, scale, shift, power), {"x": x}, provider)
        rows.append([f"{label} ({dtype})", lowered * 1e3, lowered / floor, lowered / naive])
    return rows


def naive_scale_per_channel(shape, dtype, scale, shift, power):
    t = DTYPES[dtype].onnx
    consts = [numpy_helper.from_array(np.array(v, np.float32).reshape(-1, 1, 1), n) for n, v in (("s", scale), ("b", shift), ("p", power))]
    nodes, x = [], "x"
    if dtype != "float32":
        nodes.append(helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT))
        x = "xf"
    nodes += [helper.make_node("Mul", [x, "s"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
              helper.make_node("Pow", ["a", "p"], ["yf" if dtype != "float32" else "y"])]
    if dtype != "float32":
        nodes.append(helper.make_node("Cast", ["yf"], ["y"], to=t))
    return _model(nodes, [helper.make_tensor_value_info("x", t, shape)], helper.make_tensor_value_info("y", t, shape), consts)


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


SECTIONS = [scale_rows, elementwise_rows]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", type=int, nargs="+", default=[1, 64, 512, 512])
    parser.add_argument("--provider", default="cpu")
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float16"])
    args = parser.parse_args(argv)
    provider = resolve_provider(args.provider)
    shape = tuple(args.shape)
    rows = []
    for dtype in args.dtypes:
        for section in SECTIONS:
            rows += section(shape, dtype, provider)
    print(f"Lowered-graph speed on {list(shape)}, {provider} ({machine()})\n")
    print(table(["configuration", "lowered (ms)", "/ one Mul pass", "/ naive lowering"], rows))


if __name__ == "__main__":
    main()
