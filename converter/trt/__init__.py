"""TensorRT's Python network API for the layer kinds spec2onnx lowers: Scale, ElementWise, Resize (and any kind
registered with a builder hook).

Code written against ``tensorrt`` for these layers ports by changing the import::

    from spec2onnx import trt            # was: import tensorrt as trt

    logger = trt.Logger(trt.Logger.ERROR)
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    x = network.add_input("x", trt.float32, (-1, 3, -1, -1))       # -1: dynamic
    layer = network.add_scale(x, trt.ScaleMode.UNIFORM, shift, scale, power)
    network.mark_output(layer.get_output(0))

    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 3, 8, 8), (2, 3, 16, 16), (4, 3, 32, 32))
    config.add_optimization_profile(profile)
    config.set_flag(trt.BuilderFlag.FP16)  # with default_device_type = trt.DeviceType.DLA: tensorrt-dla
    plan = builder.build_serialized_network(network, config)   # the ONNX model, serialized (bytes)

    network.to_onnx(target="ort-cpu", config=config)   # an onnx.ModelProto
    network.to_spec("scale.yaml", config=config)       # a spec file `spec2onnx validate` takes (profiles, precision)
    network.validate(config=config)                    # at min, opt and max of each profile, against the reference

Names follow TensorRT's Python API (TensorRT 10): ``INetworkDefinition.add_input/add_constant/add_scale/
add_scale_nd/add_elementwise/add_resize/mark_output``, layers with ``get_output(0)``, ``set_input`` and settable
properties, the enums ``DataType`` (and ``trt.float32`` ...), ``ScaleMode``, ``ElementWiseOperation``,
``InterpolationMode`` (alias ``ResizeMode``), ``ResizeCoordinateTransformation``, ``ResizeSelector``,
``ResizeRoundMode``, and the build side: ``Builder.create_builder_config`` (``IBuilderConfig``: ``BuilderFlag``,
``DeviceType``, ``MemoryPoolType``), ``create_optimization_profile`` (``IOptimizationProfile``),
``build_serialized_network`` (an ``IHostMemory``). Objects refuse unknown attributes (AttributeError), and every
public call and setter checks its arguments (``BuilderTypeError``/``BuilderValueError``, which are TypeError/ValueError
and UserError) naming the call and the argument; docs/builder.md maps each name to the spec and the target. What the
network means is checked by the spec loader: the network is written as the mapping a spec file holds and validated
there (one validation path).

The package, by concern: ``errors`` (the errors and the argument checks), ``enums``, ``layers`` (tensors, layers,
Weights, Dims), ``network`` (INetworkDefinition), ``config`` (IBuilderConfig, IOptimizationProfile: profiles and
precision), ``placement`` (GPU or DLA: the tensorrt-dla rules), ``builder`` (Builder, IHostMemory).
"""

from .builder import Builder, IHostMemory, Logger
from .config import IBuilderConfig, IOptimizationProfile
from .enums import (BuilderFlag, DataType, DeviceType, ElementWiseOperation, InterpolationMode, LayerType, MemoryPoolType,
                    NetworkDefinitionCreationFlag, ResizeCoordinateTransformation, ResizeMode, ResizeRoundMode,
                    ResizeSelector, ScaleMode, bfloat16, bool, float16, float32, int8, int32, int64, nptype, uint8)
from .errors import BuilderTypeError, BuilderUnsupportedError, BuilderValueError
from .layers import (Dims, Dims2, Dims3, Dims4, DimsHW, IConstantLayer, IElementWiseLayer, ILayer, IResizeLayer,
                     IScaleLayer, ITensor, Weights)
from .network import INetworkDefinition

__all__ = ["DataType", "float32", "float16", "bfloat16", "int8", "int32", "int64", "uint8", "bool", "nptype",
           "LayerType", "ScaleMode", "ElementWiseOperation", "InterpolationMode", "ResizeMode", "ResizeCoordinateTransformation",
           "ResizeSelector", "ResizeRoundMode", "Logger", "Builder", "NetworkDefinitionCreationFlag", "Weights",
           "INetworkDefinition", "ITensor", "ILayer", "IConstantLayer", "IScaleLayer", "IElementWiseLayer", "IResizeLayer",
           "BuilderFlag", "DeviceType", "MemoryPoolType", "IBuilderConfig", "IOptimizationProfile", "IHostMemory",
           "BuilderTypeError", "BuilderValueError", "BuilderUnsupportedError", "Dims", "Dims2", "Dims3", "Dims4", "DimsHW"]


# What runs a TensorRT engine has no counterpart: the built model runs on onnxruntime (or any ONNX runtime).
_REFUSED_MODULE = {
    "Runtime": "spec2onnx.trt builds ONNX models, not engines: run build_serialized_network's result with "
               "onnxruntime.InferenceSession(bytes(plan)), or check it with spec2onnx.check(plan.model, plan.target)",
    "ICudaEngine": "see Runtime", "IExecutionContext": "see Runtime", "OnnxParser": "spec2onnx converts specs; use spec2onnx.check on ONNX models",
    "IInt8EntropyCalibrator2": "there is no calibration: give int8 tensors their range with ITensor.set_dynamic_range",
    "Network": "the network class is TensorRT's INetworkDefinition: builder.create_network() (or trt.INetworkDefinition())",
}


def __getattr__(name: str):
    if name in _REFUSED_MODULE:
        raise AttributeError(f"spec2onnx.trt.{name}: not available: {_REFUSED_MODULE[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
