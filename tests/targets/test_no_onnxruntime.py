"""Without onnxruntime installed (no [cpu]/[cuda] extra): one clear line and exit 2; convert and check still work."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO, SPECS, child_env

pytestmark = pytest.mark.runtime  # .ci/run runs these with onnxruntime-gpu too

# Importing a module set to None in sys.modules raises ImportError: onnxruntime is absent for that process.
RUN = ("import sys; sys.modules['onnxruntime'] = None; sys.argv = ['spec2onnx'] + sys.argv[1:]; "
       "from converter.cli import main; main()")


def spec2onnx(*args, cwd):
    return subprocess.run([sys.executable, "-c", RUN, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=child_env(PYTHONPATH=str(REPO), PATH="/usr/bin:/bin"))


def test_validate_and_run_say_which_extra_to_install(tmp_path):
    spec = SPECS / "trt_scale/seed-scale-4d.yaml"
    for args in (("validate", spec, "-j", "0"), ("run", spec, "-o", tmp_path)):
        proc = spec2onnx(*args, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert 'onnxruntime is not installed: pip install "spec2onnx[cpu]"' in proc.stderr and "[cuda]" in proc.stderr


def test_convert_and_check_need_no_runtime(tmp_path):
    out = tmp_path / "m.onnx"
    proc = spec2onnx("convert", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", out, "--target", "ort-cuda", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = spec2onnx("check", out, "--target", "ort-cuda", cwd=tmp_path)
    assert proc.returncode == 0 and "every node runs on ort-cuda" in proc.stdout, proc.stderr


def test_onnxruntime_comes_from_exactly_one_extra_and_the_setup_commands_pick_cpu():
    tomllib = __import__("pytest").importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.startswith("onnxruntime")]
    extras = project["optional-dependencies"]
    assert [d.split(">")[0] for d in extras["cpu"]] == ["onnxruntime"]
    assert [d.split(">")[0] for d in extras["cuda"]] == ["onnxruntime-gpu"]
    for path in ("README.md", ".ci/run"):
        assert '".[cpu,test,openvino,report]"' in (REPO / path).read_text(), path  # (report: --html's matplotlib)


def test_convert_with_an_explicit_opset_needs_no_runtime_either(tmp_path):
    # --opset was checked against the installed onnxruntime's newest opset, so it asked for the [cpu] extra.
    out = tmp_path / "m.onnx"
    proc = spec2onnx("convert", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", out, "--opset", "18", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"wrote {out} (opset 18,")
    proc = spec2onnx("convert", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", out, "--opset", "12", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--opset 12: supported opsets are 13 to" in proc.stderr


BROKEN = 'raise ImportError("libcublasLt.so.12: cannot open shared object file: No such file or directory")\n'
# What pybind11 does to a Ctrl-C that arrives while onnxruntime's extension initializes: the KeyboardInterrupt comes
# out of the import as an ImportError (here by hand, after the signal has had its chance to be raised)
INTERRUPTED = """import os, signal, time
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.5)
except KeyboardInterrupt:
    raise ImportError("initialization failed") from None
raise ImportError("initialization failed")
"""


def _with_fake_onnxruntime(tmp_path, init: str, *args):
    fake = tmp_path / "fake" / "onnxruntime"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(init)
    run = "import sys; sys.argv = ['spec2onnx'] + sys.argv[1:]; from converter.cli import main; main()"
    return subprocess.run([sys.executable, "-c", run, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
                          env=child_env(PYTHONPATH=f"{tmp_path / 'fake'}:{REPO}", PATH="/usr/bin:/bin",
                                        SPEC2ONNX_CACHE="off"), timeout=300)


def test_an_onnxruntime_that_cannot_be_imported_is_not_called_missing(tmp_path):
    """A wheel missing a shared library (onnxruntime-gpu without its CUDA libraries): the import's own error, not
    "not installed: pip install" of what is installed."""
    proc = _with_fake_onnxruntime(tmp_path, BROKEN, "validate", SPECS / "trt_scale/seed-scale-4d.yaml", "-j", "0")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    line = [x for x in proc.stderr.splitlines() if x.startswith("spec2onnx: error:")]
    assert line == ["spec2onnx: error: onnxruntime is installed but cannot be imported (ImportError: libcublasLt.so.12: "
                    "cannot open shared object file: No such file or directory); reinstall it: pip install "
                    "--force-reinstall \"spec2onnx[cpu]\" (or [cuda])"], proc.stderr


def test_a_ctrl_c_while_onnxruntime_is_imported_ends_the_command_as_interrupted(tmp_path):
    """Not exit 2 "onnxruntime is not installed" (the interrupt turned into an ImportError), nor a run that goes on."""
    proc = _with_fake_onnxruntime(tmp_path, INTERRUPTED, "validate", SPECS / "trt_scale/seed-scale-4d.yaml", "-j", "0")
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert "not installed" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
