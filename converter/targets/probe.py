"""``spec2onnx check --probe``: ask the installed runtime itself, where there is one, instead of the tables.

The static check (check.py: tables and rules) stays the default and is what docs/ground-truth.md measures.
With ``probe=True`` each target whose runtime is installed is asked:

- ort-cpu / ort-cuda: onnxruntime builds an InferenceSession on that execution provider alone, with
  ``session.disable_cpu_ep_fallback`` (a node the EP does not take fails the session instead of moving to
  the CPU). A session that builds means every node has a kernel there; the inputs are not run.
- openvino: ``Core.read_model`` + ``Core.query_model(model, "CPU")`` (the nodes the CPU plugin does not take,
  by name) + ``compile_model`` at f32.

Other targets (tensorrt, tensorrt-dla) and targets whose runtime is absent keep the static verdict; the
output says which is which. Static warnings (known numerical differences) are kept with a probed verdict.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from dataclasses import dataclass

import onnx

from .check import Problem, check_model
from .profiles import PROFILES

_EP = {"ort-cpu": "CPUExecutionProvider", "ort-cuda": "CUDAExecutionProvider"}


@dataclass
class Verdict:
    target: str
    how: str  # "probed: <runtime>" or "static: ..."
    problems: list[Problem]


def members(target: str) -> list[str]:
    return list(PROFILES[target].get("all_of", [target]))


def check(model: onnx.ModelProto, target: str, probe: bool = False) -> list[Verdict]:
    """One verdict per target ``target`` stands for (portable: each of its members)."""
    out = []
    for name in members(target):
        static = check_model(model, name)
        asked = _probe(model, name) if probe else None
        if asked is None:
            why = "" if not probe else f" ({_why_static(name)})"
            out.append(Verdict(name, f"static: tables and rules{why}", static))
        else:
            runtime, problems = asked
            # known numerical differences stay; "not measured" is what the probe just answered
            kept = [p for p in static if p.severity != "error" and not p.reason.startswith("not measured")]
            out.append(Verdict(name, f"probed: {runtime}", problems + kept))
    return out


def _why_static(name: str) -> str:
    if name in _EP:
        if importlib.util.find_spec("onnxruntime") is None:
            return "onnxruntime is not installed"
        return f"this onnxruntime has no {_EP[name]}"
    if name == "openvino":
        return "OpenVINO is not installed"
    return "no runtime to ask here"


def _probe(model: onnx.ModelProto, name: str):
    """(runtime description, problems) from the runtime itself; None when it cannot be asked here."""
    if name in _EP and importlib.util.find_spec("onnxruntime") is not None:
        return _onnxruntime(model, name)
    if name == "openvino" and importlib.util.find_spec("openvino") is not None:
        return _openvino(model, name)
    return None


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:400]


def _onnxruntime(model: onnx.ModelProto, name: str):
    import onnxruntime as ort

    provider = _EP[name]
    if provider not in ort.get_available_providers():
        return None
    options = ort.SessionOptions()
    options.log_severity_level = 4
    if provider != "CPUExecutionProvider":  # onnxruntime refuses the option on a session of the CPU EP itself
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    runtime = f"onnxruntime {ort.__version__} {provider} (session built" + (
        ")" if provider == "CPUExecutionProvider" else ", no CPU fallback)")
    try:
        ort.InferenceSession(model.SerializeToString(), options, providers=[provider])
    except Exception as exc:  # noqa: BLE001 - any refusal is the answer
        return runtime, [Problem(name, "", "", f"onnxruntime refuses the model: {_first_line(exc)}")]
    return runtime, []


def _openvino(model: onnx.ModelProto, name: str):
    import openvino as ov

    core = ov.Core()
    runtime = f"OpenVINO {ov.get_version().split('-')[0]} CPU (query_model + compile_model)"
    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(model.SerializeToString())
        try:
            ov_model = core.read_model(path)
        except Exception as exc:  # noqa: BLE001 - the ONNX frontend cannot convert it
            return runtime, [Problem(name, "", "", f"OpenVINO cannot read the model: {_first_line(exc)}")]
    finally:
        os.unlink(path)
    problems = []
    try:
        supported = core.query_model(ov_model, "CPU")
    except Exception as exc:  # noqa: BLE001
        supported = None
        problems.append(Problem(name, "", "", f"OpenVINO's query_model fails: {_first_line(exc)}"))
    if supported is not None:
        missing = [op.get_friendly_name() for op in ov_model.get_ordered_ops() if op.get_friendly_name() not in supported]
        if missing:
            problems.append(Problem(name, "", "", f"the CPU plugin does not take {len(missing)} operation(s): "
                                                  f"{', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}"))
    try:
        core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    except Exception as exc:  # noqa: BLE001
        problems.append(Problem(name, "", "", f"OpenVINO's CPU plugin does not compile it: {_first_line(exc)}"))
    return runtime, problems
