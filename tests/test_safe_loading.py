"""Safe loading: plain data only, alias bombs and oversized inputs fail fast, .npy files are never unpickled.

The one-fault-per-file corpus (tests/bad_specs/) checks the messages; these tests check what a
corpus file cannot: memory bounds, files too large to commit, symlinks, FIFOs, and that
the safe loader reads every ordinary spec exactly as ``yaml.safe_load`` does (numbers with an exponent
excepted: YAML 1.2 reads them as numbers, as the loader does, and PyYAML's YAML 1.1 as text).
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
import tracemalloc
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import yaml

from click.testing import CliRunner

from converter import casedata
from converter.cli import main

from converter.pipeline import safe_yaml

from converter.pipeline import spec as spec_module
from converter.errors import SpecError, UserError
from converter.pipeline.spec import MAX_SPEC_BYTES, load_spec

from .conftest import BAD_SPECS, SPECS

NET = ("network: {inputs: {x: {dtype: float32, shape: [1,1,1,4]}}, "
       "layers: [{name: y, op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [2]}], outputs: [y]}\n")


def _spec(tmp_path: Path, data: str = "{random: uniform}", name: str = "spec.yaml", extra: str = "") -> Path:
    path = tmp_path / name
    path.write_text(f"name: t\n{extra}{NET}cases: [{{name: c, inputs: {{x: {data}}}}}]\n")
    return path


def _error(path: Path) -> str:
    with pytest.raises(UserError) as info:
        load_spec(path)
    return str(info.value)


def _bomb(levels: int, width: int = 10) -> str:
    lines = ["lol0: &lol0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


# --- alias expansion -----------------------------------------------------------------------------


@pytest.mark.parametrize("levels", [9, 30])  # 10^9 and 10^30 values
def test_billion_laughs_fails_in_bounded_memory(tmp_path, levels):
    path = tmp_path / "bomb.yaml"
    path.write_text("name: t\n" + _bomb(levels) + NET + "cases: []\n")
    tracemalloc.start()
    try:
        message = _error(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"aliases expand the document to more than {safe_yaml.MAX_NODES:,} nodes" in message
    assert message.startswith(f"{path}: lol"), message
    assert "\n" not in message
    assert peak < 20 * 2**20, peak  # the expansion is counted, never built


def test_merge_key_bomb_is_caught(tmp_path):
    text = "a0: &a0 {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7}\n"
    text += "".join(f"a{i}: &a{i} {{<<: [" + ", ".join([f"*a{i - 1}"] * 8) + "]}\n" for i in range(1, 12))
    path = tmp_path / "merge.yaml"
    path.write_text(text)
    assert "aliases expand the document" in _error(path)


def test_anchors_within_the_limit_load_like_safe_load(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text(
        "name: t\n"
        "network:\n"
        "  inputs: {x: {dtype: float32, shape: &s [1,1,2,2]}, z: {dtype: float32, shape: *s}}\n"
        "  layers:\n"
        "    - &layer {name: y, op: trt.ElementWise, inputs: [x, z], operation: SUM}\n"
        "    - {<<: *layer, name: w, operation: PROD}\n"
        "  outputs: [y, w]\n"
        "cases: [{name: c, inputs: {x: &d [[[[1, 2], [3, 4]]]], z: *d}, expected: {y: [[[[2, 4], [6, 8]]]]}}]\n")
    spec = load_spec(path)
    assert [layer.attrs["operation"] for layer in spec.network.layers] == ["SUM", "PROD"]
    assert spec.network.types["z"].shape == (1, 1, 2, 2)


def test_node_limit_without_aliases(tmp_path, monkeypatch):
    monkeypatch.setattr(safe_yaml, "MAX_NODES", 1000)
    path = _spec(tmp_path, data="[[[[" + ", ".join(["1"] * 2000) + "]]]]")
    assert "the document has more than 1,000 nodes" in _error(path)


def test_recursive_alias_is_an_error_not_a_recursion(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("name: t\nnetwork: &n {inputs: {}, layers: [*n], outputs: []}\ncases: []\n")
    assert "recursive alias" in _error(path)


@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{a: ", "}")])
def test_deep_nesting_is_a_user_error_without_crashing(tmp_path, opener, closer):
    # libyaml's C composer overflows the C stack (a segfault) on this; the pure-Python loader would raise
    # RecursionError. Both must be a one-line user error.
    path = tmp_path / "deep.yaml"
    path.write_text("name: " + opener * 200_000 + "1" + closer * 200_000 + "\n")
    message = _error(path)  # (how fast: benchmarks, not a timed assertion that fails on a loaded machine)
    assert f"nested more than {safe_yaml.MAX_DEPTH} levels deep" in message
    assert len(message) < 300


def test_deep_json_nesting(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"name": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert "nested more than" in _error(path)
    path.write_text('{"name": ' + "[" * 70 + "]" * 70 + "}")
    assert "nested more than 64 levels deep" in _error(path)


# --- plain data only -----------------------------------------------------------------------------


@pytest.mark.parametrize("tag", [
    "!!python/object/apply:os.system", "!!python/object/new:builtins.list", "!!python/name:os.system",
    "!!python/tuple", "!!binary", "!!set", "!!omap", "!tensor", "!<tag:example.com,2024:x>",
])
def test_object_tags_are_rejected_before_construction(tmp_path, tag):
    sentinel = tmp_path / "pwned"
    path = tmp_path / "tagged.yaml"
    path.write_text(f"name: t\nsource: {tag} [touch {sentinel}]\n{NET}cases: []\n")
    message = _error(path)
    assert "is not allowed: a spec holds plain data" in message
    assert message.startswith(f"{path}: source: tag ")
    assert not sentinel.exists()


def test_plain_explicit_tags_are_fine(tmp_path):
    path = _spec(tmp_path, data="[[[[!!float 1, !!int 2, 3, 4]]]]", extra="source: !!str 2024-01-01\n")
    assert load_spec(path).source == "2024-01-01"


def test_dates_stay_text(tmp_path):
    path = _spec(tmp_path, extra="description: 2024-13-45\nsource: 2024-01-01\n")
    spec = load_spec(path)
    assert spec.source == "2024-01-01"


@pytest.mark.parametrize("text, where", [
    ("name: t\nname: u\n", "duplicate key 'name' (first at line 1); YAML keys must be unique (line 2)"),
    ("a: {b: 1, c: 2, b: 3}\n", "a: duplicate key 'b' (first at line 1)"),
    ("a: [{x: 1}, {y: 1, 'y': 2}]\n", "a[1]: duplicate key 'y'"),
])
def test_duplicate_yaml_keys(tmp_path, text, where):
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    assert where in _error(path)


def test_merge_keys_may_be_overridden(tmp_path):
    assert safe_yaml.load_yaml("b: &b {x: 1, y: 2}\nd: {<<: *b, x: 3}\n") == {"b": {"x": 1, "y": 2}, "d": {"x": 3, "y": 2}}


@pytest.mark.parametrize("text, want", [
    ('{"a": 1, "a": 2}', "duplicate key 'a'; JSON keys must be unique"),
    ('{"a": {"b": [0, {"c": 1, "c": 1}]}}', "a.b[1]: duplicate key 'c'"),
    ('{"a": 18446744073709551616}', "a: integer 18446744073709551616 does not fit in 64 bits"),
    ('{"a": -9223372036854775809}', "does not fit in 64 bits"),
    ('{"a": 1' + "0" * 5000 + "}", "invalid JSON: Exceeds the limit (4300 digits)"),
    ('{"a": 1}\n// a comment after the data is not allowed', "invalid JSON at line 2"),
])
def test_json_errors(tmp_path, text, want):
    path = tmp_path / "doc.json"
    path.write_text(text)
    message = _error(path)
    assert want in message and "\n" not in message


def test_json_nan_and_comment_header_are_accepted(tmp_path):
    doc = {"name": "t", "network": yaml.safe_load(NET)["network"],
           "cases": [{"name": "c", "inputs": {"x": [[[[float("nan"), float("inf"), -float("inf"), 1.0]]]]}}]}
    path = tmp_path / "nan.json"
    path.write_text("// generated by a tool\n//\n" + json.dumps(doc))  # json.dumps writes NaN, Infinity
    x = load_spec(path).cases[0].inputs["x"].ravel()
    assert np.isnan(x[0]) and x[1] == np.inf and x[2] == -np.inf


@pytest.mark.parametrize("text", ["a: 1" + "0" * 5000, "a: 18446744073709551616", "a: 0x10000000000000000",
                                  "a: -9223372036854775809"])
def test_huge_yaml_integers(text):
    with pytest.raises(SpecError, match="does not fit in 64 bits"):
        safe_yaml.load_yaml(text)


def test_int64_extremes_load():
    assert safe_yaml.load_yaml("a: [-9223372036854775808, 18446744073709551615]") == {"a": [-(2**63), 2**64 - 1]}


@pytest.mark.parametrize("text, want", [
    ("a: !!float abc", "invalid YAML at line 1, column 4: cannot read 'abc' as !!float"),
    ("a: !!bool maybe", "invalid YAML at line 1, column 4: cannot read 'maybe' as !!bool"),
    ("a: !!int 1.5", "a: '1.5' is not an integer (line 1)"),
])
def test_bad_explicit_scalars_are_user_errors(text, want):
    with pytest.raises(SpecError) as info:
        safe_yaml.load_yaml(text)
    assert want in str(info.value)


@pytest.mark.parametrize("text, want", [
    # YAML 1.2's core schema (and JSON) read these as numbers; YAML 1.1, which PyYAML follows, as text
    ("1e-3", 0.001), ("2E5", 200000.0), ("-1e+2", -100.0), ("+3e0", 3.0), (".5e1", 5.0), ("1.e3", 1000.0),
    ("1.0e-5", 1e-5), ("0e0", 0.0), ("1.0e400", math.inf), ("-1e400", -math.inf),
    # YAML 1.1's own forms are unchanged; text that only looks like one stays text
    ("1.5e-3", 0.0015), ("1e", "1e"), ("e5", "e5"), ("1e5x", "1e5x"), ("1_0e3", "1_0e3"), ("1e5.0", "1e5.0"),
    ("0x1e", 30), ("'1e-3'", "1e-3"),
])
def test_numbers_with_an_exponent_are_numbers(text, want):
    got = safe_yaml.load_yaml(f"a: {text}\nb: [{text}]\n")
    assert got == {"a": want, "b": [want]} and type(got["a"]) is type(want)


def test_a_spec_written_with_exponents_loads_them_as_numbers(tmp_path):
    """`scale: [1e-3]` was refused ("expected a number, got '1e-3'") though `tolerance: {atol: 1e-5}` was read."""
    path = tmp_path / "exp.yaml"
    path.write_text("name: t\nnetwork: {inputs: {x: {dtype: float32, shape: [1,1,1,2]}}, layers: [{name: y, "
                    "op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [1e-3], shift: [2E1]}], outputs: [y]}\n"
                    "cases: [{name: c, inputs: {x: [[[[1e3, -4e+3]]]]}, expected: {y: [[[[21.0, 16.0]]]]}}]\n")
    spec = load_spec(path)
    layer = spec.network.layers[0]
    assert layer.attrs["scale"].tolist() == [np.float32(1e-3)] and layer.attrs["shift"].tolist() == [20.0]
    assert spec.cases[0].inputs["x"].ravel().tolist() == [1000.0, -4000.0]
    result = CliRunner().invoke(main, ["validate", "-j", "0", str(path)])  # 1000 * 0.001 + 20, -4000 * 0.001 + 20
    assert result.exit_code == 0 and "PASS  t/c" in result.output, result.output


def test_every_bundled_spec_loads_as_with_safe_load():
    """The safe loader changes nothing for ordinary documents (dates aside: the suite has none; nor has it a number
    written with an exponent and no dot, which YAML 1.1 reads as text and the spec loader as a number)."""
    files = sorted(p for p in SPECS.rglob("*") if p.suffix in (".yaml", ".yml"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        ours, theirs = safe_yaml.load_yaml(text), _exponents_read(yaml.safe_load(text))
        assert json.dumps(ours, sort_keys=True) == json.dumps(theirs, sort_keys=True), path


def _exponents_read(doc):
    """``doc`` (as yaml.safe_load gives it) with the text that is a number with an exponent read as one."""
    if isinstance(doc, dict):
        return {k: _exponents_read(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_exponents_read(v) for v in doc]
    return float(doc) if isinstance(doc, str) and safe_yaml.EXPONENT_FLOAT.match(doc) else doc


# --- file sizes and kinds ------------------------------------------------------------------------


def test_oversized_spec_is_rejected_without_reading_it(tmp_path):
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as handle:  # sparse: no disk space used, nothing to read
        handle.truncate(MAX_SPEC_BYTES + 1)
    message = _error(path)
    assert message == f"{path}: larger than the {MAX_SPEC_BYTES // 2**20} MiB limit for spec files"


def test_spec_at_the_size_limit_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(spec_module, "MAX_SPEC_BYTES", 4096)
    path = _spec(tmp_path)
    path.write_text(path.read_text() + "#" * (4096 - path.stat().st_size))
    assert path.stat().st_size == 4096
    load_spec(path)
    path.write_text(path.read_text() + "#")
    assert "larger than the 0 MiB limit" in _error(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_not_read(tmp_path):
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    assert _error(path) == f"{path}: not a regular file"  # reading it would block forever


def test_not_a_spec_suffix(tmp_path):
    path = tmp_path / "spec.txt"
    path.write_text("name: t\n")
    assert "not a spec file" in _error(path)


def test_oversized_npy_is_rejected_without_reading_it(tmp_path):
    with open(tmp_path / "big.npy", "wb") as handle:
        handle.truncate(casedata.MAX_NPY_BYTES + casedata.NPY_HEADER_ROOM + 1)
    assert f"big.npy: larger than the {casedata.MAX_NPY_BYTES // 2**20} MiB limit for .npy files" in _error(_spec(tmp_path, "big.npy"))


def test_npy_limit_is_on_the_data_not_the_header(tmp_path, monkeypatch):
    # a tensor of exactly the limit loads (its file is the limit plus its header: 1x64x1024x1024 float32, 256 MiB);
    # one element more is refused after the header is read
    monkeypatch.setattr(casedata, "MAX_NPY_BYTES", 16)
    np.save(tmp_path / "big.npy", np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4))  # 16 bytes of data, 128 of header
    assert (tmp_path / "big.npy").stat().st_size > 16
    load_spec(_spec(tmp_path, "big.npy"))
    np.save(tmp_path / "big.npy", np.arange(5, dtype=np.float32))
    assert "big.npy: larger than the 0 MiB limit for .npy files" in _error(_spec(tmp_path, "big.npy"))


def test_random_data_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(casedata, "MAX_NPY_BYTES", 15)
    assert "above the 0 MiB limit for one tensor's case data" in _error(_spec(tmp_path))
    monkeypatch.setattr(casedata, "MAX_NPY_BYTES", 16)
    load_spec(_spec(tmp_path))


# --- .npy files ----------------------------------------------------------------------------------


def _npy(array, **kw) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, **kw)
    return buffer.getvalue()


def test_pickled_npy_is_never_unpickled(tmp_path, monkeypatch):
    obj = np.empty((1, 1, 1, 4), dtype=object)
    obj[...] = 1.0
    (tmp_path / "obj.npy").write_bytes(_npy(obj, allow_pickle=True))
    import pickle

    def no_unpickling(*args, **kwargs):
        raise AssertionError("pickle.load called")

    monkeypatch.setattr(pickle, "load", no_unpickling)
    monkeypatch.setattr(pickle, "loads", no_unpickling)
    assert "obj.npy: holds Python objects" in _error(_spec(tmp_path, "obj.npy"))


def test_big_endian_fortran_and_bfloat16_npy_are_read(tmp_path):
    values = np.array([[[[1.5, -2.0, 3.25, 0.0]]]])
    (tmp_path / "be.npy").write_bytes(_npy(values.astype(">f4")))
    (tmp_path / "f.npy").write_bytes(_npy(np.asfortranarray(values.astype(np.float32))))
    for name in ("be.npy", "f.npy"):
        x = load_spec(_spec(tmp_path, name)).cases[0].inputs["x"]
        assert x.dtype == np.float32 and x.dtype.isnative and np.array_equal(x, values), name
    (tmp_path / "bf.npy").write_bytes(_npy(values.astype(ml_dtypes.bfloat16)))  # stored as |V2 records
    path = tmp_path / "bf.yaml"
    path.write_text(_spec(tmp_path).read_text().replace("float32", "bfloat16").replace("{random: uniform}", "bf.npy"))
    x = load_spec(path).cases[0].inputs["x"]
    assert x.dtype == ml_dtypes.bfloat16 and np.array_equal(x.astype(np.float32), values)


@pytest.mark.parametrize("payload, want", [
    (b"", "not a .npy file, or a corrupt one"),
    (b"\x93NUMPY\x01\x00", "not a .npy file, or a corrupt one"),
    (b"\x93NUMPY\x09\x00\x10\x00{}", "not a .npy file, or a corrupt one"),
    (b"PK\x03\x04 a zip archive, e.g. an .npz", "not a .npy file, or a corrupt one"),
])
def test_corrupt_npy(tmp_path, payload, want):
    (tmp_path / "bad.npy").write_bytes(payload)
    message = _error(_spec(tmp_path, "bad.npy"))
    assert f"cases[0].inputs.x: bad.npy: {want}" in message and "\n" not in message


def test_npy_header_shape_is_checked_before_allocating(tmp_path):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (2**20, 2**20)})
    (tmp_path / "lie.npy").write_bytes(header.getvalue() + b"\0" * 64)
    assert "lie.npy: the header declares 1099511627776 elements" in _error(_spec(tmp_path, "lie.npy"))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (1, 1, 1, 4000)})
    (tmp_path / "short.npy").write_bytes(header.getvalue() + b"\0" * 64)
    assert "short.npy: truncated: the header declares float32[1, 1, 1, 4000] (16000 bytes of data) but 64 bytes follow it" in \
        _error(_spec(tmp_path, "short.npy"))


def test_npy_path_with_nul_byte(tmp_path):
    path = tmp_path / "nul.yaml"
    path.write_text(_spec(tmp_path).read_text().replace("{random: uniform}", '"a\\0b.npy"'))
    assert "not a usable path" in _error(path)


def _symlink(link: Path, target: Path) -> None:
    try:
        os.symlink(target, link)
    except (OSError, NotImplementedError) as exc:  # e.g. Windows without the privilege
        pytest.skip(f"cannot create symlinks here: {exc}")


def test_npy_symlink_leaving_the_folder_is_rejected(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.npy").write_bytes(_npy(np.zeros((1, 1, 1, 4), np.float32)))
    folder = tmp_path / "spec"
    folder.mkdir()
    _symlink(folder / "x.npy", tmp_path / "outside" / "secret.npy")
    assert "x.npy: .npy files must lie inside the spec's folder" in _error(_spec(folder, "x.npy"))
    _symlink(folder / "sub", tmp_path / "outside")  # a symlinked folder, too
    assert "sub/secret.npy: .npy files must lie inside the spec's folder" in _error(_spec(folder, "sub/secret.npy"))


def test_npy_symlink_inside_the_folder_is_fine(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "real.npy").write_bytes(_npy(np.ones((1, 1, 1, 4), np.float32)))
    _symlink(tmp_path / "link.npy", tmp_path / "data" / "real.npy")
    assert load_spec(_spec(tmp_path, "link.npy")).cases[0].inputs["x"].sum() == 4


def test_npy_in_a_subfolder_is_inside_the_tree(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.npy").write_bytes(_npy(np.ones((1, 1, 1, 4), np.float32)))
    assert load_spec(_spec(tmp_path, "data/../data/x.npy")).cases[0].inputs["x"].shape == (1, 1, 1, 4)


# --- case data edge values (never an exception other than a user error) --------------------------


@pytest.mark.parametrize("data, want", [
    ("{random: uniform, low: -1.0e+308, high: 1.0e+308}", "low: -1e+308 is out of range for float32"),
    ("{random: integers}", None),  # float tensors: the integers float32 holds exactly
    ("{random: integers, low: -1.0e+30, high: 0}", "integers: low and high must lie in the int64 range"),
    ("{random: normal, mean: 1.0e+39}", "mean: 1e+39 is out of range for float32"),
    ("[[[[.nan, .inf, -.inf, 1]]]]", None),
])
def test_generator_bounds(tmp_path, data, want):
    path = _spec(tmp_path, data)
    if want is None:
        x = load_spec(path).cases[0].inputs["x"]
        assert x.dtype == np.float32
        if "integers" in data:
            assert np.all(np.abs(x) <= 2**24) and np.all(x == np.round(x))
    else:
        assert want in _error(path)


def test_huge_integers_in_case_data_given_as_python_objects():
    ttype = spec_module.TensorType(spec_module.DTYPES["float32"], (2,))
    for value in ([1, 10**400], {"random": "uniform", "low": -(10**400)}, {"random": "integers", "high": 10**400}):
        with pytest.raises(SpecError):
            casedata.materialize(value, ttype, Path("."))


def test_corpus_has_npy_fixtures():
    """The corrupt .npy files of the corpus are committed (binary files in tests/bad_specs/data/)."""
    data = BAD_SPECS / "data"
    for name in ("corrupt.npy", "empty.npy", "truncated.npy", "pickled.npy", "float64.npy", "huge-header.npy"):
        assert (data / name).is_file(), name
    assert math.prod(np.load(data / "float64.npy").shape) == 4


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX path semantics")
def test_messages_are_one_line_for_every_corpus_file():
    for path in sorted(p for p in BAD_SPECS.rglob("*") if p.suffix in (".yaml", ".yml", ".json")):
        try:
            load_spec(path)
        except UserError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(f"{path}: "), path


@pytest.mark.parametrize("text, want", [
    ("010", 10), ("-010", -10), ("+3", 3), ("00", 0), ("0o17", 15), ("0x1F", 31), ("0xff", 255),  # numbers, as 1.2
    ("0b101", "0b101"), ("1_000", "1_000"), ("1:30", "1:30"), ("-0x1F", "-0x1F"), ("0o8", "0o8"),  # 1.1's: text
])
def test_integers_are_read_as_yaml_1_2_reads_them(text, want):
    """README: numbers as YAML 1.2 (its core schema) and JSON read them. PyYAML's YAML 1.1 rules read `010` as 8
    (octal) and `1_000` as 1000, so `shape: [1, 1, 1, 010]` made an input of 8, silently, and refused `0o17`.
    Expected values from the YAML 1.2.2 spec, 10.3.2 (core schema tag resolution)."""
    assert safe_yaml.load_yaml(f"a: {text}") == {"a": want}
    assert safe_yaml.plain_scalar_tag(text).endswith("int" if isinstance(want, int) else "str")
