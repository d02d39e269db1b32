"""Shared fixtures: where the repo, the bundled suite and the bad-spec corpus are."""

from __future__ import annotations

import os
import random
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "specs"
BAD_SPECS = Path(__file__).resolve().parent / "bad_specs"
SEEDS = REPO.parent / "shared" / "seeds"

if str(REPO) not in sys.path:  # cli.py is a top-level module
    sys.path.insert(0, str(REPO))

# Parsed-document cache (converter/pipeline/doc_cache.py): one throw-away folder per test process (and the CLI
# processes tests start), never the user's ~/.cache.
os.environ["SPEC2ONNX_CACHE"] = tempfile.mkdtemp(prefix="spec2onnx-test-cache-")


# ``python -c RUN_CLI ARGS...``: the command line of this checkout's converter in a child process (a crash or a hang
# there is the test's failure, not the test run's), whether or not spec2onnx is installed
RUN_CLI = "import sys; sys.argv = ['spec2onnx'] + sys.argv[1:]; from converter.cli import main; main()"


def alive(pid: int) -> bool:
    """Running: not gone and not a zombie (an orphan's zombie waits for an init that may never reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def child_env(**variables: str) -> dict[str, str]:
    """A minimal environment for a process a test starts: ``variables`` and the throw-away cache folder."""
    return {"SPEC2ONNX_CACHE": os.environ["SPEC2ONNX_CACHE"], **variables}


def _one_copy_of_the_library() -> str:
    """Make ``converter`` and ``spec2onnx`` one package in this session; returns where it comes from.

    Usually the checkout's ``converter`` is imported here and makes ``spec2onnx`` its alias. But when
    spec2onnx is installed, pytest may import it from site-packages before this file (a pytest11
    plugin entry point): then ``converter`` becomes an alias of that copy, so that the tests never
    mix two registries or two UserError classes. That copy must be this checkout's code.
    """
    installed = sys.modules.get("spec2onnx")
    if installed is None or "converter" in sys.modules:
        import converter

        return str(Path(converter.__file__).parent)
    where = Path(installed.__file__).parent
    stale = _differences(where, REPO / "converter")
    if stale:
        pytest.exit(f"spec2onnx was imported from {where} (a pytest plugin entry point), which differs from this "
                    f"checkout's converter/ ({', '.join(stale[:3])}): reinstall it (pip install .) or uninstall it", 2)
    from spec2onnx._alias import alias_package

    alias_package("converter", "spec2onnx")
    return str(where)


def _differences(installed: Path, source: Path) -> list[str]:
    names = {p.relative_to(d).as_posix() for d in (installed, source) for p in d.rglob("*.py")
             if "bundled_specs" not in p.relative_to(d).parts}
    return sorted(n for n in names if not (installed / n).is_file() or not (source / n).is_file()
                  or (installed / n).read_bytes() != (source / n).read_bytes())


LIBRARY = _one_copy_of_the_library()

# tests/bad_specs is data (deliberately broken specs), never tests: `pytest tests/` with the
# spec2onnx pytest plugin loaded would otherwise collect its spec-shaped files as spec tests.
collect_ignore = ["bad_specs"]


# Hypothesis explores: each run draws a new seed for every property test (tests/fuzz/conftest.py's profiles are
# not derandomized), printed in the header and the summary; `--hypothesis-seed=N` or HYPOTHESIS_SEED=N replays
# a run. The controller draws it and hands it to xdist's workers through the environment (they start after this).
_SEED_VARIABLE = "HYPOTHESIS_SEED"


@pytest.hookimpl(tryfirst=True)  # before hypothesis' own pytest_configure reads --hypothesis-seed
def pytest_configure(config):
    given = getattr(config.option, "hypothesis_seed", None)
    if given is None:
        given = os.environ.get(_SEED_VARIABLE) or str(random.SystemRandom().randrange(2**32))
        config.option.hypothesis_seed = given
    os.environ[_SEED_VARIABLE] = str(given)


def _seed_line(config) -> str:
    seed = getattr(config.option, "hypothesis_seed", None)
    return f"hypothesis seed {seed} (replay this run: pytest --hypothesis-seed={seed}, or {_SEED_VARIABLE}={seed})"


def pytest_report_header(config):
    return [f"spec2onnx under test: {LIBRARY}", _seed_line(config)]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The property tests' counts of examples (record_property "examples", tests/fuzz/test_targets_property.py: how
    many each checked in full, and why the others were not judged), then the seed. Here, not in tests/fuzz: under
    xdist only the controller prints, and it loads no conftest below this one."""
    lines = []
    for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", []):
        counts = dict(report.user_properties).get("examples")
        if report.when == "call" and counts:
            shown = ", ".join(f"{n} {why}" for why, n in sorted(counts.items(), key=lambda kv: -kv[1]))
            lines.append(f"{report.nodeid.split('::')[-1]}: {shown}")
    if lines:
        terminalreporter.section("examples per property test")
        for line in sorted(lines):
            terminalreporter.write_line(line)
    terminalreporter.write_line(_seed_line(config))


@pytest.fixture
def write_spec(tmp_path):
    """Write a spec text to a temporary file and return its path."""

    def _write(text: str, name: str = "spec.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return _write
