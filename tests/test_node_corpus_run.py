"""`run MODEL` on onnx's own node test cases, models and golden data nobody here wrote (onnx.backend.test.case.node).

Each run draws a fresh sample (the seed is the session's hypothesis seed, printed in pytest's header: rerun with
HYPOTHESIS_SEED=N). A case runs on onnxruntime, onnx's reference and OpenVINO (where installed), each against the case's own golden
outputs.
Whatever the runtimes do (refuse a node, crash, differ), the command answers with a verdict, never an internal error:
exit 0 or 1, or 2 only for what `run` documents it does not take (a non-tensor graph input or output).
"""

from __future__ import annotations

import importlib.util
import os
import random

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx.backend.test.case.node import collect_testcases

from cli import main

SAMPLE = 24
EXPLICIT = ["test_constantofshape_int_shape_zero",  # every output empty, golden empty too: passes (semantics.md)
            "test_rotary_embedding_with_interleaved_rotary_dim_expanded",  # OpenVINO's port named by an inner name
            "test_reduce_sum_default_axes_keepdims_random"]  # OpenVINO drops the empty axes input
RUNTIMES = ["onnxruntime", "onnx-reference"] + (["openvino"] if importlib.util.find_spec("openvino") else [])
NOT_TENSORS = ("is a sequence", "is an optional", "is a map", "is a sparse tensor")


def _cases():
    with np.errstate(all="ignore"):  # (some cases compute their golden overflow on purpose)
        return {case.name: case for case in collect_testcases() if case.model is not None and case.data_sets}


CASES = _cases()


def _plain(array):
    """onnx's string tensors are numpy object arrays; npz keeps them as unicode without pickle."""
    if not isinstance(array, np.ndarray):
        return None
    return array.astype(str) if array.dtype == object else array


def _arrays(case):
    """(input names, feeds, golden outputs) of the case's first data set; None where npz cannot hold it (a sequence
    or an optional value, an element type numpy lacks, an optional input left out)."""
    inputs, outputs = case.data_sets[0]
    graph = case.model.graph
    initialized = {i.name for i in graph.initializer}
    names = [i.name for i in graph.input if i.name not in initialized]
    feeds, golden = [_plain(a) for a in inputs], [_plain(a) for a in outputs]
    if any(a is None for a in feeds + golden) or len(names) != len(feeds) or len(golden) != len(graph.output):
        return None
    return names, feeds, golden


def _write(case, folder):
    names, feeds, golden = _arrays(case)
    onnx.save(case.model, folder / "model.onnx")
    np.savez(folder / "in.npz", **dict(zip(names, feeds)))
    np.savez(folder / "golden.npz", **{o.name: a for o, a in zip(case.model.graph.output, golden)})
    return folder / "model.onnx"


def _sample() -> list[str]:
    seed = int(os.environ.get("HYPOTHESIS_SEED", "0"))
    rest = sorted(name for name, case in CASES.items() if name not in EXPLICIT and _arrays(case) is not None)
    return EXPLICIT + random.Random(seed).sample(rest, SAMPLE)


@pytest.mark.parametrize("index", range(len(EXPLICIT) + SAMPLE))
def test_run_gives_a_verdict_on_onnx_node_cases(index, tmp_path):
    name = _sample()[index]
    model = _write(CASES[name], tmp_path)
    result = CliRunner().invoke(main, ["run", str(model), "--load-inputs", str(tmp_path / "in.npz"),
                                       "--load-outputs", str(tmp_path / "golden.npz"),
                                       *(a for r in RUNTIMES for a in ("--runtime", r))])
    assert "internal error" not in result.output and result.exit_code != 3, f"{name}: {result.output}"
    if result.exit_code == 2:
        assert any(s in result.output for s in NOT_TENSORS), f"{name}: {result.output}"
        return
    assert result.exit_code in (0, 1), f"{name}: {result.output}"
    verdicts = [line.split()[0] for line in result.output.splitlines() if line.startswith(("PASS ", "FAIL ", "ERROR "))]
    assert verdicts, f"{name}: {result.output}"
    assert (result.exit_code == 1) == any(v != "PASS" for v in verdicts), f"{name}: {result.output}"
    if name in EXPLICIT[1:]:  # what OpenVINO gave is onnx's golden output, as the other runtimes' is
        assert result.exit_code == 0, result.output
    if name == "test_constantofshape_int_shape_zero":
        assert result.exit_code == 0 and verdicts == ["PASS"] * (len(RUNTIMES) * (len(RUNTIMES) + 1) // 2), result.output
