"""Turning a case's data (literal lists, .npy files, seeded generators) into numpy arrays."""

from __future__ import annotations

import math
import stat
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from .brief import brief, shortened
from .dtypes import BFLOAT16, DType
from .errors import SpecError, printable
from .network import MAX_ELEMENTS, TensorType
from .schema import nested_array

MAX_NPY_BYTES = 256 * 1024 * 1024  # a .npy file's data, and the data a random generator may make for one tensor
NPY_HEADER_ROOM = 65536  # a .npy file's header beyond its data (numpy reads headers up to 10,000 bytes)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
BFLOAT16_NUMPY = BFLOAT16.numpy
_NONFINITE = ("nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity")
RANDOM_KINDS = ("uniform", "normal", "integers")
_RANDOM_KEYS = {
    "uniform": {"random", "low", "high", "seed", "shape"},
    "normal": {"random", "mean", "std", "seed", "shape"},
    "integers": {"random", "low", "high", "seed", "shape"},
}


def materialize(value: Any, ttype: TensorType, spec_dir: Path) -> np.ndarray:
    """The array a case value stands for, checked against the tensor's dtype and shape."""
    if isinstance(value, str) and not (ttype.dtype.is_float and value.lower() in _NONFINITE):
        array = _load_npy(value, spec_dir)
        want = ttype.dtype.numpy
        if array.dtype != want and array.dtype.newbyteorder("=") == want:
            array = array.astype(want)  # a big-endian file: same values, native byte order
        elif want == BFLOAT16_NUMPY and array.dtype == np.dtype("V2"):
            array = array.view(want)  # numpy stores ml_dtypes' bfloat16 as 2-byte records (|V2)
        if array.dtype != want:
            raise SpecError(f"{printable(value)}: holds {array.dtype}, the tensor is {ttype.dtype.name}")
    elif isinstance(value, dict):
        array = _generate(value, ttype)
    elif isinstance(value, (list, int, float, bool, str)):
        array = _literal(value, ttype.dtype)
    else:
        raise SpecError(f"expected a nested list, a .npy path or a {{random: ...}} generator, got {_kind(value)}")
    if not ttype.matches(array.shape):
        source = f"{printable(value)}: " if isinstance(value, str) and value.endswith(".npy") else ""
        raise SpecError(f"{source}has shape {list(array.shape)}, the tensor is {ttype}")
    return np.require(array, requirements="C")  # not np.ascontiguousarray: it turns a rank-0 array into shape [1]


def _kind(value: Any) -> str:
    return "nothing" if value is None else f"{type(value).__name__} {brief(value)}"[:80]


npy_reads = 0  # .npy files read so far in this process (a spec that reads one is never cached: converter/pipeline/spec_cache.py)


def _load_npy(path_text: str, spec_dir: Path) -> np.ndarray:
    """A plain numeric array from a .npy file inside the spec's folder, checked before numpy reads the data."""
    global npy_reads
    npy_reads += 1
    text = printable(shortened(path_text))  # as messages show it: one line, and a short one
    if not path_text.endswith(".npy"):
        raise SpecError(f"{shortened(path_text)!r}: a string must be the path of a .npy file")
    try:
        root = spec_dir.resolve()
        path = (spec_dir / path_text).resolve()  # follows symlinks: a link that leaves the folder is rejected
    except (OSError, ValueError, RuntimeError) as exc:  # a NUL byte, a symlink loop
        raise SpecError(f"{shortened(path_text)!r}: not a usable path ({_reason(exc)})") from None
    if root != path and root not in path.parents:
        raise SpecError(f"{text}: .npy files must lie inside the spec's folder ({spec_dir}), symlinks resolved")
    try:
        info = path.stat()
    except FileNotFoundError:
        raise SpecError(f"{text}: no such file") from None
    except (OSError, ValueError) as exc:  # a name longer than the file system's NAME_MAX, a component not a folder
        raise SpecError(f"{text}: not a usable path ({_reason(exc)})") from None
    if not stat.S_ISREG(info.st_mode):
        raise SpecError(f"{text}: not a regular file")
    try:
        size = info.st_size
        if size > MAX_NPY_BYTES + NPY_HEADER_ROOM:  # (a 256 MiB tensor's file is 256 MiB and its header)
            raise SpecError(f"{text}: larger than the {MAX_NPY_BYTES // 2**20} MiB limit for .npy files")
        with path.open("rb") as handle:
            shape, dtype = _npy_header(handle, text)
            count = math.prod(shape)
            if count > MAX_ELEMENTS:
                raise SpecError(f"{text}: the header declares {count} elements, above the 2^31 limit")
            need, have = count * dtype.itemsize, size - handle.tell()
            if need > MAX_NPY_BYTES:
                raise SpecError(f"{text}: larger than the {MAX_NPY_BYTES // 2**20} MiB limit for .npy files")
            if need != have:
                problem = "truncated" if have < need else "corrupt"
                raise SpecError(f"{text}: {problem}: the header declares {dtype}{list(shape)} ({need} bytes of data) "
                                f"but {have} bytes follow it")
            handle.seek(0)
            return np.lib.format.read_array(handle, allow_pickle=False)
    except SpecError:
        raise
    except (OSError, EOFError, ValueError, TypeError, SyntaxError) as exc:
        raise SpecError(f"{text}: cannot be read as .npy ({_reason(exc)})") from None


def _npy_header(handle, text: str) -> tuple[tuple[int, ...], np.dtype]:
    fmt = np.lib.format
    try:
        version = fmt.read_magic(handle)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(handle)
        elif version == (2, 0):
            shape, _, dtype = fmt.read_array_header_2_0(handle)
        else:
            raise ValueError(f"format version {version[0]}.{version[1]} is not supported (1.0 and 2.0 are)")
    except (ValueError, EOFError, TypeError, SyntaxError) as exc:
        raise SpecError(f"{text}: not a .npy file, or a corrupt one ({_reason(exc)})") from None
    if dtype.hasobject:
        raise SpecError(f"{text}: holds Python objects (dtype {dtype}, saved with allow_pickle=True); "
                        "spec2onnx never unpickles data: save a plain numeric array")
    return tuple(int(d) for d in shape), dtype


def _reason(exc: BaseException) -> str:
    """An exception's message squeezed onto one short line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 100 else text[:97] + "..."


def _literal(value: Any, dtype: DType) -> np.ndarray:
    raw = nested_array(value)
    flat = [_scalar(v, dtype) for v in raw.ravel()]
    if dtype.is_float:
        # float64 first, then one rounding to the target type (bfloat16/float16 round to nearest even; beyond its
        # largest finite value to +-inf, as IEEE 754 conversion does: no warning, the value is what was written)
        with np.errstate(over="ignore"):
            return np.array(flat, dtype=np.float64).astype(dtype.numpy).reshape(raw.shape)
    return np.array(flat, dtype=dtype.numpy).reshape(raw.shape)


def _scalar(v: Any, dtype: DType):
    if dtype.kind == "bool":
        if isinstance(v, bool) or v in (0, 1):
            return bool(v)
        raise SpecError(f"{brief(v)} is not a bool (true/false, or 0/1)")
    if dtype.is_float:
        if isinstance(v, str) and v.lower() in _NONFINITE:
            return float(v)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SpecError(f"{brief(v)} is not a number")
        try:
            return float(v)
        except OverflowError:
            raise SpecError(f"{brief(v)} is too large for a number ({dtype.name})") from None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
        raise SpecError(f"{brief(v)} is not an integer ({dtype.name})")
    if not dtype.min <= v <= dtype.max:
        raise SpecError(f"{brief(v)} is out of range for {dtype.name} [{dtype.min}, {dtype.max}]")
    return int(v)


def generator_shape(shape: Any) -> tuple[int, ...]:
    """A random generator's ``shape``: a list of integers >= 0."""
    if not isinstance(shape, list):
        raise SpecError(f"expected a list of integers >= 0, got {_kind(shape)}", field="shape")
    for i, dim in enumerate(shape):
        if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim <= MAX_ELEMENTS:
            raise SpecError(f"{brief(dim)} is not an integer in [0, 2^31]", field=f"shape[{i}]")
    return tuple(shape)


def _generate(gen: dict, ttype: TensorType) -> np.ndarray:
    if "shape" in gen:  # the case's shape of a tensor with dynamic dimensions (or the static shape, written out)
        shape = generator_shape(gen["shape"])
        if not ttype.matches(shape):
            raise SpecError(f"shape {list(shape)} does not fit the tensor {ttype}")
        if math.prod(shape) > MAX_ELEMENTS:
            raise SpecError(f"shape {list(shape)} has {math.prod(shape)} elements, above the 2^31 limit")
        ttype = TensorType(ttype.dtype, shape)
    elif not ttype.is_static:
        raise SpecError(f"the tensor {ttype} has a dynamic dimension: give the case's shape, "
                        "{random: ..., shape: [...]}")
    kind = gen.get("random")
    if not isinstance(kind, str) or kind not in RANDOM_KINDS:
        raise SpecError(f"random: {kind!r} is not one of {', '.join(RANDOM_KINDS)}")
    unknown = set(gen) - _RANDOM_KEYS[kind]
    if unknown:
        raise SpecError(f"unknown key {sorted(map(str, unknown))[0]!r} for random: {kind}; allowed: {', '.join(sorted(_RANDOM_KEYS[kind]))}")
    seed = gen.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SpecError(f"seed: {seed!r} must be a non-negative integer")
    dtype = ttype.dtype
    nbytes = math.prod(ttype.shape) * dtype.numpy.itemsize
    if nbytes > MAX_NPY_BYTES:
        raise SpecError(f"random data for {ttype} would take {nbytes} bytes, above the {MAX_NPY_BYTES // 2**20} MiB "
                        "limit for one tensor's case data")
    rng = np.random.default_rng(seed)
    if kind == "integers":
        # Float tensors default to the integers their type holds exactly (float32: +-2^24).
        exact = 2.0 ** (ml_dtypes.finfo(dtype.numpy).nmant + 1) if dtype.is_float else None
        low, high = (_bound(gen, key, dtype, default) for key, default in
                     (("low", -exact if exact else dtype.min), ("high", exact if exact else dtype.max)))
        if not (float(low).is_integer() and float(high).is_integer()):
            raise SpecError("integers: low and high must be integers")
        if low > high:
            raise SpecError(f"integers: low {low} is above high {high}")
        if not (INT64_MIN <= low and high <= INT64_MAX):
            raise SpecError(f"integers: low and high must lie in the int64 range [{INT64_MIN}, {INT64_MAX}]")
        return _in_chunks(lambda n: rng.integers(int(low), int(high), size=n, endpoint=True), ttype)
    if not dtype.is_float:
        raise SpecError(f"random: {kind} makes floats; {dtype.name} tensors need random: integers")
    elif kind == "uniform":
        low, high = _bound(gen, "low", dtype, 0.0), _bound(gen, "high", dtype, 1.0)
        if low > high:
            raise SpecError(f"uniform: low {low} is above high {high}")
        return _in_chunks(lambda n: rng.uniform(low, high, size=n), ttype)
    else:
        mean, std = _bound(gen, "mean", dtype, 0.0), _bound(gen, "std", dtype, 1.0)
        if std < 0:
            raise SpecError(f"normal: std {std} is negative")
        return _in_chunks(lambda n: rng.normal(mean, std, size=n), ttype)


GENERATE_CHUNK = 1 << 16  # elements drawn at a time (512 KiB of float64 or int64)


def _in_chunks(draw, ttype: TensorType) -> np.ndarray:
    """The tensor, filled in the target dtype a chunk at a time: no float64 or int64 copy of the whole tensor.

    numpy's Generator draws the same stream whether asked for n values at once or in pieces
    (uniform, normal and 64-bit integers keep their state between calls), so the values are those of
    one ``draw(size)`` call cast to the dtype (tests/test_casedata.py checks it).
    """
    if math.prod(ttype.shape) <= GENERATE_CHUNK:  # small: one draw
        return np.asarray(draw(math.prod(ttype.shape))).astype(ttype.dtype.numpy).reshape(ttype.shape)
    out = np.empty(ttype.shape, dtype=ttype.dtype.numpy)
    flat = out.reshape(-1)
    for start in range(0, flat.size, GENERATE_CHUNK):
        chunk = flat[start:start + GENERATE_CHUNK]
        chunk[...] = draw(chunk.size)  # one rounding (or wrap-free cast: values lie in the dtype's range)
    return out


def _bound(gen: dict, key: str, dtype: DType, default):
    """A generator parameter: a finite number within the tensor type's range."""
    value = gen.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"{key}: {brief(value)} is not a finite number")
    try:
        as_float = float(value)
    except OverflowError:
        raise SpecError(f"{key}: {brief(value)} is out of range for {dtype.name}") from None
    if math.isnan(as_float) or math.isinf(as_float):
        raise SpecError(f"{key}: {brief(value)} is not a finite number")
    if not dtype.min <= value <= dtype.max:
        raise SpecError(f"{key}: {brief(value)} is out of range for {dtype.name} [{dtype.min:.8g}, {dtype.max:.8g}]")
    return value
