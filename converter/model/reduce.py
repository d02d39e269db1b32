"""``spec2onnx reduce MODEL``: the smallest subgraph of a model whose outputs still differ between runtimes.

As ``polygraphy debug reduce --mode bisect`` then ``--mode linear`` (NVIDIA/TensorRT,
tools/Polygraphy/polygraphy/tools/debug/subtool/reduce.py), with ``run MODEL``'s own comparison as the check
(converter/model/run.py: no script to write):

- one ``--mark-all`` run of the whole model gives the verdict to keep (a comparison that FAILs; where none does, a
  runtime that cannot run it: ERROR) and every tensor's value on the first runtime;
- a candidate is a set of the model's nodes (topological order), cut out of the model as read (as
  ``onnx.utils.Extractor``, but on the model in memory): every tensor its nodes read that none of them computes
  becomes a graph input (fed with the model's own input, or the first runtime's value of that tensor), the
  initializers its nodes read are kept, and its outputs are the model's outputs it computes plus every tensor
  it computes that none of its nodes reads;
- a candidate is checked by ``run_model`` on it (each runtime in its child process, the same runtimes, tolerances
  and error statistics), the candidate's inputs loaded from a .npz: it still fails when the same kind of verdict
  comes back, and where the whole model's values differ, when the candidate's do (a NaN that both runtimes give
  fails a run too, but is no difference between them);
- bisection first: the shortest prefix (in topological order) that fails, then the shortest suffix of that
  prefix; then node by node (linear): each node whose removal keeps the failure is removed, until none is.

With golden outputs (``--load-outputs G``, a .npz or a test_data_set_N folder, as ``run`` reads them), the
check is the first runtime against G (Polygraphy's ``debug reduce --check polygraphy run ... --load-outputs
layerwise_golden.json``), and G decides where a candidate may be cut: every tensor it reads and does not compute
is a model input, an initializer or a tensor G holds, fed with G's value (the right value, so a candidate fails
through its own nodes only: fed with the first runtime's value, a node after the one that differs would keep the
difference it is given and be blamed); its outputs are those above that G holds, compared with G's values. With
G holding the model's outputs alone nothing can be cut (every candidate reads a tensor G lacks, or gives none G
holds): G of every tensor (``run --mark-all --save-outputs G`` on a runtime trusted) lets it cut anywhere.

Ctrl-C keeps the smallest failing candidate found so far (``Reduction.interrupted``).
"""

from __future__ import annotations

import dataclasses
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import onnx

from ..brief import counted
from ..budget import default_budget
from ..errors import EXIT_FAILED, EXIT_OK, UserError, printable
from ..process.interrupts import exit_status
from ..files import as_argument, save_arrays, write_output
from ..process.isolated import command_status
from ..report import write_html
from .inputs import dtype_of_array, load_arrays, model_outputs, read_all
from ..untrusted.reading import read_model_with_data
from .run import (DEFAULT_RUNTIMES, ERROR, FAIL, RunOptions, make_run_options, check_written, run_model,
                  topological_order, _golden, _read_golden, _used_names)


@dataclass
class Reduction:
    """What ``reduce_model`` did: the verdict it kept, the nodes before and after, and the files it wrote."""

    path: str
    verdict: str  # FAIL or ERROR (the kind of failure kept); "" where nothing fails (nothing written)
    nodes: int  # of the model
    kept: list = field(default_factory=list)  # (index in the model, name, op type) of the reduced model's nodes
    problems: list = field(default_factory=list)  # the reduced model's failing results' lines
    checks: int = 0  # candidates run
    seconds: float = 0.0
    interrupted: int = 0  # Ctrl-C (130) or SIGTERM (143): the exit status; the smallest failing model is kept
    output: str | None = None
    inputs_file: str | None = None
    outputs_file: str | None = None  # with --load-outputs: the reduced model's golden outputs (SMALL.outputs.npz)
    golden: int = 0  # with --load-outputs: how many of the model's tensors the golden data hold
    check: str | None = None  # --check CMD, where it decided
    load_outputs: str | None = None  # --load-outputs, where the first runtime was checked against golden data
    compared: list = field(default_factory=list)  # the labels of the runtimes compared
    reproduce: str = ""  # the command that shows the reduced model's failure
    graph: list = field(default_factory=list)  # the reduced model's nodes: {index, name, op, inputs, outputs, state}
    results: list = field(default_factory=list)  # the reduced model's run (CaseResults; with --html, their pictures)
    uncut: str = ""  # why nothing could be cut, where that is known before any check (the first runtime ran nothing)

    @property
    def status(self) -> int:
        """0: nothing differs (nothing written); 1: reduced; 130 or 143: interrupted, the smallest kept."""
        return (self.interrupted or EXIT_FAILED) if self.verdict else EXIT_OK

    def summary(self) -> str:
        """One line: the reduced model, its size, its verdict, its checks and time (the --html page's)."""
        return (f"{self.output}: {len(self.kept)} of {self.nodes:,} nodes, still {self.verdict} after {self.checks} "
                f"checks in {self.seconds:.1f} s; its inputs: {self.inputs_file}")

    def lines(self) -> list[str]:
        """What ``reduce`` prints: nothing to reduce; or the reduced model, its problems and the reproduce command."""
        if not self.verdict:
            return [f"{self.path}: --check passes on it: nothing to reduce (nothing written)" if self.check is not None
                    else f"{self.path}: {self.compared[0]} agrees with --load-outputs {self.load_outputs}: nothing to "
                         "reduce (nothing written)" if self.load_outputs
                    else f"{self.path}: nothing differs between {', '.join(self.compared)}: nothing to reduce "
                         "(nothing written)"]
        kept = ", ".join(f"#{i} {name!r} ({op})" if name else f"#{i} ({op})" for i, name, op in self.kept)
        still = "failing --check" if self.check is not None else self.verdict
        return ([f"{self.output}: {len(self.kept)} of {self.nodes:,} nodes ({kept}), still {still} after "
                 f"{self.checks} checks in {self.seconds:.1f} s; its inputs: {self.inputs_file}"]
                + [f"      {printable(line)}" for line in self.problems[:8]]
                + ([f"note: {self.uncut}"] if self.uncut else []) + [f"reproduce: {self.reproduce}"])


def reduce_command(path, output, *, runtimes=(), provider: str = "cpu", opt_levels=(), atol=(), rtol=(),
                   check_error_stat=(), seed: int = 1, shapes=(), val_ranges=(), load_inputs=None, load_outputs=None,
                   allow_nonfinite: bool = False, max_memory: int | None = None, check: str | None = None,
                   html_path=None, argv=(), progress: Callable[[str], None] = lambda line: None) -> Reduction:
    """``spec2onnx reduce MODEL``: the options as run's (make_run_options), ``reduce_model``, and the command that
    reproduces the reduced model's failure (``run`` with the same comparison on its inputs, or CMD itself).
    ``html_path``: checked before any work, and where a model was reduced, a page of it drawn with its comparison
    pictured (html_report.reduce_page)."""
    options = make_run_options(runtimes=runtimes or DEFAULT_RUNTIMES, provider=provider, opt_levels=opt_levels or ("all",),
                               atol=atol, rtol=rtol, seed=seed, shapes=shapes, val_ranges=val_ranges,
                               load_inputs=load_inputs, load_outputs=load_outputs, max_memory=max_memory,
                               allow_nonfinite=allow_nonfinite, check_error_stat=check_error_stat,
                               pictures=html_path is not None)
    if html_path is not None:  # --html is no file the run reads, nor one of -o's
        written = {"-o": output, "-o (its inputs file)": inputs_path(output), "--html": html_path}
        if load_outputs:
            written["-o (its golden outputs file)"] = outputs_path(output)
        check_written(written, options, path)
    done = reduce_model(path, output, options, progress=progress, check=check)
    done.check, done.load_outputs, done.compared = check, load_outputs, [c.label for c in options.configs]
    if not done.verdict:
        return done
    if load_outputs:  # the first runtime alone was checked, against the golden data
        runtimes = (runtimes or DEFAULT_RUNTIMES)[:1]
    model, inputs = as_argument(done.output), as_argument(done.inputs_file)  # (a name starting with '-' as ./-name)
    words = ["spec2onnx", "run", model, *(a for r in runtimes for a in ("--runtime", r)),
             *(("--provider", provider) if provider != "cpu" else ()),
             *(a for o in opt_levels for a in ("--ort-opt-level", o)), *(a for v in atol for a in ("--atol", str(v))),
             *(a for v in rtol for a in ("--rtol", str(v))),
             *(a for v in check_error_stat for a in ("--check-error-stat", str(v))),
             *(("--allow-nonfinite",) if allow_nonfinite else ()), "--load-inputs", inputs,
             *(("--load-outputs", as_argument(done.outputs_file)) if done.outputs_file else ())]
    if check is not None:  # what decided: the command itself, on the reduced model
        words = [w.replace("{model}", model).replace("{inputs}", inputs) for w in shlex.split(check)]
    done.reproduce = shlex.join(words)
    if html_path is not None:
        write_html(html_path, "reduce_page", path=str(path), argv=argv, summary=done.summary(), results=done.results,
                   reproduce=done.reproduce, graph=done.graph)
    return done


def inputs_path(output) -> str:
    """SMALL.inputs.npz beside SMALL.onnx (the name less its .onnx suffix, if any)."""
    output = str(output)
    return (output[:-5] if output.endswith(".onnx") else output) + ".inputs.npz"


def outputs_path(output) -> str:
    """SMALL.outputs.npz beside SMALL.onnx: its golden outputs, written with --load-outputs."""
    return inputs_path(output)[:-len(".inputs.npz")] + ".outputs.npz"


def check_reduce_files(model_path, output, options: RunOptions, data_files=()) -> None:
    """Before any work: -o and the files beside it can be written and are no file the run reads."""
    if output is None or not str(output):
        raise UserError("-o: give the file for the reduced model (-o SMALL.onnx)")
    written = {"-o": str(output), "-o (its inputs file)": inputs_path(output)}
    if options.load_outputs:
        written["-o (its golden outputs file)"] = outputs_path(output)
    check_written(written, options, model_path, data_files)


def _verdict(run) -> str:
    outcomes = {r.outcome for r in run.results}
    return FAIL if FAIL in outcomes else ERROR if ERROR in outcomes else ""


def _values_differ(run) -> bool:
    """Whether a comparison of ``run`` failed on its values, not only on a NaN or an infinity that run fails by
    default (unless --allow-nonfinite) whether or not the other side gives the same."""
    return any(c.get("passed") is False for r in run.results if r.outcome == FAIL for c in r.comparisons)


class _Model:
    """The model as read, and what cutting a candidate out of it needs."""

    def __init__(self, model: onnx.ModelProto, feeds: dict, values: dict, targets: set, golden: dict | None = None):
        self.model = model
        graph = model.graph
        self.uses = [_used_names(node) for node in graph.node]
        # the nodes the differing outputs ``targets`` depend on, in topological order (a difference that reaches no
        # such output, as an unused mask's, is not the failure kept), and the tensors they compute that matter
        self.order, self.needed = [], set(targets)
        for i in reversed(topological_order(graph, self.uses)):
            if any(name in self.needed for name in graph.node[i].output):
                self.order.append(i)
                self.needed |= self.uses[i]
        self.order.reverse()
        self.initializers = {t.name: t for t in graph.initializer}
        self.inputs = {v.name: v for v in graph.input}
        self.outputs = {v.name: v for v in graph.output}
        self.feeds = feeds  # the model's own inputs
        # every tensor the first runtime computed (--mark-all); with --load-outputs, the golden data instead: a
        # candidate reads and gives only tensors they hold (module docstring)
        self.values = values if golden is None else golden
        self.golden = golden

    def cut(self, positions) -> tuple[onnx.ModelProto, dict, dict] | None:
        """The model of the nodes at ``positions`` (in self.order), its inputs and (with golden data) its golden
        outputs; None where it cannot be made (a tensor it reads or gives that the first runtime did not give, or
        the golden data do not hold; no output)."""
        graph = self.model.graph
        nodes = [self.order[p] for p in sorted(positions)]
        made = [name for i in nodes for name in graph.node[i].output if name]
        made_set = set(made)
        read = set()
        for i in nodes:
            read |= self.uses[i]
        inputs, feeds, initializers = [], {}, []
        for name in sorted(read - made_set, key=lambda n: (n not in self.inputs, n)):
            if name in self.initializers:
                initializers.append(self.initializers[name])
                if name in self.inputs:  # (IR < 4: an initializer is listed among the inputs too)
                    inputs.append(self.inputs[name])
            elif name in self.feeds:
                inputs.append(self.inputs[name])
                feeds[name] = self.feeds[name]
            elif name in self.values:
                inputs.append(_value_info(name, self.values[name]))
                feeds[name] = self.values[name]
            else:
                return None
        outputs = []
        for name in made:
            if self.golden is not None and name not in self.golden:
                continue  # (nothing to compare it with)
            if name in self.outputs:
                outputs.append(self.outputs[name])
            elif name not in read and name in self.needed and name in self.values:
                outputs.append(_value_info(name, self.values[name], shaped=False))
        if not outputs or any(v is None for v in inputs + outputs):
            return None
        cut = onnx.helper.make_graph([graph.node[i] for i in nodes], f"{graph.name}_reduced", inputs, outputs,
                                     initializers)
        model = onnx.ModelProto()
        # (not a copy of the whole model: its weights would all be copied)
        model.ir_version = self.model.ir_version
        model.opset_import.extend(self.model.opset_import)
        model.functions.extend(self.model.functions)
        model.producer_name = "spec2onnx reduce"
        model.graph.CopyFrom(cut)
        golden = {} if self.golden is None else {o.name: self.golden[o.name] for o in outputs}
        return model, feeds, golden


def _value_info(name: str, array: np.ndarray, shaped: bool = True):
    """A graph input (or output) for a tensor of the first runtime's: its element type, and its shape as an input."""
    if array.dtype.kind in "OSU":
        elem = onnx.TensorProto.STRING
    else:
        dtype = dtype_of_array(array)
        if dtype is None:
            return None
        elem = dtype.onnx
    return onnx.helper.make_tensor_value_info(name, elem, list(array.shape) if shaped else None)


CHECK = "--check"  # the verdict kept where --check CMD decides: CMD exited with a status other than 0


def parse_check(text: str) -> list[str]:
    """--check CMD as the command's words (shell quoting, no shell run); ``{model}`` (the candidate .onnx) and
    ``{inputs}`` (its .npz) are replaced in each word when it runs."""
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise UserError(f"--check {text!r}: {exc}") from None
    if not argv:
        raise UserError("--check: the command is empty")
    if not any("{model}" in word for word in argv):
        raise UserError(f"--check {text!r}: names no {{model}} (the candidate model's path goes there)")
    if shutil.which(argv[0]) is None:  # (before any run: the command is looked up as subprocess will)
        raise UserError(f"--check: cannot start {argv[0]!r}: no such program (or not executable)")
    return argv


def _check_fails(argv: list[str], model_file, feeds_file) -> tuple[bool, str]:
    """Whether --check's command fails on the candidate (a status other than 0), and the line that says it."""
    words = [w.replace("{model}", str(model_file)).replace("{inputs}", str(feeds_file)) for w in argv]
    try:
        status, last = command_status(words)
    except OSError as exc:
        raise UserError(f"--check: cannot start {words[0]!r}: {exc.strerror or exc}") from None
    return status != 0, f"--check: exit status {status}" + (f" ({last})" if last else "")


def reduce_model(path, output, options: RunOptions, progress: Callable[[str], None] = lambda line: None,
                 check: str | None = None) -> Reduction:
    """Reduce the model at ``path`` to the smallest subgraph on which ``options``' runtimes still fail (module
    docstring); write it to ``output`` and its inputs beside it (``inputs_path``), atomically. Where nothing
    fails, nothing is written (``Reduction.verdict`` ""). Bad input: UserError before anything is written.
    ``check``: --check CMD, whose exit status decides instead of the comparison (parse_check)."""
    t0 = time.perf_counter()
    path = str(path)
    argv = parse_check(check) if check is not None else None
    check_reduce_files(path, output, options)
    if options.load_outputs:  # the first runtime against the golden data (module docstring): no other runtime
        options = dataclasses.replace(options, configs=options.configs[:1])
    budget = default_budget() if options.max_memory is None else options.max_memory
    model, _, _, data_files = read_model_with_data(path, budget)
    if data_files:
        check_reduce_files(path, output, options, data_files)
    progress(f"reduce: running the whole model ({counted(len(model.graph.node), 'node')}) with every tensor marked"
             + (f", {options.configs[0].label} against --load-outputs {options.load_outputs}"
                if options.load_outputs else ""))
    with tempfile.TemporaryDirectory(prefix="spec2onnx-reduce-") as folder:  # every tensor of the first runtime:
        # --mark-all compares them chunk by chunk, and --save-outputs writes them to a file (read back below)
        saved = Path(folder, "values.npz")
        first = run_model(path, dataclasses.replace(options, mark_all=True, save_inputs=None, save_outputs=str(saved),
                                                    fail_fast=False), progress=progress)
        values = {}
        if first.runs and first.runs[0].outputs is not None and saved.exists():
            values = read_all(load_arrays("reduce", saved, 1 << 62))  # (held, as they were; the file opened once)
    result = Reduction(path, _verdict(first), len(model.graph.node))
    # Where the runtimes' values differ, a candidate must keep that difference: one that only gives a NaN both
    # runtimes agree on (an input of the node that differs) fails the run as well, but differs nowhere.
    values_differ = _values_differ(first)
    if argv is not None:  # --check decides, on the whole model first (with the inputs the run fed it)
        with tempfile.TemporaryDirectory(prefix="spec2onnx-reduce-") as folder:
            feeds_file = Path(folder, "inputs.npz")
            save_arrays("--check", feeds_file, {n: np.asarray(a) for n, a in first.feeds.items()})
            failed, line = _check_fails(argv, path, feeds_file)
        progress(f"reduce: the whole model: {line}")
        result.verdict = CHECK if failed else ""
    if not result.verdict:
        result.seconds = time.perf_counter() - t0
        return result
    names = [o.name for o in model.graph.output]  # (the model as read here: nothing marked)
    differing = {c["output"] for r in first.results if r.outcome == FAIL for c in r.comparisons
                 if c.get("output") in names and not c.get("passed") and not c.get("first_difference")}
    golden = _golden_values(options, model, values, budget, path) if options.load_outputs else None
    if golden is not None:
        result.golden = len(golden)
        inner = len(set(golden) - set(names))
        progress(f"reduce: --load-outputs holds {len(golden):,} tensors ({inner:,} inside the model): a candidate "
                 "reads and gives only those" + ("" if inner else "; the model's outputs alone: nothing can be cut "
                                                  "(run --mark-all --save-outputs gives every tensor)"))
    graph = _Model(model, {n: np.asarray(a) for n, a in first.feeds.items()}, values, differing or set(names), golden)
    if not values and golden is None and len(model.graph.node) > 1:  # (a cut is fed the first runtime's values)
        others = [c.runtime for c in options.configs[1:] if c.runtime != options.configs[0].runtime]
        result.uncut = (f"{options.configs[0].label}, the first runtime, ran nothing of the model, so no tensor "
                        "inside it has a value to feed a smaller model: nothing could be cut"
                        + (f"; put a runtime that runs it first (--runtime {others[0]} --runtime "
                           f"{options.configs[0].runtime})" if others else ""))
        progress(f"reduce: {result.uncut}")
    del first
    count = len(graph.order)
    best = list(range(count))
    candidate_options = dataclasses.replace(options, mark_all=False, save_inputs=None, save_outputs=None,
                                            load_outputs=None, shapes={}, val_ranges={}, profile=None,
                                            profile_shapes=None, fail_fast=True, pictures=False)
    with tempfile.TemporaryDirectory(prefix="spec2onnx-reduce-") as folder:

        def fails(positions) -> bool:
            made = graph.cut(positions)
            if made is None:
                return False
            candidate, feeds, wanted = made
            model_file, feeds_file = Path(folder, "candidate.onnx"), Path(folder, "candidate.inputs.npz")
            golden_file = Path(folder, "candidate.outputs.npz") if golden is not None else None
            model_file.write_bytes(candidate.SerializeToString())
            save_arrays("-o", feeds_file, feeds)
            if golden_file is not None:
                save_arrays("-o", golden_file, wanted)
            result.checks += 1
            if argv is not None:
                failed = _check_fails(argv, model_file, feeds_file)[0]
            else:
                run = run_model(model_file, dataclasses.replace(
                    candidate_options, load_inputs=str(feeds_file),
                    load_outputs=str(golden_file) if golden_file is not None else None))
                failed = _verdict(run) == result.verdict and (_values_differ(run) or not values_differ)
            progress(f"reduce: check {result.checks}: {len(positions)} node{'s' * (len(positions) != 1)} "
                     f"({_span(graph, positions)}): {'still fails' if failed else 'passes'}")
            return failed

        try:
            # bisection: the shortest failing prefix, then the shortest failing suffix of it
            low, high = 0, count - 1
            while low < high:
                mid = (low + high) // 2
                if fails(range(mid + 1)):
                    high = mid
                    best = list(range(mid + 1))
                else:
                    low = mid + 1
            end = high
            low, high = 0, end
            while low < high:
                mid = (low + high + 1) // 2
                if fails(range(mid, end + 1)):
                    low = mid
                    best = list(range(mid, end + 1))
                else:
                    high = mid - 1
            best = [p for p in best if p >= low and p <= end] or best
            # linear: each node whose removal keeps the failure goes, until none does
            changed = True
            while changed and len(best) > 1:
                changed = False
                for p in list(best):
                    rest = [q for q in best if q != p]
                    if rest and fails(rest):
                        best = rest
                        changed = True
        except KeyboardInterrupt as exc:
            result.interrupted = exit_status(exc)
            progress(f"reduce: interrupted; keeping the smallest failing model found so far ({len(best)} nodes)")
        made = graph.cut(best)
        if made is None:  # (the whole model, never cut: nothing smaller failed and it cannot be cut as a whole)
            raise UserError(f"{path}: its failing part cannot be cut out (a tensor it reads is no tensor the first "
                            "runtime gives)")
        small, feeds, wanted = made
        write_output("-o", output, small.SerializeToString())
        save_arrays("-o", inputs_path(output), feeds)
        if golden is not None:
            save_arrays("-o", outputs_path(output), wanted)
            result.outputs_file = outputs_path(output)
        if result.interrupted:
            final = None
        elif argv is not None:
            result.problems = [_check_fails(argv, output, inputs_path(output))[1]]
            final = None
        else:
            final = run_model(output, dataclasses.replace(candidate_options, load_inputs=inputs_path(output),
                                                          load_outputs=result.outputs_file, fail_fast=False,
                                                          pictures=options.pictures))
    result.output, result.inputs_file = str(output), inputs_path(output)
    result.kept = [(graph.order[p], graph.model.graph.node[graph.order[p]].name,
                    graph.model.graph.node[graph.order[p]].op_type) for p in sorted(best)]
    if final is not None:
        result.problems = [f"{r.id}: {line}" for r in final.results if r.outcome in (FAIL, ERROR) for line in r.problems]
        result.results = final.results
    differs = {c.get("output") for r in result.results for c in r.comparisons if c.get("passed") is False}
    result.graph = [{"index": graph.order[p], "name": node.name, "op": node.op_type, "inputs": list(node.input),
                     "outputs": list(node.output), "state": "highlight" if differs & set(node.output) else ""}
                    for p in sorted(best) for node in (graph.model.graph.node[graph.order[p]],)]
    result.seconds = time.perf_counter() - t0
    return result


def _golden_values(options: RunOptions, model: onnx.ModelProto, values: dict, budget: int, path: str) -> dict:
    """--load-outputs' arrays, read as run --mark-all reads them: the model's outputs and any tensor inside it
    (the whole model's run has checked them already: a name no tensor has, a dtype that is not the tensor's)."""
    # every tensor the first runtime gave but the model's outputs, untyped: the whole model's run checked the golden
    # arrays against the types onnx's inference gives; the runtime's own dtype is no declared type (onnx's reference
    # runtime makes opset-9 Dropout's mask bool where the schema says T and onnxruntime gives float32:
    # light_squeezenet's r62, refused here as "float32; output is bool" before)
    have = {o.name for o in model.graph.output}
    marked = {name: (0, None) for name in values if name not in have}
    golden, inside = _golden(options.load_outputs, model, model_outputs(model, path), budget, marked)
    return {**golden, **{name: _read_golden(*member) for name, member in inside.items()}}


def _span(graph: _Model, positions) -> str:
    positions = sorted(positions)
    ops = [graph.model.graph.node[graph.order[p]].op_type for p in positions]
    if len(ops) <= 4:
        return ", ".join(f"#{graph.order[p]} {op}" for p, op in zip(positions, ops))
    return f"#{graph.order[positions[0]]} {ops[0]} .. #{graph.order[positions[-1]]} {ops[-1]}"
