"""Where the bundled suite lives, and writing output files safely: all or nothing, and never over the wrong thing.

The rules for an output path (``--json``, ``--junit``, ``convert -o``, ``run -o``'s files):

- a regular file (or a new name) is replaced atomically: a temporary file beside it, then a rename;
- a symbolic link is written through: its target is replaced, the link stays a link;
- anything else that exists (a device such as /dev/null, a FIFO), and a path naming an open file
  (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/...), is written in place, never replaced;
- a folder, a socket, a name longer than the file system allows, a folder that cannot be written,
  or an output that is also an input of the run are refused (``UserError``) before any work is done
  (``check_output``).

Temporary files are named ``.<target name>.<host>-<pid>.<random>.tmp`` (``host``: 6 hex digits naming this
machine and pid namespace). A writer killed with SIGKILL cannot remove its own; the next process writing to
the same folder does, at its first write there (``sweep_stale_temps``): a file of exactly that naming, a regular file of this user's, whose
writer is gone (same host, no process with that pid) or that is older than a day. Nothing else is touched.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import io
import os
import re
import secrets
import socket
import stat
import time
import zipfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

import numpy as np

from .errors import UserError

TEMP_SUFFIX = ".tmp"  # temporary files are named .<target name>.<host>-<pid>.<random hex>.tmp, beside the target
_TEMP_RE = re.compile(r"\.(?P<name>.+)\.(?P<host>[0-9a-f]{6})-(?P<pid>[0-9]{1,10})\.[0-9a-f]{12}\.tmp\Z", re.DOTALL)
STALE_AFTER = 24 * 3600  # seconds: a temporary file this old is stale whoever wrote it
NAME_MAX = 255  # bytes in one file name on every common file system; os.pathconf says more where it can
# Paths that name open files (/dev/stdout, /dev/fd/3, /proc/self/fd/1): replacing what they point to would be wrong.
_OPEN_FILE_PATHS = ("/dev/stdout", "/dev/stderr")
_OPEN_FILE_ROOTS = ("/dev/fd/", "/proc/")


def bundled_specs_dir() -> Path:
    """The conformance suite shipped with spec2onnx (the repo's specs/, also installed into the wheel)."""
    source_tree = Path(__file__).resolve().parent.parent / "specs"
    if source_tree.is_dir():
        return source_tree
    from importlib import resources

    return Path(str(resources.files(__package__) / "bundled_specs"))


def default_suite(cwd: str | Path | None = None) -> tuple[Path, str]:
    """What ``validate`` without paths runs, and a few words saying which it is.

    Inside a spec2onnx checkout (the current folder has ``specs/`` and a ``pyproject.toml`` naming the
    project spec2onnx), its ``specs/``: the suite being edited, even when the installed copy is older.
    Elsewhere, the suite installed with spec2onnx.
    """
    folder = Path.cwd() if cwd is None else Path(cwd)
    if (folder / "specs").is_dir() and _is_checkout(folder):
        return Path("specs") if cwd is None else folder / "specs", "this checkout's suite"
    return bundled_specs_dir(), "the suite that comes with spec2onnx"


def _is_checkout(folder: Path) -> bool:
    import re

    try:
        text = (folder / "pyproject.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r'^name\s*=\s*["\']spec2onnx["\']', text, re.MULTILINE) is not None


def write_atomic(path: str | Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write ``data`` to ``path`` all or nothing: readers (and an interrupted run) see the old file or the new one.
    ``data`` a function: it writes to the file it is given (a big .npz streamed, never whole in memory).

    The bytes go to a temporary file beside ``path`` (same folder, so the rename cannot cross file systems),
    are flushed to disk, and the file is renamed over ``path``. On any exception, KeyboardInterrupt included,
    the temporary file is removed and ``path`` is untouched. The new file gets the old file's permissions,
    or the usual ones for a new file (0666 less the umask; ``tempfile.mkstemp`` would give 0600).
    A symlink is written through (its target is replaced); a device or FIFO is written in place.
    """
    path = Path(path)
    if _in_place(path):
        _write_in_place(path, data)
        return
    path = _through_links(path)
    folder = path.parent
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = None
    sweep_stale_temps(folder)
    fd, tmp = _create_temp(folder, path.name)
    try:
        with os.fdopen(fd, "wb") as handle:
            _write(handle, data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_npy_atomic(path: str | Path, array: np.ndarray) -> None:
    """Save ``array`` as .npy (never pickled) with ``write_atomic``; it is serialized fully before anything is written."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    write_atomic(path, buffer.getvalue())


def check_output(option: str, path: str | Path, inputs: Iterable[str | Path] = ()) -> Path:
    """Refuse, before any work, an output ``write_atomic`` could not write or should not: returns the path.

    ``option`` names it in messages (``--json``); ``inputs`` are the files the run reads (specs, data):
    an output that is one of them is refused rather than destroyed.
    """
    if not str(path):
        raise UserError(f"{option}: the file name is empty")
    path = Path(path)
    where = f"{option} {path}"
    try:
        _check_name_length(where, path.parent, path.name)
        if path.is_dir():
            raise UserError(f"{where}: is a folder; give a file name")
        if _in_place(path):
            if stat.S_ISSOCK(os.stat(path).st_mode):
                raise UserError(f"{where}: is a socket; give a file, a device or a FIFO")
            return path  # a device, a FIFO or an open file: written in place
        target = _through_links(path)
        folder = target.parent
        if not folder.is_dir():
            raise UserError(f"{where}: folder {folder} does not exist")
        if target != path:
            _check_name_length(where, folder, target.name)
        if target.exists():
            same = same_file(target, inputs)
            if same is not None:
                what = "" if os.path.abspath(same) == os.path.abspath(path) else f"the same file as {same}, "
                raise UserError(f"{where}: is {what}an input of this run; refusing to overwrite it")
        _probe_folder(where, folder)
    except OSError as exc:
        raise UserError(f"{where}: {exc.strerror or exc}") from None
    return path


def check_distinct(outputs: dict[str, str | Path | None]) -> None:
    """Refuse two options naming the same output file (``--json r --junit r``)."""
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        key = os.path.realpath(path)
        if key in seen and (not _in_place(Path(path)) or str(path) in _OPEN_FILE_PATHS):  # (stdout twice: two reports
            # on one stream, which nothing can read; /dev/null twice is fine)
            raise UserError(f"{option} {path}: {seen[key]} writes the same file; give each report its own file")
        seen[key] = option


def same_file(path: str | Path, candidates: Iterable[str | Path]) -> str | None:
    """The first of ``candidates`` that is the file ``path`` names (symlinks followed), else None."""
    try:
        mine = os.stat(path)
    except OSError:
        return None
    for candidate in candidates:
        try:
            other = os.stat(candidate)
        except OSError:
            continue
        if (mine.st_dev, mine.st_ino) == (other.st_dev, other.st_ino):
            return str(candidate)
    return None


def check_writable_folder(option: str, folder: str | Path) -> None:
    """Refuse a folder this process cannot create files in (``--repro-dir``, ``run -o``), before any work."""
    _probe_folder(f"{option} {folder}", Path(folder))


def _in_place(path: Path) -> bool:
    """True for outputs written where they are: existing non-regular files, and paths naming open files."""
    absolute = os.path.abspath(path)
    if absolute in _OPEN_FILE_PATHS or absolute.startswith(_OPEN_FILE_ROOTS):
        return path.exists()
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # new, a dangling link or unreadable: the atomic path decides (and reports)
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _write_in_place(path: Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write to a device, a FIFO or an open file as it is (``> /dev/null``): never unlink or replace it."""
    flags = os.O_WRONLY | getattr(os, "O_BINARY", 0)
    if path.is_file():
        flags |= os.O_APPEND  # /dev/stdout redirected to a file: after what is there, never over it
    fd = os.open(path, flags)
    with os.fdopen(fd, "wb") as handle:
        _write(_Forward(handle), data)


class _Forward:
    """A file written in place, to a writer function: forward only (no tell, no seek), as a FIFO is. zipfile
    then writes each member's sizes after its data (a data descriptor), where on a seekable file it seeks back
    to its header, which an O_APPEND file (a redirected /dev/stdout) would write at the end instead."""

    def __init__(self, handle: BinaryIO):
        self.write, self.flush = handle.write, handle.flush


def _write(handle: BinaryIO, data: bytes | Callable[[BinaryIO], None]) -> None:
    if callable(data):
        data(handle)
    else:
        handle.write(data)


def _through_links(path: Path) -> Path:
    """The file a symlink (chain) points to, even a missing one; the path itself otherwise."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if target.is_symlink():  # realpath stops in a loop
        raise OSError(errno.ELOOP, "too many levels of symbolic links")
    return target


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return NAME_MAX


def _check_name_length(where: str, folder: Path, name: str) -> None:
    limit = _name_max(folder)
    size = len(os.fsencode(name))
    if size > limit:
        raise UserError(f"{where}: the file name is {size} bytes, longer than the {limit} this file system allows")


def _probe_folder(where: str, folder: Path) -> None:
    """Create and remove a temporary file in ``folder``: the one sure test of writing there (root, read-only mounts)."""
    try:
        fd, tmp = _create_temp(folder, "probe")
    except OSError as exc:
        raise UserError(f"{where}: cannot write in folder {folder} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(tmp)


@functools.lru_cache(maxsize=1)
def _host() -> str:
    """6 hex digits naming this machine and pid namespace: a pid means something only where it was taken."""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    return hashlib.sha256(f"{socket.gethostname()}\0{namespace}".encode()).hexdigest()[:6]


def temp_name(name: str, name_max: int = NAME_MAX) -> str:
    """``.<name>.<host>-<pid>.<random>.tmp`` (no folder), ``name`` shortened to fit ``name_max`` bytes."""
    tag = f".{_host()}-{os.getpid()}.{secrets.token_hex(6)}{TEMP_SUFFIX}"
    room = name_max - 1 - len(tag)
    encoded = os.fsencode(name)
    if len(encoded) > room:
        name = encoded[:room].decode("utf-8", errors="ignore") or "out"  # never a split UTF-8 character
    return f".{name}{tag}"


def _temp_name(folder: Path, name: str) -> str:
    return os.path.join(folder, temp_name(name, _name_max(folder)))


def _writer_gone(host: str, pid: int) -> bool:
    if host != _host() or os.name == "nt":  # another machine's pid; Windows' os.kill would kill
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # EPERM: alive, someone else's
        return False
    return False


_SWEPT: set[tuple[int, int]] = set()  # (device, inode) of the folders swept by this process


def sweep_stale_temps(folder: str | Path | None = None, *, dir_fd: int | None = None) -> int:
    """Remove the temporary files of our naming in ``folder`` (or the open folder ``dir_fd``) whose writer
    is gone or that are older than STALE_AFTER, the first time this process writes there; returns how many. Never raises: a folder that cannot be
    listed, or a file that cannot be removed, is left as it is. Only regular files of this user's, not links."""
    removed = 0
    try:
        info = os.fstat(dir_fd) if dir_fd is not None else os.stat(folder or ".")
        if (info.st_dev, info.st_ino) in _SWEPT:  # once per folder and process: a run writing many files lists it once
            return 0
        _SWEPT.add((info.st_dev, info.st_ino))
        names = os.listdir(dir_fd if dir_fd is not None else (folder or "."))
    except OSError:
        return 0
    now = time.time()
    for name in names:
        match = _TEMP_RE.match(name)
        if match is None:
            continue
        try:
            info = os.stat(name if dir_fd is not None else os.path.join(folder or ".", name),
                           dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
                continue
            if now - info.st_mtime > STALE_AFTER or _writer_gone(match["host"], int(match["pid"])):
                if dir_fd is not None:
                    os.unlink(name, dir_fd=dir_fd)
                else:
                    os.unlink(os.path.join(folder or ".", name))
                removed += 1
        except OSError:
            continue
    return removed


def _create_temp(folder: Path, name: str) -> tuple[int, str]:
    """A new, exclusively created temporary file ``.<name>.<random>.tmp`` in ``folder`` (mode 0666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = _temp_name(folder, name)
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file in {folder}")


def as_argument(path) -> str:
    """``path`` as a word of a printed command: ``./-x.onnx`` for ``-x.onnx``, which a command line takes for an option."""
    text = str(path)
    return f"./{text}" if text.startswith("-") else text


def write_output(option: str, path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """``write_atomic``, a failure (a full disk, a folder gone) the user's to fix: one line naming the option, exit 2."""
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise UserError(f"{option} {path}: cannot write ({exc.strerror or exc})") from None


def check_npz_names(option: str, path, names, what: str) -> None:
    """Refuse a name a .npz member cannot carry, so that what is saved loads back: a NUL byte, where Python's
    zipfile cuts a member's name (zipfile.ZipInfo: "Terminate the file name at the first null byte"; 'a\\0b'
    would be saved as member 'a', which --load-* then refuses). ``what``: input, output."""
    for name in names:
        if "\0" in name:
            raise UserError(f"{option} {path}: {what} {name!r} holds a NUL byte, which a .npz member name cannot "
                            "carry (zip cuts the name there); the file would not load back, so it is not written")


_ZIP32_BYTES = 0x7FFF0000  # a member above it (its .npy header included) needs zip64 sizes, said before it is written


def save_arrays(option: str, path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` as an uncompressed .npz (one member per name, never pickled), written atomically; a name that
    cannot be a member's is refused (check_npz_names), nothing written."""
    check_npz_names(option, path, arrays, "array")

    def fill(add) -> None:
        for name, array in arrays.items():
            add(name, array)

    save_arrays_from(option, path, fill)


def save_arrays_from(option: str, path, fill) -> None:
    """An uncompressed .npz written atomically, member by member: ``fill(add)`` calls ``add(name, array)`` for each
    array as it comes (run --mark-all's tensors, chunk by chunk), each streamed into the file at once, so that
    no array need be held after it is added. An exception from ``fill`` leaves ``path`` as it was. The names are
    the caller's to check first (check_npz_names); one added twice is an internal error."""
    written = set()

    def write(handle) -> None:  # streamed into the file: numpy writes an array in 16 MiB pieces (format.write_array);
        # a copy of each array and one of the whole archive in memory cost 2x the outputs (837 MiB PSS, 460 without)
        with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:

            def add(name: str, array) -> None:
                if name in written:
                    raise ValueError(f"{option} {path}: array {name!r} added twice")
                written.add(name)
                array = np.asarray(array)
                if array.dtype.isbuiltin == 2 and array.dtype.fields is None:  # ml_dtypes' (bfloat16, float8): as
                    # records of their size (|V1, |V2), which numpy reads back; float8e5m2's own '<f1' it does not
                    array = array.view(np.dtype(f"V{array.dtype.itemsize}"))
                with archive.open(f"{name}.npy", "w", force_zip64=array.nbytes > _ZIP32_BYTES) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)

            fill(add)

    write_output(option, path, write)
