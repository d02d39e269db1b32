"""The two recipes of docs/architecture.md, proved from this file alone (no file of the package edited):

* a new layer kind = its lowering family (one ``register_layer(LayerKind(...))``, naming its reference and its
  rules per target) + its reference family + its specs;
* a new target = one data file (its kernel table) + one profile entry (``PROFILES[name]``).

The toy kind ``toy.Double`` doubles its input (ONNX Add(x, x)); its reference is numpy's ``2 * x``. The toy
target ``toy-cpu`` is onnxruntime's CPU EP restricted to a kernel table that has float32 Add only.
Expected values are hand computed.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import converter as spec2onnx
from converter import registry
from converter.errors import SpecError, TargetRuleError
from converter.lowering.builder import NodeBuilder
from converter.network import TensorType
from converter.targets.check import table
from converter.targets.profiles import PROFILES

KIND, TARGET = "toy.Double", "toy-cpu"


# --- recipe 1: the lowering family (its check, its lowering, its reference by name, its rules per target) ----


def _check(layer, types):
    return TensorType(types[0].dtype, types[0].shape)


def _lower(layer, ctx):
    b = NodeBuilder(layer)
    return b.finish(b.op("Add", [layer.inputs[0], layer.inputs[0]], why="x + x is 2x exactly"))


def _reference(layer, inputs):  # the reference family: numpy only
    return (2 * inputs[0]).astype(inputs[0].dtype)


def _toy_rule(spec, layer, where):
    if spec.network.types[layer.inputs[0]].dtype.name != "float32":
        raise TargetRuleError(f"{TARGET} doubles float32 only", file=str(spec.path), field=where)


@pytest.fixture
def toy(tmp_path):
    registry.register_layer(registry.LayerKind(
        name=KIND, summary="output = 2 * input", inputs=("input",), min_inputs=1, attributes={},
        check=_check, lower=_lower, reference=_reference, target_rules={TARGET: _toy_rule}))
    # --- recipe 2: one data file and one profile entry ---
    kernels = tmp_path / "toy-cpu.json"
    kernels.write_text(json.dumps({"source": "a test", "ops": {"Add": [
        {"start": 14, "end": None, "types": {"T": ["float"]}}, {"start": 13, "end": 13, "types": {"T": ["float"]}}]}}))
    PROFILES[TARGET] = {"kernels": str(kernels), "preferences": {}}
    yield
    del PROFILES[TARGET]
    registry._KINDS.pop(KIND)
    table.cache_clear()


def _spec(dtype="float32", opset=17):
    x, y = ([[1.5, -2.0], [0.25, 3.0]], [[3.0, -4.0], [0.5, 6.0]]) if dtype == "float32" else ([[1, -2], [0, 3]], [[2, -4], [0, 6]])
    return {"name": "toy-double", "opset": opset,
            "network": {"inputs": {"x": {"dtype": dtype, "shape": [2, 2]}},
                        "layers": [{"name": "y", "op": KIND, "inputs": ["x"]}], "outputs": ["y"]},
            "cases": [{"name": "hand", "inputs": {"x": x}, "expected": {"y": y}}]}


def test_a_toy_kind_and_a_toy_target_convert_validate_and_check(toy):
    conversion = spec2onnx.convert(_spec(), target=TARGET)
    assert conversion.target == TARGET and [n.op_type for n in conversion.model.graph.node] == ["Add"]
    report = spec2onnx.validate(_spec(), target=TARGET)
    assert report.ok and [(r.case, r.outcome) for r in report.results] == [("hand", "PASS")], report.summary()
    assert spec2onnx.check(_spec(), target=TARGET).ok


def test_the_toy_kind_runs_on_every_built_in_target_that_has_its_nodes(toy):
    assert spec2onnx.validate(_spec(), target="ort-cpu").ok
    assert spec2onnx.convert(_spec(), target="portable").node_count == 1


def test_the_toy_targets_table_and_the_kinds_rule_refuse_what_they_do_not_cover(toy):
    refused = spec2onnx.check(_spec(dtype="int32"), target=TARGET)
    assert not refused.ok and f"{TARGET} doubles float32 only" in refused.problems[0]  # the kind's rule for it
    with pytest.raises(SpecError, match="doubles float32 only"):
        spec2onnx.convert(_spec(dtype="int32"), target=TARGET)
    assert spec2onnx.validate(_spec(dtype="int32"), target="ort-cpu").ok  # the rule is the toy target's alone


def test_without_the_kinds_rule_the_toy_targets_table_refuses_int32_add(toy, monkeypatch):
    monkeypatch.setitem(registry._KINDS, KIND, registry.replace(registry.layer_kind(KIND), target_rules={}))
    refused = spec2onnx.check(_spec(dtype="int32"), target=TARGET)
    assert not refused.ok and "no kernel for types T=int32" in refused.problems[0], refused.problems


def test_the_toy_target_is_listed_and_refused_once_gone(toy):
    from converter.targets import target_names

    assert TARGET in target_names()
    with pytest.raises(spec2onnx.UserError, match="unknown target"):
        spec2onnx.convert(_spec(), target="toy-gpu")
