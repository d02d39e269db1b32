"""Seeded case data: generated in the tensor's dtype a chunk at a time, with the values of one whole draw."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from converter import casedata
from converter.dtypes import DTYPES
from converter.network import TensorType

GENERATORS = [
    ({"random": "uniform", "low": -3, "high": 3, "seed": 7}, "uniform", (-3, 3)),
    ({"random": "normal", "mean": 1, "std": 2, "seed": 5}, "normal", (1, 2)),
]


def _whole_draw(kind, args, shape, dtype, seed):
    """What the generator always meant: one draw of the whole tensor in float64/int64, cast once."""
    rng = np.random.default_rng(seed)
    if kind == "integers":
        return rng.integers(args[0], args[1], size=shape, endpoint=True).astype(dtype)
    return getattr(rng, kind)(*args, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(), (0, 3), (1,), (3, 5, 7), (2, 1000)])
@pytest.mark.parametrize("gen,kind,args", GENERATORS)
def test_float_generators_keep_their_seeded_values_in_chunks(monkeypatch, dtype, shape, gen, kind, args):
    monkeypatch.setattr(casedata, "GENERATE_CHUNK", 7)  # many chunks, the last one short
    got = casedata.materialize(gen, TensorType(DTYPES[dtype], shape), Path("."))
    want = _whole_draw(kind, args, shape, DTYPES[dtype].numpy, gen["seed"])
    assert got.dtype == DTYPES[dtype].numpy and got.shape == shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype,low,high", [("int8", -128, 127), ("uint8", 0, 5), ("int32", -2**31, 2**31 - 1),
                                            ("uint32", 0, 2**32 - 1), ("int64", -2**63, 2**63 - 1),
                                            ("float32", -2**24, 2**24), ("bfloat16", -5, 5)])
def test_integer_generator_keeps_its_seeded_values_in_chunks(monkeypatch, dtype, low, high):
    monkeypatch.setattr(casedata, "GENERATE_CHUNK", 5)
    gen = {"random": "integers", "low": low, "high": high, "seed": 3}
    got = casedata.materialize(gen, TensorType(DTYPES[dtype], (4, 9)), Path("."))
    assert got.tobytes() == _whole_draw("integers", (low, high), (4, 9), DTYPES[dtype].numpy, 3).tobytes()


def test_big_tensor_is_generated_without_a_float64_copy():
    ttype = TensorType(DTYPES["float32"], (1, 16, 512, 512))  # 16 MiB of float32; a float64 draw would be 32 MiB
    tracemalloc.start()
    try:
        array = casedata.materialize({"random": "uniform", "seed": 1}, ttype, Path("."))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert array.nbytes == 16 * 2**20
    assert peak < array.nbytes + 2 * 2**20  # the tensor itself and one chunk of float64


def test_bfloat16_generation_rounds_once_to_nearest_even():
    # 1 + 2^-8 lies halfway between bfloat16 neighbours 1 and 1 + 2^-7: ties go to the even one, 1.
    got = casedata.materialize([1 + 2**-8, 1 + 3 * 2**-8], TensorType(DTYPES["bfloat16"], (2,)), Path("."))
    assert got.astype(np.float32).tolist() == [1.0, 1 + 2**-6]
    assert got.dtype == ml_dtypes.bfloat16


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_a_literal_beyond_the_types_range_rounds_to_infinity_without_a_warning(dtype, recwarn):
    """IEEE 754 conversion to nearest: past the largest finite value (plus half an ulp) is +-inf."""
    big = float(ml_dtypes.finfo(DTYPES[dtype].numpy).max) * 2
    got = casedata.materialize([[big, -big, 1.5]], TensorType(DTYPES[dtype], (1, 3)), Path("."))
    assert np.isposinf(got[0, 0]) and np.isneginf(got[0, 1]) and got[0, 2] == 1.5
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("where", ["case", "constant"])
def test_a_npy_path_too_long_for_the_file_system_is_bad_input_not_our_bug(tmp_path, where):
    """A path component past NAME_MAX (255 bytes on Linux): pathlib's exists() raises ENAMETOOLONG (it swallows only
    'no such file' and its kin), so every command exited 3, 'internal error'. Now exit 2 naming the field, the path
    shortened, in convert, validate and validate --list."""
    from click.testing import CliRunner

    from cli import main

    name = "a" * 256 + ".npy"
    data = {"case": ("", f"cases: [{{name: c, inputs: {{x: {name}}}}}]\n"),
            "constant": (f"  constants: {{k: {{dtype: float32, shape: [1, 1, 1, 2], data: {name}}}}}\n",
                         "cases: [{name: c, inputs: {x: [[[[1, 2]]]]}}]\n")}[where]
    spec = tmp_path / "long.yaml"
    spec.write_text("name: npy-long\nnetwork:\n  inputs: {x: {dtype: float32, shape: [1, 1, 1, 2]}}\n" + data[0]
                    + "  layers: [{name: y, op: trt.ElementWise, inputs: [x, " + ("k" if where == "constant" else "x")
                    + "], operation: SUM}]\n  outputs: [y]\n" + data[1])
    for args in (["convert", spec, "-o", tmp_path / "m.onnx"], ["validate", spec, "-j", "0"],
                 ["validate", "--list", spec]):
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert result.exit_code == 2, (args, result.output)
        assert "internal error" not in result.output and "Traceback" not in result.output
        assert "aaaa... (260 characters): not a usable path (" in result.output and "File name too long" in result.output
        assert max(len(line) for line in result.output.splitlines()) < 400, result.output
    assert not (tmp_path / "m.onnx").exists()
