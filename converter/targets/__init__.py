"""Deployment targets: what runtime a model is lowered for, and what that runtime can run.

A target is a capability table (op, since-version, types, ranks, attribute limits, known run-time
limits) plus lowering preferences, kept as data with its source named. Lowerings read
``ctx.target`` (converter/lowering/builder.py) to legalize; ``check.check_model(model, target)`` lists
every node a target cannot run. The tables are in tables/ (JSON, each naming its source), the
limits and preferences in profiles.py (the registry: one entry per target, ``register_target`` adds one), the DLA
rules in dla.py. A name is resolved once, where it enters, into a ``Target`` (target.py) that carries its profile.

Names: ``portable`` (every node runs on all targets below; the default of ``convert``), ``ort-cpu``
(onnxruntime's CPU EP; the default of ``validate --provider cpu``), ``ort-cuda``, ``ort-dml`` (onnxruntime's
DirectML EP, what a DirectML user deploys with), ``tensorrt``
(onnx-tensorrt's parser), ``tensorrt-dla``, ``openvino``.
"""

from __future__ import annotations

from .profiles import register_target, target_names, target_summaries, unregister_target
from .target import (PRECISIONS, Target, check_precision, choose_target, precision_targets, provider_for_target,
                     resolve_target, target_for_provider)

TARGET_NAMES = target_names()  # the built-in ones (a target register_target adds shows in target_names())

__all__ = ["PRECISIONS", "TARGET_NAMES", "Target", "check_precision", "choose_target", "precision_targets",
           "provider_for_target", "register_target", "resolve_target", "target_for_provider", "target_names",
           "target_summaries", "unregister_target"]
