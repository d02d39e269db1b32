"""`spec2onnx reduce` on the issue's example (issue 33, section 2): light_squeezenet, onnxruntime against onnx's
reference evaluator, which differ at its opset-9 Softmax. Goal: under a minute to a model of at most 3 nodes.

Each round is the whole command in a fresh interpreter, as a user runs it (start-up, the whole model's run with
every tensor marked, each candidate's run, each runtime in its child process, the files written); a row gives the
median and best wall time over the rounds, the reduced model's nodes and the checks made (from its output line),
and the load average before and after (``/proc/loadavg``: the machine is shared; load only adds time).

    python -m benchmarks.reduce [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import machine, table

COMMAND = "from spec2onnx.cli import console; console()"  # the console script's function (pyproject.toml)


def squeezenet() -> Path:
    import onnx

    return Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / "light_squeezenet.onnx"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def one_round(model: Path, folder: str) -> tuple[float, str, int]:
    """(seconds, the result line, exit status) of one reduce command."""
    small = os.path.join(folder, "small.onnx")
    argv = [sys.executable, "-c", COMMAND, "reduce", str(model), "--runtime", "onnxruntime", "--runtime",
            "onnx-reference", "-o", small]
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    line = next((line for line in done.stdout.splitlines() if line.startswith(small)), done.stdout.strip()[-200:])
    return seconds, line, done.returncode


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reduce")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    model = squeezenet()
    print(machine())
    before = loadavg()
    times, lines = [], []
    with tempfile.TemporaryDirectory(prefix="bench-reduce-") as folder:
        for _ in range(args.rounds):
            seconds, line, code = one_round(model, folder)
            if code != 1:  # 1: reduced, a failing model written
                raise SystemExit(f"reduce exited with {code}: {line}")
            times.append(seconds)
            lines.append(line)
    after = loadavg()
    found = re.search(r": (\d+) of ([\d,]+) nodes .*? after (\d+) checks", lines[-1])
    nodes, checks = (f"{found[1]} of {found[2]}", found[3]) if found else ("?", "?")
    print(table(["model", "rounds", "median s", "best s", "reduced to", "checks", "load before", "load after"],
                [[model.name, str(args.rounds), statistics.median(times), min(times), nodes, checks, before, after]]))
    print(lines[-1])
    print(f"goal: under 60 s; {'met' if max(times) < 60 else 'NOT met'} (slowest round {max(times):.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
