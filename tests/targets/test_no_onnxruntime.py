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
