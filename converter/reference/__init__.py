"""Independent numpy reference implementations: the oracle every lowering is checked against.

Nothing in this package imports onnx, onnxruntime or ``converter.lowering``
(tests/reference/test_independence.py checks it). Each layer kind's registration
(``converter.registry.LayerKind.reference``) names its function here by module,
``(layer, inputs: list[np.ndarray]) -> np.ndarray``: one module per kind family.
"""

from __future__ import annotations

import functools

import numpy as np

from ..network import Layer, Network
from ..registry import reference_of, register_reference
from . import scale
from .quantized import run_quantized

__all__ = ["register_reference", "run_layer", "run_layers", "run_network"]


# Layer kinds whose arithmetic differs on a deployment target (run_network's ``arithmetic``; docs/deployment.md).
TARGET_ARITHMETIC = {"trt.Scale": scale.reference}


def run_network(network: Network, feeds: dict[str, np.ndarray], arithmetic: str | None = None) -> dict[str, np.ndarray]:
    """Evaluate the network layer by layer; returns the network's outputs.

    ``arithmetic``: None for the spec's own arithmetic; "tensorrt" or "tensorrt-dla" for that target's (FP16
    weights, DLA's rounding of x * scale before the shift)."""
    values = run_layers(network, feeds, arithmetic)
    return {name: values[name] for name in network.outputs}


def run_layers(network: Network, feeds: dict[str, np.ndarray], arithmetic: str | None = None) -> dict[str, np.ndarray]:
    """run_network's every value: the inputs, the constants and each layer's output (by the layer's name)."""
    values: dict[str, np.ndarray] = dict(network.constants)
    values.update(feeds)
    for layer in network.layers:
        values[layer.name] = run_layer(network, layer, [values[t] for t in layer.inputs], arithmetic)
    return values


def run_layer(network: Network, layer: Layer, args: list, arithmetic: str | None = None) -> np.ndarray:
    """One layer of ``network`` on the values ``args`` of its inputs (its reference, quantized as the network says)."""
    fn, quantization = reference_of(layer.op), network.quantization(layer)
    if arithmetic and layer.op in TARGET_ARITHMETIC:
        fn = functools.partial(TARGET_ARITHMETIC[layer.op], arithmetic=arithmetic)
    out = fn(layer, args) if quantization is None else run_quantized(fn, layer, args, *quantization)
    want = network.types[layer.name]
    if out.dtype != want.dtype.numpy or not want.matches(out.shape):
        raise AssertionError(f"reference for {layer.op} gave {out.dtype}{list(out.shape)} for {layer.name!r}, expected {want}")
    return out


def arithmetic_differs(network: Network, arithmetic: str | None) -> bool:
    """Whether ``arithmetic`` (run_network's) gives other values than the spec's own for this network: a float16
    trt.Scale whose coefficients are not all float16 values, or (tensorrt-dla, which rounds after each step) one
    with more than one coefficient."""
    return any(_layer_differs(network, layer, arithmetic) for layer in network.layers)


def _layer_differs(network: Network, layer: Layer, arithmetic: str | None) -> bool:
    if arithmetic not in ("tensorrt", "tensorrt-dla"):
        return False
    if layer.op != "trt.Scale" or network.types[layer.inputs[0]].dtype.numpy != np.float16:
        return False
    values = {k: np.asarray(layer.attrs[k], np.float32) for k in ("scale", "shift", "power")}
    if any(v.size and np.any((v.astype(np.float16).astype(np.float32) != v) & ~np.isnan(v)) for v in values.values()):
        return True
    return arithmetic == "tensorrt-dla" and sum(bool(v.size) for v in values.values()) > 1


F16_UNIT = 2.0**-11  # float16's unit roundoff: |fl16(v) - v| <= F16_UNIT * |v| in the normal range
F16_HALF_SUBNORMAL = 2.0**-25  # ... and <= 2^-25 (half of float16's subnormal spacing 2^-24) below it
F32_TWO_SIDES = 2.0**-23  # two float32 roundings of roundoff 2^-24: the spec's and the target's


def expected_widening(network: Network, output: str, arithmetic: str | None) -> tuple[float, float] | None:
    """(atol, rtol) by which the target's arithmetic may take ``output`` farther from the spec's expected values
    than the spec's own arithmetic: (0, 0) where the two give the same values. None where no bound of that form
    follows (a custom power, or a difference that passes through another layer): the expected values are then
    compared with the spec's own arithmetic instead.

    For a float16 trt.Scale y = fl16(x * s + b) whose arithmetic differs, to first order in the roundings
    (docs/deployment.md, "Expected values on a target", derives it): with eps = max |fl16(s) - s| / |s| and
    e_b = max |fl16(b) - b| (the coefficients' own roundings), B = max |b|, u = 2^-11, sigma = 2^-25:
    rtol = eps + 2^-22 (+ u on DLA) + 2u, atol = (eps + 2^-23 (+ u on DLA)) * B + e_b (+ sigma on DLA) + 2 sigma.
    """
    if arithmetic not in ("tensorrt", "tensorrt-dla"):
        return 0.0, 0.0
    affected: set[str] = set()
    for layer in network.layers:
        if _layer_differs(network, layer, arithmetic) or any(t in affected for t in layer.inputs):
            affected.add(layer.name)
    if output not in affected:
        return 0.0, 0.0
    layer = network.layer(output)
    if any(t in affected for t in layer.inputs) or not _layer_differs(network, layer, arithmetic):
        return None  # the difference comes through another layer
    coeff = {k: np.asarray(layer.attrs[k], np.float32).astype(np.float64).ravel() for k in ("scale", "shift", "power")}
    coeff = {k: v[~np.isnan(v)] for k, v in coeff.items()}
    if coeff["power"].size and np.any(coeff["power"] != 1):
        return None  # z ** p: no bound relative to |y| with an absolute term (z near 0), DLA has no custom power

    def rounded(v):
        return v.astype(np.float16).astype(np.float64)  # float32 values: one rounding to float16 (TensorRT's)

    s, b = coeff["scale"], coeff["shift"]
    nonzero = s[s != 0]
    eps = float(np.max(np.abs(rounded(nonzero) - nonzero) / np.abs(nonzero))) if nonzero.size else 0.0
    e_b = float(np.max(np.abs(rounded(b) - b))) if b.size else 0.0
    big_b = float(np.max(np.abs(b))) if b.size else 0.0
    step = arithmetic == "tensorrt-dla" and s.size > 0 and b.size > 0  # DLA rounds x * s to FP16 before + b
    rho = eps + 2 * F32_TWO_SIDES + (F16_UNIT if step else 0.0)
    alpha = (eps + F32_TWO_SIDES + (F16_UNIT if step else 0.0)) * big_b + e_b + (F16_HALF_SUBNORMAL if step else 0.0)
    return alpha + 2 * F16_HALF_SUBNORMAL, rho + 2 * F16_UNIT
