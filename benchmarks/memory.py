"""Big tensors in bounded memory: one trt.Resize case 1x64x512x512 -> 1x64x1024x1024 (256 MiB of float32 out).

Each mode runs in a fresh interpreter (a subprocess), which validates the case in-process
(``-j 0``) and reports its wall time, its CPU time (user + system: less disturbed by other
load on the machine) and its peak RSS (``resource.getrusage(...).ru_maxrss``),
with the parse caches off (a big spec is never cached anyway), next to the RSS of the interpreter with spec2onnx and onnxruntime imported (the floor any run
starts from). A first child runs unmeasured (its time is printed): on a VM the first process to touch
this much memory after a while pays the host's page faults. In the same child, each phase is timed again, and ``compare`` runs under
tracemalloc: its peak extra memory, against the output's bytes.

    python -m benchmarks.memory [--modes NEAREST LINEAR] [--size 512]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from .common import machine, table

CHILD = r"""
import json, resource, sys, time, tracemalloc
from pathlib import Path

def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

from converter import reference
from converter.api import make_options, run_validation
from converter.compare import compare, resolve_tolerance
from converter.lowering import build_model
from converter.runners.onnxruntime import OrtRunner
from converter.pipeline.spec import load_spec

floor = rss_mib()
path = Path(sys.argv[1])
t0, c0 = time.perf_counter(), time.process_time()
results = list(run_validation([path], make_options(), jobs=0))
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
assert [r.outcome for r in results] == ["PASS"], [r.problems for r in results]
peak = rss_mib()

phases = {}
t = time.perf_counter(); spec = load_spec(path); phases["load"] = time.perf_counter() - t
case = spec.cases[0]
t = time.perf_counter(); want = reference.run_network(spec.network, case.inputs)["y"]; phases["reference"] = time.perf_counter() - t
t = time.perf_counter()
runner = OrtRunner(build_model(spec.network, name=spec.name, opset=17).SerializeToString())
phases["model+session"] = time.perf_counter() - t
t = time.perf_counter(); got = runner.run(case.inputs)["y"]; phases["run"] = time.perf_counter() - t
tolerance = resolve_tolerance(spec.network.types["y"].dtype)
tracemalloc.start()
t = time.perf_counter(); mismatch = compare(got, want, tolerance); phases["compare"] = time.perf_counter() - t
compare_peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
assert mismatch is None
print(json.dumps({"wall": wall, "cpu": cpu, "peak": peak, "floor": floor, "phases": phases,
                  "compare_extra": compare_peak, "output_bytes": got.nbytes}))
"""


def spec(mode: str, size: int) -> dict:
    return {
        "name": f"memory-resize-{mode.lower()}",
        "network": {
            "inputs": {"x": {"dtype": "float32", "shape": [1, 64, size, size]}},
            "layers": [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "resize_mode": mode,
                        "shape": [1, 64, 2 * size, 2 * size]}],
            "outputs": ["y"],
        },
        "cases": [{"name": "random", "inputs": {"x": {"random": "uniform", "low": -1, "high": 1, "seed": 3}}}],
    }


def measure(path: Path) -> dict:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "SPEC2ONNX_CACHE": "off"})
    if done.returncode:
        raise SystemExit(f"the child failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", default=["NEAREST", "LINEAR"])
    parser.add_argument("--size", type=int, default=512, help="input height and width (default 512)")
    args = parser.parse_args(argv)
    rows, phase_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for mode in args.modes:
            paths[mode] = Path(tmp) / f"{mode}.yaml"
            paths[mode].write_text(yaml.safe_dump(spec(mode, args.size), sort_keys=False))
        # On a VM whose host takes freed memory back, the first process to touch ~0.6 GiB after a while
        # pays for the host's page faults (0.6-1.2 s here, against 0.3-0.6 s for the next one, whatever the
        # mode): one unmeasured child first, and its time printed, so that the table compares modes.
        warm_up = measure(paths[args.modes[0]])
        for mode in args.modes:
            m = measure(paths[mode])
            mib = 2**20
            rows.append([f"Resize {mode}", f"{m['wall']:.2f} s", f"{m['cpu']:.2f} s", f"{m['peak'] / 1024:.2f} GiB",
                         f"{m['floor']:.0f} MiB", f"{m['compare_extra'] / mib:.1f} MiB",
                         f"{m['compare_extra'] / m['output_bytes']:.3f}"])
            phase_rows.append([f"Resize {mode}"] + [f"{m['phases'][p] * 1000:.0f}" for p in PHASES])
    shape = f"1x64x{args.size}x{args.size} -> 1x64x{2 * args.size}x{2 * args.size}"
    print(f"One validated case, {shape}, float32, in a fresh process ({machine()})\n")
    print(table(["case", "validate (in-process)", "CPU time", "peak RSS", "RSS after imports", "compare's extra memory",
                 "/ output bytes"], rows))
    print("\nPhases, ms (timed again in the same process)\n")
    print(table(["case"] + list(PHASES), phase_rows))
    print(f"\n(A first, unmeasured child validated Resize {args.modes[0]} in {warm_up['wall']:.2f} s wall, "
          f"{warm_up['cpu']:.2f} s CPU: what a cold machine's first run pays.)")


PHASES = ("load", "reference", "model+session", "run", "compare")

if __name__ == "__main__":
    main()
