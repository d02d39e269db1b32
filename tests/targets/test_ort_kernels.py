"""ort-cpu tables from onnxruntime's registry, and what onnxruntime does before kernel lookup (issue 21, item 2).

Expected verdicts come from the installed onnxruntime itself: each hand-made model is also loaded and run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.targets import ort_kernels
from converter.targets.check import check_model, errors

needs_ort = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
pytestmark = pytest.mark.runtime  # .ci/run runs these with onnxruntime-gpu too


def model(nodes, inputs, outputs, opsets=(("", 17),), inits=()):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs], initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets], ir_version=10)


def onnxruntime_runs(m, feeds) -> bool:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"]).run(None, feeds)
    except Exception:  # noqa: BLE001
        return False
    return True


def static_runs(m) -> bool:
    return not errors(check_model(m, "ort-cpu"))


@needs_ort
def test_the_committed_table_records_the_installed_onnxruntime_registry():
    # whichever onnxruntime is installed: the pinned one (the table itself) or another recorded version (the ops
    # that differ, under "versions"); a version not recorded fails here, naming the command that records it
    import onnxruntime

    version = onnxruntime.__version__
    recorded = ort_kernels.recorded_versions("ort-cpu")
    if version not in recorded:
        pytest.fail(f"onnxruntime {version} is installed; tables/ort-cpu.json records {', '.join(recorded)}: record it "
                    "with python -m tools.make_ort_tables --registry ort-cpu, then measure and document it with "
                    "python -m tools.ground_truth --write-docs (tools/ground_truth.py DOCUMENTED, KNOWN_BY_VERSION)")
    live = ort_kernels.registry_table("CPUExecutionProvider")
    if live is None:  # onnxruntime-gpu 1.31.1: get_all_opkernel_def() dies (SIGSEGV) or raises (no GPU)
        pytest.skip(f"this onnxruntime's registry cannot be read: {ort_kernels.ort_build.build().failure}")
    assert live == ort_kernels.committed_for("ort-cpu", version)
    text = (ort_kernels.TABLES / "ort-cpu.json").read_text(encoding="utf-8")
    assert ort_kernels.dumps(ort_kernels.committed("ort-cpu")) == text  # the file as the tool writes it


def test_every_recorded_version_survives_a_change_of_the_pinned_one():
    from tools.make_ort_tables import record

    table = ort_kernels.committed("ort-cpu")
    pinned, *others = ort_kernels.recorded_versions("ort-cpu")
    assert pinned == ort_kernels.table_version(table) and others  # 1.31.1 pinned; 1.32.0 recorded
    every = {v: ort_kernels.committed_for("ort-cpu", v) for v in [pinned, *others]}
    assert len({json.dumps(t, sort_keys=True) for t in every.values()}) == len(every)  # the versions differ
    repinned = record(table, every[others[-1]], pin=True)
    assert ort_kernels.table_version(repinned) == others[-1] and set(repinned["versions"]) == {pinned, *others[:-1]}
    for version, full in every.items():
        patch = repinned["versions"].get(version)
        assert (ort_kernels.applied(repinned, patch) if patch else {k: v for k, v in repinned.items() if k != "versions"}) == full
    assert record(repinned, every[pinned], pin=True) == table  # and back, to the very same table
    assert record(table, every[pinned], pin=False) == table  # recording a recorded version again changes nothing


def test_registry_rows_follow_onnxruntime_kernel_defs():
    # the shape of get_all_opkernel_def() entries (op_name, domain, version_range, type_constraints, provider)
    class Def:
        def __init__(self, op, domain, rng, types, provider="CPUExecutionProvider"):
            self.op_name, self.domain, self.version_range, self.type_constraints, self.provider = op, domain, rng, types, provider

    defs = [Def("Abs", "", (13, 2**31 - 1), {"T": ["tensor(float)"]}), Def("Abs", "", (13, 2**31 - 1), {"T": ["tensor(int8)"]}),
            Def("Abs", "", (6, 12), {"T": ["tensor(float)"]}), Def("Abs", "", (13, 2**31 - 1), {"T": ["tensor(half)"]}, "CUDAExecutionProvider"),
            Def("LabelEncoder", "ai.onnx.ml", (4, 2**31 - 1), {"T1": ["tensor(string)"], "T2": ["tensor(int64)"]}),
            Def("LabelEncoder", "ai.onnx.ml", (4, 2**31 - 1), {"T1": ["tensor(int64)"], "T2": ["tensor(string)"]}),
            Def("SequenceAt", "", (11, 2**31 - 1), {"S": ["seq(tensor(float))"], "I": ["tensor(int64)"]})]
    rows = ort_kernels.registry_rows(defs, "CPUExecutionProvider")
    assert rows[""]["Abs"] == [{"start": 13, "end": None, "types": {"T": ["float", "int8"]}},
                               {"start": 6, "end": 12, "types": {"T": ["float"]}}]
    # two type combinations stay two rows: merging them would allow string -> string
    assert len(rows["ai.onnx.ml"]["LabelEncoder"]) == 2
    assert rows[""]["SequenceAt"] == [{"start": 11, "end": None, "types": {"I": ["int64"]}}]


def test_committed_table_is_the_fallback(monkeypatch):
    monkeypatch.setenv("SPEC2ONNX_KERNEL_TABLES", "committed")
    ort_kernels.kernel_table.cache_clear()
    try:
        assert ort_kernels.kernel_table("ort-cpu") is ort_kernels.committed("ort-cpu")
    finally:
        ort_kernels.kernel_table.cache_clear()


X = ("x", TensorProto.FLOAT, [2, 3])
Y = ("y", TensorProto.FLOAT, [2, 3])
FEED = {"x": np.ones((2, 3), np.float32)}


@needs_ort
def test_constant_nodes_are_initializers():
    # onnxruntime has no Constant kernel: graph.cc turns Constant nodes into initializers when it loads
    c = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones((2, 3), np.float32)))
    m = model([c, helper.make_node("Add", ["x", "c"], ["y"])], [X], [Y])
    assert static_runs(m) and onnxruntime_runs(m, FEED)


@needs_ort
@pytest.mark.parametrize("opset", [15, 18, 21])
def test_castlike_runs_through_its_function_body(opset):
    # no CastLike kernel in onnxruntime 1.31: it expands the context-dependent function (a Cast)
    m = model([helper.make_node("CastLike", ["x", "t"], ["y"])], [X, ("t", TensorProto.DOUBLE, [1])],
              [("y", TensorProto.DOUBLE, [2, 3])], opsets=(("", opset),))
    assert static_runs(m)
    assert onnxruntime_runs(m, FEED | {"t": np.ones(1, np.float64)})


@needs_ort
def test_a_function_body_is_checked_node_by_node():
    # SoftmaxCrossEntropyLoss has no CPU kernel: onnxruntime expands its context-dependent body, and runs it
    m = model([helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"], reduction="mean")],
              [("x", TensorProto.FLOAT, [2, 3]), ("t", TensorProto.INT64, [2])], [("y", TensorProto.FLOAT, [])],
              opsets=(("", 17),))
    assert static_runs(m) and onnxruntime_runs(m, FEED | {"t": np.array([0, 2], np.int64)})
    problems = [p for p in check_model(m, "ort-cpu")]
    assert problems == []
    # the body's own ops are checked: at float16 the body's ops have kernels (float16 runs as float), but at
    # int32 inputs onnx defines no body (x is float only): check refuses, as onnxruntime does
    bad = model([helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"])],
                [("x", TensorProto.INT32, [2, 3]), ("t", TensorProto.INT64, [2])], [("y", TensorProto.INT32, [])])
    assert not static_runs(bad)
    assert not onnxruntime_runs(bad, {"x": np.ones((2, 3), np.int32), "t": np.array([0, 2], np.int64)})


@needs_ort
def test_a_model_of_only_ai_onnx_ml_runs():
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_int64s=[1, 2], values_int64s=[5, 6])
    m = model([node], [("x", TensorProto.INT64, [3])], [("y", TensorProto.INT64, [3])], opsets=(("ai.onnx.ml", 4),))
    assert static_runs(m) and onnxruntime_runs(m, {"x": np.array([1, 2, 3], np.int64)})


@needs_ort
@pytest.mark.parametrize("op, gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
def test_batchwise_recurrent_layout_is_refused(op, gates):
    # onnxruntime enforces layout == 0 in the RNN/GRU/LSTM constructors (rnn.h:48, deep_cpu_gru.h:56, lstm_base.h:53)
    w = numpy_helper.from_array(np.ones((1, gates * 4, 3), np.float32), "w")
    r = numpy_helper.from_array(np.ones((1, gates * 4, 4), np.float32), "r")
    for layout, runs in ((0, True), (1, False)):
        node = helper.make_node(op, ["x", "w", "r"], ["y"], hidden_size=4, layout=layout)
        x = ("x", TensorProto.FLOAT, [2, 5, 3])
        m = model([node], [x], [("y", TensorProto.FLOAT, None)], inits=[w, r])
        assert static_runs(m) == runs == onnxruntime_runs(m, {"x": np.ones((2, 5, 3), np.float32)})


# --- StringNormalizer's locale: a fact of the machine, asked of it (converter/targets/machine.py, issue 25 class 4) ---

def _normalizer(locale=None, **attrs):
    if locale is not None:
        attrs["locale"] = locale
    node = helper.make_node("StringNormalizer", ["x"], ["y"], **attrs)
    return model([node], [("x", TensorProto.STRING, [3])], [("y", TensorProto.STRING, None)])


def _onnxruntime_loads(m) -> bool:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001
        return False
    return True


LOCALE_CASES = [dict(case_change_action=a, is_case_sensitive=s, **({"stopwords": ["monday"]} if w else {}))
                for a in ("NONE", "LOWER", "UPPER") for s in (0, 1) for w in (False, True)]


@needs_ort
@pytest.mark.parametrize("locale", [None, "C", "POSIX", "", "C.UTF-8", "en_US.UTF-8", "xx_XX.UTF-8", "C\0junk",
                                    "LC_CTYPE=C;LC_NUMERIC=C"])
def test_check_says_what_onnxruntime_does_with_the_locales_of_this_machine(locale):
    # ground truth: onnxruntime itself, on this machine, for every combination that builds a locale or not (1.31.1 and
    # 1.32.0: at load, for a case change or stopwords compared without case); whichever locales this machine has
    for attrs in LOCALE_CASES:
        m = _normalizer(locale, **attrs)
        assert static_runs(m) == _onnxruntime_loads(m), (locale, attrs, [str(p) for p in check_model(m, "ort-cpu")])


def _verdicts(monkeypatch, answer):
    from converter.targets import machine

    monkeypatch.setattr(machine, "installed", lambda name: answer)
    return {str(attrs): check_model(_normalizer(**attrs), "ort-cpu") for attrs in LOCALE_CASES}


def test_a_missing_locale_is_a_refusal_naming_it_and_an_installed_one_runs(monkeypatch):
    needs_locale = {str(a) for a in LOCALE_CASES
                    if a["case_change_action"] != "NONE" or (a["is_case_sensitive"] == 0 and "stopwords" in a)}
    assert len(needs_locale) == 9
    for attrs, problems in _verdicts(monkeypatch, False).items():
        if attrs in needs_locale:
            assert [p.severity for p in problems] == ["error"], attrs
            assert "locale 'en_US.UTF-8' (onnxruntime's default) is not installed on this machine" in problems[0].reason
        else:
            assert problems == [], attrs
    assert all(problems == [] for problems in _verdicts(monkeypatch, True).values())
    unknown = _verdicts(monkeypatch, None)  # a platform where the machine is not asked: a warning, as before
    assert all([p.severity for p in unknown[a]] == ["warning"] and "not probed" in unknown[a][0].reason
               for a in needs_locale)


def test_the_probe_answers_only_where_it_makes_libstdcxx_call(monkeypatch):
    from converter.targets import machine

    assert machine.installed("C") is True and machine.installed("POSIX") is True  # the classic locale, never looked up
    monkeypatch.setattr(machine, "glibc", lambda: False)
    machine.installed.cache_clear()
    try:
        assert machine.installed("en_US.UTF-8") is None and machine.installed("C") is True
    finally:
        machine.installed.cache_clear()


@needs_ort
def test_a_machine_that_has_the_locale_runs_it_and_check_says_so(tmp_path):
    # a machine with en_US.UTF-8: glibc's LOCPATH makes one of this one, for onnxruntime and check alike (one child)
    import shutil
    import subprocess
    import sys

    if not shutil.which("localedef"):
        pytest.skip("localedef (glibc's locale compiler) is not installed")
    built = subprocess.run(["localedef", "-i", "en_US", "-f", "UTF-8", str(tmp_path / "en_US.UTF-8")],
                           capture_output=True, text=True)
    if not (tmp_path / "en_US.UTF-8" / "LC_CTYPE").is_file():
        pytest.skip(f"localedef could not build en_US.UTF-8 here: {built.stderr.strip()[:200]}")
    code = ("import sys; sys.path.insert(0, '.'); from tests.targets import test_ort_kernels as t; "
            "m = t._normalizer(case_change_action='LOWER'); print(t.static_runs(m), t._onnxruntime_loads(m))")
    child = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                           text=True, env={**os.environ, "LOCPATH": str(tmp_path)}, timeout=300)
    assert child.stdout.split() == ["True", "True"], child.stdout + child.stderr


@needs_ort
def test_an_onnxruntime_the_table_does_not_record_fails_naming_the_command(monkeypatch):
    import onnxruntime

    monkeypatch.setattr(onnxruntime, "__version__", "9.9.9")
    with pytest.raises(pytest.fail.Exception, match=r"onnxruntime 9\.9\.9 is installed.*make_ort_tables --registry ort-cpu"):
        test_the_committed_table_records_the_installed_onnxruntime_registry()
