"""Independent numpy reference implementations: the oracle every lowering is checked against.

Nothing in this package imports onnx, onnxruntime or ``converter.lowering``
(tests/reference/test_independence.py checks it). Each layer kind maps, by its
explicit spec name, to a function ``(layer, inputs: list[np.ndarray]) -> np.ndarray``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..network import Layer, Network
from . import dequantize, elementwise, resize, scale
from .quantized import run_quantized

REFERENCES: dict[str, Callable[[Layer, list[np.ndarray]], np.ndarray]] = {
    "trt.Scale": scale.reference,
    "trt.ElementWise": elementwise.reference,
    "trt.Resize": resize.reference,
    "dml.DequantizeLinear": dequantize.reference,
}


def register_reference(name: str, fn: Callable[[Layer, list[np.ndarray]], np.ndarray]) -> None:
    """Register the reference of a layer kind defined outside the package (see converter.plugins)."""
    if name in REFERENCES:
        raise ValueError(f"reference for {name} registered twice")
    REFERENCES[name] = fn


def run_network(network: Network, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Evaluate the network layer by layer; returns the network's outputs."""
    values: dict[str, np.ndarray] = dict(network.constants)
    values.update(feeds)
    for layer in network.layers:
        fn, args, quantization = REFERENCES[layer.op], [values[t] for t in layer.inputs], network.quantization(layer)
        out = fn(layer, args) if quantization is None else run_quantized(fn, layer, args, *quantization)
        want = network.types[layer.name]
        if out.dtype != want.dtype.numpy or not want.matches(out.shape):
            raise AssertionError(f"reference for {layer.op} gave {out.dtype}{list(out.shape)} for {layer.name!r}, expected {want}")
        values[layer.name] = out
    return {name: values[name] for name in network.outputs}
