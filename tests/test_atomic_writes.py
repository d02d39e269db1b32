"""Nothing half-written: outputs are written to a temporary file and renamed into place.

An interrupted write (an exception, Ctrl-C, a full disk) leaves the old file, byte for byte,
and no temporary file; a bad spec never creates or touches an output file.
"""

from __future__ import annotations

import os
import stat
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from cli import main
from converter import files
from converter.files import TEMP_SUFFIX, save_npy_atomic, write_atomic

from .conftest import BAD_SPECS

OLD = b"old contents, must survive\n"
GOOD_SPEC = """\
name: good
network: {inputs: {x: {dtype: float32, shape: [1,1,1,2]}}, layers: [{name: y, op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [2]}], outputs: [y]}
cases: [{name: c, inputs: {x: [[[[1, 2]]]]}}]
"""


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX))


def test_write_atomic_replaces_the_file(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(OLD)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("stage", ["write", "fsync", "replace"])
@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_interrupted_write_keeps_the_old_file(tmp_path, monkeypatch, stage, error):
    target = tmp_path / "model.onnx"
    target.write_bytes(OLD)
    seen = []

    def interrupt(*args, **kwargs):
        seen.append(stage)
        raise error

    if stage == "write":
        real_fdopen = os.fdopen

        class HalfWriter:
            def __init__(self, fd, *args, **kwargs):
                self._handle = real_fdopen(fd, *args, **kwargs)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self._handle.close()

            def write(self, data):
                self._handle.write(data[: len(data) // 2])  # half of it is on disk, then the failure
                interrupt()

        monkeypatch.setattr(files.os, "fdopen", HalfWriter)
    else:
        monkeypatch.setattr(files.os, stage, interrupt)
    with pytest.raises(type(error)):
        write_atomic(target, b"N" * 100_000)
    assert seen == [stage]
    assert target.read_bytes() == OLD
    assert _leftovers(tmp_path) == []


def test_interrupted_write_of_a_new_file_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(files.os, "replace", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "new.onnx", b"data")
    assert list(tmp_path.iterdir()) == []


def test_save_npy_atomic_never_pickles_and_never_half_writes(tmp_path, monkeypatch):
    target = tmp_path / "y.npy"
    target.write_bytes(OLD)
    with pytest.raises(ValueError):  # an object array cannot be saved without pickling: nothing is written
        save_npy_atomic(target, np.array([{"a": 1}], dtype=object))
    assert target.read_bytes() == OLD and _leftovers(tmp_path) == []
    monkeypatch.setattr(files.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(OSError):
        save_npy_atomic(target, np.arange(10))
    assert target.read_bytes() == OLD and _leftovers(tmp_path) == []
    monkeypatch.undo()
    save_npy_atomic(target, np.arange(10))
    assert np.array_equal(np.load(target), np.arange(10))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_permissions_are_the_usual_or_the_old_ones(tmp_path):
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.onnx"
        write_atomic(fresh, b"x")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644  # not mkstemp's 0600
        kept = tmp_path / "kept.onnx"
        kept.write_bytes(OLD)
        kept.chmod(0o640)
        write_atomic(kept, b"x")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    finally:
        os.umask(umask)


# faults for `validate` only: converting needs no cases (tests/test_cli.py checks that these convert)
NO_CASES = {"common/cases-empty.yaml", "common/missing-cases.yaml"}


def _corpus():
    return sorted(p for p in BAD_SPECS.rglob("*") if p.suffix in (".yaml", ".yml", ".json")
                  and p.relative_to(BAD_SPECS).as_posix() not in NO_CASES)


def test_convert_of_any_bad_spec_leaves_an_existing_output_byte_identical(tmp_path):
    out = tmp_path / "model.onnx"
    out.write_bytes(OLD)
    mtime = out.stat().st_mtime_ns
    runner = CliRunner()
    for path in _corpus():
        result = runner.invoke(main, ["convert", str(path), "-o", str(out)])
        assert result.exit_code == 2, (path, result.output)
        assert out.read_bytes() == OLD, path
    assert out.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx"]


def test_convert_interrupted_while_writing_keeps_the_old_model(tmp_path, monkeypatch):
    spec = tmp_path / "good.yaml"
    spec.write_text(GOOD_SPEC)
    out = tmp_path / "model.onnx"
    out.write_bytes(OLD)

    def interrupted(*args, **kwargs):  # (the cache renames relative to a folder: src_dir_fd=)
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted)
    result = CliRunner().invoke(main, ["convert", str(spec), "-o", str(out)])
    assert result.exit_code not in (0, 3), result.output
    assert out.read_bytes() == OLD
    assert _leftovers(tmp_path) == []
    monkeypatch.undo()
    result = CliRunner().invoke(main, ["convert", str(spec), "-o", str(out)])
    assert result.exit_code == 0, result.output
    import onnx

    onnx.checker.check_model(onnx.load(str(out)))  # the complete new model, not a prefix of it
    assert _leftovers(tmp_path) == []
