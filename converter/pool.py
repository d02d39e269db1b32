"""Running checks in worker processes: parallel, and isolated from crashes and hangs.

Each job is one spec with the cases chosen from it, so the cases of a network
share one model and one session per runtime configuration. A worker announces
each case before running it; when a worker dies (segfault, abort) or a case
runs past the timeout, that case is reported as ERROR with the reason, the
worker is replaced, and the job's remaining cases go to the queue again.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Iterator

from .spec import Spec
from .validate import ERROR, CaseResult, Options, check_spec, describe_exception

SETUP = "<setup>"  # what a worker is doing before its first case: building the model and sessions


@dataclass
class Job:
    spec: Spec
    cases: list[str]
    id: int = 0


def run_in_process(jobs: list[Job], options: Options) -> Iterator[CaseResult]:
    """No isolation (-j 0): for debugging, and where processes cannot be started."""
    for job in jobs:
        yield from check_spec(job.spec, options, job.cases)


def _worker_main(conn: Connection, options: Options, plugins: tuple[str, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    faulthandler.disable()  # a crash is reported by the parent, in one line
    from .plugins import load_plugins

    load_plugins(plugins)
    while True:
        job = conn.recv()
        if job is None:
            return
        try:
            conn.send(("start", job.id, SETUP))
            for result in check_spec(job.spec, options, job.cases, lambda name: conn.send(("start", job.id, name))):
                conn.send(("result", job.id, result))
        except Exception as exc:  # noqa: BLE001 - report, and keep the worker alive
            conn.send(("crash", job.id, describe_exception(exc, "checking the spec")))
        conn.send(("done", job.id, None))


@dataclass
class _Worker:
    process: multiprocessing.Process
    conn: Connection
    job: Job | None = None
    current: str | None = None  # the case being run (SETUP before the first)
    since: float = 0.0
    reported: set = field(default_factory=set)  # case names of the job with at least one result
    eof: bool = False  # the pipe is closed: the process is gone


class Pool:
    def __init__(self, workers: int, options: Options, timeout: float | None, plugins: tuple[str, ...] = ()):
        self.size = max(1, workers)
        self.options = options
        self.timeout = timeout
        self.plugins = plugins
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.workers: list[_Worker] = []

    def _start(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        process = self.ctx.Process(target=_worker_main, args=(child, self.options, self.plugins), daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent)

    def run(self, jobs: list[Job]) -> Iterator[CaseResult]:
        queue = deque(jobs)
        for i, job in enumerate(queue):
            job.id = i
        self.workers = [self._start() for _ in range(min(self.size, len(queue)) or 1)]
        try:
            while queue or any(w.job for w in self.workers):
                for worker in self.workers:
                    if worker.job is None and queue:
                        self._assign(worker, queue.popleft())
                busy = [w for w in self.workers if w.job]
                waitables = [w.conn for w in busy] + [w.process.sentinel for w in busy]
                ready = wait(waitables, timeout=self._next_deadline(busy))
                for worker in busy:
                    if worker.conn in ready:
                        yield from self._drain(worker)
                    if worker.job and (worker.eof or (worker.process.sentinel in ready and not worker.conn.poll())):
                        yield from self._lost(worker, queue, self._death_reason(worker))
                    elif worker.job and self.timeout and time.monotonic() - worker.since > self.timeout:
                        yield from self._lost(worker, queue, f"timed out after {self.timeout:g} s (--timeout)")
        finally:
            self.close()

    def _assign(self, worker: _Worker, job: Job) -> None:
        worker.job, worker.current, worker.since, worker.reported = job, SETUP, time.monotonic(), set()
        worker.conn.send(job)

    def _drain(self, worker: _Worker) -> Iterator[CaseResult]:
        while worker.job and worker.conn.poll():
            try:
                kind, job_id, payload = worker.conn.recv()
            except (EOFError, OSError):
                worker.eof = True
                return
            if kind == "start":
                worker.current, worker.since = payload, time.monotonic()
            elif kind == "result":
                worker.reported.add(payload.case)
                yield payload
            elif kind == "crash":
                yield from self._errors(worker.job, [c for c in worker.job.cases if c not in worker.reported], payload)
                worker.reported.update(worker.job.cases)
            elif kind == "done":
                worker.job = None

    def _lost(self, worker: _Worker, queue: deque, reason: str) -> Iterator[CaseResult]:
        """The worker died or hung: report its current case(s), replace it, requeue the rest of its job."""
        job, current = worker.job, worker.current
        self._kill(worker)
        self.workers[self.workers.index(worker)] = self._start()
        if current == SETUP:
            victims, rest = [c for c in job.cases if c not in worker.reported], []
            reason += " while building the model or creating sessions"
        else:
            victims = [current]
            rest = [c for c in job.cases if c not in worker.reported and c != current]
        yield from self._errors(job, victims, reason)
        if rest:
            queue.appendleft(Job(job.spec, rest, job.id))

    def _errors(self, job: Job, cases: list[str], reason: str) -> Iterator[CaseResult]:
        from .validate import opset_for

        for case in cases:
            for config in self.options.configs:
                yield CaseResult(
                    spec=job.spec.name, case=case, outcome=ERROR, path=str(job.spec.path), ops=tuple(job.spec.ops),
                    runtime=config.runtime, provider=config.provider, opset=opset_for(job.spec, self.options),
                    opt_level=config.opt_level, problems=[reason],
                    label=config.label if self.options.show_labels else "")

    @staticmethod
    def _death_reason(worker: _Worker) -> str:
        worker.process.join(1)
        code = worker.process.exitcode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the worker process died of {name}"
        return f"the worker process exited with status {code}"

    def _next_deadline(self, busy: list[_Worker]) -> float | None:
        if not self.timeout or not busy:
            return None
        now = time.monotonic()
        return max(0.0, min(w.since + self.timeout - now for w in busy)) + 0.01

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
            if worker.process.is_alive() and worker.job is None:
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
