"""Shared fixtures: where the repo, the bundled suite and the bad-spec corpus are."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "specs"
BAD_SPECS = Path(__file__).resolve().parent / "bad_specs"
SEEDS = REPO.parent / "shared" / "seeds"

if str(REPO) not in sys.path:  # cli.py is a top-level module
    sys.path.insert(0, str(REPO))


@pytest.fixture
def write_spec(tmp_path):
    """Write a spec text to a temporary file and return its path."""

    def _write(text: str, name: str = "spec.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return _write
