"""Per-spec cost on onnxruntime's CUDA execution provider, against the CUDA session floor.

A spec with one small case costs at least what any validator pays per model: an onnxruntime
session created from bytes on the CUDA EP, one run, one comparison. This measures that floor and
``spec2onnx validate --provider cuda`` (in-process, ``-j 0``, so that both run in one process on
one GPU) over the same number of one-case specs, side by side, in rounds. Target: at most 1.1x
the floor per spec.

Where onnxruntime has no CUDA provider (onnxruntime, not onnxruntime-gpu; or no GPU), it says so
on one line and exits 0: there is nothing to measure.

    python -m benchmarks.cuda [--specs 200] [--repeat 3] [--cpu-stand-in]

``--cpu-stand-in`` measures the same thing where there is no GPU: spec2onnx lowers for ort-cuda (the
path ``--provider cuda`` takes: the target's opset search and static check, the lowered model cache)
but runs on the CPU EP, against the CPU floor. What it shows is spec2onnx's own per-spec work beyond
the floor's (loading, lowering, the reference, the comparison), in milliseconds; on a GPU the session
and the run cost more, and the first run is profiled for placement, which the CPU does not do.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from .common import machine, one_mul_model, table

CUDA = "CUDAExecutionProvider"


def _spec(i: int) -> dict:
    """One-case float32 specs whose lowerings have CUDA kernels (Scale, ElementWise, Resize LINEAR)."""
    kind = i % 3
    if kind == 0:
        layer = {"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "CHANNEL", "scale": [2, 3], "shift": [1, -1]}
        inputs = {"x": {"dtype": "float32", "shape": [1, 2, 4, 4]}}
    elif kind == 1:
        layer = {"name": "y", "op": "trt.ElementWise", "inputs": ["x", "z"], "operation": ("SUM", "PROD", "MAX")[i // 3 % 3]}
        inputs = {"x": {"dtype": "float32", "shape": [2, 3, 4]}, "z": {"dtype": "float32", "shape": [2, 1, 4]}}
    else:
        layer = {"name": "y", "op": "trt.Resize", "inputs": ["x"], "resize_mode": "LINEAR", "shape": [1, 2, 6, 6]}
        inputs = {"x": {"dtype": "float32", "shape": [1, 2, 4, 4]}}
    data = {n: {"random": "uniform", "low": 0.5, "high": 2, "seed": i * 7 + j} for j, n in enumerate(inputs)}
    return {"name": f"cuda-bench-{i}", "network": {"inputs": inputs, "layers": [layer], "outputs": ["y"]},
            "cases": [{"name": "c", "inputs": data}]}


def floor_seconds(n: int, provider: str = CUDA) -> float:
    """n times: a CUDA session for a one-node model from bytes, one run, one comparison (no CPU fallback,
    as spec2onnx runs it)."""
    import onnxruntime as ort

    data, a = one_mul_model()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    if provider != "CPUExecutionProvider":
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    t0 = time.perf_counter()
    for _ in range(n):
        session = ort.InferenceSession(data, sess_options=options, providers=[provider])
        (y,) = session.run(None, {"a": a, "b": a})
        assert np.allclose(y, a * a)
    return time.perf_counter() - t0


def spec2onnx_seconds(folder: Path, stand_in: bool = False) -> tuple[float, int]:
    from converter.api import make_options, run_validation
    from converter.selection import spec_files

    options = make_options(provider="cpu", target="ort-cuda") if stand_in else make_options(provider="cuda")
    t0 = time.perf_counter()
    results = list(run_validation(spec_files([folder]), options, jobs=0))
    seconds = time.perf_counter() - t0
    bad = [r for r in results if r.outcome != "PASS"]
    if bad:
        raise SystemExit(f"benchmark suite failed on CUDA: {bad[0].id}: {bad[0].problems}")
    return seconds, len(results)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu-stand-in", action="store_true", help="lower for ort-cuda, run on the CPU EP (no GPU needed)")
    args = parser.parse_args(argv)
    import onnxruntime as ort

    available = ort.get_available_providers()
    provider = "CPUExecutionProvider" if args.cpu_stand_in else CUDA
    if provider not in available:
        print(f"no CUDA provider: onnxruntime {ort.__version__} has {', '.join(available)} "
              "(install onnxruntime-gpu on a machine with an NVIDIA GPU); nothing measured")
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for i in range(args.specs):
            (folder / f"cuda-bench-{i}.yaml").write_text(yaml.safe_dump(_spec(i), sort_keys=False))
        os.environ.setdefault("SPEC2ONNX_CACHE", str(folder / "cache"))
        floor_seconds(5, provider)
        spec2onnx_seconds(folder, args.cpu_stand_in)  # warms the caches, CUDA and cuDNN
        for round_ in range(args.repeat):
            floor = floor_seconds(args.specs, provider) / args.specs
            full, cases = spec2onnx_seconds(folder, args.cpu_stand_in)
            rows.append([f"round {round_ + 1}", f"{full / args.specs * 1000:.2f}", f"{floor * 1000:.2f}",
                         f"{(full / args.specs - floor) * 1000:.2f}", f"{full / args.specs / floor:.2f}"])
    where = "the CPU EP standing in for CUDA (lowered for ort-cuda)" if args.cpu_stand_in else "the CUDA EP"
    print(f"Per-spec cost on {where}, {args.specs} one-case specs ({machine()})\n")
    print(table(["", "spec2onnx ms/spec", "floor ms/spec", "beyond the floor, ms", "ratio (target <= 1.1)"], rows))


if __name__ == "__main__":
    main()
