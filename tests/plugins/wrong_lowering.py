"""A test-only layer kind whose lowering is wrong on purpose, for ``reduce SPEC`` to find.

``test.Double`` doubles its input: its numpy reference is ``2 * x``. Its lowering computes ``2 * x + 1``, in two
nodes (a Mul that is right, an Add that is not), which onnxruntime and onnx's reference evaluator compute alike:
the lowering, not a runtime, differs from the reference. Loaded with ``--plugin``.
"""

from __future__ import annotations

from converter.lowering.builder import NodeBuilder
from converter.reference import register_reference
from converter.registry import LayerKind, register_layer


def _lower(layer, ctx):
    b = NodeBuilder(layer)
    dtype = ctx.input_types[0].dtype
    doubled = b.op("Mul", [layer.inputs[0], b.scalar("two", 2, dtype)])
    return b.finish(b.op("Add", [doubled, b.scalar("one", 1, dtype)]))  # the mistake: + 1


register_layer(LayerKind(
    name="test.Double", summary="2 * x (its lowering adds 1 by mistake)",
    inputs=("input",), min_inputs=1, attributes={},
    check=lambda layer, types: types[0], lower=_lower,
))
register_reference("test.Double", lambda layer, inputs: inputs[0] * inputs[0].dtype.type(2))
