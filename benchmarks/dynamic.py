"""Dynamic shapes: what a model with symbolic dimensions costs against the static model of the same shape, and what
one session for every shape saves against a session per shape (what validate would do with a static spec per shape).

Per layer family and shape, side by side in one run (onnxruntime CPU EP, one thread, the fastest single run of
--repeat x --number, the two models interleaved): the static model (the spec with that shape written in) and the dynamic one (named dimensions and a profile
covering every shape: its Resize sizes and DequantizeLinear offsets computed in the graph). Then the sessions
(onnxruntime's InferenceSession from the model's bytes): one for the dynamic model, which runs every shape, against
one per shape for the static models.

    python -m benchmarks.dynamic [--repeat 5] [--number 20] [--only Resize]

The load average (os.getloadavg) is printed before and after: on a shared machine it says how far to trust the
small rows.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from .common import best_of, machine, table

# (4x8x65x65: where onnxruntime's NEAREST Resize is one off for x1.5, so both models take the exact Gathers)
SHAPES = ((1, 8, 32, 32), (2, 8, 64, 64), (4, 8, 65, 65), (4, 8, 128, 128))
FAMILIES = {
    "Scale CHANNEL": ({"op": "trt.Scale", "mode": "CHANNEL", "scale": [0.5] * 8, "shift": [1.0] * 8}, "float32"),
    "ElementWise SUM, [n,c,h,w] + [n,c,1,1]": ({"op": "trt.ElementWise", "operation": "SUM"}, "float32"),
    "Resize LINEAR x2": ({"op": "trt.Resize", "resize_mode": "LINEAR", "scales": [1, 1, 2, 2]}, "float32"),
    "Resize CUBIC x2": ({"op": "trt.Resize", "resize_mode": "CUBIC", "scales": [1, 1, 2, 2]}, "float32"),
    "Resize NEAREST x1.5": ({"op": "trt.Resize", "scales": [1, 1, 1.5, 1.5], "coordinate_transformation": "HALF_PIXEL"},
                            "float32"),
    "DequantizeLinear, strides [0,1,0,0]": ({"op": "dml.DequantizeLinear", "strides": {"scale": [0, 1, 0, 0]}}, "uint8"),
}


def _doc(attrs: dict, dtype: str, dims: list, profile: dict | None) -> dict:
    layer = {"name": "y", **attrs}
    inputs = {"x": {"dtype": dtype, "shape": dims}}
    if attrs["op"] == "trt.ElementWise":
        inputs["b"] = {"dtype": dtype, "shape": dims[:2] + [1, 1]}
        layer["inputs"] = ["x", "b"]
    elif attrs["op"] == "dml.DequantizeLinear":
        inputs["s"] = {"dtype": "float32", "shape": [dims[1]]}
        layer["inputs"] = ["x", "s"]
    else:
        layer["inputs"] = ["x"]
    network = {"inputs": inputs, "layers": [layer], "outputs": ["y"]}
    if profile:
        network["profiles"] = [profile]
    return {"name": "bench", "network": network, "cases": []}


def _feeds(doc: dict, shape: tuple) -> dict:
    rng = np.random.default_rng(0)
    out = {}
    for name, t in doc["network"]["inputs"].items():
        size = list(shape) if name == "x" else list(shape[:2]) + [1, 1] if name == "b" else [shape[1]]
        out[name] = (rng.integers(0, 255, size).astype(np.uint8) if t["dtype"] == "uint8"
                     else rng.uniform(-1, 1, size).astype(np.float32))
    return out


def _model(doc: dict) -> bytes:
    from converter.pipeline.stages import model_for_target
    from converter.pipeline.spec import parse_spec
    from converter.targets import resolve_target

    spec = parse_spec(doc, Path("bench.yaml"), require_cases=False)
    return model_for_target(spec, resolve_target("ort-cpu"), 17)[0].SerializeToString()


def _session(model: bytes):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=40)
    parser.add_argument("--only", default="", help="the layer families whose name contains this text")
    args = parser.parse_args(argv)
    print(machine())
    print("load average at the start: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    low, high = [min(s[i] for s in SHAPES) for i in range(4)], [max(s[i] for s in SHAPES) for i in range(4)]
    rows, sessions = [], []
    for family, (attrs, dtype) in FAMILIES.items():
        if args.only not in family:
            continue
        inputs_profile = {"x": {"min": low, "opt": list(SHAPES[1]), "max": high}}
        if attrs["op"] == "trt.ElementWise":
            inputs_profile["b"] = {k: v[:2] + [1, 1] for k, v in inputs_profile["x"].items()}
        dynamic_doc = _doc(attrs, dtype, ["n", 8, "h", "w"], inputs_profile)
        dynamic = _session(_model(dynamic_doc))
        for shape in SHAPES:
            static_doc = _doc(attrs, dtype, list(shape), None)
            static = _session(_model(static_doc))
            feeds = _feeds(static_doc, shape)
            # the fastest single run of each (noise only adds time; the shared machine is busy): interleaved
            t_static = t_dynamic = float("inf")
            for _ in range(args.repeat):
                t_static = min(t_static, best_of(lambda: static.run(None, feeds), args.number))
                t_dynamic = min(t_dynamic, best_of(lambda: dynamic.run(None, feeds), args.number))
            rows.append([family, "x".join(map(str, shape)), f"{t_static * 1e3:.3f}", f"{t_dynamic * 1e3:.3f}",
                         f"{t_dynamic / t_static:.2f}"])
        static_models = [_model(_doc(attrs, dtype, list(shape), None)) for shape in SHAPES]
        dynamic_model = _model(dynamic_doc)
        per_shape = best_of(lambda: [_session(m) for m in static_models], args.repeat)
        one = best_of(lambda: _session(dynamic_model), args.repeat)
        sessions.append([family, f"{per_shape * 1e3:.1f}", f"{one * 1e3:.1f}", f"{one / per_shape:.2f}"])
    print(table(["layer", "shape", "static ms", "dynamic ms", "dynamic / static"], rows))
    print()
    print(table(["layer", f"a session per shape ({len(SHAPES)}), ms", "one dynamic session, ms", "ratio"],
                sessions))
    print("load average at the end: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
