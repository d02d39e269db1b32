"""Regressions: every crash and wrong result the fuzzer found, reproduced by hand and now fixed.

When the fuzzer finds a new one, add it to known_bugs.KNOWN (or AVOID) with a strict-xfail
reproducer here; when it is fixed, the reproducer becomes a plain test like these.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from converter.errors import UserError
from converter.pipeline.spec import parse_spec

from .known_bugs import KNOWN


def _doc(dtype="float32", shape=(1, 1, 1, 1), op="trt.Scale", outputs=("y",), attrs=None, layer_op=None):
    layer = {"name": "y", "op": layer_op or op, "inputs": ["x"], "mode": "UNIFORM"}
    if op == "trt.Resize":
        layer = {"name": "y", "op": op, "inputs": ["x"]}
    layer.update(attrs or {})
    return {"name": "t", "network": {"inputs": {"x": {"dtype": dtype, "shape": list(shape)}}, "layers": [layer],
                                     "outputs": list(outputs)},
            "cases": [{"name": "c", "inputs": {"x": {"random": "uniform"}}}]}


REPRODUCERS = {
    ("TypeError", "spec.py", "_tensor_type"): _doc(dtype=["float32"]),
    ("TypeError", "spec.py", "_parse_network"): _doc(outputs=[["y"]]),
    ("TypeError", "registry.py", "layer_kind"): _doc(layer_op=["trt.Scale"]),
    ("OverflowError", "network.py", "size"): _doc(shape=(2**70, 1, 1, 1)),
    ("OverflowError", "schema.py", "parse_number"): _doc(attrs={"scale": [10**400]}),
    ("OverflowError", "schema.py", "parse"): _doc(dtype="float32", shape=(1, 1, 2, 2), op="trt.Resize",
                                                  attrs={"shape": [1, 1, 2**70, 2]}),
}


def test_no_known_bug_is_left():
    assert KNOWN == {}


@pytest.mark.parametrize("key", sorted(REPRODUCERS), ids=lambda k: f"{k[1]}:{k[2]}:{k[0]}")
def test_former_crash_is_a_user_error(key):
    with pytest.raises(UserError):
        parse_spec(REPRODUCERS[key], Path("t.yaml"))


def test_silent_wraparound_of_the_element_count():
    """[2^32, 2^32, 1, 1] has 2^64 elements; np.prod(dtype=int64) wraps that to 0, so the spec loads."""
    doc = _doc(shape=(2**32, 2**32, 1, 1))
    doc["cases"][0]["inputs"]["x"] = {"random": "uniform"}
    with pytest.raises(UserError):  # today: the casedata byte limit catches it (math.prod); the type check does not
        parse_spec(doc, Path("t.yaml"))


VALID_REPRODUCERS = {
    "rank0-feeds": {
        "name": "t", "network": {"inputs": {"a": {"dtype": "float32", "shape": []}, "b": {"dtype": "float32", "shape": []}},
                                 "layers": [{"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": "SUM"}],
                                 "outputs": ["y"]},
        "cases": [{"name": "c", "inputs": {"a": 1.5, "b": 2}}]},
    "resize-empty-runtime-shape": {
        "name": "t", "network": {"inputs": {"x": {"dtype": "float32", "shape": [0]}, "s": {"dtype": "int32", "shape": [1]}},
                                 "layers": [{"name": "y", "op": "trt.Resize", "inputs": ["x", "s"], "resize_mode": "LINEAR"}],
                                 "outputs": ["y"]},
        "cases": [{"name": "c", "inputs": {"x": {"random": "uniform"}, "s": [0]}}]},
}


FLOAT16_CHAIN = {
    "name": "t", "network": {"inputs": {"x": {"dtype": "float16", "shape": [1, 1, 1, 2]}, "z": {"dtype": "float16", "shape": [1, 1, 1, 2]}},
                             "layers": [{"name": "l0", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM", "scale": [1e-12]},
                                        {"name": "l1", "op": "trt.ElementWise", "inputs": ["l0", "z"], "operation": "EQUAL"}],
                             "outputs": ["l1"]},
    "cases": [{"name": "c", "inputs": {"x": [[[[1.0, -1.5]]]], "z": [[[[0.0, -0.0]]]]}}]}
VALID_REPRODUCERS["float16-after-cast"] = FLOAT16_CHAIN


def test_no_region_is_avoided():
    from .known_bugs import AVOID

    assert AVOID == {}


@pytest.mark.parametrize("key", sorted(VALID_REPRODUCERS))

def test_avoided_region_validates(key):
    from .test_valid_specs import _assert_valid

    _assert_valid(VALID_REPRODUCERS[key], 17)


def test_key_with_a_line_break_gives_a_one_line_message():
    doc = _doc()
    doc["network"]["inputs"]["x\ny"] = doc["network"]["inputs"].pop("x")
    with pytest.raises(UserError) as info:
        parse_spec(doc, Path("t.yaml"))
    assert len(str(info.value).splitlines()) == 1, str(info.value)
