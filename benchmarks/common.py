"""Timing helpers shared by the benchmarks: best-of-N wall time, tables, machine description."""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import Callable


def best_of(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """The fastest of ``repeat`` runs of ``number`` calls, in seconds per call (noise only adds time)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def machine() -> str:
    import onnxruntime

    cpu = platform.processor() or platform.machine()
    return f"{platform.system()} {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, onnxruntime {onnxruntime.__version__}"


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(h) for h in headers]] + [[c if isinstance(c, str) else f"{c:.3g}" for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(cells[0], widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in cells[1:]]
    return "\n".join(lines)


def one_mul_model() -> tuple[bytes, "object"]:
    """The throughput floor's model: one float32 Mul of two [2, 3, 4] inputs, serialized; and an input for it."""
    import numpy as np
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Mul", ["a", "b"], ["y"])], "g",
                              [helper.make_tensor_value_info(n_, TensorProto.FLOAT, [2, 3, 4]) for n_ in ("a", "b")],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8).SerializeToString()
    return data, np.random.default_rng(0).uniform(size=(2, 3, 4)).astype(np.float32)


def trees_against(against: Path | None, here: Path) -> list[tuple[str, Path | None]]:
    """The checkouts a benchmark's ``--against`` measures: (label, root) pairs, None for this tree alone."""
    if against is None:
        return [("", None)]
    if not (against / "cli.py").exists():
        raise SystemExit(f"--against {against}: no cli.py there (a spec2onnx checkout is wanted)")
    return [("before: ", against.resolve()), ("after: ", here)]
