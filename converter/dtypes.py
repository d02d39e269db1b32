"""Data type names used in specs, and their numpy and ONNX counterparts."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import ml_dtypes
import numpy as np

# ONNX TensorProto.DataType values, written out so that this module (which the
# numpy reference implementations import) never imports onnx.
_ONNX_FLOAT, _ONNX_UINT8, _ONNX_INT8, _ONNX_UINT16, _ONNX_INT16 = 1, 2, 3, 4, 5
_ONNX_INT32, _ONNX_INT64, _ONNX_BOOL, _ONNX_FLOAT16, _ONNX_UINT32, _ONNX_BFLOAT16 = 6, 7, 9, 10, 12, 16


@dataclass(frozen=True)
class DType:
    name: str
    numpy: np.dtype
    onnx: int
    kind: str  # "bool", "int" (signed), "uint", or "float"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def min(self):
        return _limits(self)[0]

    @property
    def max(self):
        return _limits(self)[1]

    def __str__(self) -> str:
        return self.name


@functools.lru_cache(maxsize=None)
def _limits(dt: DType):
    if dt.kind == "bool":
        return 0, 1
    if dt.is_integer:
        info = np.iinfo(dt.numpy)
        return int(info.min), int(info.max)
    info = ml_dtypes.finfo(dt.numpy)
    return float(info.min), float(info.max)


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("bool", np.dtype(np.bool_), _ONNX_BOOL, "bool"),
        DType("int8", np.dtype(np.int8), _ONNX_INT8, "int"),
        DType("int16", np.dtype(np.int16), _ONNX_INT16, "int"),
        DType("int32", np.dtype(np.int32), _ONNX_INT32, "int"),
        DType("int64", np.dtype(np.int64), _ONNX_INT64, "int"),
        DType("uint8", np.dtype(np.uint8), _ONNX_UINT8, "uint"),
        DType("uint16", np.dtype(np.uint16), _ONNX_UINT16, "uint"),
        DType("uint32", np.dtype(np.uint32), _ONNX_UINT32, "uint"),
        DType("float16", np.dtype(np.float16), _ONNX_FLOAT16, "float"),
        DType("bfloat16", np.dtype(ml_dtypes.bfloat16), _ONNX_BFLOAT16, "float"),
        DType("float32", np.dtype(np.float32), _ONNX_FLOAT, "float"),
    )
}

# float8 (ONNX 17-20), held by ml_dtypes' types (onnx's own mapping, helper.tensor_dtype_to_np_dtype): no spec type,
# but models a run reads have them (converter/untrusted/declared.py, the runners)
FLOAT8: tuple[DType, ...] = tuple(DType(name, np.dtype(getattr(ml_dtypes, numpy)), onnx, "float") for name, numpy, onnx in (
    ("float8e4m3fn", "float8_e4m3fn", 17), ("float8e4m3fnuz", "float8_e4m3fnuz", 18),
    ("float8e5m2", "float8_e5m2", 19), ("float8e5m2fnuz", "float8_e5m2fnuz", 20)))

# Other names of these types, for a refusal's "did you mean": common shorthands, TensorRT's DataType members
# (C++ kHALF, Python trt.DataType.HALF) and DirectML's DML_TENSOR_DATA_TYPE_*. A spec names a type one way only.
OTHER_NAMES: dict[str, str] = {
    "fp16": "float16", "half": "float16", "khalf": "float16", "f16": "float16",
    "fp32": "float32", "float": "float32", "single": "float32", "kfloat": "float32", "f32": "float32",
    "bf16": "bfloat16", "kbf16": "bfloat16",
    "i8": "int8", "kint8": "int8", "u8": "uint8", "kuint8": "uint8", "kint32": "int32", "kint64": "int64",
    "kbool": "bool", "boolean": "bool",
    **{f"dml_tensor_data_type_{n}": n for n in ("float16", "float32", "uint8", "int8", "uint16", "int16", "uint32",
                                                  "int32", "int64")},
}
DOUBLE_NAMES = ("float64", "double", "fp64", "f64", "kdouble", "dml_tensor_data_type_float64")  # no such type here

BOOL, INT8, INT16, INT32, INT64 = (DTYPES[n] for n in ("bool", "int8", "int16", "int32", "int64"))
UINT8, UINT16, UINT32 = (DTYPES[n] for n in ("uint8", "uint16", "uint32"))
FLOAT16, BFLOAT16, FLOAT32 = (DTYPES[n] for n in ("float16", "bfloat16", "float32"))
BY_NUMPY: dict[np.dtype, DType] = {t.numpy: t for t in DTYPES.values()}  # numpy's type -> DType

def quantize_int8(values: np.ndarray) -> np.ndarray:
    """TensorRT's int8 output rule: round half to even, saturate to [-128, 127].

    NaN (only reachable through 0/0 or a negative base raised to a fractional
    power) becomes 0; see docs/semantics.md.
    """
    values = np.asarray(values, dtype=np.float32)
    values = np.where(np.isnan(values), np.float32(0), values)
    return np.clip(np.rint(values), -128, 127).astype(np.int8)
