"""Measure how the way OpenVINO reads an ONNX model changes its answer: ``Core.read_model(path)``,
``Core.read_model(bytes)`` and ``openvino.convert_model(path)``, each then compiled on the CPU plugin at f32.

The three go through the same ONNX frontend but not the same way: from a path the frontend reads the file
itself (and resolves external data beside it); from bytes it gets the serialized model as a memory stream;
convert_model runs the frontend through the model conversion API (ovc) with its own transformations. On
OpenVINO 2026.4 they disagree on some of onnx's node test cases. spec2onnx models the file path, as a
deployment reads a model (converter/runners/openvino.py, converter/process/runtime_child.py openvino_model,
tools/measure_openvino.py all read a path); this tool lists the cases where another path answers otherwise.

Usage: ``python -m tools.openvino_read_paths [--out FILE.json] [-k SUBSTRING ...]`` (needs openvino). Prints
one line per case whose three outcomes are not all the same, and a count; ``--out`` writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import warnings

PATHS = ("read_model(path)", "read_model(bytes)", "convert_model(path)")


def _first_line(exc: BaseException) -> str:
    from tools.measure_openvino import summary

    return summary(str(exc) or type(exc).__name__)


def outcomes(core, data: bytes) -> dict[str, str | None]:
    """Each way of reading ``data`` (a serialized ONNX model) -> None when it reads and compiles, else why not."""
    import openvino as ov

    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        readers = {"read_model(path)": lambda: core.read_model(path),
                   "read_model(bytes)": lambda: core.read_model(data),
                   "convert_model(path)": lambda: ov.convert_model(path)}
        out = {}
        for name, read in readers.items():
            try:
                core.compile_model(read(), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
                out[name] = None
            except Exception as exc:  # noqa: BLE001 - any refusal is the measurement
                out[name] = _first_line(exc)
        return out
    finally:
        os.unlink(path)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.openvino_read_paths", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the differing cases as JSON here")
    parser.add_argument("-k", action="append", default=[], help="only cases whose name contains this (repeatable)")
    args = parser.parse_args(argv)
    import onnx
    import openvino as ov
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    core = ov.Core()
    differing, count = {}, 0
    for case in cases:
        if args.k and not any(k in case.name for k in args.k):
            continue
        count += 1
        answer = outcomes(core, case.model.SerializeToString())
        if len({a is None for a in answer.values()}) > 1:
            differing[case.name] = answer
            shown = ", ".join(f"{p}: {'compiles' if a is None else 'refused'}" for p, a in answer.items())
            print(f"{case.name}: {shown}", flush=True)
    print(f"{len(differing)} of {count} node test cases of onnx {onnx.__version__} differ between "
          f"{', '.join(PATHS)} on OpenVINO {ov.get_version()}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump({"openvino": ov.get_version(), "onnx": onnx.__version__, "cases": count,
                       "differing": differing}, handle, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
