"""run MODEL's memory beside the tensors it runs (issue 31): the inputs are held once, in memory the runtime's
child maps, and onnxruntime writes each output of a fixed declared shape into memory the parent maps
(converter/model/start.py SharedArrays), where both were pickled across the pipe (a copy on each side, and
the pickles). Measured as benchmarks/run_model.py measures it: the command's process tree's peak summed PSS."""

from __future__ import annotations

import math
import mmap
import os
import types
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from benchmarks.run_model import measure
from converter.process.isolation import call_isolated
from converter.model.start import SharedArrays, received, run_one
from converter.runners import RunConfig
from converter.runners.onnxruntime import OrtRunner

linux = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists() or not hasattr(os, "memfd_create"),
                           reason="Linux's memfd and /proc/PID/smaps_rollup")


def relu(path: Path, shape, declared=None) -> Path:
    declared = shape if declared is None else declared
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, declared)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _mapped(array: np.ndarray) -> bool:
    base = array
    while base is not None and not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    return base is not None


@linux
def test_a_big_tensor_costs_its_input_and_output_once(tmp_path):
    """64 MiB in, 64 MiB out: the peak above the same command on a one-element tensor is the two tensors (128
    MiB) and a margin, not the four copies and more that pickling them across the pipe made (on main: 250+)."""
    mib = 64
    small = measure("spec2onnx", relu(tmp_path / "small.onnx", [1, 1, 1, 1]), tmp_path, memory=True)["mib"]
    big = measure("spec2onnx", relu(tmp_path / "big.onnx", [1, 1, 4096, 4096]), tmp_path, memory=True)["mib"]
    assert 2 * mib * 0.9 <= big - small <= 2.5 * mib, (small, big)


@linux
def test_outputs_come_back_in_shared_memory_equal_to_numpys(tmp_path):
    x = np.random.default_rng(3).uniform(-1, 1, (3, 100_000)).astype(np.float32)  # (1.2 MB: above MIN_BYTES)
    for declared in ([3, 100_000], ["n", 100_000], [4, 100_000]):  # fixed and right; dynamic; fixed and wrong
        data = relu(tmp_path / "m.onnx", [3, 100_000], declared).read_bytes()
        shared = SharedArrays.make()
        run = received(call_isolated(run_one, RunConfig("onnxruntime", "CPUExecutionProvider", "all"), data,
                                     {"x": x}, 0, shared), shared)
        assert run.error == "" and list(run.outputs) == ["y"]
        np.testing.assert_array_equal(run.outputs["y"], np.maximum(x, 0))
        assert _mapped(run.outputs["y"])  # mapped from the file the child wrote, not unpickled


def test_onnxruntime_writes_a_fixed_shape_output_where_it_is_told(tmp_path):
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    given = {}

    def out(name, dtype, shape):
        given[name] = np.full(shape, 7, dtype)
        return given[name]

    right = OrtRunner(relu(tmp_path / "a.onnx", [3, 4]).read_bytes(), threads=1).run({"x": x}, out=out)
    assert right["y"] is given["y"] and np.array_equal(given["y"], np.maximum(x, 0))
    given.clear()  # a declared shape the output does not have: onnxruntime refuses the buffer; run as without one
    wrong = OrtRunner(relu(tmp_path / "b.onnx", [3, 4], [2, 4]).read_bytes(), threads=1).run({"x": x}, out=out)
    np.testing.assert_array_equal(wrong["y"], np.maximum(x, 0))


@linux
@settings(deadline=None, max_examples=60)
@given(st.sampled_from(["float32", "float64", "float16", "int8", "uint16", "int64", "bool", "bfloat16"]),
       st.lists(st.integers(0, 7), max_size=4), st.integers(0, 2**32 - 1))
def test_any_array_shared_is_the_same_array_where_it_is_mapped(dtype, shape, seed):
    """Through the file and back (share, then view as the other side of the fork does): the same dtype, shape and
    bytes; an empty array goes as it is (nothing to map)."""
    dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    raw = np.random.default_rng(seed).integers(0, 256, math.prod(shape) * dtype.itemsize, dtype=np.uint8)
    array = raw.view(dtype).reshape(shape)
    shared = SharedArrays.make(min_bytes=1)  # (the command's files take arrays of 1 MiB and more)
    try:
        sent = shared.share(array)
        back = shared.view(sent)
        assert back.dtype == array.dtype and back.shape == array.shape and back.tobytes() == array.tobytes()
        assert (sent is array) == (array.size == 0)
        moved = shared.moved({"a": array})["a"]
        assert moved.tobytes() == array.tobytes() and (shared.ref(moved) is None) == (array.size == 0)
    finally:
        shared.close()


@linux
def test_an_array_is_read_from_the_file_where_no_mapping_is_to_be_had(monkeypatch):
    """--mark-all's many outputs could reach the kernel's limit on mappings (mmap: ENOMEM): read, not exit 3."""
    from converter.model import start as model_start

    shared = SharedArrays.make()
    try:
        array = np.arange(3 * 2**18, dtype=np.float32).reshape(3, -1)  # 3 MiB
        ref = shared.share(array)

        def refused(*args, **kwargs):
            raise OSError(12, "Cannot allocate memory")

        monkeypatch.setattr(model_start, "mmap", types.SimpleNamespace(mmap=refused,
                                                                       ALLOCATIONGRANULARITY=mmap.ALLOCATIONGRANULARITY))
        back = shared.view(ref)
        assert not _mapped(back) and back.dtype == array.dtype
        np.testing.assert_array_equal(back, array)
    finally:
        shared.close()
