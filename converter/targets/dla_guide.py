"""tensorrt-dla beyond the seed layers: what DLA runs per TensorRT layer, as "GPU fallback" warnings.

Release: the rules hold for **TensorRT 10.7 on Jetson and DriveOS** (``DLA_RELEASE``). The TensorRT 11.x
guide says "TensorRT 10.7 was the last release that supported DLA" ("Working with DLA",
https://docs.nvidia.com/deeplearning/tensorrt/11.3.0/inference-library/work-with-dla.html); TensorRT
11.4's DLA for Windows on ARM is a different, restricted set without GPU fallback ("DLA Supported Layers
for Windows on ARM", https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/dla-windows-on-arm.html)
and is not what these rules describe.

Sources, each rule citing one:
- ``NvInfer.h:LINE``: the DLA notes of TensorRT's own API header at NVIDIA/TensorRT tag v10.7.0
  (commit 17003e43da9858f574e3a4a1d795fcf218862fe3), include/NvInfer.h; ``quote`` is a piece of that line
  (tools/verify_tensorrt_rules.py checks them with ``--nvinfer``).
- ``GUIDE``: NVIDIA's "DLA Supported Layers and Restrictions", Table "DLA Layer Support Summary" and "General
  Restrictions" (https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/dla-layer-restrictions.html),
  which also lists Leaky ReLU among the activations and Div, Pow and the comparisons (Equal, Greater, Less)
  among the DLA ElementWise operations, where the 10.7 header's IElementWiseLayer note lists only kSUM,
  kPROD, kMAX, kMIN, kSUB: the guide (and the seeds' ElementWise "DLA 支持") win.
- The seeds' DLA rules (converter/targets/dla.py) cover Scale, ElementWise's constant inputs and the
  Resize combinations; they stay errors.

Layer kinds are those the importer view (trt_importer.py) gives for a node. A kind DLA has no layer for
(ICastLayer, IGatherLayer, ISelectLayer, IIdentityLayer, IShapeLayer, IMatrixMultiplyLayer, ...) or a
layer outside a documented limit is "GPU fallback": TensorRT runs it on the GPU when GPU fallback is
allowed (``--allowGPUFallback``, ``BuilderFlag::kGPU_FALLBACK``) — a warning, never an error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .model_view import int_values
from .trt_importer import node_layers

DLA_RELEASE = "TensorRT 10.7 (Jetson/DriveOS; the last release with DLA there; not TensorRT 11.4's Windows-on-ARM DLA)"
NVINFER = "NVIDIA/TensorRT v10.7.0 (17003e43da9858f574e3a4a1d795fcf218862fe3) include/NvInfer.h"
GUIDE = "NVIDIA TensorRT guide, DLA Supported Layers and Restrictions"
FALLBACK = "GPU fallback: TensorRT runs it on the GPU when GPU fallback is allowed"
MAX_DIM = 8192

# Layer kinds DLA runs (GUIDE, "DLA Layer Support Summary"; IScaleLayer/IResizeLayer also the seeds').
DLA_LAYERS = ("IActivationLayer", "IConvolutionLayer", "IDeconvolutionLayer", "IElementWiseLayer", "IConcatenationLayer",
              "IPoolingLayer", "ILRNLayer", "IParametricReLULayer", "IScaleLayer", "IResizeLayer", "IReduceLayer",
              "IShuffleLayer", "ISliceLayer", "ISoftMaxLayer", "IUnaryLayer", "IQuantizeLayer", "IDequantizeLayer")


@dataclass(frozen=True)
class DlaRule:
    id: str
    kind: str  # TensorRT layer kind
    why: str
    source: str  # "NvInfer.h:LINE" or GUIDE
    quote: str  # a piece of that line (NvInfer.h) or of the guide's text
    test: Callable  # (TrtLayer, NodeView) -> str | None


def _pairs(values):
    return [int(v) for v in (values or ())]


def _conv_kernel(layer, node):
    k = _pairs(layer.attr("kernel"))
    if len(k) != 2:
        return f"kernel {k} is not 2-D"
    return None if all(1 <= v <= 32 for v in k) else f"kernel {k} outside [1, 32]"


def _conv_stride(layer, node):
    s = _pairs(layer.attr("strides"))
    return None if all(1 <= v <= 8 for v in s) else f"stride {s} outside [1, 8]"


def _conv_padding(layer, node):
    k = _pairs(layer.attr("kernel"))
    for pads in (_pairs(layer.attr("pre_padding")), _pairs(layer.attr("post_padding"))):
        if any(not 0 <= p <= 31 for p in pads) or (len(k) == len(pads) and any(p >= kk for p, kk in zip(pads, k))):
            return f"padding {pads} outside [0, 31] or not less than kernel {k}"
    return None


def _conv_dilation(layer, node):
    d = _pairs(layer.attr("dilations"))
    return None if all(1 <= v <= 32 for v in d) else f"dilation {d} outside [1, 32]"


def _conv_outputs(layer, node):
    n = layer.attr("outputs")
    return None if n is None or 1 <= n <= MAX_DIM else f"{n} output maps"


def _conv_groups(layer, node):
    g = layer.attr("groups") or 1
    return None if g <= MAX_DIM else f"{g} groups"


def _activation(layer, node):
    t = layer.attr("type")
    return None if t in ("kRELU", "kSIGMOID", "kTANH", "kCLIP", "kLEAKY_RELU") else f"activation {t}"


def _two_d(layer, node):
    r = node.rank(0)
    return None if r is None or r == 4 else f"input rank {r}"


def _pool_window(layer, node):
    w = _pairs(layer.attr("window"))
    if len(w) != 2:
        return f"window {w} is not 2-D"
    return None if all(1 <= v <= 8 for v in w) else f"window {w} outside [1, 8]"


def _pool_stride(layer, node):
    s = _pairs(layer.attr("strides"))
    return None if all(1 <= v <= 16 for v in s) else f"stride {s} outside [1, 16]"


def _pool_padding(layer, node):
    for pads in (_pairs(layer.attr("pre_padding")), _pairs(layer.attr("post_padding"))):
        if any(not 0 <= p <= 7 for p in pads):
            return f"padding {pads} outside [0, 7]"
    return None


def _concat_axis(layer, node):
    r, axis = node.rank(0), layer.attr("axis")
    if r is None or axis is None:
        return None
    return None if axis == r - 3 else f"axis {axis} of rank {r} (the third to last is {r - 3})"


def _concat_inputs(layer, node):
    n = len([i for i in node.inputs if i])
    return None if n >= 2 else f"{n} input"


def _elementwise_op(layer, node):
    op = layer.attr("op")
    ok = ("kSUM", "kSUB", "kPROD", "kMAX", "kMIN", "kDIV", "kPOW", "kEQUAL", "kGREATER", "kLESS")
    return None if op in ok else f"operation {op}"


def _unary_op(layer, node):
    return None if layer.attr("op") == "kABS" else f"operation {layer.attr('op')}"


def _softmax(layer, node):
    shape = node.input_shapes[0] if node.input_shapes else None
    axis = layer.attr("axes")
    if shape is None or axis is None or None in shape:
        return None
    if axis == 0:
        return "axis is the batch dimension"
    others = [d for i, d in enumerate(shape) if i not in (0, axis)]
    limit = MAX_DIM if all(d == 1 for d in others) else 1024
    return None if shape[axis] <= limit else f"axis dimension {shape[axis]} over {limit}"


def _slice(layer, node):
    r = node.rank(0)
    if r is not None and r != 4:
        return f"input rank {r}"
    consts = node.constants
    if any(node.inputs[i] and consts[i] is None for i in range(1, min(len(node.inputs), 5))):
        return "starts, ends, axes or steps computed at run time"
    steps = int_values(consts[4]) if len(consts) > 4 and node.inputs[4] else None
    if steps is not None and any(s != 1 for s in steps):
        return f"steps {steps}"
    axes = int_values(consts[3]) if len(consts) > 3 and node.inputs[3] else None
    if axes is not None and r and any(a % r == 0 for a in axes):
        return "slices the first dimension"
    return None


def _resize_output_dims(layer, node):
    return "output dimensions (sizes) instead of scales" if layer.attr("output_dims") is not None else None


def _resize_scales(layer, node):
    scales = layer.attr("scales")
    if scales is None:
        return None
    if len(scales) != 4 or scales[0] != 1 or scales[1] != 1:
        return f"scales {list(scales)}"
    high = 32 if layer.attr("mode") == "kNEAREST" else 4
    if any(not math.isfinite(s) or s != int(s) or not 1 <= s <= high for s in scales[2:]):
        return f"scales {list(scales)}: H and W scales integers in [1, {high}]"
    return None


def _prelu(layer, node):
    return "the slopes are computed at run time" if len(node.constants) > 1 and node.constants[1] is None else None


R = DlaRule
DLA_RULES: tuple[DlaRule, ...] = (
    R("conv.kernel", "IConvolutionLayer", "2-D kernel, height and width in [1, 32]", "NvInfer.h:1211",
      "If executing this layer on DLA, only support 2D kernel size, both height and width of kernel size must be in the", _conv_kernel),
    R("conv.stride", "IConvolutionLayer", "2-D stride in [1, 8]", "NvInfer.h:1236",
      "If executing this layer on DLA, only support 2D stride, both height and width of stride must be in the range", _conv_stride),
    R("conv.padding", "IConvolutionLayer", "padding in [0, 31] and less than the kernel", "NvInfer.h:1264",
      "If executing this layer on DLA, only support 2D padding, both height and width of padding must be in the range", _conv_padding),
    R("conv.dilation", "IConvolutionLayer", "dilation in [1, 32]", "NvInfer.h:1291",
      "If executing this layer on DLA, only support 2D padding, both height and width must be in the range [1,32].", _conv_dilation),
    R("conv.outputs", "IConvolutionLayer", "output maps in [1, 8192]", "NvInfer.h:1030",
      "If executing this layer on DLA, the number of output maps must be in the range [1,8192].", _conv_outputs),
    R("conv.groups", "IConvolutionLayer", "at most 8192 groups", "NvInfer.h:1060",
      "If executing this layer on DLA, the max number of groups is 8192.", _conv_groups),
    R("activation.type", "IActivationLayer", "ReLU, Sigmoid, TanH, Clip (and Leaky ReLU, per the guide)", "NvInfer.h:1350",
      "On the DLA, the valid activation types are kRELU, kSIGMOID, kTANH, and kCLIP.", _activation),
    R("activation.2d", "IActivationLayer", "2D only (a 4-D NCHW input)", GUIDE, "Activation | FP16, INT8 | 2D only", _two_d),
    R("pool.window", "IPoolingLayer", "2-D window in [1, 8]", "NvInfer.h:1619",
      "If executing this layer on DLA, only support 2D window size, both height and width of window size must be in the", _pool_window),
    R("pool.stride", "IPoolingLayer", "2-D stride in [1, 16]", "NvInfer.h:1644",
      "If executing this layer on DLA, only support 2D stride, both height and width of stride must be in the range", _pool_stride),
    R("pool.padding", "IPoolingLayer", "padding in [0, 7]", "NvInfer.h:1673",
      "If executing this layer on DLA, only support 2D padding, both height and width of padding must be in the range", _pool_padding),
    R("concat.axis", "IConcatenationLayer", "the channel axis (third to last) only", "NvInfer.h:2063",
      "When running this layer on the DLA, the concatenation axis must be the third to last axis, e.g. C if tensor", _concat_axis),
    R("concat.inputs", "IConcatenationLayer", "at least 2 inputs", GUIDE, "Concatenation | FP16, INT8 | Channel axis only; ≥ 2 inputs", _concat_inputs),
    R("elementwise.op", "IElementWiseLayer", "Sum, Sub, Product, Max, Min, Div, Pow, Equal, Greater, Less", GUIDE,
      "ElementWise | FP16, INT8 | 2D only; Sum, Sub, Product, Max, Min, Div, Pow", _elementwise_op),
    R("elementwise.2d", "IElementWiseLayer", "2D only (4-D NCHW inputs)", GUIDE,
      "ElementWise | FP16, INT8 | 2D only; Sum, Sub, Product, Max, Min, Div, Pow", _two_d),
    R("unary.op", "IUnaryLayer", "kABS only", "NvInfer.h:2810", "When running this layer on DLA, only UnaryOperation::kABS is supported.",
      _unary_op),
    R("softmax.axis", "ISoftMaxLayer", "a channel or spatial axis of at most 8192 (1024 when another non-batch dim is over 1)",
      "NvInfer.h:1989", "//! * Axis must be one of the channel or spatial dimensions.", _softmax),
    R("slice.form", "ISliceLayer", "a 4-D input, build-time starts/sizes/axes, strides 1, not slicing the first dim",
      "NvInfer.h:3293", "//! * The input tensor has four dimensions.", _slice),
    R("resize.output-dims", "IResizeLayer", "scales, not output dimensions", "NvInfer.h:4103",
      "If executing this layer on DLA, setOutputDimensions() is not supported.", _resize_output_dims),
    R("resize.scales", "IResizeLayer", "4 scales, the first two 1, H and W integers in [1, 32] (nearest) or [1, 4] (linear)",
      "NvInfer.h:4136", "If executing this layer on DLA, there are three restrictions:", _resize_scales),
    R("prelu.slopes", "IParametricReLULayer", "the slopes are a build-time constant", "NvInfer.h:3901",
      "When running this layer on DLA, the slopes input must be a build-time constant.", _prelu),
)
NO_DLA = {"IGatherLayer": ("NvInfer.h:2595", "//! * No DLA support")}


def node_warnings(node, view) -> list[str]:
    """The "GPU fallback" verdicts of ``node`` (a NodeView): the layers onnx-tensorrt builds from it that DLA does not run."""
    found = []
    for layer in node_layers(node, view):
        if layer.kind not in DLA_LAYERS:
            cite = NO_DLA.get(layer.kind, (GUIDE,))[0]
            why = f"{FALLBACK} (DLA has no {layer.kind.lstrip('?')}; {cite}, {DLA_RELEASE.split(' (')[0]})"
            if why not in found:
                found.append(why)
            continue
        for rule in DLA_RULES:
            detail = rule.test(layer, node) if rule.kind == layer.kind else None
            why = f"{FALLBACK} ({layer.kind}: {rule.why}: {detail}; {rule.source})" if detail else None
            if why and why not in found:
                found.append(why)
    shape = node.input_shapes[0] if node.input_shapes else None
    if shape and any(d is not None and d > MAX_DIM for d in shape[1:]):
        found.append(f"{FALLBACK} (a non-batch dimension of {list(shape)} is over {MAX_DIM}; {GUIDE}, General Restrictions)")
    return found
