"""Packaging: the wheel installs converter/ as the package ``spec2onnx`` and claims no generic top-level names."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys

import pytest

from .conftest import REPO

tomllib = pytest.importorskip("tomllib")
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())


def test_the_wheel_maps_converter_to_spec2onnx_and_installs_no_top_level_modules():
    setuptools = CONFIG["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"spec2onnx": "converter", "spec2onnx.bundled_specs": "specs"}
    assert "py-modules" not in setuptools
    assert {name.split(".")[0] for name in setuptools["packages"]} == {"spec2onnx"}
    assert CONFIG["project"]["scripts"] == {"spec2onnx": "spec2onnx.cli:console"}


def test_the_console_script_exits_with_mains_status_and_leaves_its_objects_to_the_exit(monkeypatch):
    """console() is main() as a whole program: the same exit status, and everything frozen out of the cycle
    collector's last passes at interpreter exit (converter/cli.py)."""
    import gc

    from converter.cli import console

    monkeypatch.setattr(sys, "argv", ["spec2onnx", "--version"])
    gc.unfreeze()
    try:
        with pytest.raises(SystemExit) as exit_:
            console()
        assert exit_.value.code in (0, None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    monkeypatch.setattr(sys, "argv", ["spec2onnx", "validate", "--no-such-option"])
    with pytest.raises(SystemExit) as exit_:
        console()
    gc.unfreeze()
    assert exit_.value.code == 2


def test_every_subpackage_of_converter_is_in_the_wheel():
    subpackages = {"spec2onnx" + "".join(f".{part}" for part in init.parent.relative_to(REPO / "converter").parts)
                   for init in (REPO / "converter").rglob("__init__.py")}
    assert subpackages | {"spec2onnx.bundled_specs"} == set(CONFIG["tool"]["setuptools"]["packages"])


def test_every_import_inside_the_package_is_relative():
    """An absolute ``converter`` import works in the checkout but not in the wheel (no top-level converter)."""
    absolute = []
    for path in (REPO / "converter").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
            absolute += [f"{path.relative_to(REPO)}:{node.lineno} {n}" for n in names
                         if n.split(".")[0] in ("converter", "spec2onnx", "cli")]
    assert absolute == []


def test_in_the_checkout_spec2onnx_is_the_same_package_as_converter():
    code = ("import converter, spec2onnx.registry, spec2onnx.lowering.scale, converter.registry\n"
            "import converter.lowering.scale as s\n"
            "assert spec2onnx is converter and spec2onnx.registry is converter.registry\n"
            "assert spec2onnx.lowering.scale is s and spec2onnx.UserError is converter.errors.UserError\n"
            "print(spec2onnx.registry.layer_kinds() is not None)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def test_an_installed_copy_imported_first_becomes_the_one_copy(tmp_path):
    """What tests/conftest.py does when a pytest plugin entry point imported an installed spec2onnx first."""
    shutil.copytree(REPO / "converter", tmp_path / "site" / "spec2onnx")
    code = ("import spec2onnx.registry\n"
            "from spec2onnx._alias import alias_package\n"
            "assert alias_package('converter', 'spec2onnx')\n"
            "import converter.registry, converter.errors\n"
            "assert converter.registry is spec2onnx.registry and converter.errors.UserError is spec2onnx.UserError\n"
            "print(converter.__file__)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": f"{tmp_path / 'site'}:{REPO}", "PATH": ""})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(tmp_path / "site" / "spec2onnx" / "__init__.py")


def test_the_installed_package_has_no_top_level_converter_or_cli(tmp_path):
    """Where spec2onnx is installed (.ci/run): outside the checkout, only ``spec2onnx`` is importable."""
    code = ("import importlib.util as u, sys\n"
            "if u.find_spec('spec2onnx') is None: print('not installed'); sys.exit()\n"
            "import spec2onnx, spec2onnx.cli, spec2onnx.files\n"
            "print(u.find_spec('converter'), u.find_spec('cli'), callable(spec2onnx.cli.main))\n"
            "print(sorted(p.name for p in spec2onnx.files.bundled_specs_dir().iterdir() if p.is_dir()))\n")
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.strip() == "not installed":
        pytest.skip("spec2onnx is not installed in this environment")
    lines = proc.stdout.splitlines()
    assert lines[0] == "None None True"
    assert lines[1] == str(sorted(p.name for p in (REPO / "specs").iterdir() if p.is_dir() and p.name != "_tools"
                                  and p.name != "__pycache__"))
