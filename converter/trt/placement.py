"""Where ``build_serialized_network`` runs each layer (GPU or DLA), and the model it lowers for that placement.

DLA's rules are the tensorrt-dla target's, written once in converter/targets/dla.py (``layer_refusal``: the one
precision rule and the layer kinds' rules; ``node_problems``: the same on the lowered nodes), so that the builder,
``convert --target tensorrt-dla`` and ``check --target tensorrt-dla`` give one answer for one network and one
precision (the config's BuilderFlag.FP16/INT8 here; ``--fp16``/``--int8`` and the spec's ``precision`` there).
"""

from __future__ import annotations

from ..errors import UserError
from ..pipeline.stages import model_for_target, wanted_opset
from ..targets import dla
from ..targets.target import resolve_target
from ..targets.check import check_model, errors
from ..targets.dla_guide import FALLBACK
from .layers import IConstantLayer


def spec_layer(spec, layer):
    """The spec layer a builder layer became (constants are no spec layers)."""
    index = [x for x in layer._network._layers if not isinstance(x, IConstantLayer)].index(layer)
    return spec.network.layers[index], index


def dla_refusal(spec, layer, precision) -> str | None:
    """Why DLA cannot run ``layer`` when the build allows ``precision`` ("fp16", "int8"), or None: the tensorrt-dla
    target's rule for a spec layer (converter/targets/dla.py layer_refusal)."""
    slayer, index = spec_layer(spec, layer)
    try:
        dla.layer_refusal(spec, slayer, slayer.field or f"network.layers[{index}]", precision)
    except dla.DlaRuleError as exc:
        return exc.detail
    return None


def dla_dynamic_refusal(spec) -> str | None:
    """Why no layer runs on DLA in this build, or None: a profile whose min, opt and max differ (or a shape input's
    values), which DLA does not take ("DLA does not support dynamic dimensions", converter/targets/dla.py
    refuse_dynamic, the rule ``convert --target tensorrt-dla`` refuses the spec by). TensorRT then logs
    dla.TRT_DYNAMIC_MESSAGE and runs all DLA layers on the GPU, or fails the build without GPU_FALLBACK."""
    try:
        dla.refuse_dynamic(spec)
    except dla.DlaRuleError as exc:
        return f"{dla.TRT_DYNAMIC_MESSAGE}: {exc.field.removeprefix('network.')}: {exc.detail}"
    return None


def lower_for_placement(network, spec, on_dla: list, precision, call: str):
    """(target, model): the network lowered for tensorrt-dla (allowing ``precision``) when layers run on DLA and the
    DLA rules take the whole network -- its model is a tensorrt model too: onnx-tensorrt parses it; float16 stays
    float16, DLA has no Cast layer; float32 stays float32 and runs in FP16 --, else for tensorrt (a GPU layer
    breaking a DLA rule makes the whole spec one tensorrt-dla refuses)."""
    if on_dla:
        try:
            model = model_for_target(spec, resolve_target("tensorrt-dla", precision=precision), wanted_opset(spec, None))[0]
        except UserError:
            pass
        else:
            if not errors(check_model(model, "tensorrt")):
                return "tensorrt-dla", model
    return "tensorrt", network._convert(spec, None, "tensorrt", None, call).model


def dla_node_refusals(model, layers: list, precision) -> dict:
    """{layer: why} for the ``layers`` (placed on DLA) whose nodes DLA does not run under ``precision`` (the
    tensorrt-dla node rules, converter/targets/dla.py, and the DLA guide's GPU-fallback verdicts, dla_guide.py):
    onnx-tensorrt makes TensorRT layers of the nodes, and one DLA cannot run runs on the GPU. A node belongs to the
    layer whose output name its name starts with."""
    by_output = {layer.get_output(0).name: layer for layer in layers}
    found: dict = {}
    # an error (the seed rules) or a "GPU fallback" verdict (the DLA guide): either way not on DLA
    problems = check_model(model, resolve_target("tensorrt-dla", precision=precision))
    for problem in (p for p in problems if p.severity == "error" or p.reason.startswith(FALLBACK)):
        layer = by_output.get(problem.node.split("/")[0])
        if layer is not None and layer not in found:
            found[layer] = f"its node {problem.node} ({problem.op}) does not run on DLA: {problem.reason}"
    return found
