"""The pytest plugin (converter/pytest_plugin.py), run for real with pytest's own ``pytester``."""

from __future__ import annotations

import os
import shutil
import xml.etree.ElementTree as ET

import pytest

# pytester's in-process runs drop the modules a run imported; numpy and onnxruntime cannot be
# imported twice in one process, so everything the plugin imports lazily is imported here first.
import converter.api  # noqa: F401
import converter.targets.check  # noqa: F401 - (a second copy of TargetRuleError would not be caught as one)
import converter.targets.dla  # noqa: F401
import converter.targets.spec_rules  # noqa: F401
import converter.pytest_plugin  # noqa: F401
import converter.pipeline.stages  # noqa: F401
import onnx.reference  # noqa: F401
from tests.conftest import BAD_SPECS, REPO, SPECS

pytest_plugins = ["pytester"]

# The checkout's plugin, explicitly; "no:spec2onnx" blocks the pytest11 entry point of an installed spec2onnx
# (.ci/run), which is the same module under another name (converter/_alias.py) and would register twice.
PLUGIN = ["-p", "no:spec2onnx", "-p", "converter.pytest_plugin", "-p", "no:cacheprovider",
          "-W", "ignore::pytest.PytestAssertRewriteWarning"]
SCALE = SPECS / "trt_scale" / "seed-scale-4d.yaml"  # cases doc-example (9, 25, ... 361) and random
BROADCAST = SPECS / "trt_elementwise" / "seed-broadcast-prod.yaml"


@pytest.fixture
def suite(pytester):
    """A folder with two bundled specs, one copy of the first with a wrong expected value, and a non-spec."""
    specs = pytester.mkdir("specs")
    shutil.copy(SCALE, specs / "scale.yaml")
    shutil.copy(BROADCAST, specs / "broadcast.yaml")
    wrong = SCALE.read_text().replace("name: trt-scale-seed-4d", "name: wrong-scale").replace("[225, 289, 361]", "[225, 289, 360]")
    assert wrong != SCALE.read_text()
    (specs / "wrong.yaml").write_text(wrong)
    (specs / "ci.yaml").write_text("jobs: {build: {runs-on: ubuntu}}\n")  # not a spec: not collected
    pytester.makeini("[pytest]\n")  # the temporary folder is the rootdir, not this repo
    return specs


def _run(pytester, *args):
    return pytester.runpytest_inprocess(*PLUGIN, *args)


def test_cases_are_tests_named_spec_slash_case(pytester, suite):
    result = _run(pytester, "specs", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["specs/broadcast.yaml::trt-elementwise-seed-broadcast/doc-example",
                   "specs/broadcast.yaml::trt-elementwise-seed-broadcast/random",
                   "specs/scale.yaml::trt-scale-seed-4d/doc-example",
                   "specs/scale.yaml::trt-scale-seed-4d/random",
                   "specs/wrong.yaml::wrong-scale/doc-example",
                   "specs/wrong.yaml::wrong-scale/random"]


def test_a_failing_case_shows_the_lines_validate_prints(pytester, suite):
    result = _run(pytester, "specs")
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines([
        "*_ wrong-scale/doc-example _*",
        "output 'scale': onnxruntime vs expected (atol=1e-06, rtol=1e-05): 1/9 elements differ; *"
        "worst at [[]0, 0, 2, 2[]]: got 361.0, want 360.0*",
        "output 'scale': reference vs expected *got 361.0, want 360.0*",
        "FAILED specs/wrong.yaml::wrong-scale/doc-example - output 'scale': onnx*",
    ])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_k_selects_by_spec_and_case_name(pytester, suite):
    result = _run(pytester, "specs", "-k", "trt-scale-seed-4d/doc-example or broadcast and random", "-v")
    result.assert_outcomes(passed=2, deselected=4)
    result.stdout.fnmatch_lines(["*scale.yaml::trt-scale-seed-4d/doc-example PASSED*"])
    result.stdout.fnmatch_lines(["*broadcast.yaml::trt-elementwise-seed-broadcast/random PASSED*"])


def test_x_stops_at_the_first_failure(pytester, suite):
    (suite / "a-wrong-first.yaml").write_text((suite / "wrong.yaml").read_text().replace("wrong-scale", "first-wrong"))
    result = _run(pytester, "specs", "-x")
    result.assert_outcomes(failed=1)  # a-wrong-first.yaml sorts first; nothing runs after it


def test_junitxml_has_one_testcase_per_case_with_the_mismatch(pytester, suite):
    _run(pytester, "specs", "--junitxml=report.xml")
    root = ET.parse(pytester.path / "report.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert len(cases) == 6
    failure = cases["wrong-scale/doc-example"].find("failure")
    assert "got 361.0, want 360.0" in failure.text
    props = {p.get("name"): p.get("value") for p in cases["trt-scale-seed-4d/random"].iter("property")}
    assert props["outcome"] == "PASS" and props["ops"] == "trt.Scale" and props["provider"] == "CPUExecutionProvider"


def test_xdist_workers_collect_the_same_items(pytester, suite, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = pytester.runpytest_subprocess(*PLUGIN, "specs", "-n", "2", "-v")
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(["*2 workers [[]6 items[]]*"])
    result.stdout.fnmatch_lines(["*FAILED specs/wrong.yaml::wrong-scale/doc-example*"])


def test_only_paths_asked_for_are_collected(pytester, suite):
    """A run from testpaths collects no spec; a spec-shaped bad file there would otherwise break it."""
    pytester.makeini("[pytest]\ntestpaths = specs\n")
    result = _run(pytester)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    pytester.makeini("[pytest]\ntestpaths = specs\nspec2onnx_specs = specs\n")
    _run(pytester).assert_outcomes(passed=5, failed=1)


def test_a_spec_that_does_not_load_is_a_collection_error_naming_the_field(pytester, suite):
    shutil.copy(BAD_SPECS / "trt_scale" / "bad-mode.yaml", suite / "bad-mode.yaml")
    result = _run(pytester, "specs")
    result.stdout.fnmatch_lines(["*ERROR collecting specs/bad-mode.yaml*",
                                 "*bad-mode.yaml: network.layers[[]0[]].mode: 'UNIFORMX' is not one of UNIFORM, CHANNEL, ELEMENTWISE*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_known_failures_are_xfail_and_a_stale_entry_fails(pytester, suite):
    rules = pytester.path / "xfail.yaml"
    rules.write_text("- {spec: wrong-scale, case: doc-example, reason: the doc example is wrong}\n"
                     "- {spec: trt-scale-seed-4d, case: random, reason: stale}\n")
    result = _run(pytester, "specs", f"--s2o-xfail-file={rules}", "-rxX")
    result.assert_outcomes(passed=4, failed=1, xfailed=1)
    result.stdout.fnmatch_lines(["XFAIL specs/wrong.yaml::wrong-scale/doc-example - known failure: the doc example is wrong"])
    result.stdout.fnmatch_lines(["XPASS: passed, but is declared a known failure (stale): remove the xfail entry"])


def test_runtime_options_make_one_test_per_configuration(pytester, suite):
    result = _run(pytester, str(suite / "scale.yaml"), "--s2o-runtime=onnxruntime", "--s2o-runtime=onnx-reference", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*trt-scale-seed-4d/doc-example [[]onnx-reference*PASSED*"])


def test_a_target_lowers_for_it(pytester, suite):
    result = _run(pytester, str(suite / "scale.yaml"), "--s2o-target=tensorrt", "-v")
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("option, message", [
    ("--s2o-provider=nope", "*nope*"),
    ("--s2o-runtime=tflite", "*tflite*"),
    ("--s2o-opset=3", "*opset*3*"),
    ("--s2o-target=tensorrtx", "--s2o-target tensorrtx: unknown target (did you mean 'tensorrt'?)*"),
    ("--s2o-opt-level=fast", "--s2o-opt-level fast: not one of disabled, basic, extended, all"),  # was a KeyError per test
    ("--s2o-xfail-file=missing", "missing: no such file (known-failure rules*"),  # was "not a spec file"
])
def test_a_bad_option_is_a_usage_error(pytester, suite, option, message):
    result = _run(pytester, "specs", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: " + message])


def test_the_projects_own_test_folder_collects_no_bad_spec(pytester, monkeypatch):
    """`pytest tests/` with the plugin loaded: tests/bad_specs is data (tests/conftest.py ignores it).

    In a fresh interpreter, as a user runs it. In this one (runpytest_inprocess), run alone, the inner session
    imported a second copy of modules under the name ``converter`` (converter.compare, converter.dtypes: a finder
    of the inner session sits ahead of _alias's in sys.meta_path) beside the outer session's ``spec2onnx``, and a
    dynamic DequantizeLinear spec's profile check compared one copy's dtypes with the other's."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # `-p converter.pytest_plugin`: the checkout's package
    result = pytester.runpytest_subprocess(*PLUGIN, str(BAD_SPECS.parent), "--collect-only", "-q", f"--rootdir={REPO}")
    collected = [line.split("::")[0] for line in result.outlines if "::" in line]
    assert collected and all(path.endswith(".py") for path in collected)
    assert result.ret == pytest.ExitCode.OK


def test_the_wheel_registers_the_plugin_as_a_pytest11_entry_point():
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert config["project"]["entry-points"]["pytest11"] == {"spec2onnx": "spec2onnx.pytest_plugin"}
    assert (REPO / "converter" / "pytest_plugin.py").is_file()  # installed as spec2onnx/pytest_plugin.py


def test_repro_dir_and_opt_level_reach_the_runner(pytester, suite):
    result = _run(pytester, str(suite / "wrong.yaml"), "--s2o-repro-dir=repro", "--s2o-opt-level=disabled")
    result.assert_outcomes(passed=1, failed=1)
    folder = pytester.path / "repro" / "wrong-scale" / "doc-example" / "onnxruntime-cpu-disabled"  # <spec>/<case>/<config>
    assert {p.name for p in folder.iterdir()} >= {"model.onnx", "command.txt", "expected.scale.npy"}
    command = (folder / "command.txt").read_text().splitlines()[0]
    assert "-k =wrong-scale/doc-example" in command and "--ort-opt-level disabled" in command


def _cli_outcomes(tmp_path, target: str) -> tuple[int, int]:
    """(cases passed, cases REFUSED: by the target's spec rules or its static check) by ``validate --json``."""
    import json

    from click.testing import CliRunner

    from cli import main

    report = tmp_path / f"{target}.json"
    CliRunner().invoke(main, ["validate", "--quiet", "--target", target, "--json", str(report), str(SPECS)])
    results = json.loads(report.read_text())["cases"]
    return sum(r["outcome"] == "PASS" for r in results), sum(r["outcome"] == "REFUSED" for r in results)


@pytest.fixture(scope="module")
def case_counts():
    """Cases per bundled spec file (a refused spec is one REFUSED result per case, in validate's report as here)."""
    from converter.pipeline.spec import load_spec

    return {p.resolve(): len(load_spec(p, require_cases=False).cases) for p in SPECS.rglob("*.yaml") if "_tools" not in p.parts}


@pytest.mark.parametrize("target", __import__("converter.targets", fromlist=["TARGET_NAMES"]).TARGET_NAMES)
def test_every_target_runs_the_bundled_suite_refusals_are_one_line_skips(pytester, tmp_path, target, case_counts):
    """Issue 19 item 9: ``--s2o-target tensorrt-dla`` crashed with KeyError and ~1,650 lines per spec. Every
    target runs the whole bundled suite; what it refuses is skipped with one line; what passes is what
    ``spec2onnx validate --target`` passes."""
    import json

    pytester.makeini("[pytest]\n")
    result = _run(pytester, str(SPECS), f"--s2o-target={target}", "-q", "-rs", "-p", "no:randomly")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("errors", 0) == 0, [line for line in result.outlines if not line.startswith("SKIPPED")][-60:]
    passed, refused = _cli_outcomes(tmp_path, target)
    assert outcomes.get("passed", 0) == passed and outcomes.get("skipped", 0) == refused  # the same verdicts
    assert outcomes.get("passed", 0) + outcomes.get("skipped", 0) == sum(case_counts.values())
    skips = [line for line in result.outlines if line.startswith("SKIPPED")]
    assert all(f"{target} refuses: " in line and ".yaml" in line.split(":")[0] for line in skips), skips[:3]
    assert "Traceback" not in result.stdout.str() and "KeyError" not in result.stdout.str()


def test_refusals_fail_with_one_line_when_asked(pytester, suite):
    result = _run(pytester, str(suite / "scale.yaml"), "--s2o-target=tensorrt-dla", "--s2o-refused=fail")
    result.assert_outcomes(failed=2)
    text = result.stdout.str()
    # each failure's report is that one line (the short summary repeats it after 'FAILED ...', cut or not: under
    # CI=true pytest does not cut summary lines to the terminal's width)
    one_line = "tensorrt-dla refuses: network.layers[0]: tensor 'input1' is float32; tensorrt-dla runs FP16 and INT8 only"
    assert sum(line.startswith(one_line) for line in text.splitlines()) == 2, text
    assert "Traceback" not in text and "KeyError" not in text
    result = _run(pytester, str(suite / "scale.yaml"), "--s2o-target=tensorrt-dla", "-n", "2")
    result.assert_outcomes(skipped=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # every case skipped: nothing validated (below)


# --- issue 26: what a new user stumbled on ---


def test_s2o_target_is_repeatable_each_case_runs_once_per_target_and_its_id_names_it(pytester, suite):
    """The last --s2o-target used to win, silently, and ids did not say which target a test was for."""
    scale = str(suite / "scale.yaml")
    result = _run(pytester, scale, "--s2o-target=ort-cpu", "--s2o-target=tensorrt", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["specs/scale.yaml::trt-scale-seed-4d/doc-example [ort-cpu]",
                   "specs/scale.yaml::trt-scale-seed-4d/doc-example [tensorrt]",
                   "specs/scale.yaml::trt-scale-seed-4d/random [ort-cpu]",
                   "specs/scale.yaml::trt-scale-seed-4d/random [tensorrt]"]
    result = _run(pytester, scale, "--s2o-target=ort-cpu", "--s2o-target=tensorrt", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*doc-example [[]tensorrt[]] PASSED*"])
    one = _run(pytester, scale, "--s2o-target=tensorrt", "--collect-only", "-q")  # named for one target too
    assert [line for line in one.outlines if "::" in line][0] == "specs/scale.yaml::trt-scale-seed-4d/doc-example [tensorrt]"


def test_the_target_and_the_runtime_configuration_are_both_in_the_id(pytester, suite):
    result = _run(pytester, str(suite / "scale.yaml"), "--s2o-target=tensorrt", "--s2o-runtime=onnxruntime",
                  "--s2o-runtime=onnx-reference", "--collect-only", "-q")
    ids = [line.split("::")[1] for line in result.outlines if "::" in line]
    assert ids[:2] == ["trt-scale-seed-4d/doc-example [tensorrt ort[cpu]]",
                       "trt-scale-seed-4d/doc-example [tensorrt onnx-reference]"]


def test_one_target_refusing_does_not_hide_another(pytester, suite):
    """tensorrt-dla refuses the float32 seed (DLA runs FP16/INT8 only, the seeds' DLA rules); ort-cpu runs it."""
    result = _run(pytester, str(suite / "scale.yaml"), "--s2o-target=tensorrt-dla", "--s2o-target=ort-cpu", "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    assert result.ret == pytest.ExitCode.OK  # something was validated
    result.stdout.fnmatch_lines(["SKIPPED*tensorrt-dla refuses: network.layers[[]0[]]: tensor 'input1' is float32*"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_run_where_every_case_is_skipped_fails_and_says_so(pytester, suite, workers, monkeypatch):
    """Every case refused: a CI job went green with nothing validated. Now it fails (exit 1), unless asked."""
    monkeypatch.setenv("PYTHONPATH", str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = pytester.runpytest_subprocess if workers else pytester.runpytest_inprocess
    result = run(*PLUGIN, str(suite / "scale.yaml"), "--s2o-target=tensorrt-dla", *workers)
    result.assert_outcomes(skipped=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["spec2onnx: every one of the 2 spec cases that ran was skipped, so nothing was "
                                 "validated and the run fails (--s2o-allow-all-skipped accepts it). The first: "
                                 "specs/scale.yaml::trt-scale-seed-4d/* tensorrt-dla refuses: *float32*"])
    allowed = run(*PLUGIN, str(suite / "scale.yaml"), "--s2o-target=tensorrt-dla", "--s2o-allow-all-skipped", *workers)
    allowed.assert_outcomes(skipped=2)
    assert allowed.ret == pytest.ExitCode.OK and "nothing was validated" not in allowed.stdout.str()


def test_a_known_failure_is_not_a_skip(pytester, suite):
    """xfail is pytest's skipped outcome with wasxfail: a known failure ran and was checked."""
    rules = pytester.path / "xfail.yaml"
    rules.write_text("- {spec: wrong-scale, case: doc-example, reason: the doc example is wrong}\n")
    result = _run(pytester, str(suite / "wrong.yaml"), f"--s2o-xfail-file={rules}", "-k", "doc-example")
    result.assert_outcomes(xfailed=1, deselected=1)
    assert result.ret == pytest.ExitCode.OK


def test_the_help_names_every_target_of_the_registry(pytester):
    from converter.targets import TARGET_NAMES

    result = _run(pytester, "--help")
    text = " ".join(result.stdout.str().split())
    listed = text.split("--s2o-target=TARGET target to lower for: ")[1].split(" (spec2onnx's target registry")[0]
    assert set(listed.split(", ")) == set(TARGET_NAMES)


def test_a_target_a_conftest_adds_works(pytester, suite, tmp_path, monkeypatch):
    """A target added by the recipe (a kernel table and a register_target call) in the project's conftest.py, in a
    pytest process of its own as a user runs it: --s2o-target's help lists it, and it runs. The table has Mul and Add
    (float, since 14): the seed's Scale lowers to them where the target asks for no BatchNormalization (it has no
    preferences)."""
    table = tmp_path / "mul-add.json"
    table.write_text('{"source": "a test", "ops": {"Mul": [{"start": 14, "end": null, "types": {"T": ["float"]}}], '
                     '"Add": [{"start": 14, "end": null, "types": {"T": ["float"]}}]}}')
    pytester.makeconftest(f"from converter.targets import register_target\n"
                          f"register_target('mul-add', {{'summary': 'Mul and Add', 'kernels': {str(table)!r}}})\n")
    monkeypatch.setenv("PYTHONPATH", str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    shown = pytester.runpytest_subprocess(*PLUGIN, "--help")
    text = " ".join(shown.stdout.str().split())
    assert "target to lower for: portable, ort-cpu, ort-cuda, ort-dml, tensorrt, tensorrt-dla, openvino, mul-add (" in text
    result = pytester.runpytest_subprocess(*PLUGIN, str(suite / "scale.yaml"), "--s2o-target=mul-add", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*trt-scale-seed-4d/doc-example [[]mul-add[]] PASSED*"])


def test_a_dynamic_specs_cases_record_their_shapes(pytester):
    """Each case of a network with dynamic dimensions records the shapes it ran at (a user property, in the JUnit XML)."""
    specs = pytester.mkdir("specs")
    shutil.copy(SPECS / "trt_resize" / "dynamic-shape-input.yaml", specs / "d.yaml")
    pytester.makeini("[pytest]\n")
    result = _run(pytester, "specs", "--junitxml=out.xml")
    result.assert_outcomes(passed=3)
    properties = [(p.get("name"), p.get("value")) for p in ET.parse(pytester.path / "out.xml").iter("property")]
    assert ("shapes", "x [1, 3, 2, 3], size = [1, 3, 5, 7]") in properties


def test_s2o_fp16_and_int8_are_validates_fp16_and_int8(pytester, suite):
    """Issue 31 item 3: one precision vocabulary. A float32 spec, refused by tensorrt-dla (DLA runs FP16 and INT8
    only), runs there with --s2o-fp16 as with `validate --fp16`; for a target that does not read the flag, a
    warning says it means nothing."""
    scale = str(suite / "f32.yaml")  # a float32 Scale DLA runs in FP16 (cases random, random-positive-base)
    shutil.copy(SPECS / "trt_scale" / "gen-trt-scale-uniform-float32-r4-axis1.yaml", scale)
    _run(pytester, scale, "--s2o-target=tensorrt-dla").assert_outcomes(skipped=2)
    result = _run(pytester, scale, "--s2o-target=tensorrt-dla", "--s2o-fp16", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*gen-trt-scale-uniform-float32-r4-axis1/random [[]tensorrt-dla[]] PASSED*"])
    assert "means nothing" not in result.stdout.str()
    idle = _run(pytester, scale, "--s2o-target=ort-cuda", "--s2o-target=tensorrt", "--s2o-int8", "-q")
    idle.stdout.fnmatch_lines(["*PytestConfigWarning: --s2o-int8 means nothing for ort-cuda:*"])
