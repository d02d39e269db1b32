"""Generate the trt.Scale coverage specs: every mode x dtype, several ranks, channel axes and powers.

Run from the repo root: python -m specs.trt_scale.generate
Expected values of these specs come from the numpy reference (they carry no
`expected`); hand-computed edge cases live in the hand-written specs beside them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from specs._tools.writer import write_specs

DTYPES = ("float32", "float16", "bfloat16", "int8")
MODES = ("UNIFORM", "CHANNEL", "ELEMENTWISE")
# (shape, channel_axis): ranks 4 to 6, the channel axis first, in the middle and last
LAYOUTS = (((2, 3, 4, 5), 1), ((1, 2, 2, 3, 3), 0), ((2, 2, 3, 2, 1, 4), 3), ((1, 1, 3, 4), 3))
POWERS = (1.0, 2.0, 0.5, -1.0, 3.0)


def coefficient_count(mode, shape, axis):
    return {"UNIFORM": 1, "CHANNEL": shape[axis], "ELEMENTWISE": int(np.prod(shape[axis:]))}[mode]


def make(dtype: str, mode: str, layout_index: int, seed: int) -> dict:
    shape, axis = LAYOUTS[layout_index]
    rng = np.random.default_rng(seed)
    n = coefficient_count(mode, shape, axis)
    scale = np.round(rng.uniform(-2, 2, n), 3).tolist()
    shift = np.round(rng.uniform(-1, 1, n), 3).tolist()
    power = [POWERS[(seed + i) % len(POWERS)] for i in range(n)] if mode != "UNIFORM" else [POWERS[seed % len(POWERS)]]
    if dtype == "int8":
        data = {"random": "integers", "low": -128, "high": 127, "seed": seed}
        positive = {"random": "integers", "low": 0, "high": 127, "seed": seed + 1}
    else:
        data = {"random": "uniform", "low": -4, "high": 4, "seed": seed}
        positive = {"random": "uniform", "low": 0.25, "high": 4, "seed": seed + 1}
    layer = {"name": "scale", "op": "trt.Scale", "inputs": ["x"], "mode": mode, "scale": scale, "shift": shift, "power": power}
    if mode != "UNIFORM" or axis != 1:
        layer["channel_axis"] = axis
    return {
        "name": f"gen-trt-scale-{mode.lower()}-{dtype}-r{len(shape)}-axis{axis}",
        "source": "coverage: trt.Scale mode x dtype (shared/seeds/000), checked against the numpy reference",
        "network": {"inputs": {"x": {"dtype": dtype, "shape": list(shape)}}, "layers": [layer], "outputs": ["scale"]},
        "cases": [
            {"name": "random", "inputs": {"x": data}},
            {"name": "random-positive-base", "inputs": {"x": positive}},
        ],
    }


def specs() -> list[dict]:
    out = []
    seed = 100
    for dtype in DTYPES:
        for mode in MODES:
            for layout in range(len(LAYOUTS)):
                out.append(make(dtype, mode, layout, seed))
                seed += 1
    # Each coefficient alone, so the lowering's "no node that does nothing" paths all run.
    for dtype in DTYPES:
        for only in ("scale", "shift", "power"):
            spec = make(dtype, "CHANNEL", 0, seed)
            layer = spec["network"]["layers"][0]
            for key in ("scale", "shift", "power"):
                if key != only:
                    layer[key] = []
            spec["name"] = f"gen-trt-scale-only-{only}-{dtype}"
            out.append(spec)
            seed += 1
    return out + dynamic_specs()


DYNAMIC_SOURCE = ("dynamic shapes: trt.Scale with symbolic (named) and -1 dimensions and optimization profiles "
                  "(shared/seeds/000; issue 27), checked against the numpy reference at every case's shapes")


def dynamic_specs() -> list[dict]:
    """Dynamic batch and spatial dimensions; the coefficients index static dimensions only (TensorRT's weights have a
    fixed size). No cases: one at the min, opt and max of each profile, random data (docs/dynamic-shapes.md)."""
    out = []
    for dtype, mode, dims, axis, profiles in (
        ("float32", "UNIFORM", ["batch", 3, "height", "width"], 1,
         [([1, 3, 1, 1], [2, 3, 8, 8], [4, 3, 16, 16])]),
        ("float16", "CHANNEL", ["batch", 4, -1, -1], 1,
         [([1, 4, 2, 2], [1, 4, 4, 4], [2, 4, 8, 8]), ([4, 4, 1, 16], [8, 4, 1, 32], [8, 4, 1, 64])]),
        ("int8", "ELEMENTWISE", ["n", 2, 3, 3], 1, [([1, 2, 3, 3], [3, 2, 3, 3], [6, 2, 3, 3])]),
        ("bfloat16", "CHANNEL", [2, "d", "h", "w", 3], 4, [([2, 1, 1, 1, 3], [2, 2, 3, 4, 3], [2, 3, 5, 7, 3])]),
        # named dimensions that each profile fixes (min = opt = max): what DLA builds (tensorrt-dla takes it)
        ("float16", "UNIFORM", ["batch", 4, "h", "w"], 1, [([2, 4, 8, 8],) * 3, ([1, 4, 16, 32],) * 3]),
    ):
        n = 1 if mode == "UNIFORM" else dims[axis] if mode == "CHANNEL" else int(np.prod(dims[axis:]))
        rng = np.random.default_rng(len(out) + 7)
        layer = {"name": "scale", "op": "trt.Scale", "inputs": ["x"], "mode": mode,
                 "scale": np.round(rng.uniform(-2, 2, n), 3).tolist(), "shift": np.round(rng.uniform(-1, 1, n), 3).tolist(),
                 "power": [2.0] * n if dtype == "int8" else [], "channel_axis": axis}
        fixed = all(lo == hi for lo, _, hi in profiles)
        if fixed:  # for DLA: a scale alone (DLA runs no custom power), one IScaleLayer
            layer["shift"] = []
        out.append({
            "name": f"gen-trt-scale-dynamic-{mode.lower()}-{dtype}" + ("-fixed-profiles" if fixed else ""),
            "source": DYNAMIC_SOURCE,
            "description": f"input [{', '.join(map(str, dims))}]: {len(profiles)} profile(s), a case at each min, opt and max",
            "network": {"inputs": {"x": {"dtype": dtype, "shape": dims}}, "layers": [layer], "outputs": ["scale"],
                        "profiles": [{"x": {"min": lo, "opt": mid, "max": hi}} for lo, mid, hi in profiles]},
        })
    return out


if __name__ == "__main__":
    n = write_specs(Path(__file__).parent, specs(), "specs/trt_scale/generate.py")
    print(f"wrote {n} specs")
