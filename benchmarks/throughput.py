"""Validation throughput: spec2onnx validate -j 1 and -j 2 on >= 2,000 small generated cases, next to the floor.

The floor is what any validator must do per case, measured in the same run: create an
onnxruntime session from bytes for a one-node model, run it once, compare with numpy, in a
tight loop (one process, then two processes in parallel).

spec2onnx runs with its parsed-document cache off, and warm (filled by a first pass over the
suite; converter/pipeline/doc_cache.py). Rounds interleave every row with its floor, so that a busy
machine disturbs both alike; "ratio, CPU time" divides cases per CPU-second (this process and
its workers, user + system), which other load on the machine disturbs less than wall time.

    python -m benchmarks.throughput [--cases 2000] [--repeat 3] [--against TREE]

``--against TREE`` adds the rows of another checkout's spec2onnx (its ``converter/``, e.g. ``git worktree
add /tmp/before main``), measured the same way in the same rounds: before and after side by side. Then
every spec2onnx row runs in a fresh process of its own (one untimed pass, then the timed one), this
checkout's too, so that neither gains from the other's warm process.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from .common import machine, one_mul_model, table

CASES_PER_SPEC = 5


def _spec(i: int) -> dict:
    """A small one-layer spec; the kinds and dtypes rotate."""
    kind = i % 4
    if kind == 0:
        dtype = ("float32", "float16", "int8", "bfloat16")[i // 4 % 4]
        layer = {"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "CHANNEL", "scale": [2, 3], "shift": [1, -1], "power": [1, 2]}
        inputs = {"x": {"dtype": dtype, "shape": [1, 2, 4, 4]}}
    elif kind == 1:
        dtype, op = (("float32", "SUM"), ("int32", "DIV"), ("float16", "PROD"), ("bfloat16", "MAX"))[i // 4 % 4]
        layer = {"name": "y", "op": "trt.ElementWise", "inputs": ["x", "z"], "operation": op}
        inputs = {"x": {"dtype": dtype, "shape": [2, 3, 4]}, "z": {"dtype": dtype, "shape": [2, 1, 4]}}
    elif kind == 2:
        dtype, mode = (("float32", "LINEAR"), ("float16", "NEAREST"), ("int8", "CUBIC"), ("float32", "CUBIC"))[i // 4 % 4]
        layer = {"name": "y", "op": "trt.Resize", "inputs": ["x"], "resize_mode": mode, "shape": [1, 2, 6, 6]}
        inputs = {"x": {"dtype": dtype, "shape": [1, 2, 4, 4]}}
    else:
        xtype = ("int8", "uint8", "int32", "uint16")[i // 4 % 4]
        layer = {"name": "y", "op": "dml.DequantizeLinear", "inputs": ["x", "s", "zp"]}
        inputs = {"x": {"dtype": xtype, "shape": [2, 3, 4]}, "s": {"dtype": "float32", "shape": [2, 3, 4]},
                  "zp": {"dtype": xtype, "shape": [2, 3, 4]}}
    cases = []
    for c in range(CASES_PER_SPEC):
        data = {}
        for n, t in inputs.items():
            if t["dtype"].startswith(("int", "uint")):
                data[n] = {"random": "integers", "low": -5 if t["dtype"].startswith("int") else 0, "high": 5, "seed": c * 7 + len(data)}
            else:
                data[n] = {"random": "uniform", "low": 0.5, "high": 2, "seed": c * 7 + len(data)}
        cases.append({"name": f"c{c}", "inputs": data})
    return {"name": f"bench-{i}", "network": {"inputs": inputs, "layers": [layer], "outputs": ["y"]}, "cases": cases}


def write_suite(folder: Path, cases: int) -> int:
    specs = -(-cases // CASES_PER_SPEC)
    for i in range(specs):
        (folder / f"bench-{i}.yaml").write_text(yaml.safe_dump(_spec(i), sort_keys=False))
    return specs * CASES_PER_SPEC


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (workers, pool processes)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def spec2onnx_rate(folder: Path, jobs: int, cache: str) -> tuple[float, float]:
    """(cases per wall second, cases per CPU second) for finding, loading and validating every spec,
    measured inside this process (no interpreter start). ``cache``: SPEC2ONNX_CACHE for the run."""
    from converter.api import make_options, run_validation
    from converter.pipeline.selection import spec_files

    os.environ["SPEC2ONNX_CACHE"] = cache  # the workers inherit it
    c0, t0 = _cpu(), time.perf_counter()
    files = spec_files([folder])
    results = list(run_validation(files, make_options(), jobs=jobs, timeout=60))
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    bad = [r for r in results if r.outcome != "PASS"]
    if bad:
        raise SystemExit(f"benchmark suite failed: {bad[0].id}: {bad[0].problems}")
    return len(results) / wall, len(results) / cpu


_CHILD = """
import json, sys
tree, suite, jobs, cache, here = sys.argv[1:6]
sys.path[:0] = [tree, here]
from benchmarks.throughput import spec2onnx_rate
spec2onnx_rate(__import__("pathlib").Path(suite), int(jobs), cache)  # untimed: imports, per-process answers
print(json.dumps(spec2onnx_rate(__import__("pathlib").Path(suite), int(jobs), cache)))
"""


def rate_in_child(tree: Path, folder: Path, jobs: int, cache: str) -> tuple[float, float]:
    """spec2onnx_rate with ``tree``'s spec2onnx (its converter/ first on sys.path), in a fresh process."""
    import json
    import subprocess
    import sys

    here = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(tree), str(folder), str(jobs), cache, here],
                          capture_output=True, text=True, check=True)
    return tuple(json.loads(proc.stdout.strip().splitlines()[-1]))


def _floor_worker(n: int) -> float:
    import onnxruntime as ort

    data, a = one_mul_model()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    t0 = time.perf_counter()
    for _ in range(n):
        session = ort.InferenceSession(data, sess_options=options, providers=["CPUExecutionProvider"])
        (y,) = session.run(None, {"a": a, "b": a})
        assert np.allclose(y, a * a)
    return time.perf_counter() - t0


def floor_rate(n: int, processes: int) -> tuple[float, float]:
    """(cases per wall second, cases per CPU second) of the floor."""
    c0 = _cpu()
    if processes == 1:
        wall = _floor_worker(n)
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(processes) as pool:
            t0 = time.perf_counter()
            pool.map(_floor_worker, [n // processes] * processes)
            wall = time.perf_counter() - t0
            pool.close()
            pool.join()  # (so that RUSAGE_CHILDREN counts the pool's processes)
    return n / wall, n / (_cpu() - c0)


def _spread(values: list[float]) -> str:
    values = sorted(values)
    mid = values[len(values) // 2]
    return f"{mid:.3g}" if len(values) == 1 else f"{mid:.3g} ({values[0]:.3g}-{values[-1]:.3g})"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each measures every row once, interleaved")
    parser.add_argument("--against", type=Path, help="another checkout whose spec2onnx is measured beside this one")
    args = parser.parse_args(argv)
    trees = [("", None)] if args.against is None else [("before, ", args.against.resolve()),
                                                         ("after, ", Path(__file__).resolve().parent.parent)]
    saved = os.environ.get("SPEC2ONNX_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        suite.mkdir()
        total = write_suite(suite, args.cases)
        caches = {label: Path(tmp) / f"cache{i}" for i, (label, _) in enumerate(trees)}
        for label, tree in trees:  # fills the caches
            spec2onnx_rate(suite, 0, str(caches[label])) if tree is None else rate_in_child(tree, suite, 0, str(caches[label]))
        rows = {(label, jobs, what): ([], [], [], [], []) for label, _ in trees for jobs in (1, 2)
                for what in ("no cache", "warm cache")}
        try:
            for _ in range(args.repeat):
                for jobs in (1, 2):
                    for what in ("no cache", "warm cache"):
                        for label, tree in trees:
                            folder = "off" if what == "no cache" else str(caches[label])
                            floor, floor_cpu = floor_rate(total, jobs)
                            full, full_cpu = (spec2onnx_rate(suite, jobs, folder) if tree is None
                                              else rate_in_child(tree, suite, jobs, folder))
                            values = (full, floor, full / floor, full_cpu, full_cpu / floor_cpu)
                            for column, value in zip(rows[label, jobs, what], values):
                                column.append(value)
        finally:
            if saved is None:
                os.environ.pop("SPEC2ONNX_CACHE", None)
            else:
                os.environ["SPEC2ONNX_CACHE"] = saved
    print(f"Validation throughput, {total} cases in {total // CASES_PER_SPEC} specs, {args.repeat} rounds: "
          f"median (min-max) ({machine()})\n")
    print(table(["spec2onnx validate", "cases/s", "floor cases/s", "ratio to floor", "cases/CPU-s", "ratio, CPU time"],
                [[f"{label}-j {jobs}, {what}"] + [_spread(c) for c in columns]
                 for (label, jobs, what), columns in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0] != "before, "))]))


if __name__ == "__main__":
    main()
