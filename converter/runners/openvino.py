"""OpenVINO as a runner: it reads the ONNX model and runs it on its CPU plugin (optional extra:
``pip install "spec2onnx[openvino]"``; imported on first use)."""

from __future__ import annotations

import os
import tempfile

import numpy as np

from ..dtypes import BFLOAT16

Feeds = dict[str, np.ndarray]


def runner(model_bytes: bytes):
    import openvino as ov

    core = ov.Core()
    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(model_bytes)
        model = core.read_model(path)
    finally:
        os.unlink(path)
    # f32 precision: the CPU plugin would otherwise pick bf16 or f16 on CPUs that have them.
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    outputs = [(port, port.get_any_name()) for port in compiled.outputs]

    def run(feeds: Feeds) -> Feeds:
        inputs = {}
        for name, array in feeds.items():
            if array.dtype == BFLOAT16.numpy:
                inputs[name] = ov.Tensor(ov.Type.bf16, array.shape)
                inputs[name].data.view(np.uint16)[...] = array.view(np.uint16)
            else:
                inputs[name] = array
        result = compiled(inputs)
        out = {}
        for port, name in outputs:
            value = result[port]
            if port.get_element_type() == ov.Type.bf16:
                value = np.asarray(value).view(np.uint16).view(BFLOAT16.numpy)
            out[name] = np.asarray(value)
        return out

    return run
