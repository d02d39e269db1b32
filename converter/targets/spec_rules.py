"""Spec-level refusals, before lowering: what a target cannot take whatever the lowering does.

- tensorrt (and tensorrt-dla, portable, which include it): a network input or output of a type TensorRT
  does not have ("TensorRT supports the following ONNX data types: DOUBLE, FLOAT32, FLOAT16, BFLOAT16,
  FP8, FP4, INT32, INT64, INT8, INT4, UINT8, and BOOL", onnx/onnx-tensorrt docs/operators.md).
- tensorrt (and the same): a tensor of more than 8 dimensions (``Dims::MAX_DIMS``, NvInfer.h: "The maximum
  rank (number of dimensions) supported for a tensor" is 8). Specs allow up to 64 (onnxruntime runs them).
- tensorrt-dla: the DLA rules (converter/targets/dla.py).
Both raise DlaRuleError's parent, TargetRuleError (a SpecError: exit status 2, naming the field and the rule).
"""

from __future__ import annotations

from ..errors import TargetRuleError
from ..registry import layer_kind
from .dla import refuse_layers

__all__ = ["TENSORRT_MAX_RANK", "TENSORRT_TYPES", "TargetRuleError", "refuse_spec"]

TENSORRT_TYPES = ("float32", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "bool")
TENSORRT_MAX_RANK = 8  # nvinfer1::Dims::MAX_DIMS


def refuse_spec(spec, target) -> None:
    """TargetRuleError, naming the field and the rule, for a spec ``target`` cannot take whatever the lowering does."""
    if any(t.importer for t in target.checked):  # onnx-tensorrt imports its model (portable: one of its members does)
        net = spec.network
        for kind, names in (("input", list(net.inputs)), ("output", list(net.outputs))):
            for name in names:
                dtype = net.types[name].dtype.name
                if dtype not in TENSORRT_TYPES:
                    raise TargetRuleError(f"{kind} {name!r} is {dtype}: {target.name} needs TensorRT types "
                                          f"({', '.join(TENSORRT_TYPES)}; onnx-tensorrt docs/operators.md)",
                                          file=str(spec.path), field=f"network.{kind}s")
        producers = {layer.name: layer.field or f"network.layers[{layer.name}]" for layer in net.layers}
        for name, ttype in net.types.items():
            if len(ttype.shape) > TENSORRT_MAX_RANK:
                where = producers.get(name) or (f"network.inputs.{name}" if name in net.inputs else f"network.constants.{name}")
                raise TargetRuleError(f"tensor {name!r} has {len(ttype.shape)} dimensions: {target.name} needs at most "
                                      f"{TENSORRT_MAX_RANK} (TensorRT's Dims::MAX_DIMS, NvInfer.h)",
                                      file=str(spec.path), field=where)
    if target.name == "ort-dml":  # tables/ort-dml.json: no DirectML compute kernel takes bfloat16, not even Cast (only
        # If and the Sequence/Optional ops list it), so no layer of a bfloat16 tensor runs there
        for name, ttype in spec.network.types.items():
            if ttype.dtype.name == "bfloat16":
                raise TargetRuleError(f"tensor {name!r} is bfloat16: onnxruntime's DirectML EP has no bfloat16 compute kernel "
                                      "(docs/OperatorKernels.md, DmlExecutionProvider)", file=str(spec.path),
                                      field=f"network.inputs.{name}" if name in spec.network.inputs else "network")
    if target.dla:
        refuse_layers(spec, getattr(target, "precision", ()))
    else:  # a kind's own rules for this target (its registration's target_rules; DLA's run in refuse_layers)
        for layer in spec.network.layers:
            rule = layer_kind(layer.op).target_rules.get(target.name)
            if rule is not None:
                rule(spec, layer, layer.field or f"network.layers[{layer.name}]")

