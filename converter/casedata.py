"""Turning a case's data (literal lists, .npy files, seeded generators) into numpy arrays."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from .dtypes import DType
from .errors import SpecError
from .network import TensorType

MAX_NPY_BYTES = 256 * 1024 * 1024
RANDOM_KINDS = ("uniform", "normal", "integers")
_RANDOM_KEYS = {
    "uniform": {"random", "low", "high", "seed"},
    "normal": {"random", "mean", "std", "seed"},
    "integers": {"random", "low", "high", "seed"},
}


def materialize(value: Any, ttype: TensorType, spec_dir: Path) -> np.ndarray:
    """The array a case value stands for, checked against the tensor's dtype and shape."""
    if isinstance(value, str):
        array = _load_npy(value, spec_dir)
        want = ttype.dtype.numpy
        if array.dtype != want:
            raise SpecError(f"{value}: holds {array.dtype}, the tensor is {ttype.dtype.name}")
    elif isinstance(value, dict):
        array = _generate(value, ttype)
    elif isinstance(value, (list, int, float, bool)):
        array = _literal(value, ttype.dtype)
    else:
        raise SpecError(f"expected a nested list, a .npy path or a {{random: ...}} generator, got {type(value).__name__}")
    if not ttype.matches(array.shape):
        raise SpecError(f"has shape {list(array.shape)}, the tensor is {ttype}")
    return np.ascontiguousarray(array)


def _load_npy(text: str, spec_dir: Path) -> np.ndarray:
    if not text.endswith(".npy"):
        raise SpecError(f"{text!r}: a string must be the path of a .npy file")
    root = spec_dir.resolve()
    path = (spec_dir / text).resolve()
    if root != path and root not in path.parents:
        raise SpecError(f"{text}: .npy files must lie inside the spec's folder ({spec_dir})")
    if not path.is_file():
        raise SpecError(f"{text}: no such file")
    if path.stat().st_size > MAX_NPY_BYTES:
        raise SpecError(f"{text}: larger than the {MAX_NPY_BYTES // 2**20} MiB limit for .npy files")
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as exc:
        raise SpecError(f"{text}: not a plain .npy array ({exc})") from None
    except (OSError, EOFError) as exc:
        raise SpecError(f"{text}: cannot be read as .npy ({exc})") from None


def _literal(value: Any, dtype: DType) -> np.ndarray:
    try:
        raw = np.array(value, dtype=object)
    except ValueError:
        raise SpecError("nested lists are ragged (rows of different lengths)") from None
    if raw.dtype == object and raw.ndim and any(isinstance(v, list) for v in raw.ravel()):
        raise SpecError("nested lists are ragged (rows of different lengths)")
    flat = [_scalar(v, dtype) for v in raw.ravel()]
    if dtype.is_float:
        # float64 first, then one rounding to the target type (bfloat16/float16 round to nearest even).
        return np.array(flat, dtype=np.float64).astype(dtype.numpy).reshape(raw.shape)
    return np.array(flat, dtype=dtype.numpy).reshape(raw.shape)


def _scalar(v: Any, dtype: DType):
    if dtype.kind == "bool":
        if isinstance(v, bool) or v in (0, 1):
            return bool(v)
        raise SpecError(f"{v!r} is not a bool (true/false, or 0/1)")
    if dtype.is_float:
        if isinstance(v, str) and v.lower() in ("nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
            return float(v)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SpecError(f"{v!r} is not a number")
        return float(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
        raise SpecError(f"{v!r} is not an integer ({dtype.name})")
    if not dtype.min <= v <= dtype.max:
        raise SpecError(f"{v!r} is out of range for {dtype.name} [{dtype.min}, {dtype.max}]")
    return int(v)


def _generate(gen: dict, ttype: TensorType) -> np.ndarray:
    if not ttype.is_static:
        raise SpecError(f"a random generator needs a static shape, the tensor is {ttype}")
    kind = gen.get("random")
    if kind not in RANDOM_KINDS:
        raise SpecError(f"random: {kind!r} is not one of {', '.join(RANDOM_KINDS)}")
    unknown = set(gen) - _RANDOM_KEYS[kind]
    if unknown:
        raise SpecError(f"unknown key {sorted(unknown)[0]!r} for random: {kind}; allowed: {', '.join(sorted(_RANDOM_KEYS[kind]))}")
    seed = gen.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SpecError(f"seed: {seed!r} must be a non-negative integer")
    rng = np.random.default_rng(seed)
    dtype = ttype.dtype
    if kind == "integers":
        low, high = (_bound(gen, key, dtype, default) for key, default in (("low", dtype.min), ("high", dtype.max)))
        if not (float(low).is_integer() and float(high).is_integer()):
            raise SpecError("integers: low and high must be integers")
        if low > high:
            raise SpecError(f"integers: low {low} is above high {high}")
        values = rng.integers(int(low), int(high), size=ttype.shape, endpoint=True)
    elif not dtype.is_float:
        raise SpecError(f"random: {kind} makes floats; a {dtype.name} tensor needs random: integers")
    elif kind == "uniform":
        low, high = _bound(gen, "low", dtype, 0.0), _bound(gen, "high", dtype, 1.0)
        if low > high:
            raise SpecError(f"uniform: low {low} is above high {high}")
        values = rng.uniform(low, high, size=ttype.shape)
    else:
        mean, std = _bound(gen, "mean", dtype, 0.0), _bound(gen, "std", dtype, 1.0)
        if std < 0:
            raise SpecError(f"normal: std {std} is negative")
        values = rng.normal(mean, std, size=ttype.shape)
    return np.asarray(values).astype(dtype.numpy)


def _bound(gen: dict, key: str, dtype: DType, default):
    value = gen.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or math.isinf(value):
        raise SpecError(f"{key}: {value!r} is not a finite number")
    if dtype.kind != "float" and not dtype.min <= value <= dtype.max:
        raise SpecError(f"{key}: {value!r} is out of range for {dtype.name}")
    return value
