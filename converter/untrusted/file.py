"""A model file's bytes, read bounded: by converter/untrusted/reading.py, which parses them with onnx, and by
converter/model/start.py, which hands them to a runtime before onnx is imported. Imports nothing heavy."""

from __future__ import annotations

import os
import stat

from ..budget import PROTOBUF_LIMIT, _describe_budget as describe_budget, show
from ..errors import UserError

READ_FACTOR = 3  # the file's bytes, their parsed copy, and a re-serialized structure: bounds the read


def read_bounded(path: str, budget: int) -> tuple[bytes, tuple]:
    """(the bytes of the regular file ``path``, its identity: device, inode, size, modification time in ns);
    a UserError (one line) when it is no regular file, cannot be an ONNX model (over 2 GiB) or reading it
    would take more than ``budget``."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO does not wait for a writer
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{path}: not a regular file ({file_kind(info.st_mode)}); check reads ONNX model files")
        size = info.st_size
        if size > PROTOBUF_LIMIT:
            raise UserError(f"{path}: {show(size)}, larger than an ONNX model file can be (one protobuf message, "
                            "at most 2 GiB; larger tensors go in external data files)")
        if READ_FACTOR * size > budget:
            raise UserError(f"{path}: reading this {show(size)} model needs an estimated {show(READ_FACTOR * size)}, "
                            f"above the memory budget of {describe_budget(budget)}")
        chunks, left = [], size + 1  # one byte more: a file that grew while read is noticed
        while left > 0:
            chunk = os.read(fd, min(left, 2**24))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        after = os.fstat(fd)
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) != size:
        raise UserError(f"{path}: the file changed while it was read ({size} bytes, then {len(data)})")
    return data, identity(after)


def identity(info: os.stat_result) -> tuple:
    """What tells one version of a file from another without reading it (as make and rsync's quick check do)."""
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"
