"""The public API (``import spec2onnx``): load_spec of paths and mappings, convert, validate, check."""

from __future__ import annotations

import copy
import inspect

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import yaml

import spec2onnx
from spec2onnx import trt, dml

from .conftest import SPECS

SEED = SPECS / "trt_scale/seed-scale-4d.yaml"
DOC = yaml.safe_load(SEED.read_text())


def test_load_spec_takes_a_mapping_and_validates_it_as_the_file():
    from_file, from_dict = spec2onnx.load_spec(SEED), spec2onnx.load_spec(copy.deepcopy(DOC))
    assert (from_dict.name, from_dict.network.outputs) == (from_file.name, from_file.network.outputs)
    assert from_dict.network.layers == from_file.network.layers
    assert [c.name for c in from_dict.cases] == [c.name for c in from_file.cases]
    np.testing.assert_array_equal(from_dict.cases[0].expected["scale"], from_file.cases[0].expected["scale"])
    assert spec2onnx.load_spec(from_file) is from_file


def test_a_mapping_may_hold_tuples_and_numpy_values():
    doc = copy.deepcopy(DOC)
    doc["network"]["inputs"]["input1"]["shape"] = (1, 1, 3, 3)
    doc["network"]["layers"][0]["scale"] = np.array([2], np.float32)
    doc["cases"][0]["inputs"]["input1"] = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    doc["network"]["layers"][0]["power"] = [np.float32(2)]
    assert spec2onnx.validate(doc).ok


def test_a_bad_mapping_is_a_spec_error_naming_the_field():
    doc = copy.deepcopy(DOC)
    doc["network"]["layers"][0]["mode"] = "UNIFORMX"
    with pytest.raises(spec2onnx.SpecError, match=r"^<dict>: network\.layers\[0\]\.mode: 'UNIFORMX' is not one of"):
        spec2onnx.load_spec(doc)
    doc["network"]["layers"][0]["mode"] = object()
    with pytest.raises(spec2onnx.SpecError, match=r"^<dict>: network\.layers\[0\]\.mode: object is not spec data"):
        spec2onnx.load_spec(doc)
    with pytest.raises(spec2onnx.UserError, match=r"load_spec\(source\): expected a path, a mapping or a Spec"):
        spec2onnx.load_spec(42)


def test_plain_data_refuses_cycles_and_shared_blowups():
    looped: list = []
    looped.append(looped)
    with pytest.raises(spec2onnx.SpecError, match="nested deeper than 64 levels"):
        spec2onnx.plain_data({"a": looped})
    wide = [0] * 1000
    for _ in range(3):
        wide = [wide] * 1000  # a billion values, shared
    with pytest.raises(spec2onnx.SpecError, match="more than 1000000 values"):
        spec2onnx.plain_data(wide)


def test_numpy_arrays_in_a_mapping_are_not_held_to_a_files_value_count(monkeypatch):
    """An image of 1x3x416x416 as input and expected output (1,038,336 values) was refused with "more than 1000000
    values (the limit of a spec file)": that bound is against a document that expands as it is read; an array is
    memory the caller holds already. Arrays are bounded by the memory budget their lists would take instead."""
    import converter.api.specs as specs

    x = np.ones((1, 3, 416, 416), np.float32)
    doc = {"name": "big", "network": {"inputs": {"x": {"dtype": "float32", "shape": list(x.shape)}},
                                       "layers": [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM",
                                                   "scale": [2]}], "outputs": ["y"]},
           "cases": [{"name": "c", "inputs": {"x": x}, "expected": {"y": x * 2}}]}
    report = spec2onnx.validate(doc)
    assert report.ok and [r.outcome for r in report.results] == ["PASS"]
    monkeypatch.setattr(specs, "default_budget", lambda: 2**20)  # 1 MiB: the array's lists take 16.5 MiB
    with pytest.raises(spec2onnx.SpecError, match=r"cases\[0\]\.inputs\.x: a numpy array of 519,168 values, as spec data "
                                                  r"about 15\.8 MiB, above the memory budget of 1 MiB: give it as a \.npy"):
        spec2onnx.plain_data(doc)


def test_npy_paths_in_a_mapping_start_at_base_dir(tmp_path):
    np.save(tmp_path / "x.npy", np.ones((1, 1, 3, 3), np.float32))
    doc = copy.deepcopy(DOC)
    doc["cases"] = [{"name": "from-file", "inputs": {"input1": "x.npy"}, "expected": {"scale": [[[[9.0] * 3] * 3]]}}]
    report = spec2onnx.validate(spec2onnx.load_spec(doc, base_dir=tmp_path))
    assert report.ok and [r.case for r in report.results] == ["from-file"]  # (1 * 2 + 1) ^ 2 = 9


def test_convert_returns_the_checked_model_and_writes_it_when_asked(tmp_path):
    conversion = spec2onnx.convert(SEED, tmp_path / "m.onnx", target="ort-cpu")
    assert isinstance(conversion, spec2onnx.Conversion)
    assert (conversion.spec, conversion.target, conversion.opset) == ("trt-scale-seed-4d", "ort-cpu", 17)
    assert conversion.path == tmp_path / "m.onnx" and onnx.load(conversion.path) == conversion.model
    assert conversion.node_count == len(conversion.model.graph.node) > 0
    out = ort.InferenceSession(conversion.to_bytes()).run(None, {"input1": np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)})
    np.testing.assert_array_equal(out[0].reshape(-1), [9, 25, 49, 81, 121, 169, 225, 289, 361])  # the seed's example
    assert spec2onnx.convert(DOC, opset=13).opset == 13 and spec2onnx.convert(DOC).path is None
    with pytest.raises(spec2onnx.UserError, match="unknown target"):
        spec2onnx.convert(SEED, target="tensorrtx")
    for opset in ("17", 12.0, True):  # was a TypeError from a comparison ('<' between str and int)
        with pytest.raises(spec2onnx.UserError, match="not an integer opset version"):
            spec2onnx.convert(SEED, opset=opset)
    with pytest.raises(spec2onnx.UserError, match="does not exist"):
        spec2onnx.convert(SEED, tmp_path / "no" / "m.onnx")


def test_validate_takes_paths_mappings_and_lists_and_reports_as_a_dataclass():
    report = spec2onnx.validate([SEED, SPECS / "trt_elementwise/seed-broadcast-prod.yaml"])
    assert isinstance(report, spec2onnx.ValidationReport) and report.ok
    assert [r.id for r in report.results] == ["trt-scale-seed-4d/doc-example", "trt-scale-seed-4d/random",
                                              "trt-elementwise-seed-broadcast/doc-example", "trt-elementwise-seed-broadcast/random"]
    assert report.counts()["PASS"] == 4 and report.summary() == "4 cases: 4 passed, 0 failed, 0 errors"
    assert [r.case for r in spec2onnx.validate(SEED, patterns=["*doc*"]).results] == ["doc-example"]
    assert [r.case for r in spec2onnx.validate(SEED, patterns="*doc*").results] == ["doc-example"]  # not '*', 'd', ...
    assert [r.case for r in spec2onnx.validate(DOC, patterns="random").results] == ["random"]

    wrong = copy.deepcopy(DOC)
    wrong["cases"][0]["expected"]["scale"][0][0][2][2] = 360  # the doc says 361
    report = spec2onnx.validate(wrong)
    assert not report.ok and [r.id for r in report.failures] == ["trt-scale-seed-4d/doc-example"]
    assert "got 361.0, want 360.0" in report.summary()
    with pytest.raises(spec2onnx.UserError, match="runtime"):
        spec2onnx.validate(SEED, runtime="tvm")


def test_validate_reports_a_file_that_does_not_load_as_an_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SEED.read_text().replace("mode: UNIFORM", "mode: UNIFORMX"))
    report = spec2onnx.validate(bad)
    assert not report.ok and report.results[0].bad_input
    assert "network.layers[0].mode: 'UNIFORMX' is not one of" in report.results[0].problems[0]


def test_check_lowers_for_the_target_and_reports_problems():
    report = spec2onnx.check(SEED, "tensorrt")
    assert isinstance(report, spec2onnx.CheckReport) and report.ok and report.problems == ()
    assert (report.spec, report.target) == ("trt-scale-seed-4d", "tensorrt")
    dla = spec2onnx.check(DOC, "tensorrt-dla")  # float32: DLA runs FP16 and INT8 only (the seed's DLA Support)
    assert not dla.ok and "tensorrt-dla runs FP16 and INT8 only" in dla.problems[0]
    with pytest.raises(spec2onnx.UserError, match="unknown target"):
        spec2onnx.check(SEED, "cuda")


def test_check_takes_a_spec_without_cases():
    doc = {"name": "no-cases", "network": {"inputs": {"x": {"dtype": "int16", "shape": [4]}},
                                           "constants": {"s": {"dtype": "float32", "shape": [4], "data": [1, 2, 3, 4]}},
                                           "layers": [{"name": "y", "op": "dml.DequantizeLinear", "inputs": ["x", "s"]}],
                                           "outputs": ["y"]}}
    assert spec2onnx.check(doc, "ort-cpu").ok
    refused = spec2onnx.check(doc, "tensorrt")  # TensorRT has no int16 tensors (onnx-tensorrt docs/operators.md)
    assert not refused.ok and "input 'x' is int16" in refused.problems[0]


def test_check_takes_an_onnx_model(tmp_path):
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Det", ["x"], ["y"])], "det", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2, 2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    report = spec2onnx.check(model, "tensorrt")  # onnx-tensorrt's operator list has no Det
    assert not report.ok and report.spec == "det" and "not supported by onnx-tensorrt" in report.problems[0]
    onnx.save(spec2onnx.convert(SEED, target="ort-cpu").model, tmp_path / "m.onnx")
    assert spec2onnx.check(tmp_path / "m.onnx", "ort-cpu").ok


@pytest.mark.parametrize("module", [spec2onnx, trt, dml], ids=lambda m: m.__name__)
def test_every_public_name_is_documented(module):
    undocumented = []
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isclass(value) or inspect.isfunction(value) or inspect.ismodule(value):
            doc = inspect.getdoc(value) or ""
            if not doc or doc.startswith(f"{name}("):  # a dataclass's generated signature is no documentation
                undocumented.append(name)
            if inspect.isclass(value):
                undocumented += [f"{name}.{m}" for m, v in vars(value).items() if not m.startswith("_")
                                 and (inspect.isfunction(v) or isinstance(v, property)) and not inspect.getdoc(v)]
    assert undocumented == []
    assert module.__doc__


def test_no_submodule_has_the_name_of_a_public_function():
    """``spec2onnx.validate`` is the function, whatever is imported: no module of the package is called like a
    public name (the package needs no class swap to keep it so)."""
    import importlib.util

    import converter.pipeline.stages  # noqa: F401  (the module that validates)

    assert callable(spec2onnx.validate) and spec2onnx.validate.__module__.endswith(".api.specs")
    for name in spec2onnx.__all__:
        if name not in ("trt", "dml", "__version__"):
            assert importlib.util.find_spec(f"converter.{name}") is None, name


def test_convert_needs_no_cases_but_validate_does():
    doc = {k: v for k, v in copy.deepcopy(DOC).items() if k != "cases"}
    assert spec2onnx.convert(doc, target="ort-cpu").node_count > 0  # as `spec2onnx convert` of a case-less spec
    with pytest.raises(spec2onnx.UserError, match="cases"):
        spec2onnx.load_spec(doc)
    with pytest.raises(spec2onnx.UserError, match="cases"):
        spec2onnx.validate(doc)


def test_a_wrong_typed_argument_is_a_user_error_naming_it():
    """validate(3) and convert(spec, 5) raised a bare TypeError from deep inside; load_spec(3) and check(3) named the
    argument. A generator of specs stays accepted (the signature's Iterable)."""
    with pytest.raises(spec2onnx.UserError, match=r"^validate\(specs\): expected a path, a mapping, a Spec or a list "
                                                  r"of them, got int 3"):
        spec2onnx.validate(3)
    with pytest.raises(spec2onnx.UserError, match=r"^convert\(output\): expected a file path, got int 5"):
        spec2onnx.convert(SEED, 5)
    assert spec2onnx.validate(iter([SEED])).ok


def test_convert_takes_auto_as_the_command_does(tmp_path):
    """spec2onnx convert chooses the most portable target that takes the spec (auto); the API refused "auto" as an
    unknown target, so a spec the command converts could not be converted the same way from Python."""
    spec = SPECS / "trt_resize" / "dynamic-shape-input.yaml"  # portable refuses it (CPU-placed shape nodes, ort-cuda)
    with pytest.raises(spec2onnx.UserError, match="cannot run there"):
        spec2onnx.convert(spec)
    conversion = spec2onnx.convert(spec, target="auto")
    assert conversion.target == "tensorrt"
    from click.testing import CliRunner

    from cli import main

    result = CliRunner().invoke(main, ["convert", str(spec), "-o", str(tmp_path / "m.onnx")])
    assert result.exit_code == 0 and "target auto: tensorrt" in result.output, result.output
