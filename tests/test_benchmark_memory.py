"""benchmarks/run_model.py measures a command's memory as its process tree's summed PSS: a page a forked child
shares with its parent counted once, the child's own pages counted (the larger peak RSS of the two left them
out; the sum of RSSes counts shared pages twice). Checked on a tree whose pages are known: 60 MiB touched
before a fork (shared), then 40 MiB touched by the child alone and 40 by the parent alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.run_model import _tree_pss_kib

TREE = r"""
import os, sys, time
shared = bytearray(60 * 2**20)
shared[::4096] = b"\x01" * len(shared[::4096])
if os.fork() == 0:
    own = bytearray(40 * 2**20)
    own[::4096] = b"\x01" * len(own[::4096])
    os.write(1, b"ready\n")  # one write each: print's two (text, newline) interleaved as "readyready"
    time.sleep(60)
    os._exit(0)
mine = bytearray(40 * 2**20)
mine[::4096] = b"\x01" * len(mine[::4096])
os.write(1, b"ready\n")  # one write each: print's two (text, newline) interleaved as "readyready"
time.sleep(60)
"""


def _rss_kib(pid: int) -> int:
    return next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("VmRSS"))


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="Linux's /proc/PID/smaps_rollup")
def test_a_trees_pss_counts_shared_pages_once_and_a_childs_own_pages():
    proc = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True)
    try:
        assert [proc.stdout.readline().strip() for _ in range(2)] == ["ready", "ready"]
        child = int(open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()[0])
        pss = _tree_pss_kib(proc.pid) / 1024
        rss_sum = (_rss_kib(proc.pid) + _rss_kib(child)) / 1024
        assert 140 <= pss <= 140 + 40  # 60 shared once + 40 + 40 own, and two interpreters' own pages
        assert rss_sum - pss >= 50  # the sum of RSSes counts the 60 shared MiB twice
        assert pss - max(_rss_kib(proc.pid), _rss_kib(child)) / 1024 >= 30  # the larger RSS leaves 40 MiB out
    finally:
        proc.kill()
        proc.wait()
    assert _tree_pss_kib(proc.pid) == 0  # a process that has ended
