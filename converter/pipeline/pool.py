"""Running checks in worker processes: parallel, and isolated from crashes and hangs.

A job is one spec file: the worker loads it (so loading runs in parallel too), keeps
the cases matching the -k patterns, and checks them; the cases of a network share
one model and one session per runtime configuration. A worker sends one message per
spec (its results, and that it is done), and keeps where it is in memory it shares
with the parent: the spec's case list once loaded, the case it runs and since when.
When a worker dies (segfault, abort) or a case runs past the
timeout, that case is reported as ERROR with the reason, the worker is replaced, and
the job's remaining cases go to the queue again.
"""

from __future__ import annotations

import faulthandler
import os
import select
import selectors
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ..installed import ort_build
from ..errors import UserError
from ..process.interrupts import drain, signal_wakeup
from ..process import isolation
from ..process.isolation import Connection, die_with_parent, exit_reason, wait
from .selection import case_names
from .spec import load_spec_keyed
from .stages import ERROR, CaseResult, Options, describe_exception, opset_for, validate_spec, warm_up
from .plugins import load_plugins

SETUP = "<setup>"  # what a worker does before its first case: loading the spec, building the model and sessions
FLUSH_SECONDS = 0.05  # how long a worker may hold finished results before sending them
PARENT_CHECK_SECONDS = 1.0  # how often a worker checks that its parent is alive
MAX_WAIT_SECONDS = 3600.0  # the longest the parent waits on its workers in one go (then it looks at the clock again)
PR_SET_PDEATHSIG = 1  # linux/prctl.h
SEND_AHEAD_BYTES = 4096  # the largest job sent ahead: well within any OS's pipe or socket buffer
SEND_AHEAD_TOTAL_BYTES = 8192  # what a busy worker may hold in its pipe in all: still within any buffer
SEND_AHEAD_JOBS = 2  # jobs a busy worker may hold in its pipe, and more where its jobs are fast:
SEND_AHEAD_SECONDS = 0.02  # as many as it did in this time (its last job's pace), up to
SEND_AHEAD_MAX_JOBS = 16
COALESCE_SECONDS = 0.004  # while every busy worker holds this much work ahead (twice over), the parent sleeps
# this long between reads: each wake-up then reads several jobs' results, and the workers' writes do not wake it
INFO_BYTES = 1 << 14  # a worker's shared memory for its job's SpecInfo (a bigger one is sent as a message at once)
_INFO_HEADER = 16  # the job's id + 1 (0: nothing there), then the length of the pickled SpecInfo after the header


@dataclass
class Job:
    path: Path
    patterns: tuple[str, ...] = ()
    cases: list[str] | None = None  # None: every case matching the patterns
    id: int = 0
    done: frozenset = frozenset()  # (case, config) pairs already reported by a lost worker: not reported again


@dataclass
class SpecInfo:
    """What the parent needs to report a job's cases when its worker is lost."""

    name: str
    path: str
    ops: tuple[str, ...]
    opset: int
    cases: list[str]


def iter_job(job: Job, options: Options, on_case_start: Callable[[int], None] = lambda index: None) -> Iterator[tuple]:
    """Load the job's spec and check its cases: yields ("spec", SpecInfo) and ("result", CaseResult).

    ``on_case_start(i)`` is told when the i-th case of the info's list starts.
    """
    path = str(job.path)
    try:
        spec, file_key = load_spec_keyed(job.path, max_memory=options.max_memory, runs=len(options.configs))
    except UserError as exc:
        yield "result", CaseResult(path, "<load>", ERROR, path=path, problems=[str(exc)], bad_input=True)
        return
    except Exception as exc:  # noqa: BLE001 - our bug (or a plugin's): report it, run the other specs
        problem = describe_exception(exc, "loading the spec") + f" [a bug in spec2onnx: please report it with {path}]"
        yield "result", CaseResult(path, "<load>", ERROR, path=path, problems=[problem], internal=True)
        return
    names = job.cases if job.cases is not None else case_names(spec, job.patterns)
    yield "spec", SpecInfo(spec.name, str(spec.path), tuple(spec.ops), opset_for(spec, options), names)
    if names:
        index = {name: i for i, name in enumerate(names)}
        for result in validate_spec(spec, options, names, lambda name: on_case_start(index[name]), file_key):
            yield "result", result


def run_in_process(jobs: list[Job], options: Options, idle: Callable[[], None] = lambda: None) -> Iterator[CaseResult]:
    """No isolation (-j 0): for debugging, and where processes cannot be started. ``idle()`` before each spec."""
    for job in jobs:
        idle()
        yield from (payload for kind, payload in iter_job(job, options) if kind == "result")


class _Outbox:
    """A worker's messages to the parent, sent in batches: a pipe write per result costs more than checking
    a small case. A daemon thread sends what is waiting every FLUSH_SECONDS, so a result is never held
    behind a case that runs long (it must reach the parent before a timeout or Ctrl-C ends the worker)."""

    def __init__(self, conn: Connection):
        self.conn, self.lock, self.job_id, self.waiting = conn, threading.Lock(), None, []
        threading.Thread(target=self._flush_forever, daemon=True).start()

    def put(self, job_id: int, message: tuple, *, now: bool = False) -> None:
        with self.lock:
            self.job_id = job_id
            self.waiting.append(message)
            if now:
                self._flush()

    def _flush(self) -> None:
        if self.waiting:
            self.conn.send(("batch", self.job_id, self.waiting))
            self.waiting = []

    def _flush_forever(self) -> None:
        while True:
            time.sleep(FLUSH_SECONDS)
            with self.lock:
                try:
                    self._flush()
                except OSError:  # the parent is gone: nobody wants the results
                    os._exit(1)


def _die_with_parent(parent_pid: int, inherited: tuple) -> None:
    """Make sure this worker never outlives the parent, however the parent ends (kill -9 included): the three
    guards of isolation.die_with_parent, with this module's PR_SET_PDEATHSIG (a test switches it off). The
    pool starts its workers from the thread that iterates it, which the kernel's guard watches."""
    die_with_parent(parent_pid, inherited, PR_SET_PDEATHSIG, PARENT_CHECK_SECONDS)


def _share_info(shared, job_id: int, info: SpecInfo) -> bool:
    """Put the job's SpecInfo where the parent reads it if this worker is lost (True; False: too big for it).
    The header is cleared first and written last: a reader never takes a half-written entry for a whole one."""
    data = isolation.dumps(info)
    view = memoryview(shared).cast("B")
    view[:_INFO_HEADER] = bytes(_INFO_HEADER)
    if _INFO_HEADER + len(data) > len(view):
        return False
    view[_INFO_HEADER:_INFO_HEADER + len(data)] = data
    view[:_INFO_HEADER] = (job_id + 1).to_bytes(8, "little") + len(data).to_bytes(8, "little")
    return True


def _shared_info(shared, job_id: int) -> SpecInfo | None:
    """The SpecInfo a worker put in ``shared`` for job ``job_id``, or None (not loaded yet, or another job's)."""
    view = memoryview(shared).cast("B")
    if int.from_bytes(view[:8], "little") != job_id + 1:
        return None
    size = int.from_bytes(view[8:_INFO_HEADER], "little")
    return isolation.loads(view[_INFO_HEADER:_INFO_HEADER + size])


def _worker_main(conn: Connection, progress, shared_info, options: Options, plugins: tuple[str, ...], parent_pid: int,
                 inherited: tuple = (), runtime: dict | None = None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler (fork copies it): a worker just ends
    signal.set_wakeup_fd(-1)  # nor the parent's signal_wakeup descriptor
    _die_with_parent(parent_pid, inherited)
    faulthandler.disable()  # a crash is reported by the parent, in one line
    if runtime is not None:
        ort_build.adopt(runtime)  # the parent asked onnxruntime (and warned) once for every worker
    load_plugins(plugins)
    outbox = _Outbox(conn)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if job is None:
            return
        started = time.monotonic()
        try:
            # Where the worker is, in shared memory rather than a message per case: [case index, start time];
            # -1 while loading the spec and building the model. The parent reads it on a crash or a timeout.
            progress[0], progress[1] = -1, started
            for message in iter_job(job, options, lambda i: _set_progress(progress, i)):
                # The spec's case list goes to the shared memory before any case runs (without it a crash could not
                # be pinned on a case), and with the results; one too big for that memory goes at once.
                outbox.put(job.id, message, now=message[0] == "spec" and not _share_info(shared_info, job.id, message[1]))
        except Exception as exc:  # noqa: BLE001 - report, and keep the worker alive
            outbox.put(job.id, ("crash", describe_exception(exc, "checking the spec")))
        # The next job (sent ahead) may already wait in the pipe: its setup is timed from now, and the parent,
        # which reads "done" later, must not time it from this job's last case.
        progress[0], progress[1] = -1, time.monotonic()
        outbox.put(job.id, ("done", progress[1] - started), now=True)


def _set_progress(progress, index: int) -> None:
    # The start time first: the parent, reading between the two writes, must never see the new case with the
    # previous case's start time (it would time the new case out early).
    progress[1] = time.monotonic()
    progress[0] = index


def _config_key(config) -> tuple[str, str, str]:
    return config.runtime, config.provider, config.opt_level


def _config_of(result: CaseResult) -> tuple[str, str, str]:
    return result.runtime, result.provider, result.opt_level


@dataclass
class _Worker:
    process: isolation.Child  # (isolation.Serve)
    conn: Connection
    progress: object  # shared [index of the current case in info.cases, or -1 for SETUP; its start time]
    shared_info: object  # shared bytes: the job's SpecInfo, put there by the worker once loaded (_share_info)
    job: Job | None = None  # the job the worker is on (or will start next)
    waiting: deque = field(default_factory=deque)  # (job, its pickle's size) sent ahead, started when ``job`` is done
    pace: float | None = None  # seconds its last job took (it says so with "done")
    info: SpecInfo | None = None
    reported: set = field(default_factory=set)  # (case, config) pairs of the job with a result
    eof: bool = False  # the pipe is closed: the process is gone

    def take(self, job: Job | None) -> None:
        """Now on ``job`` (None: idle): nothing known of its spec yet, its already reported cases remembered."""
        self.job, self.info, self.reported = job, None, set(job.done) if job else set()

    def recall(self) -> None:
        """The job's SpecInfo from the shared memory, where its message has not come (the worker died or hangs)."""
        if self.info is None and self.job is not None:
            self.info = _shared_info(self.shared_info, self.job.id)

    @property
    def current(self) -> str:
        index = int(self.progress[0])
        return SETUP if index < 0 or self.info is None else self.info.cases[index]

    @property
    def since(self) -> float:
        return self.progress[1]

    def ahead(self) -> int:
        """How many jobs it may hold sent ahead: SEND_AHEAD_JOBS, or where its jobs are fast, SEND_AHEAD_SECONDS of
        them at its last pace (on a busy machine the parent may not run for several of them; a job held by a
        worker waits behind its current one where an idle worker could have taken it: never much time of them)."""
        if not self.pace or self.pace * SEND_AHEAD_JOBS >= SEND_AHEAD_SECONDS:
            return SEND_AHEAD_JOBS
        return min(SEND_AHEAD_MAX_JOBS, int(SEND_AHEAD_SECONDS / self.pace))

    def supplied(self) -> bool:
        """Whether the jobs it holds last it well beyond COALESCE_SECONDS at its pace."""
        return self.pace is not None and len(self.waiting) * self.pace > 2 * COALESCE_SECONDS


def _readable(conn: Connection) -> bool:
    """``conn.poll()`` (a message, or the end of the pipe, is waiting), in one poll(2) call: Connection.poll builds
    a selector each time (multiprocessing.connection.wait), and the parent asks after every message."""
    if not hasattr(select, "poll"):
        return conn.poll()
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN)
    return bool(poller.poll(0))


class _Waiter:
    """``multiprocessing.connection.wait`` with one selector kept while the objects waited on stay the same.

    ``wait`` builds a selector and registers every pipe and process sentinel on each call; the parent calls it
    after every batch of results (a few times per spec), and with small specs that was a fifth of its time,
    taken from the workers on a machine with as many cores as workers. POSIX only (elsewhere: ``wait``)."""

    def __init__(self):
        self.objects: tuple = ()
        self.selector = None

    def wait(self, objects: list, timeout: float | None) -> list:
        if not hasattr(selectors, "PollSelector"):
            return wait(objects, timeout=timeout)
        if tuple(objects) != self.objects:  # (the tuple holds the pipes: none is reused while it is compared)
            self.close()
            self.selector = selectors.PollSelector()
            for obj in objects:
                self.selector.register(obj, selectors.EVENT_READ)
            self.objects = tuple(objects)
        return [key.fileobj for key, _ in self.selector.select(timeout)]  # (a signal: select retries, PEP 475)

    def close(self) -> None:
        if self.selector is not None:
            self.selector.close()
        self.selector, self.objects = None, ()


class Pool:
    def __init__(self, workers: int, options: Options, timeout: float | None, plugins: tuple[str, ...] = ()):
        if timeout is not None and not timeout > 0:  # NaN included: it would disable the timeout silently
            raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
        self.size = max(1, workers)
        self.options = options
        self.timeout = None if timeout == float("inf") else timeout
        self.plugins = plugins
        self.workers: list[_Worker] = []
        self.runtime: dict | None = None  # the installed onnxruntime's answers (ort_build), asked before any worker
        self._waiter = _Waiter()

    def _start(self) -> _Worker:
        parent, child = isolation.pipe()
        progress, shared_info = isolation.shared_doubles(2), isolation.shared_bytes(INFO_BYTES)
        # A forked worker inherits the parent's end of its own pipe and of every other worker's: it closes them
        # (in _die_with_parent: the guards are the worker's own, with this module's PR_SET_PDEATHSIG)
        inherited = (parent, *(w.conn for w in self.workers)) if isolation.FORKS else ()
        args = (child, progress, shared_info, self.options, self.plugins, os.getpid(), inherited, self.runtime)
        process = isolation.start(isolation.Serve(_worker_main, args), die_with_parent=False)
        child.close()
        return _Worker(process, parent, progress, shared_info)

    def run(self, jobs: list[Job], idle: Callable[[], None] = lambda: None) -> Iterator[CaseResult]:
        """The jobs' results as they come; ``idle()`` each time the parent is about to wait for more."""
        queue = deque(jobs)
        for i, job in enumerate(queue):
            job.id = i
        with signal_wakeup() as wakeup:  # Ctrl-C wakes the wait below, whichever thread the kernel gave it to
            yield from self._run(queue, wakeup, idle)

    def _run(self, queue: deque, wakeup: int | None, idle: Callable[[], None]) -> Iterator[CaseResult]:
        self.workers = []
        # Asked here, once: each worker would otherwise start its own child process and repeat the warning
        self.runtime = ort_build.snapshot()
        if isolation.FORKS:
            warm_up()  # forked workers inherit it: each computed it on its first spec, at every run (~20 ms)
        for _ in range(min(self.size, len(queue)) or 1):
            self.workers.append(self._start())  # one by one: each new worker knows the pipes to close
        try:
            while queue or any(w.job for w in self.workers):
                for worker in self.workers:
                    if worker.job is None and queue:
                        self._assign(worker, queue.popleft())
                for worker in self.workers:
                    # Only while there is more work than the workers hold: a job sent ahead waits behind its
                    # worker's current one (a case that hangs until --timeout, say), where an idle worker could
                    # have taken it. Some ahead (ahead()): on a busy machine the parent may not run for longer than a
                    # spec takes, and while it sleeps between reads (supplied()) it sends none.
                    while (worker.job is not None and len(worker.waiting) < worker.ahead()
                           and len(queue) > len(self.workers) * (len(worker.waiting) + 1)
                           and self._send_ahead(worker, queue.popleft(), queue)):
                        pass
                busy = [w for w in self.workers if w.job]
                idle()
                if busy and all(w.supplied() for w in busy):
                    time.sleep(COALESCE_SECONDS)
                ready = self._waiter.wait([w.conn for w in busy] + [w.process.sentinel for w in busy]
                                          + ([wakeup] if wakeup is not None else []), self._next_deadline(busy))
                if wakeup in ready:  # a signal: its handler (KeyboardInterrupt) runs at the next bytecode
                    drain(wakeup)
                for worker in busy:
                    if worker.conn in ready:
                        yield from self._drain(worker)
                    if worker.job and (worker.eof or (worker.process.sentinel in ready and not _readable(worker.conn))):
                        yield from self._lost(worker, queue, self._death_reason(worker))
                    elif (worker.job and self.timeout and time.monotonic() - worker.since > self.timeout
                          and not _readable(worker.conn)):
                        # (``ready`` is as old as the last wait: while the consumer held a result, this worker
                        # may have finished and moved on, its messages unread. Read them first.)
                        yield from self._lost(worker, queue, f"timed out after {self.timeout:g} s (--timeout)")
        finally:
            self._waiter.close()
            self.close()

    def _assign(self, worker: _Worker, job: Job) -> None:
        for _ in range(3):  # a worker that died while idle is replaced (and its replacement tried)
            try:
                worker.take(job)
                worker.progress[0], worker.progress[1] = -1, time.monotonic()
                worker.conn.send(job)
                return
            except OSError:
                self._kill(worker)
                replacement = self._start()
                self.workers[self.workers.index(worker)] = replacement
                worker = replacement
        raise RuntimeError("worker processes keep dying before they get work")

    def _send_ahead(self, worker: _Worker, job: Job, queue: deque) -> bool:
        """Queue another job in the worker's pipe (True; False: it went back to the queue), so that the worker
        starts it without waiting for the parent (a round trip per spec costs as much as checking a small one). A worker that is gone keeps it
        off: the job goes back to the queue, and the loss is found on the worker's current job.

        Only a job that fits in the pipe's buffer: the worker reads it only once its current job is done,
        and a bigger one (long -k patterns, a requeued job's case list) would block the parent in send
        until then, with no timeout enforced meanwhile (a hanging case: forever)."""
        data = isolation.dumps(job)
        if len(data) > SEND_AHEAD_BYTES or sum(size for _, size in worker.waiting) + len(data) > SEND_AHEAD_TOTAL_BYTES:
            queue.appendleft(job)
            return False
        try:
            worker.conn.send_bytes(data)
        except OSError:
            queue.appendleft(job)
            return False
        worker.waiting.append((job, len(data)))
        return True

    def _drain(self, worker: _Worker) -> Iterator[CaseResult]:
        while worker.job and _readable(worker.conn):
            try:
                _, _, batch = worker.conn.recv()
            except (EOFError, OSError):
                worker.eof = True
                return
            for kind, payload in batch:
                if kind == "spec":
                    worker.info = payload
                elif kind == "result":
                    key = (payload.case, _config_of(payload))
                    if key not in worker.reported:  # a requeued case runs every configuration again
                        worker.reported.add(key)
                        yield payload
                elif kind == "crash":
                    yield from self._errors(worker, self._cases(worker, untouched=False), payload)
                elif kind == "done":
                    self._next_job(worker, payload)

    @staticmethod
    def _next_job(worker: _Worker, seconds) -> None:
        """The worker finished its job in ``seconds``: it is now on the job sent ahead, if any (it reset its progress
        itself)."""
        worker.pace = seconds
        worker.take(worker.waiting.popleft()[0] if worker.waiting else None)

    def _cases(self, worker: _Worker, untouched: bool) -> list[str]:
        """The job's cases with no result at all (untouched) or with at least one configuration missing."""
        configs = [_config_key(c) for c in self.options.configs]
        done = worker.reported
        cases = worker.info.cases if worker.info else []
        if untouched:
            return [c for c in cases if not any((c, k) in done for k in configs)]
        return [c for c in cases if not all((c, k) in done for k in configs)]

    def _lost(self, worker: _Worker, queue: deque, reason: str) -> Iterator[CaseResult]:
        """The worker died or hung: report its current case, replace it, requeue the rest of its job."""
        worker.recall()  # (its case list: in the shared memory, where its message did not come)
        job, current = worker.job, worker.current
        self._kill(worker)
        while worker.waiting:  # sent ahead, never started: back to the queue as they were
            queue.appendleft(worker.waiting.pop()[0])
        self.workers[self.workers.index(worker)] = self._start()
        if current == SETUP:
            reason += " while loading the spec, building the model or creating sessions"
            victims, rest = self._cases(worker, untouched=False), []
        else:
            victims = [current]
            # Every other case with a configuration missing: one whose last results were still in the worker's
            # outbox (batched) when it died is run again, and the configurations already reported are dropped.
            rest = [c for c in self._cases(worker, untouched=False) if c != current]
        yield from self._errors(worker, victims, reason, job)
        if rest:
            queue.appendleft(Job(job.path, job.patterns, rest, job.id, frozenset(worker.reported)))

    def _errors(self, worker: _Worker, cases: list[str], reason: str, job: Job | None = None) -> Iterator[CaseResult]:
        """ERROR results for the given cases, for each configuration not reported yet."""
        info = worker.info
        if info is None:  # lost before the spec was even loaded
            path = str((job or worker.job).path)
            yield CaseResult(path, "<load>", ERROR, path=path, problems=[reason])
            return
        for case in cases:
            for config in self.options.configs:
                if (case, _config_key(config)) in worker.reported:
                    continue
                worker.reported.add((case, _config_key(config)))
                yield CaseResult(
                    spec=info.name, case=case, outcome=ERROR, path=info.path, ops=info.ops, runtime=config.runtime,
                    provider=config.provider, opset=info.opset, opt_level=config.opt_level, problems=[reason],
                    label=self.options.label(config), target=self.options.target_name())

    @staticmethod
    def _death_reason(worker: _Worker) -> str:
        worker.process.join(1)
        return exit_reason(worker.process.exitcode, "the worker process")

    def _next_deadline(self, busy: list[_Worker]) -> float | None:
        if not self.timeout or not busy:
            return None
        now = time.monotonic()
        # At most MAX_WAIT_SECONDS: the OS's poll() takes milliseconds in a C int (a 1e7 s wait overflows it).
        return min(MAX_WAIT_SECONDS, max(0.0, min(w.since + self.timeout - now for w in busy)) + 0.01)

    @staticmethod
    def _kill(worker: _Worker) -> None:
        if worker.process.is_alive():
            try:
                os.kill(worker.process.pid, signal.SIGKILL)
            except OSError:
                pass
        worker.process.join(5)
        worker.conn.close()

    def close(self) -> None:
        for worker in self.workers:
            if worker.job is not None:  # stopped early (--fail-fast, Ctrl-C): do not wait for its case
                self._kill(worker)
            elif worker.process.is_alive():
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
        deadline = time.monotonic() + 2
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                self._kill(worker)
        self.workers = []
