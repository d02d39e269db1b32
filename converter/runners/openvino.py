"""OpenVINO as a runner: it reads the ONNX model and runs it on its CPU plugin (optional extra:
``pip install "spec2onnx[openvino]"``; imported on first use)."""

from __future__ import annotations

import functools
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
    graph_outputs = _graph_outputs(model_bytes)
    outputs = [(port, _graph_name(port, graph_outputs)) for port in compiled.outputs]
    # An input the frontend dropped (an empty ReduceSum axes, an input nothing reads) has no port: it is not fed.
    ported = set().union(*(port.get_names() for port in compiled.inputs))

    def run(feeds: Feeds) -> Feeds:
        inputs = {}
        for name, array in ((n, a) for n, a in feeds.items() if n in ported):
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


def _graph_outputs(model_bytes: bytes) -> set[str]:
    """The names of the model's graph outputs (onnx's parse of the bytes OpenVINO read)."""
    from onnx import ModelProto

    return {o.name for o in ModelProto.FromString(model_bytes).graph.output}


def _graph_name(port, graph_outputs: set[str]) -> str:
    """The graph output a compiled output port is: a port holds every name of its tensor, and ``get_any_name`` may
    give an inner one of an inlined function's body (RotaryEmbedding's expanded graph: ``..._YTransposed`` for
    ``output``), which no caller asks for."""
    return next((n for n in sorted(port.get_names()) if n in graph_outputs), port.get_any_name())


# float32 values whose bfloat16 rounding tells round-to-nearest-even from what OpenVINO's CPU plugin does without
# avx512_core: ov::intel_cpu::bfloat16_t(float) is (bits + ((bits & 0x10000) >> 1)) >> 16 (it rounds up only when the
# kept last bit is odd: truncation when it is even), openvinotoolkit/openvino src/plugins/intel_cpu/src/utils/
# bfloat16.hpp, used by cpu_convert.cpp's ConvertPrecision<float, bfloat16_t>; with avx512_core its jit converter
# rounds to nearest even (jit_uni_vcvtneps2bf16). 3 + 0.75 * 2^-6: nearest even 3.015625, that rule 3.0.
BF16_PROBE = np.array([3.01171875, -3.01171875, 1.01171875, 1.0 + 2**-8 + 2**-20], np.float32)


@functools.lru_cache(maxsize=None)
def rounds_bfloat16_to_nearest_even() -> bool:
    """Whether OpenVINO's CPU plugin, on this machine, rounds float32 results to bfloat16 to nearest even (a Cast
    f32 -> bf16 of BF16_PROBE, compiled as runner() compiles models). Asked once per process."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.BFLOAT16)], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(BF16_PROBE)])],
                              [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [len(BF16_PROBE)])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    got = runner(model.SerializeToString())({"x": BF16_PROBE})["y"]
    return bool(np.array_equal(got.view(np.uint16), BF16_PROBE.astype(BFLOAT16.numpy).view(np.uint16)))
