"""Reference speed: the numpy references against onnx's ReferenceEvaluator on the equivalent ONNX model.

Resize 1x3x512x512 -> 1x3x1024x1024 (LINEAR, CUBIC) and a 64 MiB Scale (float32
1x64x512x512, CHANNEL scale+shift+power). Target: the numpy reference at least 3x faster.

    python -m benchmarks.reference
"""

from __future__ import annotations

import argparse

import numpy as np
from onnx.reference import ReferenceEvaluator

from converter import reference
from converter.lowering import build_model

from .common import best_of, machine, table
from .graphs import layer_spec


def cases():
    rng = np.random.default_rng(0)
    resize_x = rng.uniform(-1, 1, (1, 3, 512, 512)).astype(np.float32)
    for mode in ("LINEAR", "CUBIC"):
        spec = layer_spec("trt.Resize", {"x": ("float32", (1, 3, 512, 512))},
                          {"resize_mode": mode, "shape": [1, 3, 1024, 1024], "coordinate_transformation": "HALF_PIXEL"})
        yield f"Resize {mode} 1x3x512x512 -> 1x3x1024x1024", spec, {"x": resize_x}
    c = 64
    spec = layer_spec("trt.Scale", {"x": ("float32", (1, c, 512, 512))},
                      {"mode": "CHANNEL", "scale": [1.5] * c, "shift": [0.25] * c, "power": [1.0 + i % 3 for i in range(c)]})
    yield "Scale CHANNEL 64 MiB (1x64x512x512)", spec, {"x": rng.uniform(0.5, 2, (1, c, 512, 512)).astype(np.float32)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for label, spec, feeds in cases():
        evaluator = ReferenceEvaluator(build_model(spec.network))
        ours = best_of(lambda: reference.run_network(spec.network, feeds), repeat=args.repeat)
        theirs = best_of(lambda: evaluator.run(None, feeds), repeat=args.repeat)
        rows.append([label, ours, theirs, theirs / ours])
    print(f"Reference speed ({machine()})\n")
    print(table(["configuration", "numpy reference (s)", "onnx ReferenceEvaluator (s)", "speed-up"], rows))


if __name__ == "__main__":
    main()
