"""Ground truth: the static ``check`` against the real runtimes on onnx's node test corpus (issue 21, item 1).

The corpus is generated from the installed onnx at test time (tools/ground_truth.py); the runtime loads and
runs every case on its inputs. The static check runs with the committed tables (SPEC2ONNX_KERNEL_TABLES=committed:
as on a machine without the runtime, which test_ort_kernels.py proves equal to the installed registry) when the
installed onnxruntime is the pinned version they were made from; with another onnxruntime, with that onnxruntime's
registry, as `check` itself does there. On every version: agreement >= 99% per target, "runs" said of a case that
fails <= 0.5% of the corpus, and every disagreement explained (tools/ground_truth.py KNOWN, KNOWN_BY_VERSION) and
listed in that version's section of docs/ground-truth.md (``python -m tools.ground_truth --write-docs``). A runtime
version without a section fails, saying so (tools/ground_truth.py DOCUMENTED): none returns early.
"""

from __future__ import annotations

import importlib.util

import pytest

from tools import ground_truth as gt

DOC = gt.DOC.read_text(encoding="utf-8")
SECTIONS = gt.sections(DOC)[1]  # (target, runtime version) -> its generated section


@pytest.fixture(scope="module")
def corpus():
    return gt.corpus()


def test_the_corpus_is_onnx_node_tests_and_every_skip_has_a_reason(corpus):
    from onnx.backend.test.case.node import collect_testcases

    total = len(collect_testcases())
    assert len(corpus.cases) + len(corpus.skipped) == total
    assert len(corpus.cases) >= 0.85 * total  # onnx 1.23.2: 1,698 of 1,884
    allowed = ("input (not a tensor)", "cannot feed", "input arrays for")
    assert all(any(a in why for a in allowed) for why in corpus.skipped.values()), set(corpus.skipped.values())


def _hold(result: gt.Result, corpus_size: int):
    wrong = result.wrong_runs + result.wrong_refusals
    assert result.agreement >= gt.MIN_AGREEMENT, gt.matrix(result, corpus_size)
    assert len(result.wrong_runs) <= gt.MAX_WRONG_RUNS * corpus_size, gt.matrix(result, corpus_size)
    unexplained = sorted(o.case for o in wrong if gt.reason(result.target, o.case, result.release) is None)
    assert not unexplained, (f"{result.target} ({result.runtime}): disagreements without a reason in "
                             f"tools/ground_truth.py KNOWN or KNOWN_BY_VERSION: {unexplained}")
    section = SECTIONS.get((result.target, result.release))
    if result.release not in gt.DOCUMENTED[result.target] or section is None:
        pytest.fail(f"{result.target}: {result.runtime} is not documented (tools/ground_truth.py DOCUMENTED "
                    f"{gt.DOCUMENTED[result.target]}; docs/ground-truth.md sections {sorted(SECTIONS)}): measure it with "
                    "python -m tools.ground_truth --write-docs, explain each new disagreement in KNOWN_BY_VERSION, and "
                    "add the version to DOCUMENTED" + (" (and record its kernel registry: python -m tools.make_ort_tables "
                                                       "--registry ort-cpu)" if result.target == "ort-cpu" else ""))
    undocumented = sorted(o.case for o in wrong if f"| {o.case} |" not in section)
    assert not undocumented, (f"docs/ground-truth.md's {result.target} {result.release} section does not list "
                              f"{undocumented}: python -m tools.ground_truth --write-docs")


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
def test_ort_cpu_agrees_with_onnxruntime(corpus, monkeypatch):
    import onnxruntime

    from converter.targets import ort_kernels
    from converter.targets.profiles import ORT_TABLES_VERSION

    if onnxruntime.__version__ == ORT_TABLES_VERSION:  # the committed tables, as on a machine without onnxruntime
        monkeypatch.setenv("SPEC2ONNX_KERNEL_TABLES", "committed")
    ort_kernels.kernel_table.cache_clear()
    try:
        _hold(gt.measure("ort-cpu", corpus.cases), len(corpus.cases))
    finally:
        monkeypatch.delenv("SPEC2ONNX_KERNEL_TABLES", raising=False)
        ort_kernels.kernel_table.cache_clear()


@pytest.mark.skipif(importlib.util.find_spec("openvino") is None, reason="OpenVINO is not installed")
def test_openvino_agrees_with_openvino(corpus):
    _hold(gt.measure("openvino", corpus.cases), len(corpus.cases))


def test_every_known_disagreement_is_a_current_one():
    # the docs' sections are regenerated from the measured disagreements: a reason kept for a case that no section
    # of its target (of its version) lists is stale (the disagreement went away) and would hide a regression
    stale = [(t, case) for t, known in gt.KNOWN.items() for case in known
             if not any(f"| {case} |" in text for (target, _), text in SECTIONS.items() if target == t)]
    stale += [(t, v, case) for t, versions in gt.KNOWN_BY_VERSION.items() for v, known in versions.items()
              for case in known if f"| {case} |" not in SECTIONS.get((t, v), "")]
    assert not stale, stale


def test_every_documented_version_has_its_section_and_no_section_is_left_over():
    documented = {(t, v) for t, versions in gt.DOCUMENTED.items() for v in versions}
    assert set(SECTIONS) == documented


def test_a_runtime_that_hangs_or_dies_on_a_case_is_a_failing_verdict_and_the_next_case_runs(monkeypatch):
    # OpenVINO once spent 35 minutes in one Loop: each case runs in a worker, killed after CASE_SECONDS
    monkeypatch.setattr(gt, "CASE_SECONDS", 2)
    runtime = gt.Isolated("test-sleeper", _Sleeper)
    try:
        cases = [gt.Case(name, _tiny_model(), []) for name in ("fine", "hangs", "dies", "fine-again")]
        verdicts = [runtime.run(case) for case in cases]
    finally:
        runtime.close()
    assert verdicts[0] is None and verdicts[3] is None
    assert verdicts[1] == "did not finish in 2 s (killed)"
    assert verdicts[2].startswith("the runtime's process died (exit status")


class _Sleeper:
    """A runtime that runs "fine*", hangs on "hangs" and kills its own process on "dies" (the spawned worker
    imports it from this module)."""
    release, version = "0", "test-sleeper 0"

    def run(self, case):
        import os
        import time

        if case.name == "hangs":
            time.sleep(3600)
        if case.name == "dies":
            os._exit(9)
        return None


def _tiny_model():
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_writing_the_installed_versions_section_keeps_the_other_versions_and_the_prose():
    doc = (f"prose before\n{gt.BEGIN}\nold corpus\n<!-- section: ort-cpu 1.31.1 -->\nkept as it was\n"
           f"<!-- section: ort-cpu 1.32.0 -->\nold 1.32.0\n{gt.END}\nprose after\n")
    result = gt.Result("ort-cpu", "onnxruntime 1.32.0", [gt.Outcome("test_x", None, "it fails")], 0.0, "1.32.0")
    written = gt.write_docs(doc, gt.Corpus([gt.Case("test_x", _tiny_model(), [])]), [result])
    corpus, sections = gt.sections(written)
    assert written.startswith(f"prose before\n{gt.BEGIN}\n") and written.endswith(f"{gt.END}\nprose after\n")
    assert corpus.startswith("Corpus: onnx ") and "old corpus" not in written
    assert sections[("ort-cpu", "1.31.1")] == "kept as it was"
    assert "| test_x | runs | it fails | NOT EXPLAINED |" in sections[("ort-cpu", "1.32.0")]
    assert gt.write_docs(written, gt.Corpus([gt.Case("test_x", _tiny_model(), [])]), [result]) == written  # stable


@pytest.mark.parametrize("target, release", [("ort-cpu", "9.9.9"), ("openvino", "2099.1.0")])
def test_a_runtime_version_not_documented_fails_naming_what_to_run(target, release):
    # CI installs the newest releases: one nobody has measured must fail loudly, not pass on thresholds alone
    result = gt.Result(target, f"runtime {release}", [gt.Outcome("test_x", None, None)], 0.0, release)
    with pytest.raises(pytest.fail.Exception, match="python -m tools.ground_truth --write-docs") as failed:
        _hold(result, 1)
    assert ("make_ort_tables --registry ort-cpu" in str(failed.value)) == (target == "ort-cpu")


# ---- ort-cuda: the static check against the recorded CUDA EP (tools/data/cuda-ep-node-cases-*.json; no GPU) ----

@pytest.fixture(scope="module")
def recorded():
    return gt.recorded_cases()


def test_the_cuda_recording_covers_the_installed_corpus(recorded):
    # every case the H100 measured (onnx 1.23.1, 1,777 cases) that the installed onnx still has is compared
    import json

    data = json.loads(gt.CUDA_CASES.read_text(encoding="utf-8"))
    assert data["meta"]["cases"] == len(data["cases"]) == 1777
    assert {"case", "cuda_only", "cuda_then_cpu", "error"} <= set(data["cases"][0])
    assert len(recorded) >= 0.95 * len(data["cases"])
    assert all(c.name in {r["case"] for r in data["cases"]} for c in recorded)


def test_ort_cuda_agrees_with_the_recorded_cuda_ep(recorded):
    _hold(gt.measure_recorded(recorded), len(recorded))
