"""Small builders for tests: a one-layer spec document, loaded and lowered."""

from __future__ import annotations

import os
from pathlib import Path

from converter.lowering import build_model
from converter.spec import parse_spec


def one_layer_spec(op: str, inputs: dict, attrs: dict, constants: dict | None = None, layer_inputs=None):
    """A validated Spec with one layer named 'y' over the given inputs ({name: (dtype, shape)})."""
    doc = {
        "name": "t",
        "network": {
            "inputs": {n: {"dtype": d, "shape": list(s)} for n, (d, s) in inputs.items()},
            "constants": constants or {},
            "layers": [{"name": "y", "op": op, "inputs": layer_inputs or list(inputs), **attrs}],
            "outputs": ["y"],
        },
        "cases": [{"name": "c", "inputs": {n: {"random": "integers", "low": 0, "high": 1} for n in inputs}}],
    }
    return parse_spec(doc, Path("test.yaml"))


def node_types(spec, opset: int = 17) -> list[str]:
    return [n.op_type for n in build_model(spec.network, opset=opset).graph.node]


class TouchesWhenUnpickled:
    """A pickle that would run ``touch marker`` (os.system) if an unpickler let it: a cache must refuse it."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)
