"""The build side's settings: ``IBuilderConfig`` (flags, devices, memory pools, knobs) and ``IOptimizationProfile``
(min/opt/max shapes of dynamic inputs, min/opt/max values of shape inputs), and what they add to a spec: its
``profiles`` and its ``precision``."""

from __future__ import annotations

from .enums import BuilderFlag, DeviceType, MemoryPoolType
from .errors import (BuilderTypeError, BuilderValueError, Scoped, Strict, dims, enum_value, integer, shown, text,
                     unsupported)
from .layers import IConstantLayer, ILayer
from .placement import dla_refusal

# TensorRT's defaults of the DLA pools (MemoryPoolType's documentation); the others default to the device's memory.
POOL_DEFAULTS = {MemoryPoolType.DLA_MANAGED_SRAM: 1 << 20, MemoryPoolType.DLA_LOCAL_DRAM: 1 << 30,
                 MemoryPoolType.DLA_GLOBAL_DRAM: 512 << 20}
DLA_POOLS = tuple(POOL_DEFAULTS)
# BuilderFlag -> the spec's ``precision`` (trtexec --fp16/--int8): what the build allows beyond the types
PRECISION_FLAGS = {BuilderFlag.FP16: "fp16", BuilderFlag.INT8: "int8"}


def _flag(value, call: str) -> BuilderFlag:
    return enum_value(BuilderFlag, value, call, "flag")


class IBuilderConfig(Scoped, Strict):
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
        mask = integer(value, "IBuilderConfig.flags", "flags", None, None)
        if mask < 0 or mask >> len(BuilderFlag):
            raise BuilderValueError(f"IBuilderConfig.flags: {shown(mask)} has bits that are no BuilderFlag "
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
        return (self._flags >> _flag(flag, "IBuilderConfig.get_flag()") & 1) == 1

    @property
    def _precision(self) -> tuple[str, ...]:
        """The spec's ``precision`` of these flags (FP16 -> fp16, INT8 -> int8)."""
        return tuple(name for flag, name in PRECISION_FLAGS.items() if self.get_flag(flag))

    # --- devices ----------------------------------------------------------------------------------------------

    @property
    def default_device_type(self) -> DeviceType:
        """Where layers run unless ``set_device_type`` says otherwise: ``DeviceType.GPU`` (default) or ``DLA``."""
        return self._device

    @default_device_type.setter
    def default_device_type(self, value) -> None:
        self._device = enum_value(DeviceType, value, "IBuilderConfig.default_device_type", "default_device_type")

    @property
    def DLA_core(self) -> int:  # noqa: N802 - TensorRT's name
        """The DLA core the engine runs on (-1: unset); recorded in the model's metadata."""
        return self._dla_core

    @DLA_core.setter
    def DLA_core(self, value) -> None:  # noqa: N802
        core = integer(value, "IBuilderConfig.DLA_core", "DLA_core", None, 2**31 - 1)
        if core < -1:
            raise BuilderValueError(f"IBuilderConfig.DLA_core: {core}: a core index is 0 or more (-1: unset)")
        self._dla_core = core

    def _layer(self, layer, call: str) -> ILayer:
        if not isinstance(layer, ILayer):
            raise BuilderTypeError(f"IBuilderConfig.{call}(): layer: expected an ILayer, got {type(layer).__name__} {shown(layer)}")
        return layer

    def set_device_type(self, layer: ILayer, device_type: DeviceType) -> None:
        """Run ``layer`` on ``device_type`` whatever the default."""
        layer = self._layer(layer, "set_device_type")
        self._devices[id(layer)] = (layer, enum_value(DeviceType, device_type, "IBuilderConfig.set_device_type()", "device_type"))

    def get_device_type(self, layer: ILayer) -> DeviceType:
        """The device ``layer`` is set to run on (the default device unless set)."""
        return self._devices.get(id(self._layer(layer, "get_device_type")), (layer, self._device))[1]

    def is_device_type_set(self, layer: ILayer) -> bool:
        """Whether ``set_device_type`` was called for ``layer``."""
        return id(self._layer(layer, "is_device_type_set")) in self._devices

    def reset_device_type(self, layer: ILayer) -> None:
        """Back to the default device for ``layer``."""
        self._devices.pop(id(self._layer(layer, "reset_device_type")), None)

    def can_run_on_DLA(self, layer: ILayer) -> bool:  # noqa: N802 - TensorRT's name
        """Whether DLA runs ``layer`` with this config's precision flags (the tensorrt-dla layer rules, one rule with
        ``convert`` and ``check``: converter/targets/dla.py; the build also checks the layer's lowered nodes, see
        docs/builder.md)."""
        layer = self._layer(layer, "can_run_on_DLA")
        if isinstance(layer, IConstantLayer):
            return True
        network = layer._network
        call = "IBuilderConfig.can_run_on_DLA()"
        spec = network._load(network._spec_doc("trt-network", None, "", self, call), call)
        return dla_refusal(spec, layer, self._precision) is None

    # --- memory, profiles and knobs ---------------------------------------------------------------------------

    def set_memory_pool_limit(self, pool: MemoryPoolType, pool_size: int) -> None:
        """Bound a memory pool (recorded in the model's metadata; an ONNX model has no pools).

        DLA pools must be at least 4 KiB and a power of 2, as TensorRT requires."""
        call = "IBuilderConfig.set_memory_pool_limit()"
        pool = enum_value(MemoryPoolType, pool, call, "pool")
        size = integer(pool_size, call, "pool_size", 0)
        if pool in DLA_POOLS and (size < 4096 or size & (size - 1)):
            raise BuilderValueError(f"{call}: pool_size: {size}: a DLA pool ({pool.name}) is at least 4 KiB and a power of 2")
        self._pools[pool] = size

    def get_memory_pool_limit(self, pool: MemoryPoolType) -> int | None:
        """The limit set for ``pool``, TensorRT's default for a DLA pool, or None (the device's memory)."""
        pool = enum_value(MemoryPoolType, pool, "IBuilderConfig.get_memory_pool_limit()", "pool")
        return self._pools.get(pool, POOL_DEFAULTS.get(pool))

    def add_optimization_profile(self, profile: "IOptimizationProfile") -> int:
        """Add ``profile``; returns its index, as TensorRT's. Each is checked against the network at the build (and
        by ``to_spec``): every dynamic input and every shape input needs its min/opt/max there."""
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
            self._knobs[name] = integer(value, f"IBuilderConfig.{name}", name, low, high if high is not None else 2**31 - 1)

        return property(get, set, doc=doc + " Accepted and recorded; it changes nothing in an ONNX model.")

    avg_timing_iterations = _knob("avg_timing_iterations", 0, None, "TensorRT's timing iterations.")
    builder_optimization_level = _knob("builder_optimization_level", 0, 5, "TensorRT's build effort (0 to 5, default 3).")
    max_aux_streams = _knob("max_aux_streams", -1, None, "TensorRT's auxiliary streams (-1: its heuristic).")
    del _knob

    int8_calibrator = unsupported("IBuilderConfig", "int8_calibrator", None,
                                  "there is no calibration: give int8 tensors their range with ITensor.set_dynamic_range")


class IOptimizationProfile(Strict):
    """``trt.IOptimizationProfile``: min/opt/max shapes of each dynamic input (``set_shape``) and min/opt/max values of
    each shape input (``set_shape_input``), checked at the call: one rank, non-negative, min <= opt <= max in every
    dimension. Whether they fit the network (every dynamic input given; a static dimension kept) is checked at the
    build, as TensorRT's: a profile does not know the network."""

    def __init__(self):
        self._shapes: dict[str, tuple[tuple[int, ...], ...]] = {}
        self._values: dict[str, tuple[tuple[int, ...], ...]] = {}

    def set_shape(self, input: str, min, opt, max) -> None:  # noqa: A002 - TensorRT's argument names
        """The smallest, the optimal and the largest shape of input ``input``."""
        call = f"IOptimizationProfile.set_shape({shown(input)})"
        self._shapes[text(input, f"{call}: input")] = _min_opt_max(call, min, opt, max, "dimension")

    def get_shape(self, input: str) -> list[tuple[int, ...]]:  # noqa: A002
        """[min, opt, max] of ``input`` (empty if unset)."""
        return list(self._shapes.get(text(input, "IOptimizationProfile.get_shape(): input"), ()))

    def set_shape_input(self, input: str, min, opt, max) -> None:  # noqa: A002
        """The smallest, the optimal and the largest VALUES of shape input ``input`` (a 1-D int32/int64 network input
        used as a shape, e.g. a Resize's ``set_input(1, ...)``), as TensorRT's."""
        call = f"IOptimizationProfile.set_shape_input({shown(input)})"
        self._values[text(input, f"{call}: input")] = _min_opt_max(call, min, opt, max, "value")

    def get_shape_input(self, input: str) -> list[tuple[int, ...]]:  # noqa: A002
        """[min, opt, max] values of shape input ``input`` (empty if unset)."""
        return list(self._values.get(text(input, "IOptimizationProfile.get_shape_input(): input"), ()))

    def __bool__(self) -> bool:
        return True


def _min_opt_max(call: str, low, mid, high, what: str) -> tuple[tuple[int, ...], ...]:
    """(min, opt, max), each checked: one length, min <= opt <= max element by element (naming the first that is not)."""
    three = tuple(dims(v, f"{call}: {which}", what=what) for v, which in ((low, "min"), (mid, "opt"), (high, "max")))
    if len({len(s) for s in three}) != 1:
        raise BuilderValueError(f"{call}: min, opt and max have {'ranks' if what == 'dimension' else 'lengths'} "
                                f"{[len(s) for s in three]}; they must have one")
    for i, (a, b, c) in enumerate(zip(*three)):
        if not a <= b <= c:
            bad = f"min {a} > opt {b}" if a > b else f"opt {b} > max {c}"
            raise BuilderValueError(f"{call}: {what} {i}: {bad} (min {list(three[0])}, opt {list(three[1])}, "
                                    f"max {list(three[2])}); need min <= opt <= max")
    return three


def profiles_doc(config: IBuilderConfig | None, network, call: str, build: bool = False) -> list[dict]:
    """The spec's ``profiles`` (docs/builder.md): one mapping per profile of ``config``, ``{input: {min, opt, max}}``,
    shapes for inputs and values for shape inputs; each checked against ``network`` as TensorRT's build checks it
    (messages after TensorRT's: "Network has dynamic or shape inputs, but no optimization profile has been defined.",
    "optimization profile is missing values for shape input"). Shape inputs need a profile to ``build`` (and where
    the config has profiles); a spec of a static network without one feeds them from its cases."""
    inputs = network._input_types
    profiles = list(config._profiles) if config is not None else []
    dynamic = [n for n, (_, shape) in inputs.items() if -1 in shape]
    shape_inputs = [n for n in inputs if network._is_shape_tensor(network._inputs[n])] if build or profiles else []
    if (dynamic or shape_inputs) and not profiles:
        which = ", ".join(repr(n) for n in dynamic + shape_inputs)
        setters = "; ".join([*([f"profile.set_shape({dynamic[0]!r}, min, opt, max)"] if dynamic else []),
                             *([f"profile.set_shape_input({shape_inputs[0]!r}, min, opt, max)"] if shape_inputs else [])])
        raise BuilderValueError(f"{call}: Network has dynamic or shape inputs, but no optimization profile has been "
                                f"defined. (inputs {which}: config = builder.create_builder_config(); profile = "
                                f"builder.create_optimization_profile(); {setters}; "
                                "config.add_optimization_profile(profile)" + ("; and pass config=config" if "build" not in call else "") + ")")
    out = []
    for index, profile in enumerate(profiles):
        where = f"{call}: optimization profile {index}"
        doc = {}
        for name, shapes in profile._shapes.items():
            if name not in inputs:
                raise BuilderValueError(f"{where}: set_shape({name!r}): {name!r} is not a network input "
                                        f"(inputs: {', '.join(map(repr, inputs)) or 'none'})")
            _fits(where, name, inputs[name][1], shapes)
            if not network._is_shape_tensor(network._inputs[name]):  # a shape input's entry holds its values (below)
                doc[name] = dict(zip(("min", "opt", "max"), (list(s) for s in shapes)))
        for name, values in profile._values.items():
            if name not in inputs or not network._is_shape_tensor(network._inputs[name]):
                raise BuilderValueError(f"{where}: set_shape_input({name!r}): {name!r} is not a shape input (a network "
                                        "input used as a shape, e.g. by a Resize's set_input(1, ...))")
            length = inputs[name][1]
            if len(length) != 1 or length[0] != len(values[0]):
                raise BuilderValueError(f"{where}: set_shape_input({name!r}): {len(values[0])} values; the input has "
                                        f"shape {list(length)}")
            doc[name] = dict(zip(("min", "opt", "max"), (list(v) for v in values)))
        for name in dynamic:
            if name not in doc:
                raise BuilderValueError(f"{where}: input {name!r} has dynamic dimensions "
                                        f"{list(inputs[name][1])}: the profile gives it no shape (set_shape)")
        for name in shape_inputs:
            if name not in profile._values:
                raise BuilderValueError(f"{where}: {name}: optimization profile is missing values for shape input "
                                        "(set_shape_input)")
        out.append(doc)
    return out


def _fits(where: str, name: str, shape: tuple[int, ...], shapes) -> None:
    """A profile's min/opt/max for an input of ``shape`` (-1: dynamic): one rank, a static dimension kept."""
    if len(shapes[0]) != len(shape):
        raise BuilderValueError(f"{where}: input {name!r}: min/opt/max have rank {len(shapes[0])}; the input has "
                                f"shape {list(shape)} (rank {len(shape)})")
    for i, d in enumerate(shape):
        got = [s[i] for s in shapes]
        if d != -1 and got != [d, d, d]:
            # TensorRT: "for dimension number i in profile p does not match network definition (got min=, opt=, max=),
            # expected min=opt=max=d"
            raise BuilderValueError(f"{where}: input {name!r}: dimension {i} (got min={got[0]}, opt={got[1]}, "
                                    f"max={got[2]}) does not match network definition, expected min=opt=max={d}")
