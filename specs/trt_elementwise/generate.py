"""Generate the trt.ElementWise coverage specs: every operation x every dtype the seed's table lists.

Run from the repo root: python -m specs.trt_elementwise.generate
These specs are checked against the numpy reference; hand-computed edge cases
(division by zero, wrap-around, saturation, NaN) are in the hand-written specs.
"""

from __future__ import annotations

from pathlib import Path

from specs._tools.writer import write_specs

ARITHMETIC = ("int8", "int32", "int64", "float16", "float32", "bfloat16")
COMPARABLE = ("int32", "int64", "float16", "float32", "bfloat16")
TABLE = {
    "SUM": ARITHMETIC, "PROD": ARITHMETIC, "MAX": ARITHMETIC, "MIN": ARITHMETIC, "SUB": ARITHMETIC,
    "DIV": ARITHMETIC, "POWER": ("int8", "float16", "float32", "bfloat16"), "FLOOR_DIV": ARITHMETIC,
    "AND": ("bool",), "OR": ("bool",), "XOR": ("bool",),
    "EQUAL": COMPARABLE, "GREATER": COMPARABLE, "LESS": COMPARABLE,
}
# Broadcasting the TensorRT way: same rank, each dimension equal or 1 (in either input).
# Where OpenVINO's CPU plugin departs from TensorRT semantics (seen with openvino 2026.4, --runtime openvino).
OPENVINO_INT64 = "OpenVINO's CPU plugin computes int64 tensors in int32 (it lowers i64 precision), so values wrap at 32 bits"
OPENVINO_INT32_DIV = "OpenVINO's CPU plugin divides int32 through float32, which is inexact above 2^24"


def known_failures(op: str, dtype: str) -> list[dict]:
    if dtype == "int64" and op not in ("EQUAL", "GREATER", "LESS"):
        return [{"runtime": "openvino", "reason": OPENVINO_INT64}]
    if dtype == "int32" and op in ("DIV", "FLOOR_DIV"):
        return [{"runtime": "openvino", "reason": OPENVINO_INT32_DIV}]
    return []


SHAPES = (([2, 3, 4], [2, 1, 4]), ([1, 5], [3, 1]), ([2, 2, 2, 3], [2, 2, 2, 3]))


def data(op: str, dtype: str, which: int, seed: int) -> dict:
    if dtype == "bool":
        return {"random": "integers", "low": 0, "high": 1, "seed": seed}
    if op == "POWER":
        if dtype == "int8":
            return {"random": "integers", "low": -4, "high": 4, "seed": seed} if which == 0 else \
                {"random": "integers", "low": -2, "high": 3, "seed": seed}
        return {"random": "uniform", "low": 0.1, "high": 3, "seed": seed} if which == 0 else \
            {"random": "uniform", "low": -2, "high": 2, "seed": seed}
    if op in ("EQUAL", "GREATER", "LESS"):  # small integers so that equality happens
        return {"random": "integers", "low": -2, "high": 2, "seed": seed} if dtype.startswith("int") else \
            {"random": "uniform", "low": -2, "high": 2, "seed": seed}
    if dtype.startswith("int"):
        low, high = {"int8": (-128, 127), "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}[dtype]
        if op in ("DIV", "FLOOR_DIV") and which == 1:
            low, high = -6, 6  # small divisors, 0 and -1 included
        return {"random": "integers", "low": low, "high": high, "seed": seed}
    return {"random": "uniform", "low": -10, "high": 10, "seed": seed}


def specs() -> list[dict]:
    out = []
    seed = 1000
    for op, dtypes in TABLE.items():
        for dtype in dtypes:
            shape_a, shape_b = SHAPES[seed % len(SHAPES)]
            spec = {
                "name": f"gen-trt-elementwise-{op.lower().replace('_', '-')}-{dtype}",
                "source": "coverage: trt.ElementWise operation x dtype table (shared/seeds/002), checked against the numpy reference",
                "network": {
                    "inputs": {"a": {"dtype": dtype, "shape": shape_a}, "b": {"dtype": dtype, "shape": shape_b}},
                    "layers": [{"name": "out", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": op}],
                    "outputs": ["out"],
                },
                "cases": [
                    {"name": f"random-{k}", "inputs": {"a": data(op, dtype, 0, seed + 2 * k), "b": data(op, dtype, 1, seed + 2 * k + 1)}}
                    for k in range(2)
                ],
            }
            if known_failures(op, dtype):
                spec["xfail"] = known_failures(op, dtype)
            out.append(spec)
            seed += 7
    return out + dynamic_specs()


def dynamic_specs() -> list[dict]:
    """Dynamic dimensions with broadcasting: a symbol against itself, against 1 (either input), -1 against 1; explicit
    cases at shapes inside the profiles, and a case at each profile's min, opt and max where no cases are given."""
    out = []
    for op, dtype, a, b, profiles, cases in (
        ("SUM", "float32", ["batch", "c", "h", "w"], ["batch", "c", 1, 1],
         [{"a": ([1, 1, 1, 1], [2, 3, 8, 8], [4, 8, 16, 16]), "b": ([1, 1, 1, 1], [2, 3, 1, 1], [4, 8, 1, 1])}], []),
        ("PROD", "int32", ["n", 1], [1, "m"], [{"a": ([1, 1], [3, 1], [5, 1]), "b": ([1, 1], [1, 4], [1, 9])}],
         [([4, 1], [1, 7]), ([1, 1], [1, 9])]),
        ("DIV", "float16", [-1, 4], [1, 4], [{"a": ([1, 4], [8, 4], [64, 4])}], [([3, 4], [1, 4]), ([64, 4], [1, 4])]),
        ("FLOOR_DIV", "float32", ["n", 3], ["n", 3], [{"a": ([1, 3], [2, 3], [4, 3]), "b": ([1, 3], [2, 3], [4, 3])},
                                                  {"a": ([16, 3], [32, 3], [32, 3]), "b": ([16, 3], [32, 3], [32, 3])}], []),
        ("GREATER", "int32", [2, "w"], [1, "w"], [{"a": ([2, 1], [2, 5], [2, 10]), "b": ([1, 1], [1, 5], [1, 10])}], []),
        ("XOR", "bool", ["n", 2, 2], [1, 2, 2], [{"a": ([1, 2, 2], [2, 2, 2], [3, 2, 2])}], [([3, 2, 2], [1, 2, 2])]),
    ):
        seed = 5000 + 10 * len(out)
        spec = {
            "name": f"gen-trt-elementwise-dynamic-{op.lower().replace('_', '-')}-{dtype}",
            "source": "dynamic shapes: trt.ElementWise broadcasting with symbolic (named) and -1 dimensions and optimization "
                      "profiles (shared/seeds/002; issue 27), checked against the numpy reference at every case's shapes",
            "description": f"[{', '.join(map(str, a))}] {op} [{', '.join(map(str, b))}]",
            "network": {
                "inputs": {"a": {"dtype": dtype, "shape": a}, "b": {"dtype": dtype, "shape": b}},
                "layers": [{"name": "out", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": op}],
                "outputs": ["out"],
                "profiles": [{n: dict(zip(("min", "opt", "max"), c)) for n, c in p.items()} for p in profiles],
            },
        }
        if cases:
            spec["cases"] = [{"name": f"shapes-{k}", "inputs": {"a": {**data(op, dtype, 0, seed + 2 * k), "shape": sa},
                                                                "b": {**data(op, dtype, 1, seed + 2 * k + 1), "shape": sb}}}
                             for k, (sa, sb) in enumerate(cases)]
        if known_failures(op, dtype):
            spec["xfail"] = known_failures(op, dtype)
        out.append(spec)
    return out


if __name__ == "__main__":
    n = write_specs(Path(__file__).parent, specs(), "specs/trt_elementwise/generate.py")
    print(f"wrote {n} specs")
