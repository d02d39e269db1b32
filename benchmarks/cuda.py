"""Per-spec cost on onnxruntime's CUDA execution provider, against a bare CUDA session (issue 24, item 5).

The two figures the issue names, over the same number of one-case specs, round by round:

- ``validate_ms``: ``spec2onnx validate --provider cuda -j 1`` per spec: ``run_validation`` with one worker
  process, caches warm (a first, untimed pass fills them), timed from the call to the last result, so the
  worker's start and its CUDA initialization count, as they do for the command;
- ``bare_ms``: what any validator pays per model: an onnxruntime session created from bytes on the CUDA EP
  without CPU fallback, one run, one ``np.allclose``, in a loop (CUDA initialized before the clock starts).

Target: ``validate_ms`` at most 1.1x ``bare_ms``. Both run in fresh child processes: a process that has
initialized CUDA cannot fork a worker that uses it. ``measure(n_specs)`` returns the figures as a dict
(``python -m tools.gpu_check`` reports them); where CUDA cannot run here (onnxruntime without the CUDA
provider, onnxruntime-gpu without a GPU or its libraries) it returns ``{"skipped": why}`` and ``main`` says
so on one line and exits 0.

    python -m benchmarks.cuda [--specs 200] [--repeat 3] [--cpu-stand-in]

``--cpu-stand-in`` measures the same without a GPU: spec2onnx lowers for ort-cuda (the path ``--provider
cuda`` takes: the target's opset search and static check, the lowered-model cache) but runs on the CPU EP,
against the CPU floor: spec2onnx's own work beyond the floor's (loading, lowering, the reference, the
comparison, the worker). On a GPU the session and the run cost more, and the first run of each session is
profiled for placement (converter/runners/placement.py), which the CPU EP does not need.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from .common import machine, table

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"
ROOT = Path(__file__).resolve().parent.parent


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


# The children: each prints one JSON line, {"seconds": ...} (and "first" for validate) or {"error": ...}.
_BARE = """
import json, sys, time
import numpy as np
import onnxruntime as ort
sys.path.insert(0, sys.argv[3])
from benchmarks.common import one_mul_model
n, provider = int(sys.argv[1]), sys.argv[2]
data, a = one_mul_model()
options = ort.SessionOptions()
options.intra_op_num_threads = 1
options.log_severity_level = 4
if provider != "CPUExecutionProvider":
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
def once():
    session = ort.InferenceSession(data, sess_options=options, providers=[provider])
    (y,) = session.run(None, {"a": a, "b": a})
    assert np.allclose(y, a * a)
try:
    for _ in range(5):  # CUDA and cuDNN initialized, memory arenas made
        once()
except Exception as exc:
    print(json.dumps({"error": str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__}))
    sys.exit(0)
t0 = time.perf_counter()
for _ in range(n):
    once()
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""

_VALIDATE = """
import json, os, sys, time
sys.path.insert(0, sys.argv[4])
os.environ["SPEC2ONNX_CACHE"] = sys.argv[3]
from converter.api import make_options, run_validation
from converter.pipeline.selection import spec_files
stand_in = sys.argv[2] == "stand-in"
options = make_options(provider="cpu", target="ort-cuda") if stand_in else make_options(provider="cuda")
files = spec_files([sys.argv[1]])
def once():
    t0 = time.perf_counter()
    first = None
    for result in run_validation(files, options, jobs=1, timeout=600):
        first = first or time.perf_counter() - t0
        if result.outcome != "PASS":
            print(json.dumps({"error": f"{result.id}: {result.outcome}: {'; '.join(result.problems)[:300]}"}))
            sys.exit(0)
    return time.perf_counter() - t0, first
once()  # untimed: fills the caches (specs, lowered models)
seconds, first = once()
print(json.dumps({"seconds": seconds, "first": first}))
"""


def _child(code: str, *args) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return {"error": f"the measuring process ended without a result: {tail[:300]}"}


def _cuda_problem() -> str | None:
    """Why CUDA cannot run here, or None. Asked without initializing CUDA in this process."""
    try:
        import onnxruntime as ort
    except ImportError:
        return "onnxruntime is not installed"
    from converter.installed import ort_build

    available = ort.get_available_providers()
    if CUDA not in available:
        return (f"no CUDA provider: onnxruntime {ort.__version__} has {', '.join(available)} "
                "(install onnxruntime-gpu on a machine with an NVIDIA GPU)")
    why = ort_build.unusable(CUDA)  # asked in a child process, once per build and machine
    return f"onnxruntime {ort.__version__} cannot create {CUDA} here: {why}" if why else None


def measure(n_specs: int = 200, repeat: int = 3, *, stand_in: bool = False) -> dict:
    """The per-spec figures, median of ``repeat`` rounds: {"provider", "specs", "validate_ms", "bare_ms", "ratio",
    "validate_ms_after_first" (the run less its first result: the worker's start and first session), "rounds":
    [[validate_ms, bare_ms], ...], "onnxruntime"}; or {"skipped": why} where CUDA cannot run here."""
    provider = CPU if stand_in else CUDA
    if not stand_in:
        problem = _cuda_problem()
        if problem is not None:
            return {"skipped": problem}
    import onnxruntime as ort

    rounds, steady = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "specs"
        folder.mkdir()
        for i in range(n_specs):
            (folder / f"cuda-bench-{i}.yaml").write_text(yaml.safe_dump(_spec(i), sort_keys=False))
        for _ in range(repeat):
            bare = _child(_BARE, n_specs, provider, ROOT)
            full = _child(_VALIDATE, folder, "stand-in" if stand_in else "cuda", Path(tmp) / "cache", ROOT)
            for answer in (bare, full):
                if "error" in answer:
                    return {"skipped": answer["error"]} if answer is bare and rounds == [] else {"error": answer["error"]}
            rounds.append([full["seconds"] / n_specs * 1000, bare["seconds"] / n_specs * 1000])
            steady.append((full["seconds"] - full["first"]) / max(1, n_specs - 1) * 1000)
    validate_ms = statistics.median(r[0] for r in rounds)
    bare_ms = statistics.median(r[1] for r in rounds)
    return {"provider": provider, "specs": n_specs, "validate_ms": validate_ms, "bare_ms": bare_ms,
            "ratio": validate_ms / bare_ms, "validate_ms_after_first": statistics.median(steady), "rounds": rounds,
            "onnxruntime": ort.__version__}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu-stand-in", action="store_true", help="lower for ort-cuda, run on the CPU EP (no GPU needed)")
    args = parser.parse_args(argv)
    figures = measure(args.specs, args.repeat, stand_in=args.cpu_stand_in)
    if "skipped" in figures:
        print(f"{figures['skipped']}; nothing measured")
        return
    if "error" in figures:
        raise SystemExit(f"benchmark failed: {figures['error']}")
    where = "the CPU EP standing in for CUDA (lowered for ort-cuda)" if args.cpu_stand_in else "the CUDA EP"
    print(f"Per-spec cost on {where}, {args.specs} one-case specs, {args.repeat} rounds ({machine()})\n")
    rows = [[f"round {i + 1}", f"{v:.2f}", f"{b:.2f}", f"{v - b:.2f}", f"{v / b:.2f}"]
            for i, (v, b) in enumerate(figures["rounds"])]
    rows.append(["median", f"{figures['validate_ms']:.2f}", f"{figures['bare_ms']:.2f}",
                 f"{figures['validate_ms'] - figures['bare_ms']:.2f}", f"{figures['ratio']:.2f}"])
    print(table(["", "validate -j 1, ms/spec", "bare session, ms/spec", "beyond, ms", "ratio (target <= 1.1)"], rows))
    print(f"\n(validate without its first result, i.e. the worker's start and first session: "
          f"{figures['validate_ms_after_first']:.2f} ms/spec)")


if __name__ == "__main__":
    main()
