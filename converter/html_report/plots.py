"""The pictures of a failing comparison, drawn without a plotting library: the histogram and the error against
magnitude as small inline SVG, each heatmap a PNG written from its pooled array through a colour table (png.py),
the worst element circled by an SVG laid over it. Each takes an error_map summary (converter/error_map.py):
nothing here is the size of an output. No script: the page reads the same without JavaScript."""

from __future__ import annotations

import html
import math

import numpy as np

from .png import INFERNO, data_uri, png

MAX_BARS = 120  # the histogram's: wider ranges merge neighbouring bins (whole powers of 2)
_W, _H = 460, 230  # each SVG plot's size in pixels
_LEFT, _RIGHT, _TOP, _BOTTOM = 62, 12, 24, 42
_FONT = "font-family=\"system-ui,sans-serif\" font-size=\"11\" fill=\"#333\""


def slice_text(index) -> str:
    """A slice's index in the output's axes, ``[0, 5, :, :]`` (None: an axis drawn)."""
    return "[" + ", ".join(":" if i is None else str(i) for i in index) + "]"


def _g(value: float) -> str:
    return f"{value:.3g}"


def _frame(title: str, xlabel: str, ylabel: str, body: list[str], xticks, yticks) -> str:
    """One plot: axes, ticks ((position in pixels, label)), labels, and the marks in ``body``."""
    x0, x1, y0, y1 = _LEFT, _W - _RIGHT, _H - _BOTTOM, _TOP
    parts = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{_W}\" height=\"{_H}\" viewBox=\"0 0 {_W} {_H}\" "
             f"role=\"img\"><title>{html.escape(title)}</title>",
             f"<text x=\"{(x0 + x1) / 2:.0f}\" y=\"15\" text-anchor=\"middle\" {_FONT} font-size=\"12\">"
             f"{html.escape(title)}</text>", *body,
             f"<path d=\"M{x0} {y1}V{y0}H{x1}\" fill=\"none\" stroke=\"#333\"/>"]
    for x, label in xticks:
        parts.append(f"<path d=\"M{x:.1f} {y0}v4\" stroke=\"#333\"/><text x=\"{x:.1f}\" y=\"{y0 + 15}\" "
                     f"text-anchor=\"middle\" {_FONT}>{html.escape(label)}</text>")
    for y, label in yticks:
        parts.append(f"<path d=\"M{x0} {y:.1f}h-4\" stroke=\"#333\"/><text x=\"{x0 - 6}\" y=\"{y + 4:.1f}\" "
                     f"text-anchor=\"end\" {_FONT}>{html.escape(label)}</text>")
    parts.append(f"<text x=\"{(x0 + x1) / 2:.0f}\" y=\"{_H - 6}\" text-anchor=\"middle\" {_FONT}>"
                 f"{html.escape(xlabel)}</text><text transform=\"translate(12 {(y0 + y1) / 2:.0f}) rotate(-90)\" "
                 f"text-anchor=\"middle\" {_FONT}>{html.escape(ylabel)}</text></svg>")
    return "".join(parts)


def _linear_ticks(top: float, length: float, start: float, sign: int) -> list[tuple[float, str]]:
    """0, top/2 and top, placed along an axis of ``length`` pixels from ``start`` (sign -1: upwards)."""
    return [(start + sign * length * f, _g(top * f)) for f in (0.0, 0.5, 1.0)]


def histogram(picture: dict) -> str:
    """The count of elements per |error| bin (error_map's: 4 per power of 2), on a log scale of counts."""
    edges, counts = np.asarray(picture["hist_edges"], np.float64), np.asarray(picture["hist_counts"], np.int64)
    group = 1
    while len(counts) / group > MAX_BARS:
        group *= 2
    group = group if group == 1 else max(group, 4)  # (merged: whole powers of 2)
    if group > 1:
        pad = -len(counts) % group
        counts = np.concatenate([counts, np.zeros(pad, np.int64)]).reshape(-1, group).sum(axis=1)
        edges = np.concatenate([edges[:-1:group], [edges[-1]]])
    bars = len(counts)
    x0, x1, y0, y1 = _LEFT, _W - _RIGHT, _H - _BOTTOM, _TOP
    width = (x1 - x0) / max(bars, 1)
    top = math.log10(max(int(counts.max(initial=0)), 1) + 1) or 1.0
    body = []
    for i, n in enumerate(counts):
        if n:
            h = (y0 - y1) * math.log10(int(n) + 1) / top
            body.append(f"<rect x=\"{x0 + i * width:.2f}\" y=\"{y0 - h:.2f}\" width=\"{max(width - 0.5, 0.5):.2f}\" "
                        f"height=\"{h:.2f}\" fill=\"#c0392b\"><title>[{_g(edges[i])}, {_g(edges[i + 1])}): "
                        f"{int(n)}</title></rect>")
    step = max(1, -(-bars // 6))
    xticks = [(x0 + i * width, _g(edges[i])) for i in range(0, bars + 1, step)]
    yticks = [(y0 - (y0 - y1) * math.log10(10**k + 1) / top, f"{10**k:g}") for k in range(0, 19)
              if 10**k <= counts.max(initial=0)]
    notes = []
    if picture.get("zeros"):
        notes.append(f"{picture['zeros']} equal")
    if picture.get("nonfinite"):
        notes.append(f"{picture['nonfinite']} non-finite")
    title = "histogram of |error|" + (f" ({', '.join(notes)}: not drawn)" if notes else "")
    bins = "4 per power of 2" if group == 1 else "1 per power of 2" if group == 4 else f"{group // 4} powers of 2 each"
    return _frame(title, f"|actual - expected| (bins: {bins})", "elements (log scale)", body, xticks, yticks)


def scatter(picture: dict) -> str:
    """|error| against |expected| of the summary's sample (error_map: the slices' worst elements and a spread)."""
    ref, err = np.asarray(picture["scatter_ref"], np.float64), np.asarray(picture["scatter_err"], np.float64)
    finite = np.isfinite(err) & np.isfinite(ref)
    ref, err = ref[finite], err[finite]
    x0, x1, y0, y1 = _LEFT, _W - _RIGHT, _H - _BOTTOM, _TOP
    top_x = float(ref.max(initial=0.0)) or 1.0
    top_y = float(err.max(initial=0.0)) or 1.0
    xs = np.round(x0 + (x1 - x0) * ref / top_x, 1)
    ys = np.round(y0 - (y0 - y1) * err / top_y, 1)
    path = "".join(f"M{x:g} {y:g}h0" for x, y in zip(xs.tolist(), ys.tolist()))
    body = [f"<path d=\"{path}\" stroke=\"#2c3e50\" stroke-opacity=\"0.6\" stroke-width=\"3.5\" "
            f"stroke-linecap=\"round\" fill=\"none\"/>"] if path else []
    return _frame(f"error against magnitude ({len(err)} elements)", "|expected|", "|actual - expected|", body,
                  _linear_ticks(top_x, x1 - x0, x0, 1), _linear_ticks(top_y, y0 - y1, y0, -1))


def error_plots(picture: dict) -> str:
    """The histogram of |error| and |error| against |expected| (Polygraphy's --save-error-metrics-plot), side by
    side as inline SVG."""
    return f"<div class=\"plots\">{histogram(picture)}{scatter(picture)}</div>"


# The heatmaps' colour table: inferno's first 255 colours for the finite errors (0 to the largest finite one), and a
# 256th, green (no colour of inferno's), for an error that is NaN or infinite (a NaN or an infinity on one side, or
# two different ones): it has no place on a finite scale, and the legend names it.
FINITE_COLOURS = 255
NONFINITE_RGB = (0x00, 0xC8, 0x00)
HEATMAP_PALETTE = INFERNO[:3 * FINITE_COLOURS] + bytes(NONFINITE_RGB)
NONFINITE_INDEX = FINITE_COLOURS


def heat_indices(data: np.ndarray, top: float) -> np.ndarray:
    """A pooled |error| map as colour indices into HEATMAP_PALETTE: a finite error e at round(254 * e / top) (top:
    the largest finite error of the maps drawn), NaN or an infinity at NONFINITE_INDEX."""
    data = np.asarray(data, np.float64)
    finite = np.isfinite(data)
    scaled = np.clip(np.where(finite, data, 0.0) / (top or 1.0), 0.0, 1.0) * (FINITE_COLOURS - 1)
    return np.where(finite, np.rint(scaled), NONFINITE_INDEX).astype(np.uint8)


def heatmaps(picture: dict) -> str | None:
    """The |error| of each 2-D slice shown (worst first), one PNG each on one colour scale (inferno, 0 to the
    largest finite error; a NaN or infinite error in a colour of its own, green, that the legend names), the worst
    element circled; then the legend. None for outputs of rank < 2."""
    slices = picture["slices"]
    if not slices:
        return None
    finite = [float(np.max(m["map"][np.isfinite(m["map"])], initial=0.0)) for m in slices]
    top = max(finite)
    nonfinite_shown = 0
    figures = []
    for one, largest in zip(slices, finite):
        data = np.asarray(one["map"], np.float64)
        index = heat_indices(data, top)
        bad = int(np.count_nonzero(~np.isfinite(data)))
        nonfinite_shown += bad
        rows, cols = data.shape
        scale = max(1, 240 // max(rows, cols))  # (small slices drawn bigger, pixel for pixel)
        w, h = cols * scale, rows * scale
        where = slice_text(one["index"])
        pooled = f", max of {one['pool'][0]}x{one['pool'][1]} blocks" if one["pool"] != [1, 1] else ""
        most = f"max {_g(one['max'])}" if not bad else \
            f"{bad} {'pixel' if bad == 1 else 'pixels'} NaN/inf (green), largest finite {_g(largest)}"
        ring = ""
        if one["worst"] is not None:
            row, col = one["worst"]
            ring = (f"<svg class=\"ring\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" aria-hidden=\"true\">"
                    f"<circle cx=\"{(col + 0.5) * scale:.1f}\" cy=\"{(row + 0.5) * scale:.1f}\" r=\"{max(7, scale)}\" "
                    f"fill=\"none\" stroke=\"#00e5ff\" stroke-width=\"2\"/></svg>")
        figures.append(f"<figure class=\"map\"><div class=\"mapbox\"><img class=\"map\" width=\"{w}\" height=\"{h}\" "
                       f"alt=\"|error| of {html.escape(where)}\" src=\"{data_uri(png(index, HEATMAP_PALETTE))}\">"
                       f"{ring}</div><figcaption>{html.escape(where)} {html.escape(most)}{html.escape(pooled)}; "
                       f"rows 0-{one['size'][0] - 1} down, columns 0-{one['size'][1] - 1} across"
                       f"</figcaption></figure>")
    if top > 0:
        strip = data_uri(png(np.arange(FINITE_COLOURS, dtype=np.uint8).reshape(1, FINITE_COLOURS), HEATMAP_PALETTE))
        legend = (f"|actual - expected|: 0 <img class=\"map strip\" width=\"{FINITE_COLOURS}\" height=\"12\" "
                  f"alt=\"colour scale from 0 to {_g(top)}\" src=\"{strip}\"> {_g(top)} (the largest finite error)")
    else:
        legend = "|actual - expected|: every finite error is 0 (black)"
    if nonfinite_shown:
        legend += (f"; <span class=\"swatch\" style=\"background:#{bytes(NONFINITE_RGB).hex()}\"></span> "
                   "NaN or inf (a NaN or an infinity on one side, or two different infinities): not on the scale")
    return "<div class=\"maps\">" + "".join(figures) + "</div>" + f"<p class=\"scale\">{legend}</p>"
