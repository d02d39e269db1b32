"""The runners: the runtimes a model can be validated on, behind one small interface, one module each
(like Polygraphy's backends): onnxruntime.py (OrtRunner, providers, opsets it loads), onnx_reference.py,
openvino.py, and placement.py (which execution provider ran each node). Comparing is apart (compare.py).

A runtime turns a model into a callable ``feeds -> outputs`` (numpy in, numpy
out, bfloat16 included). ``onnxruntime`` is the default and the only one with
execution providers and optimization levels; ``onnx-reference`` is onnx's
``ReferenceEvaluator`` (pure Python, slow, a second opinion); ``openvino`` reads
the ONNX model with OpenVINO and runs it on its CPU plugin (optional extra:
``pip install "spec2onnx[openvino]"``).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import InternalError, RuntimeUnavailableError
from ..providers import RUNTIMES, short_provider
from . import onnx_reference, openvino
from .onnxruntime import OrtRunner

Feeds = dict[str, np.ndarray]


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
        return OrtRunner(model_bytes, config.provider, config.opt_level, threads=threads).run
    if config.runtime == "onnx-reference":
        return onnx_reference.runner(model_bytes)
    if config.runtime == "openvino":
        return openvino.runner(model_bytes)
    raise RuntimeUnavailableError(f"unknown runtime {config.runtime!r}")


def machine_has(fact: str) -> bool:
    """Whether a fact of this machine named in xfail.MACHINE_FACTS holds (a known failure's ``machine``)."""
    if fact == "openvino-bfloat16-rounding":
        return importlib.util.find_spec("openvino") is not None and not openvino.rounds_bfloat16_to_nearest_even()
    raise InternalError(f"no probe for the machine fact {fact!r}")  # xfail.parse_rules admits only MACHINE_FACTS
