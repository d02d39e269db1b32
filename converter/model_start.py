"""One runtime configuration's run of a model in a child process, and ``run MODEL``'s first one started early.

``run_one`` makes a runtime's session of the model's bytes and runs the inputs on it, in the child process that
converter/model_run.py starts for each configuration (converter/isolation.py: a runtime that crashes is that
runtime's failure). Making an onnxruntime session is most of a run on a real network (0.4 s of light_resnet50's
0.9 s), and importing onnx, reading and checking the model and making its inputs most of the rest: so ``begin``,
called by the command line before any of that (this module imports no onnx), forks a child that reads the
file itself (bounded, converter/model_file.py) and makes the first configuration's session while this process
goes on; ``EarlySession.run`` then hands it the inputs (benchmarks/run_model.py measures both).

Its run stands for that configuration's only where nothing tells them apart: the same configuration
(onnxruntime on the CPU), the same version of the file (model_file.identity, as read by both), and the file
is what run_model would give the runtime (no external data read into it, no tensor --mark-all marks), and
the child did not die. Otherwise it is stopped, and run_model runs that configuration as every other.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .budget import default_budget
from .errors import UserError, describe_exception
from .isolation import ChildDied, start_isolated
from .model_file import READ_FACTOR, read_bounded
from .providers import full_provider
from .runners import RunConfig, session

DEFAULT_RUNTIMES = ("onnxruntime", "onnx-reference")


@dataclass
class RuntimeRun:
    """One runtime configuration's run of the model: its outputs, or why it could not run it."""

    config: RunConfig
    seconds: float = 0.0
    outputs: dict | None = None
    error: str = ""

    @property
    def label(self) -> str:
        return self.config.label


def run_one(config: RunConfig, data: bytes, feeds: dict, threads: int) -> RuntimeRun:
    """``config``'s session of the model ``data``, run on ``feeds`` (in a child process: isolation.call_isolated)."""
    runner, loaded = _load(config, data, threads)
    return loaded if runner is None else _feed(config, runner, loaded, feeds)


def _load(config: RunConfig, data: bytes, threads: int):
    """(the session's run function, seconds it took), or (None, the RuntimeRun saying why it cannot load it)."""
    t0 = time.perf_counter()
    try:
        runner = session(config, data, threads=threads)
    except Exception as exc:  # noqa: BLE001 - a runtime that cannot load the model: that runtime's failure
        return None, RuntimeRun(config, time.perf_counter() - t0, error=f"{config.label} cannot load the model: "
                                f"{describe_exception(exc, 'creating the session')}")
    _LIVE.append(runner)  # in the child: never torn down, the child ends at once (isolation.start_isolated)
    return runner, time.perf_counter() - t0


def _feed(config: RunConfig, runner, loaded: float, feeds: dict) -> RuntimeRun:
    t0 = time.perf_counter()
    try:
        outputs = runner(dict(feeds))
    except Exception as exc:  # noqa: BLE001 - nothing a runtime does may take the command down
        return RuntimeRun(config, loaded + time.perf_counter() - t0,
                          error=f"{config.label} cannot run the model: {describe_exception(exc, 'running it')}")
    return RuntimeRun(config, loaded + time.perf_counter() - t0, {k: _plain(v) for k, v in outputs.items()})


_LIVE: list = []  # the sessions made in a child process, which exits without freeing them


def _plain(value) -> np.ndarray:
    """A runtime's output as a numpy array; strings (onnxruntime returns Python objects) as numpy text."""
    array = np.asarray(value)
    return np.asarray(array, dtype=str) if array.dtype.kind == "O" else array


class EarlySession:
    """A child process making ``config``'s session (with ``threads`` intra-op threads) of a model file (``begin``)."""

    def __init__(self, config: RunConfig, threads: int, started):
        self.config, self.threads, self._started = config, threads, started

    def run(self, feeds: dict, identity: tuple) -> RuntimeRun | None:
        """Its run of ``feeds``; None where the file it read is not the version ``identity`` names, it did not
        make the session of the file as it is, or it died (which version it died on is not known): then run the
        configuration anew (a runtime that crashes on the model does so there too, and is reported so)."""
        started, self._started = self._started, None
        try:
            read, result = started.result(feeds)
        except ChildDied:
            return None
        return result if read == identity else None

    def stop(self) -> None:
        """End the child unused (what it made is thrown away); nothing when it has run."""
        if self._started is not None:
            self._started.stop()
            self._started = None


def begin(path, runtimes=(), provider: str = "cpu", opt_levels=(), max_memory: int | None = None,
          threads: int = 0) -> EarlySession | None:
    """Start making the first configuration's session of the model file ``path`` in a child process, for the
    options run MODEL was given (module docstring); None where it does not apply: a first runtime other than
    onnxruntime on the CPU, a file not named .onnx (run may take it for a spec), or one whose second copy in
    the child would take the reading over the memory budget (it is read bounded there too)."""
    first = (runtimes or DEFAULT_RUNTIMES)[0]
    if first != "onnxruntime" or full_provider(provider) != "CPUExecutionProvider" \
            or Path(str(path)).suffix.lower() != ".onnx":
        return None
    budget = default_budget() if max_memory is None else max_memory
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):  # run says why, when it reads it
        return None
    if (READ_FACTOR + 1) * size > budget:
        return None
    config = RunConfig("onnxruntime", "CPUExecutionProvider", (opt_levels or ("all",))[0])
    return EarlySession(config, threads, start_isolated(_prepare, (str(path), budget, config, threads), then=_run))


def _prepare(path: str, budget: int, config: RunConfig, threads: int) -> tuple:
    """In the child: (the file's identity, ``config``, and _load's pair for the file: its session, or the run
    saying why it has none); (identity, config, None, None) where the file names external data (model_reading
    reads it into the model: the file is not what would run) and all None where it cannot be read (the parent
    reads it too, and says why)."""
    try:
        data, read = read_bounded(path, budget)
    except UserError:
        return None, config, None, None
    if b"location" in data:  # (an external data entry names its file by the key "location")
        return read, config, None, None
    return (read, config, *_load(config, data, threads))


def _run(prepared: tuple, feeds: dict) -> tuple:
    """In the child: (the file's identity, the RuntimeRun of ``feeds``, or None where no session was made)."""
    read, config, runner, loaded = prepared
    if runner is None:
        return read, loaded  # why it cannot load the model (a RuntimeRun), or None
    return read, _feed(config, runner, loaded, feeds)
