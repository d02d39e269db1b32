"""Deployment targets: what runtime a model is lowered for, and what that runtime can run.

A target is a capability table (op, since-version, types, ranks, attribute limits, known run-time
limits) plus lowering preferences, kept as data with its source named. Lowerings read
``ctx.target`` (converter/lowering/builder.py) to legalize; ``check.check_model(model, target)`` lists
every node a target cannot run. The tables are in tables/ (JSON, each naming its source), the
limits and preferences in profiles.py, the DLA rules in dla.py.

Names: ``portable`` (every node runs on all targets below; the default of ``convert``), ``ort-cpu``
(onnxruntime's CPU EP; the default of ``validate --provider cpu``), ``ort-cuda``, ``tensorrt``
(onnx-tensorrt's parser), ``tensorrt-dla``, ``openvino``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError
from ..registry import did_you_mean

TARGET_NAMES = ("portable", "ort-cpu", "ort-cuda", "tensorrt", "tensorrt-dla", "openvino")

# onnxruntime execution provider (full name) -> the target whose model it runs.
_PROVIDER_TARGETS = {
    "CPUExecutionProvider": "ort-cpu",
    "CUDAExecutionProvider": "ort-cuda",
    "TensorrtExecutionProvider": "tensorrt",
    "OpenVINOExecutionProvider": "openvino",
}


@dataclass(frozen=True)
class Target:
    name: str  # one of TARGET_NAMES

    @property
    def is_portable(self) -> bool:
        return self.name == "portable"

    def includes(self, name: str) -> bool:
        """True when a model for this target must also run on target ``name``.

        portable includes ort-cpu, ort-cuda, tensorrt and openvino (not tensorrt-dla: DLA runs FP16/INT8 only).
        """
        from .profiles import PROFILES

        return self.name == name or name in PROFILES[self.name].get("all_of", ())

    @property
    def preferences(self) -> dict:
        """Lowering preferences (converter/targets/profiles.py), e.g. ``scale_batchnorm``."""
        from .profiles import PROFILES

        return PROFILES[self.name]["preferences"]


def get_target(name: str) -> Target:
    """The target called ``name``; a UserError naming the allowed ones otherwise."""
    if name not in TARGET_NAMES:
        raise UserError(f"--target {name}: unknown target{did_you_mean(name, TARGET_NAMES)}; "
                        f"targets: {', '.join(TARGET_NAMES)}")
    return Target(name)


def target_for_provider(provider: str) -> Target:
    """The target an onnxruntime execution provider (full name) implies; ``portable`` for others."""
    return Target(_PROVIDER_TARGETS.get(provider, "portable"))
