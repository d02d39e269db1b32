"""The HTML report (``--html FILE`` on run, validate, reduce and check): one self-contained page.

Imported only where ``--html`` is given (tests/test_startup.py: no command imports matplotlib otherwise). It draws
plain report data: the CaseResults (their comparisons, docs/report-schema.md), the bounded pictures
converter/error_map.py made where the arrays were, and a graph's nodes. page.py writes the page (tables, escaping,
no script, no request to any network: every picture inline as a data: URI or as SVG), plots.py the histograms,
scatter plots and heatmaps (matplotlib, Agg), graph.py the SVG of a small graph. matplotlib comes with the
``report`` extra; without it, importing this package raises the UserError that refuses ``--html`` (exit status 2)
naming the extra: the CLI imports it before any work.
"""

from .graph import MAX_NODES, graph_svg  # noqa: F401
from .page import check_page, model_page, reduce_page, spec_page, validate_page, write_page  # noqa: F401
