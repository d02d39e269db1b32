"""The registry of layer kinds, each registered by its explicit spec name (``trt.Scale``).

A layer kind bundles what the rest of spec2onnx needs to know about it:

* ``attributes``: the schema of its spec attributes (names and values as the source docs write them);
* ``check``: validates a layer against its input types and returns its output type;
* ``lower``: turns a validated layer into ONNX nodes and initializers.

The numpy reference implementations are registered separately, in
``converter.reference``, so that they stay independent of the lowering.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from .errors import SpecError
from .network import Layer, TensorType
from .schema import Attr

if TYPE_CHECKING:  # pragma: no cover
    from .compare import Tolerance
    from .lowering.builder import Lowered, LoweringContext


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
    _load_builtin_kinds()
    return dict(sorted(_KINDS.items()))


def layer_kind(name: str) -> LayerKind:
    _load_builtin_kinds()
    try:
        return _KINDS[name]
    except (KeyError, TypeError):  # TypeError: a list or mapping where a name belongs
        raise SpecError(f"unknown op {name!r}{did_you_mean(name, _KINDS)}; known ops: {', '.join(sorted(_KINDS))}") from None


def did_you_mean(word: str, candidates) -> str:
    """A ' (did you mean 'X'?)' suffix for a misspelled name, or ''."""
    if not isinstance(word, str):
        return ""
    lowered = {c.lower(): c for c in candidates}
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""


def _load_builtin_kinds() -> None:
    from . import lowering  # noqa: F401  (importing registers the built-in kinds)
