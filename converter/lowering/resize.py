"""trt.Resize (TensorRT IResizeLayer): nearest, linear and cubic resizing of the innermost dimensions.

Seed: shared/seeds/003. Output size from ``shape``, ``scales`` (b_i = floor(a_i * scales_i)) or a
second input at run time; coordinates use TensorRT's length ratio L_in / L_out. NEAREST lowers to one
ONNX ``Resize`` where onnxruntime's float32 coordinates give the exact indices (``ort_nearest_exact``; for a
run-time shape on onnxruntime, decided per run by an ``If``), else to exact ``Gather``s; LINEAR/CUBIC to a
real ONNX ``Resize`` (folded to [1, P, H, W] where onnxruntime needs it; int8 and float16 in float32), CUBIC
for TensorRT to Gather taps. What each
target (``ctx.target``) runs decides int8 handling and the cubic form. Every choice and its source:
docs/semantics.md, "trt.Resize".
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..brief import brief
from ..compare import Tolerance
from ..dtypes import FLOAT16, FLOAT32, INT8, INT32, INT64
from ..errors import SpecError
from ..network import MAX_ELEMENTS, Layer, TensorType, tensor_type
from ..registry import BuilderHook, LayerKind, register_layer
from ..targets import dla
from ..schema import Enum, Number, NumberArray, Scales, per_dimension
from .builder import Lowered, LoweringContext, NodeBuilder
from .scale import to_int8

MODES = ("NEAREST", "LINEAR", "CUBIC")
TRANSFORMS = ("ALIGN_CORNERS", "ASYMMETRIC", "HALF_PIXEL")
SELECTORS = ("FORMULA", "UPPER")
ROUNDINGS = ("HALF_UP", "HALF_DOWN", "FLOOR", "CEIL")
TYPES = (INT8, FLOAT16, FLOAT32)
SHAPE_TYPES = (INT32, INT64)
_ONNX_TRANSFORM = {"ASYMMETRIC": "asymmetric", "ALIGN_CORNERS": "align_corners", "HALF_PIXEL": "half_pixel"}

ATTRIBUTES = {
    "resize_mode": Enum("interpolation: nearest neighbor, (bi/tri)linear, bicubic", default="NEAREST", choices=MODES),
    "shape": NumberArray("output shape, one value per input dimension", default=None, integer=True),
    "scales": Scales("per-dimension scales: b_i = floor(a_i * scales_i)", default=None),
    "coordinate_transformation": Enum("how an output coordinate maps back to the input", default="ASYMMETRIC", choices=TRANSFORMS),
    "selector_for_single_pixel": Enum("an output length of 1: the formula, or the upper-left pixel", default="FORMULA", choices=SELECTORS),
    "nearest_rounding": Enum("rounding of NEAREST coordinates", default="FLOOR", choices=ROUNDINGS),
    "cubic_coeff": Number("coefficient A of the Keys cubic kernel (CUBIC)", default=-0.75),
}


def window(mode: str, rank: int) -> int:
    """How many innermost dimensions the mode may resize."""
    return 2 if mode == "CUBIC" else min(3, rank)


def scaled_dim(a: int, s: float) -> int:
    """floor(a * s) with a and s as float32 (onnxruntime's rule for scales; a scale of 1 keeps a exactly)."""
    with np.errstate(over="ignore"):
        b = np.floor(np.float32(a) * np.float32(s))
    return a if s == 1.0 else int(min(b, 2.0**62))  # an overflow to inf is just "too many elements"


def check(layer: Layer, in_types) -> TensorType:
    x = in_types[0]
    attrs, inputs = layer.attrs, layer.inputs
    mode = attrs["resize_mode"]
    if x.dtype not in TYPES:
        raise SpecError(f"input {inputs[0]!r} is {x.dtype}; trt.Resize allows {', '.join(t.name for t in TYPES)}", field="inputs[0]")
    if x.rank == 0:
        raise SpecError(f"input {inputs[0]!r} is a scalar; trt.Resize needs rank >= 1", field="inputs[0]")
    if mode == "CUBIC" and x.rank < 2:
        raise SpecError(f"CUBIC resizes the innermost 2 dimensions and needs rank >= 2; input {inputs[0]!r} has rank {x.rank}", field="resize_mode")
    if x.size is not None and x.size > MAX_ELEMENTS:
        raise SpecError(f"input {inputs[0]!r} has {x.size} elements, above TensorRT's 2^31 limit", field="inputs[0]")
    given = [k for k in ("shape", "scales") if attrs[k] is not None]
    if len(given) == 2:
        raise SpecError("give either shape or scales, not both", field="scales")
    if len(inputs) == 2:
        if given:
            raise SpecError(f"{given[0]} cannot be combined with the shape input {inputs[1]!r}; give one of them", field=given[0])
        return _check_shape_input(layer, x, in_types[1])
    if not given:
        raise SpecError("trt.Resize needs the output size: shape, scales, or a second input holding the shape", field="shape")
    key = given[0]
    values = attrs[key]
    if key == "scales" and values.ndim == 0:
        if x.rank < 3:
            raise SpecError(f"one number scales dimensions 2.. of an [N, C, ...] input; the rank-{x.rank} input "
                            f"needs a list of {x.rank} scales", field=key)
        values = per_dimension(values, x.rank)
    if values.ndim != 1 or values.size != x.rank:
        got = values.size if values.ndim == 1 else f"a nested list of shape {list(values.shape)}"
        raise SpecError(f"needs {x.rank} values (one per dimension of the rank-{x.rank} input), got {got}", field=key)
    if np.any(values < 0):
        raise SpecError(f"{brief(values)} has a negative {'dimension' if key == 'shape' else 'scale'}", field=key)
    out = [int(v) for v in values] if key == "shape" else [None if a is None else scaled_dim(a, float(s)) for a, s in zip(x.shape, values)]
    _check_resized_axes(layer, x, out, key)
    # a dynamic dimension scaled by exactly 1 is the input's own (its name kept); scaled otherwise, a new unknown one
    names = [x.name(ax) if key == "scales" and float(values[ax]) == 1.0 else None for ax in range(x.rank)]
    out_type = tensor_type(x.dtype, out, names)
    if out_type.size is not None and out_type.size > MAX_ELEMENTS:
        raise SpecError(f"the output {list(out)} has {out_type.size} elements, above TensorRT's 2^31 limit", field=key)
    return out_type


def _check_shape_input(layer: Layer, x: TensorType, s: TensorType) -> TensorType:
    name = layer.inputs[1]
    if s.dtype not in SHAPE_TYPES:
        raise SpecError(f"shape input {name!r} is {s.dtype}; it must be int32 or int64", field="inputs[1]")
    if s.shape != (x.rank,):
        raise SpecError(f"shape input {name!r} is {s}; it must have shape [{x.rank}] (one value per input dimension)", field="inputs[1]")
    w = window(layer.attrs["resize_mode"], x.rank)
    return tensor_type(x.dtype, tuple(x.shape[: x.rank - w]) + (None,) * w, [x.name(ax) for ax in range(x.rank - w)])


def check_values(layer: Layer, in_types, values) -> TensorType:
    """``check`` where the shape input's value is known (a case's, or a profile's min/opt/max values): the output
    shape is that value, checked as the ``shape`` attribute is (one value per dimension, none negative, only the
    mode's innermost dimensions changed, within 2^31 elements)."""
    out_type = check(layer, in_types)
    if len(layer.inputs) < 2 or values[1] is None:
        return out_type
    x, given = in_types[0], np.asarray(values[1]).reshape(-1)
    if np.any(given < 0):
        raise SpecError(f"the shape input {layer.inputs[1]!r} holds {brief(given.tolist())}, a negative dimension",
                        field="inputs[1]")
    out = [int(v) for v in given]
    _check_resized_axes(layer, x, out, "inputs[1]")
    result = TensorType(x.dtype, tuple(out))
    if result.size is not None and result.size > MAX_ELEMENTS:
        raise SpecError(f"the output {out} has {result.size} elements, above TensorRT's 2^31 limit", field="inputs[1]")
    return result


def _check_resized_axes(layer: Layer, x: TensorType, out: list, key: str) -> None:
    mode, rank = layer.attrs["resize_mode"], x.rank
    first = rank - window(mode, rank)
    for axis, (a, b) in enumerate(zip(x.shape, out)):
        if a is None or b is None or a == b:
            continue
        if axis < first:
            allowed = "the innermost 2 dimensions" if mode == "CUBIC" else f"the innermost {rank - first} dimension(s)"
            raise SpecError(f"would resize dimension {axis} ({a} -> {b}); {mode} resizes only {allowed} "
                            f"(dimensions {first}..{rank - 1}) of the rank-{rank} input", field=key)
        if a == 0:
            raise SpecError(f"dimension {axis} is empty (0) and cannot be resized to {b}", field=key)


# --- lowering ----------------------------------------------------------------------------------


def lower(layer: Layer, ctx: LoweringContext) -> Lowered:
    b = NodeBuilder(layer)
    x_type, x = ctx.input_types[0], layer.inputs[0]
    out_shape = _static_output_shape(layer, ctx)
    if out_shape is not None and x_type.is_static:
        changed = [ax for ax in range(x_type.rank) if x_type.shape[ax] != out_shape[ax]]
        if not changed and ctx.target.deployment and x_type.dtype in (FLOAT16, FLOAT32):
            # still one IResizeLayer (TensorRT has no Identity layer on DLA); sizes equal to the input's: exact for
            # every mode (coordinates i, weights 0). The host runs an empty one as the input (legalize.py)
            return b.finish(_resize_node(b, layer.attrs, x, *_deployment_size(b, layer, x_type, out_shape), deployment=True))
        if not changed:
            # nothing to resize: the input itself (an int8 Identity, which onnx-tensorrt has no int8 layer for, goes
            # through DequantizeLinear / QuantizeLinear with scale 1 there: exact)
            return b.finish(_int8_around(b, ctx, x_type.dtype, x, lambda v: v))
        if ctx.target.deployment and x_type.dtype in (FLOAT16, FLOAT32):
            # the deployment form: one Resize in the input's type, which onnx-tensorrt imports as one IResizeLayer
            # with the spec's attributes (docs/deployment.md); the host runs a legalized copy (converter/pipeline/legalize.py)
            return b.finish(_resize_node(b, layer.attrs, x, *_deployment_size(b, layer, x_type, out_shape), deployment=True))
        if ctx.target.deployment and x_type.dtype == INT8 and layer.attrs["resize_mode"] == "NEAREST":
            # int8 NEAREST copies values: one Resize between the DequantizeLinear / QuantizeLinear TensorRT takes int8 by
            size = _deployment_size(b, layer, x_type, out_shape)
            return b.finish(_int8_around(b, ctx, INT8, x, lambda v: _resize_node(b, layer.attrs, v, *size, deployment=True)))
        if 0 in out_shape:
            return b.finish(_int8_around(b, ctx, x_type.dtype, x, lambda v: _empty(b, ctx, x_type, out_shape)))
        if layer.attrs["resize_mode"] == "NEAREST":
            def body(v):
                return _nearest_static(b, layer, ctx, v, x_type, out_shape, changed)
            return b.finish(_int8_around(b, ctx, x_type.dtype, x, body))
        return b.finish(_interpolate(b, layer, ctx, x, x_type, out_shape, changed))
    if ctx.target.deployment and (x_type.dtype in (FLOAT16, FLOAT32) or
                                  (x_type.dtype == INT8 and layer.attrs["resize_mode"] == "NEAREST")):
        # the deployment form of a run-time shape: one Resize, fed constant ``scales`` where they are exact at every
        # size the input may take (exact_scales), else the run-time sizes (an int32 shape input is Cast to int64
        # first: ONNX's sizes are int64; scales on a dynamic dimension: floor(a * s) computed in the graph), which
        # onnx-tensorrt imports as IResizeLayer::setInput(1) (onnxOpImporters.cpp:4560, :4635). The host copy
        # re-lowers it for the CPU EP (converter/pipeline/legalize.py).
        scales = exact_scales(layer, x_type, out_shape)

        def one_resize(v):
            size = ("", b.const("scales", scales)) if scales is not None else (_sizes_tensor(b, layer, ctx, out_shape, v), "")
            return _resize_node(b, layer.attrs, v, *size, deployment=True)
        return b.finish(_int8_around(b, ctx, x_type.dtype, x, one_resize))

    # (the sizes read the shape of the tensor resized, after any int8 conversion: onnx-tensorrt's Shape takes no int8)
    def sizes(v):
        return _sizes_tensor(b, layer, ctx, out_shape, v)
    axes = dynamic_axes(layer, x_type)
    if not axes:  # scales of exactly 1 on every dimension: nothing to resize, whatever the sizes
        return b.finish(_int8_around(b, ctx, x_type.dtype, x, lambda v: v))
    if layer.attrs["resize_mode"] == "NEAREST":
        return b.finish(_int8_around(b, ctx, x_type.dtype, x, lambda v: _nearest_dynamic(b, layer, ctx, v, x_type, sizes(v), axes)))
    return b.finish(_interpolate(b, layer, ctx, x, x_type, None, None, sizes, axes))


WHY_EMPTY_OUTPUT = ("an empty output has no value to compute: ConstantOfShape (onnxruntime refuses a Resize to a 0 "
                    "length, and OpenVINO reads the empty index constant of a Gather as a scalar, dropping the axis)")


def _empty(b: NodeBuilder, ctx: LoweringContext, x_type: TensorType, out_shape) -> str:
    """The empty output of a static resize to a 0 length, in the type the body works in (_int8_around: float32 for
    int8 taken as a quantized type)."""
    from onnx import helper  # start-up time (builder.py)

    dtype = FLOAT32 if x_type.dtype == INT8 and _int8_as_quantized(ctx) else x_type.dtype
    return b.op("ConstantOfShape", [b.const("sizes", np.array(out_shape, np.int64))],
                value=helper.make_tensor("value", dtype.onnx, [1], [0]), why=WHY_EMPTY_OUTPUT)


def dynamic_axes(layer: Layer, x_type: TensorType) -> list[int]:
    """The axes a resize to a run-time shape may change: the mode's innermost ones, less those scaled by exactly 1
    (a scale of 1 keeps the dimension: b = a). Fewer axes, fewer passes: a Gather per NEAREST axis, and linear or
    cubic interpolation folded to [1, P, ...] over those axes only (onnxruntime's trilinear is far slower than its
    bilinear: benchmarks/dynamic.py)."""
    rank = x_type.rank
    axes = list(range(rank - window(layer.attrs["resize_mode"], rank), rank))
    if layer.attrs["scales"] is None or len(layer.inputs) == 2:
        return axes
    scales = per_dimension(layer.attrs["scales"], rank)
    return [ax for ax in axes if float(scales[ax]) != 1.0]


def _static_output_shape(layer: Layer, ctx: LoweringContext):
    if ctx.output_type.is_static:
        return tuple(ctx.output_type.shape)
    if len(layer.inputs) == 2 and ctx.constant_inputs[1] is not None:
        out = [int(v) for v in ctx.constant_inputs[1]]
        _check_resized_axes(layer, ctx.input_types[0], out, "inputs[1]")
        return tuple(out)
    if layer.attrs["shape"] is not None:
        return tuple(int(v) for v in layer.attrs["shape"])
    return None


def _sizes_tensor(b: NodeBuilder, layer: Layer, ctx: LoweringContext, out_shape, source: str) -> str:
    """The output shape as an int64 [rank] tensor in the graph; ``source``: the input, or a conversion of it (its
    Shape is the input's)."""
    if out_shape is not None:
        return b.const("sizes", np.array(out_shape, np.int64))
    if len(layer.inputs) == 2:
        s = layer.inputs[1]
        return s if ctx.input_types[1].dtype == INT64 else b.cast(s, INT64, why="the shape input is int32; Resize sizes and index math are int64")
    # scales on an input whose dimensions are only known at run time: floor(float32(a) * scale), as onnxruntime does
    scales = per_dimension(layer.attrs["scales"], ctx.input_types[0].rank)
    shape = b.op("Shape", [source])
    a = b.cast(shape, FLOAT32, why="output size = floor(a * scale) in float32")
    keep = b.const("scale_is_one", scales == 1.0)
    scaled = b.cast(b.op("Floor", [b.op("Mul", [a, b.const("scales", scales)])]), INT64, why="output sizes are int64")
    return b.op("Where", [keep, shape, scaled], why="a scale of exactly 1 keeps the dimension")


def _nearest_static(b: NodeBuilder, layer: Layer, ctx: LoweringContext, x: str, x_type: TensorType, out_shape, changed) -> str:
    attrs, in_shape = layer.attrs, x_type.shape
    dtype = FLOAT32 if _int8_as_quantized(ctx) and x_type.dtype == INT8 else x_type.dtype
    if 0 not in out_shape and dtype in _nearest_resize_types(ctx) and all(
            ort_nearest_exact(in_shape[ax], out_shape[ax], attrs) for ax in changed):
        return _resize_node(b, attrs, x, b.const("sizes", np.array(out_shape, np.int64)))
    why = ("NEAREST as Gather with exactly computed indices: onnxruntime's Resize derives coordinates from a "
           "float32 scale and picks an index one off at exact ties (e.g. 14->8 ASYMMETRIC FLOOR)")
    for ax in sorted(changed, reverse=True):
        idx = nearest_indices(in_shape[ax], out_shape[ax], attrs["coordinate_transformation"],
                              attrs["selector_for_single_pixel"], attrs["nearest_rounding"])
        x = b.op("Gather", [x, b.const(f"indices_axis{ax}", idx)], axis=ax, why=why)
    return x


def _nearest_dynamic(b: NodeBuilder, layer: Layer, ctx: LoweringContext, x: str, x_type: TensorType, sizes: str,
                     axes: list[int]) -> str:
    """NEAREST to a run-time shape: one exact Gather per axis it may change. On onnxruntime (ort-cpu, ort-cuda) an
    ``If`` first asks, per shape and in integer arithmetic (``build_ort_nearest_exact``, the rule of
    ``ort_nearest_exact``), whether onnxruntime's own Resize gives the exact indices at these lengths, and runs that
    one Resize where it does: the Gathers are what the static lowering takes only where the rule refuses, and
    onnxruntime's Gather on the last axis copies element by element (60x a Resize, docs/performance.md)."""
    why = "NEAREST with a run-time shape: indices from the exact fraction of each coordinate, integer math only"
    shape = []  # Shape(x), made once and only when a dimension is unknown until run time
    order = sorted(axes, reverse=True)

    def shape_of() -> str:
        shape or shape.append(b.op("Shape", [x]))
        return shape[0]

    def gathers() -> str:
        y = x
        for ax in order:
            if x_type.shape[ax] is not None:
                l_in = b.scalar(f"length_in{ax}", x_type.shape[ax], INT64)
            else:
                l_in = b.op("Gather", [shape_of(), b.scalar(f"axis{ax}", ax, INT64)], axis=0)
            l_out = b.op("Gather", [sizes, b.scalar(f"axis{ax}", ax, INT64)], axis=0)
            y = b.op("Gather", [y, build_nearest_indices(b, l_in, l_out, layer.attrs)], axis=ax, why=why)
        return y
    if ctx.target.name not in ("ort-cpu", "ort-cuda") or x_type.dtype not in _nearest_resize_types(ctx) or \
            x_type.size == 0:
        return gathers()
    zero = b.scalar("zero", 0, INT64)
    resized = b.const("resized_axes", np.array(order, np.int64))
    if any(x_type.shape[ax] is None for ax in order):
        l_in = b.op("Gather", [shape_of(), resized], axis=0)
    else:
        l_in = b.const("lengths_in", np.array([x_type.shape[ax] for ax in order], np.int64))
    l_out = b.op("Gather", [sizes, resized], axis=0)
    # onnxruntime's Resize refuses an empty tensor and a 0 length (a static input's size is known: no Size, which
    # onnxruntime would place on the CPU, for CUDA)
    exact = b.op("And", [b.op("Greater", [b.op("ReduceMin", [l_out], keepdims=0), zero]),
                         build_ort_nearest_exact(b, l_in, l_out, layer.attrs)])
    if not x_type.is_static:
        exact = b.op("And", [b.op("Greater", [b.op("Size", [x]), zero]), exact])
    resize = b.subgraph("resize", lambda: _resize_node(b, layer.attrs, x, sizes, why=WHY_IF_RESIZE), x_type)
    exact_gathers = b.subgraph("gathers", gathers, x_type)
    return b.op("If", [exact], then_branch=resize, else_branch=exact_gathers, why=WHY_IF)


WHY_IF = ("NEAREST with a run-time shape: onnxruntime's own Resize where, at this shape, its float32 coordinates give "
          "the exact indices (integer test of ort_nearest_exact's rule, once per run), else exact Gathers")
WHY_IF_RESIZE = "NEAREST as one Resize: at this run-time shape onnxruntime's float32 coordinates give the exact indices"


def _interpolate(b: NodeBuilder, layer: Layer, ctx: LoweringContext, x: str, x_type: TensorType,
                 out_shape, changed, sizes=None, axes=None) -> str:
    """``sizes``: for a run-time shape, a function of the tensor resized (the input in float32) giving the sizes;
    ``axes`` the axes it may change (dynamic_axes)."""
    attrs, rank, dtype = layer.attrs, x_type.rank, x_type.dtype
    mode = attrs["resize_mode"]
    if dtype == INT8:
        x = _int8_to_float(b, ctx, x)
    elif dtype == FLOAT16:
        x = b.cast(x, FLOAT32, why="interpolate in float32 and round once to float16, as the reference does")
    sizes = sizes(x) if sizes is not None else None
    # fold the dimensions outside the resized ones into one: onnxruntime runs linear only on 4-D/5-D
    # with the outer two scales 1 (and 2-D/3-D), cubic only on 4-D with the outer two scales 1 (and 2-D)
    inner = rank - min(axes) if changed is None else rank - min(changed)
    native = changed is not None and rank in ((4, 5) if mode == "LINEAR" else (4,)) and inner <= rank - 2
    width = 4 if (mode == "CUBIC" or inner <= 2) else 5
    pad = width - 2 - inner
    why_fold = (f"onnxruntime's CPU Resize runs {mode.lower()} only on [N, C, ...] with the outer two scales 1: "
                f"fold the {rank - inner} outer dimension(s) into one")
    if mode == "CUBIC" and changed is not None and not _cubic_resize_allowed(ctx):
        y = _cubic_taps(b, attrs, x, x_type.shape, out_shape, changed)
    elif native:
        resize_sizes = b.const("sizes", np.array(out_shape, np.int64))
        y = _resize_node(b, attrs, x, resize_sizes)
    elif changed is not None:
        outer = int(np.prod(x_type.shape[: rank - inner], dtype=np.int64))
        folded_in = [1, outer] + [1] * pad + list(x_type.shape[rank - inner:])
        folded_out = [1, outer] + [1] * pad + list(out_shape[rank - inner:])
        y = b.op("Reshape", [x, b.const("folded_shape", np.array(folded_in, np.int64))], why=why_fold)
        y = _resize_node(b, attrs, y, b.const("sizes", np.array(folded_out, np.int64)))
        y = b.op("Reshape", [y, b.const("output_shape", np.array(out_shape, np.int64))], why="unfold to the output shape")
    else:
        if mode == "CUBIC" and not _cubic_resize_allowed(ctx):
            y = _cubic_taps_dynamic(b, attrs, x, x_type, sizes, axes)
        else:
            # (where onnxruntime would put the shape computation on the CPU, which a CUDA session without CPU
            # fallback refuses, a run-time empty input is left unhandled: it fails there as it did)
            empty_ok = not any(t.profile.get("placement") for t in ctx.target.checked)
            y = _interpolate_dynamic(b, attrs, x, x_type, sizes, inner, pad, why_fold, _never_empty(layer, axes, rank),
                                     allowzero=ctx.opset >= 14, empty_input=empty_ok)
    if dtype == INT8:
        return _float_to_int8(b, ctx, y)
    if dtype == FLOAT16:
        return b.cast(y, FLOAT16, why="round the float32 result once to float16")
    return y


def _cubic_resize_allowed(ctx: LoweringContext) -> bool:
    """onnx-tensorrt imports Resize with mode nearest or linear only (docs/operators.md, TensorRT 10.x)."""
    return not ctx.target.includes("tensorrt")  # tensorrt, tensorrt-dla and portable


def _cubic_taps(b: NodeBuilder, attrs, x: str, in_shape, out_shape, changed) -> str:
    """CUBIC without a cubic Resize: per resized axis (innermost first) four Gathers of the edge-clamped taps,
    each times its Keys weight (float64, rounded once to float32), summed in tap order: the reference's own
    arithmetic, so the result is bit-identical to it."""
    why = "CUBIC as Gather taps and weights: onnx-tensorrt imports Resize with mode nearest or linear only"
    rank = len(in_shape)
    for ax in sorted(changed, reverse=True):
        idx, weights = cubic_taps(in_shape[ax], out_shape[ax], attrs)
        bshape = (-1,) + (1,) * (rank - ax - 1)
        total = None
        for k in range(4):
            term = b.op("Gather", [x, b.const(f"taps{k}_axis{ax}", idx[k])], axis=ax, why=why)
            term = b.op("Mul", [term, b.const(f"weights{k}_axis{ax}", weights[k].astype(np.float32).reshape(bshape))])
            total = term if total is None else b.op("Add", [total, term])
        x = total
    return x


def _cubic_taps_dynamic(b: NodeBuilder, attrs, x: str, x_type: TensorType, sizes: str, axes: list[int]) -> str:
    """_cubic_taps for a run-time shape: the same taps and Keys weights computed in the graph (integer coordinates
    num / den as for NEAREST, the fraction t in float32, so weights may differ from the reference's float64 ones
    in the last bit). Each axis it may change is processed (dynamic_axes); one unchanged at run time gets weights
    (0, 1, 0, 0): itself."""
    why = "CUBIC as Gather taps and weights: onnx-tensorrt imports Resize with mode nearest or linear only"
    rank, a = x_type.rank, float(attrs["cubic_coeff"])

    def op(kind, *args, **kw):
        return b.op(kind, list(args), **kw)

    def f32(name, v):
        return b.scalar(name, v, FLOAT32)

    zero, one, two = (b.scalar(n, v, INT64) for n, v in (("zero", 0), ("one", 1), ("two", 2)))
    for ax in sorted(axes, reverse=True):
        if x_type.shape[ax] is not None:
            l_in = b.scalar(f"length_in{ax}", x_type.shape[ax], INT64)
        else:
            l_in = op("Gather", op("Shape", x), b.scalar(f"axis{ax}", ax, INT64), axis=0)
        l_out = op("Gather", sizes, b.scalar(f"axis{ax}", ax, INT64), axis=0)
        i = op("Range", zero, l_out, one)
        transform = attrs["coordinate_transformation"]
        if transform == "ASYMMETRIC":
            num, den = op("Mul", i, l_in), l_out
        elif transform == "HALF_PIXEL":
            num, den = op("Sub", op("Mul", op("Add", op("Mul", i, two), one), l_in), l_out), op("Mul", l_out, two)
            if attrs["selector_for_single_pixel"] == "UPPER":
                num = op("Mul", num, b.cast(op("Greater", l_out, one), INT64, why="UPPER: coordinate 0 when L_out = 1"))
        else:
            num, den = op("Mul", i, op("Sub", l_in, one)), op("Sub", l_out, one)
        den = op("Max", den, one)
        base = op("Sub", op("Div", op("Add", num, den), den), one)  # floor(num / den): num > -den, so num + den >= 0
        t = op("Div", b.cast(op("Sub", num, op("Mul", base, den)), FLOAT32, why="the coordinate's fraction"),
               b.cast(den, FLOAT32, why="the coordinate's fraction"))
        s1, s2 = t, op("Sub", f32("one_f", 1.0), t)
        s0, s3 = op("Add", t, f32("one_f", 1.0)), op("Sub", f32("two_f", 2.0), t)

        def near(s):  # (A + 2) s^3 - (A + 3) s^2 + 1
            return op("Add", op("Mul", op("Mul", op("Sub", op("Mul", f32("a_plus_2", a + 2), s), f32("a_plus_3", a + 3)), s), s),
                      f32("one_f", 1.0))

        def far(s):  # A s^3 - 5A s^2 + 8A s - 4A
            return op("Sub", op("Mul", op("Add", op("Mul", op("Sub", op("Mul", f32("a", a), s), f32("five_a", 5 * a)), s),
                                           f32("eight_a", 8 * a)), s), f32("four_a", 4 * a))

        weights = [far(s0), near(s1), near(s2), far(s3)]
        last = op("Sub", l_in, one)
        total = None
        for k, w in zip((-1, 0, 1, 2), weights):
            idx = op("Min", op("Max", op("Add", base, b.scalar(f"tap{k}", k, INT64)), zero), last)
            if ax < rank - 1:
                w = op("Unsqueeze", w, b.const("axes", np.arange(1, rank - ax, dtype=np.int64)))
            term = op("Mul", op("Gather", x, idx, axis=ax, why=why), w)
            total = term if total is None else op("Add", total, term)
        x = total
    return x


def cubic_taps(l_in: int, l_out: int, attrs) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Tap indices floor(x) - 1 .. floor(x) + 2 (clamped to the edge) and Keys weights (float64) of one axis."""
    num, den = _fraction(l_in, l_out, attrs["coordinate_transformation"], attrs["selector_for_single_pixel"])
    base, r = np.divmod(num, den)
    t, a = r / np.float64(den), float(attrs["cubic_coeff"])
    s0, s1, s2, s3 = t + 1.0, t, 1.0 - t, 2.0 - t
    weights = [((a * s0 - 5.0 * a) * s0 + 8.0 * a) * s0 - 4.0 * a, ((a + 2.0) * s1 - (a + 3.0)) * s1 * s1 + 1.0,
               ((a + 2.0) * s2 - (a + 3.0)) * s2 * s2 + 1.0, ((a * s3 - 5.0 * a) * s3 + 8.0 * a) * s3 - 4.0 * a]
    return [np.clip(base + k, 0, l_in - 1).astype(np.int64) for k in (-1, 0, 1, 2)], weights


def _never_empty(layer: Layer, axes: list[int], rank: int) -> bool:
    """Whether no output length can be 0 where the input's is not: scales >= 1 on every axis resized give
    floor(a * s) >= a (a * s >= a, and float32 rounding and floor are monotone); a shape input may hold anything."""
    attrs = layer.attrs
    if len(layer.inputs) == 2:
        return False
    if attrs["shape"] is not None:
        return all(int(attrs["shape"][ax]) > 0 for ax in axes)
    scales = per_dimension(attrs["scales"], rank)
    return all(float(scales[ax]) >= 1.0 for ax in axes)


def _interpolate_dynamic(b: NodeBuilder, attrs, x: str, x_type: TensorType, sizes: str, inner: int, pad: int, why: str,
                         never_empty: bool = False, allowzero: bool = False, empty_input: bool = True) -> str:
    """``never_empty``: no output length is 0 unless the input's is (``_never_empty``); then the sizes are given to
    the Resize as they are and no Slice copies its result again (onnxruntime resizes a 0 length to 0 only).
    ``allowzero`` (opset >= 14): the folding Reshapes take a 0 in their shape as a length 0, where an input empty at
    run time puts one (without it a 0 copies the input's dimension there). ``empty_input``: an input whose resized
    length is 0 at run time (a previous layer's empty output) gives an empty output (a shape computation more)."""
    zero = {"allowzero": 1} if allowzero else {}
    rank = x_type.rank

    def part(tensor: str, start: int, end: int) -> str:
        return b.op("Slice", [tensor, b.const("start", np.array([start], np.int64)), b.const("end", np.array([end], np.int64))])

    shape = []  # Shape(x), made once and only when a dimension is unknown until run time

    def dims(start: int, end: int) -> str:
        """x's dimensions start..end-1: a constant where they are known (no shape computation for onnxruntime to
        place on the CPU, which a CUDA session without CPU fallback refuses), else sliced from Shape(x)."""
        known = x_type.shape[start:end]
        if None not in known:
            return b.const("dims", np.array(known, np.int64))
        shape or shape.append(b.op("Shape", [x]))
        return part(shape[0], start, end)

    def at_least_one(wanted: str) -> str:
        """``wanted`` lengths raised to 1 (onnxruntime's Resize needs sizes > 0; a Slice cuts the output to 0 after),
        but left at 0 where the input's length is 0 at run time (a previous layer's empty output: onnxruntime resizes
        a 0 length to 0 only): Max(wanted, Min(input length, 1))."""
        known = x_type.shape[rank - inner:]
        floor = b.const("one", np.ones(1, np.int64)) if not empty_input or (None not in known and all(known)) else b.op(
            "Min", [dims(rank - inner, rank), b.const("one", np.ones(1, np.int64))])
        return b.op("Max", [wanted, floor], why="onnxruntime's Resize needs sizes > 0 (0 where the input is empty)")

    if inner <= rank - 2 and rank in ((4, 5) if attrs["resize_mode"] == "LINEAR" else (4,)) and not (
            x_type.is_static and x_type.size == 0):
        # onnxruntime runs it as it is, at the input's own rank, as the static lowering's ``native`` does: the same
        # kernel, so the same bits (folding the outer dimensions into one gave onnxruntime's bilinear kernel one row
        # where the static model has H, and its 0.5/0.5 weights for a single row rounded 2 ulp apart: a CI seed,
        # LINEAR ASYMMETRIC 1x2x2x4 -> 1x2x2x3); and no Reshape, whose copy into the graph's output cost 12% of the
        # Resize (4x8x128x128 x2 LINEAR, benchmarks/dynamic.py)
        if never_empty:
            return _resize_node(b, attrs, x, sizes)
        wanted = part(sizes, rank - inner, rank)
        positive = b.op("Concat", [part(sizes, 0, rank - inner), at_least_one(wanted)], axis=0)
        y = _resize_node(b, attrs, x, positive)
        axes = b.const("axes", np.arange(rank - inner, rank, dtype=np.int64))
        return b.op("Slice", [y, b.const("zeros", np.zeros(inner, np.int64)), wanted, axes],
                    why="an output length of 0 at run time")
    if x_type.is_static and x_type.size == 0:
        # Nothing to sample (and onnxruntime refuses to resize a 0 length): the output is empty too.
        out = b.op("Concat", [dims(0, rank - inner), part(sizes, rank - inner, rank)], axis=0)
        return b.op("ConstantOfShape", [out], why="an empty input gives an empty output")
    outer = x_type.shape[: rank - inner]
    if None in outer and not empty_input:
        lead = b.const("lead", np.array([1, -1] + [1] * pad, np.int64))
    elif None in outer:  # (their product, not -1: a Reshape infers no -1 from 0 elements, an input empty at run time)
        lead = b.op("Concat", [b.const("one", np.ones(1, np.int64)), b.op("ReduceProd", [dims(0, rank - inner)], keepdims=1),
                               *([b.const("pad", np.ones(pad, np.int64))] if pad else [])], axis=0)
    else:
        lead = b.const("lead", np.array([1, int(np.prod(outer, dtype=np.int64))] + [1] * pad, np.int64))
    folded = b.op("Concat", [lead, dims(rank - inner, rank)], axis=0)
    y = b.op("Reshape", [x, folded], why=why, **zero)
    wanted = part(sizes, rank - inner, rank)
    positive = wanted if never_empty else at_least_one(wanted)
    head = lead if None not in outer else part(b.op("Shape", [y]), 0, 2 + pad)
    resize_sizes = b.op("Concat", [head, positive], axis=0)
    y = _resize_node(b, attrs, y, resize_sizes)
    out = b.op("Concat", [dims(0, rank - inner), positive], axis=0)
    y = b.op("Reshape", [y, out], why="unfold to the output shape (outer dimensions are the input's)", **zero)
    if never_empty:
        return y
    axes = b.const("axes", np.arange(rank - inner, rank, dtype=np.int64))
    return b.op("Slice", [y, b.const("zeros", np.zeros(inner, np.int64)), wanted, axes], why="an output length of 0 at run time")


def exact_scales(layer: Layer, x_type: TensorType, out_shape=None) -> np.ndarray | None:
    """The layer's float32 scales where ONNX ``scales`` say the same as ``sizes``, else None.

    Only for a layer given ``scales`` whose every axis has a * s == b exactly (s the float32 scale, real arithmetic;
    a dynamic dimension: at every size it may take, so s is a positive integer):
    then s = b / a, so ONNX's coordinate map from the scale (x / s, (x + 0.5) / s - 0.5) is TensorRT's and the
    spec's length ratio L_in / L_out, onnxruntime's fl(b / a) is s, and floor(a * s) = b on every runtime. A
    non-exact scale (3 * 1.5 = 4.5 -> 4; 10 * 0.1f) keeps ``sizes``: ONNX would map by 1 / s, TensorRT and the
    spec by a / b (docs/deployment.md)."""
    if layer.attrs["scales"] is None or len(layer.inputs) != 1:
        return None
    scales = per_dimension(layer.attrs["scales"], x_type.rank).astype(np.float32)
    out_shape = out_shape or [None if a is None else scaled_dim(a, float(s)) for a, s in zip(x_type.shape, scales)]
    for a, s, b in zip(x_type.shape, scales, out_shape):
        if a is None and not (float(s).is_integer() and s >= 1):
            return None
        if a is not None and Fraction(float(s)) * a != b:
            return None
    return scales


def _deployment_size(b: NodeBuilder, layer: Layer, x_type: TensorType, out_shape) -> tuple[str, str]:
    """(sizes, scales) inputs of the deployment Resize: ``scales`` where exact (``exact_scales``), which
    onnx-tensorrt imports with IResizeLayer::setScales (onnxOpImporters.cpp:4624) and DLA runs; else ``sizes``
    (setOutputDimensions, :4542, which DLA does not run: NvInfer.h:4103)."""
    scales = exact_scales(layer, x_type, out_shape)
    if scales is not None:
        return "", b.const("scales", scales)
    return b.const("sizes", np.array(out_shape, np.int64)), ""


def _resize_node(b: NodeBuilder, attrs, x: str, sizes: str, scales: str = "", deployment: bool = False,
                 why: str = "") -> str:
    transform = _ONNX_TRANSFORM[attrs["coordinate_transformation"]]
    if transform == "half_pixel" and attrs["selector_for_single_pixel"] == "UPPER":
        transform = "pytorch_half_pixel"  # HALF_PIXEL, and coordinate 0 for an output length of 1
    extra = {"cubic_coeff_a": float(attrs["cubic_coeff"]), "exclude_outside": 0} if attrs["resize_mode"] == "CUBIC" else {}
    if attrs["resize_mode"] == "NEAREST":
        extra = {"nearest_mode": ORT_NEAREST_MODE[attrs["nearest_rounding"]]}
        why = "" if deployment else why or "NEAREST as one Resize: onnxruntime's float32 coordinates give the exact indices here (docs/semantics.md)"
    inputs = [x, "", scales] if scales else [x, "", "", sizes]  # ONNX Resize: X, roi, scales, sizes
    return b.op("Resize", inputs, mode=attrs["resize_mode"].lower(), coordinate_transformation_mode=transform,
                why=why, **extra)


# --- what each target runs --------------------------------------------------------------------


def _nearest_resize_types(ctx: LoweringContext) -> tuple:
    """Types a NEAREST Resize may carry: the CPU kernel has float32, int32, int8, uint8 (no float16: the model must
    validate on the CPU EP); CUDA has no int8 Resize, TensorRT's parser takes FP32/FP16/BF16 only."""
    return (FLOAT32, INT8) if ctx.target.name == "ort-cpu" else (FLOAT32,)


def _int8_as_quantized(ctx: LoweringContext) -> bool:
    """int8 input through DequantizeLinear with scale 1 (exact): TensorRT's parser takes int8 only as a quantized
    type (no int8 Cast, Gather, Round, Resize), so for it and for portable models int8 enters and leaves as Q/DQ."""
    return ctx.target.includes("tensorrt")  # tensorrt, tensorrt-dla and portable


def _int8_to_float(b: NodeBuilder, ctx: LoweringContext, x: str) -> str:
    why = ("int8 is quantized in TensorRT: interpolate in float32, round half to even, saturate "
           "(onnxruntime truncates integer linear results and has no int8 cubic kernel)")
    if _int8_as_quantized(ctx):
        y = b.op("DequantizeLinear", [x, b.scalar("unit_scale", 1.0, FLOAT32), b.scalar("zero_point", 0, INT8)],
                 why=why + "; DequantizeLinear with scale 1: the int8 input as TensorRT's parser accepts it")
        # A no-op Max (int8 values are >= -128) keeps the DequantizeLinear where it is: onnxruntime's CPU optimizer
        # propagates it through the folding Reshape and, at opset 21, gets the zero point's type wrong (a session
        # error; without a zero point, values clamped at 0); OpenVINO's low-precision passes move it through
        # Interpolate and fail on a per-axis scale.
        return b.op("Max", [y, b.scalar("int8_min", -128, FLOAT32)], why="keeps runtimes from moving the DequantizeLinear")
    return b.cast(x, FLOAT32, why=why)


def _float_to_int8(b: NodeBuilder, ctx: LoweringContext, y: str, *, integral: bool = False) -> str:
    """float32 -> int8, rounding half to even and saturating. CUDA has no Round kernel for its since-version 22 and
    no QuantizeLinear for 23, so outside the CPU the rounding is float32 arithmetic: after saturating, |y| <= 128
    and y + 1.5 * 2^23 rounds y to an integer, ties to even; subtracting the constant again is exact. (A Round or
    this rounding also keeps onnxruntime's CPU optimizer from fusing DequantizeLinear -> Resize -> QuantizeLinear
    into an int8 Resize, which truncates.)"""
    if ctx.target.name in ("ort-cpu", "openvino"):
        return to_int8(b, y, may_be_nan=False)
    if not integral:
        y = b.op("Clip", [y, b.scalar("int8_min", -128, FLOAT32), b.scalar("int8_max", 127, FLOAT32)],
                 why="int8 result: saturate to [-128, 127]")
        magic = b.scalar("round_magic", 1.5 * 2.0**23, FLOAT32)
        y = b.op("Sub", [b.op("Add", [y, magic], why="int8 result: round half to even in float32 arithmetic "
                                                     "(y + 1.5 * 2^23 - 1.5 * 2^23 for |y| <= 128)"), magic])
    if _int8_as_quantized(ctx):
        return b.op("QuantizeLinear", [y, b.scalar("unit_scale", 1.0, FLOAT32), b.scalar("zero_point", 0, INT8)],
                    why="int8 result as TensorRT's parser accepts it: QuantizeLinear with scale 1 of an integral value")
    return b.cast(y, INT8, why="int8 result: the value is already integral and in range")


def _int8_around(b: NodeBuilder, ctx: LoweringContext, dtype, x: str, body) -> str:
    """NEAREST copies values: int8 stays int8 except where the target takes int8 only as a quantized type."""
    if dtype != INT8 or not _int8_as_quantized(ctx):
        return body(x)
    return _float_to_int8(b, ctx, body(_int8_to_float(b, ctx, x)), integral=True)



# --- NEAREST as one ONNX Resize: where onnxruntime's float32 coordinates give the exact indices ----

ORT_NEAREST_MODE = {"FLOOR": "floor", "CEIL": "ceil", "HALF_UP": "round_prefer_ceil", "HALF_DOWN": "round_prefer_floor"}
_ORT_ERROR = 2.0**-20  # bound on |ort coordinate - exact| / (|x| + 1): about 4 float32 roundings (4 * 2^-24), x4


def ort_nearest_exact(l_in: int, l_out: int, attrs) -> bool:
    """Whether onnxruntime's NEAREST Resize (CPU and CUDA) picks TensorRT's exact index at every output of one axis.

    onnxruntime computes each coordinate in float32 from the scale fl(L_out / L_in) (upsamplebase.h,
    resize_impl.cu): ``i / s``, ``(i + 0.5) / s - 0.5``, ``i * (L_in - 1) / (L_out - 1)``, then floors, ceils or
    rounds it. Its index is the exact one when every exact coordinate x (the fraction num / den) is either
    (a) on the rounding boundary (an integer for FLOOR/CEIL, a half-integer for HALF_UP/HALF_DOWN) and computed
        exactly: the scale is exact (L_out / L_in dyadic, or ALIGN_CORNERS, which uses no scale) or x = 0 under
        ASYMMETRIC; or
    (b) farther from the boundary than the float32 error bound _ORT_ERROR * (|x| + 1).
    docs/semantics.md has the argument; tests/lowering/test_resize.py checks it against onnxruntime on every
    size pair up to 64, 2,000 random pairs up to 4,096 and integer factors, all transformations and roundings.
    """
    if l_in == l_out:
        return True
    transform, rounding = attrs["coordinate_transformation"], attrs["nearest_rounding"]
    if max(l_in, l_out) >= 2**22 or (transform == "ALIGN_CORNERS" and l_in * l_out >= 2**24):
        return False  # coordinates or products no longer exact integers in float32
    num, den = _fraction(l_in, l_out, transform, attrs["selector_for_single_pixel"])
    if l_out == 1 and den == 1 and num[0] == 0:
        return True  # onnxruntime's own 0 (align_corners, pytorch_half_pixel)
    exact_scale = transform == "ALIGN_CORNERS" or float(np.float32(l_out) / np.float32(l_in)) * l_in == l_out
    k = 1 if rounding in ("FLOOR", "CEIL") else 2
    grid_num, grid_den = (num, den) if k == 1 else (2 * num - den, 2 * den)
    r = np.mod(grid_num, grid_den)
    on = r == 0
    if not exact_scale and np.any(on & ~((num == 0) & (transform == "ASYMMETRIC"))):
        return False
    # off the boundary: min(r, grid_den - r) / grid_den > _ORT_ERROR * (|num| / den + 1), in integers (exact, and
    # what build_ort_nearest_exact computes in the graph; grid_den = k * den, |num| < 2^46 here)
    return bool(np.all(on | (np.minimum(r, grid_den - r) * _ORT_ERROR_INVERSE > k * (np.abs(num) + den))))


_ORT_ERROR_INVERSE = 2**20  # 1 / _ORT_ERROR


def build_ort_nearest_exact(b: NodeBuilder, l_in: str, l_out: str, attrs) -> str:
    """``ort_nearest_exact`` of every axis at once, in the graph: int64 vectors L_in and L_out (one entry per axis)
    in, a bool scalar out (every axis passes). The axes are rows of one [axes, max L_out] computation: a node costs
    onnxruntime about as much at session start-up as at run time whatever its size, so one pass for all axes, not one
    per axis. Integer arithmetic only, every divisor >= 1 (an output length of 0 makes no row: it is decided
    elsewhere). Lengths from 2^22 on fail before anything else matters; below, no product leaves int64 (|num| <
    2^46). exact_scale: fl(L_out / L_in) is exact iff the reduced fraction's denominator is a power of two, which
    (L_in < 2^22) is iff L_in divides L_out * 2^21."""
    transform, rounding = attrs["coordinate_transformation"], attrs["nearest_rounding"]
    zero, one, two = (b.scalar(n, v, INT64) for n, v in (("zero", 0), ("one", 1), ("two", 2)))

    def op(kind, *args, **kw):
        return b.op(kind, list(args), **kw)

    def int_(name, v):
        return b.scalar(name, v, INT64)

    def count(mask):  # how many elements are true
        return op("ReduceSum", b.cast(mask, INT64, why="count the true elements"), keepdims=0)

    column = b.const("column", np.array([-1, 1], np.int64))
    l_in, l_out = op("Reshape", l_in, column), op("Reshape", l_out, column)  # [axes, 1]
    i = op("Reshape", op("Range", zero, op("ReduceMax", l_out, keepdims=0), one), b.const("row", np.array([1, -1], np.int64)))
    num, den = _graph_fraction(b, op, i, l_in, l_out, transform, attrs["selector_for_single_pixel"], one, two)
    den = op("Max", den, one)  # L_out = 0 or ALIGN_CORNERS' L_out = 1: no division by zero (decided elsewhere)
    k = 1 if rounding in ("FLOOR", "CEIL") else 2
    grid_num, grid_den = (num, den) if k == 1 else (op("Sub", op("Mul", num, two), den), op("Mul", den, two))
    r = op("Mod", grid_num, grid_den)  # fmod 0: the divisor's sign, so 0 <= r < grid_den
    on = op("Equal", r, zero)
    distance = op("Mul", op("Min", r, op("Sub", grid_den, r)), int_("inverse_error", _ORT_ERROR_INVERSE))
    bad = op("Not", op("Or", on, op("Greater", distance, op("Mul", op("Add", op("Abs", num), den), int_("k", k)))))
    if transform != "ALIGN_CORNERS":  # on the boundary: only with an exact scale (or x = 0 under ASYMMETRIC)
        exact_scale = op("Equal", op("Mod", op("Mul", l_out, int_("two_21", 2**21)), op("Max", l_in, one)), zero)
        bad_on = op("And", on, op("Not", op("Equal", num, zero))) if transform == "ASYMMETRIC" else on
        bad = op("Or", bad, op("And", bad_on, op("Not", exact_scale)))
    # a row fails where it is not the identity (L_in = L_out) and: a length reaches the float32 limits, or an output
    # i < L_out is bad and the row is not a single output at coordinate 0 (onnxruntime's own 0)
    counted = op("Not", op("Equal", l_in, l_out))
    if transform != "HALF_PIXEL" or attrs["selector_for_single_pixel"] == "UPPER":
        counted = op("And", counted, op("Not", op("Equal", l_out, one)))
    failing = op("And", op("And", bad, op("Less", i, l_out)), counted)
    large = op("Not", op("Less", op("Max", l_in, l_out), int_("limit", 2**22)))
    if transform == "ALIGN_CORNERS":
        large = op("Or", large, op("Not", op("Less", op("Mul", l_in, l_out), int_("product_limit", 2**24))))
    large = op("And", large, op("Not", op("Equal", l_in, l_out)))
    return op("Equal", op("Add", count(failing), count(large)), zero)


# --- NEAREST indices: the exact fraction num / den of each coordinate, integer arithmetic only -----


def _fraction(l_in: int, l_out: int, transform: str, selector: str) -> tuple[np.ndarray, int]:
    i = np.arange(l_out, dtype=np.int64)
    if l_out == 1 and (selector == "UPPER" or transform == "ALIGN_CORNERS"):
        return np.zeros(1, np.int64), 1
    if transform == "ASYMMETRIC":
        return i * l_in, l_out
    if transform == "HALF_PIXEL":
        return (2 * i + 1) * l_in - l_out, 2 * l_out
    return i * (l_in - 1), l_out - 1


def nearest_indices(l_in: int, l_out: int, transform: str, selector: str, rounding: str) -> np.ndarray:
    num, den = _fraction(l_in, l_out, transform, selector)
    q, r = np.divmod(np.maximum(num, 0), den)  # a negative coordinate (> -1/2) rounds to 0 or -1: clamped to 0
    q += {"FLOOR": 0, "CEIL": r > 0, "HALF_UP": 2 * r >= den, "HALF_DOWN": 2 * r > den}[rounding]
    return np.minimum(q, l_in - 1).astype(np.int64)


def _graph_fraction(b: NodeBuilder, op, i: str, l_in: str, l_out: str, transform: str, selector: str, one: str,
                    two: str) -> tuple[str, str]:
    """``_fraction`` in the graph: (num, den) of output coordinate(s) ``i``, int64, for L_in and L_out (the den not
    yet kept from 0)."""
    if transform == "ASYMMETRIC":
        return op("Mul", i, l_in), l_out
    if transform == "HALF_PIXEL":
        num = op("Sub", op("Mul", op("Add", op("Mul", i, two), one), l_in), l_out)
        if selector == "UPPER":  # an output length of 1 samples coordinate 0
            num = op("Mul", num, b.cast(op("Greater", l_out, one), INT64, why="UPPER: coordinate 0 when L_out = 1"))
        return num, op("Mul", l_out, two)
    return op("Mul", i, op("Sub", l_in, one)), op("Sub", l_out, one)  # ALIGN_CORNERS


def build_nearest_indices(b: NodeBuilder, l_in: str, l_out: str, attrs) -> str:
    """The same indices as ``nearest_indices``, built in the graph from int64 scalars L_in and L_out."""
    transform, rounding = attrs["coordinate_transformation"], attrs["nearest_rounding"]
    zero, one, two = (b.scalar(n, v, INT64) for n, v in (("zero", 0), ("one", 1), ("two", 2)))

    def op(kind, *args):
        return b.op(kind, list(args))

    i = op("Range", zero, l_out, one)
    num, den = _graph_fraction(b, op, i, l_in, l_out, transform, attrs["selector_for_single_pixel"], one, two)
    if transform == "HALF_PIXEL":
        num = op("Max", num, zero)
    den = op("Max", den, one)  # L_out = 0: no indices, but no division by zero either; ALIGN_CORNERS L_out = 1: 0 / 1
    q = op("Div", num, den)  # num >= 0, den > 0: truncation is floor
    # r = num mod den as num - q * den (exact for num >= 0): onnxruntime's DirectML EP has no int64 Mod
    if rounding == "CEIL":
        q = op("Div", op("Add", num, op("Sub", den, one)), den)
    elif rounding == "HALF_UP":  # + [2r >= den]
        q = op("Add", q, op("Div", op("Mul", op("Sub", num, op("Mul", q, den)), two), den))
    elif rounding == "HALF_DOWN":  # + [2r > den]
        twice_r = op("Mul", op("Sub", num, op("Mul", q, den)), two)
        q = op("Add", q, op("Div", op("Add", twice_r, op("Sub", den, one)), op("Mul", den, two)))
    return op("Min", q, op("Sub", l_in, one))


def _ort_coordinates(l_in: int, l_out: int, attrs) -> np.ndarray:
    """The coordinates onnxruntime computes in float32 (upsamplebase.h) for a Resize with sizes."""
    f32, i = np.float32, np.arange(l_out, dtype=np.float32)
    transform = attrs["coordinate_transformation"]
    if transform == "ALIGN_CORNERS" or (l_out == 1 and attrs["selector_for_single_pixel"] == "UPPER"):
        return np.zeros(1, np.float32) if l_out == 1 else i * f32(l_in - 1) / f32(l_out - 1)
    scale = f32(l_out) / f32(l_in)
    return i / scale if transform == "ASYMMETRIC" else (i + f32(0.5)) / scale - f32(0.5)


def ort_coordinates_exact(in_shape, out_shape, attrs) -> bool:
    """Whether onnxruntime's float32 coordinates and weights are exact: quarter-pixel coordinates it hits exactly."""
    if attrs["resize_mode"] == "CUBIC" and not float(4 * attrs["cubic_coeff"]).is_integer():
        return False
    for l_in, l_out in zip(in_shape, out_shape):
        if l_in == l_out:
            continue
        num, den = _fraction(l_in, l_out, attrs["coordinate_transformation"], attrs["selector_for_single_pixel"])
        if np.any(4 * num % den) or np.any(_ort_coordinates(l_in, l_out, attrs).astype(np.float64) * den != num):
            return False
    return True


# --- default tolerance -------------------------------------------------------------------------

ASSUMED_MAGNITUDE = 8.0  # |x| the float default tolerance covers; larger data needs a spec tolerance


def tolerance(layer: Layer, in_types) -> Tolerance | None:
    """LINEAR/CUBIC: onnxruntime's float32 coordinates differ from the exact ones by ~L * 2^-24 (docs/semantics.md)."""
    attrs = layer.attrs
    if attrs["resize_mode"] == "NEAREST":
        return None  # Gather: exact
    x, out = in_types[0], check(layer, in_types)
    lengths = [d for d in x.shape + out.shape if d is not None] or [1]
    if not out.is_static:  # run-time shape: assume outputs up to 4x the input, at least 64
        lengths.append(max(64, 4 * max(lengths)))
    l_max = max(lengths)
    if x.dtype == INT8:
        exact = x.is_static and out.is_static and ort_coordinates_exact(x.shape, out.shape, attrs)
        return Tolerance(atol=0.0 if exact else 1.0)
    coord = 4 * 2.0**-23 * l_max  # coordinate error relative to the data's magnitude
    floor_atol, floor_rtol = (1e-3, 1e-3) if x.dtype == FLOAT16 else (1e-6, 1e-5)
    return Tolerance(atol=max(floor_atol, coord * ASSUMED_MAGNITUDE), rtol=floor_rtol + coord)


register_layer(LayerKind(
    name="trt.Resize",
    summary="nearest / linear / cubic resize of the innermost dimensions, TensorRT coordinate semantics",
    inputs=("input", "shape"),
    min_inputs=1,
    attributes=ATTRIBUTES,
    check=check,
    lower=lower,
    notes="types int8, float16, float32; NEAREST/LINEAR resize the innermost min(3, N) dimensions, CUBIC the innermost 2",
    tolerance=tolerance,
    reference=".resize:reference",  # converter/reference/resize.py
    builder=BuilderHook("add_resize", layer="IResizeLayer", tensors=("input",), properties={  # input 1: set_input(1, t)
        p: p for p in ("resize_mode", "coordinate_transformation", "selector_for_single_pixel", "nearest_rounding",
                       "cubic_coeff", "shape", "scales")}),
    strategy="tests.fuzz.strategies:resize_specs",  # the fuzz tests' valid specs of the kind (never imported here)
    target_rules={"tensorrt-dla": dla.check_resize},
    check_values=check_values,
))
