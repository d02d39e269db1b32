"""The two recipes of docs/architecture.md, proved from this file alone (no file of the package edited):

* a new layer kind = its lowering family (one ``register_layer(LayerKind(...))``, naming its reference, its
  rules per target, its builder method and its fuzz strategy) + its reference family + its specs;
* a new target = one data file (its kernel table) + one profile entry (``register_target(name, profile)``, the
  documented call; inside the package, the same entry in profiles.py's ``PROFILES``). Nothing else: the help lists,
  shell completion, the unknown-target message and the pytest plugin's ``--s2o-target`` read the registry.

Both are in one plugin module (``PLUGIN`` below, written to a file), as a user outside the package writes them:
the tests load it in this process, and the command line loads it with ``--plugin`` (issue 26: the CLI's --target
was a hand-written list, so the toy target worked from Python but not from convert, validate or check).

The toy kind ``toy.Double`` doubles its input (ONNX Add(x, x)); its reference is numpy's ``2 * x``; its
registration gives it ``INetworkDefinition.add_double`` in the TensorRT-style builder and a strategy the fuzz
tests draw. The toy target ``toy-cpu`` is onnxruntime's CPU EP restricted to a kernel table that has float32 Add
only. Expected values are hand computed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings

import converter as spec2onnx
from converter import registry
from converter.pipeline import plugins
from converter.errors import SpecError
from converter.targets import resolve_target, target_names, unregister_target
from converter.pipeline.stages import precision_unused
from converter.targets.check import table
from spec2onnx import dml, trt

from .conftest import REPO, child_env
from .fuzz.strategies import strategy_of, valid_strategies

KIND, TARGET = "toy.Double", "toy-cpu"

# The plugin: what a user writes, in a file of their own, importing the installed package's names.
PLUGIN = '''
import json
import math
from pathlib import Path

import numpy as np

from spec2onnx.errors import TargetRuleError
from spec2onnx.lowering.builder import NodeBuilder
from spec2onnx.network import TensorType
from spec2onnx.registry import BuilderHook, LayerKind, register_layer
from spec2onnx.targets import register_target

KIND, TARGET = "toy.Double", "toy-cpu"


# --- recipe 1: the lowering family (its check, its lowering, its reference, its rules per target) ---

def check(layer, types):
    return TensorType(types[0].dtype, types[0].shape)


def lower(layer, ctx):
    b = NodeBuilder(layer)
    return b.finish(b.op("Add", [layer.inputs[0], layer.inputs[0]], why="x + x is 2x exactly"))


def reference(layer, inputs):  # the reference family: numpy only
    return (2 * inputs[0]).astype(inputs[0].dtype)


def toy_rule(spec, layer, where):
    if spec.network.types[layer.inputs[0]].dtype.name != "float32":
        raise TargetRuleError(f"{TARGET} doubles float32 only", file=str(spec.path), field=where)


def toy_specs():
    """The fuzz tests' valid specs of the kind (a hypothesis strategy of (doc, opset)): float32 data, small shapes."""
    from hypothesis import strategies as st  # the tests' dependency, imported when the tests draw

    @st.composite
    def specs(draw):
        shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
        values = draw(st.lists(st.floats(-1e3, 1e3, width=32), min_size=math.prod(shape), max_size=math.prod(shape)))
        doc = {"name": "toy-fuzz", "network": {"inputs": {"x": {"dtype": "float32", "shape": shape}},
                                               "layers": [{"name": "y", "op": KIND, "inputs": ["x"]}], "outputs": ["y"]},
               "cases": [{"name": "drawn", "inputs": {"x": np.array(values, np.float32).reshape(shape).tolist()}}]}
        return doc, 17

    return specs()


register_layer(LayerKind(name=KIND, summary="output = 2 * input", inputs=("input",), min_inputs=1, attributes={},
                         check=check, lower=lower, reference=reference, target_rules={TARGET: toy_rule},
                         builder=BuilderHook("add_double", layer="IDoubleLayer"),  # INetworkDefinition.add_double
                         strategy=toy_specs))  # the fuzz tests draw it

# --- recipe 2: one data file (written beside this module) and one profile entry ---
KERNELS = Path(__file__).with_name("toy-cpu.json")
KERNELS.write_text(json.dumps({"source": "a test", "ops": {"Add": [
    {"start": 14, "end": None, "types": {"T": ["float"]}}, {"start": 13, "end": 13, "types": {"T": ["float"]}}]}}))
register_target(TARGET, {"summary": "a test's CPU target, float32 Add only", "kernels": str(KERNELS)})
'''
SUMMARY = "a test's CPU target, float32 Add only"


@pytest.fixture
def plugin_file(tmp_path):
    path = tmp_path / "toy_plugin.py"
    path.write_text(PLUGIN)
    return path


@pytest.fixture
def toy(plugin_file):
    plugins.load_plugins([str(plugin_file)])
    yield plugin_file
    unregister_target(TARGET)
    registry._KINDS.pop(KIND)
    plugins._LOADED.discard(str(plugin_file))
    table.cache_clear()


def _spec(dtype="float32", opset=17):
    x, y = ([[1.5, -2.0], [0.25, 3.0]], [[3.0, -4.0], [0.5, 6.0]]) if dtype == "float32" else ([[1, -2], [0, 3]], [[2, -4], [0, 6]])
    return {"name": "toy-double", "opset": opset,
            "network": {"inputs": {"x": {"dtype": dtype, "shape": [2, 2]}},
                        "layers": [{"name": "y", "op": KIND, "inputs": ["x"]}], "outputs": ["y"]},
            "cases": [{"name": "hand", "inputs": {"x": x}, "expected": {"y": y}}]}


def test_a_toy_kind_and_a_toy_target_convert_validate_and_check(toy):
    conversion = spec2onnx.convert(_spec(), target=TARGET)
    assert conversion.target == TARGET and [n.op_type for n in conversion.model.graph.node] == ["Add"]
    report = spec2onnx.validate(_spec(), target=TARGET)
    assert report.ok and [(r.case, r.outcome) for r in report.results] == [("hand", "PASS")], report.summary()
    assert spec2onnx.check(_spec(), target=TARGET).ok


def test_the_toy_kind_runs_on_every_built_in_target_that_has_its_nodes(toy):
    assert spec2onnx.validate(_spec(), target="ort-cpu").ok
    assert spec2onnx.convert(_spec(), target="portable").node_count == 1


def test_the_toy_targets_table_and_the_kinds_rule_refuse_what_they_do_not_cover(toy):
    refused = spec2onnx.check(_spec(dtype="int32"), target=TARGET)
    assert not refused.ok and f"{TARGET} doubles float32 only" in refused.problems[0]  # the kind's rule for it
    with pytest.raises(SpecError, match="doubles float32 only"):
        spec2onnx.convert(_spec(dtype="int32"), target=TARGET)
    assert spec2onnx.validate(_spec(dtype="int32"), target="ort-cpu").ok  # the rule is the toy target's alone


def test_without_the_kinds_rule_the_toy_targets_table_refuses_int32_add(toy, monkeypatch):
    monkeypatch.setitem(registry._KINDS, KIND, registry.replace(registry.layer_kind(KIND), target_rules={}))
    refused = spec2onnx.check(_spec(dtype="int32"), target=TARGET)
    assert not refused.ok and "no kernel for types T=int32" in refused.problems[0], refused.problems
    # validate: the host runs the model, the toy target would not (its static check): REFUSED, not ERROR
    [result] = spec2onnx.validate(_spec(dtype="int32"), target=TARGET).results
    assert result.outcome == "REFUSED" and result.problems[0].startswith(f"static check: {TARGET}: ")
    assert "no kernel for types T=int32" in result.problems[0]


def test_the_toy_target_is_listed_and_refused_once_gone(toy):
    assert TARGET in target_names()
    with pytest.raises(spec2onnx.UserError, match="unknown target"):
        spec2onnx.convert(_spec(), target="toy-gpu")


def test_the_toy_target_is_resolved_from_its_two_places(toy, plugin_file):
    """What the package asks of the toy target comes from its profile: its table, no limits, no importer or DLA
    rules, no build precision (so --fp16 means nothing for it), no runtime to probe."""
    target = resolve_target(TARGET)
    assert target.kernels == str(plugin_file.with_name("toy-cpu.json")) and target.summary == SUMMARY
    assert (target.limits, target.importer, target.dla, target.build_precisions, target.probe) == ((), False, False, (), {})
    assert target.dynamic_shapes and not target.deployment and target.checked == (target,)
    warning = precision_unused([TARGET], ["fp16"])
    assert warning.startswith(f"--fp16 means nothing for {TARGET}:") and "only tensorrt and tensorrt-dla read it" in warning


def _help(*args) -> str:
    """A command's --help, unwrapped (wide enough that no line breaks inside a target's entry)."""
    from click.testing import CliRunner

    from cli import main

    result = CliRunner().invoke(main, [*args, "--help"], terminal_width=1000, max_content_width=1000)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_toy_target_is_in_every_help_list_and_in_shell_completion(toy):
    """--target's help of convert, validate and check lists the toy target with its summary, and completion offers it:
    both read the registry when they are shown, nothing written for the toy target in cli.py."""
    from click.shell_completion import BashComplete

    from cli import main

    for command in ("convert", "validate", "check"):
        text = _help(command)
        assert f"; {TARGET} ({SUMMARY}); or one a --plugin adds" in text, (command, text)
    for command, also in (("convert", ["auto"]), ("validate", ["auto"]), ("check", [])):
        offered = BashComplete(main, {}, "spec2onnx", "_SPEC2ONNX_COMPLETE").get_completions([command, "--target"], "")
        assert [c.value for c in offered] == [*also, *target_names()] and target_names()[-1] == TARGET
        toy_only = BashComplete(main, {}, "spec2onnx", "_SPEC2ONNX_COMPLETE").get_completions([command, "--target"], "toy")
        assert [(c.value, c.help) for c in toy_only] == [(TARGET, SUMMARY)]


def test_without_the_toy_target_no_help_list_names_it():
    for command in ("convert", "validate", "check"):
        text = _help(command)
        assert TARGET not in text and "; openvino (OpenVINO's CPU plugin); or one a --plugin adds" in text


# --- the same plugin from the command line: --plugin, then --target takes what it added ---


def _cli(cwd, *args):
    done = subprocess.run([sys.executable, str(REPO / "cli.py"), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=child_env(PATH="/usr/bin:/bin"), timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_the_toy_target_and_kind_work_from_the_command_line(plugin_file, tmp_path):
    """convert, check and validate (in this process, -j 0, and in a worker process, -j 1, which imports the plugin
    again) take ``--target toy-cpu`` once ``--plugin`` has added it, as a user's shell runs them."""
    spec = tmp_path / "toy.json"
    spec.write_text(json.dumps(_spec()))
    converted = _cli(tmp_path, "convert", spec, "--target", TARGET, "--plugin", plugin_file, "-o", "toy.onnx")
    assert converted.returncode == 0, converted.stderr
    assert converted.stdout.strip() == f"wrote toy.onnx (opset 17, 1 node, target {TARGET})"
    checked = _cli(tmp_path, "check", "toy.onnx", "--target", TARGET, "--plugin", plugin_file)
    assert checked.returncode == 0 and f"toy.onnx: every node runs on {TARGET} (1 node)" in checked.stdout
    for jobs in ("0", "1"):
        validated = _cli(tmp_path, "validate", spec, "--target", TARGET, "--plugin", plugin_file, "-j", jobs, "-v")
        assert validated.returncode == 0, validated.stdout + validated.stderr
        assert "PASS  toy-double/hand" in validated.stdout and "1 case: 1 passed" in validated.stdout


def test_without_the_plugin_the_toy_target_is_unknown_and_the_message_lists_the_registry(plugin_file, tmp_path):
    spec = tmp_path / "toy.json"
    spec.write_text(json.dumps(_spec()))
    unknown = _cli(tmp_path, "check", spec, "--target", TARGET)
    assert unknown.returncode == 2 and f"--target {TARGET}: unknown target" in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) == 1
    listed = _cli(tmp_path, "check", spec, "--target", "toy-gpu", "--plugin", plugin_file)
    assert listed.returncode == 2 and "did you mean 'toy-cpu'" in listed.stderr and f", {TARGET}" in listed.stderr


def test_an_unknown_target_lists_what_each_command_takes(tmp_path):
    """convert and validate also take auto (and say so); check does not."""
    from click.testing import CliRunner

    from cli import main

    spec = REPO / "specs" / "trt_scale" / "seed-scale-4d.yaml"
    for command in (["convert", str(spec), "-o", str(tmp_path / "m.onnx")], ["validate", str(spec), "-j", "0"]):
        result = CliRunner().invoke(main, [*command, "--target", "autp"])
        assert result.exit_code == 2 and "did you mean 'auto'?); targets: auto, portable, ort-cpu" in result.output
    result = CliRunner().invoke(main, ["check", str(spec), "--target", "autp"])
    assert result.exit_code == 2 and "targets: portable, ort-cpu" in result.output and "auto" not in \
        result.output.split("targets: ")[1]
    assert not (tmp_path / "m.onnx").exists()


# --- the registration reaches the builder and the fuzz tests ---------------------------------------------------


def missing_builder_methods(names) -> list[str]:
    """The kinds of ``names`` without a builder method: no hook, or a hook naming a call its builder does not have."""
    fronts = {"trt": trt.INetworkDefinition(), "dml": dml}
    missing = []
    for name in names:
        hook = registry.layer_kind(name).builder
        if hook is None or hook.front not in fronts or not callable(getattr(fronts[hook.front], hook.method, None)):
            missing.append(name)
    return missing


def test_every_registered_kind_has_a_builder_method():
    # spec2onnx's kinds (a test's own plugin kinds, registered for the session by other tests, are theirs to say)
    assert missing_builder_methods([n for n in registry.layer_kinds() if registry.is_builtin(n)]) == []
    network = trt.INetworkDefinition()
    assert {k.builder.method for k in registry.layer_kinds().values() if k.builder and k.builder.front == "trt"} <= set(dir(network))


def test_the_toy_kind_is_in_the_builder_from_its_registration(toy):
    assert missing_builder_methods([KIND]) == []
    network = trt.Builder().create_network(0)
    x = network.add_input("x", trt.float32, (2, 2))
    doubled = network.add_double(x)  # INetworkDefinition has no such method: the registration's hook makes it
    assert type(doubled).__name__ == "IDoubleLayer" and doubled.type == "DOUBLE" and doubled.num_inputs == 1
    doubled.name = "twice"
    network.mark_output(doubled.get_output(0))
    assert network.to_spec_dict()["network"]["layers"] == [{"name": "twice", "op": KIND, "inputs": ["x"]}]
    data = np.array([[1.5, -2.0], [0.25, 3.0]], np.float32)
    report = network.validate({"inputs": {x: data}, "expected": {doubled.get_output(0): 2 * data}})
    assert report.ok, report.summary()
    with pytest.raises(trt.BuilderTypeError, match=r"^add_double\(\) \(layer 1\): input: expected an ITensor"):
        network.add_double("x")
    with pytest.raises(trt.BuilderTypeError, match=r"unexpected argument 'scale'"):
        network.add_double(x, scale=2)
    with pytest.raises(trt.BuilderTypeError, match=r"expected at least 1 tensors \(input\), got 0"):
        network.add_double()
    assert network.num_layers == 1


def test_the_toy_kind_is_fuzzed_from_its_registration(toy):
    strategy = strategy_of(KIND)
    assert strategy is registry.layer_kind(KIND).strategy and KIND in valid_strategies()

    @settings(max_examples=15, deadline=None)
    @given(strategy())
    def validates(pair):
        doc, opset = pair
        report = spec2onnx.validate(doc, opset=opset)
        assert report.ok, report.summary()

    validates()


def test_a_kind_without_builder_method_or_strategy_is_named(toy, monkeypatch):
    bare = registry.replace(registry.layer_kind(KIND), builder=None, strategy=None)
    monkeypatch.setitem(registry._KINDS, KIND, bare)
    assert missing_builder_methods([KIND]) == [KIND] and KIND not in valid_strategies()
    with pytest.raises(AttributeError, match="add_double"):
        trt.INetworkDefinition().add_double
