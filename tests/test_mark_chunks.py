"""`run MODEL --mark-all` in chunks (issue 33): the tensors inside the model compared a chunk at a time, in
topological order, the walk stopped at the first differing node.

The first differing node is known by construction: a chain of invertible elementwise nodes (Add, Sub, Mul by a
non-zero constant) whose golden outputs numpy computes with one node made wrong (its value plus 1, every later
value computed from it), and a dead-end node, earlier than any, whose golden value is wrong too but reaches no
output (it must not be named). Chunk sizes are drawn down to one byte, so that every boundary falls somewhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from cli import main
from converter.model import run as model_run
from converter.files import save_arrays_from

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
SHAPE = (2, 3)
NBYTES = 4 * 6  # one float32 [2, 3] tensor
OPS = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}
CONSTANTS = {"Add": (0.5, -2.0, 3.0), "Sub": (1.0, -0.25), "Mul": (2.0, -2.0, 1.5, -1.0)}  # |factor| >= 1: a
# difference of 1 stays >= 1, far above the float32 tolerance (values stay below 3 * 2**7)


def chain(folder: Path, steps: list[tuple[str, float]]) -> Path:
    """side = Neg(x) (node #0, read by nothing), then t0 = x op c0, t1 = t0 op c1, ..., the last one y."""
    names = [f"t{i}" for i in range(len(steps) - 1)] + ["y"]
    nodes, initializers, previous = [helper.make_node("Neg", ["x"], ["side"], name="side")], [], "x"
    for i, ((op, value), name) in enumerate(zip(steps, names)):
        initializers.append(numpy_helper.from_array(np.array(value, np.float32), f"c{i}"))
        nodes.append(helper.make_node(op, [previous, f"c{i}"], [name], name=f"n{i}"))
        previous = name
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)], initializer=initializers)
    path = folder / "chain.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    return path


def values(x: np.ndarray, steps: list, wrong: int | None = None) -> dict:
    """Every tensor of the chain by numpy; ``wrong``: that node's value plus 1 (and the dead end's plus 5)."""
    out = {"side": -x + (5 if wrong is not None else 0)}
    previous = x
    for i, (op, value) in enumerate(steps):
        previous = OPS[op](previous, np.float32(value)).astype(np.float32) + np.float32(1 if i == wrong else 0)
        out["y" if i == len(steps) - 1 else f"t{i}"] = previous
    return out


steps_strategy = st.lists(st.sampled_from(sorted(OPS)).flatmap(
    lambda op: st.tuples(st.just(op), st.sampled_from(CONSTANTS[op]))), min_size=1, max_size=6)


def recording():
    """model_run._run_isolated, recording each run's outputs (the plain one's and each chunk's)."""
    calls, real = [], model_run._run_isolated

    def run(config, data, feeds, threads, *limit):
        done = real(config, data, feeds, threads, *limit)
        calls.append({n: a.nbytes for n, a in (done.outputs or {}).items()})
        return done

    return calls, run


@settings(max_examples=12, deadline=None)
@given(steps=steps_strategy, data=st.data(), chunk=st.integers(1, 8 * NBYTES), most=st.integers(1, 4))
def test_the_first_differing_node_is_named_wherever_the_chunks_fall(tmp_path_factory, steps, data, chunk, most):
    wrong = data.draw(st.integers(0, len(steps) - 1), label="wrong")
    folder = tmp_path_factory.mktemp("chain")
    model = chain(folder, steps)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(SHAPE)
    np.savez(folder / "in.npz", x=x)
    np.savez(folder / "golden.npz", **values(x, steps, wrong))
    options = model_run.make_run_options(runtimes=("onnxruntime",), load_inputs=str(folder / "in.npz"),
                                         load_outputs=str(folder / "golden.npz"), mark_all=True, mark_chunk=chunk)
    calls, run = recording()
    with mock.patch.object(model_run, "_run_isolated", run), mock.patch.object(model_run, "MARK_CHUNK_TENSORS", most):
        result = model_run.run_model(model, options)
    (case,) = result.results
    assert case.outcome == "FAIL"
    first = [c for c in case.comparisons if c.get("first_difference")]
    name = "y" if wrong == len(steps) - 1 else f"t{wrong}"
    assert [(c["node"], c["node_index"], c["output"]) for c in first] == [(f"n{wrong}", wrong + 1, name)]
    line = next(p for p in case.problems if p.startswith("first differing node"))
    assert line.startswith(f"first differing node: #{wrong + 1} 'n{wrong}' ({steps[wrong][0]}), output '{name}'")
    assert "side" not in line and f"the {wrong} tensor" in line  # t0..t(wrong-1) compared before it, and agree
    # the bound: each run of a chunk gives at most ``most`` tensors, of at most ``chunk`` bytes (one bigger tensor
    # alone); the plain run gives the model's output alone; the dead end is never run (nothing differing needs it)
    plain, *chunks = calls
    assert list(plain) == ["y"]
    assert all(0 < len(c) <= most and (sum(c.values()) <= chunk or len(c) == 1) for c in chunks)
    assert all("side" not in c for c in chunks)
    made, total, _ = result.chunks
    assert made == len(chunks) <= total
    # in topological order, each tensor once, and the walk stops at the chunk holding the wrong tensor (the last
    # t where y is the wrong one: y comes from the plain run)
    ran = [n for c in chunks for n in c]
    assert ran == [f"t{i}" for i in range(len(ran))]
    last = min(wrong, len(steps) - 2)
    assert (f"t{last}" in chunks[-1]) if last >= 0 else chunks == []


@settings(max_examples=8, deadline=None)
@given(steps=steps_strategy, chunk=st.integers(1, 8 * NBYTES))
def test_save_outputs_writes_every_tensor_chunk_by_chunk(tmp_path_factory, steps, chunk):
    folder = tmp_path_factory.mktemp("chain")
    model = chain(folder, steps)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(SHAPE)
    np.savez(folder / "in.npz", x=x)
    options = model_run.make_run_options(runtimes=("onnxruntime",), load_inputs=str(folder / "in.npz"),
                                         save_outputs=str(folder / "out.npz"), mark_all=True, mark_chunk=chunk)
    calls, run = recording()
    with mock.patch.object(model_run, "_run_isolated", run):
        result = model_run.run_model(model, options)
    assert [r.outcome for r in result.results] == ["PASS"]
    want = values(x, steps)
    with np.load(folder / "out.npz") as saved:
        assert sorted(saved.files) == sorted(want)
        for name, array in want.items():
            np.testing.assert_allclose(saved[name], array, rtol=1e-6, err_msg=name)
    marked = len(steps)  # side, t0 .. t(n-2): every tensor a node computes but the output
    assert sum(len(c) for c in calls[1:]) == marked  # each run once, in one chunk
    assert all(sum(c.values()) <= chunk or len(c) == 1 for c in calls[1:])


def test_chunks_of_one_byte_run_one_tensor_each_up_to_the_wrong_node(tmp_path):
    steps = [("Add", 0.5), ("Mul", 2.0), ("Sub", 1.0), ("Mul", -1.0), ("Add", 3.0), ("Mul", 1.5)]
    model = chain(tmp_path, steps)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(SHAPE)
    np.savez(tmp_path / "in.npz", x=x)
    np.savez(tmp_path / "golden.npz", **values(x, steps, wrong=2))
    result = CliRunner().invoke(main, ["run", str(model), "--runtime", "onnxruntime", "--load-inputs",
                                       str(tmp_path / "in.npz"), "--load-outputs", str(tmp_path / "golden.npz"),
                                       "--mark-all", "--mark-chunk", "1", "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 1, result.output
    # t0 .. t4 are the tensors y depends on (side is not): five chunks of one; t2, the third, is the wrong one
    assert [line for line in result.stderr.splitlines() if line.startswith("--mark-all: chunk")] == [
        f"--mark-all: chunk {k}/5: 1 tensor, 24 bytes (nodes {k + 1}-{k + 1} of 7 in topological order) on ort[cpu]"
        for k in (1, 2, 3)]
    assert "first differing node: #3 'n2' (Sub), output 't2' (ort[cpu] vs golden" in result.stdout
    assert "(the 2 tensors before it that the differing outputs depend on agree; chunk 3 of 5)" in result.stdout
    assert "--mark-all: 6 tensors marked as outputs, in chunks of at most 1 bytes: 3 of 5 run" in result.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["model"]["marked"] == 6 and report["model"]["mark_chunks"] == {"run": 3, "total": 5, "bytes": 1}


def test_no_chunk_runs_where_no_output_differs(tmp_path):
    steps = [("Add", 0.5), ("Mul", 2.0)]
    model = chain(tmp_path, steps)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(SHAPE)
    np.savez(tmp_path / "in.npz", x=x)
    np.savez(tmp_path / "golden.npz", **values(x, steps))
    calls, run = recording()
    options = model_run.make_run_options(runtimes=("onnxruntime",), load_inputs=str(tmp_path / "in.npz"),
                                         load_outputs=str(tmp_path / "golden.npz"), mark_all=True, mark_chunk=1)
    with mock.patch.object(model_run, "_run_isolated", run):
        result = model_run.run_model(model, options)
    assert [r.outcome for r in result.results] == ["PASS"] and result.chunks[:2] == (0, 0) and len(calls) == 1


def test_squeezenets_softmax_is_found_in_the_last_of_several_chunks(tmp_path):
    """The opset-9 Softmax onnx's reference evaluator computes along the wrong axis (docs/cli.md) is the last
    node: with 8 MiB chunks, the walk goes through every chunk before it and names it in the last."""
    result = CliRunner().invoke(main, ["run", str(LIGHT / "light_squeezenet.onnx"), "--mark-all", "--mark-chunk", "8M",
                                       "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 1, result.output
    chunks = json.loads((tmp_path / "r.json").read_text())["model"]["mark_chunks"]
    assert chunks["run"] == chunks["total"] >= 4  # 31.6 MiB of tensors
    assert "first differing node: #104 'n65' (Softmax), output 'softmaxout_1' (onnx-reference vs ort[cpu]" \
        in result.stdout
    assert f"chunk {chunks['total']} of {chunks['total']})" in result.stdout
    assert f"--mark-all: chunk {chunks['total']}/{chunks['total']}: " in result.stderr


def test_the_default_chunk_is_a_quarter_of_the_plain_runs_peak_memory(tmp_path):
    steps = [("Add", 0.5), ("Mul", 2.0)]
    model = chain(tmp_path, steps)
    options = model_run.make_run_options(runtimes=("onnxruntime", "onnx-reference"), mark_all=True,
                                         save_outputs=str(tmp_path / "out.npz"))
    result = model_run.run_model(model, options)
    peaks = [r.peak for r in result.runs]
    # each runtime's child says its peak: an interpreter with onnx and numpy imported, tens of MiB at least
    assert all(p > 20 << 20 for p in peaks), peaks
    assert result.chunks == (1, 1, max(peaks) // 4)
    assert model_run.chunk_budget(None, result.runs) == max(peaks) // 4
    assert model_run.chunk_budget(7, result.runs) == 7
    tiny = [model_run.RuntimeRun(result.runs[0].config, peak=1 << 20)]
    assert model_run.chunk_budget(None, tiny) == model_run.MARK_CHUNK_FLOOR == 4 << 20
    assert model_run.chunk_budget(None, [model_run.RuntimeRun(result.runs[0].config)]) == 64 << 20  # not known


@pytest.mark.parametrize("value", ["0", "-1", "lots"])
def test_a_chunk_size_that_is_no_size_is_refused(tmp_path, value):
    result = CliRunner().invoke(main, ["run", str(LIGHT / "light_squeezenet.onnx"), "--mark-all", "--mark-chunk", value])
    assert result.exit_code == 2 and "--mark-chunk" in result.output


def test_the_npz_writer_leaves_nothing_where_filling_fails(tmp_path):
    def fill(add):
        add("a", np.arange(3))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        save_arrays_from("--save-outputs", tmp_path / "out.npz", fill)
    assert list(tmp_path.iterdir()) == []

    save_arrays_from("--save-outputs", tmp_path / "out.npz", lambda add: [add(n, np.full(2, i)) for i, n in
                                                                          enumerate("ab")])
    with np.load(tmp_path / "out.npz") as saved:
        assert {n: saved[n].tolist() for n in saved.files} == {"a": [0, 0], "b": [1, 1]}
