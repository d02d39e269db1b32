"""run MODEL on float8 tensors (onnx's node cases: Cast, CastLike, QuantizeLinear to and from them): every runtime's
output in the type the model declares, held by ml_dtypes' types; inputs fed in it; .npz files of it read back.
onnxruntime hands float8 to numpy as bare uint8 or not at all ("No corresponding Numpy type", float8e5m2), OpenVINO
as its bits: runtimes that agreed FAILed on "dtype uint8 != expected float8_e4m3fn"."""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from cli import main

RUNTIMES = ("onnxruntime", "onnx-reference", *(("openvino",) if importlib.util.find_spec("openvino") else ()))
FLOAT8 = [(TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn), (TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2)]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def model(path, node, x_type, z_type, opset=21):
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", x_type, [2, 4])],
                              [helper.make_tensor_value_info("z", z_type, [2, 4])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10), path)
    return path


@pytest.mark.parametrize("elem, numpy", FLOAT8, ids=["e4m3fn", "e5m2"])
def test_a_cast_to_float8_agrees_on_every_runtime_with_ml_dtypes_rounding(tmp_path, elem, numpy):
    """Values inside the type's range (no saturation): the expected outputs are ml_dtypes' own rounding of the inputs
    (round to nearest even, as ONNX's Cast says), an independent reference."""
    path = model(tmp_path / "cast.onnx", helper.make_node("Cast", ["x"], ["z"], to=elem), TensorProto.FLOAT, elem)
    x = np.array([[0.1, 0.3, 1.0625, 3.3], [17.5, 100.0, 240.0, 0.0]], np.float32)
    np.savez(tmp_path / "x.npz", x=x)
    runtimes = [a for r in RUNTIMES for a in ("--runtime", r)]
    result = invoke("run", path, *runtimes, "--load-inputs", tmp_path / "x.npz", "--save-outputs", tmp_path / "z.npz")
    assert result.exit_code == 0, result.output
    assert f"z {np.dtype(numpy).name}[2, 4]" in result.output  # (each runtime's output in the declared type)
    saved = np.load(tmp_path / "z.npz")["z"]  # (numpy writes ml_dtypes' types as 1-byte records)
    assert saved.view(numpy).tolist() == x.astype(numpy).tolist()
    again = invoke("run", path, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "x.npz", "--load-outputs",
                   tmp_path / "z.npz")
    assert again.exit_code == 0 and "PASS" in again.output, again.output


@pytest.mark.parametrize("elem, numpy", FLOAT8, ids=["e4m3fn", "e5m2"])
def test_float8_inputs_are_fed_generated_or_loaded(tmp_path, elem, numpy):
    """A float8 input: generated in its type (it was 'run cannot generate it'), or loaded from a .npz (it was refused:
    'array 'x' is float8_e4m3fn[...]; input 'x' is float8e4m3fn[...]'); its Cast to float is exact."""
    path = model(tmp_path / "up.onnx", helper.make_node("Cast", ["x"], ["z"], to=TensorProto.FLOAT), elem,
                 TensorProto.FLOAT)
    result = invoke("run", path, *[a for r in RUNTIMES for a in ("--runtime", r)], "-q")
    assert result.exit_code == 0, result.output
    x = np.array([[0.5, 1, 2, 3], [-448 if numpy is ml_dtypes.float8_e4m3fn else -57344, 0, 0.25, 7]], numpy)
    np.savez(tmp_path / "x.npz", x=x.view("V1"))  # (numpy writes float8e5m2 as '<f1', which it cannot read: a user
    np.savez(tmp_path / "z.npz", z=x.astype(np.float32))  # saves the bits, as --save-inputs does)
    result = invoke("run", path, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "x.npz", "--load-outputs",
                    tmp_path / "z.npz")
    assert result.exit_code == 0 and "PASS  up.onnx/ort[cpu] vs golden" in result.output, result.output


def test_a_saturating_cast_that_one_runtime_gets_wrong_is_told_in_the_types_values(tmp_path):
    """1000 cast to float8e4m3fn with saturate=1 is 448 (ONNX's Cast); a runtime's NaN fails against it, named as
    NaN and 448, not as the bits 127 and 126 of a uint8."""
    path = model(tmp_path / "sat.onnx", helper.make_node("Cast", ["x"], ["z"], to=TensorProto.FLOAT8E4M3FN),
                 TensorProto.FLOAT, TensorProto.FLOAT8E4M3FN)
    np.savez(tmp_path / "x.npz", x=np.full((2, 4), 1000, np.float32))
    np.savez(tmp_path / "z.npz", z=np.full((2, 4), 448, ml_dtypes.float8_e4m3fn).view("V1"))
    result = invoke("run", path, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "x.npz", "--load-outputs",
                    tmp_path / "z.npz")
    assert result.exit_code == 0, result.output  # (onnxruntime saturates)
    np.savez(tmp_path / "nan.npz", z=np.full((2, 4), np.nan, ml_dtypes.float8_e4m3fn).view("V1"))
    result = invoke("run", path, "--runtime", "onnxruntime", "--load-inputs", tmp_path / "x.npz", "--load-outputs",
                    tmp_path / "nan.npz", "--allow-nonfinite")
    assert result.exit_code == 1 and "got 448.0, want nan" in result.output, result.output


@pytest.mark.parametrize("elem, name", [(TensorProto.INT4, "int4"), (TensorProto.UINT4, "uint4")])
def test_a_packed_4_bit_tensor_is_refused_in_one_line(tmp_path, elem, name):
    """Two elements to a byte: OpenVINO gave them packed (a FAIL 'shape [2] != expected [4]'), onnxruntime not at all."""
    path = model(tmp_path / "i4.onnx", helper.make_node("Cast", ["x"], ["z"], to=elem), TensorProto.FLOAT, elem)
    result = invoke("run", path, "--runtime", "onnxruntime")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"graph output 'z' is {name}, packed two elements to a byte" in result.output
