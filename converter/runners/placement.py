"""Run-time placement: which execution provider ran each node, from onnxruntime's own profile.

A session with ``enable_profiling`` writes a JSON trace; each kernel event (``"cat": "Node"``) carries
``args.op_name`` and ``args.provider``. With a non-CPU provider, a compute node that ran on the CPU
means the model does not run fully on that provider. onnxruntime itself puts small shape
computations on the CPU (GetCpuPreferredNodes: int64 tensors that feed shape inputs such as
Reshape's shape or Resize's sizes) and inserts Memcpy nodes between devices; those are allowed and
named.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import onnx

from ..untrusted.infer import infer

CPU = "CPUExecutionProvider"
# inputs that onnxruntime reads on the host: a node feeding only these is a shape computation
SHAPE_INPUTS = {"Reshape": {1}, "Resize": {1, 2, 3}, "Expand": {1}, "Tile": {1}, "Slice": {1, 2, 3, 4},
                "ConstantOfShape": {0}, "Range": {0, 1, 2}, "Upsample": {1}, "Squeeze": {1}, "Unsqueeze": {1},
                "Pad": {1, 2, 3}, "TopK": {1}, "OneHot": {1}}
# onnxruntime places a shape computation on the CPU whatever its element type, except these
# (GetCpuPreferredNodes, onnxruntime/core/framework/fallback_cpu_capability.cc: "skip placing on CPU if the data
# type is float16 or bfloat16 or float8..."): a dynamic Resize's sizes floor(a * s) pass through float32.
NOT_ON_CPU = {onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16, onnx.TensorProto.FLOAT8E4M3FN,
              onnx.TensorProto.FLOAT8E4M3FNUZ, onnx.TensorProto.FLOAT8E5M2, onnx.TensorProto.FLOAT8E5M2FNUZ}


@dataclass(frozen=True)
class Placement:
    node: str
    op: str
    provider: str


def read_profile(path) -> list[Placement]:
    """One Placement per node that ran, in the order of their first kernel event."""
    events = json.loads(Path(path).read_text(encoding="utf-8"))
    seen: dict[str, Placement] = {}
    for event in events:
        args = event.get("args", {})
        if event.get("cat") != "Node" or "provider" not in args or not event.get("name", "").endswith("_kernel_time"):
            continue
        name = event["name"][: -len("_kernel_time")]
        seen.setdefault(name, Placement(name, args.get("op_name", "?"), args["provider"]))
    return list(seen.values())


def shape_only_nodes(model: onnx.ModelProto) -> set[str]:
    """Names of the nodes whose every output is used only as a shape input (transitively), of a type onnxruntime
    computes on the CPU (not NOT_ON_CPU): int64 sizes, and the float32 steps of floor(a * scale) before them."""
    inferred = infer(model)  # a model the pipeline lowered: no time limit
    types = {v.name: v.type.tensor_type.elem_type for v in
             list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
    graph_outputs = {o.name for o in model.graph.output}
    consumers: dict[str, list[tuple[onnx.NodeProto, int]]] = {}
    for node in model.graph.node:
        for i, name in enumerate(node.input):
            consumers.setdefault(name, []).append((node, i))
    shape_only: set[str] = set()
    for node in reversed(model.graph.node):  # consumers come after producers in a valid graph
        outputs = [o for o in node.output if o]
        if not outputs or any(o in graph_outputs or types.get(o) in NOT_ON_CPU or o not in types for o in outputs):
            continue
        if all(c.name in shape_only or i in SHAPE_INPUTS.get(c.op_type, ()) for o in outputs
               for c, i in consumers.get(o, [])):
            shape_only.add(node.name)
    return shape_only


def judge(placements: list[Placement], model, provider: str) -> tuple[list[Placement], list[Placement]]:
    """(compute nodes that ran on the CPU although ``provider`` was asked for, allowed CPU nodes: shape-only or copies).

    ``model``: the ModelProto, or a function that makes it: called (and shape inference run) only when a node
    other than a copy ran on the CPU, which is rare (a spec on CUDA pays for neither)."""
    if provider == CPU:
        return [], []
    if all(p.provider != CPU or p.op.startswith("Memcpy") for p in placements):
        return [], [p for p in placements if p.provider == CPU]
    shape_only = shape_only_nodes(model() if callable(model) else model)
    bad, allowed = [], []
    for p in placements:
        if p.provider != CPU:
            continue
        (allowed if p.node in shape_only or p.op.startswith("Memcpy") else bad).append(p)
    return bad, allowed


def describe(placements: list[Placement]) -> str:
    return ", ".join(f"{p.node} ({p.op})" for p in placements)
