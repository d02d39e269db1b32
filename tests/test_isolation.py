"""converter/process/isolation.py: the one module that starts child processes (issue 32 item 2). Each kind of task
(a forked call, a fresh interpreter, an external command) gives a Reply saying what it answered or how it ended: an
exit status, a signal, the time limit it ran past (then it is killed, with its process group), an exception.
Real processes throughout; the expected values are the ones the test's own children are told to produce."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converter.process import isolation
from converter.process.isolation import Call, Command, Python

from .conftest import REPO, alive, child_env


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _raise():
    raise ValueError("no such value")


def _exit(status: int):
    os._exit(status)


def _segfault():
    os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(10)


def _sleep_after_pid(path: str):
    Path(path).write_text(str(os.getpid()))
    time.sleep(600)


VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
                      | st.binary(max_size=20),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                      max_leaves=12)


@settings(max_examples=15, deadline=None)
@given(VALUES)
def test_a_call_answers_what_its_function_returns(value):
    reply = isolation.run(Call(lambda v: v, (value,)))  # (forked: a lambda need not be picklable)
    assert reply.ok and reply.answered and reply.value == value and reply.ended() == ""


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 255))
def test_a_call_that_exits_without_its_value_says_with_which_status(status):
    reply = isolation.run(Call(_exit, (status,)))
    assert not reply.ok and reply.answered is False and reply.exitcode == status and reply.signal is None
    assert reply.ended("it") == f"it exited with status {status} without a result"


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 255))
def test_a_command_gives_its_exit_status_and_output(status):
    reply = isolation.run(Command(("sh", "-c", f"echo out; echo err >&2; exit {status}")))
    assert (reply.exitcode, reply.stdout, reply.stderr) == (status, b"out\n", b"err\n")
    assert reply.ok is (status == 0) and reply.answered is None
    assert reply.ended("it") == ("" if status == 0 else f"it exited with status {status}")


def test_a_call_that_raises_gives_the_exception_in_one_line():
    reply = isolation.run(Call(_raise))
    assert not reply.ok and reply.error.startswith("ValueError while in the child process (")
    assert reply.error.endswith("): no such value") and reply.ended() == reply.error


def test_a_call_that_dies_of_a_signal_names_it():
    reply = isolation.run(Call(_segfault))
    assert not reply.ok and reply.signal == signal.SIGSEGV and reply.ended("it") == "it died of SIGSEGV"


def _allocate(size: int) -> int:
    return len(bytearray(size))


@pytest.mark.skipif(not isolation.FORKS, reason="the limit is Linux's (RLIMIT_AS over /proc/self/status VmSize)")
def test_a_call_given_memory_may_grow_by_that_much_and_no_more():
    assert isolation.run(Call(_allocate, (64 * 2**20,), memory=256 * 2**20)).value == 64 * 2**20
    reply = isolation.run(Call(_allocate, (512 * 2**20,), memory=256 * 2**20))
    assert not reply.ok and reply.error.startswith("MemoryError while in the child process")
    assert isolation.run(Call(_allocate, (512 * 2**20,))).value == 512 * 2**20  # no limit given: none


def test_call_isolated_raises_child_died_with_the_same_line():
    assert isolation.call_isolated(divmod, 7, 2) == (3, 1)
    with pytest.raises(isolation.ChildDied, match="^the process running it died of SIGSEGV$"):
        isolation.call_isolated(_segfault)


def test_a_call_past_its_limit_is_killed_when_the_limit_is_reached(tmp_path):
    pid_file = tmp_path / "pid"
    reply = isolation.run(Call(_sleep_after_pid, (str(pid_file),)), timeout=0.5)
    assert reply.timed_out == 0.5 and not reply.ok and reply.ended("it") == "it did not finish within 0.5 s"
    assert 0.5 <= reply.seconds < 3
    assert gone_within(int(pid_file.read_text()), 5)


def test_then_answers_with_what_the_child_kept_and_what_it_is_sent_later():
    child = isolation.start(Call(lambda: [1, 2], (), then=lambda kept, more: kept + [more]))
    assert child.reply(3).value == [1, 2, 3]


def test_a_limit_given_to_reply_counts_from_the_reply(tmp_path):
    """(run MODEL's early session: the child waits for the inputs, however long the parent reads the model)"""
    child = isolation.start(Call(lambda: None, (), then=lambda kept, seconds: time.sleep(seconds) or "done"))
    time.sleep(1.0)  # longer than the limit below: the child is idle meanwhile
    assert child.reply(0.1, timeout=0.8).value == "done"
    child = isolation.start(Call(lambda: None, (), then=lambda kept, seconds: time.sleep(seconds)))
    reply = child.reply(60, timeout=0.5)
    assert reply.timed_out == 0.5 and 0.5 <= reply.seconds < 3


def test_a_fresh_interpreter_imports_from_this_process_path_and_reads_its_input():
    """The child finds ``converter`` where this process's sys.path finds it: the checkout's folder. (Not this
    process's ``converter`` module: under an installed wheel, tests/conftest.py makes that name the installed
    spec2onnx, which a fresh interpreter does not alias; a CI run on the wheel showed the difference.)"""
    import importlib.machinery

    found = importlib.machinery.PathFinder.find_spec("converter", sys.path).origin
    source = "import sys, converter\nprint(sys.stdin.read().upper(), converter.__file__)"
    reply = isolation.run(Python(source, b"abc"))
    assert reply.ok and reply.stdout.decode() == f"ABC {found}\n"
    assert isolation.run(Python("raise SystemExit(4)")).exitcode == 4


def test_a_program_past_its_limit_is_killed_with_its_process_group():
    """The interpreter starts a grandchild (sleep) and says its id; at the limit both are killed."""
    source = ("import subprocess, sys, time\np = subprocess.Popen(['sleep', '600'])\nprint(p.pid, flush=True)\n"
              "time.sleep(600)\n")
    reply = isolation.run(Python(source), timeout=1.0)
    assert reply.timed_out == 1.0 and reply.signal == signal.SIGKILL and 1.0 <= reply.seconds < 5
    assert gone_within(int(reply.stdout.split()[0]), 5)
    command = isolation.run(Command(("sh", "-c", "sleep 600 & echo $!; wait")), timeout=1.0)
    assert command.timed_out == 1.0 and gone_within(int(command.stdout.split()[0]), 5)


def test_a_limit_that_is_no_positive_number_is_refused():
    for limit in (0, -1, float("nan")):
        with pytest.raises(ValueError, match="timeout"):
            isolation.start(Call(int), timeout=limit)
    assert isolation.run(Call(int), timeout=float("inf")).value == 0


DIES = """
import os, signal, sys, time
sys.path.insert(0, {repo!r})
from converter.process import isolation
child = isolation.start(isolation.{task})
time.sleep(1)  # (it is up)
print(child.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("task", ["Python('import time; time.sleep(600)')",
                                  "Call(time.sleep, (600,))"])
def test_a_child_dies_with_its_parent_killed_by_sigkill(task):
    parent = subprocess.run([sys.executable, "-c", DIES.format(repo=str(REPO), task=task)], capture_output=True,
                            text=True, timeout=60, env=child_env(PYTHONPATH=str(REPO)))
    assert parent.returncode == -signal.SIGKILL, parent.stderr
    assert gone_within(int(parent.stdout.split()[0]), 5)


def test_a_command_runs_in_its_folder_with_its_environment(tmp_path):
    reply = isolation.run(Command(("sh", "-c", "pwd; echo $ONLY_HERE"), cwd=str(tmp_path), env={"ONLY_HERE": "yes"}))
    assert reply.stdout.decode().splitlines() == [str(tmp_path.resolve()), "yes"]


def test_a_talking_command_answers_line_by_line_until_stopped():
    child = isolation.start(Command(("sh", "-c", "while read x; do echo \"got $x\"; done"), talk=True))
    for word in ("a", "b"):
        child.stdin.write(word.encode() + b"\n")
        child.stdin.flush()
        assert child.stdout.readline() == f"got {word}\n".encode()
    assert child.is_alive()
    child.stop()
    assert not alive(child.pid) and child.exitcode == -signal.SIGKILL


def _echo_served(conn):
    conn.send(("pid", os.getpid(), conn.recv() * 2))


@pytest.mark.parametrize("fresh", [False, True])
def test_a_served_child_talks_through_the_callers_pipe(fresh):
    parent, child_end = isolation.pipe()
    child = isolation.start(isolation.Serve(_echo_served, (child_end,), fresh=fresh))
    child_end.close()
    parent.send(21)
    assert parent.recv() == ("pid", child.pid, 42)
    child.join(10)
    assert child.exitcode == 0 and not child.is_alive()


def test_a_call_stopped_unasked_is_killed_and_one_that_answered_is_left_as_it_ended(tmp_path):
    pid_file = tmp_path / "pid"
    waiting = isolation.start(Call(_sleep_after_pid, (str(pid_file),)))
    while not pid_file.exists() or not pid_file.read_text():
        time.sleep(0.02)
    waiting.stop()
    assert not alive(int(pid_file.read_text())) and waiting.exitcode == -signal.SIGKILL
    answered = isolation.start(Call(int, ("7",)))
    assert answered.reply().value == 7
    answered.stop()  # (nothing left to stop)
    with pytest.raises(RuntimeError, match="once"):
        answered.reply()


def test_shared_memory_that_cannot_be_made_is_the_users_to_fix(monkeypatch):
    """A file-size limit (ulimit -f 4: the arena is a file grown with ftruncate, EFBIG) made validate's pool an
    'internal error ... a bug' (exit 3); it is one line naming the cause, exit 2."""
    import errno

    from converter.errors import UserError
    from converter.process import isolation

    def too_large(*args, **kwargs):
        raise OSError(errno.EFBIG, "File too large")

    monkeypatch.setattr(isolation._CONTEXT, "Array", too_large)
    with pytest.raises(UserError, match=r"cannot make the memory worker processes share \(File too large\)"):
        isolation.shared_bytes(16)
