"""The DLA rules of the tensorrt-dla target, in one place: for specs (before lowering) and for ONNX nodes.

Sources: the TensorRT operator pages in the seeds (shared/seeds/): Scale "DLA Support" (DLA FP16 and
DLA INT8; custom power values are not supported), ElementWise "DLA 支持" (POW with exactly one
constant input; DIV, EQUAL, GREATER, LESS with at most one constant input; comparisons broadcast only
as NCHW, NC11 or N111), Resize "DLA 支持" (DLA FP16 and INT8; the parameter combinations below).
The list of ElementWise operations DLA runs at all is not in the seeds; it is TensorRT's DLA
supported-layers list (Sum, Sub, Product, Max, Min, Div, Pow, Equal, Greater, Less).
"""

from __future__ import annotations

import numpy as np

from ..brief import brief
from ..errors import TargetRuleError
from ..registry import layer_kind


class DlaRuleError(TargetRuleError):
    """A tensorrt-dla spec that breaks a DLA rule: refused before lowering (exit status 2)."""


DLA_DTYPES = ("float16", "int8")  # the types DLA runs as they are typed (FP16, INT8); float32: see precision_problem
ELEMENTWISE_OPS = ("SUM", "SUB", "PROD", "MAX", "MIN", "DIV", "POWER", "EQUAL", "GREATER", "LESS")
COMPARISONS = ("EQUAL", "GREATER", "LESS")
CONSTANT_INPUTS = {"POWER": (1, 1), "DIV": (0, 1), "EQUAL": (0, 1), "GREATER": (0, 1), "LESS": (0, 1)}  # (min, max)
RESIZE_COMBINATIONS = {  # resize_mode -> allowed (coordinate_transformation, selector_for_single_pixel, nearest_rounding)
    "NEAREST": [("ASYMMETRIC", "FORMULA", "FLOOR"), ("HALF_PIXEL", "FORMULA", "HALF_DOWN"), ("HALF_PIXEL", "FORMULA", "HALF_UP")],
    "LINEAR": [("HALF_PIXEL", "FORMULA", None), ("HALF_PIXEL", "UPPER", None)],
    "CUBIC": [],
}

# The same rules on ONNX nodes (onnx-tensorrt maps BatchNormalization to IScaleLayer, the binary ops to
# IElementWiseLayer, Resize to IResizeLayer with pytorch_half_pixel as HALF_PIXEL + UPPER).
NODE_OPS = {"BatchNormalization": None, "Add": "SUM", "Sub": "SUB", "Mul": "PROD", "Max": "MAX", "Min": "MIN",
            "Div": "DIV", "Pow": "POWER", "Equal": "EQUAL", "Greater": "GREATER", "Less": "LESS", "Resize": None,
            "QuantizeLinear": None, "DequantizeLinear": None}
NODE_RESIZE = {  # mode -> allowed (coordinate_transformation_mode, nearest_mode or None)
    "nearest": [("asymmetric", "floor"), ("half_pixel", "round_prefer_floor"), ("half_pixel", "round_prefer_ceil")],
    "linear": [("half_pixel", None), ("pytorch_half_pixel", None)],
}


def precision_problem(dtype: str, precision) -> str | None:
    """THE rule of which tensor types run on DLA, for the builder, ``convert`` and ``check`` alike: why DLA cannot
    run a tensor of ``dtype`` (a spec type name; ONNX's ``float`` is float32) when the build allows ``precision``
    (a collection of targets.PRECISIONS: "fp16", "int8"), or None.

    DLA computes in FP16 and INT8 only (NVIDIA TensorRT Developer Guide, "Working with DLA": "DLA support is
    currently limited to networks running in FP16 or INT8 mode"; the seeds' "DLA Support": DLA FP16, DLA INT8).
    A float16 tensor runs in FP16 and an int8 tensor (its scale: dynamic_range) in INT8, as typed. A float32 tensor
    runs there in FP16 when the build allows FP16 -- TensorRT's BuilderFlag.FP16, ``--fp16`` as trtexec's, a spec's
    ``precision: [fp16]`` --; the model keeps float32 (trtexec --fp16 takes a float32 ONNX model and TensorRT
    computes it in FP16). Nothing allows it by default: the Python API sets no flag itself, and float32 results
    computed in FP16 are what the user asks for (trtexec --useDLACore sets FP16 by itself unless --int8,
    samples/common/sampleEngines.cpp: ``if (!build.int8) config.setFlag(BuilderFlag::kFP16)``; spec2onnx asks for
    it to be said). INT8 alone does not run float32 here: TensorRT would need calibration scales for it, which
    spec2onnx does not model. docs/semantics.md, "DLA precision".
    """
    dtype = "float32" if dtype == "float" else dtype
    if dtype in DLA_DTYPES:
        return None
    if dtype != "float32":
        return f"{dtype}; tensorrt-dla runs FP16 and INT8 only (DLA Support)"
    if "fp16" in precision:
        return None
    return ("float32; tensorrt-dla runs FP16 and INT8 only (DLA Support): float32 runs there in FP16 when the build "
            "allows FP16 (--fp16 as trtexec's, precision: [fp16], BuilderFlag.FP16)"
            + (" -- INT8 alone needs calibration scales for float32, which spec2onnx does not model" if "int8" in precision else ""))


def layer_refusal(spec, layer, where: str, precision=()) -> None:
    """Raise DlaRuleError, naming the field and the DLA rule, when DLA cannot run ``layer`` (a spec layer) under
    ``precision``: its tensors' types (precision_problem), then its kind's rules (its registration's
    ``target_rules["tensorrt-dla"]``, converter/registry.py: the functions below, named by the kind's family)."""
    net = spec.network
    for tensor in tuple(layer.inputs) + (layer.name,):
        dtype = net.types[tensor].dtype.name
        if tensor == layer.name and dtype == "bool" and layer.attrs.get("operation") in COMPARISONS:
            continue  # a comparison's result
        why = precision_problem(dtype, precision)
        if why is not None:
            raise DlaRuleError(f"tensor {tensor!r} is {why}", file=str(spec.path), field=where)
    rule = layer_kind(layer.op).target_rules.get("tensorrt-dla")
    if rule is not None:
        rule(spec, layer, where)


def refuse_layers(spec, precision=()) -> None:
    """Raise DlaRuleError, naming the field and the DLA rule, for a dynamic dimension (refuse_dynamic), then for the
    first layer DLA cannot run."""
    refuse_dynamic(spec)
    for layer in spec.network.layers:
        layer_refusal(spec, layer, layer.field or f"network.layers[{layer.name}]", precision)


GENERAL_RESTRICTIONS = "NVIDIA TensorRT guide, DLA Supported Layers and Restrictions, General Restrictions"
DYNAMIC_RULE = ("DLA does not support dynamic dimensions, so the profile's min, opt and max must be equal for wildcard "
                f"dimensions ({GENERAL_RESTRICTIONS})")
# What TensorRT's builder logs for a network with layers on DLA and a profile whose min, opt and max differ (then it
# runs every DLA layer on the GPU with GPU_FALLBACK, and fails the build without it), as quoted from a TensorRT 10
# build log in marcoslucianops/DeepStream-Yolo#599: "DLA requests all profiles have same min, max, and opt value.
# All dla layers are falling back to GPU".
TRT_DYNAMIC_MESSAGE = "DLA requests all profiles have same min, max, and opt value"


def refuse_dynamic(spec) -> None:
    """DLA runs no dynamic dimension: "DLA does not support dynamic dimensions, so the profile's min, max, and opt
    values must be equal for wildcard dimensions" (GENERAL_RESTRICTIONS). A shape input's values likewise."""
    net = spec.network
    for i, profile in enumerate(net.profiles):
        for name, (low, opt, high) in profile.items():
            for j, corner in enumerate(zip(low, opt, high)):
                if len(set(corner)) > 1:
                    label = f"value {j}" if name in net.shape_inputs else f"dimension {j}"
                    symbol = net.inputs[name].name(j) if name not in net.shape_inputs else None
                    label += f" ({symbol!r})" if symbol else ""
                    raise DlaRuleError(f"{label} is min/opt/max {'/'.join(map(str, corner))}: {DYNAMIC_RULE}",
                                       file=str(spec.path), field=f"network.profiles[{i}].{name}")


def check_scale(spec, layer, where: str) -> None:
    power = np.asarray(layer.attrs.get("power", []))
    if power.size and np.any(power != 1):
        raise DlaRuleError(f"power {brief(power)}: DLA does not support custom power values (Scale, DLA Support)",
                        file=str(spec.path), field=f"{where}.power")


def check_elementwise(spec, layer, where: str) -> None:
    net, op = spec.network, layer.attrs["operation"]
    if op not in ELEMENTWISE_OPS:
        raise DlaRuleError(f"operation {op}: DLA runs {', '.join(ELEMENTWISE_OPS)} only", file=str(spec.path),
                        field=f"{where}.operation")
    if op in CONSTANT_INPUTS:
        low, high = CONSTANT_INPUTS[op]
        constants = sum(_constant(net, t) for t in layer.inputs)
        if not low <= constants <= high:
            rule = "exactly one input" if low == high else "at most one input"
            raise DlaRuleError(f"operation {op} with {constants} constant inputs: DLA needs {rule} constant (ElementWise, DLA Support)",
                            file=str(spec.path), field=f"{where}.inputs")
    if op in COMPARISONS:
        a, b = (net.types[t].shape for t in layer.inputs)
        if not _dla_broadcast(a, b):
            raise DlaRuleError(f"shapes {list(a)} and {list(b)}: DLA comparisons broadcast only as NCHW, NC11 or N111",
                            file=str(spec.path), field=f"{where}.inputs")


def _constant(net, tensor: str) -> bool:
    """A constant input in the seed's sense: a network constant, or a dml.DequantizeLinear of constants (TensorRT
    folds it into a constant: an INT8 weight with its scale)."""
    if tensor in net.constants:
        return True
    producer = next((layer for layer in net.layers if layer.name == tensor), None)
    return producer is not None and producer.op == "dml.DequantizeLinear" and all(
        _constant(net, t) for t in producer.inputs)


def check_strides(spec, layer, where: str, *, roles) -> None:
    """A strided network-input buffer is viewed at run time by Reshape/Gather (converter/lowering/strides.py),
    which have no DLA layer; a constant one is read through its strides at conversion. ``roles``: the
    strided input's index per role (strides.ROLES, given by the kind's registration)."""
    ROLES = roles
    for role in layer.attrs.get("strides") or {}:
        if layer.inputs[ROLES[role]] not in spec.network.constants:
            raise DlaRuleError(f"strides on the run-time {role} {layer.inputs[ROLES[role]]!r}: its view needs Reshape or "
                               "Gather, which DLA has no layer for (a constant buffer is read at conversion)",
                               file=str(spec.path), field=f"{where}.strides.{role}")


def check_resize(spec, layer, where: str) -> None:
    mode = layer.attrs["resize_mode"]
    combo = (layer.attrs["coordinate_transformation"], layer.attrs["selector_for_single_pixel"],
             layer.attrs["nearest_rounding"] if mode == "NEAREST" else None)
    allowed = RESIZE_COMBINATIONS.get(mode, [])
    if combo not in allowed:
        shown = "; ".join("/".join(v for v in c if v) for c in allowed) or "none"
        raise DlaRuleError(f"resize_mode {mode} with {'/'.join(v for v in combo if v)}: DLA supports {shown} (Resize, DLA Support)",
                        file=str(spec.path), field=where)


def _dla_broadcast(a, b) -> bool:
    if len(a) != 4 or len(b) != 4 or None in a or None in b:
        return False
    big, small = (a, b) if np.prod(a) >= np.prod(b) else (b, a)
    return tuple(small) in (tuple(big), (big[0], big[1], 1, 1), (big[0], 1, 1, 1))


def _dequantized_constant(name: str, view) -> bool:
    """An input made by a DequantizeLinear of constants: TensorRT folds it into a constant (an INT8 weight)."""
    producer = next((n for n in view.model.graph.node if name in n.output), None)
    return producer is not None and producer.op_type == "DequantizeLinear" and all(
        not i or i in view.constants for i in producer.input)


def node_problems(node, view, precision=()) -> list[str]:
    """The DLA rules ``node`` (a model_view.NodeView) breaks when the build allows ``precision``: the precision rule
    for every node, the seeds' layer rules for the seed layers' ops."""
    problems = []
    io = getattr(view, "graph_io", ())
    for name, dtype, const in zip(node.inputs, node.input_types, node.constants):
        if not name or const is not None or not dtype:
            continue
        if dtype == "float" and name not in io:
            # float32 the model computes inside: the types it declares are its inputs' and outputs' (a float32
            # graph input needs FP16 allowed, below); inside, float32 is an int8 or float16 lowering's working type
            # (DequantizeLinear ... QuantizeLinear, which TensorRT fuses into INT8 layers), read as the model's
            continue
        if node.op not in NODE_OPS and dtype not in ("float", "float32"):
            continue  # another type on another op: NVIDIA's DLA guide decides (dla_guide.py, "GPU fallback" warnings)
        why = precision_problem(dtype, precision)
        if why is not None:
            problems.append(f"input {name} is {why}")
    if node.op not in NODE_OPS:
        return problems  # not a seed layer: NVIDIA's DLA guide decides the rest (dla_guide.py)
    operation = NODE_OPS[node.op]
    if operation in CONSTANT_INPUTS:
        low, high = CONSTANT_INPUTS[operation]
        constants = sum(c is not None or _dequantized_constant(name, view) for name, c in zip(node.inputs, node.constants))
        if not low <= constants <= high:
            problems.append(f"{constants} constant inputs; DLA needs {'exactly one' if low == high else 'at most one'}")
    if operation in COMPARISONS and None not in node.input_shapes[:2]:
        a, b = node.input_shapes[:2]
        if not _dla_broadcast(a, b):
            problems.append(f"shapes {list(a)} and {list(b)}: DLA comparisons broadcast only as NCHW, NC11 or N111")
    if node.op == "Resize":
        from .attributes import string_attr  # start-up time: attributes imports onnx; the spec rules above need none

        mode = string_attr(node, "mode")
        combo = (string_attr(node, "coordinate_transformation_mode"),
                 string_attr(node, "nearest_mode") if mode == "nearest" else None)
        if combo not in NODE_RESIZE.get(mode, []):
            problems.append(f"mode {mode} with {'/'.join(v for v in combo if v)}: not a DLA Resize combination")
    return problems
