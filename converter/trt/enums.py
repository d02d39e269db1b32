"""TensorRT's enums, as ``trt.X`` (TensorRT 10's members and values): the tensor types, the layers' modes, and
the build side's flags, devices and memory pools."""

from __future__ import annotations

import enum

import numpy as np

from ..dtypes import BY_NUMPY, DTYPES
from .errors import enum_value


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

    @classmethod
    def _coerce(cls, value) -> "DataType | None":
        """The DataType of a numpy type (``np.float16``, ``"float16"`` as numpy spells it), or None."""
        try:
            numpy_type = np.dtype(value)
        except Exception:  # noqa: BLE001 - numpy raises TypeError or ValueError for what is not a type
            return None
        found = BY_NUMPY.get(numpy_type)
        return cls(found.name) if found is not None and found.name in cls._value2member_map_ else None


def nptype(dtype: DataType):
    """The numpy type of a ``DataType`` (``trt.nptype``)."""
    return DTYPES[enum_value(DataType, dtype, "nptype()", "dtype").value].numpy.type


class LayerType(str, enum.Enum):
    """TensorRT's layer kinds (``trt.LayerType``) of the layers the builder makes (``ILayer.type``); a str enum, so
    that ``layer.type == "SCALE"`` holds as well as ``layer.type == trt.LayerType.SCALE``."""

    SCALE = "SCALE"
    ELEMENTWISE = "ELEMENTWISE"
    RESIZE = "RESIZE"
    CONSTANT = "CONSTANT"


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


# trt.float32 ... (TensorRT's module-level names of the DataType members; ``bool`` shadows the builtin here only)
float32, float16, bfloat16 = DataType.FLOAT, DataType.HALF, DataType.BF16
int8, int32, int64, uint8, bool = DataType.INT8, DataType.INT32, DataType.INT64, DataType.UINT8, DataType.BOOL  # noqa: A001
