"""Issue 19 item 13: messages stay one short line whatever the spec or model holds."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from converter.brief import WIDTH, brief
from converter.pipeline.spec import load_spec
from converter.targets import resolve_target
from converter.targets import dla
from converter.targets.check import check_model

import pytest


def test_brief_by_hand():
    assert brief(np.full(120, 2.0)) == "[2.0 x120]"
    assert brief([1, 2, 3]) == "[1, 2, 3]" and brief((1, 2)) == "[1, 2]" and brief("ab") == "'ab'" and brief(3) == "3"
    assert brief(list(range(100))) == "[0, 1, 2, ... 100 values]"
    assert brief(np.ones((2, 60), np.float32)) == "[1.0 x120, shape 2x60]"
    assert brief([float("nan")] * 9) == "[nan x9]"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.one_of(st.floats(), st.integers(), st.text(max_size=300), st.none()),
                    lambda inner: st.lists(inner, max_size=30) | st.dictionaries(st.text(max_size=5), inner, max_size=10),
                    max_leaves=60) | st.lists(st.floats(), min_size=0, max_size=500))
def test_brief_is_always_short(value):
    assert len(brief(value)) <= WIDTH + 40


def test_a_dla_refusal_of_120_power_values_is_short(write_spec):
    values = ", ".join(["2"] * 120)
    path = write_spec(f"""\
name: p120
network:
  inputs: {{x: {{dtype: float16, shape: [1, 120, 1, 1]}}}}
  layers:
    - {{name: out, op: trt.Scale, inputs: [x], mode: CHANNEL, scale: [{values}], power: [{values}]}}
  outputs: [out]
cases:
  - {{name: c, inputs: {{x: {{random: uniform, seed: 1}}}}}}
""")
    with pytest.raises(dla.DlaRuleError) as refused:
        dla.refuse_layers(load_spec(path))
    text = str(refused.value)
    assert "power [2.0 x120]: DLA does not support custom power values" in text and len(text) < 250, text


def test_an_unnamed_node_is_named_once_with_its_op():
    """Was '#0 (Unique) (Unique)': the node's name for messages already held its op, and messages add it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Unique", ["x"], ["y"])], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    lines = [str(p) for p in check_model(model, resolve_target("tensorrt"))]
    assert lines == ["tensorrt: #0 (Unique): not supported by onnx-tensorrt"], lines


def test_a_huge_value_in_a_user_error_is_cut_in_its_middle(tmp_path):
    """A 200,000-character output name made a 200 KB error line (the unknown key of a mapping, printed twice, 400 KB).
    The line keeps its start (the file, the field) and its end (what is allowed), the middle cut and counted."""
    import pytest

    from converter.errors import MAX_MESSAGE, SpecError

    name = "x" * 200_000
    spec = tmp_path / "long.yaml"
    spec.write_text("name: lo\nnetwork:\n  inputs: {x: {dtype: float32, shape: [1, 1, 1, 2]}}\n"
                    "  layers: [{name: y, op: trt.Scale, inputs: [x], mode: UNIFORM}]\n"
                    f"  outputs: [{name}]\ncases: [{{name: c, inputs: {{x: [[[[1, 2]]]]}}}}]\n")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    text = str(caught.value)
    assert len(text) <= MAX_MESSAGE + 60 and "\n" not in text, len(text)
    assert text.startswith(f"{spec}: network.outputs[0]: 'xxx") and text.endswith("' is not a layer; outputs name layers")
    assert "characters cut) ..." in text
    short = SpecError("a short message", field="f")
    assert str(short) == "f: a short message"
