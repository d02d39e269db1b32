"""Three commands of this tree beside the same commands of another checkout (issue 32: the tree before a redesign).

Each command runs as a fresh process of each tree's own ``spec2onnx`` (its ``.venv``), warm caches, the two trees
interleaved (which goes first alternates by round); medians of the rounds and their ratio:

* ``check`` of a generated 200,000-node chain (benchmarks.check_scale's model), ``--target portable``;
* ``run light_resnet50.onnx --runtime onnxruntime`` (onnx's own light model);
* ``validate -j 2 specs/trt_elementwise``.

    python -m benchmarks.trees --against ../before [--rounds 5] [--nodes 200000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import onnx

from .check_scale import make_model
from .common import machine, trees_against


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trees", description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout (with its own .venv)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=200_000)
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parent.parent
    (_, other), (_, this) = trees_against(args.against, here)
    trees = {"other": other, "this": this}
    light = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    with tempfile.TemporaryDirectory() as folder:
        chain = Path(folder) / "chain.onnx"
        onnx.save(make_model(args.nodes), chain)
        commands = {
            f"check of a {args.nodes:,}-node chain, --target portable": ["check", str(chain), "--target", "portable", "-q"],
            "run light_resnet50.onnx --runtime onnxruntime": ["run", str(light / "light_resnet50.onnx"), "--runtime",
                                                              "onnxruntime", "-q"],
            "validate -j 2 specs/trt_elementwise": ["validate", "-j", "2", "specs/trt_elementwise", "--quiet"],
        }
        times = {c: {t: [] for t in trees} for c in commands}
        for r in range(args.rounds + 1):  # round 0 warms the caches, unmeasured
            for name, command in commands.items():
                for tree in (list(trees) if r % 2 else list(trees)[::-1]):
                    t0 = time.perf_counter()
                    done = subprocess.run([str(trees[tree] / ".venv" / "bin" / "spec2onnx"), *command],
                                          cwd=trees[tree], capture_output=True)
                    if done.returncode not in (0, 1):
                        raise SystemExit(f"{tree}: {name}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
                    if r:
                        times[name][tree].append(time.perf_counter() - t0)
    print(f"{machine()}; /proc/loadavg after: {Path('/proc/loadavg').read_text().split()[:3]}")
    print(f"| command | {args.against} s | this tree s | this / other |\n|---|---|---|---|")
    for name in commands:
        other, this = (statistics.median(times[name][t]) for t in ("other", "this"))
        print(f"| {name} | {other:.2f} | {this:.2f} | {this / other:.2f} |")


if __name__ == "__main__":
    main()
