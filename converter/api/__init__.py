"""The front of the library: the documented Python API (what ``import spec2onnx`` offers: the package
re-exports the names in ``__all__``) and the one call behind each CLI command, each returning a report
object that the CLI (cli.py) turns into text and an exit status.

::

    import spec2onnx

    spec = spec2onnx.load_spec("specs/trt_scale/seed-scale-4d.yaml")   # a path, or a mapping
    conversion = spec2onnx.convert(spec, target="ort-cpu")            # conversion.model: onnx.ModelProto
    report = spec2onnx.validate(spec)                                 # every case, on onnxruntime
    assert report.ok, report.summary()
    checked = spec2onnx.check(["a.onnx", "models/"], target="tensorrt")  # what `spec2onnx check` prints

Anything wrong with what the caller gave raises ``UserError`` (``SpecError`` for a spec), whose
message names the file or ``<dict>``, the field, the value and what is allowed; ``InternalError``
is a bug in spec2onnx.

A front door, as the package's ``__init__``: each name is imported from the module that defines it on first
use (``_NAMES``), so that ``spec2onnx --help`` imports nothing of it, ``run MODEL`` no lowering, and
``validate`` and ``convert`` no model run (issue 34: start-up time; tests/test_startup.py).
"""

from __future__ import annotations

import importlib

# name -> the module of the package (relative to it) that defines it
_NAMES = {
    # the Python API (README, "Python API"; docs/api.md)
    **dict.fromkeys(("load_spec", "convert", "validate", "plain_data", "Conversion", "ValidationReport", "SpecSource"),
                    "api.specs"),
    **dict.fromkeys(("check", "CheckReport", "CheckRun", "check_command"), "api.checking"),
    **dict.fromkeys(("ModelRun", "RunOptions", "make_run_options", "run_model"), "model.run"),  # run MODEL's
    # the one call behind each command, and what the CLI needs to turn options into it
    **dict.fromkeys(("convert_command", "validate_command", "list_command", "run_spec", "merge_command",
                     "describe_layers", "load_plugins", "convert_spec", "run_validation", "run_targets",
                     "intra_op_threads", "usable_cores", "verdict", "host_line", "unwritten_host_models",
                     "save_host_models", "save_host_models_per_target", "check_tolerance_outputs"), "api.specs"),
    **dict.fromkeys(("make_options", "precision_unused", "auto_candidates"), "pipeline.stages"),
    "run_command": "model.run",
    "reduce_command": "model.reduce",
    "reduce_spec_command": "spec_reduce",
    "begin_run": "model.start",
    **dict.fromkeys(("Live", "case_lines"), "report"),  # the terminal's lines of a run's results
    "parse_size": "budget",  # --max-memory SIZE
    "is_onnx_model": "untrusted.reading",
}

__all__ = ["load_spec", "convert", "validate", "check", "plain_data", "Conversion", "ValidationReport",
           "CheckReport", "CheckRun", "SpecSource"]

_RENAMED = {"begin_run": "begin"}  # the name here -> its name in its module


def __getattr__(name: str):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__.rpartition('.')[0]}.{_NAMES[name]}")
    value = getattr(module, _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES))
