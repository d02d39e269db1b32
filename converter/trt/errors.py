"""The builder's errors, its strict objects, and the checks of every argument a public call takes.

Every public call and property setter of the builder checks its arguments here, first, so that a value of the
wrong type or out of range raises ``BuilderTypeError`` or ``BuilderValueError`` (``UserError``s that are also
``TypeError``/``ValueError``, as TensorRT's bindings raise) naming the call and the argument, and never a plain
TypeError, ValueError, IndexError or OverflowError from deeper down (issue 25, class 3).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import UserError
from ..names import did_you_mean


class BuilderTypeError(UserError, TypeError):
    """A builder argument or property of the wrong type (TensorRT's bindings raise TypeError there)."""


class BuilderValueError(UserError, ValueError):
    """A builder argument or property value TensorRT (or spec2onnx's spec) refuses, raised at the call or assignment."""


class BuilderUnsupportedError(UserError, NotImplementedError):
    """A TensorRT property or setting that spec2onnx does not model (the message names it and what is allowed)."""


BUILDER_ERRORS = (BuilderTypeError, BuilderValueError, BuilderUnsupportedError)


class Strict:
    """TensorRT's Python objects raise AttributeError when an unknown attribute is assigned; so do these.

    Only the class's properties (and internal ``_`` names) can be set: a typo such as
    ``layer.coordinate_transform = ...`` fails at the assignment instead of being dropped.
    """

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_") or isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        known = sorted(n for n in dir(type(self)) if not n.startswith("_") and isinstance(getattr(type(self), n), property))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}{did_you_mean(name, known)} "
                             f"(settable: {', '.join(n for n in known if getattr(type(self), n).fset) or 'none'})")


class Scoped:
    """``with trt.Builder(logger) as builder, builder.create_network() as network, ...:``, as NVIDIA's samples up to
    TensorRT 8 wrote it: TensorRT 10 keeps ``__enter__``/``__exit__`` on Builder, INetworkDefinition and
    IBuilderConfig ("Context managers are deprecated and have no effect. Objects are automatically freed when the
    reference count reaches 0", its Python API reference); so do these, to the same effect (none)."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        return None


def unsupported(owner: str, name: str, default, why: str) -> property:
    """A TensorRT property spec2onnx does not model: it reads as TensorRT's default, and setting that
    default is accepted; any other value raises ``BuilderUnsupportedError`` naming the property."""

    def get(self):
        return default

    def set(self, value) -> None:
        if type(value) is type(default) and value == default:
            return
        raise BuilderUnsupportedError(f"{owner}.{name} = {shown(value)}: not supported by spec2onnx ({why}); "
                                      f"allowed: {default!r}, TensorRT's default")

    return property(get, set, doc=f"Not supported (reads as TensorRT's default {default!r}): {why}.")


# --- argument checks: each raises a Builder*Error naming the call and the argument ------------------------------

INT64 = (-(2**63), 2**63 - 1)  # TensorRT 10's Dims hold int64 values
FLOAT32_MAX = float(np.finfo(np.float32).max)


def shown(value: Any) -> str:
    """``repr`` of a value for a message, shortened (a huge list or array is not printed whole)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a caller's object whose repr fails still gets a message
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def enum_value(cls, value, call: str, argument: str):
    """A member of the enum ``cls``: the member itself, its name, its spec name (its value), or what ``cls._coerce``
    takes (DataType: a numpy type)."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str) and value in cls.__members__:
        return cls[value]
    if isinstance(value, str) and not issubclass(cls, int) and value in cls._value2member_map_:
        return cls(value)  # the spec's name of a member (ElementWiseOperation.POW is the spec's POWER)
    coerce = getattr(cls, "_coerce", None)
    member = coerce(value) if coerce is not None else None
    if member is not None:
        return member
    raise BuilderTypeError(f"{call}: {argument}: {shown(value)} is not one of {cls.__name__}'s members; allowed: "
                           f"{', '.join(f'{cls.__name__}.{m}' for m in cls.__members__)}")


def enum_of(cls):
    """A ``setting`` converter to the enum ``cls``."""
    return lambda value, call, argument: enum_value(cls, value, call, argument)


def text(value, where: str) -> str:
    if not isinstance(value, str):
        raise BuilderTypeError(f"{where}: expected text, got {type(value).__name__} {shown(value)}")
    return value


def is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def integer(value, call: str, argument: str, low: int | None = INT64[0], high: int | None = INT64[1]) -> int:
    """An integer (not a bool) in ``low..high`` (None: unbounded on that side)."""
    if not is_integer(value):
        raise BuilderTypeError(f"{call}: {argument}: expected an integer, got {type(value).__name__} {shown(value)}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        raise BuilderValueError(f"{call}: {argument}: {number} is outside {'' if low is None else low}.."
                                f"{'' if high is None else high}")
    return number


def index(value, call: str, count: int, what: str, owner: str = "the layer") -> int:
    """An index into ``count`` items (``what``: "inputs", "outputs", ...) of ``owner``, as TensorRT's ``get_input(i)``
    (which returns None out of range: here a BuilderValueError saying what there is)."""
    if not is_integer(value):
        raise BuilderTypeError(f"{call}: index: expected an integer, got {type(value).__name__} {shown(value)}")
    if not 0 <= int(value) < count:
        raise BuilderValueError(f"{call}: {owner} has {count} {what}" + (f" (index 0 to {count - 1})" if count else ""))
    return int(value)


def number(value, call: str, argument: str, *, float32: bool = True) -> float:
    """A finite real number (not a bool); ``float32``: within float32's range, as the ONNX attribute holding it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise BuilderTypeError(f"{call}: {argument}: expected a number, got {type(value).__name__} {shown(value)}")
    try:
        real = float(value)
    except OverflowError:  # an int beyond float64
        real = math.inf
    if not math.isfinite(real) or (float32 and abs(real) > FLOAT32_MAX):
        raise BuilderValueError(f"{call}: {argument}: {shown(value)} is not a finite number"
                                + (" within float32's range (±3.4e38)" if float32 and math.isfinite(real) else ""))
    return real


def sequence(value, call: str, argument: str) -> list:
    if isinstance(value, np.ndarray):
        return value.reshape(-1).tolist()
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise BuilderTypeError(f"{call}: {argument}: expected a sequence, got {type(value).__name__} {shown(value)}")
    try:
        return list(value)
    except Exception as exc:  # noqa: BLE001 - a caller's iterable that fails while iterated
        raise BuilderTypeError(f"{call}: {argument}: cannot be read as a sequence: {exc}") from None


def dims(value, where: str, low: int = 0, what: str = "dimension") -> tuple[int, ...]:
    """A shape: integers from ``low`` (0, or -1 where a dimension may be dynamic) to int64's maximum (``what``: how an
    item is named, "dimension" or a shape input's "value")."""
    if isinstance(value, np.ndarray) and value.ndim > 1:
        raise BuilderTypeError(f"{where}: expected a sequence of integers, got a {value.ndim}-D array")
    values = sequence(value, where.rpartition(": ")[0] or where, where.rpartition(": ")[2] or "dims")
    out = []
    for i, d in enumerate(values):
        if not is_integer(d):
            raise BuilderTypeError(f"{where}: {shown(d)} ({what} {i}) is not an integer {what}")
        if not low <= int(d) <= INT64[1]:
            allowed = "-1 (dynamic) or a non-negative integer" if low == -1 else "a non-negative integer"
            if int(d) > INT64[1]:
                allowed += " up to int64's maximum 2^63-1 (TensorRT 10's Dims hold int64 values)"
            raise BuilderValueError(f"{where}: {list(values) if len(values) <= 16 else shown(values)}: {what} {i} "
                                    f"is {int(d)}; a {what} is {allowed}")
        out.append(int(d))
    return tuple(out)


def coefficients(value, call: str, argument: str) -> list[float]:
    """Scale/shift/power coefficients: None (empty), an array, ``Weights`` or a (nested) list of finite numbers."""
    if value is None:
        return []
    array = getattr(value, "_array", value)  # trt.Weights holds its array
    if isinstance(array, (str, bytes, dict)) or (isinstance(array, np.ndarray) and array.dtype.kind not in "biuf"):
        raise BuilderTypeError(f"{call}: {argument}: expected numbers (an array, Weights or a list), got {shown(value)}")
    try:
        array = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise BuilderTypeError(f"{call}: {argument}: expected numbers (an array, Weights or a list), got {shown(value)}") from None
    flat = array.reshape(-1)
    if flat.size and not (np.all(np.isfinite(flat)) and np.all(np.abs(flat) <= FLOAT32_MAX)):
        raise BuilderValueError(f"{call}: {argument}: {shown(value)}: coefficients are finite numbers within float32's "
                                "range (±3.4e38)")
    return flat.tolist()
