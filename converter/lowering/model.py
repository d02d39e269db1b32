"""Assembling a whole ONNX model from the lowerings of a network's layers."""

from __future__ import annotations

import onnx
from onnx import helper, numpy_helper

from .. import __version__
from ..budget import gc_paused
from ..errors import InternalError, UserError
from ..network import Network
from ..installed.opset import DEFAULT_OPSET, MIN_OPSET, ir_version_for
from ..registry import layer_kind
from ..targets.target import Target, target_for_provider
from ..targets.dynamic import profiles_metadata
from ..untrusted.profiles import PROFILES_KEY
from ..untrusted.infer import InferenceError, infer
from .builder import LoweringContext
from .quantized import lower_quantized

__all__ = ["DEFAULT_OPSET", "MIN_OPSET", "build_model", "check_onnx", "ir_version_for"]


def build_model(network: Network, *, name: str = "spec2onnx", opset: int = DEFAULT_OPSET,
                provider: str = "CPUExecutionProvider", doc: str = "", check: bool = True,
                target: Target | None = None) -> onnx.ModelProto:
    """Lower every layer and assemble the model; ``check`` runs onnx's full checker and strict shape inference.

    ``target`` is what the model is lowered for (converter/targets); default: the one ``provider`` implies.
    """
    target = target or target_for_provider(provider)
    with gc_paused():
        return _build_model(network, name=name, opset=opset, provider=provider, doc=doc, check=check, target=target)


def _build_model(network: Network, *, name: str, opset: int, provider: str, doc: str, check: bool,
                 target: Target) -> onnx.ModelProto:
    if opset < MIN_OPSET:
        raise UserError(f"opset {opset} is below the minimum {MIN_OPSET}")
    nodes, initializers, notes = [], [], []
    for tensor, value in network.constants.items():
        initializers.append(numpy_helper.from_array(value, tensor))
    for layer in network.layers:
        ctx = LoweringContext(
            opset=opset,
            provider=provider,
            target=target,
            input_types=tuple(network.types[t] for t in layer.inputs),
            output_type=network.types[layer.name],
            constant_inputs=tuple(network.constants.get(t) for t in layer.inputs),
        )
        lower, quantization = layer_kind(layer.op).lower, network.quantization(layer)
        lowered = lower(layer, ctx) if quantization is None else lower_quantized(lower, layer, ctx, *quantization)
        if not lowered.nodes or lowered.nodes[-1].output[0] != layer.name:
            raise InternalError(f"lowering of {layer.op} did not produce tensor {layer.name!r}")
        nodes.extend(lowered.nodes)
        initializers.extend(lowered.initializers)
        notes.extend(lowered.legalizations)
    used = set(_inputs(nodes))
    initializers = [t for t in initializers if t.name in used]  # e.g. a constant a lowering folded away
    graph = helper.make_graph(
        nodes, name,
        [_value_info(t, network) for t in network.inputs],
        [_value_info(t, network) for t in network.outputs],
        initializer=initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        ir_version=ir_version_for(opset),
        producer_name="spec2onnx",
        producer_version=__version__,
        **({"doc_string": doc} if doc else {}),
    )
    props = {"spec2onnx.legalizations": "\n".join(notes)} if notes else {}
    if network.profiles:  # the optimization profiles, for check (2^31 elements at the max) and for TensorRT users
        props[PROFILES_KEY] = profiles_metadata(network.profiles, network.shape_inputs)
    if props:
        helper.set_model_props(model, props)
    if check:
        check_onnx(model)
    return model


def _inputs(nodes):
    """Every input name of ``nodes`` and of the nodes of their subgraphs (an If's branches read the constants too)."""
    for node in nodes:
        yield from node.input
        for attr in node.attribute:
            for graph in ([attr.g] if attr.type == onnx.AttributeProto.GRAPH else attr.graphs):
                yield from _inputs(graph.node)


def check_onnx(model: onnx.ModelProto) -> None:
    """onnx's full checker: the checker, then strict, type-checked shape inference (what check_model(full_check=True)
    runs, through converter/untrusted/infer.py); a failure here is our bug."""
    try:
        onnx.checker.check_model(model)
        infer(model, strict=True, check_type=True, parse=False)
    except (onnx.checker.ValidationError, InferenceError) as exc:
        raise InternalError(f"the lowered model fails the ONNX checker: {str(exc).splitlines()[0]}") from exc


def _value_info(tensor: str, network: Network):
    """A graph input's or output's type: a static dimension is a dim_value, a symbolic one (a name in the spec) a
    dim_param of that name, and one of no name (-1, or computed at run time) a dimension with neither: ONNX's
    unknown dimension, which ties it to no other (docs/semantics.md, "Dynamic shapes")."""
    ttype = network.types[tensor]
    dims = [d if d is not None else ttype.name(i) for i, d in enumerate(ttype.shape)]
    return helper.make_tensor_value_info(tensor, ttype.dtype.onnx, dims)
