"""A pytest plugin: spec files become test files and their cases tests.

::

    pytest specs/                          # every spec under specs/, one test per case
    pytest specs/ -n 2 -k "resize and not cubic" --junitxml=report.xml
    pytest specs/ --s2o-runtime openvino --s2o-provider cpu

Installed, spec2onnx registers it (entry point ``pytest11``); from a source checkout, load it with
``-p converter.pytest_plugin``. A test is named ``SPEC/CASE`` after the spec's ``name`` and the
case's, so its node id is ``specs/trt_scale/seed-scale-4d.yaml::trt-scale-seed-4d/doc-example``. With
``--s2o-target`` (repeatable: each case runs once per target) the name ends in the target,
``SPEC/CASE [tensorrt]``, even for one target: an id says what it was validated for, and the ids of a
run without the option stay ``SPEC/CASE``. When several runtime configurations run, their label
follows: ``SPEC/CASE [onnx-reference]``, ``SPEC/CASE [tensorrt ort[cpu,opt=disabled]]``. A failing case
shows the lines ``spec2onnx validate`` prints for it; a known failure (``xfail``) is pytest's xfail,
one that passes (XPASS) fails.

**Which files are collected.** Only spec files the user asks for: those under (or named by) a path
given on the command line, and those under the folders of the ini option ``spec2onnx_specs``. A
run from ``testpaths`` alone (``pytest`` in a project whose tests hold spec-shaped data, like
spec2onnx's own tests/bad_specs) collects no spec. A file counts as a spec by
``selection.is_spec_file`` (a ``.yaml``/``.yml``/``.json`` mapping with ``network`` and ``cases``);
a spec that does not load is a collection error with its one-line message.

**Targets and refusals.** ``--s2o-target`` works for every target. A spec the target refuses (a type or
layer it cannot take: ``tensorrt-dla`` and float32, ``portable`` and uint32), and a case whose model the
target's static check refuses (a node it cannot run), is one line per case, never a traceback: skipped by
default (``SKIPPED ... tensorrt-dla refuses: ...``, as pytest skips a test that does not apply to the
platform; ``-ra`` lists them), failed with ``--s2o-refused=fail`` (for a suite that must run on the target).
``spec2onnx validate --target`` counts the same cases as REFUSED (``--refused=skip|fail``). ``--s2o-fp16`` and
``--s2o-int8`` are validate's ``--fp16``/``--int8`` (a float32 spec runs on ``tensorrt-dla`` with ``--s2o-fp16``).

**A run that validates nothing fails.** When every spec case that ran was skipped (every one refused by
the target, say), the session fails (exit status 1, TESTS_FAILED, not pytest's 5 that CI scripts often
accept for an empty shard) and says why, so a CI job is not green with nothing validated;
``--s2o-allow-all-skipped`` accepts such a run.

pytest-xdist: every worker collects the same items in the same order (sorted files, the spec's case
order), and an item is found again from its node id alone, so ``-n`` and ``--dist`` work as for
Python tests. The plugin imports nothing heavy until a spec file is collected.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .errors import UserError
from .targets.profiles import target_names  # the target registry (light: no onnx), for --s2o-target's help
from .results import FAIL, PASS, REFUSED, XFAIL

SUFFIXES = (".yaml", ".yml", ".json")
_OPTIONS_KEY = pytest.StashKey[dict]()  # target name (None: what the provider implies) -> the validation Options
_ROOTS_KEY = pytest.StashKey[tuple]()


class RegistryHelp(str):
    """--s2o-target's help, its list of targets read from the target registry when pytest shows the help: after the
    conftest.py files are imported, so that a target one registers is listed too. (argparse fills every help in with
    ``help % params``; this one fills in the registry's names where ``%(targets)s`` stands.)"""

    def __mod__(self, params) -> str:
        return str.replace(self, "%(targets)s", ", ".join(target_names()))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("spec2onnx", "spec2onnx: spec files as tests")
    group.addoption("--s2o-runtime", action="append", default=[], metavar="NAME",
                    help="runtime to check each case on: onnxruntime (default), onnx-reference, openvino; repeatable")
    group.addoption("--s2o-provider", default=None, metavar="NAME",
                    help="onnxruntime execution provider: cpu (default), cuda, tensorrt, dml, openvino, ...")
    group.addoption("--s2o-opset", type=int, default=None, metavar="N",
                    help="ONNX opset to lower to (default: the spec's opset, else 17)")
    group.addoption("--s2o-opt-level", action="append", default=[], metavar="LEVEL",
                    help="onnxruntime graph optimization level: disabled, basic, extended, all (default); repeatable")
    group.addoption("--s2o-target", action="append", default=[], metavar="TARGET",
                    help=RegistryHelp("target to lower for: %(targets)s (spec2onnx's target registry: a conftest.py "
                                      "or plugin adds one with register_target); repeatable: each case runs once "
                                      "per target, its test id ending in [TARGET]; default: the one the provider "
                                      "implies"))
    group.addoption("--s2o-fp16", action="store_true", default=False,
                    help="as trtexec --fp16 (spec2onnx validate --fp16): the TensorRT build allows FP16; on "
                         "tensorrt-dla a float32 network then runs in FP16; other targets do not read it (a warning)")
    group.addoption("--s2o-int8", action="store_true", default=False,
                    help="as trtexec --int8 (spec2onnx validate --int8): the TensorRT build allows INT8")
    group.addoption("--s2o-refused", choices=("skip", "fail"), default="skip",
                    help="a spec or case the target refuses (a type, a layer, a node it cannot run): skip it "
                         "(default) or fail it; one line either way")
    group.addoption("--s2o-allow-all-skipped", action="store_true", default=False,
                    help="accept a run in which every spec case was skipped (by default it fails: nothing was "
                         "validated)")
    group.addoption("--s2o-xfail-file", default=None, metavar="FILE",
                    help="known failures: a YAML list of {spec, case, runtime, provider, opt_level, reason}")
    group.addoption("--s2o-repro-dir", default=None, metavar="DIR",
                    help="write a reproduction (model, inputs, outputs, command) of every failing case here")
    parser.addini("spec2onnx_specs", type="paths", default=[],
                  help="folders (or files) whose spec files are collected even when not named on the command line")


def _given(config: pytest.Config) -> dict:
    o = config.option
    given = {"runtimes": tuple(o.s2o_runtime), "provider": o.s2o_provider, "opset": o.s2o_opset,
             "opt_levels": tuple(o.s2o_opt_level), "targets": tuple(o.s2o_target), "xfail_file": o.s2o_xfail_file,
             "repro_dir": o.s2o_repro_dir,
             "precision": tuple(p for p, on in (("fp16", o.s2o_fp16), ("int8", o.s2o_int8)) if on)}
    return {k: v for k, v in given.items() if v not in (None, ())}


def pytest_configure(config: pytest.Config) -> None:
    if _given(config):  # check what was asked for now, once, not on the first spec collected
        _options(config)
    roots = [Path(str(p)).resolve() for p in config.getini("spec2onnx_specs")]
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        for arg in config.args:
            path = Path(arg.split("::")[0])
            roots.append((path if path.is_absolute() else config.invocation_params.dir / path).resolve())
    config.stash[_ROOTS_KEY] = tuple(roots)
    config.pluginmanager.register(AllSkipped(config), "spec2onnx-all-skipped")


def _options(config: pytest.Config) -> dict:
    """Target name (None: what the provider implies) -> the validation options the --s2o-* flags ask for, one
    per --s2o-target in the order given (built once; a bad one is a usage error)."""
    if _OPTIONS_KEY not in config.stash:
        from .api import make_options, precision_unused  # start-up time: the plugin loads in every pytest run; this imports onnx and the lowering

        given = _given(config)
        kwargs = {"runtimes": given.get("runtimes", ("onnxruntime",)), "provider": given.get("provider", "cpu"),
                  "opt_levels": given.get("opt_levels", ("all",)), "opset": given.get("opset"),
                  "xfail_file": given.get("xfail_file"), "repro_dir": given.get("repro_dir"),
                  "precision": given.get("precision", ())}
        try:
            config.stash[_OPTIONS_KEY] = {target: make_options(**kwargs, target=target)
                                          for target in dict.fromkeys(given.get("targets", (None,)))}
        except UserError as exc:
            text = str(exc)
            raise pytest.UsageError("--s2o-" + text[2:] if text.startswith("--") else text) from None
        unused = precision_unused([o.target_name() for o in config.stash[_OPTIONS_KEY].values()], kwargs["precision"])
        if unused:  # as validate's warning line: the flag is read by the tensorrt targets only
            config.issue_config_time_warning(pytest.PytestConfigWarning("--s2o-" + unused[2:].replace(" --", " --s2o-")),
                                             stacklevel=2)
    return config.stash[_OPTIONS_KEY]


def _asked_for(config: pytest.Config, path: Path) -> bool:
    path = path.resolve()
    return any(path == root or root in path.parents for root in config.stash.get(_ROOTS_KEY, ()))


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if file_path.suffix not in SUFFIXES or not _asked_for(parent.config, file_path):
        return None
    from .pipeline.selection import is_spec_file  # start-up time: the plugin loads in every pytest run; this imports onnx and the lowering

    if not is_spec_file(file_path):
        return None
    return SpecFile.from_parent(parent, path=file_path)


class SpecLoadError(Exception):
    """A spec that does not load: its one-line message (file, field, value, what is allowed)."""


class SpecFile(pytest.File):
    def collect(self):
        from .api import load_spec  # start-up time: the plugin loads in every pytest run; this imports onnx and the lowering

        try:
            spec = load_spec(self.path)
        except UserError as exc:
            raise SpecLoadError(str(exc)) from None
        self.spec, self._results = spec, {}
        by_target = _options(self.config)
        for case in spec.cases:
            for target, options in by_target.items():
                for config in options.configs:
                    label = options.label(config)  # (as validate's ids: the target, then the configuration if several)
                    name = f"{spec.name}/{case.name}" + (f" [{label}]" if label else "")
                    yield SpecCase.from_parent(self, name=name, case=case.name, target=target, run_config=config)

    def result(self, item: "SpecCase"):
        """The item's CaseResult. The first item of this spec to run checks every case of the spec
        selected in this process for its target and runtime configuration: one model and one session for them all.
        """
        from dataclasses import replace

        from .pipeline.stages import validate_spec  # start-up time: the plugin loads in every pytest run; this imports onnx and the lowering

        way = (item.target, item.run_config)
        if (way, item.case) not in self._results:
            names = [i.case for i in item.session.items if i.parent is self and (i.target, i.run_config) == way
                     and (way, i.case) not in self._results] or [item.case]
            if item.case not in names:
                names.append(item.case)
            options = replace(_options(self.config)[item.target], configs=(item.run_config,))
            for result in validate_spec(self.spec, options, names):
                self._results[(way, result.case)] = result
        result = self._results.pop((way, item.case), None)
        if result is None:
            raise CaseFailed(f"ERROR: no result for case {item.case!r} [a bug in spec2onnx: please report it with {self.path}]")
        return result

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(SpecLoadError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class CaseFailed(Exception):
    """A case that failed, errored or passed against its xfail entry; the message is validate's lines."""


STATIC = "static check: "


def _refusal(result, options) -> str | None:
    """One line when the target refuses the spec (before lowering) or the case's model (its static check)."""
    if result.outcome != REFUSED:
        return None
    first = (result.problems or ["(no reason given)"])[0]
    if first.startswith(STATIC):
        first = first[len(STATIC):]
        more = sum(p.startswith(STATIC) for p in result.problems) - 1
        first += f" (and {more} more)" if more else ""
    target = options.target.name if options.target is not None else "the target"
    return f"{target} refuses: {first}"


class SpecCase(pytest.Item):
    def __init__(self, *, case: str, target: str | None, run_config, **kwargs):
        super().__init__(**kwargs)
        self.case, self.target, self.run_config = case, target, run_config
        self.result = None
        self.user_properties.append(("spec2onnx.target", target or ""))  # (also marks a spec case's report)

    def runtest(self) -> None:
        result = self.parent.result(self)
        self.result = result
        self.user_properties += [("outcome", result.outcome), ("runtime", result.runtime),
                                 ("provider", result.provider), ("opset", result.opset), ("ops", "+".join(result.ops))]
        if result.shapes:  # a dynamic network: the shapes the case ran at (pytest's JUnit XML writes them too)
            self.user_properties.append(("shapes", result.shapes))
        if result.outcome == PASS:
            return
        if result.outcome == XFAIL:
            pytest.xfail(f"known failure: {result.reason}")
        refusal = _refusal(result, _options(self.config)[self.target])
        if refusal is not None:
            if self.config.option.s2o_refused == "skip":
                try:  # reported at the spec file, not at this line of the plugin
                    skipped = pytest.skip.Exception(refusal, _use_item_location=True)
                except TypeError:  # (a pytest without that keyword)
                    skipped = pytest.skip.Exception(refusal)
                raise skipped
            raise CaseFailed(refusal)
        # the lines validate prints under the case; pytest names the case itself
        lines = list(result.problems) or [result.outcome]
        if result.outcome != FAIL:
            lines[0] = f"{result.outcome}: {lines[0]}"
        raise CaseFailed("\n".join(lines))

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, 0, self.name  # (a line, 0: pytest reports a skip at the spec file with it)



class AllSkipped:
    """Fails a session in which every spec case that ran was skipped (nothing validated), unless
    --s2o-allow-all-skipped; one per session, registered by pytest_configure. Under pytest-xdist the controller
    receives every worker's reports and decides; the workers only run their tests."""

    def __init__(self, config: pytest.Config):
        self.config, self.ran, self.skipped, self.why = config, 0, 0, ""

    def pytest_runtest_logreport(self, report) -> None:
        if report.when != "call" or not any(key == "spec2onnx.target" for key, _ in report.user_properties):
            return
        self.ran += 1
        if report.skipped and not hasattr(report, "wasxfail"):  # (an xfail is a known failure that ran: not a skip)
            self.skipped += 1
            if not self.why and isinstance(report.longrepr, tuple):
                self.why = f"{report.nodeid}: {report.longrepr[2].removeprefix('Skipped: ')}"

    def _all_skipped(self) -> bool:
        return (self.ran > 0 and self.skipped == self.ran and not self.config.option.s2o_allow_all_skipped
                and not hasattr(self.config, "workerinput"))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus) -> None:
        if self._all_skipped() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self._all_skipped():
            terminalreporter.write_line(
                f"spec2onnx: every one of the {self.ran} spec cases that ran was skipped, so nothing was validated "
                f"and the run fails (--s2o-allow-all-skipped accepts it). The first: {self.why}", red=True)
