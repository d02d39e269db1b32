"""Property tests of dynamic specs through the command line, as a user runs them (issue 27; the house rules).

- A valid random dynamic spec (tests/dynamic/strategies.py, one per layer kind) with its cases left to its
  profiles: ``convert`` writes a model with symbolic dimensions; that FILE, in one onnxruntime session, matches
  the numpy reference (converter/reference: numpy only) at the min, opt and max of the profile; ``validate`` on
  the same spec file passes the same three cases.
- The same spec broken one way (a dynamic network without a profile, min > opt, opt > max, a profile of another
  rank or missing a dynamic input, a shape tensor of another rank or type, a case outside the profile or of another
  rank, a bad symbolic name, ...): ``convert`` and ``validate`` exit 2 with ONE line that names the file and the
  field, no traceback, and nothing written.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import yaml
from click.testing import CliRunner
from hypothesis import assume, event, given, note, settings
from hypothesis import strategies as st

import tests.fuzz.conftest  # noqa: F401  (registers and loads the hypothesis profiles: ci, nightly, dev)
from cli import main
from converter import reference
from converter.compare import compare, resolve_tolerance
from converter.pipeline.stages import layer_tolerance
from converter.runners import RunConfig, session
from converter.pipeline.spec import load_spec
from converter.targets import TARGET_NAMES, resolve_target

from .strategies import KINDS, accepting_target

EXIT_BAD_INPUT = 2
CLI_RUNS = settings(max_examples=max(5, settings.default.max_examples // 6))
TARGETS = [t for t in TARGET_NAMES if t != "tensorrt-dla"]  # (DLA refuses dynamic dimensions: test_targets.py)
# (a JSON round trip: the strategies share lists between inputs, and a fault in one must not break the other)
ANY_KIND = st.sampled_from(sorted(KINDS)).flatmap(lambda kind: KINDS[kind]()).map(lambda doc: json.loads(json.dumps(doc)))


def _write(folder: Path, doc: dict) -> Path:
    path = folder / "dynamic.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@CLI_RUNS
@given(doc=ANY_KIND, data=st.data())
def test_convert_writes_a_model_that_matches_the_reference_at_min_opt_and_max(doc, data):
    doc = {k: v for k, v in doc.items() if k != "cases"}  # the default cases: min, opt and max of each profile
    note(yaml.safe_dump(doc, sort_keys=False, width=200))
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), doc)
        spec = load_spec(path)
        assert [c.name for c in spec.cases] == ["profile0-min", "profile0-opt", "profile0-max"]
        name = accepting_target(spec, data.draw(st.permutations(TARGETS), label="targets, first that accepts"))
        assume(name is not None)  # (not pytest.skip: one such draw would skip every other example of the test)
        note(f"target {name}")
        event(f"{doc['network']['layers'][0]['op']} on {name}")
        out = Path(tmp) / "model.onnx"
        converted = CliRunner().invoke(main, ["convert", str(path), "--target", name, "--opset", "17", "-o", str(out)])
        assert converted.exit_code == 0, converted.output
        _assert_file_matches_the_reference(out, spec, resolve_target(name))
        validated = CliRunner().invoke(main, ["validate", str(path), "--target", name, "--opset", "17"])
        assert validated.exit_code == 0, validated.output
        assert "3 cases: 3 passed" in validated.output, validated.output


def _assert_file_matches_the_reference(model_path: Path, spec, target) -> None:
    """The written model, dims symbolic, in ONE session (the host copy where the deployment form needs one, as
    validate makes it), against the numpy reference at each case's own shapes."""
    import onnx

    from converter.pipeline.legalize import host_model

    model = onnx.load(str(model_path))
    for value in model.graph.input:  # the file keeps the spec's dynamic dimensions symbolic
        ttype = spec.network.inputs[value.name]
        dims = value.type.tensor_type.shape.dim
        assert [d.dim_value if d.HasField("dim_value") else None for d in dims] == list(ttype.shape), value.name
        assert [d.dim_param or None for d in dims] == list(ttype.names or [None] * len(dims)), value.name
    run = session(RunConfig(), host_model(model)[0].SerializeToString())
    arithmetic = target.name if target.deployment else None
    for case in spec.cases:
        got = run(case.inputs)
        want = reference.run_network(spec.network, case.inputs, arithmetic=arithmetic)
        for output in spec.network.outputs:
            tol = resolve_tolerance(spec.network.types[output].dtype, layer_tolerance(spec, output))
            mismatch = compare(got[output], want[output], tol)
            assert mismatch is None, f"{case.name} {output}: {mismatch}"


# --- invalid: one fault each, and the field its message must name ------------------------------------------------


def _dynamic_axes(entry: dict) -> list[int]:
    return [a for a, (lo, hi) in enumerate(zip(entry["min"], entry["max"])) if lo != hi] or list(range(len(entry["min"])))


@st.composite
def broken_specs(draw):
    """(document, fault, the field the message must name) from a valid dynamic spec broken in one place."""
    doc = draw(ANY_KIND)
    net = doc["network"]
    profile = net["profiles"][0]
    name = draw(st.sampled_from(sorted(profile)))
    entry = profile[name]
    shape_input = net["inputs"][name].get("shape_tensor", False)
    dynamic = [n for n in net["inputs"] if n in profile and not net["inputs"][n].get("shape_tensor")
               and any(not (isinstance(d, int) and d >= 0) for d in net["inputs"][n]["shape"])]
    faults = ["min above opt", "opt above max", "profile rank", "profile negative", "profile not a list",
              "profile unknown input", "profile unknown key", "case rank", "case missing input",
              "shape_tensor on a float", "bad dimension"]
    if dynamic:
        faults += ["profile missing input"]
    if dynamic or "size" in profile:  # (a profile of static inputs only has no range for a case to leave)
        faults += ["case outside"]
    if dynamic or "size" in net["inputs"]:
        faults += ["no profiles"]  # (a static network needs none: convert takes it without cases too)
    if "size" in net["inputs"]:
        faults += ["shape tensor rank", "shape tensor dynamic", "shape tensor value too big"]
    fault = draw(st.sampled_from(faults))
    where = f"network.profiles[0].{name}"
    if fault == "no profiles":
        del net["profiles"]
        where = "network"
    elif fault == "min above opt":
        axis = draw(st.sampled_from(_dynamic_axes(entry)))
        entry["min"][axis] = entry["opt"][axis] + draw(st.integers(1, 3))
    elif fault == "opt above max":
        axis = draw(st.sampled_from(_dynamic_axes(entry)))
        entry["opt"][axis] = entry["max"][axis] + draw(st.integers(1, 3))
    elif fault == "profile rank":
        key = draw(st.sampled_from(("min", "opt", "max")))
        entry[key] = entry[key] + [1] if draw(st.booleans()) else entry[key][:-1]
    elif fault == "profile negative":
        key, axis = draw(st.sampled_from(("min", "opt", "max"))), draw(st.integers(0, len(entry["min"]) - 1))
        entry[key][axis] = draw(st.sampled_from((-1, -7, 1.5, "n", None, True)))
        if shape_input and entry[key][axis] in (-1, -7):  # a negative VALUE of a shape tensor is refused where it resizes
            where = "network.profiles[0]"
    elif fault == "profile not a list":
        entry[draw(st.sampled_from(("min", "opt", "max")))] = draw(st.sampled_from(("4", 4, {"a": 1})))
    elif fault == "profile unknown input":
        profile["nope"] = json.loads(json.dumps(entry))
        where = "network.profiles[0]"
    elif fault == "profile unknown key":
        entry["mid"] = list(entry["opt"])
    elif fault == "profile missing input":
        name = draw(st.sampled_from(dynamic))
        del profile[name]
        where = "network.profiles[0]"
    elif fault in ("case outside", "case rank", "case missing input"):
        doc["cases"] = [_case_at_min(net)]
        inputs = doc["cases"][0]["inputs"]
        x = draw(st.sampled_from(sorted(n for n in inputs if not net["inputs"][n].get("shape_tensor"))))
        where = "cases[0]"
        if fault == "case outside":
            x = draw(st.sampled_from(dynamic)) if dynamic else x
            if not dynamic:  # a network dynamic only through its shape input: a value outside the profile
                size = profile["size"]
                axis = draw(st.sampled_from(_dynamic_axes(size)))
                inputs["size"][axis] = size["max"][axis] + draw(st.integers(1, 5))
            else:
                axis = draw(st.sampled_from(_dynamic_axes(profile[x])))
                inputs[x]["shape"][axis] = profile[x]["max"][axis] + draw(st.integers(1, 5))
        elif fault == "case rank":
            shape = inputs[x]["shape"]
            inputs[x]["shape"] = shape + [1] if draw(st.booleans()) or len(shape) == 1 else shape[1:]
        else:
            del inputs[x]
    elif fault == "shape_tensor on a float":
        x = draw(st.sampled_from(sorted(n for n in net["inputs"] if not net["inputs"][n].get("shape_tensor"))))
        net["inputs"][x]["shape_tensor"] = True
        where = f"network.inputs.{x}.shape_tensor"
        if net["inputs"][x]["dtype"] in ("int32", "int64") and len(net["inputs"][x]["shape"]) == 1:
            where = "network"  # (a 1-D integer input may be a shape input: then its profile or layer is wrong)
    elif fault == "bad dimension":
        x = draw(st.sampled_from(sorted(net["inputs"])))
        dims = net["inputs"][x]["shape"]
        axis = draw(st.integers(0, len(dims) - 1))
        dims[axis] = draw(st.sampled_from(("", "9lives", "a b", -2, 2.5, None, True, "x" * 129)))
        where = f"network.inputs.{x}.shape[{axis}]"
    elif fault == "shape tensor rank":
        size = net["inputs"]["size"]
        size["shape"] = draw(st.sampled_from(([], [size["shape"][0], 1], [1, size["shape"][0]])))
        where = "network.inputs.size.shape_tensor"
    elif fault == "shape tensor dynamic":
        net["inputs"]["size"]["shape"] = [draw(st.sampled_from(("k", -1)))]
        where = "network.inputs.size.shape_tensor"
    elif fault == "shape tensor value too big":
        key = draw(st.sampled_from(("min", "opt", "max")))
        profile["size"][key][-1] = 2**31 if net["inputs"]["size"]["dtype"] == "int32" else 2**63
        where = "network.profiles[0].size"
    return doc, fault, where


def _case_at_min(net: dict) -> dict:
    """A valid case at the profile's min: random data of each input's shape there, a shape input's min values."""
    profile, inputs = net["profiles"][0], {}
    for name, tdoc in net["inputs"].items():
        if tdoc.get("shape_tensor"):
            inputs[name] = list(profile[name]["min"])
            continue
        shape = list(profile[name]["min"]) if name in profile else list(tdoc["shape"])
        dtype = tdoc["dtype"]
        if dtype.startswith(("float", "bfloat")):
            inputs[name] = {"random": "uniform", "low": -1, "high": 1, "seed": 1, "shape": shape}
        else:
            inputs[name] = {"random": "integers", "low": 0, "high": 1, "seed": 1, "shape": shape}
    return {"name": "broken", "inputs": inputs}


@CLI_RUNS
@given(broken=broken_specs())
def test_a_broken_dynamic_spec_exits_2_with_one_line_naming_file_and_field(broken):
    doc, fault, where = broken
    event(fault)
    note(fault)
    note(yaml.safe_dump(doc, sort_keys=False, width=200))
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(Path(tmp), doc)
        out = Path(tmp) / "out" / "model.onnx"
        out.parent.mkdir()
        converted = CliRunner().invoke(main, ["convert", str(path), "--target", "ort-cpu", "-o", str(out)])
        assert converted.exit_code == EXIT_BAD_INPUT, f"{fault}: {converted.output}"
        lines = converted.output.splitlines()
        assert len(lines) == 1, converted.output
        assert lines[0].startswith(f"spec2onnx: error: {path}: {where}"), (where, lines[0])
        assert list(out.parent.iterdir()) == []  # nothing written, not even a temporary file
        validated = CliRunner().invoke(main, ["validate", str(path)])
        assert validated.exit_code == EXIT_BAD_INPUT, validated.output
        errors = [line.strip() for line in validated.output.splitlines() if line.startswith("      ")]
        assert errors == [lines[0].removeprefix("spec2onnx: error: ")], validated.output
        assert "Traceback" not in converted.output + validated.output
