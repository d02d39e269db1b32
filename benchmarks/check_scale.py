"""`spec2onnx check` on a huge model: a generated chain of N nodes (default 10^6, a ~25 MB file).

Goal (issue 25): `check` within 1.3x of ``onnx.load`` + ``onnx.checker.check_model`` of the same
file, in wall time and in peak memory (RSS), the validation pass included (issue 19 asked for 2x).
Each measurement runs in a fresh interpreter (a subprocess), which reports its wall time and its peak
RSS (``VmHWM``, the interpreter and its imports included); the check's output goes to a file (its
summary is a few lines; ``-v`` would print one line per problem).

    python -m benchmarks.check_scale [--nodes 1000000] [--target portable] [--repeat 5]

The two run in turn ``--repeat`` times (each check beside its own baseline: on a shared machine the load
changes between runs); the medians of the ratios are the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import machine, table

# the chain's ops, in turn: float32 elementwise ops every target runs, and Celu, which some may not
OPS = ("Relu", "Add", "Neg", "Mul", "Sigmoid", "Abs", "Celu", "Tanh")


def make_model(nodes: int):
    """x -> Relu -> Add(c) -> Neg -> Mul(c) -> ... : ``nodes`` nodes, one [1, 4] float32 chain, one scalar initializer."""
    from onnx import TensorProto, helper

    graph_nodes = []
    prev = "x"
    for i in range(nodes):
        op = OPS[i % len(OPS)]
        out = f"t{i}" if i < nodes - 1 else "y"
        inputs = [prev, "c"] if op in ("Add", "Mul") else [prev]
        graph_nodes.append(helper.make_node(op, inputs, [out]))
        prev = out
    graph = helper.make_graph(graph_nodes, f"chain-{nodes}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
                              initializer=[helper.make_tensor("c", TensorProto.FLOAT, [], [0.5])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


CHILD = r"""
import json, resource, sys, time, io, contextlib
what, path, target = sys.argv[1:4]
t0 = time.perf_counter()
if what == "onnx":
    import onnx
    model = onnx.load(path)
    onnx.checker.check_model(model)
    code = 0
else:
    from converter.cli import main
    with open(sys.argv[4], "w") as out, contextlib.redirect_stdout(out):
        try:
            main(["check", path, "--target", target], standalone_mode=False)
            code = 0
        except SystemExit as exc:
            code = exc.code
wall = time.perf_counter() - t0
# VmHWM: this process's peak RSS (ru_maxrss would carry the parent's over exec); check's onnx checker runs in a
# forked child (converter/targets/checker.py), which reports what it added to the pages it shares with this process
# (its peak RSS less its RSS when forked): counted in the memory figure; CPU: this process and its children
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")) / 1024
child = 0
if what != "onnx":
    from converter.targets import checker
    child = checker.CHILD_PEAK_KIB / 1024
cpu = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
          for f in ("ru_utime", "ru_stime"))
print(json.dumps({"wall": wall, "rss_mib": hwm, "child_mib": child, "cpu": cpu, "code": code}))
"""


def measure(what: str, path: Path, target: str, out: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, what, str(path), target, str(out)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{what} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.check_scale")
    parser.add_argument("--nodes", type=int, default=10**6)
    parser.add_argument("--target", default="portable")
    parser.add_argument("--repeat", type=int, default=5, help="pairs of runs, baseline and check in turn (medians)")
    args = parser.parse_args(argv)
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.onnx"
        path.write_bytes(make_model(args.nodes).SerializeToString())
        size = path.stat().st_size
        out = Path(tmp) / "check.txt"
        pairs = []
        for _ in range(args.repeat):  # side by side: each check beside its own baseline, under the same load
            base = measure("onnx", path, args.target, Path(tmp) / "unused")
            ours = measure("check", path, args.target, out)
            pairs.append((base, ours))
        lines = out.read_text(encoding="utf-8").splitlines()
    print(f"{args.nodes:,} nodes, {size / 2**20:.1f} MiB; check --target {args.target}: exit {pairs[-1][1]['code']}, "
          f"{len(lines):,} lines of output; {args.repeat} pairs of runs")
    rows = []
    for i, (base, ours) in enumerate(pairs, 1):
        ours["memory"] = ours["rss_mib"] + ours["child_mib"]
        base["memory"] = base["rss_mib"]
        rows.append([f"{i}: onnx.load + checker", base["wall"], base["cpu"], base["rss_mib"], "", 1.0, 1.0, 1.0])
        rows.append([f"{i}: spec2onnx check", ours["wall"], ours["cpu"], ours["rss_mib"], ours["child_mib"],
                     ours["wall"] / base["wall"], ours["cpu"] / base["cpu"], ours["memory"] / base["memory"]])
    print(table(["", "wall s", "CPU s", "peak RSS MiB", "+ checker process MiB", "time ratio", "CPU ratio",
                 "memory ratio"], rows))
    ratios = {key: sorted(o[key] / b[key] for b, o in pairs) for key in ("wall", "cpu", "memory")}
    shown = {key: f"{statistics.median(v):.2f} ({', '.join(f'{r:.2f}' for r in v)})" for key, v in ratios.items()}
    print(f"median ratios: time {shown['wall']}, CPU {shown['cpu']}, memory {shown['memory']} (peak RSS and what the "
          "checker process adds to the pages it shares); goal: time and memory <= 1.3")
    if lines:
        print("\n".join(lines[:12] + (["..."] if len(lines) > 12 else [])))


if __name__ == "__main__":
    main(sys.argv[1:])
