"""Independent numpy reference implementations: the oracle every lowering is checked against.

Nothing in this package imports onnx, onnxruntime or ``converter.lowering``
(tests/reference/test_independence.py checks it). Each layer kind's registration
(``converter.registry.LayerKind.reference``) names its function here by module,
``(layer, inputs: list[np.ndarray]) -> np.ndarray``: one module per kind family.
"""

from __future__ import annotations

import functools

import numpy as np

from ..network import Network
from ..registry import reference_of, register_reference
from . import scale
from .quantized import run_quantized

__all__ = ["register_reference", "run_network"]


# Layer kinds whose arithmetic differs on a deployment target (run_network's ``arithmetic``; docs/deployment.md).
TARGET_ARITHMETIC = {"trt.Scale": scale.reference}


def run_network(network: Network, feeds: dict[str, np.ndarray], arithmetic: str | None = None) -> dict[str, np.ndarray]:
    """Evaluate the network layer by layer; returns the network's outputs.

    ``arithmetic``: None for the spec's own arithmetic; "tensorrt" or "tensorrt-dla" for that target's (FP16
    weights, DLA's rounding of x * scale before the shift)."""
    values: dict[str, np.ndarray] = dict(network.constants)
    values.update(feeds)
    for layer in network.layers:
        fn, args, quantization = reference_of(layer.op), [values[t] for t in layer.inputs], network.quantization(layer)
        if arithmetic and layer.op in TARGET_ARITHMETIC:
            fn = functools.partial(TARGET_ARITHMETIC[layer.op], arithmetic=arithmetic)
        out = fn(layer, args) if quantization is None else run_quantized(fn, layer, args, *quantization)
        want = network.types[layer.name]
        if out.dtype != want.dtype.numpy or not want.matches(out.shape):
            raise AssertionError(f"reference for {layer.op} gave {out.dtype}{list(out.shape)} for {layer.name!r}, expected {want}")
        values[layer.name] = out
    return {name: values[name] for name in network.outputs}


def arithmetic_differs(network: Network, arithmetic: str | None) -> bool:
    """Whether ``arithmetic`` (run_network's) gives other values than the spec's own for this network: a float16
    trt.Scale whose coefficients are not all float16 values, or (tensorrt-dla, which rounds after each step) one
    with more than one coefficient."""
    if arithmetic not in ("tensorrt", "tensorrt-dla"):
        return False
    for layer in network.layers:
        if layer.op != "trt.Scale" or network.types[layer.inputs[0]].dtype.numpy != np.float16:
            continue
        values = {k: np.asarray(layer.attrs[k], np.float32) for k in ("scale", "shift", "power")}
        if any(v.size and np.any((v.astype(np.float16).astype(np.float32) != v) & ~np.isnan(v)) for v in values.values()):
            return True
        if arithmetic == "tensorrt-dla" and sum(bool(v.size) for v in values.values()) > 1:
            return True
    return False
