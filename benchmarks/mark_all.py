"""`run MODEL --mark-all` against a plain `run MODEL`: peak memory of the whole process tree, and time (issue 33).

Goal: `--mark-all` within 2x the memory of a plain run of the same model. Each command runs in a fresh
interpreter, the commands of a model in turn within each round (so they see the same machine load). Memory is
that of the command and the child processes each runtime runs in (converter/isolation.py) together:

- **tree PSS**: the peak of their summed proportional set sizes, sampled every 10 ms from here
  (benchmarks/run_model.py's _tree_pss_kib: a page a forked child shares with its parent, or a memory file
  both map, counted once; a peak shorter than the interval can be missed, every command alike);
- **maxRSS**: the command's own peak RSS (``ru_maxrss``, RUSAGE_SELF) and the largest peak of its children
  (RUSAGE_CHILDREN: the children are waited for first), as the kernel counts them: no sampling, but a shared page
  counts in both.

Commands: ``plain`` (run MODEL), ``mark-all`` (run MODEL --mark-all: the plain run, then chunks only where an output
differs), ``mark-all save`` (with --save-outputs: every chunk runs on the first runtime, each tensor written);
with ``--baseline DIR`` (the ``converter/`` folder of another checkout, e.g. ``git archive main converter | tar -x
-C /tmp/base``), the same two --mark-all commands of that code too (before issue 33: every tensor marked at once).
Models: the onnx wheel's light models (their weights are ConstantOfShape nodes: with --mark-all, tensors too).

    python -m benchmarks.mark_all [--rounds 2] [--models light_resnet50,light_densenet121]
                                  [--runtimes onnxruntime,onnx-reference] [--baseline /tmp/base/converter]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .common import machine, table
from .run_model import _tree_pss_kib, light_models

CHILD = r"""
import importlib.util, json, os, resource, sys
source, argv, report = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
if source != "-":  # another checkout's converter/ as the package spec2onnx (forked children inherit it)
    spec = importlib.util.spec_from_file_location("spec2onnx", os.path.join(source, "__init__.py"),
                                                  submodule_search_locations=[source])
    module = importlib.util.module_from_spec(spec)
    sys.modules["spec2onnx"] = module
    spec.loader.exec_module(module)
sys.argv = ["spec2onnx", *argv]
code = 0
try:
    from spec2onnx.cli import console
    assert source == "-" or console.__code__.co_filename.startswith(source), console.__code__.co_filename
    console()
except SystemExit as exc:
    code = exc.code
import multiprocessing  # children that have answered end beside the command: waited for, so that RUSAGE_CHILDREN
for child in multiprocessing.active_children():  # counts them
    child.join()
me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(report, "w") as handle:
    json.dump({"code": code, "self_kib": me.ru_maxrss, "children_kib": children.ru_maxrss}, handle)
"""


def measure(source: str, argv: list[str], scratch: Path) -> dict:
    """One command in a fresh interpreter: wall seconds, the tree's peak PSS (sampled), its own and its largest
    child's peak RSS (MiB)."""
    report = scratch / "report.json"
    report.unlink(missing_ok=True)
    peak, done = [0], threading.Event()
    with open(scratch / "out.txt", "wb") as sink:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", CHILD, source, *argv, str(report)], stdout=sink,
                                stderr=subprocess.STDOUT, cwd=scratch)

        def sample() -> None:
            while not done.wait(0.01):
                peak[0] = max(peak[0], _tree_pss_kib(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        proc.wait()
        wall = time.perf_counter() - t0
        done.set()
        sampler.join()
    result = json.loads(report.read_text()) if report.exists() else {"code": proc.returncode}
    if result.get("code") not in (0, 1, None):  # 1: a comparison failed (light_densenet121 on the reference)
        raise SystemExit(f"{' '.join(argv)} failed ({result.get('code')}): "
                         f"{(scratch / 'out.txt').read_text(errors='replace').strip()[-2000:]}")
    return {"wall": wall, "pss": peak[0] / 1024, "self": result["self_kib"] / 1024,
            "child": result["children_kib"] / 1024, "code": result.get("code")}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mark_all")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--models", default="light_resnet50,light_densenet121")
    parser.add_argument("--runtimes", default="onnxruntime,onnx-reference",
                        help="comma-separated --runtime values (default: run's own default, both)")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="another checkout's converter/ folder: its --mark-all measured too")
    args = parser.parse_args(argv)
    models = light_models()
    chosen = [m for m in args.models.split(",") if m]
    unknown = [m for m in chosen if m not in models]
    if unknown:
        raise SystemExit(f"unknown model {unknown[0]!r}; the onnx wheel has {', '.join(models)}")
    baseline = str(Path(args.baseline).resolve()) if args.baseline else None
    runtimes = [a for r in args.runtimes.split(",") if r for a in ("--runtime", r)]
    with open("/proc/loadavg") as handle:
        load = " ".join(handle.read().split()[:3])
    print(f"{machine()}; runtimes {args.runtimes}; {args.rounds} rounds, the commands in turn; load average before: "
          f"{load}; medians (min-max)")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        commands = [("plain", "-", []), ("mark-all", "-", ["--mark-all"]),
                    ("mark-all save", "-", ["--mark-all", "--save-outputs", str(scratch / "out.npz")])]
        if baseline:
            commands += [("before: mark-all", baseline, ["--mark-all"]),
                         ("before: mark-all save", baseline, ["--mark-all", "--save-outputs", str(scratch / "out.npz")])]
        for name in chosen:
            found: dict[str, list] = {label: [] for label, _, _ in commands}
            for _ in range(args.rounds):
                for label, source, extra in commands:
                    found[label].append(measure(source, ["run", str(models[name]), *runtimes, "-q", *extra], scratch))
            plain = found["plain"]
            for label, _, _ in commands:
                got = found[label]
                pss_ratio = [g["pss"] / p["pss"] for g, p in zip(got, plain)]
                wall_ratio = [g["wall"] / p["wall"] for g, p in zip(got, plain)]
                rows.append([name, label, _med(got, "wall", "{:.2f}"), _med(got, "pss", "{:.0f}"),
                             _spread(pss_ratio), _spread(wall_ratio), _med(got, "self", "{:.0f}"),
                             _med(got, "child", "{:.0f}")])
    with open("/proc/loadavg") as handle:
        load = " ".join(handle.read().split()[:3])
    print(table(["model", "command", "wall s", "tree PSS MiB", "PSS / plain", "wall / plain", "own maxRSS MiB",
                 "largest child maxRSS MiB"], rows))
    print(f"load average after: {load}")


def _med(values: list[dict], key: str, fmt: str) -> str:
    numbers = [v[key] for v in values]
    if len(numbers) == 1:
        return fmt.format(numbers[0])
    return f"{fmt.format(statistics.median(numbers))} ({fmt.format(min(numbers))}-{fmt.format(max(numbers))})"


def _spread(ratios: list[float]) -> str:
    if len(ratios) == 1:
        return f"{ratios[0]:.2f}"
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


if __name__ == "__main__":
    main(sys.argv[1:])
