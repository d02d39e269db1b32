"""Reproductions of failing cases: the model, its inputs and outputs, and the commands that run them again.

A reproduction folder stands by itself: ``command.txt`` names the spec by its absolute path (the run's working
folder is recorded nowhere else), and the model alone runs again from the folder with ``spec2onnx run``, on
``inputs.npz`` against ``reference.npz`` or ``expected.npz`` at the case's tolerances (run reads .npz files and
onnx's ``input_K.pb`` folders, not one .npy per tensor).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from ..files import save_arrays, save_npy_atomic, write_atomic
from ..installed.providers import short_provider


def repro_parts(result, target: str = "") -> tuple[str, str, str]:
    """The reproduction's folder below --repro-dir: ``<spec>/<case>/<configuration>``, e.g.
    ``trt-scale-seed-4d/doc-example/onnxruntime-cpu-all``; with ``target`` (--target given: the target the case ran
    for), ``<target>-<configuration>``, so that the targets of one run do not share a folder.

    One folder level per part, so no two cases share a folder (spec ``a__b`` case ``c`` and spec ``a``
    case ``b__c`` once did): spec and case names cannot hold '/' or be '.' or '..' (``converter.names.NAME_RULE``),
    and the configuration is built from runtime, provider and optimization level, which tell configurations apart.
    """
    config = (f"{target}-" if target else "") + result.runtime
    if result.runtime == "onnxruntime":
        config += f"-{short_provider(result.provider)}-{result.opt_level}"
    return _component(result.spec), _component(result.case), _component(config)


def _component(text: str) -> str:
    """One safe folder name: names already are (the spec's name rule); anything else is made so, readably."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", text)
    return safe if safe.strip(".") else f"_{safe}"


def command_for(result, options=None) -> str:
    """The spec2onnx command that runs exactly this case again, with the options that decide its outcome."""
    args = ["spec2onnx", "validate", os.path.abspath(result.path), "-k", f"={result.spec}/{result.case}", "--runtime", result.runtime,
            "--opset", str(result.opset)]
    if result.runtime == "onnxruntime":
        args += ["--provider", result.provider, "--ort-opt-level", result.opt_level]
    if options is not None:
        if options.target_label:  # the target the case ran for (auto's choice), and what its build allows
            args += ["--target", result.target or options.target_label]
        for precision in options.precision:
            args += [f"--{precision}"]
        tol = options.tolerance
        for flag, value in (("--atol", tol and tol.atol), ("--rtol", tol and tol.rtol), ("--ulp", tol and tol.ulp)):
            if value is not None:
                args += [flag, str(value)]
        if options.xfail_file:
            args += ["--xfail-file", os.path.abspath(options.xfail_file)]
        for plugin in options.plugins:
            args += ["--plugin", plugin]
    return shlex.join(args)


def run_command(result, golden: str) -> str:
    """``spec2onnx run`` of the folder's model on the case's runtime configuration, its inputs and the outputs it
    failed against (``golden``: reference or expected; "" none), with the tolerances of the failing comparisons."""
    args = ["spec2onnx", "run", "model.onnx", "--runtime", result.runtime]
    if result.runtime == "onnxruntime":
        args += ["--provider", short_provider(result.provider), "--ort-opt-level", result.opt_level]
    args += ["--load-inputs", "inputs.npz"]
    if golden:
        args += ["--load-outputs", f"{golden}.npz"]
        tolerances = {c["output"]: c["tolerance"] for c in result.comparisons
                      if c.get("against") == golden and c.get("actual") != "reference" and c.get("tolerance")}
        for output, tol in tolerances.items():
            for flag in ("atol", "rtol"):
                if tol.get(flag) is not None:
                    args += [f"--{flag}", f"{output}:{tol[flag]!r}"]
    return shlex.join(args)


def _golden(result, want: dict | None, expected: dict) -> str:
    """What the run line compares with: the reference where the runtime failed against it, else the spec's expected
    values (the runtime failed against those, or agreed with a reference that does not), else the reference."""
    against = {c.get("against") for c in result.comparisons if c.get("actual") != "reference" and not c.get("passed")}
    if want and "reference" in against:
        return "reference"
    if expected:
        return "expected"
    return "reference" if want else ""


def write_repro(root: str, result, model_bytes: bytes, case, got: dict | None, want: dict | None, options=None) -> Path:
    folder = Path(root).joinpath(*repro_parts(result, result.target if options is not None and options.target_label else ""))
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / "model.onnx", model_bytes)
    for name, array in case.inputs.items():
        save_npy_atomic(folder / f"input.{name}.npy", array)
    for prefix, arrays in (("output", got), ("reference", want), ("expected", case.expected)):
        for name, array in (arrays or {}).items():
            save_npy_atomic(folder / f"{prefix}.{name}.npy", array)
    save_arrays("--repro-dir", folder / "inputs.npz", dict(case.inputs))
    golden = _golden(result, want, case.expected)
    if golden:
        save_arrays("--repro-dir", folder / f"{golden}.npz", dict(want if golden == "reference" else case.expected))
    text = (f"{command_for(result, options)}\n# {result.outcome}: " + "\n# ".join(result.problems) + "\n"
            f"# the model alone, run from this folder (against {golden or 'no'} outputs):\n{run_command(result, golden)}\n")
    write_atomic(folder / "command.txt", text.encode())
    return folder
