"""`spec2onnx run MODEL --runtime onnxruntime` against `polygraphy run MODEL --onnxrt`, side by side.

Goal (issue 26 item 1): `run` at most as slow as `polygraphy run --onnxrt` on the same model and runtime
(onnxruntime, CPU execution provider). Each measurement is one whole command in a fresh interpreter, as
a user runs it: start-up and imports, reading the model, making the inputs, the session, one inference,
the report. The two commands take turns within each round (so both see the same machine load); a row
gives the median wall time (seconds, from the parent: process start to exit), CPU time (user + system,
every thread, as the process counts it at its exit: steadier than wall time on a loaded machine) and peak
memory over the rounds, the median of the per-round ratios, and the ratio of the two bests (the fastest round
of each: load only adds time, as benchmarks.common.best_of). spec2onnx runs each runtime in a child process
(converter/process/isolation.py; the first one from before onnx is imported: converter/model/start.py): its CPU time
is added (the command's children are waited for before it is read), and the memory is that of the command
and its children together: the peak of their summed proportional set sizes (PSS: a page a forked child
shares with its parent counted once; summed peak RSSes would count it twice, their larger one would leave out
a child's own pages), sampled every 5 ms from here (a shorter peak can be missed; both commands alike).

Models: the onnx wheel's ``onnx/backend/test/data/light/light_*.onnx`` (their weights are ConstantOfShape
nodes: small files, full-size networks), and ``one_mul``, one Mul node, whose row is what each command costs
beside onnxruntime's work. Polygraphy is not a dependency of spec2onnx: without it installed
(``pip install polygraphy``) the benchmark says so and measures nothing.

    python -m benchmarks.run_model [--rounds 5] [--memory-rounds 2] [--models one_mul,light_resnet50]
    python -m benchmarks.run_model --against bare --models relu_4096   # issue 31: big tensors, vs a bare session
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import threading
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
    elif which == "bare":  # a bare onnxruntime session: the least a run of the model takes (float inputs only)
        import numpy as np, onnxruntime as ort
        session = ort.InferenceSession(argv[0], providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(1)
        feeds = {i.name: rng.random([d if isinstance(d, int) else 1 for d in i.shape], dtype=np.float32)
                 for i in session.get_inputs()}
        session.run(None, feeds)
    else:
        from spec2onnx.cli import console  # the console script's function (pyproject.toml [project.scripts])
        console()
except SystemExit as exc:
    code = exc.code
import multiprocessing  # children that have answered end beside the parent (converter/process/isolation.py): waited for, as
for child in multiprocessing.active_children():  # the interpreter's exit waits for them, so that their CPU time is
    child.join()  # counted below
usage, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime
with open(report, "w") as handle:
    json.dump({"cpu": cpu, "code": code}, handle)
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


def relu_4096(folder: Path) -> Path:
    """One Relu over a float32 1x3x4096x4096 input (192 MiB in, 192 MiB out): what run costs beside onnxruntime's
    work where the tensors are big (issue 31: the outputs came back pickled from the child, the inputs went
    to it pickled). Compared with a bare onnxruntime session (--against bare)."""
    import onnx
    from onnx import TensorProto, helper

    shape = [1, 3, 4096, 4096]
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu_4096",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    path = folder / "relu_4096.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def measure(which: str, model: Path, scratch: Path, memory: bool = False) -> dict:
    """One command in a fresh interpreter: wall seconds (from here), CPU seconds (its own report) and, with
    ``memory``, the peak memory of it and its children together (_tree_pss_kib, sampled every 5 ms beside it:
    the sampling takes CPU time, so these rounds are not the timed ones)."""
    argv = ["run", str(model), "--onnxrt"] if which == "polygraphy" else [str(model)] if which == "bare" else \
        ["run", str(model), "--runtime", "onnxruntime", "--provider", "cpu", "-q"]
    report, out = scratch / f"{which}.json", scratch / f"{which}.out"
    peak, done = [0], threading.Event()
    with open(out, "wb") as sink:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", CHILD, which, *argv, str(report)], stdout=sink,
                                stderr=subprocess.STDOUT, cwd=scratch)

        def sample() -> None:
            while not done.wait(0.005):
                peak[0] = max(peak[0], _tree_pss_kib(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True) if memory else None
        if sampler is not None:
            sampler.start()
        proc.wait()
        wall = time.perf_counter() - t0
        done.set()
        if sampler is not None:
            sampler.join()
    result = json.loads(report.read_text()) if report.exists() else {"code": proc.returncode}
    if result.get("code") not in (0, None):
        raise SystemExit(f"{which} {' '.join(argv)} failed ({result.get('code')}): "
                         f"{out.read_text(errors='replace').strip()[-2000:]}")
    return {"wall": wall, "cpu": result["cpu"], "mib": peak[0] / 1024 if memory else None}


def _tree_pss_kib(pid: int) -> int:
    """The proportional set size (KiB) of process ``pid`` and its descendants: a page that several of them share
    (a forked child's) is counted once in the total, unlike their peak RSSes (0 for a process that has ended)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            pss = next((int(line.split()[1]) for line in handle if line.startswith("Pss:")), 0)
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            children = [int(c) for c in handle.read().split()]
    except (OSError, ValueError):
        return 0
    return pss + sum(_tree_pss_kib(c) for c in children)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_model")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-rounds", type=int, default=2, help="rounds more, memory sampled (not timed)")
    parser.add_argument("--models", default="", help="comma-separated light_* names, one_mul (one Mul node: the "
                                                     "fixed costs) or relu_4096 (one Relu, 192 MiB in and out); "
                                                     "default: one_mul and all nine light models")
    parser.add_argument("--against", choices=["polygraphy", "bare"], default="polygraphy",
                        help="the other command: polygraphy run --onnxrt, or a bare onnxruntime session script "
                             "(float inputs: numpy's random in [0, 1), one run)")
    args = parser.parse_args(argv)
    other = args.against
    if other == "polygraphy" and importlib.util.find_spec("polygraphy") is None:
        print("polygraphy is not installed (pip install polygraphy): nothing measured")
        return
    models = light_models()
    chosen = [m for m in args.models.split(",") if m] or ["one_mul", *models]
    unknown = [m for m in chosen if m not in models and m not in ("one_mul", "relu_4096")]
    if unknown:
        raise SystemExit(f"unknown model {unknown[0]!r}; the onnx wheel has {', '.join(models)}; or one_mul, relu_4096")
    print(machine())
    if other == "polygraphy":
        import polygraphy

        print(f"polygraphy {polygraphy.__version__}; ", end="")
    else:
        import onnxruntime

        print(f"a bare onnxruntime {onnxruntime.__version__} session; ", end="")
    print(f"{args.rounds} timed rounds and {args.memory_rounds} with memory sampled, the two commands in turn; "
          "medians (min-max)")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        models["one_mul"] = one_mul(Path(scratch))
        if "relu_4096" in chosen:
            models["relu_4096"] = relu_4096(Path(scratch))
        for name in chosen:
            runs = {"spec2onnx": [], other: []}
            sampled = {"spec2onnx": [], other: []}
            for _ in range(args.rounds):
                for which in runs:
                    runs[which].append(measure(which, models[name], Path(scratch)))
            for _ in range(args.memory_rounds):
                for which in sampled:
                    sampled[which].append(measure(which, models[name], Path(scratch), memory=True))
            row = [name]
            for key, fmt, rounds in (("wall", "{:.2f}", runs), ("cpu", "{:.2f}", runs), ("mib", "{:.0f}", sampled)):
                if not rounds["spec2onnx"]:
                    row += ["", "", "", ""]
                    continue
                ratios = [s[key] / p[key] for s, p in zip(rounds["spec2onnx"], rounds[other])]
                best = min(r[key] for r in rounds["spec2onnx"]) / min(r[key] for r in rounds[other])
                row += [_med(rounds["spec2onnx"], key, fmt), _med(rounds[other], key, fmt), _spread(ratios),
                        f"{best:.2f}"]
            rows.append(row)
    print(table(["model", "spec2onnx s", f"{other} s", "ratio", "best", "spec2onnx CPU s", f"{other} CPU s",
                 "ratio", "best", "spec2onnx MiB", f"{other} MiB", "ratio", "best"], rows))


def _med(values: list[dict], key: str, fmt: str) -> str:
    numbers = [v[key] for v in values]
    return f"{fmt.format(statistics.median(numbers))} ({fmt.format(min(numbers))}-{fmt.format(max(numbers))})"


def _spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


if __name__ == "__main__":
    main(sys.argv[1:])
