"""Hypothesis profiles for the fuzz tests.

``ci`` (the default): 60 examples per test from a new random seed each run, so that every CI run explores
inputs the previous ones did not try, in bounded time (the whole fuzz suite well under a minute on 2 cores).
The seed is drawn in tests/conftest.py and printed in pytest's header and summary ("hypothesis seed N");
replay a run with ``pytest --hypothesis-seed=N`` or ``HYPOTHESIS_SEED=N``.
``nightly``: 2000 examples per test, for a scheduled job; ``dev``: 200:

    HYPOTHESIS_PROFILE=nightly pytest tests/fuzz -q

A failure prints the failing spec document and ``@reproduce_failure`` data to paste into the test.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# derandomize=False said out loud: where the environment variable CI is set, Hypothesis' own built-in "ci"
# profile (derandomize=True) is the default our profiles inherit from, and every CI run would replay one seed.
_COMMON = dict(deadline=None, derandomize=False, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

settings.register_profile("ci", max_examples=60, database=None, print_blob=True, **_COMMON)
settings.register_profile("nightly", max_examples=2000, print_blob=True, **_COMMON)
settings.register_profile("dev", max_examples=200, print_blob=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

