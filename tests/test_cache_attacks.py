"""A shared cache folder as an attack surface (issue 19 items 5-7), for each cache kind: parsed YAML
(``<xx>/...pickle``), loaded specs (``specs/``), lowered models (``models/``) and the graphs onnxruntime optimized
(``optimized/``).

Every attack runs the real CLI in a subprocess with a timeout (a hang fails the test rather than
blocking it) and a 4 GiB address-space limit (reading /dev/zero fails fast rather than filling memory).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, SPECS

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and O_NOFOLLOW are POSIX")

SCALE = SPECS / "trt_scale" / "seed-scale-4d.yaml"  # trt-scale-seed-4d: cases doc-example and random
ELEMENTWISE = SPECS / "trt_elementwise" / "bool-logic.yaml"  # trt-elementwise-bool-logic: case truth-table
KINDS = ("yaml", "spec", "model", "optimized")


def _limit_memory():  # in the child, before exec
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def _cli(cache: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {"SPEC2ONNX_CACHE": str(cache), "PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
    return subprocess.run([sys.executable, str(REPO / "cli.py"), *args], capture_output=True, text=True, env=env,
                          timeout=timeout, preexec_fn=_limit_memory)


def _kind(cache: Path, entry: Path) -> str | None:
    relative = entry.relative_to(cache).parts
    if relative[0] == "specs":
        return "spec"
    if relative[0] == "models":
        return "model"
    if relative[0] == "optimized":
        return "optimized"
    return "yaml" if len(relative) == 2 and entry.suffix == ".pickle" else None


def _entries(cache: Path) -> dict[str, set[Path]]:
    found: dict[str, set[Path]] = {kind: set() for kind in KINDS}
    for path in cache.rglob("*"):
        kind = _kind(cache, path) if path.is_file() and path.name != "key" else None
        if kind:
            found[kind].add(path)
    return found


@pytest.fixture
def seeded(tmp_path):
    """A cache holding the Scale spec's entries, then the ElementWise spec's: (cache, {kind: (scale's, elementwise's)})."""
    cache = tmp_path / "cache"
    scale, elementwise = tmp_path / "scale.yaml", tmp_path / "elementwise.yaml"
    shutil.copy(SCALE, scale)
    shutil.copy(ELEMENTWISE, elementwise)
    assert _cli(cache, "validate", str(scale)).returncode == 0
    first = _entries(cache)
    assert _cli(cache, "validate", str(elementwise)).returncode == 0
    second = _entries(cache)
    pairs = {}
    for kind in KINDS:
        (mine,) = first[kind]
        (other,) = second[kind] - first[kind]
        pairs[kind] = (mine, other)
    return cache, scale, pairs


def _reach(cache: Path, kind: str) -> None:
    """Make a load reach ``kind``'s entry: a spec entry answers before the parsed-YAML one is read."""
    if kind == "yaml":
        shutil.rmtree(cache / "specs")


def _scale_passes(run: subprocess.CompletedProcess) -> None:
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS  trt-scale-seed-4d/doc-example" in run.stdout and "PASS  trt-scale-seed-4d/random" in run.stdout
    assert "elementwise" not in run.stdout.lower() and "Traceback" not in run.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_an_entry_copied_over_another_specs_entry_is_a_miss(seeded, kind):
    """Issue 19 item 5: the ElementWise spec's validly signed entry copied over the Scale spec's file.
    Used, validate would report the ElementWise spec (yaml, spec) or run its model (model, optimized)."""
    cache, scale, pairs = seeded
    mine, other = pairs[kind]
    shutil.copy(other, mine)
    _reach(cache, kind)
    _scale_passes(_cli(cache, "validate", str(scale)))
    shutil.rmtree(cache / "specs", ignore_errors=True)  # and the wrong spec did not survive in the spec cache
    _scale_passes(_cli(cache, "validate", str(scale)))


def _plant(entry: Path, what: str) -> None:
    entry.unlink()
    if what == "dev-zero":
        entry.symlink_to("/dev/zero")
    elif what == "fifo":
        os.mkfifo(entry)
    elif what == "folder":
        entry.mkdir()
        (entry / "inside").write_bytes(b"x")
    else:
        raise AssertionError(what)


@pytest.mark.parametrize("what", ["dev-zero", "fifo", "folder"])
@pytest.mark.parametrize("kind", KINDS)
def test_an_entry_that_is_not_a_regular_file_is_a_miss(seeded, kind, what):
    """Issue 19 item 6: a symlink to /dev/zero (was MemoryError, exit 3), a named pipe (was a hang), a folder."""
    cache, scale, pairs = seeded
    _plant(pairs[kind][0], what)
    _reach(cache, kind)
    run = _cli(cache, "validate", str(scale), timeout=60)
    _scale_passes(run)
    assert run.stderr == ""


@pytest.mark.parametrize("what", ["dev-zero", "fifo", "folder"])
def test_a_key_that_is_not_a_regular_file_turns_caching_off_with_one_line(seeded, tmp_path, what):
    cache, scale, _ = seeded
    _plant(cache / "key", what)
    before = _entries(cache)
    run = _cli(cache, "validate", str(scale), timeout=60)
    _scale_passes(run)
    (line,) = run.stderr.splitlines()
    assert f"cache key {cache / 'key'}" in line and "caching is off" in line
    out = tmp_path / "m.onnx"
    convert = _cli(cache, "convert", str(scale), "-o", str(out), timeout=60)
    assert convert.returncode == 0 and out.stat().st_size > 0, convert.stderr
    assert sum("cache key" in line for line in convert.stderr.splitlines()) == 1, convert.stderr
    assert _entries(cache) == before  # nothing written without a key


@pytest.mark.parametrize("kind", KINDS)
def test_a_symlinked_subfolder_is_never_written_through(seeded, tmp_path, kind):
    """Issue 19 item 7: ``75/``, ``specs/`` or ``models/`` pointing elsewhere: nothing is written there, and
    nothing is read from there either."""
    cache, scale, pairs = seeded
    mine = pairs[kind][0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = {"yaml": mine.parent, "spec": cache / "specs", "model": cache / "models", "optimized": cache / "optimized"}[kind]
    shutil.rmtree(link)
    if kind == "yaml":
        shutil.rmtree(cache / "specs")
    link.symlink_to(elsewhere, target_is_directory=True)
    _scale_passes(_cli(cache, "validate", str(scale), timeout=60))
    assert list(elsewhere.rglob("*")) == []
