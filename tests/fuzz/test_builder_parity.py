"""Builder parity (issue 31, item 3): the TensorRT-style builder, ``check`` and ``convert`` give one answer for one
network and one precision.

Random networks (every kind the builder makes, chains of layers: tests/fuzz/strategies.py; dynamic networks with
profiles and shape inputs: tests/dynamic/strategies.py), rebuilt with the builder's calls, under random configs:
default device GPU or DLA, per-layer devices, BuilderFlag.FP16, INT8 and GPU_FALLBACK. Then

- every plan the builder accepts runs on the target it names: ``spec2onnx.check(plan.model, plan.target,
  precision=<the config's FP16/INT8>)`` has no problem; a ``tensorrt-dla`` plan has every layer on DLA;
- with every layer on DLA and no GPU_FALLBACK, the builder refuses the network exactly when ``convert --target
  tensorrt-dla`` with the same precision refuses it (the same DLA rules, converter/targets/dla.py; a profile whose
  min, opt and max differ among them) or ``check`` warns that a node of its model runs on the GPU ("GPU fallback",
  which only GPU_FALLBACK allows in a build; convert and check take no such flag and warn).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import event, given, note, settings
from hypothesis import strategies as st

import spec2onnx
from converter.pipeline import stages as pipeline
from converter.errors import UserError
from converter.pipeline.spec import parse_spec
from converter.targets.dla_guide import FALLBACK
from spec2onnx import trt

from ..dynamic import strategies as dynamic
from .strategies import VALID, chain_specs
from .test_builder_round_trip import BUILT, DYNAMIC, profiles_config, rebuild


@st.composite
def dla_dynamic_networks(draw):
    """4-D NCHW networks of layers DLA runs (Scale per channel, SUM/PROD/MAX/MIN/SUB of two tensors) in float32 or
    float16, whose one optimization profile is dynamic or static (min = opt = max): where DLA's rule on dynamic
    dimensions alone decides (the strategies of tests/dynamic draw other ranks and layers, which DLA refuses first)."""
    spec_dims, bounds = draw(dynamic.dims(4, static_axes={1}))
    if not bounds:
        spec_dims[0], bounds[0] = -1, draw(dynamic.ranges())
    if draw(st.booleans()):  # a static profile: min = opt = max, which DLA takes
        bounds = {axis: (low,) * 3 for axis, (low, _, _) in bounds.items()}
    channels = spec_dims[1]
    weights = st.lists(st.floats(-2, 2, width=16), min_size=channels, max_size=channels)
    layers, tensors = [], ["x"]
    for i in range(draw(st.integers(1, 3))):
        source = draw(st.sampled_from(tensors))
        if draw(st.booleans()):
            layer = {"name": f"l{i}", "op": "trt.Scale", "inputs": [source], "mode": "CHANNEL", "channel_axis": 1,
                     "scale": draw(weights), "shift": draw(weights)}
        else:
            layer = {"name": f"l{i}", "op": "trt.ElementWise", "inputs": [source, draw(st.sampled_from(tensors))],
                     "operation": draw(st.sampled_from(("SUM", "PROD", "MAX", "MIN", "SUB")))}
        layers.append(layer)
        tensors.append(layer["name"])
    dtype = draw(st.sampled_from(("float32", "float16")))
    network = {"inputs": {"x": {"dtype": dtype, "shape": spec_dims}}, "layers": layers, "outputs": [tensors[-1]],
               "profiles": [{"x": dynamic.profile_entry(spec_dims, bounds)}]}
    return {"name": "dla-dynamic", "network": network}


def networks():
    """Spec documents of networks the builder makes: one layer of each kind, chains, dynamic networks, and 4-D
    networks DLA runs with a dynamic or a static profile."""
    made = {**{kind: VALID[kind]().map(lambda pair: pair[0]) for kind in BUILT},
            "chain": chain_specs().map(lambda pair: pair[0]),
            **{f"dynamic {kind}": dynamic.KINDS[kind]() for kind in DYNAMIC}, "dla 4-D": dla_dynamic_networks()}
    # each kind as often (one_of favours its first), the DLA networks three times as often
    return st.sampled_from(sorted(made) + ["dla 4-D"] * 2).flatmap(made.__getitem__)


FLAGS = (trt.BuilderFlag.FP16, trt.BuilderFlag.INT8, trt.BuilderFlag.GPU_FALLBACK)


def precision_of(config) -> tuple[str, ...]:
    """What the config allows, in check's and convert's words (trtexec --fp16/--int8)."""
    return tuple(name for name, flag in (("fp16", trt.BuilderFlag.FP16), ("int8", trt.BuilderFlag.INT8))
                 if config.get_flag(flag))


def _build(network, config):
    try:
        return trt.Builder(trt.Logger()).build_serialized_network(network, config), None
    except UserError as exc:  # a refusal; anything else (a bug) fails the test
        return None, str(exc)


def _dla_verdict(spec, precision) -> tuple[str | None, list[str]]:
    """(why ``convert --target tensorrt-dla`` with ``precision`` refuses the spec, or None; the "GPU fallback"
    warnings of its check: nodes TensorRT runs on the GPU, which only BuilderFlag.GPU_FALLBACK allows)."""
    try:
        pipeline.convert(spec, "tensorrt-dla", precision=precision)
        problems = pipeline.check(spec, pipeline.resolve_target("tensorrt-dla", precision=precision))
    except UserError as exc:
        return str(exc), []
    return None, [p.reason for p in problems if p.reason.startswith(FALLBACK)]


@settings(max_examples=max(10, settings.default.max_examples // 3))  # each example lowers and checks up to 3 models
@given(doc=networks(), data=st.data())
def test_the_builder_check_and_convert_agree_on_every_network_and_config(doc, data):
    spec = parse_spec(doc, Path("parity.yaml"))
    network = rebuild(spec)
    config = profiles_config(spec)
    # weighted towards DLA builds (DLA, FP16, no per-layer device), where the rules have most to say
    config.default_device_type = data.draw(st.sampled_from((trt.DeviceType.DLA,) * 3 + (trt.DeviceType.GPU,)),
                                           label="default device")
    for flag in FLAGS:
        if data.draw(st.sampled_from((True, True, False) if flag == trt.BuilderFlag.FP16 else (True, False)),
                     label=str(flag)):
            config.set_flag(flag)
    layers = [network.get_layer(i) for i in range(network.num_layers)]
    layers = [layer for layer in layers if not isinstance(layer, trt.IConstantLayer)]
    devices = (None,) * 4 + (trt.DeviceType.GPU, trt.DeviceType.DLA)
    overrides = data.draw(st.lists(st.sampled_from(devices), min_size=len(layers), max_size=len(layers)),
                          label="per-layer devices")
    for layer, device in zip(layers, overrides):
        if device is not None:
            config.set_device_type(layer, device)
    precision = precision_of(config)
    plan, refusal = _build(network, config)
    note(f"profiles {spec.network.profiles}; precision {precision}; refusal {refusal}")
    event(f"built for {plan.target}" if plan is not None else "refused")
    if plan is not None:
        report = spec2onnx.check(plan.model, plan.target, precision=precision)
        assert report.ok, (plan.target, plan.placement, report.problems)
        if plan.target == "tensorrt-dla":
            assert set(plan.placement.values()) == {trt.DeviceType.DLA}
    all_on_dla = all(config.get_device_type(layer) == trt.DeviceType.DLA for layer in layers)
    if all_on_dla and not config.get_flag(trt.BuilderFlag.GPU_FALLBACK):
        config.default_device_type = trt.DeviceType.GPU
        for layer in layers:
            config.reset_device_type(layer)
        if _build(network, config)[0] is None:
            return  # the network itself does not build (a shape input without a profile): nothing about DLA to hold
        convert_refusal, fallbacks = _dla_verdict(spec, precision)
        note(f"convert --target tensorrt-dla: {convert_refusal}; GPU fallback warnings: {fallbacks}")
        if plan is None:  # where convert refuses, the builder refused; it refuses a GPU fallback too (no flag for it)
            assert convert_refusal is not None or fallbacks, refusal
        else:  # the builder put every layer on DLA: convert takes the network, and check sees no GPU fallback
            assert convert_refusal is None and not fallbacks, (convert_refusal, fallbacks)
            assert plan.target == "tensorrt-dla" and plan.lowered_for == "tensorrt-dla"
