"""The README's "Python API" examples run, and print what the README shows."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from .conftest import REPO


def _examples() -> list[tuple[str, str]]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("\n## Python API\n"):]
    section = section[:section.index("\n## ", 1)]
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", section, re.S)
    assert len(pairs) == 3, "the Python API section lost an example or its output"
    return pairs


@pytest.mark.parametrize("code, output", _examples(), ids=["public-api", "trt-port", "dml"])
def test_readme_example_prints_what_the_readme_shows(code, output, tmp_path, monkeypatch):
    (tmp_path / "specs").symlink_to(REPO / "specs")
    monkeypatch.chdir(tmp_path)  # the examples write files relative to the current folder
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert printed.getvalue() == output
