"""SIGTERM handled like Ctrl-C: the run stops, its workers are stopped, its reports are written.

``kill PID``, ``timeout``, a CI job's cancel and ``docker stop`` send SIGTERM. Inside
``terminate_as_interrupt()`` it raises ``Terminated``, a KeyboardInterrupt, so every
path that cleans up after Ctrl-C (the worker pool, atomic writes, the reports) does the
same for it; the CLI then exits with 128 + 15 = 143, the shell's status for SIGTERM.
A second SIGTERM while cleaning up ends the process at once (the default action).
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from typing import Iterator


class Terminated(KeyboardInterrupt):
    """The process got SIGTERM."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """130 for Ctrl-C (128 + SIGINT), 143 for SIGTERM."""
    return interrupt.exit_status if isinstance(interrupt, Terminated) else 128 + signal.SIGINT


def _raise_terminated(signum, frame) -> None:
    signal.signal(signum, signal.SIG_DFL)  # once: a second SIGTERM ends the process without waiting
    raise Terminated(signum)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises ``Terminated`` in the main thread (elsewhere signals cannot be handled)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


@contextmanager
def held_interrupts() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM wait: the first is raised (KeyboardInterrupt, ``Terminated``) when the
    block ends, so that what the block writes is written whole (validate's reports once every case has finished);
    a second one is raised at once. Outside the main thread (where signals cannot be handled) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum, frame) -> None:
        if held:  # a second signal: no more waiting
            raise Terminated(signum) if signum == signal.SIGTERM else KeyboardInterrupt()
        held.append(signum)

    previous = {signum: signal.signal(signum, hold) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
    if held:
        raise Terminated(held[0]) if held[0] == signal.SIGTERM else KeyboardInterrupt()


@contextmanager
def signal_wakeup() -> Iterator[int | None]:
    """A file descriptor that turns readable when any handled signal (Ctrl-C, SIGTERM) reaches this process.

    Python runs signal handlers only in the main thread, between bytecodes; but the kernel hands a signal sent
    to the process to any thread that does not block it, a runtime's native thread included (onnxruntime's
    module starts one when imported: gdb shows it in pthread_cond_timedwait). Python's C handler then only sets
    a flag there, and a main
    thread asleep in poll(2) sleeps on (validate's pool: up to --timeout): Ctrl-C did nothing for minutes.
    A thread that waits in poll(2) also waits on this descriptor (``signal.set_wakeup_fd``, written by the C
    handler in whichever thread it runs): it wakes, and the interrupt is raised as soon as it runs Python code.
    None outside the main thread, or when the wakeup descriptor is someone else's (an asyncio loop's)."""
    if threading.current_thread() is not threading.main_thread():
        yield None
        return
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    try:
        previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except ValueError:
        previous = None
    if previous != -1:  # not ours to take (or not settable): put back what was there
        if previous is not None:
            signal.set_wakeup_fd(previous)
        os.close(read)
        os.close(write)
        yield None
        return
    try:
        yield read
    finally:
        try:
            signal.set_wakeup_fd(-1)
        except ValueError:  # closed from another thread (a generator collected there): the C handler still
            return          # writes to ``write``; the two descriptors stay open rather than be reused by a file
        os.close(read)
        os.close(write)


def drain(fd: int) -> None:
    """Empty a ``signal_wakeup`` descriptor (its bytes are the signal numbers; the handlers already ran or will)."""
    try:
        while os.read(fd, 512):
            pass
    except (BlockingIOError, InterruptedError):
        pass
