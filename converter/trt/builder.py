"""``trt.Builder`` and what it builds: ``build_serialized_network`` returns the ONNX model lowered for the target the
config describes (an ``IHostMemory``, as TensorRT's serialized plan), with each layer placed on GPU or DLA."""

from __future__ import annotations

import enum

from .config import IBuilderConfig, IOptimizationProfile
from .enums import BuilderFlag, DataType, DeviceType, NetworkDefinitionCreationFlag
from .errors import BuilderTypeError, BuilderUnsupportedError, BuilderValueError, Scoped, Strict, integer, shown
from .layers import IConstantLayer
from .network import INetworkDefinition
from .placement import dla_dynamic_refusal, dla_node_refusals, dla_refusal, lower_for_placement


class Logger(Strict):
    """Stands in for ``trt.Logger`` so that ported code runs; spec2onnx reports by raising errors."""

    Severity = enum.IntEnum("Severity", "INTERNAL_ERROR ERROR WARNING INFO VERBOSE", start=0)
    INTERNAL_ERROR, ERROR, WARNING, INFO, VERBOSE = Severity

    def __init__(self, min_severity: int = Severity.WARNING):
        self.min_severity = min_severity

    @property
    def min_severity(self) -> "Logger.Severity":
        """The least severe messages shown (recorded: spec2onnx reports by raising errors)."""
        return self._min_severity

    @min_severity.setter
    def min_severity(self, value) -> None:
        number = integer(value, "Logger.min_severity", "min_severity", 0, len(Logger.Severity) - 1) \
            if not isinstance(value, Logger.Severity) else int(value)
        self._min_severity = Logger.Severity(number)


# Names of older TensorRT Python APIs, of engines, and of the machine: refused with the way forward.
_ENGINE = "spec2onnx builds no engines: use builder.build_serialized_network(network, config), which returns the ONNX model"
_REFUSED_BUILDER = {
    "build_engine": f"deprecated since TensorRT 8 (gone from TensorRT 10's Python API); {_ENGINE}",
    "build_cuda_engine": f"removed in TensorRT 8; {_ENGINE}",
    "build_engine_with_config": f"it returns an ICudaEngine; {_ENGINE}",
    "max_workspace_size": "replaced by config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, size)",
    "max_batch_size": "networks are explicit-batch: the batch is the first dimension of each input",
    "fp16_mode": "replaced by config.set_flag(trt.BuilderFlag.FP16)",
    "int8_mode": "replaced by config.set_flag(trt.BuilderFlag.INT8)",
    "strict_type_constraints": "spec2onnx computes each layer in its tensors' declared types",
    "platform_has_fast_fp16": "deprecated in TensorRT 10; spec2onnx builds for a target, not this machine: decide FP16 in the config",
    "platform_has_fast_int8": "deprecated in TensorRT 10; spec2onnx builds for a target, not this machine: decide INT8 in the config",
    "num_DLA_cores": "spec2onnx has no device to count: set config.DLA_core to the core you deploy on",
    "max_DLA_batch_size": "spec2onnx has no device to ask",
}


class Builder(Scoped, Strict):
    """``trt.Builder``: networks, builder configs, optimization profiles, and ``build_serialized_network``,
    which returns the ONNX model lowered for the configured target (serialized, like TensorRT's plan)."""

    def __init__(self, logger: Logger | None = None):
        if logger is not None and not isinstance(logger, Logger):
            raise BuilderTypeError(f"trt.Builder(): logger: expected a trt.Logger, got {type(logger).__name__}")
        self._logger = logger

    @property
    def logger(self) -> Logger | None:
        """The logger given (unused: spec2onnx reports by raising errors)."""
        return self._logger

    def create_network(self, flags: int = 0) -> INetworkDefinition:
        """A new, empty ``INetworkDefinition``. Every network is explicit-batch; ``flags`` (a bit mask of
        ``NetworkDefinitionCreationFlag``) is checked and changes nothing."""
        mask = integer(flags, "Builder.create_network()", "flags", 0, None)
        if mask >> len(NetworkDefinitionCreationFlag):
            raise BuilderValueError(f"Builder.create_network(): flags: {shown(mask)} has bits that are no "
                                    f"NetworkDefinitionCreationFlag (0 to {len(NetworkDefinitionCreationFlag) - 1})")
        return INetworkDefinition()

    def create_builder_config(self) -> IBuilderConfig:
        """A new ``IBuilderConfig`` with TensorRT's defaults (device GPU, TF32 on)."""
        return IBuilderConfig()

    def create_optimization_profile(self) -> IOptimizationProfile:
        """A new, empty ``IOptimizationProfile``."""
        return IOptimizationProfile()

    def is_network_supported(self, network: INetworkDefinition, config: IBuilderConfig) -> bool:
        """Whether ``build_serialized_network(network, config)`` would succeed."""
        try:
            self.build_serialized_network(network, config)
        except (BuilderValueError, BuilderUnsupportedError):  # a wrong argument type (BuilderTypeError) is raised
            return False
        return True

    def build_serialized_network(self, network: INetworkDefinition, config: IBuilderConfig) -> "IHostMemory":
        """The network as an ONNX model lowered for the config's target, serialized (an ``IHostMemory``).

        The target: ``default_device_type`` GPU -> ``tensorrt``; DLA -> ``tensorrt-dla`` when every layer runs
        on DLA (float32 in FP16 with ``BuilderFlag.FP16``; float16 and int8 as typed: the one DLA rule of
        converter/targets/dla.py), else, with ``BuilderFlag.GPU_FALLBACK``, ``tensorrt`` with the layers DLA refuses
        listed in ``gpu_fallback``; without it a layer DLA refuses fails the build, naming the call that made it (as
        TensorRT's build fails). A network with -1 dimensions or shape inputs needs an optimization profile (TensorRT:
        "Network has dynamic or shape inputs, but no optimization profile has been defined."); its model keeps
        those dimensions symbolic. The types are the network's: the flags permit precisions, they do not change the model.
        """
        call = "build_serialized_network()"
        if not isinstance(network, INetworkDefinition):
            raise BuilderTypeError(f"{call}: network: expected an INetworkDefinition (builder.create_network()), "
                                   f"got {type(network).__name__}")
        if not isinstance(config, IBuilderConfig):
            raise BuilderTypeError(f"{call}: config: expected an IBuilderConfig (builder.create_builder_config()), "
                                   f"got {type(config).__name__}")
        if not network._outputs:
            raise BuilderValueError(f"{call}: the network has no outputs: mark one with network.mark_output(tensor)")
        spec = network._load(network._spec_doc("trt-network", None, "", config, call), call)
        precision = config._precision
        placement, refused = {}, []  # the non-constant layers' devices; [(layer, why DLA refuses it)]
        for layer in network._layers:
            if isinstance(layer, IConstantLayer):
                continue
            device = config.get_device_type(layer)
            why = dla_refusal(spec, layer, precision) if device == DeviceType.DLA else None
            if why is not None:
                refused.append((layer, why))
                device = DeviceType.GPU
            placement[layer] = device
        on_dla = [layer for layer, device in placement.items() if device == DeviceType.DLA]
        dynamic = dla_dynamic_refusal(spec) if on_dla else None  # DLA takes no profile whose min, opt, max differ
        if dynamic is not None and not config.get_flag(BuilderFlag.GPU_FALLBACK):
            raise BuilderValueError(
                f"{call}: {dynamic}; {len(on_dla)} layers are placed on DLA ({on_dla[0]._call} {on_dla[0].name!r} "
                f"first): give every profile min = opt = max, set config.set_flag(trt.BuilderFlag.GPU_FALLBACK) to run "
                f"them on the GPU (TensorRT: \"All dla layers are falling back to GPU\"), or set the default device to GPU")
        if dynamic is not None:  # with GPU_FALLBACK: every DLA layer runs on the GPU, as TensorRT's build does
            refused += [(layer, dynamic) for layer in on_dla]
            placement.update((layer, DeviceType.GPU) for layer in on_dla)
            on_dla = []
        lowered_for, model = lower_for_placement(network, spec, on_dla, precision, call)
        for layer, why in (dla_node_refusals(model, on_dla, precision) if on_dla else {}).items():
            refused.append((layer, why))
            placement[layer] = DeviceType.GPU
        # the target that runs the model as placed: tensorrt-dla when every layer is on DLA
        target = "tensorrt-dla" if placement and all(d == DeviceType.DLA for d in placement.values()) else "tensorrt"
        if refused and not config.get_flag(BuilderFlag.GPU_FALLBACK):
            layer, why = refused[0]
            raise BuilderValueError(
                f"{call}: {layer._call} {layer.name!r} cannot run on DLA: {why}; with default_device_type DLA, "
                f"set config.set_flag(trt.BuilderFlag.GPU_FALLBACK) to run it on the GPU, or "
                f"config.set_device_type(layer, trt.DeviceType.GPU)" + (f" ({len(refused) - 1} more layers refused)" if len(refused) > 1 else ""))
        _stamp(model, config, placement)
        return IHostMemory(model.SerializeToString(), model=model, target=target, lowered_for=lowered_for,
                           placement={layer.name: device for layer, device in placement.items()},
                           gpu_fallback=tuple((layer.name, why) for layer, why in refused))

    def __getattr__(self, name: str):
        if name in _REFUSED_BUILDER:
            raise AttributeError(f"Builder.{name}: not available: {_REFUSED_BUILDER[name]}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value) -> None:
        if name in _REFUSED_BUILDER:
            raise AttributeError(f"Builder.{name}: not available: {_REFUSED_BUILDER[name]}")
        super().__setattr__(name, value)


class IHostMemory(bytes):
    """What ``build_serialized_network`` returns: the serialized ONNX model (TensorRT returns a serialized plan).

    It is ``bytes`` (write it to a file, pass it to ``onnxruntime.InferenceSession``); ``tobytes()``,
    ``nbytes`` and ``dtype`` are TensorRT's; ``model`` is the ``onnx.ModelProto``, ``target`` the target that runs
    it as placed (``tensorrt-dla`` when every layer is on DLA, else ``tensorrt``), ``lowered_for`` the target its
    lowering chose, ``placement`` each layer's device, ``gpu_fallback`` the layers DLA refused, with why."""

    def __new__(cls, data: bytes = b"", **build):
        keys = ("model", "target", "lowered_for", "placement", "gpu_fallback")
        if not isinstance(data, bytes) or sorted(build) != sorted(keys):  # TensorRT's has no Python constructor either
            raise BuilderTypeError("trt.IHostMemory(): no constructor: builder.build_serialized_network(network, config) "
                                   "makes it")
        model, target, lowered_for, placement, gpu_fallback = (build[k] for k in keys)
        self = super().__new__(cls, data)
        self.model, self.target, self.lowered_for = model, target, lowered_for
        self.placement, self.gpu_fallback = placement, gpu_fallback
        return self

    @property
    def nbytes(self) -> int:
        """The size in bytes."""
        return len(self)

    @property
    def dtype(self) -> DataType:
        """The element type of the buffer (bytes)."""
        return DataType.UINT8

    def tobytes(self) -> bytes:
        """A plain ``bytes`` copy."""
        return bytes(self)


def _stamp(model, config: IBuilderConfig, placement: dict) -> None:
    """Record the build configuration in the model's metadata (``metadata_props``, keys ``spec2onnx.trt.*``)."""
    from onnx import helper

    flags = [f.name for f in BuilderFlag if config.get_flag(f)]
    props = {"spec2onnx.trt.builder_flags": ",".join(flags),
             "spec2onnx.trt.default_device_type": config.default_device_type.name,
             "spec2onnx.trt.placement": ",".join(f"{layer.name}:{device.name}" for layer, device in placement.items())}
    if config.DLA_core >= 0:
        props["spec2onnx.trt.DLA_core"] = str(config.DLA_core)
    for pool, size in sorted(config._pools.items()):
        props[f"spec2onnx.trt.memory_pool_limit.{pool.name}"] = str(size)
    helper.set_model_props(model, {**{p.key: p.value for p in model.metadata_props}, **props})
