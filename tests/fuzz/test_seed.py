"""Every run of the property tests explores from a new seed, printed so that a failure can be replayed
(tests/conftest.py draws it; tests/fuzz/conftest.py's profiles are not derandomized)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from hypothesis import core, settings

from ..conftest import REPO


def test_the_session_seed_is_hypothesis_seed():
    # set before hypothesis' plugin configured itself, in this process and in every xdist worker
    assert core.global_force_seed is not None
    assert str(core.global_force_seed) == os.environ["HYPOTHESIS_SEED"]
    assert not settings.get_profile("ci").derandomize  # a fixed seed per test would replay the same examples


def test_a_run_draws_a_new_seed_and_prints_it_for_a_replay():
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_SEED"}
    test = "tests/fuzz/test_seed.py::test_the_session_seed_is_hypothesis_seed"
    run = subprocess.run([sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    printed = re.findall(r"hypothesis seed (\d+) \(replay this run: pytest --hypothesis-seed=(\d+)", run.stdout)
    assert len(printed) == 1 and printed[0][0] == printed[0][1], run.stdout  # printed in -q's summary too
    assert printed[0][0] != str(core.global_force_seed)  # drawn anew (equal by chance: 1 in 2^32)
