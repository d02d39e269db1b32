"""Reports of a validation run: the terminal (progress, lines, summary), JSON and JUnit XML.

The JSON schema is documented in docs/report-schema.md.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import platform
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import asdict

from . import __version__
from .errors import UserError
from .files import write_atomic
from .results import OUTCOMES, REFUSED, CaseResult, bad_outcomes
from .runners.onnxruntime import ort

SCHEMA = "spec2onnx-report/2"  # /2: the REFUSED outcome (in /1 a refusal was an ERROR with bad_input)


def counts(results: list[CaseResult]) -> dict[str, int]:
    c = Counter(r.outcome for r in results)
    return {o: c.get(o, 0) for o in OUTCOMES}


def summary_line(results: list[CaseResult]) -> str:
    c = counts(results)
    total = len(results)
    parts = [f"{c['PASS']} passed", f"{c['FAIL']} failed", f"{c['ERROR']} errors"]
    parts += [f"{c[o]} {o.lower()}" for o in ("XFAIL", "XPASS", REFUSED) if c[o]]
    return f"{total} case{'s' * (total != 1)}: " + ", ".join(parts)


def summary_table(results: list[CaseResult]) -> str:
    """Outcomes per layer kind (the ops of the case's network); the REFUSED column where the target refused some."""
    table: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        table[r.kind][r.outcome] += 1
    total = counts(results)
    shown = [o for o in OUTCOMES if o != REFUSED or total[o]]
    width = max([len(k) for k in table] + [len("layer kind"), len("total")])
    lines = [f"{'layer kind':<{width}}  " + "  ".join(f"{o:>5}" for o in shown)]
    for kind in sorted(table):
        lines.append(f"{kind:<{width}}  " + "  ".join(f"{table[kind][o]:>{max(5, len(o))}}" for o in shown))
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{total[o]:>{max(5, len(o))}}" for o in shown))
    return "\n".join(lines)


def disagreement_lines(results: list[CaseResult]) -> list[str]:
    lines = []
    for r in results:
        for d in r.disagreements:
            reason = f" (known: {r.reason})" if r.reason else ""
            lines.append(f"{r.id}: output {d['output']!r} differs from {d['with']}: {d['count']}/{d['total']} elements, "
                         f"max abs err {d['max_abs']:.6g}{reason}")
    return lines


def to_json(results: list[CaseResult], *, started: _dt.datetime, seconds: float, argv: list[str], interrupted: bool) -> dict:
    import onnx

    return {
        "schema": SCHEMA,
        "spec2onnx": __version__,
        "onnx": onnx.__version__,
        "onnxruntime": ort.__version__ if ort is not None else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "started": started.isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
        "command": argv,
        "interrupted": interrupted,
        "summary": counts(results) | {"total": len(results)},
        "cases": [_case_json(r) for r in sorted(results, key=lambda r: (r.spec, r.case, r.label))],
    }


def _case_json(r: CaseResult) -> dict:
    d = asdict(r)
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


def to_junit(results: list[CaseResult], seconds: float, refused: str = "skip") -> bytes:
    """JUnit XML (well-formed whatever the paths, names and messages hold: see ``xml_text``). A REFUSED case is
    <skipped> (``refused="skip"``, as pytest skips a test that does not apply) or a <failure> ("fail")."""
    c = counts(results)
    failing_refusals = c[REFUSED] if refused == "fail" else 0
    suite = ET.Element("testsuite", name="spec2onnx", tests=str(len(results)),
                       failures=str(c["FAIL"] + c["XPASS"] + failing_refusals), errors=str(c["ERROR"]),
                       skipped=str(c["XFAIL"] + c[REFUSED] - failing_refusals), time=f"{seconds:.3f}")
    for r in results:
        name = r.case + (f" [{r.label}]" if r.label else "")
        case = ET.SubElement(suite, "testcase", classname=f"spec2onnx.{r.spec}", name=name, time=f"{r.seconds:.6f}",
                             file=r.path)
        detail = "\n".join(r.problems)
        if r.outcome in ("FAIL", "XPASS"):
            ET.SubElement(case, "failure", message=(r.problems or [r.outcome])[0][:500], type=r.outcome).text = detail
        elif r.outcome == "ERROR":
            ET.SubElement(case, "error", message=(r.problems or ["error"])[0][:500], type="ERROR").text = detail
        elif r.outcome == "XFAIL":
            ET.SubElement(case, "skipped", message=f"known failure: {r.reason}", type="XFAIL").text = detail
        elif r.outcome == REFUSED:
            tag = "failure" if refused == "fail" else "skipped"
            ET.SubElement(case, tag, message=(r.problems or [REFUSED])[0][:500], type=REFUSED).text = detail
    root = ET.Element("testsuites", name="spec2onnx", tests=str(len(results)))
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


def write_junit(path: str, results: list[CaseResult], seconds: float, refused: str = "skip") -> None:
    _write_report(path, to_junit(results, seconds, refused))


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
        self.specs.add(result.path)
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
