"""The network's tensors and layers: ``ITensor``, ``ILayer`` and its kinds, ``Weights``, ``Dims``.

A layer holds its inputs and the properties set on it; ``_doc()`` writes it as a spec layer. The names of its
arguments come from its kind's registration (``LayerKind.builder``, converter/registry.py): error messages name
the TensorRT argument a spec attribute comes from, and a kind registered with a builder hook but no class here
gets a generic one (``registered_layer_class``), so a new kind is in the builder without an edit of this file.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from .._export import generator
from ..dtypes import BY_NUMPY, DTYPES
from ..registry import layer_kind
from .enums import (DataType, ElementWiseOperation, InterpolationMode, LayerType, ResizeCoordinateTransformation,
                    ResizeRoundMode, ResizeSelector, ScaleMode, nptype)
from .errors import (BuilderTypeError, BuilderValueError, Strict, coefficients, dims, enum_of, enum_value, index, integer,
                     is_integer, number, sequence, shown, text, unsupported)

_UNSET = object()


class Dims(tuple):
    """``trt.Dims``: a shape (a tuple of integers, -1 for a dynamic dimension); ``Dims2``, ``Dims3``, ``Dims4`` and
    ``DimsHW`` take the values as arguments."""

    def __new__(cls, shape=()):
        return super().__new__(cls, dims(shape, f"trt.{cls.__name__}(): shape", low=-1))


def _dims_n(n: int, name: str):
    def __new__(cls, *values):
        if len(values) == 1 and hasattr(values[0], "__iter__") and not isinstance(values[0], (str, bytes)):
            values = tuple(sequence(values[0], f"trt.{name}()", "values"))
        if len(values) != n:
            raise BuilderTypeError(f"trt.{name}(): expected {n} integers, got {len(values)}")
        return tuple.__new__(cls, dims(values, f"trt.{name}(): values", low=-1))

    return type(name, (Dims,), {"__new__": __new__, "__doc__": f"``trt.{name}``: {n} dimensions."})


Dims2, Dims3, Dims4, DimsHW = _dims_n(2, "Dims2"), _dims_n(3, "Dims3"), _dims_n(4, "Dims4"), _dims_n(2, "DimsHW")


def _numeric(array: np.ndarray) -> bool:
    """Numbers or booleans numpy holds (bfloat16 too: ml_dtypes' type, numpy kind "V")."""
    return array.dtype.kind in "biuf" or array.dtype in BY_NUMPY


class Weights(Strict):
    """``trt.Weights``: an array of coefficients or constant data (``trt.Weights(array)``), or empty weights of a
    type (``trt.Weights(trt.float32)``, ``trt.Weights()``)."""

    def __init__(self, a: Any = None):
        if a is None or isinstance(a, DataType):
            self._array = np.zeros(0, nptype(a or DataType.FLOAT))
            return
        try:
            array = np.asarray(a)
        except Exception:  # noqa: BLE001 - numpy refuses ragged or odd data with ValueError or TypeError
            array = None
        if array is None or not _numeric(array):
            raise BuilderTypeError(f"trt.Weights(): a: expected an array of numbers or a DataType, got {shown(a)}")
        self._array = array

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
        """The values' ``DataType``; float64 values read as FLOAT, the type a layer takes them as (add_constant and
        the Scale coefficients: float32, refusing a finite value beyond its range there)."""
        if self._array.dtype == np.float64:
            return DataType.FLOAT
        return enum_value(DataType, self._array.dtype, "Weights.dtype", "dtype")

    def numpy(self) -> np.ndarray:
        """The array."""
        return self._array

    def __len__(self) -> int:
        return self.size


def _made_by_a_network(network, name: str, how: str) -> None:
    """Tensors and layers are made by a network, as in TensorRT, whose classes have no Python constructor."""
    if not isinstance(getattr(network, "_layers", None), list) or not hasattr(network, "_input_types"):
        raise _no_constructor(name, how)


def _no_constructor(name: str, how: str) -> BuilderTypeError:
    return BuilderTypeError(f"trt.{name}(): no constructor: a network makes them ({how})")


_TENSOR_MADE_BY = "network.add_input(...) or layer.get_output(0)"


def setting(name: str, convert, default: Any = None, doc: str = "") -> property:
    """A settable layer property, as TensorRT's: checked by ``convert(value, call, name)`` when set, then the layer
    with its other properties as they stand (the loader's rules); a refused value is undone."""

    def get(self):
        return self._settings.get(name, default)

    def set(self, value) -> None:
        old = self._settings.get(name, _UNSET)
        self._settings[name] = convert(value, self._where, name)

        def restore():
            if old is _UNSET:
                del self._settings[name]
            else:
                self._settings[name] = old

        self._recheck(restore)

    return property(get, set, doc=doc)


def spec_values(settings: dict) -> dict:
    """Layer settings as spec attribute values (an enum by its spec name)."""
    return {k: (v.value if isinstance(v, enum.Enum) else v) for k, v in settings.items()}


class ITensor(Strict):
    """A tensor of a network: a network input, a constant, or a layer's output."""

    def __init__(self, network, name: str | None, producer: "ILayer | None" = None):
        _made_by_a_network(network, "ITensor", _TENSOR_MADE_BY)
        if producer is None and (name not in network._input_types or name in network._inputs):
            # (a network input is made once, by add_input; trt.ITensor(network, "ghost") made a tensor of nothing)
            raise _no_constructor("ITensor", _TENSOR_MADE_BY)
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
        pair = sequence(value, f"ITensor.dynamic_range ({self.name!r})", "value") if not isinstance(value, dict) else None
        if pair is None or len(pair) != 2:
            raise BuilderTypeError(f"ITensor.dynamic_range ({self.name!r}): expected (min, max), got {shown(value)}")
        if not self.set_dynamic_range(*pair):  # (an assignment returns nothing: the refusal is raised here)
            raise BuilderValueError(f"ITensor.dynamic_range ({self.name!r}): {shown(value)}: min must not be above max")

    def set_dynamic_range(self, min: float, max: float) -> bool:  # noqa: A002 - TensorRT's argument names
        """``ITensor.set_dynamic_range``: int8 values stand for ``q * max(|min|, |max|) / 127`` (docs/semantics.md).

        Each bound is a finite number. As TensorRT's (NvInfer.h: "Requires that min and max be finite, and min <=
        max ... Whether the dynamic range was set successfully"): min above max sets nothing and returns False. The
        loader checks the rest (an int8 tensor) when the network is used.
        """
        call = f"ITensor.set_dynamic_range() ({self.name!r})"
        bounds = []
        for value, which in ((min, "min"), (max, "max")):
            number(value, call, which)
            bounds.append(int(value) if is_integer(value) else float(value))
        if bounds[0] > bounds[1]:
            return False
        self._range = tuple(bounds)
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
        value = text(value, "ITensor.name")
        if self._producer is None and value != self._name:  # a network input, which its network knows by name
            # (TensorRT: "For a network input, the name is assigned by the application"): renamed there too; a
            # rename the network kept no record of broke every later call, blamed on the layers reading it
            self._network._rename_input(self, value)
        self._name = value

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor's dimensions (-1 where only the data decides: a dynamic input dimension and what follows from
        it, or a Resize to a run-time shape); checks the network up to this tensor."""
        return self._network._type_of(self)[1]

    @property
    def dtype(self) -> DataType:
        """The tensor's ``DataType``."""
        return DataType(self._network._type_of(self)[0])

    @property
    def is_network_input(self) -> bool:
        """Whether the tensor is a network input (``add_input``)."""
        return self._producer is None

    @property
    def is_shape_tensor(self) -> bool:
        """Whether the tensor is used as a shape (a Resize's ``set_input(1, ...)``): a network input that is one takes
        its min/opt/max values from ``IOptimizationProfile.set_shape_input``."""
        return self._network._is_shape_tensor(self)

    def __repr__(self) -> str:
        return f"ITensor({self.name!r})"


class ILayer(Strict):
    """What every layer has: a name, inputs, and one output (``get_output(0)``)."""

    _kind = "layer"
    _op = ""  # the spec's layer kind (its registration names the builder's arguments)

    def __init__(self, network, inputs: list[ITensor], call: str):
        _made_by_a_network(network, type(self).__name__, "network.add_<layer>(...)")
        self._network, self._inputs, self._call = network, inputs, call
        self._name = None
        self._settings: dict[str, Any] = {}  # the properties set (see setting)
        self._index = len(network._layers)
        self._output = ITensor(network, None, self)

    @property
    def name(self) -> str:
        """The layer's name (default ``<kind>_<index>``); its output tensor is named after it unless renamed."""
        return self._name or f"{self._kind}_{self._index}"

    @name.setter
    def name(self, value: str) -> None:
        self._name = text(value, f"{type(self).__name__}.name")

    @property
    def _where(self) -> str:
        """The call that made the layer and its name, as error messages name them: ``add_resize() (layer 0) 'up'``."""
        return f"{self._call} {self.name!r}"

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
        return self._inputs[_position(index, f"{type(self).__name__}.get_input({shown(index)})", len(self._inputs), "inputs")]

    def get_output(self, index: int) -> ITensor:
        """The output tensor (index 0: these layers have one output)."""
        _position(index, f"{type(self).__name__}.get_output({shown(index)})", 1, "outputs")
        return self._output

    def set_input(self, index: int, tensor: ITensor) -> None:
        """Replace input ``index`` (0 for every layer; 1 for ElementWise's second and Resize's shape tensor); the
        layer is checked with it, and a refused tensor is undone."""
        call = f"{type(self).__name__}.set_input({shown(index)})"
        position = _position(index, call, min(len(self._inputs) + 1, self._max_inputs), "settable inputs")
        tensor = self._network._own(tensor, call, "tensor")
        old = list(self._inputs)
        if position == len(self._inputs):
            self._inputs.append(tensor)
        else:
            self._inputs[position] = tensor
        undo = self._inputs_changed(position)

        def restore():
            self._inputs[:] = old
            if undo is not None:
                undo()

        self._recheck(restore)

    def _inputs_changed(self, position: int):
        """After ``set_input``: what a layer clears (a Resize given a shape tensor forgets its shape and scales),
        and how to put it back where the layer is refused with the new input (None: nothing cleared)."""
        return None

    _max_inputs = 1
    _shape_inputs: tuple[int, ...] = ()  # the inputs the layer takes as a shape (IResizeLayer: input 1)

    precision = unsupported("ILayer", "precision", None, "a layer computes in its tensors' declared types: "
                            "declare float16 tensors (add_input/add_constant) to compute in float16")

    @property
    def type(self) -> "LayerType | str":
        """The layer kind: TensorRT's ``LayerType`` (SCALE, ELEMENTWISE, RESIZE, CONSTANT), or a registered kind's name
        in capitals (a plugin's: TensorRT has no LayerType member for it)."""
        kind = self._kind.upper()
        return LayerType(kind) if kind in LayerType.__members__ else kind

    def _recheck(self, restore) -> None:
        """After a property assignment: check the network with this layer as it now stands (the spec loader's
        rules, TensorRT's names); a refused value is undone and raised here, at the assignment."""
        if not any(layer is self for layer in self._network._layers) or isinstance(self, IConstantLayer):
            return  # still being made (add_* checks it once complete)
        try:
            self._network._check([self._output])
        except BuilderValueError:
            restore()
            raise

    def _doc(self) -> dict:
        return {"op": self._op, **spec_values(self._settings)}

    def _field(self, name: str) -> str:
        """The TensorRT argument a spec attribute (or ``inputs[i]``) of the layer comes from (error messages): its
        kind's builder hook names them (converter/registry.py)."""
        hook = layer_kind(self._op).builder if self._op else None
        if hook is None:
            return name
        if name.startswith("inputs[") and name.endswith("]") and name[7:-1].isdigit():
            i = int(name[7:-1])
            return hook.tensors[i] if i < len(hook.tensors) else f"set_input({i})"
        return {attribute: argument for argument, attribute in {**hook.properties, **hook.arguments}.items()}.get(name, name)


_position = index  # (the methods take an argument called ``index``)


class IConstantLayer(ILayer):
    """``add_constant``: a tensor of fixed data."""

    _kind = "constant"

    def __init__(self, network, shape, weights, call: str):
        super().__init__(network, [], call)
        self.shape = shape
        self.weights = weights

    @property
    def shape(self) -> tuple[int, ...]:
        """The constant's dimensions."""
        return self._shape

    @shape.setter
    def shape(self, value) -> None:
        self._shape = dims(value, f"{self._where}: shape")

    @property
    def weights(self) -> np.ndarray:
        """The constant's data (its numpy type gives the tensor type)."""
        return self._weights

    @weights.setter
    def weights(self, value) -> None:
        array = value.array if isinstance(value, Weights) else Weights(value).array if not isinstance(value, np.ndarray) else value
        if not _numeric(array):
            raise BuilderTypeError(f"{self._where}: weights: numpy {array.dtype} is not a tensor type; allowed: {', '.join(DTYPES)}")
        if array.dtype == np.float64:  # as trt.Weights of a float64 array is refused, float32 is meant
            with np.errstate(over="ignore"):
                narrow = array.astype(np.float32)
            if np.any(np.isinf(narrow) & np.isfinite(array)):  # (an infinity or a NaN given stays one)
                raise BuilderValueError(f"{self._where}: weights: {shown(array)}: a float64 array is read as float32, "
                                        "whose range (±3.4e38) a finite value exceeds")
            array = narrow
        if array.dtype.name not in {t.value for t in DataType}:  # (int16, uint16, uint32: no trt.DataType holds them)
            raise BuilderTypeError(f"{self._where}: weights: numpy {array.dtype} is no trt.DataType; allowed: "
                                   f"{', '.join(t.value for t in DataType)} (float64 is read as float32)")
        self._weights = array

    def _constant_doc(self) -> dict:
        found = BY_NUMPY.get(self._weights.dtype)
        dtype = found.name if found is not None else None
        if dtype is None:
            raise BuilderTypeError(f"{self._where}: weights: numpy {self._weights.dtype} is not a tensor type; "
                                   f"allowed: {', '.join(DTYPES)}")
        count = int(np.prod(self._shape, dtype=object))
        if self._weights.size != count:
            raise BuilderValueError(f"{self._where}: weights: {self._weights.size} values, shape {list(self._shape)} holds {count}")
        data = self._weights.reshape(self._shape) if count else generator(dtype)  # empty: lists cannot say [0, 1]
        return {"dtype": dtype, "shape": list(self._shape), "data": data}


class IScaleLayer(ILayer):
    """``add_scale`` / ``add_scale_nd``: output = (input * scale + shift) ^ power."""

    _kind = "scale"
    _op = "trt.Scale"

    def __init__(self, network, x, mode, shift, scale, power, channel_axis, call):
        super().__init__(network, [x], call)
        self.mode, self.shift, self.scale, self.power, self.channel_axis = mode, shift, scale, power, channel_axis

    mode = setting("mode", enum_of(ScaleMode), doc="The ``ScaleMode``.")
    shift = setting("shift", coefficients, doc="Shift coefficients (empty: 0).")
    scale = setting("scale", coefficients, doc="Scale coefficients (empty: 1).")
    power = setting("power", coefficients, doc="Power coefficients (empty: 1).")
    channel_axis = setting("channel_axis", integer, doc="The channel axis (CHANNEL and ELEMENTWISE modes).")


class IElementWiseLayer(ILayer):
    """``add_elementwise``: a binary operation with TensorRT broadcasting."""

    _kind = "elementwise"
    _op = "trt.ElementWise"
    _max_inputs = 2

    def __init__(self, network, a, b, op, call):
        super().__init__(network, [a, b], call)
        self.op = op

    op = setting("op", enum_of(ElementWiseOperation), doc="The ``ElementWiseOperation``.")

    def _doc(self) -> dict:
        return {"op": self._op, "operation": self.op.value}


class IResizeLayer(ILayer):
    """``add_resize``: set ``shape`` or ``scales`` (or ``set_input(1, shape_tensor)``) and the modes.

    Neither given: the output has the input's shape, as in TensorRT.
    """

    _kind = "resize"
    _op = "trt.Resize"
    _max_inputs = 2
    _shape_inputs = (1,)

    def __init__(self, network, x, call):
        super().__init__(network, [x], call)
        self._shape = self._scales = None

    # Unset ones read as TensorRT's defaults (the spec's too) and are left out of the spec.
    resize_mode = setting("resize_mode", enum_of(InterpolationMode), InterpolationMode.NEAREST,
                          "The ``InterpolationMode``: NEAREST, LINEAR or CUBIC.")
    coordinate_transformation = setting(
        "coordinate_transformation", enum_of(ResizeCoordinateTransformation), ResizeCoordinateTransformation.ASYMMETRIC,
        "The ``ResizeCoordinateTransformation``: how an output coordinate maps back to the input.")
    selector_for_single_pixel = setting("selector_for_single_pixel", enum_of(ResizeSelector), ResizeSelector.FORMULA,
                                        "The ``ResizeSelector`` for an output length of 1.")
    nearest_rounding = setting("nearest_rounding", enum_of(ResizeRoundMode), ResizeRoundMode.FLOOR,
                               "The ``ResizeRoundMode`` of NEAREST.")
    cubic_coeff = setting("cubic_coeff", number, -0.75,
                          "Coefficient A of the cubic kernel (CUBIC): a finite number within float32's range.")
    exclude_outside = unsupported(
        "IResizeLayer", "exclude_outside", False,
        "the CUBIC kernel keeps its weights outside the input (ONNX exclude_outside 0); renormalising them is not modelled")

    @property
    def shape(self):
        """The output shape (one value per input dimension); setting it clears ``scales`` and a shape tensor."""
        return self._shape

    @shape.setter
    def shape(self, value) -> None:
        shape = dims(value, f"{self._where}: shape")
        self._per_dimension("shape", shape)
        self._set_size(shape, None)

    @property
    def scales(self):
        """Per-dimension scales (output dim = floor(input dim * scale)); setting them clears ``shape`` and a shape tensor."""
        return self._scales

    @scales.setter
    def scales(self, value) -> None:
        scales = [number(v, self._where, "scales") for v in sequence(value, self._where, "scales")]
        self._per_dimension("scales", scales)
        if any(v < 0 for v in scales):
            raise BuilderValueError(f"{self._where}: scales: {scales} has a negative scale")
        self._set_size(None, scales)

    def _set_size(self, shape, scales) -> None:
        old = self._shape, self._scales, list(self._inputs)
        self._shape, self._scales = shape, scales
        del self._inputs[1:]  # TensorRT: setting the shape or the scales replaces a shape tensor

        def restore():
            self._shape, self._scales = old[0], old[1]
            self._inputs[:] = old[2]

        self._recheck(restore)

    def _per_dimension(self, argument: str, values) -> None:
        rank = self._network._rank(self._inputs[0])
        if len(values) != rank:
            raise BuilderValueError(f"{self._where}: {argument}: {list(values)} has {len(values)} values; "
                                    f"the input {self._inputs[0].name!r} has rank {rank}: give one per dimension")

    def set_input(self, index: int, tensor: ITensor) -> None:
        """``set_input(1, shape_tensor)``: the output shape comes from a 1-D int32/int64 tensor at run time (IResizeLayer:
        "input 1: the output shape tensor"); a network input used so is a shape tensor (``set_shape_input``)."""
        super().set_input(index, tensor)

    def _inputs_changed(self, position: int):
        if position != 1:
            return None
        old = self._shape, self._scales
        self._shape = self._scales = None

        def undo():
            self._shape, self._scales = old

        return undo

    def _doc(self) -> dict:
        doc = super()._doc()
        if self._shape is not None:
            doc["shape"] = list(self._shape)
        elif self._scales is not None:
            doc["scales"] = list(self._scales)
        elif len(self._inputs) == 1:
            doc["scales"] = [1.0] * self._network._rank(self._inputs[0])
        return doc


class RegisteredLayer(ILayer):
    """A layer of a kind registered with a builder hook but no class of its own (a plugin's, or a new built-in
    kind's): ``network.<hook.method>(*tensors, *arguments)``, each argument a settable property, checked by the
    loader like every layer (``registered_layer_class`` makes one class per kind)."""

    _max_inputs = 1

    def __init__(self, network, tensors: list, values: dict, call: str):
        super().__init__(network, tensors, call)
        for name, value in values.items():
            setattr(self, name, value)

    def _doc(self) -> dict:
        hook = layer_kind(self._op).builder
        names = {**hook.arguments, **hook.properties}
        return {"op": self._op, **{names.get(k, k): v for k, v in spec_values(self._settings).items()}}


def _passthrough(value, call: str, argument: str):
    """A registered kind's argument: its own schema (the loader) checks it, at the assignment."""
    if isinstance(value, enum.Enum):
        return value
    return value.array.tolist() if isinstance(value, Weights) else value


_REGISTERED: dict[str, type] = {}


def registered_layer_class(op: str) -> type:
    """The layer class of kind ``op`` (a registration with a builder hook), made once: TensorRT's class name from the
    hook (``layer``), one ``setting`` property per argument and property the hook names."""
    cls = _REGISTERED.get(op)
    if cls is None:
        kind = layer_kind(op)
        hook = kind.builder
        names = {**hook.arguments, **hook.properties}
        body = {argument: setting(argument, _passthrough, kind.attributes[attribute].default if attribute in kind.attributes
                                  else None, f"The spec attribute {attribute!r} of {op}.")
                for argument, attribute in names.items()}
        body.update(_kind=hook.method.removeprefix("add_"), _op=op, _max_inputs=kind.max_inputs,
                    __doc__=f"``{hook.method}``: a {op} layer ({kind.summary}).")
        cls = _REGISTERED[op] = type(hook.layer or f"I{op.rpartition('.')[2]}Layer", (RegisteredLayer,), body)
    return cls
