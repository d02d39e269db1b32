"""Comparing arrays with per-dtype tolerances, and describing a mismatch so a person can act on it.

Two values match when ``|actual - expected| <= atol + rtol * |expected|``; NaN
matches NaN, and an infinity matches only the same infinity. Integer and bool
tensors must match exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dtypes import DType
from .errors import SpecError

# Defaults per dtype (atol, rtol). float16 and bfloat16 allow about one unit in
# the last place at magnitude 1: their spacing there is 2^-10 and 2^-7.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "float32": (1e-6, 1e-5),
    "float16": (1e-3, 1e-3),
    "bfloat16": (8e-3, 8e-3),
}


@dataclass(frozen=True)
class Tolerance:
    atol: float | None = None
    rtol: float | None = None

    @classmethod
    def parse(cls, doc) -> "Tolerance":
        if not isinstance(doc, dict):
            raise SpecError("must be a mapping like {atol: 1e-5, rtol: 1e-5}")
        unknown = set(doc) - {"atol", "rtol"}
        if unknown:
            raise SpecError(f"unknown key {sorted(unknown)[0]!r}; allowed: atol, rtol")
        values = {}
        for key, value in doc.items():
            if isinstance(value, str):
                try:
                    value = float(value)  # YAML 1.1 reads 1e-5 as text
                except ValueError:
                    pass
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise SpecError(f"{key}: {value!r} must be a non-negative number")
            values[key] = float(value)
        return cls(**values)

    def over(self, base: "Tolerance") -> "Tolerance":
        """This tolerance, with unset fields taken from ``base``."""
        return Tolerance(self.atol if self.atol is not None else base.atol, self.rtol if self.rtol is not None else base.rtol)


def default_tolerance(dtype: DType) -> Tolerance:
    atol, rtol = DEFAULT_TOLERANCES.get(dtype.name, (0.0, 0.0))
    return Tolerance(atol, rtol)


def resolve_tolerance(dtype: DType, *overrides: "Tolerance | None") -> Tolerance:
    """The tolerance in force: the first override that sets a field wins, then the dtype default.

    Integers and bools are exact unless an override sets ``atol`` (``rtol`` never applies to them).
    """
    tol = default_tolerance(dtype)
    for override in reversed([o for o in overrides if o is not None]):
        tol = override.over(tol)
    if not dtype.is_float:
        return Tolerance(tol.atol or 0.0, 0.0)
    return tol


@dataclass(frozen=True)
class Mismatch:
    """What differs between two arrays: enough to find and judge the problem."""

    count: int
    total: int
    max_abs: float
    max_rel: float
    worst_index: tuple[int, ...]
    actual_value: object
    expected_value: object
    shape_problem: str = ""

    def describe(self) -> str:
        if self.shape_problem:
            return self.shape_problem
        idx = list(self.worst_index)
        return (
            f"{self.count}/{self.total} elements differ; max abs err {self.max_abs:.6g}, "
            f"max rel err {self.max_rel:.6g}; worst at {idx}: got {self.actual_value!r}, want {self.expected_value!r}"
        )


def compare(actual: np.ndarray, expected: np.ndarray, tol: Tolerance) -> Mismatch | None:
    """None when the arrays match within ``tol``, else a Mismatch."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return Mismatch(0, expected.size, np.inf, np.inf, (), None, None, f"shape {list(actual.shape)} != expected {list(expected.shape)}")
    if actual.dtype != expected.dtype:
        return Mismatch(0, expected.size, np.inf, np.inf, (), None, None, f"dtype {actual.dtype} != expected {expected.dtype}")
    if actual.dtype.kind in "biu":
        a, e = actual.astype(np.int64 if actual.dtype != np.uint64 else np.float64), expected.astype(np.int64)
        bad = a != e
        abs_err = np.abs(a - e).astype(np.float64)
    else:
        a, e = actual.astype(np.float64), expected.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(e)
        same_inf = np.isinf(e) & (a == e)
        with np.errstate(invalid="ignore", over="ignore"):
            abs_err = np.where(both_nan | same_inf, 0.0, np.abs(a - e))
            abs_err = np.where(np.isnan(abs_err), np.inf, abs_err)
            bad = ~(abs_err <= (tol.atol or 0.0) + (tol.rtol or 0.0) * np.abs(np.where(np.isfinite(e), e, 0.0)))
    count = int(np.count_nonzero(bad))
    if count == 0:
        return None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rel = np.where(bad, abs_err / np.maximum(np.abs(e.astype(np.float64)), np.finfo(np.float64).tiny), 0.0)
    worst_flat = int(np.argmax(np.where(bad, abs_err, -1.0)))
    worst = np.unravel_index(worst_flat, actual.shape) if actual.ndim else ()
    return Mismatch(
        count, int(expected.size), float(np.max(abs_err[bad])), float(np.max(rel)),
        tuple(int(i) for i in worst), _py(actual[worst]), _py(expected[worst]),
    )


def _py(value):
    value = np.asarray(value)
    if value.dtype.kind == "b":
        return bool(value)
    if value.dtype.kind in "iu":
        return int(value)
    return float(value)
