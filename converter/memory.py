"""Pausing Python's cycle collector around bursts of allocation that create no cycles worth collecting."""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    """Loading a spec and lowering a network build many small acyclic objects; the collector's passes
    over a growing heap found nothing to collect and took half the time of a 10,000-layer spec
    (benchmarks/conversion.py)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
