"""The pictures of a failing comparison, drawn with matplotlib's Agg backend (no display, no pyplot state), as PNG
data: URIs. Each takes an error_map summary (converter/error_map.py): nothing here is the size of an output."""

from __future__ import annotations

import base64
import io

import numpy as np

from ..errors import UserError

INSTALL = 'pip install "spec2onnx[report]"'
try:  # each figure on its own Agg canvas: no pyplot, no backend chosen for the whole process
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
except ImportError as exc:  # the ``report`` extra is not installed: --html is refused (exit status 2), before any work
    raise UserError(f"--html: the HTML report draws with matplotlib, which cannot be imported ({exc}): "
                    f"{INSTALL}") from None

DPI = 72  # small PNGs: a page of a failing 1x64x1024x1024 output stays a few hundred KB


def _png(figure: Figure) -> str:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def slice_text(index) -> str:
    """A slice's index in the output's axes, ``[0, 5, :, :]`` (None: an axis drawn)."""
    return "[" + ", ".join(":" if i is None else str(i) for i in index) + "]"


def error_plots(picture: dict) -> str:
    """The histogram of |error| and |error| against |expected| (Polygraphy's --save-error-metrics-plot), one PNG."""
    figure = Figure(figsize=(9, 2.8))  # (fixed margins: constrained layout costs more than the drawing)
    figure.subplots_adjust(left=0.07, right=0.98, bottom=0.17, top=0.9, wspace=0.25)
    hist, scatter = figure.subplots(1, 2)
    edges, counts = np.asarray(picture["hist_edges"]), np.asarray(picture["hist_counts"])
    hist.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color="#c0392b", log=bool(counts.max() > 0))
    hist.set_xlabel("|actual - expected|")
    hist.set_ylabel("elements")
    hist.set_title("histogram of the error" + (f" ({picture['nonfinite']} non-finite left out)"
                                                if picture["nonfinite"] else ""), fontsize=10)
    ref, err = np.asarray(picture["scatter_ref"]), np.asarray(picture["scatter_err"])
    finite = np.isfinite(err)
    scatter.scatter(ref[finite], err[finite], s=4, color="#2c3e50", alpha=0.6, linewidths=0)
    scatter.set_xlabel("|expected|")
    scatter.set_ylabel("|actual - expected|")
    scatter.set_title(f"error against magnitude ({int(finite.sum())} elements)", fontsize=10)
    return _png(figure)


def heatmaps(picture: dict) -> str | None:
    """The |error| of each 2-D slice shown (worst first), one panel each, one colour scale, the worst element
    circled; None for outputs of rank < 2."""
    slices = picture["slices"]
    if not slices:
        return None
    columns = min(4, len(slices))
    rows = -(-len(slices) // columns)
    figure = Figure(figsize=(3.0 * columns + 0.8, 2.9 * rows))
    figure.subplots_adjust(left=0.05, right=0.88, bottom=0.08, top=0.92, wspace=0.3, hspace=0.35)
    axes = np.atleast_1d(figure.subplots(rows, columns, squeeze=False)).ravel()
    finite = [float(np.max(m["map"][np.isfinite(m["map"])], initial=0.0)) for m in slices]
    top = max(finite) or 1.0
    image = None
    for ax, one in zip(axes, slices):
        data = np.where(np.isfinite(one["map"]), one["map"], top)  # (a NaN or an infinity that differs: the top colour)
        image = ax.imshow(data, cmap="inferno", vmin=0.0, vmax=top, interpolation="nearest", aspect="auto")
        where = slice_text(one["index"])
        pooled = f", max of {one['pool'][0]}x{one['pool'][1]} blocks" if one["pool"] != [1, 1] else ""
        ax.set_title(f"{where} max {one['max']:.3g}{pooled}", fontsize=8)
        ax.tick_params(labelsize=7)
        if one["worst"] is not None:
            row, col = one["worst"]
            ax.plot([col], [row], marker="o", markersize=12, markerfacecolor="none", markeredgecolor="#00e5ff",
                    markeredgewidth=2)
    for ax in axes[len(slices):]:
        ax.set_axis_off()
    figure.colorbar(image, cax=figure.add_axes((0.91, 0.1, 0.015, 0.8)), label="|actual - expected|")
    return _png(figure)
