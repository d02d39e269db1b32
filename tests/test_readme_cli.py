"""The command-line examples of README.md, docs/cli.md and docs/deployment.md print what they show.

Each ``console`` block is a list of ``$ command`` lines, each followed by what it prints. The commands that need
nothing but the checkout's ``specs/`` and ``tests/`` (not the files a page asks the reader to make or fetch:
light_resnet50.onnx, wrong.yaml, ...; nor pytest) run here, in order, in a folder holding a copy of those two
(they write files the later ones read), through the console script; every line a page shows for a command must be
among the lines it printed (stdout and stderr), timings and versions aside (they change from run to run and
release to release). A line of ``...`` stands for lines the page leaves out. So an example a newcomer copies
cannot drift from what the program says.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = {"README.md": 10, "docs/cli.md": 10, "docs/deployment.md": 4}  # page: the fewest examples it runs
NEEDS_MORE = ("light_resnet50.onnx", "relu.onnx", "light_squeezenet.onnx", "small.onnx", "chain.onnx", "wrong.yaml",
              "wrong.json", "right.json", "sum27.yaml", "<TAB>", "pytest ")


def _examples(page: str) -> list[tuple[str, list[str]]]:
    """(command, the lines shown after it) for every ``$ `` line of the page's console blocks, in order."""
    text = (REPO / page).read_text(encoding="utf-8")
    out: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
    return out


def _normal(line: str) -> str:
    """A printed line without what changes between runs and releases: timings, version numbers, trailing space."""
    line = re.sub(r"\[\d+(\.\d+)? ms\]", "[T ms]", line)
    line = re.sub(r"\bin \d+(\.\d+)? s\b", "in T s", line)
    line = re.sub(r"\b\d+\.\d+\.\d+\b", "V", line)
    return line.rstrip()


def _runnable(page: str) -> list[tuple[str, list[str]]]:
    return [(command, shown) for command, shown in _examples(page) if not any(n in command for n in NEEDS_MORE)]


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_have_the_examples_this_test_runs(page):
    commands = [command for command, _ in _runnable(page)]
    assert len(commands) >= PAGES[page], commands  # (a change to the page's blocks that this parser missed)
    assert any(c.startswith("spec2onnx validate ") for c in commands)


@pytest.mark.parametrize("page", PAGES)
def test_page_commands_print_what_the_page_shows(page, tmp_path):
    pytest.importorskip("openvino")  # (check --probe --target openvino is one of them)
    scripts = Path(sys.executable).parent
    if not (scripts / "spec2onnx").exists():
        pytest.skip("no spec2onnx console script beside this Python (the package is not installed)")
    for folder in ("specs", "tests"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    env = {"PATH": f"{scripts}:/usr/bin:/bin", "HOME": str(tmp_path), "SPEC2ONNX_CACHE": "off", "LC_ALL": "C.UTF-8"}
    missing = []
    for command, shown in _runnable(page):
        done = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        printed = {_normal(line) for line in (done.stdout + done.stderr).splitlines()}
        assert "Traceback" not in done.stderr, (command, done.stderr)
        missing += [f"$ {command}\n    {page}: {line}" for line in shown
                    if line.strip() and line.strip() != "..." and _normal(line) not in printed]
    assert not missing, f"{page} lines the command no longer prints:\n" + "\n".join(missing)
