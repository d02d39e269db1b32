"""Reports of a validation run: the terminal (progress, lines, summary), JSON and JUnit XML, and --html's page
(html_report, imported where one is asked for).

The JSON schema is documented in docs/report-schema.md.
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import json
import math
import platform
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import asdict, fields

from . import __version__
from .brief import counted, disagreement_line
from .errors import UserError, printable
from .files import write_atomic
from .results import MAX_SHARDS, OUTCOMES, REFUSED, CaseResult, bad_outcomes
from .runners.onnxruntime import ort

# /2: the REFUSED outcome (in /1 a refusal was an ERROR with bad_input); /3: each case's target, run MODEL's nonfinite
# comparisons; /4: run MODEL's passing comparisons too, each with its error statistics (error, median_abs,
# error_stat, passed), the tolerance per output, and each runtime's output value statistics (model.runtimes[].stats)
SCHEMA = "spec2onnx-report/4"


def counts(results: list[CaseResult]) -> dict[str, int]:
    c = Counter(r.outcome for r in results)
    return {o: c.get(o, 0) for o in OUTCOMES}


def summary_line(results: list[CaseResult], noun: str = "case") -> str:
    c = counts(results)
    total = len(results)
    parts = [f"{c['PASS']} passed", f"{c['FAIL']} failed", counted(c["ERROR"], "error")]
    parts += [f"{c[o]} {o.lower()}" for o in ("XFAIL", "XPASS", REFUSED) if c[o]]
    return f"{total} {noun}{'s' * (total != 1)}: " + ", ".join(parts)


def summary_table(results: list[CaseResult], row=lambda r: r.kind, title: str = "layer kind") -> str:
    """Outcomes per layer kind (the ops of the case's network), or per ``row(result)`` under ``title``; the
    REFUSED column where the target refused some."""
    table: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        table[row(r)][r.outcome] += 1
    total = counts(results)
    shown = [o for o in OUTCOMES if o != REFUSED or total[o]]
    width = max([len(k) for k in table] + [len(title), len("total")])
    lines = [f"{title:<{width}}  " + "  ".join(f"{o:>5}" for o in shown)]
    for kind in sorted(table):
        lines.append(f"{kind:<{width}}  " + "  ".join(f"{table[kind][o]:>{max(5, len(o))}}" for o in shown))
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{total[o]:>{max(5, len(o))}}" for o in shown))
    return "\n".join(lines)


def disagreement_lines(results: list[CaseResult]) -> list[str]:
    return [f"{r.id}: {disagreement_line(d, r.reason)}" for r in results for d in r.disagreements]


def to_json(results: list[CaseResult], *, started: _dt.datetime, seconds: float, argv: list[str], interrupted: bool,
            shard: str | None = None) -> dict:
    import onnx

    return {
        "schema": SCHEMA,
        "spec2onnx": __version__,
        "onnx": onnx.__version__,
        "onnxruntime": ort.__version__ if ort is not None else None,
        "openvino": _openvino_version(results),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "started": started.isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
        "command": argv,
        "interrupted": interrupted,
        "shard": shard,
        "summary": counts(results) | {"total": len(results)},
        "cases": [_case_json(r) for r in sorted(results, key=lambda r: (r.spec, r.case, r.label))],
    }


def _openvino_version(results: list[CaseResult]) -> str | None:
    """The installed OpenVINO's version where a result ran on it (validate --runtime openvino; run MODEL's comparisons
    with it on either side), else None: its answers differ by version (the project's xfails and tables name one)."""
    if not any(r.runtime == "openvino" or "openvino" in r.case.split(" vs ") for r in results):
        return None
    try:
        return importlib.metadata.version("openvino")
    except importlib.metadata.PackageNotFoundError:
        return None


def write_reports(results: list[CaseResult], *, json_path=None, junit_path=None, started, seconds: float, argv,
                  interrupted: bool, refused: str = "skip", shard: str | None = None, extra: dict | None = None,
                  selected: int | None = None) -> None:
    """Write the JSON report (``extra``: more top-level keys, such as run's ``model``) and the JUnit XML a run
    asked for (paths checked before the run); ``refused``: the run's --refused, which makes a REFUSED case a
    JUnit <skipped> or <failure>; ``interrupted``: the run stopped before its end (Ctrl-C, SIGTERM), which the JUnit
    report marks (to_junit), saying how many of the ``selected`` cases did not run where the caller knows it."""
    if json_path is not None:
        document = to_json(results, started=started, seconds=seconds, argv=argv, interrupted=interrupted, shard=shard)
        write_json(json_path, document | (extra or {}))
    if junit_path is not None:
        write_junit(junit_path, results, seconds, refused, interrupted=interrupted, selected=selected)


def write_html(file, page: str, /, **data) -> None:
    """``--html FILE`` (run, validate, reduce, check): html_report's ``page`` drawn from ``data``, written to ``file``
    (checked before the run, as the other reports)."""
    from . import html_report  # start-up time: only --html draws (tests/test_startup.py: no command imports it else)

    html_report.write_page(file, getattr(html_report, page)(**data))


def _case_json(r: CaseResult) -> dict:
    d = asdict(r)
    del d["pictures"]  # (--html's, drawn on its page)
    d["id"] = r.id
    d["ops"] = list(r.ops)
    d["seconds"] = round(r.seconds, 6)
    return d


# Characters XML 1.0 cannot hold, even escaped: C0 controls but tab, newline and carriage return, lone
# surrogates (a path's undecodable bytes arrive as U+DC80..U+DCFF, Python's surrogateescape), U+FFFE, U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` as XML 1.0 can hold it: every character it cannot is written as a Python escape
    (``\\x01``; an undecodable byte of a path as ``\\xff``, the byte itself), so the report stays
    well-formed and still says what was there."""
    return _NOT_XML.sub(_escape_char, text)


def _escape_char(match: re.Match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


INTERRUPTED_CASE = "(interrupted)"  # the JUnit testcase that marks a run stopped before its end


def interruption_message(finished: int, selected: int | None = None) -> str:
    """What the JUnit report of a run stopped by Ctrl-C or SIGTERM says: how many cases finished, and, where the
    caller knows how many were selected, how many did not run."""
    if selected is not None and selected >= finished:
        rest = f"{selected - finished:,} of the {selected:,} cases selected did not run"
    else:
        rest = "the cases selected that had not finished did not run and are not in this report"
    return (f"the run was interrupted (Ctrl-C or SIGTERM) after {finished:,} finished "
            f"case{'s' * (finished != 1)}: {rest}")


def to_junit(results: list[CaseResult], seconds: float, refused: str = "skip", *, interrupted: bool | str = False,
             selected: int | None = None) -> bytes:
    """JUnit XML (well-formed whatever the paths, names and messages hold: see ``xml_text``). A REFUSED case is
    <skipped> (``refused="skip"``, as pytest skips a test that does not apply) or a <failure> ("fail").

    ``interrupted`` (true, or the line saying what was interrupted: a merged report's shards): the run stopped
    before its end, so that its cases are only those that finished. A CI system that reads only JUnit would show
    such a run green; the report adds a testcase named INTERRUPTED_CASE with an <error type="INTERRUPTED"> (counted
    in ``tests`` and ``errors``; its message says how many of the ``selected`` cases did not run where that is known:
    interruption_message) and the suite's property ``interrupted`` = ``true``."""
    c = counts(results)
    stopped = 1 if interrupted else 0
    failing_refusals = c[REFUSED] if refused == "fail" else 0
    suite = ET.Element("testsuite", name="spec2onnx", tests=str(len(results) + stopped),
                       failures=str(c["FAIL"] + c["XPASS"] + failing_refusals), errors=str(c["ERROR"] + stopped),
                       skipped=str(c["XFAIL"] + c[REFUSED] - failing_refusals), time=f"{seconds:.3f}")
    if interrupted:
        message = interrupted if isinstance(interrupted, str) else interruption_message(len(results), selected)
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="interrupted", value="true")
        case = ET.SubElement(suite, "testcase", classname="spec2onnx", name=INTERRUPTED_CASE, time="0.000000")
        ET.SubElement(case, "error", message=message[:500], type="INTERRUPTED").text = message
    for r in results:
        name = r.case + (f" [{r.label}]" if r.label else "")
        case = ET.SubElement(suite, "testcase", classname=f"spec2onnx.{r.spec}", name=name, time=f"{r.seconds:.6f}",
                             file=r.path)
        detail = "\n".join(r.problems)
        if r.shapes or r.notes:  # a case of a dynamic network: the shapes it ran at; what its values were compared as
            properties = ET.SubElement(case, "properties")
            if r.shapes:
                ET.SubElement(properties, "property", name="shapes", value=r.shapes)
            for note in r.notes:
                ET.SubElement(properties, "property", name="note", value=note)
        if r.outcome in ("FAIL", "XPASS"):
            ET.SubElement(case, "failure", message=(r.problems or [r.outcome])[0][:500], type=r.outcome).text = detail
        elif r.outcome == "ERROR":
            ET.SubElement(case, "error", message=(r.problems or ["error"])[0][:500], type="ERROR").text = detail
        elif r.outcome == "XFAIL":
            ET.SubElement(case, "skipped", message=f"known failure: {r.reason}", type="XFAIL").text = detail
        elif r.outcome == REFUSED:
            tag = "failure" if refused == "fail" else "skipped"
            ET.SubElement(case, tag, message=(r.problems or [REFUSED])[0][:500], type=REFUSED).text = detail
    root = ET.Element("testsuites", name="spec2onnx", tests=str(len(results) + stopped))
    root.append(suite)
    for element in root.iter():
        element.attrib = {key: xml_text(value) for key, value in element.attrib.items()}
        if element.text:
            element.text = xml_text(element.text)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def write_json(path: str, document: dict) -> None:
    """Strict JSON: NaN and infinities (not JSON) are written as null, at any depth."""
    text = json.dumps(_finite(document), indent=1, default=_json_default, allow_nan=False)
    _write_report(path, (text + "\n").encode())


def _write_report(path: str, data: bytes) -> None:
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise UserError(f"{path}: cannot write the report ({exc.strerror or exc})") from None


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def write_junit(path: str, results: list[CaseResult], seconds: float, refused: str = "skip", *,
                interrupted: bool | str = False, selected: int | None = None) -> None:
    _write_report(path, to_junit(results, seconds, refused, interrupted=interrupted, selected=selected))


def _json_default(value):
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)


class Progress:
    """A live progress bar on a terminal (stderr), by spec files started; nothing when not a terminal."""

    def __init__(self, total_specs: int, enabled: bool | None = None, stream=sys.stderr, refused: str = "skip"):
        self.total, self.cases, self.bad, self.failing = total_specs, 0, 0, bad_outcomes(refused)
        self.specs: set[str] = set()
        self.stream = stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self._shown = False

    def update(self, result: CaseResult) -> None:
        self.cases += 1
        self.bad += result.outcome in self.failing
        self.specs.add((result.path, result.target))  # (a spec file runs once per --target given)
        if self.enabled:
            width = 30
            filled = int(width * len(self.specs) / max(self.total, 1))
            bar = "#" * filled + "-" * (width - filled)
            self.stream.write(f"\r[{bar}] {len(self.specs)}/{self.total} specs, {self.cases} cases, {self.bad} failing ")
            self.stream.flush()
            self._shown = True

    def clear(self) -> None:
        if self._shown:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()


def case_lines(result: CaseResult, *, timing: bool = False, details: bool = True) -> list[str]:
    """A result as validate and run print it: its outcome and id (a dynamic network's case shapes; ``timing``: a
    PASS's time; an XFAIL's reason), then, with ``details``, its problems, indented (REFUSED: its one line)."""
    took = f"  [{result.seconds * 1000:.1f} ms]" if timing and result.outcome == "PASS" else ""
    reason = f"  (known failure: {result.reason})" if result.outcome == "XFAIL" else ""
    shapes = f"  ({printable(result.shapes)})" if result.shapes else ""
    return ([f"{result.outcome:5} {printable(result.id)}{shapes}{took}{reason}"]
            + [f"      {printable(problem)}" for problem in (result.problems if details else ())]
            + [f"      note: {printable(note)}" for note in (result.notes if details else ())])


class Live:
    """validate's terminal view while it runs: the progress bar (on a terminal, without -q or -v), and a line for
    each case that did not pass (for every case with -v or off a terminal: CI logs; with -q, a REFUSED case under
    --refused skip is only counted); a known failure's problems only with -v."""

    def __init__(self, say, *, quiet: bool = False, verbose: bool = False, refused: str = "skip", terminal: bool = False):
        self.say, self.quiet, self.verbose, self.refused = say, quiet, verbose, refused
        self.every_case, self.terminal = verbose or (not quiet and not terminal), terminal
        self.progress = Progress(0, enabled=False)

    def start(self, total_specs: int) -> None:
        self.progress = Progress(total_specs, enabled=self.terminal and not self.quiet and not self.verbose,
                                 refused=self.refused)

    def __call__(self, result: CaseResult) -> None:
        self.progress.update(result)
        quiet_refusal = self.quiet and result.outcome == REFUSED and self.refused == "skip"  # counted in the summary
        if self.every_case or (result.outcome != "PASS" and not quiet_refusal):
            self.progress.clear()
            for line in case_lines(result, timing=True, details=result.outcome != "XFAIL" or self.verbose):
                self.say(line)


# Merging the JSON reports of one run's shards (``spec2onnx report merge``)

MERGE_MAX_BYTES = 512 * 2**20  # one report file: a JSON text of half a gigabyte is no report of this tool
# Options that do not change what a run computes: they may differ between the shards of one run (their reports and
# pages, the workers, what the terminal shows).
_PER_SHARD_VALUE = {"--shard", "--json", "--junit", "--html", "-j", "--jobs", "--repro-dir", "--save-host-model"}
PER_SHARD_OPTIONS = _PER_SHARD_VALUE | {"-q", "--quiet", "-v", "--verbose", "--debug"}  # (and the flags)
_CASE_FIELDS = [f.name for f in fields(CaseResult)]
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def run_options(command, read=None) -> tuple[str, ...]:
    """What a report's command says about its run, as written: the program's path and the per-shard options left out
    (``--shard``, the reports and the page, ``-j``, ``-q``/``-v``); the merged report's command. ``read``: the command
    line's reader of a command (merge's ``read_command``), which knows grouped short options (``-qj2``); without it,
    or where it cannot read the command, the words are taken as written."""
    reading = _read(read, command)
    return reading.run_words(_per_shard) if reading is not None else _text_options(command)


def _read(read, command):
    return read(command) if read is not None and isinstance(command, (list, tuple)) and len(command) > 1 else None


def _per_shard(names) -> bool:
    """Whether a parameter (its option names) may differ between the shards of one run."""
    return any(name in PER_SHARD_OPTIONS for name in names)


def _text_options(command) -> tuple[str, ...]:
    """run_options of a command read as text: its words, the per-shard ones left out."""
    out, args, i = [], list(command[1:]), 0
    while i < len(args):
        arg = args[i]
        name = arg.split("=", 1)[0]
        if name in _PER_SHARD_VALUE:
            i += 1 if "=" in arg else 2
            continue
        if arg in PER_SHARD_OPTIONS:
            i += 1
            continue
        out.append(arg)
        i += 1
    return tuple(out)


def shard_of(document: dict) -> tuple[int, int] | None:
    """(I, N) of a report of ``--shard I/N`` (its ``shard`` field, else its command), None for a whole run."""
    text = document.get("shard")
    if text is None:
        text = _command_shard(document.get("command") or [])
    match = _SHARD.fullmatch(text) if isinstance(text, str) else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def _command_shard(command) -> str | None:
    """The text of ``--shard`` in a command (its last), None where it has none."""
    text = None
    for i, arg in enumerate(command):
        if arg == "--shard" and i + 1 < len(command):
            text = command[i + 1]
        elif isinstance(arg, str) and arg.startswith("--shard="):
            text = arg.split("=", 1)[1]
    return text


def read_report(path) -> dict:
    """A JSON report (schema SCHEMA, this version's) read and checked field by field, every field merge reads; a
    report that contradicts itself (a summary that does not count its cases, a case whose id is not its spec and
    case, a PASS whose comparison failed) refused as one that cannot be read: UserError naming the file and the
    field."""
    path = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MERGE_MAX_BYTES + 1)
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MERGE_MAX_BYTES:
        raise UserError(f"{path}: larger than {MERGE_MAX_BYTES // 2**20} MiB; not a spec2onnx report")
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{path}: not JSON ({' '.join(str(exc).split())[:100]})") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise UserError(f"{path}: schema: {found!r}; a report of `validate --json` or `run --json` has {SCHEMA!r}")
    for key, kind in (("cases", list), ("command", list), ("seconds", (int, float)), ("started", str)):
        if not isinstance(document.get(key), kind) or isinstance(document.get(key), bool):
            raise UserError(f"{path}: {key}: {_brief(document.get(key))} is not a {_kind_name(kind)}")
    if not all(isinstance(a, str) for a in document["command"]):
        raise UserError(f"{path}: command: every entry must be text")
    _check_seconds(f"{path}: seconds", document["seconds"])
    if not isinstance(document.get("interrupted", False), bool):
        raise UserError(f"{path}: interrupted: {_brief(document['interrupted'])} is not true or false")
    for key in ("spec2onnx", "onnx", "onnxruntime", "openvino", "python", "platform"):  # (missing: null, as onnxruntime's can be)
        if not isinstance(document.get(key), (str, type(None))):
            raise UserError(f"{path}: {key}: {_brief(document[key])} is not text")
    if not isinstance(document.get("model"), (dict, type(None))):
        raise UserError(f"{path}: model: {_brief(document['model'])} is not a mapping (run MODEL's model section)")
    _check_shard(path, document)
    document["cases"] = [_case(path, i, c) for i, c in enumerate(document["cases"])]
    _check_summary(path, document)
    _started(path, document["started"])
    return document


def _check_shard(path: str, document: dict) -> None:
    """A report's shard: its ``shard`` field (null, or ``I/N``) and its command's ``--shard`` are I/N, the same one, N
    at most MAX_SHARDS."""
    field_text, command_text = document.get("shard"), _command_shard(document["command"])
    for where, text in (("shard", field_text), ("command: --shard", command_text)):
        if text is not None and (not isinstance(text, str) or not _SHARD.fullmatch(text)):
            raise UserError(f"{path}: {where}: {_brief(text)} is not I/N (the I-th of N shards, as 2/3)")
    try:
        shard = shard_of(document)
        other = shard_of({"shard": command_text}) if field_text is not None and command_text is not None else shard
    except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
        raise UserError(f"{path}: shard (or --shard in command): I/N with more digits than a shard number "
                        f"has (N is at most {MAX_SHARDS:,})") from None
    if shard is not None and shard[1] > MAX_SHARDS:
        raise UserError(f"{path}: shard {shard[0]}/{shard[1]}: N is above {MAX_SHARDS:,}; one report per shard, "
                        "and no run has that many")
    if other != shard:
        raise UserError(f"{path}: shard: {_brief(field_text)}, but its command has --shard {command_text}")


def _check_summary(path: str, document: dict) -> None:
    """A report's ``summary`` (where it has one) counts its cases: the merge recounts them, and a report whose
    summary says otherwise has been edited or damaged."""
    if "summary" not in document:
        return
    summary, want = document["summary"], counts(document["cases"]) | {"total": len(document["cases"])}
    if not isinstance(summary, dict) or not all(type(v) is int for v in summary.values()):  # (a bool is no count)
        raise UserError(f"{path}: summary: {_brief(summary)} is not a mapping of counts")
    if summary != want:
        differ = [k for k in [*want, *summary] if summary.get(k) != want.get(k)]
        said = ", ".join(f"{k} {_brief(summary[k])}" if k in summary else f"no {k}" for k in dict.fromkeys(differ))
        found = ", ".join(f"{k} {want[k]}" if k in want else f"no {k}" for k in dict.fromkeys(differ))
        raise UserError(f"{path}: summary: {said}, but its {counted(len(document['cases']), 'case')} count {found}")


def _started(path: str, text: str) -> _dt.datetime:
    """When a report's run started: its ``started``, an ISO 8601 date and time (UTC where it names no offset)."""
    try:
        when = _dt.datetime.fromisoformat(text)
    except ValueError:
        raise UserError(f"{path}: started: {_brief(text)} is not an ISO 8601 date and time "
                        "(as 2026-11-21T19:50:00+00:00)") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=_dt.timezone.utc)


def _check_seconds(where: str, value) -> None:
    """A report's seconds (the run's, a case's): a finite number >= 0; 10**400 (no float holds it), Infinity or
    NaN (Python's json reads both) would fail the sum, the JUnit time or the JSON written."""
    try:
        ok = math.isfinite(float(value)) and value >= 0
    except OverflowError:
        ok = False
    if not ok:
        shown = f"an integer of {len(str(value)):,} digits" if isinstance(value, int) and abs(value) > 10**30 else \
            _brief(value)
        raise UserError(f"{where}: {shown} is not a number of seconds (finite, >= 0)")


def _kind_name(kind) -> str:
    return {list: "list", str: "text", dict: "mapping", bool: "boolean"}.get(kind, "number")


def _brief(value) -> str:
    return json.dumps(value)[:60] if value is not None else "missing"


def _case(path: str, index: int, case) -> CaseResult:
    where = f"{path}: cases[{index}]"
    if not isinstance(case, dict):
        raise UserError(f"{where}: {_brief(case)} is not a mapping")
    values = {}
    for name in _CASE_FIELDS:
        if name not in case:
            if name in ("spec", "case", "outcome"):
                raise UserError(f"{where}.{name}: missing")
            continue
        value = case[name]
        kind = _FIELD_KINDS.get(name, str)
        if name == "seconds" and value is None:
            value = 0.0
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise UserError(f"{where}.{name}: {_brief(value)} is not a {_kind_name(kind)}")
        if name == "seconds":
            _check_seconds(f"{where}.seconds", value)
        values[name] = tuple(value) if name == "ops" else value
    if values["outcome"] not in OUTCOMES:
        raise UserError(f"{where}.outcome: {values['outcome']!r} is not one of {', '.join(OUTCOMES)}")
    for name in ("problems", "ops", "notes"):
        if not all(isinstance(p, str) for p in values.get(name, ())):
            raise UserError(f"{where}.{name}: every entry must be text")
    for name in ("comparisons", "disagreements"):
        for k, entry in enumerate(values.get(name, ())):
            if not isinstance(entry, dict):
                raise UserError(f"{where}.{name}[{k}]: {_brief(entry)} is not a mapping")
            if not isinstance(entry.get("passed", False), bool):
                raise UserError(f"{where}.{name}[{k}].passed: {_brief(entry['passed'])} is not true or false")
    result = CaseResult(**values)
    if "id" in case and case["id"] != result.id:  # (the id is made of the fields: a report edited by hand)
        raise UserError(f"{where}.id: {_brief(case['id'])} is not {_brief(result.id)}, its spec, case and label")
    failed = next((k for k, c in enumerate(result.comparisons) if c.get("passed") is False), None)
    if result.outcome in ("PASS", "XPASS") and failed is not None:
        c = result.comparisons[failed]
        raise UserError(f"{where}.outcome: {result.outcome}, but its comparisons[{failed}] failed (passed: false: "
                        f"output {printable(str(c.get('output')))!r}, {c.get('actual')} vs {c.get('against')})")
    return result


_FIELD_KINDS = {"ops": list, "opset": int, "seconds": (int, float), "problems": list, "comparisons": list,
                "disagreements": list, "bad_input": bool, "internal": bool, "notes": list}


def merge(documents: list[tuple[str, dict]], read_command=None) -> tuple[dict, list[CaseResult], list[str]]:
    """(merged JSON report, its results, problems) of the reports of one run's shards, given as (path, report).

    Refused (UserError): reports of different runs (versions, or options other than the per-shard ones, compared
    by what they mean where ``read_command(command)`` reads them: the command line's CommandReading,
    cli_options.read_command; else as written), a shard given twice, the same case in two reports, shards of different N,
    a mix of sharded and whole reports, reports of run MODEL whose ``model`` sections differ (the one they share
    is kept: a single run report merges into itself). A shard missing from 1..N is a problem: named, and the merge
    fails (exit 1)."""
    if not documents:
        raise UserError("report merge: give the JSON reports to merge")
    first_path, first = documents[0]
    key = _run_key(first, read_command)
    shards: dict[int, str] = {}
    totals = set()
    seen: dict[str, str] = {}
    results: list[CaseResult] = []
    for path, doc in documents:
        if _run_key(doc, read_command) != key:
            raise UserError(f"{path}: not a shard of the same run as {first_path}: "
                            f"{_difference(first, doc, read_command)}")
        if doc.get("model") != first.get("model"):
            raise UserError(f"{path}: model: " + ("its model section differs from" if doc.get("model") is not None and
                                                  first.get("model") is not None else
                                                  "a report of run MODEL (a model section) merged with one without:")
                            + f" {first_path}; reports of run MODEL merge only with one of the same model section")
        shard = shard_of(doc)
        totals.add(None if shard is None else shard[1])
        if len(totals) > 1:
            raise UserError(f"{path}: {'--shard ' + '/'.join(map(str, shard)) if shard else 'a whole run (no --shard)'}"
                            f"; {first_path} is {_shard_text(shard_of(first)) or 'a whole run (no --shard)'}: "
                            "shards of one run share N")
        if shard is not None:
            if not 1 <= shard[0] <= shard[1]:
                raise UserError(f"{path}: shard {shard[0]}/{shard[1]}: I must be between 1 and N")
            if shard[0] in shards:
                raise UserError(f"{path}: shard {shard[0]}/{shard[1]} again (also {shards[shard[0]]})")
            shards[shard[0]] = path
        for result in doc["cases"]:
            case_id = result.id
            if case_id in seen:
                raise UserError(f"{path}: case {case_id!r} is also in {seen[case_id]}; each case belongs to one shard")
            seen[case_id] = path
            results.append(result)
    problems = []
    total = next(iter(totals))
    missing = missing_ranges(shards, total) if total is not None else []
    if missing:
        count = sum(last - first + 1 for first, last in missing)
        shown = ", ".join(_range_text(r, total) for r in missing[:_SHOWN_RANGES])
        more = f", ... ({len(missing) - _SHOWN_RANGES:,} more ranges)" if len(missing) > _SHOWN_RANGES else ""
        problems.append(f"shard{'s' * (count > 1)} {shown}{more} missing: the merged report has {len(shards):,} of "
                        f"{total:,} shards")
    interrupted = [p for p, d in documents if d.get("interrupted")]
    if interrupted:
        problems.append(f"interrupted: {', '.join(interrupted)} (their cases are what finished)")
    merged = {key_: first.get(key_) for key_ in ("schema", "spec2onnx", "onnx", "onnxruntime", "python", "platform")}
    merged["openvino"] = next((d["openvino"] for _, d in documents if d.get("openvino")), None)  # (a shard that ran it)
    merged |= {
        "started": min((d["started"] for _, d in documents), key=lambda text: _started("", text)),
        "seconds": round(sum(float(d["seconds"]) for _, d in documents), 3),
        "command": [first["command"][0], *run_options(first["command"], read_command)] if first["command"] else [],
        "interrupted": bool(interrupted),
        "shard": None,
        "merged": [{"path": p, "shard": _shard_text(shard_of(d)), "started": d["started"], "seconds": d["seconds"],
                    "cases": len(d["cases"]), "interrupted": bool(d.get("interrupted"))} for p, d in documents],
        "missing_shards": [_range_text(r, total) for r in missing],
        "summary": counts(results) | {"total": len(results)},
        "cases": [_case_json(r) for r in sorted(results, key=lambda r: (r.spec, r.case, r.label))],
    }
    if first.get("model") is not None:
        merged["model"] = first["model"]
    return merged, results, problems


def merged_junit(merged: dict, results: list[CaseResult]) -> bytes:
    """The JUnit XML of a merged report (merge's): REFUSED cases as the shards' --refused makes them, and the
    interruption of any shard marked as to_junit marks an interrupted run, naming the reports interrupted."""
    stopped = [m for m in merged.get("merged", ()) if m.get("interrupted")]
    message = False
    if stopped or merged.get("interrupted"):
        named = ", ".join(m["path"] + (f" (shard {m['shard']})" if m.get("shard") else "") for m in stopped)
        message = (f"interrupted (Ctrl-C or SIGTERM): {named or 'a report merged'}; the cases "
                   f"{'it' if len(stopped) <= 1 else 'they'} had not finished did not run and are not in this report")
    return to_junit(results, float(merged["seconds"]), refusal_policy(merged["command"]), interrupted=message)


def write_merged_junit(path: str, merged: dict, results: list[CaseResult]) -> None:
    """``report merge --junit FILE``: merged_junit written (the path checked before)."""
    _write_report(path, merged_junit(merged, results))


def _run_key(doc: dict, read=None) -> tuple:
    reading = _read(read, doc["command"])
    return (doc.get("spec2onnx"), doc.get("onnx"), doc.get("onnxruntime"),
            ("meaning", reading.name, reading.meaning(_per_shard)) if reading is not None else
            ("as written", _text_options(doc["command"])))


def _difference(a: dict, b: dict, read=None) -> str:
    for name in ("spec2onnx", "onnx", "onnxruntime"):
        if a.get(name) != b.get(name):
            return f"{name} {b.get(name)} here, {a.get(name)} there"
    reading_a, reading_b = _read(read, a["command"]), _read(read, b["command"])
    if reading_a is not None and reading_b is not None:
        if reading_a.name != reading_b.name:
            return f"command {reading_b.name} here, {reading_a.name} there"
        meaning_b = dict(reading_b.meaning(_per_shard))
        for option, value in reading_a.meaning(_per_shard):
            if value != meaning_b.get(option):
                return (f"{option} {reading_b.given(option)} here, {reading_a.given(option)} there "
                        "(options other than the per-shard ones must mean the same)")
    return (f"options {' '.join(run_options(b['command'], read)) or '(none)'} here, "
            f"{' '.join(run_options(a['command'], read)) or '(none)'} there")


_SHOWN_RANGES = 20  # missing ranges named on the terminal; the JSON report lists them all


def missing_ranges(present, total: int) -> list[tuple[int, int]]:
    """The shards of 1..``total`` not in ``present``, as (first, last) ranges: as many as the reports given, plus
    one, whatever N is (a list of every missing shard of --shard 1/4000000 took 856 MB)."""
    ranges, expected = [], 1
    for index in sorted(present):
        if index > expected:
            ranges.append((expected, index - 1))
        expected = index + 1
    if expected <= total:
        ranges.append((expected, total))
    return ranges


def _range_text(first_last: tuple[int, int], total: int) -> str:
    """'2/8' for one missing shard, '2-5/8' for a range."""
    first, last = first_last
    return f"{first}/{total}" if first == last else f"{first}-{last}/{total}"


def _shard_text(shard) -> str | None:
    return None if shard is None else f"{shard[0]}/{shard[1]}"


def refusal_policy(command) -> str:
    """The ``--refused`` of a report's command (skip, the default, or fail): what its REFUSED cases do."""
    for i, arg in enumerate(command):
        if arg == "--refused" and i + 1 < len(command):
            return command[i + 1]
        if arg.startswith("--refused="):
            return arg.split("=", 1)[1]
    return "skip"


def merged_status(results: list[CaseResult], problems: list[str], refused: str = "skip") -> int:
    """The exit status of a merged run, as the whole run would have had it: 3 an internal error, 2 a spec not loaded,
    1 a failure (REFUSED too under ``--refused fail``), a missing or interrupted shard, no case at all or every case
    refused; else 0."""
    if any(r.internal for r in results):
        return 3
    if any(r.bad_input for r in results):
        return 2
    nothing = not results or all(r.outcome == REFUSED for r in results)
    return 1 if problems or nothing or any(r.outcome in bad_outcomes(refused) for r in results) else 0
