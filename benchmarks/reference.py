"""Reference speed: the numpy references against onnx's ReferenceEvaluator on the equivalent ONNX model.

Resize 1x3x512x512 -> 1x3x1024x1024 (LINEAR, CUBIC) and a 64 MiB Scale (float32
1x64x512x512, CHANNEL scale+shift+power). Target: the numpy reference at least 3x faster.

    python -m benchmarks.reference
    python -m benchmarks.reference --big     # the Resize reference alone on 1x64x512x512 -> 1024x1024
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


def big_resize(repeat: int) -> list[list]:
    """The Resize reference alone on 1x64x512x512 -> 1024x1024 float32: best time and the peak of what it
    allocates (tracemalloc, numpy's allocations included) against the 256 MiB output it must hold."""
    import tracemalloc

    from converter.reference.resize_kernel import resize

    x = np.random.default_rng(0).standard_normal((1, 64, 512, 512), dtype=np.float32)
    rows = []
    for mode in ("NEAREST", "LINEAR", "CUBIC"):
        def run():
            return resize(x, (1, 64, 1024, 1024), resize_mode=mode, coordinate_transformation="HALF_PIXEL")
        seconds = best_of(run, repeat=repeat)
        tracemalloc.start()
        run()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append([f"Resize {mode} 1x64x512x512 -> 1x64x1024x1024", seconds, peak / 2**20, peak / 2**20 - 256])
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big", action="store_true", help="only the large Resize case: time and peak allocation")
    args = parser.parse_args(argv)
    if args.big:
        print(f"Resize reference, large case ({machine()})\n")
        print(table(["configuration", "time (s)", "peak allocated (MiB)", "beyond the output (MiB)"], big_resize(args.repeat)))
        return
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
