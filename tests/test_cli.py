"""The command line, as a user drives it: exit codes, files written, messages."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from click.testing import CliRunner

from cli import main

from .conftest import REPO, SPECS
pytestmark = pytest.mark.runtime  # .ci/run runs these with onnxruntime-gpu too

SEED_SPECS = {
    # spec file -> (input feeds, output name, expected values), copied from the seed documents
    "trt_scale/seed-scale-4d.yaml": (
        {"input1": np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)}, "scale",
        np.array([[[[9, 25, 49], [81, 121, 169], [225, 289, 361]]]], np.float32)),
    "trt_scale/seed-scale-5d.yaml": (
        {"input1": np.tile(np.arange(1, 10, dtype=np.float32).reshape(1, 1, 1, 3, 3), (1, 2, 1, 1, 1))}, "scale",
        np.array([[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[9, 25, 49], [81, 121, 169], [225, 289, 361]]]]], np.float32)),
    "trt_elementwise/seed-broadcast-prod.yaml": (
        {"input1": np.array([[-3, -2, -1], [0, 1, 2]], np.float32), "input2": np.array([[4, 5, 6]], np.float32)}, "prod",
        np.array([[-12, -10, -6], [0, 5, 12]], np.float32)),
}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("spec", sorted(SEED_SPECS))
def test_convert_seed_example_reproduces_documented_values(spec, tmp_path):
    out = tmp_path / "m.onnx"
    result = invoke("convert", SPECS / spec, "-o", out)
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    feeds, name, expected = SEED_SPECS[spec]
    assert [i.name for i in model.graph.input] == list(feeds) and [o.name for o in model.graph.output] == [name]
    got = ort.InferenceSession(out.read_bytes(), providers=["CPUExecutionProvider"]).run([name], feeds)[0]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("opset", [13, 17, 21])
def test_convert_honours_opset_and_matching_ir_version(opset, tmp_path):
    out = tmp_path / "m.onnx"
    assert invoke("convert", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", out, "--opset", opset).exit_code == 0
    model = onnx.load(out)
    assert model.opset_import[0].version == opset
    assert model.ir_version == onnx.helper.find_min_ir_version_for([onnx.helper.make_opsetid("", opset)])


def test_unsupported_opset_is_a_usage_error(tmp_path):
    result = invoke("convert", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", tmp_path / "m.onnx", "--opset", 99)
    assert result.exit_code == 2
    assert "--opset 99: supported opsets are 13 to" in result.output
    assert not (tmp_path / "m.onnx").exists()


def test_unavailable_provider_names_what_is_installed():
    from converter.installed import ort_build

    listed = "CUDAExecutionProvider" in ort.get_available_providers()
    if listed and ort_build.unusable("CUDAExecutionProvider") is None:
        pytest.skip("this machine has CUDA; the refusal path needs a machine without it")
    result = invoke("validate", SPECS / "trt_scale/seed-scale-4d.yaml", "--provider", "cuda")
    assert result.exit_code == 2 and result.output.count("spec2onnx: error:") == 1, result.output
    if listed:  # onnxruntime-gpu without a GPU or its CUDA libraries: listed, but onnxruntime cannot create it
        assert f"onnxruntime {ort.__version__} lists CUDAExecutionProvider but cannot create it on this machine" in result.output
    else:
        assert "CUDAExecutionProvider is not available" in result.output and "available: cpu (CPUExecutionProvider)" in result.output


def test_a_listed_provider_onnxruntime_cannot_create_here_is_refused_before_any_work(monkeypatch, tmp_path):
    # onnxruntime-gpu on a machine without a GPU lists CUDAExecutionProvider; a session asked for it logs "Failed to
    # create CUDAExecutionProvider" and runs every node on the CPU. The build's child process found that out once.
    from converter.installed import ort_build

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    reason = "Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.13: cannot open shared object file"
    build = ort_build.build()
    monkeypatch.setitem(ort_build._BUILDS, ort_build.registry_wanted(),
                        ort_build.Build(build.version, build.providers, build.opset, build.ir, build.tables,
                                        {"CUDAExecutionProvider": reason}))
    spec = SPECS / "trt_scale/seed-scale-4d.yaml"
    for args in (("validate", spec, "-j", 0), ("run", spec, "-o", tmp_path)):
        result = invoke(*args, "--provider", "cuda")
        assert result.exit_code == 2, result.output
        assert result.output == (f"spec2onnx: error: --provider cuda: onnxruntime {ort.__version__} lists CUDAExecutionProvider "
                                 f"but cannot create it on this machine, so every case would run on the CPU: {reason}\n")
    assert list(tmp_path.iterdir()) == []


def test_unknown_provider_is_refused():
    result = invoke("validate", SPECS / "trt_scale/seed-scale-4d.yaml", "--provider", "quantum")
    assert result.exit_code == 2 and "not an execution provider onnxruntime knows" in result.output


def test_validate_wrong_expected_value_exits_1_and_names_case_output_index_values(write_spec):
    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text().replace("[225, 289, 361]", "[225, 289, 360]")
    result = invoke("validate", write_spec(text))
    assert result.exit_code == 1
    assert "FAIL  trt-scale-seed-4d/doc-example" in result.output
    assert "output 'scale': onnxruntime vs expected" in result.output
    assert "worst at [0, 0, 2, 2]: got 361.0, want 360.0" in result.output
    assert "PASS  trt-scale-seed-4d/random" in result.output  # the other case still ran
    assert "2 cases: 1 passed, 1 failed, 0 errors" in result.output


def test_validate_folder_reports_bad_spec_and_still_runs_the_others(tmp_path):
    (tmp_path / "good.yaml").write_text((SPECS / "trt_scale/seed-scale-4d.yaml").read_text())
    (tmp_path / "bad.yaml").write_text("name: [unclosed\nnetwork: {}\ncases: []\n")  # a spec by its keys, unparsable
    result = invoke("validate", tmp_path)
    assert result.exit_code == 2
    assert "ERROR" in result.output and "bad.yaml: invalid YAML" in result.output
    assert "PASS  trt-scale-seed-4d/doc-example" in result.output


def test_validate_without_paths_runs_the_bundled_suite():
    result = invoke("validate", "-q")
    assert result.exit_code == 0, result.output[-2000:]
    total = int(result.output.strip().splitlines()[-1].split()[0])
    assert total >= 100


def test_run_writes_outputs_as_npy(tmp_path):
    result = invoke("run", SPECS / "trt_elementwise/seed-broadcast-prod.yaml", "--case", "doc-example", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "prod.npy"), [[-12, -10, -6], [0, 5, 12]])


def test_run_with_input_files(tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, np.ones((2, 3), np.float32) * 2)
    np.save(b, np.array([[1, 2, 3]], np.float32))
    spec = SPECS / "trt_elementwise/seed-broadcast-prod.yaml"
    result = invoke("run", spec, "--input", f"input1={a}", "--input", f"input2={b}", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "prod.npy"), [[2, 4, 6], [2, 4, 6]])
    bad = invoke("run", spec, "--input", f"input1={b}", "-o", tmp_path)
    assert bad.exit_code == 2 and "is float32[1, 3], input 'input1' is float32[2, 3]" in bad.output


def test_run_unknown_case_lists_the_cases(tmp_path):
    result = invoke("run", SPECS / "trt_scale/seed-scale-4d.yaml", "--case", "nope", "-o", tmp_path)
    assert result.exit_code == 2 and "it has doc-example, random" in result.output


def test_layers_lists_kinds_attributes_and_values():
    result = invoke("layers")
    assert result.exit_code == 0
    assert "trt.Scale" in result.output and "mode (required): UNIFORM | CHANNEL | ELEMENTWISE" in result.output
    assert "trt.ElementWise" in result.output and "FLOOR_DIV" in result.output


def test_help_documents_exit_codes():
    result = invoke("validate", "--help")
    assert "Exit status: 0 everything passed (known failures allowed, and REFUSED cases" in result.output
    assert "was REFUSED with\n  --refused fail, or no case ran (every one REFUSED)" in result.output
    assert "2 bad input or usage" in result.output and "3 an internal error" in result.output


def test_real_process_exit_status_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nnetwork: 3\ncases: []\n")
    proc = subprocess.run([sys.executable, str(REPO / "cli.py"), "convert", str(bad), "-o", str(tmp_path / "m.onnx")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"spec2onnx: error: {bad}: network: network must be a mapping, got int 3"
    assert "Traceback" not in proc.stderr and not (tmp_path / "m.onnx").exists()


def test_a_non_cpu_provider_never_falls_back_to_the_cpu_silently():
    """onnxruntime's CPU wheel also lists AzureExecutionProvider, which runs no ONNX node itself: every node
    lands on the CPU, and the profile of the first run says so (converter/targets/placement.py)."""
    if "AzureExecutionProvider" not in ort.get_available_providers():
        pytest.skip("this onnxruntime has no second execution provider to try")
    from converter.lowering import build_model
    from converter.runners.onnxruntime import OrtRunner
    from converter.pipeline.spec import load_spec

    spec = load_spec(SPECS / "trt_scale/seed-scale-4d.yaml")
    model = build_model(spec.network, name=spec.name, opset=17, provider="AzureExecutionProvider")
    runner = OrtRunner(model.SerializeToString(), "AzureExecutionProvider")
    feeds = {"input1": np.ones((1, 1, 3, 3), np.float32)}
    with pytest.raises(RuntimeError, match=f"{len(model.graph.node)} compute nodes ran on the CPU, not on AzureExecutionProvider"):
        runner.run(feeds)
    with pytest.raises(RuntimeError, match="compute nodes ran on the CPU"):  # and every later run of that session
        runner.run(feeds)
    placements, allowed = runner.placement
    assert {p.node for p in placements} == {n.name for n in model.graph.node} and allowed == []


def test_a_provider_that_runs_no_operator_is_refused_before_any_work(tmp_path):
    if "AzureExecutionProvider" not in ort.get_available_providers():
        pytest.skip("this onnxruntime does not list AzureExecutionProvider")
    spec = SPECS / "trt_scale/seed-scale-4d.yaml"
    for args in (("validate", spec, "-j", 0), ("convert", spec, "-o", tmp_path / "m.onnx"), ("run", spec, "-o", tmp_path)):
        result = invoke(*args, "--provider", "AzureExecutionProvider")
        assert result.exit_code == 2, result.output
        assert result.output.startswith("spec2onnx: error: --provider AzureExecutionProvider: "), result.output
        assert result.output.count("\n") == 1
        if args[0] != "convert":  # convert lowers for a target and names the providers that imply one
            assert "AzureExecutionProvider sends requests to Azure endpoints" in result.output
    assert list(tmp_path.iterdir()) == []


def test_run_writes_bfloat16_outputs_as_exact_float32(tmp_path):
    import ml_dtypes

    spec = SPECS / "trt_scale/low-precision-rounding.yaml"
    result = invoke("run", spec, "--case", "ties", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    out = np.load(tmp_path / "b_out.npy", allow_pickle=False)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.array([[[[1, 2, 3.015625, 4]]]], ml_dtypes.bfloat16).astype(np.float32))


SCALE_4D = SPECS / "trt_scale/seed-scale-4d.yaml"


@pytest.mark.parametrize("option, value, allowed", [
    ("--timeout", "nan", "must be a number of seconds > 0, or inf for no timeout"),
    ("--timeout", "0", "must be a number of seconds > 0, or inf for no timeout"),
    ("--timeout", "-3", "must be a number of seconds > 0, or inf for no timeout"),
    ("--timeout", "soon", "is not a number of seconds"),
    ("--atol", "-1", "must be a number >= 0"),
    ("--atol", "nan", "must be a number >= 0"),
    ("--rtol", "-0.5", "must be a number >= 0"),
    ("--ulp", "-1", "not in the range x>=0"),
    ("--min-cases", "-5", "not in the range x>=0"),
    ("--json", "", "--json: the file name is empty"),
    ("--junit", "", "--junit: the file name is empty"),
])
def test_a_bad_option_value_is_one_usage_line_naming_the_option(option, value, allowed):
    result = invoke("validate", SCALE_4D, "-j", 0, option, value)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("spec2onnx: error: "), result.output  # before any case ran
    assert option in lines[0] and allowed in lines[0], lines[0]


@pytest.mark.parametrize("value", ["1e7", "1e300", "inf"])
def test_a_huge_timeout_means_no_timeout_rather_than_an_overflow(value):
    """poll() takes milliseconds in a C int: the pool never waits more than an hour in one go."""
    result = invoke("validate", SCALE_4D, "-j", 1, "--timeout", value)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args, where", [(["validate", "--json"], "main validate"), (["validate", "-k"], "main validate"),
                                         (["report", "merge", "--junit"], "main report merge"), (["--jsn"], "main")])
def test_an_option_without_its_value_points_to_its_commands_help(args, where):
    """click fails such an option before the command's context exists: the hint named the top-level help."""
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.endswith(f"(see '{where} --help')"), line


def test_a_timeout_with_j_0_is_refused_rather_than_ignored():
    """-j 0 runs the cases in this process, where a hanging one cannot be stopped: --timeout there would be a promise
    the run cannot keep (it hung until an outer limit killed it). The default and inf promise nothing."""
    result = invoke("validate", SCALE_4D, "-j", 0, "--timeout", "2")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines == ["spec2onnx: error: --timeout: -j 0 runs the cases in this process, where none can be stopped; "
                     "-j 1 runs them in one worker process, with the time limit"], result.output
    assert invoke("validate", SCALE_4D, "-j", 0, "--timeout", "inf").exit_code == 0
    assert invoke("validate", SCALE_4D, "-j", 0).exit_code == 0


def test_an_unknown_option_is_one_line_too():
    result = invoke("validate", "--jsn", "r.json")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("spec2onnx: error: No such option"), result.output
    assert "--jsn" in lines[0] and lines[0].endswith("(see 'main validate --help')")


def test_run_refuses_a_npz_archive_as_input(tmp_path):
    archive = tmp_path / "x.npz"
    np.savez(archive, input1=np.ones((1, 1, 3, 3), np.float32))
    result = invoke("run", SCALE_4D, "--input", f"input1={archive}", "-o", tmp_path)
    assert result.exit_code == 2
    assert result.output.strip() == (f"spec2onnx: error: --input input1={archive}: is a .npz archive of several arrays; "
                                     "give one array as a .npy file (numpy.save)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npz"]


def _without_cases(tmp_path, tail=""):
    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text()
    path = tmp_path / "no-cases.yaml"
    path.write_text(text[:text.index("cases:")] + tail)
    return path


@pytest.mark.parametrize("tail", ["", "cases: []\n"])
def test_convert_needs_no_cases(tmp_path, tail):
    spec, out = _without_cases(tmp_path, tail), tmp_path / "m.onnx"
    result = invoke("convert", spec, "-o", out)
    assert result.exit_code == 0, result.output
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    (y,) = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"input1": x})
    np.testing.assert_array_equal(y, (2 * x + 1) ** 2)  # the doc's Scale 4D: (x * 2 + 1) ^ 2
    assert invoke("validate", spec).exit_code == 2  # validating still needs cases


def test_run_a_spec_without_cases_on_input_files(tmp_path):
    spec, x = _without_cases(tmp_path), tmp_path / "x.npy"
    np.save(x, np.full((1, 1, 3, 3), 3, np.float32))
    result = invoke("run", spec, "--input", f"input1={x}", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "scale.npy"), np.full((1, 1, 3, 3), 49))
    missing = invoke("run", spec, "-o", tmp_path)
    assert missing.exit_code == 2 and "no data for input 'input1': give --case or --input input1=FILE.npy" in missing.output
    no_case = invoke("run", spec, "--case", "c", "-o", tmp_path)
    assert no_case.exit_code == 2 and "has no such case; it has none" in no_case.output


def test_run_creates_the_output_folder(tmp_path):
    out = tmp_path / "out" / "deeper"
    result = invoke("run", SPECS / "trt_elementwise/seed-broadcast-prod.yaml", "--case", "doc-example", "-o", out)
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(out / "prod.npy"), [[-12, -10, -6], [0, 5, 12]])
    failed = invoke("run", SPECS / "trt_scale/seed-scale-4d.yaml", "--case", "nope", "-o", tmp_path / "never")
    assert failed.exit_code == 2 and not (tmp_path / "never").exists()  # nothing is created for a run that fails
    (tmp_path / "file").write_text("")
    blocked = invoke("run", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", tmp_path / "file" / "sub")
    assert blocked.exit_code == 2 and "cannot create the folder" in blocked.output


def test_validate_without_paths_prefers_the_checkouts_specs(tmp_path, monkeypatch):
    from converter.files import bundled_specs_dir, default_suite

    assert default_suite(REPO) == (REPO / "specs", "this checkout's suite")
    assert default_suite(tmp_path) == (bundled_specs_dir(), "the suite that comes with spec2onnx")
    (tmp_path / "specs").mkdir()
    assert default_suite(tmp_path)[0] == bundled_specs_dir()  # a specs/ folder alone is not a checkout
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "spec2onnx"\n')
    (tmp_path / "specs" / "one.yaml").write_text((SPECS / "trt_scale/seed-scale-4d.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    result = invoke("validate", "-j", 0)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "validating specs (this checkout's suite; name paths to validate others)"
    assert "2 cases: 2 passed" in result.output


def test_run_says_which_case_ran_when_none_was_named(tmp_path):
    """Without --case, run SPEC takes the spec's first case; it said nothing of it (a newcomer's report)."""
    spec = SPECS / "trt_elementwise/seed-broadcast-prod.yaml"
    result = CliRunner().invoke(main, ["run", str(spec), "-o", str(tmp_path)])
    assert result.exit_code == 0 and "case doc-example (the spec's first; --case picks another)" in result.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "prod.npy"), [[-12, -10, -6], [0, 5, 12]])  # doc-example's
    named = CliRunner().invoke(main, ["run", str(spec), "--case", "doc-example", "-o", str(tmp_path)])
    assert named.exit_code == 0 and "the spec's first" not in named.stderr
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"  # every input from a file: no case ran
    np.save(a, np.ones((2, 3), np.float32)), np.save(b, np.ones((1, 3), np.float32))
    files = CliRunner().invoke(main, ["run", str(spec), "--input", f"input1={a}", "--input", f"input2={b}",
                                      "-o", str(tmp_path)])
    assert files.exit_code == 0 and "the spec's first" not in files.stderr


# -- outputs named "-" and /dev/stdout, empty names, a bare command (a walk-through of every option) ----------------

def _console(*args, cwd, stdout=subprocess.PIPE):
    """The real console (stdout a pipe or a file, not click's capture)."""
    return subprocess.run([sys.executable, str(REPO / "cli.py"), *map(str, args)], cwd=cwd, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=300)


@pytest.mark.parametrize("where", ["-", "/dev/stdout"])
def test_convert_writes_the_model_alone_on_stdout(tmp_path, where):
    """-o - (as --json -) or /dev/stdout: the model's bytes and nothing after them; the 'wrote' line on stderr. The
    line followed the model in a pipe, and overwrote its first bytes in a file; '-' made a file named '-'."""
    spec = SPECS / "trt_scale/seed-scale-4d.yaml"
    proc = _console("convert", spec, "-o", where, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    model = onnx.load_model_from_string(proc.stdout)
    assert [n.op_type for n in model.graph.node] and b"wrote" in proc.stderr
    with open(tmp_path / "m.onnx", "wb") as handle:  # stdout a file: the same bytes
        assert _console("convert", spec, "-o", where, cwd=tmp_path, stdout=handle).returncode == 0
    assert (tmp_path / "m.onnx").read_bytes() == proc.stdout
    assert not (tmp_path / "-").exists()


def test_check_json_dash_is_stdout_and_html_dash_is_refused(tmp_path):
    model = tmp_path / "m.onnx"
    assert invoke("convert", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", model).exit_code == 0
    proc = _console("check", model, "--target", "ort-cpu", "--json", "-", cwd=tmp_path)
    assert proc.returncode == 0 and b'"schema": "spec2onnx-check/' in proc.stdout, proc.stderr
    for args in (("validate", SPECS / "trt_scale/seed-scale-4d.yaml"), ("run", model)):
        result = invoke(*args, "--html", "-")
        assert result.exit_code == 2 and "a page is written to a FILE" in result.output, result.output
    assert not (tmp_path / "-").exists() and not (REPO / "-").exists()


@pytest.mark.parametrize("args", [("validate", "--target", ""), ("validate", "--target", " ", "--target", "tensorrt"),
                                  ("convert", "--target", ""), ("convert", "--provider", "")])
def test_an_empty_target_or_provider_is_refused_not_taken_as_the_default(tmp_path, args):
    command, *rest = args
    result = invoke(command, SPECS / "trt_scale/seed-scale-4d.yaml", *rest, *(("-o", tmp_path / "m.onnx") if command ==
                                                                                "convert" else ()))
    assert result.exit_code == 2 and "empty name" in result.output and result.output.count("\n") == 1, result.output
    assert not (tmp_path / "m.onnx").exists()


@pytest.mark.parametrize("args", [(), ("report",)])
def test_a_bare_command_shows_its_whole_help(args):
    """It printed 'error: Usage: spec2onnx [OPTIONS] COMMAND [ARGS]... (...)': the help's first line, cut."""
    proc = _console(*args, cwd=REPO)
    assert proc.returncode == 2 and b"(...)" not in proc.stderr
    assert b"Commands:" in proc.stderr and (b"merge" in proc.stderr if args else b"validate" in proc.stderr)


def test_max_memory_errors_repeat_the_value_given():
    for value, why in (("0", "0: must be at least one byte"), ("abc", "abc: expected a size such as 512M")):
        result = invoke("validate", SPECS / "trt_scale/seed-scale-4d.yaml", "--max-memory", value)
        assert result.exit_code == 2 and f"Invalid value for '--max-memory': {why}" in result.output, result.output


def test_two_reports_on_stdout_are_refused(tmp_path):
    """JSON then XML then the run's lines on one stream, which nothing can read; /dev/null twice stays fine."""
    spec = SPECS / "trt_scale/seed-scale-4d.yaml"
    result = invoke("validate", spec, "--json", "-", "--junit", "-")
    assert result.exit_code == 2 and "--json writes the same file" in result.output, result.output
    assert invoke("validate", spec, "-q", "--json", "/dev/null", "--junit", "/dev/null").exit_code == 0


def test_run_spec_refuses_one_input_given_twice(tmp_path):
    np.save(tmp_path / "a.npy", np.ones((1, 1, 3, 3), np.float32))
    result = invoke("run", SPECS / "trt_scale/seed-scale-4d.yaml", "--input", f"input1={tmp_path / 'a.npy'}",
                    "--input", f"input1={tmp_path / 'a.npy'}", "-o", tmp_path / "out")
    assert result.exit_code == 2 and "input 'input1' is given twice" in result.output, result.output


def test_a_command_writes_nothing_in_home_with_the_cache_off(tmp_path):
    """onnxruntime's import wrote ~/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db} (its
    telemetry), also for layers, convert and check, which run no model: a command writes the outputs named and its
    cache, nothing else."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "ORT_DISABLE_TELEMETRY")}
    env.update(HOME=str(home), SPEC2ONNX_CACHE="off")
    for args in (("layers",), ("validate", SPECS / "trt_scale/seed-scale-4d.yaml", "-q", "-j", "0")):
        proc = subprocess.run([sys.executable, str(REPO / "cli.py"), *map(str, args)], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    assert [str(p.relative_to(home)) for p in home.rglob("*")] == []
