"""onnxruntime execution provider names: the short aliases, and which target each provider's model is for.

Part of the core layer: imports nothing of the package (pyproject.toml, [tool.importlinter]). Only names
live here; which providers this machine has is the runner's business (runners/onnxruntime.py).
"""

from __future__ import annotations

RUNTIMES = ("onnxruntime", "onnx-reference", "openvino")  # what a model can be validated on (converter/runners)
OPT_LEVELS = {  # onnxruntime's graph optimization levels: our names -> names in onnxruntime.GraphOptimizationLevel
    "disabled": "ORT_DISABLE_ALL",
    "basic": "ORT_ENABLE_BASIC",
    "extended": "ORT_ENABLE_EXTENDED",
    "all": "ORT_ENABLE_ALL",
}

PROVIDER_ALIASES = {
    "cpu": "CPUExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "tensorrt": "TensorrtExecutionProvider",
    "dml": "DmlExecutionProvider",
    "directml": "DmlExecutionProvider",
    "openvino": "OpenVINOExecutionProvider",
    "rocm": "ROCMExecutionProvider",
    "migraphx": "MIGraphXExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "qnn": "QNNExecutionProvider",
    "xnnpack": "XnnpackExecutionProvider",
    "webgpu": "WebGpuExecutionProvider",
}

# Listed by get_available_providers() but running no ONNX operator themselves (a session on one alone needs the
# CPU fallback, which OrtRunner forbids): refused by name, before any work (runners/onnxruntime.py), never probed.
NOT_COMPUTE_PROVIDERS = {
    "AzureExecutionProvider": "sends requests to Azure endpoints and runs no ONNX operator locally",
}

# onnxruntime execution provider (full name) -> the target whose model it runs.
PROVIDER_TARGETS = {
    "CPUExecutionProvider": "ort-cpu",
    "CUDAExecutionProvider": "ort-cuda",
    "DmlExecutionProvider": "ort-dml",
    "TensorrtExecutionProvider": "tensorrt",
    "OpenVINOExecutionProvider": "openvino",
}

# The onnxruntime provider whose lowering choices a target's model starts from (lowerings that have
# not learnt ctx.target yet still read ctx.provider).
# The inverse of PROVIDER_TARGETS, plus tensorrt-dla (TensorRT builds it); portable starts from the CPU EP's.
TARGET_PROVIDERS = {target: provider for provider, target in PROVIDER_TARGETS.items()} | {
    "tensorrt-dla": "TensorrtExecutionProvider"}


def full_provider(name: str) -> str:
    """The full provider name of an alias (any case); other names as given."""
    return PROVIDER_ALIASES.get(name.lower(), name)


def short_provider(provider: str) -> str:
    for alias, full in PROVIDER_ALIASES.items():
        if full == provider:
            return alias
    return provider
