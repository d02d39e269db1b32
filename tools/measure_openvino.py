"""Measure openvino.json: which (op, since-version, types) OpenVINO's ONNX frontend and CPU plugin compile.

OpenVINO publishes no per-type kernel table for its ONNX frontend, so this one is measured, on two sets
of models. First onnx's node test corpus (``collect_testcases()`` of the installed onnx, every case: one
node, or a function's expanded graph): each model is read and compiled (what ``Core.query_model`` answers is
part of that: compile refuses a model with a node the plugin does not take). A one-node case records its
node; a multi-node case that compiles records all its nodes as compiled, one that does not records the
nodes of the op types the frontend names as not converted (a node cut out of its graph would lose the
static shapes its neighbours gave it, and OpenVINO's CPU plugin refuses dynamic ranks the graph never has). A refusal records the node's explicitly set attributes, which inputs are constants and the inputs'
ranks, so that a combination that compiles in one form and not in another is told apart; where one form both
compiled and was refused, the refusal also records the inputs' shapes (shape_dependent). Second, every
model the lowerings emit for the bundled suite (at the spec's opset and at 13, 17 and 21, lowered
for each target) is compiled on the CPU plugin at f32 inference precision, as converter/runners/openvino.py
runs models; every node of a model that compiles counts as compiled. The nodes of a model that does
not are cut out into one-node models (constant inputs kept as initializers) and compiled alone. Third, the
real models the installed onnx ships (onnx/backend/test/data/light/light_*.onnx: ResNet-50, DenseNet-121,
Inception v1 and v2, ShuffleNet, SqueezeNet, VGG-19, AlexNet, ZFNet-512, at opset 9), measured as the suite's
models are: a model that compiles records every node as compiled, one that does not is cut into one-node models.
A row per compiled combination, in the kernel-table format of ort-*.json (closed since-version
ranges). Usage: ``python -m tools.measure_openvino [--out FILE]`` from a checkout (needs openvino);
it writes the checkout's converter/targets/tables/openvino.json (never an installed copy).
"""

from __future__ import annotations

import argparse
import re
import json
import os
import warnings
import tempfile
from pathlib import Path

import onnx

from converter.files import bundled_specs_dir
from converter.lowering import build_model
from converter.pipeline.selection import spec_files
from converter.pipeline.spec import load_spec
from converter.targets import TARGET_NAMES, Target
from converter.targets.model_view import ModelView
from onnx import helper, numpy_helper

TABLES = Path(__file__).resolve().parent.parent / "converter" / "targets" / "tables"  # the checkout's, never site-packages
OPSETS = (13, 17, 21)


def one_node_model(view, node) -> onnx.ModelProto:
    inputs, inits = [], []
    for name, t, shape, const in zip(node.inputs, node.input_types, node.input_shapes, node.constants):
        if not name:
            continue
        if const is not None:
            inits.append(numpy_helper.from_array(const, name))
        else:
            dims = [d if d else 2 for d in shape] if shape is not None else None
            inputs.append(helper.make_tensor_value_info(name, onnx.TensorProto.DataType.Value(t.upper()), dims))
    outputs = [helper.make_tensor_value_info(n, onnx.TensorProto.DataType.Value(t.upper()) if t else 0, None)
               for n, t in zip(node.node.output, node.output_types) if n]
    graph = helper.make_graph([node.node], "one", inputs, outputs, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", view.opset)],
                             ir_version=helper.find_min_ir_version_for([helper.make_opsetid("", view.opset)]))


def compiles(core, model: onnx.ModelProto) -> str | None:
    """None when OpenVINO reads and compiles ``model``; else the one line that says why (see ``summary``)."""
    text = compile_error(core, model)
    return None if text is None else summary(text)


def summary(text: str) -> str:
    """The informative line of an OpenVINO error: the reason under 'with a message:', not the Check boilerplate."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("Exception from", "Check '", "FrontEnd API failed",
                                                            "Model wasn't fully", "While validating", "Summary:",
                                                            "-- Conversion is failed", "Shape inference input"))]
    lines = [line for line in lines if not re.match(r"-- \S+-\d+ with a message:", line)] or lines
    return (lines[0] if lines else "refused")[:200]


def failed_ops(text: str) -> set[str]:
    """The ONNX op types OpenVINO's frontend names as not converted ('-- Split-20 with a message:')."""
    return set(re.findall(r"^-- (\w+)-\d+ with a message:", text, re.M))


def compile_error(core, model: onnx.ModelProto) -> str | None:
    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(model.SerializeToString())
        core.compile_model(core.read_model(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        return None
    except Exception as exc:  # noqa: BLE001 - any refusal is the measurement
        return str(exc) or type(exc).__name__
    finally:
        os.unlink(path)


def _set_attrs(node) -> dict:
    from onnx import helper

    out = {}
    for attr in node.node.attribute:
        value = helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        elif isinstance(value, list):
            value = [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value]
        if isinstance(value, (int, float, str, list)):
            out[attr.name] = value
    return out


def _record(core, view, node, whole_ok, seen, rows, failures, error=None, definitive=True) -> None:
    """Record ``node``: compiled when its whole model did; else ``error`` (its case's own) or a cut-out's.

    A node's form is its op, since-version, types, set attributes, which inputs are constants and the
    inputs' ranks. ``definitive`` False (a node of a function's expanded graph that the frontend named):
    not recorded as refused when the same form compiled elsewhere.
    """
    if any(n and t is None for n, t in zip(node.inputs, node.input_types)) or node.since is None:
        return
    if node.node.domain not in ("", "ai.onnx"):
        return
    binding = {c: sorted(v) for c, v in sorted(node.bindings().items())}
    attrs = _set_attrs(node)
    constants = [c is not None for c in node.constants]
    ranks = [node.rank(i) for i in range(len(node.inputs))]
    outcomes = seen.setdefault(_form(node.op, node.since, binding, attrs, constants, ranks), set())
    if whole_ok:
        error = None
    elif error is None:
        if outcomes:
            return
        error = compiles(core, one_node_model(view, node))
    outcome = "refused" if error else "compiled"
    if outcome in outcomes or (error and not definitive and "compiled" in outcomes):
        return
    outcomes.add(outcome)
    entry = {"start": node.since, "end": node.since, "types": binding}
    if error:
        entry |= {"attrs": attrs, "constants": constants, "ranks": ranks, "error": error,
                  "shapes": [list(s) if s is not None else None for s in node.input_shapes]}
    bucket = failures if error else rows
    if entry not in bucket.setdefault(node.op, []):
        bucket[node.op].append(entry)


def shape_dependent(seen, failures) -> None:
    """Keep a refusal's input shapes only where the same form also compiled (Col2Im 18: 2-D compiles, 3-D is refused,
    both float32 [N, C, L] with two 1-D inputs): there the shapes tell the two apart, and check matches them; a refusal
    whose form never compiled stands for the form, whatever the shapes."""
    for op, entries in failures.items():
        for entry in entries:
            form = _form(op, entry["start"], entry["types"], entry["attrs"], entry["constants"], entry["ranks"])
            if seen.get(form) != {"compiled", "refused"}:
                entry.pop("shapes", None)


def _form(op: str, since: int, binding: dict, attrs: dict, constants: list, ranks: list) -> tuple:
    """A node's form, the key of what was measured of it: op, since-version, types, set attributes, which inputs are
    constants, the inputs' ranks."""
    return (op, since, json.dumps(binding), json.dumps(attrs, sort_keys=True, default=str), tuple(constants), tuple(ranks))


def measure_corpus(core, seen, rows, failures) -> int:
    """Every case of onnx's node test corpus; returns how many models were compiled."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    for case in cases:
        view = ModelView(case.model)
        text = compile_error(core, case.model)
        if text is None or len(view.nodes) == 1:
            for node in view.nodes:
                _record(core, view, node, text is None, seen, rows, failures, error=text and summary(text))
            continue
        # a function's expanded graph that does not convert: the frontend names the op types it failed on
        named = failed_ops(text)
        for node in view.nodes:
            if node.op in named:
                _record(core, view, node, False, seen, rows, failures, error=summary(text), definitive=False)
    return len(cases)


def light_models() -> list[Path]:
    """The real models the installed onnx ships with its backend tests (onnx/backend/test/data/light)."""
    return sorted((Path(onnx.__file__).parent / "backend" / "test" / "data" / "light").glob("light_*.onnx"))


def measure_models(core, paths, seen, rows, failures) -> int:
    """Every node of each model in ``paths``, in context (as the suite's models); returns how many were compiled."""
    for path in paths:
        model = onnx.load(path)
        view = ModelView(model)
        whole_ok = compiles(core, model) is None
        for node in view.nodes:
            _record(core, view, node, whole_ok, seen, rows, failures)
    return len(paths)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.measure_openvino", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=TABLES / "openvino.json", help="where to write the table "
                        "(default: the checkout's converter/targets/tables/openvino.json)")
    args = parser.parse_args(argv)
    import openvino as ov

    core = ov.Core()
    seen, rows, failures = {}, {}, {}
    count = measure_corpus(core, seen, rows, failures)
    for path in spec_files([bundled_specs_dir()]):
        spec = load_spec(path)
        for opset in sorted({spec.opset or 17, *OPSETS}):
            for target in TARGET_NAMES:
                try:
                    model = build_model(spec.network, name=spec.name, opset=opset, target=Target(target), check=False)
                except Exception:  # noqa: BLE001 - a spec this opset cannot express
                    continue
                view = ModelView(model)
                whole_ok = compiles(core, model) is None  # then every node in it compiled, in context
                for node in view.nodes:
                    _record(core, view, node, whole_ok, seen, rows, failures)
    models = measure_models(core, light_models(), seen, rows, failures)
    shape_dependent(seen, failures)
    table = {"source": f"measured: OpenVINO {ov.get_version()} ONNX frontend + CPU plugin (f32): the {count} cases of "
                       f"onnx {onnx.__version__}'s node test corpus, one-node models of every node the lowerings "
                       f"emit for the bundled suite and the {models} light_* models onnx ships (ResNet-50, ...), each "
                       "read from a file path (read_model(path), as a deployment reads a model; tools/measure_openvino.py)",
             "kernel_rule": "a row matches its own since-version and types only (measured combinations)",
             "ops": rows, "failed": failures}
    text = json.dumps(table, indent=1, sort_keys=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(f"{sum(map(len, rows.values()))} combinations compiled, {sum(map(len, failures.values()))} refused")


if __name__ == "__main__":
    main()
