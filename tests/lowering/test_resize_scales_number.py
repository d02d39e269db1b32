"""trt.Resize `scales` given as one number: [1, 1, s, ...] (docs/semantics.md, "trt.Resize")."""

from __future__ import annotations

import numpy as np
import pytest

from converter.errors import SpecError
from converter.reference import run_network
from converter.runners.onnxruntime import OrtRunner
from converter.lowering import build_model
from converter.pipeline.spec import parse_spec
from pathlib import Path


def _spec(shape, scales, mode="NEAREST"):
    return parse_spec({
        "name": "s", "network": {"inputs": {"x": {"dtype": "float32", "shape": shape}},
                                 "layers": [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "scales": scales, "resize_mode": mode}],
                                 "outputs": ["y"]},
        "cases": [{"name": "c", "inputs": {"x": {"random": "uniform", "low": -1, "high": 1, "seed": 1}}}]}, Path("s.yaml"))


@pytest.mark.parametrize("shape, number, want", [
    ([1, 3, 4, 6], 2, (1, 3, 8, 12)),
    ([2, 3, 5], 0.5, (2, 3, 2)),  # floor(5 * 0.5) = 2
    ([1, 2, 2, 3, 4], 1.5, (1, 2, 3, 4, 6)),
])
def test_one_number_scales_the_dimensions_after_batch_and_channel(shape, number, want):
    spec = _spec(shape, number, mode="LINEAR")
    assert spec.network.types["y"].shape == want
    x = spec.cases[0].inputs["x"]
    ref = run_network(spec.network, {"x": x})["y"]
    listed = run_network(_spec(shape, [1, 1] + [number] * (len(shape) - 2), mode="LINEAR").network, {"x": x})["y"]
    np.testing.assert_array_equal(ref, listed)
    got = OrtRunner(build_model(spec.network, name="s", opset=17, provider="CPUExecutionProvider").SerializeToString(),
                    "CPUExecutionProvider").run({"x": x})["y"]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_a_list_of_one_value_is_still_one_value_per_dimension():
    assert _spec([4], [2]).network.types["y"].shape == (8,)


@pytest.mark.parametrize("shape", [[4], [3, 4]])
def test_one_number_on_a_rank_below_3_names_the_field(shape):
    with pytest.raises(SpecError, match=rf"scales: one number scales dimensions 2\.\. .*rank-{len(shape)} input needs a list of {len(shape)}"):
        _spec(shape, 2)


def test_one_number_still_obeys_the_resizable_window():
    with pytest.raises(SpecError, match=r"would resize dimension 2 \(3 -> 6\); CUBIC resizes only"):
        _spec([1, 1, 3, 4, 4], 2, mode="CUBIC")


def test_layers_says_a_number_is_accepted():
    from converter.api import describe_layers

    text = describe_layers()
    resize = text[text.index("trt.Resize:"):]
    assert "scales (default none): list of numbers, one per dimension, or one number s for [1, 1, s, s, ...]" in resize
