"""Attribute schemas: how a layer attribute is written in a spec and what values it allows.

Each ``Attr`` turns the raw YAML/JSON value into a normalized Python value (or
raises ``SpecError`` naming the value and what is allowed). Checks that depend
on the layer's input shapes belong to the layer kind's ``check`` function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .brief import brief
from .errors import SpecError
from .names import did_you_mean

_MISSING = object()


@dataclass(frozen=True)
class Attr:
    doc: str
    default: Any = _MISSING

    @property
    def required(self) -> bool:
        return self.default is _MISSING

    def parse(self, value: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def describe(self) -> str:
        return ""


@dataclass(frozen=True)
class Enum(Attr):
    choices: tuple[str, ...] = ()

    def parse(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self.choices:
            raise SpecError(f"{brief(value)} is not one of {', '.join(self.choices)}{did_you_mean(value, self.choices)}")
        return value

    def describe(self) -> str:
        return " | ".join(self.choices)


@dataclass(frozen=True)
class Number(Attr):
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None

    def parse(self, value: Any) -> float | int:
        number = parse_number(value, integer=self.integer)
        if self.minimum is not None and number < self.minimum:
            raise SpecError(f"{brief(value)} is below the minimum {self.minimum}")
        if self.maximum is not None and number > self.maximum:
            raise SpecError(f"{brief(value)} is above the maximum {self.maximum}")
        return number

    def describe(self) -> str:
        kind = "integer" if self.integer else "number"
        lo = "" if self.minimum is None else f" >= {self.minimum}"
        hi = "" if self.maximum is None else f" <= {self.maximum}"
        return f"{kind}{lo}{',' if lo and hi else ''}{hi}"


@dataclass(frozen=True)
class NumberArray(Attr):
    """A number, or a flat or nested list of finite numbers (a coefficient tensor)."""

    integer: bool = False

    def parse(self, value: Any) -> np.ndarray:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list):
            raise SpecError(f"expected a number or a list of numbers, got {type(value).__name__} {brief(value)}")
        array = nested_array(value)
        flat = [parse_number(v, integer=self.integer) for v in array.ravel()]
        dtype = np.int64 if self.integer else np.float32
        with np.errstate(over="ignore"):
            out = np.array(flat, dtype=dtype).reshape(array.shape)
        if not self.integer and not np.all(np.isfinite(out)):
            raise SpecError("values must be finite numbers representable as float32")
        return out

    def describe(self) -> str:
        return "list of integers" if self.integer else "number or list of numbers"


def nested_array(value: Any) -> np.ndarray:
    """A nested list as an object array of its leaves; SpecError when rows differ in length."""
    try:
        array = np.array(value, dtype=object)
    except ValueError:
        raise SpecError("nested lists are ragged (rows of different lengths)") from None
    if array.dtype == object and array.ndim and any(isinstance(v, list) for v in array.ravel()):
        raise SpecError("nested lists are ragged (rows of different lengths)")
    return array


def parse_number(value: Any, *, integer: bool = False) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"expected {'an integer' if integer else 'a number'}, got {brief(value)}")
    if integer:
        if isinstance(value, float) and not value.is_integer():
            raise SpecError(f"expected an integer, got {brief(value)}")
        if not -(2**63) <= value < 2**63:
            raise SpecError(f"{brief(value)} does not fit in a 64-bit integer")
        return int(value)
    try:
        number = float(value)
    except OverflowError:
        raise SpecError(f"{brief(value)} is too large for a floating-point number") from None
    if math.isnan(number) or math.isinf(number):
        raise SpecError(f"expected a finite number, got {brief(value)}")
    return number


@dataclass(frozen=True)
class Scales(NumberArray):
    """Resize scales: a list with one scale per dimension, or one number for the spatial dimensions.

    A single number ``s`` means ``[1, 1, s, s, ...]``: batch and channel kept, every further
    dimension of an [N, C, ...] input scaled by ``s`` (PyTorch's ``interpolate(scale_factor=s)``).
    It is kept as a 0-d array; ``per_dimension`` spells it out once the input's rank is known.
    """

    def parse(self, value: Any) -> np.ndarray:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return super().parse(value).reshape(())
        return super().parse(value)

    def describe(self) -> str:
        return "list of numbers, one per dimension, or one number s for [1, 1, s, s, ...] (rank >= 3)"


def per_dimension(scales: np.ndarray, rank: int) -> np.ndarray:
    """Scales as one value per dimension: a 0-d ``s`` (one number in the spec) becomes [1, 1, s, ...]."""
    scales = np.asarray(scales, np.float32)
    if scales.ndim:
        return scales
    return np.array([1.0, 1.0] + [float(scales)] * (rank - 2), np.float32)
