"""The two exception families of spec2onnx.

``UserError`` is for problems with what the user gave us: a malformed spec, an
unsupported combination of attributes, a missing file. Its message names the
file, the field, the value and what is allowed, and the CLI prints it as one
line and exits with status 2.

``InternalError`` is for our own bugs: an invariant that validation should have
guaranteed but did not hold. The CLI reports it with exit status 3.
"""

from __future__ import annotations

import re


# The exit statuses of the CLI (cli.py's epilog says what each means).
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class Spec2OnnxError(Exception):
    """Base class of every error spec2onnx raises on purpose."""


class UserError(Spec2OnnxError):
    """Bad input: the message says where (file, field) and what is allowed."""

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None):
        self.file = file
        self.field = field
        self.detail = message
        super().__init__(self._render())

    def _render(self) -> str:
        where = ": ".join(part for part in (self.file, self.field) if part)
        text = f"{where}: {self.detail}" if where else self.detail
        return _bounded(printable(text))

    def located(self, *, file: str | None = None, field_prefix: str | None = None) -> "UserError":
        """Return a copy that also names the file, and a field path prefix."""
        field = self.field
        if field_prefix:
            joint = "" if field and field.startswith("[") else "."  # xfail[0], not xfail.[0]
            field = f"{field_prefix}{joint}{field}" if field else field_prefix
        return type(self)(self.detail, file=self.file or file, field=field)


MAX_MESSAGE = 2000  # characters of a user error's line: a huge value it quotes (a 200,000-character name) is cut


def _bounded(text: str) -> str:
    """``text`` of at most about MAX_MESSAGE characters: its middle cut where a quoted value made it huge, so that
    the start (file, field) and the end (what is allowed) stay."""
    if len(text) <= MAX_MESSAGE:
        return text
    head, tail = text[:MAX_MESSAGE * 3 // 4], text[-MAX_MESSAGE // 4:]
    return f"{head}... ({len(text) - len(head) - len(tail):,} characters cut) ...{tail}"


def printable(text: str) -> str:
    """``text`` with line breaks and other unprintable characters escaped: an error message is always one line."""
    return text if text.isprintable() else "".join(c if c.isprintable() else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (Python's surrogateescape): the byte itself
        return f"\\x{code - 0xDC00:02x}"
    return repr(char)[1:-1]


class SpecError(UserError):
    """The spec document is malformed or asks for something the source runtime forbids."""


class TargetRefusal(UserError):
    """A target cannot run a spec's model: a node its static check refuses. Exit status 2 where the model must be
    written for it (convert); ``validate`` counts the spec's cases as REFUSED (converter/results.py)."""


class TargetRuleError(SpecError, TargetRefusal):
    """A spec the target cannot take at all: refused before lowering (converter/targets/spec_rules.py), a
    SpecError naming the field and the rule (exit status 2 in convert; REFUSED in validate)."""


class RuntimeUnavailableError(UserError):
    """The user asked for an execution provider or opset this machine cannot run."""


class InternalError(Spec2OnnxError):
    """A bug in spec2onnx: validation let through something the lowering cannot handle."""


def describe_exception(exc: BaseException, doing: str) -> str:
    """One line for an exception met while ``doing`` something: a UserError's own message; else its type, where it
    was raised (file:line) and the first line of its message."""
    import traceback
    from pathlib import Path

    if isinstance(exc, UserError):
        return str(exc)
    if isinstance(exc, InternalError):
        return f"internal error while {doing}: {exc}"
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" ({Path(last.filename).name}:{last.lineno})" if last else ""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if lines and _WHERE_LINE.fullmatch(lines[0]):
        # OpenVINO's errors open with where they were thrown ("Exception from src/.../core.cpp:84:", "Check 'false'
        # failed at ...cpp:151:") and say what went wrong on the lines after: those lines, joined
        text = " ".join(line for line in lines if not _WHERE_LINE.fullmatch(line))[:600]
    else:
        text = lines[0] if lines else ""
    return f"{type(exc).__name__} while {doing}{where}: {text}"


_WHERE_LINE = re.compile(r"(Exception from|Check '.*' failed at) \S+:\d+:?")
