"""The parsed-document cache: hits give the same document, damage and tampering are misses, nothing runs."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

import pytest

from converter import signed_store

from converter.pipeline import doc_cache
from converter.errors import SpecError
from converter.pipeline.spec import load_spec, read_document

from .helpers import TouchesWhenUnpickled

SPEC = """\
name: cached
network:
  inputs: {x: {dtype: float32, shape: [1, 2]}}
  layers:
  - {name: y, op: trt.ElementWise, inputs: [x, x], operation: SUM}
  outputs: [y]
cases:
- name: c
  inputs: {x: [[1, 2]]}
  expected: {y: [[2, 4]]}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SPEC2ONNX_CACHE", str(folder))
    return folder


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.pickle")) if folder.exists() else []


def _spec(tmp_path: Path, text: str = SPEC) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_second_load_comes_from_the_cache_and_equals_the_parse(tmp_path, cache, monkeypatch):
    path = _spec(tmp_path)
    first = read_document(path)
    (entry,) = _entries(cache)
    calls = []
    monkeypatch.setattr("converter.pipeline.safe_yaml.load_yaml", lambda text: calls.append(text))
    assert read_document(path) == first and calls == []  # no parse: the entry answered
    assert load_spec(path).cases[0].expected["y"].tolist() == [[2.0, 4.0]]
    assert entry.stat().st_mode & 0o777 in (0o600, 0o644, 0o640, 0o664) and entry.parent.stat().st_mode & 0o077 == 0


def test_a_changed_file_is_a_new_key(tmp_path, cache):
    path = _spec(tmp_path)
    read_document(path)
    path.write_text(SPEC.replace("[[1, 2]]", "[[3, 2]]"))
    assert read_document(path)["cases"][0]["inputs"]["x"] == [[3, 2]]
    assert len(_entries(cache)) == 2


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_a_damaged_entry_is_a_miss_and_is_rewritten(tmp_path, cache, damage):
    path = _spec(tmp_path)
    want = read_document(path)
    (entry,) = _entries(cache)
    blob = entry.read_bytes()
    entry.write_bytes({"truncate": blob[:-3], "flip": blob[:-1] + bytes([blob[-1] ^ 1]), "empty": b""}[damage])
    assert read_document(path) == want
    assert entry.read_bytes() == blob


def _sign(cache: Path, payload: bytes, entry: Path) -> bytes:
    """``payload`` signed with the cache's key for ``entry``'s key, as only a holder of the key could."""
    key = entry.parent.name + entry.stem
    return doc_cache.MAGIC + signed_store.sign((cache / "key").read_bytes(), doc_cache.KIND, key, payload) + payload


def test_even_a_signed_entry_never_runs_code(tmp_path, cache):
    path = _spec(tmp_path)
    want = read_document(path)
    (entry,) = _entries(cache)
    marker = tmp_path / "pwned"
    payload = pickle.dumps(TouchesWhenUnpickled(str(marker)))  # would call os.system when unpickled by pickle.loads
    entry.write_bytes(_sign(cache, payload, entry))
    assert read_document(path) == want  # refused, parsed again
    assert not marker.exists()


def test_an_entry_with_a_checksum_but_not_the_key_is_a_miss(tmp_path, cache):
    """Anyone able to write to the folder could otherwise change a case's expected values."""
    path = _spec(tmp_path)
    want = read_document(path)
    (entry,) = _entries(cache)
    forged = {**want, "cases": [{**want["cases"][0], "expected": {"y": [[7, 7]]}}]}
    payload = pickle.dumps(forged)
    entry.write_bytes(doc_cache.MAGIC + hashlib.sha256(payload).digest() + payload)
    assert read_document(path) == want
    entry.write_bytes(_sign(cache, payload, entry))  # with the key, it is used: the key is what protects the entries
    assert read_document(path) == forged


def test_a_signed_plain_document_is_still_validated(tmp_path, cache):
    path = _spec(tmp_path)
    read_document(path)
    (entry,) = _entries(cache)
    entry.write_bytes(_sign(cache, pickle.dumps({"name": "cached", "network": {"inputs": {}}, "cases": []}), entry))
    with pytest.raises(SpecError, match="network"):
        load_spec(path)


def test_parse_errors_are_not_cached_and_the_cache_can_be_off(tmp_path, cache, monkeypatch):
    with pytest.raises(SpecError):
        read_document(_spec(tmp_path, "name: [unclosed\n"))
    assert _entries(cache) == []
    monkeypatch.setenv("SPEC2ONNX_CACHE", "off")
    read_document(_spec(tmp_path))
    assert _entries(cache) == []


def test_an_unwritable_cache_folder_only_means_no_caching(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("SPEC2ONNX_CACHE", str(blocker / "cache"))  # under a file: cannot be created
    assert read_document(_spec(tmp_path))["name"] == "cached"


def test_default_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv("SPEC2ONNX_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert doc_cache.cache_dir() == tmp_path / "spec2onnx"
