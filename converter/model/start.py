"""One runtime configuration's run of a model in a child process, and ``run MODEL``'s first one started early.

``run_one`` makes a runtime's session of the model's bytes and runs the inputs on it, in the child process that
converter/model/run.py starts for each configuration (converter/process/isolation.py: a runtime that crashes is that
runtime's failure). Making an onnxruntime session is most of a run on a real network (0.4 s of light_resnet50's
0.9 s), and importing onnx, reading and checking the model and making its inputs most of the rest: so ``begin``,
called by the command line before any of that (this module imports no onnx), forks a child that reads the
file itself (bounded, converter/untrusted/file.py) and makes the first configuration's session while this process
goes on; ``EarlySession.run`` then hands it the inputs (benchmarks/run_model.py measures both).

Inputs and outputs of 1 MiB and more cross between the processes in memory files both map (``SharedArrays``,
Linux's memfd, made before the fork), onnxruntime writing each output of a fixed declared shape there itself:
each tensor is held once, where pickling it each way held it five times (issue 31).

Its run stands for that configuration's only where nothing tells them apart: the same configuration
(onnxruntime on the CPU), the same version of the file (model_file.identity, as read by both), and the file
is what run_model would give the runtime (no external data read into it, no tensor --mark-all marks), and
the child did not die. Otherwise it is stopped, and run_model runs that configuration as every other.
"""

from __future__ import annotations

import math
import mmap
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..budget import default_budget
from ..errors import UserError, describe_exception
from ..process import isolation
from ..untrusted.file import READ_FACTOR, read_bounded
from ..installed.providers import full_provider
from ..runners import RunConfig, session

DEFAULT_RUNTIMES = ("onnxruntime", "onnx-reference")


@dataclass
class RuntimeRun:
    """One runtime configuration's run of the model: its outputs, or why it could not run it."""

    config: RunConfig
    seconds: float = 0.0
    outputs: dict | None = None
    error: str = ""
    peak: int = 0  # the child's peak resident memory, bytes, pages shared with its parent included (0: not known)

    @property
    def label(self) -> str:
        return self.config.label


@dataclass(frozen=True)
class SharedRef:
    """Where an array lies in a SharedArrays file: what crosses the pipe instead of the array."""

    offset: int
    dtype: np.dtype
    shape: tuple


class SharedArrays:
    """Arrays in one memory file (Linux's memfd_create) that this process and the children it forks after making
    it both map: the one copy of each, in place of the copies pickling makes (the sender's pickle, the pipe, the
    receiver's array: a 192 MiB input and output cost 2.3x the memory of a bare onnxruntime session, issue 31).
    One side allocates in a file, the other only maps (``view``): run MODEL's inputs in one, outputs in another.
    ``make`` gives None where there is no memfd (then arrays are pickled, as before)."""

    MIN_BYTES = 1 << 20  # smaller arrays are pickled: cheap, and no mapping each (--mark-all's many tensors would
    # otherwise reach the kernel's limit on mappings, vm.max_map_count)

    def __init__(self, fd: int, min_bytes: int = MIN_BYTES):
        self.fd, self.min_bytes, self._end, self._made = fd, min_bytes, 0, {}

    @classmethod
    def make(cls, min_bytes: int = MIN_BYTES) -> "SharedArrays | None":
        try:
            return cls(os.memfd_create("spec2onnx-arrays", os.MFD_CLOEXEC), min_bytes)
        except (AttributeError, OSError):  # not Linux, or no memfd: pickled
            return None

    def empty(self, dtype, shape) -> np.ndarray | None:
        """A new array (zeros) in the file; None where it is not made there (no room, an object array, fewer than
        ``min_bytes``)."""
        dtype, shape = np.dtype(dtype), tuple(int(d) for d in shape)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes == 0 or nbytes < self.min_bytes or dtype.hasobject or dtype.kind in "SU":
            return None
        offset = -(-self._end // mmap.ALLOCATIONGRANULARITY) * mmap.ALLOCATIONGRANULARITY
        try:
            if os.fstat(self.fd).st_size < offset + nbytes:
                os.ftruncate(self.fd, offset + nbytes)  # (pages are taken as written)
            mapped = mmap.mmap(self.fd, nbytes, offset=offset)
        except (OSError, ValueError, OverflowError):
            return None
        self._end = offset + nbytes
        array = np.frombuffer(mapped, dtype, count=math.prod(shape)).reshape(shape)
        self._made[id(array)] = (array, SharedRef(offset, dtype, shape))
        return array

    def ref(self, array) -> SharedRef | None:
        """Where ``array`` lies, if ``empty`` made it here (None otherwise)."""
        made = self._made.get(id(array))
        return made[1] if made is not None and made[0] is array else None

    def share(self, array: np.ndarray):
        """``array``'s SharedRef, copied into the file unless it is there already; the array itself where it
        cannot be (sent pickled)."""
        ref = self.ref(array)
        if ref is None:
            copy = self.empty(array.dtype, array.shape)
            if copy is None:
                return array
            copy[...] = array
            ref = self.ref(copy)
        return ref

    def moved(self, arrays: dict) -> dict:
        """``arrays`` with each that can be copied into the file, and is not there yet, replaced by its copy (the
        caller drops the originals: one copy stays)."""
        out = {}
        for name, array in arrays.items():
            copy = None if self.ref(array) is not None else self.empty(array.dtype, array.shape)
            if copy is not None:
                copy[...] = array
            out[name] = array if copy is None else copy
        return out

    def view(self, value):
        """The array a SharedRef names (mapped from the file); anything else as it is."""
        if not isinstance(value, SharedRef):
            return value
        count = math.prod(value.shape)
        nbytes = count * value.dtype.itemsize
        try:
            mapped = mmap.mmap(self.fd, nbytes, offset=value.offset)
        except OSError:  # no mapping to be had (vm.max_map_count): read into an array of this process
            array = np.empty(count, value.dtype)
            if os.preadv(self.fd, [memoryview(array.view(np.uint8))], value.offset) != nbytes:
                raise OSError(f"{nbytes} bytes at {value.offset} of the shared arrays' file: cut short") from None
            return array.reshape(value.shape)
        return np.frombuffer(mapped, value.dtype, count=count).reshape(value.shape)

    def close(self) -> None:
        """Close the file (the arrays mapped from it stay valid)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def run_one(config: RunConfig, data: bytes, feeds: dict, threads: int, shared: SharedArrays | None = None) -> RuntimeRun:
    """``config``'s session of the model ``data``, run on ``feeds`` (in a child process: isolation.Call);
    with ``shared`` (made before the fork), its outputs are in that file (``received`` maps them)."""
    runner, loaded = _load(config, data, threads)
    return loaded if runner is None else _feed(config, runner, loaded, feeds, shared)


def failed(config: RunConfig, reply: isolation.Reply) -> RuntimeRun:
    """The run of ``config`` whose child ended without one (``reply`` says how): it crashed, or ran past its time
    limit (run --timeout: then it was killed)."""
    if reply.timed_out is not None:
        return RuntimeRun(config, reply.seconds, error=f"{config.label} did not finish within {reply.timed_out:g} s "
                          "(--timeout): its process was killed")
    return RuntimeRun(config, reply.seconds, error=f"{config.label} crashed: {reply.ended('the process running it')}")


def received(run: RuntimeRun | None, shared: SharedArrays | None) -> RuntimeRun | None:
    """A child's run with its outputs in ``shared`` mapped here (the file then closed)."""
    if shared is not None:
        if run is not None and run.outputs is not None:
            run.outputs = {name: shared.view(value) for name, value in run.outputs.items()}
        shared.close()
    return run


def _load(config: RunConfig, data: bytes, threads: int):
    """(the session's run function, seconds it took), or (None, the RuntimeRun saying why it cannot load it)."""
    t0 = time.perf_counter()
    try:
        runner = session(config, data, threads=threads)
    except Exception as exc:  # noqa: BLE001 - a runtime that cannot load the model: that runtime's failure
        return None, RuntimeRun(config, time.perf_counter() - t0, error=f"{config.label} cannot load the model: "
                                f"{describe_exception(exc, 'creating the session')}")
    _LIVE.append(runner)  # in the child: never torn down, the child ends at once (isolation._child)
    return runner, time.perf_counter() - t0


def _feed(config: RunConfig, runner, loaded: float, feeds: dict, shared: SharedArrays | None = None) -> RuntimeRun:
    """The run of ``feeds``; with ``shared``, its outputs are written there (onnxruntime writes each of a fixed
    declared shape there itself; another is copied) and the run holds their SharedRefs."""
    t0 = time.perf_counter()
    try:
        if shared is not None and config.runtime == "onnxruntime":
            outputs = runner(dict(feeds), out=lambda name, dtype, shape: shared.empty(dtype, shape))
        else:
            outputs = runner(dict(feeds))
    except Exception as exc:  # noqa: BLE001 - nothing a runtime does may take the command down
        return RuntimeRun(config, loaded + time.perf_counter() - t0,
                          error=f"{config.label} cannot run the model: {describe_exception(exc, 'running it')}")
    seconds = loaded + time.perf_counter() - t0
    if shared is None:
        return RuntimeRun(config, seconds, {k: _plain(v) for k, v in outputs.items()}, peak=peak_memory())
    kept = {}
    for name in list(outputs):
        kept[name] = shared.share(_plain(outputs.pop(name)))  # (each copy's original dropped before the next)
    return RuntimeRun(config, seconds, kept, peak=peak_memory())


def peak_memory() -> int:
    """This process's peak resident memory in bytes (Linux's VmHWM: in a forked child, the parent's pages it maps
    count too), 0 where it is not known. run --mark-all sizes its chunks by a plain run's."""
    try:
        with open("/proc/self/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


_LIVE: list = []  # the sessions made in a child process, which exits without freeing them


def _plain(value) -> np.ndarray:
    """A runtime's output as a numpy array; strings (onnxruntime returns Python objects) as numpy text."""
    array = np.asarray(value)
    return np.asarray(array, dtype=str) if array.dtype.kind == "O" else array


class EarlySession:
    """A child process making ``config``'s session (with ``threads`` intra-op threads) of a model file (``begin``)."""

    def __init__(self, config: RunConfig, threads: int, started, shared: tuple = (None, None)):
        self.config, self.threads, self._started = config, threads, started
        self._inputs, self._outputs = shared  # SharedArrays (or None) the child maps: inputs, and its outputs

    def share(self, feeds: dict) -> dict:
        """``feeds`` moved into memory the child maps (SharedArrays.moved): to be used in place of ``feeds``, which
        the caller drops, so that the inputs are held once."""
        return feeds if self._inputs is None else self._inputs.moved(feeds)

    def run(self, feeds: dict, identity: tuple, timeout: float | None = None) -> RuntimeRun | None:
        """Its run of ``feeds``; None where the file it read is not the version ``identity`` names, it did not
        make the session of the file as it is, or it died (which version it died on is not known): then run the
        configuration anew (a runtime that crashes on the model does so there too, and is reported so). Where it
        has not answered ``timeout`` seconds after the inputs are handed to it (run --timeout), it is killed and
        its run is that failure (the limit counts from here: the child waits idle for the inputs, however long
        reading the model takes, and it was making the session meanwhile: it has had at least that long)."""
        started, self._started = self._started, None
        sent = feeds if self._inputs is None else {n: self._inputs.ref(a) or a for n, a in feeds.items()}
        try:
            reply = started.reply(sent, timeout=timeout)
        finally:
            self._close(keep_outputs=True)
        if reply.timed_out is not None:
            received(None, self._outputs)
            return failed(self.config, reply)
        read, result = reply.value if reply.ok else (None, None)
        return received(result if read == identity else None, self._outputs)

    def stop(self) -> None:
        """End the child unused (what it made is thrown away); nothing when it has run."""
        if self._started is not None:
            self._started.stop()
            self._started = None
        self._close()

    def _close(self, keep_outputs: bool = False) -> None:
        for shared in (self._inputs,) if keep_outputs else (self._inputs, self._outputs):
            if shared is not None:
                shared.close()


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
    shared = (SharedArrays.make(), SharedArrays.make())  # made before the fork: the child has both files
    return EarlySession(config, threads, isolation.start(isolation.Call(_prepare, (str(path), budget, config, threads,
                                                                                  shared), then=_run)), shared)


def _prepare(path: str, budget: int, config: RunConfig, threads: int, shared: tuple = (None, None)) -> tuple:
    """In the child: (the file's identity, ``config``, and _load's pair for the file: its session, or the run
    saying why it has none); (identity, config, None, None) where the file names external data (model_reading
    reads it into the model: the file is not what would run) and all None where it cannot be read (the parent
    reads it too, and says why)."""
    try:
        data, read = read_bounded(path, budget)
    except UserError:
        return None, config, None, None, shared
    if b"location" in data:  # (an external data entry names its file by the key "location")
        return read, config, None, None, shared
    return (read, config, *_load(config, data, threads), shared)


def _run(prepared: tuple, feeds: dict) -> tuple:
    """In the child: (the file's identity, the RuntimeRun of ``feeds``, or None where no session was made).
    ``feeds`` may be SharedRefs into the inputs' file; the outputs go to the outputs' file (EarlySession)."""
    read, config, runner, loaded, (inputs, outputs) = prepared
    if runner is None:
        return read, loaded  # why it cannot load the model (a RuntimeRun), or None
    feeds = {name: inputs.view(value) if inputs is not None else value for name, value in feeds.items()}
    return read, _feed(config, runner, loaded, feeds, outputs)
