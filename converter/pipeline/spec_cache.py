"""A cache of loaded specs (validated, case data made), for specs that depend on nothing but their file.

Loading a small spec is mostly parsing, validating and making its case data; unpickling the
result is about a fifth of that (benchmarks/throughput.py). Entries live beside the document
cache (``converter.pipeline.doc_cache``: same folder, same switch ``SPEC2ONNX_CACHE=off``), under ``specs/``.

An entry is used only when

* its key matches: SHA-256 of the file's bytes, the spec's folder, the parser its suffix picks
  (JSON or YAML), and the source of every module of spec2onnx with the versions of Python, numpy,
  ml_dtypes and PyYAML (any change to the code that validates specs is a new key);
* it is a signed entry of ``converter.signed_store`` for that key (HMAC-SHA-256 over kind, key and
  content under a random key kept in the cache folder; a regular file, not through a link, size-capped):
  an entry that was damaged, written by anyone without that key, or copied from another key's file, is a miss;
* the estimate of its peak memory (kept beside it, covered by the HMAC) fits the budget of this
  run; otherwise the spec is loaded afresh, which refuses it with the usual message;
* it unpickles with only the classes a spec is made of (the dataclasses of spec2onnx's spec,
  numpy arrays and dtypes, ml_dtypes' bfloat16, paths); anything else is refused.

Lowered models (``lowered_model``) live under ``models/``, keyed by what the lowering reads (the
spec's name, source and network, the opset and the provider) with the code and onnx's version, and
signed the same way. The numpy reference's outputs for a spec's cases (``references``) live under
``references/``, keyed by what the reference reads (the network, each case's inputs, the arithmetic) with
the code, numpy's version and the CPU features numpy dispatches on (``_machine_id``), signed the same way.
The graphs onnxruntime's CPU provider makes of a lowered model (``optimized_model``) live under ``optimized/``,
keyed by the model's bytes, the optimization level, the onnxruntime build and the CPU features.

Only specs that read no ``.npy`` file (a file can change without the spec changing), use only
spec2onnx's own layer kinds (a plugin's code is not in the key) and pickle to at most
MAX_ENTRY_BYTES are cached: a spec with big tensors spends its load making data, not parsing,
and its entry would only fill the disk.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import hashlib
import io
import os
import pickle
import sys
from pathlib import Path
from typing import Callable

from .. import signed_store
from ..installed import ort_build
from ..installed.ort_build import onnx_identity
from ..network import Spec
from ..registry import is_builtin
from ..targets.profiles import BUILTIN_TARGETS

MAGIC = b"s2o-spc2"
MODEL_MAGIC = b"s2o-mdl2"
REFERENCE_MAGIC = b"s2o-ref1"
OPTIMIZED_MAGIC = b"s2o-opt1"
MAX_ENTRY_BYTES = 1 << 20
_HEADER = 16  # two 8-byte numbers: the estimate's total with one runtime configuration, and its runtime part
_PACKAGE = __name__.split(".")[0]  # converter in a checkout, spec2onnx when installed
_ALLOWED = {
    (f"{_PACKAGE}.{module}", name) for module, name in (
        ("network", "Spec"), ("network", "Case"), ("network", "Network"), ("network", "TensorType"), ("network", "Layer"),
        ("dtypes", "DType"), ("compare", "Tolerance"), ("xfail", "XfailRule"))
} | {
    ("numpy", "dtype"), ("numpy", "ndarray"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"), ("ml_dtypes", "bfloat16"), ("pathlib", "PosixPath"),
    ("pathlib", "WindowsPath"), ("pathlib", "Path"),
}


@functools.lru_cache(maxsize=None)
def _code_id() -> bytes:
    import ml_dtypes
    import numpy
    import yaml

    root = Path(__file__).resolve().parent.parent  # the whole package, not only pipeline/
    digest = hashlib.sha256("\0".join([sys.version, numpy.__version__, ml_dtypes.__version__, yaml.__version__]).encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.digest()


@functools.lru_cache(maxsize=None)
def _machine_id() -> bytes:
    """What else the numpy reference's bits may depend on: the machine, and the SIMD paths numpy dispatches to on
    it (a cache folder shared between machines must not hand one machine's float results to another)."""
    import platform

    from numpy._core import _multiarray_umath as umath

    features = sorted(k for k, v in getattr(umath, "__cpu_features__", {}).items() if v)
    return "\0".join([platform.machine(), *getattr(umath, "__cpu_baseline__", []), "|",
                      *getattr(umath, "__cpu_dispatch__", []), "|", *features]).encode()


def warm() -> None:
    """Compute the per-process answers every cache lookup needs (the code's digest: every module of spec2onnx
    read and hashed, some 15 ms; the machine's CPU features), where caching is on. The pool calls it before it
    forks its workers, which then inherit them instead of each computing them again on its first spec."""
    if signed_store.cache_dir() is not None:
        _code_id()
        _machine_id()
        if ort_build.installed():
            ort_build.identity()


def _key(data: bytes, spec_path: Path) -> str:
    # The suffix picks the parser: the same bytes are read as JSON in a .json file and as YAML otherwise.
    parser = b"json" if spec_path.suffix == ".json" else b"yaml"
    return hashlib.sha256(_code_id() + _real_folder(spec_path) + b"\0" + parser + b"\0" + data).hexdigest()


def _real_folder(spec_path: Path) -> bytes:
    """The real folder of the spec file (``spec_path.resolve().parent``): a file that is no symlink is in its
    folder's real path, which is kept per folder (the specs of a suite share a few)."""
    if os.path.islink(spec_path):
        return os.fsencode(spec_path.resolve().parent)
    return _real_path(os.path.abspath(spec_path.parent))  # (absolute: the working folder may change)


@functools.lru_cache(maxsize=256)
def _real_path(folder: str) -> bytes:
    return os.fsencode(os.path.realpath(folder))


SPECS = signed_store.Kind(MAGIC, ("specs",), ".pickle", MAX_ENTRY_BYTES + 16)
MODELS = signed_store.Kind(MODEL_MAGIC, ("models",), ".model", MAX_ENTRY_BYTES)
REFERENCES = signed_store.Kind(REFERENCE_MAGIC, ("references",), ".pickle", MAX_ENTRY_BYTES)
OPTIMIZED = signed_store.Kind(OPTIMIZED_MAGIC, ("optimized",), ".model", MAX_ENTRY_BYTES)


def _folder_and_secret(usable: bool = True) -> tuple[Path | None, bytes | None]:
    folder = signed_store.cache_dir() if usable else None
    return folder, (signed_store.secret(folder) if folder is not None else None)


class _SpecUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"a cached spec holds no {module}.{name}")
        found = _FOUND.get((module, name))
        if found is None:  # (an entry names some ten classes: the import machinery once per process, not per spec)
            found = _FOUND[module, name] = super().find_class(module, name)
        return found


_FOUND: dict[tuple[str, str], object] = {}


def file_key(data: bytes, spec_path: Path) -> str | None:
    """The key of the spec a file holding ``data`` gives (``get``, ``put``), None where caching is off: what
    ``content`` may stand on instead of the spec's pickle where the caller vouches that the spec is exactly its
    file's (``content(spec, file_key=)``)."""
    return None if _folder_and_secret()[1] is None else _key(data, spec_path)


def get(key: str | None, spec_path: Path, budget: int, runs: int):
    """The cached Spec of the file whose ``file_key`` is ``key``, or None."""
    folder, secret = _folder_and_secret()
    if secret is None or key is None:
        return None
    payload = signed_store.read(folder, secret, SPECS, key)
    if payload is None or len(payload) < _HEADER:
        return None
    total, runtime = int.from_bytes(payload[:8], "little"), int.from_bytes(payload[8:_HEADER], "little")
    if total + (runtime if runs > 1 else 0) > budget:
        return None  # loaded afresh: that refuses it, with the estimate in the message
    try:
        spec = _SpecUnpickler(io.BytesIO(payload[_HEADER:])).load()
    except Exception:  # noqa: BLE001 - any damage is a miss
        return None
    return dataclasses.replace(spec, path=spec_path) if isinstance(spec, Spec) else None


def put(key: str | None, spec, total: int, runtime: int) -> bool:
    """Keep ``spec`` (loaded from the file whose ``file_key`` is ``key``, reading no other file) for the next load;
    whether it is one this cache keeps (written, unless the folder refused the write)."""
    if key is None or not all(map(is_builtin, spec.ops)) or not _builtin_targets_only(spec) \
            or sum(a.nbytes for c in spec.cases for a in c.inputs.values()) > MAX_ENTRY_BYTES:
        return False
    folder, secret = _folder_and_secret()
    if secret is None:
        return False
    try:
        payload = total.to_bytes(8, "little") + runtime.to_bytes(8, "little") + pickle.dumps(spec, protocol=5)
    except (pickle.PicklingError, TypeError, AttributeError, OverflowError):
        return False
    if len(payload) > MAX_ENTRY_BYTES:
        return False
    signed_store.write(folder, secret, SPECS, key, payload)
    return True


def _builtin_targets_only(spec) -> bool:
    """Whether each of the spec's xfail rules that names a target matches one of spec2onnx's own: one valid only with a
    plugin's target (--plugin) is not kept, since a run without that plugin must refuse it (the key has no plugins)."""
    return all(rule.target is None or any(fnmatch.fnmatchcase(name, rule.target) for name in BUILTIN_TARGETS)
               for rule in spec.xfail)


def _canonical_pickle(obj) -> bytes:
    """``obj``'s pickle without the memo: equal content, equal bytes, whether its strings are shared objects
    (a fresh parse) or copies (unpickled from the spec cache), which the memo would write differently."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    pickler.fast = True  # no memo (a network holds no cycle)
    pickler.dump(obj)
    return out.getvalue()


FILE_CONTENT = b"file\0"  # content() standing on the spec file's key


def content(spec, file_key: str | None = None) -> bytes | None:
    """What the lowering and the reference read of ``spec`` (its name, source and network), pickled canonically: the
    content part of the keys of ``lowered_model`` and ``references``; None where neither is cached (caching off, a
    plugin's layer kind, big constants, or a network that does not pickle).

    ``file_key``: the spec is exactly what its file gives (``file_key`` of that file, as the loader returned it:
    loaded and not changed since), which determines it, its cases' data too: the key stands for the pickle."""
    if _folder_and_secret(all(map(is_builtin, spec.ops)))[1] is None \
            or sum(a.nbytes for a in spec.network.constants.values()) > MAX_ENTRY_BYTES:
        return None  # (big constants: the key's pickle would be over MAX_ENTRY_BYTES; not made to be thrown away)
    if file_key is not None:
        return FILE_CONTENT + file_key.encode()
    try:
        # The network's fields, not the object: its __dict__ also holds lookups it fills on use (cached_property),
        # which would key the same network differently before and after a first check.
        network = spec.network
        found = _canonical_pickle((spec.name, spec.source, [getattr(network, f.name) for f in dataclasses.fields(network)]))
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None
    return found if len(found) <= MAX_ENTRY_BYTES else None


NOT_GIVEN = object()  # lowered_model's spec_content when the caller has none: computed there


def lowered_model(spec, variant: str, build: Callable[[], bytes], spec_content=NOT_GIVEN) -> bytes:
    """The bytes ``build()`` makes for ``spec`` (a serialized model, with a header of what goes with it where
    the caller needs one), from the cache where it can be. ``spec_content``: ``content(spec)``, where the caller
    has it already.

    Lowering is a pure function of the code (``_code_id``), of what ``build`` reads of the spec (its
    name, source and network, whose pickle is in the key: a Spec changed after loading, or a network
    read from ``.npy`` files, is keyed by what it holds now) and of ``variant`` (opset, provider,
    target: whatever else ``build`` reads), plus the installed onnx, which writes the bytes (told from its
    files, ort_build.onnx_identity: a cache hit imports no onnx). Only spec2onnx's own layer kinds (a
    plugin's code is not in the key). The entry is signed like a spec's (a forged model would be a forged
    result) and at most MAX_ENTRY_BYTES.
    """
    found = content(spec) if spec_content is NOT_GIVEN else spec_content
    if found is None:
        return build()
    folder, secret = _folder_and_secret()
    digest = hashlib.sha256(_code_id() + b"\0".join([b"", variant.encode(), onnx_identity(), found]))
    key = digest.hexdigest()
    cached = signed_store.read(folder, secret, MODELS, key)
    if cached is not None:
        return cached
    model = build()
    signed_store.write(folder, secret, MODELS, key, model)  # (not when over MAX_ENTRY_BYTES)
    return model


def _reference_key(spec_content: bytes, cases, variant: str) -> str | None:
    if sum(a.nbytes for c in cases for a in c.inputs.values()) > MAX_ENTRY_BYTES:
        return None  # (the outputs, of the same order, would be over it too)
    digest = hashlib.sha256(_code_id() + b"\0".join([b"", _machine_id(), variant.encode(), spec_content]))
    if spec_content.startswith(FILE_CONTENT):  # the file determines every case's data: the chosen cases' names do
        digest.update(repr([case.name for case in cases]).encode())
        return digest.hexdigest()
    for case in cases:  # each case's feeds, as run_network gets them (the arrays' bytes: pickling them costs more)
        items = list(case.inputs.items())
        if any(type(a).__name__ != "ndarray" or a.dtype.hasobject for _, a in items):
            return None
        digest.update(repr([(n, a.dtype.str, a.dtype.type.__module__, a.dtype.type.__name__, a.shape)
                            for n, a in items]).encode())
        for _, array in items:
            digest.update(array.tobytes())
    return digest.hexdigest()


def references(spec, cases, variant: str, spec_content: bytes | None) -> tuple[str | None, list[dict] | None]:
    """(key, the numpy reference's outputs for each of ``cases`` of ``spec`` as kept, or None). ``variant`` names
    what else the reference reads (the arithmetic); ``spec_content`` is ``content(spec)`` (None: not cached, and
    the key is None). ``keep_references`` keeps the outputs under the key once computed.

    The reference is a pure function of the code, numpy (its version, and the CPU features it dispatches on), the
    network and the inputs: a kept entry holds the arrays it returned, bit for bit (pickled)."""
    key = _reference_key(spec_content, cases, variant) if spec_content is not None else None
    if key is None:
        return None, None
    folder, secret = _folder_and_secret()
    payload = signed_store.read(folder, secret, REFERENCES, key)
    if payload is None:
        return key, None
    try:
        found = _SpecUnpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - any damage is a miss
        return key, None
    outputs = list(spec.network.outputs)
    ok = isinstance(found, list) and len(found) == len(cases) and all(
        isinstance(d, dict) and list(d) == outputs and all(type(v).__name__ == "ndarray" for v in d.values())
        for d in found)
    return key, (found if ok else None)


def keep_references(key: str, outputs: list[dict]) -> None:
    """Keep the reference's ``outputs`` (one dict per case, in order) under ``key`` (from ``references``)."""
    folder, secret = _folder_and_secret()
    if secret is None:
        return
    try:
        payload = pickle.dumps(outputs, protocol=5)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    signed_store.write(folder, secret, REFERENCES, key, payload)  # (not when over MAX_ENTRY_BYTES)


def optimized_model(model_bytes: bytes, opt_level: str, build: Callable[[], bytes | None]) -> bytes | None:
    """The graph ``build()`` makes of ``model_bytes``: onnxruntime's CPU provider's optimizations at ``opt_level``,
    serialized (runners.onnxruntime.optimized_offline), from the cache where it can be; None where caching is off
    (the session then optimizes the model itself, as it always did) or ``build`` made none.

    The graph is a function of the model, the level and onnxruntime's build, and may hold optimizations for this
    machine's CPU (onnxruntime's NCHWc blocks follow its vector width): keyed by all of them (the build told from
    its files, ort_build.identity; the CPU by the features numpy reads, _machine_id), signed like the others."""
    folder, secret = _folder_and_secret()
    if secret is None or len(model_bytes) > MAX_ENTRY_BYTES:
        return None
    digest = hashlib.sha256(b"\0".join([ort_build.identity(), _machine_id(), opt_level.encode(),
                                         hashlib.sha256(model_bytes).digest()]))
    key = digest.hexdigest()
    cached = signed_store.read(folder, secret, OPTIMIZED, key)
    if cached is not None:
        return cached
    found = build()
    if found is not None:
        signed_store.write(folder, secret, OPTIMIZED, key, found)  # (not when over MAX_ENTRY_BYTES)
    return found
