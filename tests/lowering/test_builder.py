"""NodeBuilder: one initializer per distinct constant of a layer."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import ml_dtypes
import numpy as np
from onnx import numpy_helper

from converter.lowering import build_model
from converter.lowering.builder import NodeBuilder
from converter.network import Layer
from converter.pipeline.spec import parse_spec
from converter.targets import resolve_target


def test_the_same_bits_twice_are_one_initializer_and_other_bits_are_not():
    b = NodeBuilder(Layer(name="y", op="trt.Scale", inputs=("x",), attrs={}))
    one = b.const("w", np.array([0.25, 0.75], np.float32))
    assert b.const("v", np.array([0.25, 0.75], np.float32)) == one
    others = [b.const("w", np.array([0.25, 0.75], np.float64)),  # another dtype
              b.const("w", np.array([[0.25, 0.75]], np.float32)),  # another shape
              b.const("w", np.array([0.25, -0.75], np.float32)),
              b.const("z", np.array(0.0, np.float32)), b.const("z", np.array(-0.0, np.float32)),  # signed zeros differ
              b.const("h", np.array(1, np.float16)), b.const("h", np.array(1, ml_dtypes.bfloat16))]
    assert len({one, *others}) == 8 == len(b.lowered.initializers)


def test_a_cubic_resize_for_portable_repeats_no_initializer():
    """Cubic is four Gather taps per axis for portable models; with one scale on both axes their weights are equal."""
    spec = parse_spec({"name": "cub", "network": {
        "inputs": {"x": {"dtype": "float32", "shape": [1, 2, 4, 4]}},
        "layers": [{"name": "y", "op": "trt.Resize", "inputs": ["x"], "resize_mode": "CUBIC", "shape": [1, 2, 8, 8]}],
        "outputs": ["y"]}, "cases": []}, Path("cub.yaml"), require_cases=False)
    model = build_model(spec.network, name="cub", opset=17, target=resolve_target("portable"))
    contents = Counter((t.data_type, tuple(t.dims), numpy_helper.to_array(t).tobytes()) for t in model.graph.initializer)
    assert contents and max(contents.values()) == 1
    assert len(model.graph.initializer) == 10  # 6 fewer than when each axis made its own
