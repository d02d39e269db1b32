"""python -m tools.gpu_check: without a GPU one line and exit 0; with one, steps that cannot take it down, one report.

No GPU here: the GPU path is tested with toy steps (a crash, a hang, a failure, a pass) and fake step results.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tools import gpu_check as g

REPO = Path(__file__).resolve().parent.parent


def _run(tmp_path, env_path=None):
    env = None
    if env_path is not None:
        import os

        env = dict(os.environ, PYTHONPATH=str(env_path))
    return subprocess.run([sys.executable, "-m", "tools.gpu_check", "--out", str(tmp_path / "r.md")], cwd=REPO,
                          capture_output=True, text=True, timeout=300, env=env)


def _fake(tmp_path, body: str) -> Path:
    (tmp_path / "fake" / "onnxruntime").mkdir(parents=True)
    (tmp_path / "fake" / "onnxruntime" / "__init__.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return tmp_path / "fake"


def test_without_a_cuda_provider_it_says_so_in_one_line_and_exits_0(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" in ort.get_available_providers():
        pytest.skip("this onnxruntime has a CUDA EP")
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "no GPU to check" in done.stdout and "CUDAExecutionProvider" in done.stdout
    assert not (tmp_path / "r.md").exists()


@pytest.mark.parametrize("body, said", [
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "died of SIGSEGV"),  # a build that crashes on import
    ("raise ImportError('libcudart.so.13: cannot open shared object file')\n", "does not import: libcudart"),
    ("""
     __version__ = "9.9-fake"
     def get_available_providers():
         return ["CUDAExecutionProvider", "CPUExecutionProvider"]
     class SessionOptions:
         def add_session_config_entry(self, key, value):
             pass
     class InferenceSession:
         def __init__(self, *args, **kwargs):
             raise RuntimeError("CUDA failure 100: no CUDA-capable device is detected")
     """, "no CUDA-capable device"),  # onnxruntime-gpu on a machine without a GPU
])
def test_a_broken_or_gpu_less_onnxruntime_is_one_line_and_exit_0(tmp_path, body, said):
    done = _run(tmp_path, _fake(tmp_path, body))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and said in done.stdout, done.stdout
    assert not (tmp_path / "r.md").exists()


def _toy(name, code, timeout=60.0):
    return g.Step(name, f"toy step {name}", [sys.executable, "-c", code], timeout)


def test_a_step_that_crashes_hangs_or_fails_is_reported_and_the_others_run(tmp_path):
    steps = [_toy("crash", "import os, signal; print('before'); os.kill(os.getpid(), signal.SIGSEGV)"),
             _toy("hang", "import time; time.sleep(600)", timeout=2),
             _toy("fail", "import sys; print('bad news', file=sys.stderr); sys.exit(3)"),
             _toy("pass", "print('all good')")]
    out = tmp_path / "reports" / "r.md"
    results = g.run_all(steps, tmp_path, out, {"GPU": "toy"}, log=lambda message: None)
    assert [r.status for r in results] == ["crashed (SIGSEGV)", "timed out after 2 s", "failed (exit status 3)", "passed"]
    assert results[3].stdout == "all good\n" and "bad news" in results[2].output and "before" in results[0].output
    text = out.read_text(encoding="utf-8")
    assert "1 of 4 steps passed" in text and "| hang | toy step hang | timed out after 2 s |" in text
    assert "bad news" in text and "- GPU: toy" in text
    assert not list(out.parent.glob("*.tmp"))


def test_a_step_that_cannot_start_is_a_result_too(tmp_path):
    result = g.run_step(g.Step("none", "no such program", [str(tmp_path / "no-such-program")], 5), tmp_path)
    assert result.status.startswith("could not start")


def test_the_report_of_fake_results():
    results = [g.StepResult("suite", "the suite", ["x"], "passed", 12.0, "progress", "", ["PASS 820, FAIL 0"]),
               g.StepResult("cost", "the cost", ["y"], "timed out after 180 s", 180.0, "round 1 ...")]
    text = g.report({"GPU (name, driver, memory)": "NVIDIA H100 80GB HBM3, 580.159"}, results, "2026-11-27", 192.0)
    assert text.startswith("# spec2onnx on a GPU") and "1 of 2 steps passed" in text
    assert "| suite | the suite | passed | 12.0 |" in text and "| cost | the cost | timed out after 180 s | 180.0 |" in text
    assert "PASS 820, FAIL 0" in text
    assert "round 1 ..." in text and "progress" not in text  # the output of a step that did not pass, only


def test_the_summaries_read_what_the_steps_wrote(tmp_path):
    report = {"summary": {"PASS": 818, "FAIL": 1, "ERROR": 1, "XFAIL": 0, "XPASS": 0, "total": 820}, "seconds": 3.2,
              "onnxruntime": "1.31.1", "cases": [{"id": "a/b [ort]", "outcome": "FAIL", "problems": ["y: 3 of 4 differ"]},
                                                 {"id": "c/d", "outcome": "ERROR", "problems": []},
                                                 {"id": "e/f", "outcome": "PASS", "problems": []}]}
    (tmp_path / "suite.json").write_text(json.dumps(report), encoding="utf-8")
    step = g.Step("suite", "s", ["validate", "--json", str(tmp_path / "suite.json")], 1)
    lines = g._validate_summary(step, g.StepResult("suite", "s", [], "failed (exit status 1)", 1.0), tmp_path)
    assert lines[0].startswith("PASS 818, FAIL 1, ERROR 1") and lines[1:] == ["- a/b [ort]: FAIL: y: 3 of 4 differ", "- c/d: ERROR: "]

    printed = '**ort-cuda** against x (10 cases):\n\n| ... |\n\nAgreement 9 of 10 (90.0%); "runs" but fails: 1 (10.00% of the corpus).\n'
    result = g.StepResult("static-check", "s", [], "passed", 1.0, stdout="progress\n" + printed)
    assert g._static_summary(step, result, tmp_path)[0].startswith("**ort-cuda**")
    assert result.status.startswith("failed (below the thresholds")
    good = g.StepResult("static-check", "s", [], "passed", 1.0, stdout=printed.replace("9 of 10", "10 of 10").replace("fails: 1", "fails: 0"))
    g._static_summary(step, good, tmp_path)
    assert good.passed


def test_the_steps_are_the_checks_of_issue_24(tmp_path):
    names = {s.name: s for s in g.steps(tmp_path)}
    assert list(names) == ["suite", "ort-cuda", "ground-truth", "static-check", "cost"]
    suite = names["suite"].command
    assert suite[suite.index("validate"):suite.index("-q")] == ["validate", "--provider", "cuda", "--ort-opt-level", "disabled",
                                                               "--ort-opt-level", "all"]
    assert names["ort-cuda"].command[3:8] == ["validate", "--target", "ort-cuda", "--provider", "cuda"]
    assert names["ground-truth"].command[1:3] == ["-m", "tools.measure_cuda"]
    assert names["static-check"].command[-2:] == ["--cuda-cases", names["ground-truth"].command[4]]


def test_the_cost_step_calls_benchmarks_cuda_measure_in_its_shape_and_prints_its_figures(monkeypatch, capsys):
    # helper gpubuild's benchmarks.cuda.measure(n_specs=200, repeat=3, *, stand_in=False) -> dict (issue 24, item 5)
    from benchmarks import cuda

    calls = []

    def measure(n_specs=200, repeat=3, *, stand_in=False):
        calls.append((n_specs, repeat, stand_in))
        return {"provider": "CUDAExecutionProvider", "specs": n_specs, "validate_ms": 14.1, "bare_ms": 11.9,
                "ratio": 14.1 / 11.9, "validate_ms_after_first": 13.25, "rounds": [[14.1, 11.9], [14.3, 12.0]],
                "onnxruntime": "1.31.1"}

    monkeypatch.setattr(cuda, "measure", measure, raising=False)
    assert g.cost(50) == 0
    assert calls == [(50, 3, False)]
    printed = capsys.readouterr().out
    assert "| spec2onnx validate -j 1 | 14.10 |" in printed and "| bare onnxruntime session + run + compare | 11.90 |" in printed
    assert "| ratio (issue 24: within 1.1x) | 1.18x |" in printed  # 14.1 / 11.9 = 1.1849
    assert "14.30/12.00" in printed and "CUDAExecutionProvider, 50 specs, onnxruntime 1.31.1" in printed
    step = g.Step("cost", "c", [], 1)
    assert g._printed(step, g.StepResult("cost", "c", [], "passed", 1.0, stdout="progress\n" + printed), Path("."))[0].startswith("| CUDA")


@pytest.mark.parametrize("found", [{"skipped": "no CUDAExecutionProvider"}, {"error": "worker died"}])
def test_a_cost_not_measured_fails_its_step_saying_why(monkeypatch, capsys, found):
    from benchmarks import cuda

    monkeypatch.setattr(cuda, "measure", lambda n_specs=200, repeat=3, *, stand_in=False: found, raising=False)
    assert g.cost(10) == 1
    assert capsys.readouterr().out == f"not measured ({next(iter(found))}): {next(iter(found.values()))}\n"
