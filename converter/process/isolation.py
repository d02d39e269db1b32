"""Child processes that never take the command down, and never outlive it.

``call_isolated(fn, *args)`` runs ``fn(*args)`` in a child process (forked on Linux: nothing is imported
again, the arguments are not copied; spawned elsewhere) and returns its value. When the child dies
without returning (a segfault or an abort in a runtime, an ``os._exit``), ``ChildDied`` says how: the
caller reports it as that runtime's failure and goes on. ``run MODEL`` runs each runtime this way
(converter/model/run.py); validate's workers (converter/pipeline/pool.py) share ``die_with_parent``.
``start_isolated(fn, args, then)`` starts such a child and returns at once; the caller sends it more later
(``run MODEL``'s first session is made while the model is read: converter/model/start.py).
"""

from __future__ import annotations

import faulthandler
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time

from ..errors import describe_exception


class ChildDied(Exception):
    """The child process ended without returning a value: the message says how (a signal, an exit status)."""


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


def call_isolated(fn, *args):
    """``fn(*args)`` in a child process: its value (sent back pickled: ``fn`` returns plain data), or ChildDied.
    An exception ``fn`` raises comes back as ChildDied with its one-line description. Ctrl-C and SIGTERM stop
    the child and reach the caller as usual."""
    return start_isolated(fn, args).result()


class Started:
    """A child process started by ``start_isolated``: ``result(*more)`` gives what it answers; ``stop()`` ends it
    without an answer (it is then of no more use)."""

    def __init__(self, process, conn, then: bool):
        self._process, self._conn, self._then = process, conn, then

    def result(self, *more):
        """Its answer: ``fn(*args)``, or ``then(fn(*args), *more)`` (``more`` sent pickled); ChildDied when it ends
        without one or ``fn``/``then`` raises. Once."""
        process, conn = self._process, self._conn
        self._process = None
        try:
            if self._then:
                try:
                    conn.send(more)
                except OSError:  # it has ended already: its exit status says how, below
                    pass
            kind, value = conn.recv()
        except (EOFError, ConnectionResetError):  # the child ended without a word (reset: before reading ``more``)
            process.join()
            code = process.exitcode
            raise ChildDied(exit_reason(code, "the process running it") + ("" if code and code < 0 else
                                                                           " without a result")) from None
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
        if kind == "error":
            raise ChildDied(value)
        return value

    def ready(self, seconds: float) -> bool:
        """Whether it has answered (or ended) within ``seconds`` (then ``result()`` does not wait)."""
        return self._conn.poll(seconds)

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join()
            self._conn.close()
            self._process = None


def start_isolated(fn, args: tuple = (), then=None) -> Started:
    """Start ``fn(*args)`` in a child process (forked on Linux, as call_isolated) and return at once. With
    ``then``, the child keeps what ``fn`` returned (it is never pickled: a runtime's session) and waits for
    ``Started.result(*more)`` to answer ``then(value, *more)``; without, it answers ``fn(*args)``."""
    _settle()  # one child at a time: the last one has ended (its memory is back) before the next starts
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    conn, child_conn = ctx.Pipe()
    process = ctx.Process(target=_child, args=(child_conn, conn, os.getpid(), fn, args, then), daemon=True)
    gc.freeze()  # the objects so far out of the collector's sight: the child's collections copy none of their pages
    try:
        process.start()
    finally:
        gc.unfreeze()
    child_conn.close()
    return Started(process, conn, then is not None)


_ENDING: list = []  # children that have answered and are ending (Started.result)


def _settle() -> None:
    """Wait for the children that have answered to end."""
    while _ENDING:
        _ENDING.pop().join()


def _child(conn, parents_conn, parent_pid: int, fn, args, then) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the child
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler (fork copies it)
    die_with_parent(parent_pid, (parents_conn,))
    faulthandler.disable()  # a crash is told by the parent, in one line
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
