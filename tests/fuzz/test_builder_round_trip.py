"""Round trip through the TensorRT-style builder, driven by each kind's registration: a random valid spec of a kind
the builder makes (LayerKind.builder, front "trt") is rebuilt call by call -- add_input, add_constant, the hook's
add_* method with its arguments, set_input for further tensors, the hook's properties -- and the builder's spec
is the same network (every attribute of every layer). So the hook says truly how the builder makes the kind, and
the builder writes what the spec says. Random valid single-layer specs (tests/fuzz/strategies.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from converter.api import load_spec
from converter.registry import layer_kind
from converter.spec import parse_spec
from spec2onnx import trt

from .strategies import KINDS, VALID

BUILT = sorted(k for k in VALID if k in KINDS and layer_kind(k).builder is not None and layer_kind(k).builder.front == "trt")


def rebuild(spec) -> trt.INetworkDefinition:
    """The spec's network, made with the builder's calls as the kinds' hooks name them."""
    net = spec.network
    network = trt.INetworkDefinition()
    tensors = {name: network.add_input(name, trt.DataType(t.dtype.name), t.shape) for name, t in net.inputs.items()}
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
