"""The build side of the pipeline: what lowers a spec to ONNX and checks the model (the lowering's model builder,
the static check, legalization). converter/pipeline/stages.py imports this module on first use (``_build_side``):
by a lowered model not in the cache, convert and check. A validation whose lowered models are all cached imports
no onnx (issue 34: onnx's import alone was 35 ms of CPU, an eighth of a one-spec validate: docs/performance.md,
Start-up)."""

from __future__ import annotations

from ..lowering.model import build_model
from ..targets.check import check_model, errors
from .legalize import host_model

__all__ = ["build_model", "check_model", "errors", "host_model"]
