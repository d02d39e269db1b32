"""Lowering for a target, at an opset where the target has a kernel for every node.

onnxruntime matches an open kernel row ``N+`` only to nodes whose since-version is exactly N, so a
newer opset can move a node past its CUDA kernel (Equal, Pad, Size at opset 19; DequantizeLinear at
23; Cast, Reshape, Shape, Squeeze, Unsqueeze, Transpose at 24: ort-cuda-notes.md section 0). When the
opset was not given on the command line, the model is lowered at the highest opset from the wanted
one down to 13 at which no node has that problem, and the model says so in its metadata.
"""

from __future__ import annotations

from onnx import helper

from ..lowering import build_model
from ..lowering.model import MIN_OPSET

# The problems (check.py's reasons) that another opset may cure: a node past its kernel's since-version, an opset
# outside TensorRT's range or newer than onnxruntime loads (profiles.py, ORT_MAX_OPSET).
VERSION_MARKERS = ("no kernel for since-version", "is outside TensorRT's", "is newer than onnxruntime")


def version_problems(problems) -> list:
    return [p for p in problems if p.severity == "error" and any(m in p.reason for m in VERSION_MARKERS)]


def model_for_target(spec, target, opset: int, *, fixed: bool = False, provider: str | None = None):
    """(model, opset used, note, problems of check_model). ``fixed``: the opset was asked for; never change it.

    A spec the target cannot take at all (spec_rules.py: TensorRT types, the DLA rules) is refused first
    (TargetRuleError, a SpecError naming the field and the rule).
    """
    from . import provider_for_target, spec_rules
    from .check import check_model

    spec_rules.check_spec(spec, target)
    provider = provider or provider_for_target(target)
    model = _lower(spec, target, opset, provider)
    problems = check_model(model, target)
    first = version_problems(problems)
    if not fixed and first:
        for lower in range(opset - 1, MIN_OPSET - 1, -1):
            try:
                candidate = _lower(spec, target, lower, provider)
            except Exception:  # noqa: BLE001 - a spec this opset cannot express: try the next one
                continue
            found = check_model(candidate, target)
            if not version_problems(found):
                p = first[0]
                note = f"opset {lower} instead of {opset}: at opset {opset}, {p.node} ({p.op}): {p.reason}"
                return _stamp(candidate, target, note), lower, note, found
    return _stamp(model, target, ""), opset, "", problems


def _lower(spec, target, opset: int, provider: str):
    """The spec's model lowered for ``target`` at ``opset`` (no metadata stamp, no check)."""
    return build_model(spec.network, name=spec.name, opset=opset, provider=provider, doc=spec.source, target=target)


def wanted_opset(spec, opset: int | None) -> int:
    """The opset to convert (or check) at: ``opset`` when given (checked), else the spec's, else DEFAULT_OPSET."""
    from ..lowering.model import DEFAULT_OPSET
    from ..runtime import check_convert_opset

    return check_convert_opset(opset) if opset is not None else (spec.opset or DEFAULT_OPSET)


def refuse_unrunnable(spec, target, problems, hint: str = "", opset: int | None = None) -> None:
    """A UserError when ``problems`` (of check_model) hold errors: the target cannot run the model.

    With the ``opset`` the model was lowered at, the message names a higher opset where every node
    runs, if there is one (model_for_target only ever goes down from the spec's opset: a newer one
    is the user's choice, e.g. float16 DequantizeLinear needs opset 19)."""
    from ..errors import UserError
    from .check import errors

    failing = errors(problems)
    if failing:
        more = f"; and {len(failing) - 1} more" if len(failing) > 1 else ""
        higher = runnable_opset_above(spec, target, opset) if opset is not None else None
        also = f"; at --opset {higher} every node runs there" if higher else ""
        raise UserError(f"{spec.path}: {len(failing)} nodes of the model lowered for {target.name} cannot run there: "
                        f"{failing[0]}{more}{also}{hint}")


def runnable_opset_above(spec, target, opset: int) -> int | None:
    """The lowest opset above ``opset`` (up to the newest onnx writes) at which ``target`` runs every node."""
    from onnx.defs import onnx_opset_version

    from . import provider_for_target
    from .check import check_model, errors

    provider = provider_for_target(target)
    for higher in range(opset + 1, onnx_opset_version() + 1):
        try:
            model = _lower(spec, target, higher, provider)
        except Exception:  # noqa: BLE001 - a spec this opset cannot express: try the next one
            continue
        if not errors(check_model(model, target)):
            return higher
    return None


def _stamp(model, target, note: str):
    props = {p.key: p.value for p in model.metadata_props}
    props["spec2onnx.target"] = target.name
    if note:
        props["spec2onnx.opset_choice"] = note
    helper.set_model_props(model, props)
    return model
