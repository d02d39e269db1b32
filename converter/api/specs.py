"""The spec pipeline's side of the API (converter/api/__init__.py is the front door that offers its names): load_spec,
convert, validate, plain_data and their reports, and the one call behind each spec command (convert_command,
validate_command, list_command, run_spec, merge_command, describe_layers). Everything here goes through
``converter.pipeline.stages``; the CLI (cli.py) only parses and prints.

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

import dataclasses
import datetime
import os
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Union

import numpy as np

from ..pipeline import stages as pipeline
from ..brief import counted
from ..budget import default_budget, show
from ..compare import Tolerance, command_line_stats, command_line_tolerance, refuse_unknown_outputs, value_stats
from ..dtypes import BFLOAT16
from ..errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, SpecError, UserError
from ..files import (bundled_specs_dir, check_distinct, check_output, default_suite, save_npy_atomic, write_atomic,
                     write_output)
from ..pipeline.plugins import load_plugins
from ..pipeline.pool import Job, Pool, run_in_process
from ..pipeline.quantization import LAYER_HELP
from ..registry import layer_kinds
from ..process.interrupts import exit_status, held_interrupts
from ..report import (counts, disagreement_lines, merged_status, summary_line, summary_table, write_html, write_json,
                     write_merged_junit, write_reports)
from ..report import merge as _merge, read_report, refusal_policy
from ..results import REFUSED, CaseResult, bad_outcomes
from ..pipeline.safe_yaml import MAX_DEPTH, MAX_NODES
from ..pipeline.shapes import check_case
from ..pipeline.selection import case_names, find_specs, in_shard, parse_shard, select, spec_files, spec_name_of
from ..pipeline.spec import Spec, data_files, parse_spec
from ..pipeline.spec import load_spec as load_spec_file
from ..xfail import unmatched
from ..pipeline.stages import Options

if TYPE_CHECKING:  # pragma: no cover
    import onnx

SpecSource = Union[str, "os.PathLike[str]", Mapping[str, Any], Spec]

__all__ = ["load_spec", "convert", "validate", "plain_data", "Conversion", "ValidationReport", "SpecSource"]


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
    refused: str = "skip"  # what a REFUSED case (the target refuses the spec or its model) does: "skip" or "fail"

    @property
    def ok(self) -> bool:
        """True when a case ran (not REFUSED) and none failed, errored or passed unexpectedly (XPASS), nor (with
        ``refused="fail"``) was refused."""
        return any(r.outcome != REFUSED for r in self.results) and not self.failures

    @property
    def failures(self) -> tuple[CaseResult, ...]:
        """The results that fail a run: FAIL, ERROR and XPASS (a spec that did not load is an ERROR), and REFUSED
        with ``refused="fail"``."""
        failing = bad_outcomes(self.refused)
        return tuple(r for r in self.results if r.outcome in failing)

    def counts(self) -> dict[str, int]:
        """Results per outcome: PASS, FAIL, ERROR, XFAIL, XPASS, REFUSED."""
        return counts(list(self.results))

    def summary(self) -> str:
        """One line, as the CLI prints it: ``2 cases: 2 passed, 0 failed, 0 errors``; then each failure's problems."""
        lines = [summary_line(list(self.results))]
        for r in self.failures:
            lines += [f"{r.outcome} {r.id}"] + [f"    {p}" for p in r.problems]
        return "\n".join(lines)


def load_spec(source: SpecSource, *, base_dir: str | os.PathLike | None = None, require_cases: bool = True) -> Spec:
    """Load and validate a spec from a file (``.yaml``, ``.yml``, ``.json``) or from a mapping.

    A mapping holds what a spec file holds (see the README's spec format); tuples, numpy arrays
    and numpy scalars are accepted where lists and numbers go. It is validated exactly as a file
    is; errors name it ``<dict>``. Relative ``.npy`` paths in a mapping start at ``base_dir``
    (default: the current folder). A ``Spec`` is returned as it is. ``require_cases=False`` accepts
    a spec without ``cases`` (enough to convert it; validating needs cases).

    Raises ``SpecError`` (a ``UserError``) naming the field, the value and what is allowed.
    """
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
        return load_spec_file(source, require_cases=require_cases)
    raise UserError(f"load_spec(source): expected a path, a mapping or a Spec, got {type(source).__name__}")


def convert(spec: SpecSource, output: str | os.PathLike | None = None, *, target: str = "portable",
            opset: int | None = None, precision: Iterable[str] = ()) -> Conversion:
    """Lower a spec (a path, a mapping or a ``Spec``) to an ONNX model for ``target``.

    ``target``: ``portable`` (runs on every target; the default), ``ort-cuda``, ``tensorrt``,
    ``tensorrt-dla``, ... (``spec2onnx targets``), or ``auto`` (the most portable that takes the spec, as
    ``spec2onnx convert`` chooses: the returned ``target`` names it). ``opset``: default the spec's, else 17.
    ``precision``: what the TensorRT build allows beyond the spec's own ``precision``, as trtexec's
    ``--fp16``/``--int8`` (``["fp16"]``: a float32 network runs on DLA in FP16; the model stays float32).
    With ``output`` the model is also written there, atomically (all or nothing).
    """
    if output is not None and not isinstance(output, (str, os.PathLike)):
        raise UserError(f"convert(output): expected a file path, got {type(output).__name__} {output!r:.60}")
    spec = load_spec(spec, require_cases=False)  # converting needs no cases (as `spec2onnx convert`)
    chosen = "auto" if target == "auto" else pipeline.resolve_target(target)
    model, used_opset, _, chosen = pipeline.convert(spec, chosen, opset, precision=precision)
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
             provider: str = "cpu", opset: int | None = None, patterns: Iterable[str] = (),
             target: str | Iterable[str] | None = None, refused: str = "skip", precision: Iterable[str] = ()) -> ValidationReport:
    """Run every case of the given specs and compare (as ``spec2onnx validate`` does, in this process).

    ``specs``: a spec file or folder (searched recursively), a mapping, a ``Spec``, or a list of
    these; ``None`` validates the bundled conformance suite. Each case runs on ``runtime``
    (``onnxruntime``, ``onnx-reference``, ``openvino``, or several) and is compared with the numpy
    reference and with the spec's expected values. ``patterns`` (one pattern or a list) keeps only
    case ids ``spec/case`` matching them (``-k``). ``target``: lower for it and check the model statically
    (each case is REFUSED where the target cannot take the spec or run a node of its model); several: every case
    runs for each, its id ending in `` [TARGET]``; default: what ``provider`` implies. ``precision``: what the
    TensorRT build allows, as ``--fp16``/``--int8``. ``refused``: "skip" (a refusal is counted, not a failure) or
    "fail" (``report.ok`` is False). A spec file that does not load is an ERROR result, as in the CLI; bad options
    (an unknown runtime, provider or opset) raise ``UserError``.
    """
    targets = [target] if target is None or isinstance(target, str) else list(dict.fromkeys(target))
    every = [pipeline.make_options(runtimes=(runtime,) if isinstance(runtime, str) else tuple(runtime), provider=provider,
                                   opset=opset, target=name, refused=refused, precision=precision) for name in targets]
    patterns = (patterns,) if isinstance(patterns, str) else tuple(patterns)  # one pattern, not one per character
    one = specs is None or isinstance(specs, (str, os.PathLike, Mapping, Spec))
    if not (one or (isinstance(specs, Iterable) and not isinstance(specs, bytes))):
        raise UserError(f"validate(specs): expected a path, a mapping, a Spec or a list of them, got "
                        f"{type(specs).__name__} {specs!r:.60}")
    items = [specs] if one else list(specs)
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
            for options in every:
                results += pipeline.validate_spec(spec, options, case_names(spec, patterns))
    if paths:
        results += run_targets(spec_files(paths), every, patterns=patterns, jobs=0)
    return ValidationReport(tuple(results), time.perf_counter() - t0, refused)


def plain_data(value: Any) -> Any:
    """``value`` as the plain data a YAML/JSON spec file holds: dicts with text keys, lists, text, numbers, booleans, None.

    Tuples become lists, numpy arrays nested lists, numpy scalars numbers, paths text. Anything
    else, a nesting deeper than a file may have, or more values than a file may hold is a ``SpecError``
    naming where it is. A numpy array counts as one value there (the bound is a file's, against a document that
    expands: an array is the caller's memory already), and is bounded by the memory budget its lists take instead.
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
        if value.size * PLAIN_BYTES_PER_VALUE > default_budget():
            raise SpecError(f"a numpy array of {value.size:,} values, as spec data about "
                            f"{show(value.size * PLAIN_BYTES_PER_VALUE)}, above the memory budget of "
                            f"{show(default_budget())}: give it as a .npy file's path", field=where or None)
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


PLAIN_BYTES_PER_VALUE = 32  # a number in a Python list: its object and its slot


def _bfloat16():
    return BFLOAT16.numpy



# The entry points behind the CLI commands (cli.py).


def convert_spec(spec_path: Path, output: str | Path | None = None, *, opset: int | None = None, provider: str | None = None,
                 target: str | None = None, max_memory: int | None = None, precision=()):
    """Load, validate and lower a spec (it needs no cases) for a target; check it; write the model atomically.

    The target: ``target``, else the one ``provider`` implies (cuda: ort-cuda), else portable; the
    provider need not be installed. Without ``opset``, the spec's (else 17), lowered where needed to
    the highest one at which the target has a kernel for every node (converter/pipeline/stages.py).
    ``precision``: ``--fp16``/``--int8`` (see ``convert``). A node the target cannot run is a UserError
    (nothing is written). Returns (model, path, note).
    """
    for option, value in (("--target", target), ("--provider", provider)):
        if value is not None and not value.strip():  # (not the default: an empty name is a mistake)
            raise UserError(f"{option} {value!r}: an empty name; spec2onnx convert --help lists the names")
    if output is not None:
        check_output("-o", output, [spec_path])  # before loading: `convert s.yaml -o s.yaml` never reads twice
    spec = load_spec_file(spec_path, max_memory=max_memory, require_cases=False)
    output = Path(output) if output is not None else Path(f"{spec.name}.onnx")
    check_output("-o", output, [spec_path, *data_files(spec_path)])
    model, _, note, _ = pipeline.convert(spec, target, opset, provider=provider, precision=precision,
                                         hint=" (nothing written; see docs/semantics.md, Targets)")
    write_output("-o", output, model.SerializeToString())
    return model, output, note


def check_tolerance_outputs(files, tolerance: "Tolerance | None", error_stats=()) -> None:
    """validate's --atol/--rtol/--check-error-stat OUTPUT:VALUE, before any work: refused (UserError) where no spec
    of the run has an output of that name (a spec that does not load is left to the run, which reports it)."""
    if not (tolerance is not None and tolerance.outputs) and not any(name for name, _ in error_stats):
        return
    known: dict = {}
    for file in files:
        try:
            known.update(dict.fromkeys(load_spec(file).network.outputs))
        except UserError:
            continue
    refuse_unknown_outputs(known, tolerance, error_stats, "the run's specs")


def check_report_paths(reports: dict[str, str | None], inputs, specs=()) -> None:
    """Refuse report files (``{"--json": path, ...}``) that cannot be written, that are inputs, or that clash.
    ``specs``: spec files whose .npy data files (spec.data_files) are inputs too; read only where a report file
    exists already (a new file is no input), so that a run without one does not read every spec twice."""
    inputs = list(inputs)
    if any(path and os.path.lexists(path) for path in reports.values()):
        inputs += [data for spec in specs for data in data_files(spec)]
    for option, path in reports.items():
        if path is not None:
            check_output(option, path, inputs)
    check_distinct(reports)


def run_validation(files: list[Path], options: Options, *, patterns=(), jobs: int = 1, timeout: float | None = None,
                   plugins: tuple[str, ...] = (), idle: Callable[[], None] = lambda: None,
                   every_file: list[Path] | None = None) -> Iterator[CaseResult]:
    """Results for every case of the spec files matching ``patterns``, in the order they finish. ``idle()`` is called
    whenever none is ready and the run is about to wait for the next (the CLI flushes what it printed then).

    A spec that fails to load gives one ERROR result with ``bad_input`` set; so does a spec whose
    name an earlier spec file (in ``files`` order) already uses: names identify cases in reports, so
    the second spec is reported once and none of its cases run. ``every_file``: the files of the whole run where
    ``files`` is one shard of them (in the same order): a name is then claimed by the first of all, so that each
    shard reports the clash as the unsharded run does.
    """
    claimed: dict[str, str] = {}  # spec name -> the first file that declares it
    mine = {str(path) for path in files}
    work = []
    for path in map(Path, files if every_file is None else every_file):
        name = spec_name_of(path)  # None where it cannot be told cheaply: checked on the results below
        if name is not None and name in claimed:
            if str(path) in mine:
                yield _name_clash(str(path), name, claimed[name])
            continue
        if name is not None:
            claimed[name] = str(path)
        if str(path) in mine:
            work.append(Job(path, tuple(patterns)))
    options = dataclasses.replace(options, threads=intra_op_threads(usable_cores(), jobs, len(work)))
    results = run_in_process(work, options, idle) if jobs <= 0 else Pool(jobs, options, timeout, plugins).run(work, idle)
    refused: set[str] = set()  # files whose name turned out to be taken only once they were loaded
    for result in results:
        if not result.bad_input and result.case != "<load>":
            first = claimed.setdefault(result.spec, result.path)
            if first != result.path:
                if result.path not in refused:
                    refused.add(result.path)
                    yield _name_clash(result.path, result.spec, first)
                continue
        yield result


def run_targets(files: list[Path], every: list[Options], **kw) -> Iterator[CaseResult]:
    """``run_validation`` for each target's options in turn (``validate --target A --target B``): every case runs
    for every target; a spec file that does not load is reported once."""
    reported: set[str] = set()
    for options in every:
        for result in run_validation(files, options, **kw):
            if result.case == "<load>":
                if result.path in reported:
                    continue
                reported.add(result.path)
            yield result


def intra_op_threads(cores: int, jobs: int, specs: int) -> int:
    """onnxruntime's intra-op threads for a spec with big outputs (small ones always get one): the cores the
    workers leave idle. The pool starts at most one worker per spec (one in-process, -j 0), so a single big
    spec at the default -j (one worker per core) gets every core, not one."""
    workers = max(1, min(jobs, specs))
    return max(1, cores // workers)


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _name_clash(path: str, name: str, first: str) -> CaseResult:
    return CaseResult(path, "<load>", "ERROR", path=path, bad_input=True,
                      problems=[f"{path}: name: {name!r} is also the name of {first}; spec names must be unique"])


def run_spec(spec_path: Path, case_name: str | None, input_files: Iterable[str], output_dir: str | Path = ".",
             *, provider: str = "cpu", opset: int | None = None, max_memory: int | None = None, html_path=None,
             argv=(), on_case: Callable[[str], None] = lambda name: None):
    """Run a spec's model on the inputs of a case (or .npy files) and write each output as <name>.npy; returns
    (output name, path, array written) of each.

    ``output_dir`` is created when missing. A spec without cases runs on ``--input`` files alone. ``html_path``
    (checked first): a page of the outputs written, with their value statistics (html_report.spec_page).
    ``on_case(name)``: told which case ran where ``case_name`` is None (the spec's first), once the outputs are written."""
    if html_path is not None:
        check_report_paths({"--html": html_path}, [spec_path], specs=[spec_path])
    spec = load_spec_file(spec_path, max_memory=max_memory, require_cases=False)
    options = pipeline.make_options(provider=provider, opset=opset)
    case = _pick_case(spec, case_name) if spec.cases or case_name is not None else None
    feeds = dict(case.inputs) if case is not None else {}
    read, given = [Path(spec_path), *data_files(spec_path)], set()
    for item in input_files:
        name, sep, file = item.partition("=")
        if not sep or name not in spec.network.inputs:
            raise UserError(f"--input {item}: expected NAME=FILE.npy with NAME one of {', '.join(spec.network.inputs)}")
        if name in given:  # (as run MODEL's --shapes and --val-range: which one was meant cannot be told)
            raise UserError(f"--input {item}: input {name!r} is given twice")
        feeds[name] = _load_input(file, spec, name)
        read.append(Path(file))
        given.add(name)
    missing = [n for n in spec.network.inputs if n not in feeds]
    if missing:
        raise UserError(f"no data for input {missing[0]!r}: give --case or --input {missing[0]}=FILE.npy")
    if input_files and any(not t.is_static for t in spec.network.types.values()):
        try:  # the shapes of a dynamic network's inputs: one value per symbolic dimension, inside a profile
            check_case(spec.network, feeds)
        except UserError as exc:
            raise UserError(f"--input: {exc.detail}") from None
    if not str(output_dir):
        raise UserError("-o: the folder name is empty")
    output_dir = Path(output_dir)
    pipeline.writable_folder("-o", str(output_dir))  # created when missing
    for name in spec.network.outputs:
        check_output("-o", output_dir / f"{name}.npy", read)
    outputs = pipeline.run(spec, feeds, options)
    written = []
    for name, array in outputs.items():
        path = output_dir / f"{name}.npy"
        if array.dtype == BFLOAT16.numpy:
            # .npy has no bfloat16: ml_dtypes writes opaque 2-byte records other tools cannot read.
            # float32 holds every bfloat16 value exactly.
            array = array.astype(np.float32)
        try:
            save_npy_atomic(path, array)
        except OSError as exc:
            raise UserError(f"-o {output_dir}: cannot write {path.name} ({exc.strerror or exc})") from None
        written.append((name, path, array))
    if html_path is not None:
        write_html(html_path, "spec_page", path=str(spec_path), argv=argv, written=[
            (name, str(path), f"{array.dtype}{list(array.shape)}", value_stats(array)) for name, path, array in written])
    if case is not None and case_name is None and set(spec.network.inputs) - given:  # (the case gave some input)
        on_case(case.name)  # once it ran: a refusal stays one line
    return written


def _pick_case(spec: Spec, case_name: str | None):
    if case_name is None:
        return spec.cases[0]
    for case in spec.cases:
        if case.name == case_name:
            return case
    have = ", ".join(c.name for c in spec.cases) or "none"
    raise UserError(f"--case {case_name}: {spec.path} has no such case; it has {have}")


def _load_input(file: str, spec: Spec, name: str) -> np.ndarray:
    want = spec.network.inputs[name]
    try:
        array = np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise UserError(f"--input {name}={file}: cannot load ({exc.strerror if isinstance(exc, OSError) and exc.strerror else exc})") from None
    if not isinstance(array, np.ndarray):  # a .npz archive: a dict-like of arrays
        array.close()
        raise UserError(f"--input {name}={file}: is a .npz archive of several arrays; give one array as a .npy file (numpy.save)")
    if array.dtype != want.dtype.numpy or not want.matches(array.shape):
        raise UserError(f"--input {name}={file}: is {array.dtype}{list(array.shape)}, input {name!r} is {want}")
    return array


def describe_layers() -> str:
    lines = []
    for name, kind in layer_kinds().items():
        lines.append(f"{name}: {kind.summary}")
        at_least = f" (the last {kind.max_inputs - kind.min_inputs} optional)" if kind.min_inputs < kind.max_inputs else ""
        lines.append(f"  inputs: {', '.join(kind.inputs)}{at_least}")
        if kind.notes:
            lines.append(f"  {kind.notes}")
        for attr_name, attr in kind.attributes.items():
            default = "required" if attr.required else f"default {_show(attr.default)}"
            lines.append(f"  {attr_name} ({default}): {attr.describe()}")
            lines.append(f"      {attr.doc}")
        if name.startswith("trt."):
            lines += LAYER_HELP
        lines.append("")
    return "\n".join(lines).rstrip()


def _show(value) -> str:
    if isinstance(value, str) and not value or value is None:
        return "none"
    if isinstance(value, np.ndarray):
        return "[]" if value.size == 0 else str(value.tolist())
    return str(value)


def merge_reports(paths, read_command=None) -> tuple[dict, list[CaseResult], list[str]]:
    """(merged report, its results, problems) of the JSON reports at ``paths`` (``spec2onnx report merge``:
    converter/report.py ``merge``). ``read_command``: what the shards' options mean (the command line's reader,
    cli_options.read_command; without it they are compared as written)."""
    return _merge([(str(p), read_report(p)) for p in paths], read_command)


def write_merged(merged: dict, results: list[CaseResult], *, json_path=None, junit_path=None) -> None:
    """Write a merged report as JSON and JUnit XML (paths checked before; REFUSED cases as the shards'
    --refused makes them)."""
    if json_path is not None:
        write_json(json_path, merged)
    if junit_path is not None:  # (an interrupted shard marked, as an interrupted run's own JUnit is)
        write_merged_junit(junit_path, merged, results)


def verdict(results: list[CaseResult], *, files, skipped, patterns, options: Options, xfail_file=None,
            min_cases: int = 0, partial: bool = False, interrupted: BaseException | None = None,
            shard: tuple[int, int] | None = None, found: int = 0, stopped_early: bool = False) -> tuple[int, list[str]]:
    """(exit status, lines for stderr) of a finished validation run (cli.py's epilog lists the statuses).

    ``partial``: only some cases were asked for (-k, --shard, -x), so an xfail entry that matches none is no news;
    ``stopped_early``: -x stopped the run (which says so), so that no case ran needs no other reason.
    ``shard`` (I, N) with ``found`` spec files in all: a shard with nothing to run passes, saying why; whether the
    whole run ran anything is for ``report merge`` of the shards to say (no case in all of them: exit 1)."""
    if shard is not None and not results and interrupted is None and not min_cases and (not files or patterns):
        where = (f"none of the {counted(found, 'spec file')} found falls in it (the files are dealt to the shards in turn)"
                 if not files else f"no case of its {counted(len(files), 'spec file')} matches -k")
        return EXIT_OK, [f"spec2onnx: note: shard {shard[0]}/{shard[1]} has nothing to run: {where}"]
    lines = []
    selected = {(r.spec, r.case) for r in results if not r.bad_input and r.case != "<load>"}
    ran = len({(r.spec, r.case) for r in results if not r.bad_input and r.case != "<load>" and r.outcome != REFUSED})
    if options.xfail and not (partial or interrupted is not None):
        for index, rule in unmatched(options.xfail, selected):
            lines.append(f"spec2onnx: warning: --xfail-file {xfail_file}: entry [{index}] (spec {rule.spec!r}, case "
                         f"{rule.case!r}) matches no case of this run; fix or remove it")
    why_none = why_none_ran(files, skipped, results, patterns) if not (ran or interrupted or stopped_early) else None
    if why_none:
        lines.append(f"spec2onnx: error: no case ran: {why_none}")
    if interrupted is not None:
        return exit_status(interrupted), lines
    if any(r.internal for r in results):  # (before bad input: a bug of ours is never hidden behind a user's mistake)
        return EXIT_INTERNAL, lines
    if any(r.bad_input for r in results):
        return EXIT_BAD_INPUT, lines
    if min_cases and ran < min_cases:
        return EXIT_FAILED, lines + [f"spec2onnx: error: only {ran} cases ran, fewer than --min-cases {min_cases}"]
    failing = bad_outcomes(options.refused)
    return (EXIT_FAILED if any(r.outcome in failing for r in results) or not ran else EXIT_OK), lines


def why_none_ran(files, skipped, results, patterns) -> str | None:
    """Why a run ran no case, or None where its ERROR lines already say it (no spec could be loaded)."""
    not_loaded = {r.path for r in results if r.case == "<load>"}
    if not files:
        more = f"; {counted(len(skipped), 'other file')} skipped (-v lists them)" if skipped else ""
        return (f"no spec file found (a spec is a .yaml, .yml or .json file whose top level has 'network' and 'cases', "
                f"or a network with 'profiles'{more})")
    if len(not_loaded) == len(files):
        return None
    refused = [r for r in results if r.outcome == REFUSED]
    if refused:
        first = refused[0]
        return (f"the target refused every case selected ({len(refused)}; the first, {first.id}: "
                f"{(first.problems or [REFUSED])[0]}), and a refused case validates nothing")
    loaded = len(files) - len(not_loaded)
    what = f"no case of the {loaded} spec{'s' * (loaded != 1)} loaded"
    return f"{what} matched -k {' '.join(patterns)}" if patterns else f"{what} was run"


def save_host_models(options: Options, folder) -> Options:
    """``options`` that also write each host-legalized copy into ``folder`` (``--save-host-model``; created)."""
    return dataclasses.replace(options, host_model_dir=pipeline.writable_folder("--save-host-model", folder))


def host_line(results: list[CaseResult], every: "Options | list[Options]") -> str | None:
    """How many deployment models of a validation run (the options of each of its targets) ran as a host-legalized
    copy (docs/deployment.md), and where ``--save-host-model`` wrote them; None when none did."""
    every = [every] if isinstance(every, Options) else every
    hosts = {(r.spec, r.target): r.host for r in results if r.host}
    if not hosts:
        return None
    changed = sum(int(h.split(", ")[1].split()[0]) for h in hosts.values())  # "legalized copy, N nodes changed"
    folder = every[0].host_model_dir
    if folder and len(every) > 1:  # save_host_models_per_target: DIR/<target>
        folder = str(Path(folder).parent / "<target>")
    where = f"written to {folder} as <spec>.host.onnx" if folder else "--save-host-model DIR writes them"
    return (f"host: legalized copies of {len(hosts)} deployment models ran, {changed} nodes changed in all "
            f"(per case: the JSON report's 'host'; {where})")


def save_host_models_per_target(every: list[Options], folder) -> list[Options]:
    """``--save-host-model DIR`` for a run of several targets: each target's copies in DIR/<target>/ (one target:
    DIR itself, save_host_models)."""
    if len(every) == 1:
        return [save_host_models(every[0], folder)]
    return [save_host_models(o, str(Path(folder) / o.target_label)) for o in every]


def unwritten_host_models(results: list[CaseResult], options: Options) -> str | None:
    """Why ``--save-host-model DIR`` wrote nothing in a validation run (one line for the run), or None: only a target
    whose host runs a legalized copy (Target.host_copy) writes one; any other's runs the very model convert writes."""
    if options.host_model_dir is None or any(r.host for r in results):
        return None
    copying = pipeline.host_copy_targets()
    if options.auto_target:
        why = "--target auto chose none of them for a spec of this run"
    else:
        chosen = options.target or pipeline.target_for_provider(options.configs[0].provider)
        why = (f"no spec of this run was lowered for {chosen.name}" if chosen.host_copy else
               f"{chosen.name} has no such copy: its host runs the very model convert writes")
    return (f"spec2onnx: warning: --save-host-model {options.host_model_dir}: nothing written: only the targets "
            f"whose host runs a legalized copy ({', '.join(copying)}) write one, and {why} (docs/deployment.md)")



# The one call behind each spec command (cli.py turns its report into text and an exit status).


@dataclass(frozen=True)
class Converted:
    """What ``spec2onnx convert`` gives: where the model went and what it is."""

    path: Path
    opset: int
    nodes: int
    target: str
    auto: str | None = None  # --target auto: why it chose that target
    note: str | None = None  # the opset chosen below the spec's, and why
    warning: str | None = None  # --fp16/--int8 given for a target they mean nothing for

    @property
    def line(self) -> str:
        """``wrote m.onnx (opset 17, 3 nodes, target portable)``: what the command prints."""
        return f"wrote {self.path} (opset {self.opset}, {counted(self.nodes, 'node')}, target {self.target})"


def convert_command(spec_path: Path, output=None, *, opset: int | None = None, provider: str | None = None,
                    target: str | None = None, max_memory: int | None = None, precision=(), plugins=()) -> Converted:
    """``spec2onnx convert``: the plugins imported, then ``convert_spec``."""
    load_plugins(plugins)
    model, path, note = convert_spec(spec_path, output, opset=opset, provider=provider, target=target,
                                     max_memory=max_memory, precision=precision)
    props = {p.key: p.value for p in model.metadata_props}
    chosen = props.get("spec2onnx.target", "?")
    return Converted(path, model.opset_import[0].version, len(model.graph.node), chosen, props.get("spec2onnx.auto"),
                     note, pipeline.precision_unused([chosen], precision))


@dataclass
class ValidationPlan:
    """What a validation will run, told before it runs (``validate_command``'s ``on_start``)."""

    every: list  # Options, one per target given
    suite: str | None = None  # the line naming the suite run when no path was given
    warnings: list = field(default_factory=list)  # lines for stderr (--fp16/--int8 meaning nothing)
    files: list = field(default_factory=list)  # the spec files of this shard
    skipped: list = field(default_factory=list)  # files in the folders that are no spec (or --exclude'd)


@dataclass
class ValidationRun:
    """What ``spec2onnx validate`` gives: every result, the lines after them, and the exit status."""

    results: list
    seconds: float
    status: int
    summary: str  # "N cases: ... in S s", with " (interrupted)" or " (terminated)"
    disagreements: list = field(default_factory=list)  # between runtimes
    host: str | None = None  # the host-legalized copies that ran (host_line)
    complaints: list = field(default_factory=list)  # lines for stderr at the end (verdict, unwritten host models)
    interrupted: BaseException | None = None

    @property
    def table(self) -> str:
        """The summary table: a row per layer kind, a column per outcome."""
        return summary_table(self.results)


@dataclass
class CaseList:
    """What ``spec2onnx validate --list`` gives: the case ids that would run, and the specs that did not load."""

    ids: list
    load_errors: list  # (path, message)
    count: str  # "N cases in M specs"
    suite: str | None = None
    warnings: list = field(default_factory=list)  # lines for stderr (--fp16/--int8 meaning nothing)
    sharded: bool = False  # --shard: a shard with nothing to list is no failure (validate_command's verdict)

    @property
    def status(self) -> int:
        """2 a spec that did not load; 1 nothing would run (as validate without --list: a -k gone stale); else 0."""
        if self.load_errors:
            return EXIT_BAD_INPUT
        return EXIT_FAILED if not self.ids and not self.sharded else EXIT_OK

    @property
    def complaints(self) -> list[str]:
        """Lines for stderr after the count: why the status is 1."""
        if self.status != EXIT_FAILED:
            return []
        return ["spec2onnx: error: no case would run (no spec file found, or no case matches -k)"]


def _plan(paths, *, runtimes, provider, targets, opt_levels, opset, atol, rtol, ulp, check_error_stat, xfail_file,
          repro_dir, plugins, max_memory, refused, precision, statistics, pictures=False,
          host_dir=None) -> tuple[ValidationPlan, list]:
    """(the plan's options, suite and warnings; the roots searched) of validate's options."""
    load_plugins(plugins)
    tolerance = command_line_tolerance(atol, rtol, ulp)  # --atol/--rtol [OUTPUT:]VALUE
    error_stats = command_line_stats(check_error_stat)
    every = [pipeline.make_options(runtimes=runtimes, provider=provider, target=target, opt_levels=opt_levels,
                                   opset=opset, tolerance=tolerance, xfail_file=xfail_file, repro_dir=repro_dir,
                                   plugins=plugins, max_memory=max_memory, refused=refused, precision=precision,
                                   error_stats=error_stats, statistics=statistics, pictures=pictures)
             for target in (dict.fromkeys(targets) or (None,))]  # one run per target given, in the order given
    if host_dir is not None:
        every = save_host_models_per_target(every, host_dir)
    unused = pipeline.precision_unused([o.target_name() for o in every], precision)
    plan = ValidationPlan(every, warnings=[unused] if unused else [])
    if paths:
        return plan, list(paths)
    suite, which = default_suite()
    plan.suite = f"validating {suite} ({which}; name paths to validate others)"
    return plan, [suite]


def list_command(paths=(), *, patterns=(), excludes=(), shard=None, timeout=None, fail_fast=False, min_cases=0,
                 json_path=None, junit_path=None, html_path=None, host_dir=None, **options) -> CaseList:
    """``spec2onnx validate --list``: the case ids that would run (`` [TARGET]`` per target given), nothing run.
    ``options``: validate_command's that make the run's options (checked as validate checks them); the run's own
    (--timeout, -x, --min-cases, the reports, --save-host-model) mean nothing to a list."""
    plan, roots = _plan(paths, statistics=False, **options)
    selection = select(roots, patterns, parse_shard(shard) if shard else None, excludes)
    ids = [case_id + (f" [{o.target_label}]" if o.target_label else "") for case_id in selection.ids() for o in plan.every]
    return CaseList(ids, selection.load_errors, f"{counted(selection.case_count * len(plan.every), 'case')} in "
                                                f"{counted(len(selection.specs), 'spec')}", plan.suite, plan.warnings,
                    sharded=shard is not None)


def validate_command(paths=(), *, jobs: int, timeout, patterns=(), excludes=(), shard=None, fail_fast=False,
                     min_cases: int = 0, json_path=None, junit_path=None, html_path=None, argv=(), on_start=lambda plan: None,
                     on_result=lambda result: None, on_done=lambda run: None, on_idle=lambda: None,
                     **options) -> ValidationRun:
    """``spec2onnx validate``: every case of the specs found in ``paths`` (default: the suite, default_suite), on
    every runtime configuration and target, the reports written, the exit status decided (``verdict``).
    ``on_start(plan)`` once the files are found and the report paths checked; ``on_result(result)`` as each case
    finishes; ``on_idle()`` whenever the run waits for the next (no result ready); ``on_done(run)`` with the
    ValidationRun before the report files are written (so that a report written to /dev/stdout follows what was
    printed). Ctrl-C (or SIGTERM) ends the run: what finished is reported,
    ``interrupted`` says why. ``html_path``: checked with the other report paths, the comparisons' statistics and
    pictures gathered for it, and the page written after the reports (html_report.validate_page)."""
    refused = options.get("refused", "skip")
    plan, roots = _plan(paths, statistics=json_path is not None or html_path is not None,  # (only they show them)
                        pictures=html_path is not None, **options)
    every, xfail_file, plugins = plan.every, options.get("xfail_file"), options.get("plugins", ())
    shard_spec = parse_shard(shard) if shard else None
    found = find_specs(roots, excludes)
    plan.files, plan.skipped = in_shard(found.files, shard_spec), found.skipped
    # Before any work: every report can be written, and none of them is an input of this run.
    inputs = [*plan.files, *([xfail_file] if xfail_file else []), *(p for p in plugins if p.endswith(".py"))]
    check_report_paths({"--json": json_path, "--junit": junit_path, "--html": html_path}, inputs, specs=plan.files)
    check_tolerance_outputs(plan.files, every[0].tolerance, every[0].error_stats)  # an OUTPUT no spec has: exit 2
    on_start(plan)
    started, t0 = datetime.datetime.now(datetime.timezone.utc), time.perf_counter()
    results, interrupted = [], None  # interrupted: the KeyboardInterrupt (Ctrl-C) or Terminated (SIGTERM)
    stopped_early = False  # -x stopped the run at a failure
    try:
        for result in run_targets(plan.files, every, patterns=patterns, jobs=jobs, timeout=timeout, plugins=plugins,
                                  idle=on_idle, every_file=found.files if shard_spec else None):
            results.append(result)
            on_result(result)
            if fail_fast and result.outcome in bad_outcomes(refused):
                stopped_early = True
                break
    except KeyboardInterrupt as exc:
        interrupted = exc
    # Every case has finished (or the run stopped): a Ctrl-C or SIGTERM from here waits until the reports are written
    # whole, then ends the command (130/143). After an interrupt, a second one still ends it at once.
    seconds = time.perf_counter() - t0
    with held_interrupts() if interrupted is None else nullcontext():
        stopped = (" (stopped at the first failure: -x)" if stopped_early else "") if interrupted is None else (
            " (terminated)" if exit_status(interrupted) != 130 else " (interrupted)")
        status, complaints = verdict(results, files=plan.files, skipped=plan.skipped, patterns=patterns,
                                     options=every[0], xfail_file=xfail_file, min_cases=min_cases,
                                     partial=bool(patterns or shard or fail_fast), interrupted=interrupted,
                                     shard=shard_spec, found=len(found.files), stopped_early=stopped_early)
        unwritten = unwritten_host_models(results, every[0])  # once per run, not per spec
        run = ValidationRun(results, seconds, status, summary_line(results) + f" in {seconds:.2f} s" + stopped,
                            disagreement_lines(results), host_line(results, every),
                            complaints + ([unwritten] if unwritten else []), interrupted)
        on_done(run)
        write_reports(results, json_path=json_path, junit_path=junit_path, started=started, seconds=seconds,
                      argv=list(argv), interrupted=interrupted is not None, refused=refused,
                      shard="/".join(map(str, shard_spec)) if shard_spec else None)
        if html_path is not None:
            write_html(html_path, "validate_page", results=results, argv=argv, summary=run.summary)
    return run


@dataclass
class Merged:
    """What ``spec2onnx report merge`` gives: the merged run, its problems and exit status."""

    report: dict
    results: list
    problems: list  # lines for stderr
    status: int
    summary: str  # "merged N reports: ..."

    @property
    def table(self) -> str | None:
        """The run's summary table (None where no case was merged)."""
        return summary_table(self.results) if self.results else None


def merge_command(paths, *, json_path=None, junit_path=None, on_done=lambda merged: None, read_command=None) -> Merged:
    """``spec2onnx report merge``: the shards' reports merged (report.merge; ``read_command``: merge_reports'), the
    merged reports written after ``on_done(merged)``."""
    check_report_paths({"--json": json_path, "--junit": junit_path}, paths)
    merged, results, problems = merge_reports(paths, read_command)
    if not results and not problems:
        problems = ["no case ran in any of the shards (no spec file found, or none matches -k): the run validated nothing"]
    summary = (f"merged {len(paths)} report{'' if len(paths) == 1 else 's'}: " + summary_line(results)
               + f" in {merged['seconds']:.2f} s")
    done = Merged(merged, results, problems, merged_status(results, problems, refusal_policy(merged["command"])), summary)
    on_done(done)
    write_merged(merged, results, json_path=json_path, junit_path=junit_path)
    return done
