"""The validated, in-memory form of a spec's network.

This module holds plain data only. The numpy reference implementations import
it, so it must never import onnx, onnxruntime or the lowering code.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from .dtypes import DType

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from .compare import Tolerance
    from .xfail import XfailRule


MAX_ELEMENTS = 2**31  # TensorRT's limit on the elements of one tensor
# numpy's limit on dimensions (NPY_MAXDIMS: 64 since numpy 2.0, 32 before). numpy holds every case's data and
# computes the references, and onnxruntime's Python API takes numpy arrays, so no tensor may have more.
MAX_RANK = 64 if int(np.__version__.split(".")[0]) >= 2 else 32


@dataclass(frozen=True)
class TensorType:
    """A tensor's type. A dimension is None when only the data decides it: a dynamic input dimension (-1 or a
    name in a spec), or one computed from one (e.g. a resize to a run-time shape). ``names`` holds, per dimension,
    the symbolic name of a dynamic one (ONNX's dim_param: every dimension of one name is one value) or None;
    empty when no dimension has a name."""

    dtype: DType
    shape: tuple[int | None, ...]
    names: tuple[str | None, ...] = ()

    def name(self, axis: int) -> str | None:
        """The symbolic name of dimension ``axis``, None when it is static or unnamed."""
        return self.names[axis] if self.names and self.shape[axis] is None else None

    def dims(self) -> list:
        """The dimensions as a spec writes them: ints, names, and -1 for an unnamed dynamic one."""
        return [d if d is not None else (self.name(i) or -1) for i, d in enumerate(self.shape)]

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return None not in self.shape

    @property
    def size(self) -> int | None:
        """The element count, or None when a dimension is dynamic."""
        return math.prod(self.shape) if self.is_static else None  # exact: no int64 wrap-around

    def matches(self, shape: tuple[int, ...]) -> bool:
        """Whether a concrete shape fits this (possibly partly dynamic) one."""
        return len(shape) == self.rank and all(d is None or d == s for d, s in zip(self.shape, shape))

    def __str__(self) -> str:
        return f"{self.dtype.name}[{', '.join(str(d) if d is not None else (self.name(i) or '?') for i, d in enumerate(self.shape))}]"


def tensor_type(dtype: DType, shape, names=()) -> TensorType:
    """A TensorType naming only dynamic dimensions, with ``names`` () when it names none (one form for equal types)."""
    shape = tuple(shape)
    names = tuple(names) + (None,) * (len(shape) - len(names))  # (names of the leading dimensions only: the rest none)
    names = tuple(n if d is None else None for d, n in zip(shape, names))
    return TensorType(dtype, shape, names if any(n is not None for n in names) else ())


@dataclass(frozen=True)
class Layer:
    """One validated layer. ``attrs`` holds every attribute of its kind, defaults filled in."""

    name: str
    op: str
    inputs: tuple[str, ...]
    attrs: Mapping[str, Any]
    field: str = ""  # where the layer sits in its spec, e.g. "network.layers[2]"


@dataclass
class Network:
    inputs: dict[str, TensorType]
    constants: dict[str, np.ndarray]
    layers: list[Layer]  # in an order where every layer comes after what it reads
    outputs: list[str]
    types: dict[str, TensorType] = field(default_factory=dict)  # every tensor: inputs, constants, layers
    scales: dict[str, float] = field(default_factory=dict)  # int8 tensors with a dynamic_range: name -> range / 127
    # TensorRT optimization profiles: one {input: (min, opt, max)} per profile, each a tuple of dimensions, or of
    # values for a shape input. () for a static network (converter/pipeline/shapes.py).
    profiles: tuple[dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]], ...] = ()
    shape_inputs: tuple[str, ...] = ()  # inputs declared ``shape_tensor``: their values are shapes (Resize's input1)

    @property
    def is_dynamic(self) -> bool:
        """Whether an input has a dynamic dimension or is a shape input (its model is built with profiles)."""
        return bool(self.shape_inputs) or any(not t.is_static for t in self.inputs.values())

    @functools.cached_property
    def _layers_by_name(self) -> dict[str, Layer]:
        return {layer.name: layer for layer in self.layers}

    def layer(self, name: str) -> Layer:
        """The layer that produces tensor ``name``."""
        return self._layers_by_name[name]

    def quantization(self, layer: Layer) -> tuple[tuple[float | None, ...], float | None] | None:
        """(input scales, output scale) of a layer that reads or writes an int8 tensor with a dynamic range.

        None when it touches no such tensor (it keeps its own int8 rules). A scale is None for a
        tensor that is not int8 and 1.0 for an int8 one without a range (docs/semantics.md).
        """
        if not self.scales or not any(t in self.scales for t in (*layer.inputs, layer.name)):
            return None

        def scale(tensor: str) -> float | None:
            return self.scales.get(tensor, 1.0) if self.types[tensor].dtype.name == "int8" else None

        return tuple(scale(t) for t in layer.inputs), scale(layer.name)


@dataclass
class Case:
    """One case of a spec: input arrays by network input name, optional expected outputs and tolerance."""

    name: str
    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray] | None
    tolerance: Tolerance | None = None


@dataclass
class Spec:
    """A loaded, validated spec: its network (``converter.network.Network``), cases and settings."""

    name: str
    path: Path
    network: Network
    cases: list[Case]
    source: str = ""
    opset: int | None = None
    tolerance: Tolerance | None = None
    xfail: tuple[XfailRule, ...] = ()
    # TensorRT builder flags the build allows beyond the spec's own types ("fp16", "int8"; trtexec --fp16/--int8):
    # the DLA rules read it (converter/targets/dla.py precision_problem); the model keeps the spec's types
    precision: tuple[str, ...] = ()

    @property
    def ops(self) -> list[str]:
        """The layer kinds the network uses, sorted (e.g. ``['trt.Scale']``)."""
        return sorted({layer.op for layer in self.network.layers})
