"""`run MODEL`'s first session, made in a child process while the model is read (converter/model/start.py).

Its run is taken only where it is the run of the model run MODEL read, with the configuration it would use:
each test changes one of these (the file between the two reads, external data, a crash; --mark-all's chunks) and checks
the outputs against numpy's sum or difference of the inputs saved with --save-inputs, and which runs were made
anew (converter/model/run.py's _run_isolated)."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import time

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from cli import main
from converter.model import run as model_run
from converter.model import start as model_start

SHAPE = [2, 3]


def save(path, op="Add", external=False):
    """z = x op y; with ``external``, y is an initializer whose data is in a file beside the model."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)]
    initializers = []
    if external:
        initializers = [numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(SHAPE), "y")]
    else:
        inputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE))
    graph = helper.make_graph([helper.make_node(op, ["x", "y"], ["z"])], "g", inputs,
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, SHAPE)], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    if external:
        onnx.save(model, path, save_as_external_data=True, location="y.bin", size_threshold=0)
        assert b"location" in path.read_bytes()
    else:
        onnx.save(model, path)
    return path


@pytest.fixture
def made_anew(monkeypatch):
    """The labels of the runs made by run_model itself (not taken from the early session)."""
    labels = []
    real = model_run._run_isolated

    def recording(config, *args):
        labels.append(config.label)
        return real(config, *args)

    monkeypatch.setattr(model_run, "_run_isolated", recording)
    return labels


def outputs(tmp_path, *args):
    result = CliRunner().invoke(main, ["run", str(tmp_path / "m.onnx"), "--save-inputs", str(tmp_path / "in.npz"),
                                       "--save-outputs", str(tmp_path / "out.npz"), *map(str, args)])
    with np.load(tmp_path / "in.npz") as feeds, np.load(tmp_path / "out.npz") as out:
        return result, dict(feeds), dict(out)


def test_the_first_session_is_made_early_and_its_run_taken(tmp_path, made_anew):
    save(tmp_path / "m.onnx")
    result, feeds, out = outputs(tmp_path, "--runtime", "onnxruntime", "--runtime", "onnx-reference")
    assert result.exit_code == 0, result.output
    assert made_anew == ["onnx-reference"]  # ort[cpu]: the early session's run
    np.testing.assert_array_equal(out["z"], feeds["x"] + feeds["y"])
    assert "PASS  m.onnx/onnx-reference vs ort[cpu]" in result.output


def test_a_file_replaced_after_the_early_read_is_run_anew(tmp_path, monkeypatch):
    path = save(tmp_path / "m.onnx")
    read = tmp_path / "read"
    real = model_start.read_bounded

    def read_then_say(*args):  # in the early child: the file is read; say so
        found = real(*args)
        read.touch()
        return found

    monkeypatch.setattr(model_start, "read_bounded", read_then_say)
    early = model_start.begin(path)
    try:
        deadline = time.monotonic() + 60
        while not read.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert read.exists()
        save(tmp_path / "new.onnx", op="Sub")
        os.replace(tmp_path / "new.onnx", path)  # another version: another inode
        options = model_run.make_run_options(runtimes=("onnxruntime",), seed=3)
        run = model_run.run_model(path, options, early)
    finally:
        early.stop()
    (ort,) = run.runs
    np.testing.assert_array_equal(ort.outputs["z"], run.feeds["x"] - run.feeds["y"])


def test_a_model_with_external_data_is_run_anew_with_its_data(tmp_path, made_anew):
    save(tmp_path / "m.onnx", external=True)
    result, feeds, out = outputs(tmp_path, "--runtime", "onnxruntime")
    assert result.exit_code == 0, result.output
    assert made_anew == ["ort[cpu]"]
    np.testing.assert_array_equal(out["z"], feeds["x"] + np.arange(6, dtype=np.float32).reshape(SHAPE))


def test_mark_all_takes_the_early_run_and_runs_each_chunk_anew(tmp_path, made_anew):
    x, y, t, z = (helper.make_tensor_value_info(n, TensorProto.FLOAT, SHAPE) for n in "xytz")
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["t"]), helper.make_node("Mul", ["t", "x"], ["z"])],
                              "g", [x, y], [z])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), tmp_path / "m.onnx")
    result, feeds, out = outputs(tmp_path, "--runtime", "onnxruntime", "--mark-all")
    assert result.exit_code == 0, result.output
    assert made_anew == ["ort[cpu]"]  # the plain run: the early session's; t's chunk: a model of its own, run anew
    np.testing.assert_array_equal(out["t"], feeds["x"] + feeds["y"])
    np.testing.assert_array_equal(out["z"], (feeds["x"] + feeds["y"]) * feeds["x"])


def test_mark_all_with_nothing_to_mark_takes_the_early_run(tmp_path, made_anew):
    save(tmp_path / "m.onnx")  # z, the one tensor a node computes, is an output already: the model is the file's
    result, feeds, out = outputs(tmp_path, "--runtime", "onnxruntime", "--mark-all")
    assert result.exit_code == 0, result.output
    assert made_anew == []
    np.testing.assert_array_equal(out["z"], feeds["x"] + feeds["y"])


def test_an_early_session_that_crashes_is_run_anew_and_a_crash_there_is_that_runtimes_failure(tmp_path, monkeypatch,
                                                                                             made_anew):
    monkeypatch.setattr(model_start, "_load", lambda *args: ctypes.string_at(0))  # SIGSEGV, in every ort child
    save(tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["run", str(tmp_path / "m.onnx")])
    assert result.exit_code == 1, result.output
    assert "ort[cpu] crashed: the process running it died of SIGSEGV" in result.output
    assert made_anew == ["ort[cpu]", "onnx-reference"] and "Traceback" not in result.output


def test_bad_input_stops_the_early_child_and_says_one_line(tmp_path):
    (tmp_path / "m.onnx").write_bytes(b"\x08\x07garbage")
    result = CliRunner().invoke(main, ["run", str(tmp_path / "m.onnx")])
    assert result.exit_code == 2 and "not an ONNX model" in result.output, result.output
    save(tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["run", str(tmp_path / "m.onnx"), "--shapes", "x:4x4"])
    assert result.exit_code == 2, result.output
    assert multiprocessing.active_children() == []  # stopped and joined


@pytest.mark.parametrize("kwargs", [{"provider": "cuda"}, {"runtimes": ("onnx-reference", "onnxruntime")},
                                    {"path": "m.bin"}, {"max_memory": "the reading's, not the child's copy"}])
def test_no_early_session_for_another_runtime_or_file_or_where_its_copy_would_exceed_the_budget(tmp_path, kwargs):
    path = save(tmp_path / kwargs.pop("path", "m.onnx"))
    if "max_memory" in kwargs:  # enough to read the file (3x its size, model_file.READ_FACTOR), not for a 4th copy
        kwargs["max_memory"] = 4 * path.stat().st_size - 1
    assert model_start.begin(path, **kwargs) is None


_OPS = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Max": np.maximum, "Min": np.minimum}
_TYPES = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.INT32: np.int32,
          TensorProto.INT64: np.int64}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(op=st.sampled_from(sorted(_OPS)), elem=st.sampled_from(sorted(_TYPES)),
       shape=st.lists(st.integers(1, 4), min_size=0, max_size=4), broadcast=st.booleans(), seed=st.integers(0, 2**16))
def test_the_early_run_is_numpys_for_any_elementwise_model(tmp_path_factory, made_anew, op, elem, shape, broadcast,
                                                          seed):
    """Generated models: the early session's outputs (taken: nothing run anew) are numpy's, in the declared type."""
    folder = tmp_path_factory.mktemp("m")
    other = [1] * len(shape) if broadcast else shape
    graph = helper.make_graph([helper.make_node(op, ["x", "y"], ["z"])], "g",
                              [helper.make_tensor_value_info("x", elem, shape),
                               helper.make_tensor_value_info("y", elem, other)],
                              [helper.make_tensor_value_info("z", elem, shape)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), folder / "m.onnx")
    made_anew.clear()
    result, feeds, out = outputs(folder, "--runtime", "onnxruntime", "--seed", seed, "--val-range", "-50,50")
    assert result.exit_code == 0, result.output
    assert made_anew == []
    want = _OPS[op](feeds["x"], feeds["y"])
    assert out["z"].dtype == _TYPES[elem] and out["z"].shape == tuple(shape)
    np.testing.assert_array_equal(out["z"], want.astype(_TYPES[elem]))
