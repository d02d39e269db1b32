"""Issue 19 item 8: a writer killed with SIGKILL leaves its temporary file; the next write to that folder
removes it, and nothing that is not a temporary file of our naming (or is still being written) is touched."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from converter import files

from .conftest import REPO, SPECS, child_env

pytestmark = pytest.mark.skipif(os.name == "nt", reason="SIGKILL and pids are POSIX here")

KILLED_WRITER = """
import os, signal, sys
sys.path.insert(0, {repo!r})
from converter import files
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)  # after the bytes are written, before the rename: kill -9 of convert
os.replace = die
files.write_atomic({target!r}, b"x" * (1 << 20))
"""


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _temps(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(files.TEMP_SUFFIX))


def test_the_temporary_file_of_a_killed_convert_is_removed_by_the_next_one(tmp_path):
    out = tmp_path / "out.onnx"
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITER.format(repo=str(REPO), target=str(out))])
    assert killed.returncode == -9
    (left,) = _temps(tmp_path)  # what kill -9 leaves: .out.onnx.<host>-<pid>.<random>.tmp
    assert left.startswith(".out.onnx.") and not out.exists()
    spec = SPECS / "trt_scale" / "seed-scale-4d.yaml"
    run = subprocess.run([sys.executable, str(REPO / "cli.py"), "convert", str(spec), "-o", str(out)],
                         env=child_env(PATH=os.environ.get("PATH", "")), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert _temps(tmp_path) == [] and out.stat().st_size > 0


def test_only_stale_temporaries_of_our_naming_are_swept(tmp_path):
    host, dead, alive = files._host(), _dead_pid(), os.getppid()
    stale = [f".out.onnx.{host}-{dead}.0123456789ab.tmp",  # writer gone
             f".x.{'f' * 6 if host != 'ffffff' else '000000'}-{alive}.0123456789ab.tmp"]  # another host's, a day old
    kept = [f".out.onnx.{host}-{alive}.0123456789ab.tmp",  # writer alive: still writing
            f".out.onnx.{host}-{os.getpid()}.0123456789ab.tmp",  # this process's own
            f".y.{'f' * 6 if host != 'ffffff' else '000000'}-{dead}.0123456789ab.tmp",  # another host's pid: unknown
            ".out.onnx.0123456789ab.tmp",  # an older naming (no pid)
            f".out.onnx.{host}-{dead}.0123456789ab.tmp.keep", "notes.tmp", f"out.onnx.{host}-{dead}.0123456789ab.tmp",
            f".out.onnx.{host}-{dead}.XYZ.tmp"]
    for name in stale + kept:
        (tmp_path / name).write_bytes(b"partial")
    day_old = time.time() - files.STALE_AFTER - 60
    os.utime(tmp_path / stale[1], (day_old, day_old))
    link = tmp_path / f".link.{host}-{dead}.0123456789ab.tmp"  # a link of our naming: never followed nor removed
    link.symlink_to(tmp_path / "notes.tmp")
    folder = tmp_path / f".dir.{host}-{dead}.0123456789ab.tmp"
    folder.mkdir()
    files.write_atomic(tmp_path / "out.onnx", b"model")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept + ["out.onnx", link.name, folder.name])
    assert (tmp_path / "notes.tmp").read_bytes() == b"partial"


def test_a_killed_cache_writer_leaves_nothing_behind_after_the_next_write(tmp_path):
    """The caches write through the same naming; their next write in that subfolder sweeps too."""
    from converter import signed_store

    kind = signed_store.Kind(b"test", ("t",), ".e", 100)
    secret = os.urandom(32)
    (tmp_path / "t" / "ab").mkdir(parents=True)
    leftover = tmp_path / "t" / "ab" / f".cd.e.{files._host()}-{_dead_pid()}.0123456789ab.tmp"
    leftover.write_bytes(b"half")
    signed_store.write(tmp_path, secret, kind, "abce", b"payload")
    assert not leftover.exists() and signed_store.read(tmp_path, secret, kind, "abce") == b"payload"
