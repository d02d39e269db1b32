"""The registry of layer kinds, each registered by its explicit spec name (``trt.Scale``).

A layer kind bundles what the rest of spec2onnx needs to know about it:

* ``attributes``: the schema of its spec attributes (names and values as the source docs write them);
* ``check``: validates a layer against its input types and returns its output type;
* ``lower``: turns a validated layer into ONNX nodes and initializers;
* ``reference``: its numpy reference, named by module (``".scale:reference"``: in ``converter.reference``)
  so that this registration never imports it and the references import nothing of the lowering; a plugin
  may give the function itself;
* ``target_rules``: per target name, the spec-level rules a layer of the kind must meet there (a function
  ``(spec, layer, where)`` raising TargetRuleError), e.g. ``{"tensorrt-dla": dla.check_scale}``;
* ``builder``: how a network builder makes a layer of the kind (a ``BuilderHook``): TensorRT's
  ``INetworkDefinition.add_*`` method (spec2onnx.trt; a kind without a class there gets a generic one from the
  hook) or a spec2onnx.dml function, and which of its arguments set which attribute;
* ``strategy``: the hypothesis strategy of valid spec documents of the kind that the fuzz tests draw
  (``"module:function"``, resolved by the tests only: the package never imports it; or the function itself);
* ``check_values`` (optional): ``check`` where some input values are known (a shape input), for kinds whose
  output shape depends on an input's values.

tests/test_extension_recipes.py fails for a registered kind without a builder method or a strategy.

A kind is one ``register_layer(LayerKind(...))`` call in its lowering family (converter/lowering/*.py).
The built-in families register when ``converter.lowering`` is imported (spec loading imports it).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from .errors import SpecError
from .names import did_you_mean
from .network import Layer, TensorType
from .schema import Attr

if TYPE_CHECKING:  # pragma: no cover
    from .compare import Tolerance
    from .lowering.builder import Lowered, LoweringContext


@dataclass(frozen=True)
class BuilderHook:
    """How a network builder makes a layer of a kind.

    ``method``: the name of the call, ``INetworkDefinition.<method>`` for ``front="trt"`` (spec2onnx.trt) or
    ``spec2onnx.dml.<method>`` for ``front="dml"``. ``tensors``: the names of its tensor arguments, one per layer
    input in order (default: the kind's input names); ``arguments``: {argument: attribute} for the arguments after
    them, in order; ``properties``: {property: attribute} set on the layer after the call (TensorRT's layer
    properties, e.g. IResizeLayer's). ``layer``: TensorRT's layer class name (``IScaleLayer``).
    """

    method: str
    front: str = "trt"
    tensors: tuple[str, ...] = ()
    arguments: Mapping[str, str] = field(default_factory=dict)
    properties: Mapping[str, str] = field(default_factory=dict)
    layer: str = ""


@dataclass(frozen=True)
class LayerKind:
    name: str
    summary: str
    inputs: tuple[str, ...]  # names of the layer's inputs, for docs and errors
    min_inputs: int
    attributes: Mapping[str, Attr]
    check: Callable[[Layer, Sequence[TensorType]], TensorType]
    lower: Callable[[Layer, "LoweringContext"], "Lowered"]
    notes: str = ""
    # Default comparison tolerance of the layer's output where the dtype default does not fit
    # (e.g. interpolation whose coordinates a runtime computes in float32): (layer, input types) -> Tolerance | None.
    tolerance: Callable[[Layer, Sequence[TensorType]], "Tolerance | None"] | None = None
    reference: "str | Callable | None" = None
    target_rules: Mapping[str, Callable] = field(default_factory=dict)
    builder: BuilderHook | None = None
    strategy: "str | Callable | None" = None
    # The output type where the values of some inputs are known (a shape input given by a case or by a profile's
    # min/opt/max values): (layer, input types, input values, None where unknown) -> TensorType. A kind whose
    # output shape depends on an input's values (trt.Resize's shape input) gives one; else ``check`` is used.
    check_values: Callable[[Layer, Sequence[TensorType], Sequence], TensorType] | None = None

    def __post_init__(self) -> None:
        if self.builder is not None and not self.builder.tensors:  # the tensor arguments default to the input names
            object.__setattr__(self, "builder", replace(self.builder, tensors=tuple(self.inputs)))

    @property
    def max_inputs(self) -> int:
        return len(self.inputs)


_KINDS: dict[str, LayerKind] = {}


def register_layer(kind: LayerKind) -> LayerKind:
    if kind.name in _KINDS:
        raise ValueError(f"layer kind {kind.name} registered twice")
    _KINDS[kind.name] = kind
    return kind


def layer_kinds() -> dict[str, LayerKind]:
    return dict(sorted(_KINDS.items()))


def layer_kind(name: str) -> LayerKind:
    try:
        return _KINDS[name]
    except (KeyError, TypeError):  # TypeError: a list or mapping where a name belongs
        raise SpecError(f"unknown op {name!r}{did_you_mean(name, _KINDS)}; known ops: {', '.join(sorted(_KINDS))}") from None


def register_reference(name: str, fn: Callable) -> None:
    """Give the registered kind ``name`` its numpy reference (a plugin's, when its LayerKind named none)."""
    kind = layer_kind(name)
    if kind.reference is not None:
        raise ValueError(f"reference for {name} registered twice")
    _KINDS[name] = replace(kind, reference=fn)


_REFERENCE_PACKAGE = __name__.rpartition(".")[0] + ".reference"


def reference_of(name: str) -> Callable:
    """The numpy reference of kind ``name``: ``(layer, inputs) -> output``."""
    ref = layer_kind(name).reference
    if ref is None:
        raise KeyError(f"layer kind {name} has no numpy reference")
    if callable(ref):
        return ref
    if ref not in _RESOLVED:
        module, _, function = ref.partition(":")
        _RESOLVED[ref] = getattr(importlib.import_module(module, _REFERENCE_PACKAGE), function)
    return _RESOLVED[ref]


_RESOLVED: dict[str, Callable] = {}


def is_builtin(name: str) -> bool:
    """True for a kind registered by spec2onnx itself (its code is spec2onnx's: caches may key on the version)."""
    kind = _KINDS.get(name)
    return kind is not None and getattr(kind.lower, "__module__", "").startswith(__name__.rpartition(".")[0] + ".")
