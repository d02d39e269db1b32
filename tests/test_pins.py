"""Issue 19 item 14: lower bounds and known-bad versions only for the runtimes and onnx (CI tests the newest)."""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import REPO

if sys.version_info < (3, 11):
    pytest.skip("tomllib is Python 3.11+", allow_module_level=True)
import tomllib

CAPPED_BEFORE = ("onnx", "openvino", "onnxruntime", "onnxruntime-gpu")


def _requirements() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]


@pytest.mark.parametrize("name", CAPPED_BEFORE)
def test_no_upper_bound_on_onnx_and_the_runtimes(name):
    (requirement,) = [r for r in _requirements() if re.match(rf"{re.escape(name)}\s*[<>=!~;\[]", r)]
    assert re.search(r">=\s*\d", requirement), requirement  # a lower bound
    assert not re.search(r"<(?!=)|<=|~=|==", requirement), f"{requirement}: exclude known-bad versions with != only"


def test_models_carry_the_lowest_ir_version_for_their_opset_not_onnxs_default():
    """What makes a newer onnx safe without a cap: onnx >= 1.23 writes IR 14 by default (onnxruntime 1.31
    rejects it); spec2onnx writes the lowest IR version that carries the opset (onnx's own table)."""
    from onnx import helper

    from converter.lowering import build_model
    from converter.pipeline.spec import load_spec

    from .conftest import SPECS

    spec = load_spec(SPECS / "trt_scale" / "seed-scale-4d.yaml")
    for opset in (13, 17, 21):
        model = build_model(spec.network, name=spec.name, opset=opset)
        assert model.ir_version == helper.find_min_ir_version_for([helper.make_opsetid("", opset)])
        assert model.ir_version <= 10  # IR 10 carries opset 21 (onnx/helper.py VERSION_TABLE: 1.16.0 -> IR 10, opset 21)
