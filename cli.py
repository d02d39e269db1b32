"""spec2onnx command line: a thin layer over the ``converter`` library."""

from __future__ import annotations

import functools
import sys
import traceback
from pathlib import Path

import click

from converter import __version__

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

EPILOG = """\b
Exit status: 0 everything passed; 1 a case failed or errored;
2 bad input or usage (a malformed spec, a missing file, an unknown provider);
3 an internal error (a bug in spec2onnx: please report it, with --debug output).
"""


def _fail(message: str, code: int) -> None:
    click.echo(f"spec2onnx: error: {message}", err=True)
    sys.exit(code)


def handle_errors(command):
    """Turn library errors into one line on stderr and the documented exit status."""

    @functools.wraps(command)
    def wrapper(*args, debug: bool = False, **kwargs):
        from converter.errors import InternalError, UserError

        try:
            return command(*args, **kwargs)
        except UserError as exc:
            _fail(str(exc), EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except (InternalError, Exception) as exc:  # noqa: BLE001 - anything else is our bug
            if debug:
                traceback.print_exc()
            where = f" (spec: {kwargs.get('spec')})" if kwargs.get("spec") else ""
            _fail(f"internal error{where}: {type(exc).__name__}: {str(exc).rstrip('.')}. This is a bug in spec2onnx; "
                  "rerun with --debug and report the output.", EXIT_INTERNAL)

    return click.option("--debug", is_flag=True, help="Show the Python traceback of an internal error.")(wrapper)


provider_option = click.option(
    "--provider", default="cpu", show_default=True, metavar="NAME",
    help="onnxruntime execution provider: cpu, cuda, tensorrt, dml, openvino, ... (or a full name such as "
         "CUDAExecutionProvider). Fails, naming what is installed, when this onnxruntime lacks it; "
         "non-CPU providers never fall back to the CPU silently.")
opset_option = click.option(
    "--opset", type=int, default=None, metavar="N",
    help="Target ONNX opset (13 up to the newest the installed onnxruntime loads). "
         "Default: the spec's own 'opset', else 17.")


@click.group(epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
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
    """


@main.command(epilog=EPILOG)
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the model. Default: <spec name>.onnx in the current folder.")
@opset_option
@provider_option
@handle_errors
def convert(spec, output, opset, provider):
    """Convert SPEC to an ONNX model that any ONNX runtime loads.

    The model's inputs and outputs carry the spec's tensor names. It passes
    onnx's full checker before it is written; the file is written atomically.
    """
    from converter.api import convert_spec

    model, path = convert_spec(spec, output, opset=opset, provider=provider)
    click.echo(f"wrote {path} (opset {model.opset_import[0].version}, {len(model.graph.node)} nodes)")


@main.command(epilog=EPILOG)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@provider_option
@opset_option
@click.option("--ort-opt-level", "opt_levels", type=click.Choice(["disabled", "basic", "extended", "all"]),
              multiple=True, default=("all",), show_default=True,
              help="onnxruntime graph optimization level; repeat to run every case at several levels.")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@handle_errors
def validate(paths, provider, opset, opt_levels, quiet):
    """Validate specs: run every case on onnxruntime and compare.

    PATHS are spec files or folders (searched recursively for .yaml, .yml and
    .json). Without PATHS, the bundled conformance suite is validated.

    Each case is checked three ways: onnxruntime against the numpy reference,
    and both against the spec's expected values when it has them. One line per
    case, then a summary.
    """
    from converter.api import run_validation

    counts = {"PASS": 0, "FAIL": 0, "ERROR": 0}
    bad_input = False
    for result in run_validation(paths, provider=provider, opset=opset, opt_levels=opt_levels):
        counts[result.outcome] += 1
        bad_input |= result.bad_input
        if result.outcome != "PASS" or not quiet:
            click.echo(f"{result.outcome:5} {result.id}" + (f"  [{result.seconds * 1000:.1f} ms]" if result.outcome == "PASS" else ""))
        for problem in result.problems:
            click.echo(f"      {problem}")
    total = sum(counts.values())
    click.echo(f"{total} case{'s' * (total != 1)}: {counts['PASS']} passed, {counts['FAIL']} failed, {counts['ERROR']} errors")
    if bad_input:
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(EXIT_OK if counts["PASS"] == total and total else EXIT_FAILED)


@main.command(epilog=EPILOG)
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--case", "case_name", default=None, help="Take the inputs from this case (default: the first case).")
@click.option("--input", "input_files", multiple=True, metavar="NAME=FILE.npy",
              help="Feed input NAME from a .npy file (overrides the case's data). Repeatable.")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Folder for the outputs, written as <output name>.npy.")
@provider_option
@opset_option
@handle_errors
def run(spec, case_name, input_files, output_dir, provider, opset):
    """Run SPEC's model on onnxruntime and write its outputs as .npy files."""
    from converter.api import run_spec

    for name, path, array in run_spec(spec, case_name, input_files, output_dir, provider=provider, opset=opset):
        click.echo(f"wrote {path}  {array.dtype}{list(array.shape)}  ({name})")


@main.command(epilog=EPILOG)
@handle_errors
def layers():
    """List the supported layer kinds with their inputs, attributes and allowed values."""
    from converter.api import describe_layers

    click.echo(describe_layers())


if __name__ == "__main__":
    main()
