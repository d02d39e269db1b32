"""SIGTERM handled like Ctrl-C: the run stops, its workers are stopped, its reports are written.

``kill PID``, ``timeout``, a CI job's cancel and ``docker stop`` send SIGTERM. Inside
``terminate_as_interrupt()`` it raises ``Terminated``, a KeyboardInterrupt, so every
path that cleans up after Ctrl-C (the worker pool, atomic writes, the reports) does the
same for it; the CLI then exits with 128 + 15 = 143, the shell's status for SIGTERM.
A second SIGTERM while cleaning up ends the process at once (the default action).
"""

from __future__ import annotations

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
