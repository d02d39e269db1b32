"""Child processes that never take the command down, and never outlive it.

``call_isolated(fn, *args)`` runs ``fn(*args)`` in a child process (forked on Linux: nothing is imported
again, the arguments are not copied; spawned elsewhere) and returns its value. When the child dies
without returning (a segfault or an abort in a runtime, an ``os._exit``), ``ChildDied`` says how: the
caller reports it as that runtime's failure and goes on. ``run MODEL`` runs each runtime this way
(converter/model_run.py); validate's workers (converter/pool.py) share ``die_with_parent``.
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

from .errors import describe_exception


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
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(send, receive, os.getpid(), fn, args), daemon=True)
    gc.freeze()  # the objects so far out of the collector's sight: the child's collections copy none of their pages
    try:
        process.start()
    finally:
        gc.unfreeze()
    send.close()
    try:
        kind, value = receive.recv()
    except EOFError:  # the child ended without a word
        process.join()
        code = process.exitcode
        raise ChildDied(exit_reason(code, "the process running it") + ("" if code and code < 0 else
                                                                       " without a result")) from None
    except BaseException:  # Ctrl-C, SIGTERM: the child goes too
        process.kill()
        process.join()
        raise
    finally:
        receive.close()
    process.join()
    if kind == "error":
        raise ChildDied(value)
    return value


def _child(send, receive, parent_pid: int, fn, args) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the child
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler (fork copies it)
    die_with_parent(parent_pid, (receive,))
    faulthandler.disable()  # a crash is told by the parent, in one line
    gc.disable()  # a short life: no collection walks (and copies) the parent's pages
    try:
        message = ("ok", fn(*args))
    except BaseException as exc:  # noqa: BLE001 - told to the parent in one line
        message = ("error", describe_exception(exc, "in the child process"))
    send.send(message)
    send.close()
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
