"""Start-up (issue 34, items 2 and 4): a command pays for what it imports. ``--help`` and usage errors import no
onnx, onnxruntime or numpy; validate and convert import no model run (run MODEL's modules are imported by the
API's front door on first use); no command imports a plotting or HTML library unless asked for a report that
needs one. Each command runs in a child process, which writes the names of its modules at its exit; validate runs
in-process (-j 0) there, so that its worker's imports are counted too."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import REPO, RUN_CLI, SPECS, child_env
from .helpers import relu_model

MODULES_AT_EXIT = ("import atexit, json, sys\nout = sys.argv.pop(1)\n"
                   "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(sys.modules))))\n")
RUNTIME_LIBRARIES = ("onnx", "onnxruntime", "numpy")
PLOTTING_LIBRARIES = ("matplotlib", "plotly", "bokeh", "seaborn", "pandas", "PIL", "jinja2", "altair")
RUN_MODEL_MODULES = ("model.run", "model.check", "model.inputs", "model.start", "model.reduce")


def modules_of(tmp_path, *args, **env) -> tuple[set[str], subprocess.CompletedProcess]:
    """The modules a command of this checkout's CLI has imported when it exits, and how it ended (``env``: more
    environment variables for it)."""
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", MODULES_AT_EXIT + RUN_CLI, str(out), *map(str, args)],
                          capture_output=True, text=True, cwd=REPO, env=child_env(PYTHONPATH=str(REPO), **env),
                          timeout=120)
    assert out.exists(), done.stderr[-2000:]
    return set(json.loads(out.read_text())), done


def top_level(modules: set[str]) -> set[str]:
    return {m.partition(".")[0] for m in modules}


def own(modules: set[str]) -> set[str]:
    """The package's modules without the package name (converter.x and its alias spec2onnx.x alike)."""
    return {m.partition(".")[2] for m in modules if m.partition(".")[0] in ("converter", "spec2onnx")}


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["validate", "--help"], ["run", "--help"],
                                  ["check", "--help"], ["convert", "--help"], ["validate", "--no-such-option"]])
def test_help_version_and_usage_errors_import_no_onnx_onnxruntime_or_numpy(args, tmp_path):
    modules, done = modules_of(tmp_path, *args)
    assert done.returncode == (2 if "--no-such-option" in args else 0), done.stderr
    assert top_level(modules) & set(RUNTIME_LIBRARIES) == set()
    assert "traceback" not in modules  # (--debug's; imported where an internal error is shown)


def test_validate_imports_no_model_run_model_check_or_their_inputs(tmp_path):
    modules, done = modules_of(tmp_path, "validate", "-j", "0", SPECS / "trt_scale" / "seed-scale-4d.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "onnxruntime" in top_level(modules)  # (it did validate: the cases ran on onnxruntime)
    assert own(modules) & set(RUN_MODEL_MODULES) == set()


def test_the_api_still_offers_run_models_names_on_first_use():
    from converter import api
    from converter.model import run as model_run

    for name in ("ModelRun", "RunOptions", "make_run_options", "run_model"):
        assert getattr(api, name) is getattr(model_run, name)
    with pytest.raises(AttributeError, match="no_such_name"):
        api.no_such_name  # noqa: B018


def test_no_plotting_or_html_library_without_html(tmp_path):
    modules, done = modules_of(tmp_path, "validate", "-j", "0", SPECS / "trt_scale" / "seed-scale-4d.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    model = relu_model(tmp_path / "relu.onnx")
    ran, done_run = modules_of(tmp_path, "run", model, "--runtime", "onnxruntime", "-q")
    assert done_run.returncode == 0, done_run.stdout + done_run.stderr
    assert "onnxruntime" in top_level(modules) and "onnx" in top_level(ran)  # (both commands did their work)
    assert top_level(modules | ran) & set(PLOTTING_LIBRARIES) == set()
    assert "matplotlib" not in modules | ran and not {m for m in own(modules | ran) if m.startswith("html_report")}
    drawn, done_html = modules_of(tmp_path, "run", model, "--runtime", "onnxruntime", "-q", "--html", tmp_path / "r.html")
    assert done_html.returncode == 0, done_html.stdout + done_html.stderr
    assert "html_report.page" in own(drawn)  # (the same command, asked for a page, draws)
    assert top_level(drawn) & set(PLOTTING_LIBRARIES) == set()  # (and draws without one: issue 34, item 4)


def test_the_startup_benchmark_divides_each_round_by_its_own_floor():
    from benchmarks.startup import rows

    runs = {'floor: python -c "import onnxruntime, numpy"': [(1.0, 0.5), (2.0, 0.4)],
            'floor: python -c "import click"': [(0.1, 0.05), (0.2, 0.04)],
            "spec2onnx validate specs/x.yaml": [(2.0, 0.5), (3.0, 1.0)],  # rounds: 2.0 and 1.5; CPU 1.0 and 2.5
            "spec2onnx --help": [(0.1, 0.06), (0.3, 0.04)]}  # rounds: 1.0 and 1.5; CPU 1.2 and 1.0
    table = {row[0]: row[1:] for row in rows(runs)}
    assert table["spec2onnx validate specs/x.yaml"] == ["2.500 (2.000-3.000)", "0.750 (0.500-1.000)",
                                                        "1.75 (1.50-2.00)", "1.75 (1.00-2.50)"]
    assert table["spec2onnx --help"][2:] == ["1.25 (1.00-1.50)", "1.10 (1.00-1.20)"]
    assert table['floor: python -c "import click"'][2:] == ["", ""]


def test_validate_with_its_lowered_model_cached_imports_no_onnx(tmp_path):
    spec = SPECS / "trt_scale" / "seed-scale-4d.yaml"
    cache = {"SPEC2ONNX_CACHE": str(tmp_path / "cache")}  # its own cache, on whatever the suite runs with (=off too)
    first, done = modules_of(tmp_path, "validate", "-j", "0", spec, **cache)  # (fills it)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "onnx" in top_level(first)  # (lowered: the cache was empty)
    again, done = modules_of(tmp_path, "validate", "-j", "0", spec, **cache)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr
    assert "onnxruntime" in top_level(again) and "onnx" not in top_level(again)
    pooled, done = modules_of(tmp_path, "validate", "-j", "1", spec, **cache)  # a worker's parent: no onnx either
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr
    assert "onnx" not in top_level(pooled)


def test_convert_still_lowers_with_onnx(tmp_path):
    spec = SPECS / "trt_scale" / "seed-scale-4d.yaml"
    modules, done = modules_of(tmp_path, "convert", spec, "-o", tmp_path / "m.onnx")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "onnx" in top_level(modules) and (tmp_path / "m.onnx").stat().st_size > 0


def test_the_onnx_identity_follows_the_installed_files(tmp_path, monkeypatch):
    """Cached lowered models and runtime answers are keyed by the installed onnx, told from its files without
    importing it: a replaced compiled core (an upgrade, a reinstall) is another key."""
    import importlib.machinery
    import os

    from converter.installed import ort_build

    package = tmp_path / "onnx"
    package.mkdir()
    (package / "__init__.py").write_text("")
    core = package / "onnx_cpp2py_export.cpython-311-x86_64-linux-gnu.so"
    core.write_bytes(b"x" * 10)
    spec = importlib.machinery.ModuleSpec("onnx", None, origin=str(package / "__init__.py"))
    monkeypatch.setattr(ort_build.importlib.util, "find_spec", lambda name: spec if name == "onnx" else None)
    before = ort_build.onnx_identity.__wrapped__()
    init, lib = os.stat(package / "__init__.py"), os.stat(core)
    assert before == (f"__init__.py:0:{init.st_mtime_ns}\0{core.name}:10:{lib.st_mtime_ns}").encode()
    core.write_bytes(b"y" * 11)
    assert ort_build.onnx_identity.__wrapped__() != before
    monkeypatch.setattr(ort_build.importlib.util, "find_spec", lambda name: None)
    assert ort_build.onnx_identity.__wrapped__() == b"no onnx"
