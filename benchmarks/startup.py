"""Start-up: one-spec `spec2onnx validate` and `spec2onnx --help`, each beside its import floor (issue 34, item 2).

Goals: `spec2onnx validate specs/trt_scale/seed-scale-4d.yaml` within 2x of a bare
`python -c "import onnxruntime, numpy"`, and `spec2onnx --help` within 1.2x of a bare `python -c "import click"`.
Every command is a fresh interpreter, as CI scripts run it (one command per spec); rounds interleave every
command with its floor, so that a busy machine disturbs both alike. A row gives the median (min-max) over the
rounds of the wall time (from here: process start to exit) and of the CPU time (user + system of the command
and of the children it waited for: a validate's worker process too), which other load on the machine disturbs
less; the ratio columns are taken round by round.

Before timing, the package's bytecode is compiled (``compileall``, as pip does when it installs a wheel): where
PYTHONDONTWRITEBYTECODE is set and the package is an editable checkout, Python would otherwise compile every
module of spec2onnx on every command (0.2 s of CPU on the CI VM), which no installed copy pays. One untimed
pass fills the caches (the parsed spec, the lowered model, the runtime's answers: converter/pipeline/spec_cache.py,
converter/installed/ort_build.py), so the timed rows are what a CI script pays from its second command on.

    python -m benchmarks.startup [--rounds 10] [--against TREE]

``--against TREE`` adds the rows of another checkout (``git worktree add /tmp/before main``), run as
``python TREE/cli.py`` the same way in the same rounds (then this checkout runs as ``python cli.py`` too).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .common import machine, table, trees_against

HERE = Path(__file__).resolve().parent.parent
SPEC = Path("specs") / "trt_scale" / "seed-scale-4d.yaml"
VALIDATE_FLOOR = "import onnxruntime, numpy"
HELP_FLOOR = "import click"


def run_once(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one command in a fresh process; its children that it waited for count."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(trees: list[tuple[str, Path | None]]) -> dict[str, list[str]]:
    """name -> argv; the floors first. A tree of None: this checkout's console script (``spec2onnx``)."""
    cmds = {"floor: python -c \"import onnxruntime, numpy\"": [sys.executable, "-c", VALIDATE_FLOOR],
            "floor: python -c \"import click\"": [sys.executable, "-c", HELP_FLOOR]}
    for label, tree in trees:
        if tree is None:
            script = Path(sys.executable).parent / "spec2onnx"
            front = [str(script)] if script.exists() else [sys.executable, str(HERE / "cli.py")]
        else:
            front = [sys.executable, str(tree / "cli.py")]
        cmds[f"{label}spec2onnx validate {SPEC}"] = [*front, "validate", str(HERE / SPEC)]
        cmds[f"{label}spec2onnx --help"] = [*front, "--help"]
    return cmds


def measure(rounds: int, trees: list[tuple[str, Path | None]]) -> dict[str, list[tuple[float, float]]]:
    cmds = commands(trees)
    for _, tree in trees:
        compileall.compile_dir(str((tree or HERE) / "converter"), quiet=1)
    for argv in cmds.values():  # untimed: caches filled, files in the page cache
        run_once(argv, HERE)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(rounds):
        for name, argv in cmds.items():
            runs[name].append(run_once(argv, HERE))
    return runs


def _spread(values: list[float], fmt: str = "{:.3f}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def rows(runs: dict[str, list[tuple[float, float]]]) -> list[list[str]]:
    """One row per command: wall, CPU, and against its floor (validate: onnxruntime + numpy; --help: click)."""
    floors = {"validate": next(v for k, v in runs.items() if "onnxruntime, numpy" in k),
              "--help": next(v for k, v in runs.items() if "import click" in k)}
    out = []
    for name, values in runs.items():
        row = [name, _spread([w for w, _ in values]), _spread([c for _, c in values])]
        floor = None if name.startswith("floor") else floors["validate" if " validate " in name else "--help"]
        if floor is None:
            row += ["", ""]
        else:
            row += [_spread([w / f for (w, _), (f, _) in zip(values, floor)], "{:.2f}"),
                    _spread([c / f for (_, c), (_, f) in zip(values, floor)], "{:.2f}")]
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another checkout whose spec2onnx is measured beside this one")
    args = parser.parse_args(argv)
    trees = trees_against(args.against, HERE)
    load = os.getloadavg()
    runs = measure(args.rounds, trees)
    print(f"Start-up, {args.rounds} rounds, every command a fresh process, interleaved; median (min-max); "
          f"load average {load[0]:.1f} before, {os.getloadavg()[0]:.1f} after ({machine()})\n")
    print(table(["command", "wall s", "CPU s", "wall / floor", "CPU / floor"], rows(runs)))


if __name__ == "__main__":
    main(sys.argv[1:])
