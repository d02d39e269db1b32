"""A test-only layer kind whose output shape is dynamic: ``test.DynamicIdentity`` passes its input through
(an ONNX Identity) but declares every dimension of its output None, as a plugin layer whose shape only the
data decides would. Loaded with ``--plugin`` (or converter.pipeline.plugins.load_plugins)."""

from __future__ import annotations

from converter.lowering.builder import NodeBuilder
from converter.network import TensorType
from converter.reference import register_reference
from converter.registry import LayerKind, register_layer


def _lower(layer, ctx):
    b = NodeBuilder(layer)
    return b.finish(b.op("Identity", [layer.inputs[0]]))


register_layer(LayerKind(
    name="test.DynamicIdentity", summary="identity whose output shape is declared dynamic",
    inputs=("input",), min_inputs=1, attributes={},
    check=lambda layer, types: TensorType(types[0].dtype, (None,) * types[0].rank), lower=_lower,
))
register_reference("test.DynamicIdentity", lambda layer, inputs: inputs[0].copy())
