"""The numpy trt.Resize reference vs onnx.reference.ReferenceEvaluator on the same ONNX Resize.

    python -m benchmarks.resize_reference [--repeat N]

1x3x512x512 -> 1x3x1024x1024 float32, LINEAR and CUBIC (HALF_PIXEL): both evaluators get the
same input; the table gives the best of N runs of each, their ratio, and the largest difference
between the two outputs (they compute coordinates differently: exact fractions vs float32 scale).
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from converter.reference.resize_kernel import resize

IN_SHAPE, OUT_SHAPE = (1, 3, 512, 512), (1, 3, 1024, 1024)


def onnx_resize_model(mode: str) -> onnx.ModelProto:
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode.lower(), coordinate_transformation_mode="half_pixel")
    graph = helper.make_graph([node], "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(IN_SHAPE))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(OUT_SHAPE))],
                              initializer=[numpy_helper.from_array(np.array(OUT_SHAPE, np.int64), "sizes")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def best_of(repeat: int, fn):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per evaluator; the best is reported (default 3)")
    args = parser.parse_args()
    x = np.random.default_rng(0).normal(size=IN_SHAPE).astype(np.float32)
    print(f"{'x'.join(map(str, IN_SHAPE))} -> {'x'.join(map(str, OUT_SHAPE))} float32, HALF_PIXEL, best of {args.repeat}; "
          f"numpy {np.__version__}, onnx {onnx.__version__}, {platform.processor() or platform.machine()}")
    print(f"{'mode':<8}{'numpy reference':>17}{'onnx ReferenceEvaluator':>26}{'ratio':>9}{'max |diff|':>13}")
    for mode in ("LINEAR", "CUBIC"):
        evaluator = ReferenceEvaluator(onnx_resize_model(mode))
        t_ours, ours = best_of(args.repeat, lambda: resize(x, OUT_SHAPE, resize_mode=mode, coordinate_transformation="HALF_PIXEL"))
        t_onnx, theirs = best_of(args.repeat, lambda: evaluator.run(None, {"x": x})[0])
        diff = float(np.max(np.abs(ours - theirs)))
        print(f"{mode:<8}{t_ours * 1e3:>14.1f} ms{t_onnx * 1e3:>23.1f} ms{t_onnx / t_ours:>8.1f}x{diff:>13.2e}")


if __name__ == "__main__":
    main()
