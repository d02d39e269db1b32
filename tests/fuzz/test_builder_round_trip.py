"""Round trip through the TensorRT-style builder, driven by each kind's registration: a random valid spec of a kind
the builder makes (LayerKind.builder, front "trt") is rebuilt call by call -- add_input, add_constant, the hook's
add_* method with its arguments, set_input for further tensors, the hook's properties -- and the builder's spec
is the same network (every attribute of every layer). So the hook says truly how the builder makes the kind, and
the builder writes what the spec says. Random valid single-layer specs (tests/fuzz/strategies.py).

Dynamic networks too (issue 27, item 4): helper "dynamic"'s random dynamic specs (tests/dynamic/strategies.py:
symbols, -1, profiles, shape inputs, cases at random shapes inside them) are rebuilt with -1 dimensions, one
optimization profile per spec profile (set_shape, set_shape_input, config.add_optimization_profile) and
Resize's set_input(1, shape); the builder's spec has the same network and profiles, and validates case by case
as the spec file does (each against the numpy reference), so the builder and the spec-file path agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from converter import api
from converter.api import load_spec
from converter.registry import layer_kind
from converter.pipeline.spec import parse_spec
from spec2onnx import trt

from .strategies import KINDS, VALID

BUILT = sorted(k for k in VALID if k in KINDS and layer_kind(k).builder is not None and layer_kind(k).builder.front == "trt")


def rebuild(spec) -> trt.INetworkDefinition:
    """The spec's network, made with the builder's calls as the kinds' hooks name them."""
    net = spec.network
    network = trt.INetworkDefinition()
    tensors = {name: network.add_input(name, trt.DataType(t.dtype.name), tuple(-1 if d is None else d for d in t.shape))
               for name, t in net.inputs.items()}  # a symbol is a -1 of its own in TensorRT
    for name, data in net.constants.items():
        layer = network.add_constant(data.shape, data)
        layer.get_output(0).name = name
        tensors[name] = layer.get_output(0)
    for slayer in net.layers:
        hook = layer_kind(slayer.op).builder
        given = [tensors[t] for t in slayer.inputs]
        arguments = {argument: slayer.attrs[attribute] for argument, attribute in hook.arguments.items()}
        layer = getattr(network, hook.method)(*given[:len(hook.tensors)], **arguments)
        layer.name = slayer.name
        for i, tensor in enumerate(given[len(hook.tensors):], start=len(hook.tensors)):
            layer.set_input(i, tensor)
        for prop, attribute in hook.properties.items():
            if slayer.attrs[attribute] is not None:
                setattr(layer, prop, slayer.attrs[attribute])
        tensors[slayer.name] = layer.get_output(0)
    for name in net.outputs:
        network.mark_output(tensors[name])
    return network


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel())
    return a == b


@given(st.sampled_from(BUILT).flatmap(lambda kind: VALID[kind]()))
def test_a_spec_rebuilt_through_its_kinds_builder_hooks_is_the_same_network(pair):
    doc, _ = pair
    spec = parse_spec(doc, Path("fuzz.yaml"))
    built = load_spec(rebuild(spec).to_spec_dict(spec.name, cases=doc["cases"]))  # as the builder loads its own
    net, again = spec.network, built.network
    assert {n: t.shape for n, t in again.inputs.items()} == {n: t.shape for n, t in net.inputs.items()}
    assert [(x.name, x.op, x.inputs) for x in again.layers] == [(x.name, x.op, x.inputs) for x in net.layers]
    for original, rebuilt in zip(net.layers, again.layers):
        differ = {k: (v, rebuilt.attrs[k]) for k, v in original.attrs.items() if not _same(v, rebuilt.attrs[k])}
        assert not differ, (original.name, differ)
    assert {n: t for n, t in again.types.items()} == {n: t for n, t in net.types.items()}


def test_every_kind_the_builder_makes_is_round_tripped():
    assert BUILT == sorted(n for n, k in ((n, layer_kind(n)) for n in KINDS) if k.builder and k.builder.front == "trt")
    assert {"trt.Scale", "trt.ElementWise", "trt.Resize"} <= set(BUILT)


def profiles_config(spec):
    """An IBuilderConfig with one optimization profile per profile of the spec, made as a TensorRT script makes it."""
    builder = trt.Builder(trt.Logger())
    config = builder.create_builder_config()
    for profile in spec.network.profiles:
        made = builder.create_optimization_profile()
        for name, (low, opt, high) in profile.items():
            setter = made.set_shape_input if name in spec.network.shape_inputs else made.set_shape
            setter(name, low, opt, high)
            assert (made.get_shape_input if name in spec.network.shape_inputs else made.get_shape)(name) == [low, opt, high]
        assert config.add_optimization_profile(made) == config.num_optimization_profiles - 1
    return config


def _outcomes(spec) -> list[tuple[str, str, tuple]]:
    report = api.validate(spec, refused="skip")
    return [(r.case, r.outcome, tuple(r.problems)) for r in report.results]


DYNAMIC = ("trt.Scale", "trt.ElementWise", "trt.Resize/scales", "trt.Resize/sizes")  # the kinds the builder makes


@pytest.mark.parametrize("kind", DYNAMIC)
@settings(max_examples=max(5, settings.default.max_examples // 6))  # each example runs onnxruntime on both paths
@given(data=st.data())
def test_a_dynamic_network_built_with_profiles_agrees_with_its_spec_file(kind, data):
    from tests.dynamic import strategies as dynamic  # helper dynamic's random dynamic networks (issue 27, item 8)

    doc = data.draw(dynamic.KINDS[kind](), label=kind)
    spec = parse_spec(doc, Path("dynamic.yaml"))
    config = profiles_config(spec)
    built = load_spec(rebuild(spec).to_spec_dict(spec.name, cases=doc.get("cases"), config=config))
    net, again = spec.network, built.network
    note(yaml_of(built))
    assert again.profiles == net.profiles and again.shape_inputs == net.shape_inputs
    assert {n: t.shape for n, t in again.inputs.items()} == {n: t.shape for n, t in net.inputs.items()}
    assert [(x.name, x.op, x.inputs) for x in again.layers] == [(x.name, x.op, x.inputs) for x in net.layers]
    assert [(c.name, {n: np.shape(v) for n, v in c.inputs.items()}) for c in built.cases] == \
        [(c.name, {n: np.shape(v) for n, v in c.inputs.items()}) for c in spec.cases]
    expected = _outcomes(spec)
    assert _outcomes(built) == expected
    assert all(outcome in ("PASS", "REFUSED") for _, outcome, _ in expected), expected


def yaml_of(spec) -> str:
    return f"{spec.name}: profiles {spec.network.profiles}, inputs {dict(spec.network.inputs)}"
