"""What a capability check needs to know about each node of any ONNX model.

Types and ranks come from onnx's shape inference (non-strict: a model it cannot fully infer is
still checked, with unknown types skipped); constant inputs are initializers and Constant nodes;
attributes are resolved with their schema defaults. A node's since-version is the newest version
of its schema at or below the model's opset: onnx.defs.get_schema(op, max_inclusive_version=opset).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, defs, helper, numpy_helper


def type_name(elem_type: int) -> str:
    """ONNX element type -> the name onnxruntime's kernel tables use (float, float16, int8, bool, ...)."""
    return TensorProto.DataType.Name(elem_type).lower()


@dataclass
class NodeView:
    node: onnx.NodeProto
    index: int
    since: int | None  # None: no such op in this opset (or not in the ai.onnx domain)
    schema: object | None
    attrs: dict = field(default_factory=dict)  # every schema attribute, defaults filled in
    inputs: list = field(default_factory=list)  # names ("" for an omitted optional input)
    input_types: list = field(default_factory=list)  # type names, None when unknown
    output_types: list = field(default_factory=list)
    input_shapes: list = field(default_factory=list)  # tuples of int|None, or None when the rank is unknown
    output_shapes: list = field(default_factory=list)
    constants: list = field(default_factory=list)  # numpy value of each constant input, else None

    @property
    def op(self) -> str:
        return self.node.op_type

    @property
    def name(self) -> str:
        return self.node.name or f"#{self.index} ({self.node.op_type})"

    def bindings(self) -> dict[str, set[str]]:
        """Type-constraint name (T, T1, ...) -> the element types this node binds it to."""
        if self.schema is None:
            return {}
        names = {c.type_param_str for c in self.schema.type_constraints}
        bound: dict[str, set[str]] = {}
        for formals, types in ((self.schema.inputs, self.input_types), (self.schema.outputs, self.output_types)):
            for i, t in enumerate(types):
                if t is None or not formals:
                    continue
                formal = formals[min(i, len(formals) - 1)]
                if formal.type_str in names:
                    bound.setdefault(formal.type_str, set()).add(t)
        return bound

    def input_constraint(self, i: int) -> str | None:
        if self.schema is None or not self.schema.inputs:
            return None
        formal = self.schema.inputs[min(i, len(self.schema.inputs) - 1)]
        return formal.type_str if formal.type_str in {c.type_param_str for c in self.schema.type_constraints} else None

    def rank(self, i: int = 0) -> int | None:
        shape = self.input_shapes[i] if i < len(self.input_shapes) else None
        return None if shape is None else len(shape)


class ModelView:
    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
        try:
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
        except Exception:  # noqa: BLE001 - a model onnx cannot infer is still checked, with what it declares
            inferred = model
        graph = inferred.graph
        self.types: dict[str, str | None] = {}
        self.shapes: dict[str, tuple | None] = {}
        for info in list(graph.input) + list(graph.output) + list(graph.value_info):
            self._record(info)
        self.constants: dict[str, np.ndarray] = {}
        for init in graph.initializer:
            self.constants[init.name] = numpy_helper.to_array(init)
            self.types.setdefault(init.name, type_name(init.data_type))
            self.shapes.setdefault(init.name, tuple(init.dims))
        for node in graph.node:
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
                for attr in node.attribute:
                    if attr.name == "value":
                        self.constants[node.output[0]] = numpy_helper.to_array(attr.t)
        self.graph_io = {i.name for i in graph.input} | {o.name for o in graph.output}
        self.nodes = [self._view(i, node) for i, node in enumerate(model.graph.node)]

    def _record(self, info) -> None:
        ttype = info.type.tensor_type
        if not info.type.HasField("tensor_type"):
            return
        self.types[info.name] = type_name(ttype.elem_type) if ttype.elem_type else None
        if ttype.HasField("shape"):
            self.shapes[info.name] = tuple(d.dim_value if d.HasField("dim_value") else None for d in ttype.shape.dim)
        else:
            self.shapes[info.name] = None

    def _view(self, index: int, node: onnx.NodeProto) -> NodeView:
        schema = since = None
        if node.domain in ("", "ai.onnx") and self.opset is not None:
            try:
                schema = defs.get_schema(node.op_type, max_inclusive_version=self.opset)
                since = schema.since_version
            except defs.SchemaError:
                schema = None
        attrs = {}
        if schema is not None:
            for name, attr in schema.attributes.items():
                if attr.default_value.type:
                    attrs[name] = _plain(helper.get_attribute_value(attr.default_value))
        for attr in node.attribute:
            attrs[attr.name] = _plain(helper.get_attribute_value(attr))
        ins, outs = list(node.input), list(node.output)
        return NodeView(
            node=node, index=index, since=since, schema=schema, attrs=attrs, inputs=ins,
            input_types=[self.types.get(n) if n else None for n in ins],
            output_types=[self.types.get(n) if n else None for n in outs],
            input_shapes=[self.shapes.get(n) if n else None for n in ins],
            output_shapes=[self.shapes.get(n) if n else None for n in outs],
            constants=[self.constants.get(n) if n else None for n in ins],
        )


def _plain(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
