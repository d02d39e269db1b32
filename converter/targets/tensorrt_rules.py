"""onnx-tensorrt's importer conditions, one rule per condition, each citing the source line it comes from.

Source: onnx/onnx-tensorrt at tag ``release/10.1-GA`` (commit 96e781103cfc4adf4a6bb557e94bac8e693f6f4c,
"ONNX-TensorRT 10.1 GA release", the parser of TensorRT 10.1): onnxOpImporters.cpp (the importers),
importerUtils.cpp (their helpers: elementwiseHelper, unaryHelper, activationHelper, poolingHelper,
convertAxis, convertDtype) and onnxOpCheckers.cpp (the static checks ``supportsModel`` runs before
importing). ``source`` is ``FILE:LINE`` at that commit and ``quote`` a piece of that line, so that
``python -m tools.verify_tensorrt_rules ONNX_TENSORRT_CHECKOUT`` can prove every citation.

A rule fires on a node (converter/targets/model_view.NodeView) when ``test(node)`` returns a string
(what breaks the condition); None means the condition holds or cannot be decided statically (an
unknown type or shape: the check only refuses what it can prove). ``check --target tensorrt`` runs
these rules on top of the operator matrix of docs/operators.md (tables/tensorrt.json), which still
gives the op list and its data types; where the matrix's prose and the importer disagree (Resize
"cubic"), the importer wins: the prose rows it replaces are gone from profiles.TENSORRT.

The list of ops covered: every op the lowerings emit (converter/lowering/*: tools/survey_targets.py
lists them per target) and the common ops users bring (Conv, Gemm, MatMul, Relu, pooling, Concat,
Reshape, Transpose, Slice, Softmax, QuantizeLinear/DequantizeLinear). docs/tensorrt.md has the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .attributes import int_attr, ints_attr, is_set, string_attr, tensor_attr, value_attr
from .model_view import int_values

ONNX_TENSORRT = "onnx/onnx-tensorrt release/10.1-GA (96e781103cfc4adf4a6bb557e94bac8e693f6f4c)"
TENSORRT_RELEASE = "10.1"


@dataclass(frozen=True)
class Rule:
    id: str
    ops: tuple  # ONNX op types the condition applies to
    why: str  # the condition, as the importer's message says it
    source: str  # FILE:LINE in ONNX_TENSORRT
    quote: str  # a piece of that line (tools/verify_tensorrt_rules.py checks it)
    test: Callable  # NodeView -> str | None (what breaks the condition)


# -- small helpers over NodeView ------------------------------------------------------------------

def _type(node, i):
    return node.input_types[i] if i < len(node.input_types) and node.inputs[i] else None


def _present(node, i):
    return i < len(node.inputs) and bool(node.inputs[i])


def _not_types(i, bad, role="input"):
    def test(node):
        t = _type(node, i)
        return f"{role} {i} is {t}" if t in bad else None
    return test


def _all_inputs_not(bad):
    def test(node):
        found = [t for i, t in enumerate(node.input_types) if node.inputs[i] and t in bad]
        return f"an input is {found[0]}" if found else None
    return test


def _rank(node, i):
    shape = node.input_shapes[i] if i < len(node.input_shapes) else None
    return None if shape is None else len(shape)


def _const(node, i):
    return node.constants[i] if i < len(node.constants) else None


def _axis_in_range(attr, rank_of=0, default=None, upper_inclusive=False):
    """convertAxis (importerUtils.cpp:300): axis in [-r, r-1] (r included for Q/DQ)."""
    def test(node):
        r = _rank(node, rank_of)
        axis = int_attr(node, attr, default)
        if r is None or axis is None:
            return None
        a = axis + r if axis < 0 else axis
        high = r if upper_inclusive else r - 1
        return None if 0 <= a <= high else f"{attr}={axis} for rank {r}"
    return test


# TensorRT's data types, as convertDtype maps ONNX's (importerUtils.cpp:314-333).
CONVERTIBLE = ("double", "float", "int8", "uint8", "float16", "bfloat16", "bool", "int32", "int64",
               "float8e4m3fn", "int4")
_ELEMENTWISE_NO_BOOL = ("Add", "Sub", "Mul", "Div", "Max", "Min", "Greater", "Less", "Sum", "Mean")
_UNARY_DEFAULT = ("Floor", "Ceil", "IsNaN", "Sqrt", "Reciprocal", "Round", "Exp", "Log", "Erf", "Sin", "Cos",
                  "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")
_ACTIVATIONS = ("Relu", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign", "HardSigmoid",
                "ThresholdedRelu")


def _cast_to(node):
    to = int_attr(node, "to")
    if to is None:
        return None
    from onnx import TensorProto

    if to not in TensorProto.DataType.values():
        return f"to={to} (no ONNX data type)"
    name = TensorProto.DataType.Name(to).lower()
    return None if name in CONVERTIBLE else f"to={name}"


def _bn_rank1(i, what):
    def test(node):
        r = _rank(node, i)
        return f"{what} has rank {r}" if r is not None and r != 1 else None
    return test


def _bn_same_count(node):
    counts = {node.input_shapes[i][0] for i in range(1, 5)
              if i < len(node.input_shapes) and node.input_shapes[i] and len(node.input_shapes[i]) == 1}
    return f"scale/B/mean/var lengths {sorted(counts, key=str)}" if len(counts) > 1 and None not in counts else None


def _bn_weight_type(node):
    if not all(_const(node, i) is not None for i in range(1, 5)):
        return None  # batchnormFallback: elementwise layers, any float type
    types = {_type(node, i) for i in range(5)}
    if len(types) == 1 and None not in types and types.pop() not in ("float", "float16", "bfloat16", "double"):
        return f"type {_type(node, 0)}"
    return None


def _conv_weights(node):
    w = _const(node, 1)
    return None if w is None else w.shape


def _conv_spatial(node):
    shape = _conv_weights(node)
    r = _rank(node, 0)
    if shape is None or r is None:
        return None
    kdims = 4 if len(shape) == 3 else len(shape)  # a 3-D kernel is read as 4-D with a trailing 1 (onnxOpImporters.cpp:763)
    rdims = 4 if r == 3 else r
    return None if rdims - 2 == kdims - 2 else f"input rank {r}, kernel rank {len(shape)}"


def _conv_kernel_shape(node):
    shape = _conv_weights(node)
    ks = ints_attr(node, "kernel_shape")
    if shape is None or not ks:
        return None
    spatial = list(shape[2:]) + ([1] if len(shape) == 3 else [])
    padded = list(ks) + [1] * (len(spatial) - len(ks))
    return None if padded[:len(spatial)] == spatial else f"kernel_shape {list(ks)}, weights {list(shape)}"


def _conv_groups(node):
    shape = _conv_weights(node)
    x = node.input_shapes[0] if node.input_shapes else None
    if shape is None or not x or len(x) < 2 or x[1] is None:
        return None
    group = int_attr(node, "group", 1)
    return None if shape[1] * group == x[1] else f"weights {list(shape)} x group {group} against {x[1]} channels"


def _conv_bias(node):
    if not _present(node, 2) or _const(node, 1) is None or _const(node, 2) is None:
        return None
    b = _const(node, 2)
    if b.ndim > 1:
        return f"bias has rank {b.ndim}"
    n = 1 if b.ndim == 0 else b.shape[0]
    return None if n == _const(node, 1).shape[0] else f"bias length {n}, {_const(node, 1).shape[0]} output channels"


def _auto_pad_pads(node):
    auto_pad = string_attr(node, "auto_pad")
    if auto_pad in ("SAME_LOWER", "SAME_UPPER") and is_set(node, "pads"):
        return f"auto_pad={auto_pad} with pads"
    return None


def _pool_dims(node):
    ks = ints_attr(node, "kernel_shape")
    r = _rank(node, 0)
    if ks is None:
        return None
    n = len(ks)
    if (n == 1 and r == 3) or n in (2, 3):
        return None
    return f"kernel_shape of {n} dims for input rank {r}"


def _pool_dilations(node):
    d = ints_attr(node, "dilations") or []
    return None if all(v == 1 for v in d) else f"dilations={list(d)}"


def _maxpool_indices(node):
    return "the Indices output is used" if len(node.node.output) > 1 and node.node.output[1] else None


def _rank2(i):
    def test(node):
        r = _rank(node, i)
        return f"input {i} has rank {r}" if r is not None and r != 2 else None
    return test


def _clip_elementwise_types(node):
    elementwise = _type(node, 0) in ("int32", "int64") or any(
        _present(node, i) and _const(node, i) is None for i in (1, 2))
    t = _type(node, 0)
    if elementwise and t is not None and t not in ("float", "float16", "bfloat16", "int32", "int64"):
        return f"type {t} with run-time bounds"
    return None


def _constant_attrs(node):
    bad = [name for name in ("sparse_value", "value_string", "value_strings") if is_set(node, name)]
    return f"attribute {bad[0]}" if bad else None


def _constant_of_shape_value(node):
    from onnx import TensorProto

    value = tensor_attr(node, "value")
    return "value is uint8" if isinstance(value, TensorProto) and value.data_type == TensorProto.UINT8 else None


def _expand_shape_1d(node):
    r = _rank(node, 1)
    return f"shape has rank {r}" if r is not None and r != 1 else None


def _mod_fmod0(node):
    t = _type(node, 0)
    if int_attr(node, "fmod", 0) == 0 and t is not None and t not in ("int32", "int64"):
        return f"fmod=0 with {t}"
    return None


def _qdq_two_inputs(node):
    return None if len([i for i in node.inputs if i]) >= 2 else f"{len(node.inputs)} input"


def _qdq_scale_positive(node):
    s = _const(node, 1)
    if s is None:
        return None
    if s.size == 0:
        return "scale is empty"
    return None if np.all(s.astype(np.float64) > 0) else "a scale is not positive"


def _qdq_zero_point(node):
    z = _const(node, 2) if _present(node, 2) else None
    if z is None or _type(node, 2) in ("float8e4m3fn",):
        return None
    return None if np.all(z.astype(np.float64) == 0) else "zero point is not all zeros"


def _qdq_zero_point_size(node):
    s, z = _const(node, 1), (_const(node, 2) if _present(node, 2) else None)
    if s is None or z is None:
        return None
    return None if z.size == s.size else f"zero point of {z.size} values, scale of {s.size}"


def _qdq_per_channel(node):
    s = _const(node, 1)
    x = node.input_shapes[0] if node.input_shapes else None
    if s is None or s.size == 1 or x is None or s.ndim != 1:
        return None
    r = len(x)
    axis = qdq_axis(node, r)
    if not 0 <= axis < r or x[axis] is None:
        return None
    return None if x[axis] == s.size else f"{s.size} scales for {x[axis]} channels on axis {axis}"


def qdq_axis(node, rank):
    """The axis the importer quantizes on: the node's own ``axis`` attribute, else the rank, which for a
    per-channel scale means axis 0 (onnxOpImporters.cpp:1521, :1529) -- not ONNX's default 1."""
    axis = int_attr(node, "axis", rank) if is_set(node, "axis") else rank
    axis = axis + rank if axis < 0 else axis
    return 0 if axis == rank else axis


def _qdq_scale_rank(node):
    s = _const(node, 1)
    x = node.input_shapes[0] if node.input_shapes else None
    if s is None or s.size == 1 or x is None:
        return None
    return None if s.ndim in (1, len(x)) else f"scale of rank {s.ndim} for input rank {len(x)}"


def _range_same_types(node):
    types = {_type(node, i) for i in range(3)}
    return None if len(types) == 1 or None in types else f"types {sorted(types)}"


def _range_types(node):
    t = _type(node, 0)
    return None if t is None or t in ("int32", "int64", "float") else f"type {t}"


def _resize_attr(name, allowed, default):
    def test(node):
        v = value_attr(node, name, default)
        return None if v in allowed else f"{name}={v!r}"
    return test


def _resize_tf_nn(node):
    nearest = string_attr(node, "nearest_mode", "round_prefer_floor")
    if string_attr(node, "coordinate_transformation_mode") == "tf_half_pixel_for_nn" and nearest != "round_prefer_floor":
        return f"tf_half_pixel_for_nn with nearest_mode={nearest!r}"
    return None


def _resize_axes_unique(node):
    axes = ints_attr(node, "axes") or []
    r = _rank(node, 0)
    norm = [a + r if (r is not None and a < 0) else a for a in axes]
    return None if len(set(norm)) == len(norm) else f"axes={list(axes)}"


def _resize_rank(node):
    r = _rank(node, 0)
    return "the input is a scalar" if r == 0 else None


def _resize_scales(node):
    i = 2 if node.since and node.since >= 11 else 1
    if len(node.inputs) > 3 and node.inputs[3]:
        return None  # sizes
    return _const(node, i) if _present(node, i) else None


def _resize_inner(n, mode):
    def test(node):
        if string_attr(node, "mode") != mode:
            return None
        scales = _resize_scales(node)
        if scales is None or scales.ndim != 1:
            return None
        lead = scales[:max(0, scales.size - n)]
        return None if np.all(lead == 1) else f"scales {scales.tolist()} resize more than the innermost {n} dims"
    return test


def _resize_scales_1d(node):
    scales = _resize_scales(node)
    return None if scales is None or scales.ndim == 1 else f"scales of rank {scales.ndim}"


def _slice_inputs(node):
    n = len(node.node.input)
    return None if 3 <= n <= 5 else f"{n} inputs"


def _slice_axes_const(node):
    if len(node.inputs) > 3 and node.inputs[3] and _const(node, 3) is None:
        return f"axes {node.inputs[3]} is computed at run time"
    return None


def _slice_lengths(node):
    starts, ends = _const(node, 1), _const(node, 2)
    axes = _const(node, 3) if len(node.inputs) > 3 and node.inputs[3] else None
    if starts is None or ends is None:
        return None
    n = axes.size if axes is not None else _rank(node, 0)
    if n is None:
        return None
    return None if starts.size == n and ends.size == n else f"{starts.size} starts, {ends.size} ends for {n} axes"


def _slice_axes_range(node):
    axes = int_values(_const(node, 3)) if len(node.inputs) > 3 and node.inputs[3] else None
    r = _rank(node, 0)
    if axes is None or r is None:
        return None
    bad = [a for a in axes if not -r <= a < r]
    return f"axis {bad[0]} for rank {r}" if bad else None


def _slice_axes_unique(node):
    axes = int_values(_const(node, 3)) if len(node.inputs) > 3 and node.inputs[3] else None
    r = _rank(node, 0)
    if axes is None or r is None:
        return None
    norm = [a + r if a < 0 else a for a in axes]
    return None if len(set(norm)) == len(norm) else f"axes {axes}"


def _softmax_axis(node):
    default = -1 if (node.since or 13) >= 13 else 1
    return _axis_in_range("axis", default=default)(node)


def _transpose_rank(node):
    r = _rank(node, 0)
    return f"rank {r}" if r is not None and r > 8 else None


def _transpose_perm(node):
    perm, r = ints_attr(node, "perm"), _rank(node, 0)
    if perm is None or r is None:
        return None
    bad = [p for p in perm if not -r <= p < r]
    return f"perm {list(perm)} for rank {r}" if bad else None


def _unsqueeze_axes_const(node):
    if node.since and node.since >= 13 and len(node.inputs) > 1 and node.inputs[1] and _const(node, 1) is None:
        return f"axes {node.inputs[1]} is computed at run time"
    return None


def _gemm_int(node):
    return _not_types(0, ("int32", "int64"))(node)


R = Rule
OI, IU, OC = "onnxOpImporters.cpp", "importerUtils.cpp", "onnxOpCheckers.cpp"

RULES: tuple[Rule, ...] = (
    # ---- IElementWiseLayer: elementwiseHelper / elementwiseCheck (importerUtils.cpp:522-611)
    R("elementwise.bool-ops", ("And", "Or", "Xor"), "kAND/kOR/kXOR take BOOL inputs only",
      f"{IU}:532", "std::all_of(inputs.begin(), inputs.end(), [](TensorOrWeights const& input) { return input.isBool(); })",
      lambda n: next((f"input {i} is {t}" for i, t in enumerate(n.input_types) if t and t != "bool"), None)),
    R("elementwise.no-bool", _ELEMENTWISE_NO_BOOL, "kDIV/kGREATER/kLESS/kMAX/kMIN/kPROD/kSUB/kSUM take no BOOL input",
      f"{IU}:548", "!std::any_of(inputs.begin(), inputs.end(), [](TensorOrWeights const& input) { return input.isBool(); })",
      _all_inputs_not(("bool",))),
    R("elementwise.pow-float", ("Pow",), "kPOW takes no BOOL, INT32 or INT64 input",
      f"{IU}:555", "ASSERT_NODE(!std::any_of(inputs.begin(), inputs.end(),",
      _all_inputs_not(("bool", "int32", "int64"))),
    # ---- IUnaryLayer: unaryHelper (importerUtils.cpp:1693-1748)
    R("unary.not-bool", ("Not",), "kNOT takes BOOL only", f"{IU}:1705", "validUnaryType = inputType == nvinfer1::DataType::kBOOL;",
      lambda n: None if _type(n, 0) in (None, "bool") else f"input is {_type(n, 0)}"),
    R("unary.abs-sign", ("Abs", "Sign"), "kABS/kSIGN take anything but BOOL and UINT8", f"{IU}:1712",
      "validUnaryType = (inputType != nvinfer1::DataType::kBOOL && inputType != nvinfer1::DataType::kUINT8);",
      _not_types(0, ("bool", "uint8"))),
    R("unary.neg", ("Neg",), "kNEG takes anything but BOOL and UINT8 (INT32 becomes 0 - x)", f"{IU}:1727",
      "validUnaryType = (inputType != nvinfer1::DataType::kBOOL && inputType != nvinfer1::DataType::kUINT8);",
      _not_types(0, ("bool", "uint8"))),
    R("unary.float", _UNARY_DEFAULT, "other unary operations take no BOOL, INT32, INT64 or UINT8", f"{IU}:1733",
      "validUnaryType = (inputType != nvinfer1::DataType::kBOOL && inputType != nvinfer1::DataType::kINT32",
      _not_types(0, ("bool", "int32", "int64", "uint8"))),
    # ---- IActivationLayer: activationHelper (importerUtils.cpp:34)
    R("activation.types", _ACTIVATIONS + ("Clip",), "activations take no INT32, BOOL or UINT8 input", f"{IU}:37",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"INT32", "BOOL", "UINT8"}, node, nodeIdx));',
      lambda n: None if n.op == "Clip" and _clip_path_elementwise(n) else _not_types(0, ("int32", "bool", "uint8"))(n)),
    R("clip.uint8", ("Clip",), "Clip takes no UINT8 input", f"{OI}:565", 'CHECK_STATUS(notInvalidType(inputs.at(0), {"UINT8"}, node, nodeIdx));',
      _not_types(0, ("uint8",))),
    R("clip.elementwise-types", ("Clip",), "Clip with run-time bounds (or an INT32/INT64 input) takes floating-point, INT32 or INT64 only",
      f"{OI}:576", "ASSERT_NODE((type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16",
      _clip_elementwise_types),
    # ---- Cast
    R("cast.to", ("Cast",), "Cast's `to` must be a TensorRT type (convertDtype)", f"{OC}:184",
      "STATIC_CHECK(convertDtype(onnxType, &newType) && \"Unsupported data type for the Cast operator!\",", _cast_to),
    # ---- BatchNormalization -> IScaleLayer kCHANNEL
    R("batchnorm.training", ("BatchNormalization",), "training_mode must be 0", f"{OC}:174",
      "STATIC_CHECK(!isTraining && \"This version of TensorRT does not support training_mode == 1 in BatchNormalization.\",",
      lambda n: "training_mode=1" if int_attr(n, "training_mode", 0) else None),
    R("batchnorm.scale-rank", ("BatchNormalization",), "scale must be (C,)", f"{OI}:308",
      'ASSERT_NODE((inputs.at(1).shape().nbDims == 1), "The shape of the scale input must be (C, )", node, nodeIdx,',
      _bn_rank1(1, "scale")),
    R("batchnorm.bias-rank", ("BatchNormalization",), "B must be (C,)", f"{OI}:310",
      'ASSERT_NODE((inputs.at(2).shape().nbDims == 1), "The shape of the bias input must be (C, )", node, nodeIdx,',
      _bn_rank1(2, "B")),
    R("batchnorm.mean-rank", ("BatchNormalization",), "mean must be (C,)", f"{OI}:312",
      'ASSERT_NODE((inputs.at(3).shape().nbDims == 1), "The shape of the mean input must be (C, )", node, nodeIdx,',
      _bn_rank1(3, "mean")),
    R("batchnorm.var-rank", ("BatchNormalization",), "var must be (C,)", f"{OI}:314",
      'ASSERT_NODE((inputs.at(4).shape().nbDims == 1), "The shape of the var input must be (C, )", node, nodeIdx,',
      _bn_rank1(4, "var")),
    R("batchnorm.same-shape", ("BatchNormalization",), "scale, B, mean and var must have the same length", f"{OI}:373",
      "allSame, \"Inputs to BatchNormalization must have the same shape!\", node, nodeIdx, ErrorCode::kINVALID_NODE);",
      _bn_same_count),
    R("batchnorm.type", ("BatchNormalization",), "constant-weight BatchNormalization of one type takes FLOAT, HALF or BF16",
      f"{OI}:343", 'ASSERT_NODE(false, "Invalid data type provided for BatchNormalization", node, nodeIdx,', _bn_weight_type),
    # ---- Conv -> IConvolutionLayer (constant weights; run-time weights take convMultiInput)
    R("conv.spatial-dims", ("Conv",), "the input's spatial dims and the kernel's must match", f"{OI}:771",
      "ASSERT_NODE((nbSpatialDims == kernelWeights.shape.nbDims - 2),", _conv_spatial),
    R("conv.bias", ("Conv",), "the bias must be 1-D with one value per output channel", f"{OI}:789",
      "ASSERT_NODE((shapedBiasWeights.shape.d[0] == kernelWeights.shape.d[0]),", _conv_bias),
    R("conv.kernel-shape", ("Conv",), "kernel_shape must equal the weights' spatial dims", f"{OI}:816",
      "ASSERT_NODE((kernelSize.d[nbSpatialDims - i] == kernelWeights.shape.d[kernelWeights.shape.nbDims - i]),",
      _conv_kernel_shape),
    R("conv.groups", ("Conv",), "weights' input channels x group must equal the input's channels", f"{OI}:836",
      "ASSERT_NODE((nchan == -1 || kernelWeights.shape.d[1] * ngroup == nchan),", _conv_groups),
    R("kernel.auto-pad-pads", ("Conv", "MaxPool", "AveragePool"), "pads must not be given with auto_pad SAME_LOWER/SAME_UPPER",
      f"{IU}:820", "ASSERT(!attrs.count(\"pads\")", _auto_pad_pads),
    # ---- IPoolingLayer: poolingHelper + poolingCheckHelper
    R("pool.dims", ("MaxPool", "AveragePool"), "1-D (on a 3-D input), 2-D or 3-D pooling only", f"{IU}:1399",
      "ASSERT_NODE(((nbSpatialDims == 1 && needToExpandDims) || nbSpatialDims == 2 || nbSpatialDims == 3),", _pool_dims),
    R("pool.dilations", ("MaxPool", "AveragePool"), "dilations other than 1 are not supported", f"{OC}:94",
      "STATIC_CHECK((dilations[i] == 1) && \"This version of TensorRT does not support dilations other than 1.\",",
      _pool_dilations),
    R("maxpool.indices", ("MaxPool",), "the Indices output is not supported", f"{OC}:468",
      "STATIC_CHECK(node.output().size() == 1 && \"TensorRT does not support the indices output in MaxPool!\",",
      _maxpool_indices),
    # ---- IMatrixMultiplyLayer
    R("gemm.types", ("Gemm",), "Gemm takes no INT32/INT64 A", f"{OI}:2011",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"INT32", "INT64"}, node, nodeIdx));', _gemm_int),
    R("gemm.rank-a", ("Gemm",), "Gemm's A must be 2-D", f"{OI}:2020",
      "ASSERT_NODE(inputA.getDimensions().nbDims == 2 && inputB.getDimensions().nbDims == 2,", _rank2(0)),
    R("gemm.rank-b", ("Gemm",), "Gemm's B must be 2-D", f"{OI}:2020",
      "ASSERT_NODE(inputA.getDimensions().nbDims == 2 && inputB.getDimensions().nbDims == 2,", _rank2(1)),
    R("matmul.types", ("MatMul",), "MatMul takes no INT32/INT64 A", f"{OI}:3409",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"INT32", "INT64"}, node, nodeIdx));', _gemm_int),
    # ---- IConcatenationLayer / IGatherLayer / ISelectLayer / shape layers
    R("concat.uint8", ("Concat",), "Concat takes no UINT8 input", f"{OI}:651",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"UINT8"}, node, nodeIdx));', _not_types(0, ("uint8",))),
    R("concat.axis", ("Concat",), "axis must be in [-r, r-1]", f"{IU}:308",
      "ASSERT_NODE((axis >= 0 && axis <= nbDims),", _axis_in_range("axis")),
    R("gather.uint8", ("Gather",), "Gather takes no UINT8 data", f"{OI}:1926",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"UINT8"}, node, nodeIdx));', _not_types(0, ("uint8",))),
    R("gather.axis", ("Gather",), "axis must be in [-r, r-1]", f"{IU}:308", "ASSERT_NODE((axis >= 0 && axis <= nbDims),",
      _axis_in_range("axis", default=0)),
    R("where.uint8", ("Where",), "Where takes no UINT8 X or Y", f"{OI}:6030",
      'CHECK_STATUS(notInvalidType(inputs.at(1), {"UINT8"}, node, nodeIdx));',
      lambda n: _not_types(1, ("uint8",))(n) or _not_types(2, ("uint8",))(n)),
    R("expand.uint8", ("Expand",), "Expand takes no UINT8 input", f"{OI}:1813",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"UINT8"}, node, nodeIdx));', _not_types(0, ("uint8",))),
    R("expand.shape-1d", ("Expand",), "the shape input must be 1-D", f"{OI}:1820",
      'ASSERT_NODE((inputs.at(1).shape().nbDims == 1), "The shape tensor is required to be 1D.", node, nodeIdx,',
      _expand_shape_1d),
    R("mod.uint8", ("Mod",), "Mod takes no UINT8 input", f"{OI}:3575",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"UINT8"}, node, nodeIdx));', _not_types(0, ("uint8",))),
    R("mod.fmod0-int", ("Mod",), "fmod=0 takes INT32 or INT64 inputs only", f"{OI}:3586",
      "ASSERT_NODE((input0->getType() == DataType::kINT32 || input0->getType() == DataType::kINT64),", _mod_fmod0),
    R("constant.attrs", ("Constant",), "sparse_value, value_string and value_strings are not supported", f"{OC}:205",
      "STATIC_CHECK((!attrs.count(\"sparse_value\")) && (!attrs.count(\"value_string\")) && (!attrs.count(\"value_strings\"))",
      _constant_attrs),
    R("constantofshape.uint8", ("ConstantOfShape",), "value must not be UINT8", f"{OC}:218",
      'STATIC_CHECK(notInvalidType(valueWeights, {"UINT8"}, node, nodeIndex).is_success()', _constant_of_shape_value),
    R("range.same-types", ("Range",), "start, limit and delta must have one type", f"{OI}:4182",
      "ASSERT_NODE((inputs.at(0).getType() == inputs.at(1).getType(), inputs.at(0).getType() == inputs.at(2).getType()),",
      _range_same_types),
    R("range.types", ("Range",), "Range takes INT32, INT64 or FLOAT", f"{OI}:4191",
      "ASSERT_NODE((isInt32 || isInt64 || isFp32),", _range_types),
    # ---- IQuantizeLayer / IDequantizeLayer: QuantDequantLinearHelper (onnxOpImporters.cpp:1346)
    R("qdq.uint8", ("QuantizeLinear", "DequantizeLinear"), "Q/DQ take no UINT8 data input", f"{OI}:1349",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"UINT8"}, node, nodeIdx));', _not_types(0, ("uint8",))),
    R("q.uint8-zero-point", ("QuantizeLinear",), "QuantizeLinear takes no UINT8 zero point (TensorRT quantizes to INT8)",
      f"{OI}:1354", 'CHECK_STATUS(notInvalidType(inputs.at(2), {"UINT8"}, node, nodeIdx));', _not_types(2, ("uint8",), "zero point")),
    R("qdq.two-inputs", ("QuantizeLinear", "DequantizeLinear"), "Q/DQ need at least 2 inputs", f"{OI}:1369",
      "ASSERT_NODE((inputs.size() >= 2),", _qdq_two_inputs),
    R("qdq.scale-positive", ("QuantizeLinear", "DequantizeLinear"), "constant scales must all be positive", f"{OI}:1404",
      'scaleAllPositive, "Scale coefficients must all be positive", node, nodeIdx, ErrorCode::kINVALID_NODE);',
      _qdq_scale_positive),
    R("qdq.zero-point-zero", ("QuantizeLinear", "DequantizeLinear"), "TensorRT only supports symmetric quantization: the zero point must be all zeros",
      f"{OI}:1491", "ASSERT_NODE(shiftIsAllZeros(zeroPoint),", _qdq_zero_point),
    R("qdq.zero-point-size", ("QuantizeLinear", "DequantizeLinear"), "the scale and the zero point must have the same volume",
      f"{OI}:1506", "ASSERT_NODE(zeroPointSize == scaleSize,", _qdq_zero_point_size),
    R("qdq.per-channel", ("QuantizeLinear", "DequantizeLinear"), "one scale per channel on the quantization axis",
      f"{OI}:1537", "ASSERT_NODE(K == scaleSize,", _qdq_per_channel),
    R("qdq.scale-rank", ("QuantizeLinear", "DequantizeLinear"), "a per-channel scale is 1-D (or blocked, of the input's rank)",
      f"{OI}:1566", 'ASSERT_NODE(false, "Invalid rank for the scale tensor. Rank = " << scaleDims.nbDims << ".", node, nodeIdx,',
      _qdq_scale_rank),
    # ---- IResizeLayer: onnxOpImporters.cpp:4389 and its checker onnxOpCheckers.cpp:555
    R("resize.types", ("Resize",), "Resize takes no BOOL or UINT8 input", f"{OI}:4391",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"BOOL", "UINT8"}, node, nodeIdx));', _not_types(0, ("bool", "uint8"))),
    R("resize.scalar", ("Resize",), "the input cannot be a scalar", f"{OI}:4395",
      'ASSERT_NODE((inputRank > 0), "The input tensor cannot be a scalar.", node, nodeIdx, ErrorCode::kUNSUPPORTED_NODE);',
      _resize_rank),
    R("resize.mode", ("Resize",), "mode nearest, linear or cubic (cubic -> kCUBIC with cubic_coeff_a)", f"{OC}:562",
      'STATIC_CHECK((mode == "cubic" || mode == "linear" || mode == "nearest") && "Invalid Resize mode",',
      _resize_attr("mode", ("nearest", "linear", "cubic"), "nearest")),
    R("resize.tf-half-pixel-for-nn", ("Resize",), "tf_half_pixel_for_nn only with nearest_mode round_prefer_floor", f"{OC}:575",
      'STATIC_CHECK((transformationMode != "tf_half_pixel_for_nn" || nearest_mode == "round_prefer_floor")', _resize_tf_nn),
    R("resize.coordinate-transformation", ("Resize",),
      "coordinate_transformation_mode half_pixel, pytorch_half_pixel, tf_half_pixel_for_nn, asymmetric or align_corners",
      f"{OC}:579", 'STATIC_CHECK((transformationMode == "align_corners" || transformationMode == "tf_half_pixel_for_nn" || transformationMode == "pytorch_half_pixel"',
      _resize_attr("coordinate_transformation_mode",
                   ("half_pixel", "pytorch_half_pixel", "tf_half_pixel_for_nn", "asymmetric", "align_corners"), "half_pixel")),
    R("resize.antialias", ("Resize",), "antialiasing is not supported", f"{OC}:587",
      'STATIC_CHECK((antialias == 0) && "Antialiasing is not supported currently.", ErrorCode::kUNSUPPORTED_NODE_ATTR,',
      _resize_attr("antialias", (0,), 0)),
    R("resize.keep-aspect-ratio", ("Resize",), "keep_aspect_ratio_policy must be stretch", f"{OC}:592",
      "STATIC_CHECK((keep_aspect_ratio_policy == \"stretch\")", _resize_attr("keep_aspect_ratio_policy", ("stretch",), "stretch")),
    R("resize.axes-unique", ("Resize",), "axes must be unique", f"{OC}:598",
      "STATIC_CHECK((std::unordered_set<int32_t>(resizeAxes.begin(), resizeAxes.end()).size() == resizeAxes.size())",
      _resize_axes_unique),
    R("resize.scales-1d", ("Resize",), "constant scales must be 1-D", f"{OI}:4585",
      "ASSERT_NODE((scales.weights().shape.nbDims == 1),", _resize_scales_1d),
    R("resize.linear-dims", ("Resize",), "linear resizes the innermost 3 dims at most (the other scales are 1)", f"{OI}:4614",
      "ASSERT_NODE(canUseNDResize(scaleSize, scalesVec.data(), 3),", _resize_inner(3, "linear")),
    R("resize.cubic-dims", ("Resize",), "cubic resizes the innermost 2 dims at most (the other scales are 1)", f"{OI}:4620",
      "ASSERT_NODE(canUseNDResize(scaleSize, scalesVec.data(), 2),", _resize_inner(2, "cubic")),
    # ---- ISliceLayer
    R("slice.inputs", ("Slice",), "Slice (opset 10+) takes 3 to 5 inputs", f"{OC}:702",
      "STATIC_CHECK((nbInputs >= 3 && nbInputs <= 5) && \"Post-opset 10 Slice operator requires 3 - 5 inputs.\",", _slice_inputs),
    R("slice.uint8", ("Slice",), "Slice takes no UINT8 data", f"{OI}:5287",
      'CHECK_STATUS(notInvalidType(inputs.at(0), {"UINT8"}, node, nodeIdx));', _not_types(0, ("uint8",))),
    R("slice.axes-constant", ("Slice",), "axes must be known when the network is built", f"{OI}:5322",
      'ASSERT_NODE((axes.allValuesKnown()), "This version of TensorRT does not support dynamic axes.", node, nodeIdx,',
      _slice_axes_const),
    R("slice.lengths", ("Slice",), "starts and ends have one value per axis", f"{OI}:5324",
      "ASSERT_NODE((starts.size() == axes.size()),", _slice_lengths),
    R("slice.axes-range", ("Slice",), "every axis in [-r, r-1]", f"{OI}:5357",
      "ASSERT_NODE((-r <= axis && axis < r),", _slice_axes_range),
    R("slice.axes-unique", ("Slice",), "no duplicated axes", f"{OI}:5373",
      "ASSERT_NODE((std::unordered_set<int64_t>(axes.begin(), axes.end()).size() == static_cast<size_t>(axes.size())),",
      _slice_axes_unique),
    # ---- ISoftMaxLayer, IShuffleLayer
    R("softmax.axis", ("Softmax",), "axis must be in [-r, r-1]", f"{IU}:2016",
      "if (convertAxis(axis, rank, node, nodeIdx).is_error())", _softmax_axis),
    R("transpose.rank", ("Transpose",), "rank at most Dims::MAX_DIMS (8)", f"{OI}:5795",
      "ASSERT_NODE((ndim <= nvinfer1::Dims::MAX_DIMS),", _transpose_rank),
    R("transpose.perm", ("Transpose",), "perm values in [-r, r-1]", f"{OI}:5808",
      "CHECK_STATUS(convertAxis(perm.order[i], ndim, node, nodeIdx));", _transpose_perm),
    R("unsqueeze.axes-constant", ("Unsqueeze",), "axes must be a constant", f"{OI}:5889",
      'ASSERT_NODE(axesInput.allValuesKnown(), "Axes input for unsqueeze operation should be a constant tensor.",',
      _unsqueeze_axes_const),
)


def _clip_path_elementwise(node) -> bool:
    """Clip runs as elementwise layers (not an activation) for INT32/INT64 inputs or run-time bounds (onnxOpImporters.cpp:568-572)."""
    return _type(node, 0) in ("int32", "int64") or any(_present(node, i) and _const(node, i) is None for i in (1, 2))


BY_OP: dict[str, list[Rule]] = {}
for _rule in RULES:
    for _op in _rule.ops:
        BY_OP.setdefault(_op, []).append(_rule)

# Ops the rules were written for whose importer has no condition a model can break (beyond the types
# of the operator matrix): each is imported unconditionally by the cited line.
UNCONDITIONAL = {
    "Identity": f"{OI}:2574", "Reshape": f"{OI}:4647", "Shape": f"{OI}:5224",
}


def node_problems(node) -> list[tuple[Rule, str]]:
    """(rule, detail) for every importer condition ``node`` (a NodeView) breaks."""
    found = []
    for rule in BY_OP.get(node.op, ()):
        detail = rule.test(node)
        if detail:
            found.append((rule, detail))
    return found


def describe(rule: Rule, detail: str) -> str:
    return f"onnx-tensorrt {TENSORRT_RELEASE} imports {', '.join(rule.ops) if len(rule.ops) < 4 else 'it'} only when " \
           f"{rule.why}: {detail} ({rule.source})"
