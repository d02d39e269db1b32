"""Evaluating the run-time limits of converter/targets/profiles.py against one node."""

from __future__ import annotations

import numpy as np

from . import machine
from .attributes import axis as normal_axis
from .attributes import ints_attr, is_set, string_attr, value_attr
from .model_view import ModelView, NodeView, Unread


class Unverified(str):
    """A requirement that cannot be told: it reads a constant whose data was not read (external data,
    or a large initializer of an untrusted file). Reported as a warning, not as a refusal."""


def applies(limit: dict, node: NodeView) -> bool:
    ops = limit["op"]
    if ops != "*" and node.op not in ([ops] if isinstance(ops, str) else ops):
        return False
    if ops != "*" and node.node.domain not in ("", "ai.onnx") and limit.get("domain") != node.node.domain:
        return False  # a limit names an ai.onnx op (its "domain" another): com.microsoft's Attention is another op
    when = limit.get("when", {})
    if "since_min" in when and (node.since is None or node.since < when["since_min"]):
        return False
    for i, bound in when.get("rank_gt", {}).items():  # the input is given and its rank known and above the bound
        rank = _given_rank(node, int(i))
        if rank is None or rank <= bound:
            return False
    for i, ranks in when.get("rank_in", {}).items():
        if _given_rank(node, int(i)) not in ranks:
            return False
    for i in when.get("unknown_rank", ()):  # the input is given, and its rank is unknown
        if i >= len(node.inputs) or not node.inputs[i] or _given_rank(node, i) is not None:
            return False
    for name, values in when.get("attr", {}).items():
        if value_attr(node, name) not in values:
            return False
    for name, bound in when.get("attr_gt", {}).items():
        value = value_attr(node, name)
        if not (type(value) in (int, float) and value > bound):
            return False
    for name in when.get("attr_nonzero", ()):
        if value_attr(node, name, 0) in (0, None):
            return False
    if "attr_present" in when and not any(is_set(node, name) for name in when["attr_present"]):
        return False
    for name in when.get("attr_nonempty", ()):
        value = value_attr(node, name)
        if not isinstance(value, list) or not value:
            return False
    for i in when.get("not_constant", ()):  # the input is given, and its value is known only at run time
        if i >= len(node.inputs) or not node.inputs[i] or node.constants[i] is not None:
            return False
    for key, names in (("inputs_present", node.inputs), ("outputs_present", list(node.node.output))):
        if key in when and not any(i < len(names) and names[i] for i in when[key]):
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
        value = value_attr(node, name)
        if value is not None and value not in allowed:
            return f"{name}={value!r} (allowed: {', '.join(map(str, allowed))})"
    if "locale" in require:  # the locale the attribute names (onnxruntime's default without it), on this machine
        given = string_attr(node, require["locale"])
        name = machine.ONNXRUNTIME_DEFAULT_LOCALE if given is None else given
        whose = "onnxruntime's default" if given is None else f"attribute {require['locale']}"
        found = machine.installed(name)
        if found is None:
            return Unverified(f"locale {name!r} ({whose}): whether this machine has it is not probed on this platform "
                              "(only on glibc Linux)")
        if not found:
            return f"locale {name!r} ({whose}) is not installed on this machine"
    for name, allowed in require.get("attr_prefix", {}).items():
        value = value_attr(node, name)
        if isinstance(value, list):
            given = [str(v).lower() for v in value]
            if given != [a.lower() for a in allowed[:len(given)]]:
                return f"{name}={value!r} (allowed: the first {len(given)} of {', '.join(allowed)})"
    for name in require.get("symmetric", []):
        value = value_attr(node, name)
        if isinstance(value, list) and value[:len(value) // 2] != value[len(value) // 2:]:
            return f"{name}={value!r} (allowed: each begin equal to its end)"
    if "value_kinds" in require:
        kinds = _kinds(view, [n for n in node.inputs + list(node.node.output) if n])
        bad = sorted({k for k in kinds.values() if k not in require["value_kinds"]})
        if bad:
            return f"a {bad[0].replace('_type', '')} value ({next(n for n, k in kinds.items() if k == bad[0])})"
    if "dim_sum" in require:
        why = _dim_sum(node, *require["dim_sum"])
        if why:
            return why
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
    for i in require.get("static", []):  # given: its rank and every dimension known (a dim_param or unknown one is not)
        if i < len(node.inputs) and node.inputs[i]:
            shape = node.input_shapes[i] if i < len(node.input_shapes) else None
            if shape is None or None in shape:
                return f"input {i} ({node.inputs[i]}) has the dynamic shape {_shape(shape)}"
    if require.get("resize_scales"):
        why = _resize_scales(node, require["resize_scales"])
        if why:
            return why
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


def _given_rank(node: NodeView, i: int) -> int | None:
    """Input ``i``'s rank; None when it is absent or its rank unknown."""
    if i >= len(node.inputs) or not node.inputs[i]:
        return None
    return node.rank(i)


def _resize_scales(node: NodeView, given: str) -> str | None:
    """Why onnxruntime's Resize (upsamplebase.h, shared by the CPU and CUDA kernels) refuses the node's constant scales
    (``given`` "scales") or sizes ("sizes"), or None. Constant scales: each must be > 0 (ScalesValidation, when the
    kernel is made). Constant sizes (scales absent or empty): each resized axis's scale is size / input length, 1 for
    a 0-long axis resized to 0; a 0-long axis resized to another length fails first
    (ParseScalesDataAndAdjustOutputSize), then keep_aspect_ratio_policy makes every scale the least (not_larger) or
    the greatest (not_smaller) of them, then each must be > 0 (ScalesValidation, when the node runs). An input length
    check does not know decides nothing (a size 0 there is told at run time), but a negative size is refused whatever
    the length."""
    scales_at, sizes_at = (1, None) if node.since == 10 else (2, 3)
    scales = node.constants[scales_at] if scales_at < len(node.inputs) and node.inputs[scales_at] else None
    if isinstance(scales, Unread):  # which of scales and sizes is used is not known either
        if given != "scales":
            return None
        return Unverified(f"scales ({node.inputs[scales_at]}) is {scales!r}: check does not read its data (external "
                          "data, or over 64 KiB): not verified")
    if scales is not None and scales.size:  # the scales are used, not the sizes
        if given != "scales":
            return None
        values = [float(v) for v in np.ravel(scales)]
        bad = next((i for i, v in enumerate(values) if not v > 0), None)
        return None if bad is None else f"scales {_numbers(values)} hold {values[bad]:g} at {bad}"
    if given != "sizes" or sizes_at is None or sizes_at >= len(node.inputs) or not node.inputs[sizes_at]:
        return None
    sizes = node.constants[sizes_at]
    if sizes is None:
        return None  # computed at run time
    if isinstance(sizes, Unread):
        return Unverified(f"sizes ({node.inputs[sizes_at]}) is {sizes!r}: check does not read its data (external "
                          "data, or over 64 KiB): not verified")
    sizes = [int(v) for v in np.ravel(sizes)]
    shape = node.input_shapes[0] if node.input_shapes else None
    rank = None if shape is None else len(shape)
    axes = ints_attr(node, "axes") or None
    if axes is None:
        axes = list(range(len(sizes)))
    if len(axes) != len(sizes):
        return None  # onnx's inference refuses it (the validation pass)
    policy = string_attr(node, "keep_aspect_ratio_policy", "stretch")
    shown = f"sizes {_numbers(sizes)}" + (f" (axes {_numbers(axes)})" if ints_attr(node, "axes") else "")
    shown += f" on input {_shape(shape)}"
    kinds = []  # per entry: (axis, input length or None, size, "positive" | "not positive" | "unknown")
    for a, s in zip(axes, sizes):
        at = normal_axis(a, rank)
        d = None if at is None else shape[at]
        if d == 0 and s != 0:
            return (f"{shown}: axis {at} is 0 long, resized to {s} ('Input dim is zero but required output dim is "
                    "non-zero')")
        if s < 0 or (d is not None and d > 0 and s == 0):
            kinds.append((a if at is None else at, d, s, "not positive"))
        else:
            kinds.append((a if at is None else at, d, s, "unknown" if d is None and s == 0 else "positive"))
    bad = [k for k in kinds if k[3] == "not positive"]
    if not bad or (policy == "not_smaller" and len(bad) < len(kinds)):
        return None
    a, d, s, _ = bad[0]
    scale = f"scale {s}/{d}" if d is not None else f"a negative size {s}"
    if policy in ("not_larger", "not_smaller"):
        which = "least" if policy == "not_larger" else "greatest"
        return (f"{shown}, keep_aspect_ratio_policy {policy}: the {which} scale is not > 0 (axis {a}: {scale}) "
                "('Scale value should be greater than 0')")
    return f"{shown}: axis {a} gets {scale}, not > 0 ('Scale value should be greater than 0')"


def _numbers(values) -> str:
    return "[" + ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values) + "]"


def _kinds(view: ModelView, names: list[str]) -> dict[str, str]:
    """name -> the kind of its type (tensor_type, sequence_type, optional_type, ...) where the graph declares or infers it."""
    wanted, found = set(names), {}
    graph = view.graph
    for infos in (graph.input, graph.output, graph.value_info):
        for info in infos:
            if info.name in wanted and info.type.WhichOneof("value"):
                found[info.name] = info.type.WhichOneof("value")
    return found


def _dim(node: NodeView, i: int, axis: int) -> int | None:
    """Input ``i``'s dimension ``axis`` (negative: from the end); 0 for an absent input; None when unknown."""
    if i >= len(node.inputs) or not node.inputs[i]:
        return 0
    shape = node.input_shapes[i]
    if shape is None or not -len(shape) <= axis < len(shape):
        return None
    return shape[axis]


def _dim_sum(node: NodeView, total, parts) -> str | None:
    """Why input ``total[0]``'s dimension ``total[1]`` differs from the sum of the ``parts`` ([input, axis] each,
    an absent input counting 0); None when they agree or a dimension is unknown (then nothing is told)."""
    want = _dim(node, *total)
    dims = [_dim(node, *part) for part in parts]
    if not want or None in dims:  # an absent or unknown total, or an unknown part: not checked
        return None
    if want == sum(dims):
        return None
    shown = " + ".join(f"{node.inputs[i]} dim {a} ({d})" for (i, a), d in zip(parts, dims) if _dim(node, i, 0) != 0)
    return f"{node.inputs[total[0]]} dim {total[1]} is {want}, not {shown} = {sum(dims)}"


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
