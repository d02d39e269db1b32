"""The HTML report (``--html FILE`` on run, validate, reduce and check): one self-contained page.

Imported only where ``--html`` is given (tests/test_startup.py: no command imports it, nor a plotting library,
otherwise). It draws plain report data: the CaseResults (their comparisons, docs/report-schema.md), the bounded
pictures converter/error_map.py made where the arrays were, and a graph's nodes. page.py writes the page (tables,
escaping, no script, no request to any network: every picture inline as SVG or as a PNG data: URI), plots.py the
histograms and error-against-magnitude plots (SVG) and the heatmaps (PNG through png.py: zlib and a colour table,
matplotlib's inferno), graph.py the SVG of a small graph. numpy and the standard library only: drawing costs
milliseconds, and nothing to import (issue 34, item 4: --html adds at most 10% to a failing run).
"""

from .graph import MAX_NODES, graph_svg  # noqa: F401
from .page import check_page, model_page, reduce_page, spec_page, validate_page, write_page  # noqa: F401
