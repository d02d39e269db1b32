"""`spec2onnx check` on models nobody here made (issue 19 items 1-4, issue 21 item 7).

Every bad model is built here; the ones that once ate memory run in a child process under an address-space
limit (RLIMIT_AS), so a regression fails the test instead of taking the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from converter.cli import main

from .conftest import REPO, RUN_CLI, child_env

LIMIT = 1536 * 2**20  # the child's address space: enough for Python, onnx and onnxruntime's import, not for a GiB read


def limited(*args, cwd, timeout=60):
    """spec2onnx in a child process that cannot map more than LIMIT bytes."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    return subprocess.run([sys.executable, "-c", RUN_CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=child_env(PYTHONPATH=str(REPO)), preexec_fn=cap, timeout=timeout)


def model_with(inits, x_shape=(2, 2), op="Add", inputs=("x", "w")):
    graph = helper.make_graph([helper.make_node(op, list(inputs), ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(x_shape))], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


# ---- item 1: bounded reading ----------------------------------------------------------------------------------


def test_dev_zero_and_a_fifo_are_refused_in_one_line_without_reading(tmp_path):
    proc = limited("check", "/dev/zero", cwd=tmp_path)  # once: read until MemoryError, exit 3
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == "spec2onnx: error: /dev/zero: not a regular file (a character device); " \
                                  "check reads ONNX model files"
    fifo = tmp_path / "pipe.onnx"
    os.mkfifo(fifo)
    proc = limited("check", fifo, cwd=tmp_path, timeout=30)  # once: blocked forever waiting for a writer
    assert proc.returncode == 2 and "pipe.onnx: not a regular file (a named pipe)" in proc.stderr, proc.stderr


def external(name, dims, location, dtype=TensorProto.FLOAT):
    tensor = TensorProto()
    tensor.name, tensor.data_type = name, dtype
    tensor.dims.extend(dims)
    tensor.data_location = TensorProto.EXTERNAL
    nbytes = int(np.prod(dims)) * 4
    for key, value in (("location", location), ("offset", "0"), ("length", str(nbytes))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return tensor


def test_external_data_is_never_read(tmp_path):
    # a 2 GiB data file (sparse: nothing on disk) and four 1-GiB initializers: once read whole (MemoryError, exit 3)
    with open(tmp_path / "big.bin", "wb") as handle:
        handle.truncate(2**31)
    tensors = [external(f"w{i}", [2**28], "big.bin") for i in range(4)]  # 2^28 floats: 1 GiB each
    graph = helper.make_graph([helper.make_node("Sum", ["x", *[t.name for t in tensors]], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2**28])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2**28])], initializer=tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, tmp_path / "m.onnx")
    assert (tmp_path / "m.onnx").stat().st_size < 1000
    proc = limited("check", tmp_path / "m.onnx", "--target", "ort-cpu", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "every node runs on ort-cpu (1 node)" in proc.stdout
    # metadata is checked: a data file too short for offset + length is a malformed model, one line
    with open(tmp_path / "big.bin", "r+b") as handle:
        handle.truncate(2**29)
    proc = limited("check", tmp_path / "m.onnx", "--target", "ort-cpu", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "m.onnx: initializer 'w0': external data 'big.bin' has 536,870,912 bytes" in proc.stderr


def test_max_memory_bounds_what_is_read(tmp_path):
    weights = numpy_helper.from_array(np.zeros((512, 512), np.float32), "w")  # 1 MiB in the file
    onnx.save(model_with([weights], x_shape=(512, 512)), tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--max-memory", "2M"])
    one_line_error(result, "m.onnx: reading this 1 MiB model needs an estimated 3 MiB, above the memory budget of 2 MiB")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--max-memory", "64M", "--target", "ort-cpu"])
    assert result.exit_code == 0, result.output


# ---- item 2: malformed initializers ------------------------------------------------------------------------------


def raw(name, dtype, dims, data: bytes):
    tensor = TensorProto()
    tensor.name, tensor.data_type = name, dtype
    tensor.dims.extend(dims)
    tensor.raw_data = data
    return tensor


def no_data():
    tensor = TensorProto()
    tensor.name, tensor.data_type = "w", TensorProto.FLOAT
    tensor.dims.extend([2**40, 2**20])
    return tensor


def bad_string():
    tensor = TensorProto()
    tensor.name, tensor.data_type = "w", TensorProto.STRING
    tensor.dims.extend([1])
    tensor.string_data.append(b"\xff\xfe")
    return tensor


MALFORMED = {
    "no data for 2^60 elements": (no_data, "initializer 'w': no data: dims [1099511627776, 1048576] declare"),
    "3 bytes for float[2,2]": (lambda: raw("w", TensorProto.FLOAT, [2, 2], b"abc"),
                               "initializer 'w': raw_data has 3 bytes; float[2, 2] takes 16"),
    "data_type 999": (lambda: raw("w", 999, [2, 2], bytes(16)), "initializer 'w': data_type 999 is not an ONNX element type"),
    "non-UTF-8 string": (bad_string, "initializer 'w': string_data[0] is not UTF-8"),
    "negative dim": (lambda: raw("w", TensorProto.FLOAT, [-5, 2], b""), "initializer 'w': dims [-5, 2]: a dimension is negative"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_initializer_is_one_line_naming_file_tensor_and_field(tmp_path, case):
    make, expected = MALFORMED[case]
    onnx.save(model_with([make()]), tmp_path / "m.onnx")  # once: exit 3 (ValueError, KeyError, UnicodeDecodeError)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx")])
    one_line_error(result, "m.onnx: ", expected)


def test_onnxruntime_refuses_the_malformed_initializers_too(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    for case in ("3 bytes for float[2,2]", "data_type 999", "negative dim"):
        onnx.save(model_with([MALFORMED[case][0]()]), tmp_path / "m.onnx")
        with pytest.raises(Exception):
            ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])


def _bad_elem_type_model(where):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])
    odd = helper.make_tensor_value_info("odd", TensorProto.FLOAT, [2, 2])
    odd.type.tensor_type.elem_type = 999  # no TensorProto.DataType has this value
    if where == "input":
        graph = helper.make_graph([helper.make_node("Relu", ["odd"], ["y"])], "g", [odd], [y])
    elif where == "output":
        graph = helper.make_graph([helper.make_node("Relu", ["x"], ["odd"])], "g", [x], [odd])
    else:  # value_info inside an If's branch
        body = helper.make_graph([helper.make_node("Relu", ["x"], ["odd"])], "b", [], [odd])
        c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
        graph = helper.make_graph([helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)], "g",
                                  [c, x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("where", ["input", "output", "subgraph output"])
def test_an_unknown_elem_type_of_a_graph_value_is_one_line_not_an_internal_error(tmp_path, where):
    # was exit 3: model_view.type_name -> TensorProto.DataType.Name(999) raised ValueError
    onnx.save(_bad_elem_type_model(where), tmp_path / "m.onnx")
    for target in ("ort-cpu", "tensorrt"):
        result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", target])
        one_line_error(result, "m.onnx: ", "'odd': elem_type 999 is not an ONNX element type")


def test_onnxruntime_refuses_an_unknown_elem_type_too(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    onnx.save(_bad_elem_type_model("input"), tmp_path / "m.onnx")
    with pytest.raises(Exception):
        ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])


def test_a_graph_input_without_an_element_type_is_one_line_and_the_runtimes_refuse_it(tmp_path):
    # was: "every node runs" on every target; onnxruntime says 'Invalid tensor data type 0'
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    x.type.tensor_type.elem_type = 0  # UNDEFINED
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, tmp_path / "m.onnx")
    for target in ("ort-cpu", "openvino", "tensorrt"):
        result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", target])
        one_line_error(result, "m.onnx: ", "graph input 'x': elem_type 0 (UNDEFINED)")
    ort = pytest.importorskip("onnxruntime")
    with pytest.raises(Exception):
        ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])


# ---- item 4: what the runtimes refuse ------------------------------------------------------------------------------


def cycle_model():
    nodes = [helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Relu", ["a"], ["b"])]
    graph = helper.make_graph(nodes, "cycle", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_a_graph_with_a_cycle_runs_nowhere(tmp_path):
    onnx.save(cycle_model(), tmp_path / "cycle.onnx")
    for target in ("ort-cpu", "tensorrt", "openvino"):
        result = CliRunner().invoke(main, ["check", str(tmp_path / "cycle.onnx"), "--target", target])
        assert result.exit_code == 1, result.output  # once: "every node runs"
        assert f"ERROR {target}: model: onnx's checker refuses the model" in result.output
        assert "topologically sorted" in result.output
    ort = pytest.importorskip("onnxruntime")  # the runtime agrees
    with pytest.raises(Exception, match="acyclic|cycle|topolog"):
        ort.InferenceSession(str(tmp_path / "cycle.onnx"), providers=["CPUExecutionProvider"])


def test_a_checker_refusal_onnxruntime_does_not_share_is_a_warning(tmp_path):
    # onnx's checker wants a shape on every graph output; onnxruntime 1.31 runs the model without one
    model = one_relu([2])
    model.graph.output[0].type.tensor_type.ClearField("shape")
    onnx.save(model, tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", "ort-cpu"])
    assert result.exit_code == 0 and "onnx's checker refuses the model, onnxruntime loads it" in result.output
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": np.array([-1, 2], np.float32)})[0].tolist() == [0, 2]
    # IR version 3 wanted initializers among the graph inputs; onnxruntime runs one that is not (its datasets/mul_1.onnx)
    old = model_with([numpy_helper.from_array(np.ones((2, 2), np.float32), "w")])
    old.ir_version = 3
    onnx.save(old, tmp_path / "ir3.onnx")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "ir3.onnx"), "--target", "ort-cpu"])
    assert result.exit_code == 0 and "w in initializer but not in graph input" in result.output, result.output
    session = ort.InferenceSession(str(tmp_path / "ir3.onnx"), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": np.ones((2, 2), np.float32)})[0].tolist() == [[2, 2], [2, 2]]
    # the checker stops at that complaint: a cycle behind it is still found
    cycle = cycle_model()
    cycle.graph.output[0].type.tensor_type.ClearField("shape")
    onnx.save(cycle, tmp_path / "c.onnx")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "c.onnx"), "--target", "ort-cpu"])
    assert result.exit_code == 1 and "topologically sorted" in result.output, result.output


def test_tensorrt_tensor_limits():
    from converter.api import check

    # TensorRT: fewer than 2^31 elements per tensor (nvinfer1::ITensor), at most 8 dimensions (Dims64::MAX_DIMS)
    big = one_relu([2**20, 2**20])
    report = check(big, "tensorrt")
    assert not report.ok and any("has 1,099,511,627,776 elements" in p for p in report.problems), report.problems
    assert check(one_relu([2**15, 2**16 - 1]), "tensorrt").ok  # 2^31 - 2^15 elements: under the limit
    assert not check(one_relu([2**15, 2**16]), "tensorrt").ok  # exactly 2^31: over
    assert check(big, "ort-cpu").ok  # no such limit for onnxruntime
    report = check(one_relu([1] * 9), "tensorrt")
    assert any("rank 9" in p for p in report.problems), report.problems
    assert check(one_relu([1] * 8), "tensorrt").ok


def one_relu(shape):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


# ---- item 3: summaries ---------------------------------------------------------------------------------------------


def chain(nodes):
    from benchmarks.check_scale import make_model

    return make_model(nodes)


def test_a_big_model_is_summarised_by_op_type_and_reason(tmp_path):
    n = 20_000  # ops in turn: Relu Add Neg Mul Sigmoid Abs Celu Tanh; ort-cuda has no Celu kernel (its table)
    onnx.save(chain(n), tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", "ort-cuda"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines == ["ERROR ort-cuda: 2,500 Celu (float) nodes: no kernel for this op; onnxruntime gives it to the CPU EP "
                     "(#6 (Celu), #14 (Celu), #22 (Celu), ...)",
                     f"{tmp_path / 'm.onnx'}: 2,500 problems: not every node runs on ort-cuda (20,000 nodes)"]
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", "ort-cuda", "-v",
                                       "--json", str(tmp_path / "r.json")])
    errors = [line for line in result.output.splitlines() if line.startswith("ERROR")]
    assert len(errors) == n // 8 and errors[1] == "ERROR ort-cuda: #14 (Celu): no kernel for this op; onnxruntime gives it to the CPU EP"  # (was "#14 (Celu) (Celu)": issue 19 item 13)
    report = json.loads((tmp_path / "r.json").read_text())
    problems = report["files"][0]["targets"]["ort-cuda"]["problems"]
    assert [p["index"] for p in problems] == list(range(6, n, 8))
    result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx")])  # portable: each line names its member
    assert ("ERROR ort-cuda: 2,500 Celu (float) nodes: no kernel for this op; onnxruntime gives it to the CPU EP "
            "(#6 (Celu), #14 (Celu), #22 (Celu), ...)"
            in result.output.splitlines()), result.output
    assert "not every node runs on portable" in result.output and len(result.output.splitlines()) < 12


# ---- issue 21 item 7: many models ------------------------------------------------------------------------------------


def test_many_models_one_bad_file_hides_nothing(tmp_path):
    folder = tmp_path / "models"
    (folder / "sub").mkdir(parents=True)
    onnx.save(one_relu([2, 2]), folder / "a.onnx")
    onnx.save(cycle_model(), folder / "sub" / "b.onnx")
    (folder / "sub" / "c.onnx").write_bytes(b"\x00junk")
    (folder / "notes.txt").write_text("not a model")
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["check", str(folder), "--target", "ort-cpu", "--target", "tensorrt",
                                       "--json", str(out)])
    assert result.exit_code == 2, result.output  # an unreadable file: 2, the others still checked
    assert "c.onnx: not an ONNX model" in result.output
    assert f"{folder / 'a.onnx'}: every node runs on ort-cpu" in result.output
    assert f"{folder / 'sub' / 'b.onnx'}: 1 problem: not every node runs on tensorrt" in result.output
    table = result.output.strip().splitlines()[-3:]
    assert [line.split() for line in table] == [["target", "runs", "refused", "unreadable"],
                                                ["ort-cpu", "1", "1", "1"], ["tensorrt", "1", "1", "1"]]
    report = json.loads(out.read_text())
    assert report["schema"] == "spec2onnx-check/1" and report["exit_status"] == 2
    assert [f["path"] for f in report["files"]] == [str(folder / "a.onnx"), str(folder / "sub" / "b.onnx"),
                                                    str(folder / "sub" / "c.onnx")]
    a, b, c = report["files"]
    assert a["targets"]["tensorrt"] == {"runs": True, "errors": 0, "warnings": 0, "problems": []}
    assert b["checker"] and b["targets"]["ort-cpu"]["runs"] is False
    assert b["targets"]["ort-cpu"]["problems"][0]["node"] is None  # the model's problem, not a node's
    assert c["read"] is False and "not an ONNX model" in c["error"] and c["targets"] == {}
    assert report["summary"]["ort-cpu"] == {"runs": 1, "refused": 1, "unreadable": 1}
    (folder / "sub" / "c.onnx").unlink()
    result = CliRunner().invoke(main, ["check", str(folder), str(folder / "a.onnx"), "--target", "ort-cpu"])
    assert result.exit_code == 1, result.output  # some file does not run
    (folder / "sub" / "b.onnx").unlink()
    result = CliRunner().invoke(main, ["check", str(folder), "--target", "ort-cpu"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["check", str(tmp_path / "nothing")])
    one_line_error(result, "nothing: cannot read")


def test_a_constant_node_and_a_model_in_memory_with_external_data_are_not_read(tmp_path):
    from converter.api import check

    tensor = external("w", [4], "w.bin")
    model = model_with([tensor], x_shape=(4,))
    (tmp_path / "w.bin").write_bytes(bytes(16))
    assert check(model, "ort-cpu").ok  # a ModelProto whose external data was never loaded: once exit 3
    value = external("v", [4], "w.bin")
    const = helper.make_node("Constant", [], ["w"], value=value)
    graph = helper.make_graph([const, helper.make_node("Add", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), tmp_path / "c.onnx")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "c.onnx"), "--target", "openvino"])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output


@pytest.mark.parametrize("ir_version, runs", [(13, True), (14, False)])
def test_an_ir_version_onnxruntime_refuses_fails_the_ort_targets(tmp_path, ir_version, runs, monkeypatch, request):
    # was: IR 14 (onnx 1.23's make_model default) said "every node runs on ort-cpu"; onnxruntime 1.31 refuses it.
    # With the committed tables (1.31.1's, as without onnxruntime) the limit is 13; with onnxruntime installed,
    # ort-cpu's limit is that onnxruntime's, and onnxruntime itself is the judge (1.32.0 loads IR 14)
    from converter.targets import ort_kernels

    graph = helper.make_graph([helper.make_node("Abs", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=ir_version),
              tmp_path / "m.onnx")
    monkeypatch.setenv("SPEC2ONNX_KERNEL_TABLES", "committed")
    ort_kernels.kernel_table.cache_clear()
    request.addfinalizer(ort_kernels.kernel_table.cache_clear)
    for target in ("ort-cpu", "ort-cuda", "ort-dml", "portable"):
        result = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", target])
        assert result.exit_code == (0 if runs else 1), (target, result.output)
        if not runs:
            assert f"IR version {ir_version} is newer than onnxruntime 1.31.1 loads (at most 13)" in result.output
    ort = pytest.importorskip("onnxruntime")
    monkeypatch.delenv("SPEC2ONNX_KERNEL_TABLES")
    ort_kernels.kernel_table.cache_clear()
    said = CliRunner().invoke(main, ["check", str(tmp_path / "m.onnx"), "--target", "ort-cpu"]).exit_code == 0
    try:
        ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
        loads = True
    except Exception:  # noqa: BLE001 - onnxruntime's refusal
        loads = False
    assert said == loads, (ort.__version__, ir_version)


def test_an_op_type_that_is_not_utf8_is_a_malformed_file_naming_the_field_and_the_others_are_still_checked(tmp_path):
    """onnx.proto is proto2: its parser takes a string that is not UTF-8 (0xff never is), and onnx's checker raised
    UnicodeDecodeError formatting its refusal of the node: an internal error (exit 3) that ended the whole check."""
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, tmp_path / "good.onnx")
    data = model.SerializeToString()
    assert data.count(b"\x04Relu") == 1  # the op_type's length byte and text, as protobuf writes them
    (tmp_path / "bad.onnx").write_bytes(data.replace(b"\x04Relu", b"\x04Rel\xff"))
    result = CliRunner().invoke(main, ["check", str(tmp_path / "bad.onnx"), str(tmp_path / "good.onnx"), "-q"])
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'bad.onnx'}: graph.node[0].op_type: b'Rel\\xff' is not UTF-8" in result.output
    assert "internal error" not in result.output and "Traceback" not in result.output
    assert CliRunner().invoke(main, ["check", str(tmp_path / "good.onnx"), "-q"]).exit_code == 0
