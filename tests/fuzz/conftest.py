"""Hypothesis profiles for the fuzz tests.

``ci`` (the default): a bounded, derandomized run, the same examples every time, so CI is
deterministic and the whole fuzz suite takes well under a minute on 2 cores.
``nightly``: 2000 examples per test from a fresh random seed each run, for a scheduled job:

    HYPOTHESIS_PROFILE=nightly pytest tests/fuzz -q

A failure prints the failing spec document and ``@reproduce_failure`` data to paste into the test.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

settings.register_profile("ci", max_examples=60, derandomize=True, database=None, print_blob=True, **_COMMON)
settings.register_profile("nightly", max_examples=2000, print_blob=True, **_COMMON)
settings.register_profile("dev", max_examples=200, print_blob=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
