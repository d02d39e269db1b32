"""``spec2onnx run MODEL.onnx``: any ONNX model on several runtimes, every pair compared (as ``polygraphy run``).

One run: the model is read with its data (converter/untrusted/reading.py: bounded, external data inside the
model's folder), its inputs made or loaded (converter/model/inputs.py), the model run on each runtime
configuration (converter/runners: onnxruntime with a provider and optimization levels, onnx's reference
evaluator, OpenVINO), each in a child process (converter/process/isolation.py: a runtime that crashes is that
runtime's failure, not the command's), and every pair of runtimes compared output by output with
validate's comparison and per-dtype tolerances (converter/compare.py), golden outputs (``--load-outputs``)
counting as one more runtime. Each comparison is a CaseResult (``MODEL/B vs A``: B's outputs against A's), so the terminal
table, the JSON and the JUnit reports are validate's (converter/report.py).

``--mark-all`` compares every tensor a main-graph node computes (typed where onnx's shape inference types it;
sequences and maps are left out): a comparison that finds a difference in the model's outputs names the first
node, in topological order, with an output that differs among those the differing outputs depend on. The
model runs plain first (its outputs compared as without --mark-all); then, only where an output differs or
``--save-outputs`` wants every tensor, in chunks: the tensors in topological order cut into chunks of at most
``mark_chunk`` bytes (default: a quarter of the plain run's peak memory, chunk_budget; the tensors' sizes from
onnx's shape inference at the inputs' shapes, a size it cannot give counted as the largest it gives) and
MARK_CHUNK_TENSORS tensors, each chunk run on every runtime still needed
as a model of the nodes it depends on with its tensors as the outputs, compared, written and dropped before
the next, and the walk stopped at the first differing node. Every tensor marked at once held all of them in
each runtime and in this process (2.3-2.5x a plain run's memory on light_resnet50 and light_densenet121).
"""

from __future__ import annotations

import datetime
import heapq
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

from ..brief import counted
from ..budget import default_budget, show
from ..compare import (Mismatch, NonFinite, Tolerance, command_line_stats, command_line_tolerance, compare_stats,
                      error_stat_for, nonfinite, refuse_unknown_outputs, resolve_tolerance, value_stats)
from ..error_map import summarize
from ..errors import EXIT_FAILED, EXIT_OK, UserError
from ..files import check_distinct, check_npz_names, check_output, save_arrays, save_arrays_from
from ..installed.opset import ORT_MAX_IR_VERSION, ORT_MAX_OPSET
from ..installed.ort_build import build, newest_loadable_ir, newest_loadable_opset
from ..process import isolation
from ..process.interrupts import held_interrupts
from .inputs import (as_type, bind_shapes, dtype_of_array, of_type, generate, load_arrays, loaded_inputs, model_inputs,
                     model_outputs, parse_shapes, parse_val_ranges, pick_profile, profile_shapes, profile_values,
                     show_shape)
from ..untrusted.declared import STRING, Tensor
from ..untrusted.profiles import CORNERS, PROFILES_KEY, model_profiles
from ..untrusted.reading import read_model_with_data, read_test_data_set
from ..report import summary_line, summary_table, write_html, write_reports
from ..results import BAD, ERROR, FAIL, PASS, CaseResult
from .start import DEFAULT_RUNTIMES, EarlySession, RuntimeRun, SharedArrays, failed, received, run_one
from ..runners import RunConfig, make_configs
from ..untrusted.infer import first_unsafe, infer

GOLDEN = "golden"
# --mark-all: the bytes of marked tensors one chunk holds at most, where --mark-chunk does not say: a quarter of the
# plain run's peak memory (its largest runtime child's, the command's pages included), at least MARK_CHUNK_FLOOR; a
# chunk costs 2-3 times its bytes (the runtime's buffers and the copies that come back, two runtimes' at a time)
MARK_CHUNK_SHARE = 4
MARK_CHUNK_FLOOR = 4 << 20
MARK_CHUNK_BYTES = 64 << 20  # where no run says its peak (not Linux)
MARK_CHUNK_TENSORS = 1024  # and the tensors (each is an output: its own buffer, a mapping where it is big)


@dataclass(frozen=True)
class RunOptions:
    """What ``run MODEL`` does, every value checked (make_run_options)."""

    configs: tuple[RunConfig, ...]
    tolerance: Tolerance | None = None  # --atol/--rtol [OUTPUT:]VALUE: float outputs only (per output: .outputs)
    seed: int = 1
    shapes: dict = field(default_factory=dict)  # input -> shape (--shapes)
    val_ranges: dict = field(default_factory=dict)  # input or None (all) -> (low, high)
    load_inputs: str | None = None
    save_inputs: str | None = None
    load_outputs: str | None = None
    save_outputs: str | None = None
    mark_all: bool = False
    mark_chunk: int | None = None  # --mark-chunk SIZE: bytes of marked tensors per chunk (None: chunk_budget)
    max_memory: int | None = None
    threads: int = 0  # onnxruntime's intra-op threads; 0: its default (one per physical core), as Polygraphy's
    profile: int | None = None  # --profile N: the model's optimization profile (default 0 where it carries any)
    profile_shapes: str | None = None  # --profile-shapes min|opt|max (default opt, as trtexec's --optShapes)
    allow_nonfinite: bool = False  # --allow-nonfinite: NaN and infinities are compared as values, not failed
    error_stats: tuple = ()  # --check-error-stat [OUTPUT:]STAT: ((OUTPUT or "", STAT), ...) (compare.error_stat_for)
    fail_fast: bool = False  # --fail-fast: no comparison after the first that fails
    pictures: bool = False  # --html: each failing comparison's error_map summary in its CaseResult (.pictures)
    timeout: float | None = None  # --timeout SECONDS: each runtime's limit (None: none); past it, killed, an ERROR


def make_run_options(*, runtimes=DEFAULT_RUNTIMES, provider: str = "cpu", opt_levels=("all",), atol=None, rtol=None,
                     seed: int = 1, shapes=(), val_ranges=(), load_inputs=None, save_inputs=None, load_outputs=None,
                     save_outputs=None, mark_all: bool = False, mark_chunk: int | None = None,
                     max_memory: int | None = None,
                     threads: int = 0, profile: int | None = None, profile_shapes: str | None = None,
                     allow_nonfinite: bool = False, check_error_stat=(), fail_fast: bool = False,
                     pictures: bool = False, timeout: float | None = None) -> RunOptions:
    """RunOptions from the command line's values: runtimes, provider, shapes and ranges parsed and checked."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"--seed {seed}: must be a whole number >= 0")
    if mark_chunk is not None and (isinstance(mark_chunk, bool) or not isinstance(mark_chunk, int) or mark_chunk < 1):
        raise UserError(f"--mark-chunk {mark_chunk}: must be a number of bytes >= 1")
    if not isinstance(allow_nonfinite, bool):
        raise UserError(f"allow_nonfinite {allow_nonfinite!r}: must be True or False (--allow-nonfinite)")
    if load_inputs is not None and val_ranges:
        raise UserError("--val-range: the inputs come from --load-inputs; a range applies to generated inputs only")
    if profile is not None and (isinstance(profile, bool) or not isinstance(profile, int) or profile < 0):
        raise UserError(f"--profile {profile}: must be a whole number >= 0 (profiles count from 0)")
    if profile_shapes is not None and profile_shapes not in CORNERS:
        raise UserError(f"--profile-shapes {profile_shapes}: must be one of {', '.join(CORNERS)}")
    if load_inputs is not None and (profile, profile_shapes) != (None, None):
        option = "--profile" if profile is not None else "--profile-shapes"
        raise UserError(f"{option}: the inputs come from --load-inputs, with their own shapes; a profile gives the "
                        "shapes of generated inputs only")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise UserError(f"--timeout {timeout}: must be a number of seconds > 0, or inf for no limit")
    for name, value in (("--atol", atol), ("--rtol", rtol)):
        if isinstance(value, bool) or (isinstance(value, (int, float)) and not value >= 0):
            raise UserError(f"{name} {value}: must be a number >= 0")
    # --atol/--rtol [OUTPUT:]VALUE, repeatable (Polygraphy's syntax); a single number or text is one of them
    tolerance = command_line_tolerance(*(() if v is None else (v,) if isinstance(v, (str, int, float)) else tuple(v)
                                         for v in (atol, rtol)))
    stats = command_line_stats((check_error_stat,) if isinstance(check_error_stat, str) else check_error_stat or ())
    return RunOptions(make_configs(runtimes, provider, opt_levels), tolerance, seed, parse_shapes(shapes),
                      parse_val_ranges(val_ranges), load_inputs, save_inputs, load_outputs, save_outputs, mark_all,
                      mark_chunk, max_memory, threads, profile, profile_shapes, allow_nonfinite, stats, bool(fail_fast),
                      bool(pictures), None if timeout is None or timeout == float("inf") else float(timeout))


@dataclass(frozen=True)
class _Node:
    """What the comparison needs of a node: its name, op, outputs and the names it reads (subgraphs included)."""

    name: str
    op_type: str
    output: tuple
    uses: frozenset


def _written_for(model) -> str:
    """The target of a model ``convert`` wrote (its spec2onnx.target metadata, a target name), else ""."""
    value = next((p.value for p in model.metadata_props if p.key == "spec2onnx.target"), "")
    return value if value.replace("-", "").isalnum() and len(value) <= 64 else ""  # (an untrusted file's text)


@dataclass
class ModelRun:
    """What ``run MODEL`` did: the model, its inputs, each runtime's run, and one CaseResult per comparison."""

    path: str
    name: str
    nodes: int
    opset: int
    inputs: list  # model_inputs.Tensor, as declared
    feeds: dict
    source: str  # where the inputs came from: "generated (seed 1, ...)" or "--load-inputs FILE"
    notes: list = field(default_factory=list)
    runs: list = field(default_factory=list)
    results: list = field(default_factory=list)
    marked: int = 0  # tensors --mark-all compares beside the model's outputs
    chunks: tuple = (0, 0, 0)  # --mark-all: (chunks run, chunks the tensors walked were cut into, bytes per chunk)
    chunk_given: bool = False  # --mark-chunk was given (else a quarter of the plain run's peak memory)
    seconds: float = 0.0
    interrupted: BaseException | None = None  # Ctrl-C or SIGTERM while the runtimes ran: what finished is compared
    stats: dict = field(default_factory=dict)  # label (a runtime's, or GOLDEN) -> output -> compare.value_stats
    written_for: str = ""  # the target convert wrote the model for (its spec2onnx.target metadata); "" for others

    def json_extra(self) -> dict:
        """The ``model`` section of a run's JSON report (docs/report-schema.md)."""
        return {"path": self.path, "nodes": self.nodes, "opset": self.opset, "written_for": self.written_for or None,
                "inputs_from": self.source,
                "inputs": [{"name": n, "dtype": str(a.dtype), "shape": list(a.shape)} for n, a in self.feeds.items()],
                "notes": self.notes, "marked": self.marked,
                **({"mark_chunks": dict(zip(("run", "total", "bytes"), self.chunks))} if self.marked else {}),
                "runtimes": [{"label": r.label, "seconds": round(r.seconds, 6), "error": r.error or None,
                              "outputs": len(r.outputs or ()), "stats": self.stats.get(r.label, {})}
                             for r in self.runs],
                **({"golden": {"stats": self.stats[GOLDEN]}} if GOLDEN in self.stats else {})}

    @property
    def status(self) -> int:
        """The exit status of ``run MODEL``: 1 where a comparison failed or a runtime could not run the model."""
        return EXIT_FAILED if any(r.outcome in BAD for r in self.results) else EXIT_OK

    def header(self) -> str:
        """The run's first line: the model and the inputs fed."""
        inputs = ", ".join(f"{n} {typed(a)}" for n, a in self.feeds.items())
        written = f", written by spec2onnx convert for {self.written_for}" if self.written_for else ""
        return (f"{self.path}: {counted(self.nodes, 'node')}, opset {self.opset}{written}; "
                + (f"inputs ({self.source}): {inputs}" if inputs else "no inputs"))

    def marked_line(self) -> str | None:
        """--mark-all's line: the tensors marked, the chunks' size, how many chunks ran; None without --mark-all."""
        if not self.marked:
            return None
        made, total, size = self.chunks
        return (f"--mark-all: {self.marked:,} tensors marked as outputs, in chunks of at most {show(size)}"
                + ("" if self.chunk_given else " (a quarter of the plain run's peak memory)") + ": "
                + (f"{made} of {total} run" if total else "none run, no output differs"))

    def ran_lines(self) -> list[str]:
        """A line per runtime that ran the model, with its outputs (one that could not is an ERROR result)."""
        return [f"ran {r.label} in {r.seconds:.2f} s: {outputs_text(r.outputs)}" for r in self.runs if not r.error]

    def summary(self) -> str:
        """The table of comparisons and the summary line, as ``run MODEL`` ends."""
        return (summary_table(self.results, row=lambda r: r.case, title="comparison") + "\n"
                + summary_line(self.results, noun="comparison") + f" in {self.seconds:.2f} s")


def typed(array) -> str:
    """An array as the run's lines show it: float32[1, 3], string[2] (numpy's '<U3' or 'object' is a string tensor)."""
    return f"{'string' if array.dtype.kind in 'OSU' else array.dtype}{list(array.shape)}"


def outputs_text(outputs: dict) -> str:
    shown = [f"{n} {typed(a)}" for n, a in list(outputs.items())[:4]]
    more = f", ... ({len(outputs):,} outputs)" if len(outputs) > 4 else ""
    return ", ".join(shown) + more


def run_command(path, early: EarlySession | None = None, *, json_path=None, junit_path=None, html_path=None, argv=(),
                runtimes=(), opt_levels=(), progress=None, on_done=lambda run: None, **options) -> ModelRun:
    """``spec2onnx run MODEL``: the options as make_run_options takes them (no runtime: DEFAULT_RUNTIMES; no level:
    all), ``run_model`` with the report files checked before any work (check_files) and written after (validate's
    JSON and JUnit, one case per comparison; the JSON's ``model``: json_extra), after ``on_done(run)``. ``html_path``:
    checked with them, each failing comparison's pictures made for it, and the page written last (model_page).
    ``progress(line)``: --mark-all's walk, a line per chunk."""
    options = make_run_options(runtimes=runtimes or DEFAULT_RUNTIMES, opt_levels=opt_levels or ("all",),
                               pictures=html_path is not None, **options)
    started = datetime.datetime.now(datetime.timezone.utc)
    reports = {"--json": json_path, "--junit": junit_path, "--html": html_path}
    check_files(options, path, reports)
    run = run_model(path, options, early, reports, progress=progress)
    run.chunk_given = bool(options.mark_chunk)
    on_done(run)
    with held_interrupts():  # (the reports written whole; Ctrl-C again: at once)
        write_reports(run.results, json_path=json_path, junit_path=junit_path, started=started, seconds=run.seconds,
                      argv=list(argv), interrupted=run.interrupted is not None, extra={"model": run.json_extra()})
        if html_path is not None:
            write_html(html_path, "model_page", path=run.path, argv=argv, results=run.results, stats=run.stats,
                       notes=run.notes, header=run.header())
    if run.interrupted is not None:  # (the command line's status: 130, 143)
        raise run.interrupted
    return run


def check_files(options: RunOptions, model_path, reports: dict, data_files=()) -> None:
    """Before any work: every file the run writes can be written, none is an input of it (the model, its external
    ``data_files``, the --load-* files; by path, symbolic or hard link: files.same_file), no two are the same."""
    outputs = {"--save-inputs": options.save_inputs, "--save-outputs": options.save_outputs, **reports}
    check_written(outputs, options, model_path, data_files)


def check_written(outputs: dict, options: RunOptions, model_path, data_files=()) -> None:
    """check_files for any ``outputs`` ({option: path or None}): reduce's -o and its inputs file too."""
    inputs = [model_path, *data_files, *(p for p in (options.load_inputs, options.load_outputs) if p)]
    for option, path in outputs.items():
        if path is not None:
            check_output(option, path, inputs)
    check_distinct(outputs)


def run_model(path, options: RunOptions, early: EarlySession | None = None, reports: dict | None = None,
              progress=None) -> ModelRun:
    """Run the model at ``path`` on every configuration of ``options`` and compare (module docstring). Bad input
    (the file, --shapes, the .npz files) is a UserError before anything runs; a runtime that cannot run the
    model is an ERROR result; an output naming one of the model's external data files, a UserError before
    anything is written (``reports``: the report files the caller writes, ``{"--json": path}``). ``early``: the
    first configuration's session, started before the model was read (converter/model/start.py); its run is
    taken where it is that of this model, and it is stopped otherwise. ``progress``: called with a line per
    --mark-all chunk before it runs (the command line prints it on stderr)."""
    t0 = time.perf_counter()
    path = str(path)
    budget = default_budget() if options.max_memory is None else options.max_memory
    model, external, identity, data_files = read_model_with_data(path, budget)
    if data_files:  # known once the model is read: no output (--save-*, ``reports``: --json, --junit) overwrites them
        check_files(options, path, reports or {}, data_files)
    inputs, outputs = model_inputs(model, path), model_outputs(model, path)
    try:  # --shapes, --profile and --val-range against this model: the line names the model too
        profile = None if options.load_inputs else _profile(model, inputs, options)
        explicit = profile_shapes(inputs, options.shapes, profile) if profile else options.shapes
        shapes, notes = bind_shapes(inputs, explicit, generating=not options.load_inputs)
    except UserError as exc:
        raise exc.located(file=path) from None
    shaping = shape_inputs(model.graph, inputs)  # integer inputs a node takes as its shape: generated >= 1, noted
    if options.load_inputs:
        onnx_layout = Path(options.load_inputs).is_dir()  # a test_data_set_N folder: input_K.pb, K in input order
        members = read_test_data_set("--load-inputs", options.load_inputs, "input", [t.name for t in inputs],
                                     budget) if onnx_layout else None
        feeds, source, notes = loaded_inputs("--load-inputs", options.load_inputs, inputs, options.shapes, budget,
                                             members), f"--load-inputs {options.load_inputs}", []
    else:
        need = sum(math.prod(shapes[t.name]) * (t.dtype.numpy.itemsize if t.dtype else 0) for t in inputs)
        if need > budget:
            raise UserError(f"{path}: its inputs ({', '.join(f'{n}:{show_shape(s)}' for n, s in shapes.items())}) take "
                            f"{show(need)}, above the memory budget of {show(budget)} (--max-memory)")
        try:
            values = profile_values(inputs, profile) if profile else {}  # a shape input's values at the profile
            drawn = {n: v for n, v in shaping.items() if n not in values}  # (the profile's: said below, not drawn)
            ranges = _shape_ranges(drawn, options.val_ranges)
            generated = generate([t for t in inputs if t.name not in values], shapes, ranges, options.seed)
        except UserError as exc:
            raise exc.located(file=path) from None
        feeds = {t.name: values[t.name] if t.name in values else generated[t.name] for t in inputs}
        del generated  # (feeds alone holds the arrays: early.share below puts them in shared memory, once)
        notes = notes + _shape_feeds(drawn, feeds, shapes, ranges, options.val_ranges)
        source = f"generated: seed {options.seed}, {_ranges(ranges)}"
        if profile:
            given = [n for n in profile.ranges if n in options.shapes]
            source += (f"; shapes: {profile.describe()} (metadata {PROFILES_KEY})"
                       + "".join(f", {n} = {values[n].tolist()}" for n in values)
                       + (f", {', '.join(given)} from --shapes" if given else ""))
    producers = _producers(model.graph) if options.mark_all else []  # (only --mark-all looks for the first node)
    plan = _mark_plan(model, feeds) if options.mark_all else {}  # the tensors --mark-all compares: name -> (type, bytes)
    every = [o.name for o in outputs] + list(plan)
    try:  # --atol/--rtol/--check-error-stat OUTPUT: an output of this model (with --mark-all, any tensor marked)
        refuse_unknown_outputs(every, options.tolerance, options.error_stats, "the model")
    except UserError as exc:
        raise exc.located(file=path) from None
    golden, golden_marked = _golden(options.load_outputs, model, outputs, budget, plan if options.mark_all else None) \
        if options.load_outputs else (None, {})
    if options.save_inputs:  # names a .npz cannot carry: refused before anything is written or run
        check_npz_names("--save-inputs", options.save_inputs, feeds, "input")
    if options.save_outputs:
        check_npz_names("--save-outputs", options.save_outputs, every, "output")
    if options.save_inputs:
        save_arrays("--save-inputs", options.save_inputs, feeds)
    run = ModelRun(path, Path(path).name, len(model.graph.node), _opset(model), inputs, feeds, source, notes,
                   marked=len(plan), written_for=_written_for(model))
    ops = tuple(sorted({f"{n.domain}.{n.op_type}" if n.domain not in ("", "ai.onnx") else n.op_type
                        for n in model.graph.node}))
    hazard = _load_hazard(model)
    first = None  # the first configuration's run by the early session: the file as it is, this configuration
    kept = model if options.mark_all else None  # the chunks' models are cut from it
    try:  # Ctrl-C or SIGTERM (a child runtime killed on its way): the runtimes that finished are compared, reported
        if early is not None:
            # (--mark-all's first pass runs the model as it is: its chunks are other models, run below)
            if (options.configs[0], options.threads, external, hazard) == (early.config, early.threads, 0, ""):
                feeds = run.feeds = early.share(feeds)  # the inputs held once, in memory the child maps
                first = early.run(feeds, identity, options.timeout)
            early.stop()
        data = model.SerializeToString() if first is None or len(options.configs) > 1 else b""
        del model
        for i, config in enumerate(options.configs):
            if hazard and config.runtime == "onnxruntime":
                run.runs.append(RuntimeRun(config, error=f"{config.label} cannot load the model (not tried): {hazard}"))
            else:
                run.runs.append(first if i == 0 and first is not None else
                                _run_isolated(config, data, feeds, options.threads, options.timeout))
        del data
    except KeyboardInterrupt as exc:
        if early is not None:
            early.stop()
        run.interrupted = exc
        run.notes.append(f"interrupted: {len(run.runs)} of the {len(options.configs)} runtimes finished; what they "
                         "gave is compared, the others did not run")
    ran = [r for r in run.runs if r.outputs is not None]
    if options.save_outputs and ran and not options.mark_all:  # (with --mark-all: below, chunk by chunk)
        save_arrays("--save-outputs", options.save_outputs, ran[0].outputs)
    base = dict(spec=run.name, path=path, ops=ops, opset=run.opset)
    for r in run.runs:
        if r.error:
            run.results.append(CaseResult(case=r.label, outcome=ERROR, problems=[r.error], seconds=r.seconds,
                                          **_config_fields(r.config), **base))
    names = [o.name for o in outputs]
    sides = [(r.label, r.outputs, r) for r in ran] + ([(GOLDEN, golden, None)] if golden is not None else [])
    # each side's NaN and infinities in the model's outputs, found once: they fail every comparison of that side
    # unless --allow-nonfinite, which compares them as values (and notes them)
    found = {label: _nonfinite_outputs(arrays, names) for label, arrays, _ in sides}
    run.stats = {label: {n: value_stats(arrays[n]) for n in names if n in arrays} for label, arrays, _ in sides}
    own = {label: _nonfinite_problems(label, found[label], options.allow_nonfinite) for label in found}
    run.notes += [line for label in own for line in own[label][2]]
    run.notes += _empty_notes(sides, names, shaping, feeds)
    pairs = [(earlier, later) for j, later in enumerate(sides) for earlier in sides[:j]]
    pinned = frozenset(golden or ())  # outputs whose shape the golden data fixes: an empty one is checked by its shape
    searches = []  # --mark-all: the failing comparisons whose first differing node is looked for
    for k, (earlier, later) in enumerate(pairs):
        if options.fail_fast and any(r.outcome in BAD for r in run.results):  # --fail-fast: as validate's -x
            run.notes.append(f"--fail-fast: stopped at the first failure; {len(pairs) - k} of the {len(pairs)} "
                             "comparisons not made")
            break
        # the later runtime against the earlier one; a runtime against the golden outputs
        actual, against = (earlier, later) if later[2] is None else (later, earlier)
        result, differing = _compare_pair(actual[0], against[0], actual[1], against[1], names, options,
                                          own=(own[actual[0]], own[against[0]]), pinned=pinned,
                                          seconds=actual[2].seconds, **_config_fields(actual[2].config), **base)
        run.results.append(result)
        if options.mark_all and differing:
            searches.append(_Search(result, actual[0], against[0], _ancestors(producers, differing)[1]))
    if len(sides) == 1 and ran:  # one runtime, no golden outputs: it ran, nothing to compare but its own outputs
        problems, stats, _ = own[ran[0].label]
        empty = [] if problems else _nothing_compared(ran[0].outputs, ran[0].outputs, names)
        run.results.append(CaseResult(case=ran[0].label, outcome=FAIL if problems or empty else PASS,
                                      seconds=ran[0].seconds, problems=problems + empty, comparisons=list(stats),
                                      **_config_fields(ran[0].config), **base))
    if options.mark_all and run.interrupted is None:  # the tensors inside, chunk by chunk: the first differing node
        walk = _MarkWalk(kept, plan, producers, names, sides, golden_marked, searches, options, feeds, run.notes,
                         progress or (lambda line: None))
        if options.save_outputs and ran:
            save_arrays_from("--save-outputs", options.save_outputs, walk.run)
        else:
            walk.run(None)
        run.chunks = (walk.made, walk.total, walk.budget)
    run.seconds = time.perf_counter() - t0
    return run


def _profile(model, inputs: list[Tensor], options: RunOptions):
    """The optimization profile the generated inputs take their shapes (and a shape input its values) from: the
    model's metadata PROFILES_KEY, which convert writes for a dynamic spec; --profile and --profile-shapes pick it.
    Metadata that does not read as profiles of this model is bad input (UserError naming the key)."""
    profiles, shape_inputs = model_profiles(model, inputs)
    profile = pick_profile(profiles, shape_inputs, options.profile, options.profile_shapes, PROFILES_KEY)
    if profile:
        for name in options.val_ranges:
            if name in profile.shape_inputs and name in profile.ranges:
                raise UserError(f"--val-range {name}: input {name!r} is a shape input; its values come from "
                                f"{profile.describe()} ({list(profile.at(name))}): pick others with --profile or "
                                "--profile-shapes, or give them with --load-inputs")
    return profile


def _load_hazard(model) -> str:
    """Why onnxruntime would not load the model ("" where nothing says so), reported without trying: its opset or IR
    version is newer than the installed onnxruntime loads (check's words; onnxruntime's own are its C++ signature's),
    or its load would never return: it runs onnx's shape inference, and a node holds an attribute value that inference
    hangs on (untrusted/infer.unsafe, each one measured: tests/targets/test_validation.py). A crash is measured
    (isolation)."""
    for what, value, committed, newest in (("opset", _opset(model), ORT_MAX_OPSET, newest_loadable_opset),
                                           ("IR version", model.ir_version, ORT_MAX_IR_VERSION, newest_loadable_ir)):
        if value > committed and value > newest():  # (the probe only above the committed tables' limit)
            found = build()
            installed = found.name if found else "the installed onnxruntime"
            return f"{what} {value} is newer than {installed} loads (at most {newest()})"
    found = first_unsafe(model.graph.node, "hangs")
    if found is None:
        return ""
    index, node, why = found
    return (f"onnxruntime runs onnx's shape inference when it loads a model, and node {node.name or f'#{index}'} "
            f"({node.op_type}) holds a value on which that never returns: {why}")


def _producers(graph) -> list:
    """(index, node) of the graph's nodes in topological order, as plain records (a node proto would keep the
    model, and its weights, alive while the runtimes run)."""
    uses = [_used_names(node) for node in graph.node]
    return [(i, _Node(graph.node[i].name, graph.node[i].op_type, tuple(graph.node[i].output), frozenset(uses[i])))
            for i in topological_order(graph, uses)]


def _opset(model) -> int:
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)


def _ranges(ranges: dict) -> str:
    named = [f"{name} in [{low}, {high}]" for name, (low, high) in ranges.items() if name is not None]
    low, high = ranges.get(None, (0, 1))
    rest = f"{'other ' if named else ''}values in [{low}, {high}]"
    return ", ".join(named + [rest])


def _config_fields(config: RunConfig) -> dict:
    return {"runtime": config.runtime, "provider": config.provider, "opt_level": config.opt_level}


def _run_isolated(config: RunConfig, data: bytes, feeds: dict, threads: int, timeout: float | None = None) -> RuntimeRun:
    """One runtime's run in a child process (converter/process/isolation.py): a runtime that crashes (a segfault, an
    abort) or runs past ``timeout`` seconds (then it is killed) is that runtime's failure, said in one line, and
    the others still run."""
    shared = SharedArrays.make()  # its outputs: written there by the child, mapped here (not pickled back)
    reply = isolation.run(isolation.Call(run_one, (config, data, feeds, threads, shared)), timeout=timeout)
    if reply.ok:
        return received(reply.value, shared)
    received(None, shared)
    return failed(config, reply)


def _golden(file, model, outputs: list[Tensor], budget: int, marked: dict | None) -> tuple[dict, dict]:
    """The golden outputs of ``--load-outputs``: every output of the model, and any tensor --mark-all marks
    (``marked``: _mark_plan's), each of the output's declared element type (a name the model does not output, a
    missing output: UserError). Returns the model's outputs, read, and the marked tensors' members, read when
    their chunk is compared (_read_golden)."""
    if Path(file).is_dir():  # a test_data_set_N folder: output_K.pb, K in the model's output order
        members = read_test_data_set("--load-outputs", file, "output", [o.name for o in outputs], budget)
    else:
        members = load_arrays("--load-outputs", file, budget)
    declared = {o.name: Tensor(o.name, o.type.tensor_type.elem_type, None) for o in model.graph.output}
    declared.update({name: Tensor(name, elem, None) for name, (elem, _) in (marked or {}).items()})
    for name in members:
        if name not in declared:
            hint = "" if marked is not None else "; with --mark-all, every tensor a node computes is one"
            raise UserError(f"--load-outputs {file}: array {name!r} is no output of the model (its outputs: "
                            f"{', '.join(repr(o.name) for o in outputs)}{hint})")
    for output in outputs:
        if output.name not in members:
            raise UserError(f"--load-outputs {file}: no array for output {output.name!r} ({output.describe()})")
    golden, later = {}, {}
    names = {o.name for o in outputs}
    for name, member in members.items():
        tensor = declared[name]
        dtype = member.dtype
        want = tensor.dtype.numpy if tensor.dtype else None
        ok = dtype.kind in "US" if tensor.elem_type == STRING else want is None or of_type(dtype, want)
        if not ok:
            raise UserError(f"--load-outputs {file}: array {name!r} is {dtype}; output {name!r} is {tensor.type_name()}")
        if name in names:
            golden[name] = _read_golden(member, want)
        else:
            later[name] = (member, want)
    return golden, later


def _read_golden(member, want) -> np.ndarray:
    """A golden array, read, of the element type ``want`` (None: as stored)."""
    return as_type(member.read(), want)


def _compare_pair(actual: str, against: str, got: dict, want: dict, names: list, options: RunOptions,
                  own=(([], [], []), ([], [], [])), pinned=frozenset(), **fields) -> tuple[CaseResult, list]:
    """``actual``'s outputs against ``against``'s, every output of the model, and the outputs that differ (where
    --mark-all looks for the first node that differs: _MarkWalk). ``own``: each side's problems of its own
    (_nonfinite_problems), which fail the comparison too; where every output compared is empty on both sides,
    nothing was compared: that fails it as well, unless the golden data (``pinned``: the outputs it holds) fixes
    those shapes, an independent expectation (as validate's reference is): then the shapes were the check."""
    problems, stats = [*own[0][0], *own[1][0]], [*own[0][1], *own[1][1]]
    pictures = []  # --html: each failing output's error_map summary, made here where the arrays are
    for name in names:
        if name not in want:
            continue
        if name not in got:
            problems.append(f"output {name!r}: {actual} produced no such output")
            continue
        stat = error_stat_for(options.error_stats, name)
        mismatch, tol, errors = _differs(got[name], want[name], options.tolerance, name, stat)
        entry = {"output": name, "actual": actual, "against": against,
                 "tolerance": {"atol": tol.atol, "rtol": tol.rtol, "ulp": tol.ulp}, "error_stat": stat,
                 "passed": mismatch is None}
        if errors is not None:  # every element's error; a failure's own keys below keep today's meaning (mismatches)
            entry.update(_error_keys(errors), error=errors.to_dict())
        if mismatch:
            problems.append(f"output {name!r}: {actual} vs {against} ({tol.describe()}): {mismatch.describe()}")
            entry.update(mismatch.to_dict())
            picture = summarize(got[name], want[name], mismatch.worst_index) if options.pictures else None
            if picture is not None:
                pictures.append({"output": name, "actual": actual, "against": against, **picture})
        stats.append(entry)  # passing ones too: their error statistics (docs/report-schema.md)
    if not problems and not pinned.intersection(names):
        problems += _nothing_compared(got, want, names)
    differing = [c["output"] for c in stats if "nonfinite" not in c and not c.get("passed")] + \
        [n for n in names if n in want and n not in got]
    return CaseResult(case=f"{actual} vs {against}", outcome=FAIL if problems else PASS, problems=problems,
                      comparisons=stats, pictures=pictures, **fields), differing


def _error_keys(errors) -> dict:
    """The keys a failing comparison has had (max_abs, ...), plus median_abs: from every element's error."""
    d = errors.to_dict()
    return {k: d[k] for k in ("max_abs", "mean_abs", "median_abs", "max_rel", "max_ulp", "min_atol", "min_rtol")}


def _differs(got: np.ndarray, want: np.ndarray, cli: Tolerance | None, name: str = "", stat: str = "elemwise",
             statistics: bool = True):
    """(Mismatch or None, tolerance, compare.ErrorStats or None) of the tensor ``name``: validate's comparison at
    the per-dtype default tolerance, --atol/--rtol (the output's own, else the bare one) for float tensors, the
    error statistic ``stat``; strings and types without a default compared exactly."""
    dtype = dtype_of_array(want)
    if dtype is not None and got.dtype == want.dtype or got.shape != want.shape:
        own = cli.for_output(name) if cli is not None else None
        tol = resolve_tolerance(dtype, own if dtype.is_float else None) if dtype is not None else Tolerance(0.0, 0.0)
        mismatch, errors = compare_stats(got, want, tol, stat, statistics)
        return mismatch, tol, errors
    exact = Tolerance(0.0, 0.0)
    if got.dtype.kind in "USO" and want.dtype.kind in "USO":
        same = np.asarray(got, dtype=str) == np.asarray(want, dtype=str)
    elif got.dtype == want.dtype:
        same = np.asarray((got == want) | ((got != got) & (want != want)))
    else:
        return Mismatch(want.size, want.size, shape_problem=f"dtype {got.dtype} != expected {want.dtype}"), exact, None
    if same.all():
        return None, exact, None
    bad = np.argwhere(~same)
    first = tuple(int(i) for i in bad[0])
    return Mismatch(len(bad), want.size, shape_problem=(
        f"{len(bad)}/{want.size} elements differ; first at {list(first)}: got {got[first].item()!r}, "
        f"want {want[first].item()!r}")), exact, None


def _ancestors(producers, outputs) -> tuple[list, set]:
    """The (index, node) of ``producers`` (topological order) that the tensors ``outputs`` depend on, and the names
    of those tensors (``outputs`` and what they are computed from)."""
    made = {name: k for k, (_, node) in enumerate(producers) for name in node.output if name}
    needed, keep = set(outputs), set()
    for k in range(len(producers) - 1, -1, -1):
        node = producers[k][1]
        if any(name in needed for name in node.output):
            keep.add(k)
            needed |= {name for name in node.uses if name in made}
    return [producers[k] for k in sorted(keep)], needed


@dataclass
class _Search:
    """A comparison whose outputs differ: --mark-all looks for the first node (topological order) with an output
    that differs among ``needed``, the tensors the differing outputs depend on (a difference that reaches no
    output, such as an unused mask, is not the cause)."""

    result: CaseResult
    actual: str
    against: str
    needed: set
    compared: int = 0
    done: bool = False


class _MarkWalk:
    """--mark-all's tensors, in chunks in topological order (module docstring): ``run(add)`` walks them, comparing
    each chunk for every comparison still looking for its first differing node (the runtimes it needs run the
    chunk's model; golden tensors are read from their file), and, with ``add`` (save_arrays_from's), writing the
    first runtime's tensors; it stops where nothing is left to look for or to write. ``made``: the chunks run,
    ``total``: the chunks the tensors walked were cut into."""

    def __init__(self, model, plan: dict, producers: list, names: list, sides: list, golden: dict, searches: list,
                 options: RunOptions, feeds: dict, notes: list, progress):
        self.model, self.plan, self.producers, self.names, self.golden = model, plan, producers, names, golden
        self.sides, self.searches, self.options, self.feeds, self.notes = sides, searches, options, feeds, notes
        self.progress, self.made, self.total = progress, 0, 0
        self.budget = chunk_budget(options.mark_chunk, [r for _, _, r in sides if r is not None])

    def run(self, add=None) -> None:
        plain = {label: arrays for label, arrays, _ in self.sides}
        runs = {label: r for label, _, r in self.sides if r is not None}  # (in the order they ran)
        saver = next(iter(runs)) if add is not None else None  # the first runtime's tensors are the ones saved
        if saver is not None:
            for name, array in plain[saver].items():  # the model's outputs, from the plain run
                add(name, array)
        wanted = set(self.plan) if add is not None else set().union(*(s.needed for s in self.searches))
        chunks = _chunked(self._items(wanted), self.budget, MARK_CHUNK_TENSORS)
        self.total = len(chunks) if self.searches or add is not None else 0
        failed: dict[str, str] = {}  # label -> why it could not run a chunk
        for k, chunk in enumerate(chunks, 1):
            active = [s for s in self.searches if not s.done]
            if not active and saver is None:
                break
            marked = [name for _, _, _, name, cost in chunk if cost is not None]
            labels = {label for s in active for label in (s.actual, s.against)}
            runners = [label for label in runs if (label in labels or label == saver) and label not in failed]
            values: dict[str, dict] = {}
            if marked and runners:
                values = self._run_chunk(k, len(chunks), chunk, marked, runners, runs, failed)
            if GOLDEN in labels:
                values[GOLDEN] = {n: _read_golden(*self.golden[n]) for n in marked if n in self.golden}
            for search in active:
                self._compare(search, chunk, plain, values, failed, k, len(chunks))
            if saver is not None:
                if saver in values:
                    for name in marked:
                        if name in values[saver]:
                            add(name, values[saver].pop(name))  # (written, then dropped)
                elif saver in failed:
                    self.notes.append(f"--save-outputs: {saver} could not run --mark-all's {failed[saver]}; the "
                                      "file holds the tensors before that chunk")
                    saver = None
            del values
        for search in self.searches:
            if not search.done:
                search.result.problems.append(f"--mark-all: no tensor the differing outputs depend on differs "
                                              f"({search.compared} compared)")

    def _items(self, wanted: set) -> list:
        """(position in topological order, node index, node record, tensor, bytes) of the tensors walked: the
        marked ones in ``wanted``, and the model's outputs (bytes None: the plain run gave them)."""
        outputs, items = set(self.names), []
        known = [b for _, b in self.plan.values() if b is not None]
        unknown = max(known, default=0)  # a size inference does not give counts as the largest it gives
        for position, (index, node) in enumerate(self.producers):
            for name in node.output:
                if name in outputs:
                    items.append((position, index, node, name, None))
                elif name in wanted and name in self.plan:
                    size = self.plan[name][1]
                    items.append((position, index, node, name, unknown if size is None else size))
        return items

    def _run_chunk(self, k: int, count: int, chunk: list, marked: list, runners: list, runs: dict,
                   failed: dict) -> dict:
        """Each of ``runners``' outputs of the chunk's model (a runtime that cannot run it: in ``failed``)."""
        size = sum(cost for *_, cost in chunk if cost is not None)
        first, last = chunk[0][0], chunk[-1][0]
        self.progress(f"--mark-all: chunk {k}/{count}: {len(marked):,} tensor{'s' * (len(marked) != 1)}, "
                      f"{show(size)} (nodes {first + 1:,}-{last + 1:,} of {len(self.producers):,} in topological "
                      f"order) on {', '.join(runners)}")
        data = _chunk_model(self.model, self.producers, marked, self.plan)
        values = {}
        for label in runners:
            done = _run_isolated(runs[label].config, data, self.feeds, self.options.threads, self.options.timeout)
            if done.error:
                failed[label] = f"chunk {k} of {count} ({done.error})"
            else:
                values[label] = done.outputs
        self.made += 1
        return values

    def _compare(self, search: _Search, chunk: list, plain: dict, values: dict, failed: dict, k: int,
                 count: int) -> None:
        lost = [(label, failed[label]) for label in (search.actual, search.against) if label in failed]
        if lost:
            search.done = True
            search.result.problems.append(f"--mark-all: {lost[0][0]} could not run {lost[0][1]}: no first "
                                          "differing node named")
            return
        sides = [(values.get(label, {}), plain[label]) for label in (search.actual, search.against)]
        for _, index, node, name, _ in chunk:
            if name not in search.needed:
                continue
            got, want = (chunked[name] if name in chunked else whole.get(name) for chunked, whole in sides)
            if got is None or want is None:
                continue
            search.compared += 1
            mismatch, tol, _ = _differs(got, want, self.options.tolerance, name,
                                        error_stat_for(self.options.error_stats, name), statistics=False)
            if mismatch:
                search.done = True
                _first_difference(search, index, node, name, mismatch, tol, k, count)
                return


def _first_difference(search: _Search, index: int, node, name: str, mismatch, tol, k: int, count: int) -> None:
    """The line naming the first node whose output differs, and its entry in the comparisons."""
    actual, against = search.actual, search.against
    label = f"#{index} {node.name!r} ({node.op_type})" if node.name else f"#{index} ({node.op_type})"
    search.result.comparisons.append({"output": name, "actual": actual, "against": against, "node": node.name,
                                      "op": node.op_type, "node_index": index, "first_difference": True,
                                      "tolerance": {"atol": tol.atol, "rtol": tol.rtol, "ulp": tol.ulp},
                                      **mismatch.to_dict()})
    what = mismatch.shape_problem or (f"{mismatch.count}/{mismatch.total} elements differ, worst at "
                                      f"{list(mismatch.worst_index)}: got {mismatch.actual_value!r}, want "
                                      f"{mismatch.expected_value!r}")
    before = search.compared - 1
    search.result.problems.append(
        f"first differing node: {label}, output {name!r} ({actual} vs {against}, {tol.describe()}): {what}; that is "
        f"the node to look at (the {before} tensor{'s' * (before != 1)} before it that the differing outputs depend "
        f"on agree; chunk {k} of {count})")


def chunk_budget(given: int | None, runs: list) -> int:
    """The bytes of marked tensors per chunk: ``given`` (--mark-chunk), else a MARK_CHUNK_SHARE-th of the plain
    run's peak memory, the largest of ``runs``' (RuntimeRun.peak), at least MARK_CHUNK_FLOOR."""
    if given is not None:
        return given
    peak = max((r.peak for r in runs), default=0)
    return max(MARK_CHUNK_FLOOR, peak // MARK_CHUNK_SHARE) if peak else MARK_CHUNK_BYTES


def _chunked(items: list, budget: int, most: int) -> list[list]:
    """``items`` (_MarkWalk._items) cut, in order, into chunks of at most ``budget`` bytes and ``most`` tensors of
    those with a size (a bigger one alone in its chunk); the model's outputs (size None) go with their neighbours."""
    chunks, current, size, count = [], [], 0, 0
    for item in items:
        cost = item[-1]
        if cost is not None:
            if count and (size + cost > budget or count >= most):
                chunks.append(current)
                current, size, count = [], 0, 0
            size, count = size + cost, count + 1
        current.append(item)
    if current:
        chunks.append(current)
    return chunks


def _chunk_model(model: onnx.ModelProto, producers: list, names: list, plan: dict) -> bytes:
    """The serialized model of the nodes the tensors ``names`` depend on (file order), the initializers they read,
    every input of the model (the feeds are the same), and ``names`` as its outputs, typed as _mark_plan types
    them; the rest of the model (opsets, functions, metadata) as it is."""
    kept, _ = _ancestors(producers, names)
    graph = model.graph
    used = set().union(*(node.uses for _, node in kept))
    inputs = {v.name for v in graph.input}  # (IR < 4 lists initializers among the inputs: those stay, or be fed)
    shell = onnx.ModelProto()
    for field_, value in model.ListFields():
        if field_.name == "graph":
            continue
        if getattr(field_, "is_repeated", None) or getattr(field_, "label", None) == 3:  # (LABEL_REPEATED)
            getattr(shell, field_.name).extend(value)
        elif field_.type == field_.TYPE_MESSAGE:
            getattr(shell, field_.name).CopyFrom(value)
        else:
            setattr(shell, field_.name, value)
    sub = shell.graph
    sub.name = graph.name
    sub.input.extend(graph.input)
    sub.initializer.extend(t for t in graph.initializer if t.name in used or t.name in inputs)
    sub.sparse_initializer.extend(t for t in graph.sparse_initializer if t.values.name in used or t.values.name in inputs)
    sub.node.extend(graph.node[i] for i in sorted(i for i, _ in kept))
    for name in names:
        value = sub.output.add()
        value.name = name
        if plan[name][0]:
            value.type.tensor_type.elem_type = plan[name][0]
    return shell.SerializeToString()


def topological_order(graph, uses: list | None = None) -> list[int]:
    """The main graph's node indices in topological order, the file's order among nodes ready together (the order
    itself where the file is sorted, as onnx's checker requires). Names no node or input defines (outer scope,
    a broken model) count as given; nodes on a cycle come last, in file order."""
    produced = {}
    for i, node in enumerate(graph.node):
        for name in node.output:
            if name:
                produced.setdefault(name, i)
    waiting, users = [0] * len(graph.node), [[] for _ in graph.node]
    for i, node in enumerate(graph.node):
        used = uses[i] if uses is not None else _used_names(node)
        needs = {produced[n] for n in used if n in produced and produced[n] != i}
        waiting[i] = len(needs)
        for j in needs:
            users[j].append(i)
    ready = [i for i, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for user in users[i]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, user)
    if len(order) < len(graph.node):
        seen = set(order)
        order += [i for i in range(len(graph.node)) if i not in seen]
    return order


def _used_names(node) -> set:
    """The names a node reads: its inputs, and what its subgraphs read from the outer scope."""
    names = {n for n in node.input if n}
    for attr in node.attribute:
        if attr.type not in _GRAPH_TYPES:  # (an int compare: most nodes have no subgraph)
            continue
        for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
            inner = {i.name for i in sub.input} | {t.name for t in sub.initializer}
            for n in sub.node:
                inner |= set(n.output)
            for n in sub.node:
                names |= {x for x in _used_names(n) if x not in inner}
    return names


_GRAPH_TYPES = (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS, onnx.AttributeProto.UNDEFINED)


def mark_all(model: onnx.ModelProto) -> int:
    """Make every tensor a main-graph node computes an output of ``model`` (in place), as _mark_plan chooses and
    types them. Returns how many were added. (run --mark-all no longer marks them all at once: _MarkWalk.)"""
    plan = _mark_plan(model, {})
    for name, (elem_type, _) in plan.items():
        value = model.graph.output.add()
        value.name = name
        if elem_type:
            value.type.tensor_type.elem_type = elem_type
    return len(plan)


def _mark_plan(model: onnx.ModelProto, feeds: dict) -> dict[str, tuple[int, int | None]]:
    """The tensors --mark-all compares: every tensor a main-graph node computes that is no input or output of the
    model, in file order, as name -> (element type, bytes), both from onnx's shape inference with the inputs at
    the shapes of ``feeds`` (0 and None where it gives none); sequences, maps and optionals are left out (they are
    not compared)."""
    try:
        inferred = infer(_at_shapes(model, feeds), limit=True)  # a user's whole model: under the time limit
        types = {v.name: v.type for v in inferred.graph.value_info}
        del inferred
    except Exception:  # noqa: BLE001 - a model onnx cannot infer: its tensors are marked untyped (runtimes infer them)
        types = {}
    graph = model.graph
    existing = {o.name for o in graph.output} | {i.name for i in graph.input}
    plan = {}
    for node in graph.node:
        for name in node.output:
            if not name or name in existing:
                continue
            existing.add(name)
            known = types.get(name)
            if known is not None and known.WhichOneof("value") != "tensor_type":
                continue
            plan[name] = (known.tensor_type.elem_type, _bytes(known.tensor_type)) if known is not None else (0, None)
    return plan


def _at_shapes(model: onnx.ModelProto, feeds: dict) -> onnx.ModelProto:
    """``model``, or a copy whose inputs declare the shapes of ``feeds`` where the model leaves a dimension open
    (so that inference gives the tensors' sizes)."""
    def open_(value) -> bool:
        shape = value.type.tensor_type.shape
        return value.name in feeds and value.type.HasField("tensor_type") and (
            not value.type.tensor_type.HasField("shape") or any(not d.HasField("dim_value") for d in shape.dim)
            or len(shape.dim) != np.ndim(feeds[value.name]))

    if not any(open_(v) for v in model.graph.input):
        return model
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for value in copy.graph.input:
        if open_(value):
            shape = value.type.tensor_type.shape
            del shape.dim[:]
            for size in np.shape(feeds[value.name]):
                shape.dim.add().dim_value = int(size)
    return copy


def _bytes(tensor_type) -> int | None:
    """The bytes of a tensor of this inferred type; None where its shape or element size is not known."""
    if not tensor_type.HasField("shape") or any(not d.HasField("dim_value") for d in tensor_type.shape.dim):
        return None
    try:
        itemsize = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)).itemsize
    except (KeyError, TypeError, ValueError):
        return None
    if tensor_type.elem_type == onnx.TensorProto.STRING:
        return None
    return math.prod(d.dim_value for d in tensor_type.shape.dim) * itemsize


# The verdict's own checks (issue 31): a PASS means values were compared, and they were finite.
#
# An output holding NaN or an infinity fails by default, as Polygraphy's ``--validate`` checks (NVIDIA/TensorRT,
# tools/Polygraphy/polygraphy/comparator/comparator.py: Comparator.validate, check_nan and check_inf), but on by
# default: NaN equals NaN in the comparison, so two runtimes that both give NaN would agree. --allow-nonfinite
# compares them as values instead (compare.py: NaN matches NaN, an infinity only the same infinity). An output with
# 0 elements agrees with any other empty output: where every output compared is empty, nothing was compared, and
# that is no pass.


def _nonfinite_outputs(arrays: dict, names: list) -> dict[str, NonFinite]:
    """The model's outputs (``names``, not --mark-all's tensors: a -inf mask before a Softmax is normal there) that
    hold a NaN or an infinity, with their counts."""
    found = {}
    for name in names:
        if name in arrays:
            counted = nonfinite(arrays[name])
            if counted is not None:
                found[name] = counted
    return found


def _nonfinite_problems(label: str, found: dict[str, NonFinite], allowed: bool) -> tuple[list, list, list]:
    """(problems, comparison stats, notes) of one side's non-finite outputs: problems and stats by default, notes
    with --allow-nonfinite."""
    if allowed:
        return [], [], [f"output {name!r}: {label} gives {counted.describe()}; compared as values (--allow-nonfinite: "
                        "NaN matches NaN, an infinity the same infinity)" for name, counted in found.items()]
    problems = [f"output {name!r}: {label} gives {counted.describe()}: a NaN or an infinity fails the run "
                "(--allow-nonfinite compares them as values instead)" for name, counted in found.items()]
    stats = [{"output": name, "actual": label, **counted.to_dict()} for name, counted in found.items()]
    return problems, stats, []


def _nothing_compared(got: dict, want: dict, names: list) -> list[str]:
    """The problem of a comparison (or a lone runtime's run) where every output is empty on both sides."""
    compared = [n for n in names if n in got and n in want]
    if not compared or any(got[n].size or want[n].size for n in compared):
        return []
    shown = ", ".join(f"{n!r} {list(got[n].shape)}" for n in compared)
    return [f"nothing compared: every output is empty ({shown}); 0 elements agree with anything, so this is no pass"]


def _empty_notes(sides: list, names: list, shaping: dict, feeds: dict) -> list[str]:
    """One note per model output that is empty on some side: its shape, and the shape inputs that hold a 0 (what
    makes an Expand, a Tile or a ConstantOfShape output empty)."""
    notes = []
    for name in names:
        empty: dict = {}  # shape -> the sides that give it
        for label, arrays, _ in sides:
            if name in arrays and arrays[name].size == 0:
                empty.setdefault(tuple(arrays[name].shape), []).append(label)
        if not empty:
            continue
        where = "; ".join(f"{list(shape)} ({', '.join(labels)})" for shape, labels in empty.items())
        zeros = [f"input {n!r} ({_node_text(*shaping[n])}) holds {_values(feeds[n])}" for n in shaping
                 if n in feeds and feeds[n].size and not np.all(feeds[n])]
        notes.append(f"output {name!r} is empty (0 elements, nothing to compare): shape {where}"
                     + (f"; {', '.join(zeros)}" if zeros else ""))
    return notes


# Inputs that give a node a shape (or repeat counts, or sizes), by op type: the input index. A 0 there makes an empty
# output (ONNX Expand, Tile, ConstantOfShape, Resize's sizes), so run generates values >= 1 for these: the range in
# force, raised to 1. Reshape's shape must fit the data's element count instead, which no range ensures: run gives it
# [-1, 1, ..., 1] (-1 takes every element; onnx's simple/test_expand_shape_model1 feeds Expand the shape [3, 1]).
SHAPE_INPUTS = {"Expand": 1, "Tile": 1, "ConstantOfShape": 0, "Resize": 3, "Reshape": 1}


def shape_inputs(graph, inputs: list[Tensor]) -> dict[str, tuple[str, int, str]]:
    """The integer inputs of the model that a node of SHAPE_INPUTS takes directly as its shape input: name ->
    (op type, node index, node name) of the first such node."""
    integer = {t.name for t in inputs if t.dtype is not None and not t.dtype.is_float and t.dtype.numpy != np.bool_}
    found = {}
    for index, node in enumerate(graph.node):
        position = SHAPE_INPUTS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if position is not None and len(node.input) > position and node.input[position] in integer:
            found.setdefault(node.input[position], (node.op_type, index, node.name))
    return found


def _shape_ranges(shaping: dict, ranges: dict) -> dict:
    """--val-range with each shape input's range raised to >= 1 (its own NAME:LOW,HIGH is taken as given)."""
    ranges = dict(ranges)
    for name, (op, _, _) in shaping.items():
        if name in ranges or op == "Reshape":
            continue
        low, high = ranges.get(None, (0, 1))
        ranges[name] = (max(low, 1), max(high, 1))
    return ranges


def _shape_feeds(shaping: dict, feeds: dict, shapes: dict, ranges: dict, given: dict) -> list[str]:
    """Reshape's shape inputs set to [-1, 1, ..., 1] (where the user gave no range of their own), and one note per
    shape input: the values generated, and why."""
    notes = []
    for name, (op, index, node) in shaping.items():
        what = f"input {name!r} ({_node_text(op, index, node)})"
        if name in given:
            low, high = given[name]
            notes.append(f"{what}: generated {_values(feeds[name])} (--val-range {name}:{low:g},{high:g})")
        elif op == "Reshape" and len(shapes[name]) == 1 and shapes[name][0] >= 1:
            feeds[name] = np.array([-1] + [1] * (shapes[name][0] - 1), dtype=feeds[name].dtype)
            notes.append(f"{what}: generated {_values(feeds[name])}: -1 takes every element of the data, any other "
                         "values would have to match its size")
        elif op != "Reshape":
            low, high = ranges[name]
            notes.append(f"{what}: generated {_values(feeds[name])}, integers in [{low:g}, {high:g}]: a shape input "
                         f"takes values >= 1 (a 0 makes {op}'s output empty; --val-range {name}:LOW,HIGH to choose)")
    return notes


def _node_text(op: str, index: int, node: str) -> str:
    return f"the {'repeats' if op == 'Tile' else 'sizes' if op == 'Resize' else 'shape'} of {op} node #{index}" + (
        f" {node!r}" if node else "")


def _values(array: np.ndarray) -> str:
    """A small integer array's values as a list (the first 8 of a larger one)."""
    flat = np.asarray(array).reshape(-1)
    shown = ", ".join(str(int(v)) for v in flat[:8])
    return f"[{shown}{', ...' if flat.size > 8 else ''}]" if np.ndim(array) else shown
