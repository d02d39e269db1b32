"""The pipeline: the one module that joins spec, lowering, targets and runners, for convert and validate alike.

``lower_for_target`` is the one way a spec becomes a model: the target's spec rules, the lowering, the
static check, and the opset search below. ``convert`` writes it; ``validate_spec`` runs it on each runtime
configuration and compares every case with the numpy reference; every target, the default ort-cpu too,
takes that path.

Opset search (formerly targets/opset.py): Lowering for a target, at an opset where the target has a kernel for every node.

onnxruntime matches an open kernel row ``N+`` only to nodes whose since-version is exactly N, so a
newer opset can move a node past its CUDA kernel (Equal, Pad, Size at opset 19; DequantizeLinear at
23; Cast, Reshape, Shape, Squeeze, Unsqueeze, Transpose at 24: ort-cuda-notes.md section 0). When the
opset was not given on the command line, the model is lowered at the highest opset from the wanted
one down to 13 at which no node has that problem, and the model says so in its metadata.

Checking the cases of one spec: lower once, run on each runtime configuration, compare.

Each case is compared three ways: runtime vs the numpy reference, and runtime and
reference vs the spec's expected values. Where several runtime configurations run,
their outputs are also compared with the first one's and differences are recorded
as disagreements. This module runs inside the worker processes of ``converter.pipeline.pool``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from .. import reference
from . import spec_cache
from ..compare import Tolerance, compare, compare_stats, error_stat_for, holds_floats, nonfinite, resolve_tolerance
from ..error_map import for_comparison, summarize
from ..brief import counted, nonfinite_counts
from ..errors import TargetRefusal, UserError, describe_exception
from ..installed.opset import DEFAULT_OPSET, MIN_OPSET, newest_onnx_opset
from ..registry import is_builtin, layer_kind, layer_kinds, reference_of
from .repro import write_repro
from ..results import BAD, ERROR, FAIL, OUTCOMES, PASS, REFUSAL_POLICIES, REFUSED, XFAIL, XPASS, CaseResult
from ..files import check_writable_folder, write_atomic
from ..runners import RunConfig, machine_has, make_configs, session
from ..runners.onnxruntime import check_convert_opset, check_opset, optimized_offline
from .shapes import case_shapes
from .spec import Case, Spec
from ..targets.target import (Target, check_precision, choose_target, precision_targets,  # noqa: F401
                             provider_for_target, resolve_target, target_for_provider)
from ..targets.ort_kernels import registry_read
from ..targets.profiles import target_names
from ..targets.spec_rules import refuse_spec
from .spec import load_rules_file
from ..xfail import XfailRule

__all__ = ["BAD", "ERROR", "FAIL", "OUTCOMES", "PASS", "REFUSED", "XFAIL", "XPASS", "CaseResult", "Options", "model_for_target",
           "opset_for", "refuse_unrunnable", "validate_spec", "wanted_opset"]


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
    static_check: bool = True  # with a target: a node it cannot run makes each case REFUSED (False: run only)
    threads: int = 1  # onnxruntime's intra-op threads for a spec with big outputs (small ones always use 1)
    host_model_dir: str | None = None  # --save-host-model: write each host-legalized copy there (legalize.py)
    auto_target: bool = False  # --target auto: per spec, the target convert's auto chooses (auto_candidates)
    refused: str = "skip"  # --refused: a REFUSED case is counted and skipped, or ("fail") fails the run
    precision: tuple[str, ...] = ()  # --fp16/--int8: what the TensorRT build allows beyond each spec's own precision
    error_stats: tuple = ()  # --check-error-stat [OUTPUT:]STAT: ((OUTPUT or "", STAT), ...) (compare.error_stat_for)
    statistics: bool = True  # every runtime comparison's error statistics in its CaseResult (the CLI: with --json)
    pictures: bool = False  # --html: each failing comparison's error_map summary in its CaseResult (.pictures)

    @property
    def show_labels(self) -> bool:
        return len(self.configs) > 1

    @property
    def target_label(self) -> str:
        """The target a run was asked for, as case ids end in it (`` [tensorrt]``, as the pytest plugin's items):
        --target's name, ``auto`` too; empty without --target."""
        return "auto" if self.auto_target else self.target.name if self.target is not None else ""

    def label(self, config: RunConfig) -> str:
        """A case's label: the target asked for, then the runtime configuration when several run."""
        return " ".join(part for part in (self.target_label, config.label if self.show_labels else "") if part)

    def target_name(self) -> str:
        """The target the cases are lowered for, before auto chooses: --target's, else what the provider implies."""
        return "auto" if self.auto_target else (self.target or target_for_provider(self.configs[0].provider)).name


def warm_up() -> None:
    """What every worker would otherwise do on its first spec, done once before the pool forks them: the
    caches' key digest, and the import of every built-in layer kind's numpy reference. Pure Python and
    numpy: no runtime is touched (the parent never creates a session, which could take it down)."""
    spec_cache.warm()
    for name in layer_kinds():
        if is_builtin(name):
            try:
                reference_of(name)
            except Exception:  # noqa: BLE001 - none, or broken: the worker meets it again and reports it per case
                pass


def opset_for(spec: Spec, options: Options) -> int:
    return options.opset or spec.opset or DEFAULT_OPSET


def validate_spec(spec: Spec, options: Options, case_names: Sequence[str] | None = None,
               on_case_start: Callable[[str], None] = lambda name: None, file_key: str | None = None) -> Iterator[CaseResult]:
    """Results for the chosen cases of ``spec`` (all by default), one per case and runtime configuration.

    ``file_key``: ``spec`` is exactly what its file gave (spec.load_spec_keyed's key, the spec unchanged since): its
    lowered model and reference outputs are then cached by that key, not by the spec's pickle and its cases' data."""
    opset = opset_for(spec, options)
    chosen = None if case_names is None else set(case_names)
    cases = [c for c in spec.cases if chosen is None or c.name in chosen]
    ops, path = tuple(spec.ops), str(spec.path)

    dynamic = any(not t.is_static for t in spec.network.types.values())
    spec = with_precision(spec, options.precision)  # --fp16/--int8 on top of the spec's own precision

    def result(case: Case, config: RunConfig, outcome: str, **kw) -> CaseResult:
        return CaseResult(spec=spec.name, case=case.name, outcome=outcome, path=path, ops=ops,
                          runtime=config.runtime, provider=config.provider, opset=opset, opt_level=config.opt_level,
                          label=options.label(config), target=ran, host=host_note,
                          shapes=case_shapes(spec.network, case.inputs) if dynamic else "", **kw)

    target = options.target or target_for_provider(options.configs[0].provider)
    ran = options.target_name()  # the target's name; auto's choice once made
    static: list[str] = []  # what the static check (converter/targets) finds: each case is REFUSED then
    host_note = ""  # "host: legalized copy, N nodes changed" where the host runs a copy of the deployment model
    try:  # every target, the default (ort-cpu, what the CPU provider implies) too: rules, lowering, check, opset search
        if options.auto_target:  # what convert --target auto writes for this spec: the most portable it fits
            target = _auto_target(spec, opset, fixed=options.opset is not None, hint="")[3]
            options, ran = replace(options, target=target), target.name
        content = spec_cache.content(spec, file_key)  # (the content part of the model's and the references' cache keys)
        model_bytes, opset, static, host_note, deployed = _lower_for_target(spec, options, target, opset, content)
    except Exception as exc:  # noqa: BLE001 - one broken spec must not hide the others
        if isinstance(exc, TargetRefusal):  # the target's rules refuse the spec (auto: its last candidate too)
            problem = str(exc).removeprefix(f"{path}: ")
            for case in cases:
                for config in options.configs:
                    yield result(case, config, REFUSED, problems=[problem])  # (no xfail: a refusal is no failure)
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
    for config in options.configs:  # (the target's own runtime runs the model convert writes, not the host's copy)
        try:
            runners[config] = _session(config, deployed if config.runtime == target.own_runtime else model_bytes, threads)
        except Exception as exc:  # noqa: BLE001
            runners[config] = describe_exception(exc, f"creating the {config.runtime} session")
    tolerances = {name: _tolerance(spec, name, options) for name in spec.network.outputs}
    # The spec's expected values are its own arithmetic; where the target's differs (FP16 weights, DLA's rounding,
    # docs/deployment.md), the runtime is compared with the reference of the target's arithmetic at the normal
    # tolerance, and with the expected values at that tolerance widened by what the target's arithmetic may add
    # (reference.expected_widening); where no such bound follows, the spec's own arithmetic is compared with them.
    arithmetic = target.name if target.deployment else None
    widening = {name: reference.expected_widening(spec.network, name, arithmetic) for name in spec.network.outputs}
    own_arithmetic = [name for name, w in widening.items() if w is None]
    # The reference's outputs are a pure function of the code, numpy, the network and the inputs: once every case's
    # ran, they are kept in the cache and read back, bit for bit, by the next run (spec_cache.references).
    reference_key, kept = spec_cache.references(spec, cases, f"arithmetic={arithmetic}", content)
    computed: list[dict] = []
    for i, case in enumerate(cases):
        on_case_start(case.name)
        t0 = time.perf_counter()
        try:
            reference_pictures = [] if options.pictures else None  # (--html: drawn on every runtime's result)
            if kept is not None:
                want = kept[i]
            else:
                want = reference.run_network(spec.network, case.inputs, arithmetic=arithmetic)
                computed.append(want)
            reference_problems = _compare_outputs(spec, case, "reference", want, tolerances, against_reference=None,
                                                  widening=widening, error_stats=options.error_stats,
                                                  pictures=reference_pictures)
            if own_arithmetic and case.expected:
                own = reference.run_network(spec.network, case.inputs)
                more = _compare_outputs(spec, case, "reference in the spec's arithmetic", own, tolerances,
                                        against_reference=None, names=own_arithmetic, error_stats=options.error_stats,
                                        pictures=reference_pictures)
                reference_problems = (reference_problems[0] + more[0], reference_problems[1] + more[1])
        except Exception as exc:  # noqa: BLE001
            want, reference_problems = describe_exception(exc, "running the numpy reference"), ([], [])
            reference_pictures = [] if options.pictures else None
        first_outputs = None
        for config in options.configs:
            runner = runners[config]
            t1 = time.perf_counter()
            pictures = list(reference_pictures) if options.pictures else None
            outcome, problems, stats, got = _check(spec, case, runner, want, tolerances, config.runtime, reference_problems,
                                                   widening, options.error_stats, options.statistics, pictures)
            if static:  # the host ran the model; the target would not (its static check): refused, not broken
                outcome, problems = REFUSED, static + problems
            disagreements = []
            if got is not None and first_outputs is None:
                first_outputs, first_label = got, config.label
            elif got is not None:
                disagreements = _disagreements(first_outputs, got, first_label, tolerances, case)
            res = result(case, config, outcome, problems=problems, comparisons=stats, disagreements=disagreements,
                         notes=value_notes(got, spec.network.outputs) if got is not None else [],
                         pictures=pictures or [], seconds=time.perf_counter() - t1 + (t1 - t0 if config == options.configs[0] else 0))
            res = res if static else _judge(spec, options, res)
            if res.outcome in BAD and options.repro_dir:
                try:
                    write_repro(options.repro_dir, res, model_bytes, case, got, want if isinstance(want, dict) else None, options)
                except OSError as exc:
                    res.problems.append(f"cannot write the reproduction to {options.repro_dir}: {exc.strerror or exc}")
            yield res
    if reference_key is not None and kept is None and len(computed) == len(cases):  # (none raised)
        spec_cache.keep_references(reference_key, computed)


PICTURE_STATISTICS = 1 << 20  # --html alone: the error statistics of outputs up to this size (_compare_outputs)
BIG_OUTPUT_ELEMENTS = 1 << 20  # from here a second intra-op thread pays for its start (0.15-0.25 ms a session)


def _threads(spec: Spec, options: Options) -> int:
    """One intra-op thread for small outputs (a thread pool costs more to start than it saves), else
    ``options.threads``: each output element is computed the same way whatever the number of threads."""
    types = spec.network.types
    elements = sum(types[o].size or 0 for o in spec.network.outputs)  # (a dynamic output counts as none)
    return options.threads if elements >= BIG_OUTPUT_ELEMENTS else 1


def _lower_for_target(spec: Spec, options: Options, target: Target, opset: int,
                      content=spec_cache.NOT_GIVEN) -> tuple[bytes, int, list[str], str, bytes]:
    """(model bytes the host runs, opset, static-check errors, host note, the model convert writes): lowered for ``target`` at an opset where it has
    every kernel, and checked; kept with the spec in the cache (the choice of opset and the check are pure
    functions of the spec, the code and the key's variant). For a target whose host runs a copy (Target.host_copy:
    tensorrt, tensorrt-dla, ort-dml, openvino) the model run is the host-legalized copy
    (converter/pipeline/legalize.py); the check is of the model convert writes, which the target's own runtime runs
    (the last item; the host's bytes where the host runs that model, or no runtime of the target's own is here)."""
    provider = None if options.target else options.configs[0].provider
    fixed = options.opset is not None

    def build() -> bytes:
        model, chosen, _, found = model_for_target(spec, target, opset, fixed=fixed, provider=provider)
        static = [f"static check: {p}" for p in found if p.severity == "error"] if options.static_check else []
        note = ""
        deployed = b""
        if target.host_copy:  # the host runs a legalized copy; the deployment model stays as convert writes it
            if target.own_runtime:  # (kept too: the target's own runtime, where installed, runs it)
                deployed = model.SerializeToString()
            model, _, changed = host_model(model)
            note = f"host: legalized copy, {changed} nodes changed"
        host = model.SerializeToString()
        return json.dumps({"opset": chosen, "static": static, "host": note, "host_bytes": len(host)}).encode() + \
            b"\n" + host + deployed

    precision = ",".join(sorted(set(spec.precision) | target.precision))  # (the check reads it)
    registry = registry_read(target)  # (the check reads the installed onnxruntime's kernel registry for ort-*)
    variant = (f"target={target.name};opset={opset};fixed={fixed};provider={provider};static={options.static_check}"
               + (f";precision={precision}" if precision else "") + (f";registry={registry}" if registry else ""))
    head, _, both = spec_cache.lowered_model(spec, variant, build, content).partition(b"\n")  # (JSON has no raw newline)
    meta = json.loads(head)
    model_bytes = both[:meta["host_bytes"]]
    if options.host_model_dir and meta.get("host"):
        Path(options.host_model_dir).mkdir(parents=True, exist_ok=True)
        write_atomic(Path(options.host_model_dir) / f"{spec.name}.host.onnx", model_bytes)
    return model_bytes, meta["opset"], meta["static"], meta.get("host", ""), both[meta["host_bytes"]:] or model_bytes


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


def _check(spec: Spec, case: Case, runner, want, tolerances, runtime: str, reference_problems, widening=None,
           error_stats=(), statistics: bool = True, pictures: list | None = None):
    """(outcome, problems, comparison stats, runtime outputs or None).

    ``reference_problems`` (reference vs expected, computed once per case) count for every runtime. ``pictures``
    (--html): the failing comparisons' error_map summaries are added to it.
    """
    if isinstance(runner, str):
        return ERROR, [runner], [], None
    try:
        got = runner(case.inputs)
    except Exception as exc:  # noqa: BLE001
        return ERROR, [describe_exception(exc, f"running {runtime}")], [], None
    if isinstance(want, str):
        return ERROR, [want], [], got
    problems, stats = _compare_outputs(spec, case, runtime, got, tolerances, against_reference=want, widening=widening,
                                       error_stats=error_stats, statistics=statistics, pictures=pictures)
    problems, stats = problems + reference_problems[0], stats + reference_problems[1]
    return (FAIL if problems else PASS), problems, stats, got


def _compare_outputs(spec: Spec, case: Case, what: str, outputs: dict, tolerances, against_reference,
                     widening: dict | None = None, names=None, error_stats=(), statistics: bool = True,
                     pictures: list | None = None):
    """(problems, stats) of ``outputs`` (those ``names``; default: every output) against the reference (when given,
    at the tolerance) and the case's expected values (at the tolerance plus the output's ``widening``, an (atol,
    rtol) the target's arithmetic adds; None: not compared here, see check_spec), each with the error statistic
    ``error_stats`` names (--check-error-stat). A runtime's comparisons, passing ones too, carry their error
    statistics (docs/report-schema.md, /4) where ``statistics``; the reference's own against the expected values only
    where they fail. ``pictures`` (--html): a list that each failing comparison's error_map summary is added to."""
    problems, stats = [], []
    if against_reference is None and not case.expected:
        return problems, stats  # (nothing to compare with: the reference's own check of a case without expected values)
    for name in spec.network.outputs if names is None else names:
        tol = _resolved(tolerances, name, case)
        actual = outputs.get(name)
        targets = [("reference", against_reference[name], tol, "")] if against_reference is not None else []
        widen = (widening or {}).get(name, (0.0, 0.0))
        if widen is not None and case.expected and name in case.expected:
            note = ", widened by the target's arithmetic" if any(widen) else ""
            targets.append(("expected", case.expected[name], _widened(tol, widen), note))
        same_as_reference = False  # (--html: every chunk of actual and the reference equal, as the sink saw)
        for against, target, tol, note in targets:
            if actual is None:
                problems.append(f"output {name!r}: {what} produced no such output")
                break
            stat = error_stat_for(error_stats, name)
            # --html without --json: the statistics (each passing comparison's margin) where the output is small; a
            # big one's cost more than the page (median, ulp: 1.1 s at 2^26 elements); a failure has its own keys
            gather = against_reference is not None and (statistics or (pictures is not None and actual is not None
                                                                         and getattr(actual, "size", 0) <= PICTURE_STATISTICS))
            # --html: the picture fed by the comparison; against the expected value, where actual equals the
            # reference, the reference's own picture against it (made once per case, before the runtimes)
            drawn = _reference_picture(pictures, name) if same_as_reference and against == "expected" else None
            sink = for_comparison(actual, target) if pictures is not None and drawn is None else None
            mismatch, errors = compare_stats(actual, target, tol, stat, statistics=gather, sink=sink)
            same_as_reference = against == "reference" and sink is not None and sink.exact
            if mismatch is None and (errors is None or not gather):
                continue  # (passed, and no statistics kept: no entry)
            entry = {"output": name, "actual": what, "against": against,
                     "tolerance": {"atol": tol.atol, "rtol": tol.rtol, "ulp": tol.ulp}}
            if errors is not None and gather:  # a runtime's: every element's error; a
                # failure's own keys below keep their meaning (the mismatched elements')
                d = errors.to_dict()
                entry.update({k: d[k] for k in ("max_abs", "mean_abs", "median_abs", "max_rel", "max_ulp", "min_atol",
                                                "min_rtol")}, error_stat=stat, passed=mismatch is None, error=d)
            if mismatch:
                problems.append(f"output {name!r}: {what} vs {against} ({tol.describe()}{note}): {mismatch.describe()}")
                entry.update(mismatch.to_dict())
                picture = None if pictures is None else drawn if drawn is not None else \
                    sink.finish(mismatch.worst_index) if sink is not None else summarize(actual, target, mismatch.worst_index)
                if picture is not None:
                    pictures.append({"output": name, "actual": what, "against": against, **picture})
            if mismatch or "error" in entry:
                stats.append(entry)
    return problems, stats


def value_notes(outputs: dict, names) -> list[str]:
    """What a runtime's outputs were compared as beyond finite values (CaseResult.notes): those that hold NaN or an
    infinity (the reference and the expected values decide where one may be: docs/semantics.md; a PASS then rests
    on NaN matching NaN), and the empty ones, whose shape alone was compared. A report says so, as run MODEL's does."""
    notes = []
    for name in names:
        array = outputs.get(name)
        if array is None or not hasattr(array, "dtype"):
            continue
        if array.size == 0:
            notes.append(f"output {name!r} is empty {list(array.shape)}: its shape was compared, no value")
        elif holds_floats(array.dtype) and not np.isfinite(array).all():  # (isfinite first: the usual output, 1 us)
            found = nonfinite(array)
            notes.append(f"output {name!r}: {nonfinite_counts(found.nan, found.posinf, found.neginf)} of {found.total} "
                         "elements, compared as values (NaN matches NaN, an infinity the same infinity)")
    return notes


def _reference_picture(pictures: list, name: str) -> dict | None:
    """The reference's picture of output ``name`` against the expected value, less its labels, or None."""
    for picture in pictures:
        if (picture["output"], picture["actual"], picture["against"]) == (name, "reference", "expected"):
            return {k: v for k, v in picture.items() if k not in ("output", "actual", "against")}
    return None


def _widened(tol: Tolerance, widen: tuple[float, float]) -> Tolerance:
    """``tol`` with (atol, rtol) added: the target's arithmetic's share (reference.expected_widening)."""
    atol, rtol = widen
    if not (atol or rtol):
        return tol
    return Tolerance(atol=(tol.atol or 0.0) + atol, rtol=(tol.rtol or 0.0) + rtol, ulp=tol.ulp)


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
        if rule.matches(spec.name, res.case, res.runtime, res.provider, res.opt_level, machine_has, res.target):
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


# The problems (check.py's reasons) that another opset may cure: a node past its kernel's since-version, an opset
# outside TensorRT's range or newer than onnxruntime loads (profiles.py, ORT_MAX_OPSET).
VERSION_MARKERS = ("no kernel for since-version", "is outside TensorRT's", "is newer than onnxruntime")


def version_problems(problems) -> list:
    return [p for p in problems if p.severity == "error" and any(m in p.reason for m in VERSION_MARKERS)]


def model_for_target(spec, target, opset: int, *, fixed: bool = False, provider: str | None = None,
                     search_up: bool = False):
    """(model, opset used, note, problems of check_model). ``fixed``: the opset was asked for; never change it.
    ``search_up``: no opset was given at all (neither asked for nor in the spec): when the target cannot run
    every node at ``opset`` (an error, or a warning such as a DLA layer falling back to the GPU), the lowest
    opset above at which it can (no error; no warning either, where one does that) is used instead.

    A spec the target cannot take at all (targets/spec_rules.py: TensorRT types, the DLA rules) is refused first
    (TargetRuleError, a SpecError naming the field and the rule). The build allows the spec's ``precision`` on top of
    the target's (--fp16/--int8): the DLA rules read both, the model keeps the spec's types.
    """
    target = target.allowing(getattr(spec, "precision", ()))
    refuse_spec(spec, target)
    provider = provider or provider_for_target(target)
    model = _lower(spec, target, opset, provider)
    problems = check_model(model, target)
    first = version_problems(problems)
    if not fixed and first:
        for lower in range(opset - 1, MIN_OPSET - 1, -1):
            try:
                candidate = _lower(spec, target, lower, provider)
            except Exception:  # noqa: BLE001 - a spec this opset cannot express: try the next one
                continue
            found = check_model(candidate, target)
            if not version_problems(found):
                p = first[0]
                where = f"{p.node} ({p.op}): " if p.node else ""  # "" for the model's own (its opset, IR version)
                note = f"opset {lower} instead of {opset}: at opset {opset}, {where}{p.reason}"
                return _stamp(candidate, target, note), lower, note, found
    if not fixed and search_up and problems:
        found = _fully_runnable_above(spec, target, opset, provider, problems)
        if found is not None:
            higher, candidate, found_problems = found
            p = (errors(problems) or problems)[0]
            note = (f"opset {higher} instead of the default {opset} (no opset given; the lowest at which {target.name} "
                    f"runs every node): at opset {opset}, {p.node} ({p.op}): {p.reason}")
            return _stamp(candidate, target, note), higher, note, found_problems
    return _stamp(model, target, ""), opset, "", problems


def _fully_runnable_above(spec, target, opset: int, provider: str, problems):
    """(opset, model, its problems) for the lowest opset above ``opset`` at which ``target`` runs every node
    with no error, and with no warning if ``problems`` at ``opset`` hold errors or warnings that it cures
    (a DLA Cast falling back to the GPU); None when no opset does better."""
    had_errors = bool(errors(problems))
    for higher in range(opset + 1, newest_onnx_opset() + 1):
        try:
            candidate = _lower(spec, target, higher, provider)
        except Exception:  # noqa: BLE001 - a spec this opset cannot express: try the next one
            continue
        found = check_model(candidate, target)
        if not found or (had_errors and not errors(found)):
            return higher, candidate, found
    return None


def _lower(spec, target, opset: int, provider: str):
    """The spec's model lowered for ``target`` at ``opset`` (no metadata stamp, no check)."""
    return build_model(spec.network, name=spec.name, opset=opset, provider=provider, doc=spec.source, target=target)


def wanted_opset(spec, opset: int | None) -> int:
    """The opset to convert (or check) at: ``opset`` when given (checked), else the spec's, else DEFAULT_OPSET."""
    return check_convert_opset(opset) if opset is not None else (spec.opset or DEFAULT_OPSET)


def refuse_unrunnable(spec, target, problems, hint: str = "", opset: int | None = None) -> None:
    """A TargetRefusal (a UserError) when ``problems`` (of check_model) hold errors: the target cannot run the model.

    With the ``opset`` the model was lowered at, the message names a higher opset where every node
    runs, if there is one (model_for_target only ever goes down from the spec's opset: a newer one
    is the user's choice, e.g. float16 DequantizeLinear needs opset 19)."""
    failing = errors(problems)
    if failing:
        more = f"; and {len(failing) - 1} more" if len(failing) > 1 else ""
        higher = runnable_opset_above(spec, target, opset) if opset is not None else None
        also = f"; at --opset {higher} every node runs there" if higher else ""
        raise TargetRefusal(f"{spec.path}: {counted(len(failing), 'node')} of the model lowered for {target.name} "
                            f"cannot run there: {failing[0]}{more}{also}{hint}")


def runnable_opset_above(spec, target, opset: int) -> int | None:
    """The lowest opset above ``opset`` (up to the newest onnx writes) at which ``target`` runs every node."""
    provider = provider_for_target(target)
    for higher in range(opset + 1, newest_onnx_opset() + 1):
        try:
            model = _lower(spec, target, higher, provider)
        except Exception:  # noqa: BLE001 - a spec this opset cannot express: try the next one
            continue
        if not errors(check_model(model, target)):
            return higher
    return None


def _stamp(model, target, note: str):
    props = {p.key: p.value for p in model.metadata_props}
    props["spec2onnx.target"] = target.name
    if target.precision:  # trtexec --fp16/--int8: what the build must allow for the model to run as checked
        props["spec2onnx.precision"] = ",".join(sorted(target.precision))
    if note:
        props["spec2onnx.opset_choice"] = note
    from onnx import helper  # start-up time (_build_side)

    helper.set_model_props(model, props)
    return model


def convert(spec: Spec, target: "Target | str | None", opset: int | None = None, *, provider: str | None = None,
            hint: str = "", precision=()) -> tuple:
    """(model, opset used, note, Target): ``spec`` lowered for ``target`` (model_for_target), refused with a
    UserError when the target cannot run a node of it (``hint`` ends the message). ``target``: a Target or a
    name; ``"auto"`` (or None without ``provider``) tries auto_candidates; None with ``provider``: the target it
    implies. ``opset``: None for the spec's (else DEFAULT_OPSET), searched down where a node would have no
    kernel, and with no opset in the spec either, up to the lowest at which the target runs every node
    (a named target; not ``auto``); given, it is kept. ``precision``: what the build allows beyond the spec's own
    ``precision`` (trtexec --fp16/--int8; targets.PRECISIONS)."""
    spec = with_precision(spec, precision)
    fixed, wanted = opset is not None, wanted_opset(spec, opset)
    if target == "auto" or (target is None and provider is None):
        return _auto_target(spec, wanted, fixed=fixed, hint=hint)
    chosen = target if isinstance(target, Target) else choose_target(target, provider, also=("auto",))
    model, used, note, problems = model_for_target(spec, chosen, wanted, fixed=fixed,
                                                   search_up=not fixed and spec.opset is None)
    refuse_unrunnable(spec, chosen, problems, hint, opset=used)
    return model, used, note, chosen


def auto_candidates(spec) -> list[str]:
    """The targets ``--target auto`` tries, most portable first: portable, then the spec's own runtime family
    (tensorrt for trt.* layers; ort-dml, DirectML through onnxruntime, for dml.* layers)."""
    families = {op.split(".")[0] for op in spec.ops}
    out = ["portable"]
    if families == {"trt"}:
        out.append("tensorrt")
    elif families == {"dml"}:
        out.append("ort-dml")
    return out


def _auto_target(spec, opset: int, *, fixed: bool, hint: str):
    """(model, opset, note, target) for the first of auto_candidates the spec fits (the model says which target was
    chosen and why: metadata ``spec2onnx.auto``); the last candidate's refusal otherwise."""
    candidates = [t for t in auto_candidates(spec) if t in target_names()]
    why = []
    for i, name in enumerate(candidates):
        chosen = resolve_target(name)
        try:
            model, used, note, problems = model_for_target(spec, chosen, opset, fixed=fixed)
            # (the hint, "nothing written", is for the last candidate's refusal: the others' only say why not them)
            refuse_unrunnable(spec, chosen, problems, hint if i == len(candidates) - 1 else "", opset=used)
        except UserError as exc:
            if i == len(candidates) - 1:
                raise
            why.append(f"not {name}: {str(exc).removeprefix(f'{spec.path}: ')}")
            continue
        props = {p.key: p.value for p in model.metadata_props}
        props["spec2onnx.auto"] = name + (f" ({'; '.join(why)})" if why else " (the most portable target)")
        from onnx import helper  # start-up time (_build_side)

        helper.set_model_props(model, props)
        return model, used, note, chosen
    raise AssertionError("unreachable: the last candidate returns or raises")


def check(spec: Spec, target: Target, opset: int | None = None) -> list:
    """The problems (targets.check.Problem) of ``spec``'s model for ``target`` (and the precision it allows), lowered
    as ``convert`` lowers it."""
    return model_for_target(spec, target, wanted_opset(spec, opset), fixed=opset is not None)[3]


def with_precision(spec: Spec, precision) -> Spec:
    """``spec`` whose ``precision`` also allows ``precision`` (``--fp16``/``--int8``, checked: targets.PRECISIONS)."""
    extra = check_precision(precision)
    if extra <= set(spec.precision):
        return spec
    return replace(spec, precision=tuple(sorted(extra | set(spec.precision))))


def lowered(spec: Spec, options: Options) -> tuple[bytes, int]:
    """(model bytes, opset) of ``spec``'s model as ``validate_spec`` lowers it for ``options`` (the cache's copy)."""
    target = options.target or target_for_provider(options.configs[0].provider)
    model_bytes, opset, _, _, _ = _lower_for_target(spec, options, target, opset_for(spec, options))
    return model_bytes, opset


def tolerance_of(spec: Spec, tensor: str, case: Case, options: Options) -> Tolerance:
    """The tolerance ``validate_spec`` compares tensor ``tensor`` (an output, or any layer's) of ``case`` with:
    the command line's, the case's, the spec's, the layer kind's, the dtype's default, the first set winning."""
    return _resolved({tensor: _tolerance(spec, tensor, options)}, tensor, case)


def run(spec: Spec, feeds: dict, options: Options) -> dict:
    """The outputs of ``spec``'s model, lowered as ``validate_spec`` lowers it, on ``options``' first runtime configuration."""
    target = options.target or target_for_provider(options.configs[0].provider)
    model_bytes, _, _, _, _ = _lower_for_target(spec, options, target, opset_for(spec, options))
    return _session(options.configs[0], model_bytes, _threads(spec, options))(feeds)


def _session(config: RunConfig, model_bytes: bytes, threads: int):
    """runners.session; on onnxruntime's CPU provider from the graph it optimized offline, kept in the cache
    (spec_cache.optimized_model: its optimizations are most of a small model's session; the same graph runs)."""
    optimized = None
    if config.runtime == "onnxruntime" and config.provider == "CPUExecutionProvider" and config.opt_level != "disabled":
        optimized = spec_cache.optimized_model(model_bytes, config.opt_level,
                                               lambda: optimized_offline(model_bytes, config.opt_level))
    return session(config, model_bytes, threads=threads, optimized=optimized)


def make_options(*, runtimes=("onnxruntime",), provider: str = "cpu", opt_levels=("all",), opset: int | None = None,
                 tolerance: Tolerance | None = None, xfail_file: str | None = None, repro_dir: str | None = None,
                 plugins: tuple[str, ...] = (), max_memory: int | None = None,
                 target: str | None = None, refused: str = "skip", precision=(), error_stats=(),
                 statistics: bool = True, pictures: bool = False) -> Options:
    """Options for a validation run, every name checked (unknown provider, opset, runtime, target: UserError).

    ``target``: lower for it (and check the model statically) instead of for what the provider implies.
    ``refused``: what a REFUSED case does to the run: "skip" (counted, the run may pass) or "fail".
    ``precision``: ``--fp16``/``--int8``, what the TensorRT build allows beyond each spec's own ``precision``.
    """
    if refused not in REFUSAL_POLICIES:
        raise UserError(f"--refused {refused}: not one of {', '.join(REFUSAL_POLICIES)}")
    if target is not None and not target.strip():  # (taken as none given, its cases' ids lost their [TARGET])
        raise UserError(f"--target {target!r}: an empty name is no target")
    return Options(
        configs=make_configs(runtimes, provider, opt_levels),
        opset=check_opset(opset) if opset is not None else None,
        tolerance=tolerance,
        xfail=load_rules_file(xfail_file) if xfail_file else (),
        xfail_file=xfail_file,
        repro_dir=writable_folder("--repro-dir", repro_dir) if repro_dir is not None else None,
        plugins=tuple(plugins),
        max_memory=max_memory,
        target=resolve_target(target, also=("auto",)) if target and target != "auto" else None,
        auto_target=target == "auto",
        refused=refused,
        precision=tuple(sorted(check_precision(precision))),
        error_stats=tuple(error_stats),
        statistics=bool(statistics),
        pictures=bool(pictures),
    )


def host_copy_targets() -> list[str]:
    """The targets whose host runs a legalized copy of the model convert writes, not the model itself
    (Target.host_copy: docs/deployment.md)."""
    return [name for name in target_names() if resolve_target(name).host_copy]


def precision_unused(targets, precision) -> str | None:
    """A warning line when ``precision`` (--fp16/--int8) is given for targets it means nothing for, else None: the
    flags are what a TensorRT build allows (trtexec's), read by the targets whose profile has ``build_precisions``.
    ``targets``: Targets, or the names a report carries ("auto": the target chosen per spec, not judged here)."""
    flags = " ".join(f"--{p}" for p in sorted(check_precision(precision)))
    named = [t.name if isinstance(t, Target) else t for t in targets]
    idle = [t for t in dict.fromkeys(named) if t != "auto" and not (t in target_names() and resolve_target(t).build_precisions)]
    if not flags or not idle:
        return None
    readers = precision_targets()
    return (f"{flags} means nothing for {', '.join(idle)}: the flag is what a TensorRT build allows (trtexec's), and "
            f"only {' and '.join(readers)} read it; the model and its check are the same without it")


def writable_folder(option: str, folder: str) -> str:
    if not str(folder):
        raise UserError(f"{option}: the folder name is empty")
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{option} {folder}: cannot create the folder ({exc.strerror})") from None
    check_writable_folder(option, folder)
    return folder


def _build_side():
    """converter/pipeline/build.py, imported on first use (its docstring says why)."""
    from . import build  # start-up time: the build side imports onnx

    return build


def build_model(*args, **kwargs):
    return _build_side().build_model(*args, **kwargs)


def host_model(model):
    return _build_side().host_model(model)


def check_model(*args, **kwargs):
    return _build_side().check_model(*args, **kwargs)


def errors(problems):
    return _build_side().errors(problems)
