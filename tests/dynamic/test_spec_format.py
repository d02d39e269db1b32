"""The spec format's dynamic shapes (docs/dynamic-shapes.md): symbolic dimensions, -1, profiles,
shape inputs, cases at their own shapes and the default cases. Refusals, one per rule, are in
tests/bad_specs/dynamic/ (each file's first line is its expected message)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.errors import SpecError
from converter.lowering import build_model
from converter.pipeline.spec import parse_spec


def spec_doc(inputs, layers, outputs, profiles=None, cases=None):
    network = {"inputs": inputs, "layers": layers, "outputs": outputs}
    if profiles is not None:
        network["profiles"] = profiles
    doc = {"name": "t", "network": network}
    if cases is not None:
        doc["cases"] = cases
    return doc


SCALE = [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM", "scale": [2.0]}]
BATCH_PROFILE = [{"x": {"min": [1, 3, 4, 4], "opt": [2, 3, 4, 4], "max": [4, 3, 4, 4]}}]


def test_a_name_is_a_symbolic_dimension_and_minus_one_a_dynamic_one_of_its_own():
    doc = spec_doc({"x": {"dtype": "float32", "shape": ["batch", 3, -1, 4]}}, SCALE, ["y"],
                   [{"x": {"min": [1, 3, 1, 4], "opt": [2, 3, 4, 4], "max": [4, 3, 8, 4]}}])
    spec = parse_spec(doc, Path("t.yaml"))
    x = spec.network.inputs["x"]
    assert x.shape == (None, 3, None, 4)
    assert x.dims() == ["batch", 3, -1, 4]
    model = build_model(spec.network)

    def dims(value_info):
        return [("param", d.dim_param) if d.dim_param else ("value", d.dim_value) if d.HasField("dim_value") else "unknown"
                for d in value_info.type.tensor_type.shape.dim]

    # ONNX: the name is a dim_param, -1 a dimension with neither value nor param; the output keeps both
    assert dims(model.graph.input[0]) == [("param", "batch"), ("value", 3), "unknown", ("value", 4)]
    assert dims(model.graph.output[0]) == [("param", "batch"), ("value", 3), "unknown", ("value", 4)]


def test_default_cases_sit_at_min_opt_and_max_of_each_profile():
    doc = spec_doc({"x": {"dtype": "float32", "shape": ["batch", 3, 4, "w"]}}, SCALE, ["y"], [
        {"x": {"min": [1, 3, 4, 1], "opt": [2, 3, 4, 5], "max": [4, 3, 4, 8]}},
        {"x": {"min": [8, 3, 4, 2], "opt": [8, 3, 4, 2], "max": [16, 3, 4, 2]}},
    ])
    spec = parse_spec(doc, Path("t.yaml"))
    got = {c.name: c.inputs["x"].shape for c in spec.cases}
    assert got == {"profile0-min": (1, 3, 4, 1), "profile0-opt": (2, 3, 4, 5), "profile0-max": (4, 3, 4, 8),
                   "profile1-min": (8, 3, 4, 2), "profile1-opt": (8, 3, 4, 2), "profile1-max": (16, 3, 4, 2)}
    for case in spec.cases:  # uniform in [-1, 1], and not the same data in every case
        assert np.all(np.abs(case.inputs["x"]) <= 1)
    assert not np.array_equal(spec.cases[1].inputs["x"][:1, :, :, :1], spec.cases[0].inputs["x"])


def test_a_shape_input_takes_the_profiles_values_in_its_default_cases():
    doc = spec_doc({"x": {"dtype": "float32", "shape": [1, 1, 4, 4]},
                    "size": {"dtype": "int32", "shape": [4], "shape_tensor": True}},
                   [{"name": "y", "op": "trt.Resize", "inputs": ["x", "size"]}], ["y"],
                   [{"size": {"min": [1, 1, 2, 2], "opt": [1, 1, 8, 8], "max": [1, 1, 16, 32]}}])
    spec = parse_spec(doc, Path("t.yaml"))
    assert spec.network.shape_inputs == ("size",)
    assert [c.inputs["size"].tolist() for c in spec.cases] == [[1, 1, 2, 2], [1, 1, 8, 8], [1, 1, 16, 32]]
    assert spec.cases[0].inputs["size"].dtype == np.int32


def test_given_cases_replace_the_default_ones_and_expected_values_take_the_cases_shapes():
    doc = spec_doc({"x": {"dtype": "float32", "shape": ["batch", 3, 4, 4]}}, SCALE, ["y"], BATCH_PROFILE, [
        {"name": "two", "inputs": {"x": np.ones((2, 3, 4, 4)).tolist()}, "expected": {"y": np.full((2, 3, 4, 4), 2.0).tolist()}},
        {"name": "random", "inputs": {"x": {"random": "normal", "seed": 3, "shape": [3, 3, 4, 4]}}},
    ])
    spec = parse_spec(doc, Path("t.yaml"))
    assert [c.name for c in spec.cases] == ["two", "random"]
    assert spec.cases[0].expected["y"].shape == (2, 3, 4, 4)
    assert spec.cases[1].inputs["x"].shape == (3, 3, 4, 4)


def test_expected_values_of_another_shape_than_the_cases_are_refused():
    doc = spec_doc({"x": {"dtype": "float32", "shape": ["batch", 3, 4, 4]}}, SCALE, ["y"], BATCH_PROFILE, [
        {"name": "two", "inputs": {"x": np.ones((2, 3, 4, 4)).tolist()}, "expected": {"y": np.ones((3, 3, 4, 4)).tolist()}},
    ])
    with pytest.raises(SpecError, match=r"cases\[0\]\.expected\.y: has shape \[3, 3, 4, 4\], the tensor is float32\[2, 3, 4, 4\]"):
        parse_spec(doc, Path("t.yaml"))


def test_a_static_input_may_appear_in_a_profile_with_its_own_shape():
    doc = spec_doc({"x": {"dtype": "float32", "shape": ["n", 2]}, "b": {"dtype": "float32", "shape": [1, 2]}},
                   [{"name": "y", "op": "trt.ElementWise", "inputs": ["x", "b"], "operation": "SUM"}], ["y"],
                   [{"x": {"min": [1, 2], "opt": [2, 2], "max": [3, 2]}, "b": {"min": [1, 2], "opt": [1, 2], "max": [1, 2]}}])
    spec = parse_spec(doc, Path("t.yaml"))
    assert spec.network.types["y"].dims() == ["n", 2]  # n against 1 is n: the broadcast keeps the name


def test_cases_are_optional_only_with_profiles():
    doc = spec_doc({"x": {"dtype": "float32", "shape": [1, 3, 4, 4]}}, SCALE, ["y"])
    with pytest.raises(SpecError, match="missing required field 'cases'"):
        parse_spec(doc, Path("t.yaml"))


def test_the_budget_counts_a_dynamic_network_at_its_profiles_max():
    big = [{"x": {"min": [1, 3, 4, 4], "opt": [1, 3, 4, 4], "max": [100000, 3, 64, 64]}}]
    doc = spec_doc({"x": {"dtype": "float32", "shape": ["batch", 3, "h", "w"]}}, SCALE, ["y"], big,
                   [{"name": "small", "inputs": {"x": {"random": "uniform", "shape": [1, 3, 4, 4]}}}])
    with pytest.raises(SpecError, match="above the memory budget"):
        parse_spec(doc, Path("t.yaml"), max_memory=2**30)
    parse_spec(doc, Path("t.yaml"), max_memory=2**40)  # the same spec within a larger budget


def test_a_cached_dynamic_spec_and_its_model_equal_a_fresh_load(tmp_path, monkeypatch):
    """The spec cache (converter/pipeline/spec_cache.py) keys on the file's bytes and the code, and a lowered model on the
    network's fields: profiles, shape inputs and dimension names are in both."""
    import yaml

    from converter.pipeline import spec_cache
    from converter.pipeline.spec import load_spec

    monkeypatch.setenv("SPEC2ONNX_CACHE", str(tmp_path / "cache"))
    doc = spec_doc({"x": {"dtype": "float32", "shape": ["batch", 3, 4, -1]}}, SCALE, ["y"],
                   [{"x": {"min": [1, 3, 4, 1], "opt": [2, 3, 4, 4], "max": [4, 3, 4, 8]}}])
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(doc))
    fresh, cached = load_spec(path), load_spec(path)
    assert cached is not fresh
    assert cached.network.profiles == fresh.network.profiles and cached.network.types == fresh.network.types
    assert cached.network.inputs["x"].names == ("batch", None, None, None)
    assert [c.inputs["x"].shape for c in cached.cases] == [(1, 3, 4, 1), (2, 3, 4, 4), (4, 3, 4, 8)]
    built = []
    model = spec_cache.lowered_model(cached, "v", lambda: built.append(1) or b"model")
    assert model == spec_cache.lowered_model(fresh, "v", lambda: built.append(1) or b"other") == b"model" and built == [1]
    other = path.with_name("e.yaml")  # another profile: another model key
    other.write_text(yaml.safe_dump({**doc, "network": {**doc["network"], "profiles": [
        {"x": {"min": [1, 3, 4, 1], "opt": [2, 3, 4, 4], "max": [5, 3, 4, 8]}}]}}))
    assert spec_cache.lowered_model(load_spec(other), "v", lambda: b"second") == b"second"
