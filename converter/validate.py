"""Validating specs: lower, run on onnxruntime, compare with the numpy reference and the spec's expected values."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from . import reference
from .compare import compare, resolve_tolerance
from .errors import InternalError, UserError
from .lowering import build_model
from .lowering.model import DEFAULT_OPSET
from .registry import layer_kind
from .runtime import OrtRunner
from .spec import Case, Spec, find_spec_files, load_spec

PASS, FAIL, ERROR = "PASS", "FAIL", "ERROR"


@dataclass
class CaseResult:
    spec: str  # spec name (or file, when the spec could not be loaded)
    case: str
    outcome: str
    path: str = ""
    ops: tuple[str, ...] = ()
    provider: str = ""
    opset: int = 0
    opt_level: str = "all"
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    bad_input: bool = False  # the spec itself could not be loaded (a user error: exit status 2)

    @property
    def id(self) -> str:
        if self.bad_input:
            return f"{self.spec} (not loaded)"
        suffix = "" if self.opt_level == "all" else f"[ort-opt={self.opt_level}]"
        return f"{self.spec}/{self.case}{suffix}"


@dataclass
class Options:
    provider: str = "CPUExecutionProvider"
    opset: int | None = None  # None: the spec's own opset, else DEFAULT_OPSET
    opt_levels: tuple[str, ...] = ("all",)  # onnxruntime graph optimization levels; each runs every case


def opset_for(spec: Spec, options: Options) -> int:
    return options.opset or spec.opset or DEFAULT_OPSET


def validate_paths(paths: Iterable[str | Path], options: Options) -> Iterator[CaseResult]:
    """Results for every case of every spec under ``paths``; a spec that fails to load yields one ERROR result."""
    for path in find_spec_files(paths):
        try:
            spec = load_spec(path)
        except UserError as exc:
            yield CaseResult(str(path), "<load>", ERROR, path=str(path), problems=[str(exc)], bad_input=True)
            continue
        yield from validate_spec(spec, options)


def validate_spec(spec: Spec, options: Options) -> Iterator[CaseResult]:
    opset = opset_for(spec, options)
    base = dict(spec=spec.name, path=str(spec.path), ops=tuple(spec.ops), provider=options.provider, opset=opset)
    start = time.perf_counter()
    try:
        model_bytes = build_model(spec.network, name=spec.name, opset=opset, provider=options.provider, doc=spec.source).SerializeToString()
    except Exception as exc:  # noqa: BLE001 - one broken spec must not hide the others
        problem = _describe_exception(exc, "building the model")
        for level in options.opt_levels:
            for case in spec.cases:
                yield CaseResult(case=case.name, outcome=ERROR, problems=[problem], opt_level=level, **base)
        return
    for level in options.opt_levels:
        try:
            runner = OrtRunner(model_bytes, options.provider, level)
        except Exception as exc:  # noqa: BLE001
            problem = _describe_exception(exc, "creating the onnxruntime session")
            for case in spec.cases:
                yield CaseResult(case=case.name, outcome=ERROR, problems=[problem], opt_level=level, **base)
            continue
        setup = time.perf_counter() - start
        for case in spec.cases:
            t0 = time.perf_counter()
            problems, errored = check_case(spec, case, runner.run)
            outcome = ERROR if errored else (FAIL if problems else PASS)
            yield CaseResult(case=case.name, outcome=outcome, seconds=time.perf_counter() - t0 + setup,
                             problems=problems, opt_level=level, **base)
            setup = 0.0
        start = time.perf_counter()


def check_case(spec: Spec, case: Case, run: Callable[[dict], dict]) -> tuple[list[str], bool]:
    """Run one case; returns (problems, errored). Checks runtime vs reference, runtime vs expected, reference vs expected."""
    try:
        got = run(case.inputs)
    except Exception as exc:  # noqa: BLE001
        return [_describe_exception(exc, "running onnxruntime")], True
    try:
        want = reference.run_network(spec.network, case.inputs)
    except Exception as exc:  # noqa: BLE001
        return [_describe_exception(exc, "running the numpy reference")], True
    problems = []
    for name in spec.network.outputs:
        tol = resolve_tolerance(spec.network.types[name].dtype, case.tolerance, spec.tolerance, layer_tolerance(spec, name))
        pairs = [("onnxruntime", got[name], "reference", want[name])]
        if case.expected and name in case.expected:
            pairs += [("onnxruntime", got[name], "expected", case.expected[name]),
                      ("reference", want[name], "expected", case.expected[name])]
        for what, actual, against, target in pairs:
            mismatch = compare(actual, target, tol)
            if mismatch:
                problems.append(f"output {name!r}: {what} vs {against} (atol={tol.atol:g}, rtol={tol.rtol:g}): {mismatch.describe()}")
    return problems, False


def layer_tolerance(spec: Spec, output: str):
    """The default tolerance the producing layer's kind asks for, if any."""
    layer = next(layer for layer in spec.network.layers if layer.name == output)
    kind = layer_kind(layer.op)
    if kind.tolerance is None:
        return None
    return kind.tolerance(layer, [spec.network.types[t] for t in layer.inputs])


def _describe_exception(exc: Exception, doing: str) -> str:
    if isinstance(exc, UserError):
        return str(exc)
    if isinstance(exc, InternalError):
        return f"internal error while {doing}: {exc}"
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" ({Path(last.filename).name}:{last.lineno})" if last else ""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__} while {doing}{where}: {text}"


def summarize(results: list[CaseResult]) -> dict[str, int]:
    counts = {PASS: 0, FAIL: 0, ERROR: 0}
    for r in results:
        counts[r.outcome] += 1
    return counts
