"""A node's ONNX function body, as onnxruntime expands a node that no kernel takes.

onnxruntime inlines a node that no execution provider claims when its schema defines a function
(onnxruntime/core/framework/graph_partitioner.cc, InlineNodes; onnxruntime/core/graph/function_utils.cc
builds the body from ``schema->GetFunction(opset)`` or the context-dependent function builder, with the
model's opset of the node's domain), then assigns the body's nodes, recursively. Here the body comes
from onnx's schemas (``get_function_with_opset_version`` / ``get_context_dependent_function_with_opset_version``),
is inlined into a model of the one node (formal inputs and outputs renamed to the node's, attribute
references resolved, the schema's defaults filled in), and that model is checked node by node.
"""

from __future__ import annotations

import onnx
from onnx import helper, numpy_helper

from .model_view import ModelView, NodeView

def _elem(name: str | None) -> int:
    return onnx.TensorProto.DataType.Value(name.upper()) if name else 0


def body(view: ModelView, node: NodeView) -> onnx.FunctionProto | None:
    """The function body onnx defines for ``node`` at the model's opset; None when it defines none."""
    schema = node.schema
    if schema is None:
        return None
    domain = "" if node.node.domain == "ai.onnx" else node.node.domain
    opset = view.opsets.get(domain, node.since)
    proto = onnx.FunctionProto()
    try:
        if schema.has_function:
            try:
                data = schema.get_function_with_opset_version(opset)
            except Exception:  # noqa: BLE001 - no body at that opset: the schema's own
                data = None
            if data:
                proto.ParseFromString(data if isinstance(data, bytes) else data.SerializeToString())
            elif min(getattr(schema, "function_opset_versions", None) or [0]) > opset:
                # every body is registered after the model's opset: OpSchema::GetFunction returns none (it takes the
                # newest body at or below the opset asked), so onnxruntime has nothing to inline. Relu-14 and Elu-6
                # have bodies at 18 only: at opset 17, 'Could not find an implementation for Relu(14)' (1.32.0)
                return None
            else:
                proto.CopyFrom(schema.function_body)
            if not _same_ops_at(proto, opset):
                return None
        elif schema.has_context_dependent_function:
            if any(t is None for n, t in zip(node.inputs, node.input_types) if n):
                return None  # the builder needs every input's type
            # with the shapes where known: a builder may read the input's rank (CausalConvWithState does),
            # as onnxruntime's call of it (with the graph's inferred types) can
            shapes = list(node.input_shapes) + [None] * (len(node.inputs) - len(node.input_shapes))
            types = [helper.make_tensor_type_proto(_elem(t), list(s) if s is not None else None).SerializeToString()
                     if n else onnx.TypeProto().SerializeToString()
                     for n, t, s in zip(node.inputs, node.input_types, shapes)]
            try:
                data = schema.get_context_dependent_function_with_opset_version(opset, node.node.SerializeToString(), types)
            except Exception:  # noqa: BLE001
                data = None
            if not data:  # no body registered at or below the model's opset (CastLike's is 21): the schema's own
                data = schema.get_context_dependent_function(node.node.SerializeToString(), types)
            if not data:
                return None
            proto.ParseFromString(data)
        else:
            return None
    except Exception:  # noqa: BLE001 - onnx cannot build the body for this node: nothing to expand
        return None
    return proto if proto.node else None


def _same_ops_at(function: onnx.FunctionProto, opset: int) -> bool:
    """Whether every ai.onnx op ``function`` calls has, at ``opset``, the version it had at the body's own opset.

    onnx's C++ OpSchema::GetFunction(requested_opset) returns no body otherwise (ValidateReferencedOpsInFuncton,
    onnx/defs/schema.cc), and onnxruntime inlines only a body it returns; onnx's Python binding does not make
    that check. Shown by onnxruntime 1.32.0: Swish-24's body calls Constant and CastLike, both new at opset 25,
    so at opset 28 'Could not find an implementation for Swish(24)' (onnx's test_swiglu)."""
    own = next((o.version for o in function.opset_import if o.domain in ("", "ai.onnx")), None)
    if own is None or own == opset:
        return True
    for node in function.node:
        if node.domain not in ("", "ai.onnx"):
            continue
        try:
            if onnx.defs.get_schema(node.op_type, opset).since_version != onnx.defs.get_schema(node.op_type, own).since_version:
                return False
        except onnx.defs.SchemaError:
            return False
    return True


def _inline(function: onnx.FunctionProto, call: onnx.NodeProto) -> list[onnx.NodeProto]:
    """The body's nodes with its formal inputs and outputs renamed to the call's, and attribute references resolved."""
    names = {f: a for f, a in zip(function.input, call.input)}
    names.update({f: a for f, a in zip(function.output, call.output)})
    given = {a.name: a for a in call.attribute}
    nodes = []
    for i, inner in enumerate(function.node):
        node = onnx.NodeProto()
        node.CopyFrom(inner)
        node.name = f"{call.name or call.op_type}/{inner.name or i}"
        for field in (node.input, node.output):
            renamed = [names.get(n, f"{call.name or call.op_type}/{n}") if n else "" for n in field]
            del field[:]
            field.extend(renamed)
        attrs = []
        for attr in node.attribute:
            if attr.ref_attr_name:
                if attr.ref_attr_name in given:  # an unset reference without a default: the attribute is absent
                    value = onnx.AttributeProto()
                    value.CopyFrom(given[attr.ref_attr_name])
                    value.name = attr.name
                    attrs.append(value)
            else:
                attrs.append(attr)
        del node.attribute[:]
        node.attribute.extend(attrs)
        nodes.append(node)
    return nodes


def _model_of(view: ModelView, node: NodeView, nodes, opsets: dict, functions=()) -> onnx.ModelProto:
    """A model of ``nodes`` in the place of ``node``: its inputs typed and constants kept as in ``view``."""
    inputs, inits, seen = [], [], set()
    for name, t, shape, const in zip(node.inputs, node.input_types, node.input_shapes, node.constants):
        if not name or name in seen:
            continue
        seen.add(name)
        if const is not None:
            inits.append(numpy_helper.from_array(const, name))
        else:
            inputs.append(helper.make_tensor_value_info(name, _elem(t), shape))
    outputs = [helper.make_tensor_value_info(n, _elem(t), None) for n, t in zip(node.node.output, node.output_types) if n]
    graph = helper.make_graph(nodes, "expanded", inputs, outputs, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()],
                             ir_version=view.model.ir_version or 10, functions=list(functions))


def local_function(view: ModelView, node: NodeView) -> onnx.FunctionProto | None:
    """The model-local function ``node`` calls (its domain, op type and overload name), or None."""
    key = (node.node.domain, node.node.op_type, node.node.overload)
    return next((f for f in view.model.functions if (f.domain, f.name, f.overload) == key), None)


def inline_local(view: ModelView, node: NodeView) -> ModelView:
    """A model of the call ``node`` with its model-local function inlined, and every local function that body calls,
    as onnxruntime does when it loads the model (onnxruntime/core/framework/graph_partitioner.cc InlineFunctionsAOT,
    called by InferenceSession::Initialize unless session.disable_aot_function_inlining is set): by onnx's own inliner
    (onnx/inliner/inliner.cc, onnx.inliner.inline_local_functions: formal names renamed, attribute references
    resolved). Raises what the inliner raises for a body it cannot inline."""
    from onnx import inliner

    call = onnx.NodeProto()
    call.CopyFrom(node.node)
    model = _model_of(view, node, [call], dict(view.opsets), view.model.functions)
    return ModelView(inliner.inline_local_functions(model))


def expand(view: ModelView, node: NodeView) -> ModelView | None:
    """A model of ``node``'s function body (its inputs typed and constants kept as in ``view``); None without one."""
    function = body(view, node)
    if function is None:
        return None
    try:
        call = onnx.NodeProto()
        call.CopyFrom(node.node)
        given = {a.name for a in call.attribute}
        for name, attr in node.schema.attributes.items():  # onnxruntime instantiates the body with the defaults
            if name not in given and attr.default_value.type:
                default = onnx.AttributeProto()
                default.CopyFrom(attr.default_value)
                default.name = name
                call.attribute.append(default)
        opsets = dict(view.opsets)
        for o in function.opset_import:
            opsets.setdefault("" if o.domain == "ai.onnx" else o.domain, o.version)
        return ModelView(_model_of(view, node, _inline(function, call), opsets))
    except Exception:  # noqa: BLE001 - a body onnx cannot build here: reported as not expandable
        return None
