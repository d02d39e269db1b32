"""The page: one HTML file, no script, no stylesheet or font to fetch, every picture inline (SVG and PNG data:
URIs from plots.py, SVG from graph.py). Every text from a report (ids, problems, names of outputs and nodes) is
escaped."""

from __future__ import annotations

import datetime
import html
import math
import os
import shlex
from pathlib import Path

from ..brief import counted, nonfinite_counts
from ..errors import UserError
from . import plots
from .graph import graph_svg

_STATS = ("max_abs", "mean_abs", "median_abs", "max_rel", "max_ulp", "min_atol", "min_rtol")
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
svg.ring{position:absolute;left:0;top:0}
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


def _table(header: list[str], rows: list[list[str]]) -> str:
    """rows: cells already as HTML (a cell starting with '\\0' is a number, right-aligned)."""
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td class=\"n\">{c[1:]}</td>" if c.startswith("\0") else f"<td>{c}</td>"
                                    for c in row) + "</tr>\n" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>"


def _outcome(outcome: str) -> str:
    return f"<span class=\"{e(outcome)}\">{e(outcome)}</span>"


def _error_values(c: dict) -> dict:
    """The statistics over every element (``error``, where gathered), else the comparison's own keys. A comparison
    that failed on a NaN or an infinity (its own max_abs not finite: the differing elements' statistics) shows its
    own keys: ``error`` covers the finite pairs only, all equal there, and read 0 on a failing row."""
    own = c.get("max_abs")
    if c.get("passed") is False and isinstance(own, (int, float)) and not math.isfinite(own):
        return {k: c.get(k) for k in _STATS}
    every = c.get("error") or {}
    return {k: every.get(k, c.get(k)) for k in _STATS}


def _nonfinite_row(r, c: dict) -> list[str]:
    """An output that holds NaN or an infinity (run fails on it unless --allow-nonfinite): how many, on which side."""
    found = nonfinite_counts(*(c["nonfinite"].get(k, 0) for k in ("nan", "posinf", "neginf")))
    return [e(r.id), _outcome(r.outcome), e(c.get("output", "")), e(f"{c.get('actual', '')} gives {found} of "
            f"{c.get('total', '?')} elements"), "", *([""] * len(_STATS)),
            _outcome("FAIL") + " " + e("non-finite (--allow-nonfinite compares them as values)")]


def margin(c: dict) -> str:
    """How far inside its tolerance a passing comparison stayed (how much of atol and rtol its worst element
    needed: min_atol of atol, min_rtol of rtol), or, with --check-error-stat, its statistic against them."""
    tol = c.get("tolerance") or {}
    atol, rtol = tol.get("atol") or 0.0, tol.get("rtol") or 0.0
    v = _error_values(c)
    stat = c.get("error_stat") or "elemwise"
    if stat != "elemwise":
        got = (c.get("error") or {}).get(f"{stat}_abs")
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


def _comparison_rows(results) -> list[list[str]]:
    rows = []
    for r in results:
        entries = [c for c in r.comparisons if "output" in c and not c.get("first_difference")]
        if not entries:
            rows.append([e(r.id), _outcome(r.outcome), "", "", "", *([""] * len(_STATS)), e(r.problems[0] if r.problems else "")])
        for c in entries:
            if "nonfinite" in c:
                rows.append(_nonfinite_row(r, c))
                continue
            tol = c.get("tolerance") or {}
            passed = c.get("passed", "count" not in c and "nonfinite" not in c)
            v = _error_values(c)
            rows.append([e(r.id), _outcome(r.outcome), e(c.get("output", "")),
                         e(f"{c.get('actual', '')} vs {c.get('against', '')}"),
                         e(f"atol {num(tol.get('atol'))}, rtol {num(tol.get('rtol'))}"
                           + (f", {c['error_stat']}" if c.get("error_stat") not in (None, "elemwise") else "")),
                         *("\0" + num(v[k]) for k in _STATS),
                         _outcome("PASS") + " " + e(margin(c)) if passed else _outcome("FAIL")
                         + (f" {c['count']}/{c['total']} elements" if "count" in c and "total" in c else "")])
    return rows


def summary_table(results) -> str:
    header = ["case", "outcome", "output", "compared", "tolerance", *_STATS, "verdict / margin"]
    return _table(header, _comparison_rows(results))


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


def failures(results) -> list[str]:
    """A section per result that did not pass: its problems, each failing comparison's statistics and pictures."""
    body = []
    for r in results:
        if r.outcome == "PASS":
            continue
        body.append(f"<h2>{_outcome(r.outcome)} {e(r.id)}</h2>")
        if r.problems:
            body.append("<pre>" + e("\n".join(r.problems)) + "</pre>")
        pictures = getattr(r, "pictures", None) or []
        for picture in pictures:
            comparison = next((c for c in r.comparisons if (c.get("output"), c.get("actual"), c.get("against")) ==
                               (picture["output"], picture["actual"], picture["against"]) and "count" in c), None)
            body.append(f"<h3>output {e(picture['output'])}: {e(picture['actual'])} vs {e(picture['against'])} "
                        f"({e(picture['dtype'])}{e(picture['shape'])})</h3>")
            if comparison is not None:
                v = _error_values(comparison)
                body.append(_table(list(_STATS) + ["elements differ"],
                                   [[*("\0" + num(v[k]) for k in _STATS),
                                     "\0" + e(f"{comparison.get('count')}/{comparison.get('total')}")]]))
            body.append(_picture_html(picture, comparison))
        if r.outcome in ("FAIL", "XPASS") and not pictures and r.comparisons:
            body.append("<p>(no picture: the outputs that differ are strings, empty, or of another shape or type)</p>")
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
    body += ["<h2>Summary</h2>", summary_table(results), _value_stats(stats), *failures(results)]
    return _document(f"spec2onnx {command} {path}", argv, body)


def validate_page(*, results, argv, summary: str) -> str:
    """``validate --html``: every case's comparisons and margins, each failing case drawn."""
    body = [f"<p>{e(summary)}</p>", "<h2>Summary</h2>", summary_table(results), *failures(results)]
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
