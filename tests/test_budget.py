"""Big tensors fail cleanly, before anything is allocated: the protobuf limit and the memory budget."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
import yaml

from converter import budget
from converter.errors import SpecError, UserError
from converter.pipeline.spec import load_spec

from .conftest import child_env

ROOT = Path(__file__).resolve().parent.parent


def _resize_spec(out_hw: int, in_shape=(1, 1, 4, 4), cases=1, expected=False) -> dict:
    case = {"inputs": {"x": {"random": "uniform", "seed": 3}}}
    if expected:
        case["expected"] = {"y": {"random": "uniform", "seed": 4}}
    return {
        "name": "big",
        "network": {"inputs": {"x": {"dtype": "float32", "shape": list(in_shape)}},
                    "layers": [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "resize_mode": "NEAREST",
                                "shape": [in_shape[0], in_shape[1], out_hw, out_hw]}],
                    "outputs": ["y"]},
        "cases": [dict(case, name=f"c{i}") for i in range(cases)],
    }


def _write(tmp_path: Path, doc: dict, name="spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc))
    return path


def _peak_while(fn) -> int:
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_2_to_28_element_output_over_the_budget_is_refused_before_anything_is_allocated(tmp_path):
    path = _write(tmp_path, _resize_spec(2**14))  # 1x1x16384x16384: 2^28 float32 elements, 1 GiB

    def load():
        with pytest.raises(SpecError) as info:
            load_spec(path, max_memory=2**30)
        return info

    message = str(load().value)  # (the first load also imports the layer kinds)
    assert _peak_while(load) < 2**20  # nothing like the 1 GiB output was allocated
    # Hand computation: the reference's output (1 GiB) and its float32 work area (1 GiB), onnxruntime's output (1 GiB).
    assert f"{path}: network: validating this spec needs an estimated 3 GiB" in message
    assert "above the memory budget of 1 GiB (--max-memory" in message


def test_the_cli_exits_2_with_one_line_naming_the_budget(tmp_path):
    path = _write(tmp_path, _resize_spec(2**14))
    done = subprocess.run([sys.executable, "cli.py", "validate", "-j", "0", "--max-memory", "1G", str(path)],
                          cwd=ROOT, capture_output=True, text=True, env=child_env(PYTHONPATH=str(ROOT), PATH="/usr/bin:/bin"))
    assert done.returncode == 2, done.stderr
    assert "estimated 3 GiB" in done.stdout and "Traceback" not in done.stdout + done.stderr
    bad = subprocess.run([sys.executable, "cli.py", "validate", "--max-memory", "lots", str(path)],
                         cwd=ROOT, capture_output=True, text=True, env=child_env(PYTHONPATH=str(ROOT), PATH="/usr/bin:/bin"))
    assert bad.returncode == 2 and "--max-memory" in bad.stderr


def test_constants_beyond_the_protobuf_limit_are_refused_whatever_the_budget(tmp_path):
    doc = _resize_spec(8)
    doc["network"]["constants"] = {f"k{i}": {"dtype": "float32", "shape": [4096, 32768], "data": {"random": "uniform"}}
                                   for i in range(4)}  # 4 x 512 MiB: a 2 GiB model
    path = _write(tmp_path, doc)

    def load():
        with pytest.raises(SpecError, match=r"network\.constants: the constants take 2 GiB: an ONNX model is one protobuf"):
            load_spec(path, max_memory=2**50)

    load()
    assert _peak_while(load) < 2**20


def test_constants_count_seven_times_against_the_budget(tmp_path):
    """The arrays, the model's initializers, its bytes, onnxruntime's copy and parsed initializers, the optimized graph:
    measured, a 229 MiB constant peaked at 1.47x an estimate that counted three copies (a walk-through, 2026-11-29)."""
    doc = _resize_spec(8)
    doc["network"]["constants"] = {"k": {"dtype": "int8", "shape": [1024, 1024], "data": {"random": "integers"}}}
    path = _write(tmp_path, doc)
    with pytest.raises(SpecError, match=r"the constants take 1 MiB, an estimated 7 MiB"):
        load_spec(path, max_memory=7 * 2**20 - 1)


def test_estimate_of_the_big_resize_case_by_hand(tmp_path):
    # 1x64x512x512 float32 in (64 MiB), 1x64x1024x1024 out (256 MiB): the reference's output and work area,
    # onnxruntime's output.
    spec = load_spec(_write(tmp_path, _resize_spec(8, in_shape=(1, 64, 512, 512))), max_memory=2**40)
    doc = _resize_spec(1024, in_shape=(1, 64, 512, 512), cases=2, expected=True)
    spec.network.types["y"] = type(spec.network.types["y"])(spec.network.types["y"].dtype, (1, 64, 1024, 1024))
    est = budget.estimate(spec.network, doc["cases"])
    mib = 2**20
    assert (est.case_data, est.reference, est.runtime) == (2 * (64 + 256) * mib, 512 * mib, 256 * mib)
    assert budget.estimate(spec.network, doc["cases"], configs=2).runtime == 512 * mib


def test_a_spec_under_the_budget_loads(tmp_path):
    spec = load_spec(_write(tmp_path, _resize_spec(64)), max_memory=200 * 2**10)  # about 48 KiB needed
    assert spec.cases[0].inputs["x"].shape == (1, 1, 4, 4)
    with pytest.raises(SpecError, match="estimated 48.1 KiB"):
        load_spec(_write(tmp_path, _resize_spec(64)), max_memory=40 * 2**10)


@pytest.mark.parametrize("text,value", [("512M", 512 * 2**20), ("4G", 4 * 2**30), ("1.5GiB", 3 * 2**29),
                                        ("1000", 1000), ("2t", 2 * 2**40), ("64KB", 65536),
                                        ("9" * 400, int("9" * 400)), ("0.1K", 102)])
def test_sizes(text, value):
    assert budget.parse_size(text) == value


@pytest.mark.parametrize("text", ["", "0", "-1G", "1X", "G", "1 G B", "0.0001", "0.5"])
def test_bad_sizes(text):
    with pytest.raises(UserError, match="expected a size"):
        budget.parse_size(text)


def test_default_budget_is_a_fraction_of_the_ram():
    ram = budget.machine_ram()
    assert ram is None or budget.default_budget() == ram // budget.DEFAULT_FRACTION
