"""tensorrt-dla beyond the seed layers: NVIDIA's "DLA Supported Layers and Restrictions", as warnings.

Release: the rules hold for **TensorRT 10.7 on Jetson and DriveOS** (``DLA_RELEASE``): the TensorRT 11.x
guide says "TensorRT 10.7 was the last release that supported DLA" there (Working with DLA,
https://docs.nvidia.com/deeplearning/tensorrt/11.3.0/inference-library/work-with-dla.html); TensorRT 11.4's
DLA for Windows on ARM is a different, restricted set without GPU fallback ("DLA Supported Layers for
Windows on ARM", .../latest/inference-library/dla-windows-on-arm.html) and is not what these rules describe.

Sources (docs/tensorrt.md cites each row):
- "DLA Supported Layers and Restrictions", Table "DLA Layer Support Summary"
  (https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/dla-layer-restrictions.html):
  Activation (FP16, INT8; 2D only; ReLU, Sigmoid, TanH, Clipped ReLU, Leaky ReLU), Comparison (Equal, Greater,
  Less), Concatenation (channel axis only; >= 2 inputs), Convolution / Fully Connected (2D only; kernel
  [1,32]; stride [1,8]; channels [1,8192]), Deconvolution (2D only; no grouped/dilated; padding 0),
  ElementWise (2D only; Sum, Sub, Product, Max, Min, Div, Pow), LRN, Parametric ReLU, and its General
  Restrictions (non-batch dimensions at most 8192; no dynamic dimensions).
- Pooling: NvInfer.h ``IPoolingLayer::setPoolingType`` ("DLA only supports kMAX and kAVERAGE pooling types").
- Scale, Resize: the seeds' DLA rules (converter/targets/dla.py, errors) cover them.
- Reduce, Shuffle, Slice, SoftMax, Unary (ABS, SIN, COS, ATAN), Quantize/Dequantize: DLA layers of the same
  guide; their finer limits (window sizes, Orin-only layers, shuffle forms) are NOT encoded here
  (docs/tensorrt.md lists them as not checked).

Verdict: a layer DLA does not run, or one outside a documented limit, is "GPU fallback" — TensorRT
runs it on the GPU when GPU fallback is allowed (``--allowGPUFallback``, ``BuilderFlag::kGPU_FALLBACK``)
— a warning, never an error: the model still builds and runs. The seeds' rules (dla.py) stay errors.
"""

from __future__ import annotations

DLA_RELEASE = "TensorRT 10.7 (Jetson/DriveOS; the last release with DLA there; not TensorRT 11.4's Windows-on-ARM DLA)"
GUIDE = "NVIDIA TensorRT guide, DLA Supported Layers and Restrictions"
FALLBACK = "GPU fallback: TensorRT runs it on the GPU when GPU fallback is allowed"

ACTIVATIONS = ("kRELU", "kSIGMOID", "kTANH", "kCLIP", "kLEAKY_RELU")
ELEMENTWISE = ("kSUM", "kSUB", "kPROD", "kMAX", "kMIN", "kDIV", "kPOW", "kEQUAL", "kGREATER", "kLESS")
UNARY = ("kABS", "kSIN", "kCOS", "kATAN")
POOLING = ("kMAX", "kAVERAGE")
# Layer kinds the guide lists as DLA layers (their limits below, where encoded).
DLA_LAYERS = ("IActivationLayer", "IConvolutionLayer", "IDeconvolutionLayer", "IMatrixMultiplyLayer", "IElementWiseLayer",
              "IConcatenationLayer", "IPoolingLayer", "ILRNLayer", "IParametricReLULayer", "IScaleLayer", "IResizeLayer",
              "IReduceLayer", "IShuffleLayer", "ISliceLayer", "ISoftMaxLayer", "IUnaryLayer", "IQuantizeLayer",
              "IDequantizeLayer")
MAX_DIM = 8192


def node_warnings(node, view) -> list[str]:
    """The "GPU fallback" verdicts of ``node`` (a NodeView): the layers onnx-tensorrt builds from it that DLA does not run."""
    from .trt_importer import node_layers

    found = []
    for layer in node_layers(node, view):
        why = _layer(layer, node)
        if why and why not in found:
            found.append(why)
    shape = node.input_shapes[0] if node.input_shapes else None
    if shape and any(d is not None and d > MAX_DIM for d in shape[1:]):
        found.append(f"{FALLBACK} (a non-batch dimension of {list(shape)} is over {MAX_DIM}; {GUIDE}, General Restrictions)")
    return found


def _layer(layer, node) -> str | None:
    kind = layer.kind
    if kind not in DLA_LAYERS:
        return f"{FALLBACK} (DLA has no {kind.lstrip('?')} layer; {GUIDE}, {DLA_RELEASE.split(' (')[0]})"
    rank = node.rank(0)
    two_d = f"2D only, input rank {rank}"
    if kind == "IActivationLayer":
        if layer.attr("type") not in ACTIVATIONS:
            return f"{FALLBACK} (activation {layer.attr('type')}: DLA runs ReLU, Sigmoid, TanH, Clipped ReLU, Leaky ReLU; {GUIDE})"
        if rank is not None and rank != 4:
            return f"{FALLBACK} (Activation: {two_d}; {GUIDE})"
    if kind == "IElementWiseLayer":
        if layer.attr("op") not in ELEMENTWISE:
            return f"{FALLBACK} (ElementWise {layer.attr('op')}: DLA runs Sum, Sub, Product, Max, Min, Div, Pow, Equal, Greater, Less; {GUIDE})"
        if rank is not None and rank != 4:
            return f"{FALLBACK} (ElementWise: {two_d}; {GUIDE})"
    if kind == "IUnaryLayer" and layer.attr("op") not in UNARY:
        return f"{FALLBACK} (Unary {layer.attr('op')}: DLA runs ABS, SIN, COS, ATAN; {GUIDE})"
    if kind == "IPoolingLayer":
        if layer.attr("type") not in POOLING:
            return f"{FALLBACK} (Pooling {layer.attr('type')}: DLA runs kMAX and kAVERAGE; NvInfer.h IPoolingLayer)"
        if len(layer.attr("window") or ()) != 2:
            return f"{FALLBACK} (Pooling: 2D only; {GUIDE})"
    if kind == "IConvolutionLayer":
        kernel, strides = layer.attr("kernel") or (), layer.attr("strides") or ()
        if len(kernel) != 2:
            return f"{FALLBACK} (Convolution: 2D only, kernel {list(kernel)}; {GUIDE})"
        if any(not 1 <= k <= 32 for k in kernel):
            return f"{FALLBACK} (Convolution: kernel {list(kernel)} outside [1, 32]; {GUIDE})"
        if any(not 1 <= s <= 8 for s in strides):
            return f"{FALLBACK} (Convolution: stride {list(strides)} outside [1, 8]; {GUIDE})"
        channels = [layer.attr("outputs")] + [node.input_shapes[0][1] if node.input_shapes and node.input_shapes[0] else None]
        if any(c is not None and not 1 <= c <= MAX_DIM for c in channels):
            return f"{FALLBACK} (Convolution: channels {channels} outside [1, {MAX_DIM}]; {GUIDE})"
    if kind == "IConcatenationLayer":
        if layer.attr("axis") not in (None, 1):
            return f"{FALLBACK} (Concatenation: channel axis only, axis {layer.attr('axis')}; {GUIDE})"
        if len([i for i in node.inputs if i]) < 2:
            return f"{FALLBACK} (Concatenation: at least 2 inputs; {GUIDE})"
    return None
