"""Checking the cases of one spec: lower once, run on each runtime configuration, compare.

Each case is compared three ways: runtime vs the numpy reference, and runtime and
reference vs the spec's expected values. Where several runtime configurations run,
their outputs are also compared with the first one's and differences are recorded
as disagreements. This module runs inside the worker processes of ``converter.pool``.
"""

from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from . import reference, spec_cache
from .compare import Tolerance, compare, resolve_tolerance
from .errors import InternalError, UserError
from .lowering import build_model
from .lowering.model import DEFAULT_OPSET
from .registry import layer_kind
from .runtimes import RunConfig, session
from .spec import Case, Spec
from .targets import Target, target_for_provider
from .xfail import XfailRule

PASS, FAIL, ERROR, XFAIL, XPASS = "PASS", "FAIL", "ERROR", "XFAIL", "XPASS"
OUTCOMES = (PASS, FAIL, ERROR, XFAIL, XPASS)
BAD = (FAIL, ERROR, XPASS)  # outcomes that fail a run


@dataclass
class CaseResult:
    """The outcome of one case on one runtime configuration: PASS, FAIL, ERROR, XFAIL or XPASS, and why."""

    spec: str  # spec name (the file, when the spec could not be loaded)
    case: str
    outcome: str
    path: str = ""
    ops: tuple[str, ...] = ()
    runtime: str = "onnxruntime"
    provider: str = "CPUExecutionProvider"
    opset: int = 0
    opt_level: str = "all"
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    comparisons: list[dict] = field(default_factory=list)  # mismatch statistics, one per failed comparison
    disagreements: list[dict] = field(default_factory=list)  # differences from the first runtime configuration
    reason: str = ""  # why a case is a known failure
    bad_input: bool = False  # the spec itself could not be loaded (a user error: exit status 2)
    internal: bool = False  # lowering failed with an internal error: our bug (exit status 3)
    label: str = ""  # the runtime configuration, shown when several run
    host: str = ""  # "host: legalized copy, N nodes changed": the host ran a copy of the deployment model

    @property
    def id(self) -> str:
        """``spec/case`` (with the runtime configuration when several ran), as reports and ``-k`` use it."""
        if self.bad_input:
            return f"{self.spec} (not loaded)"
        return f"{self.spec}/{self.case}" + (f" [{self.label}]" if self.label else "")

    @property
    def kind(self) -> str:
        """The layer kinds of the case's network joined by ``+`` (the summary table's rows)."""
        return "+".join(self.ops) or "(not loaded)"


@dataclass
class Options:
    configs: tuple[RunConfig, ...] = (RunConfig(),)
    opset: int | None = None  # None: the spec's own opset, else DEFAULT_OPSET
    tolerance: Tolerance | None = None  # from the command line: overrides everything
    xfail: tuple[XfailRule, ...] = ()  # from --xfail-file
    xfail_file: str | None = None
    repro_dir: str | None = None  # where to write the reproduction of each failing case
    plugins: tuple[str, ...] = ()  # --plugin modules, for reproduction commands
    max_memory: int | None = None  # bytes a spec may need (estimated before loading its data); None: the default budget
    target: Target | None = None  # --target: lower for it and check the model statically; None: what the provider implies
    static_check: bool = True  # with a target: a node it cannot run makes each case an ERROR (False: run only)
    threads: int = 1  # onnxruntime's intra-op threads for a spec with big outputs (small ones always use 1)
    host_model_dir: str | None = None  # --save-host-model: write each host-legalized copy there (legalize.py)

    @property
    def show_labels(self) -> bool:
        return len(self.configs) > 1


def opset_for(spec: Spec, options: Options) -> int:
    return options.opset or spec.opset or DEFAULT_OPSET


def check_spec(spec: Spec, options: Options, case_names: Sequence[str] | None = None,
               on_case_start: Callable[[str], None] = lambda name: None) -> Iterator[CaseResult]:
    """Results for the chosen cases of ``spec`` (all by default), one per case and runtime configuration."""
    opset = opset_for(spec, options)
    chosen = None if case_names is None else set(case_names)
    cases = [c for c in spec.cases if chosen is None or c.name in chosen]
    ops, path = tuple(spec.ops), str(spec.path)

    def result(case: Case, config: RunConfig, outcome: str, **kw) -> CaseResult:
        return CaseResult(spec=spec.name, case=case.name, outcome=outcome, path=path, ops=ops,
                          runtime=config.runtime, provider=config.provider, opset=opset, opt_level=config.opt_level,
                          label=config.label if options.show_labels else "", host=host_note, **kw)

    target = options.target or target_for_provider(options.configs[0].provider)
    static: list[str] = []  # what the static check (converter/targets) finds: each case is an ERROR then
    host_note = ""  # "host: legalized copy, N nodes changed" where the host runs a copy of the deployment model
    try:
        if options.target is None and target.name == "ort-cpu":  # the default: no check, no opset search
            provider = options.configs[0].provider
            model_bytes = spec_cache.lowered_model(
                spec, f"opset={opset};provider={provider}",
                lambda: build_model(spec.network, name=spec.name, opset=opset, provider=provider, doc=spec.source).SerializeToString())
        else:
            model_bytes, opset, static, host_note = _lower_for_target(spec, options, target, opset)
    except Exception as exc:  # noqa: BLE001 - one broken spec must not hide the others
        from .targets.spec_rules import TargetRuleError

        if isinstance(exc, TargetRuleError):  # refused before lowering: a user error, like a spec that does not load
            yield CaseResult(path, "<load>", ERROR, path=path, problems=[str(exc)], bad_input=True)
            return
        problem = describe_exception(exc, "building the model")
        internal = not isinstance(exc, UserError)
        if internal:
            problem += f" [a bug in spec2onnx: please report it with {spec.path}]"
        for case in cases:
            for config in options.configs:
                yield _judge(spec, options, result(case, config, ERROR, problems=[problem], internal=internal))
        return
    runners: dict[RunConfig, Callable | str] = {}
    threads = _threads(spec, options)
    for config in options.configs:
        try:
            runners[config] = session(config, model_bytes, threads=threads)
        except Exception as exc:  # noqa: BLE001
            runners[config] = describe_exception(exc, f"creating the {config.runtime} session")
    tolerances = {name: _tolerance(spec, name, options) for name in spec.network.outputs}
    # The spec's expected values are its own arithmetic; where the target's differs (FP16 weights, DLA's rounding,
    # docs/deployment.md), the runtime is compared with the reference of the target's arithmetic only.
    arithmetic = target.name if target.deployment else None
    expected = not reference.arithmetic_differs(spec.network, arithmetic)
    for case in cases:
        on_case_start(case.name)
        t0 = time.perf_counter()
        try:
            want = reference.run_network(spec.network, case.inputs, arithmetic=arithmetic)
            reference_problems = _compare_outputs(spec, case, "reference", want, tolerances, against_reference=None,
                                                  expected=expected)
        except Exception as exc:  # noqa: BLE001
            want, reference_problems = describe_exception(exc, "running the numpy reference"), ([], [])
        first_outputs = None
        for config in options.configs:
            runner = runners[config]
            t1 = time.perf_counter()
            outcome, problems, stats, got = _check(spec, case, runner, want, tolerances, config.runtime, reference_problems,
                                                   expected)
            if static:
                outcome, problems = ERROR, static + problems
            disagreements = []
            if got is not None and first_outputs is None:
                first_outputs, first_label = got, config.label
            elif got is not None:
                disagreements = _disagreements(first_outputs, got, first_label, tolerances, case)
            res = result(case, config, outcome, problems=problems, comparisons=stats, disagreements=disagreements,
                         seconds=time.perf_counter() - t1 + (t1 - t0 if config == options.configs[0] else 0))
            res = _judge(spec, options, res)
            if res.outcome in BAD and options.repro_dir:
                from .repro import write_repro

                try:
                    write_repro(options.repro_dir, res, model_bytes, case, got, want if isinstance(want, dict) else None, options)
                except OSError as exc:
                    res.problems.append(f"cannot write the reproduction to {options.repro_dir}: {exc.strerror or exc}")
            yield res


BIG_OUTPUT_ELEMENTS = 1 << 20  # from here a second intra-op thread pays for its start (0.15-0.25 ms a session)


def _threads(spec: Spec, options: Options) -> int:
    """One intra-op thread for small outputs (a thread pool costs more to start than it saves), else
    ``options.threads``: each output element is computed the same way whatever the number of threads."""
    types = spec.network.types
    elements = sum(types[o].size or 0 for o in spec.network.outputs)  # (a dynamic output counts as none)
    return options.threads if elements >= BIG_OUTPUT_ELEMENTS else 1


def _lower_for_target(spec: Spec, options: Options, target: Target, opset: int) -> tuple[bytes, int, list[str], str]:
    """(model bytes to run, opset, static-check errors, host note): lowered for ``target`` at an opset where it has
    every kernel, and checked; kept with the spec in the cache like the default path's model (the choice of
    opset and the check are pure functions of the spec, the code and the key's variant). For a target with a
    deployment form (tensorrt, tensorrt-dla) the model run is the host-legalized copy (converter/legalize.py);
    the check is of the deployment model."""
    from .targets.opset import model_for_target

    provider = None if options.target else options.configs[0].provider
    fixed = options.opset is not None

    def build() -> bytes:
        model, chosen, _, found = model_for_target(spec, target, opset, fixed=fixed, provider=provider)
        static = [f"static check: {p}" for p in found if p.severity == "error"] if options.static_check else []
        note = ""
        if target.deployment:  # the host runs a legalized copy; the deployment model stays as convert writes it
            from .legalize import host_model

            model, _, changed = host_model(model)
            note = f"host: legalized copy, {changed} nodes changed"
        return json.dumps({"opset": chosen, "static": static, "host": note}).encode() + b"\n" + model.SerializeToString()

    variant = f"target={target.name};opset={opset};fixed={fixed};provider={provider};static={options.static_check}"
    head, _, model_bytes = spec_cache.lowered_model(spec, variant, build).partition(b"\n")  # (JSON has no raw newline)
    meta = json.loads(head)
    if options.host_model_dir and meta.get("host"):
        from .files import write_atomic

        Path(options.host_model_dir).mkdir(parents=True, exist_ok=True)
        write_atomic(Path(options.host_model_dir) / f"{spec.name}.host.onnx", model_bytes)
    return model_bytes, meta["opset"], meta["static"], meta.get("host", "")


def _tolerance(spec: Spec, output: str, options: Options):
    """Per output: the command line's, then the spec's (case-level ones are merged per case in _check).

    The command line's (--atol/--rtol/--ulp) applies to float outputs only, as its help says: integer
    and bool outputs stay exact unless the spec itself allows an ``atol`` for them.
    """
    dtype = spec.network.types[output].dtype
    cli = options.tolerance if dtype.is_float else None
    chain = [t.for_output(output) if t else None for t in (cli, spec.tolerance)]
    return dtype, chain, layer_tolerance(spec, output)


def _resolved(tolerances, output: str, case: Case) -> Tolerance:
    dtype, (cli, spec_tol), kind_tol = tolerances[output]
    case_tol = case.tolerance.for_output(output) if case.tolerance else None
    return resolve_tolerance(dtype, cli, case_tol, spec_tol, kind_tol)


def _check(spec: Spec, case: Case, runner, want, tolerances, runtime: str, reference_problems, expected: bool = True):
    """(outcome, problems, comparison stats, runtime outputs or None).

    ``reference_problems`` (reference vs expected, computed once per case) count for every runtime.
    """
    if isinstance(runner, str):
        return ERROR, [runner], [], None
    try:
        got = runner(case.inputs)
    except Exception as exc:  # noqa: BLE001
        return ERROR, [describe_exception(exc, f"running {runtime}")], [], None
    if isinstance(want, str):
        return ERROR, [want], [], got
    problems, stats = _compare_outputs(spec, case, runtime, got, tolerances, against_reference=want, expected=expected)
    problems, stats = problems + reference_problems[0], stats + reference_problems[1]
    return (FAIL if problems else PASS), problems, stats, got


def _compare_outputs(spec: Spec, case: Case, what: str, outputs: dict, tolerances, against_reference, expected: bool = True):
    """(problems, stats) of ``outputs`` against the reference (when given) and the case's expected values."""
    problems, stats = [], []
    for name in spec.network.outputs:
        tol = _resolved(tolerances, name, case)
        actual = outputs.get(name)
        targets = [("reference", against_reference[name])] if against_reference is not None else []
        if expected and case.expected and name in case.expected:
            targets.append(("expected", case.expected[name]))
        for against, target in targets:
            if actual is None:
                problems.append(f"output {name!r}: {what} produced no such output")
                break
            mismatch = compare(actual, target, tol)
            if mismatch:
                problems.append(f"output {name!r}: {what} vs {against} ({tol.describe()}): {mismatch.describe()}")
                stats.append({"output": name, "actual": what, "against": against,
                              "tolerance": {"atol": tol.atol, "rtol": tol.rtol, "ulp": tol.ulp}, **mismatch.to_dict()})
    return problems, stats


def _disagreements(first: dict, got: dict, first_label: str, tolerances, case: Case) -> list[dict]:
    out = []
    for name, value in got.items():
        if name in first:
            mismatch = compare(value, first[name], _resolved(tolerances, name, case))
            if mismatch:
                out.append({"with": first_label, "output": name, **mismatch.to_dict()})
    return out


def _judge(spec: Spec, options: Options, res: CaseResult) -> CaseResult:
    """Apply the known-failure rules: a declared failure becomes XFAIL, a declared one that passes XPASS."""
    for rule in spec.xfail + options.xfail:
        if rule.matches(spec.name, res.case, res.runtime, res.provider, res.opt_level):
            res.reason = rule.reason
            if res.outcome == PASS:
                res.outcome = XPASS
                res.problems.append(f"passed, but is declared a known failure ({rule.reason}): remove the xfail entry")
            else:
                res.outcome = XFAIL
            break
    return res


def layer_tolerance(spec: Spec, output: str):
    """The default tolerance the producing layer's kind asks for, if any (outputs name layers)."""
    layer = spec.network.layer(output)
    kind = layer_kind(layer.op)
    if kind.tolerance is None:
        return None
    return kind.tolerance(layer, [spec.network.types[t] for t in layer.inputs])


def describe_exception(exc: BaseException, doing: str) -> str:
    if isinstance(exc, UserError):
        return str(exc)
    if isinstance(exc, InternalError):
        return f"internal error while {doing}: {exc}"
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" ({Path(last.filename).name}:{last.lineno})" if last else ""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__} while {doing}{where}: {text}"
