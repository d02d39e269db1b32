"""Comparing arrays with per-dtype tolerances, and describing a mismatch so a person can act on it.

An element matches when ``|actual - expected| <= atol + rtol * |expected|``, or,
when an ``ulp`` budget is set, when the two float values are at most ``ulp``
units in the last place apart. NaN matches NaN; an infinity matches only the
same infinity; a NaN or an infinity never matches a finite value, whatever the
tolerance (an infinite atol, an ulp budget). Integer and bool tensors are exact
unless an ``atol`` is set.

Tolerances are resolved in this order, the first that sets a field winning:
command line, output-specific entry of the case, the case, output-specific
entry of the spec, the spec, the layer kind's default, the dtype default.
"""

from __future__ import annotations

import decimal
import functools
import math
from dataclasses import asdict, dataclass, field

import ml_dtypes
import numpy as np

from .brief import nonfinite_counts
from .dtypes import DType
from .errors import SpecError, UserError

# Defaults per dtype (atol, rtol). float16 and bfloat16 allow about one unit in
# the last place at magnitude 1: their spacing there is 2^-10 and 2^-7.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "float32": (1e-6, 1e-5),
    "float16": (1e-3, 1e-3),
    "bfloat16": (8e-3, 8e-3),
    "float64": (1e-12, 1e-10),  # (no spec has float64: models run by `run MODEL` do; summation orders differ there)
}
FIELDS = ("atol", "rtol", "ulp")
SHOW_MISMATCHES = 5


@dataclass(frozen=True)
class Tolerance:
    """How close two arrays must be: ``|a - b| <= atol + rtol * |b|``, or at most ``ulp`` units apart."""

    atol: float | None = None
    rtol: float | None = None
    ulp: int | None = None
    outputs: tuple[tuple[str, "Tolerance"], ...] = ()  # per-output overrides

    @classmethod
    def parse(cls, doc, *, allow_outputs: bool = True) -> "Tolerance":
        if not isinstance(doc, dict):
            raise SpecError("must be a mapping like {atol: 1e-5, rtol: 1e-5}")
        allowed = FIELDS + (("outputs",) if allow_outputs else ())
        unknown = set(doc) - set(allowed)
        if unknown:
            raise SpecError(f"unknown key {sorted(unknown)[0]!r}; allowed: {', '.join(allowed)}")
        values: dict = {}
        for key, value in doc.items():
            if key == "outputs":
                if not isinstance(value, dict):
                    raise SpecError("outputs: must map output names to {atol, rtol, ulp}")
                values[key] = tuple((name, cls.parse(sub, allow_outputs=False)) for name, sub in value.items())
                continue
            if isinstance(value, str):
                try:
                    value = float(value)  # (text such as "1e-5": older specs quoted it for YAML 1.1)
                except ValueError:
                    pass
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise SpecError(f"{key}: {value!r} must be a non-negative number")
            if key == "ulp" and not float(value).is_integer():
                raise SpecError(f"ulp: {value!r} must be a whole number of units in the last place")
            values[key] = int(value) if key == "ulp" else float(value)
        return cls(**values)

    def for_output(self, name: str) -> "Tolerance":
        """This tolerance with the output's own entry, if any, taking precedence."""
        own = dict(self.outputs).get(name)
        return own.over(self) if own else self

    def over(self, base: "Tolerance") -> "Tolerance":
        """This tolerance, with unset fields taken from ``base``."""
        return Tolerance(*(getattr(self, f) if getattr(self, f) is not None else getattr(base, f) for f in FIELDS))

    def describe(self) -> str:
        """``atol=1e-06, rtol=1e-05`` (and ``ulp=N``), as mismatch messages show it."""
        parts = [f"atol={self.atol or 0:g}", f"rtol={self.rtol or 0:g}"]
        if self.ulp is not None:
            parts.append(f"ulp={self.ulp}")
        return ", ".join(parts)


def default_tolerance(dtype: DType) -> Tolerance:
    atol, rtol = DEFAULT_TOLERANCES.get(dtype.name, (0.0, 0.0))
    return Tolerance(atol, rtol)


@functools.lru_cache(maxsize=1024)  # per output and case: the same few combinations again and again
def resolve_tolerance(dtype: DType, *overrides: "Tolerance | None") -> Tolerance:
    """The tolerance in force: the first override that sets a field wins, then the dtype default.

    Integers and bools are exact unless an override sets ``atol`` (``rtol`` and ``ulp`` never apply to them).
    """
    tol = default_tolerance(dtype)
    for override in reversed([o for o in overrides if o is not None]):
        tol = override.over(tol)
    if not dtype.is_float:
        return Tolerance(tol.atol or 0.0, 0.0)
    return Tolerance(tol.atol or 0.0, tol.rtol or 0.0, tol.ulp)


@dataclass(frozen=True)
class Mismatch:
    """What differs between two arrays: enough to find and judge the problem."""

    count: int
    total: int
    max_abs: float = float("inf")
    mean_abs: float = float("inf")
    max_rel: float = float("inf")
    max_ulp: int | None = None
    worst_index: tuple[int, ...] = ()
    actual_value: object = None
    expected_value: object = None
    first: tuple = ()  # up to SHOW_MISMATCHES (index, actual, expected)
    min_atol: float | None = None  # the smallest atol that would have passed, with the rtol in force
    min_rtol: float | None = None  # the smallest rtol that would have passed, with the atol in force
    shape_problem: str = ""
    stat_problem: str = ""  # --check-error-stat max|mean|median: the statistic above both tolerances
    integral: bool = False  # an integer or bool output: an atol only from a spec's tolerance (the hint says so)

    def describe(self) -> str:
        if self.shape_problem:
            return self.shape_problem
        if self.stat_problem:
            return self.stat_problem
        text = (f"{self.count}/{self.total} elements differ; max abs err {self.max_abs:.6g}, mean abs err "
                f"{self.mean_abs:.6g}, max rel err {self.max_rel:.6g}")
        if self.max_ulp is not None:
            text += f", max {self.max_ulp} ulp"
        text += f"; worst at {list(self.worst_index)}: got {self.actual_value!r}, want {self.expected_value!r}"
        if self.count > 1:
            text += "; first: " + ", ".join(f"{list(i)} got {a!r} want {e!r}" for i, a, e in self.first)
        would = [f"{name} >= {_rounded_up(value)}" for name, value in (("atol", self.min_atol), ("rtol", self.min_rtol))
                 if value is not None and not (self.integral and name == "rtol")]  # (no rtol for integers)
        if would:
            text += "; would pass with " + " or ".join(would)
            if self.integral:  # (--atol/--rtol/--ulp apply to float outputs only: docs/cli.md)
                text += " (an integer output's atol comes from a spec's tolerance; --atol is for float outputs)"
        return text

    def to_dict(self) -> dict:
        d = asdict(self)
        del d["integral"]  # (the report's dtype says it)
        d["worst_index"] = list(self.worst_index)
        d["first"] = [{"index": list(i), "got": a, "want": e} for i, a, e in self.first]
        return d


def _rounded_up(value: float) -> str:
    """``value`` (a tolerance that passes: _least_atol, _least_rtol) in three significant digits that read back at or
    above it, so that the hint passes when followed: to nearest where that is so, else rounded up (``.3g`` alone
    said ``rtol >= 0.333`` where 0.33333 was needed, and the run still failed with it)."""
    shown = f"{value:.3g}"
    if not value > 0 or float(shown) >= value:
        return shown
    exact = decimal.Decimal(value)  # the double's own value, every digit
    step = decimal.Decimal(1).scaleb(exact.adjusted() - 2)
    up = exact.quantize(step, rounding=decimal.ROUND_CEILING)
    while float(f"{float(up):.3g}") < value:  # (a subnormal's three digits may read back below it)
        up += step
    return f"{float(up):.3g}"


def compare(actual: np.ndarray, expected: np.ndarray, tol: Tolerance) -> Mismatch | None:
    """None when the arrays match within ``tol``, else a Mismatch (compare_stats, without the statistics)."""
    return _compare(actual, expected, tol, "elemwise", False)[0]


def compare_stats(actual: np.ndarray, expected: np.ndarray, tol: Tolerance,
                  stat: str = "elemwise", statistics: bool = True, sink=None) -> tuple[Mismatch | None, "ErrorStats | None"]:
    """(None or a Mismatch, the ErrorStats of every element: None for strings, a shape or dtype problem).

    ``stat`` (``--check-error-stat``, Polygraphy's): ``elemwise`` decides element by element, as ``compare``;
    ``max``, ``mean`` and ``median`` fail where that statistic of the absolute error is above atol AND that of the
    relative error above rtol (Polygraphy's ``check_outputs_match``, NVIDIA/TensorRT
    tools/Polygraphy/polygraphy/comparator/compare.py: ``stat_failed(abs, atol) and stat_failed(rel, rtol)``). A NaN
    or an infinity that differs fails whatever the statistic (module docstring). The statistics are gathered in
    the same chunked pass as the verdict; the median keeps one |error| per element (float64; float32 for float16
    and small integers, which it holds exactly), and --check-error-stat median one relative error (float64): the
    only buffers the size of the output. ``statistics=False``: only what the verdict needs. ``sink`` (--html: an
    error_map.Picture, floats only): each chunk's |actual - expected| as the quick check computes it, so that a
    failing comparison's picture needs no pass of its own.
    """
    return _compare(actual, expected, tol, stat, statistics, sink)


def _compare(actual, expected, tol: Tolerance, stat: str, want_stats: bool, sink=None):
    """compare's and compare_stats' one pass: the verdict ``stat`` asks for, and the statistics with ``want_stats``.

    Works through the arrays in chunks of CHUNK_ELEMENTS: the extra memory is a few float64 buffers of
    one chunk, whatever the arrays' size. A chunk that matches exactly, or passes a float64 check in four
    passes, costs nothing more; only a chunk with a mismatch (or a NaN or an infinity) computes the
    statistics, element by element as ``_chunk_stats`` describes.
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return Mismatch(expected.size, expected.size, shape_problem=f"shape {list(actual.shape)} != expected {list(expected.shape)}"), None
    if actual.dtype != expected.dtype:
        return Mismatch(expected.size, expected.size, shape_problem=f"dtype {actual.dtype} != expected {expected.dtype}"), None
    if stat not in ERROR_STATS:
        raise ValueError(f"error statistic {stat!r}: one of {', '.join(ERROR_STATS)}")
    if not want_stats and stat == "elemwise" and sink is None and np.array_equal(actual, expected):
        return None, None  # every element equal (equal infinities too; a NaN is never equal: the pass below decides)
    atol, rtol = tol.atol or 0.0, tol.rtol or 0.0
    is_float = actual.dtype.kind == "f" or (actual.dtype.kind == "V" and holds_floats(actual.dtype))  # (ml_dtypes':
    # bfloat16, float8; float8 was compared as integers: 448 and NaN "equal")
    flat_a, flat_e = _flat(actual), _flat(expected)
    total = _Stats()
    errors = _Errors(flat_a.size, actual.dtype, is_float, atol, rtol, stat == "median") \
        if (want_stats or stat != "elemwise") and (is_float or actual.dtype.kind in "biu") else None
    buffers = _Buffers(min(CHUNK_ELEMENTS, flat_a.size)) if is_float else None
    for start in range(0, flat_a.size, CHUNK_ELEMENTS):
        a, e = flat_a[start:start + CHUNK_ELEMENTS], flat_e[start:start + CHUNK_ELEMENTS]
        if errors is not None:
            errors.add(a, e)
        if (buffers.quick_within(a, e, atol, rtol, sink, start) or buffers.within(a, e, atol, rtol)) if is_float \
                else np.array_equal(a, e):
            continue
        total.add(start, _chunk_stats(a, e, atol, rtol, tol.ulp, is_float))
    stats = errors.finish() if errors is not None else None
    if stat != "elemwise" and stats is not None and stats.count == flat_a.size:  # (no NaN or infinity differs)
        failed = _stat_failed(stats, stat, atol, rtol)
        if not failed:
            return None, stats
        return Mismatch(total.count, int(expected.size), stat_problem=failed), stats
    if total.count == 0:
        return None, stats

    def at(flat):
        idx = np.unravel_index(flat, actual.shape) if actual.ndim else ()
        return tuple(int(i) for i in idx), _py(actual[idx]), _py(expected[idx])

    worst, got, want = at(total.worst)
    return Mismatch(
        count=total.count, total=int(expected.size),
        max_abs=total.max_abs, mean_abs=total.sum_abs / total.count, max_rel=total.max_rel,
        max_ulp=total.max_ulp if is_float else None,
        worst_index=worst, actual_value=got, expected_value=want,
        first=tuple(at(f) for f in total.first),
        min_atol=total.min_atol if math.isfinite(total.min_atol) else None,
        # (no rtol applies to an integer or bool output, resolve_tolerance: none "would pass")
        min_rtol=total.min_rtol if is_float and math.isfinite(total.min_rtol) else None, integral=not is_float,
    ), stats


ERROR_STATS = ("elemwise", "max", "mean", "median")  # --check-error-stat (Polygraphy's, less its quantile)
_EPSILON = 2.220446049250313e-16  # Polygraphy's: added to an expected 0 for the relative error (comparator/compare.py)


@dataclass(frozen=True)
class ErrorStats:
    """The error of a comparison over every element (Polygraphy's "Error Metrics"), passing or not: NaN and
    infinities that differ are left out (they fail on their own), equal ones count as 0. The relative error is
    |actual - expected| / |expected|, an expected 0 taken as Polygraphy's epsilon (2^-52). ``min_atol`` and
    ``min_rtol``: the smallest atol (with the rtol in force), and rtol (with the atol in force), that would
    have passed element by element (None: no rtol would: an expected 0 differs by more than atol)."""

    count: int  # elements in the statistics
    max_abs: float | None = None
    mean_abs: float | None = None
    median_abs: float | None = None
    max_rel: float | None = None
    mean_rel: float | None = None
    median_rel: float | None = None  # (only for --check-error-stat median: it keeps a second buffer)
    max_ulp: int | None = None
    min_atol: float | None = None
    min_rtol: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        """``max abs err 1, mean 0.0001, median 0; max rel err ...``: for a passing comparison's -v line."""
        if not self.count:
            return "no elements"
        return (f"abs err max {self.max_abs:.3g}, mean {self.mean_abs:.3g}, median {self.median_abs:.3g}; "
                f"rel err max {self.max_rel:.3g}, mean {self.mean_rel:.3g}")


def _stat_failed(stats: ErrorStats, stat: str, atol: float, rtol: float) -> str:
    """"" where ``stat`` of the error is within atol or within rtol (Polygraphy's rule), else the line saying why."""
    got_abs, got_rel = getattr(stats, f"{stat}_abs"), getattr(stats, f"{stat}_rel")
    if got_abs is None or got_rel is None:
        return ""  # (no element)
    over = [not (value <= limit) for value, limit in ((got_abs, atol), (got_rel, rtol))]  # (NaN: over)
    if not all(over):
        return ""
    return (f"{stat} abs err {got_abs:.6g} > atol {atol:g} and {stat} rel err {got_rel:.6g} > rtol {rtol:g} "
            f"(--check-error-stat {stat}, over {stats.count} elements)")


class _Errors:
    """ErrorStats gathered chunk by chunk: sums and maxima, and each element's |error| kept for the median."""

    def __init__(self, size: int, dtype, is_float: bool, atol: float, rtol: float, keep_rel: bool):
        # float32 holds every difference of float16 and of 8- and 16-bit integers exactly; others take float64 (a
        # float32 or bfloat16 difference reaches 2 * 3.4e38, beyond float32; a relative error, any size)
        exact32 = dtype == np.float16 or (dtype.kind in "biu" and dtype.itemsize <= 2)
        self.abs_all = np.empty(size, np.float32 if exact32 else np.float64)
        self.rel_all = np.empty(size, np.float64) if keep_rel else None
        self.is_float, self.atol, self.rtol = is_float, atol, rtol
        self.ulps = is_float and dtype.itemsize in _ORDERED_INT
        self.n, self.sum_abs, self.sum_rel, self.max_abs, self.max_rel = 0, 0.0, 0.0, 0.0, 0.0
        self.max_ulp, self.min_atol, self.min_rtol = None, 0.0, 0.0

    def add(self, a: np.ndarray, e: np.ndarray) -> None:
        if self.is_float:
            a64, e64 = a.astype(np.float64), e.astype(np.float64)
            with np.errstate(invalid="ignore", over="ignore"):
                abs_err = np.abs(a64 - e64)
            if np.isfinite(abs_err).all():  # the usual chunk: both sides finite (a NaN or inf makes the difference so)
                ef = np.abs(e64)
                ulps = _finite_ulp_distance(a, e) if self.ulps else None
            else:
                same = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
                keep = same | (np.isfinite(a64) & np.isfinite(e64))
                abs_err = np.where(same, 0.0, abs_err)[keep]
                ef = np.abs(np.where(np.isfinite(e64), e64, 0.0))[keep]
                ulps = ulp_distance(a, e)[keep] if self.ulps else None
            if ulps is not None and ulps.size:
                top = int(ulps.max())
                self.max_ulp = top if self.max_ulp is None else max(self.max_ulp, top)
        else:
            abs_err, ef = _int_abs_diff(a, e), np.abs(e.astype(np.float64))
        k = abs_err.size
        if not k:
            return
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            rel = abs_err / np.where(ef == 0, _EPSILON, ef)
            least_atol, least_rtol = _least_atol(abs_err, ef, self.rtol), _least_rtol(abs_err, ef, self.atol)
        self.abs_all[self.n:self.n + k] = abs_err
        if self.rel_all is not None:
            self.rel_all[self.n:self.n + k] = rel
        self.n += k
        self.sum_abs += float(abs_err.sum())
        self.sum_rel += float(rel.sum())
        self.max_abs = max(self.max_abs, float(abs_err.max()))
        self.max_rel = max(self.max_rel, float(rel.max()))
        self.min_atol = max(self.min_atol, least_atol)
        self.min_rtol = max(self.min_rtol, least_rtol)

    def finish(self) -> ErrorStats:
        if not self.n:
            return ErrorStats(0)
        median_rel = float(np.median(self.rel_all[:self.n], overwrite_input=True)) if self.rel_all is not None else None
        return ErrorStats(self.n, self.max_abs, self.sum_abs / self.n,
                          float(np.median(self.abs_all[:self.n], overwrite_input=True)), self.max_rel,
                          self.sum_rel / self.n, median_rel, self.max_ulp, self.min_atol,
                          self.min_rtol if self.is_float and math.isfinite(self.min_rtol) else None)  # (ints: no rtol)


def _finite_ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ulp_distance of two arrays without NaN (fewer passes): below 8 bytes, the sign-magnitude patterns mapped onto
    a monotonic line in their own width (the negative -0 ... -max to 0 ... -(2^(n-1) - 1)), the gap taken in int64."""
    if a.dtype.itemsize == 8:
        return ulp_distance(a, b)
    itype = _ORDERED_INT[a.dtype.itemsize]
    low = np.iinfo(itype).min
    ia, ib = a.view(itype), b.view(itype)
    ma = np.where(ia < 0, low - ia, ia)  # (low - ia: no overflow for ia in [low, -1])
    mb = np.where(ib < 0, low - ib, ib)
    return np.abs(np.subtract(ma, mb, dtype=np.int64))


def parse_per_output(option: str, values, convert) -> tuple[object, tuple]:
    """Polygraphy's repeatable ``[OUTPUT:]VALUE`` (its args_util.parse_arglist_to_dict): (the bare VALUE or None,
    ((OUTPUT, VALUE), ...)). OUTPUT is what precedes the last ':' (an output name may hold ':'; a value never
    does); a later value for the same output wins. ``convert`` raises ValueError saying what is wrong."""
    default, named = None, {}
    for text in values:
        name, colon, value = str(text).rpartition(":")
        if colon and not name:
            raise UserError(f"{option} {text}: no output name before ':' (OUTPUT:VALUE, or VALUE for every output)")
        try:
            parsed = convert(value.strip())
        except ValueError as exc:
            raise UserError(f"{option} {text}: {exc}") from None
        if colon:
            named[name] = parsed
        else:
            default = parsed
    return default, tuple(named.items())


def tolerance_value(text: str) -> float:
    """An --atol or --rtol VALUE: a number >= 0 (inf allowed, as in spec files)."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not value >= 0:
        raise ValueError(f"{text!r} must be a number >= 0")
    return value


def error_stat_value(text: str) -> str:
    if text not in ERROR_STATS:
        raise ValueError(f"{text!r} is not one of {', '.join(ERROR_STATS)}")
    return text


def command_line_tolerance(atol=(), rtol=(), ulp: int | None = None) -> Tolerance | None:
    """The Tolerance of repeatable ``--atol/--rtol [OUTPUT:]VALUE`` (and --ulp): the bare values for every output,
    the named ones in ``outputs`` (Tolerance.for_output); None where nothing is given."""
    a, a_named = parse_per_output("--atol", atol, tolerance_value)
    r, r_named = parse_per_output("--rtol", rtol, tolerance_value)
    atols, rtols = dict(a_named), dict(r_named)
    per = tuple((name, Tolerance(atols.get(name), rtols.get(name))) for name in dict.fromkeys([*atols, *rtols]))
    if (a, r, ulp, per) == (None, None, None, ()):
        return None
    return Tolerance(a, r, ulp, per)


def command_line_stats(values) -> tuple[tuple[str, str], ...]:
    """``--check-error-stat [OUTPUT:]STAT``: ((OUTPUT, STAT), ...), the bare one under the name "" (error_stat_for)."""
    default, named = parse_per_output("--check-error-stat", values, error_stat_value)
    return ((("", default),) if default else ()) + named


def error_stat_for(stats, output: str) -> str:
    """The statistic checked for ``output``: its own, else the bare one, else elemwise."""
    table = dict(stats)
    return table.get(output) or table.get("", "elemwise")


def refuse_unknown_outputs(known, tolerance: Tolerance | None, stats=(), where: str = "the model") -> None:
    """UserError (exit 2) for an --atol/--rtol/--check-error-stat OUTPUT that no output of ``known`` is."""
    known = list(known)
    given = [("--atol" if t.atol is not None else "--rtol", n) for n, t in (tolerance.outputs if tolerance else ())] + \
        [("--check-error-stat", n) for n, _ in stats if n]
    for option, name in given:
        if name not in known:
            listed = ", ".join(repr(k) for k in known[:20]) + (", ..." if len(known) > 20 else "")
            raise UserError(f"{option} {name}: no output of {where} is named {name!r} (its outputs: {listed})")


def value_stats(array: np.ndarray) -> dict | None:
    """``{min, max, mean, std, nan, inf}`` of a numeric array (Polygraphy's log_output_stats), in one chunked pass:
    min to std over the finite elements (None where none is), nan and inf the counts of the others. None for
    strings and complex numbers."""
    array = np.asarray(array)
    if array.dtype.kind not in "biuf" and not (holds_floats(array.dtype) and array.dtype.kind != "c"):
        return None
    flat = _flat(array)
    n, mean, m2, low, high, nan, inf = 0, 0.0, 0.0, math.inf, -math.inf, 0, 0
    for start in range(0, flat.size, CHUNK_ELEMENTS):
        x = flat[start:start + CHUNK_ELEMENTS].astype(np.float64)
        finite = np.isfinite(x)
        if not finite.all():
            nan += int(np.count_nonzero(np.isnan(x)))
            inf += int(np.count_nonzero(np.isinf(x)))
            x = x[finite]
        if not x.size:
            continue
        with np.errstate(over="ignore", invalid="ignore"):  # (values near float64's limit: inf, as numpy's)
            k, chunk_mean = x.size, float(x.mean())
            chunk_m2 = float(np.square(x - chunk_mean).sum())
        if n:  # Chan et al.'s pairwise update: one pass, no cancellation
            delta, both = chunk_mean - mean, n + k
            with np.errstate(over="ignore", invalid="ignore"):
                mean += delta * (k / both)
                m2 += chunk_m2 + delta * delta * (n / both) * k
            n = both
        else:  # (the first chunk as it is: 0 * delta^2 would be NaN where delta^2 overflows)
            n, mean, m2 = k, chunk_mean, chunk_m2
        low, high = min(low, float(x.min())), max(high, float(x.max()))
    if not n:
        return {"min": None, "max": None, "mean": None, "std": None, "nan": nan, "inf": inf}
    return {"min": low, "max": high, "mean": mean, "std": math.sqrt(m2 / n), "nan": nan, "inf": inf}


CHUNK_ELEMENTS = 1 << 16  # 512 KiB per float64 buffer: a chunk's temporaries stay in the CPU's cache


def _flat(array: np.ndarray) -> np.ndarray:
    """A 1-D view in C order (a copy only for a non-contiguous array)."""
    return np.require(array, requirements="C").reshape(-1)


class _Buffers:
    """Reused float64 buffers for the quick check of one chunk."""

    def __init__(self, size: int):
        self.diff, self.limit = np.empty(size), np.empty(size)
        self.ok = np.empty(size, dtype=bool)
        self.narrow = np.empty(size, dtype=np.float32)

    def quick_within(self, a: np.ndarray, e: np.ndarray, atol: float, rtol: float, sink=None, start: int = 0) -> bool:
        """True only where ``within`` is True too, in three passes instead of eight: the largest difference
        against the smallest limit of the chunk. False means "look closer".

        Below float64 the difference is taken in float32: it is the exact difference rounded once (float16
        and bfloat16 widen exactly; a float32-subnormal difference is exact), so the exact one is at most
        D * (1 + 2^-24), which D * (1 + 2^-23) bounds after its own rounding. The limit atol + rtol * min|e|,
        computed with the float64 operations ``within`` uses, is at most each element's limit (rounding is
        monotonic). A NaN or an infinite difference makes D NaN or inf: never quickly within. ``sink``: given the
        chunk's differences (its ``add``, at flat offset ``start``) before they are overwritten.
        """
        # float64 and wider (longdouble) take the float64 difference ``within`` takes: cast to float32 first,
        # two long doubles that differ below float32's precision would look equal.
        work = self.narrow[:a.size] if a.dtype.itemsize <= 4 else self.diff[:a.size]
        with np.errstate(invalid="ignore", over="ignore"):
            np.subtract(a, e, out=work, dtype=work.dtype)
            np.abs(work, out=work)
            largest = float(work.max())
            if sink is not None:
                sink.add(start, work, largest, a, e)
            bound = largest if work.dtype == np.float64 else largest * (1 + 2.0**-23)
            if bound <= min(atol, _DOUBLE_MAX):  # (an infinite atol: an infinite difference is never quickly within)
                return True
            if not rtol or not bound <= _DOUBLE_MAX:
                return False
            np.abs(e, out=work, dtype=work.dtype)
            return bound <= float(work.min()) * rtol + atol

    def within(self, a: np.ndarray, e: np.ndarray, atol: float, rtol: float) -> bool:
        """Whether every element of the chunk is finite and within atol + rtol * |e| (exactly as _chunk_stats
        decides it: the same float64 operations). False means "look closer", never "mismatch"."""
        n = a.size
        diff, limit, ok = self.diff[:n], self.limit[:n], self.ok[:n]
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, inf * 0: the close look handles them
            np.subtract(a, e, out=diff, dtype=np.float64)
            np.abs(diff, out=diff)
            np.abs(e, out=limit, dtype=np.float64)
            np.multiply(limit, rtol, out=limit)
            np.add(limit, atol, out=limit)
            np.minimum(limit, _DOUBLE_MAX, out=limit)  # an infinite or NaN expected value is never "quickly" within
            np.less_equal(diff, limit, out=ok)
        return bool(ok.all())


_DOUBLE_MAX = float(np.finfo(np.float64).max)


@dataclass
class _Stats:
    """Mismatch statistics, gathered chunk by chunk."""

    count: int = 0
    sum_abs: float = 0.0
    max_abs: float = -1.0
    max_rel: float = 0.0
    min_atol: float = 0.0
    min_rtol: float = 0.0
    max_ulp: int | None = None
    worst: int = 0  # flat index of the first element with the largest error
    first: list[int] = field(default_factory=list)

    def add(self, start: int, chunk: "_Stats") -> None:
        if chunk.count == 0:
            return
        self.count += chunk.count
        self.sum_abs += chunk.sum_abs
        if chunk.max_abs > self.max_abs:  # strictly greater: the first of equal errors stays the worst
            self.max_abs, self.worst = chunk.max_abs, start + chunk.worst
        self.max_rel = float(np.maximum(self.max_rel, chunk.max_rel))  # NaN (inf against -inf) propagates
        self.min_atol = float(np.maximum(self.min_atol, chunk.min_atol))  # NaN (no such tolerance) propagates
        self.min_rtol = float(np.maximum(self.min_rtol, chunk.min_rtol))
        if chunk.max_ulp is not None:
            self.max_ulp = chunk.max_ulp if self.max_ulp is None else max(self.max_ulp, chunk.max_ulp)
        self.first += [start + f for f in chunk.first[:SHOW_MISMATCHES - len(self.first)]]


def _least_atol(abs_err: np.ndarray, ef: np.ndarray, rtol: float) -> float:
    """The smallest float64 atol with ``abs_err <= atol + rtol * ef`` at every element (non-empty), as the comparison
    computes it: the largest ``abs_err - rtol * ef``, one or two ulp up where rounding leaves a sum below its
    ``abs_err`` (the hint "would pass with atol >= X" must pass when followed). One pass more than the maximum alone,
    on the scalar: correcting every element first cost compare_stats 45% on a 4M-element output."""
    scaled = rtol * ef
    return _stepped_up(float(np.max(abs_err - scaled)), lambda need: bool(np.any(need + scaled < abs_err)))


def _least_rtol(abs_err: np.ndarray, ef: np.ndarray, atol: float) -> float:
    """The smallest float64 rtol with ``abs_err <= atol + rtol * ef`` at every element (non-empty; 0 where atol alone
    passes; inf where an ``ef`` is 0 and atol does not pass it: no rtol would)."""
    need = float(np.max(np.where(abs_err > atol, (abs_err - atol) / ef, 0.0)))
    return _stepped_up(need, lambda rtol: bool(np.any(atol + rtol * ef < abs_err)))


def _stepped_up(need: float, short) -> float:
    """``need``, one or two ulp up while ``short(need)`` (some element's sum, rounded, still falls below its error)."""
    for _ in range(2):
        if not short(need):
            break
        need = float(np.nextafter(need, np.inf))
    return need


def _chunk_stats(actual: np.ndarray, expected: np.ndarray, atol: float, rtol: float, ulp: int | None, is_float: bool) -> _Stats:
    """The mismatches of one 1-D chunk, in float64 (64-bit integers: exact differences, then rounded)."""
    if not is_float:
        abs_err = _int_abs_diff(actual, expected)
        bad = abs_err > atol
        nonfinite = None
    else:
        a, e = actual.astype(np.float64), expected.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(e)
        same = both_nan | (a == e)
        # NaN or an infinity on either side matches only the same value on the other, whatever the tolerance:
        # an infinite atol or rtol (spec files allow it) and an ulp budget (+inf is 1 ulp above the largest
        # float) would otherwise let a NaN or an infinity through against a finite value
        nonfinite = ~same & ~(np.isfinite(a) & np.isfinite(e))
        with np.errstate(invalid="ignore", over="ignore"):
            abs_err = np.where(same, 0.0, np.abs(a - e))
            abs_err = np.where(np.isnan(abs_err), np.inf, abs_err)
            bad = ~(same | (abs_err <= atol + rtol * np.abs(np.where(np.isfinite(e), e, 0.0))))  # (inf * 0: NaN)
        if ulp is not None and bad.any():
            bad &= ~(ulp_distance(actual, expected) <= ulp)
        bad |= nonfinite
    count = int(np.count_nonzero(bad))
    if count == 0:
        return _Stats()
    ef = np.abs(expected.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rel = np.where(bad, abs_err / np.where(ef > 0, ef, np.inf), 0.0)
        rel = np.where(bad & (ef == 0) & (abs_err > 0), np.inf, rel)
        min_atol = _least_atol(abs_err[bad], ef[bad], rtol)
        min_rtol = _least_rtol(abs_err[bad], np.where(ef > 0, ef, np.nan)[bad], atol)
    errors = abs_err[bad]
    return _Stats(
        count=count, sum_abs=float(np.sum(errors)), max_abs=float(np.max(errors)), max_rel=float(np.max(rel)),
        min_atol=min_atol, min_rtol=min_rtol,
        max_ulp=_max_ulp(ulp_distance(actual, expected), bad & ~nonfinite) if is_float else None,
        worst=int(np.argmax(np.where(bad, abs_err, -1.0))),
        first=[int(f) for f in np.flatnonzero(bad)[:SHOW_MISMATCHES]],
    )


def _int_abs_diff(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """|a - e| of integer (or bool) arrays as float64: computed exactly, then rounded once."""
    if a.dtype.kind == "b" or a.dtype.itemsize < 8:
        return np.abs(a.astype(np.float64) - e.astype(np.float64))  # exact in float64
    unsigned = a.dtype.str.replace("i", "u")
    au, eu = a.view(unsigned), e.view(unsigned)  # two's complement: the wrapped difference is exact when taken larger - smaller
    return np.where(a >= e, au - eu, eu - au).astype(np.float64)


_ORDERED_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}  # (1: float8)
_NAN_VS_NUMBER = np.iinfo(np.int64).max  # ulp_distance's mark for a NaN compared with a number


def _max_ulp(ulps: np.ndarray | None, bad: np.ndarray) -> int | None:
    """The largest ULP distance among the mismatches that have one (not NaN against a number)."""
    if ulps is None:
        return None
    finite = ulps[bad & (ulps != _NAN_VS_NUMBER)]
    return int(finite.max()) if finite.size else None


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between two float arrays of one dtype (NaN pairs 0, NaN vs number: huge).

    float64 distances reach 2^64: they are taken exactly (unsigned) and capped below the NaN mark."""
    itype = _ORDERED_INT[a.dtype.itemsize]
    ia, ib = (np.ascontiguousarray(x).view(itype).astype(np.int64) for x in (a, b))
    bits = 8 * a.dtype.itemsize
    # Map sign-magnitude bit patterns onto a monotonic integer line (+0 and -0 coincide).
    ia = np.where(ia < 0, -(ia & ((1 << (bits - 1)) - 1)), ia)
    ib = np.where(ib < 0, -(ib & ((1 << (bits - 1)) - 1)), ib)
    if bits < 64:
        dist = np.abs(ia - ib)
    else:
        larger, smaller = np.maximum(ia, ib), np.minimum(ia, ib)
        gap = larger.view(np.uint64) - smaller.view(np.uint64)  # exact: 0 <= larger - smaller < 2^64
        dist = np.minimum(gap, np.uint64(_NAN_VS_NUMBER - 1)).astype(np.int64)
    wide = np.float64 if bits == 64 else np.float32
    nan_a, nan_b = np.isnan(a.astype(wide)), np.isnan(b.astype(wide))
    dist = np.where(nan_a & nan_b, 0, dist)
    return np.where(nan_a ^ nan_b, _NAN_VS_NUMBER, dist)


def _py(value):
    value = np.asarray(value)
    if value.dtype.kind == "b":
        return bool(value)
    if value.dtype.kind in "iu":
        return int(value)
    return float(value)


@dataclass(frozen=True)
class NonFinite:
    """The NaN and infinite elements of one array (``nonfinite``): how many of each, and the first one."""

    nan: int
    posinf: int
    neginf: int
    total: int
    first_index: tuple[int, ...]
    first_value: float

    def describe(self) -> str:
        """``9 NaN of 16 elements, the first at [0] (nan)``: the counts that are not 0, the first element."""
        return (f"{nonfinite_counts(self.nan, self.posinf, self.neginf)} of {self.total} elements, the first at "
                f"{list(self.first_index)} ({self.first_value!r})")

    def to_dict(self) -> dict:
        return {"nonfinite": {"nan": self.nan, "posinf": self.posinf, "neginf": self.neginf}, "total": self.total,
                "first_index": list(self.first_index)}


def nonfinite(array: np.ndarray) -> NonFinite | None:
    """None where every element of ``array`` is finite (or it holds no floats: integers, bools, strings), else
    how many are NaN, +inf and -inf, and the first of them (C order). A chunk at a time: the extra memory is one
    chunk's mask, whatever the array's size. A complex element counts once, as NaN if a part is NaN, else as the
    sign of its infinite part."""
    array = np.asarray(array)
    if not holds_floats(array.dtype):
        return None
    flat = _flat(array)
    nan = posinf = neginf = 0
    first = None
    for start in range(0, flat.size, CHUNK_ELEMENTS):
        chunk = flat[start:start + CHUNK_ELEMENTS]
        finite = np.isfinite(chunk)
        if finite.all():
            continue
        if first is None:
            first = start + int(np.argmin(finite))
        parts = (chunk.real, chunk.imag) if chunk.dtype.kind == "c" else (chunk,)
        is_nan = np.logical_or.reduce([np.isnan(p) for p in parts])
        nan += int(np.count_nonzero(is_nan))
        rest = ~finite & ~is_nan
        infinite = [p[rest] for p in parts]
        positive = np.logical_or.reduce([p > 0 for p in infinite]) if chunk.dtype.kind != "c" else \
            np.where(np.isinf(infinite[0]), infinite[0] > 0, infinite[1] > 0)
        posinf += int(np.count_nonzero(positive))
        neginf += int(positive.size - np.count_nonzero(positive))
    if first is None:
        return None
    index = tuple(int(i) for i in np.unravel_index(first, array.shape)) if array.ndim else ()
    value = flat[first]
    return NonFinite(nan, posinf, neginf, int(array.size), index,
                     complex(value) if flat.dtype.kind == "c" else float(value))


def holds_floats(dtype: np.dtype) -> bool:
    """float16/32/64, complex, and ml_dtypes' floats (bfloat16, float8): the types with NaN or infinities."""
    if dtype.kind in "fc":
        return True
    if dtype.kind != "V" or dtype.fields is not None:
        return False
    try:
        ml_dtypes.finfo(dtype)
    except (ValueError, TypeError):
        return False  # (ml_dtypes' int4: no NaN)
    return True
