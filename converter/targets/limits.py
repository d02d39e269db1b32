"""Evaluating the run-time limits of converter/targets/profiles.py against one node."""

from __future__ import annotations

import numpy as np

from . import machine
from .model_view import ModelView, NodeView, Unread


class Unverified(str):
    """A requirement that cannot be told: it reads a constant whose data was not read (external data,
    or a large initializer of an untrusted file). Reported as a warning, not as a refusal."""


def applies(limit: dict, node: NodeView) -> bool:
    ops = limit["op"]
    if ops != "*" and node.op not in ([ops] if isinstance(ops, str) else ops):
        return False
    when = limit.get("when", {})
    for name, values in when.get("attr", {}).items():
        if node.attrs.get(name) not in values:
            return False
    for name, bound in when.get("attr_gt", {}).items():
        if not (isinstance(node.attrs.get(name), (int, float)) and node.attrs[name] > bound):
            return False
    given = {a.name for a in node.node.attribute}
    if "attr_present" in when and not given & set(when["attr_present"]):
        return False
    for name in when.get("attr_nonempty", ()):
        if not isinstance(node.attrs.get(name), list) or not node.attrs[name]:
            return False
    for i in when.get("not_constant", ()):  # the input is given, and its value is known only at run time
        if i >= len(node.inputs) or not node.inputs[i] or node.constants[i] is not None:
            return False
    bindings = node.bindings()
    for constraint, types in when.get("types", {}).items():
        if not bindings.get(constraint, set()) & set(types):
            return False
    if "types_any" in when:
        if not set(t for t in node.input_types + node.output_types if t) & set(when["types_any"]):
            return False
    return True


def broken(limit: dict, node: NodeView, view: ModelView) -> str | None:
    """None when ``node`` meets the limit's requirements, else what it does not meet."""
    require = limit.get("require")
    if require is None:
        return "always"
    rank = node.rank(0)
    if "rank" in require and rank is not None and rank not in require["rank"]:
        return f"input rank {rank} (allowed: {', '.join(map(str, require['rank']))})"
    alternatives = require.get("unscaled", {}).get(str(rank))
    if alternatives and not any(_unscaled(node, axes) is not False for axes in alternatives):
        shown = " or ".join("dims " + ",".join(map(str, axes)) for axes in alternatives)
        return f"resizes {_shape(node.input_shapes[0])} -> {_shape(node.output_shapes[0])}; {shown} must keep their size"
    for name, allowed in require.get("attr", {}).items():
        if name in node.attrs and node.attrs[name] not in allowed:
            return f"{name}={node.attrs[name]!r} (allowed: {', '.join(map(str, allowed))})"
    if "locale" in require:  # the locale the attribute names (onnxruntime's default without it), on this machine
        name = node.attrs.get(require["locale"])
        name = machine.ONNXRUNTIME_DEFAULT_LOCALE if not isinstance(name, str) else name
        whose = "onnxruntime's default" if node.attrs.get(require["locale"]) is None else f"attribute {require['locale']}"
        found = machine.installed(name)
        if found is None:
            return Unverified(f"locale {name!r} ({whose}): whether this machine has it is not probed on this platform "
                              "(only on glibc Linux)")
        if not found:
            return f"locale {name!r} ({whose}) is not installed on this machine"
    bindings = node.bindings()
    for constraint, allowed in require.get("types", {}).items():
        bad = bindings.get(constraint, set()) - set(allowed)
        if bad:
            return f"{constraint}={','.join(sorted(bad))} (allowed: {', '.join(allowed)})"
    if "same_types" in require:
        present = {node.input_types[i] for i in require["same_types"] if i < len(node.input_types) and node.input_types[i]}
        if len(present) > 1:
            return f"inputs of different types {', '.join(sorted(present))}"
    if "zero_input" in require:
        i = require["zero_input"]
        if i < len(node.inputs) and node.inputs[i]:
            value = node.constants[i]
            if value is None:
                return f"input {i} ({node.inputs[i]}) is not a constant"
            if isinstance(value, Unread):
                return Unverified(f"input {i} ({node.inputs[i]}) is {value!r}: check does not read its data "
                                  "(external data, or over 64 KiB): not verified")
            if np.any(value.astype(np.float64) != 0):
                return f"input {i} ({node.inputs[i]}) is not all zeros"
    for i in require.get("one_element", []):
        shape = node.input_shapes[i] if i < len(node.input_shapes) and node.inputs[i] else None
        if shape is not None and all(d is not None for d in shape) and int(np.prod(shape, dtype=np.int64)) != 1:
            return f"input {i} ({node.inputs[i]}) has shape {_shape(shape)}, not one element"
    for t in require.get("io_only", []):
        names = [n for n, nt in zip(node.inputs + list(node.node.output), node.input_types + node.output_types)
                 if nt == t and n not in view.graph_io and n not in view.constants]
        if names:
            return f"{t} tensor {names[0]} is neither a graph input nor a graph output"
    return None


def _unscaled(node: NodeView, axes) -> bool | None:
    """True/False when the Resize keeps dims ``axes``; None when the shapes are unknown."""
    src = node.input_shapes[0]
    dst = node.output_shapes[0] if node.output_shapes else None
    if src is None or dst is None or len(src) != len(dst):
        return None
    pairs = [(src[a], dst[a]) for a in axes if a < len(src)]
    if any(s is None or d is None for s, d in pairs):
        return None
    return all(s == d for s, d in pairs)


def _shape(shape) -> str:
    return "?" if shape is None else "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
