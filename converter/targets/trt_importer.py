"""The importer view: the TensorRT layers onnx-tensorrt builds from an ONNX model, with their attributes.

``importer_view(model) -> list[TrtLayer]`` reads each node the way onnx-tensorrt's importer
(onnx/onnx-tensorrt release/10.1-GA, commit 96e781103cfc4adf4a6bb557e94bac8e693f6f4c) does and lists
the layers it adds, in node order. Every mapping cites its line (``CITATIONS``;
``python -m tools.verify_tensorrt_rules DIR`` checks them against the source).

What is listed: the compute layers (IScaleLayer, IElementWiseLayer, IResizeLayer, IUnaryLayer,
IActivationLayer, ICastLayer, IConvolutionLayer, IPoolingLayer, IReduceLayer, IMatrixMultiplyLayer,
IConcatenationLayer, IShuffleLayer, ISliceLayer, ISoftMaxLayer, IGatherLayer, ISelectLayer,
IIdentityLayer, IShapeLayer, IQuantizeLayer, IDequantizeLayer, IParametricReLULayer, IFillLayer), including the IShuffleLayers
the importer adds to reshape (a Scale of rank other than 4 or 5, a 1-D Conv, a broadcast of lower
rank). What is not listed: IConstantLayers (weights and Constant nodes become weights, not layers) —
a model's Constant node gives no layer. A node of an op the view does not model gives one
``TrtLayer("?<op>", ...)``, so a comparison with a spec's layers fails loudly instead of passing.

``TrtLayer`` compares by (kind, attrs, inputs, outputs): ``attrs`` is a tuple of sorted
(name, value) pairs with TensorRT's enum names (``kPROD``, ``kHALF_PIXEL``) and plain Python values
(ints, floats, tuples); ``inputs``/``outputs`` are TensorRT data type names (``kFLOAT``, ``kHALF``,
``kINT8``, ...; None when onnx's shape inference leaves a type unknown). ``node`` and ``source`` do not
take part in comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx

from .attributes import axis as normalized_axis, float_attr, int_attr, ints_attr, string_attr
from .model_view import ModelView, NodeView, int_values
from .tensorrt_rules import ONNX_TENSORRT, qdq_axis

TRT_TYPES = {"float": "kFLOAT", "double": "kFLOAT", "float16": "kHALF", "bfloat16": "kBF16", "int8": "kINT8",
             "int32": "kINT32", "int64": "kINT64", "bool": "kBOOL", "uint8": "kUINT8", "float8e4m3fn": "kFP8",
             "int4": "kINT4"}


@dataclass(frozen=True, order=True)
class TrtLayer:
    kind: str
    attrs: tuple = ()
    inputs: tuple = ()
    outputs: tuple = ()
    node: str = field(default="", compare=False)
    source: str = field(default="", compare=False)

    def attr(self, name, default=None):
        return dict(self.attrs).get(name, default)

    def __str__(self) -> str:
        parts = [self.kind] + [f"{k}={_show(v)}" for k, v in self.attrs]
        types = f"  ({','.join(t or '?' for t in self.inputs)} -> {','.join(t or '?' for t in self.outputs)})"
        return " ".join(parts) + types


def _show(value) -> str:
    if isinstance(value, float):
        return f"{value:.7g}"
    if isinstance(value, tuple):
        return "[" + ",".join(_show(v) for v in value) + "]"
    return str(value)


# id -> (FILE:LINE, quote) at ONNX_TENSORRT: what each mapping below reads.
CITATIONS = {
    "elementwise": ("importerUtils.cpp:606", "auto* layer = N_CHECK(ctx->network()->addElementWise(*combined, *tensor, binary_op));"),
    "elementwise.broadcast": ("importerUtils.cpp:583", "CHECK_STATUS(broadcastTensor(ctx, tensor_ptr, maxNbDims));"),
    "elementwise.single": ("importerUtils.cpp:597", "return {{identity(ctx, combined)}};"),
    "Add": ("onnxOpImporters.cpp:179", "nvinfer1::ElementWiseOperation::kSUM"),
    "Sub": ("onnxOpImporters.cpp:5677", "nvinfer1::ElementWiseOperation::kSUB"),
    "Mul": ("onnxOpImporters.cpp:3570", "nvinfer1::ElementWiseOperation::kPROD"),
    "Div": ("onnxOpImporters.cpp:1696", "nvinfer1::ElementWiseOperation::kDIV"),
    "Max": ("onnxOpImporters.cpp:3462", "nvinfer1::ElementWiseOperation::kMAX"),
    "Min": ("onnxOpImporters.cpp:3565", "nvinfer1::ElementWiseOperation::kMIN"),
    "Pow": ("onnxOpImporters.cpp:4066", "nvinfer1::ElementWiseOperation::kPOW"),
    "Equal": ("onnxOpImporters.cpp:1798", "nvinfer1::ElementWiseOperation::kEQUAL"),
    "Greater": ("onnxOpImporters.cpp:2139", "nvinfer1::ElementWiseOperation::kGREATER"),
    "Less": ("onnxOpImporters.cpp:2814", "nvinfer1::ElementWiseOperation::kLESS"),
    "And": ("onnxOpImporters.cpp:154", "nvinfer1::ElementWiseOperation::kAND"),
    "Or": ("onnxOpImporters.cpp:3783", "nvinfer1::ElementWiseOperation::kOR"),
    "Xor": ("onnxOpImporters.cpp:6323", "nvinfer1::ElementWiseOperation::kXOR"),
    "Sum": ("onnxOpImporters.cpp:5682", "nvinfer1::ElementWiseOperation::kSUM"),
    "scale": ("importerUtils.cpp:1543", "auto* layer = N_CHECK(ctx->network()->addScaleNd(*tensorPtr, mode, shift, scale, power, 1));"),
    "scale.reshape": ("importerUtils.cpp:1525", "bool needToReshape = (origShape.size() != 4 && origShape.size() != 5);"),
    "batchnorm.weights": ("onnxOpImporters.cpp:381", "return scaleHelper(ctx, node, nodeIdx, *tensorPtr, nvinfer1::ScaleMode::kCHANNEL, combinedBias, combinedScale,"),
    "batchnorm.fold": ("onnxOpImporters.cpp:377", "combinedScale.at<float>(i) = scaleValues[i] / sqrtf(varianceValues[i] + eps);"),
    "batchnorm.fallback": ("onnxOpImporters.cpp:324", "return batchnormFallback(ctx, node, nodeIdx, inputs);"),
    "resize": ("onnxOpImporters.cpp:4397", "nvinfer1::IResizeLayer* layer = N_CHECK(ctx->network()->addResize(input));"),
    "resize.cubic": ("onnxOpImporters.cpp:4406", "interpolationMode = nvinfer1::InterpolationMode::kCUBIC;"),
    "resize.defaults": ("onnxOpImporters.cpp:4432", "layer->setNearestRounding(nvinfer1::ResizeRoundMode::kHALF_DOWN);"),
    "resize.pytorch_half_pixel": ("onnxOpImporters.cpp:4462", "layer->setSelectorForSinglePixel(nvinfer1::ResizeSelector::kUPPER);"),
    "resize.tf_half_pixel_for_nn": ("onnxOpImporters.cpp:4457", "layer->setNearestRounding(nvinfer1::ResizeRoundMode::kCEIL);"),
    "resize.cubic_coeff": ("onnxOpImporters.cpp:4507", "auto cubicCoeff = attrs.get<float>(\"cubic_coeff_a\", -0.75F);"),
    "resize.opset10": ("onnxOpImporters.cpp:4572", "layer->setCoordinateTransformation(nvinfer1::ResizeCoordinateTransformation::kASYMMETRIC);"),
    "resize.sizes-input": ("onnxOpImporters.cpp:4560", "layer->setInput(1, *resizeShape);"),
    "resize.scales-input": ("onnxOpImporters.cpp:4635", "layer->setInput(1, *resizeShape);"),
    "unary": ("importerUtils.cpp:1743", "nvinfer1::IUnaryLayer* layer = N_CHECK(ctx->network()->addUnary(*tensorPtr, op));"),
    "unary.neg-int32": ("importerUtils.cpp:1725", "return elementwiseHelper(ctx, node, nodeIdx, layerInputs, nvinfer1::ElementWiseOperation::kSUB);"),
    "activation": ("importerUtils.cpp:39", "nvinfer1::IActivationLayer* layer = N_CHECK(ctx->network()->addActivation(input, op));"),
    "clip.elementwise": ("onnxOpImporters.cpp:573", "if (elementwiseClip)"),
    "cast": ("onnxOpImporters.cpp:397", "nvinfer1::ICastLayer* layer = N_CHECK(ctx->network()->addCast(tensor, newType));"),
    "conv": ("onnxOpImporters.cpp:827", "= N_CHECK(ctx->network()->addConvolutionNd(*tensorPtr, noutput, kernelSize, kernelWeights, bias_weights));"),
    "conv.1d": ("onnxOpImporters.cpp:754", "bool const needToExpandDims = (dims.nbDims == 3);"),
    "pool": ("importerUtils.cpp:1429", "nvinfer1::IPoolingLayer* poolingLayer = N_CHECK(ctx->network()->addPoolingNd(*tensorPtr, type, kernelSize));"),
    "global_pool": ("importerUtils.cpp:861", "auto* layer = N_CHECK(ctx->network()->addReduce(tensor, op, reduceAxes, /*keepDimensions=*/true));"),
    "gemm": ("onnxOpImporters.cpp:2042", "nvinfer1::IMatrixMultiplyLayer* matmul = N_CHECK(ctx->network()->addMatrixMultiply(inputA, opA, inputB, opB));"),
    "matmul": ("onnxOpImporters.cpp:3440", "nvinfer1::IMatrixMultiplyLayer* matmul = N_CHECK(ctx->network()->addMatrixMultiply(*inputA, opA, *inputB, opB));"),
    "concat": ("onnxOpImporters.cpp:662", "auto* layer = N_CHECK(ctx->network()->addConcatenation(tensors.data(), tensors.size()));"),
    "reshape": ("onnxOpImporters.cpp:4690", "nvinfer1::IShuffleLayer* layer = addShuffle(ctx, data, shape, /*zeroIsPlaceholder=*/!allowZero);"),
    "slice": ("onnxOpImporters.cpp:5397", "nvinfer1::ISliceLayer* slice = addSlice(ctx, data, starts, sizes, steps);"),
    "softmax": ("importerUtils.cpp:2024", "softMax = N_CHECK(ctx->network()->addSoftMax(input));"),
    "softmax.reshape": ("onnxOpImporters.cpp:5410", "auto* reshapeLayer = addShuffle(ctx, *softmax, shapeOf(input));"),
    "gather": ("onnxOpImporters.cpp:1940", "auto* layer = N_CHECK(ctx->network()->addGather(data, *indices, axis));"),
    "gather.int64": ("onnxOpImporters.cpp:1938", "indices = castHelper(ctx, indices, DataType::kINT32);"),
    "where": ("onnxOpImporters.cpp:6053", "auto* layer = N_CHECK(ctx->network()->addSelect(*condition, *x, *y));"),
    "identity": ("onnxOpImporters.cpp:2574", "auto* layer = N_CHECK(ctx->network()->addIdentity(convertToTensor(inputs.at(0), ctx)));"),
    "shape": ("onnxOpImporters.cpp:5228", "auto* layer = N_CHECK(ctx->network()->addShape(input));"),
    "dequantize": ("onnxOpImporters.cpp:1613", "nvinfer1::IDequantizeLayer* dq = N_CHECK(ctx->network()->addDequantize(*dataInput, *scaleInput));"),
    "quantize": ("onnxOpImporters.cpp:1639", "nvinfer1::IQuantizeLayer* q = N_CHECK(ctx->network()->addQuantize(*dataInput, *scaleInput));"),
    "prelu": ("onnxOpImporters.cpp:4079", "auto* layer = N_CHECK(ctx->network()->addParametricReLU(*input, *slopes));"),
    "range": ("onnxOpImporters.cpp:4236", "nvinfer1::IFillLayer* layer = addFill(ctx, convertTo1D(ctx, numberOfElements), nvinfer1::FillOperation::kLINSPACE);"),
    "qdq.axis": ("onnxOpImporters.cpp:1521", "int32_t axis = attrs.get<int32_t>(\"axis\", inputDims.nbDims);"),
    "qdq.axis-default": ("onnxOpImporters.cpp:1529", "if (axis == inputDims.nbDims)"),
    "mod.int": ("importerUtils.cpp:2101", "return N_CHECK(ctx->network()->addElementWise(*input0, *rhs, eOp::kSUB));"),
}

ELEMENTWISE = {"Add": "kSUM", "Sub": "kSUB", "Mul": "kPROD", "Div": "kDIV", "Max": "kMAX", "Min": "kMIN", "Pow": "kPOW",
               "Equal": "kEQUAL", "Greater": "kGREATER", "Less": "kLESS", "And": "kAND", "Or": "kOR", "Xor": "kXOR",
               "Sum": "kSUM"}
UNARY = {"Abs": "kABS", "Neg": "kNEG", "Floor": "kFLOOR", "Ceil": "kCEIL", "Sign": "kSIGN", "IsNaN": "kISNAN",
         "Sqrt": "kSQRT", "Reciprocal": "kRECIP", "Round": "kROUND", "Not": "kNOT", "Exp": "kEXP", "Log": "kLOG",
         "Erf": "kERF", "Sin": "kSIN", "Cos": "kCOS", "Tan": "kTAN", "Asin": "kASIN", "Acos": "kACOS", "Atan": "kATAN",
         "Sinh": "kSINH", "Cosh": "kCOSH", "Asinh": "kASINH", "Acosh": "kACOSH", "Atanh": "kATANH"}
ACTIVATIONS = {"Relu": ("kRELU", ()), "Sigmoid": ("kSIGMOID", ()), "Tanh": ("kTANH", ()),
               "LeakyRelu": ("kLEAKY_RELU", (("alpha", 0.01),)), "Elu": ("kELU", (("alpha", 1.0),)),
               "Softsign": ("kSOFTSIGN", ()), "HardSigmoid": ("kHARD_SIGMOID", (("alpha", 0.2), ("beta", 0.5)))}
RESIZE_MODES = {"nearest": "kNEAREST", "linear": "kLINEAR", "cubic": "kCUBIC"}
COORDINATES = {"align_corners": "kALIGN_CORNERS", "tf_half_pixel_for_nn": "kHALF_PIXEL", "pytorch_half_pixel": "kHALF_PIXEL",
               "half_pixel": "kHALF_PIXEL", "asymmetric": "kASYMMETRIC"}
ROUNDING = {"floor": "kFLOOR", "ceil": "kCEIL", "round_prefer_floor": "kHALF_DOWN", "round_prefer_ceil": "kHALF_UP"}


def trt_type(name):
    return TRT_TYPES.get(name, name) if name else None


def _f(value) -> float:
    """``value`` as TensorRT stores it (float32: a larger magnitude becomes an infinity, as in C++'s cast)."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def importer_view(model: onnx.ModelProto, view: ModelView | None = None) -> list[TrtLayer]:
    """The TensorRT layers onnx-tensorrt 10.1 builds from ``model``, in node order (see the module's doc);
    ``view``: the model's ModelView when the caller has one (``check`` does)."""
    view = view if view is not None else ModelView(model)
    layers: list[TrtLayer] = []
    for node in view.nodes:
        layers += node_layers(node, view)
    return layers


def node_layers(node: NodeView, view: ModelView) -> list[TrtLayer]:
    out = tuple(trt_type(t) for t in node.output_types)
    ins = tuple(trt_type(t) for t, n in zip(node.input_types, node.inputs) if n)

    def layer(kind, attrs=(), inputs=ins, outputs=out, cite=""):
        return TrtLayer(kind, tuple(sorted(attrs)), tuple(inputs), tuple(outputs), node.name,
                        CITATIONS[cite][0] if cite else "")

    op = node.op
    if node.node.domain not in ("", "ai.onnx"):
        return [layer(f"?{node.node.domain}.{op}")]
    if op == "Constant":
        return []
    if op in ELEMENTWISE:
        return _elementwise(node, layer, ELEMENTWISE[op], ins, out)
    if op == "BatchNormalization":
        return _batchnorm(node, layer, ins, out)
    if op == "Resize":
        return [_resize(node, layer, ins, out)]
    if op in UNARY:
        if op == "Neg" and node.input_types[0] == "int32":
            return [layer("IElementWiseLayer", (("op", "kSUB"),), ("kINT32", "kINT32"), out, "unary.neg-int32")]
        return [layer("IUnaryLayer", (("op", UNARY[op]),), ins[:1], out, "unary")]
    if op in ACTIVATIONS:
        kind, defaults = ACTIVATIONS[op]
        attrs = [("type", kind)] + [(k, _f(float_attr(node, k, v))) for k, v in defaults]
        return [layer("IActivationLayer", attrs, ins[:1], out, "activation")]
    if op == "Clip":
        return _clip(node, layer, ins, out)
    if op == "Cast":
        return [layer("ICastLayer", (("to", out[0]),), ins, out, "cast")]
    if op == "Conv":
        return _conv(node, layer, ins, out)
    if op in ("MaxPool", "AveragePool"):
        return _pool(node, layer, ins, out)
    if op in ("GlobalAveragePool", "GlobalMaxPool"):
        rank = node.rank(0)
        axes = None if rank is None else tuple(range(2, rank))
        return [layer("IReduceLayer", (("op", "kAVG" if op == "GlobalAveragePool" else "kMAX"), ("axes", axes),
                                       ("keep_dims", True)), ins, out, "global_pool")]
    if op == "Gemm":
        return _gemm(node, layer, ins, out)
    if op == "MatMul":
        ops = tuple("kVECTOR" if node.rank(i) == 1 else "kNONE" for i in (0, 1))
        return [layer("IMatrixMultiplyLayer", (("op0", ops[0]), ("op1", ops[1])), ins, out, "matmul")]
    if op == "Concat":
        axis = normalized_axis(int_attr(node, "axis"), node.rank(0))  # None: unknown rank, or out of range
        return [layer("IConcatenationLayer", (("axis", axis),), ins, out, "concat")]
    if op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze"):
        shape = node.output_shapes[0] if node.output_shapes else None
        return [layer("IShuffleLayer", (("reshape", tuple(shape) if shape else None),), ins[:1], out, "reshape")]
    if op == "Transpose":
        rank = node.rank(0)
        perm = ints_attr(node, "perm") or (list(range(rank))[::-1] if rank is not None else None)
        return [layer("IShuffleLayer", (("first_transpose", tuple(perm) if perm else None),), ins[:1], out, "reshape")]
    if op == "Slice":
        return [layer("ISliceLayer", (), ins[:1], out, "slice")]
    if op == "Softmax":
        axis = normalized_axis(int_attr(node, "axis", -1 if node.since >= 13 else 1), node.rank(0))
        return [layer("ISoftMaxLayer", (("axes", axis),), ins[:1], out, "softmax"),
                layer("IShuffleLayer", (("reshape", tuple(node.output_shapes[0] or ())),), out, out, "softmax.reshape")]
    if op == "Gather":
        axis = normalized_axis(int_attr(node, "axis", 0), node.rank(0))
        found = []
        indices = trt_type(node.input_types[1])
        if node.input_types[0] != "int64" and node.input_types[1] == "int64":
            found.append(layer("ICastLayer", (("to", "kINT32"),), ("kINT64",), ("kINT32",), "gather.int64"))
            indices = "kINT32"
        return found + [layer("IGatherLayer", (("axis", axis),), (ins[0], indices), out, "gather")]
    if op == "Range":
        return [layer("IFillLayer", (("op", "kLINSPACE"),), ins, out, "range")]
    if op == "PRelu":
        return [layer("IParametricReLULayer", (), ins, out, "prelu")]
    if op == "Where":
        return [layer("ISelectLayer", (), ins, out, "where")]
    if op == "Identity":
        return [layer("IIdentityLayer", (), ins, out, "identity")]
    if op == "Shape":
        return [layer("IShapeLayer", (), ins, ("kINT32",), "shape"), layer("ICastLayer", (("to", "kINT64"),), ("kINT32",), out, "shape")]
    if op in ("QuantizeLinear", "DequantizeLinear"):
        return [_qdq(node, layer, ins, out)]
    if op == "Mod" and node.input_types[0] in ("int32", "int64"):
        div = "kDIV" if int_attr(node, "fmod", 0) else "kFLOOR_DIV"
        t = trt_type(node.input_types[0])
        return [layer("IElementWiseLayer", (("op", o),), (t, t), (t,), "mod.int") for o in (div, "kPROD", "kSUB")]
    return [layer(f"?{op}")]


def _elementwise(node, layer, op, ins, out):
    present = [i for i, n in enumerate(node.inputs) if n]
    if len(present) == 1:
        return [layer("IIdentityLayer", (), ins, out, "elementwise.single")]
    ranks = [node.rank(i) for i in present]
    found = []
    if None not in ranks and len(set(ranks)) > 1:  # broadcastTensor: an IShuffleLayer unsqueezes the lower rank
        top = max(ranks)
        found += [layer("IShuffleLayer", (("reshape", "unsqueeze"),), (ins[k],), (ins[k],), "elementwise.broadcast")
                  for k, r in enumerate(ranks) if r < top and node.constants[present[k]] is None]
    combined = ins[0]
    for k in range(1, len(ins)):
        result = out[0] if k == len(ins) - 1 else combined
        found.append(layer("IElementWiseLayer", (("op", op),), (combined, ins[k]), (result,), "elementwise"))
        combined = result
    return found


def _batchnorm(node, layer, ins, out):
    weights = [node.constants[i] for i in range(1, 5)]
    if any(w is None for w in weights):  # batchnormFallback: elementwise layers
        x = ins[0]
        return [layer("IElementWiseLayer", (("op", "kSUM"),), (ins[4], ins[4]), (ins[4],), "batchnorm.fallback"),
                layer("IUnaryLayer", (("op", "kSQRT"),), (ins[4],), (ins[4],), "batchnorm.fallback"),
                layer("IElementWiseLayer", (("op", "kSUB"),), (x, ins[3]), (x,), "batchnorm.fallback"),
                layer("IElementWiseLayer", (("op", "kDIV"),), (x, ins[4]), (x,), "batchnorm.fallback"),
                layer("IElementWiseLayer", (("op", "kPROD"),), (ins[1], x), (x,), "batchnorm.fallback"),
                layer("IElementWiseLayer", (("op", "kSUM"),), (x, ins[2]), out, "batchnorm.fallback")]
    scale, bias, mean, var = (np.asarray(w, np.float32).ravel() for w in weights)
    eps = np.float32(_f(float_attr(node, "epsilon", 1e-5)))
    combined_scale = scale / np.sqrt(var + eps)
    combined_bias = bias - mean * combined_scale
    same = len({node.input_types[i] for i in range(5)}) == 1
    wtype = node.input_types[0] if same else "float"
    if wtype == "float16":
        combined_scale, combined_bias = combined_scale.astype(np.float16), combined_bias.astype(np.float16)
    attrs = (("mode", "kCHANNEL"), ("scale", tuple(float(v) for v in combined_scale)),
             ("shift", tuple(float(v) for v in combined_bias)), ("power", ()))
    found = [layer("IScaleLayer", attrs, ins[:1], out, "batchnorm.weights")]
    rank = node.rank(0)
    if rank is not None and rank not in (4, 5):
        shuffle = layer("IShuffleLayer", (("reshape", "to 4-D" if rank < 4 else "to 5-D"),), ins[:1], ins[:1], "scale.reshape")
        back = layer("IShuffleLayer", (("reshape", "back"),), out, out, "scale.reshape")
        found = [shuffle] + found + [back]
    return found


def _resize(node, layer, ins, out):
    mode = RESIZE_MODES.get(string_attr(node, "mode", "nearest"), "kNEAREST")
    attrs = {"mode": mode, "selector": "kFORMULA", "nearest_rounding": "kHALF_DOWN"}
    if node.since is not None and node.since >= 11:
        ctm = string_attr(node, "coordinate_transformation_mode", "half_pixel")
        attrs["coordinate_transformation"] = COORDINATES.get(ctm, f"?{ctm}")
        if ctm == "pytorch_half_pixel":
            attrs["selector"] = "kUPPER"
        if ctm == "tf_half_pixel_for_nn":
            attrs["nearest_rounding"] = "kCEIL"
        else:
            attrs["nearest_rounding"] = ROUNDING.get(string_attr(node, "nearest_mode", "round_prefer_floor"), "kHALF_DOWN")
            attrs["exclude_outside"] = int_attr(node, "exclude_outside", 0)
            if mode == "kCUBIC":
                attrs["cubic_coeff"] = _f(float_attr(node, "cubic_coeff_a", -0.75))
    else:
        attrs["coordinate_transformation"] = "kASYMMETRIC"
        if mode == "kNEAREST":
            attrs["nearest_rounding"] = "kFLOOR"
    scales_at = 2 if (node.since or 0) >= 11 else 1
    sizes = node.constants[3] if len(node.inputs) > 3 and node.inputs[3] else None
    scales = node.constants[scales_at] if len(node.inputs) > scales_at and node.inputs[scales_at] else None
    if sizes is not None:
        attrs["output_dims"] = tuple(int_values(sizes) or ())
    elif scales is not None and scales.size:
        attrs["scales"] = tuple(_f(v) for v in scales.ravel())
    elif _runtime(node, 3) or _runtime(node, scales_at):
        # sizes (or scales) computed at run time: a shape tensor the importer gives the layer as its input 1,
        # IResizeLayer::setInput(1, shape) (scales: resizeShapeTensor(input, scales) first); one IResizeLayer
        attrs["output_dims"] = "input1"
        return layer("IResizeLayer", attrs.items(), ins[:1], out, "resize.sizes-input" if _runtime(node, 3) else "resize.scales-input")
    return layer("IResizeLayer", attrs.items(), ins[:1], out, "resize")


def _runtime(node, i: int) -> bool:
    """Whether input ``i`` of ``node`` is given and is no constant (a run-time tensor)."""
    return len(node.inputs) > i and bool(node.inputs[i]) and node.constants[i] is None


def _clip(node, layer, ins, out):
    t = node.input_types[0]
    runtime_bounds = any(len(node.inputs) > i and node.inputs[i] and node.constants[i] is None for i in (1, 2))
    if t in ("int32", "int64") or runtime_bounds:
        found = []
        for i, op in ((1, "kMAX"), (2, "kMIN")):
            if len(node.inputs) > i and node.inputs[i]:
                found.append(layer("IElementWiseLayer", (("op", op),), (ins[0], trt_type(node.input_types[i])), out, "clip.elementwise"))
        return found
    low, high = -np.finfo(np.float32).max, np.finfo(np.float32).max
    if node.since is not None and node.since >= 11:
        if len(node.inputs) > 1 and node.inputs[1]:
            low = node.constants[1].ravel()[0]
        if len(node.inputs) > 2 and node.inputs[2]:
            high = node.constants[2].ravel()[0]
    else:
        low, high = float_attr(node, "min", low), float_attr(node, "max", high)
    return [layer("IActivationLayer", (("type", "kCLIP"), ("alpha", _f(low)), ("beta", _f(high))), ins[:1], out, "activation")]


def _kernel_attrs(node, spatial):
    def ints(name, default):
        value = ints_attr(node, name)
        if not value:
            return tuple([default] * spatial)
        return tuple(list(value) + [default] * (spatial - len(value)))[:spatial]

    pads = ints_attr(node, "pads") or [0] * (2 * spatial)
    half = len(pads) // 2
    auto = string_attr(node, "auto_pad", "NOTSET")
    mode = {"SAME_LOWER": "kSAME_LOWER", "SAME_UPPER": "kSAME_UPPER"}.get(auto, "kEXPLICIT_ROUND_DOWN")
    if int_attr(node, "ceil_mode", 0):
        mode = "kEXPLICIT_ROUND_UP"
    return {"strides": ints("strides", 1), "pre_padding": tuple(list(pads[:half]) + [0] * (spatial - half))[:spatial],
            "post_padding": tuple(list(pads[half:]) + [0] * (spatial - half))[:spatial], "padding_mode": mode}


def _conv(node, layer, ins, out):
    w = node.constants[1]
    rank = node.rank(0)
    if w is None:
        kernel = tuple(ints_attr(node, "kernel_shape") or ())
        outputs = None
    else:
        kernel, outputs = tuple(int(d) for d in w.shape[2:]) + ((1,) if w.ndim == 3 else ()), int(w.shape[0])
    spatial = len(kernel)
    attrs = _kernel_attrs(node, spatial)
    dil = ints_attr(node, "dilations") or [1] * spatial
    attrs.update({"kernel": kernel, "outputs": outputs, "groups": int_attr(node, "group", 1),
                  "dilations": tuple(list(dil) + [1] * (spatial - len(dil)))[:spatial]})
    conv = layer("IConvolutionLayer", attrs.items(), ins[:1], out, "conv")
    if rank == 3:
        return [layer("IShuffleLayer", (("reshape", "unsqueeze"),), ins[:1], ins[:1], "conv.1d"), conv,
                layer("IShuffleLayer", (("reshape", "squeeze"),), out, out, "conv.1d")]
    return [conv]


def _pool(node, layer, ins, out):
    kernel = tuple(ints_attr(node, "kernel_shape") or ())
    attrs = _kernel_attrs(node, len(kernel))
    attrs.update({"type": "kMAX" if node.op == "MaxPool" else "kAVERAGE", "window": kernel})
    if node.op == "AveragePool":
        attrs["average_count_excludes_padding"] = not int_attr(node, "count_include_pad", 0)
    return [layer("IPoolingLayer", attrs.items(), ins[:1], out, "pool")]


def _gemm(node, layer, ins, out):
    def op(i, flag):
        if node.rank(i) == 1:
            return "kVECTOR"
        return "kTRANSPOSE" if int_attr(node, flag, 0) else "kNONE"

    found = [layer("IMatrixMultiplyLayer", (("op0", op(0, "transA")), ("op1", op(1, "transB"))), ins[:2], out, "gemm")]
    if float_attr(node, "alpha", 1.0) != 1.0:
        found.append(layer("IElementWiseLayer", (("op", "kPROD"),), ("kFLOAT", out[0]), out, "gemm"))
    if len(node.inputs) > 2 and node.inputs[2]:
        if float_attr(node, "beta", 1.0) != 1.0:
            found.append(layer("IElementWiseLayer", (("op", "kPROD"),), ("kFLOAT", ins[2]), (ins[2],), "gemm"))
        found.append(layer("IElementWiseLayer", (("op", "kSUM"),), (out[0], ins[2]), out, "gemm"))
    return found


def _qdq(node, layer, ins, out):
    rank = node.rank(0)
    scale = node.constants[1]
    if scale is not None and scale.size == 1:
        axis = 0 if rank is not None and rank <= 1 else 1  # per-tensor: the importer's own axis
    else:  # per-channel: the node's axis attribute, else 0 (not ONNX's default 1)
        axis = qdq_axis(node, rank) if rank is not None else None
    kind, cite = ("IQuantizeLayer", "quantize") if node.op == "QuantizeLinear" else ("IDequantizeLayer", "dequantize")
    return layer(kind, (("axis", axis),), ins[:1], out, cite)


def render(layers: list[TrtLayer]) -> str:
    """One line per layer: ``node: IKindLayer attr=value ...  (input types -> output types)``."""
    return "\n".join(f"{l.node}: {l}" for l in layers)


__all__ = ["TrtLayer", "importer_view", "render", "ONNX_TENSORRT"]
