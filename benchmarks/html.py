"""What --html costs (issue 34, item 4: at most 10% of the wall time of two failing runs), side by side.

(a) ``spec2onnx run light_resnet50.onnx`` (the onnx wheel's) against a wrong golden output (the model's shipped
output with a block of 0.5 added: the .npz of --load-outputs), on onnxruntime alone;
(b) ``spec2onnx validate`` of the big Resize case (benchmarks/memory.py's, 1x64x512x512 -> 1x64x1024x1024 NEAREST)
whose expected value is the right one with a block of 0.5 added.

Each command runs without and with ``--html``, interleaved (the order alternating from round to round),
``--repeat`` rounds, each a fresh process; the table gives the median wall times and the median of the rounds'
ratios (min-max), the best (smallest) wall times and their ratio, and the same of the user CPU time (the
command's and its children's). On a shared machine the wall time follows the load, and so does the system
time: the same run's page faults (90,000, a 1 GB peak) cost 0.2-1.3 s of it from one run to the next; the user
time is what the command itself computed, and the best wall times the least disturbed runs.

    python -m benchmarks.html [--repeat 5]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from .common import machine, table
from .memory import spec as resize_spec


def _light(name: str) -> Path:
    import onnx

    return Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / name


def prepare(folder: Path) -> dict[str, list[str]]:
    import onnx
    from onnx import numpy_helper

    spec2onnx = [sys.executable, "-m", "spec2onnx.cli"]
    model = _light("light_resnet50.onnx")
    out = onnx.load(str(model), load_external_data=False).graph.output[0].name
    tensor = onnx.TensorProto()
    tensor.ParseFromString(_light("light_resnet50_output_0.pb").read_bytes())
    golden = numpy_helper.to_array(tensor).copy()
    golden[0, 100:140] += 0.5
    np.savez(folder / "golden.npz", **{out: golden})
    doc = resize_spec("NEAREST", 512)
    (folder / "big.yaml").write_text(yaml.safe_dump(doc))
    subprocess.run([*spec2onnx, "run", str(folder / "big.yaml"), "-o", str(folder / "out")], check=True,
                   capture_output=True)
    y = np.load(folder / "out" / "y.npy")
    y[0, 5, 100:140, 200:260] += 0.5
    np.save(folder / "wrong.npy", y)
    del y
    doc["cases"][0]["expected"] = {"y": "wrong.npy"}
    (folder / "bigwrong.yaml").write_text(yaml.safe_dump(doc))
    return {"run light_resnet50.onnx --load-outputs (wrong)": [*spec2onnx, "run", str(model), "--runtime", "onnxruntime",
                                                              "--load-outputs", str(folder / "golden.npz"), "-q"],
            "validate Resize 1x64x1024x1024 (wrong expected)": [*spec2onnx, "validate", str(folder / "bigwrong.yaml"),
                                                                "-q"]}


def _cpu() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, user CPU seconds) of one run of ``argv``."""
    t0, c0 = time.perf_counter(), _cpu()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - t0, _cpu() - c0
    if done.returncode != 1:  # (both fail: that is the point)
        raise SystemExit(f"{' '.join(argv)}: exit status {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("load average before:", Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "n/a")
    with tempfile.TemporaryDirectory(prefix="spec2onnx-html-") as folder:
        commands = prepare(Path(folder))
        rows = []
        for label, argv in commands.items():
            page = str(Path(folder) / "page.html")
            timed(argv), timed([*argv, "--html", page])  # (warm: the first process pays the page cache)
            plain, drawn = [], []
            for i in range(args.repeat):  # (the order alternates: the second run of a pair is often the faster)
                if i % 2:
                    drawn.append(timed([*argv, "--html", page]))
                    plain.append(timed(argv))
                else:
                    plain.append(timed(argv))
                    drawn.append(timed([*argv, "--html", page]))
            row = [label, f"{min(p[0] for p in plain):.2f} / {min(d[0] for d in drawn):.2f} = "
                          f"{min(d[0] for d in drawn) / min(p[0] for p in plain):.2f}"]
            for k in (0, 1):  # wall, user CPU
                ratios = [d[k] / p[k] for p, d in zip(plain, drawn)]
                row += [f"{statistics.median(p[k] for p in plain):.2f}", f"{statistics.median(d[k] for d in drawn):.2f}",
                        f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"]
            rows.append(row + [f"{Path(page).stat().st_size // 1024} KiB"])
    print(machine())
    print(table(["command (fails)", "best wall s: plain / --html", "wall s", "wall s --html", "ratio (min-max)", "user s", "user s --html",
                 "user ratio (min-max)", "page"], rows))
    print("load average after:", Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "n/a")


if __name__ == "__main__":
    main()
