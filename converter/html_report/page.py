"""The page: one HTML file, no script, no stylesheet or font to fetch, every picture inline (SVG and PNG data:
URIs from plots.py, SVG from graph.py). Every text from a report (ids, problems, names of outputs and nodes) is
escaped."""

from __future__ import annotations

import datetime
import html
import math
import os
import shlex
import urllib.parse
from pathlib import Path

from ..brief import counted, disagreement_line, nonfinite_counts
from ..errors import UserError
from ..results import BAD, XFAIL, XPASS
from . import plots
from .graph import graph_svg

# The statistic columns, each one statistic on every row (docs/report-schema.md's keys, as the JSON report names them):
# over the elements that differ (a failing comparison's own keys, the numbers of its terminal line: "mean abs err"
# is theirs), over every element (the comparison's ``error``: a passing comparison's, and a runtime's failing one's
# where gathered), and the tolerances that would have passed (the same statistic, passing or not).
_DIFFER = ("max_abs", "mean_abs", "max_rel", "max_ulp")
_EVERY = ("max_abs", "mean_abs", "median_abs", "max_rel", "max_ulp")
_WOULD = ("min_atol", "min_rtol")
_STAT_COLUMNS = 1 + len(_DIFFER) + len(_EVERY) + len(_WOULD)
_STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}h3{font-size:1em}
table{border-collapse:collapse;margin:.5em 0;font-size:.85em}th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.PASS{color:#1e7e34;font-weight:bold}.FAIL,.ERROR,.XPASS,.error{color:#b00020;font-weight:bold}
.XFAIL,.REFUSED,.warning{color:#8a6d00;font-weight:bold}.runs{color:#1e7e34;font-weight:bold}
pre{background:#f7f7f7;padding:.5em;white-space:pre-wrap;word-break:break-word;font-size:.85em}
.worst{font-size:1.05em;font-weight:bold}code{background:#f3f3f3;padding:0 3px}img{max-width:100%;height:auto}
.plots svg{margin:0 1em .5em 0;vertical-align:top}.maps{display:flex;flex-wrap:wrap;gap:1em}figure.map{margin:0}
figure.map figcaption{font-size:.8em;max-width:260px}.mapbox{position:relative;display:inline-block;line-height:0}
img.map{max-width:none;image-rendering:pixelated;vertical-align:middle}img.strip{height:12px}
svg.ring{position:absolute;left:0;top:0}.why{color:#555;font-size:.9em}
th.group{text-align:center;font-weight:normal;font-style:italic}.wide{overflow-x:auto}
table.summary td:first-child{min-width:16em}table.summary td:last-child{min-width:18em}
span.swatch{display:inline-block;width:12px;height:12px;vertical-align:middle;border:1px solid #888}
"""


def e(value) -> str:
    return html.escape(str(value), quote=True)


def num(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if math.isfinite(value) else str(value)
    return e(value)


def _document(title: str, argv, body: list[str]) -> str:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = shlex.join(["spec2onnx", *map(str, argv[1:])]) if argv else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>\n<h1>{e(title)}</h1>\n"
            + (f"<p><code>{e(command)}</code> ({e(when)})</p>\n" if command else "")
            + "\n".join(body) + "\n</body></html>\n")


def write_page(path, text: str) -> None:
    """Write the page (a temporary file beside it, then renamed: a reader never sees half a page)."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise UserError(f"--html {path}: cannot write it: {exc.strerror or exc}") from None


def _table(header: list[str], rows: list[list[str]], groups: list[tuple[str, int, str]] | None = None,
           css: str = "") -> str:
    """rows: cells already as HTML (a cell starting with '\\0' is a number, right-aligned). ``groups``: a first header
    row of (label, columns spanned, title) over ``header`` (a label "" spans columns without a group)."""
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    if groups:
        top = "".join(f"<th class=\"group\" colspan=\"{n}\"" + (f" title=\"{e(title)}\"" if title else "")
                      + f">{e(label)}</th>" for label, n, title in groups)
        head = f"{top}</tr><tr>{head}"
    body = "".join("<tr>" + "".join(f"<td class=\"n\">{c[1:]}</td>" if c.startswith("\0") else f"<td>{c}</td>"
                                    for c in row) + "</tr>\n" for row in rows)
    css = f" class=\"{css}\"" if css else ""
    return f"<table{css}><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>"


def _outcome(outcome: str) -> str:
    return f"<span class=\"{e(outcome)}\">{e(outcome)}</span>"


# The statistic columns' two header rows (_table's groups): the JSON report's names, and where each is from.
_STAT_HEADER = ["count/total", *_DIFFER, *(f"error.{k}" for k in _EVERY), *_WOULD]
_STAT_GROUPS = [("the elements that differ (the terminal's line, the JSON's keys)",
                 1 + len(_DIFFER), "a failing comparison's own statistics: blank where the comparison passed"),
                ("every element (the JSON's error)", len(_EVERY),
                 "NaN and infinities that differ left out (they fail on their own); blank where not gathered "
                 "(the reference's own comparison with the expected values)"),
                ("would pass with", len(_WOULD), "the smallest atol (with the rtol in force) and rtol (with the atol)")]


def _failed(c: dict) -> bool:
    """Whether a comparison entry (not a non-finite count) failed: its ``passed``, else whether it has a count
    (the reference's own entries are failures only)."""
    return not c["passed"] if "passed" in c else "count" in c


def _stat_cells(c: dict) -> list[str]:
    """A comparison's statistic cells (_STAT_HEADER), each column one statistic on every row: a failing comparison's
    own keys over the elements that differ (blank on a passing one, and for --check-error-stat's verdict, whose
    own keys are no statistic), ``error``'s over every element (blank where not gathered), min_atol and min_rtol."""
    every = c.get("error") or {}
    if _failed(c):
        differ = [f"{c.get('count', '?')}/{c.get('total', '?')}",
                  *(("" if c.get("stat_problem") else num(c.get(k))) for k in _DIFFER)]
    else:
        differ = ["0" + (f"/{every['count']}" if isinstance(every.get("count"), int) else ""), *([""] * len(_DIFFER))]
    would = [num(c[k]) if k in c else num(every.get(k)) for k in _WOULD]
    return ["\0" + cell for cell in (*differ, *(num(every.get(k)) for k in _EVERY), *would)]


def _nonfinite_row(r, c: dict, case: str) -> list[str]:
    """An output that holds NaN or an infinity (run fails on it unless --allow-nonfinite): how many, on which side."""
    found = nonfinite_counts(*(c["nonfinite"].get(k, 0) for k in ("nan", "posinf", "neginf")))
    return [case, _outcome(r.outcome), e(c.get("output", "")), e(f"{c.get('actual', '')} gives {found} of "
            f"{c.get('total', '?')} elements"), "", *([""] * _STAT_COLUMNS),
            _outcome("FAIL") + " " + e("non-finite (--allow-nonfinite compares them as values)")]


def margin(c: dict) -> str:
    """How far inside its tolerance a passing comparison stayed (how much of atol and rtol its worst element
    needed: min_atol of atol, min_rtol of rtol, over every element), or, with --check-error-stat, its statistic
    against them."""
    tol = c.get("tolerance") or {}
    atol, rtol = tol.get("atol") or 0.0, tol.get("rtol") or 0.0
    every = c.get("error") or {}
    v = {k: every.get(k, c.get(k)) for k in ("max_abs", *_WOULD)}
    stat = c.get("error_stat") or "elemwise"
    if stat != "elemwise":
        got = every.get(f"{stat}_abs")
        return f"{stat} abs err {num(got)} of atol {num(atol)}" if got is not None else ""
    if v["max_abs"] is None:
        return ""
    if v["max_abs"] == 0:
        return "exact (every element equal)"
    parts = []
    if v["min_atol"] is not None and atol > 0:
        parts.append(f"needs {100 * v['min_atol'] / atol:.3g}% of atol {num(atol)} (min_atol {num(v['min_atol'])})")
    if v["min_rtol"] is not None and rtol > 0:
        parts.append(f"needs {100 * v['min_rtol'] / rtol:.3g}% of rtol {num(rtol)} (min_rtol {num(v['min_rtol'])})")
    return "; ".join(parts)


def anchors(results) -> dict[int, str]:
    """The id of each section failures() writes (a result that did not pass), by its place in ``results``:
    ``case-`` and the case's id, white space as ``_`` (an id holds none), ``-2``, ``-3`` after a repeated one. The
    summary table's rows and the list of failures link to them (no script: plain ``#`` links)."""
    out, seen = {}, set()
    for i, r in enumerate(results):
        if r.outcome == "PASS":
            continue
        base = "case-" + "_".join(str(r.id).split())
        name, n = base, 1
        while name in seen:
            n += 1
            name = f"{base}-{n}"
        seen.add(name)
        out[i] = name
    return out


def _link(text: str, anchor: str | None) -> str:
    """``text`` escaped, as a link to section ``anchor`` where there is one."""
    if anchor is None:
        return e(text)
    return f"<a href=\"#{e(urllib.parse.quote(anchor, safe='/[]:_.-'))}\">{e(text)}</a>"


def _case_notes(r) -> list[str]:
    """What a case's id does not say of what ran (each line plain text): its input shapes (a dynamic network), why
    it is a known failure."""
    notes = []
    if getattr(r, "shapes", ""):
        notes.append(f"shapes: {r.shapes}")
    if getattr(r, "reason", "") and r.outcome in (XFAIL, XPASS):
        notes.append(f"known failure: {r.reason}")
    return notes + [f"note: {note}" for note in getattr(r, "notes", ())]


def _case_cell(r, anchor: str | None, first: bool) -> str:
    """The summary table's case cell: the id (a link to the case's section where it has one); on the case's first
    row its shapes and known-failure reason."""
    notes = _case_notes(r) if first else []
    return _link(r.id, anchor) + "".join(f"<br><span class=\"why\">{e(n)}</span>" for n in notes)


def _comparison_rows(results) -> list[list[str]]:
    rows = []
    links = anchors(results)
    for i, r in enumerate(results):
        anchor = links.get(i)
        entries = [c for c in r.comparisons if "output" in c and not c.get("first_difference")]
        if not entries:
            rows.append([_case_cell(r, anchor, True), _outcome(r.outcome), "", "", "", *([""] * _STAT_COLUMNS),
                         e(r.problems[0] if r.problems else "")])
        for n, c in enumerate(entries):
            case = _case_cell(r, anchor, n == 0)
            if "nonfinite" in c:
                rows.append(_nonfinite_row(r, c, case))
                continue
            tol = c.get("tolerance") or {}
            failed = _failed(c)
            verdict = _outcome("FAIL") + (" " + e(c["stat_problem"]) if c.get("stat_problem") else "") if failed \
                else _outcome("PASS") + " " + e(margin(c))
            rows.append([case, _outcome(r.outcome), e(c.get("output", "")),
                         e(f"{c.get('actual', '')} vs {c.get('against', '')}"),
                         e(f"atol {num(tol.get('atol'))}, rtol {num(tol.get('rtol'))}"
                           + (f", {c['error_stat']}" if c.get("error_stat") not in (None, "elemwise") else "")),
                         *_stat_cells(c), verdict])
    return rows


def summary_table(results) -> str:
    header = ["case", "outcome", "output", "compared", "tolerance", *_STAT_HEADER, "verdict / margin"]
    groups = [("", 5, ""), *_STAT_GROUPS, ("", 1, "")]
    return f"<div class=\"wide\">{_table(header, _comparison_rows(results), groups, 'summary')}</div>"


def _value_stats(stats: dict) -> str:
    """run MODEL's value statistics per runtime and output (its JSON report's ``stats``)."""
    rows = [[e(label), e(name), *("\0" + num(s.get(k)) for k in ("min", "max", "mean", "std", "nan", "inf"))]
            for label, outputs in stats.items() for name, s in outputs.items() if s]
    if not rows:
        return ""
    return "<h2>Output values</h2>\n" + _table(["runtime", "output", "min", "max", "mean", "std", "NaN", "inf"], rows)


def _picture_html(picture: dict, comparison: dict | None) -> str:
    parts = []
    worst = "[" + ", ".join(map(str, picture["worst_index"])) + "]"
    got = comparison.get("actual_value") if comparison and comparison.get("worst_index") == picture["worst_index"] else None
    want = comparison.get("expected_value") if got is not None else None
    parts.append(f"<p class=\"worst\">worst element at {e(worst)}"
                 + (f": got {e(repr(got))}, want {e(repr(want))}" if got is not None else "") + "</p>")
    parts.append(plots.error_plots(picture))
    maps = plots.heatmaps(picture)
    if maps is not None:
        total, bad = picture["slices_total"], picture["slices_with_errors"]
        shown = ", ".join(plots.slice_text(m["index"]) for m in picture["slices"])
        parts.append(f"<p>|error| per 2-D slice over the last two axes, worst first: {len(picture['slices'])} of the "
                     f"{bad} slices with an error ({total} slices in all): {e(shown)}. Big slices are max-pooled; "
                     f"the circle marks the worst element.</p>")
        parts.append(maps)
    return "\n".join(parts)


def _no_picture(c: dict) -> str:
    """Why a failing comparison ``c`` (or a non-finite count) has no picture: error_map draws two numeric arrays of
    one shape and type, not empty; run MODEL fails an output with NaN or an infinity before comparing its values."""
    if "nonfinite" in c:
        found = nonfinite_counts(*(c["nonfinite"].get(k, 0) for k in ("nan", "posinf", "neginf")))
        return (f"the output holds NaN/inf ({c.get('actual', '')} gives {found} of {c.get('total', '?')} elements): a "
                "NaN or an infinity fails the run (--allow-nonfinite compares them as values instead, and draws them)")
    if c.get("shape_problem"):
        return f"{c['shape_problem']}: of another shape or type"
    if c.get("total") == 0:
        return "the output is empty"
    if isinstance(c.get("actual_value"), (str, bytes)) or isinstance(c.get("expected_value"), (str, bytes)):
        return "the outputs are strings"
    return "nothing to draw (not numbers of one shape and type)"


def disagreements(results) -> list[str]:
    """The runtimes' disagreements (each case's ``disagreements``: its outputs against the first runtime
    configuration's), as the terminal lists them, each case linked to its section where it has one."""
    links = anchors(results)
    items = [f"<li>{_link(r.id, links.get(i))}: {e(disagreement_line(d, r.reason))}</li>"
             for i, r in enumerate(results) for d in r.disagreements]
    if not items:
        return []
    return ["<h2 id=\"disagreements\">Runtime disagreements</h2>", "<ul>" + "".join(items) + "</ul>"]


def _order(outcome: str) -> int:
    """Sections and the list of failures: what fails the run first (FAIL, ERROR, XPASS), then XFAIL, then the rest."""
    return 0 if outcome in BAD else 1 if outcome == XFAIL else 2


def failure_list(results) -> list[str]:
    """The results that did not pass, what fails the run first, each a link to its section (failures())."""
    links = anchors(results)
    shown = sorted(links, key=lambda i: _order(results[i].outcome))
    if not shown:
        return []
    items = []
    for i in shown:
        r = results[i]
        first = r.problems[0] if r.problems else ""
        first = first if len(first) <= 160 else first[:159] + "…"
        why = f"known failure: {r.reason}" if r.outcome == XFAIL and r.reason else first
        items.append(f"<li>{_outcome(r.outcome)} {_link(r.id, links[i])}"
                     + (f" <span class=\"why\">{e(why)}</span>" if why else "") + "</li>")
    return [f"<h2 id=\"not-passed\">Not passed: {len(shown)}</h2>", "<ul>" + "".join(items) + "</ul>"]


def failures(results) -> list[str]:
    """A section per result that did not pass (what fails the run first; its id from anchors()): what ran (shapes),
    why it is a known failure, its problems and runtime disagreements, each failing comparison's statistics and
    pictures, and why a failing comparison has none."""
    body = []
    links = anchors(results)
    for i in sorted(links, key=lambda i: _order(results[i].outcome)):
        r = results[i]
        body.append(f"<h2 id=\"{e(links[i])}\">{_outcome(r.outcome)} {e(r.id)}</h2>")
        body += [f"<p class=\"why\">{e(n)}</p>" for n in _case_notes(r)]
        if r.problems:
            body.append("<pre>" + e("\n".join(r.problems)) + "</pre>")
        if r.disagreements:
            body.append("<p>runtime disagreements:</p><ul>" + "".join(f"<li>{e(disagreement_line(d, r.reason))}</li>"
                                                                      for d in r.disagreements) + "</ul>")
        pictures = getattr(r, "pictures", None) or []
        for picture in pictures:
            comparison = next((c for c in r.comparisons if (c.get("output"), c.get("actual"), c.get("against")) ==
                               (picture["output"], picture["actual"], picture["against"]) and "count" in c), None)
            body.append(f"<h3>output {e(picture['output'])}: {e(picture['actual'])} vs {e(picture['against'])} "
                        f"({e(picture['dtype'])}{e(picture['shape'])})</h3>")
            if comparison is not None:
                body.append(_table(_STAT_HEADER, [_stat_cells(comparison)], _STAT_GROUPS))
            body.append(_picture_html(picture, comparison))
        drawn = {(p["output"], p["actual"], p["against"]) for p in pictures}
        sides = {(p["output"], side) for p in pictures for side in (p["actual"], p["against"])}  # (NaN/inf drawn there)
        for c in r.comparisons:
            if "output" not in c or c.get("first_difference"):
                continue
            if "nonfinite" in c and (c["output"], c.get("actual")) not in sides or "nonfinite" not in c and _failed(c) \
                    and (c.get("output"), c.get("actual"), c.get("against")) not in drawn:
                what = c.get("actual", "") + (f" vs {c['against']}" if "against" in c else "")
                body.append(f"<p>output {e(c['output'])}: {e(what)}: no picture: {e(_no_picture(c))}</p>")
    return body


def _counts(results) -> str:
    counts = {}
    for r in results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    return ", ".join(f"{n} {_outcome(k)}" for k, n in counts.items())


def model_page(*, path: str, argv, results, stats: dict, notes=(), header: str = "", command: str = "run") -> str:
    """``run MODEL --html``: the comparisons, their statistics and margins, each failure drawn."""
    body = [f"<p>{e(header)}</p>" if header else "",
            f"<p>{counted(len(results), 'comparison')}: {_counts(results)}</p>"]
    body += [f"<p class=\"warning\">note: {e(n)}</p>" for n in notes]
    body += [*failure_list(results), "<h2>Summary</h2>", summary_table(results), _value_stats(stats),
             *failures(results)]
    return _document(f"spec2onnx {command} {path}", argv, body)


def validate_page(*, results, argv, summary: str) -> str:
    """``validate --html``: the cases that did not pass (links to their sections), the runtimes' disagreements,
    every case's comparisons and margins, each case that did not pass drawn."""
    body = [f"<p>{e(summary)}</p>", *failure_list(results), *disagreements(results), "<h2>Summary</h2>",
            summary_table(results), *failures(results)]
    return _document("spec2onnx validate", argv, body)


def reduce_page(*, path: str, argv, summary: str, results, graph: list[dict], reproduce: str) -> str:
    """``reduce --html``: the reduced subgraph drawn (``graph``: its nodes, Reduction.graph; the nodes whose outputs
    differ highlighted), and its comparison."""
    drawn = graph_svg(graph, "the reduced model, in topological order (#: the node's index in the original model); "
                             "red: a node whose output differs")
    body = [f"<p>{e(summary)}</p>", f"<p>reproduce: <code>{e(reproduce)}</code></p>",
            "<h2>The reduced subgraph</h2>", drawn]
    if results:
        body += ["<h2>Its comparison</h2>", summary_table(results), *failures(results)]
    return _document(f"spec2onnx reduce {path}", argv, body)


def check_page(*, argv, reports) -> str:
    """``check --html``: per file (model.check.FileReport) and target, the verdict, its problems, and the nodes
    coloured by verdict (``report.drawn``: per target {"name", "verdict", "class", "lines", "nodes", "total"})."""
    body = []
    for report in reports:
        body.append(f"<h2>{e(report.path)}</h2>")
        if report.error is not None:
            body.append(f"<p class=\"error\">{e(report.error.splitlines()[0])}</p>")
            continue
        for name, t in report.drawn.items():
            body.append(f"<h3>{e(name)}: <span class=\"{e(t['class'])}\">{e(t['verdict'])}</span></h3>")
            if t["lines"]:
                body.append("<pre>" + e("\n".join(t["lines"])) + "</pre>")
            nodes, total = t["nodes"], t["total"]
            left = f"; {total - len(nodes):,} more nodes not drawn" if total > len(nodes) else ""
            body.append(graph_svg(nodes, f"{report.path} on {name}: {counted(total, 'node')}, in the graph's order; red: does "
                                         f"not run, amber: a warning, green: runs{left}"))
    return _document("spec2onnx check", argv, body)


def spec_page(*, path: str, argv, written: list) -> str:
    """``run SPEC --html``: the outputs written, with their value statistics. ``written``: (output, file, type,
    compare.value_stats or None)."""
    rows = [[e(name), e(file), e(kind), *("\0" + num((stats or {}).get(k)) for k in ("min", "max", "mean", "std", "nan", "inf"))]
            for name, file, kind, stats in written]
    body = ["<h2>Outputs written</h2>", _table(["output", "file", "type", "min", "max", "mean", "std", "NaN", "inf"], rows)]
    return _document(f"spec2onnx run {path}", argv, body)
