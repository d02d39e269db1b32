"""Valid specs of every layer kind load, build (onnx's full checker) and validate with every case PASS."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import example, given, note
from hypothesis import strategies as st

from converter.pipeline.stages import Options, validate_spec
from converter.lowering import build_model
from converter.pipeline.spec import load_spec, parse_spec

from .strategies import KINDS, VALID, chain_specs, renamed, valid_strategies


def _check(spec, opset: int):
    """Results of every case (converter.pipeline.stages.validate_spec)."""
    return list(validate_spec(spec, Options(opset=opset)))


def _note(text: str) -> None:
    """hypothesis.note inside a hypothesis test; nothing in a plain test (where note() raises)."""
    from hypothesis.errors import InvalidArgument

    try:
        note(text)
    except InvalidArgument:
        pass


def _assert_valid(doc: dict, opset: int, path: Path = Path("fuzz.yaml")):
    _note(yaml.safe_dump(doc, sort_keys=False, width=200))
    _note(f"opset {opset}")
    spec = parse_spec(doc, path)
    build_model(spec.network, name=spec.name, opset=opset)  # runs onnx's full checker and strict shape inference
    results = _check(spec, opset)
    assert results and len(results) == len(spec.cases)
    bad = [f"{r.outcome} {r.case}: {'; '.join(r.problems)}" for r in results if r.outcome != "PASS"]
    assert not bad, "\n".join(bad)


def test_every_registered_kind_is_fuzzed():
    """A kind's registration names its strategy (LayerKind.strategy), so a new kind is in the fuzz tests or this
    fails, naming it (the three-place recipe of docs/architecture.md holds for the fuzz tests too)."""
    from converter.registry import is_builtin, layer_kinds

    # spec2onnx's kinds (a test's own plugin kinds, registered for the session by other tests, are theirs to say)
    assert sorted(n for n in layer_kinds() if is_builtin(n) and n not in valid_strategies()) == []
    assert {n for n in VALID if is_builtin(n)} == {n for n in KINDS if is_builtin(n)}


@pytest.mark.parametrize("kind", sorted(k for k in VALID if k in KINDS))  # (registered in this session)
@given(data=st.data())
def test_valid_specs_validate(kind, data):
    _assert_valid(*data.draw(VALID[kind](), label=kind))


def _float16_chain(first: str, second_inputs: list[str], x: float, in0: float, at: tuple[int, ...] = (0, 2, 2, 2)):
    """fuzz seed 3545243378's chains: l0 = x <first> in0, l1 = POWER over second_inputs, float16, zeros elsewhere."""
    xs, ins = np.zeros((1, 3, 3, 3)), np.zeros((1, 3, 3, 3))
    xs[at], ins[at] = x, in0
    layers = [{"name": "l0", "op": "trt.ElementWise", "inputs": ["x", "in0"], "operation": first},
              {"name": "l1", "op": "trt.ElementWise", "inputs": second_inputs, "operation": "POWER"}]
    inputs = {name: {"dtype": "float16", "shape": [1, 3, 3, 3]} for name in ("x", "in0")}
    return ({"name": "fuzz-chain", "network": {"inputs": inputs, "layers": layers, "outputs": ["l0", "l1"]},
             "cases": [{"name": "case0", "inputs": {"x": xs.tolist(), "in0": ins.tolist()}}]}, 13)


# Fuzz seed 3545243378 (issue 31): onnxruntime's CPU EP computed the float16 Add in float32 through Casts it inserted
# and merged its closing Cast with POWER's Cast to float32, so POWER read the unrounded sum. 2 + fl16(0.536) =
# 2.5361328125 rounds (tie, to even) to 2.53515625, whose square rounds to 6.42578125; the unrounded square 6.4320
# rounds to 6.43359375, 2 ulp away. And 1e-6 - 3 rounds to -3, (-3)^(-3) = -1/27, where the unrounded -2.999999
# gives NaN. The lowering now rounds every float16 op without a CPU kernel itself (lowering/elementwise.py).
@example(_float16_chain("SUM", ["l0", "x"], 2.0, 0.5360081791877747))
@example(_float16_chain("SUB", ["l0", "l0"], 1e-06, 3.0, at=(0, 1, 0, 0)))
@given(chain_specs())
def test_networks_of_several_layers_validate(pair):
    _assert_valid(*pair)


@given(st.sampled_from(sorted(k for k in VALID if k in KINDS)).flatmap(lambda k: VALID[k]()).flatmap(renamed))
def test_any_tensor_names_validate(pair):
    _assert_valid(*pair)


@given(st.one_of(VALID["trt.ElementWise"](), VALID["trt.Scale"]()))
def test_valid_spec_through_a_file(tmp_path_factory, pair):
    """The same document written as YAML (and JSON) and read back by load_spec gives the same network."""
    doc, opset = pair
    folder = tmp_path_factory.mktemp("spec")
    for suffix, dump in ((".yaml", lambda d: yaml.safe_dump(d, sort_keys=False)), (".json", _json)):
        path = folder / f"spec{suffix}"
        path.write_text(dump(doc))
        spec = load_spec(path)
        direct = parse_spec(doc, path)
        assert spec.network.types == direct.network.types
        for ours, theirs in zip(spec.network.layers, direct.network.layers):
            assert ours.attrs.keys() == theirs.attrs.keys()
            for key, value in ours.attrs.items():
                assert np.array_equal(value, theirs.attrs[key], equal_nan=True) if isinstance(value, np.ndarray) \
                    else value == theirs.attrs[key], key
        for ours, theirs in zip(spec.cases, direct.cases):
            for name, array in ours.inputs.items():
                assert array.dtype == theirs.inputs[name].dtype and array.shape == theirs.inputs[name].shape
                assert array.tobytes() == theirs.inputs[name].tobytes(), name  # the same bits, NaN included


def _json(doc) -> str:
    import json

    return json.dumps(doc)
