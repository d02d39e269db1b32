"""Run the benchmarks: python -m benchmarks [throughput|graphs|reference|conversion|check_scale|mark_all|dynamic|startup|reduce ...] (default: all).

Each prints a table of ratios measured side by side in one run; README.md "Performance" holds
the latest figures.
"""

from __future__ import annotations

import importlib
import sys

ALL = ("throughput", "graphs", "reference", "conversion", "memory", "cuda", "check_scale", "run_model", "mark_all", "dynamic",
       "startup", "reduce")


def main(argv: list[str]) -> None:
    names = argv or list(ALL)
    unknown = [n for n in names if n not in ALL]
    if unknown:
        raise SystemExit(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(ALL)}")
    for name in names:
        print(f"\n## {name}\n", flush=True)
        importlib.import_module(f"benchmarks.{name}").main([])


if __name__ == "__main__":
    main(sys.argv[1:])
