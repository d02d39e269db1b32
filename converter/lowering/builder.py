"""What a lowering works with: its context in, its nodes and initializers out.

A lowering is a pure function ``lower(layer, ctx) -> Lowered``. It never sees
or edits the model being assembled; ``NodeBuilder`` only helps it name its
own nodes and tensors (all prefixed with the layer name) and record why a
legalizing node is there.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import DType
from ..network import Layer, TensorType
from ..targets.target import Target, target_for_provider

if TYPE_CHECKING:  # pragma: no cover
    from onnx import NodeProto, TensorProto

# onnx is imported where a node or an initializer is made, not with this module: loading a spec imports every
# lowering family (they register the kinds), and a validation whose lowered models are all cached makes none
# (issue 34: onnx's import is 35 ms of CPU, an eighth of a one-spec validate).


@dataclass(frozen=True)
class LoweringContext:
    opset: int
    provider: str  # target execution provider, e.g. "CPUExecutionProvider"
    input_types: tuple[TensorType, ...]
    output_type: TensorType
    constant_inputs: tuple[np.ndarray | None, ...]  # the value of each layer input that is a constant
    target: Target | None = None  # what the model is lowered for; None: the target ``provider`` implies

    def __post_init__(self):
        if self.target is None:
            object.__setattr__(self, "target", target_for_provider(self.provider))


@dataclass
class Lowered:
    nodes: list[NodeProto] = field(default_factory=list)
    initializers: list[TensorProto] = field(default_factory=list)
    legalizations: list[str] = field(default_factory=list)  # human-readable notes, also stored in the model

    def extend(self, other: Lowered) -> None:
        """Append ``other``'s nodes, initializers and notes (an inner lowering wrapped by this one)."""
        self.nodes.extend(other.nodes)
        self.initializers.extend(other.initializers)
        self.legalizations.extend(other.legalizations)


class NodeBuilder:
    def __init__(self, layer: Layer):
        self.layer = layer
        self.lowered = Lowered()
        self._count = 0
        self._consts: dict[tuple, str] = {}  # (dtype, shape, bytes) -> the initializer already holding it

    def _fresh(self, hint: str) -> str:
        self._count += 1
        return f"{self.layer.name}/{hint}_{self._count}"

    def const(self, hint: str, value: np.ndarray) -> str:
        """An initializer holding ``value``; the same bits asked for twice (cubic taps of two axes with one
        scale, say) are one initializer."""
        value = np.asarray(value)
        if not value.flags.c_contiguous:
            value = value.copy(order="C")  # (np.ascontiguousarray would turn a 0-d scalar into shape [1])
        # A digest of the bytes, not a copy of them: a full-size constant would otherwise be held twice.
        key = (value.dtype, value.shape, hashlib.sha256(value.reshape(-1).view(np.uint8)).digest())
        if key in self._consts:
            return self._consts[key]
        from onnx import numpy_helper  # start-up time (above)

        name = self._consts[key] = self._fresh(hint)
        self.lowered.initializers.append(numpy_helper.from_array(value, name))
        return name

    def scalar(self, hint: str, value, dtype: DType) -> str:
        return self.const(hint, np.array(value, dtype=dtype.numpy))

    def op(self, op_type: str, inputs: list[str], *, why: str = "", **attrs) -> str:
        from onnx import helper  # start-up time (above)

        out = self._fresh(op_type)
        node = helper.make_node(op_type, inputs, [out], name=out, doc_string=why or None, **attrs)
        self.lowered.nodes.append(node)
        if why:
            self.lowered.legalizations.append(f"{out}: {why}")
        return out

    def subgraph(self, name: str, build, out_type: TensorType):
        """A GraphProto (an If's branch) of the nodes ``build()`` adds, its output the name it returns, of
        ``out_type``'s element type and rank; their constants stay initializers of the main graph, which a
        subgraph may read."""
        from onnx import helper  # start-up time (above)

        start = len(self.lowered.nodes)
        out = build()
        nodes = self.lowered.nodes[start:]
        del self.lowered.nodes[start:]
        value = helper.make_tensor_value_info(out, out_type.dtype.onnx, [None] * out_type.rank)
        return helper.make_graph(nodes, f"{self.layer.name}/{name}", [], [value])

    def cast(self, value: str, to: DType, *, why: str) -> str:
        return self.op("Cast", [value], to=to.onnx, why=why)

    def finish(self, result: str) -> Lowered:
        """Name the layer's result after the layer, adding an Identity only when no node here produced it."""
        produced = [n for n in self.lowered.nodes if result in n.output]
        if produced and produced[-1] is self.lowered.nodes[-1]:
            node = produced[-1]
            node.output[list(node.output).index(result)] = self.layer.name
            node.name = self.layer.name
        else:
            from onnx import helper  # start-up time (above)

            self.lowered.nodes.append(helper.make_node("Identity", [result], [self.layer.name], name=self.layer.name))
        return self.lowered
