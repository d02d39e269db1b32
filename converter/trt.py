"""TensorRT's Python network API for the layers spec2onnx lowers: Scale, ElementWise, Resize.

Code written against ``tensorrt`` for these layers ports by changing the import::

    from spec2onnx import trt            # was: import tensorrt as trt

    logger = trt.Logger(trt.Logger.ERROR)
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    x = network.add_input("x", trt.float32, (1, 3, 3, 3))
    layer = network.add_scale(x, trt.ScaleMode.UNIFORM, shift, scale, power)
    network.mark_output(layer.get_output(0))

    config = builder.create_builder_config()
    config.set_flag(trt.BuilderFlag.FP16)  # with default_device_type = trt.DeviceType.DLA: tensorrt-dla
    plan = builder.build_serialized_network(network, config)   # the ONNX model, serialized (bytes)

    network.to_onnx(target="ort-cpu")     # an onnx.ModelProto
    network.to_spec("scale.yaml")         # a spec file `spec2onnx validate` takes
    network.validate({"inputs": {x: data}, "expected": {layer.get_output(0): want}})

Names follow TensorRT's Python API: ``Network.add_input/add_constant/add_scale/add_scale_nd/
add_elementwise/add_resize/mark_output``, layers with ``get_output(0)`` and settable properties,
the enums ``DataType`` (and ``trt.float32`` ...), ``ScaleMode``, ``ElementWiseOperation``,
``InterpolationMode`` (alias ``ResizeMode``), ``ResizeCoordinateTransformation``,
``ResizeSelector``, ``ResizeRoundMode``, and the build side: ``Builder.create_builder_config``
(``IBuilderConfig``: ``BuilderFlag``, ``DeviceType``, ``MemoryPoolType``), ``create_optimization_profile``
(``IOptimizationProfile``), ``build_serialized_network`` (an ``IHostMemory``). Objects refuse unknown attributes
(AttributeError) and check values at the assignment (``BuilderTypeError``/``BuilderValueError``, which are
TypeError/ValueError and UserError); docs/builder.md maps each name to the spec and the target. What the network means is checked by the spec loader: the
network is written as the mapping a spec file holds and validated there (one validation path);
its errors, and the builder's own, are ``UserError``s naming the call and the argument.
"""

from __future__ import annotations

import builtins
import enum
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from . import _export, api
from .dtypes import DTYPES
from .errors import UserError
from .names import did_you_mean
from .pipeline import model_for_target, wanted_opset
from .registry import layer_kind
from .spec import parse_network
from .targets import dla, get_target
from .targets.check import check_model, errors
from .targets.dla_guide import FALLBACK


class BuilderTypeError(UserError, TypeError):
    """A builder argument or property of the wrong type (TensorRT's bindings raise TypeError there)."""


class BuilderValueError(UserError, ValueError):
    """A builder argument or property value TensorRT (or spec2onnx's spec) refuses, raised at the call or assignment."""


class BuilderUnsupportedError(UserError, NotImplementedError):
    """A TensorRT property or setting that spec2onnx does not model (the message names it and what is allowed)."""


class _Strict:
    """TensorRT's Python objects raise AttributeError when an unknown attribute is assigned; so do these.

    Only the class's properties (and internal ``_`` names) can be set: a typo such as
    ``layer.coordinate_transform = ...`` fails at the assignment instead of being dropped.
    """

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_") or isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        known = sorted(n for n in dir(type(self)) if not n.startswith("_") and isinstance(getattr(type(self), n), property))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}{did_you_mean(name, known)} "
                             f"(settable: {', '.join(n for n in known if getattr(type(self), n).fset) or 'none'})")

__all__ = ["DataType", "float32", "float16", "bfloat16", "int8", "int32", "int64", "uint8", "bool", "nptype",
           "ScaleMode", "ElementWiseOperation", "InterpolationMode", "ResizeMode", "ResizeCoordinateTransformation",
           "ResizeSelector", "ResizeRoundMode", "Logger", "Builder", "NetworkDefinitionCreationFlag", "Weights",
           "Network", "ITensor", "ILayer", "IConstantLayer", "IScaleLayer", "IElementWiseLayer", "IResizeLayer",
           "BuilderFlag", "DeviceType", "MemoryPoolType", "IBuilderConfig", "IOptimizationProfile", "IHostMemory",
           "BuilderTypeError", "BuilderValueError", "BuilderUnsupportedError", "Dims", "Dims2", "Dims3", "Dims4", "DimsHW"]


_UNSET = object()


def _unsupported(owner: str, name: str, default, why: str) -> property:
    """A TensorRT property spec2onnx does not model: it reads as TensorRT's default, and setting that
    default is accepted; any other value raises ``BuilderUnsupportedError`` naming the property."""

    def get(self):
        return default

    def set(self, value) -> None:
        if type(value) is type(default) and value == default:
            return
        raise BuilderUnsupportedError(f"{owner}.{name} = {value!r}: not supported by spec2onnx ({why}); "
                                      f"allowed: {default!r}, TensorRT's default")

    return property(get, set, doc=f"Not supported (reads as TensorRT's default {default!r}): {why}.")


class DataType(enum.Enum):
    """TensorRT's tensor types (``trt.DataType``); the value is the spec's dtype name."""

    FLOAT = "float32"
    HALF = "float16"
    BF16 = "bfloat16"
    INT8 = "int8"
    INT32 = "int32"
    INT64 = "int64"
    UINT8 = "uint8"
    BOOL = "bool"


float32, float16, bfloat16 = DataType.FLOAT, DataType.HALF, DataType.BF16
int8, int32, int64, uint8, bool = DataType.INT8, DataType.INT32, DataType.INT64, DataType.UINT8, DataType.BOOL  # noqa: A001


def nptype(dtype: DataType):
    """The numpy type of a ``DataType`` (``trt.nptype``)."""
    return DTYPES[_enum(DataType, dtype, "nptype", "dtype").value].numpy.type


class ScaleMode(enum.Enum):
    """How IScaleLayer shares its coefficients: one set, one per channel, one per element."""

    UNIFORM = "UNIFORM"
    CHANNEL = "CHANNEL"
    ELEMENTWISE = "ELEMENTWISE"


class ElementWiseOperation(enum.Enum):
    """IElementWiseLayer's binary operations (TensorRT's Python name of POWER is POW)."""

    SUM = "SUM"
    PROD = "PROD"
    MAX = "MAX"
    MIN = "MIN"
    SUB = "SUB"
    DIV = "DIV"
    POW = "POWER"
    FLOOR_DIV = "FLOOR_DIV"
    AND = "AND"
    OR = "OR"
    XOR = "XOR"
    EQUAL = "EQUAL"
    GREATER = "GREATER"
    LESS = "LESS"


class InterpolationMode(enum.Enum):
    """IResizeLayer.resize_mode."""

    NEAREST = "NEAREST"
    LINEAR = "LINEAR"
    CUBIC = "CUBIC"


ResizeMode = InterpolationMode  # TensorRT's name before 8.6


class ResizeCoordinateTransformation(enum.Enum):
    """IResizeLayer.coordinate_transformation: how an output coordinate maps back to the input."""

    ALIGN_CORNERS = "ALIGN_CORNERS"
    ASYMMETRIC = "ASYMMETRIC"
    HALF_PIXEL = "HALF_PIXEL"


class ResizeSelector(enum.Enum):
    """IResizeLayer.selector_for_single_pixel: an output length of 1 uses the formula or the upper-left pixel."""

    FORMULA = "FORMULA"
    UPPER = "UPPER"


class ResizeRoundMode(enum.Enum):
    """IResizeLayer.nearest_rounding: how NEAREST rounds a coordinate."""

    HALF_UP = "HALF_UP"
    HALF_DOWN = "HALF_DOWN"
    FLOOR = "FLOOR"
    CEIL = "CEIL"


class NetworkDefinitionCreationFlag(enum.IntEnum):
    """Flags of ``Builder.create_network``; networks here are always explicit-batch, so they change nothing."""

    EXPLICIT_BATCH = 0
    STRONGLY_TYPED = 1


class BuilderFlag(enum.IntEnum):
    """``trt.BuilderFlag`` (TensorRT 10's members and values). What each means for the exported model is in
    docs/builder.md: FP16 and INT8 permit those precisions (DLA runs only FP16 and INT8), GPU_FALLBACK lets a
    layer DLA refuses run on the GPU; the others are accepted and change nothing in an ONNX model."""

    FP16 = 0
    INT8 = 1
    DEBUG = 2
    GPU_FALLBACK = 3
    REFIT = 4
    DISABLE_TIMING_CACHE = 5
    TF32 = 6
    SPARSE_WEIGHTS = 7
    SAFETY_SCOPE = 8
    OBEY_PRECISION_CONSTRAINTS = 9
    PREFER_PRECISION_CONSTRAINTS = 10
    DIRECT_IO = 11
    REJECT_EMPTY_ALGORITHMS = 12
    VERSION_COMPATIBLE = 13
    EXCLUDE_LEAN_RUNTIME = 14
    FP8 = 15
    ERROR_ON_TIMING_CACHE_MISS = 16
    BF16 = 17
    DISABLE_COMPILATION_CACHE = 18
    STRIP_PLAN = 19
    REFIT_IDENTICAL = 20
    WEIGHT_STREAMING = 21
    INT4 = 22
    REFIT_INDIVIDUAL = 23
    STRICT_NANS = 24
    MONITOR_MEMORY = 25
    FP4 = 26
    EDITABLE_TIMING_CACHE = 27
    DISTRIBUTIVE_INDEPENDENCE = 28


class DeviceType(enum.IntEnum):
    """``trt.DeviceType``: where a layer runs."""

    GPU = 0
    DLA = 1


class MemoryPoolType(enum.IntEnum):
    """``trt.MemoryPoolType``: the pools ``set_memory_pool_limit`` bounds (recorded; an ONNX model has no pools)."""

    WORKSPACE = 0
    DLA_MANAGED_SRAM = 1
    DLA_LOCAL_DRAM = 2
    DLA_GLOBAL_DRAM = 3
    TACTIC_DRAM = 4
    TACTIC_SHARED_MEMORY = 5


# TensorRT's defaults of the DLA pools (MemoryPoolType's documentation); the others default to the device's memory.
_POOL_DEFAULTS = {MemoryPoolType.DLA_MANAGED_SRAM: 1 << 20, MemoryPoolType.DLA_LOCAL_DRAM: 1 << 30,
                  MemoryPoolType.DLA_GLOBAL_DRAM: 512 << 20}
_DLA_POOLS = tuple(_POOL_DEFAULTS)
# Flags that decide what the exported model is or whether it builds; the rest are accepted and recorded.
_EFFECTIVE_FLAGS = (BuilderFlag.FP16, BuilderFlag.INT8, BuilderFlag.GPU_FALLBACK)


class Logger:
    """Stands in for ``trt.Logger`` so that ported code runs; spec2onnx reports by raising errors."""

    INTERNAL_ERROR, ERROR, WARNING, INFO, VERBOSE = range(5)
    Severity = enum.IntEnum("Severity", "INTERNAL_ERROR ERROR WARNING INFO VERBOSE", start=0)

    def __init__(self, min_severity: int = 2):
        self.min_severity = min_severity


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


class Builder(_Strict):
    """``trt.Builder``: networks, builder configs, optimization profiles, and ``build_serialized_network``,
    which returns the ONNX model lowered for the configured target (serialized, like TensorRT's plan)."""

    def __init__(self, logger: Logger | None = None):
        self._logger = logger

    @property
    def logger(self) -> Logger | None:
        """The logger given (unused: spec2onnx reports by raising errors)."""
        return self._logger

    def create_network(self, flags: int = 0) -> "Network":
        """A new, empty network (every network is explicit-batch)."""
        return Network()

    def create_builder_config(self) -> "IBuilderConfig":
        """A new ``IBuilderConfig`` with TensorRT's defaults (device GPU, TF32 on)."""
        return IBuilderConfig()

    def create_optimization_profile(self) -> "IOptimizationProfile":
        """A new, empty ``IOptimizationProfile``."""
        return IOptimizationProfile()

    def is_network_supported(self, network: "Network", config: "IBuilderConfig") -> bool:
        """Whether ``build_serialized_network(network, config)`` would succeed."""
        try:
            self.build_serialized_network(network, config)
        except UserError:
            return False
        return True

    def build_serialized_network(self, network: "Network", config: "IBuilderConfig") -> "IHostMemory":
        """The network as an ONNX model lowered for the config's target, serialized (an ``IHostMemory``).

        The target: ``default_device_type`` GPU -> ``tensorrt``; DLA -> ``tensorrt-dla`` when every layer runs
        on DLA (in FP16 with ``BuilderFlag.FP16``, INT8 with ``BuilderFlag.INT8``), else, with
        ``BuilderFlag.GPU_FALLBACK``, ``tensorrt`` with the layers DLA refuses listed in ``gpu_fallback``;
        without it a layer DLA refuses fails the build, naming the call that made it (as TensorRT's build
        fails). The types are the network's: the flags permit precisions, they do not change the model.
        """
        call = "build_serialized_network()"
        if not isinstance(network, Network):
            raise BuilderTypeError(f"{call}: network: expected a Network (builder.create_network()), got {type(network).__name__}")
        if not isinstance(config, IBuilderConfig):
            raise BuilderTypeError(f"{call}: config: expected an IBuilderConfig (builder.create_builder_config()), "
                                   f"got {type(config).__name__}")
        if not network._outputs:
            raise BuilderValueError(f"{call}: the network has no outputs: mark one with network.mark_output(tensor)")
        config._check_profiles(network, call)
        spec = network._load(network.to_spec_dict("trt-network"), call)
        placement, refused = config._placement(network, spec)
        on_dla = [layer for layer, device in placement.items() if device == DeviceType.DLA]
        lowered_for, model = _lower_for_placement(network, spec, on_dla, call)
        for layer, why in (_dla_node_refusals(model, on_dla) if on_dla else {}).items():
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


def _flag(value, call: str) -> BuilderFlag:
    if isinstance(value, BuilderFlag):
        return value
    if isinstance(value, str) and value in BuilderFlag.__members__:
        return BuilderFlag[value]
    raise BuilderTypeError(f"{call}: {value!r} is not a BuilderFlag; allowed: "
                           f"{', '.join(f'BuilderFlag.{m}' for m in BuilderFlag.__members__)}")


class IBuilderConfig(_Strict):
    """``trt.IBuilderConfig``: what a TensorRT script sets, mapped to the exported model (docs/builder.md)."""

    def __init__(self):
        self._flags = 1 << BuilderFlag.TF32  # TensorRT: TF32 is enabled by default
        self._device = DeviceType.GPU
        self._dla_core = -1
        self._pools: dict[MemoryPoolType, int] = {}
        self._profiles: list[IOptimizationProfile] = []
        self._devices: dict[int, tuple[ILayer, DeviceType]] = {}
        self._knobs = {"avg_timing_iterations": 1, "builder_optimization_level": 3, "max_aux_streams": -1}

    # --- flags ----------------------------------------------------------------------------------------------

    @property
    def flags(self) -> int:
        """The flags as a bit mask (``1 << int(trt.BuilderFlag.X)``), as TensorRT's ``config.flags``."""
        return self._flags

    @flags.setter
    def flags(self, value) -> None:
        mask = _integer(value, "IBuilderConfig.flags", "flags")
        if mask < 0 or mask >> len(BuilderFlag):
            raise BuilderValueError(f"IBuilderConfig.flags: {mask:#x} has bits that are no BuilderFlag "
                                    f"(0 to {len(BuilderFlag) - 1})")
        self._flags = mask

    def set_flag(self, flag: BuilderFlag) -> None:
        """Turn ``flag`` on."""
        self._flags |= 1 << _flag(flag, "IBuilderConfig.set_flag()")

    def clear_flag(self, flag: BuilderFlag) -> None:
        """Turn ``flag`` off."""
        self._flags &= ~(1 << _flag(flag, "IBuilderConfig.clear_flag()"))

    def get_flag(self, flag: BuilderFlag) -> bool:
        """Whether ``flag`` is on."""
        return builtins.bool(self._flags >> _flag(flag, "IBuilderConfig.get_flag()") & 1)

    # --- devices ----------------------------------------------------------------------------------------------

    @property
    def default_device_type(self) -> DeviceType:
        """Where layers run unless ``set_device_type`` says otherwise: ``DeviceType.GPU`` (default) or ``DLA``."""
        return self._device

    @default_device_type.setter
    def default_device_type(self, value) -> None:
        self._device = _enum(DeviceType, value, "IBuilderConfig.default_device_type", "default_device_type")

    @property
    def DLA_core(self) -> int:  # noqa: N802 - TensorRT's name
        """The DLA core the engine runs on (-1: unset); recorded in the model's metadata."""
        return self._dla_core

    @DLA_core.setter
    def DLA_core(self, value) -> None:  # noqa: N802
        core = _integer(value, "IBuilderConfig.DLA_core", "DLA_core")
        if core < -1:
            raise BuilderValueError(f"IBuilderConfig.DLA_core: {core}: a core index is 0 or more (-1: unset)")
        self._dla_core = core

    def set_device_type(self, layer: "ILayer", device_type: DeviceType) -> None:
        """Run ``layer`` on ``device_type`` whatever the default."""
        if not isinstance(layer, ILayer):
            raise BuilderTypeError(f"IBuilderConfig.set_device_type(): layer: expected an ILayer, got {type(layer).__name__}")
        self._devices[id(layer)] = (layer, _enum(DeviceType, device_type, "IBuilderConfig.set_device_type()", "device_type"))

    def get_device_type(self, layer: "ILayer") -> DeviceType:
        """The device ``layer`` is set to run on (the default device unless set)."""
        return self._devices.get(id(layer), (layer, self._device))[1]

    def is_device_type_set(self, layer: "ILayer") -> bool:
        """Whether ``set_device_type`` was called for ``layer``."""
        return id(layer) in self._devices

    def reset_device_type(self, layer: "ILayer") -> None:
        """Back to the default device for ``layer``."""
        self._devices.pop(id(layer), None)

    def can_run_on_DLA(self, layer: "ILayer") -> bool:  # noqa: N802 - TensorRT's name
        """Whether DLA runs ``layer`` with this config's precision flags (the tensorrt-dla layer rules; the build
        also checks the layer's lowered nodes, see docs/builder.md)."""
        if not isinstance(layer, ILayer):
            raise BuilderTypeError(f"IBuilderConfig.can_run_on_DLA(): layer: expected an ILayer, got {type(layer).__name__}")
        if isinstance(layer, IConstantLayer):
            return True
        network = layer._network
        spec = network._load(network.to_spec_dict("trt-network"), "IBuilderConfig.can_run_on_DLA()")
        return _dla_refusal(spec, layer, self) is None

    # --- memory, profiles and knobs ---------------------------------------------------------------------------

    def set_memory_pool_limit(self, pool: MemoryPoolType, pool_size: int) -> None:
        """Bound a memory pool (recorded in the model's metadata; an ONNX model has no pools).

        DLA pools must be at least 4 KiB and a power of 2, as TensorRT requires."""
        call = "IBuilderConfig.set_memory_pool_limit()"
        pool = _enum(MemoryPoolType, pool, call, "pool")
        size = _integer(pool_size, call, "pool_size")
        if size < 0:
            raise BuilderValueError(f"{call}: pool_size: {size} is negative")
        if pool in _DLA_POOLS and (size < 4096 or size & (size - 1)):
            raise BuilderValueError(f"{call}: pool_size: {size}: a DLA pool ({pool.name}) is at least 4 KiB and a power of 2")
        self._pools[pool] = size

    def get_memory_pool_limit(self, pool: MemoryPoolType) -> int | None:
        """The limit set for ``pool``, TensorRT's default for a DLA pool, or None (the device's memory)."""
        pool = _enum(MemoryPoolType, pool, "IBuilderConfig.get_memory_pool_limit()", "pool")
        return self._pools.get(pool, _POOL_DEFAULTS.get(pool))

    def add_optimization_profile(self, profile: "IOptimizationProfile") -> int:
        """Add ``profile``; returns its index. Inputs are static here: a profile must give each input its shape."""
        if not isinstance(profile, IOptimizationProfile):
            raise BuilderTypeError(f"IBuilderConfig.add_optimization_profile(): profile: expected an IOptimizationProfile "
                                   f"(builder.create_optimization_profile()), got {type(profile).__name__}")
        self._profiles.append(profile)
        return len(self._profiles) - 1

    @property
    def num_optimization_profiles(self) -> int:
        """How many profiles were added."""
        return len(self._profiles)

    def _knob(name: str, low: int, high: int | None, doc: str) -> property:  # noqa: N805 - a class-body helper
        def get(self):
            return self._knobs[name]

        def set(self, value) -> None:
            number = _integer(value, f"IBuilderConfig.{name}", name)
            if number < low or (high is not None and number > high):
                raise BuilderValueError(f"IBuilderConfig.{name}: {number} is outside {low}..{high if high is not None else ''}")
            self._knobs[name] = number

        return property(get, set, doc=doc + " Accepted and recorded; it changes nothing in an ONNX model.")

    avg_timing_iterations = _knob("avg_timing_iterations", 0, None, "TensorRT's timing iterations.")
    builder_optimization_level = _knob("builder_optimization_level", 0, 5, "TensorRT's build effort (0 to 5, default 3).")
    max_aux_streams = _knob("max_aux_streams", -1, None, "TensorRT's auxiliary streams (-1: its heuristic).")
    del _knob

    int8_calibrator = _unsupported("IBuilderConfig", "int8_calibrator", None,
                                   "there is no calibration: give int8 tensors their range with ITensor.set_dynamic_range")

    # --- what build_serialized_network uses ---------------------------------------------------------------

    def _check_profiles(self, network: "Network", call: str) -> None:
        for index, profile in enumerate(self._profiles):
            for name, shapes in profile._shapes.items():
                if name not in network._input_types:
                    raise BuilderValueError(f"{call}: optimization profile {index}: {name!r} is not a network input "
                                            f"(inputs: {', '.join(network._input_types) or 'none'})")
                static = network._input_types[name][1]
                if any(tuple(s) != static for s in shapes):
                    raise BuilderUnsupportedError(
                        f"{call}: optimization profile {index}: input {name!r} min/opt/max {[list(s) for s in shapes]} "
                        f"differ from its shape {list(static)}: not supported: networks are static here, so a profile "
                        "gives each input its one shape (min = opt = max)")

    def _placement(self, network: "Network", spec) -> tuple[dict, list]:
        """({layer: device}, [(layer, why DLA refuses it)]) for the non-constant layers."""
        placement, refused = {}, []
        for layer in network._layers:
            if isinstance(layer, IConstantLayer):
                continue
            device = self.get_device_type(layer)
            if device == DeviceType.DLA:
                why = _dla_refusal(spec, layer, self)
                if why is not None:
                    refused.append((layer, why))
                    device = DeviceType.GPU
            placement[layer] = device
        return placement, refused


class IOptimizationProfile(_Strict):
    """``trt.IOptimizationProfile``: min/opt/max shapes per input (``set_shape``)."""

    def __init__(self):
        self._shapes: dict[str, tuple[tuple[int, ...], ...]] = {}

    def set_shape(self, input: str, min, opt, max) -> None:  # noqa: A002 - TensorRT's argument names
        """The smallest, the optimal and the largest shape of input ``input``; checked here (same rank, min <= opt <= max)."""
        call = f"IOptimizationProfile.set_shape({input!r})"
        name = _text(input, f"{call}: input")
        shapes = tuple(_dims(s, f"{call}: {which}") for s, which in ((min, "min"), (opt, "opt"), (max, "max")))
        if len({len(s) for s in shapes}) != 1:
            raise BuilderValueError(f"{call}: min, opt and max have ranks {[len(s) for s in shapes]}; they must have one rank")
        for which, dims in zip(("min", "opt", "max"), shapes):
            if any(d < 0 for d in dims):
                raise BuilderValueError(f"{call}: {which} {list(dims)} has a negative dimension")
        lo, mid, hi = shapes
        if not all(a <= b <= c for a, b, c in zip(lo, mid, hi)):
            raise BuilderValueError(f"{call}: need min <= opt <= max in every dimension, got {list(lo)}, {list(mid)}, {list(hi)}")
        self._shapes[name] = shapes

    def get_shape(self, input: str) -> list[tuple[int, ...]]:  # noqa: A002
        """[min, opt, max] of ``input`` (empty if unset)."""
        return list(self._shapes.get(input, ()))

    def set_shape_input(self, input: str, min, opt, max) -> None:  # noqa: A002
        """Shape tensors (values of an input that is a shape) are not supported."""
        raise BuilderUnsupportedError(f"IOptimizationProfile.set_shape_input({input!r}): not supported: spec2onnx networks "
                                      "have no shape-tensor inputs (a Resize's shape comes from add_constant)")

    def __bool__(self) -> bool:
        return True


class IHostMemory(bytes):
    """What ``build_serialized_network`` returns: the serialized ONNX model (TensorRT returns a serialized plan).

    It is ``bytes`` (write it to a file, pass it to ``onnxruntime.InferenceSession``); ``tobytes()``,
    ``nbytes`` and ``dtype`` are TensorRT's; ``model`` is the ``onnx.ModelProto``, ``target`` the target that runs
    it as placed (``tensorrt-dla`` when every layer is on DLA, else ``tensorrt``), ``lowered_for`` the target its
    lowering chose, ``placement`` each layer's device, ``gpu_fallback`` the layers DLA refused, with why."""

    def __new__(cls, data: bytes, *, model, target: str, lowered_for: str, placement: dict, gpu_fallback: tuple):
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


def _has_float32(spec) -> bool:
    return any(t.dtype.name == "float32" for t in spec.network.types.values())


def _dla_refusal(spec, layer: "ILayer", config: IBuilderConfig) -> str | None:
    """Why DLA cannot run ``layer`` under ``config``'s precision flags, or None.

    DLA runs FP16 and INT8 only: a float32 or float16 tensor needs ``BuilderFlag.FP16`` (DLA computes it in FP16),
    an int8 tensor ``BuilderFlag.INT8``; then the layer kind's DLA rules (converter/targets/dla.py, from the
    seeds' "DLA Support" sections) apply, as for the tensorrt-dla target.
    """
    net = spec.network
    index = [x for x in layer._network._layers if not isinstance(x, IConstantLayer)].index(layer)
    slayer = net.layers[index]
    need = {"float32": BuilderFlag.FP16, "float16": BuilderFlag.FP16, "int8": BuilderFlag.INT8}
    for tensor in tuple(slayer.inputs) + (slayer.name,):
        dtype = net.types[tensor].dtype.name
        if dtype == "bool" and tensor == slayer.name and slayer.attrs.get("operation") in dla.COMPARISONS:
            continue
        if dtype not in need:
            return f"tensor {tensor!r} is {dtype}; DLA runs FP16 and INT8 only"
        if not config.get_flag(need[dtype]):
            return f"tensor {tensor!r} is {dtype}: DLA runs it only with BuilderFlag.{need[dtype].name} (DLA runs FP16 and INT8 only)"
    try:
        rule = layer_kind(slayer.op).target_rules.get("tensorrt-dla")  # the kind's DLA rules (its registration)
        if rule is not None:
            rule(spec, slayer, slayer.field or f"network.layers[{index}]")
    except dla.DlaRuleError as exc:
        return exc.detail
    return None


def _lower_for_placement(network: "Network", spec, on_dla: list, call: str):
    """(target, model): the network lowered for tensorrt-dla when layers run on DLA and it has no float32 tensor
    (its model is a tensorrt model too: onnx-tensorrt parses it; float16 stays float16, DLA has no Cast layer),
    else for tensorrt. A spec the DLA rules refuse as a whole (a GPU layer breaking one) is lowered for tensorrt."""
    if on_dla and not _has_float32(spec):
        try:
            model = model_for_target(spec, get_target("tensorrt-dla"), wanted_opset(spec, None))[0]
        except UserError:
            pass
        else:
            if not errors(check_model(model, "tensorrt")):
                return "tensorrt-dla", model
    return "tensorrt", network._convert(spec, None, "tensorrt", None, call).model


def _dla_node_refusals(model, layers: list) -> dict:
    """{layer: why} for the ``layers`` (placed on DLA) whose nodes DLA has no layer for (the tensorrt-dla node
    rules, converter/targets/dla.py, and the DLA guide's GPU-fallback verdicts, dla_guide.py): onnx-tensorrt makes TensorRT layers of the nodes, and one DLA cannot run
    runs on the GPU. A node belongs to the layer whose output name its name starts with."""
    by_output = {layer.get_output(0).name: layer for layer in layers}
    found: dict = {}
    # an error (the seed rules) or a "GPU fallback" verdict (the DLA guide): either way not on DLA
    for problem in (p for p in check_model(model, "tensorrt-dla") if p.severity == "error" or p.reason.startswith(FALLBACK)):
        layer = by_output.get(problem.node.split("/")[0])
        if layer is not None and layer not in found:
            found[layer] = f"its node {problem.node} ({problem.op}) does not run on DLA: {problem.reason}"
    return found


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


class Dims(tuple):
    """``trt.Dims``: a shape (a tuple of integers); ``Dims2``, ``Dims3``, ``Dims4`` and ``DimsHW`` take the values as arguments."""

    def __new__(cls, shape=()):
        return super().__new__(cls, _dims(shape, f"trt.{cls.__name__}()"))


def _dims_n(n: int, name: str):
    def __new__(cls, *values):
        if len(values) == 1 and hasattr(values[0], "__iter__"):
            values = tuple(values[0])
        if len(values) != n:
            raise BuilderTypeError(f"trt.{name}(): expected {n} integers, got {len(values)}")
        return tuple.__new__(cls, _dims(values, f"trt.{name}()"))

    return type(name, (Dims,), {"__new__": __new__, "__doc__": f"``trt.{name}``: {n} dimensions."})


Dims2, Dims3, Dims4, DimsHW = _dims_n(2, "Dims2"), _dims_n(3, "Dims3"), _dims_n(4, "Dims4"), _dims_n(2, "DimsHW")


class Weights(_Strict):
    """``trt.Weights``: an array of coefficients or constant data (``trt.Weights(array)``), or empty weights of a
    type (``trt.Weights(trt.float32)``, ``trt.Weights()``)."""

    def __init__(self, a: Any = None):
        if a is None or isinstance(a, DataType):
            self._array = np.zeros(0, nptype(a or DataType.FLOAT))
        else:
            self._array = np.asarray(a)

    @property
    def array(self) -> np.ndarray:
        """The array."""
        return self._array

    @property
    def size(self) -> int:
        """How many values."""
        return int(self._array.size)

    @property
    def nbytes(self) -> int:
        """How many bytes."""
        return int(self._array.nbytes)

    @property
    def dtype(self) -> DataType:
        """The values' ``DataType``."""
        return _enum(DataType, self._array.dtype, "Weights.dtype", "dtype")

    def numpy(self) -> np.ndarray:
        """The array."""
        return self._array

    def __len__(self) -> int:
        return self.size


# --- argument checks: each raises a UserError naming the call and the argument ---------------------


def _enum(cls, value, call: str, argument: str):
    if isinstance(value, cls):
        return value
    if isinstance(value, str) and value in cls.__members__:
        return cls[value]
    if cls is DataType:
        by_numpy = {t.numpy: DataType(n) for n, t in DTYPES.items() if n in {d.value for d in DataType}}
        try:
            if np.dtype(value) in by_numpy:
                return by_numpy[np.dtype(value)]
        except TypeError:
            pass
    raise BuilderTypeError(f"{call}: {argument}: {value!r} is not one of {cls.__name__}'s members; allowed: "
                    f"{', '.join(f'{cls.__name__}.{m}' for m in cls.__members__)}")


def _text(value, where: str) -> str:
    if not isinstance(value, str):
        raise BuilderTypeError(f"{where}: expected text, got {type(value).__name__} {value!r}")
    return value


def _enum_of(cls):
    """A ``_setting`` converter to the enum ``cls``."""
    return lambda value, call, argument: _enum(cls, value, call, argument)


def _number(value, call: str, argument: str) -> float:
    if isinstance(value, type(True)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise BuilderTypeError(f"{call}: {argument}: expected a number, got {value!r}")
    if not np.isfinite(value):
        raise BuilderValueError(f"{call}: {argument}: {value!r} is not a finite number")
    return float(value)


def _integer(value, call: str, argument: str) -> int:
    if isinstance(value, type(True)) or not isinstance(value, (int, np.integer)):
        raise BuilderTypeError(f"{call}: {argument}: expected an integer, got {value!r}")
    return int(value)


def _sequence(value, call: str, argument: str) -> list:
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist()
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise BuilderTypeError(f"{call}: {argument}: expected a sequence, got {type(value).__name__} {value!r}")
    return list(value)


def _dims(value, where: str) -> tuple[int, ...]:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise BuilderTypeError(f"{where}: expected a sequence of integers, got {type(value).__name__} {value!r}")
    dims = []
    for d in value:
        if isinstance(d, type(True)) or not isinstance(d, (int, np.integer)):
            raise BuilderTypeError(f"{where}: {d!r} is not an integer dimension")
        dims.append(int(d))
    return tuple(dims)


def _coefficients(value, call: str, argument: str) -> list[float]:
    if value is None:
        return []
    array = value.array if isinstance(value, Weights) else value
    try:
        array = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise BuilderTypeError(f"{call}: {argument}: expected numbers (an array, Weights or a list), got {value!r}") from None
    return array.reshape(-1).tolist()


def _setting(name: str, convert, default: Any = None, doc: str = "") -> property:
    """A settable layer property, as TensorRT's: checked by ``convert(value, call, name)`` when set."""

    def get(self):
        return self._settings.get(name, default)

    def set(self, value) -> None:
        old = self._settings.get(name, _UNSET)
        self._settings[name] = convert(value, self._call, name)

        def restore():
            if old is _UNSET:
                del self._settings[name]
            else:
                self._settings[name] = old

        self._recheck(restore)

    return property(get, set, doc=doc)




def _spec_values(settings: dict) -> dict:
    """Layer settings as spec attribute values (an enum by its spec name)."""
    return {k: (v.value if isinstance(v, enum.Enum) else v) for k, v in settings.items()}


class ITensor(_Strict):
    """A tensor of a network: a network input, a constant, or a layer's output."""

    def __init__(self, network: "Network", name: str, producer: "ILayer | None" = None):
        self._network, self._name, self._producer = network, name, producer
        self._range: tuple[float, float] | None = None

    @property
    def dynamic_range(self) -> tuple[float, float] | None:
        """The int8 quantization range ``(min, max)`` (``set_dynamic_range``), or None; the spec's ``dynamic_range``."""
        return self._range

    @dynamic_range.setter
    def dynamic_range(self, value) -> None:
        if value is None:
            self._range = None
            return
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
            raise UserError(f"ITensor.dynamic_range ({self.name!r}): expected (min, max), got {value!r}")
        self.set_dynamic_range(*value)

    def set_dynamic_range(self, min: float, max: float) -> bool:  # noqa: A002 - TensorRT's argument names
        """``ITensor.set_dynamic_range``: int8 values stand for ``q * max(|min|, |max|) / 127`` (docs/semantics.md).

        The loader checks the range (finite, min <= max, an int8 tensor) when the network is used.
        """
        self._range = (min, max)
        return True

    def reset_dynamic_range(self) -> None:
        """Forget the range (scale 1 again where the layer has other ranges)."""
        self._range = None

    @property
    def name(self) -> str:
        """The tensor's name; a layer's output is named after the layer unless set here."""
        return self._name if self._name is not None else self._producer.name

    @name.setter
    def name(self, value: str) -> None:
        self._name = _text(value, "ITensor.name")

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor's dimensions (-1 where only the data decides); checks the network up to this tensor."""
        return self._network._type_of(self)[1]

    @property
    def dtype(self) -> DataType:
        """The tensor's ``DataType``."""
        return DataType(self._network._type_of(self)[0])

    def __repr__(self) -> str:
        return f"ITensor({self.name!r})"


class ILayer(_Strict):
    """What every layer has: a name, inputs, and one output (``get_output(0)``)."""

    _kind = "layer"

    def __init__(self, network: "Network", inputs: list[ITensor], call: str):
        self._network, self._inputs, self._call = network, inputs, call
        self._name = None
        self._settings: dict[str, Any] = {}  # the properties set (see _setting)
        self._index = len(network._layers)
        self._output = ITensor(network, None, self)

    @property
    def name(self) -> str:
        """The layer's name (default ``<kind>_<index>``); its output tensor is named after it unless renamed."""
        return self._name or f"{self._kind}_{self._index}"

    @name.setter
    def name(self, value: str) -> None:
        self._name = _text(value, f"{type(self).__name__}.name")

    @property
    def num_inputs(self) -> int:
        """How many inputs are set."""
        return len(self._inputs)

    @property
    def num_outputs(self) -> int:
        """Always 1."""
        return 1

    def get_input(self, index: int) -> ITensor:
        """The input at ``index``."""
        if not 0 <= index < len(self._inputs):
            raise UserError(f"{type(self).__name__}.get_input({index!r}): the layer has {len(self._inputs)} inputs")
        return self._inputs[index]

    def get_output(self, index: int) -> ITensor:
        """The output tensor (index 0: these layers have one output)."""
        if index != 0:
            raise UserError(f"{type(self).__name__}.get_output({index!r}): the layer has one output, index 0")
        return self._output

    def set_input(self, index: int, tensor: ITensor) -> None:
        """Replace input ``index`` (0 for every layer; 1 for ElementWise's second and Resize's shape tensor)."""
        call = f"{type(self).__name__}.set_input({index!r})"
        tensor = self._network._own(tensor, call, "tensor")
        if not isinstance(index, int) or not 0 <= index <= len(self._inputs) or index >= self._max_inputs:
            raise UserError(f"{call}: index must be 0 to {self._max_inputs - 1} for this layer")
        if index == len(self._inputs):
            self._inputs.append(tensor)
        else:
            self._inputs[index] = tensor

    _max_inputs = 1

    precision = _unsupported("ILayer", "precision", None, "a layer computes in its tensors' declared types: "
                             "declare float16 tensors (add_input/add_constant) to compute in float16")

    @property
    def type(self) -> str:
        """The layer kind (TensorRT's ``LayerType`` name: SCALE, ELEMENTWISE, RESIZE, CONSTANT)."""
        return self._kind.upper()

    def _recheck(self, restore) -> None:
        """After a property assignment: check the network with this layer as it now stands (the spec loader's
        rules, TensorRT's names); a refused value is undone and raised here, at the assignment."""
        if not any(layer is self for layer in self._network._layers) or isinstance(self, IConstantLayer):
            return  # still being made (add_* checks it once complete)
        try:
            self._network._check([self._output])
        except UserError as exc:
            restore()
            raise BuilderValueError(str(exc)) from None

    def _doc(self) -> dict:
        raise NotImplementedError

    def _field(self, name: str) -> str:
        """The TensorRT argument a spec attribute comes from (error messages)."""
        return name


class IConstantLayer(ILayer):
    """``add_constant``: a tensor of fixed data."""

    _kind = "constant"

    def __init__(self, network: "Network", shape, weights, call: str):
        super().__init__(network, [], call)
        self.shape = shape
        self.weights = weights

    @property
    def shape(self) -> tuple[int, ...]:
        """The constant's dimensions."""
        return self._shape

    @shape.setter
    def shape(self, value) -> None:
        self._shape = _dims(value, f"{self._call}: shape")

    @property
    def weights(self) -> np.ndarray:
        """The constant's data (its numpy type gives the tensor type)."""
        return self._weights

    @weights.setter
    def weights(self, value) -> None:
        array = value.array if isinstance(value, Weights) else np.asarray(value)
        if array.dtype == np.float64:
            array = array.astype(np.float32)  # as trt.Weights of a float64 array is refused, float32 is meant
        self._weights = array

    def _constant_doc(self) -> dict:
        names = {t.numpy: name for name, t in DTYPES.items()}
        dtype = names.get(self._weights.dtype)
        if dtype is None:
            raise UserError(f"{self._call}: weights: numpy {self._weights.dtype} is not a tensor type; "
                            f"allowed: {', '.join(DTYPES)}")
        if self._weights.size != int(np.prod(self._shape)):
            raise UserError(f"{self._call}: weights: {self._weights.size} values, shape {list(self._shape)} holds "
                            f"{int(np.prod(self._shape))}")
        return {"dtype": dtype, "shape": list(self._shape), "data": self._weights.reshape(self._shape)}


class IScaleLayer(ILayer):
    """``add_scale`` / ``add_scale_nd``: output = (input * scale + shift) ^ power."""

    _kind = "scale"

    def __init__(self, network, x, mode, shift, scale, power, channel_axis, call):
        super().__init__(network, [x], call)
        self.mode, self.shift, self.scale, self.power, self.channel_axis = mode, shift, scale, power, channel_axis

    mode = _setting("mode", _enum_of(ScaleMode), doc="The ``ScaleMode``.")
    shift = _setting("shift", _coefficients, doc="Shift coefficients (empty: 0).")
    scale = _setting("scale", _coefficients, doc="Scale coefficients (empty: 1).")
    power = _setting("power", _coefficients, doc="Power coefficients (empty: 1).")
    channel_axis = _setting("channel_axis", _integer, doc="The channel axis (CHANNEL and ELEMENTWISE modes).")

    def _doc(self) -> dict:
        return {"op": "trt.Scale", **_spec_values(self._settings)}


class IElementWiseLayer(ILayer):
    """``add_elementwise``: a binary operation with TensorRT broadcasting."""

    _kind = "elementwise"
    _max_inputs = 2

    def __init__(self, network, a, b, op, call):
        super().__init__(network, [a, b], call)
        self.op = op

    op = _setting("op", _enum_of(ElementWiseOperation), doc="The ``ElementWiseOperation``.")

    def _doc(self) -> dict:
        return {"op": "trt.ElementWise", "operation": self.op.value}

    def _field(self, name: str) -> str:
        return {"operation": "op", "inputs[0]": "input1", "inputs[1]": "input2"}.get(name, name)


class IResizeLayer(ILayer):
    """``add_resize``: set ``shape`` or ``scales`` (or ``set_input(1, shape_tensor)``) and the modes.

    Neither given: the output has the input's shape, as in TensorRT.
    """

    _kind = "resize"
    _max_inputs = 2

    def __init__(self, network, x, call):
        super().__init__(network, [x], call)
        self._shape = self._scales = None

    # Unset ones read as TensorRT's defaults (the spec's too) and are left out of the spec.
    resize_mode = _setting("resize_mode", _enum_of(InterpolationMode), InterpolationMode.NEAREST,
                           "The ``InterpolationMode``: NEAREST, LINEAR or CUBIC.")
    coordinate_transformation = _setting(
        "coordinate_transformation", _enum_of(ResizeCoordinateTransformation), ResizeCoordinateTransformation.ASYMMETRIC,
        "The ``ResizeCoordinateTransformation``: how an output coordinate maps back to the input.")
    selector_for_single_pixel = _setting("selector_for_single_pixel", _enum_of(ResizeSelector), ResizeSelector.FORMULA,
                                         "The ``ResizeSelector`` for an output length of 1.")
    nearest_rounding = _setting("nearest_rounding", _enum_of(ResizeRoundMode), ResizeRoundMode.FLOOR,
                                "The ``ResizeRoundMode`` of NEAREST.")
    cubic_coeff = _setting("cubic_coeff", _number, -0.75, "Coefficient A of the cubic kernel (CUBIC).")
    exclude_outside = _unsupported(
        "IResizeLayer", "exclude_outside", False,
        "the CUBIC kernel keeps its weights outside the input (ONNX exclude_outside 0); renormalising them is not modelled")

    @property
    def shape(self):
        """The output shape (one value per input dimension); setting it clears ``scales``."""
        return self._shape

    @shape.setter
    def shape(self, value) -> None:
        shape = _dims(value, f"{self._call}: shape")
        self._per_dimension("shape", shape)
        if any(d < 0 for d in shape):
            raise BuilderValueError(f"{self._call}: shape: {list(shape)} has a negative dimension")
        old = self._shape, self._scales
        self._shape, self._scales = shape, None
        self._recheck(lambda: self._restore_size(old))

    @property
    def scales(self):
        """Per-dimension scales (output dim = floor(input dim * scale)); setting them clears ``shape``."""
        return self._scales

    @scales.setter
    def scales(self, value) -> None:
        scales = [_number(v, self._call, "scales") for v in _sequence(value, self._call, "scales")]
        self._per_dimension("scales", scales)
        if any(v < 0 for v in scales):
            raise BuilderValueError(f"{self._call}: scales: {scales} has a negative scale")
        old = self._shape, self._scales
        self._scales, self._shape = scales, None
        self._recheck(lambda: self._restore_size(old))

    def _per_dimension(self, argument: str, values) -> None:
        rank = self._network._rank(self._inputs[0])
        if len(values) != rank:
            raise BuilderValueError(f"{self._call} {self.name!r}: {argument}: {list(values)} has {len(values)} values; "
                                    f"the input {self._inputs[0].name!r} has rank {rank}: give one per dimension")

    def _restore_size(self, old) -> None:
        self._shape, self._scales = old

    def set_input(self, index: int, tensor: ITensor) -> None:
        """``set_input(1, shape_tensor)``: the output shape comes from a 1-D int32/int64 tensor at run time."""
        super().set_input(index, tensor)
        if index == 1:
            self._shape = self._scales = None

    def _doc(self) -> dict:
        doc = {"op": "trt.Resize", **_spec_values(self._settings)}
        if self._shape is not None:
            doc["shape"] = list(self._shape)
        elif self._scales is not None:
            doc["scales"] = list(self._scales)
        elif len(self._inputs) == 1:
            doc["scales"] = [1.0] * self._network._rank(self._inputs[0])
        return doc

    def _field(self, name: str) -> str:
        return {"inputs[0]": "input", "inputs[1]": "set_input(1)"}.get(name, name)


class Network(_Strict):
    """``INetworkDefinition`` for Scale, ElementWise and Resize layers, exported as a spec or a model."""

    def __init__(self):
        self._inputs: dict[str, ITensor] = {}
        self._input_types: dict[str, tuple[DataType, tuple[int, ...]]] = {}
        self._layers: list[ILayer] = []
        self._outputs: list[ITensor] = []

    # --- building, as in TensorRT ---------------------------------------------------------------

    def add_input(self, name: str, dtype: DataType, shape: Sequence[int]) -> ITensor:
        """A network input of ``dtype`` (``trt.float32``, ``trt.DataType.FLOAT``, ...) and static ``shape``."""
        call = f"add_input({name!r})"
        name = _text(name, f"{call}: name")
        if name in self._inputs:
            raise UserError(f"{call}: name: the network already has an input {name!r}")
        dims = _dims(shape, f"{call}: shape")
        dynamic = [i for i, d in enumerate(dims) if d == -1]
        if dynamic:
            raise BuilderUnsupportedError(
                f"{call}: shape {list(dims)}: dimension {dynamic[0]} is -1 (dynamic): not supported: spec2onnx networks have "
                "static shapes (the spec format has no symbolic dimension); give the shape the engine runs at, e.g. "
                "the optimization profile's opt shape, and build one network per shape you deploy")
        negative = [i for i, d in enumerate(dims) if d < 0]
        if negative:
            raise BuilderValueError(f"{call}: shape {list(dims)}: dimension {negative[0]} is {dims[negative[0]]}; "
                                    "a dimension is a non-negative integer")
        self._input_types[name] = (_enum(DataType, dtype, call, "dtype"), dims)
        tensor = self._inputs[name] = ITensor(self, name)
        return tensor

    def add_constant(self, shape: Sequence[int], weights) -> IConstantLayer:
        """A constant tensor (``get_output(0)``) of ``weights`` (an array or ``Weights``) in ``shape``."""
        return self._add(IConstantLayer(self, shape, weights, f"add_constant() (layer {len(self._layers)})"))

    def add_scale(self, input: ITensor, mode: ScaleMode, shift=None, scale=None, power=None, *,  # noqa: A002
                  channel_axis: int = 1) -> IScaleLayer:
        """IScaleLayer: ``(input * scale + shift) ^ power``; coefficients are arrays, ``Weights`` or None (empty)."""
        call = self._call("add_scale")
        layer = IScaleLayer(self, self._own(input, call, "input"), mode, shift, scale, power, channel_axis, call)
        return self._add(layer)

    def add_scale_nd(self, input: ITensor, mode: ScaleMode, shift=None, scale=None, power=None,  # noqa: A002
                     channel_axis: int = 1) -> IScaleLayer:
        """``add_scale`` with the channel axis as its sixth argument (TensorRT's ``add_scale_nd``)."""
        call = self._call("add_scale_nd")
        layer = IScaleLayer(self, self._own(input, call, "input"), mode, shift, scale, power, channel_axis, call)
        return self._add(layer)

    def add_elementwise(self, input1: ITensor, input2: ITensor, op: ElementWiseOperation) -> IElementWiseLayer:
        """IElementWiseLayer: ``op`` on two tensors of one rank, broadcasting dimensions of length 1."""
        call = self._call("add_elementwise")
        layer = IElementWiseLayer(self, self._own(input1, call, "input1"), self._own(input2, call, "input2"), op, call)
        return self._add(layer)

    def add_resize(self, input: ITensor) -> IResizeLayer:  # noqa: A002
        """IResizeLayer (the input's shape until a property says otherwise); each property is checked when set."""
        call = self._call("add_resize")
        return self._add(IResizeLayer(self, self._own(input, call, "input"), call))

    def mark_output(self, tensor: ITensor) -> None:
        """Make a layer's output a network output."""
        tensor = self._own(tensor, "mark_output()", "tensor")
        if tensor._producer is None or isinstance(tensor._producer, IConstantLayer):
            raise UserError(f"mark_output({tensor.name!r}): tensor: only a layer's output can be a network output")
        if tensor not in self._outputs:
            self._outputs.append(tensor)

    @property
    def num_inputs(self) -> int:
        """How many network inputs."""
        return len(self._inputs)

    @property
    def num_outputs(self) -> int:
        """How many network outputs."""
        return len(self._outputs)

    @property
    def num_layers(self) -> int:
        """How many layers (constants included)."""
        return len(self._layers)

    def get_input(self, index: int) -> ITensor:
        """The network input at ``index``, in the order added."""
        return _at(list(self._inputs.values()), index, "get_input", "inputs")

    def get_output(self, index: int) -> ITensor:
        """The network output at ``index``, in the order marked."""
        return _at(self._outputs, index, "get_output", "outputs")

    def get_layer(self, index: int) -> ILayer:
        """The layer at ``index``, in the order added."""
        return _at(self._layers, index, "get_layer", "layers")

    # --- what spec2onnx adds ----------------------------------------------------------------------

    def to_spec_dict(self, name: str = "trt-network", cases=None, *, source: str = "") -> dict:
        """The spec mapping of this network (the structure of a spec file; see ``spec2onnx.load_spec``).

        ``cases``: a mapping or a list of them, ``{"name"?, "inputs": {tensor: data}, "expected"?: {tensor: data},
        "tolerance"?}``; tensors as ``ITensor`` or names. None: one case of seeded random inputs.
        """
        network = self._network_doc(None)
        doc = {"name": name}
        if source:
            doc["source"] = source
        doc["network"] = network
        doc["cases"] = ([_export.default_case(network["inputs"])] if cases is None else
                        _export.cases_doc(cases, "Network cases", self._tensor_name))
        return doc

    def to_spec(self, path, name: str | None = None, cases=None) -> Path:
        """Write the network as a spec file (``.yaml``/``.yml``/``.json``) that ``spec2onnx validate`` takes.

        It is validated first, by the loader; default name: the file's stem.
        """
        path = Path(path)
        doc = self.to_spec_dict(name or path.stem, cases)
        self._load(doc, "to_spec()")
        return _export.write_spec(doc, path, "to_spec()")

    def to_onnx(self, target: str = "portable", *, opset: int | None = None, path=None, name: str = "trt-network"):
        """The network as an ``onnx.ModelProto`` lowered for ``target`` (see ``spec2onnx.convert``); written to ``path`` if given."""
        spec = self._load(self.to_spec_dict(name), "to_onnx()")
        return self._convert(spec, path, target, opset, "to_onnx()").model

    def validate(self, cases=None, *, runtime: str = "onnxruntime", provider: str = "cpu", opset: int | None = None,
                 name: str = "trt-network"):
        """Run ``cases`` (see ``to_spec_dict``) on ``runtime`` and compare with the numpy reference and ``expected``.

        Returns a ``spec2onnx.ValidationReport``.
        """
        spec = self._load(self.to_spec_dict(name, cases), "validate()")
        return api.validate(spec, runtime=runtime, provider=provider, opset=opset)

    # --- internals ----------------------------------------------------------------------------------

    def _call(self, method: str) -> str:
        return f"{method}() (layer {len(self._layers)})"

    def _own(self, tensor, call: str, argument: str) -> ITensor:
        if not isinstance(tensor, ITensor):
            raise UserError(f"{call}: {argument}: expected an ITensor (network.add_input(...) or layer.get_output(0)), "
                            f"got {type(tensor).__name__}")
        if tensor._network is not self:
            raise UserError(f"{call}: {argument}: tensor {tensor.name!r} belongs to another network")
        return tensor

    def _add(self, layer: ILayer, check: "bool" = True) -> ILayer:
        """Append ``layer``, checked by the loader (a constant: its data) unless ``check`` is off; refused, it is not kept."""
        self._layers.append(layer)
        try:
            if isinstance(layer, IConstantLayer):
                layer._constant_doc()
            elif check:
                self._check()
        except UserError:
            self._layers.pop()
            raise
        return layer

    def _tensor_name(self, tensor, where: str) -> str:
        if isinstance(tensor, str):
            return tensor
        return self._own(tensor, where, "tensor").name

    def _rank(self, tensor: ITensor) -> int:
        producer = tensor._producer
        if producer is None:
            return len(self._input_types[tensor.name][1])
        if isinstance(producer, IConstantLayer):
            return len(producer.shape)
        return self._rank(producer._inputs[0])  # Scale, ElementWise and Resize keep their input's rank

    def _constants_doc(self) -> dict:
        return {layer.get_output(0).name: {**layer._constant_doc(), **_range_doc(layer.get_output(0))}
                for layer in self._layers if isinstance(layer, IConstantLayer)}

    def _network_doc(self, outputs: list[ITensor] | None) -> dict:
        layers = []
        for layer in self._layers:
            if isinstance(layer, IConstantLayer):
                continue
            attrs = layer._doc()
            layers.append({"name": layer.get_output(0).name, "op": attrs.pop("op"), "inputs": [t.name for t in layer._inputs],
                           **attrs, **_range_doc(layer.get_output(0))})
        marked = self._outputs if outputs is None else outputs
        doc = {"inputs": {n: {"dtype": t.value, "shape": list(s), **_range_doc(self._inputs[n])}
                          for n, (t, s) in self._input_types.items()}}
        constants = self._constants_doc()
        if constants:
            doc["constants"] = constants
        doc["layers"] = layers
        doc["outputs"] = [t.name for t in marked]
        return doc

    def _check(self, outputs: list[ITensor] | None = None):
        """Validate the network with the spec loader (outputs: default the last layer's); errors name the builder call."""
        layers = [x for x in self._layers if not isinstance(x, IConstantLayer)]
        if not layers:
            return None
        try:
            return parse_network(api.plain_data(self._network_doc(outputs or [layers[-1].get_output(0)])))
        except UserError as exc:
            raise self._translate(exc) from None

    def _type_of(self, tensor: ITensor) -> tuple[str, tuple[int, ...]]:
        """(spec dtype name, shape with -1 for run-time dimensions) of a tensor, the loader deciding a layer's."""
        producer = tensor._producer
        if producer is None:
            dtype, shape = self._input_types[tensor.name]
            return dtype.value, shape
        if isinstance(producer, IConstantLayer):
            doc = producer._constant_doc()
            return doc["dtype"], tuple(doc["shape"])
        ttype = self._check([tensor]).types[tensor.name]
        return ttype.dtype.name, tuple(-1 if d is None else d for d in ttype.shape)

    def _load(self, doc: dict, call: str):
        try:
            return api.load_spec(doc)
        except UserError as exc:
            if exc.field and exc.field.startswith("network."):
                raise self._translate(exc) from None
            raise UserError(f"{call}: {exc.field}: {exc.detail}" if exc.field else f"{call}: {exc.detail}") from None

    def _convert(self, spec, path, target: str, opset, call: str):
        """``spec2onnx.convert`` with its errors told as the builder call that made the layer (never ``<dict>``)."""
        try:
            return api.convert(spec, path, target=target, opset=opset)
        except UserError as exc:
            if exc.field and exc.field.startswith("network."):
                raise self._translate(exc) from None
            raise type(exc)(f"{call}: {exc.field}: {exc.detail}" if exc.field else f"{call}: {exc.detail}") from None

    def _translate(self, exc: UserError) -> UserError:
        """A loader error on ``network.X`` told as the TensorRT call and argument it comes from."""
        field = exc.field or ""
        match = re.match(r"network\.layers\[(\d+)\]\.?(.*)", field)
        if match:
            layer = [x for x in self._layers if not isinstance(x, IConstantLayer)][int(match.group(1))]
            argument = layer._field(match.group(2).split(".")[0]) if match.group(2) else ""
            where = f"{layer._call} {layer.name!r}" + (f": {argument}" if argument else "")
            return type(exc)(f"{where}: {exc.detail}")
        match = re.match(r"network\.inputs\.([^.]+)\.?(.*)", field)
        if match:
            return UserError(f"add_input({match.group(1)!r}): {match.group(2) or 'name'}: {exc.detail}")
        match = re.match(r"network\.constants\.([^.]+)\.?(.*)", field)
        if match:
            return UserError(f"add_constant() {match.group(1)!r}: {match.group(2) or 'weights'}: {exc.detail}")
        if field.startswith("network.outputs"):
            return UserError(f"mark_output(): {exc.detail}")
        return UserError(f"{field}: {exc.detail}" if field else exc.detail)


def _at(items: list, index, call: str, what: str):
    """``items[index]`` for ``Network.get_*``: an index outside 0..n-1 (TensorRT returns None) is a UserError (``type``: ``bool`` here is DataType.BOOL)."""
    if type(index) is not int or not 0 <= index < len(items):
        raise UserError(f"{call}({index!r}): the network has {len(items)} {what} (index 0 to {len(items) - 1})")
    return items[index]


def _range_doc(tensor: ITensor) -> dict:
    """The spec's ``dynamic_range: [min, max]`` of a tensor given one."""
    return {} if tensor._range is None else {"dynamic_range": list(tensor._range)}


# What runs a TensorRT engine has no counterpart: the built model runs on onnxruntime (or any ONNX runtime).
_REFUSED_MODULE = {
    "Runtime": "spec2onnx.trt builds ONNX models, not engines: run build_serialized_network's result with "
               "onnxruntime.InferenceSession(bytes(plan)), or check it with spec2onnx.check(plan.model, plan.target)",
    "ICudaEngine": "see Runtime", "IExecutionContext": "see Runtime", "OnnxParser": "spec2onnx converts specs; use spec2onnx.check on ONNX models",
    "IInt8EntropyCalibrator2": "there is no calibration: give int8 tensors their range with ITensor.set_dynamic_range",
}


def __getattr__(name: str):
    if name in _REFUSED_MODULE:
        raise AttributeError(f"spec2onnx.trt.{name}: not available: {_REFUSED_MODULE[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
