"""The installed onnxruntime build, as it answers about itself in a child process, kept per build in the cache.

What spec2onnx asks onnxruntime before any model of the user's runs: its version and providers, the newest
opset and IR version a CPU session loads (converter/installed/opset.py's probe models), and its kernel registry
(``get_all_opkernel_def()``, the ort-cpu and ort-cuda tables: targets/ort_kernels.py). Each of these calls
can take a process down (onnxruntime-gpu 1.31.1's registry call dies of SIGSEGV with a GPU and raises
"CUDA failure 100" without one: issue 24), so they are made in one child process (converter/process/isolated.py),
in that order, each answer kept as it arrives.

* **Once per build.** The answers are kept in the signed cache (converter/signed_store.py, kind
  ``s2o-ort1`` under ``runtimes/``), keyed by the build: onnxruntime's folder, the size and time of its
  ``__init__.py`` and native libraries, Python's version, onnx's (the probe models), and this code. A
  second command reads the entry and starts no child. A failure is kept too (a hang is paid once per
  build); ``SPEC2ONNX_CACHE=off`` asks again every time.
* **Once per process.** The first use resolves it; pool.py resolves it in the parent before starting
  workers and hands it to them (``snapshot``/``adopt``), so 410 specs ask and warn once.
* **A failure is one warning line** on stderr, naming the version and why, and the committed tables (and,
  where even the probes failed, the committed opset and IR limits) answer instead.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import platform
import sys
from base64 import b64encode
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__, signed_store
from ..process import isolated
from .opset import MIN_OPSET, ORT_MAX_IR_VERSION, ORT_MAX_OPSET, ir_version_for, loadable_probes, probe_model
from .providers import NOT_COMPUTE_PROVIDERS

KIND = signed_store.Kind(b"s2o-ort1", ("runtimes",), ".json", 8 << 20)
PROVIDERS = ("CPUExecutionProvider", "CUDAExecutionProvider")  # the registries ort-cpu and ort-cuda read
TABLES_VARIABLE = "SPEC2ONNX_KERNEL_TABLES"  # "committed": never read the registry
STAGES = {  # the child's risky calls: (the call, in a "... raised" message; where a crash or hang happened)
    "import": ("import onnxruntime", "while importing onnxruntime"),
    "probe": ("a probe session", "while probing the opsets it loads"),
    "provider": ("creating {}", "while creating {}"),
    "registry": ("get_all_opkernel_def()", "in get_all_opkernel_def()"),
}
# What else decides whether a provider can be created and what the registry call does (onnxruntime-gpu 1.31.1:
# SIGSEGV with a GPU, an exception without): the machine, the GPUs it shows, where libraries are looked for.
_MACHINE_VARIABLES = ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH") + (("PATH",) if os.name == "nt" else ())
_NATIVE = (".so", ".pyd", ".dll", ".dylib")


@dataclass(frozen=True)
class Build:
    """What the installed onnxruntime said about itself. A field it did not get to is None (or empty)."""

    version: str | None = None
    providers: tuple[str, ...] = ()
    opset: int | None = None  # the newest opset a CPU session loads
    ir: int | None = None  # the newest IR version a CPU session loads
    tables: dict = field(default_factory=dict)  # provider -> domain -> op -> rows (runtime_child.registry_rows)
    unusable: dict = field(default_factory=dict)  # listed provider -> why onnxruntime cannot create it on this machine
    failure: str | None = None  # why the child did not finish
    failed_at: str | None = None  # the call it was in: one of STAGES

    @property
    def name(self) -> str:
        return f"onnxruntime {self.version}" if self.version else "the installed onnxruntime"


_BUILDS: dict[bool, Build | None] = {}  # with the registry or not -> this process's answer
_WARNED: list[bool] = [False]


def installed() -> bool:
    try:
        return importlib.util.find_spec("onnxruntime") is not None
    except (ImportError, ValueError):  # sys.modules["onnxruntime"] = None, a broken parent package
        return False


def registry_wanted() -> bool:
    return os.environ.get(TABLES_VARIABLE) != "committed"


def build() -> Build | None:
    """The installed onnxruntime's answers (asked once per process, per build from the cache); None without one."""
    wanted = registry_wanted()
    if wanted not in _BUILDS:
        _BUILDS[wanted] = _resolve(wanted) if installed() else None
        _warn(_BUILDS[wanted])
    return _BUILDS[wanted]


def snapshot() -> dict:
    """This process's answers (resolved now), for workers started from it: ``adopt`` them there."""
    build()
    return {"builds": dict(_BUILDS), "warned": _WARNED[0]}


def adopt(state: dict) -> None:
    """Take the parent's answers (a worker): nothing is asked again, and its warning is not repeated."""
    _BUILDS.update(state["builds"])
    _WARNED[0] = _WARNED[0] or state["warned"]


def forget() -> None:
    """Ask again on next use (tests that change the installed onnxruntime or the environment)."""
    _BUILDS.clear()
    _WARNED[0] = False


def newest_loadable_opset() -> int:
    """The newest default-domain opset the installed onnxruntime loads (probed in the child with a one-node model);
    the committed tables' limit where it could not be asked, or where onnxruntime is not installed."""
    found = build()
    return found.opset if found is not None and found.opset is not None else ORT_MAX_OPSET


def newest_loadable_ir() -> int:
    """The newest IR version the installed onnxruntime loads (1.31.1: 13; 1.32.0: 14), probed like the opset."""
    found = build()
    return found.ir if found is not None and found.ir is not None else ORT_MAX_IR_VERSION


def unusable(provider: str) -> str | None:
    """Why onnxruntime lists ``provider`` but cannot create it on this machine (onnxruntime-gpu without a GPU or
    its CUDA libraries: "Failed to load library ... libcublasLt.so.13"), or None (it can, or it was not asked)."""
    found = build() if provider not in NOT_COMPUTE_PROVIDERS and provider != "CPUExecutionProvider" else None
    return found.unusable.get(provider) if found is not None else None


def registry_rows(provider: str) -> dict | None:
    """``provider``'s kernels in the installed registry (domain -> op -> rows), or None: no onnxruntime, the
    registry not read (it failed, or SPEC2ONNX_KERNEL_TABLES=committed), or no kernel of that provider in it
    (a CPU build has no CUDAExecutionProvider kernels)."""
    found = build()
    rows = found.tables.get(provider) if found is not None else None
    return rows or None


def _warn(found: Build | None) -> None:
    if found is None or found.failure is None or _WARNED[0]:
        return
    _WARNED[0] = True
    if found.failed_at in ("registry", "provider"):
        what, instead = "kernel registry", "the committed ort-cpu and ort-cuda tables"
    else:
        what = "kernel registry and the opsets it loads"
        instead = f"the committed ort-cpu and ort-cuda tables, opset <= {ORT_MAX_OPSET}, IR version <= {ORT_MAX_IR_VERSION}"
    print(f"spec2onnx: warning: could not read {found.name}'s {what} ({found.failure}); using {instead}",
          file=sys.stderr)


# -- asking, and the cache ---------------------------------------------------------------------------------

def _resolve(wanted: bool) -> Build:
    folder = signed_store.cache_dir()
    secret = signed_store.secret(folder) if folder is not None else None
    key = _key(wanted) if secret is not None else None
    # A child that ran out of time is kept apart, for runs that wait as long (a hang is paid once per build and
    # limit): a timeout says how long that run waited, not what the build is, and a short SPEC2ONNX_RUNTIME_TIMEOUT
    # (or a slow cold start) was replayed to every later command, whatever its limit
    waited = f"{key}-timed-out-{isolated.timeout()!r}" if key is not None else None
    for entry in (key, waited) if key is not None else ():
        payload = signed_store.read(folder, secret, KIND, entry)
        found = _decode(payload) if payload is not None else None
        if found is not None:
            return found
    found, timed_out = _ask(wanted)
    if key is not None:
        signed_store.write(folder, secret, KIND, waited if timed_out else key, _encode(found))
    return found


def _ask(wanted: bool) -> tuple[Build, bool]:
    """The child's answers, and whether it ran out of time."""
    probes = {name: [(value, b64encode(model).decode()) for value, model in models]
              for name, models in loadable_probes().items()}
    request = {"probes": probes, "providers": list(PROVIDERS) if wanted else [],
               "provider_probe": b64encode(probe_model(MIN_OPSET, ir_version_for(MIN_OPSET))).decode(),
               "not_probed": ["CPUExecutionProvider", *NOT_COMPUTE_PROVIDERS]}
    reply = isolated.ask("onnxruntime-build", request)
    imported = reply.first("import") or {}
    found = {a.get("name"): a.get("value") for a in reply.answers if a.get("stage") == "probe"}
    creates = {a.get("name"): a for a in reply.answers if a.get("stage") == "provider"}
    failure, failed_at = reply.failure, None
    if failure is not None:
        begun = [a for a in reply.answers if a.get("stage") == "begin"]
        last = begun[-1] if begun else {"at": "import"}
        failed_at = last.get("at") if last.get("at") in STAGES else "import"
        call, where = (text.format(last.get("name")) for text in STAGES[failed_at])
        failure = f"{call} {failure[len('the call '):]}" if failure.startswith("the call raised") else f"{failure} {where}"
    registry = reply.first("registry")
    tables = registry.get("tables") if registry is not None else {}
    if not (isinstance(tables, dict) and all(isinstance(t, dict) and _table(t) for t in tables.values())):
        tables, failure, failed_at = {}, "the child process gave a kernel registry spec2onnx cannot read", "registry"
    version = imported.get("version") or getattr(sys.modules.get("onnxruntime"), "__version__", None)
    answered = Build(version=version, providers=tuple(imported.get("providers", ())),
                     opset=_probed(found, "opset", MIN_OPSET), ir=_probed(found, "ir", 7), tables=tables,
                     unusable={name: str(a.get("error") or "onnxruntime cannot create it here")
                               for name, a in creates.items() if not a.get("ok")},
                     failure=failure, failed_at=failed_at)
    checked = _decode(_encode(answered))  # what the child said goes through the same checks as a cache entry
    if checked is None:
        return Build(version=version if isinstance(version, str) else None, failure="the child process gave answers "
                     "spec2onnx cannot read", failed_at="import"), reply.timed_out
    return checked, reply.timed_out


def _probed(found: dict, name: str, floor: int):
    if name not in found:
        return None  # not asked: the child ended first
    return found[name] if found[name] is not None else floor  # asked, nothing loaded: the lowest there is


def _key(wanted: bool) -> str:
    digest = hashlib.sha256()
    machine = [platform.node(), *(f"{v}={os.environ.get(v)}" for v in _MACHINE_VARIABLES)]
    for part in (__version__, sys.version, onnx_identity().decode(), str(wanted), *machine, *_identity()):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    for source in (isolated.CHILD, Path(isolated.__file__), Path(__file__), Path(__file__).with_name("opset.py")):
        digest.update(source.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def onnx_identity() -> bytes:
    """Which onnx writes the probe models here and the lowered models spec_cache keeps, told without importing it
    (its import is 35 ms of CPU, and a validation whose lowered models are all cached needs no onnx: issue 34):
    the name, size and modification time of its ``__init__.py`` and compiled core, which an upgrade, a downgrade
    or a reinstall replaces (as ``_identity`` tells onnxruntime's build)."""
    found = importlib.util.find_spec("onnx")
    if found is None or not found.origin:
        return b"no onnx"
    init = Path(found.origin)
    parts = []
    for path in [init, *sorted(init.parent.glob("onnx_cpp2py_export*"))]:
        stat = path.stat()
        parts.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\0".join(parts).encode()


@functools.lru_cache(maxsize=None)
def identity() -> bytes:
    """This onnxruntime build, told from its files without importing it (``_identity``): what the graphs it
    optimized (spec_cache.optimized_model) are keyed by, with the machine's CPU features."""
    return "\0".join(_identity()).encode("utf-8", "surrogateescape")


def _identity() -> list[str]:
    """The build: its folder, and the size and modification time of its __init__.py and native libraries."""
    spec = importlib.util.find_spec("onnxruntime")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    parts = [repr(folders)]
    for folder in folders:
        for where in (Path(folder), Path(folder) / "capi"):
            try:
                entries = sorted(os.scandir(where), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name == "__init__.py" or entry.name.endswith(_NATIVE) or ".so." in entry.name:
                    try:
                        info = entry.stat()
                    except OSError:
                        continue
                    parts.append(f"{entry.path}:{info.st_size}:{info.st_mtime_ns}")
    return parts


def _encode(found: Build) -> bytes:
    return json.dumps({"version": found.version, "providers": list(found.providers), "opset": found.opset,
                       "ir": found.ir, "tables": found.tables, "unusable": found.unusable, "failure": found.failure,
                       "failed_at": found.failed_at}, separators=(",", ":")).encode()


def _decode(payload: bytes) -> Build | None:
    """A Build from a cache entry (or the child's answers), or None where anything has the wrong shape."""
    try:
        data = json.loads(payload)
        if not isinstance(data, dict):
            return None
        version, providers, failure, failed_at = (data.get(k) for k in ("version", "providers", "failure", "failed_at"))
        limits = [data.get("opset"), data.get("ir")]
        unusable_ = data.get("unusable")
        if not (_optional(version, str) and isinstance(providers, list) and all(isinstance(p, str) for p in providers)
                and _optional(failure, str) and (failed_at is None or failed_at in STAGES)
                and isinstance(unusable_, dict) and all(isinstance(v, str) for v in unusable_.values())
                and all(v is None or (type(v) is int and 0 < v < 1000) for v in limits)
                and isinstance(data.get("tables"), dict) and all(_table(t) for t in data["tables"].values())):
            return None
        return Build(version, tuple(providers), limits[0], limits[1], data["tables"], unusable_, failure, failed_at)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


def _optional(value, kind) -> bool:
    return value is None or isinstance(value, kind)


def _table(domains) -> bool:
    """domain -> op -> [{"start": int, "end": int | None, "types": {constraint: [type]}}]"""
    if not isinstance(domains, dict):
        return False
    for ops in domains.values():
        if not isinstance(ops, dict):
            return False
        for rows in ops.values():
            if not isinstance(rows, list):
                return False
            for row in rows:
                if not (isinstance(row, dict) and type(row.get("start")) is int and _optional(row.get("end"), int)
                        and isinstance(row.get("types"), dict)
                        and all(isinstance(v, list) and all(isinstance(t, str) for t in v) for v in row["types"].values())):
                    return False
    return True
