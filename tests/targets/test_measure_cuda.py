"""tools/measure_cuda.py: the committed ort-cuda table is what it makes of the committed H100 cases; its probes run
in child processes that a crashing or hanging onnxruntime cannot take down; without a GPU it runs on the CPU EP."""

from __future__ import annotations

import json
import textwrap
from types import SimpleNamespace

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.targets import ort_kernels
from tools import measure_cuda as mc


def case(name, op, dtype=TensorProto.FLOAT, value=None, **attrs):
    """A node test case as onnx's collect_testcases gives one: name, model, data_sets [(inputs, outputs)]."""
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", dtype, [2])],
                              [helper.make_tensor_value_info("y", dtype, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    value = np.array([1.0, -2.0], np.float32) if value is None else value
    return SimpleNamespace(name=name, model=model, data_sets=[([value], [])])


def test_the_committed_table_is_what_the_tool_makes_of_the_committed_cases():
    committed = ort_kernels.committed("ort-cuda")
    if "kernel registry" in committed["source"]:
        pytest.skip(f"the committed table is a CUDA build's registry (make_ort_tables --registry ort-cuda): {committed['source']}")
    # No gate on onnx's version (issue 31: a skip there would go silent once CI's unpinned onnx moves on): the table
    # is made again from the committed H100 cases and the installed onnx's corpus, whichever it is, and must be the
    # committed one; where a newer corpus changes it, this fails and says what to do.
    meta, cases = mc.read_cases(mc.CASES)
    table = mc.build_table(meta, cases)
    made_with = f"onnx {onnx.__version__} " in committed["source"]
    assert table == json.loads(mc.TABLE.read_text(encoding="utf-8")), (
        "tables/ort-cuda.json is not what tools/measure_cuda makes of the committed H100 cases"
        + ("" if made_with else f" with onnx {onnx.__version__}'s node test corpus (the table names another onnx: "
           f"{committed['source'][-80:]!r})") + ": run `python -m tools.measure_cuda --from-cases "
        f"{mc.CASES.relative_to(mc.REPO)}` and review the diff, or measure this onnx's corpus on a GPU (tools.gpu_check)")
    measured = {op: [r for r in rows if r.get("measured")] for op, rows in table["ops"].items()}
    # onnx's test_identity (Identity-25) and test_cos (Cos-22) ran on the H100: rows the document does not have
    assert [r["start"] for r in measured["Identity"]] == [25, 24, 23] and measured["Cos"][0]["start"] == 22
    assert measured["Cos"][0]["types_of"] == 7 and measured["Cos"][0]["types"] == {"T": ["double", "float", "float16"]}
    assert measured["GRU"] == []  # no GRU case ran with the CUDA EP alone


def test_a_measured_row_needs_a_case_that_ran_and_keeps_to_its_version():
    meta, _ = mc.read_cases(mc.CASES)
    acosh = case("test_fake_acosh", "Acosh")  # no CUDA kernel in the document
    cos = case("test_fake_cos", "Cos")  # opset 17: Cos-7, which the document has (7+): nothing to add
    ran = mc.build_table(meta, [{"case": "test_fake_acosh", "cuda_only": True}, {"case": "test_fake_cos", "cuda_only": True}],
                         {"test_fake_acosh": acosh, "test_fake_cos": cos})
    assert ran["ops"]["Acosh"] == [{"start": 9, "end": 9, "types": {"T": ["float"]}, "measured": True}]
    assert ran["ops"]["Cos"] == mc.transcription()["Cos"]
    failed = mc.build_table(meta, [{"case": "test_fake_acosh", "cuda_only": False}], {"test_fake_acosh": acosh})
    assert "Acosh" not in failed["ops"]


def _direct(m) -> bool:
    """Whether onnxruntime's CPU EP, asked in this process, loads and runs ``m`` on [1, -2] (the expected value)."""
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        session.run(None, {"x": np.array([1.0, -2.0], np.float32)})
    except Exception:  # noqa: BLE001
        return False
    return True


def test_a_dry_run_on_the_cpu_ep_agrees_with_onnxruntime_asked_directly(tmp_path):
    pytest.importorskip("onnxruntime")
    cases = [case("test_fake_abs", "Abs"), case("test_fake_acos", "Acos"),
             case("test_fake_bad_attr", "Abs", nonsense=1),  # an attribute the schema has not: refused at load
             case("test_fake_topk", "TopK")]  # TopK needs 2 inputs: refused at load
    version, records = mc.probe("CPUExecutionProvider", cases, timeout=120)
    assert version == __import__("onnxruntime").__version__
    for c, record in zip(cases, records):
        assert record["case"] == c.name
        assert record["cuda_only"] is record["cuda_then_cpu"] is _direct(c.model), record
        assert bool(record["error"]) is not record["cuda_only"]
    text = mc.dumps_cases(mc._meta("CPUExecutionProvider", version, len(records), 1.0), records)
    (tmp_path / "c.json").write_text(text, encoding="utf-8")
    meta, again = mc.read_cases(tmp_path / "c.json")
    assert again == records and meta["provider"] == "CPUExecutionProvider"
    assert set(meta) >= set(mc.read_cases(mc.CASES)[0]) - {"source"}  # the committed file's provenance fields


FAKE = textwrap.dedent('''
    """A fake onnxruntime: its session dies of SIGSEGV on an Acos model, hangs on an Asin one, raises on an Atan one."""
    import os, signal, time
    __version__ = "0.0-fake"
    def get_available_providers():
        return ["FakeExecutionProvider", "CPUExecutionProvider"]
    class SessionOptions:
        log_severity_level = 0
        def add_session_config_entry(self, key, value):
            pass
    class OrtValue:
        @staticmethod
        def ortvalue_from_numpy(array):
            return OrtValue()
    class _Output:
        name = "y"
    class InferenceSession:
        def __init__(self, model, options=None, providers=None):
            if b"Acos" in model:
                os.kill(os.getpid(), signal.SIGSEGV)
            if b"Asin" in model:
                time.sleep(600)
            if b"Atan" in model:
                raise RuntimeError("fake refusal of Atan")
        def get_outputs(self):
            return [_Output()]
        def run_with_ort_values(self, names, feeds):
            return []
''')


def test_a_crash_or_a_hang_of_onnxruntime_is_one_failed_case_and_the_others_are_measured(tmp_path, monkeypatch):
    (tmp_path / "onnxruntime").mkdir()
    (tmp_path / "onnxruntime" / "__init__.py").write_text(FAKE, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the worker child imports the fake, this process the real one
    cases = [case("test_1", "Acos"), case("test_2", "Abs"), case("test_3", "Asin"), case("test_4", "Atan"),
             case("test_5", "Abs")]
    version, records = mc.probe("FakeExecutionProvider", cases, timeout=5)
    assert version == "0.0-fake"
    errors = {r["case"]: (r["cuda_only"], r["error"]) for r in records}
    assert errors == {"test_1": (False, "the process died of SIGSEGV"), "test_2": (True, ""),
                      "test_3": (False, "timed out after 5 s"), "test_4": (False, "fake refusal of Atan"),
                      "test_5": (True, "")}


def test_without_the_provider_nothing_is_measured_and_it_says_so_in_one_line(capsys):
    pytest.importorskip("onnxruntime")
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("this onnxruntime has a CUDA EP")
    with pytest.raises(mc.Unavailable, match="has no CUDAExecutionProvider"):
        mc.probe("CUDAExecutionProvider", [case("test_1", "Abs")], timeout=60)


def test_the_cli_refuses_to_probe_for_nothing():
    with pytest.raises(SystemExit) as stopped:
        mc.main(["--no-table"])
    assert stopped.value.code == 2
