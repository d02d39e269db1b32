"""``INetworkDefinition``: TensorRT's network, built layer by layer and exported as a spec, a model or a report.

There is one validation path: the network is written as the mapping a spec file holds and the spec loader
validates it (at every ``add_*`` and property assignment, and when used); its errors are told as the builder call
and argument that made the layer (``_translate``). A network with -1 dimensions or shape inputs takes its
optimization profiles from an ``IBuilderConfig`` (``config=``), as TensorRT's build does.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Sequence

from .. import _export, api
from ..errors import UserError
from ..registry import layer_kinds
from ..pipeline.spec import parse_network
from .config import IBuilderConfig, profiles_doc
from .enums import DataType, ElementWiseOperation, ScaleMode
from .errors import (BUILDER_ERRORS, BuilderTypeError, BuilderValueError, Scoped, Strict, dims, enum_value, index, integer,
                     sequence, shown, text)
from .layers import (IConstantLayer, IElementWiseLayer, ILayer, IResizeLayer, IScaleLayer, ITensor,
                     registered_layer_class)


class INetworkDefinition(Scoped, Strict):
    """``trt.INetworkDefinition`` (``builder.create_network()``) for the registered layer kinds (Scale, ElementWise,
    Resize, and any kind registered with a builder hook), exported as a spec or a model."""

    def __init__(self):
        self._inputs: dict[str, ITensor] = {}
        self._input_types: dict[str, tuple[DataType, tuple[int, ...]]] = {}
        self._layers: list[ILayer] = []
        self._outputs: list[ITensor] = []

    # --- building, as in TensorRT ---------------------------------------------------------------

    def add_input(self, name: str, dtype: DataType, shape: Sequence[int]) -> ITensor:
        """A network input of ``dtype`` (``trt.float32``, ``trt.DataType.FLOAT``, ...) and ``shape``; -1 marks a
        dynamic dimension, whose min/opt/max an optimization profile gives (``profile.set_shape``)."""
        call = f"add_input({shown(name)})"
        name = text(name, f"{call}: name")
        if name in self._inputs:
            raise BuilderValueError(f"{call}: name: the network already has an input {name!r}")
        shape = dims(shape, f"{call}: shape", low=-1)
        self._input_types[name] = (enum_value(DataType, dtype, call, "dtype"), shape)
        tensor = self._inputs[name] = ITensor(self, name)
        return tensor

    def _rename_input(self, tensor: ITensor, name: str) -> None:
        """``ITensor.name = name`` of a network input: the network's record of it renamed, in its place."""
        if name in self._inputs or any(layer.get_output(0).name == name for layer in self._layers):
            raise BuilderValueError(f"ITensor.name: {name!r}: the network already has a tensor of that name")
        old = tensor.name
        self._inputs = {name if n == old else n: t for n, t in self._inputs.items()}
        self._input_types = {name if n == old else n: v for n, v in self._input_types.items()}

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
        """IResizeLayer (the input's shape until a property or ``set_input(1, shape)`` says otherwise); each
        property is checked when set."""
        call = self._call("add_resize")
        return self._add(IResizeLayer(self, self._own(input, call, "input"), call))

    def mark_output(self, tensor: ITensor) -> None:
        """Make a layer's output a network output."""
        tensor = self._own(tensor, "mark_output()", "tensor")
        if tensor._producer is None or isinstance(tensor._producer, IConstantLayer):
            raise BuilderValueError(f"mark_output({tensor.name!r}): tensor: only a layer's output can be a network output")
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

    def __len__(self) -> int:
        """``len(network)``: ``num_layers``, as TensorRT's Python network."""
        return self.num_layers

    def __getitem__(self, index: int) -> ILayer:
        """``network[i]``: ``get_layer(i)``, as TensorRT's Python network."""
        return self.get_layer(index)

    def __iter__(self):
        """``for layer in network``: the layers in the order added, as TensorRT's Python network."""
        return iter(list(self._layers))

    def __getattr__(self, name: str):
        """``add_<kind>`` of a kind registered with a builder hook and no method above (a plugin's, or a new kind's:
        converter/registry.py BuilderHook), with TensorRT's calling convention: tensors first, then the arguments."""
        kind = _registered_kinds().get(name) if name.startswith("add_") else None
        if kind is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return functools.partial(self._add_registered, kind)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_registered_kinds()))

    # --- what spec2onnx adds ----------------------------------------------------------------------

    def to_spec_dict(self, name: str = "trt-network", cases=None, *, source: str = "",
                     config: IBuilderConfig | None = None) -> dict:
        """The spec mapping of this network (the structure of a spec file; see ``spec2onnx.load_spec``).

        ``cases``: a mapping or a list of them, ``{"name"?, "inputs": {tensor: data}, "expected"?: {tensor: data},
        "tolerance"?}``; tensors as ``ITensor`` or names. None: one case of seeded random inputs, or, for a network
        with profiles, the loader's cases at min, opt and max of each profile. ``config``: the ``IBuilderConfig``
        whose optimization profiles (the spec's ``profiles``, needed by a network with -1 dimensions or shape
        inputs) and precision flags (FP16, INT8: the spec's ``precision``) the spec keeps.
        """
        return self._spec_doc(name, cases, source, config, "to_spec_dict()")

    def _spec_doc(self, name, cases, source, config, call: str) -> dict:
        if config is not None and not isinstance(config, IBuilderConfig):
            raise BuilderTypeError(f"{call}: config: expected an IBuilderConfig (builder.create_builder_config()), "
                                   f"got {type(config).__name__}")
        text(name, f"{call}: name")
        building = call.startswith("build_serialized_network")
        profiles = profiles_doc(config, self, call, building)
        dynamic = any(-1 in shape for _, shape in self._input_types.values()) or bool(profiles and self._shape_inputs())
        network = self._network_doc(None, shape_tensors=dynamic)
        # A static network's profiles too (IOptimizationProfile: "If none of the inputs are dynamic, the default
        # optimization profile will be generated automatically unless it is explicitly provided by the user (this is
        # possible but not required in this case)", docs.nvidia.com/deeplearning/tensorrt/latest/_static/python-api/
        # infer/Core/OptimizationProfile.html; min = opt = max = its shape, checked at the build).
        if dynamic or profiles:
            network["profiles"] = profiles
        doc = {"name": name}
        if source:
            doc["source"] = text(source, f"{call}: source")
        if config is not None and config._precision:
            doc["precision"] = list(config._precision)
        doc["network"] = network
        if cases is not None:
            try:
                doc["cases"] = _export.cases_doc(cases, f"{call}: cases", self._tensor_name)
            except UserError as exc:
                raise exc if isinstance(exc, BUILDER_ERRORS) else BuilderTypeError(str(exc)) from None
        elif "profiles" not in network:  # (with profiles: the loader's cases at min, opt and max of each)
            doc["cases"] = [_export.default_case(network["inputs"])]
        return doc

    def to_spec(self, path, name: str | None = None, cases=None, *, config: IBuilderConfig | None = None) -> Path:
        """Write the network as a spec file (``.yaml``/``.yml``/``.json``) that ``spec2onnx validate`` takes.

        It is validated first, by the loader; default name: the file's stem. ``config``: see ``to_spec_dict``.
        """
        if not isinstance(path, (str, Path)):
            raise BuilderTypeError(f"to_spec(): path: expected a file name, got {type(path).__name__} {shown(path)}")
        path = Path(path)
        doc = self._spec_doc(name or path.stem, cases, "", config, "to_spec()")
        self._load(doc, "to_spec()")
        try:
            return _export.write_spec(doc, path, "to_spec()")
        except UserError as exc:  # the path: its suffix, its folder, the write
            raise BuilderValueError(str(exc)) from None

    def to_onnx(self, target: str = "portable", *, opset: int | None = None, path=None, name: str = "trt-network",
                config: IBuilderConfig | None = None):
        """The network as an ``onnx.ModelProto`` lowered for ``target`` (see ``spec2onnx.convert``); written to ``path``
        if given. ``config``: its profiles (dynamic dimensions stay symbolic) and precision flags (``to_spec_dict``)."""
        _options("to_onnx()", target=target, opset=opset, path=path)
        spec = self._load(self._spec_doc(name, None, "", config, "to_onnx()"), "to_onnx()")
        return self._convert(spec, path, target, opset, "to_onnx()").model

    def validate(self, cases=None, *, runtime: str = "onnxruntime", provider: str = "cpu", opset: int | None = None,
                 name: str = "trt-network", config: IBuilderConfig | None = None):
        """Run ``cases`` (see ``to_spec_dict``; a network with profiles: by default at min, opt and max of each) on
        ``runtime`` and compare with the numpy reference and ``expected``. Returns a ``spec2onnx.ValidationReport``.
        """
        _options("validate()", runtime=runtime, provider=provider, opset=opset)
        spec = self._load(self._spec_doc(name, cases, "", config, "validate()"), "validate()")
        try:
            return api.validate(spec, runtime=runtime, provider=provider, opset=opset)
        except UserError as exc:
            raise BuilderValueError(f"validate(): {exc}") from None

    # --- internals ----------------------------------------------------------------------------------

    def _call(self, method: str) -> str:
        return f"{method}() (layer {len(self._layers)})"

    def _own(self, tensor, call: str, argument: str) -> ITensor:
        if not isinstance(tensor, ITensor):
            raise BuilderTypeError(f"{call}: {argument}: expected an ITensor (network.add_input(...) or "
                                   f"layer.get_output(0)), got {type(tensor).__name__}")
        if tensor._network is not self:
            raise BuilderValueError(f"{call}: {argument}: tensor {tensor.name!r} belongs to another network")
        return tensor

    def _add(self, layer: ILayer) -> ILayer:
        """Append ``layer``, checked by the loader (a constant: its data); refused, it is not kept."""
        self._layers.append(layer)
        try:
            if isinstance(layer, IConstantLayer):
                layer._constant_doc()
            else:
                self._check()
        except UserError:
            self._layers.pop()
            raise
        return layer

    def _add_registered(self, op: str, *args, **kwargs) -> ILayer:
        """``add_<kind>(*tensors, *arguments, **arguments)`` of a registered kind (its BuilderHook)."""
        kind = layer_kinds()[op]
        hook = kind.builder
        call = self._call(hook.method)
        count = min(len(args), kind.max_inputs)
        tensors = [self._own(t, call, hook.tensors[i] if i < len(hook.tensors) else f"inputs[{i}]")
                   for i, t in enumerate(args[:count])]
        if len(tensors) < kind.min_inputs:
            raise BuilderTypeError(f"{call}: expected at least {kind.min_inputs} tensors "
                                   f"({', '.join(hook.tensors[:kind.min_inputs])}), got {len(tensors)}")
        names = list(hook.arguments)
        if len(args) - count > len(names):
            raise BuilderTypeError(f"{call}: expected at most {count + len(names)} arguments, got {len(args)}")
        values = dict(zip(names, args[count:]))
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise BuilderTypeError(f"{call}: unexpected argument {key!r} (arguments: {', '.join(names) or 'none'})")
            values[key] = value
        return self._add(registered_layer_class(op)(self, tensors, values, call))

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

    def _is_shape_tensor(self, tensor: ITensor) -> bool:
        """Whether a layer takes ``tensor`` as a shape (a Resize's input 1)."""
        return any(len(layer._inputs) > i and layer._inputs[i] is tensor
                   for layer in self._layers for i in layer._shape_inputs)

    def _shape_inputs(self) -> list[str]:
        return [n for n, t in self._inputs.items() if self._is_shape_tensor(t)]

    def _constants_doc(self, ranges: bool = True) -> dict:
        docs = {}
        for layer in self._layers:
            if isinstance(layer, IConstantLayer):
                doc = layer._constant_doc()
                docs[layer.get_output(0).name] = {**doc, **(_range_doc(layer.get_output(0))
                                                            if ranges and doc["dtype"] == "int8" else {})}
        return docs

    def _network_doc(self, outputs: list[ITensor] | None, shape_tensors: bool = False, ranges: bool = True) -> dict:
        """The spec's ``network``; ``ranges``: with the tensors' dynamic ranges, an int8 tensor's alone (a range on a
        float tensor is TensorRT's hint for an INT8 build without a calibrator, set on every tensor by its usual
        workflow: it changes no value of the model, and the spec's ``dynamic_range`` is an int8 tensor's scale)."""
        int8 = self._int8_outputs() if ranges else set()
        layers = []
        for layer in self._layers:
            if isinstance(layer, IConstantLayer):
                continue
            attrs = layer._doc()
            out = layer.get_output(0)
            layers.append({"name": out.name, "op": attrs.pop("op"), "inputs": [t.name for t in layer._inputs],
                           **attrs, **(_range_doc(out) if out.name in int8 else {})})
        marked = self._outputs if outputs is None else outputs
        shapes = set(self._shape_inputs()) if shape_tensors else set()
        doc = {"inputs": {n: {"dtype": t.value, "shape": list(s), **({"shape_tensor": True} if n in shapes else {}),
                              **(_range_doc(self._inputs[n]) if ranges and t == DataType.INT8 else {})}
                          for n, (t, s) in self._input_types.items()}}
        constants = self._constants_doc(ranges)
        if constants:
            doc["constants"] = constants
        doc["layers"] = layers
        doc["outputs"] = [t.name for t in marked]
        return doc

    def _int8_outputs(self) -> set[str]:
        """The layers' output tensors that are int8 and have a dynamic range (the loader decides their types, once,
        without the ranges; none asked where no layer output has a range)."""
        ranged = [layer.get_output(0) for layer in self._layers
                  if not isinstance(layer, IConstantLayer) and layer.get_output(0)._range is not None]
        if not ranged:
            return set()
        try:
            types = parse_network(api.plain_data(self._network_doc([t for t in ranged], ranges=False)),
                                  profiles_required=False).types
        except UserError:
            return {t.name for t in ranged}  # (the network is refused anyway: the ranges are kept, as the loader sees them)
        return {t.name for t in ranged if types[t.name].dtype.name == "int8"}

    def _check(self, outputs: list[ITensor] | None = None):
        """Validate the network with the spec loader (outputs: default the last layer's); errors name the builder call."""
        layers = [x for x in self._layers if not isinstance(x, IConstantLayer)]
        if not layers:
            return None
        try:
            return parse_network(api.plain_data(self._network_doc(outputs or [layers[-1].get_output(0)])),
                                 profiles_required=False)  # as TensorRT, layer by layer; profiles come at the build
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
        return ttype.dtype.name, tuple(d if isinstance(d, int) else -1 for d in ttype.shape)

    def _load(self, doc: dict, call: str):
        try:
            return api.load_spec(doc)
        except UserError as exc:
            raise self._translate(exc, call) from None

    def _convert(self, spec, path, target: str, opset, call: str):
        """``spec2onnx.convert`` with its errors told as the builder call that made the layer (never ``<dict>``)."""
        try:
            return api.convert(spec, path, target=target, opset=opset)
        except UserError as exc:
            raise self._translate(exc, call) from None

    def _translate(self, exc: UserError, call: str = "") -> BuilderValueError:
        """A loader error on ``network.X`` told as the TensorRT call and argument it comes from; another field as
        ``call: field: detail``."""
        field = exc.field or ""
        match = re.match(r"network\.layers\[(\d+)\]\.?(.*)", field)
        if match:
            layer = [x for x in self._layers if not isinstance(x, IConstantLayer)][int(match.group(1))]
            argument = layer._field(match.group(2).split(".")[0]) if match.group(2) else ""
            return BuilderValueError(f"{layer._call} {layer.name!r}" + (f": {argument}" if argument else "") + f": {exc.detail}")
        match = re.match(r"network\.inputs\.([^.]+)\.?(.*)", field)
        if match:
            return BuilderValueError(f"add_input({match.group(1)!r}): {match.group(2) or 'name'}: {exc.detail}")
        match = re.match(r"network\.constants\.([^.]+)\.?(.*)", field)
        if match:
            return BuilderValueError(f"add_constant() {match.group(1)!r}: {match.group(2) or 'weights'}: {exc.detail}")
        match = re.match(r"network\.profiles\[(\d+)\]\.?(.*)", field)
        if match:
            return BuilderValueError(f"{call or 'build'}: optimization profile {match.group(1)}"
                                     + (f": {match.group(2)}" if match.group(2) else "") + f": {exc.detail}")
        if field.startswith("network.outputs"):
            return BuilderValueError(f"mark_output(): {exc.detail}")
        where = f"{call}: " if call else ""
        return BuilderValueError(f"{where}{field}: {exc.detail}" if field else f"{where}{exc.detail}")


def _options(call: str, **given) -> None:
    """The options of ``to_onnx``/``validate`` checked for their types (their values: by the library, named)."""
    for name, value in given.items():
        if name == "opset":
            if value is not None:
                integer(value, call, name)
        elif name == "path":
            if value is not None and not isinstance(value, (str, os.PathLike)):
                raise BuilderTypeError(f"{call}: path: expected a file name, got {type(value).__name__} {shown(value)}")
        elif name == "runtime" and not isinstance(value, str):
            runtimes = sequence(value, call, name)
            if not runtimes or not all(isinstance(r, str) for r in runtimes):
                raise BuilderTypeError(f"{call}: runtime: expected a runtime's name or a list of them, got {shown(value)}")
        else:
            text(value, f"{call}: {name}")


def _registered_kinds() -> dict[str, str]:
    """{add_* method: kind} of the kinds registered for this builder (front "trt") that have no method of their own."""
    return {kind.builder.method: name for name, kind in layer_kinds().items()
            if kind.builder is not None and kind.builder.front == "trt"
            and not hasattr(INetworkDefinition, kind.builder.method)}


def _at(items: list, position, call: str, what: str):
    """``items[position]`` for ``get_*``: an index outside 0..n-1 (TensorRT returns None) is a BuilderValueError."""
    return items[index(position, f"{call}({shown(position)})", len(items), what, "the network")]


def _range_doc(tensor: ITensor) -> dict:
    """The spec's ``dynamic_range: [min, max]`` of a tensor given one."""
    return {} if tensor._range is None else {"dynamic_range": list(tensor._range)}
