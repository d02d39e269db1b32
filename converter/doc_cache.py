"""A cache of parsed YAML spec documents, keyed by a hash of the file's bytes.

Parsing YAML is the largest part of loading a small spec (PyYAML composes and constructs in
Python, and must, to enforce ``converter.safe_yaml``'s limits). The plain data it yields (mappings,
lists, text, numbers, booleans, null) is kept as a pickle under ``$SPEC2ONNX_CACHE``, else
``$XDG_CACHE_HOME/spec2onnx``, else ``~/.cache/spec2onnx``; ``SPEC2ONNX_CACHE=off`` turns it off.

What is cached is only what the YAML parser returned: every spec is still validated
(``converter.spec.parse_spec``), and its case data made, on every load. An entry is used only when

* its key matches: SHA-256 of the file's bytes, spec2onnx's and PyYAML's versions and the source
  of ``converter/safe_yaml.py`` (a change to the loading rules is a new key);
* its HMAC-SHA-256 matches, under a random key kept in the cache folder (``key``: a file of this
  user's that no one else may read or write; otherwise nothing is cached): a truncated or corrupt
  entry, or one written by anyone without the key (which could change a case's expected values),
  is a miss, and is rewritten;
* it unpickles as plain data: the unpickler refuses every class and function, so even a signed
  entry can never run code or build objects; at worst it is a document that the spec validation
  then judges like any file.

Entries are written atomically (a temporary file renamed into place); a folder that cannot be
written just means no caching. Nothing is ever evicted: delete the folder to reclaim the space.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import io
import os
import pickle
import secrets
import tempfile
from pathlib import Path
from typing import Any, Callable

from . import __version__

MAGIC = b"s2o-doc1"
_OFF = ("off", "0", "no", "false", "")


def cache_dir() -> Path | None:
    """The cache folder, or None when caching is off."""
    explicit = os.environ.get("SPEC2ONNX_CACHE")
    if explicit is not None:
        return None if explicit.strip().lower() in _OFF else Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "spec2onnx"


@functools.lru_cache(maxsize=None)
def _loader_id() -> bytes:
    import yaml

    rules = (Path(__file__).with_name("safe_yaml.py")).read_bytes()
    return hashlib.sha256(b"\0".join([__version__.encode(), yaml.__version__.encode(), rules])).digest()


def load(data: bytes, parse: Callable[[], Any]) -> Any:
    """``parse()``'s result for a file holding ``data``, from the cache when it has it (then written to it)."""
    folder = cache_dir()
    if folder is None:
        return parse()
    key = secret(folder)
    if key is None:
        return parse()
    digest = hashlib.sha256(_loader_id() + data).hexdigest()
    path = folder / digest[:2] / f"{digest[2:]}.pickle"
    found = _read(path, key)
    if found is not None:
        return found[0]
    document = parse()  # a SpecError propagates, and nothing is cached
    _write(path, document, key)
    return document


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module, name):  # dicts, lists, text, numbers, bools and None need no class
        raise pickle.UnpicklingError(f"the cache holds only plain data, not {module}.{name}")


def _read(path: Path, key: bytes) -> tuple[Any] | None:
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + 32
    if blob[:len(MAGIC)] != MAGIC or not hmac.compare_digest(hmac.digest(key, blob[head:], "sha256"), blob[len(MAGIC):head]):
        return None
    try:
        return (_PlainUnpickler(io.BytesIO(blob[head:])).load(),)
    except Exception:  # noqa: BLE001 - any damage is a miss
        return None


def _write(path: Path, document: Any, key: bytes) -> None:
    try:
        payload = pickle.dumps(document, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError, TypeError):
        return
    write_atomic(path, MAGIC + hmac.digest(key, payload, "sha256") + payload)


_KEYS: dict[str, tuple[tuple, bytes | None]] = {}  # path -> (the file's lstat signature, what _read_key gave)


def _read_key(path: Path) -> bytes | None:
    """The key, if only its owner (this user) can read or write it: a key others could read or plant is no key.

    Every spec load asks (twice: the spec and its model); the answer is kept per process for as long as the
    file's lstat signature (inode, times, mode, owner, size) is unchanged: a chmod, a replacement or a
    rewrite reads it again."""
    info = os.lstat(path)
    signature = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_mode, info.st_uid, info.st_size)
    known = _KEYS.get(str(path))
    if known is not None and known[0] == signature:
        return known[1]
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            key = None
        else:
            key = handle.read(32) or None
    _KEYS[str(path)] = (signature, key)
    return key


def secret(folder: Path) -> bytes | None:
    """The random key that signs this folder's entries (made on first use), or None: then nothing is cached."""
    path = folder / "key"
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(32))
        return _read_key(path)
    except FileExistsError:  # another process made it first
        try:
            return _read_key(path)
        except OSError:
            return None
    except OSError:
        return None


def write_atomic(path: Path, blob: bytes) -> None:
    """Write a cache entry: a temporary file renamed into place; nothing on a read-only or full disk."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:  # a read-only or full disk: no caching
        pass
