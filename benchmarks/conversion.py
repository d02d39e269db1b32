"""Conversion scale: a generated network of N layers (chains and branches of Scale and ElementWise).

Loads (parse + validate), lowers and passes the ONNX checker; reports seconds per stage for
1,000 and 10,000 layers and their ratio. Targets: 10,000 layers under 2 s; 10x the layers at
most 12x the time.

    python -m benchmarks.conversion
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import yaml

from .common import machine, table


def network_spec(layers: int) -> dict:
    """x -> Scale -> ElementWise(SUM with an earlier branch) -> Scale -> ... : every 3rd layer joins a branch."""
    items = []
    prev, branch = "x", "x"
    for i in range(layers):
        name = f"l{i}"
        if i % 3 == 2:
            items.append({"name": name, "op": "trt.ElementWise", "inputs": [prev, branch], "operation": "SUM"})
            branch = prev
        else:
            items.append({"name": name, "op": "trt.Scale", "inputs": [prev], "mode": "CHANNEL",
                          "scale": [1.0 + i % 5 * 0.01, 1.0], "shift": [0.0, 0.001 * (i % 7)]})
        prev = name
    return {"name": f"chain-{layers}", "network": {"inputs": {"x": {"dtype": "float32", "shape": [1, 2, 4, 4]}},
                                                   "layers": items, "outputs": [prev]},
            "cases": [{"name": "c", "inputs": {"x": {"random": "uniform", "seed": 1}}}]}


def measure(layers: int, folder: Path, suffix: str) -> dict[str, float]:
    from converter.lowering.model import build_model, check_model
    from converter.pipeline.spec import load_spec

    path = folder / f"chain-{layers}{suffix}"
    doc = network_spec(layers)
    path.write_text(json.dumps(doc) if suffix == ".json" else yaml.safe_dump(doc, sort_keys=False))
    t0 = time.perf_counter()
    spec = load_spec(path)
    t1 = time.perf_counter()
    model = build_model(spec.network, check=False)
    t2 = time.perf_counter()
    check_model(model)
    t3 = time.perf_counter()
    return {"load+validate": t1 - t0, "lower": t2 - t1, "onnx checker": t3 - t2, "total": t3 - t0}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in (".json", ".yaml"):
            small, large = measure(1000, Path(tmp), suffix), measure(10000, Path(tmp), suffix)
            rows += [[f"{suffix[1:]}: {stage}", small[stage], large[stage], large[stage] / small[stage]] for stage in small]
    print(f"Conversion scale ({machine()})\n")
    print(table(["spec format: stage", "1,000 layers (s)", "10,000 layers (s)", "ratio"], rows))
    print("\nTargets: 10,000 layers under 2 s in total; 10x the layers at most 12x the time.")


if __name__ == "__main__":
    main()
