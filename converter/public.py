"""The documented Python API: what ``import spec2onnx`` offers (the package re-exports every name here).

::

    import spec2onnx

    spec = spec2onnx.load_spec("specs/trt_scale/seed-scale-4d.yaml")   # a path, or a mapping
    conversion = spec2onnx.convert(spec, target="ort-cpu")            # conversion.model: onnx.ModelProto
    report = spec2onnx.validate(spec)                                 # every case, on onnxruntime
    assert report.ok, report.summary()

Anything wrong with what the caller gave raises ``UserError`` (``SpecError`` for a spec), whose
message names the file or ``<dict>``, the field, the value and what is allowed; ``InternalError``
is a bug in spec2onnx.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Union

import numpy as np

from .errors import SpecError, UserError
from .safe_yaml import MAX_DEPTH, MAX_NODES
from .spec import Spec
from .validate import BAD, CaseResult

if TYPE_CHECKING:  # pragma: no cover
    import onnx

SpecSource = Union[str, "os.PathLike[str]", Mapping[str, Any], Spec]

__all__ = ["load_spec", "convert", "validate", "check", "plain_data", "Conversion", "ValidationReport",
           "CheckReport", "SpecSource"]


@dataclass(frozen=True)
class Conversion:
    """What :func:`convert` returns: the checked ONNX model and how it was made."""

    model: "onnx.ModelProto"  # passed onnx's full checker and strict shape inference
    spec: str  # the spec's name
    target: str  # the target it was lowered for (see spec2onnx.targets)
    opset: int
    path: Path | None = None  # where the model was written; None when it was not

    @property
    def node_count(self) -> int:
        """The number of nodes in the model's graph."""
        return len(self.model.graph.node)

    def to_bytes(self) -> bytes:
        """The serialized model (what ``onnxruntime.InferenceSession`` takes)."""
        return self.model.SerializeToString()


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`validate` returns: one ``CaseResult`` per case and runtime configuration."""

    results: tuple[CaseResult, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        """True when at least one case ran and none failed, errored or passed unexpectedly (XPASS)."""
        return bool(self.results) and not self.failures

    @property
    def failures(self) -> tuple[CaseResult, ...]:
        """The results that fail a run: FAIL, ERROR and XPASS (a spec that did not load is an ERROR)."""
        return tuple(r for r in self.results if r.outcome in BAD)

    def counts(self) -> dict[str, int]:
        """Results per outcome: PASS, FAIL, ERROR, XFAIL, XPASS."""
        from .report import counts

        return counts(list(self.results))

    def summary(self) -> str:
        """One line, as the CLI prints it: ``2 cases: 2 passed, 0 failed, 0 errors``; then each failure's problems."""
        from .report import summary_line

        lines = [summary_line(list(self.results))]
        for r in self.failures:
            lines += [f"{r.outcome} {r.id}"] + [f"    {p}" for p in r.problems]
        return "\n".join(lines)


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check` returns: whether a target can run the model, and why not."""

    spec: str  # the spec's name (the model's graph name, or its path, for a model)
    target: str
    problems: tuple[str, ...]  # one line each; empty when the target can run every node
    warnings: tuple[str, ...] = ()  # runs there, but results are known to differ

    @property
    def ok(self) -> bool:
        """True when nothing stops the target from running the model."""
        return not self.problems


def load_spec(source: SpecSource, *, base_dir: str | os.PathLike | None = None, require_cases: bool = True) -> Spec:
    """Load and validate a spec from a file (``.yaml``, ``.yml``, ``.json``) or from a mapping.

    A mapping holds what a spec file holds (see the README's spec format); tuples, numpy arrays
    and numpy scalars are accepted where lists and numbers go. It is validated exactly as a file
    is; errors name it ``<dict>``. Relative ``.npy`` paths in a mapping start at ``base_dir``
    (default: the current folder). A ``Spec`` is returned as it is. ``require_cases=False`` accepts
    a spec without ``cases`` (enough to convert it; validating needs cases).

    Raises ``SpecError`` (a ``UserError``) naming the field, the value and what is allowed.
    """
    from .spec import load_spec as load_file, parse_spec

    if isinstance(source, Spec):
        return source
    if isinstance(source, Mapping):
        label = "<dict>"
        try:
            doc = plain_data(source)
            return parse_spec(doc, Path(label), spec_dir=Path(base_dir) if base_dir is not None else Path.cwd(),
                              require_cases=require_cases)
        except UserError as exc:
            raise exc.located(file=label) from None
    if isinstance(source, (str, os.PathLike)):
        return load_file(source, require_cases=require_cases)
    raise UserError(f"load_spec(source): expected a path, a mapping or a Spec, got {type(source).__name__}")


def convert(spec: SpecSource, output: str | os.PathLike | None = None, *, target: str = "portable",
            opset: int | None = None) -> Conversion:
    """Lower a spec (a path, a mapping or a ``Spec``) to an ONNX model for ``target``.

    ``target``: ``portable`` (runs on every target; the default), ``ort-cpu``, ``ort-cuda``,
    ``tensorrt``, ``tensorrt-dla`` or ``openvino``. ``opset``: default the spec's, else 17.
    With ``output`` the model is also written there, atomically (all or nothing).
    """
    from .files import check_output, write_atomic
    from .spec import data_files
    from .targets import get_target
    from .targets.opset import model_for_target, refuse_unrunnable, wanted_opset

    spec = load_spec(spec, require_cases=False)  # converting needs no cases (as `spec2onnx convert`)
    chosen = get_target(target)
    model, used_opset, _, problems = model_for_target(spec, chosen, wanted_opset(spec, opset), fixed=opset is not None)
    refuse_unrunnable(spec, chosen, problems, opset=used_opset)
    path = None
    if output is not None:
        source = Path(spec.path) if spec.path and Path(spec.path).is_file() else None  # None: from a mapping
        inputs = [source, *data_files(source)] if source else []
        path = check_output(f"convert(output={str(output)!r})", output, inputs)  # never over the spec or its data
        try:
            write_atomic(path, model.SerializeToString())
        except OSError as exc:
            raise UserError(f"convert(output={str(output)!r}): cannot write ({exc.strerror or exc})") from None
    return Conversion(model, spec.name, chosen.name, used_opset, path)


def validate(specs: SpecSource | Iterable[SpecSource] | None = None, *, runtime: str | Iterable[str] = "onnxruntime",
             provider: str = "cpu", opset: int | None = None, patterns: Iterable[str] = ()) -> ValidationReport:
    """Run every case of the given specs and compare (as ``spec2onnx validate`` does, in this process).

    ``specs``: a spec file or folder (searched recursively), a mapping, a ``Spec``, or a list of
    these; ``None`` validates the bundled conformance suite. Each case runs on ``runtime``
    (``onnxruntime``, ``onnx-reference``, ``openvino``, or several) and is compared with the numpy
    reference and with the spec's expected values. ``patterns`` (one pattern or a list) keeps only
    case ids ``spec/case`` matching them (``-k``). A spec file that does not load is an ERROR result, as in the CLI;
    bad options (an unknown runtime, provider or opset) raise ``UserError``.
    """
    from .api import make_options, run_validation
    from .files import bundled_specs_dir
    from .selection import case_names, spec_files
    from .validate import check_spec

    options = make_options(runtimes=(runtime,) if isinstance(runtime, str) else tuple(runtime), provider=provider,
                           opset=opset)
    patterns = (patterns,) if isinstance(patterns, str) else tuple(patterns)  # one pattern, not one per character
    items = [specs] if specs is None or isinstance(specs, (str, os.PathLike, Mapping, Spec)) else list(specs)
    t0 = time.perf_counter()
    results: list[CaseResult] = []
    paths: list[Path] = []
    for item in items:
        if item is None:
            paths.append(bundled_specs_dir())
        elif isinstance(item, (str, os.PathLike)):
            paths.append(Path(item))
        else:
            spec = load_spec(item)
            results += check_spec(spec, options, case_names(spec, patterns))
    if paths:
        results += run_validation(spec_files(paths), options, patterns=patterns, jobs=0)
    return ValidationReport(tuple(results), time.perf_counter() - t0)


def check(source: "SpecSource | onnx.ModelProto", target: str = "portable", *, opset: int | None = None) -> CheckReport:
    """Statically check that ``target`` can run a model, without running it (``spec2onnx check``).

    ``source``: a spec (a path, a mapping or a ``Spec``: it is lowered for ``target`` first, its
    legalizations applied) or an ONNX model (an ``onnx.ModelProto`` or a ``.onnx`` path). Every node
    the target's capability tables, run-time limits and, for ``tensorrt-dla``, DLA rules refuse is a
    problem; known numerical differences are warnings. A spec the target cannot take at all (a
    ``UserError`` while lowering, e.g. a DLA rule) is one problem.
    """
    import onnx

    from .targets import get_target
    from .targets.check import errors
    from .targets.opset import model_for_target, wanted_opset

    chosen = get_target(target)
    if isinstance(source, onnx.ModelProto) or (isinstance(source, (str, os.PathLike))
                                                and Path(source).suffix == ".onnx"):
        from .model_check import check_file, check_loaded

        if isinstance(source, onnx.ModelProto):  # onnx's checker first, as for a file
            name, problems = source.graph.name, check_loaded(source, [chosen.name])[chosen.name]
        else:  # structure only, bounded (converter/model_reading.py)
            report = check_file(source, [chosen.name])
            if report.error is not None:
                raise UserError(report.error)
            name, problems = str(source), report.problems(chosen.name)
    else:
        spec = load_spec(source, require_cases=False)  # checking needs no cases (as converting)
        name = spec.name
        try:
            _, _, _, problems = model_for_target(spec, chosen, wanted_opset(spec, opset), fixed=opset is not None)
        except UserError as exc:
            return CheckReport(name, chosen.name, (str(exc),))
    failing = errors(problems)
    return CheckReport(name, chosen.name, tuple(str(p) for p in failing),
                       tuple(str(p) for p in problems if p not in failing))


def plain_data(value: Any) -> Any:
    """``value`` as the plain data a YAML/JSON spec file holds: dicts with text keys, lists, text, numbers, booleans, None.

    Tuples become lists, numpy arrays nested lists, numpy scalars numbers, paths text. Anything
    else, a nesting deeper than a file may have, or more values than a file may hold is a ``SpecError``
    naming where it is.
    """
    budget = [MAX_NODES]
    return _plain(value, "", 0, budget)


def _plain(value: Any, where: str, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise SpecError(f"more than {MAX_NODES} values (the limit of a spec file)", field=where or None)
    if depth > MAX_DEPTH:
        raise SpecError(f"nested deeper than {MAX_DEPTH} levels", field=where or None)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf" and value.dtype != _bfloat16():
            raise SpecError(f"a numpy array of {value.dtype} is not spec data (numbers or booleans)", field=where or None)
        budget[0] -= value.size
        if budget[0] < 0:
            raise SpecError(f"more than {MAX_NODES} values (the limit of a spec file)", field=where or None)
        return (value.astype(np.float32) if value.dtype == _bfloat16() else value).tolist()
    if isinstance(value, np.generic):
        return _plain(np.asarray(value), where, depth, budget)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise SpecError(f"key {key!r} is not text", field=where or None)
            out[key] = _plain(item, f"{where}.{key}" if where else key, depth + 1, budget)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{where}[{i}]", depth + 1, budget) for i, item in enumerate(value)]
    raise SpecError(f"{type(value).__name__} is not spec data (mappings, lists, text, numbers, booleans, null, "
                    "numpy arrays)", field=where or None)


def _bfloat16():
    from .dtypes import BFLOAT16

    return BFLOAT16.numpy

