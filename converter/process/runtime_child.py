"""What runs in a child process when spec2onnx asks an installed runtime about itself (converter/process/isolated.py).

A runtime's own calls can take the process that makes them down: onnxruntime-gpu 1.31.1's
``get_all_opkernel_def()`` dies of SIGSEGV on a machine with a GPU and raises "CUDA failure 100" on one
without (issue 24), and a session built for an untrusted model may crash or hang. So these calls are made
here, in a fresh interpreter that ``isolated.ask`` starts, times out and kills; spec2onnx reads the answers.

This file is run as the child's program (its source is given to ``python -c``, after a line that sets
``sys.path`` to the parent's: the child imports the same onnxruntime the parent would). It imports nothing
of spec2onnx and only the standard library until a task imports its runtime; ``registry_rows`` is also
imported by converter/targets/ort_kernels.py (tools and tests use it on ``get_all_opkernel_def()`` entries).

Protocol: stdin holds one JSON line (the request: ``{"task": ...}``) and, for the session tasks, the model's
bytes after it. Each answer is one stdout line ``MARK + JSON``; lines without MARK (a runtime's own prints)
are ignored. An exception a task raises is an ``{"stage": "error", "at": stage, "error": text}`` answer.
"""

import base64
import json
import os
import re
import sys
import tempfile

MARK = "\x1es2o-answer "
_INT_MAX = 2**31 - 1


def answer(**fields) -> None:
    sys.stdout.write(MARK + json.dumps(fields) + "\n")
    sys.stdout.flush()  # each answer reaches the parent before the next call, which may crash


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")[:400]


# -- onnxruntime: what the build is, the newest opset and IR version it loads, its kernel registry -----------

def _type_name(onnx_type: str) -> str | None:
    """'tensor(float)' -> 'float'; sequences, maps, optionals and sparse tensors -> None (not tensor kernels)."""
    if onnx_type.startswith("tensor(") and onnx_type.endswith(")"):
        return onnx_type[len("tensor("):-1]
    return None


def _merge(rows: list[dict]) -> list[dict]:
    """Rows of one version range merged where that adds no type combination (they differ in one constraint)."""
    merged: list[dict] = []
    for row in rows:
        for other in merged:
            if other["types"].keys() != row["types"].keys():
                continue
            differ = [c for c in row["types"] if set(row["types"][c]) != set(other["types"][c])]
            if len(differ) <= 1:
                for c in differ:
                    other["types"][c] = sorted(set(other["types"][c]) | set(row["types"][c]))
                break
        else:
            merged.append({"start": row["start"], "end": row["end"], "types": {c: list(v) for c, v in row["types"].items()}})
    return merged


def registry_rows(kernel_defs, provider: str) -> dict[str, dict[str, list[dict]]]:
    """domain ('' for ai.onnx) -> op -> rows, from ``get_all_opkernel_def()`` entries of ``provider``.

    A row is ``{"start", "end", "types": {constraint: [type]}}``; ``end`` None is onnxruntime's open range
    (INT_MAX), which matches since-version ``start`` only (kernel_registry.cc VerifyKernelDef)."""
    grouped: dict[tuple, list[dict]] = {}
    for k in kernel_defs:
        if k.provider != provider:
            continue
        start, end = k.version_range
        types = {}
        for constraint, allowed in sorted(k.type_constraints.items()):
            names = sorted({n for n in map(_type_name, allowed) if n})
            if names:
                types[constraint] = names
        row = {"start": start, "end": None if end >= _INT_MAX else end, "types": types}
        grouped.setdefault((k.domain, k.op_name, start, row["end"]), []).append(row)
    out: dict[str, dict[str, list[dict]]] = {}
    for (domain, op, _, _), rows in sorted(grouped.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[0][2])):
        unique = []
        for row in rows:
            if row not in unique:
                unique.append(row)
        out.setdefault(domain, {}).setdefault(op, []).extend(_merge(unique))
    return out


def _loads(ort, model: bytes) -> bool:
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        return True
    except Exception:  # noqa: BLE001 - any refusal means "not this one"
        return False


def onnxruntime_build(request: dict) -> None:
    """Answers in the order that keeps the most when a later call crashes: the version and providers, each
    probe (the first of its models, newest first, that a CPU session loads), whether each listed provider but
    the CPU's can be created here, then the registry's rows. Each risky call is announced first ("begin"), so
    that the parent knows which one a crash or a hang was in."""
    stage = "import"
    try:
        answer(stage="begin", at="import")
        import onnxruntime as ort

        providers = [str(p) for p in ort.get_available_providers()]
        answer(stage="import", version=str(ort.__version__), providers=providers)
        for name, models in request.get("probes", {}).items():
            stage = "probe"
            answer(stage="begin", at="probe", name=name)
            found = next((value for value, model in models if _loads(ort, base64.b64decode(model))), None)
            answer(stage="probe", name=name, value=found)
        if request.get("provider_probe"):
            model = base64.b64decode(request["provider_probe"])
            for provider in providers:
                if provider in request.get("not_probed", ()):
                    continue
                stage = "provider"
                answer(stage="begin", at="provider", name=provider)
                answer(stage="provider", name=provider, **_creates(ort, provider, model))
        if request.get("providers"):
            stage = "registry"
            answer(stage="begin", at="registry")
            from onnxruntime.capi import onnxruntime_pybind11_state as state

            defs = state.get_all_opkernel_def()
            answer(stage="registry", tables={p: registry_rows(defs, p) for p in request["providers"]})
    except Exception as exc:  # noqa: BLE001 - the parent falls back, and says why
        answer(stage="error", at=stage, error=_first_line(exc))


def _creates(ort, provider: str, model: bytes) -> dict:
    """Whether onnxruntime creates ``provider`` here: it only logs one it cannot (CUDA without a GPU or its
    libraries) and goes on without it. {"ok": bool, "error": the first error of its log}."""
    with _log_to_file() as log:
        try:
            created = ort.InferenceSession(model, providers=[provider]).get_providers()
        except Exception as exc:  # noqa: BLE001
            return {"ok": False, "error": _reason(exc)}
    if provider in created:
        return {"ok": True}
    return {"ok": False, "error": _log_reason(log.read()) or f"onnxruntime went on with {', '.join(created)}"}


# -- check --probe: a session for the model on one execution provider alone; OpenVINO's CPU plugin -----------

def onnxruntime_session(request: dict, model: bytes) -> None:
    """Whether a session of ``model`` builds on the provider alone (no CPU fallback). First, for a provider other
    than the CPU's, whether onnxruntime can create it here at all (a one-node model; onnxruntime only logs a
    provider it cannot create, CUDA without a GPU or its libraries, and goes on without it)."""
    stage = "import"
    try:
        import onnxruntime as ort

        provider = request["provider"]
        answer(stage="import", version=str(ort.__version__), providers=[str(p) for p in ort.get_available_providers()])
        options = ort.SessionOptions()
        options.log_severity_level = 4
        if provider != "CPUExecutionProvider":  # onnxruntime refuses the option on a session of the CPU EP itself
            stage = "provider"
            usable = _creates(ort, provider, base64.b64decode(request["probe"]))
            answer(stage="provider", name=provider, **usable)
            if not usable["ok"]:
                return
            options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        stage = "session"
        try:
            ort.InferenceSession(model, options, providers=[provider])
        except Exception as exc:  # noqa: BLE001 - any refusal is the answer
            answer(stage="session", ok=False, error=_reason(exc))
            return
        answer(stage="session", ok=True)
    except Exception as exc:  # noqa: BLE001
        answer(stage="error", at=stage, error=_first_line(exc))


class _log_to_file:
    """File descriptor 2 (where onnxruntime's C++ logger writes) into a temporary file while the block runs."""

    def __enter__(self):
        self.file = tempfile.TemporaryFile()
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
        return False

    def read(self) -> str:
        self.file.seek(0)
        return self.file.read(1 << 16).decode("utf-8", "replace")


def _log_reason(log: str) -> str:
    """The first error of onnxruntime's log, without colours, time stamp and source location."""
    for line in log.splitlines():
        line = "".join(part.split("m", 1)[-1] if i else part for i, part in enumerate(line.split("\x1b[")))
        if "[E:" in line or "Failed" in line:
            return re.sub(r"^[\s:\d]*[A-Z_]+\s*:\s*", "", line.rsplit("] ", 1)[-1].strip())[:300]  # ": 1 : FAIL : "
    return ""


def openvino_model(request: dict, model: bytes) -> None:  # noqa: ARG001 - every session task gets the request
    """read_model, query_model on the CPU plugin (the friendly names it does not take), compile_model at f32."""
    stage = "import"
    try:
        import openvino as ov

        core = ov.Core()
        answer(stage="import", version=ov.get_version().split("-")[0])
        stage = "read"
        fd, path = tempfile.mkstemp(suffix=".onnx")  # (the ONNX frontend reads a file)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(model)
            try:
                ov_model = core.read_model(path)
            except Exception as exc:  # noqa: BLE001 - the ONNX frontend cannot convert it
                answer(stage="read", ok=False, error=_openvino_reason(exc))
                return
        finally:
            os.unlink(path)
        answer(stage="read", ok=True)
        stage = "query"
        try:
            supported = core.query_model(ov_model, "CPU")
            missing = [op.get_friendly_name() for op in ov_model.get_ordered_ops() if op.get_friendly_name() not in supported]
            answer(stage="query", ok=True, missing=missing)
        except Exception as exc:  # noqa: BLE001
            answer(stage="query", ok=False, error=_openvino_reason(exc))
        stage = "compile"
        try:
            core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            answer(stage="compile", ok=True)
        except Exception as exc:  # noqa: BLE001
            answer(stage="compile", ok=False, error=_openvino_reason(exc))
    except Exception as exc:  # noqa: BLE001
        answer(stage="error", at=stage, error=_first_line(exc))


def _reason(exc: BaseException) -> str:
    """The first line of a runtime's message (without the exception's type: the message is the runtime's)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:400]


# OpenVINO's messages open with where they were thrown and what failed ("Exception from src/.../core.cpp:84:", "Check
# 'false' failed at ...cpp:151:", "FrontEnd API failed with OpConversionFailure:", "Model wasn't fully converted.",
# "Summary:"), name the node ("While validating ONNX node '<Node(Pad): y>':", "-- Pad-25 with a message:") and only then
# say why ("Unsupported padding mode: [wrap]", "-- No conversion rule found for operations: util::SequenceInsert").
_OV_WHERE = re.compile(r"\s*(Exception from|Check '.*' failed at) \S+:\d+:?$")
_OV_FRAMING = re.compile(r"FrontEnd API failed with \w+:|Summary:|Model wasn't fully converted\.( Failed operations "
                         r"detailed log:)?|While validating .*:|-- .* with a message:")


def _openvino_reason(exc: BaseException) -> str:
    """The line of OpenVINO's message that says why (its framing lines above left out), else _reason's."""
    for line in str(exc).splitlines():
        line = _OV_WHERE.sub("", line.strip())
        if line and not _OV_FRAMING.fullmatch(line):
            return line.removeprefix("-- ").rstrip(":")[:400]
    return _reason(exc)


TASKS = {"onnxruntime-build": onnxruntime_build, "onnxruntime-session": onnxruntime_session,
         "openvino-model": openvino_model}


def main() -> None:
    stdin = sys.stdin.buffer
    request = json.loads(stdin.readline())
    task = TASKS[request["task"]]
    if task is onnxruntime_build:
        task(request)
    else:
        task(request, stdin.read())
    answer(stage="done")


if __name__ == "__main__":
    main()
