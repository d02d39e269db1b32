"""Signed cache entries: the one reader and writer of every cache file (parsed YAML, specs, lowered models).

A cache folder shared by CI jobs is an attack surface: anyone who can write to it can copy, replace or
plant files. What this module promises (docs/robustness.md, "Caches and temporary files"):

* **Each entry is signed for its key.** An entry is ``MAGIC + HMAC + payload``, the HMAC-SHA-256 (under
  a random key kept in the folder's ``key`` file) covering the entry's kind (``MAGIC``), its key and its
  payload together: an entry copied over another entry's file (another spec's, another opset's model) is
  a miss, as is a damaged one or one written by anyone without the key.
* **Only regular files are read, and never much.** Files are opened with ``O_NOFOLLOW | O_NONBLOCK``
  and checked with ``fstat``: a symlink (to ``/dev/zero`` or anything), a named pipe, a socket, a
  folder, or a file larger than the kind's cap is a miss (never a hang, never a huge read). A ``key``
  that is not such a file of this user's, readable by no one else, turns caching off, said once on
  stderr.
* **Nothing is written outside the folder.** Below the cache folder (which itself may be a link: the
  user chose it), each subfolder is opened with ``O_NOFOLLOW`` relative to its parent (``openat``):
  a subfolder that is a symlink (``specs/ -> /elsewhere``) is a miss and nothing is written there.
* Entries are written atomically (a temporary file renamed into place); a killed writer's temporary
  file is removed by the next write to that subfolder (``converter.files.sweep_stale_temps``).

A folder that cannot be written just means no caching. Nothing is ever evicted.
"""

from __future__ import annotations

import errno
import functools
import hmac
import os
import secrets
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from . import files

KEY_BYTES = 32
_OFF = ("off", "0", "no", "false", "")
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)
# openat-style access where the platform has it: os.replace renames with renameat like os.rename, but CPython
# lists only os.rename in supports_dir_fd (testing os.replace there left this False everywhere)
_AT = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and os.mkdir in os.supports_dir_fd


@dataclass(frozen=True)
class Kind:
    """One kind of entry: its magic (also signed), its subfolder of the cache folder, suffix and size cap."""

    magic: bytes
    subfolder: tuple[str, ...]
    suffix: str
    max_payload: int


def cache_dir() -> Path | None:
    """The cache folder, or None when caching is off: ``$SPEC2ONNX_CACHE`` (``off`` turns it off), else
    ``$XDG_CACHE_HOME/spec2onnx``, else ``~/.cache/spec2onnx``."""
    return _cache_dir(os.environ.get("SPEC2ONNX_CACHE"), os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"))


@functools.lru_cache(maxsize=8)
def _cache_dir(explicit: str | None, xdg: str | None, home: str | None) -> Path | None:
    # (asked twice per spec a worker loads: the answer is kept per value of the variables it reads)
    if explicit is not None:
        return None if explicit.strip().lower() in _OFF else Path(explicit)
    if xdg and os.path.isabs(xdg):  # (a relative one "should be considered invalid and ignored": the XDG Base
        return Path(xdg) / "spec2onnx"  # Directory spec; it put a cache in whatever folder the command ran from)
    home = os.path.expanduser("~")
    if not os.path.isdir(home):  # a home that does not exist (Debian's system users': /nonexistent) is not made
        return None
    return Path(home) / ".cache" / "spec2onnx"


def sign(secret: bytes, kind: Kind, key: str, payload: bytes) -> bytes:
    """The HMAC of an entry: its kind, its key and its payload together."""
    return hmac.digest(secret, kind.magic + b"\0" + key.encode() + b"\0" + payload, "sha256")


def entry_path(folder: Path, kind: Kind, key: str) -> Path:
    """Where the entry for ``key`` lives (for tests and messages; reading and writing go through open folders)."""
    return folder.joinpath(*kind.subfolder, key[:2], key[2:] + kind.suffix)


def read(folder: Path, secret: bytes, kind: Kind, key: str) -> bytes | None:
    """The payload of ``key``'s entry, or None: missing, not a regular file, too big, another kind, not signed
    for ``key``, or under a symlinked subfolder."""
    cap = len(kind.magic) + 32 + kind.max_payload
    blob = _read_file(folder, (*kind.subfolder, key[:2]), key[2:] + kind.suffix, cap)
    if blob is None:
        return None
    head = len(kind.magic) + 32
    if blob[:len(kind.magic)] != kind.magic or not hmac.compare_digest(sign(secret, kind, key, blob[head:]), blob[len(kind.magic):head]):
        return None
    return blob[head:]


def write(folder: Path, secret: bytes, kind: Kind, key: str, payload: bytes) -> None:
    """Keep ``payload`` as ``key``'s entry (atomically); nothing when it is over the cap or cannot be written."""
    if len(payload) > kind.max_payload:
        return
    _write_file(folder, (*kind.subfolder, key[:2]), key[2:] + kind.suffix, kind.magic + sign(secret, kind, key, payload) + payload)


# -- the key -------------------------------------------------------------------------------------------

_KEYS: dict[str, tuple[tuple, bytes | None]] = {}  # key path -> (its lstat signature, what _read_key gave)
_SAID: set[str] = set()


def _say_once(path: Path, why: str) -> None:
    if str(path) not in _SAID:
        _SAID.add(str(path))
        print(f"spec2onnx: warning: cache key {path}: {why}; caching is off (remove it and a new key is made)",
              file=sys.stderr)


def _what(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(mode):
            return name
    return "not a regular file"


def secret(folder: Path) -> bytes | None:
    """The random key that signs this folder's entries (made on first use), or None: then nothing is cached.

    Every spec load asks (twice: the spec and its model); the answer is kept per process for as long as
    the file's lstat signature is unchanged: a chmod, a replacement or a rewrite reads it again."""
    path = folder / "key"
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return _make_key(folder, path)
    except OSError:
        return None
    signature = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_mode, info.st_uid, info.st_size)
    known = _KEYS.get(str(path))
    if known is not None and known[0] == signature:
        return known[1]
    key = _read_key(path)
    _KEYS[str(path)] = (signature, key)
    return key


def _read_key(path: Path) -> bytes | None:
    """The key, if it is a regular file of KEY_BYTES that only its owner (this user) can read or write."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW on a symlink (EMLINK: FreeBSD)
            _say_once(path, "is a symbolic link")
        elif exc.errno != errno.ENOENT:
            _say_once(path, exc.strerror or str(exc))
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            _say_once(path, f"is {_what(info.st_mode)}, not a file")
            return None
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            _say_once(path, "belongs to another user")  # a key others could plant is no key
            return None
        if info.st_mode & 0o077:
            _say_once(path, f"may be read or written by others (mode {stat.S_IMODE(info.st_mode):04o}, not 0600)")
            return None
        key = os.read(fd, KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(key) != KEY_BYTES:
        _say_once(path, f"holds {len(key)} bytes, not {KEY_BYTES}")
        return None
    return key


def _make_key(folder: Path, path: Path) -> bytes | None:
    """A new key, whole or not at all: written to a temporary file, then linked as ``key`` (which fails where
    another process linked its own first: theirs is read). Created empty and filled after, a key was read empty
    by a process starting at the same moment (caching off, with a warning to remove it), and a full disk left
    it empty for good."""
    temp = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        temp = folder / files.temp_name("key")
        fd = os.open(temp, _CREATE_FLAGS, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(temp, path)
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links: renamed instead (a key another process renamed at the
            os.replace(temp, path)  # same moment is replaced: its entries are misses, made again; never a torn key)
    except FileExistsError:  # another process made it first
        pass
    except OSError:  # (a full disk, a folder that cannot be written, no hard links: no key, no caching)
        return None
    finally:
        if temp is not None:
            try:
                os.unlink(temp)
            except OSError:
                pass
    return secret(folder)


# -- files below the folder, never through a link ---------------------------------------------------------

def _open_folder(folder: Path, parts: tuple[str, ...], create: bool) -> int | None:
    """An open descriptor of ``folder/parts...``, each part opened relative to its parent without following a
    link (made when ``create``), or None."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    for part in parts:
        try:
            if create:
                try:
                    os.mkdir(part, 0o700, dir_fd=fd)
                except FileExistsError:
                    pass
            inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = inner
    return fd


_OPEN_FOLDERS: dict[tuple[str, tuple[str, ...]], int] = {}  # (cache folder, a kind's subfolders) -> its descriptor


def _kind_folder(folder: Path, parts: tuple[str, ...]) -> int | None:
    """An open descriptor of ``folder/parts...`` (``_open_folder``), kept for this process's next reads: a spec's
    validation reads four entries, each had opened the cache folder and its subfolders again. A kept folder that
    was removed (no links left) is opened afresh; one replaced by a link keeps being the folder it was."""
    key = (str(folder), parts)
    fd = _OPEN_FOLDERS.get(key)
    if fd is not None:
        try:
            if os.fstat(fd).st_nlink > 0:
                return fd
        except OSError:
            pass
        del _OPEN_FOLDERS[key]
        try:
            os.close(fd)
        except OSError:
            pass
    fd = _open_folder(folder, parts, create=False)
    if fd is not None:
        _OPEN_FOLDERS[key] = fd
    return fd


def _read_file(folder: Path, parts: tuple[str, ...], name: str, cap: int) -> bytes | None:
    if not _AT:
        return _read_by_path(folder, parts, name, cap)
    base = _kind_folder(folder, parts[:-1])
    if base is None:
        return None
    try:
        dfd = os.open(parts[-1], _DIR_FLAGS, dir_fd=base)  # (the last part: the entry's shard, key[:2])
    except OSError:
        return None
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dfd)
    except OSError:
        return None
    finally:
        os.close(dfd)
    return _read_open(fd, cap)


def _read_open(fd: int, cap: int) -> bytes | None:
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > cap:
            return None
        chunks, size, want = [], 0, info.st_size + 1  # (os.read allocates what it is asked for: ask for the size)
        while size <= cap:  # never more than cap + 1 bytes, whatever the file grows to
            chunk = os.read(fd, min(want, cap + 1 - size))
            want = 1 << 16
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > cap else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _write_file(folder: Path, parts: tuple[str, ...], name: str, blob: bytes) -> None:
    if not _AT:
        _write_by_path(folder, parts, name, blob)
        return
    dfd = _open_folder(folder, parts, create=True)
    if dfd is None:
        return
    try:
        _put(blob, name, dfd=dfd)
    except OSError:  # a read-only or full disk, a folder in the entry's place: no caching
        pass
    finally:
        os.close(dfd)


def _put(blob: bytes, name: str, *, dfd: int | None = None, where: Path | None = None) -> None:
    """Write ``blob`` as ``name`` in the folder open as ``dfd`` (or at the path ``where``): a new temporary file of
    files.temp_name's naming (swept by the next writer if this one dies), renamed over ``name``; removed on failure."""
    def at(n: str) -> str:
        return n if dfd is not None else str(where / n)

    files.sweep_stale_temps(where, dir_fd=dfd)
    tmp = files.temp_name(name)
    fd = os.open(at(tmp), _CREATE_FLAGS, 0o600, dir_fd=dfd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(blob)
        os.replace(at(tmp), at(name), src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        try:
            os.unlink(at(tmp), dir_fd=dfd)
        except OSError:
            pass
        raise


# Where os.open has no dir_fd (Windows): the same checks by path, each part lstat'ed (a race is possible there).

def _real_folder(folder: Path, parts: tuple[str, ...], create: bool) -> Path | None:
    path = folder
    try:
        for part in parts:
            path = path / part
            if create:
                try:
                    os.mkdir(path, 0o700)
                except FileExistsError:
                    pass
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return None
    except OSError:
        return None
    return path


def _read_by_path(folder: Path, parts: tuple[str, ...], name: str, cap: int) -> bytes | None:
    where = _real_folder(folder, parts, create=False)
    try:
        if where is None or not stat.S_ISREG(os.lstat(where / name).st_mode):
            return None
        return _read_open(os.open(where / name, _READ_FLAGS), cap)
    except OSError:
        return None


def _write_by_path(folder: Path, parts: tuple[str, ...], name: str, blob: bytes) -> None:
    where = _real_folder(folder, parts, create=True)
    if where is None:
        return
    try:
        _put(blob, name, where=where)
    except OSError:
        pass
