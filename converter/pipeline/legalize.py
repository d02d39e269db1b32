"""Host legalization: a target's deployment model, rewritten to run on onnxruntime's CPU EP with the target's arithmetic.

``convert --target tensorrt`` writes the deployment model: one node per source layer where onnx-tensorrt's
importer has one, in the source's types (float16 stays float16, CUBIC is one Resize). onnxruntime's CPU EP,
which ``validate`` runs when the target itself is not installed, lacks float16 kernels (and inserts its own
Casts, which it may merge across layers), rounds some NEAREST coordinates differently and runs linear/cubic
Resize on a few shapes only. ``host_model(model)`` returns a copy it runs, with the list of changes; the
deployment model is never changed. The rules, each with its reason (docs/deployment.md):

1. ``float16`` / ``bfloat16`` layer: computed in float32 (inputs Cast up, weights widened, exactly), rounded to
   the layer's type once at the layer's output: where TensorRT stores FP16 tensors. For tensorrt-dla, also
   after every node of the layer, and a BatchNormalization (IScaleLayer) is Mul, a rounding, then the shift:
   DLA rounds x * scale to FP16 before adding the shift.
2. NEAREST Resize whose indices onnxruntime's float32 coordinates get wrong (lowering/resize.py
   ``ort_nearest_exact``): one Gather per resized axis with the exact indices.
3. LINEAR / CUBIC Resize of a shape onnxruntime's Resize refuses (linear: rank 2, 3, or 4 / 5 with the outer
   two scales 1; cubic: rank 2 or 4 with the outer two scales 1): folded to [1, P, ...] between two Reshapes.
4.-6. (run-time shapes, empty tensors, Add/Sub of zero) and 7. (a Resize fed constant exact ``scales``: rules 2, 3
   and 5 with sizes a * s, else kept): docs/deployment.md.

Layers are found by the lowering's naming (converter/lowering/builder.py): a layer's nodes are named
``LAYER/Op_n`` and its last node ``LAYER``.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..dtypes import DTYPES
from ..lowering.builder import LoweringContext
from ..lowering.resize import lower, nearest_indices, ort_nearest_exact
from ..network import Layer, TensorType
from ..targets.target import resolve_target
from ..untrusted.infer import infer

LOW_FLOATS = (TensorProto.FLOAT16, TensorProto.BFLOAT16)
_NEAREST_ROUNDING = {"floor": "FLOOR", "ceil": "CEIL", "round_prefer_ceil": "HALF_UP", "round_prefer_floor": "HALF_DOWN"}
_TRANSFORM = {"asymmetric": ("ASYMMETRIC", "FORMULA"), "align_corners": ("ALIGN_CORNERS", "FORMULA"),
              "half_pixel": ("HALF_PIXEL", "FORMULA"), "pytorch_half_pixel": ("HALF_PIXEL", "UPPER")}
WHY_FLOAT16 = ("{t} computed in float32 and rounded to {t} at the layer's output, where TensorRT stores its tensors "
               "(the CPU EP has no {t} kernel for most ops)")
WHY_DLA = "DLA rounds to FP16 after every operation: x * scale is rounded before the shift is added"
WHY_NEAREST = "NEAREST: onnxruntime's float32 coordinates pick another index here: exact Gather indices"
WHY_DYNAMIC = ("{mode} to a run-time shape: the CPU EP's lowering of it (NEAREST: onnxruntime's Resize where the "
               "run's lengths pass the exactness rule, else exact indices; linear/cubic folded where onnxruntime needs it)")
WHY_EMPTY = "an empty input or output: no value to compute (onnxruntime refuses to resize a 0 length)"
WHY_NOOP = ("Add/Sub of a constant zero as Sum: onnxruntime's NoopElimination deletes Add(x, 0) / Sub(x, 0), "
            "but x + (+0) and x - (-0) turn -0 into +0")
WHY_FOLD = "{mode}: onnxruntime's Resize runs this rank/axes combination only folded to [1, P, ...]"


def host_model(model: onnx.ModelProto, *, dla: bool | None = None) -> tuple[onnx.ModelProto, list[str], int]:
    """(host model, changes as 'LAYER: why' lines, number of deployment nodes changed). ``dla``: the DLA
    rounding rule; default: the model's ``spec2onnx.target`` metadata says tensorrt-dla."""
    props = {p.key: p.value for p in model.metadata_props}
    if dla is None:
        dla = props.get("spec2onnx.target") == "tensorrt-dla"
    types = _types(model)
    inits = {t.name: t for t in model.graph.initializer}
    new_inits: list[TensorProto] = []
    nodes, changes, changed = [], [], 0
    for layer, group in _layer_groups(model.graph.node):
        rewritten, why = _legalize_layer(layer, group, types, inits, new_inits, dla)
        nodes.extend(rewritten)
        if why:
            changes.append(f"{layer}: {'; '.join(why)}")
            changed += len(group)
    host = onnx.ModelProto()
    host.CopyFrom(model)
    if not changes:
        return host, [], 0
    del host.graph.node[:]
    host.graph.node.extend(nodes)
    host.graph.initializer.extend(new_inits)
    del host.graph.value_info[:]
    props["spec2onnx.host"] = f"legalized copy, {changed} nodes changed"
    props["spec2onnx.host_changes"] = "\n".join(changes)
    del host.metadata_props[:]
    helper.set_model_props(host, props)
    return host, changes, changed


def _types(model) -> dict[str, tuple[int, tuple | None]]:
    """tensor -> (element type, shape with None for unknown dims, or None for unknown rank)."""
    inferred = infer(model)  # our own lowered model: no time limit
    out = {}
    for vi in list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output):
        t = vi.type.tensor_type
        shape = tuple(d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim) if t.HasField("shape") else None
        out[vi.name] = (t.elem_type, shape)
    for init in model.graph.initializer:
        out[init.name] = (init.data_type, tuple(init.dims))
    return out


def _layer_groups(nodes):
    """[(layer name, its nodes)]: a layer's last node is named after the layer, the others LAYER/Op_n."""
    groups, pending = [], []
    for node in nodes:
        if re.search(rf"/{re.escape(node.op_type)}_\d+$", node.name) and node.name in node.output:
            pending.append(node)
            continue
        groups.append((node.name, pending + [node]))
        pending = []
    if pending:
        groups.append((pending[-1].name, pending))
    return groups


def _legalize_layer(layer, group, types, inits, new_inits, dla):
    why = []
    out = []
    for node in group:
        replaced = None
        if node.op_type in ("Add", "Sub"):
            replaced = _noop_zero(node, inits, new_inits, why)
        if node.op_type == "Resize":
            replaced = _resize(node, types, inits, new_inits, why)
            if isinstance(replaced, tuple):  # (nodes, initializers) of a re-lowered node
                replaced, extra = replaced
                new_inits.extend(extra)
        out.extend(replaced if replaced is not None else [node])
    low = {types[n][0] for node in group for n in list(node.input) + list(node.output) if n in types} & set(LOW_FLOATS)
    already = any(n.op_type == "Cast" and n.input[0] in types and types[n.input[0]][0] in LOW_FLOATS for n in group)
    if low and not already and not all(n.op_type in ("Identity", "Reshape", "Gather") for n in out):
        low_type = low.pop()
        name = "float16" if low_type == TensorProto.FLOAT16 else "bfloat16"
        out = _in_float32(layer, out, types, inits, new_inits, low_type, dla)
        why.append(WHY_FLOAT16.format(t=name) + (f"; {WHY_DLA}" if dla else ""))
    return out, why


def _noop_zero(node, inits, new_inits, why):
    """Rule 6: Add(x, 0) / Sub(x, 0) with a one-element float zero, which onnxruntime's NoopElimination deletes
    (it compares with 0.0, so -0.0 too), although x + (+0) and x - (-0) turn -0 into +0: the same sum as a Sum,
    which it leaves alone (Sub: x + (-c), exact)."""
    consts = [numpy_helper.to_array(inits[i]) if i in inits else None for i in node.input]
    zero = [c is not None and c.size == 1 and c.dtype.kind == "f" and bool(np.all(c == 0)) for c in consts]
    if not (zero[1] or (node.op_type == "Add" and zero[0])):
        return None
    inputs = list(node.input)
    if node.op_type == "Sub":
        name = f"{node.name}/host_negated"
        new_inits.append(numpy_helper.from_array(-consts[1], name))
        inputs[1] = name
    why.append(WHY_NOOP)
    return [helper.make_node("Sum", inputs, list(node.output), name=node.name, doc_string=WHY_NOOP)]


def _resize(node, types, inits, new_inits, why):
    """The Resize ``node`` as onnxruntime's CPU EP computes it exactly (rules 2 to 5, 7), or None to keep it."""
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
    if node.input[0] not in types:
        return None
    if len(node.input) < 4 or not node.input[3]:
        return _resize_by_scales(node, attrs, types, inits, new_inits, why)
    if node.input[3] not in inits:
        return _resize_dynamic(node, attrs, types, why)
    shape = types[node.input[0]][1]
    if shape is None or None in shape:
        return None
    sizes = [int(v) for v in numpy_helper.to_array(inits[node.input[3]])]
    return _resize_static(node, attrs, types, shape, sizes, new_inits, why)


def _resize_by_scales(node, attrs, types, inits, new_inits, why):
    """Rule 7: a Resize fed constant ``scales`` (the deployment form where a * s = b exactly on every axis,
    lowering/resize.py ``exact_scales``): its sizes b = a * s, then rules 2, 3 and 5 as for ``sizes``. Kept as it is
    (with its scales) where no rule applies: with exact scales onnxruntime's coordinates are those of ``sizes``
    (its scale is then fl(b / a) = s). Scales that are not exact (not written by the lowering) are left alone."""
    if len(node.input) < 3 or node.input[2] not in inits:
        return None
    shape = types[node.input[0]][1]
    if shape is None:
        return None
    scales = numpy_helper.to_array(inits[node.input[2]]).astype(np.float32)
    if scales.shape != (len(shape),):
        return None
    if None in shape:  # a dynamic input (integer scales there: lowering/resize.py exact_scales): rule 4 with the scales
        return _resize_dynamic(node, attrs, types, why, scales=scales)
    sizes = [Fraction(float(s)) * a for a, s in zip(shape, scales)]
    if any(b.denominator != 1 for b in sizes):
        return None
    return _resize_static(node, attrs, types, shape, [int(b) for b in sizes], new_inits, why)


def _resize_static(node, attrs, types, shape, sizes, new_inits, why):
    """Rules 2, 3 and 5 for a Resize of the static ``shape`` to ``sizes``."""
    changed = [ax for ax, (a, b) in enumerate(zip(shape, sizes)) if a != b]
    if 0 in sizes or 0 in shape:  # rule 5: an empty output has no value to compute (onnxruntime refuses these)
        if not changed:
            why.append(WHY_EMPTY)
            return [helper.make_node("Identity", [node.input[0]], [node.output[0]], name=node.name, doc_string=WHY_EMPTY)]
        name = f"{node.name}/host_empty_shape"
        new_inits.append(numpy_helper.from_array(np.array(sizes, np.int64), name))
        zero = numpy_helper.from_array(np.zeros(1, helper.tensor_dtype_to_np_dtype(types[node.input[0]][0])))
        why.append(WHY_EMPTY)
        return [helper.make_node("ConstantOfShape", [name], [node.output[0]], name=node.name, value=zero, doc_string=WHY_EMPTY)]
    if not changed and 0 in shape:  # rule 5: onnxruntime refuses to resize an empty tensor; unchanged, it is the input
        why.append(WHY_EMPTY)
        return [helper.make_node("Identity", [node.input[0]], [node.output[0]], name=node.name, doc_string=WHY_EMPTY)]
    mode = attrs.get("mode", "nearest")
    transform, selector = _TRANSFORM[attrs.get("coordinate_transformation_mode", "half_pixel")]
    if mode == "nearest":
        layer_attrs = {"coordinate_transformation": transform, "selector_for_single_pixel": selector,
                       "nearest_rounding": _NEAREST_ROUNDING[attrs.get("nearest_mode", "round_prefer_floor")]}
        if all(ort_nearest_exact(shape[ax], sizes[ax], layer_attrs) for ax in changed):
            return None
        x, nodes = node.input[0], []
        for ax in sorted(changed, reverse=True):
            idx = nearest_indices(shape[ax], sizes[ax], transform, selector, layer_attrs["nearest_rounding"])
            name = f"{node.name}/host_indices_axis{ax}"
            new_inits.append(numpy_helper.from_array(idx, name))
            out = f"{node.name}/host_Gather_{ax}"
            nodes.append(helper.make_node("Gather", [x, name], [out], name=out, axis=ax, doc_string=WHY_NEAREST))
            x = out
        _rename_output(nodes[-1], node.output[0])
        why.append(WHY_NEAREST)
        return nodes
    rank = len(shape)
    # an unchanged shape is still checked: onnxruntime refuses a rank-1 (or rank-6) linear Resize even to its own size
    axes = changed or [rank - 1]
    if _ort_runs(mode, rank, axes):
        return None
    inner = rank - min(axes)
    width = 4 if (mode == "cubic" or inner <= 2) else 5
    pad = width - 2 - inner
    outer = int(np.prod(shape[: rank - inner], dtype=np.int64))
    folded_in = np.array([1, outer] + [1] * pad + list(shape[rank - inner:]), np.int64)
    folded_out = np.array([1, outer] + [1] * pad + list(sizes[rank - inner:]), np.int64)
    names = [f"{node.name}/host_{k}" for k in ("folded_shape", "folded_sizes", "output_shape")]
    for name, value in zip(names, (folded_in, folded_out, np.array(sizes, np.int64))):
        new_inits.append(numpy_helper.from_array(value, name))
    fold = WHY_FOLD.format(mode=mode)
    a, r = f"{node.name}/host_Reshape_in", f"{node.name}/host_Resize"
    resize = onnx.NodeProto()
    resize.CopyFrom(node)
    del resize.input[:]
    resize.input.extend([a, "", "", names[1]])
    _rename_output(resize, r)
    nodes = [helper.make_node("Reshape", [node.input[0], names[0]], [a], name=a, doc_string=fold), resize,
             helper.make_node("Reshape", [r, names[2]], [node.output[0]], name=node.name, doc_string=fold)]
    why.append(fold)
    return nodes


def _resize_dynamic(node, attrs, types, why, scales=None):
    """Rule 4: a Resize to a run-time shape, as the CPU EP's lowering writes it (exact NEAREST indices computed in
    the graph, linear/cubic folded): lowering/resize.py's own lowering for ort-cpu, of this one node. ``scales``:
    a Resize of a dynamic input by constant scales (its sizes floor(a * s) computed in the graph)."""
    elem, shape = types[node.input[0]]
    if shape is None:
        return None
    by_onnx = {d.onnx: d for d in DTYPES.values()}
    transform, selector = _TRANSFORM[attrs.get("coordinate_transformation_mode", "half_pixel")]
    mode = attrs.get("mode", "nearest").upper()
    layer_attrs = {"resize_mode": mode, "shape": None, "scales": scales, "coordinate_transformation": transform,
                   "selector_for_single_pixel": selector,
                   "nearest_rounding": _NEAREST_ROUNDING[attrs.get("nearest_mode", "round_prefer_floor")],
                   "cubic_coeff": float(attrs.get("cubic_coeff_a", -0.75))}
    x_type = TensorType(by_onnx[elem], shape)
    window = 2 if mode == "CUBIC" else min(3, len(shape))
    out_type = TensorType(by_onnx[elem], tuple(shape[: len(shape) - window]) + (None,) * window)
    if scales is None:
        layer = Layer(f"{node.output[0]}/host", "trt.Resize", (node.input[0], node.input[3]), layer_attrs)
        inputs = (x_type, TensorType(by_onnx[TensorProto.INT64], (len(shape),)))
    else:
        layer, inputs = Layer(f"{node.output[0]}/host", "trt.Resize", (node.input[0],), layer_attrs), (x_type,)
    ctx = LoweringContext(opset=13, provider="CPUExecutionProvider", target=resolve_target("ort-cpu"),
                          input_types=inputs, output_type=out_type, constant_inputs=(None,) * len(inputs))
    lowered = lower(layer, ctx)
    last = lowered.nodes[-1]
    last.output[list(last.output).index(layer.name)] = node.output[0]
    last.name = node.output[0]
    why.append(WHY_DYNAMIC.format(mode=mode))
    return lowered.nodes, lowered.initializers


def _ort_runs(mode: str, rank: int, changed) -> bool:
    """onnxruntime's Resize checks (upsamplebase.h, targets/profiles.py ORT_RESIZE) for sizes that change ``changed``."""
    if mode == "linear":
        return rank in (2, 3) or (rank == 4 and (min(changed) >= 2 or (max(changed) <= 2 and min(changed) >= 1))) or (
            rank == 5 and min(changed) >= 2)
    return rank == 2 or (rank == 4 and min(changed) >= 2)


def _rename_output(node, name: str) -> None:
    node.output[0] = name
    node.name = name


def _in_float32(layer, nodes, types, inits, new_inits, low_type, dla):
    """Rule 1: the layer's nodes computed in float32, its output rounded to ``low_type`` (and, for DLA, every
    node's output)."""
    produced = {o for n in nodes for o in n.output}
    widened, head, body = {}, [], []
    why = WHY_FLOAT16.format(t="float16" if low_type == TensorProto.FLOAT16 else "bfloat16")

    added = {t.name: t for t in new_inits}  # initializers an earlier rule made (a negated zero, indices)

    def wide(name: str) -> str:
        if not name or name in produced:
            return name
        source = inits.get(name) or added.get(name)
        dtype = types[name][0] if name in types else (source.data_type if source is not None else None)
        if dtype != low_type:
            return name
        if name not in widened:
            new = widened[name] = f"{layer}/host_float32_{len(widened)}"
            if source is not None:
                value = numpy_helper.to_array(source).astype(np.float32)  # exact
                new_inits.append(numpy_helper.from_array(value, new))
            else:
                head.append(helper.make_node("Cast", [name], [new], name=new, to=TensorProto.FLOAT, doc_string=why))
        return widened[name]

    last = nodes[-1]
    for original in nodes:
        node = _copy(original)
        for i, name in enumerate(node.input):
            node.input[i] = wide(name)
        for a in node.attribute:
            if node.op_type == "Cast" and a.name == "to" and a.i == low_type:
                a.i = TensorProto.FLOAT
        if dla and node.op_type == "BatchNormalization":
            body.extend(bn := _dla_batch_norm(node, inits, new_inits, low_type, _rank(types, original.input[0]),
                                        {v: k for k, v in widened.items()}))
            if bn[-1].output[0] != layer:
                body.extend(_round_trip(bn[-1], low_type))
            continue
        body.append(node)
        if dla and node.output[0] != layer and types.get(node.output[0], (None,))[0] == low_type:
            body.extend(_round_trip(node, low_type))
    final = body[-1]
    if types.get(last.output[0], (None,))[0] == low_type and final.output[0] == layer:
        wide_out = f"{layer}/host_float32_out"
        final.output[0] = wide_out
        final.name = wide_out
        body.append(helper.make_node("Cast", [wide_out], [layer], name=layer, to=low_type,
                                     doc_string=f"round to the layer's type at its output: {why}"))
    return head + body


def _rank(types, name: str) -> int:
    shape = types.get(name, (None, None))[1]
    return 4 if shape is None else len(shape)


def _copy(node):
    new = onnx.NodeProto()
    new.CopyFrom(node)
    return new


def _round_trip(node, low_type):
    """Round ``node``'s float32 output to ``low_type`` and back (exact widening), under the output's old name."""
    out = node.output[0]
    raw, low = f"{out}/host_raw", f"{out}/host_rounded"
    node.output[0] = raw
    node.name = raw
    return [helper.make_node("Cast", [raw], [low], name=low, to=low_type, doc_string=WHY_DLA),
            helper.make_node("Cast", [low], [out], name=out, to=TensorProto.FLOAT, doc_string=WHY_DLA)]


def _dla_batch_norm(node, inits, new_inits, low_type, rank: int, sources: dict):
    """BatchNormalization(x, scale, shift, mean 0, variance 1, epsilon 0) as DLA computes it: x * scale rounded
    to FP16, then + shift. (The lowering writes BatchNormalization only with mean 0 and variance 1.)"""
    x, out = node.input[0], node.output[0]
    names = []
    for key, name in (("scale", node.input[1]), ("shift", node.input[2])):
        value = numpy_helper.to_array(inits[sources.get(name, name)]).astype(np.float32)
        names.append(f"{out}/host_{key}_per_channel")
        new_inits.append(numpy_helper.from_array(value.reshape((-1,) + (1,) * (rank - 2)), names[-1]))
    product = f"{out}/host_Mul"
    mul = helper.make_node("Mul", [x, names[0]], [product], name=product, doc_string=WHY_DLA)
    rounded = _round_trip(mul, low_type)
    return [mul, *rounded, helper.make_node("Sum", [product, names[1]], [out], name=out, doc_string=WHY_DLA)]
