"""Crashes the fuzzer finds, tolerated only until they are fixed (none today).

Each entry is the exception type and the innermost converter/ function it escapes from.
``test_known_bugs.py`` reproduces each one with ``xfail(strict=True)``: when a fix lands,
that test XPASSes (a failure), and its entry here must be deleted, so that the fuzzer
guards the fix from then on. Nothing else is tolerated.
"""

from __future__ import annotations

import os
import traceback

# (exception type, file, function): the fix needed
KNOWN: dict[tuple[str, str, str], str] = {}  # none today; the regressions are in test_known_bugs.py


# Valid specs that do not validate today; the strategies stay out of these regions while the entry exists.
AVOID: dict[str, str] = {}  # none today

# Characters str.splitlines() breaks a line at: a message must contain none of them.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def site(exc: BaseException) -> tuple[str, str, str]:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f"{os.sep}converter{os.sep}" in f.filename]
    last = frames[-1] if frames else None
    return type(exc).__name__, os.path.basename(last.filename) if last else "?", last.name if last else "?"


def is_known(exc: BaseException) -> bool:
    return site(exc) in KNOWN
