"""Asking an installed runtime in a child process: a crash, a hang or an exception there is an answer, never
the end of the command (issue 24: onnxruntime-gpu's kernel registry call dies of SIGSEGV).

``ask(task, request, data)`` runs converter/process/runtime_child.py's ``task`` in a fresh interpreter
(isolation.Python: this one's executable, this process's ``sys.path`` and environment: the child imports the
onnxruntime or OpenVINO this process would; it dies with this process), feeds it the request (and ``data``, a model's bytes), waits at most ``timeout()`` seconds,
and returns a ``Reply``: the answers that arrived, and ``failure``, why the child ended without finishing
("the child process died of SIGSEGV", "did not answer within 60 s", "the call raised RuntimeError: ...").
A child that outlives its time is killed with its process group (isolation.start).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import isolation
from .runtime_child import MARK

CHILD = Path(__file__).with_name("runtime_child.py")
DEFAULT_TIMEOUT = 60.0  # seconds: importing onnxruntime-gpu and reading its registry takes about 1-2 s
TIMEOUT_VARIABLE = "SPEC2ONNX_RUNTIME_TIMEOUT"


@dataclass
class Reply:
    answers: list[dict] = field(default_factory=list)  # in the order the child gave them
    failure: str | None = None  # None: the task ran to its end ("done")
    crashed: bool = False  # the child died of a signal (not a refusal, not a timeout)
    timed_out: bool = False  # it did not answer within the time it was given (a property of that run, not of the build)

    def first(self, stage: str) -> dict | None:
        return next((a for a in self.answers if a.get("stage") == stage), None)


def timeout() -> float:
    """Seconds a child may take: $SPEC2ONNX_RUNTIME_TIMEOUT when it is a positive number, else DEFAULT_TIMEOUT."""
    try:
        value = float(os.environ.get(TIMEOUT_VARIABLE, ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 < value < float("inf") else DEFAULT_TIMEOUT


def ask(task: str, request: dict, data: bytes = b"", seconds: float | None = None) -> Reply:
    """Run ``task`` of runtime_child.py in a child process (isolation.Python) and collect its answers."""
    seconds = timeout() if seconds is None else seconds
    stdin = json.dumps({"task": task, **request}).encode() + b"\n" + data
    try:
        child = isolation.start(isolation.Python(CHILD.read_text(encoding="utf-8"), stdin), timeout=seconds)
    except OSError as exc:
        return Reply(failure=f"the child process could not start ({exc.strerror or exc})")
    ended = child.reply()
    reply = Reply(answers=_answers(ended.stdout))
    error = reply.first("error")
    if error is not None:
        reply.failure = f"the call raised {error.get('error') or 'an exception'}"
    elif reply.first("done") is not None:
        pass
    elif ended.timed_out is not None:
        reply.failure, reply.timed_out = f"the child process did not answer within {seconds:g} s", True
    elif ended.signal is not None:
        reply.failure, reply.crashed = ended.ended("the child process"), True
    else:
        last = [line.strip() for line in ended.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        said = f": {last[-1][:300]}" if last else ""
        reply.failure = f"the child process exited with status {ended.exitcode} without an answer{said}"
    return reply


def _answers(out: bytes) -> list[dict]:
    answers = []
    for line in out.decode("utf-8", "replace").split("\n"):  # (not splitlines: it splits at MARK's \x1e too)
        if not line.startswith(MARK):  # the runtime's own prints
            continue
        try:
            value = json.loads(line[len(MARK):])
        except ValueError:
            continue
        if isinstance(value, dict):
            answers.append(value)
    return answers


def command_status(argv: list[str]) -> tuple[int, str]:
    """(exit status, last line of its output) of an external command the user gave (``reduce --check CMD``): run
    without a shell, its input empty, its output collected (the last line shown with the status). A command
    that cannot be started: OSError, for the caller to word. Ctrl-C kills it, with its process group
    (isolation.Command)."""
    done = isolation.run(isolation.Command(tuple(argv)))
    text = (done.stdout + done.stderr).decode("utf-8", "replace").strip().splitlines()
    return done.exitcode, text[-1] if text else ""
