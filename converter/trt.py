"""TensorRT's Python network API for the layers spec2onnx lowers: Scale, ElementWise, Resize.

Code written against ``tensorrt`` for these layers ports by changing the import::

    from spec2onnx import trt            # was: import tensorrt as trt

    logger = trt.Logger(trt.Logger.ERROR)
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    x = network.add_input("x", trt.float32, (1, 3, 3, 3))
    layer = network.add_scale(x, trt.ScaleMode.UNIFORM, shift, scale, power)
    network.mark_output(layer.get_output(0))

    network.to_onnx(target="ort-cpu")     # an onnx.ModelProto
    network.to_spec("scale.yaml")         # a spec file `spec2onnx validate` takes
    network.validate({"inputs": {x: data}, "expected": {layer.get_output(0): want}})

Names follow TensorRT's Python API: ``Network.add_input/add_constant/add_scale/add_scale_nd/
add_elementwise/add_resize/mark_output``, layers with ``get_output(0)`` and settable properties,
the enums ``DataType`` (and ``trt.float32`` ...), ``ScaleMode``, ``ElementWiseOperation``,
``InterpolationMode`` (alias ``ResizeMode``), ``ResizeCoordinateTransformation``,
``ResizeSelector``, ``ResizeRoundMode``. What the network means is checked by the spec loader: the
network is written as the mapping a spec file holds and validated there (one validation path);
its errors, and the builder's own, are ``UserError``s naming the call and the argument.
"""

from __future__ import annotations

import enum
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from . import _export
from .errors import UserError

__all__ = ["DataType", "float32", "float16", "bfloat16", "int8", "int32", "int64", "uint8", "bool", "nptype",
           "ScaleMode", "ElementWiseOperation", "InterpolationMode", "ResizeMode", "ResizeCoordinateTransformation",
           "ResizeSelector", "ResizeRoundMode", "Logger", "Builder", "NetworkDefinitionCreationFlag", "Weights",
           "Network", "ITensor", "ILayer", "IConstantLayer", "IScaleLayer", "IElementWiseLayer", "IResizeLayer"]


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
    from .dtypes import DTYPES

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


class Logger:
    """Stands in for ``trt.Logger`` so that ported code runs; spec2onnx reports by raising errors."""

    INTERNAL_ERROR, ERROR, WARNING, INFO, VERBOSE = range(5)

    def __init__(self, min_severity: int = 2):
        self.min_severity = min_severity


class Builder:
    """Stands in for ``trt.Builder``: ``create_network`` is all it offers."""

    def __init__(self, logger: Logger | None = None):
        self.logger = logger

    def create_network(self, flags: int = 0) -> "Network":
        """A new, empty network (every network is explicit-batch)."""
        return Network()


class Weights:
    """``trt.Weights``: an array of coefficients or constant data."""

    def __init__(self, a: Any = None):
        self.array = np.zeros(0, np.float32) if a is None else np.asarray(a)

    def numpy(self) -> np.ndarray:
        """The array."""
        return self.array


# --- argument checks: each raises a UserError naming the call and the argument ---------------------


def _enum(cls, value, call: str, argument: str):
    if isinstance(value, cls):
        return value
    if isinstance(value, str) and value in cls.__members__:
        return cls[value]
    if cls is DataType:
        from .dtypes import DTYPES

        by_numpy = {t.numpy: DataType(n) for n, t in DTYPES.items() if n in {d.value for d in DataType}}
        try:
            if np.dtype(value) in by_numpy:
                return by_numpy[np.dtype(value)]
        except TypeError:
            pass
    raise UserError(f"{call}: {argument}: {value!r} is not one of {cls.__name__}'s members; allowed: "
                    f"{', '.join(f'{cls.__name__}.{m}' for m in cls.__members__)}")


def _text(value, where: str) -> str:
    if not isinstance(value, str):
        raise UserError(f"{where}: expected text, got {type(value).__name__} {value!r}")
    return value


def _enum_of(cls):
    """A ``_setting`` converter to the enum ``cls``."""
    return lambda value, call, argument: _enum(cls, value, call, argument)


def _number(value, call: str, argument: str) -> float:
    if isinstance(value, type(True)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise UserError(f"{call}: {argument}: expected a number, got {value!r}")
    return float(value)


def _integer(value, call: str, argument: str) -> int:
    if isinstance(value, type(True)) or not isinstance(value, (int, np.integer)):
        raise UserError(f"{call}: {argument}: expected an integer, got {value!r}")
    return int(value)


def _sequence(value, call: str, argument: str) -> list:
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist()
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise UserError(f"{call}: {argument}: expected a sequence, got {type(value).__name__} {value!r}")
    return list(value)


def _dims(value, where: str) -> tuple[int, ...]:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise UserError(f"{where}: expected a sequence of integers, got {type(value).__name__} {value!r}")
    dims = []
    for d in value:
        if isinstance(d, type(True)) or not isinstance(d, (int, np.integer)):
            raise UserError(f"{where}: {d!r} is not an integer dimension")
        dims.append(int(d))
    return tuple(dims)


def _coefficients(value, call: str, argument: str) -> list[float]:
    if value is None:
        return []
    array = value.array if isinstance(value, Weights) else value
    try:
        array = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise UserError(f"{call}: {argument}: expected numbers (an array, Weights or a list), got {value!r}") from None
    return array.reshape(-1).tolist()


def _setting(name: str, convert, default: Any = None, doc: str = "") -> property:
    """A settable layer property, as TensorRT's: checked by ``convert(value, call, name)`` when set."""

    def get(self):
        return self._settings.get(name, default)

    def set(self, value) -> None:
        self._settings[name] = convert(value, self._call, name)

    return property(get, set, doc=doc)


def _spec_values(settings: dict) -> dict:
    """Layer settings as spec attribute values (an enum by its spec name)."""
    return {k: (v.value if isinstance(v, enum.Enum) else v) for k, v in settings.items()}


class ITensor:
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


class ILayer:
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
        from .dtypes import DTYPES

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

    @property
    def shape(self):
        """The output shape; setting it clears ``scales``."""
        return self._shape

    @shape.setter
    def shape(self, value) -> None:
        self._shape, self._scales = _dims(value, f"{self._call}: shape"), None

    @property
    def scales(self):
        """Per-dimension scales (output dim = floor(input dim * scale)); setting them clears ``shape``."""
        return self._scales

    @scales.setter
    def scales(self, value) -> None:
        self._scales, self._shape = [_number(v, self._call, "scales") for v in _sequence(value, self._call, "scales")], None

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


class Network:
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
        self._input_types[name] = (_enum(DataType, dtype, call, "dtype"), _dims(shape, f"{call}: shape"))
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
        """IResizeLayer; set its properties afterwards (they are checked when the network is used)."""
        call = self._call("add_resize")
        return self._add(IResizeLayer(self, self._own(input, call, "input"), call), check=False)

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
        from .public import convert

        return convert(self._load(self.to_spec_dict(name), "to_onnx()"), path, target=target, opset=opset).model

    def validate(self, cases=None, *, runtime: str = "onnxruntime", provider: str = "cpu", opset: int | None = None,
                 name: str = "trt-network"):
        """Run ``cases`` (see ``to_spec_dict``) on ``runtime`` and compare with the numpy reference and ``expected``.

        Returns a ``spec2onnx.ValidationReport``.
        """
        from .public import validate

        spec = self._load(self.to_spec_dict(name, cases), "validate()")
        return validate(spec, runtime=runtime, provider=provider, opset=opset)

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
        from .public import plain_data
        from .spec import parse_network

        layers = [x for x in self._layers if not isinstance(x, IConstantLayer)]
        if not layers:
            return None
        try:
            return parse_network(plain_data(self._network_doc(outputs or [layers[-1].get_output(0)])))
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
        from .public import load_spec

        try:
            return load_spec(doc)
        except UserError as exc:
            if exc.field and exc.field.startswith("network."):
                raise self._translate(exc) from None
            raise UserError(f"{call}: {exc.field}: {exc.detail}" if exc.field else f"{call}: {exc.detail}") from None

    def _translate(self, exc: UserError) -> UserError:
        """A loader error on ``network.X`` told as the TensorRT call and argument it comes from."""
        field = exc.field or ""
        match = re.match(r"network\.layers\[(\d+)\]\.?(.*)", field)
        if match:
            layer = [x for x in self._layers if not isinstance(x, IConstantLayer)][int(match.group(1))]
            argument = layer._field(match.group(2).split(".")[0]) if match.group(2) else ""
            where = f"{layer._call} {layer.name!r}" + (f": {argument}" if argument else "")
            return UserError(f"{where}: {exc.detail}")
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
