"""Every child process spec2onnx starts, and how it ended: the ONE module that starts them.

``start(task, timeout=, die_with_parent=)`` starts a child and returns a ``Child`` at once; ``Child.reply()``
waits for it and gives a ``Reply``: the value, or how it ended (its exit status, the signal it died of, the
time limit it ran past: then it is killed, with its process group where it has one, or the exception it
raised). ``run(task, ...)`` is both in one call. The task says what the child runs:

- ``Call(fn, args, then)``: ``fn(*args)`` in a forked child (spawned where there is no fork): nothing is imported
  again, the arguments are not copied; its value comes back pickled. With ``then``, the child keeps what
  ``fn`` returned (a runtime's session: never pickled) and waits for ``Child.reply(*more)`` to answer
  ``then(value, *more)`` (``run MODEL``'s first session is made while the model is read: converter/model/start.py).
  ``run MODEL`` runs each runtime this way (converter/model/run.py), onnx's checker on a big model runs beside
  the caller so (converter/targets/checker.py).
- ``Serve(fn, args)``: a long-lived forked child that answers through pipes its caller made (``pipe()``,
  ``shared_doubles()``, ``shared_bytes()``), and is watched through ``Child.sentinel`` (``wait()``): validate's workers
  (converter/pipeline/pool.py).
- ``Python(source, stdin)``: a fresh interpreter (this one's executable, this process's ``sys.path`` and
  environment) running ``source``: an installed runtime asked about itself (converter/process/isolated.py).
- ``Command(argv, stdin)``: an external command, without a shell, its output collected (``reduce --check CMD``).

A child never outlives the command: Ctrl-C and SIGTERM kill it on their way to the caller, and with
``die_with_parent`` (``Call``, ``Serve`` and ``Python``) it ends when the parent dies, however (kill -9
included: ``die_with_parent()``). No other module of the package imports subprocess or multiprocessing, or
forks (tests/test_import_contract.py).
"""

from __future__ import annotations

import faulthandler
import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait  # noqa: F401 - Connection: for the callers' annotations
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable

from ..errors import UserError, describe_exception

FORKS = sys.platform.startswith("linux")  # children are forked (else spawned: what they run is imported again)
_CONTEXT = multiprocessing.get_context("fork" if FORKS else "spawn")
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class ChildDied(Exception):
    """The child process ended without returning a value: the message says how (a signal, an exit status)."""


@dataclass(frozen=True)
class Call:
    """``fn(*args)`` in a forked child; with ``then``, ``then(fn(*args), *more)`` once ``Child.reply(*more)``.
    ``memory``: the bytes the child's address space may grow by past what it inherited (RLIMIT_AS, where the system
    has it); beyond that an allocation fails (a MemoryError in ``fn``) instead of taking the machine's memory."""

    fn: Callable
    args: tuple = ()
    then: Callable | None = None
    memory: int | None = None


@dataclass(frozen=True)
class Serve:
    """``fn(*args)`` in a long-lived forked child that talks through the caller's own pipes; ``fresh``: in a new
    interpreter instead (spawned: ``fn`` and ``args`` are pickled, ``fn`` imported there), for a caller whose
    threads a fork must not copy (a runtime's)."""

    fn: Callable
    args: tuple = ()
    fresh: bool = False


@dataclass(frozen=True)
class Python:
    """``source`` run by a fresh interpreter with this process's ``sys.path``; ``stdin`` its input."""

    source: str
    stdin: bytes = b""


@dataclass(frozen=True)
class Command:
    """An external command (no shell) in folder ``cwd`` (None: this one) with environment ``env`` (None: this
    one's); ``stdin`` its input (empty: none). ``talk``: its input and output stay open to the caller
    (``Child.stdin``, ``Child.stdout``: it answers line by line; its stderr is dropped) instead."""

    argv: tuple
    stdin: bytes = b""
    cwd: str | None = None
    env: dict | None = field(default=None, hash=False)
    talk: bool = False


@dataclass
class Reply:
    """How a child ended. ``ok``: a ``Call`` returned its value; a ``Python`` or ``Command`` exited with status 0;
    a ``Serve`` ended with status 0."""

    value: Any = None  # what ``Call``'s function returned (pickled across)
    exitcode: int | None = None  # the child's exit status; negative: minus the signal it died of (None: unknown)
    timed_out: float | None = None  # the limit in seconds it ran past (it was then killed)
    error: str = ""  # the exception ``Call``'s function raised, in one line
    stdout: bytes = b""  # ``Python``, ``Command``: what it wrote
    stderr: bytes = b""
    seconds: float = 0.0  # how long it was waited for: from its start (or from ``reply``, given a limit there)
    answered: bool | None = None  # ``Call``: whether its function returned (None is a value too); None otherwise

    @property
    def signal(self) -> int | None:
        """The signal it died of (None: it did not die of one)."""
        return -self.exitcode if self.exitcode is not None and self.exitcode < 0 else None

    @property
    def ok(self) -> bool:
        if self.timed_out is not None or self.error:
            return False
        return self.answered if self.answered is not None else self.exitcode == 0

    def ended(self, who: str = "the child process") -> str:
        """How it ended, in one line ("" where it is ``ok``): "WHO did not finish within 5 s" (killed), the
        exception its function raised, "WHO died of SIGSEGV", "WHO exited with status 3" (a ``Call`` that ended
        without its value: "... without a result")."""
        if self.timed_out is not None:
            return f"{who} did not finish within {self.timed_out:g} s"
        if self.error:
            return self.error
        if self.ok:
            return ""
        unanswered = self.answered is False and self.signal is None
        return exit_reason(self.exitcode, who) + (" without a result" if unanswered else "")


def die_with_parent(parent_pid: int, inherited: tuple = (), pdeathsig: int = 1, check_seconds: float = 1.0) -> None:
    """Make sure this child never outlives the parent, however the parent ends (kill -9 included).

    Three guards: the parent's ends of every pipe inherited through fork are closed here, so the parent's
    death closes this child's pipe (an idle child then sees EOF and returns); on Linux the kernel sends
    SIGKILL when the parent dies (``pdeathsig``: PR_SET_PDEATHSIG; 0 leaves it off; it fires when the
    thread that started the child ends); and a daemon thread checks every ``check_seconds`` that the
    parent is still the parent (a busy child on other systems).
    """
    for conn in inherited:
        conn.close()
    if sys.platform.startswith("linux") and pdeathsig:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(pdeathsig, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no usable libc: the other two guards remain
            pass
    if os.getppid() != parent_pid:  # the parent died before the guards were up
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(check_seconds)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def can_have_children() -> bool:
    """Whether this process may start children: not a worker of validate's pool (a daemonic multiprocessing process,
    which multiprocessing refuses any: "daemonic processes are not allowed to have children"). A caller that would
    isolate work in a child does it here instead (untrusted/infer.py, targets/checker.py)."""
    return not multiprocessing.current_process().daemon


def start(task, *, timeout: float | None = None, die_with_parent: bool = True, pdeathsig: int | None = None,
          check_seconds: float = 1.0) -> "Child":
    """Start ``task`` (``Call``, ``Serve``, ``Python`` or ``Command``) in a child process and return at once.
    ``timeout``: seconds from now that ``Child.reply`` waits before it kills the child (None or inf: no limit).
    ``die_with_parent``: the child ends when this process does (``die_with_parent()``; ``pdeathsig`` and
    ``check_seconds`` its guards, for ``Call`` and ``Serve``); a ``Command`` is an external program, which
    cannot be asked to: only Ctrl-C, SIGTERM and its time limit end it (with its process group)."""
    if timeout is not None and not timeout > 0:  # NaN included: it would disable the limit silently
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    limit = None if timeout is None or timeout == float("inf") else float(timeout)
    guard = (PR_SET_PDEATHSIG if pdeathsig is None else pdeathsig, check_seconds) if die_with_parent else None
    if isinstance(task, (Call, Serve)):
        return _start_forked(task, limit, guard)
    if isinstance(task, (Python, Command)):
        return _start_program(task, limit, die_with_parent)
    raise TypeError(f"not a task: {task!r}")


def run(task, **how) -> Reply:
    """``start(task, **how).reply()``: the child's Reply once it has ended (or has been killed)."""
    return start(task, **how).reply()


def call_isolated(fn, *args):
    """``fn(*args)`` in a forked child: its value, or ChildDied saying how the child ended without one (``fn``'s
    exception in one line included). Ctrl-C and SIGTERM stop the child and reach the caller as usual."""
    reply = run(Call(fn, args))
    if not reply.ok:
        raise ChildDied(reply.ended("the process running it"))
    return reply.value


class Child:
    """A child process ``start`` started: ``reply()`` waits for how it ends; ``stop()`` ends it unasked. For a
    ``Serve`` child its caller watches it as multiprocessing's Process: ``pid``, ``sentinel``, ``is_alive()``,
    ``join()``, ``exitcode``, ``kill()``."""

    def __init__(self, task, limit: float | None, process=None, conn=None, popen=None):
        self.task, self.limit, self.started = task, limit, time.monotonic()
        self._process, self._conn, self._popen = process, conn, popen
        self._replied = False  # reply() or stop() has been called: the pipe is closed
        self.pid = process.pid if process is not None else popen.pid
        # a talking Command's pipes (binary): what the caller writes to it, what it reads from it
        talks = isinstance(task, Command) and task.talk
        self.stdin, self.stdout = (popen.stdin, popen.stdout) if talks else (None, None)

    # -- watched (Serve) ----------------------------------------------------------------------------------------
    @property
    def sentinel(self):
        return self._process.sentinel

    def is_alive(self) -> bool:
        return self._process.is_alive() if self._process is not None else self._popen.poll() is None

    def join(self, seconds: float | None = None) -> None:
        if self._process is not None:
            self._process.join(seconds)
        else:
            try:
                self._popen.wait(seconds)
            except subprocess.TimeoutExpired:
                pass

    @property
    def exitcode(self) -> int | None:
        return self._process.exitcode if self._process is not None else self._popen.returncode

    def kill(self) -> None:
        """SIGKILL (its process group, for a ``Python`` or ``Command``); nothing where it has ended."""
        if self._process is not None:
            if self._process.is_alive():
                try:
                    os.kill(self._process.pid, signal.SIGKILL)
                except OSError:
                    pass
        elif self._popen is not None:
            _kill_group(self._popen)

    # -- answered (Call, Python, Command) -----------------------------------------------------------------------
    def reply(self, *more, timeout: float | None = None) -> Reply:
        """Wait for the child's end, at most its time limit (``timeout`` here: that many seconds from now instead);
        past it the child is killed and the Reply says so. ``more``: what ``Call``'s ``then`` gets (pickled).
        Once."""
        limit, since = (self.limit, self.started) if timeout is None else (timeout, time.monotonic())
        if limit is not None and limit == float("inf"):
            limit = None
        deadline = None if limit is None else since + limit
        if self._popen is not None:
            return self._program_reply(limit, deadline, since)
        return self._call_reply(more, limit, deadline, since)

    def stop(self) -> None:
        """End the child without its answer (it is then of no more use)."""
        if self._popen is not None:
            _kill_group(self._popen)
            self._popen.wait()
            for stream in (self._popen.stdin, self._popen.stdout, self._popen.stderr):
                if stream is not None:
                    stream.close()
            return
        if self._process is not None and not self._replied:
            self._replied = True
            self._process.kill()
            self._process.join()
            if self._conn is not None:
                self._conn.close()

    def _call_reply(self, more: tuple, limit, deadline, since) -> Reply:
        if self._replied:
            raise RuntimeError("a child's reply is given once")
        process, conn, self._replied = self._process, self._conn, True
        try:
            if self.task.then is not None:
                try:
                    conn.send(more)
                except OSError:  # it has ended already: its exit status says how, below
                    pass
            while deadline is not None and not conn.poll(min(MAX_WAIT_SECONDS, max(0.0, deadline - time.monotonic()))):
                if time.monotonic() >= deadline:
                    process.kill()
                    process.join()
                    return Reply(exitcode=process.exitcode, timed_out=limit, seconds=time.monotonic() - since,
                                 answered=False)
            kind, value = conn.recv()
        except (EOFError, ConnectionResetError):  # the child ended without a word (reset: before reading ``more``)
            process.join()
            return Reply(exitcode=process.exitcode, seconds=time.monotonic() - since, answered=False)
        except BaseException:  # Ctrl-C, SIGTERM: the child goes too
            process.kill()
            process.join()
            raise
        finally:
            conn.close()
        # Its answer is here: the child is ending (os._exit: the kernel gives back its memory, 30-50 ms for a
        # ResNet-50 session, more for larger ones) while the caller goes on; it is joined before the next child
        # starts, and at exit by multiprocessing
        _ENDING.append(process)
        seconds = time.monotonic() - since
        if kind == "error":
            return Reply(error=value, seconds=seconds, answered=False)
        return Reply(value=value, seconds=seconds, answered=True)

    def _program_reply(self, limit, deadline, since) -> Reply:
        popen, timed_out = self._popen, None
        try:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            out, err = popen.communicate(self.task.stdin or None, timeout=left)
        except subprocess.TimeoutExpired:
            timed_out = limit
            _kill_group(popen)
            out, err = popen.communicate()
        except BaseException:  # Ctrl-C: the child goes with us
            _kill_group(popen)
            popen.wait()
            raise
        return Reply(exitcode=popen.returncode, timed_out=timed_out, stdout=out or b"", stderr=err or b"",
                     seconds=time.monotonic() - since)


MAX_WAIT_SECONDS = 3600.0  # the longest one wait lasts (poll(2) takes milliseconds in a C int): then it waits again


def _start_forked(task, limit: float | None, guard) -> Child:
    if isinstance(task, Serve):
        context = multiprocessing.get_context("spawn") if task.fresh else _CONTEXT
        process = context.Process(target=_serve, args=(os.getpid(), task.fn, task.args, guard), daemon=True)
        process.start()
        return Child(task, limit, process)
    _settle()  # one child at a time: the last one has ended (its memory is back) before the next starts
    conn, child_conn = _CONTEXT.Pipe()
    process = _CONTEXT.Process(target=_child, args=(child_conn, conn, os.getpid(), task.fn, task.args, task.then,
                                                     guard, task.memory), daemon=True)
    gc.freeze()  # the objects so far out of the collector's sight: the child's collections copy none of their pages
    try:
        process.start()
    finally:
        gc.unfreeze()
    child_conn.close()
    return Child(task, limit, process, conn)


_PYTHON_PREFIX = """import sys
sys.path[:] = {path!r}
"""
# The kernel's guard of die_with_parent, in a fresh interpreter: SIGKILL when the parent (the thread that started
# it) ends; and the parent checked once, in case it ended before (its pipes close too: an idle child sees EOF).
_PYTHON_GUARD = """try:
    import ctypes as _ctypes
    _ctypes.CDLL(None).prctl({option}, {kill}, 0, 0, 0)
except Exception:
    pass
import os as _os
if _os.getppid() != {parent}:
    _os._exit(1)
"""


def _start_program(task, limit: float | None, die_with_parent: bool) -> Child:
    if isinstance(task, Python):
        code = _PYTHON_PREFIX.format(path=list(sys.path))
        if die_with_parent and FORKS:
            code += _PYTHON_GUARD.format(option=PR_SET_PDEATHSIG, kill=int(signal.SIGKILL), parent=os.getpid())
        argv, cwd, env, talk = [sys.executable, "-c", code + task.source], None, None, False
    else:
        argv, cwd, env, talk = list(task.argv), task.cwd, task.env, task.talk
    popen = subprocess.Popen(argv, stdin=subprocess.PIPE if task.stdin or talk else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL if talk else subprocess.PIPE, cwd=cwd,
                             env=env, start_new_session=os.name == "posix")
    return Child(task, limit, popen=popen)


def _kill_group(popen) -> None:
    try:
        if os.name == "posix":
            os.killpg(popen.pid, signal.SIGKILL)
        else:
            popen.kill()
    except OSError:
        pass


def pipe() -> tuple[Connection, Connection]:
    """A two-way pipe for a ``Serve`` child and its parent (its ends are picklable into the child)."""
    return _CONTEXT.Pipe()


def shared_doubles(n: int):
    """``n`` floats in memory shared with the ``Serve`` children started after it (no lock: one writer)."""
    return _shared("d", n)


def shared_bytes(n: int):
    """``n`` bytes in memory shared with the ``Serve`` children started after it (no lock: one writer)."""
    return _shared("B", n)


def _shared(typecode: str, n: int):
    try:
        return _CONTEXT.Array(typecode, n, lock=False)
    except OSError as exc:  # (its arena is a file grown with ftruncate: a file-size limit, a full /dev/shm)
        raise UserError(f"cannot make the memory worker processes share ({exc.strerror or exc}): a file-size limit "
                        "(ulimit -f) or a full /dev/shm? -j 0 validates in this process") from None


def dumps(obj) -> bytes:
    """``obj`` pickled as a Connection sends it (``Connection.send_bytes`` then sends it unchanged)."""
    return bytes(ForkingPickler.dumps(obj))


def loads(data) -> Any:
    """The object ``dumps`` made ``data`` from (as a Connection receives it)."""
    return ForkingPickler.loads(data)


_ENDING: list = []  # children that have answered and are ending (Child.reply)


def _settle() -> None:
    """Wait for the children that have answered to end."""
    while _ENDING:
        _ENDING.pop().join()


def _child_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the child
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler (fork copies it)
    try:
        signal.set_wakeup_fd(-1)  # nor the parent's signal_wakeup descriptor
    except ValueError:
        pass
    faulthandler.disable()  # a crash is told by the parent, in one line


def _limit_memory(more: int) -> None:
    """Let this process's address space grow by at most ``more`` bytes (Linux: VmSize is what it holds now)."""
    try:
        import resource  # (POSIX only)

        with open("/proc/self/status", "rb") as status:
            size = next(int(line.split()[1]) * 1024 for line in status if line.startswith(b"VmSize:"))
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        soft = size + more if hard == resource.RLIM_INFINITY else min(size + more, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ImportError, OSError, StopIteration, ValueError):
        pass  # no such limit here: the child runs unbounded, as before


def _serve(parent_pid: int, fn, args, guard) -> None:
    _child_signals()
    if guard is not None:
        die_with_parent(parent_pid, (), *guard)
    fn(*args)


def _child(conn, parents_conn, parent_pid: int, fn, args, then, guard, memory: int | None) -> None:
    _child_signals()
    if guard is not None:
        die_with_parent(parent_pid, (parents_conn,), *guard)
    else:
        parents_conn.close()
    if memory is not None:
        _limit_memory(memory)
    gc.disable()  # a short life: no collection walks (and copies) the parent's pages
    try:
        value = fn(*args)
        if then is not None:
            try:
                more = conn.recv()
            except EOFError:  # stopped, or the parent went on without it
                os._exit(0)
            value = then(value, *more)
        message = ("ok", value)
    except BaseException as exc:  # noqa: BLE001 - told to the parent in one line
        message = ("error", describe_exception(exc, "in the child process"))
    conn.send(message)
    conn.close()
    # At once: no teardown of what ``fn`` left alive (a runtime's session and its weights: 0.6 s to free for
    # light_vgg19 on onnxruntime); the process's memory goes back to the system as it ends.
    os._exit(0)


def exit_reason(exitcode: int | None, who: str) -> str:
    """How a child ended, from its exit code: ``who died of SIGSEGV`` (a signal) or ``who exited with status N``."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"{who} died of {name}"
    return f"{who} exited with status {exitcode}"
