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

from ..errors import InternalError, RuntimeUnavailableError, UserError
from ..installed.providers import OPT_LEVELS, RUNTIMES, short_provider
from . import onnx_reference, openvino
from .onnxruntime import OrtRunner, resolve_provider

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


def make_configs(runtimes=("onnxruntime",), provider: str = "cpu", opt_levels=("all",)) -> tuple[RunConfig, ...]:
    """The runtime configurations asked for, every name checked (an unknown or missing provider, runtime or level:
    a UserError): onnxruntime once per optimization level, with the provider; each other runtime once. The
    provider is checked whenever it is named or onnxruntime runs (without onnxruntime installed, the other
    runtimes run at the default provider)."""
    wanted = runtimes or ("onnxruntime",)
    default = provider in ("cpu", "CPUExecutionProvider")
    full_provider = resolve_provider(provider) if "onnxruntime" in wanted or not default else "CPUExecutionProvider"
    configs = []
    for runtime in dict.fromkeys(wanted):
        check_runtime(runtime)
        if runtime == "onnxruntime":
            for level in opt_levels or ():
                if level not in OPT_LEVELS:  # the CLI's click.Choice checks it; the pytest plugin's option does not
                    raise UserError(f"--opt-level {level}: not one of {', '.join(OPT_LEVELS)}")
            configs += [RunConfig(runtime, full_provider, level) for level in dict.fromkeys(opt_levels or ("all",))]
        else:
            configs.append(RunConfig(runtime, "CPUExecutionProvider", "all"))
    return tuple(configs)


def session(config: RunConfig, model_bytes: bytes, threads: int = 1, optimized: bytes | None = None) -> Callable[[Feeds], Feeds]:
    """A callable that runs the model under ``config`` (onnxruntime: with ``threads`` intra-op threads; ``optimized``:
    the graph onnxruntime's CPU provider made of ``model_bytes`` at the config's level, which it then runs as is:
    onnxruntime.optimized_offline)."""
    if config.runtime == "onnxruntime" and optimized is not None:
        return OrtRunner(optimized, config.provider, config.opt_level, threads=threads, optimized=True).run
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
