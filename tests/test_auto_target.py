"""convert's default target, auto: the most portable target the spec fits, else its runtime family's (docs/deployment.md)."""

from __future__ import annotations

import pytest

from converter.api import convert_spec
from converter.errors import UserError

from .conftest import SPECS

INT16_DML = SPECS / "dml_dequantize" / "gen-dml-dq-fl2.1-int16-f32-r4-zp-native-blocked.yaml"


def _props(model):
    return {p.key: p.value for p in model.metadata_props}


def test_a_spec_portable_fits_gets_portable(tmp_path):
    model, _, _ = convert_spec(SPECS / "trt_scale" / "gen-trt-scale-uniform-float16-r4-axis1.yaml", tmp_path / "a.onnx")
    assert _props(model)["spec2onnx.target"] == "portable"
    assert _props(model)["spec2onnx.auto"] == "portable (the most portable target)"


def test_a_directml_spec_portable_refuses_gets_ort_dml_and_says_why(tmp_path):
    # int16 inputs: TensorRT has no int16 (onnx-tensorrt docs/operators.md), so portable refuses; DirectML takes it
    model, _, _ = convert_spec(INT16_DML, tmp_path / "b.onnx")
    props = _props(model)
    assert props["spec2onnx.target"] == "ort-dml"
    assert props["spec2onnx.auto"].startswith("ort-dml (not portable: ") and "int16" in props["spec2onnx.auto"]


def test_an_explicit_portable_target_still_refuses(tmp_path):
    with pytest.raises(UserError, match="int16"):
        convert_spec(INT16_DML, tmp_path / "c.onnx", target="portable")
    assert not (tmp_path / "c.onnx").exists()


def test_validate_takes_auto_and_runs_each_spec_on_the_target_convert_chooses(tmp_path):
    # was: validate --target auto was refused ("'auto' is not one of ..."), though the README lists it with --target
    import json

    from click.testing import CliRunner

    from cli import main

    float16 = SPECS / "trt_scale" / "gen-trt-scale-uniform-float16-r4-axis1.yaml"
    report = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["validate", "-j", "0", "--target", "auto", "--json", str(report), str(float16), str(INT16_DML)])
    assert result.exit_code == 0, result.output
    cases = json.loads(report.read_text())["cases"]
    assert len(cases) >= 2 and all(c["outcome"] == "PASS" for c in cases), cases
    # the int16 DirectML spec is not portable (TensorRT has no int16): auto chose another target for it
    refused = CliRunner().invoke(main, ["validate", "-j", "0", "--target", "portable", str(INT16_DML)])
    assert refused.exit_code != 0 and "int16" in refused.output, refused.output
