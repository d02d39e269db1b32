"""What an ONNX model declares of its graph inputs and outputs: element type and dimensions, as messages name them.

Read from an untrusted file by ``run`` (converter/model/inputs.py) and ``check`` (converter/targets/dynamic.py)
alike, so that both name a tensor, its type and its dimensions the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from onnx import TensorProto

from ..dtypes import DTYPES, FLOAT8, DType
from ..names import did_you_mean

# ONNX element types a run can feed and compare (TensorProto.DataType), beyond the spec types of dtypes.py
EXTRA_DTYPES = {
    11: DType("float64", np.dtype(np.float64), 11, "float"),
    13: DType("uint64", np.dtype(np.uint64), 13, "uint"),
    # float8: compared exactly by default (a Cast to float8 has one right answer). int4, uint4 and float4 are packed
    # two to a byte: not run here
    **{d.onnx: d for d in FLOAT8},
}
BY_ONNX = {d.onnx: d for d in DTYPES.values()} | EXTRA_DTYPES
STRING = 8
_NOT_TENSORS = {"sequence_type": "a sequence", "map_type": "a map", "optional_type": "an optional",
                "sparse_tensor_type": "a sparse tensor"}


@dataclass(frozen=True)
class Tensor:
    """A graph input or output as the model declares it."""

    name: str
    elem_type: int  # TensorProto.DataType; 0 when the model does not say
    dims: tuple | None  # None: rank unknown; else per axis a length (int), a symbol (dim_param, str) or None

    @property
    def dtype(self) -> DType | None:
        return BY_ONNX.get(self.elem_type)

    def type_name(self) -> str:
        return type_name(self.elem_type)

    def describe(self) -> str:
        if self.dims is None:
            return f"{self.type_name()}[rank unknown]"
        return f"{self.type_name()}[{', '.join('?' if d is None else str(d) for d in self.dims)}]"


def type_name(elem_type: int) -> str:
    """The element type as messages name it: float32, int64, ... (the spec names), else onnx's (string, ...)."""
    if elem_type in BY_ONNX:
        return BY_ONNX[elem_type].name
    try:
        return TensorProto.DataType.Name(elem_type).lower()
    except ValueError:
        return f"type {elem_type}"


def not_a_tensor(info) -> str | None:
    """What a ValueInfo declares when it is no tensor ("a sequence", "an optional", ...); None for a tensor (or no
    type at all: the runtime infers it)."""
    which = info.type.WhichOneof("value")
    return None if which in (None, "tensor_type") else _NOT_TENSORS.get(which, f"a {which}")


def declared_tensor(info) -> Tensor:
    """A tensor ValueInfo (or an untyped one: element type 0, rank unknown) as a Tensor."""
    if info.type.WhichOneof("value") != "tensor_type":
        return Tensor(info.name, 0, None)
    ttype = info.type.tensor_type
    if not ttype.HasField("shape"):
        return Tensor(info.name, ttype.elem_type, None)
    dims = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in ttype.shape.dim)
    return Tensor(info.name, ttype.elem_type, dims)


def fed_tensors(model) -> list[Tensor]:
    """The graph inputs a run feeds that are tensors: those without an initializer (an initialized input keeps its
    value, as onnxruntime and Polygraphy have it)."""
    initialized = {init.name for init in model.graph.initializer}
    return [declared_tensor(i) for i in model.graph.input if i.name not in initialized and not_a_tensor(i) is None]


def choices(name: str, names) -> str:
    """A did-you-mean and the model's input names (at most 10), for a message about an input it does not have."""
    hint = did_you_mean(name, list(names))
    listed = ", ".join(repr(n) for n in list(names)[:10]) + (", ..." if len(names) > 10 else "")
    return f"{hint}; its inputs: {listed or 'none'}"
