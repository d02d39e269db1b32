"""DirectML tensor strides (DML_BUFFER_TENSOR_DESC.Strides) on dml.DequantizeLinear's scale and zero point.

DirectML describes every tensor by ``Sizes`` (here: the input's shape, the same for every tensor of
the operator) and optional ``Strides``: element ``i`` of the view is element ``sum(i_k * Strides_k)``
of the buffer. A stride of 0 repeats a dimension, which is how DirectML users write a per-channel
scale: ``Sizes [N, C, H, W]``, ``Strides [0, 1, 0, 0]``, a buffer of C values. In a spec::

    - {name: y, op: dml.DequantizeLinear, inputs: [x, s, zp], strides: {scale: [0, 1, 0, 0], zero_point: [0, 1, 0, 0]}}

where ``s`` and ``zp`` are the buffers (any shape; their elements in row-major order). The input
and the output stay dense (their Sizes are the layer's). docs/semantics.md, "dml.DequantizeLinear".

Lowering: a constant buffer is read through its strides here, and the layer's own lowering sees the
view as a constant, so a stride-0 per-channel scale becomes a per-axis ``DequantizeLinear`` (per-tensor
when every stride is 0). A run-time buffer becomes ``Reshape`` -> ``Gather`` (the offsets; one
``Reshape`` where the view reads the whole buffer in order, as a per-channel one does), then the
layer's lowering for a full-shape scale: blocked ``DequantizeLinear`` reads it after an ``Expand``
(the stride-0 dimensions), the decomposition's ``Sub``/``Mul`` broadcast the compact view (no
full-size pass).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import FLOAT32, INT8, INT32, INT64, UINT8
from ..errors import SpecError
from ..network import Layer, TensorType
from ..schema import Attr
from .builder import Lowered, LoweringContext, NodeBuilder
from .scale import int8_to_float

ROLES = {"scale": 1, "zero_point": 2}  # which tensors may have strides, and their layer input index


@dataclass(frozen=True)
class Strides(Attr):
    """``{scale: [...], zero_point: [...]}``: DML_BUFFER_TENSOR_DESC strides, in elements."""

    def parse(self, value: Any) -> dict[str, tuple[int, ...]]:
        if not isinstance(value, dict):
            raise SpecError(f"expected a mapping such as {{scale: [0, 1, 0, 0]}}, got {value!r}")
        out = {}
        for role, strides in value.items():
            if role in ("input", "output"):
                raise SpecError(f"the {role} is dense here (its Sizes are the layer's); "
                                f"strides are supported on {', '.join(ROLES)}", field=role)
            if role not in ROLES:
                raise SpecError(f"unknown tensor; strides apply to {', '.join(ROLES)}", field=role)
            if not isinstance(strides, list):
                raise SpecError(f"expected a list of integers, one per dimension, got {strides!r}", field=role)
            for i, s in enumerate(strides):
                if isinstance(s, bool) or not isinstance(s, int) or s < 0:
                    raise SpecError(f"{s!r} is not a non-negative integer (strides count elements, not bytes)", field=f"{role}[{i}]")
                if s >= 2**62:
                    raise SpecError(f"{s} is too large", field=f"{role}[{i}]")
            out[role] = tuple(strides)
        return out

    def describe(self) -> str:
        return "mapping {scale: [...], zero_point: [...]}, non-negative integers, one per dimension"


def elements_read(sizes: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """How many buffer elements the view reads from: 1 + the largest offset (0 for an empty view)."""
    if 0 in sizes:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(sizes, strides))


def check_strides(layer: Layer, in_types) -> set[int]:
    """Validate each strided tensor against the layer's Sizes; returns the input indices that have strides."""
    sizes = in_types[0].shape
    strided = set()
    for role, strides in layer.attrs["strides"].items():
        index = ROLES[role]
        if index >= len(in_types):
            raise SpecError(f"the layer has no {role} input", field=f"strides.{role}")
        if len(strides) != len(sizes):
            raise SpecError(f"{len(strides)} strides for the rank-{len(sizes)} input; DirectML needs one per dimension "
                            f"(DimensionCount = {len(sizes)})", field=f"strides.{role}")
        if None in sizes or in_types[index].size is None:
            strided.add(index)  # a dynamic size: checked at each case's shapes and each profile's (converter/pipeline/shapes.py)
            continue
        need, have = elements_read(sizes, strides), in_types[index].size
        if need > have:
            raise SpecError(f"Sizes {list(sizes)} with Strides {list(strides)} read {need} elements of buffer "
                            f"{layer.inputs[index]!r}, which holds {have} (its TotalTensorSizeInBytes would be too small)",
                            field=f"strides.{role}")
        strided.add(index)
    return strided


def view_offsets(sizes: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """Buffer offsets of the view, int64, with length 1 on every stride-0 dimension (it broadcasts).

    An empty view reads nothing (elements_read is 0, so its buffer may be empty): its offsets are empty too,
    even where a dimension of length 0 has stride 0 (length 1 there would read buffer[0] and on)."""
    if 0 in sizes:
        return np.zeros(tuple(sizes), np.int64)
    compact = tuple(1 if s == 0 else n for n, s in zip(sizes, strides))
    offsets = np.zeros(compact, np.int64)
    for axis, (n, s) in enumerate(zip(compact, strides)):
        shape = [1] * len(compact)
        shape[axis] = n
        offsets = offsets + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return offsets


def lower_strided(lower, layer: Layer, ctx: LoweringContext, choose_plan) -> Lowered:
    """``lower`` (dml.DequantizeLinear's) given the strided tensors as full-Sizes views; ``choose_plan`` is
    dequantize.py's (passed in: dequantize imports this module for its attribute)."""

    b = NodeBuilder(dataclasses.replace(layer, name=f"{layer.name}/strides"))
    sizes = ctx.input_types[0].shape
    dynamic = None in sizes  # a buffer's view is read at run time (its shape depends on the run-time sizes)
    inputs, consts, types = list(layer.inputs), list(ctx.constant_inputs), list(ctx.input_types)
    runtime, expand = [], []
    shape: list[str] = []  # Shape(input), made once where a view needs it
    for role, strides in layer.attrs["strides"].items():
        i = ROLES[role]
        # offsets over the view's static axes: the compact view (length 1 where the stride is 0) needs no other size
        known = None not in [n for n, st in zip(sizes, strides) if st]
        offsets = view_offsets(tuple(1 if st == 0 else n for n, st in zip(sizes, strides)), strides) if dynamic and known \
            else None if dynamic else view_offsets(sizes, strides)
        types[i] = TensorType(ctx.input_types[i].dtype, sizes, ctx.input_types[0].names)
        if dynamic:
            consts[i] = None  # a constant buffer too: its view depends on the run-time sizes
        if consts[i] is not None:
            consts[i] = np.broadcast_to(consts[i].reshape(-1)[offsets], sizes)
        else:
            runtime.append(i)
            buffer = inputs[i]
            if ctx.input_types[i].dtype == UINT8 and ctx.target.includes("tensorrt"):
                # Exact (every uint8 is an int32); the layer's lowering widens an int32 zero point as it does a uint8 one.
                buffer = b.cast(buffer, INT32, why=f"DirectML strides on {role}: TensorRT has UINT8 only as a network "
                                                   "input or output type (onnx-tensorrt docs/operators.md), so the buffer "
                                                   "is cast to int32 before Reshape/Gather/Expand")
                types[i] = TensorType(INT32, sizes)
            elif ctx.input_types[i].dtype == INT8 and ctx.target.includes("tensorrt"):
                # Exact (every int8 is a float32), and negated: the decomposition (always taken, as TensorRT's
                # DequantizeLinear needs a zero zero point) adds it, x + (-zp) being the same exact float32 as x - zp.
                # The Neg keeps the DequantizeLinear away from the Reshape/Gather: onnxruntime's QDQ propagation moves it
                # past them through a QuantizeLinear that zeroes negative values (its default uint8) or, from opset 21,
                # fails type inference (its int8 -> uint8 rewrite leaves output_dtype int8).
                buffer = b.op("Neg", [int8_to_float(b, buffer, ctx.target, f"DirectML strides on {role}: onnx-tensorrt's "
                                                    "Reshape and Gather take no int8 (int8 is quantized in TensorRT)")],
                              why="-zp, exact: keeps onnxruntime's QDQ propagation off the view (x + -zp = x - zp)")
                types[i] = TensorType(FLOAT32, sizes)
            if dynamic:
                flat = b.op("Reshape", [buffer, b.const("flat", np.array([-1], np.int64))],
                            why=f"DirectML strides on {role}: the buffer as one dimension")
                where = (b.const(f"{role}_offsets", offsets) if offsets is not None
                         else dynamic_offsets(b, layer.inputs[0], sizes, strides, shape))
                view = b.op("Gather", [flat, where], axis=0,
                            why=f"DirectML strides {list(strides)} of run-time sizes: element i of the view is "
                                "buffer[sum(i_k * stride_k)]" + ("" if offsets is not None else
                                                                 ", the offsets computed from Shape(input)"))
                inputs[i] = view
                if 0 in strides:
                    expand.append(i)
                continue
            if 0 < offsets.size == ctx.input_types[i].size and np.array_equal(offsets.reshape(-1), np.arange(offsets.size)):
                # the view reads the whole buffer in order (e.g. a per-channel buffer, strides [0, 1, 0, 0]): no Gather.
                # (Not an empty one: Reshape reads a 0 in its shape as "the input's dimension" before opset 14.)
                view = b.op("Reshape", [buffer, b.const("view_shape", np.array(offsets.shape, np.int64))],
                            why=f"DirectML strides {list(strides)} read the buffer {role} in order: a Reshape")
            else:
                flat = b.op("Reshape", [buffer, b.const("flat", np.array([-1], np.int64))],
                            why=f"DirectML strides on {role}: the buffer as one dimension")
                view = b.op("Gather", [flat, b.const(f"{role}_offsets", offsets)], axis=0,
                            why=f"DirectML strides {list(strides)}: element i of the view is buffer[sum(i_k * stride_k)]")
            inputs[i] = view
            if offsets.shape != sizes:
                expand.append(i)
    inner_ctx = dataclasses.replace(ctx, input_types=tuple(types), constant_inputs=tuple(consts))
    # Blocked DequantizeLinear reads the scale and zero point by name: full-shape views. The decomposition's Sub and
    # Mul broadcast the compact view themselves: no full-size Expand pass (and its wide Cast of a zero point is then a
    # Cast of the compact view).
    if choose_plan(inner_ctx).path == "native-blocked":
        for i in expand:
            if dynamic:
                shape or shape.append(b.op("Shape", [layer.inputs[0]]))
            full = shape[0] if dynamic else b.const("sizes", np.array(sizes, np.int64))
            inputs[i] = b.op("Expand", [inputs[i], full], why="DirectML stride 0: the dimension repeats (broadcast)")
        for role in layer.attrs["strides"]:
            if ROLES[role] not in runtime:
                inputs[ROLES[role]] = b.const(f"{role}_view", np.ascontiguousarray(consts[ROLES[role]]))
    b.lowered.extend(lower(dataclasses.replace(layer, inputs=tuple(inputs)), inner_ctx))
    return b.lowered


def dynamic_offsets(b: NodeBuilder, x: str, sizes: tuple, strides: tuple[int, ...], shape: list[str]) -> str:
    """view_offsets computed in the graph for sizes only known at run time: the sum over the axes of
    Range(0, size_k) * stride_k, each reshaped to lie along its axis (length 1 on a stride-0 axis: it broadcasts).
    A static size is a constant; a dynamic one Gather(Shape(input), k) (``shape``: Shape(input) once made)."""
    rank = len(sizes)
    total = None
    for axis, (n, stride) in enumerate(zip(sizes, strides)):
        if stride == 0:
            continue
        if n is None:
            shape or shape.append(b.op("Shape", [x]))
            length = b.op("Gather", [shape[0], b.scalar(f"axis{axis}", axis, INT64)], axis=0)
        else:
            length = b.scalar(f"length{axis}", n, INT64)
        steps = b.op("Range", [b.scalar("zero", 0, INT64), length, b.scalar("one", 1, INT64)])
        along = b.const(f"along{axis}", np.array([1] * axis + [-1] + [1] * (rank - axis - 1), np.int64))
        term = b.op("Reshape", [b.op("Mul", [steps, b.scalar(f"stride{axis}", stride, INT64)]), along])
        total = term if total is None else b.op("Add", [total, term])
    if total is None:  # every stride 0: the first element, broadcast
        return b.const("offsets", np.zeros((1,) * rank, np.int64))
    return total

