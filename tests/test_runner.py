"""The conformance runner as CI drives it: parallel, isolated, selectable, with reports."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from cli import main

from .conftest import REPO, SPECS

PLUGIN = str(REPO / "tests" / "plugins" / "misbehaving_layer.py")
MISBEHAVING_SPEC = """
name: misbehaving
network:
  inputs: {x: {dtype: int32, shape: [2]}}
  layers: [{name: y, op: test.Misbehave, inputs: [x]}]
  outputs: [y]
cases:
  - {name: fine-1, inputs: {x: [1, 2]}, expected: {y: [1, 2]}}
  - {name: segfault, inputs: {x: [13, 0]}}
  - {name: fine-2, inputs: {x: [3, 4]}}
  - {name: abort, inputs: {x: [14, 0]}}
  - {name: raises, inputs: {x: [7, 0]}}
  - {name: hangs, inputs: {x: [42, 0]}}
  - {name: fine-3, inputs: {x: [5, 6]}}
"""


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_parallel_run_of_the_bundled_suite_writes_json_and_junit_that_agree(tmp_path):
    r_json, r_xml = tmp_path / "r.json", tmp_path / "r.xml"
    result = invoke("validate", "-j", 2, "-q", "--json", r_json, "--junit", r_xml)
    assert result.exit_code == 0, result.output[-3000:]
    report = json.loads(r_json.read_text())
    assert report["schema"] == "spec2onnx-report/4"
    assert report["summary"]["total"] == len(report["cases"]) and report["summary"]["PASS"] == len(report["cases"])
    case = report["cases"][0]
    assert {"spec", "case", "runtime", "provider", "opset", "outcome", "seconds", "comparisons"} <= set(case)
    suite = ET.parse(r_xml).getroot().find("testsuite")
    assert int(suite.get("tests")) == len(suite.findall("testcase")) == len(report["cases"])
    assert suite.get("failures") == suite.get("errors") == "0"
    assert "layer kind" in result.output and "trt.Scale" in result.output


@pytest.mark.runtime
def test_crashing_hanging_and_raising_cases_are_errors_and_the_others_still_pass(tmp_path):
    spec = tmp_path / "misbehaving.yaml"
    spec.write_text(MISBEHAVING_SPEC)
    r_json = tmp_path / "r.json"
    result = invoke("validate", spec, "--plugin", PLUGIN, "-j", 2, "--timeout", 3, "--json", r_json)
    assert result.exit_code == 1, result.output
    outcomes = {c["case"]: (c["outcome"], " ".join(c["problems"])) for c in json.loads(r_json.read_text())["cases"]}
    assert {k: v[0] for k, v in outcomes.items()} == {
        "fine-1": "PASS", "fine-2": "PASS", "fine-3": "PASS",
        "segfault": "ERROR", "abort": "ERROR", "raises": "ERROR", "hangs": "ERROR"}
    assert "died of SIGSEGV" in outcomes["segfault"][1]
    assert "died of SIGABRT" in outcomes["abort"][1]
    assert "timed out after 3 s" in outcomes["hangs"][1]
    assert "RuntimeError while running the numpy reference" in outcomes["raises"][1]
    assert "the reference raised on purpose" in outcomes["raises"][1]


def test_k_selects_by_substring_and_glob_and_list_shows_without_running():
    result = invoke("validate", "--list", "-k", "seed-4d", "-k", "trt-elementwise-seed-*/doc-*")
    assert result.exit_code == 0
    assert result.stdout.split() == ["trt-elementwise-seed-broadcast/doc-example", "trt-scale-seed-4d/doc-example",
                                     "trt-scale-seed-4d/random"]


def test_list_of_nothing_fails_as_the_run_would_and_counts_in_words():
    """A -k gone stale: validate exits 1 (no case ran), and --list of the same selection did exit 0, so a CI pre-check
    could not see it. One case is "1 case in 1 spec", not "1 cases in 1 specs"."""
    spec = SPECS / "trt_scale" / "seed-scale-4d.yaml"
    stale = invoke("validate", "--list", spec, "-k", "no-such-case")
    assert stale.exit_code == 1 == invoke("validate", spec, "-j", 0, "-k", "no-such-case").exit_code
    assert stale.stdout == "" and "no case would run" in stale.stderr, stale.output
    one = invoke("validate", "--list", spec, "-k", "doc-example")
    assert one.exit_code == 0 and one.stderr.strip().splitlines()[-1] == "1 case in 1 spec", one.output
    assert invoke("validate", "--list", spec, "--shard", "2/2").exit_code == 0  # (an empty shard: validate passes it)


def test_shards_are_disjoint_deterministic_and_cover_the_suite():
    everything = invoke("validate", "--list", SPECS / "trt_elementwise").stdout.split()
    shards = [invoke("validate", "--list", "--shard", f"{i}/3", SPECS / "trt_elementwise").stdout.split() for i in (1, 2, 3)]
    assert sorted(sum(shards, [])) == sorted(everything)
    assert all(set(a).isdisjoint(b) for a in shards for b in shards if a is not b)
    assert shards[1] == invoke("validate", "--list", "--shard", "2/3", SPECS / "trt_elementwise").stdout.split()
    assert invoke("validate", "--list", "--shard", "4/3").exit_code == 2


def test_fail_fast_stops_at_the_first_failure(tmp_path, write_spec):
    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text().replace("[225, 289, 361]", "[225, 289, 360]")
    spec = write_spec(text.replace("name: trt-scale-seed-4d", "name: aaa-wrong"))
    result = invoke("validate", spec, SPECS / "trt_scale", "-j", 0, "-x")
    assert result.exit_code == 1
    assert "FAIL  aaa-wrong/doc-example" in result.output and "1 case: 0 passed, 1 failed" in result.output
    assert result.output.strip().splitlines()[-1].endswith("(stopped at the first failure: -x)"), result.output


def test_fail_fast_at_a_spec_that_did_not_load_gives_no_false_reason(tmp_path):
    """The first result was a spec that did not load: -x stopped there. The run said 'no case of the 1 spec loaded
    was run', as if it had run and found none."""
    (tmp_path / "a-bad.yaml").write_text("name: a\nnetwork: 3\ncases: []\n")
    shutil.copy(SPECS / "trt_scale/seed-scale-4d.yaml", tmp_path / "b.yaml")
    result = invoke("validate", tmp_path, "-j", 0, "-x")
    assert result.exit_code == 2, result.output
    assert "was run" not in result.output and "no case ran" not in result.output, result.output
    assert result.output.strip().splitlines()[-1].endswith("(stopped at the first failure: -x)"), result.output


def test_min_cases_fails_a_run_that_shrank():
    result = invoke("validate", "-k", "seed-4d", "--min-cases", 3, "-j", 0)
    assert result.exit_code == 1 and "only 2 cases ran, fewer than --min-cases 3" in result.output
    assert invoke("validate", "-k", "seed-4d", "--min-cases", 2, "-j", 0).exit_code == 0


def test_known_failures_are_xfail_and_stale_ones_xpass(tmp_path):
    wrong = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text().replace("[225, 289, 361]", "[225, 289, 360]")
    spec = tmp_path / "s.yaml"
    spec.write_text(wrong + "\nxfail:\n  - {case: doc-example, runtime: onnxruntime, reason: the expected value is wrong on purpose}\n")
    result = invoke("validate", spec, "-j", 0)
    assert result.exit_code == 0, result.output
    assert "XFAIL trt-scale-seed-4d/doc-example  (known failure: the expected value is wrong on purpose)" in result.output
    rules = tmp_path / "known.yaml"
    rules.write_text("- {spec: trt-scale-seed-4d, case: random, reason: believed broken}\n")
    result = invoke("validate", SPECS / "trt_scale/seed-scale-4d.yaml", "--xfail-file", rules, "-j", 0)
    assert result.exit_code == 1 and "XPASS trt-scale-seed-4d/random" in result.output
    assert "remove the xfail entry" in result.output


def test_cli_tolerance_overrides_the_spec(tmp_path, write_spec):
    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text().replace("[225, 289, 361]", "[225, 289, 361.01]")
    spec = write_spec(text)
    assert invoke("validate", spec, "-j", 0).exit_code == 1
    failing = invoke("validate", spec, "-j", 0).output
    # |err| is 361.01 - 361 in float32, 0.0100098: atol 0.0100098 - 1e-5 * 361.01 = 0.0063998, rtol (0.0100098 - 1e-6) /
    # 361.01 = 2.7724e-05, shown rounded up (2.77e-05 fails: it said so before, and the run failed with it)
    assert "would pass with atol >= 0.0064 or rtol >= 2.78e-05" in failing
    assert invoke("validate", spec, "-j", 0, "--rtol", "2.77e-05").exit_code == 1
    assert invoke("validate", spec, "-j", 0, "--rtol", "2.78e-05").exit_code == 0
    assert invoke("validate", spec, "-j", 0, "--atol", 0.02).exit_code == 0
    assert invoke("validate", spec, "-j", 0, "--ulp", 400).exit_code == 0  # 0.01 is about 328 float32 ulp at 361


def test_repro_dir_holds_model_inputs_outputs_and_command(tmp_path, write_spec):
    import numpy as np
    import onnx

    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text().replace("[225, 289, 361]", "[225, 289, 360]")
    spec = write_spec(text)
    repro = tmp_path / "repro"
    assert invoke("validate", spec, "-j", 0, "--repro-dir", repro).exit_code == 1
    folder = repro / "trt-scale-seed-4d" / "doc-example" / "onnxruntime-cpu-all"
    assert sorted(p for p in repro.rglob("*") if p.is_dir()) == [folder.parent.parent, folder.parent, folder]
    onnx.checker.check_model(onnx.load(folder / "model.onnx"))
    assert np.load(folder / "output.scale.npy")[0, 0, 2, 2] == 361
    assert np.load(folder / "expected.scale.npy")[0, 0, 2, 2] == 360
    assert np.load(folder / "input.input1.npy").shape == (1, 1, 3, 3)
    command = (folder / "command.txt").read_text().splitlines()[0]
    assert command.startswith("spec2onnx validate ") and "-k =trt-scale-seed-4d/doc-example" in command
    args = command.split()[1:]
    assert invoke(*args).exit_code == 1  # the command reproduces the failure


def test_onnx_reference_runtime_and_disagreement_listing():
    result = invoke("validate", SPECS / "trt_scale/seed-scale-4d.yaml", SPECS / "trt_elementwise/seed-broadcast-prod.yaml",
                    "--runtime", "onnxruntime", "--runtime", "onnx-reference", "-j", 0)
    assert result.exit_code == 0, result.output
    assert "PASS  trt-scale-seed-4d/doc-example [onnx-reference]" in result.output
    assert "PASS  trt-scale-seed-4d/doc-example [ort[cpu]]" in result.output


@pytest.mark.skipif(sys.platform != "linux", reason="SIGINT delivery to a child is POSIX-specific")
def test_ctrl_c_stops_cleanly_and_writes_the_report(tmp_path):
    spec = tmp_path / "misbehaving.yaml"
    spec.write_text(MISBEHAVING_SPEC)
    r_json = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, str(REPO / "cli.py"), "validate", str(spec), "--plugin", PLUGIN, "-j", "1",
                             "-k", "fine-1", "-k", "hangs", "--timeout", "600", "--json", str(r_json)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_a_foreground_job)
    first = proc.stdout.readline()  # blocks until fine-1 is reported; the hanging case runs next
    if not first.startswith("PASS  misbehaving/fine-1"):
        proc.kill()  # never leave it hanging for --timeout's 600 s
        pytest.fail(f"first line {first!r}; stderr: {proc.communicate(timeout=30)[1]}")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = _communicate_or_explain(proc)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    report = json.loads(r_json.read_text())
    assert report["interrupted"] is True
    assert [c["case"] for c in report["cases"]] == ["fine-1"]



def _as_a_foreground_job() -> None:
    """In the child, before exec: SIGINT at its default, as in a command a user runs at a terminal and presses Ctrl-C
    in. A job started in the background of a non-interactive shell (``pytest ... &``, as a CI script may) inherits
    SIGINT ignored, and Python then installs no KeyboardInterrupt handler: validate, rightly, hears no Ctrl-C, and
    these tests hung until their 30 s ran out."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _communicate_or_explain(proc: subprocess.Popen, seconds: float = 30) -> tuple[str, str]:
    """``proc.communicate``; when it does not end in time, a failure saying where its threads were and what it wrote."""
    try:
        return proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        status = open(f"/proc/{proc.pid}/status").read()
        threads = {t: open(f"/proc/{proc.pid}/task/{t}/wchan").read() for t in os.listdir(f"/proc/{proc.pid}/task")}
        proc.kill()
        out, err = proc.communicate(timeout=30)
        pytest.fail(f"still running {seconds:g} s after SIGINT; threads (wchan): {threads}\n{status}\n"
                    f"stdout:\n{out}\nstderr:\n{err}")


INTERRUPTED_FROM_ANOTHER_THREAD = """
import signal, sys, threading, time
from cli import main

class Stdout:  # on the first result, SIGINT to a thread other than the main one
    def __init__(self, stream):
        self.stream = stream
    def write(self, text):
        if "PASS  misbehaving/fine-1" in text:
            threading.Thread(target=lambda: (time.sleep(0.5), signal.pthread_kill(threading.get_ident(), signal.SIGINT)),
                             daemon=True).start()
        return self.stream.write(text)
    def __getattr__(self, name):
        return getattr(self.stream, name)

sys.stdout = Stdout(sys.stdout)
main(sys.argv[1:])
"""


@pytest.mark.skipif(sys.platform != "linux", reason="pthread_kill to another thread and /proc are POSIX/Linux-specific")
def test_ctrl_c_delivered_to_another_thread_still_stops_the_run(tmp_path):
    """A signal may reach a thread other than the main one (pthread_kill here; the kernel may hand a process-directed
    signal to any thread not blocking it, onnxruntime's native threads in validate's parent too). There Python's C
    handler only sets a flag, and the main thread slept on in poll(2) until --timeout: the pool's wait now wakes on
    it. (The full-suite failures of the test above that led here were SIGINT inherited ignored: see
    _as_a_foreground_job.)"""
    spec = tmp_path / "misbehaving.yaml"
    spec.write_text(MISBEHAVING_SPEC)
    r_json = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED_FROM_ANOTHER_THREAD, "validate", str(spec), "--plugin",
                             PLUGIN, "-j", "1", "-k", "fine-1", "-k", "hangs", "--timeout", "600", "--json", str(r_json)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_a_foreground_job)
    out, err = _communicate_or_explain(proc)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    assert "(interrupted)" in out.strip().splitlines()[-1]
    report = json.loads(r_json.read_text())
    assert report["interrupted"] is True
    assert [c["case"] for c in report["cases"]] == ["fine-1"]



@pytest.mark.parametrize("runtime", ["onnx-reference", "openvino"])
def test_bundled_suite_on_another_runtime_passes_with_its_declared_known_failures(runtime):
    if runtime == "openvino":
        pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    result = invoke("validate", "-q", "--runtime", runtime, "-j", 2)
    assert result.exit_code == 0, result.output[-3000:]
    summary = result.output.strip().splitlines()[-1]
    assert " 0 failed, 0 errors" in summary and "xfail" in summary  # each known failure says why in its spec


@pytest.mark.runtime
@pytest.mark.parametrize("opset", ["13", "max"])
def test_bundled_suite_at_the_lowest_and_the_newest_opset(opset):
    from .helpers import newest_opset_with_every_kernel

    opset = newest_opset_with_every_kernel() if opset == "max" else int(opset)  # (onnxruntime 1.32: 27, not 28)
    result = invoke("validate", "-q", "-j", 2, "--opset", opset)
    assert result.exit_code == 0, result.output[-3000:]
    assert " 0 failed, 0 errors" in result.output.strip().splitlines()[-1]


def test_every_case_and_configuration_is_reported_exactly_once_despite_crashes(tmp_path):
    spec = tmp_path / "misbehaving.yaml"
    spec.write_text(MISBEHAVING_SPEC)
    r_json = tmp_path / "r.json"
    invoke("validate", spec, "--plugin", PLUGIN, "-j", 2, "--timeout", 3, "--json", r_json,
           "--ort-opt-level", "all", "--ort-opt-level", "disabled")
    cases = json.loads(r_json.read_text())["cases"]
    pairs = [(c["case"], c["opt_level"]) for c in cases]
    assert len(pairs) == len(set(pairs)) == 7 * 2


def test_jobs_sent_ahead_of_a_crash_run_once_on_a_new_worker(tmp_path):
    """More specs than workers: each worker gets its next spec before it finishes the current one
    (converter/pipeline/pool.py, _send_ahead). When a worker dies, the specs waiting in its pipe go back to the
    queue, unstarted: every case of every spec is reported exactly once, with its real outcome."""
    names = [f"spec{i}" for i in range(5)]
    for name in names:
        (tmp_path / f"{name}.yaml").write_text(MISBEHAVING_SPEC.replace("name: misbehaving", f"name: {name}"))
    r_json = tmp_path / "r.json"
    invoke("validate", tmp_path, "--plugin", PLUGIN, "-j", 1, "-k", "fine", "-k", "segfault", "-k", "abort",
           "--json", r_json)
    cases = json.loads(r_json.read_text())["cases"]
    got = sorted((c["spec"], c["case"], c["outcome"]) for c in cases)
    want = sorted((n, c, "ERROR" if c in ("segfault", "abort") else "PASS")
                  for n in names for c in ("fine-1", "segfault", "fine-2", "abort", "fine-3"))
    assert got == want


def test_k_with_equals_selects_exactly_one_id():
    result = invoke("validate", "--list", "-k", "=trt-scale-seed-4d/random")
    assert result.stdout.split() == ["trt-scale-seed-4d/random"]


def test_report_folders_are_checked_before_the_run(tmp_path):
    result = invoke("validate", SPECS / "trt_scale/seed-scale-4d.yaml", "--json", tmp_path / "missing" / "r.json")
    assert result.exit_code == 2 and "--json" in result.output and "does not exist" in result.output
    assert "PASS" not in result.output


def test_nothing_selected_is_a_failed_run_that_says_so():
    result = invoke("validate", "-k", "no-such-case-anywhere", "-j", 0)
    assert result.exit_code == 1 and "no case ran" in result.output


def test_json_report_is_strict_json_even_with_nan_and_infinity(tmp_path, write_spec):
    spec = write_spec("""
name: nan-report
network:
  inputs: {x: {dtype: float32, shape: [1, 1, 1, 2]}}
  layers: [{name: y, op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [2]}]
  outputs: [y]
cases: [{name: c, inputs: {x: [[[[1, .nan]]]]}, expected: {y: [[[[.inf, 3]]]]}}]
""")
    r_json = tmp_path / "r.json"
    assert invoke("validate", spec, "-j", 0, "--json", r_json).exit_code == 1

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    report = json.loads(r_json.read_text(), parse_constant=refuse)
    failed = [c for c in report["cases"][0]["comparisons"] if not c.get("passed")]  # (/4: passing ones are listed too)
    assert failed[0]["first"][0] == {"index": [0, 0, 0, 0], "got": 2.0, "want": None}


INT_SPEC = """
name: int-sum
network:
  inputs: {x: {dtype: int32, shape: [2]}, f: {dtype: float32, shape: [2]}}
  layers:
    - {name: y, op: trt.ElementWise, operation: SUM, inputs: [x, x]}
    - {name: g, op: trt.ElementWise, operation: SUM, inputs: [f, f]}
  outputs: [y, g]
cases:
  - {name: off-by-one, inputs: {x: [1, 2], f: [1, 2]}, expected: {y: [2, 5], g: [2, 4.5]}}
"""


def test_cli_atol_and_rtol_loosen_float_outputs_only(write_spec):
    spec = write_spec(INT_SPEC)  # y = x + x = [2, 4]: 1 off in y (int32); 0.5 off in g (float32)
    result = invoke("validate", spec, "-j", 0, "--atol", 10, "--rtol", 1)
    assert result.exit_code == 1, result.output
    assert "output 'y'" in result.output and "output 'g'" not in result.output
    allowed = write_spec(INT_SPEC + "tolerance: {outputs: {y: {atol: 1}}}\n", "allowed.yaml")
    assert invoke("validate", allowed, "-j", 0, "--atol", 10).exit_code == 0  # a spec may allow it for an integer output


def test_xfail_entries_naming_nothing_real_are_errors(tmp_path):
    seed = SPECS / "trt_scale/seed-scale-4d.yaml"
    for entry, message in [
        ("{spec: trt-scale-seed-4d, runtime: onnxrt, reason: r}", "[0].runtime: unknown runtime 'onnxrt'; one of onnxruntime, onnx-reference, openvino"),
        ("{spec: trt-scale-seed-4d, provider: cdua, reason: r}", "[0].provider: unknown onnxruntime provider 'cdua'"),
        ("{spec: trt-scale-seed-4d, opt_level: full, reason: r}", "[0].opt_level: unknown optimization level 'full'"),
        ("{spec: trt-scale-seed-4d, machine: avx2, reason: r}", "[0].machine: unknown machine fact 'avx2'; one of openvino-bfloat16-rounding"),
        ("{spec: trt-scale-seed-4d, target: ort-gpu, reason: r}", "[0].target: 'ort-gpu' names no target; one of "),
    ]:
        rules = tmp_path / "known.yaml"
        rules.write_text(f"- {entry}\n")
        result = invoke("validate", seed, "--xfail-file", rules, "-j", 0)
        assert result.exit_code == 2 and f"{rules}: {message}" in result.output, result.output
    rules.write_text("- {spec: trt-scale-seed-4d, provider: CUDAExecutionProvider, reason: r}\n- {spec: '*', provider: cuda, reason: r}\n")
    assert invoke("validate", seed, "--xfail-file", rules, "-j", 0).exit_code == 0  # known names, not available here


def test_xfail_file_entries_matching_no_case_of_a_whole_run_are_warned(tmp_path):
    seed = SPECS / "trt_scale/seed-scale-4d.yaml"
    rules = tmp_path / "known.yaml"
    rules.write_text("- {spec: trt-scale-seed-4d, case: doc-exampel, runtime: openvino, reason: r}\n"
                     "- {spec: trt-scale-seed-4d, case: random, runtime: openvino, reason: r}\n"
                     "- {spec: gone-spec, reason: r}\n")
    result = invoke("validate", seed, "--xfail-file", rules, "-j", 0)
    assert result.exit_code == 0, result.output  # a warning: the run's outcome is unchanged
    warnings = [line for line in result.output.splitlines() if "warning" in line]
    assert warnings == [
        f"spec2onnx: warning: --xfail-file {rules}: entry [0] (spec 'trt-scale-seed-4d', case 'doc-exampel') matches no case of this run; fix or remove it",
        f"spec2onnx: warning: --xfail-file {rules}: entry [2] (spec 'gone-spec', case '*') matches no case of this run; fix or remove it",
    ]
    filtered = invoke("validate", seed, "--xfail-file", rules, "-j", 0, "-k", "random")
    assert filtered.exit_code == 0 and "warning" not in filtered.output  # a partial run cannot tell


def test_no_case_ran_says_why(tmp_path, write_spec):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "ci.yml").write_text("jobs: {}\n")
    result = invoke("validate", empty, "-j", 0)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == ("spec2onnx: error: no case ran: no spec file found (a spec is a .yaml, "
                                                       ".yml or .json file whose top level has 'network' and 'cases', or a "
                                                       "network with 'profiles'; 1 other file skipped (-v lists them))")
    bad = write_spec("name: x\nnetwork: {}\ncases: []\n")
    result = invoke("validate", bad, "-j", 0)
    assert result.exit_code == 2
    assert "no case ran" not in result.output and "no spec found" not in result.output  # its ERROR line says why
    assert result.output.strip().splitlines()[-1].startswith("1 case: 0 passed, 0 failed, 1 error in ")
    result = invoke("validate", SPECS / "trt_scale/seed-scale-4d.yaml", "-k", "nothing", "-j", 0)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == "spec2onnx: error: no case ran: no case of the 1 spec loaded matched -k nothing"


RESIZE_SPEC = """
name: threads
network:
  inputs: {{x: {{dtype: float32, shape: [1, 1, {n}, {n}]}}}}
  layers: [{{name: y, op: trt.Resize, inputs: [x], resize_mode: NEAREST, shape: [1, 1, {m}, {m}]}}]
  outputs: [y]
cases: [{{name: c, inputs: {{x: {{random: uniform, seed: 1}}}}}}]
"""


def test_only_big_outputs_get_more_than_one_intra_op_thread(write_spec, monkeypatch):
    """A thread pool costs more to start than a small model runs; 2^20 output elements and up get the
    cores the workers leave (run_validation: usable cores // jobs), and still pass (bit-exact NEAREST)."""
    import importlib

    from converter import api
    from converter.api import specs  # (run_validation's own module: where it looks usable_cores up)
    from converter.pipeline.spec import load_spec

    validate = importlib.import_module("converter.pipeline.stages")  # (the package's ``validate`` is the public function)

    small = load_spec(write_spec(RESIZE_SPEC.format(n=4, m=8), "small.yaml"))
    big = load_spec(write_spec(RESIZE_SPEC.format(n=512, m=1024), "big.yaml"))
    options = validate.Options(threads=2)
    assert (validate._threads(small, options), validate._threads(big, options)) == (1, 2)
    seen = []
    real = validate.session
    monkeypatch.setattr(validate, "session", lambda config, model, threads=1, optimized=None:
                        seen.append(threads) or real(config, model, threads, optimized))
    monkeypatch.setattr(specs, "usable_cores", lambda: 4)
    for jobs in (0, 1):  # in this process: four cores, one worker
        assert [r.outcome for r in api.run_validation([big.path], api.make_options(), jobs=jobs)] == ["PASS"]
    assert seen == [4]  # -j 1 runs in a worker process, whose sessions this process does not see
    seen.clear()
    list(api.run_validation([small.path], api.make_options(), jobs=0))
    assert seen == [1]


def test_intra_op_threads_count_the_workers_that_really_start():
    """usable cores // workers, where the pool starts min(-j, specs) workers (one in-process): one big
    spec at the default -j (a worker per core) runs alone and gets every core."""
    from converter.api import intra_op_threads

    assert intra_op_threads(4, 2, 1) == 4  # -j 2, one spec: one worker
    assert intra_op_threads(4, 2, 5) == 2
    assert intra_op_threads(4, 0, 5) == 4  # in-process
    assert intra_op_threads(2, 8, 3) == 1  # more workers than cores
    assert intra_op_threads(16, 3, 0) == 16


# --- a known failure of one kind of machine (xfail ``machine``): OpenVINO's bfloat16 rounding without avx512_core ---

def test_a_machine_xfail_applies_only_where_its_fact_holds():
    from converter.xfail import parse_rules

    (rule,) = parse_rules([{"runtime": "openvino", "machine": "openvino-bfloat16-rounding", "reason": "r"}], spec_name="s")
    asked = []

    def machine_has(fact):
        asked.append(fact)
        return holds

    for holds in (True, False):
        assert rule.matches("s", "c", "openvino", "", "", machine_has) is holds
    assert asked == ["openvino-bfloat16-rounding"] * 2
    assert not rule.matches("s", "c", "onnxruntime", "CPUExecutionProvider", "all", machine_has)
    assert asked == ["openvino-bfloat16-rounding"] * 2  # not asked where the runtime already differs
    assert not rule.matches("s", "c", "openvino", "", "")  # nothing to ask: the fact is not known to hold


def _cpu_plugin_rule(values):
    """ov::intel_cpu::bfloat16_t(float), as its source writes it: (bits + ((bits & 0x10000) >> 1)) >> 16."""
    import numpy as np

    bits = values.view(np.uint32).astype(np.uint64)
    return ((bits + ((bits & 0x10000) >> 1)) >> 16).astype(np.uint16)


def test_openvino_rounds_float32_to_bfloat16_to_nearest_even_or_by_its_cpu_plugins_rule_and_the_probe_says_which():
    pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    import ml_dtypes
    import numpy as np
    from onnx import TensorProto, helper

    from converter.runners import machine_has
    from converter.runners.openvino import rounds_bfloat16_to_nearest_even, runner

    rng = np.random.default_rng(25)
    # random finite float32 bit patterns of moderate magnitude (no overflow to inf near the top), and the probe's own
    values = rng.integers(0x0080_0000, 0x7E00_0000, 4096, dtype=np.uint32).view(np.float32)
    values = np.concatenate([values, -values]).astype(np.float32)
    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.BFLOAT16)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [values.size])],
                              [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [values.size])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    got = runner(model.SerializeToString())({"x": values})["y"].view(np.uint16)
    nearest_even = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    if rounds_bfloat16_to_nearest_even():
        np.testing.assert_array_equal(got, nearest_even)
    else:  # this machine (an AVX2-only AMD EPYC when written): the CPU plugin's scalar rule, bit for bit
        np.testing.assert_array_equal(got, _cpu_plugin_rule(values))
        assert np.count_nonzero(got != nearest_even) > 1000  # about a quarter of random values differ
    assert machine_has("openvino-bfloat16-rounding") is not rounds_bfloat16_to_nearest_even()


def test_the_bundled_bfloat16_tie_spec_passes_or_is_this_machines_known_failure():
    pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    from converter.runners.openvino import rounds_bfloat16_to_nearest_even

    result = invoke("validate", SPECS / "trt_scale/low-precision-rounding.yaml", "--runtime", "openvino", "-j", 0, "-v")
    assert result.exit_code == 0, result.output
    expected = "1 passed" if rounds_bfloat16_to_nearest_even() else "0 passed, 0 failed, 0 errors, 1 xfail"
    assert expected in result.output, result.output


# --- a known failure of one lowering (xfail ``target``) ---

BLOCKED = SPECS / "dml_dequantize/gen-dml-dq-dynamic-int8-f32-r3-zp-native-blocked-opset21.yaml"


def test_a_target_xfail_applies_only_to_the_model_lowered_for_that_target():
    from converter.xfail import parse_rules

    (r,) = parse_rules([{"runtime": "openvino", "target": "ort-*", "reason": "r"}], spec_name="s",
                        targets=("ort-cpu", "openvino"))
    assert [r.matches("s", "c", "openvino", "", "", None, t) for t in ("ort-cpu", "ort-dml", "openvino", "")] == \
        [True, True, False, False]
    with pytest.raises(Exception, match=r"\[0\]\.target: 'trt\*' names no target; one of ort-cpu, openvino"):
        parse_rules([{"target": "trt*", "reason": "r"}], spec_name="s", targets=("ort-cpu", "openvino"))


@pytest.mark.parametrize("target, outcome", [("ort-cpu", "XFAIL"), ("openvino", "PASS"), ("portable", "PASS")])
def test_openvino_fails_the_native_blocked_dequantize_only_where_the_target_keeps_it(target, outcome):
    """OpenVINO refuses a blocked DequantizeLinear of a dynamic input ('DequantizeLinear cannot operate with dynamic
    shapes of input X'); ort-cpu's model keeps the node native, openvino's and portable's decompose it. The spec's
    known failure named no target, so `validate --target openvino --runtime openvino` reported XPASS and failed."""
    pytest.importorskip("openvino", reason='OpenVINO is an optional extra: pip install ".[openvino]"')
    result = invoke("validate", BLOCKED, "--target", target, "--runtime", "openvino", "-j", 0)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith(("PASS", "XFAIL", "XPASS", "FAIL"))]
    assert lines and all(line.split()[0] == outcome for line in lines), result.output

