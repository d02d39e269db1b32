"""The loaded-spec cache: a hit equals a fresh load; foreign, damaged or over-budget entries are misses."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from converter import signed_store

from converter.pipeline import spec_cache
from converter.errors import SpecError
from converter.pipeline.spec import load_spec

from .helpers import TouchesWhenUnpickled

SPEC = """\
name: cached-spec
tolerance: {atol: 1e-5}
network:
  inputs: {x: {dtype: bfloat16, shape: [2, 3]}}
  constants: {k: {dtype: float32, shape: [1, 3], data: [[1, 2, 3]]}}
  layers:
  - {name: y, op: trt.ElementWise, inputs: [x, x], operation: SUM}
  outputs: [y]
cases:
- name: c
  inputs: {x: {random: uniform, seed: 4}}
- name: d
  inputs: {x: [[1, 2, 3], [4, 5, 6]]}
  expected: {y: [[2, 4, 6], [8, 10, 12]]}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SPEC2ONNX_CACHE", str(folder))
    return folder


def _write(tmp_path: Path, text: str = SPEC, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _entries(folder: Path) -> list[Path]:
    return sorted((folder / "specs").rglob("*.pickle")) if (folder / "specs").exists() else []


def _same(a, b, where=""):
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif hasattr(a, "__dataclass_fields__"):
        assert type(a) is type(b), where
        for name in a.__dataclass_fields__:
            _same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    else:
        assert a == b, (where, a, b)


def test_a_hit_equals_a_fresh_load_and_skips_parsing(tmp_path, cache, monkeypatch):
    path = _write(tmp_path)
    fresh = load_spec(path)
    (entry,) = _entries(cache)
    monkeypatch.setattr("converter.pipeline.spec.parse_spec", lambda *a, **k: pytest.fail("parsed again"))
    hit = load_spec(path)
    _same(hit, fresh)
    assert hit.cases[0].inputs["x"] is not fresh.cases[0].inputs["x"]  # fresh arrays every time
    assert (cache / "key").stat().st_mode & 0o077 == 0


def test_the_given_path_is_the_specs_path(tmp_path, cache, monkeypatch):
    path = _write(tmp_path)
    load_spec(path)
    monkeypatch.chdir(tmp_path)
    assert load_spec(Path("s.yaml")).path == Path("s.yaml")


def test_specs_reading_npy_files_are_not_cached(tmp_path, cache):
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    load_spec(_write(tmp_path, SPEC.replace("bfloat16", "float32").replace("{random: uniform, seed: 4}", "x.npy")))
    assert _entries(cache) == []


def test_an_entry_without_the_right_hmac_is_a_miss(tmp_path, cache):
    path = _write(tmp_path)
    fresh = load_spec(path)
    (entry,) = _entries(cache)
    other = load_spec(_write(tmp_path, SPEC.replace("seed: 4", "seed: 5"), "other.yaml"))
    payload = entry.read_bytes()[len(spec_cache.MAGIC) + 32:][:16] + pickle.dumps(other)  # seed 5's data
    entry.write_bytes(spec_cache.MAGIC + hashlib.sha256(payload).digest() + payload)  # a checksum, not the HMAC
    _same(load_spec(path), fresh)


def test_even_a_signed_entry_unpickles_only_the_classes_of_a_spec(tmp_path, cache):
    path = _write(tmp_path)
    fresh = load_spec(path)
    (entry,) = _entries(cache)
    marker = tmp_path / "pwned"
    payload = (1).to_bytes(8, "little") + (0).to_bytes(8, "little") + pickle.dumps(TouchesWhenUnpickled(str(marker)))
    secret, key = (cache / "key").read_bytes(), entry.parent.name + entry.stem
    entry.write_bytes(spec_cache.MAGIC + signed_store.sign(secret, spec_cache.SPECS, key, payload) + payload)
    _same(load_spec(path), fresh)
    assert not marker.exists()


def test_the_budget_holds_for_cached_specs(tmp_path, cache):
    path = _write(tmp_path)
    load_spec(path, max_memory=2**30)
    with pytest.raises(SpecError, match="above the memory budget of 100 bytes"):
        load_spec(path, max_memory=100)


DYNAMIC = """\
name: dynamic-spec
network:
  inputs: {x: {dtype: float32, shape: [n, 64]}}
  layers:
  - {name: y, op: trt.ElementWise, inputs: [x, x], operation: SUM}
  outputs: [y]
  profiles: [{x: {min: [1, 64], opt: [2, 64], max: [1000, 64]}}]
cases:
- name: c
  inputs: {x: {random: uniform, seed: 4, shape: [2, 64]}}
"""


def test_the_budget_holds_for_cached_dynamic_specs_at_their_profiles_max(tmp_path, cache):
    """A dynamic network is estimated at its profiles' max: x and y at [1000, 64] float32, 256,000 bytes each; the
    cached entry kept the network's own estimate, where the dynamic tensors counted 0 bytes, and a warm cache then
    took any budget that the same load without the cache refused."""
    path = _write(tmp_path, DYNAMIC)
    with pytest.raises(SpecError, match="above the memory budget of 100 KiB"):
        load_spec(path, max_memory=100 * 1024)  # cold
    load_spec(path, max_memory=2**30)  # cached now
    assert _entries(cache)
    with pytest.raises(SpecError, match="above the memory budget of 100 KiB"):
        load_spec(path, max_memory=100 * 1024)  # warm: the same verdict


def test_no_caching_when_off(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEC2ONNX_CACHE", "off")
    load_spec(_write(tmp_path))
    assert not any(tmp_path.rglob("*.pickle"))


def test_specs_with_big_data_are_not_cached(tmp_path, cache):
    load_spec(_write(tmp_path, SPEC.replace("shape: [2, 3]}}\n  constants", "shape: [1024, 1024]}}\n  constants")
                     .replace("  inputs: {x: [[1, 2, 3], [4, 5, 6]]}\n  expected: {y: [[2, 4, 6], [8, 10, 12]]}\n",
                              "  inputs: {x: {random: normal}}\n")))  # 2 MiB of bfloat16 case data
    assert _entries(cache) == []


def test_a_key_that_others_can_read_is_no_key(tmp_path, cache):
    """Someone who can read (or planted) the key could sign entries: then nothing is cached or read."""
    path = _write(tmp_path)
    load_spec(path)
    (entry,) = _entries(cache)
    (cache / "key").chmod(0o644)
    entry.unlink()
    load_spec(path)
    assert _entries(cache) == []
    assert spec_cache.get(spec_cache.file_key(path.read_bytes(), path), path, 2**30, 1) is None


def test_the_same_bytes_as_json_and_as_yaml_are_two_entries(tmp_path, cache):
    """A JSON spec may start with // comment lines; the same bytes are no YAML mapping, cache or not."""
    text = "// made by a generator\n" + json.dumps(yaml.safe_load(SPEC))
    load_spec(_write(tmp_path, text, "s.json"))
    with pytest.raises(SpecError):
        load_spec(_write(tmp_path, text, "s.yaml"))


def _models(folder: Path) -> list[Path]:
    return sorted((folder / "models").rglob("*.model")) if (folder / "models").exists() else []


def _validate(path: Path, **options) -> list[str]:
    from converter.api import make_options
    from converter.pipeline.stages import validate_spec

    return [r.outcome for r in validate_spec(load_spec(path), make_options(**options))]


def test_a_cached_spec_is_lowered_once_per_opset(tmp_path, cache, monkeypatch):
    path = _write(tmp_path)
    assert _validate(path) == ["PASS", "PASS"]
    (entry,) = _models(cache)
    lowered = []
    real = spec_cache.lowered_model
    monkeypatch.setattr(spec_cache, "lowered_model", lambda spec, variant, build, *content: real(spec, variant, lambda: lowered.append(variant) or build(), *content))
    assert _validate(path) == ["PASS", "PASS"]
    assert lowered == []  # from the entry
    assert _validate(path, opset=13) == ["PASS", "PASS"]
    assert [v.partition(";registry=")[0] for v in lowered] == [
        "target=ort-cpu;opset=13;fixed=True;provider=CPUExecutionProvider;static=True"] and len(_models(cache)) == 2


def test_a_spec_checked_twice_hits_its_model_entry(tmp_path, cache, monkeypatch):
    """The key is the network's content: checking the same Spec object again (the Python API's validate(spec)
    twice, say), after the first check filled the network's per-object lookups, uses the same entry."""
    from converter.api import make_options
    from converter.pipeline.stages import validate_spec

    spec = load_spec(_write(tmp_path))
    assert [r.outcome for r in validate_spec(spec, make_options())] == ["PASS", "PASS"]
    lowered = []
    real = spec_cache.lowered_model
    monkeypatch.setattr(spec_cache, "lowered_model", lambda spec, variant, build, *content: real(spec, variant, lambda: lowered.append(variant) or build(), *content))
    assert [r.outcome for r in validate_spec(spec, make_options())] == ["PASS", "PASS"]
    assert lowered == [] and len(_models(cache)) == 1


def test_a_model_entry_without_the_right_hmac_is_rebuilt(tmp_path, cache):
    """A forged entry holding another model (here: x - x, which fails the cases) is never run."""
    path = _write(tmp_path)
    assert _validate(path) == ["PASS", "PASS"]
    (entry,) = _models(cache)
    good = entry.read_bytes()
    other = _write(tmp_path, SPEC.replace("operation: SUM", "operation: SUB").replace("name: cached-spec", "name: other"), "o.yaml")
    assert _validate(other) == ["PASS", "FAIL"]  # the expected values are those of SUM
    forged = next(p for p in _models(cache) if p != entry).read_bytes()[len(spec_cache.MODEL_MAGIC) + 32:]
    entry.write_bytes(spec_cache.MODEL_MAGIC + hashlib.sha256(forged).digest() + forged)  # a checksum, not the HMAC
    assert _validate(path) == ["PASS", "PASS"]
    assert entry.read_bytes() == good  # rebuilt and written again


def test_a_spec_read_from_npy_files_has_its_model_cached_by_content(tmp_path, cache):
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    path = _write(tmp_path, SPEC.replace("bfloat16", "float32").replace("{random: uniform, seed: 4}", "x.npy"))
    assert _validate(path) == ["PASS", "PASS"]
    assert _entries(cache) == [] and len(_models(cache)) == 1  # the spec is not kept, its model is
    assert _validate(path) == ["PASS", "PASS"] and len(_models(cache)) == 1


def test_a_spec_changed_after_loading_is_lowered_again(tmp_path, cache):
    """The model's key is what the lowering reads (the network, name, source), not where the spec came
    from: a loaded Spec given another network (dataclasses.replace, as a Python API user may) must not
    run the model cached for the one it was loaded with. Correct: c (random inputs, expected from the
    reference of x - x) passes, d (expected 2x) fails; the SUM model would give the opposite."""
    import dataclasses

    from converter.api import make_options
    from converter.pipeline.stages import validate_spec

    path = _write(tmp_path)
    assert _validate(path) == ["PASS", "PASS"]
    other = load_spec(_write(tmp_path, SPEC.replace("operation: SUM", "operation: SUB"), "o.yaml"))
    for spec in (load_spec(path), load_spec(path)):  # loaded afresh, then from the spec cache
        changed = dataclasses.replace(spec, network=other.network)
        assert [r.outcome for r in validate_spec(changed, make_options())] == ["PASS", "FAIL"]


def _kept(folder: Path) -> list[Path]:
    return sorted((folder / "references").rglob("*.pickle")) if (folder / "references").exists() else []


@pytest.mark.parametrize("entries", [_models, _kept], ids=["lowered model", "reference outputs"])
def test_a_signed_entry_copied_to_another_key_is_a_miss(tmp_path, cache, entries):
    """Each entry is signed with its key: the validly signed entry of another spec (x - x), copied over this spec's
    entry by someone who can write the cache folder but not read its key, is a miss: the model is rebuilt, the
    reference runs again (its zeros would otherwise pass a runtime that computes zeros)."""
    path = _write(tmp_path)
    assert _validate(path) == ["PASS", "PASS"]
    (entry,) = entries(cache)
    good = entry.read_bytes()
    other = _write(tmp_path, SPEC.replace("operation: SUM", "operation: SUB").replace("name: cached-spec", "name: other"), "o.yaml")
    assert _validate(other) == ["PASS", "FAIL"]
    entry.write_bytes(next(p for p in entries(cache) if p != entry).read_bytes())
    assert _validate(path) == ["PASS", "PASS"]
    assert entry.read_bytes() == good  # made again, and kept again


def test_a_signed_spec_entry_copied_to_another_key_is_a_miss(tmp_path, cache):
    """The same for the spec entries: another file's signed entry would load that file's spec (its
    network and expected values) under this file's path."""
    path = _write(tmp_path)
    load_spec(path)
    (entry,) = _entries(cache)
    other = _write(tmp_path, SPEC.replace("operation: SUM", "operation: SUB"), "o.yaml")
    load_spec(other)
    entry.write_bytes(next(p for p in _entries(cache) if p != entry).read_bytes())
    assert load_spec(path).network.layers[0].attrs["operation"] == "SUM"


def test_a_model_lowered_for_a_target_is_cached_with_its_opset_and_check(tmp_path, cache, monkeypatch):
    """--target (and --provider cuda) lower through the target's opset search and static check: the
    chosen opset and the check's findings are kept with the model, and a second run repeats neither."""
    from converter.api import make_options
    from converter.pipeline.stages import validate_spec

    path = _write(tmp_path)
    options = make_options(target="tensorrt")
    first = list(validate_spec(load_spec(path), options))
    monkeypatch.setattr("converter.pipeline.stages.model_for_target", lambda *a, **k: pytest.fail("lowered again"))
    second = list(validate_spec(load_spec(path), options))
    assert [(r.outcome, r.opset, r.problems) for r in second] == [(r.outcome, r.opset, r.problems) for r in first]
    assert len(_models(cache)) == 1


def test_a_model_checked_against_one_onnxruntime_registry_is_not_served_for_another(tmp_path, cache, monkeypatch):
    """ort-cpu's static check reads the installed onnxruntime's kernel registry, and its verdict (REFUSED where a
    kernel is missing) and opset are kept with the model: another build (an upgrade, a reduced build, the GPU
    package), or the committed table in its place (SPEC2ONNX_KERNEL_TABLES=committed), must check again. A reduced
    build without Mul's kernel kept its REFUSED verdict for the full build after it (and the reverse)."""
    from converter.installed import ort_build
    from converter.targets import ort_kernels
    from converter.targets.target import Target

    path = _write(tmp_path)
    assert _validate(path, target="ort-cpu") == ["PASS", "PASS"]
    assert _validate(path, target="ort-cpu") == ["PASS", "PASS"] and len(_models(cache)) == 1  # the same build: a hit
    monkeypatch.setattr(ort_build, "identity", lambda: b"another onnxruntime build")
    assert _validate(path, target="ort-cpu") == ["PASS", "PASS"] and len(_models(cache)) == 2
    monkeypatch.setenv("SPEC2ONNX_KERNEL_TABLES", "committed")
    ort_kernels.kernel_table.cache_clear()
    try:
        assert _validate(path, target="ort-cpu") == ["PASS", "PASS"] and len(_models(cache)) == 3
    finally:
        monkeypatch.delenv("SPEC2ONNX_KERNEL_TABLES")
        ort_kernels.kernel_table.cache_clear()
    assert _validate(path, target="tensorrt") == ["PASS", "PASS"]  # a check of committed rules only: no registry
    assert ort_kernels.registry_read(Target("tensorrt")) == "" and ort_kernels.registry_read(Target("ort-cpu"))


# -- the numpy reference's outputs (issue 34, item 2) ---------------------------------------------------------------

def _no_reference(monkeypatch):
    monkeypatch.setattr("converter.reference.run_network", lambda *a, **k: pytest.fail("the reference ran again"))


def test_the_references_are_kept_and_read_back_bit_for_bit(tmp_path, cache, monkeypatch):
    from converter import reference
    from converter.api import make_options
    from converter.pipeline.stages import validate_spec

    path = _write(tmp_path)
    spec = load_spec(path)
    live = [reference.run_network(spec.network, c.inputs) for c in spec.cases]  # before anything is kept
    assert _validate(path) == ["PASS", "PASS"]
    (entry,) = _kept(cache)
    key, kept = spec_cache.references(spec, spec.cases, "arithmetic=None", spec_cache.content(spec))
    assert signed_store.entry_path(cache, spec_cache.REFERENCES, key) == entry
    _same(kept, live)  # the bfloat16 outputs too: dtype, shape and bytes
    _no_reference(monkeypatch)
    results = list(validate_spec(load_spec(path), make_options()))
    assert [r.outcome for r in results] == ["PASS", "PASS"] and _kept(cache) == [entry]


def test_the_references_key_is_what_the_reference_reads(tmp_path, cache, monkeypatch):
    """Other inputs, another network, another arithmetic or other cases chosen: another entry, never the kept one.
    The outcomes are the hand-computed ones: d expects 2x (SUM), so x - x fails d; c's expected values are none."""
    import dataclasses

    from converter.api import make_options
    from converter.network import Case
    from converter.pipeline.stages import validate_spec

    path = _write(tmp_path)
    assert _validate(path) == ["PASS", "PASS"]
    spec = load_spec(path)
    ran = []
    from converter import reference

    real = reference.run_network
    monkeypatch.setattr("converter.reference.run_network", lambda *a, **k: ran.append(1) or real(*a, **k))
    d = spec.cases[1]
    halved = Case("d", {"x": (d.inputs["x"].astype(np.float32) / 2).astype(d.inputs["x"].dtype)}, d.expected)
    outcomes = [r.outcome for r in validate_spec(dataclasses.replace(spec, cases=[spec.cases[0], halved]), make_options())]
    assert outcomes == ["PASS", "FAIL"] and len(ran) == 2  # (x/2 + x/2 is not 2x)
    sub = load_spec(_write(tmp_path, SPEC.replace("operation: SUM", "operation: SUB"), "o.yaml"))
    ran.clear()
    assert [r.outcome for r in validate_spec(dataclasses.replace(spec, network=sub.network), make_options())] == ["PASS", "FAIL"]
    assert len(ran) == 2
    ran.clear()
    assert [r.outcome for r in validate_spec(spec, make_options(), ["d"])] == ["PASS"] and len(ran) == 1
    ran.clear()
    assert [r.outcome for r in validate_spec(spec, make_options(target="tensorrt"))] == ["PASS", "PASS"] and len(ran) == 2
    assert len(_kept(cache)) == 5
    ran.clear()  # every one of them kept: none runs again
    assert [r.outcome for r in validate_spec(spec, make_options(), ["d"])] == ["PASS"] and ran == []


def test_no_references_are_kept_when_one_raises_or_the_run_stops_early(tmp_path, cache, monkeypatch):
    from converter.api import make_options
    from converter.pipeline.stages import validate_spec

    path = _write(tmp_path)
    results = validate_spec(load_spec(path), make_options())
    assert next(results).outcome == "PASS"
    results.close()  # --fail-fast, Ctrl-C: the second case's reference never ran
    assert _kept(cache) == []
    from converter import reference

    real, calls = reference.run_network, []

    def second_raises(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise ValueError("boom")
        return real(*a, **k)

    monkeypatch.setattr("converter.reference.run_network", second_raises)
    assert [r.outcome for r in validate_spec(load_spec(path), make_options())] == ["PASS", "ERROR"]
    assert _kept(cache) == []
    monkeypatch.setattr("converter.reference.run_network", real)
    assert _validate(path) == ["PASS", "PASS"] and len(_kept(cache)) == 1


@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=6, max_size=6),
       st.sampled_from(["float32", "float16", "bfloat16"]), st.sampled_from(["SUM", "PROD", "MAX", "SUB"]))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_kept_references_equal_the_live_reference_bit_for_bit(tmp_path_factory, monkeypatch, values, dtype, op):
    from converter import reference
    from converter.api import make_options
    from converter.pipeline.stages import validate_spec

    folder = tmp_path_factory.mktemp("refs")
    text = SPEC.replace("bfloat16", dtype).replace("operation: SUM", f"operation: {op}").replace(
        "{x: [[1, 2, 3], [4, 5, 6]]}\n  expected: {y: [[2, 4, 6], [8, 10, 12]]}",
        "{x: " + json.dumps([values[:3], values[3:]]).replace("NaN", ".nan").replace("-Infinity", "-.inf").replace("Infinity", ".inf") + "}")
    path = _write(folder, text)
    with monkeypatch.context() as patch:  # (undone after each example)
        patch.setenv("SPEC2ONNX_CACHE", str(folder / "cache"))
        spec = load_spec(path)
        live = [reference.run_network(spec.network, c.inputs) for c in spec.cases]
        first = [(r.outcome, r.problems) for r in validate_spec(spec, make_options())]
        key, kept = spec_cache.references(spec, spec.cases, "arithmetic=None", spec_cache.content(spec))
        assert key is not None and kept is not None
        _same(kept, live)
        patch.setattr("converter.reference.run_network", lambda *a, **k: pytest.fail("the reference ran again"))
        assert [(r.outcome, r.problems) for r in validate_spec(load_spec(path), make_options())] == first


def test_a_spec_loaded_with_its_file_key_is_cached_by_that_key(tmp_path, cache, monkeypatch):
    """The pool validates a spec as its file gave it (load_spec_keyed's key): its model and reference outputs are
    keyed by the file, not by the spec's pickle and its cases' data. The file changed: another key, a new model
    and a new reference (the hand-computed outcomes: SUB makes 0, so d's expected 2x fails); a spec read from .npy
    files has no key; a subset of the cases is another reference entry."""
    from converter.api import make_options
    from converter.pipeline.spec import load_spec_keyed
    from converter.pipeline.stages import validate_spec

    path = _write(tmp_path)
    spec, key = load_spec_keyed(path)
    assert key == spec_cache.file_key(path.read_bytes(), path) and load_spec_keyed(path)[1] == key  # (fresh, then a hit)
    assert [r.outcome for r in validate_spec(spec, make_options(), file_key=key)] == ["PASS", "PASS"]
    models, kept = _models(cache), _kept(cache)
    assert len(models) == 1 and len(kept) == 1
    _no_reference(monkeypatch)
    monkeypatch.setattr("converter.pipeline.stages.model_for_target", lambda *a, **k: pytest.fail("lowered again"))
    assert [r.outcome for r in validate_spec(load_spec_keyed(path)[0], make_options(), file_key=key)] == ["PASS", "PASS"]
    assert _models(cache) == models and _kept(cache) == kept
    monkeypatch.undo()
    monkeypatch.setenv("SPEC2ONNX_CACHE", str(cache))
    path.write_text(SPEC.replace("operation: SUM", "operation: SUB"))
    changed, other = load_spec_keyed(path)
    assert other not in (None, key)
    assert [r.outcome for r in validate_spec(changed, make_options(), file_key=other)] == ["PASS", "FAIL"]
    assert len(_models(cache)) == 2 and len(_kept(cache)) == 2
    assert [r.outcome for r in validate_spec(changed, make_options(), ["d"], file_key=other)] == ["FAIL"]
    assert len(_kept(cache)) == 3
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    npy = _write(tmp_path, SPEC.replace("bfloat16", "float32").replace("inputs: {x: [[1, 2, 3], [4, 5, 6]]}",
                                                                       "inputs: {x: x.npy}"), "n.yaml")
    assert load_spec_keyed(npy)[1] is None


def test_a_cache_subfolder_removed_while_its_descriptor_is_kept_is_opened_again(tmp_path, cache):
    """signed_store keeps each kind's folder open for the process's next reads; removed and made again (a user's
    rm -r, another job's clean-up), it is the new folder that is read."""
    import shutil

    secret = signed_store.secret(cache)
    kind = spec_cache.REFERENCES
    signed_store.write(cache, secret, kind, "ab" * 32, b"one")
    assert signed_store.read(cache, secret, kind, "ab" * 32) == b"one"
    shutil.rmtree(cache / "references")
    assert signed_store.read(cache, secret, kind, "ab" * 32) is None
    signed_store.write(cache, secret, kind, "ab" * 32, b"two")
    assert signed_store.read(cache, secret, kind, "ab" * 32) == b"two"


# -- the key that signs the folder --------------------------------------------------------------------------------

def test_the_key_is_never_seen_half_written(tmp_path, monkeypatch):
    """Made as a temporary file and linked whole: a process starting at the same moment found it empty (created,
    not yet written), turned caching off and said to remove it."""
    folder = tmp_path / "cache"
    real = signed_store.secrets.token_bytes
    seen = []

    def token_bytes(n):  # what another process sees while the key is written
        seen.append([p.name for p in folder.iterdir() if not p.name.startswith(".")])
        return real(n)

    monkeypatch.setattr(signed_store.secrets, "token_bytes", token_bytes)
    key = signed_store.secret(folder)
    assert seen and all(names == [] for names in seen) and key is not None and len(key) == signed_store.KEY_BYTES
    assert sorted(p.name for p in folder.iterdir()) == ["key"]  # (the temporary file gone)
    assert signed_store.secret(folder) == key


def test_a_key_that_cannot_be_written_leaves_nothing_behind(tmp_path, monkeypatch):
    """A full disk: no key and no caching for that run, and no empty key left, which turned caching off for every
    later run (with a warning each time) until removed by hand."""
    import errno

    folder = tmp_path / "cache"
    real = signed_store.secrets.token_bytes

    def full(n):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(signed_store.secrets, "token_bytes", full)
    assert signed_store.secret(folder) is None
    assert list(folder.iterdir()) == []
    monkeypatch.setattr(signed_store.secrets, "token_bytes", real)
    assert signed_store.secret(folder) is not None  # space again: a key, silently


def test_a_key_linked_first_by_another_process_is_the_one_used(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    theirs = b"k" * signed_store.KEY_BYTES
    real_link = os.link

    def link(src, dst):  # another process links its key between our write and our link
        (folder / "key").write_bytes(theirs)
        os.chmod(folder / "key", 0o600)
        return real_link(src, dst)

    monkeypatch.setattr(signed_store.os, "link", link)
    assert signed_store.secret(folder) == theirs
    assert sorted(p.name for p in folder.iterdir()) == ["key"]


def test_a_spec_valid_only_with_a_plugins_target_is_not_kept(tmp_path, cache, monkeypatch):
    """Its xfail rule names a target that a --plugin registered: a run without the plugin refuses the spec, so a
    run with it may not keep it in the cache (whose key has no plugins), where the next run took it (exit 0 for 2)."""
    import copy

    from converter.targets import profiles

    monkeypatch.setitem(profiles.PROFILES, "my-target", copy.deepcopy(profiles.PROFILES["ort-cpu"]))
    path = _write(tmp_path, SPEC + "xfail:\n- {case: c, target: my-*, reason: only on my-target}\n")
    load_spec(path)
    assert _entries(cache) == []
    monkeypatch.delitem(profiles.PROFILES, "my-target")
    with pytest.raises(SpecError, match="names no target"):
        load_spec(path)
    built_in = _write(tmp_path, SPEC + "xfail:\n- {case: c, target: ort-*, reason: only on ort}\n", "b.yaml")
    load_spec(built_in)
    assert len(_entries(cache)) == 1  # a built-in target's rule: kept as before


def test_the_cache_folder_follows_xdg_and_never_makes_a_home(tmp_path, monkeypatch):
    """A relative XDG_CACHE_HOME is ignored (the XDG Base Directory spec; it put a cache in the folder the command ran
    from); a HOME that does not exist is not made (caching is off, as for a folder that cannot be written)."""
    monkeypatch.delenv("SPEC2ONNX_CACHE", raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "rel")
    assert signed_store.cache_dir() == home / ".cache" / "spec2onnx"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert signed_store.cache_dir() == tmp_path / "xdg" / "spec2onnx"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "nonexistent"))
    assert signed_store.cache_dir() is None
