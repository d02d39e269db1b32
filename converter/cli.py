"""spec2onnx command line (``spec2onnx.cli``, the console script; ``python cli.py`` in a checkout): each command turns
its options (parsed by cli_options.py) into one library call (``api``), and the report into text and an exit status."""

from __future__ import annotations

import functools
import gc
import os
import sys
from pathlib import Path

import click

from . import __version__, api  # (api: a front door that imports each name on first use; --help imports none)
from .cli_options import (ONNX_FOLDER, OPT_LEVELS, RUNTIMES, command_path, for_kind, html_option, max_memory_option,
                          model_options, opset_option, path_option, plugin_option, precision_options, provider_option,
                          names_stdout, read_command, refuse_timeout_in_process, report_options, size, target_option, timeout_option,
                          tolerance_options)
from .cli_options import flush_stdout as _flush, live_line as _line, say as _say
from .errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, InternalError, UserError
from .process.interrupts import Terminated, exit_status, terminate_as_interrupt

VALIDATE_EXITS = """\b
Exit status: 0 everything passed (known failures allowed, and REFUSED cases unless --refused fail);
1 a case failed, errored or passed unexpectedly (XPASS), was REFUSED with
--refused fail, or no case ran (every one REFUSED), or fewer than --min-cases;
2 bad input or usage (a malformed spec, a missing file, an unknown provider or runtime);
3 an internal error (a bug in spec2onnx: please report it, with --debug output);
130 interrupted by Ctrl-C, 143 stopped by SIGTERM (kill, timeout, a CI
cancel): in both cases the reports of what finished are still written. Where several apply: 130/143, 3, 2, 1.
"""
EXITS = ("2 bad input or usage (one line naming the file and the field); 3 an internal error (a bug in spec2onnx: please "
         "report it, with --debug output); 130 interrupted by Ctrl-C, 143 stopped by SIGTERM.")
_err = functools.partial(click.echo, err=True)


def _fail(message: str, code: int, whole: bool = False) -> None:
    _flush()  # (what validate printed comes before the error line)
    lines = message.strip().splitlines() or [""]  # one line, always (but the help a bare command shows, whole)
    _err(message if whole else f"spec2onnx: error: {lines[0]}" + (" (...)" if len(lines) > 1 else ""))
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
            where = next((f" ({k}: {kwargs[k]})" for k in ("spec", "file") if kwargs.get(k)), "")  # run's: either
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
            bare = isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ()))  # `spec2onnx`, `spec2onnx report`
            _fail(exc.format_message() if bare else f"{exc.format_message().rstrip('.')} (see "
                  f"'{command_path(self, exc, prog_name, args)} --help')", EXIT_BAD_INPUT, whole=bare)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.Abort, EOFError, KeyboardInterrupt):
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_FAILED)
        sys.exit(value if isinstance(value, int) else EXIT_OK)


def console() -> None:
    """The console script: ``main()``, then gc.freeze (the collections at exit walked every object of onnx,
    onnxruntime and numpy: 60-100 ms a command). Tests call ``main``, and keep collecting."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")  # (onnxruntime's import wrote a device id and a database under
    try:  # HOME, and warned where HOME cannot be written: a command writes the outputs named, its cache, nothing else)
        main()
    finally:
        gc.freeze()


@click.group(cls=_Group, epilog="Exit status, for every command: 0 everything passed; 1 a case or a comparison failed, or a "
             f"model does not run on its target (each command's --help says which); {EXITS}", context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="spec2onnx")
def main():
    """Lower TensorRT / DirectML layer specs to ONNX and validate them on onnxruntime.

    A spec (YAML or JSON) describes a network of layers with the source runtime's semantics (trt.Scale,
    trt.ElementWise, ...) and cases to check it with. Every case runs on onnxruntime and is compared with an
    independent numpy reference and with the expected values written in the spec.

    \b
    Start with:
      spec2onnx validate                 # the bundled conformance suite
      spec2onnx layers                   # what layer kinds and attributes exist
      spec2onnx convert my.yaml -o my.onnx
      spec2onnx run my.onnx              # any ONNX model on several runtimes, compared
    """


@main.command(epilog=f"Exit status: 0 the model written; {EXITS} Nothing is written unless the model passes.")
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@path_option("-o", "--output", dir_okay=False, dash_is_stdout=True, help="Output model (default: ./<spec name>.onnx; - is stdout).")
@opset_option
@target_option("Also auto: portable where the spec fits it, else the spec's own runtime family (tensorrt for trt.* "
               "layers), said on stderr. Default: what --provider implies (cuda: ort-cuda), else auto.")
@click.option("--provider", default=None, metavar="NAME", help="Lower for this onnxruntime execution provider's target "
              "(cpu: ort-cpu, cuda: ort-cuda, tensorrt: tensorrt, openvino: openvino); it need not be installed.")
@plugin_option
@precision_options("(beyond the spec's own precision field)")
@max_memory_option("spec")
@handle_errors
def convert(spec, **options):
    """Convert SPEC to an ONNX model that TARGET runs fully.

    The model keeps the spec's tensor names, passes onnx's full checker and the target's static check (spec2onnx
    check) and is written atomically; a node the target cannot run is an error (exit status 2, nothing written).
    Without --opset: for ort-cuda and tensorrt the highest opset at or below the spec's at which the target runs
    every node (said on stderr); with none at all, 17 or the lowest at which it does (tensorrt-dla, DirectML's f16 DQ: 19).
    """
    done = api.convert_command(spec, **options)
    _say(*([f"target auto: {done.auto}"] if done.auto else []), *([f"note: {done.note}"] if done.note else []),
         *([f"spec2onnx: warning: {done.warning}"] if done.warning else []), err=True)
    click.echo(done.line, err=names_stdout(options["output"]))  # (a model on stdout: no text after it)


@main.command(epilog=VALIDATE_EXITS)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=None, metavar="N", help="Worker processes (default: "
              "the CPU count), each running whole specs, a crashed or hung one replaced; 0: in this process, no --timeout.")
@timeout_option("Per case: a longer one is an ERROR, its worker replaced. A number > 0; inf: no timeout.", default=60.0)
@click.option("-k", "patterns", multiple=True, metavar="PATTERN", help="Run only cases whose id (spec/case) contains "
              "PATTERN, matches it as a glob (* ? [), or, written =ID, is exactly ID. Repeat to match any.")
@click.option("--exclude", "excludes", multiple=True, metavar="GLOB", help="Skip files in the folders searched whose "
              "path (relative to the folder, or as found) or name matches GLOB (a folder: all in it). Repeatable.")
@click.option("--shard", default=None, metavar="I/N", help="Run the I-th of N deterministic slices of the suite "
              "(round-robin over the sorted spec files); N at most 1,000,000.")
@click.option("--fail-fast", "-x", is_flag=True, help="Stop at the first failure or error.")
@click.option("--list", "list_only", is_flag=True, help="List the case ids that would run, and stop (exit 1 where none would).")
@click.option("--runtime", "runtimes", multiple=True, default=("onnxruntime",), show_default=True, type=RUNTIMES,
              help="Runtime(s) to validate on; several: each compared with the reference, their disagreements listed.")
@provider_option("; with a non-CPU provider the first run is profiled, and a compute node onnxruntime placed on the "
                 "CPU fails the case (the shape computations it keeps on the CPU by design are allowed and named)")
@target_option("Also auto: per spec, what convert's default chooses. A case the target refuses (the spec, or a node of "
               "its model) is REFUSED: see --refused. Default: what --provider implies (cpu: ort-cpu), and ids "
               "without [TARGET].", several=True)
@precision_options("for the tensorrt targets (beyond each spec's own precision field)")
@click.option("--refused", type=click.Choice(["skip", "fail"]), default="skip", show_default=True, help="A REFUSED "
              "case is counted and the run passes without it (skip), or fails it (fail); a run whose every case is "
              "refused fails either way.")
@opset_option
@click.option("--ort-opt-level", "opt_levels", type=OPT_LEVELS, multiple=True, default=("all",), show_default=True,
              help="onnxruntime graph optimization level; repeat to run every case at several levels.")
@tolerance_options("", "overrides specs", "any spec of the run")
@click.option("--ulp", type=click.IntRange(min=0), help="Also accept float elements at most this many ULPs apart.")
@click.option("--xfail-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="YAML list of known failures ({spec, case, runtime, provider, opt_level, machine, target, reason}).")
@click.option("--min-cases", type=click.IntRange(min=0), default=0, metavar="N", help="Fail if fewer than N cases ran.")
@report_options("Write a JSON report (schema: docs/report-schema.md).", "Write JUnit XML for CI systems.")
@html_option("the summary table with every comparison's error statistics and margin, and {pictures}.")
@path_option("--repro-dir", metavar="DIR", file_okay=False, help="For every failing case, write its model, inputs, "
             "outputs and the command that reproduces it.")
@plugin_option
@path_option("--save-host-model", "host_dir", metavar="DIR", file_okay=False, help="With --target tensorrt or "
             "tensorrt-dla: write each host-legalized copy the CPU EP runs as DIR/<spec>.host.onnx (several --target: "
             "DIR/<target>/<spec>.host.onnx); a warning says where none is written. docs/deployment.md.")
@max_memory_option("spec")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures, known failures and the summary (no progress "
              "bar; REFUSED cases only with --refused fail, else counted).")
@click.option("-v", "--verbose", is_flag=True, help="Print a line for every case, also on a terminal.")
@handle_errors
def validate(paths, list_only, jobs, quiet, verbose, **options):
    """Validate specs: run every case on a runtime and compare.

    PATHS: spec files (always loaded) or folders, searched recursively for .yaml, .yml and .json files with both
    'network' and 'cases', or a network with 'profiles' (-v lists the others); none: ./specs in a spec2onnx
    checkout, else the suite installed with it (the first line says which). Each case's output is compared with the numpy reference, and both with the spec's
    expected values where it has them. A line per case in CI logs and with -v; on a terminal, a progress bar and the
    cases that did not pass. Then a summary table per layer kind and outcome.

    Outcomes: PASS; FAIL (a comparison failed); ERROR (an exception, a crash or a timeout); XFAIL (a declared known
    failure failed); XPASS (a declared known failure passed: the declaration is stale, and the run fails); REFUSED
    (--target T cannot take the spec or run its model: not a broken spec; the run passes without it unless --refused
    fail).

    \b
    Examples:
      spec2onnx validate                              # the bundled suite on onnxruntime's CPU EP
      spec2onnx validate specs/ --target tensorrt-dla # REFUSED where DLA cannot take a spec
      spec2onnx validate s.yaml --target ort-cpu --target tensorrt-dla --fp16   # each case for both
      spec2onnx validate specs/ -j 4 --json r.json --junit r.xml
    """
    refuse_timeout_in_process(jobs, options["timeout"])
    if list_only:
        listed = api.list_command(paths, **options)
        _say(*(f"spec2onnx: warning: {w}" for w in listed.warnings), *filter(None, [listed.suite]), err=True)
        click.echo("".join(f"{case_id}\n" for case_id in listed.ids), nl=False)
        _say(*(f"ERROR {message}" for _, message in listed.load_errors), listed.count, *listed.complaints, err=True)
        sys.exit(listed.status)
    live = api.Live(_line, quiet=quiet, verbose=verbose, refused=options["refused"],
                    terminal=sys.stdout.isatty() and sys.stderr.isatty())

    def started(plan):
        _flush()
        _say(*(f"spec2onnx: warning: {w}" for w in plan.warnings), err=True)
        _say(*([plan.suite] if plan.suite else []), *(f"SKIP  {s} (not a spec: no top-level 'network' and 'cases' "
                                                       "or network profiles, or --exclude)" for s in plan.skipped if verbose))
        live.start(len(plan.files) * len(plan.every))

    def finished(done):  # (before the reports are written: --json /dev/stdout follows the summary)
        _flush()
        live.progress.clear()
        _say(*(["", done.table] if done.results else []), *(["\nRuntime disagreements:", *(f"  {d}" for d in
             done.disagreements)] if done.disagreements else []), *([done.host] if done.host else []), done.summary)

    done = api.validate_command(paths, jobs=(os.cpu_count() or 1) if jobs is None else jobs, argv=sys.argv,
                                on_start=started, on_result=live, on_done=finished, on_idle=_flush, **options)
    _flush()
    _say(*done.complaints, err=True)
    sys.exit(done.status)


@main.command(epilog="""Exit status: 0 every pair of runtimes (and the golden outputs) agrees, or, with one runtime and
no --load-outputs, it ran; 1 an output differs (named, with its worst element and both values), an output holds a NaN or
an infinity (unless --allow-nonfinite), every output is empty (nothing was compared), or a runtime cannot run the model
(or runs past --timeout); 2 bad input or usage (an unreadable model or profiles metadata, --shapes that contradict it or
lie outside its profile, a --profile it lacks, an .npz that does not fit it, an unknown runtime or provider, an output
naming a file the run reads: the model, its external data, a --load-* file, also through a link); 3 an internal error (a
bug in spec2onnx: please report it, with --debug output); 130 interrupted by Ctrl-C, 143 stopped by SIGTERM.""")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@model_options("golden outputs, compared like one more runtime: every runtime against them. " + ONNX_FOLDER)
@click.option("--profile", type=click.IntRange(min=0), default=None, metavar="N", help="MODEL: the optimization "
              "profile (0-based, as validate's profile0-min; metadata spec2onnx.profiles, which convert writes for a "
              "dynamic spec) whose shapes, and shape inputs' values, the generated inputs take. Default 0.")
@click.option("--profile-shapes", type=click.Choice(["min", "opt", "max"]), help="MODEL: which of the profile's "
              "shapes: min, opt or max (default opt, as trtexec's --optShapes).")
@path_option("--save-inputs", metavar="FILE.npz", dir_okay=False, help="MODEL: write the inputs fed (per input name).")
@path_option("--save-outputs", metavar="FILE.npz", dir_okay=False, help="MODEL: write the first runtime's outputs "
             "(with --mark-all, every tensor), to --load-outputs later.")
@click.option("--mark-all", is_flag=True, help="MODEL: compare every tensor a node computes, a chunk at a time "
              "(--mark-chunk): where outputs differ, the first node (topological order) whose output differs is named.")
@click.option("--mark-chunk", default=None, metavar="SIZE", callback=size, help="MODEL: with --mark-all, the bytes of "
              "tensors one chunk marks at most (and 1024 tensors), e.g. 256M; default: a quarter of the plain run's "
              "peak memory (at least 4M). Smaller: less memory, more sessions.")
@tolerance_options("MODEL: ", "default per dtype, as validate's", "the model")
@click.option("--fail-fast", "-x", is_flag=True, help="MODEL: stop at the first failing comparison (or a runtime that "
              "cannot run the model), as validate's -x; a note names the comparisons not made.")
@timeout_option("MODEL: each runtime's time limit (a number > 0; inf: none, the default); past it, the runtime is "
                "killed and is an ERROR naming it, and the others still run and compare.")
@report_options("MODEL: write a JSON report (docs/report-schema.md: validate's, one case per comparison).",
                "MODEL: write JUnit XML (one test per comparison).")
@html_option("MODEL: the summary table with every comparison's error statistics and margin, the outputs' value "
             "statistics, and {pictures}. SPEC: the outputs written and their value statistics.")
@click.option("-q", "--quiet", is_flag=True, help="MODEL: print only what failed and the summary.")
@click.option("--case", "case_name", default=None,
              help="SPEC: take the inputs from this case (default: the first, named on stderr).")
@click.option("--input", "input_files", multiple=True, metavar="NAME=FILE.npy",
              help="SPEC: feed input NAME from a .npy file (overrides the case's data). Repeatable.")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="SPEC: folder for the outputs, written as <output name>.npy.")
@opset_option
@max_memory_option()
@click.pass_context
@handle_errors
def run(ctx, file, quiet, **options):
    """Run an ONNX MODEL on several runtimes and compare them, or a SPEC's model and write its outputs.

    MODEL (any file that parses as an ONNX model), as `polygraphy run`: read with its external data (inside its
    folder), its inputs generated from their types and shapes (or loaded), run on every --runtime; every pair of
    runtimes, and golden outputs, compared output by output with validate's comparison and per-dtype tolerances. A
    model with profiles (convert, dynamic spec) runs at the first one's opt shapes (--profile, --profile-shapes):

    \b
      spec2onnx run model.onnx --runtime onnxruntime --runtime openvino
      spec2onnx run model.onnx --shapes x:4x3x224x224 --save-outputs golden.npz
      spec2onnx run model.onnx --load-outputs golden.npz --mark-all

    SPEC (.yaml, .yml, .json): its model on onnxruntime, on the inputs of a case, each output written as <name>.npy
    (bfloat16 as float32, exactly).
    """
    # the first runtime's session, started in a child while the model is read; stopped however the command ends
    early = api.begin_run(file, *(options[k] for k in ("runtimes", "provider", "opt_levels", "max_memory")))
    if early is not None:
        ctx.call_on_close(early.stop)
    model, options = for_kind(ctx, file, options, ("case_name", "input_files", "output_dir", "opset"),
                              "--case, --input, -o and --opset", ("provider", "html_path", "max_memory"))
    if not model:
        def chosen(case: str) -> None:  # (no --case: say which ran)
            _say(f"case {case} (the spec's first; --case picks another)", err=True)

        for name, path, array in api.run_spec(file, argv=sys.argv, on_case=chosen, **options):
            click.echo(f"wrote {path}  {array.dtype}{list(array.shape)}  ({name})")
        return

    def ran(done):  # (before the reports are written: --json /dev/stdout follows the summary)
        _say(done.header())
        _say(*(f"note: {note}" for note in done.notes), err=True)
        _say(*([done.marked_line()] if done.marked else []), *(done.ran_lines() if not quiet else []), *(line for r in
             done.results if not quiet or r.outcome != "PASS" for line in api.case_lines(r)), "", done.summary())

    done = api.run_command(file, early, argv=sys.argv, on_done=ran, progress=None if quiet else _err, **options)
    sys.exit(done.status)


@main.command(epilog="Exit status: 0 nothing differs (nothing written); 1 MODEL: reduced, SMALL.onnx written; SPEC: a "
               f"layer named, its nodes written; {EXITS} Ctrl-C keeps the smallest failing model so far.")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, metavar="SMALL.onnx",
              help="The reduced model; its inputs are written beside it, as SMALL.inputs.npz.")
@model_options("golden outputs, as run's: the first --runtime is checked against them, and a candidate is cut only at "
               "tensors they hold (fed with their values): of the model's outputs alone, nothing; `run --mark-all "
               "--save-outputs` gives every tensor.")
@tolerance_options("MODEL: ", "default per dtype, as validate's", "the model")
@max_memory_option()
@click.option("--check", metavar="CMD", help="Decide with this command instead of the comparison: a candidate fails "
              "where CMD exits other than 0 ({model}: its path, {inputs}: its inputs .npz; run without a shell, quoted "
              "as a shell would). The comparison's runtimes still give the values fed to a candidate.")
@click.option("--case", "case_name", metavar="NAME", help="SPEC: the case to look at (default: each until one fails).")
@opset_option
@plugin_option
@html_option("the reduced subgraph drawn (the nodes whose outputs differ highlighted) and its comparison, with "
             "the pictures of run --html.")
@click.pass_context
@handle_errors
def reduce(ctx, file, output, **options):
    """Reduce an ONNX model to the smallest subgraph whose outputs still differ,
    or name the layer of a spec whose lowering first differs from the reference.

    MODEL: as `polygraphy debug reduce --mode bisect`, then `--mode linear`, with run's comparison as the check (the
    run with every tensor marked gives the values a candidate subgraph is fed). Writes SMALL.onnx and SMALL.inputs.npz,
    and prints the run command that shows the failure. Progress on stderr.

    \b
      spec2onnx reduce model.onnx --runtime onnxruntime --runtime onnx-reference -o small.onnx

    SPEC (.yaml, .yml, .json): lowered as validate does; names the first layer whose output differs from its
    reference, and the first of its nodes whose output differs between onnxruntime and onnx-reference; writes those
    nodes as SMALL.onnx with SMALL.inputs.npz and SMALL.outputs.npz (the reference).

    \b
      spec2onnx reduce spec.yaml -o small.onnx
    """
    model, options = for_kind(ctx, file, options, ("case_name", "opset", "plugins"), "--case, --opset and --plugin",
                              ("output", "max_memory"))
    done = (api.reduce_command(file, output, progress=_err, argv=sys.argv, **options) if model else
            api.reduce_spec_command(file, output, progress=_err, **options))
    _say(*done.lines())
    sys.exit(done.status)


@main.group(cls=click.Group)
def report():
    """Work with JSON reports (validate --json, run --json)."""


@report.command("merge", epilog="""Exit status: as the whole run would have had it: 0 every case passed; 1 a case
failed, a shard is missing or was interrupted; 2 bad input (a report that cannot be read: a field named, seconds not
finite, N above 1,000,000; reports of different runs, a shard or a case given twice) or a spec that was not loaded; 3 a
case met an internal error.""")
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@report_options("Write the merged JSON report (docs/report-schema.md).", "Write the merged JUnit XML.")
@handle_errors
def merge(reports, json_path, junit_path):
    """Merge the JSON reports of one run's shards (validate --shard I/N --json) into one.

    The reports must belong to one run: the same spec2onnx, onnx and onnxruntime versions, options that mean the same
    (--shard, reports, --html, -j, -q, -v may differ; --atol=1 is --atol 1); a shard or a case given twice is refused;
    the shards missing from 1..N are named as ranges (2-9/10), and fail the merge. Prints the run's summary table."""
    def merged(done):  # (before the merged reports are written)
        _say(*([done.table] if done.table else []), done.summary)
        _say(*(f"spec2onnx: error: {line}" for line in done.problems), err=True)
    sys.exit(api.merge_command(reports, json_path=json_path, junit_path=junit_path, on_done=merged,  # (read: what
                               read_command=functools.partial(read_command, main)).status)  # the options mean)


@main.command(epilog="""\b
Examples:
  spec2onnx check model.onnx                        # portable: ort-cpu, ort-cuda, tensorrt, openvino
  spec2onnx check models/ --target tensorrt -q      # every *.onnx under models/, errors only
  spec2onnx check model.onnx --target openvino --probe   # ask the installed OpenVINO
  spec2onnx check model.onnx --target tensorrt --layers  # the TensorRT layers the importer builds

Exit status: 0 every node of every file runs on every target (warnings allowed); 1 some node does not run on some
target; 2 a file cannot be read as an ONNX model (the others are still checked), or bad usage (an unknown target, a
--plugin that does not import); 3 an internal error (a bug in spec2onnx: please report it, with --debug output); 130
interrupted by Ctrl-C, 143 stopped by SIGTERM.""")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@target_option("Default: portable. Repeatable: each file is read once and checked for each; a portable target's lines "
               "leave out the problems of a member also named (they are that member's).", lower=False, several=True)
@click.option("-v", "--verbose", is_flag=True, help="One line per node with a problem (default: one line per distinct "
              "problem, with its node count, op forms and first nodes).")
@click.option("-q", "--quiet", is_flag=True, help="Errors and verdicts only (each verdict still counts the warnings).")
@path_option("--json", "json_path", dir_okay=False, dash_is_stdout=True, help="Verdicts, problems (docs/check.md); - is stdout.")
@click.option("--layers", is_flag=True, help="tensorrt, tensorrt-dla: also print the TensorRT layers onnx-tensorrt "
              "builds from each model, with their attributes (the importer view, docs/tensorrt.md).")
@click.option("--probe", is_flag=True, help="Ask the installed runtime instead of the tables where it is installed "
              "(onnxruntime: a session on that EP without CPU fallback; OpenVINO: read_model + query_model + compile); "
              "a line per target says whether its verdict was probed or static (docs/ground-truth.md).")
@html_option("per file and target the verdict, its problems, and the graph drawn with each node coloured by "
             "its verdict (red: does not run, amber: a warning, green: runs; at most 200 nodes drawn).")
@plugin_option
@precision_options("for the tensorrt targets")
@max_memory_option("model")
@handle_errors
def check(paths, json_path, **options):
    """Check that TARGET can run each ONNX model in PATHS (files, or folders: their *.onnx, recursively).

    Untrusted files are read for their structure only: regular files of at most 2 GiB, external data never read,
    --max-memory honoured (docs/check.md). onnx's checker runs first (a graph with a cycle runs nowhere). Problems are
    summarised: one line per distinct problem with its node count; -v lists every node, -q only errors. Several files:
    a table per target at the end.
    """
    done = api.check_command(paths, json_path=json_path, json=json_path is not None, argv=sys.argv,
                             on_file=lambda report: _say(*report.lines) if report.error is None else _err(
                                 f"spec2onnx: error: {report.error.splitlines()[0]}"),  # (a file not read: no lines)
                             warn=lambda line: _err(f"spec2onnx: warning: {line}"),
                             on_done=lambda done: done.table and _say(done.table), **options)  # (before --json)
    sys.exit(done.status)


@main.command()
@handle_errors
def layers():
    """List the supported layer kinds with their inputs, attributes and allowed values."""
    click.echo(api.describe_layers())


if __name__ == "__main__":
    main()
