"""Dynamic dimensions in ONNX models, for ``check``: the optimization profiles a model carries, its tensors at a
profile's max, and DLA's rule on dynamic dimensions.

A model ``convert`` writes from a dynamic spec carries the spec's profiles in its metadata (``PROFILES_KEY``, JSON
``{"profiles": [{input: {"min": [...], "opt": [...], "max": [...]}}], "shape_inputs": [...]}``), read strictly by
converter/untrusted/profiles.py as run reads it (a malformed one is bad input, exit status 2). TensorRT's
2^31-element limit is judged at each profile's max, as TensorRT's builder judges it (its max shapes bound every
tensor). A model without profiles says nothing of how large its dynamic dimensions get: check does not judge a
tensor of unknown size (it is judged when the engine is built, at the profile given then: ``trtexec --maxShapes``);
docs/check.md, "Dynamic dimensions".
"""

from __future__ import annotations

import json
import math

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..untrusted.infer import infer
from ..untrusted.profiles import CORNERS, model_profiles
from .dla import DYNAMIC_RULE, GENERAL_RESTRICTIONS
from .dla_guide import MAX_DIM as DLA_MAX_DIM


def profiles_metadata(profiles, shape_inputs) -> str:
    """The metadata value for a network's profiles (converter/network.py Network.profiles)."""
    doc = [{name: dict(zip(CORNERS, (list(c) for c in corners))) for name, corners in p.items()}
           for p in profiles]
    return json.dumps({"profiles": doc, "shape_inputs": list(shape_inputs)}, separators=(",", ":"))


def dynamic_inputs(model: onnx.ModelProto) -> dict[str, list]:
    """Graph inputs (not initializers) with a dimension that is not a fixed value: name -> its dimensions."""
    initializers = {i.name for i in model.graph.initializer}
    found = {}
    for value in model.graph.input:
        if value.name in initializers or not value.type.HasField("tensor_type"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
                for d in value.type.tensor_type.shape.dim]
        if any(not isinstance(d, int) for d in dims):
            found[value.name] = dims
    return found


def shapes_at(model: onnx.ModelProto, profile: dict, shape_inputs, key: str = "max") -> dict[str, tuple]:
    """Every tensor's shape with the graph inputs at the profile's ``key`` corner (onnx's shape inference with data
    propagation, a shape input's values given as a constant); a tensor whose shape stays unknown is left out."""
    at = onnx.ModelProto()
    at.CopyFrom(model)
    graph = at.graph
    keep = []
    for value in graph.input:
        entry = profile.get(value.name)  # (min, opt, max): read and checked against the model (untrusted.profiles)
        if entry is None:
            keep.append(value)
            continue
        corner = entry[CORNERS.index(key)]
        if value.name in shape_inputs:  # its values are a shape: a constant here, so sizes computed from it propagate
            dtype = helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
            graph.initializer.append(numpy_helper.from_array(np.array(corner, dtype), value.name))
            continue
        dims = value.type.tensor_type.shape.dim
        if len(dims) == len(corner):
            for dim, size in zip(dims, corner):
                dim.Clear()
                dim.dim_value = size
        keep.append(value)
    del graph.input[:]
    graph.input.extend(keep)
    del graph.value_info[:]
    for out in graph.output:  # the declared output shapes are the symbolic ones: let inference give them
        out.type.tensor_type.ClearField("shape")
    try:
        inferred = infer(at, data_prop=True, limit=True)  # a user's whole model: under the time limit
    except Exception:  # noqa: BLE001 - what cannot be inferred is not judged
        return {}
    shapes = {}
    for value in list(inferred.graph.value_info) + list(inferred.graph.output) + list(inferred.graph.input):
        t = value.type.tensor_type
        if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[value.name] = tuple(d.dim_value for d in t.shape.dim)
    return shapes


def over_limit_at_max(model: onnx.ModelProto, max_elements: int) -> list[tuple[str, tuple, int]]:
    """(tensor, shape, profile index) of each tensor over ``max_elements`` at some profile's max."""
    profiles, shape_inputs = model_profiles(model)
    if not profiles or not dynamic_inputs(model):
        return []
    found, seen = [], set()
    for i, profile in enumerate(profiles):
        for tensor, shape in shapes_at(model, profile, shape_inputs).items():
            if tensor not in seen and math.prod(shape) > max_elements:
                seen.add(tensor)
                found.append((tensor, shape, i))
    return found


def dla_problems(model: onnx.ModelProto) -> list[tuple[str, str]]:
    """(reason, severity) of DLA's rule on dynamic dimensions: with profiles, an error where a profile's min, opt
    and max differ; without, a warning per dynamic input (the rule then binds the profile it is built with)."""
    dynamic = dynamic_inputs(model)
    if not dynamic:
        return []
    profiles, shape_inputs = model_profiles(model)
    if not profiles:
        return [(f"input {name!r} {[d if d is not None else '?' for d in dims]} has a dynamic dimension: {DYNAMIC_RULE}", "warning")
                for name, dims in dynamic.items()]
    found = []
    for i, profile in enumerate(profiles):
        over = [(t, shape) for t, shape in shapes_at(model, profile, shape_inputs).items()
                if any(d > DLA_MAX_DIM for d in shape[1:])]
        if over:  # (dla_guide.py's rule, judged where the sizes are known: at the profile's max)
            tensor, shape = over[0]
            more = f" and {len(over) - 1} more" if len(over) > 1 else ""
            found.append((f"profile {i}: tensor {tensor!r} is {list(shape)} at the profile's max{more}: GPU fallback: "
                          f"a non-batch dimension over {DLA_MAX_DIM} ({GENERAL_RESTRICTIONS})", "warning"))
        for name, entry in profile.items():
            corners = [list(c) for c in entry]
            if any(c != corners[0] for c in corners):
                what = "values" if name in shape_inputs else "shape"
                found.append((f"profile {i}: input {name!r} {what} min {corners[0]}, opt {corners[1]}, max {corners[2]}: "
                              f"{DYNAMIC_RULE}", "error"))
    return found
