"""`spec2onnx run MODEL --runtime onnxruntime` against `polygraphy run MODEL --onnxrt`, side by side.

Goal (issue 26 item 1): `run` at most as slow as `polygraphy run --onnxrt` on the same model and runtime
(onnxruntime, CPU execution provider). Each measurement is one whole command in a fresh interpreter, as
a user runs it: start-up and imports, reading the model, making the inputs, the session, one inference,
the report. The two commands take turns within each round (so both see the same machine load); a row
gives the median wall time (seconds, from the parent: process start to exit), CPU time (user + system,
every thread, as the process counts it at its exit: steadier than wall time on a loaded machine) and peak
RSS (``VmHWM`` of the process, read at its exit) over the rounds, the median of the per-round ratios, and
the ratio of the two bests (the fastest round of each: load only adds time, as benchmarks.common.best_of).
spec2onnx runs each runtime in a forked child (converter/isolation.py): its CPU time is added, and its
peak RSS (``ru_maxrss`` of the children: the pages it shares with the parent count, as in one process)
is taken where it is above the parent's.

Models: the onnx wheel's ``onnx/backend/test/data/light/light_*.onnx`` (their weights are ConstantOfShape
nodes: small files, full-size networks), and ``one_mul``, one Mul node, whose row is what each command costs
beside onnxruntime's work. Polygraphy is not a dependency of spec2onnx: without it installed
(``pip install polygraphy``) the benchmark says so and measures nothing.

    python -m benchmarks.run_model [--rounds 5] [--models one_mul,light_resnet50,light_squeezenet]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import machine, table

CHILD = r"""
import json, resource, sys
which, argv, report = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
sys.argv = [which, *argv]
code = 0
try:
    if which == "polygraphy":
        from polygraphy.tools import main
        code = main()
    else:
        from spec2onnx.cli import console  # the console script's function (pyproject.toml [project.scripts])
        console()
except SystemExit as exc:
    code = exc.code
import multiprocessing  # children that have answered end beside the parent (converter/isolation.py): waited for, as
for child in multiprocessing.active_children():  # the interpreter's exit waits for them, so that their CPU time and
    child.join()  # peak RSS are counted below
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")) / 1024
usage, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime
with open(report, "w") as handle:
    json.dump({"rss_mib": max(hwm, children.ru_maxrss / 1024), "cpu": cpu, "code": code}, handle)
"""


def light_models() -> dict[str, Path]:
    import onnx

    folder = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    return {p.stem: p for p in sorted(folder.glob("light_*.onnx"))}


def one_mul(folder: Path) -> Path:
    """The throughput floor's one-Mul model (benchmarks/common.py) as a file: what each command costs beside
    onnxruntime's work (start-up, imports, reading, inputs, the report)."""
    from .common import one_mul_model

    path = folder / "one_mul.onnx"
    path.write_bytes(one_mul_model()[0])
    return path


def measure(which: str, model: Path, scratch: Path) -> dict:
    """One command in a fresh interpreter: wall seconds (from here) and the child's peak RSS."""
    argv = ["run", str(model), "--onnxrt"] if which == "polygraphy" else \
        ["run", str(model), "--runtime", "onnxruntime", "--provider", "cpu", "-q"]
    report = scratch / f"{which}.json"
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, which, *argv, str(report)], capture_output=True, text=True,
                          check=False, cwd=scratch)
    wall = time.perf_counter() - t0
    result = json.loads(report.read_text()) if report.exists() else {"code": proc.returncode}
    if result.get("code") not in (0, None):
        raise SystemExit(f"{which} {' '.join(argv)} failed ({result.get('code')}): "
                         f"{(proc.stdout + proc.stderr).strip()[-2000:]}")
    return {"wall": wall, "cpu": result["cpu"], "rss_mib": result["rss_mib"]}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_model")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--models", default="", help="comma-separated light_* names, or one_mul (one Mul node: the "
                                                     "fixed costs); default: one_mul and all nine light models")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("polygraphy") is None:
        print("polygraphy is not installed (pip install polygraphy): nothing measured")
        return
    models = light_models()
    chosen = [m for m in args.models.split(",") if m] or ["one_mul", *models]
    unknown = [m for m in chosen if m not in models and m != "one_mul"]
    if unknown:
        raise SystemExit(f"unknown model {unknown[0]!r}; the onnx wheel has {', '.join(models)}; or one_mul")
    print(machine())
    import polygraphy

    print(f"polygraphy {polygraphy.__version__}; {args.rounds} rounds, the two commands in turn; medians (min-max)")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        models["one_mul"] = one_mul(Path(scratch))
        for name in chosen:
            runs = {"spec2onnx": [], "polygraphy": []}
            for _ in range(args.rounds):
                for which in runs:
                    runs[which].append(measure(which, models[name], Path(scratch)))
            row = [name]
            for key, fmt in (("wall", "{:.2f}"), ("cpu", "{:.2f}"), ("rss_mib", "{:.0f}")):
                ratios = [s[key] / p[key] for s, p in zip(runs["spec2onnx"], runs["polygraphy"])]
                best = min(r[key] for r in runs["spec2onnx"]) / min(r[key] for r in runs["polygraphy"])
                row += [_med(runs["spec2onnx"], key, fmt), _med(runs["polygraphy"], key, fmt), _spread(ratios),
                        f"{best:.2f}"]
            rows.append(row)
    print(table(["model", "spec2onnx s", "polygraphy s", "ratio", "best", "spec2onnx CPU s", "polygraphy CPU s",
                 "ratio", "best", "spec2onnx MiB", "polygraphy MiB", "ratio", "best"], rows))


def _med(values: list[dict], key: str, fmt: str) -> str:
    numbers = [v[key] for v in values]
    return f"{fmt.format(statistics.median(numbers))} ({fmt.format(min(numbers))}-{fmt.format(max(numbers))})"


def _spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


if __name__ == "__main__":
    main(sys.argv[1:])
