"""``spec2onnx check --probe``: ask the installed runtime itself, where there is one, instead of the tables.

The static check (check.py: tables and rules) stays the default and is what docs/ground-truth.md measures.
With ``probe=True`` each target whose runtime is installed is asked:

- ort-cpu / ort-cuda: onnxruntime builds an InferenceSession on that execution provider alone, with
  ``session.disable_cpu_ep_fallback`` (a node the EP does not take fails the session instead of moving to
  the CPU). A session that builds means every node has a kernel there; the inputs are not run.
- openvino: ``Core.read_model(path)`` of the model written to a file (the way the static check models, profiles.py
  OPENVINO_READS: read_model(bytes) and convert_model answer otherwise on some models) + ``Core.query_model(model, "CPU")`` (the nodes the CPU plugin does not take,
  by name) + ``compile_model`` at f32.

Each runtime is asked in a child process (converter/process/isolated.py): a runtime that crashes on the model (dies
of a signal) gives the verdict "does not run"; one that cannot be asked (a timeout, an import that fails, an
execution provider onnxruntime cannot create on this machine, such as CUDA without a GPU or its libraries)
leaves the static verdict, and says why. Other targets (tensorrt, tensorrt-dla) and targets whose runtime is
absent keep the static verdict; the output says which is which. Static warnings (known numerical differences) are kept with a probed verdict,
and so are the static errors of limits the runtime enforces only when it runs the node (``at_run`` in profiles.py: a
Resize whose constant sizes give a scale <= 0), which neither probe sees.
"""

from __future__ import annotations

import importlib.util
from base64 import b64encode
from dataclasses import dataclass

import onnx

from ..process import isolated
from ..installed import ort_build
from ..installed.opset import MIN_OPSET, ir_version_for, probe_model
from .check import Problem, check_model
from .target import Target, resolve_target


@dataclass
class Verdict:
    target: str
    how: str  # "probed: <runtime>" or "static: ..."
    problems: list[Problem]


def check(model: onnx.ModelProto, target: Target | str, probe: bool = False) -> list[Verdict]:
    """One verdict per target ``target`` (a Target, or a name resolved here) stands for (portable: each of its
    members)."""
    out = []
    for member in resolve_target(target).checked:
        name = member.name
        static = check_model(model, member)
        asked = _probe(model, member) if probe else None
        if asked is None or isinstance(asked, str):
            why = "" if asked is None else f" ({asked})"
            out.append(Verdict(name, f"static: tables and rules{why}", static))
        else:
            runtime, problems = asked
            # known numerical differences stay; "not measured" is what the probe just answered; an error the runtime
            # gives only when it runs the node stays too (the probe runs nothing)
            kept = [p for p in static if (p.severity != "error" and not p.reason.startswith("not measured"))
                    or (p.severity == "error" and p.at_run)]
            out.append(Verdict(name, f"probed: {runtime}", problems + kept))
    return out


def _probe(model: onnx.ModelProto, target: Target):
    """(runtime description, problems) from the runtime itself, or why it could not be asked here (a str): the
    runtime the target's profile names (``probe``)."""
    how = target.probe
    if how.get("runtime") == "onnxruntime":
        if not ort_build.installed():
            return "onnxruntime is not installed"
        return _onnxruntime(model, target.name, how["provider"])
    if how.get("runtime") == "openvino":
        if importlib.util.find_spec("openvino") is None:
            return "OpenVINO is not installed"
        return _openvino(model, target.name)
    return "no runtime to ask here"


def _unanswered(runtime: str, reply: isolated.Reply, name: str):
    """The child ended before the verdict. Died of a signal while the runtime held the model: the model does
    not run there (a problem). Anything else (a timeout, the runtime not importable): the static verdict, and why."""
    if reply.crashed:
        return runtime, [Problem(name, "", "", f"the runtime crashed on the model ({reply.failure})")]
    return f"the runtime could not be asked: {reply.failure}"


def _onnxruntime(model: onnx.ModelProto, name: str, provider: str):
    build = ort_build.build()
    if build is not None and build.providers and provider not in build.providers:
        return f"this onnxruntime has no {provider}"
    if ort_build.unusable(provider) is not None:  # (asked once per build and machine)
        return f"{build.name} cannot create {provider} here: {ort_build.unusable(provider)}"
    request = {"provider": provider, "probe": b64encode(probe_model(MIN_OPSET, ir_version_for(MIN_OPSET))).decode()}
    reply = isolated.ask("onnxruntime-session", request, model.SerializeToString())
    version = (reply.first("import") or {}).get("version", "?")
    runtime = f"onnxruntime {version} {provider} (session built" + (
        ")" if provider == "CPUExecutionProvider" else ", no CPU fallback)")
    usable, built = reply.first("provider"), reply.first("session")
    if usable is not None and not usable.get("ok"):
        return f"onnxruntime {version} cannot create {provider} here: {usable.get('error') or 'see its log'}"
    if built is None:
        return _unanswered(runtime, reply, name)
    if built.get("ok"):
        return runtime, []
    return runtime, [Problem(name, "", "", f"onnxruntime refuses the model: {built.get('error', '')}")]


def _openvino(model: onnx.ModelProto, name: str):
    reply = isolated.ask("openvino-model", {}, model.SerializeToString())
    runtime = f"OpenVINO {(reply.first('import') or {}).get('version', '?')} CPU (read_model(file path) + query_model + compile_model)"
    read = reply.first("read")
    if read is not None and not read.get("ok"):
        return runtime, [Problem(name, "", "", f"OpenVINO cannot read the model: {read.get('error', '')}")]
    query, compiled = reply.first("query"), reply.first("compile")
    if read is None or compiled is None:
        return _unanswered(runtime, reply, name)
    problems = []
    if not query.get("ok"):
        problems.append(Problem(name, "", "", f"OpenVINO's query_model fails: {query.get('error', '')}"))
    elif query.get("missing"):
        missing = [str(m) for m in query["missing"]]
        problems.append(Problem(name, "", "", f"the CPU plugin does not take {len(missing)} operation(s): "
                                              f"{', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}"))
    if not compiled.get("ok"):
        problems.append(Problem(name, "", "", f"OpenVINO's CPU plugin does not compile it: {compiled.get('error', '')}"))
    return runtime, problems
