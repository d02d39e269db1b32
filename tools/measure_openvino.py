"""Measure openvino.json: which (op, since-version, types) OpenVINO's ONNX frontend and CPU plugin compile.

OpenVINO publishes no per-type kernel table for its ONNX frontend, so this one is measured: every
model the lowerings emit for the bundled suite (at the spec's opset and at 13, 17 and 21, lowered
for each target) is compiled on the CPU plugin at f32 inference precision, as converter/runners/openvino.py
runs models; every node of a model that compiles counts as compiled. The nodes of a model that does
not are cut out into one-node models (constant inputs kept as initializers) and compiled alone.
A row per compiled combination, in the kernel-table format of ort-*.json (closed since-version
ranges). Usage: ``python -m tools.measure_openvino`` from a checkout (needs openvino).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import onnx

from spec2onnx.files import bundled_specs_dir
from spec2onnx.lowering import build_model
from spec2onnx.selection import spec_files
from spec2onnx.spec import load_spec
from spec2onnx.targets import TARGET_NAMES, Target
from spec2onnx.targets.model_view import ModelView
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
    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(model.SerializeToString())
        core.compile_model(core.read_model(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        return None
    except Exception as exc:  # noqa: BLE001 - any refusal is the measurement
        lines = [line for line in str(exc).strip().splitlines() if line.strip() and not line.startswith('Exception from')]
        return (lines or [type(exc).__name__])[0][:200]
    finally:
        os.unlink(path)


def main() -> None:
    import openvino as ov


    core = ov.Core()
    seen, rows, failures = set(), {}, {}
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
                    if any(n and t is None for n, t in zip(node.inputs, node.input_types)) or node.since is None:
                        continue
                    binding = {c: sorted(v) for c, v in sorted(node.bindings().items())}
                    key = (node.op, node.since, json.dumps(binding), tuple(c is not None for c in node.constants))
                    if key in seen:
                        continue
                    seen.add(key)
                    error = None if whole_ok else compiles(core, one_node_model(view, node))
                    bucket = failures if error else rows
                    entry = {"start": node.since, "end": node.since, "types": binding}
                    if error:
                        entry["error"] = error
                    if entry not in bucket.setdefault(node.op, []):
                        bucket[node.op].append(entry)
    table = {"source": f"measured: OpenVINO {ov.get_version()} ONNX frontend + CPU plugin (f32), one-node models of "
                       "every node the lowerings emit for the bundled suite (tools/measure_openvino.py)",
             "kernel_rule": "a row matches its own since-version and types only (measured combinations)",
             "ops": rows, "failed": failures}
    text = json.dumps(table, indent=1, sort_keys=True)
    (TABLES / "openvino.json").write_text(text + "\n", encoding="utf-8")
    print(f"{sum(map(len, rows.values()))} combinations compiled, {sum(map(len, failures.values()))} refused")


if __name__ == "__main__":
    main()
