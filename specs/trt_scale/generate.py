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
    return out


if __name__ == "__main__":
    n = write_specs(Path(__file__).parent, specs(), "specs/trt_scale/generate.py")
    print(f"wrote {n} specs")
