"""``run MODEL --timeout SECONDS`` (issue 32 item 2): each runtime's time limit. A runtime that has not finished by
then is killed (its child process: converter/process/isolation.py) and is an ERROR naming it and the limit; the
other runtimes still run and are compared.

The hang: this test process's runner of one configuration sleeps for ten minutes instead of running the model.
Each runtime runs in a child forked from the command (the CLI runs in this process, click's CliRunner), so the
child has the sleeping runner; the early session (run MODEL's first onnxruntime configuration, forked before
the model is read: converter/model/start.py) too, which is the second case."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from cli import main
from converter.errors import UserError
from converter.model import run as model_run
from converter.model import start as model_start
from .conftest import alive

LIMIT = 1.5
SLEEP = 600.0
RUNTIMES = ["--runtime", "onnxruntime", "--runtime", "onnx-reference", "--ort-opt-level", "all",
            "--ort-opt-level", "disabled"]
LABELS = ("ort[cpu]", "ort[cpu,opt=disabled]", "onnx-reference")


def save_add(path: Path) -> Path:
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"])], "g",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in "xy"],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
                     .SerializeToString())
    return path


@pytest.fixture
def hang(monkeypatch, tmp_path):
    """``hang(label)``: that configuration's runner sleeps SLEEP seconds once called (after writing its process id
    to the returned file); the others run the model."""
    real = model_start.session

    def arm(label: str) -> Path:
        pid_file = tmp_path / "hung.pid"

        def session(config, data, threads=0):
            runner = real(config, data, threads=threads)
            if config.label != label:
                return runner

            def sleeping(feeds, **kwargs):
                pid_file.write_text(str(os.getpid()))
                time.sleep(SLEEP)
                return runner(feeds, **kwargs)

            return sleeping

        monkeypatch.setattr(model_start, "session", session)
        return pid_file

    return arm


@pytest.mark.parametrize("hung", ["onnx-reference", "ort[cpu]"], ids=["a-runtime", "the-early-session"])
def test_a_runtime_past_the_limit_is_an_error_naming_it_and_the_others_still_compare(tmp_path, hang, hung,
                                                                                       monkeypatch):
    pid_file = hang(hung)
    anew, real = [], model_run._run_isolated  # the runs not taken from the early session
    monkeypatch.setattr(model_run, "_run_isolated", lambda config, *args: anew.append(config.label) or real(config, *args))
    model = save_add(tmp_path / "m.onnx")
    t0 = time.monotonic()
    result = CliRunner().invoke(main, ["run", str(model), *RUNTIMES, "--timeout", str(LIMIT),
                                       "--json", str(tmp_path / "r.json"), "--save-inputs", str(tmp_path / "in.npz")])
    wall = time.monotonic() - t0
    assert result.exit_code == 1, result.output  # an ERROR, as a runtime that cannot run the model
    assert wall < 60, wall  # the limit, not the sleep (the command also reads, generates and runs the others)
    assert f"ERROR m.onnx/{hung}\n      {hung} did not finish within 1.5 s (--timeout): its process was killed" \
        in result.output
    assert anew == ["ort[cpu,opt=disabled]", "onnx-reference"]  # ort[cpu]: the early session's (hung or not)
    pid = int(pid_file.read_text())  # the hung child did run the sleeping runner ...
    assert not alive(pid)  # ... and is gone
    others = [label for label in LABELS if label != hung]
    report = json.loads((tmp_path / "r.json").read_text())
    cases = {case["case"]: case for case in report["cases"]}
    assert cases[hung]["outcome"] == "ERROR"
    assert cases[hung]["problems"] == [f"{hung} did not finish within 1.5 s (--timeout): its process was killed"]
    [compared] = [case for name, case in cases.items() if " vs " in name]  # the two others, against each other
    assert set(compared["case"].split(" vs ")) == set(others) and compared["outcome"] == "PASS"
    runs = {r["label"]: r for r in report["model"]["runtimes"]}
    assert runs[hung]["error"] == cases[hung]["problems"][0] and runs[hung]["outputs"] == 0
    assert LIMIT <= runs[hung]["seconds"] < LIMIT + 5  # the time it was given, measured: near the limit
    assert all(runs[label]["error"] is None and runs[label]["outputs"] == 1 for label in others)
    with np.load(tmp_path / "in.npz") as feeds:  # what was compared is the model's sum (the others' runs are real)
        assert feeds["x"].shape == (2, 3)


def test_runtimes_within_the_limit_run_as_without_one(tmp_path):
    model = save_add(tmp_path / "m.onnx")
    for limit in ("30", "inf"):
        result = CliRunner().invoke(main, ["run", str(model), *RUNTIMES, "--timeout", limit, "--save-inputs",
                                           str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")])
        assert result.exit_code == 0, result.output
        assert "3 comparisons: 3 passed, 0 failed, 0 errors" in result.output
        with np.load(tmp_path / "in.npz") as feeds, np.load(tmp_path / "out.npz") as out:
            np.testing.assert_array_equal(out["z"], feeds["x"] + feeds["y"])


@pytest.mark.parametrize("value", ["0", "-1", "nan", "soon"])
def test_a_limit_that_is_no_positive_number_of_seconds_is_refused(tmp_path, value):
    model = save_add(tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["run", str(model), "--timeout", value])
    assert result.exit_code == 2 and "--timeout" in result.output, result.output


def test_the_limit_is_for_models_only(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\n")
    result = CliRunner().invoke(main, ["run", str(spec), "--timeout", "5"])
    assert result.exit_code == 2 and "--timeout: " in result.output and "is a spec file" in result.output, result.output


@pytest.mark.parametrize("value", [0, -2.5, math.nan, True, "5"])
def test_the_library_refuses_a_limit_that_is_no_positive_number(value):
    with pytest.raises(UserError, match="--timeout"):
        model_run.make_run_options(timeout=value)


def test_the_library_takes_inf_as_no_limit():
    assert model_run.make_run_options(timeout=math.inf).timeout is None
    assert model_run.make_run_options().timeout is None
    assert model_run.make_run_options(timeout=2).timeout == 2.0
