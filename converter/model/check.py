"""``spec2onnx check`` on ONNX files: many paths, one reading per file, onnx's checker, every target, summaries.

A file is read once (converter/untrusted/reading.py: structure only, bounded), passed through onnx's
checker (structure, topological order: a graph with a cycle is refused by every runtime), shape
inference runs once (once per group of equal nodes where that gives the same types: model_view.grouped_view), and every target's static check (converter/targets/check.py) runs on that one view.
A file that cannot be read is reported (one line) and the others are still checked. The JSON report's
schema is in docs/check.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..brief import counted
from ..errors import UserError
from ..files import check_distinct, check_output
from ..process.interrupts import held_interrupts
from ..untrusted.profiles import model_profiles
from ..untrusted.reading import non_utf8_field, read_model, validate_graph_tensors, without_data
from ..report import write_html, write_json
from ..targets.check import Problem, check_grouped
from ..targets.check import expand as expand_problems
from ..targets.checker import findings as checker_findings
from ..targets.checker import start as start_checker
from ..targets.dla_guide import DLA_RELEASE
from ..targets.model_view import ModelView, UnreadValue, grouped_view, infer_whole
from ..targets.probe import check as probed
from ..targets.target import Target, resolve_target
from ..targets.trt_importer import ONNX_TENSORRT, importer_view, render
from ..targets.validation import refused_by_checker, validate

SCHEMA = "spec2onnx-check/1"
SHOWN_NODES = 3  # node names shown in a summary line; -v / --json list every one


@dataclass
class FileReport:
    path: str
    error: str | None = None  # the one line saying why the file could not be read (exit status 2)
    nodes: int = 0
    size: int = 0
    checker: str | None = None  # onnx's checker's refusal (first line), when it refuses
    grouped: dict = field(default_factory=dict)  # target -> [(Problem, node indices or None)] (check_grouped)
    view: object = None  # the ModelView, until release(): per-node problems are made from it on demand
    lines: list = field(default_factory=list)  # what ``check`` prints for it (check_paths), in order
    drawn: dict = field(default_factory=dict)  # --html: target -> its verdict, lines and nodes (_drawing), before release()

    def counts(self, target: str) -> tuple[int, int]:
        """(errors, warnings) for ``target``, counted per node."""
        errors = warnings = 0
        for problem, members in self.grouped.get(target, ()):
            n = 1 if members is None else len(members)
            if problem.severity == "error":
                errors += n
            else:
                warnings += n
        return errors, warnings

    def runs(self, target: str) -> bool | None:
        """True: every node runs there; False: something does not; None: the file was not read."""
        if self.error is not None:
            return None
        return self.counts(target)[0] == 0

    def problems(self, target: str) -> list:
        """One Problem per node (errors first, in node order); needs the view (before release())."""
        found = expand_problems(self.view, self.grouped.get(target, ()))
        return sorted(found, key=lambda p: (p.severity != "error", p.index))

    def release(self) -> None:
        """Drop the model: what is left is the verdicts and their counts."""
        self.view = None
        self.grouped = {t: [(p, None if m is None else range(len(m))) for p, m in g] for t, g in self.grouped.items()}


def node_states(report: FileReport, target: str, at_most: int) -> tuple[list[dict], int]:
    """(the first ``at_most`` nodes of the file's main graph, in its order, each with its verdict on ``target``:
    "error" (does not run there), "warning" or "runs", and the first reason; the graph's node count), for check
    --html's drawing. Needs the view (before release())."""
    worst: dict[int, Problem] = {}
    for problem in report.problems(target):  # (errors first: a node's first problem is its worst)
        if problem.index >= 0:
            worst.setdefault(problem.index, problem)
    graph = report.view.model.graph
    nodes = []
    for index, node in enumerate(graph.node[:at_most]):
        problem = worst.get(index)
        nodes.append({"index": index, "name": node.name, "op": node.op_type, "inputs": list(node.input),
                      "outputs": list(node.output), "state": problem.severity if problem else "runs",
                      "note": problem.reason if problem else ""})
    return nodes, len(graph.node)


def expand(paths) -> list[tuple[str, str | None]]:
    """Each path, a folder replaced by its ``*.onnx`` files (recursively, sorted; symlinked folders not followed):
    (path, None), or (path, why it gives no file to check)."""
    found = []
    for raw in paths:
        path = str(raw)
        if os.path.isdir(path) and not os.path.islink(path):
            files = []
            for folder, subdirs, names in os.walk(path):
                subdirs.sort()
                files += [os.path.join(folder, n) for n in sorted(names) if n.lower().endswith(".onnx")]
            if not files:
                found.append((path, f"{path}: a folder with no .onnx file (check looks for *.onnx in folders)"))
            found += [(f, None) for f in files]
        else:
            found.append((path, None))
    return found


def check_file(path, targets: list, max_memory: int | None = None) -> FileReport:
    """Read ``path`` (structure only) and check it for each target; a FileReport whose ``error`` says why not."""
    try:
        read = read_model(path, max_memory)
        report = FileReport(str(path), nodes=len(read.model.graph.node), size=read.size)
        data, model, unread = read.data, read.model, read.unread
        del read
        pending = start_checker(data, model)  # onnx's checker beside the grouping pass (converter/targets/checker.py)
        view = grouped_view(model, unread)  # per group, where the checker accepts the model (else discarded)
        complaints = pending.result()
        report.checker = _first(complaints)
        report.view = view if view is not None and not complaints else _view(model, data, unread)
        del model, data, view
        report.view.source, report.view.folder = str(path), Path(path).parent
        validate(report.view)  # converter/targets/validation.py; a malformed tensor is a UserError (one line)
        _profiles_read(report.view.model, path)  # its optimization profiles, as run reads them: malformed is bad input
        report.grouped = grouped_for(report.view, targets, complaints)
    except UserError as exc:
        return FileReport(str(path), error=str(exc))
    except UnicodeError:  # a string field that is not UTF-8 (onnx.proto is proto2: parsed as it is): bad input, named
        bad = non_utf8_field(path, max_memory)
        if bad is None:
            raise
        return FileReport(str(path), error=bad)
    except MemoryError:  # the budget is an estimate: the machine may have less free memory than it allows
        return FileReport(str(path), error=f"{path}: out of memory while checking it; pass a --max-memory this "
                                           "machine can give, or check it on a larger one")
    return report


def _profiles_read(model, path) -> None:
    """The model's optimization profiles (metadata), read as run reads them: a malformed value is a UserError naming
    the file and the key (the targets' rules read them again, for their sizes)."""
    try:
        model_profiles(model)
    except UserError as exc:
        raise exc.located(file=str(path)) from None


def check_loaded(model, targets: list) -> dict:
    """target -> problems (one per node) for a model in memory (an onnx.ModelProto), onnx's checker first."""
    from onnx import TensorProto

    # tensors whose external data was not loaded: graph inputs of their type and shape, as for a file (onnx's
    # checker would look for their files relative to the current folder)
    unread = {t.name: (TensorProto.DataType.Name(t.data_type).lower(), tuple(t.dims)) for t in model.graph.initializer
              if t.data_location == TensorProto.EXTERNAL}
    if unread:
        copy = type(model)()
        copy.CopyFrom(model)
        model = without_data(copy, unread)
    validate_graph_tensors("model", model.graph, None)  # what the view reads the values of, before it reads them
    data = model.SerializeToString()
    complaints = checker_findings(data, model)
    view = _view(model, data, unread, not complaints)
    grouped = grouped_for(view, targets, complaints)
    return {t: sorted(expand_problems(view, g), key=lambda p: (p.severity != "error", p.index)) for t, g in grouped.items()}


def _view(model, data: bytes, unread: dict, accepted: bool = False):
    """The model's ModelView: types from onnx's shape inference once per group of equal nodes where the checker
    ``accepted`` the model and that gives what inference of the whole model gives (targets/model_view.grouped_view),
    else from inference of the whole model (from bytes: cheaper than from the ModelProto)."""
    if accepted:
        view = grouped_view(model, unread)
        if view is not None:
            return view
    inferred = infer_whole(model, data)
    return ModelView(inferred, inferred=inferred, unread=unread)


def _first(complaints) -> str | None:
    """The JSON report's ``checker``: onnx's checker's first complaint ("tolerated: ..." when onnxruntime loads the
    model anyway), or None."""
    if not complaints:
        return None
    return f"tolerated: {complaints[0].text}" if complaints[0].tolerated else complaints[0].text


def grouped_for(view, targets: list, complaints) -> dict:
    """target -> grouped problems: onnx's checker's complaints (each one; one about a node only where validation did
    not already report that node's own), then the target's check."""
    nodes_refused = refused_by_checker(view)
    found = []
    for c in complaints:
        if c.node and nodes_refused:
            continue
        if c.tolerated:
            found.append((f"onnx's checker refuses the model, onnxruntime loads it: {c.text}", "warning"))
        else:
            found.append((f"onnx's checker refuses the model (no runtime loads it): {c.text}", "error"))
    result = {}
    for target in map(resolve_target, targets):  # (a name from Python is resolved here, the entry)
        name = target.name
        grouped = [(Problem(name, "", "", reason, level), None) for reason, level in found]
        grouped += check_grouped(view, target)  # a Target carries the precision the build allows (DLA)
        result[name] = sorted(grouped, key=lambda g: (g[0].severity != "error", g[0].index))
    return result


def target_notes(target: Target) -> list[str]:
    """What a target's verdict models that its lines do not say (openvino: the way the model is read), a line each."""
    return target.notes


def summary_lines(report: FileReport, target: str, verbose: bool = False, *, quiet: bool = False,
                  elsewhere=()) -> list[str]:
    """The lines ``check`` prints for ``target``'s problems with ``report``'s model.

    ``verbose``: one line per problem (per node). Else one line per distinct problem with its node count: a
    problem's reason, or its summary (Problem.summary) where problems of several ops share one (OpenVINO's "not
    measured": one line for 1,625 nodes of 10 op forms, not ten), with its op forms and first nodes.
    ``quiet``: errors only (the verdict line still counts the warnings). ``elsewhere``: targets checked in the same
    run, whose problems are printed under their own name: a portable target's lines leave them out and say so.
    """
    tag = {"error": "ERROR", "warning": "WARN "}
    kept, moved = [], {}
    for problem, members in report.grouped.get(target, ()):
        if quiet and problem.severity != "error":
            continue
        if problem.target != target and problem.target in elsewhere:
            moved[problem.target] = moved.get(problem.target, 0) + (1 if members is None else len(members))
            continue
        kept.append((problem, members))
    if verbose:
        found = sorted(expand_problems(report.view, kept), key=lambda p: (p.severity != "error", p.index))
        lines = [f"{tag.get(p.severity, 'ERROR')} {p}" for p in found]
    else:
        lines = [_summary_line(tag.get(key[0], "ERROR"), key[1], entry) for key, entry in _merged(report, kept).items()]
    for member, count in moved.items():
        lines.append(f"      ({target} includes {member}: its {count:,} problem{'s' * (count != 1)} "
                     f"{'are' if count != 1 else 'is'} listed under {member})")
    return lines


SHOWN_FORMS = 6  # op forms (op and types) named in a summary line that covers several


def _merged(report: FileReport, grouped) -> dict:
    """(severity, member target, summary or reason) -> the problems sharing it: their count, their op forms
    ((op, types) -> [count, first node labels]) and their distinct reasons."""
    merged: dict[tuple, dict] = {}
    for problem, members in grouped:
        key = (problem.severity, problem.target, problem.summary or problem.reason)  # target: a member of portable
        entry = merged.setdefault(key, {"first": problem, "count": 0, "forms": {}, "reasons": set()})
        n = 1 if members is None else len(members)
        entry["count"] += n
        entry["reasons"].add(problem.reason)
        form = entry["forms"].setdefault((problem.op, problem.types), [0, []])
        form[0] += n
        if len(form[1]) < SHOWN_NODES:
            form[1] += _labels(report, problem, members, SHOWN_NODES - len(form[1]))
    return merged


def _summary_line(tag: str, member: str, entry: dict) -> str:
    problem, count, forms = entry["first"], entry["count"], entry["forms"]
    if count == 1:  # (the WARN tag says what str()'s " [warning]" says for the API's lists)
        return f"{tag} {str(problem).removesuffix(' [warning]') if problem.severity != 'error' else problem}"
    reason = problem.reason if len(entry["reasons"]) == 1 else (problem.summary or problem.reason)
    if len(forms) == 1:
        (op, types), (_, shown) = next(iter(forms.items()))
        names = ", ".join(shown) + (", ..." if count > len(shown) else "")
        what = f"{op} ({types})" if types else op
        return f"{tag} {member}: {count:,} {what} nodes: {reason} ({names})"
    by_count = sorted(forms.items(), key=lambda f: -f[1][0])  # (stable: graph order among equal counts)
    listed = ", ".join(f"{n:,} {op}" + (f" ({types})" if types else "") for (op, types), (n, _) in by_count[:SHOWN_FORMS])
    more = f", and {len(forms) - SHOWN_FORMS} more op forms" if len(forms) > SHOWN_FORMS else ""
    # the first node of each form, with its op (a named node's label is its name alone)
    firsts = [shown[0] if shown[0].endswith(f"({op})") else f"{shown[0]} ({op})"
              for (op, _), (_, shown) in list(forms.items())[:SHOWN_NODES] if shown]
    names = ", ".join(firsts) + (", ..." if count > len(firsts) else "")
    return f"{tag} {member}: {count:,} nodes of {len(forms)} op forms ({listed}{more}): {reason} ({names})"


def _labels(report: FileReport, problem, members, at_most: int) -> list[str]:
    if members is None:
        return [problem.node or "model"]
    nodes = report.view.graph.node
    return [nodes[i].name or f"#{i} ({nodes[i].op_type})" for i in list(members[:at_most])]


def verdict_line(report: FileReport, target: str) -> str:
    failing, warned = report.counts(target)
    nodes = counted(report.nodes, "node")
    if failing:
        count = f"{failing:,} problem{'s' * (failing != 1)}"
        return f"{report.path}: {count}: not every node runs on {target} ({nodes})"
    warnings = f", {warned:,} warning{'s' * (warned != 1)}" if warned else ""
    return f"{report.path}: every node runs on {target} ({nodes}{warnings})"


def table(reports: list[FileReport], targets: list[str]) -> str:
    """Files that run, are refused, or could not be read, per target."""
    width = max([len(t) for t in targets] + [len("target")])
    lines = [f"{'target':<{width}}  {'runs':>7}  {'refused':>7}  {'unreadable':>10}"]
    for target in targets:
        verdicts = [r.runs(target) for r in reports]
        lines.append(f"{target:<{width}}  {verdicts.count(True):>7}  {verdicts.count(False):>7}  "
                     f"{verdicts.count(None):>10}")
    return "\n".join(lines)


def exit_status(reports: list[FileReport], targets: list[str]) -> int:
    """2: a file could not be read; else 1: some file does not run on some target; else 0."""
    if any(r.error is not None for r in reports):
        return 2
    return 1 if any(r.runs(t) is False for r in reports for t in targets) else 0


def json_entry(r: FileReport, targets: list[str]) -> dict:
    """One file of the ``--json`` report (docs/check.md); per-node problems need the view (before release())."""
    entry = {"path": r.path, "read": r.error is None, "error": r.error, "nodes": r.nodes, "bytes": r.size,
             "checker": r.checker, "targets": {}}
    for target in targets if r.error is None else ():
        errors, warnings = r.counts(target)
        entry["targets"][target] = {
            "runs": r.runs(target), "errors": errors, "warnings": warnings,
            "problems": [{"node": p.node or None, "index": p.index if p.index >= 0 else None, "op": p.op or None,
                          "types": p.types or None, "severity": p.severity, "reason": p.reason}
                         for p in r.problems(target)],
        }
    return entry


def as_json(reports: list[FileReport], entries: list[dict], targets: list[str]) -> dict:
    """The ``--json`` report (docs/check.md): ``entries`` from json_entry, one per report."""
    summary = {}
    for target in targets:
        verdicts = [r.runs(target) for r in reports]
        summary[target] = {"runs": verdicts.count(True), "refused": verdicts.count(False),
                           "unreadable": verdicts.count(None)}
    return {"schema": SCHEMA, "targets": targets, "files": entries, "summary": summary,
            "exit_status": exit_status(reports, targets)}


def probe(report: FileReport, targets: list[Target]) -> list[str]:
    """``check --probe``: ask each target's installed runtime (converter/targets/probe.py); its verdict replaces
    the static one in ``report``. Returns a line per target saying whether its verdict was probed or static."""
    lines = []
    for target in targets:
        verdicts = probed(report.view.model, target, probe=True)
        report.grouped[target.name] = [(p, None) for v in verdicts for p in v.problems]
        lines += [f"{v.target}: {v.how}" for v in verdicts]
    return lines


@dataclass
class CheckRun:
    """What ``spec2onnx check PATHS`` gives, and ``spec2onnx.check`` of several files or a folder: each file's
    report with the lines the command prints for it, the table of several, the ``--json`` report and the exit
    status (0 every node of every file runs on every target; 1 something does not; 2 a file was not read)."""

    targets: list  # the target names, in the order given
    files: list  # FileReport, one per file (released: the verdicts and their counts remain)
    json: dict | None = None  # the --json report (docs/check.md); None where it was not asked for
    warnings: list = field(default_factory=list)  # lines for stderr before the files' (--fp16/--int8 meaning nothing)

    @property
    def status(self) -> int:
        """The command's exit status: 2 a file could not be read; else 1 some file does not run on some target; else 0."""
        return exit_status(self.files, self.targets)

    @property
    def ok(self) -> bool:
        """True when every node of every file runs on every target (warnings allowed)."""
        return self.status == 0

    @property
    def table(self) -> str | None:
        """Files that run, are refused, or could not be read, per target; None for one file (no table printed)."""
        return table(self.files, self.targets) if len(self.files) > 1 else None


def check_paths(paths, targets: list, *, verbose: bool = False, quiet: bool = False, probe_runtime: bool = False,
                layers: bool = False, max_memory: int | None = None, json: bool = True, json_path=None, warnings=(),
                html_path=None, html_nodes: int = 200, argv=(), on_file=lambda report: None,
                on_done=lambda run: None) -> CheckRun:
    """``spec2onnx check``: each of ``paths`` (files, or folders: their *.onnx, recursively) read once and checked for
    each of ``targets`` (Target objects); ``on_file(report)`` as each is done (its ``lines``: what the command prints
    for it; its ``error``: why it was not read). One model in memory at a time. ``json``: make the --json report
    (every node's problems: the command makes it only for --json); ``json_path``: write it there after
    ``on_done(run)`` (refused before any work where it is an input or cannot be written). ``html_path``: checked
    likewise, each file's first ``html_nodes`` nodes kept with their verdicts (FileReport.drawn), and the page written
    last (html_report.check_page)."""
    if verbose and quiet:
        raise UserError("-q and -v: give one of them (-q: errors only; -v: every node)")
    names = [t.name for t in targets]
    if layers and not any(t.importer for t in targets):
        raise UserError(f"--layers: the importer view is onnx-tensorrt's; use it with --target tensorrt or tensorrt-dla, "
                        f"not {', '.join(names)}")
    entries = expand(paths)
    json = json or json_path is not None
    for option, path in {"--json": json_path, "--html": html_path}.items():
        if path is not None:
            check_output(option, path, [p for p, _ in entries])
    check_distinct({"--json": json_path, "--html": html_path})
    reports, json_entries, interrupted = [], [], None
    try:  # Ctrl-C or SIGTERM: the files checked by then are reported (README: reports are still written)
        for path, why in entries:
            report = check_file(path, list(targets), max_memory) if why is None else FileReport(path, error=why)
            if report.error is None:
                report.lines = _file_lines(report, list(targets), verbose, quiet, probe_runtime, layers)
                report.drawn = {n: _drawing(report, n, names, html_nodes) for n in names} if html_path is not None else {}
            reports.append(report)
            if json:
                json_entries.append(json_entry(report, names))
            on_file(report)
            report.release()  # one model in memory at a time
    except KeyboardInterrupt as exc:
        interrupted = exc
    run = CheckRun(names, reports, as_json(reports, json_entries, names) if json else None, list(warnings))
    if run.json is not None:
        run.json["interrupted"] = interrupted is not None  # (its files: those checked by then)
    on_done(run)
    with held_interrupts():  # (written whole; Ctrl-C again: at once)
        if json_path is not None:
            write_json(json_path, run.json)
        if html_path is not None:
            write_html(html_path, "check_page", argv=argv, reports=reports)
    if interrupted is not None:  # (the command line's status: 130, 143)
        raise interrupted
    return run


def _drawing(report: FileReport, name: str, names: list, at_most: int) -> dict:
    """check --html's part of one file and target: the verdict, the summary lines (neither -v nor -q) and the first
    ``at_most`` nodes with their verdicts (node_states), with the node count."""
    nodes, total = node_states(report, name, at_most)
    return {"name": name, "verdict": verdict_line(report, name), "class": "runs" if report.runs(name) else "error",
            "lines": summary_lines(report, name, False, quiet=False, elsewhere=names), "nodes": nodes, "total": total}


def _file_lines(report: FileReport, targets: list, verbose: bool, quiet: bool, probe_runtime: bool, layers: bool) -> list:
    """What ``check`` prints for a file read: the probe's lines, the importer view, and per target its notes, its
    summary lines and its verdict."""
    names = [t.name for t in targets]
    lines = []
    if probe_runtime:  # the probed verdicts replace the static ones (converter/targets/probe.py)
        lines += probe(report, targets)
    if layers:
        lines += importer_view_lines(report)
    for target in targets:
        if target.dla and not quiet:
            lines.append(f"DLA rules: {DLA_RELEASE}")
        lines += target_notes(target) if not quiet else []
        lines += summary_lines(report, target.name, verbose, quiet=quiet, elsewhere=names)
        lines.append(verdict_line(report, target.name))
    return lines


def importer_view_lines(report: FileReport) -> list[str]:
    """The lines ``check --layers`` shows for a checked file: the TensorRT layers onnx-tensorrt builds from it."""
    lines = [f"TensorRT layers onnx-tensorrt builds ({ONNX_TENSORRT}):"]
    try:
        layers = importer_view(report.view.model, view=report.view)
    except UnreadValue as exc:
        return lines + [f"(not shown: a layer needs the value of {exc}, whose data check does not read)"]
    rendered = render(layers)
    return lines + (LAYERS_LEGEND if "?" in rendered else []) + [rendered or "(no layers)"]


# What a "?" in the importer view means (converter/targets/trt_importer.py): said once, before the layers.
LAYERS_LEGEND = [
    '  ("?OP": a node of an op this view does not model; onnx-tensorrt may still import it, as the check\'s verdict',
    "   says, but the layers it builds are not listed. A \"?\" type: one onnx's shape inference left unknown.)"]
