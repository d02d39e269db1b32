"""The package's shape is kept by a tool, not by review: import-linter checks the contracts in pyproject.toml
([tool.importlinter]: no import circles at any level, the layers, the references' independence, targets/
as data, the fronts through the pipeline) on grimp's graph, which counts imports inside functions too."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

PACKAGE = REPO / "converter"
# Lazy imports belong at the front doors, which pay for a command only what it uses: the CLI, the package's and the
# API's __init__ (names imported on first use, by importlib: none counted here) and the pytest plugin (loaded in every
# pytest run). Elsewhere an import inside a function is an exception, each with its reason (issue 32 item 5).
FRONT_DOORS = ("converter/cli.py", "converter/cli_options.py", "converter/__init__.py", "converter/api/__init__.py",
               "converter/pytest_plugin.py")
MAX_INLINE_IMPORTS = {"front doors": 5, "elsewhere": 5}  # (issue 32: "at most 5" elsewhere; 5 today)
REASONS = ("start-up time", "optional dependency")


def test_lint_imports_keeps_every_contract():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    # Run from outside the checkout: the installed spec2onnx is the one analysed (not ./converter).
    done = subprocess.run([exe, str(REPO / "pyproject.toml")], capture_output=True, text=True, cwd=REPO.parent)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def _inline_imports():
    """(file, line, text of the line) of every import of the package's own modules inside a function."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for func in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(func):
                    if isinstance(node, ast.ImportFrom) and node.level > 0:
                        found.add((str(path.relative_to(REPO)), node.lineno, lines[node.lineno - 1]))
    return sorted(found)


def test_few_imports_of_the_package_inside_functions_each_with_its_reason():
    inline = _inline_imports()
    for where, cap in MAX_INLINE_IMPORTS.items():
        found = [i for i in inline if (i[0] in FRONT_DOORS) == (where == "front doors")]
        assert len(found) <= cap, f"{where}:\n" + "\n".join(f"{f}:{n}: {t.strip()}" for f, n, t in found)
    unexplained = [f"{f}:{n}: {t.strip()}" for f, n, t in inline if not any(r in t for r in REASONS)]
    assert unexplained == [], "an import inside a function needs a comment naming its reason: " + ", ".join(REASONS)


def test_the_graph_tool_finds_no_circle():
    grimp = pytest.importorskip("grimp")
    sys.path.insert(0, str(REPO))
    try:
        from tools.import_graph import circles, graph
    finally:
        sys.path.remove(str(REPO))
    assert grimp and circles(*graph()) == []


def test_the_circle_finder_finds_a_circle():
    from tools.import_graph import circles

    mods = ["a", "b", "c", "d"]
    assert circles(mods, [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]) == [["a", "b", "c"]]
    assert circles(mods, [("a", "b"), ("b", "c")]) == []


# issue 32 item 5: the CLI parses and prints; its options' module (cli_options.py) parses, with the target registry
# only for the help lists and completion
CLI_MAY_IMPORT = {"cli.py": {"__version__", "api", "cli_options", "errors", "process.interrupts"},
                  "cli_options.py": {"api", "errors", "targets.profiles"}}


@pytest.mark.parametrize("module", sorted(CLI_MAY_IMPORT))
def test_the_cli_imports_of_the_package_only_the_api_the_errors_and_the_signal_handling(module):
    """Every command is one call of the API (converter/api, a front door that imports nothing until a name is used:
    --help stays fast); the CLI and its options reach no further into the package."""
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            for alias in node.names:  # a module imported from a package counts as that module
                name = f"{node.module}.{alias.name}" if node.module else alias.name
                is_module = (PACKAGE / name.replace(".", "/")).with_suffix(".py").exists()
                found.add(name if is_module or node.module is None else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(("converter", "spec2onnx"))}
    assert found <= CLI_MAY_IMPORT[module], found - CLI_MAY_IMPORT[module]


# Issue 32 item 2: one module starts every child process. These names start one (or hold the means to); only
# converter/process/isolation.py may use them.
PROCESS_MODULES = ("subprocess", "multiprocessing", "concurrent.futures", "pty")
PROCESS_CALLS = ("fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "execv", "execve", "execvp",
                 "execl", "execlp", "spawnv", "spawnl")
STARTER = "converter/process/isolation.py"


def process_starters(root: Path, base: Path) -> list[str]:
    """'FILE:LINE: what' for each import of PROCESS_MODULES and each ``os.X`` of PROCESS_CALLS (as ``os.fork``,
    or imported by name: ``from os import fork``) in the .py files under ``root``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(base).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + ([f"os.{a.name}" for a in node.names] if node.module == "os" else [])
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
                names = [f"os.{node.attr}"]
            for name in names:
                if name.split(".")[0] in PROCESS_MODULES or name.startswith("concurrent.futures") or \
                        (name.startswith("os.") and name[3:] in PROCESS_CALLS):
                    found.append((where, node.lineno, name))
    return [f"{where}:{line}: {name}" for where, line, name in sorted(found)]


def test_only_the_process_module_starts_child_processes():
    offenders = [f for f in process_starters(PACKAGE, REPO) if not f.startswith(STARTER + ":")]
    assert offenders == [], "start child processes with converter/process/isolation.py (start): " + ", ".join(offenders)
    assert any(f.startswith(STARTER + ":") for f in process_starters(PACKAGE, REPO))  # (the scan sees the one that does)


def test_the_process_scan_names_each_way_to_start_a_process(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("import os\nimport subprocess as sp\n\ndef f():\n    return os.fork()\n")
    (tmp_path / "pkg" / "b.py").write_text("from multiprocessing.connection import wait\nfrom os import posix_spawn\n"
                                           "from os import path\nimport concurrent.futures\nos.system('x')\n")
    (tmp_path / "pkg" / "c.py").write_text("import os\nos.getpid()\nimport subprocesses\n")
    assert process_starters(tmp_path / "pkg", tmp_path) == [
        "pkg/a.py:2: subprocess", "pkg/a.py:5: os.fork", "pkg/b.py:1: multiprocessing.connection",
        "pkg/b.py:2: os.posix_spawn", "pkg/b.py:4: concurrent.futures", "pkg/b.py:5: os.system"]


def test_the_package_root_stays_readable_and_the_cli_only_parses_and_prints():
    """Issue 32's layout goals: at most 24 modules directly in the package root (the rest in the subpackages
    docs/architecture.md draws), and cli.py at most 450 lines (its option groups in cli_options.py)."""
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 24, root
    assert len((PACKAGE / "cli.py").read_text(encoding="utf-8").splitlines()) <= 450
