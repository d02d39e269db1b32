"""The runtimes a model can be validated on, behind one small interface.

A runtime turns a model into a callable ``feeds -> outputs`` (numpy in, numpy
out, bfloat16 included). ``onnxruntime`` is the default and the only one with
execution providers and optimization levels; ``onnx-reference`` is onnx's
``ReferenceEvaluator`` (pure Python, slow, a second opinion); ``openvino`` reads
the ONNX model with OpenVINO and runs it on its CPU plugin (optional extra:
``pip install "spec2onnx[openvino]"``).
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .dtypes import BFLOAT16
from .errors import RuntimeUnavailableError

Feeds = dict[str, np.ndarray]
RUNTIMES = ("onnxruntime", "onnx-reference", "openvino")


@dataclass(frozen=True)
class RunConfig:
    """One way to run a model: a runtime, and for onnxruntime a provider and an optimization level."""

    runtime: str = "onnxruntime"
    provider: str = "CPUExecutionProvider"
    opt_level: str = "all"

    @property
    def label(self) -> str:
        if self.runtime != "onnxruntime":
            return self.runtime
        from .runtime import short_provider

        level = "" if self.opt_level == "all" else f",opt={self.opt_level}"
        return f"ort[{short_provider(self.provider)}{level}]"


def check_runtime(name: str) -> str:
    if name not in RUNTIMES:
        raise RuntimeUnavailableError(f"--runtime {name}: not one of {', '.join(RUNTIMES)}")
    if name == "openvino" and importlib.util.find_spec("openvino") is None:
        raise RuntimeUnavailableError('--runtime openvino: OpenVINO is not installed (pip install "spec2onnx[openvino]")')
    return name


def session(config: RunConfig, model_bytes: bytes, threads: int = 1) -> Callable[[Feeds], Feeds]:
    """A callable that runs the model under ``config`` (onnxruntime: with ``threads`` intra-op threads)."""
    if config.runtime == "onnxruntime":
        from .runtime import OrtRunner

        return OrtRunner(model_bytes, config.provider, config.opt_level, threads=threads).run
    if config.runtime == "onnx-reference":
        return _onnx_reference(model_bytes)
    if config.runtime == "openvino":
        return _openvino(model_bytes)
    raise RuntimeUnavailableError(f"unknown runtime {config.runtime!r}")


def _onnx_reference(model_bytes: bytes):
    import onnx
    from onnx.reference import ReferenceEvaluator

    model = onnx.load_from_string(model_bytes)
    evaluator = ReferenceEvaluator(model)
    names = [o.name for o in model.graph.output]

    def run(feeds: Feeds) -> Feeds:
        with np.errstate(all="ignore"):  # x/0 and the like are the point of some cases, not news
            return dict(zip(names, evaluator.run(None, feeds)))

    return run


def _openvino(model_bytes: bytes):
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
