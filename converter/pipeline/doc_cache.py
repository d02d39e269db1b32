"""A cache of parsed YAML spec documents, keyed by a hash of the file's bytes.

Parsing YAML is the largest part of loading a small spec (PyYAML composes and constructs in
Python, and must, to enforce ``converter.pipeline.safe_yaml``'s limits). The plain data it yields (mappings,
lists, text, numbers, booleans, null) is kept as a pickle under ``$SPEC2ONNX_CACHE``, else
``$XDG_CACHE_HOME/spec2onnx``, else ``~/.cache/spec2onnx``; ``SPEC2ONNX_CACHE=off`` turns it off.

What is cached is only what the YAML parser returned: every spec is still validated
(``converter.pipeline.spec.parse_spec``), and its case data made, on every load. An entry is used only when

* its key matches: SHA-256 of the file's bytes, spec2onnx's and PyYAML's versions and the source
  of ``converter/pipeline/safe_yaml.py`` (a change to the loading rules is a new key);
* it is a signed entry of ``converter.signed_store`` for that key (HMAC over kind, key and content,
  under the folder's random key; a regular file, not through a link, at most MAX_ENTRY_BYTES): a
  truncated or corrupt entry, one written by anyone without the key, or another spec's entry copied
  over this one's file, is a miss, and is rewritten;
* it unpickles as plain data: the unpickler refuses every class and function, so even a signed
  entry can never run code or build objects; at worst it is a document that the spec validation
  then judges like any file.
"""

from __future__ import annotations

import functools
import hashlib
import io
import pickle
from pathlib import Path
from typing import Any, Callable

from .. import __version__, signed_store
from ..signed_store import cache_dir, secret  # noqa: F401 - the cache's folder and key, for the other caches

MAGIC = b"s2o-doc2"
MAX_ENTRY_BYTES = 64 << 20  # a 16 MiB spec (the limit) of short numbers pickles to about 2-3x its text
KIND = signed_store.Kind(MAGIC, (), ".pickle", MAX_ENTRY_BYTES)


@functools.lru_cache(maxsize=None)
def _loader_id() -> bytes:
    import yaml

    rules = (Path(__file__).with_name("safe_yaml.py")).read_bytes()
    return hashlib.sha256(b"\0".join([__version__.encode(), yaml.__version__.encode(), rules])).digest()


def load(data: bytes, parse: Callable[[], Any]) -> Any:
    """``parse()``'s result for a file holding ``data``, from the cache when it has it (then written to it)."""
    folder = cache_dir()
    key = signed_store.secret(folder) if folder is not None else None
    if key is None:
        return parse()
    digest = hashlib.sha256(_loader_id() + data).hexdigest()
    found = _read(folder, key, digest)
    if found is not None:
        return found[0]
    document = parse()  # a SpecError propagates, and nothing is cached
    try:
        payload = pickle.dumps(document, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError, TypeError):
        return document
    signed_store.write(folder, key, KIND, digest, payload)
    return document


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):  # dicts, lists, text, numbers, bools and None need no class
        raise pickle.UnpicklingError(f"the cache holds only plain data, not {module}.{name}")


def _read(folder: Path, secret_key: bytes, digest: str) -> tuple[Any] | None:
    payload = signed_store.read(folder, secret_key, KIND, digest)
    if payload is None:
        return None
    try:
        return (_PlainUnpickler(io.BytesIO(payload)).load(),)
    except Exception:  # noqa: BLE001 - any damage is a miss
        return None
