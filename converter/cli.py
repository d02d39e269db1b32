"""spec2onnx command line: a thin layer over the library (installed as ``spec2onnx.cli``; the console script).

In a source checkout the top-level ``cli.py`` runs it: ``python cli.py validate``.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
from pathlib import Path

import click

from . import __version__, api  # (api: a front door that imports each name on first use; --help imports none)
from .errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, InternalError, UserError
from .process.interrupts import Terminated, exit_status, terminate_as_interrupt

EPILOG = """\b
Exit status: 0 everything passed (known failures allowed, and REFUSED cases
unless --refused fail);
1 a case failed, errored or passed unexpectedly (XPASS), was REFUSED with
--refused fail, or no case ran (every one REFUSED), or fewer than --min-cases;
2 bad input or usage (a malformed spec, a missing file, an unknown provider or runtime);
3 an internal error (a bug in spec2onnx: please report it, with --debug output);
130 interrupted by Ctrl-C, 143 stopped by SIGTERM (kill, timeout, a CI
cancel): in both cases the reports of what finished are still written.
"""


def _say(text: str) -> None:
    """click.echo that outlives a closed stdout (`spec2onnx validate | head`): the run and its reports go on."""
    try:
        click.echo(text)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")


def _fail(message: str, code: int) -> None:
    lines = message.strip().splitlines() or [""]
    more = " (...)" if len(lines) > 1 else ""  # one line, always: CI logs and people grep for it
    click.echo(f"spec2onnx: error: {lines[0]}{more}", err=True)
    sys.exit(code)


def handle_errors(command):
    """Turn library errors into one line on stderr and the documented exit status; SIGTERM acts as Ctrl-C."""

    @functools.wraps(command)
    def wrapper(*args, debug: bool = False, **kwargs):
        try:
            with terminate_as_interrupt():
                return command(*args, **kwargs)
        except UserError as exc:
            _fail(str(exc), EXIT_BAD_INPUT)
        except KeyboardInterrupt as exc:
            _fail("terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted", exit_status(exc))
        except BrokenPipeError:  # e.g. `spec2onnx validate | head`: the reader left; stop quietly
            sys.stdout = open(os.devnull, "w")
            sys.exit(EXIT_FAILED)
        except (InternalError, Exception) as exc:  # noqa: BLE001 - anything else is our bug
            if debug:
                import traceback  # start-up time: --help and every command that ends well need none (1 ms)

                traceback.print_exc()
            named = next(((k, kwargs[k]) for k in ("spec", "file") if kwargs.get(k)), None)  # run's FILE: spec or model
            where = f" ({named[0]}: {named[1]})" if named else ""
            first = (str(exc).strip().splitlines() or [""])[0].rstrip(".")
            _fail(f"internal error{where}: {type(exc).__name__}: {first}. This is a bug in spec2onnx; "
                  "rerun with --debug and report the output.", EXIT_INTERNAL)

    return click.option("--debug", is_flag=True, help="Show the Python traceback of an internal error.")(wrapper)


class _Group(click.Group):
    """Usage errors (a bad option value, an unknown option) as one line, like every other error."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            value = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "spec2onnx"
            _fail(f"{exc.format_message().rstrip('.')} (see '{where} --help')", EXIT_BAD_INPUT)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.Abort, EOFError, KeyboardInterrupt):
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_FAILED)
        sys.exit(value if isinstance(value, int) else EXIT_OK)


def console() -> None:
    """The ``spec2onnx`` console script and ``python cli.py``: ``main()`` as a whole program. On the way out,
    everything it made is frozen out of the cycle collector's sight (gc.freeze): the interpreter's last
    collections at exit walked every object of onnx, onnxruntime and numpy, 60-100 ms of each command
    (benchmarks/run_model.py). Nothing else of the exit changes: files are closed, atexit handlers run and
    modules are torn down as before. In-process callers (tests, CliRunner) call ``main`` and keep collecting."""
    try:
        main()
    finally:
        gc.freeze()


def html_option(what: str):
    return click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                        help=f"Write one self-contained HTML page (no network request, no script): {what}")


class _NonNegative(click.ParamType):
    """A number >= 0: a tolerance (inf allowed, as in spec files; NaN and negatives refused)."""

    name = "number"

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not number >= 0:
            self.fail(f"{value}: must be a number >= 0", param, ctx)
        return number


class _PerOutput(click.ParamType):
    """Polygraphy's ``[OUTPUT:]VALUE``: VALUE checked here (a usage error naming the option), kept as text; the
    library parses it (compare.parse_per_output: OUTPUT is what precedes the last ':')."""

    def __init__(self, choices=None):
        self.choices = choices
        self.name = "[OUTPUT:]" + ("{" + ",".join(choices) + "}" if choices else "VALUE")

    def convert(self, value, param, ctx):
        name, colon, text = str(value).rpartition(":")
        if colon and not name:
            self.fail(f"{value!r}: no output name before ':' (OUTPUT:VALUE, or VALUE for every output)", param, ctx)
        if self.choices is not None:
            if text not in self.choices:
                self.fail(f"{value!r}: {text!r} is not one of {', '.join(self.choices)}", param, ctx)
            return str(value)
        _NonNegative().convert(text, param, ctx)
        return str(value)


_ERROR_STATS = ("elemwise", "max", "mean", "median")  # compare.ERROR_STATS (no numpy import for --help)
_TOLERANCE_HELP = ("[OUTPUT:]VALUE, repeatable, Polygraphy's syntax: a bare VALUE for every output, OUTPUT:VALUE for "
                   "that output alone (it wins over the bare one); an OUTPUT that is no output of {} is refused (exit 2).")
_ERROR_STAT_HELP = ("which statistic of the error must be within tolerance, [OUTPUT:]STAT, repeatable: elemwise (each "
                    "element, |a-b| <= atol + rtol*|b|; the default), or max, mean or median, which fail where that "
                    "statistic of the absolute error is above atol and that of the relative error above rtol "
                    "(Polygraphy's --check-error-stat). A NaN or infinity that differs fails whatever the statistic.")


class _Timeout(click.ParamType):
    """Seconds > 0; inf means no timeout. NaN (which would disable it silently) and 0 or less are refused."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if value is None:
            return None
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not seconds > 0:
            self.fail(f"{value}: must be a number of seconds > 0, or inf for no timeout", param, ctx)
        return None if seconds == float("inf") else seconds


provider_option = click.option(
    "--provider", default="cpu", show_default=True, metavar="NAME",
    help="onnxruntime execution provider: cpu, cuda, tensorrt, dml, openvino, ... (or a full name such as "
         "CUDAExecutionProvider). Fails, naming what is installed, when this onnxruntime lacks it; "
         "with a non-CPU provider the first run is profiled, and a compute node onnxruntime placed on the CPU "
         "fails the case (the shape computations it keeps on the CPU by design are allowed and named).")
opset_option = click.option(
    "--opset", type=int, default=None, metavar="N",
    help="Target ONNX opset (13 up to the newest the installed onnxruntime loads). "
         "Default: the spec's own 'opset', else 17.")


def _size(ctx, param, value):
    if value is None:
        return None
    try:
        return api.parse_size(value)
    except UserError as exc:
        raise click.BadParameter(str(exc).split(": ", 1)[-1]) from None


def max_memory_option(what: str):
    return click.option(
        "--max-memory", default=None, metavar="SIZE", callback=_size,
        help=f"Memory budget for {what}, e.g. 2G or 512M: {what.replace('one ', 'a ', 1)} "
             "whose estimated peak (from its shapes, before anything is allocated) is above it is refused (exit status "
             "2). Default: 1/8 of the RAM.")


plugin_option = click.option(
    "--plugin", "plugins", multiple=True, metavar="MODULE|FILE.py",
    help="Import a module that registers extra layer kinds or targets (spec2onnx.pipeline.plugins; docs/architecture.md, "
         "the two recipes). Repeatable.")


def target_summaries() -> list[tuple[str, str]]:
    """(name, one line) of every target the registry has (converter/targets/profiles.py), read when a help or a
    completion shows them: a target registered by then is listed too, and --help imports no onnx."""
    from .targets import profiles  # start-up time: only a help or a completion that shows the targets reads them

    return profiles.target_summaries()


class TargetOption(click.Option):
    """``--target``: its help lists the registry's targets when shown (between ``before`` and ``after``), and shell
    completion offers their names (and ``also``'s). Not a click.Choice: the registry checks the name when the
    command runs, after --plugin has imported what it adds."""

    def __init__(self, *args, before: str = "", after: str = "", also: tuple[str, ...] = (), **kwargs):
        def complete(ctx, param, incomplete: str):
            from click.shell_completion import CompletionItem

            return [CompletionItem(name, help=summary or None) for name, summary in
                    [*((a, "") for a in also), *target_summaries()] if name.startswith(incomplete)]

        super().__init__(*args, shell_complete=complete, **kwargs)
        self.around = (before, after)

    def get_help_record(self, ctx):
        listed = "; ".join(f"{name} ({summary})" if summary else name for name, summary in target_summaries())
        self.help = " ".join(part for part in (self.around[0], f"A target: {listed}; or one a --plugin adds. The "
                             "runtime need not be installed (docs/semantics.md, Targets).", self.around[1]) if part)
        return super().get_help_record(ctx)


@click.group(cls=_Group, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="spec2onnx")
def main():
    """Lower TensorRT / DirectML layer specs to ONNX and validate them on onnxruntime.

    \b
    A spec (YAML or JSON) describes a network of layers with the source runtime's
    semantics (trt.Scale, trt.ElementWise, ...) and cases to check it with.
    Every case runs on onnxruntime and is compared with an independent numpy
    reference and with the expected values written in the spec.

    \b
    Start with:
      spec2onnx validate                 # the bundled conformance suite
      spec2onnx layers                   # what layer kinds and attributes exist
      spec2onnx convert my.yaml -o my.onnx
      spec2onnx run my.onnx              # any ONNX model on several runtimes, compared
    """


def target_option(more_help: str, several: bool = False):
    """convert's and validate's --target (TargetOption); both also take auto."""
    if several:  # validate, as check and the pytest plugin's --s2o-target: every target given runs
        return click.option("--target", "targets", multiple=True, metavar="TARGET", cls=TargetOption, also=("auto",),
                            before="Lower for this target and check that it runs every node. Repeatable: every case "
                                   "runs for each target given, its id ending in [TARGET] (the JSON report's 'target' "
                                   "says which ran).", after=more_help)
    return click.option("--target", default=None, metavar="TARGET", cls=TargetOption, also=("auto",),
                        before="Lower for this target and check that it runs every node.", after=more_help)


def precision_options(what: str):
    """``--fp16``/``--int8``: the precision a TensorRT build allows, as trtexec's flags of those names."""

    def decorate(fn):
        fn = click.option("--int8", is_flag=True, help=f"As trtexec --int8: the TensorRT build allows INT8 {what}.")(fn)
        return click.option("--fp16", is_flag=True, help=(
            f"As trtexec --fp16: the TensorRT build allows FP16 {what}; on tensorrt-dla a float32 network then runs "
            "in FP16 (the model stays float32), without it float32 is refused there. Also the spec's "
            "`precision: [fp16]`. Only tensorrt and tensorrt-dla read --fp16/--int8: for another target a warning "
            "says the flag means nothing. docs/semantics.md, DLA precision."))(fn)

    return decorate


def _precision(fp16: bool, int8: bool) -> tuple[str, ...]:
    return tuple(name for name, on in (("fp16", fp16), ("int8", int8)) if on)


@main.command(epilog=EPILOG)
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the model. Default: <spec name>.onnx in the current folder.")
@opset_option
@target_option("Also auto: portable where the spec fits it, else the spec's own runtime family (tensorrt for trt.* "
               "layers), said on stderr. Default: what --provider implies (cuda: ort-cuda), else auto. "
               "docs/deployment.md.")
@click.option("--provider", default=None, metavar="NAME",
              help="Lower for this onnxruntime execution provider's target (cpu: ort-cpu, cuda: ort-cuda, "
                   "tensorrt: tensorrt, openvino: openvino); it need not be installed.")
@plugin_option
@precision_options("(beyond the spec's own precision field)")
@max_memory_option("one spec")
@handle_errors
def convert(spec, fp16, int8, **options):
    """Convert SPEC to an ONNX model that TARGET runs fully.

    The model's inputs and outputs carry the spec's tensor names. It passes
    onnx's full checker and the target's static check (spec2onnx check) before it
    is written; the file is written atomically. A node the target cannot run is
    an error (exit status 2, nothing written). Without --opset, ort-cuda and
    tensorrt models use the highest opset at or below the spec's at which the
    target has a kernel for every node, and say so (on stderr). With no opset
    at all (neither --opset nor the spec's), the lowest one at which the
    target runs every node when 17 is not one (tensorrt-dla and DirectML's
    float16 DequantizeLinear: 19).
    """
    done = api.convert_command(spec, precision=_precision(fp16, int8), **options)
    for line in ([f"target auto: {done.auto}"] if done.auto else []) + ([f"note: {done.note}"] if done.note else []) + (
            [f"spec2onnx: warning: {done.warning}"] if done.warning else []):
        click.echo(line, err=True)
    click.echo(f"wrote {done.path} (opset {done.opset}, {done.nodes} nodes, target {done.target})")


@main.command(epilog=EPILOG)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=None, metavar="N",
              help="Worker processes (default: the CPU count). Each worker runs whole specs, so the cases of a "
                   "network share one session; a crashed or hung worker is replaced. 0 runs in this process.")
@click.option("--timeout", type=_Timeout(), default=60.0, show_default=True, metavar="SECONDS",
              help="Per case: a case running longer is reported as ERROR and its worker replaced. "
                   "A number > 0; inf: no timeout.")
@click.option("-k", "patterns", multiple=True, metavar="PATTERN",
              help="Run only cases whose id (spec/case) contains PATTERN, matches it as a glob when it has * ? [, "
                   "or, written =ID, is exactly ID. Repeat to run cases matching any.")
@click.option("--exclude", "excludes", multiple=True, metavar="GLOB",
              help="Skip files in the folders searched whose path (relative to the folder, or as found) or name "
                   "matches GLOB; a folder's path skips all in it. Repeatable.")
@click.option("--shard", default=None, metavar="I/N",
              help="Run the I-th of N deterministic slices of the suite (round-robin over the sorted spec files); "
                   "N at most 1,000,000.")
@click.option("--fail-fast", "-x", is_flag=True, help="Stop at the first failure or error.")
@click.option("--list", "list_only", is_flag=True, help="List the case ids that would run, and stop.")
@click.option("--runtime", "runtimes", multiple=True, default=("onnxruntime",), show_default=True,
              type=click.Choice(["onnxruntime", "onnx-reference", "openvino"]),
              help="Runtime(s) to validate on; with several, each is compared with the reference and "
                   "disagreements between them are listed.")
@provider_option
@target_option("Also auto: per spec, the target convert's default chooses (portable where the spec fits it, else "
               "its family's). A case the target refuses (the spec: a type or layer it cannot take; or a node of its "
               "model, by the static check) is REFUSED: see --refused. Default: what --provider implies (cpu: "
               "ort-cpu), and ids without [TARGET].", several=True)
@precision_options("for the tensorrt targets (beyond each spec's own precision field)")
@click.option("--refused", type=click.Choice(["skip", "fail"]), default="skip", show_default=True,
              help="A REFUSED case (see --target) is counted and listed, and the run passes without it (skip); or it "
                   "fails the run (fail: for a suite that must run on the target). A run in which every case is "
                   "refused fails either way: it validated nothing.")
@opset_option
@click.option("--ort-opt-level", "opt_levels", type=click.Choice(["disabled", "basic", "extended", "all"]),
              multiple=True, default=("all",), show_default=True,
              help="onnxruntime graph optimization level; repeat to run every case at several levels.")
@click.option("--atol", type=_PerOutput(), multiple=True,
              metavar="[OUTPUT:]VALUE",
              help="Absolute tolerance (>= 0) for float outputs (overrides specs). " + _TOLERANCE_HELP.format("any spec of the run"))
@click.option("--rtol", type=_PerOutput(), multiple=True,
              metavar="[OUTPUT:]VALUE",
              help="Relative tolerance (>= 0) for float outputs (overrides specs). " + _TOLERANCE_HELP.format("any spec of the run"))
@click.option("--ulp", type=click.IntRange(min=0), default=None,
              help="Also accept float elements at most this many units in the last place apart.")
@click.option("--check-error-stat", "check_error_stat", type=_PerOutput(_ERROR_STATS), multiple=True,
              metavar="[OUTPUT:]STAT", help=_ERROR_STAT_HELP[0].upper() + _ERROR_STAT_HELP[1:] + " An OUTPUT that is no output "
              "of any spec of the run is refused (exit 2).")
@click.option("--xfail-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="YAML list of known failures ({spec, case, runtime, provider, opt_level, reason}).")
@click.option("--min-cases", type=click.IntRange(min=0), default=0, metavar="N", help="Fail the run if fewer than N cases ran.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write a JSON report (schema: docs/report-schema.md).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write JUnit XML for CI systems.")
@html_option("the summary table with every comparison's error statistics and margin, and for each failing "
             "comparison a histogram of the error, error against magnitude and a heatmap per 2-D slice (the worst "
             "element marked, its index written).")
@click.option("--repro-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="For every failing case, write its model, inputs, outputs and the command that reproduces it.")
@plugin_option
@click.option("--save-host-model", "host_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="With --target tensorrt or tensorrt-dla: write each host-legalized copy the CPU EP runs as "
                   "DIR/<spec>.host.onnx (several --target: DIR/<target>/<spec>.host.onnx; the deployment model is "
                   "what convert writes). Where nothing is written "
                   "(another target's host runs the deployment model itself), a warning line says so. "
                   "docs/deployment.md.")
@max_memory_option("one spec")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures, known failures and the summary (no progress bar; "
                                                   "REFUSED cases only with --refused fail, else counted).")
@click.option("-v", "--verbose", is_flag=True, help="Print a line for every case, also on a terminal.")
@handle_errors
def validate(paths, list_only, jobs, fp16, int8, quiet, verbose, html_path, **options):
    """Validate specs: run every case on a runtime and compare.

    PATHS are spec files or folders. In a folder (searched recursively) a spec
    is a .yaml, .yml or .json file whose top level has both 'network' and
    'cases'; other files are skipped (-v lists them). A file named is always
    loaded. Without PATHS: ./specs inside a spec2onnx checkout, else the
    conformance suite installed with spec2onnx (the first line says which).

    Each case is checked three ways: the runtime against the independent numpy
    reference, and both against the spec's expected values when it has them.
    On a terminal: a live progress bar and a line for every case that did not
    pass; elsewhere (CI logs) or with -v: a line for every case. Then a summary
    table per layer kind and outcome.

    \b
    Outcomes: PASS; FAIL (a comparison failed); ERROR (an exception, a crash
    or a timeout); XFAIL (a declared known failure failed); XPASS (a declared
    known failure passed: the declaration is stale, and the run fails);
    REFUSED (--target T cannot take the spec or run its model: not a broken
    spec; the run passes without it unless --refused fail).

    \b
    Examples:
      spec2onnx validate                              # the bundled suite on onnxruntime's CPU EP
      spec2onnx validate specs/ --target tensorrt-dla # REFUSED where DLA cannot take a spec
      spec2onnx validate s.yaml --target ort-cpu --target tensorrt-dla --fp16   # each case for both
      spec2onnx validate specs/ -j 4 --json r.json --junit r.xml
    """
    options["precision"] = _precision(fp16, int8)
    if list_only:
        listed = api.list_command(paths, **options)
        for line in [f"spec2onnx: warning: {w}" for w in listed.warnings] + ([listed.suite] if listed.suite else []):
            click.echo(line, err=True)
        for case_id in listed.ids:
            click.echo(case_id)
        for _, message in listed.load_errors:
            click.echo(f"ERROR {message}", err=True)
        click.echo(listed.count, err=True)
        sys.exit(listed.status)
    live = api.Live(_say, quiet=quiet, verbose=verbose, refused=options["refused"],
                    terminal=sys.stdout.isatty() and sys.stderr.isatty())

    def started(plan):
        for line in [f"spec2onnx: warning: {w}" for w in plan.warnings]:
            click.echo(line, err=True)
        if plan.suite:
            click.echo(plan.suite)
        for skipped in plan.skipped if verbose else ():
            _say(f"SKIP  {skipped} (not a spec: no top-level 'network' and 'cases', or --exclude)")
        live.start(len(plan.files) * len(plan.every))

    def finished(done):  # (before the reports are written: --json /dev/stdout follows the summary)
        live.progress.clear()
        for line in ["", done.table] if done.results else []:
            _say(line)
        for line in ["\nRuntime disagreements:", *(f"  {d}" for d in done.disagreements)] if done.disagreements else []:
            _say(line)
        for line in [done.host] if done.host else []:  # deployment targets: the CPU EP ran each spec's host copy
            _say(line)
        _say(done.summary)

    done = api.validate_command(paths, jobs=(os.cpu_count() or 1) if jobs is None else jobs, argv=sys.argv,
                                html_path=html_path, on_start=started, on_result=live, on_done=finished, **options)
    for line in done.complaints:
        click.echo(line, err=True)
    sys.exit(done.status)


RUN_EPILOG = """\b
Exit status: 0 every pair of runtimes (and the golden outputs) agrees, or,
with one runtime and no --load-outputs, it ran; 1 an output differs (named,
with its worst element and both values), an output holds a NaN or an
infinity (unless --allow-nonfinite), every output is empty (nothing was
compared), or a runtime cannot run the model (or runs past --timeout);
2 bad input or usage (an unreadable model or profiles metadata, --shapes
that contradict it or lie outside its profile, a --profile it lacks, an
.npz that does not fit it, an unknown runtime or provider, an output naming
a file the run reads: the model, its external data, a --load-* file, also
through a link); 3 an internal
error (a bug in spec2onnx: please report it, with --debug output);
130 interrupted by Ctrl-C, 143 stopped by SIGTERM.
"""
_SPEC_ONLY = ("case_name", "input_files", "output_dir", "opset")
_MODEL_ONLY = ("runtimes", "opt_levels", "seed", "val_ranges", "shapes", "save_inputs", "load_inputs", "save_outputs",
               "load_outputs", "mark_all", "mark_chunk", "allow_nonfinite", "atol", "rtol", "json_path", "junit_path",
               "quiet", "profile", "profile_shapes", "check_error_stat", "fail_fast", "timeout")


@main.command(epilog=RUN_EPILOG)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--runtime", "runtimes", multiple=True, type=click.Choice(["onnxruntime", "onnx-reference", "openvino"]),
              help="MODEL: a runtime to run it on; repeat for several (every pair is compared). Default: onnxruntime "
                   "and onnx-reference (onnx's ReferenceEvaluator, pure Python: slow on big models; --runtime "
                   "onnxruntime alone runs only onnxruntime).")
@click.option("--provider", default="cpu", show_default=True, metavar="NAME",
              help="onnxruntime execution provider: cpu, cuda, tensorrt, dml, openvino, ... (or a full name such as "
                   "CUDAExecutionProvider). Fails, naming what is installed, when this onnxruntime lacks it.")
@click.option("--ort-opt-level", "opt_levels", type=click.Choice(["disabled", "basic", "extended", "all"]),
              multiple=True, help="MODEL: onnxruntime graph optimization level (default all); repeat to run at several "
                                   "(each is one more runtime).")
@click.option("--shapes", "shapes", multiple=True, metavar="NAME:DxD",
              help="MODEL: bind an input's shape, trtexec's syntax: --shapes x:1x3x224x224,y:1x10 (or repeated; "
                   "NAME:[1,3,224,224] too; a name in single quotes is taken as written: 'in:0':1x3). Wins over the "
                   "profile for that input, and must lie in the profile's min..max. A symbolic or unknown dimension "
                   "left unbound (and in no profile) is 1 (said on stderr); a rank or fixed dimension the model "
                   "contradicts is refused (exit 2).")
@click.option("--profile", "profile", type=click.IntRange(min=0), default=None, metavar="N",
              help="MODEL: the optimization profile (0-based, as validate's profile0-min) whose shapes, and shape "
                   "inputs' values, the generated inputs take, for a model that carries profiles (metadata "
                   "spec2onnx.profiles: convert writes them for a dynamic spec). Default 0.")
@click.option("--profile-shapes", "profile_shapes", type=click.Choice(["min", "opt", "max"]), default=None,
              help="MODEL: which of the profile's shapes: min, opt or max (default opt, as trtexec's --optShapes).")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="MODEL: seed of the generated inputs (one stream per input name).")
@click.option("--val-range", "val_ranges", multiple=True, metavar="[NAME:]LOW,HIGH",
              help="MODEL: range of an input's generated values (NAME:LOW,HIGH; LOW,HIGH alone: every input). "
                   "Floats uniform in [LOW, HIGH) (rounded to their type), integers in [LOW, HIGH], bools "
                   "the truth values of those integers; default [0, 1], as Polygraphy's.")
@click.option("--load-inputs", type=click.Path(), default=None, metavar="FILE.npz|DIR",
              help="MODEL: feed these inputs (one array per input name; never unpickled; checked against the model). "
                   "A folder: one test_data_set_N of onnx's layout (its input_K.pb, the K-th input of the model), as "
                   "onnx's backend tests and the model zoo ship them.")
@click.option("--save-inputs", type=click.Path(dir_okay=False), default=None, metavar="FILE.npz",
              help="MODEL: write the inputs fed (one array per input name).")
@click.option("--load-outputs", type=click.Path(), default=None, metavar="FILE.npz|DIR",
              help="MODEL: golden outputs, compared like one more runtime: every runtime against them. A folder: one "
                   "test_data_set_N of onnx's layout (its output_K.pb, the K-th output of the model).")
@click.option("--save-outputs", type=click.Path(dir_okay=False), default=None, metavar="FILE.npz",
              help="MODEL: write the first runtime's outputs (with --mark-all, every tensor), to --load-outputs later.")
@click.option("--mark-all", is_flag=True,
              help="MODEL: compare every tensor a node computes: where outputs differ, the first node (topological "
                   "order) whose output differs is named, the node to look at. The tensors are outputs of the "
                   "runtimes a chunk at a time (--mark-chunk), the walk stopped at that node.")
@click.option("--mark-chunk", "mark_chunk", default=None, metavar="SIZE", callback=_size,
              help="MODEL: with --mark-all, the bytes of tensors one chunk marks at most (and 1024 tensors), e.g. "
                   "256M; default: a quarter of the plain run's peak memory (at least 4M). Smaller: less memory, "
                   "more sessions made.")
@click.option("--allow-nonfinite", is_flag=True,
              help="MODEL: compare NaN and infinite outputs as values: NaN matches NaN, +inf only +inf, -inf only "
                   "-inf, and none of them a number, whatever --atol/--rtol (a note names each such output). "
                   "Default: an output of the model holding a NaN or an infinity fails (exit 1), naming the output, "
                   "the counts and the first index, as Polygraphy's --validate.")
@click.option("--atol", type=_PerOutput(), multiple=True, metavar="[OUTPUT:]VALUE",
              help="MODEL: absolute tolerance (>= 0) for float outputs (default per dtype, as validate's). "
                   + _TOLERANCE_HELP.format("the model"))
@click.option("--rtol", type=_PerOutput(), multiple=True, metavar="[OUTPUT:]VALUE",
              help="MODEL: relative tolerance (>= 0) for float outputs (default per dtype, as validate's). "
                   + _TOLERANCE_HELP.format("the model"))
@click.option("--check-error-stat", "check_error_stat", type=_PerOutput(_ERROR_STATS), multiple=True,
              metavar="[OUTPUT:]STAT", help="MODEL: " + _ERROR_STAT_HELP)
@click.option("--fail-fast", "-x", "fail_fast", is_flag=True,
              help="MODEL: stop at the first failing comparison (or a runtime that cannot run the model), as "
                   "validate's -x: the comparisons not made are named in a note.")
@click.option("--timeout", type=_Timeout(), default=None, metavar="SECONDS",
              help="MODEL: each runtime's time limit (a number > 0; inf: none, the default). A runtime that has not "
                   "finished by then is killed and is an ERROR naming it; the other runtimes still run and compare.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="MODEL: write a JSON report (docs/report-schema.md: validate's, one case per comparison).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="MODEL: write JUnit XML (one test per comparison).")
@html_option("MODEL: the summary table with every comparison's error statistics and margin, the outputs' value "
             "statistics, and for each failing comparison a histogram of the error, error against magnitude and a "
             "heatmap per 2-D slice (the worst element marked, its index written). SPEC: the outputs written and "
             "their value statistics.")
@click.option("-q", "--quiet", is_flag=True, help="MODEL: print only what failed and the summary.")
@click.option("--case", "case_name", default=None, help="SPEC: take the inputs from this case (default: the first case).")
@click.option("--input", "input_files", multiple=True, metavar="NAME=FILE.npy",
              help="SPEC: feed input NAME from a .npy file (overrides the case's data). Repeatable.")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="SPEC: folder for the outputs, written as <output name>.npy.")
@opset_option
@click.option("--max-memory", default=None, metavar="SIZE", callback=_size,
              help="Memory budget, e.g. 2G or 512M (default: 1/8 of the RAM). MODEL: the model with its external data, "
                   "and its inputs; SPEC: the spec's estimated peak. Above it: refused (exit status 2).")
@click.pass_context
@handle_errors
def run(ctx, file, quiet, html_path, **options):
    """Run an ONNX MODEL on several runtimes and compare them, or a SPEC's model and write its outputs.

    \b
    MODEL (a .onnx file, or any file that parses as an ONNX model), as
    `polygraphy run` does: the model is read with its external data (inside
    its folder), its inputs generated from their declared types and shapes
    (or loaded), and it runs on every --runtime; every pair of runtimes is
    compared output by output with validate's comparison and per-dtype
    tolerances, golden outputs (--load-outputs) as one more runtime. A model
    convert wrote from a dynamic spec runs at its first profile's opt shapes
    (and shape inputs' values), as trtexec's --optShapes; --profile and
    --profile-shapes pick others:
      spec2onnx run model.onnx --runtime onnxruntime --runtime openvino
      spec2onnx run model.onnx --shapes x:4x3x224x224 --save-outputs golden.npz
      spec2onnx run model.onnx --load-outputs golden.npz --mark-all
    \b
    SPEC (.yaml, .yml, .json): its model on onnxruntime, on the inputs of a
    case, each output written as <name>.npy (bfloat16 as float32, exactly).
    """
    # the first runtime's session, made in a child process while the model is read (None where it does not apply);
    # stopped when the command ends, however it ends (an error, Ctrl-C), where run_model has not used it
    early = api.begin_run(file, *(options[k] for k in ("runtimes", "provider", "opt_levels", "max_memory")))
    if early is not None:
        ctx.call_on_close(early.stop)
    is_model = api.is_onnx_model(file)
    given = {name for name in ctx.params if ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)}
    wrong = sorted(given & set(_SPEC_ONLY if is_model else _MODEL_ONLY))
    if wrong:
        option = next(p for p in ctx.command.params if p.name == wrong[0]).opts[-1]
        kind = "an ONNX model: --case, --input, -o and --opset are for spec files" if is_model else \
            "a spec file: that option is for ONNX models (run MODEL.onnx)"
        raise UserError(f"{option}: {file} is {kind}")
    if not is_model:
        for name, path, array in api.run_spec(file, html_path=html_path, argv=sys.argv,
                                              **{k: options[k] for k in (*_SPEC_ONLY, "provider", "max_memory")}):
            click.echo(f"wrote {path}  {array.dtype}{list(array.shape)}  ({name})")
        return
    def ran(done):  # (before the reports are written: --json /dev/stdout follows the summary)
        _say(done.header())
        for note in done.notes:
            click.echo(f"note: {note}", err=True)
        for line in ([done.marked_line()] if done.marked else []) + (done.ran_lines() if not quiet else []):
            _say(line)
        for line in (line for r in done.results if not quiet or r.outcome != "PASS" for line in api.case_lines(r)):
            _say(line)
        _say("")
        _say(done.summary())

    done = api.run_command(file, early, argv=sys.argv, html_path=html_path, on_done=ran,
                           progress=None if quiet else lambda line: click.echo(line, err=True),
                           **{k: v for k, v in options.items() if k not in _SPEC_ONLY})
    sys.exit(done.status)


_REDUCE_SPEC_ONLY = ("case_name", "opset", "plugins")


@main.command(epilog=EPILOG)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, metavar="SMALL.onnx",
              help="The reduced model; its inputs are written beside it, as SMALL.inputs.npz.")
@click.option("--runtime", "runtimes", multiple=True, type=click.Choice(["onnxruntime", "onnx-reference", "openvino"]),
              help="A runtime to run it on, as run's; repeat for several. Default: onnxruntime and onnx-reference.")
@click.option("--provider", default="cpu", show_default=True, metavar="NAME", help="onnxruntime execution provider, as run's.")
@click.option("--ort-opt-level", "opt_levels", type=click.Choice(["disabled", "basic", "extended", "all"]),
              multiple=True, help="onnxruntime graph optimization level, as run's (default all); repeatable.")
@click.option("--shapes", "shapes", multiple=True, metavar="NAME:DxD", help="Bind an input's shape, as run's.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of the generated inputs.")
@click.option("--val-range", "val_ranges", multiple=True, metavar="[NAME:]LOW,HIGH",
              help="Range of an input's generated values, as run's.")
@click.option("--load-inputs", type=click.Path(), default=None, metavar="FILE.npz|DIR", help="Feed these inputs, as run's.")
@click.option("--load-outputs", type=click.Path(), default=None, metavar="FILE.npz|DIR",
              help="Golden outputs, as run's: the first --runtime is checked against them, and a candidate is cut "
                   "only at tensors they hold (fed with their values). Of the model's outputs alone, nothing can be "
                   "cut; `run --mark-all --save-outputs` gives every tensor.")
@click.option("--atol", type=_PerOutput(), multiple=True, metavar="[OUTPUT:]VALUE",
              help="Absolute tolerance, as run's. " + _TOLERANCE_HELP.format("the model"))
@click.option("--rtol", type=_PerOutput(), multiple=True, metavar="[OUTPUT:]VALUE",
              help="Relative tolerance, as run's. " + _TOLERANCE_HELP.format("the model"))
@click.option("--check-error-stat", "check_error_stat", type=_PerOutput(_ERROR_STATS), multiple=True,
              metavar="[OUTPUT:]STAT", help=_ERROR_STAT_HELP)
@click.option("--allow-nonfinite", is_flag=True, help="Compare NaN and infinite outputs as values, as run's.")
@click.option("--max-memory", default=None, metavar="SIZE", callback=_size,
              help="Memory budget, e.g. 2G or 512M (default: 1/8 of the RAM), as run's.")
@click.option("--check", "check", default=None, metavar="CMD",
              help="Decide with this command instead of the comparison: a candidate still fails where CMD exits "
                   "with a status other than 0. {model} in CMD is replaced by the candidate's path, {inputs} by its "
                   "inputs (.npz); run without a shell (quote as a shell would). The comparison's runtimes still "
                   "give the values fed to a candidate.")
@click.option("--case", "case_name", default=None, metavar="NAME",
              help="SPEC: the case to look at (default: each in turn, up to the first that fails).")
@opset_option
@plugin_option
@html_option("the reduced subgraph drawn (the nodes whose outputs differ highlighted) and its comparison, with "
             "the pictures of run --html.")
@click.pass_context
@handle_errors
def reduce(ctx, file, output, html_path, **options):
    """Reduce an ONNX model to the smallest subgraph whose outputs still differ,
    or name the layer of a spec whose lowering first differs from the reference.

    \b
    As `polygraphy debug reduce --mode bisect`, then `--mode linear`, with
    run's own comparison as the check: one run of the whole model with every
    tensor marked gives each tensor's value on the first runtime; a candidate
    subgraph takes the tensors it reads but does not compute as inputs, fed
    with those values; bisection finds the shortest failing stretch of nodes
    (topological order), then each node whose removal keeps the failure goes.
    Writes SMALL.onnx, SMALL.inputs.npz beside it, and prints the run command
    that shows the failure. Progress on stderr; Ctrl-C keeps the smallest
    failing model found so far (exit 130). Exit 0: nothing differs (nothing
    written); 1: reduced; 2: bad input.
      spec2onnx reduce model.onnx --runtime onnxruntime --runtime onnx-reference -o small.onnx
    
    SPEC (.yaml, .yml, .json): lowered as validate lowers it, run on
    onnxruntime with every tensor marked; names the first layer (the
    network's order) whose output differs from its reference on its own
    inputs, its lowered nodes, and the first of them whose output differs
    between onnxruntime and onnx-reference; writes those nodes as
    SMALL.onnx with SMALL.inputs.npz and SMALL.outputs.npz (the reference).
      spec2onnx reduce spec.yaml -o small.onnx
    """
    given = {n for n in ctx.params if ctx.get_parameter_source(n) not in (None, click.core.ParameterSource.DEFAULT)}
    is_model = api.is_onnx_model(file)
    wrong = sorted(given & set(_REDUCE_SPEC_ONLY) if is_model else
                   given - {"file", "output", "max_memory", *_REDUCE_SPEC_ONLY})
    if wrong:
        option = next(p for p in ctx.command.params if p.name == wrong[0]).opts[-1]
        raise UserError(f"{option}: {file} is an ONNX model: --case, --opset and --plugin are for spec files" if is_model
                        else f"{option}: {file} is a spec file: that option is for ONNX models (reduce MODEL.onnx)")
    progress = lambda line: click.echo(line, err=True)  # noqa: E731
    done = (api.reduce_command(file, output, progress=progress, html_path=html_path, argv=sys.argv,
                               **{k: v for k, v in options.items() if k not in _REDUCE_SPEC_ONLY}) if is_model else
            api.reduce_spec_command(file, output, progress=progress,
                                    **{k: options[k] for k in (*_REDUCE_SPEC_ONLY, "max_memory")}))
    for line in done.lines():
        _say(line)
    sys.exit(done.status)


@main.group(cls=click.Group)
def report():
    """Work with JSON reports (validate --json, run --json)."""


@report.command("merge", epilog="""\b
Exit status: as the whole run would have had it: 0 every case passed; 1 a
case failed, a shard is missing or was interrupted; 2 bad input (a report
that cannot be read: a field named, seconds not finite, N above 1,000,000;
reports of different runs, a shard or a case given twice) or a spec that
was not loaded; 3 a case met an internal error.
""")
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the merged JSON report (docs/report-schema.md).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the merged JUnit XML.")
@handle_errors
def merge(reports, json_path, junit_path):
    """Merge the JSON reports of one run's shards (validate --shard I/N --json) into one.

    The reports must belong to one run: the same spec2onnx, onnx and onnxruntime
    versions and the same options (--shard, the report paths, -j, -q and -v may
    differ); a shard or a case given twice is refused; the shards missing from
    1..N are named as ranges (2-9/10), and fail the merge. Prints the run's
    summary table.
    """
    def merged(done):  # (before the merged reports are written)
        for line in [done.table] if done.table else []:
            _say(line)
        _say(done.summary)
        for line in done.problems:
            click.echo(f"spec2onnx: error: {line}", err=True)

    sys.exit(api.merge_command(reports, json_path=json_path, junit_path=junit_path, on_done=merged).status)


CHECK_EPILOG = """\b
Examples:
  spec2onnx check model.onnx                        # portable: ort-cpu, ort-cuda, tensorrt, openvino
  spec2onnx check models/ --target tensorrt -q      # every *.onnx under models/, errors only
  spec2onnx check model.onnx --target openvino --probe   # ask the installed OpenVINO
  spec2onnx check model.onnx --target tensorrt --layers  # the TensorRT layers the importer builds

\b
Exit status: 0 every node of every file runs on every target (warnings allowed);
1 some node does not run on some target;
2 a file cannot be read as an ONNX model (the others are still checked),
or bad usage (an unknown target, a --plugin that does not import);
3 an internal error (a bug in spec2onnx: please report it, with --debug output);
130 interrupted by Ctrl-C, 143 stopped by SIGTERM.
"""


@main.command(epilog=CHECK_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--target", "targets", multiple=True, metavar="TARGET", cls=TargetOption,
              after="Default: portable. Repeatable: each file is read once and checked for each; a portable target's "
                    "lines leave out the problems of a member also named (they are that member's).")
@click.option("-v", "--verbose", is_flag=True, help="One line per node with a problem (default: one line per distinct "
                                                     "problem, with its node count, op forms and first nodes).")
@click.option("-q", "--quiet", is_flag=True, help="Errors and verdicts only: no warning lines (each verdict still "
                                                   "counts the warnings).")
@click.option("--json", "json_path", default=None, metavar="FILE",
              help="Write every file's verdicts and problems as JSON (schema: docs/check.md).")
@click.option("--layers", is_flag=True,
              help="tensorrt, tensorrt-dla: also print the TensorRT layers onnx-tensorrt builds from each model, with "
                   "their attributes (the importer view, docs/tensorrt.md).")
@click.option("--probe", is_flag=True,
              help="Ask the installed runtime instead of the tables where it is installed (onnxruntime: a session on "
                   "that EP without CPU fallback; OpenVINO: read_model of the file path, as the static check models "
                   "it, + query_model + compile); a line per target says whether "
                   "its verdict was probed or static (docs/ground-truth.md).")
@html_option("per file and target the verdict, its problems, and the graph drawn with each node coloured by "
             "its verdict (red: does not run, amber: a warning, green: runs; at most 200 nodes drawn).")
@plugin_option
@precision_options("for the tensorrt targets")
@max_memory_option("one model")
@handle_errors
def check(paths, json_path, html_path, fp16, int8, **options):
    """Check that TARGET can run each ONNX model in PATHS (files, or folders: their *.onnx, recursively).

    Untrusted files are read for their structure only: regular files of at most
    2 GiB, external data never read, --max-memory honoured (docs/check.md).
    onnx's checker runs first (a graph with a cycle runs nowhere). Problems are
    summarised: one line per distinct problem with its node count; -v lists
    every node, -q only errors. Several files: a table per target at the end.
    """
    def checked(report):
        if report.error is not None:
            click.echo(f"spec2onnx: error: {report.error.splitlines()[0]}", err=True)
        for line in report.lines:
            _say(line)

    def table(done):  # (before --json is written)
        for line in [done.table] if done.table else []:
            _say(line)

    done = api.check_command(paths, precision=_precision(fp16, int8), json_path=json_path, json=json_path is not None,
                             html_path=html_path, argv=sys.argv, on_file=checked,
                             warn=lambda line: click.echo(f"spec2onnx: warning: {line}", err=True), on_done=table,
                             **options)
    if done.status:
        sys.exit(done.status)


@main.command(epilog=EPILOG)
@handle_errors
def layers():
    """List the supported layer kinds with their inputs, attributes and allowed values."""
    click.echo(api.describe_layers())


if __name__ == "__main__":
    main()
