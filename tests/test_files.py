"""Outputs never destroy what they should not: inputs, links, devices, FIFOs (converter/files.py).

A symlink is written through (the link stays a link), a FIFO or a device is written in place
(it stays what it is), an output that is an input of the run is refused with exit 2 before any
work, and a folder that cannot be written is found out before the run, not after it.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import threading

import numpy as np
import pytest
from click.testing import CliRunner

from cli import main
from converter.errors import UserError
from converter.files import TEMP_SUFFIX, check_output, write_atomic

from .conftest import SPECS

GOOD_SPEC = """\
name: good
network: {inputs: {x: {dtype: float32, shape: [1,1,1,2]}}, layers: [{name: y, op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [2]}], outputs: [y]}
cases: [{name: c, inputs: {x: [[[[1, 2]]]]}}]
"""
NPY_SPEC = """\
name: npy
network: {inputs: {x: {dtype: float32, shape: [2]}}, layers: [{name: y, op: trt.ElementWise, inputs: [x, x], operation: SUM}], outputs: [y]}
cases: [{name: c, inputs: {x: y.npy}}]
"""
posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file types")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("spec2onnx: error: "), result.output
    return lines[0]


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(GOOD_SPEC)
    return path


# --- an output that is an input ----------------------------------------------------------------


def test_convert_onto_its_own_spec_is_refused_and_the_spec_survives(good):
    result = invoke("convert", good, "-o", good)
    assert result.exit_code == 2
    assert _one_error_line(result) == f"spec2onnx: error: -o {good}: is an input of this run; refusing to overwrite it"
    assert good.read_text() == GOOD_SPEC


def test_convert_onto_a_data_file_of_the_spec_is_refused(tmp_path):
    spec = tmp_path / "n.yaml"
    spec.write_text(NPY_SPEC)
    np.save(tmp_path / "y.npy", np.array([1, 2], np.float32))
    before = (tmp_path / "y.npy").read_bytes()
    result = invoke("convert", spec, "-o", tmp_path / "y.npy")
    assert result.exit_code == 2 and "an input of this run" in _one_error_line(result)
    assert (tmp_path / "y.npy").read_bytes() == before


@pytest.mark.parametrize("option", ["--json", "--junit"])
def test_validate_report_onto_a_spec_is_refused_before_the_run(good, option):
    result = invoke("validate", good, "-j", 0, option, good)
    assert result.exit_code == 2
    assert f"{option} {good}: is an input of this run" in _one_error_line(result)  # no case line: nothing ran
    assert good.read_text() == GOOD_SPEC


def test_validate_report_onto_the_xfail_file_is_refused(good, tmp_path):
    xfail = tmp_path / "known.yaml"
    xfail.write_text("[]\n")
    result = invoke("validate", good, "-j", 0, "--xfail-file", xfail, "--json", xfail)
    assert result.exit_code == 2 and "an input of this run" in _one_error_line(result)
    assert xfail.read_text() == "[]\n"


@pytest.mark.parametrize("option", ["--json", "--junit"])
@pytest.mark.parametrize("link", [False, True])
def test_validate_report_onto_a_data_file_of_a_spec_is_refused(tmp_path, option, link):
    spec = tmp_path / "n.yaml"
    spec.write_text(NPY_SPEC)
    np.save(tmp_path / "y.npy", np.array([1, 2], np.float32))
    before = (tmp_path / "y.npy").read_bytes()
    report = tmp_path / ("r.xml" if link else "y.npy")
    if link:
        os.symlink(tmp_path / "y.npy", report)
    result = invoke("validate", spec, "-j", 0, option, report)
    assert result.exit_code == 2 and f"{option} {report}: is " in _one_error_line(result)
    assert "an input of this run" in result.output and (tmp_path / "y.npy").read_bytes() == before


def test_json_and_junit_on_the_same_file_are_refused(good, tmp_path):
    result = invoke("validate", good, "-j", 0, "--json", tmp_path / "r", "--junit", tmp_path / "r")
    assert result.exit_code == 2 and "--json writes the same file" in _one_error_line(result)
    assert not (tmp_path / "r").exists()


def test_run_onto_the_npy_file_the_case_reads_is_refused(tmp_path):
    """run writes <output>.npy: here output y would overwrite the case's own input file y.npy."""
    spec = tmp_path / "n.yaml"
    spec.write_text(NPY_SPEC)
    np.save(tmp_path / "y.npy", np.array([1, 2], np.float32))
    before = (tmp_path / "y.npy").read_bytes()
    result = invoke("run", spec, "-o", tmp_path)
    assert result.exit_code == 2
    assert f"-o {tmp_path / 'y.npy'}: is an input of this run; refusing to overwrite it" in _one_error_line(result)
    assert (tmp_path / "y.npy").read_bytes() == before
    elsewhere = tmp_path / "out"
    elsewhere.mkdir()
    assert invoke("run", spec, "-o", elsewhere).exit_code == 0
    np.testing.assert_array_equal(np.load(elsewhere / "y.npy"), [2, 4])


def test_run_onto_its_own_input_file_is_refused(good, tmp_path):
    x = tmp_path / "y.npy"  # fed as input x, and the output y would be written to y.npy
    np.save(x, np.ones((1, 1, 1, 2), np.float32))
    result = invoke("run", good, "--input", f"x={x}", "-o", tmp_path)
    assert result.exit_code == 2 and "an input of this run" in _one_error_line(result)
    np.testing.assert_array_equal(np.load(x), np.ones((1, 1, 1, 2)))


# --- symlinks, FIFOs, devices --------------------------------------------------------------------


@posix
def test_a_symlink_is_written_through_and_stays_a_link(good, tmp_path):
    target = tmp_path / "real" / "report.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = invoke("validate", good, "-j", 0, "--json", link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["summary"]["PASS"] == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)] == []


@posix
def test_a_dangling_symlink_creates_its_target(tmp_path):
    target = tmp_path / "model.onnx"
    link = tmp_path / "link.onnx"
    link.symlink_to(target)
    write_atomic(link, b"model")
    assert link.is_symlink() and target.read_bytes() == b"model"


@posix
def test_a_symlink_loop_is_refused(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(UserError, match="a.json"):
        check_output("--json", a)


@posix
@pytest.mark.parametrize("through_link", [False, True])
def test_a_fifo_is_written_in_place_and_stays_a_fifo(good, tmp_path, through_link):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path = fifo
    if through_link:
        path = tmp_path / "to-pipe.json"
        path.symlink_to(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = invoke("validate", good, "-j", 0, "--json", path)
    reader.join(30)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(received[0])["summary"]["PASS"] == 1


@posix
def test_a_character_device_is_written_in_place(good, tmp_path):
    """A node of /dev/null's device made in tmp_path (writing to /dev/null itself would replace it if this broke)."""
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.stat(os.devnull).st_rdev)
    except (OSError, AttributeError):
        pytest.skip("cannot make a device node here (needs CAP_MKNOD)")
    before = os.lstat(node)
    result = invoke("validate", good, "-j", 0, "--json", node, "--junit", node)  # two reports into one device: fine
    assert result.exit_code == 0, result.output
    after = os.lstat(node)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "s.yaml"]


@posix
def test_a_socket_and_a_folder_are_refused(tmp_path):
    path = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
    except OSError:  # a path too long for AF_UNIX
        pytest.skip("cannot bind a unix socket here")
    try:
        with pytest.raises(UserError, match="is a socket"):
            check_output("--json", path)
    finally:
        server.close()
    with pytest.raises(UserError, match="is a folder"):
        check_output("--json", tmp_path)


# --- names and folders ---------------------------------------------------------------------------


def test_an_output_name_of_250_bytes_is_written_the_temporary_name_is_shortened(good, tmp_path):
    out = tmp_path / ("m" * 245 + ".onnx")
    result = invoke("convert", good, "-o", out)
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, good.name])


def test_an_output_name_longer_than_the_file_system_allows_is_refused(good, tmp_path):
    out = tmp_path / ("m" * 300 + ".onnx")
    result = invoke("convert", good, "-o", out)
    assert result.exit_code == 2
    assert "the file name is 305 bytes, longer than the 255 this file system allows" in _one_error_line(result)


def test_a_spec_name_longer_than_the_file_system_allows_is_a_user_error(tmp_path):
    for command in ("validate", "convert", "run"):
        result = invoke(command, tmp_path / ("s" * 300 + ".yaml"))
        assert result.exit_code == 2, (command, result.output)
        assert "File name too long" in _one_error_line(result)


def test_empty_output_names_are_refused(good):
    for args in (("validate", good, "--json", ""), ("validate", good, "--junit", ""),
                 ("validate", good, "--repro-dir", ""), ("convert", good, "-o", ""), ("run", good, "-o", "")):
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "name is empty" in _one_error_line(result)


def test_an_unwritable_folder_is_found_before_the_run(good, tmp_path):
    """/proc admits no new file, even for root; a read-only folder is tried too where permissions bind."""
    if not os.path.isdir("/proc"):
        pytest.skip("no /proc")
    folders = ["/proc"]
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        folders.append(str(locked))
    for folder in folders:
        for args in (("validate", good, "-j", 0, "--json", f"{folder}/r.json"),
                     ("validate", good, "-j", 0, "--junit", f"{folder}/r.xml"),
                     ("convert", good, "-o", f"{folder}/m.onnx"), ("run", good, "-o", folder)):
            result = invoke(*args)
            assert result.exit_code == 2, (args, result.output)
            line = _one_error_line(result)  # one line, before any case ran: no PASS line, no summary
            assert f"cannot write in folder {folder}" in line, line


def test_a_write_that_fails_late_is_a_user_error_not_an_internal_one(good, tmp_path, monkeypatch):
    from converter import files

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    result = invoke("convert", good, "-o", tmp_path / "m.onnx")
    assert result.exit_code == 2 and "No space left on device" in _one_error_line(result)
    result = invoke("run", good, "-o", tmp_path)
    assert result.exit_code == 2 and "No space left on device" in _one_error_line(result)
    assert not list(tmp_path.glob("*.onnx")) and not list(tmp_path.glob("*.npy"))


@posix
def test_the_bundled_suite_validates_with_reports_through_links(tmp_path):
    """The rules cost nothing on the usual path: a report beside the suite, written through a link to a new file."""
    link = tmp_path / "r.json"
    link.symlink_to(tmp_path / "new.json")
    result = invoke("validate", SPECS / "trt_scale", "-q", "-j", 0, "--json", link)
    assert result.exit_code == 0, result.output[-2000:]
    assert link.is_symlink() and json.loads((tmp_path / "new.json").read_text())["summary"]["total"] > 0


def test_the_python_api_convert_follows_the_same_rules(good, tmp_path):
    import converter

    with pytest.raises(UserError, match="is an input of this run"):
        converter.convert(good, output=good)
    assert good.read_text() == GOOD_SPEC
    conversion = converter.convert(good, output=tmp_path / "m.onnx")
    assert conversion.path == tmp_path / "m.onnx" and (tmp_path / "m.onnx").stat().st_size > 0
    import yaml

    from_mapping = converter.convert(yaml.safe_load(GOOD_SPEC), output=tmp_path / "m2.onnx")  # no file to protect
    assert from_mapping.path.stat().st_size > 0


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="no /dev/stdout")
@pytest.mark.parametrize("stdout_is", ["pipe", "file"])
@pytest.mark.parametrize("name", ["/dev/stdout", "-"])
def test_json_to_dev_stdout_follows_the_summary(good, tmp_path, stdout_is, name):
    """/dev/stdout names this process's open stdout: written in place (appended), never replaced. ``-`` is the same, as
    in most command-line tools (it wrote a file named '-')."""
    import subprocess

    from .conftest import REPO

    command = [sys.executable, str(REPO / "cli.py"), "validate", str(good), "-j", "0", "-q", "--json", name]
    if stdout_is == "pipe":
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                              cwd=tmp_path)
        out = proc.stdout
    else:
        with open(tmp_path / "out.txt", "w") as handle:
            proc = subprocess.run(command, stdout=handle, stderr=subprocess.PIPE, text=True, timeout=120,
                                  cwd=tmp_path)
        out = (tmp_path / "out.txt").read_text()
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "-").exists()
    summary, _, document = out.partition("\n{")
    assert summary.splitlines()[-1].startswith("1 case: 1 passed")
    assert json.loads("{" + document)["summary"]["PASS"] == 1
