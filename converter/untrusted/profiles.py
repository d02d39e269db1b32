"""The optimization profiles an ONNX model carries in its metadata (``PROFILES_KEY``: what ``convert`` writes for a
dynamic spec), read strictly: the file is untrusted, so anything but well-formed profiles of the model's own inputs is
a UserError naming the metadata key. ``run`` takes its shapes from them, ``check`` judges sizes and DLA's rule at
them: one reader, one answer for both.
"""

from __future__ import annotations

import json

from onnx import TensorProto

from ..errors import UserError
from .declared import Tensor, choices, fed_tensors

PROFILES_KEY = "spec2onnx.profiles"
CORNERS = ("min", "opt", "max")
_INT64_MAX = 2**63 - 1
_SHAPE_TYPES = {TensorProto.INT32: (-2**31, 2**31 - 1), TensorProto.INT64: (-2**63, _INT64_MAX)}


def model_profiles(model, inputs: list[Tensor] | None = None) -> tuple[list[dict], frozenset]:
    """(profiles, shape inputs) of ``model``'s ``PROFILES_KEY`` metadata (read_profiles), checked against ``inputs``
    (default: its fed tensors, declared.fed_tensors); ([], frozenset()) where it has none. A key given twice is
    refused (which would the runtime take?)."""
    texts = [p.value for p in model.metadata_props if p.key == PROFILES_KEY]
    if len(texts) > 1:
        raise UserError(f"metadata {PROFILES_KEY}: given {len(texts)} times")
    if not texts:
        return [], frozenset()
    return read_profiles(texts[0], fed_tensors(model) if inputs is None else inputs)


def read_profiles(text: str, inputs: list[Tensor], key: str = PROFILES_KEY) -> tuple[list[dict], frozenset]:
    """The profiles of a model's metadata value ``text`` (JSON ``{"profiles": [{INPUT: {"min": [...], "opt": [...],
    "max": [...]}}, ...], "shape_inputs": [...]}``), checked against the model's ``inputs`` as the spec's profiles
    are (converter/pipeline/shapes.py): it comes from an untrusted file, so anything else is a UserError naming ``key``."""
    def bad(detail: str) -> UserError:
        return UserError(detail, field=f"metadata {key}")

    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise bad("not JSON") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("profiles"), list) or not doc["profiles"]:
        raise bad('expected {"profiles": [{INPUT: {"min": [...], "opt": [...], "max": [...]}}, ...], '
                  '"shape_inputs": [INPUT, ...]} with at least one profile')
    by_name = {t.name: t for t in inputs}
    shape_inputs = doc.get("shape_inputs", [])
    if not isinstance(shape_inputs, list) or not all(isinstance(s, str) for s in shape_inputs):
        raise bad("'shape_inputs' is not a list of input names")
    for name in shape_inputs:
        tensor = by_name.get(name)
        if tensor is None:
            raise bad(f"shape input {name!r}: the model has no input {name!r}{choices(name, by_name)}")
        if tensor.elem_type not in _SHAPE_TYPES or (tensor.dims is not None and len(tensor.dims) != 1):
            raise bad(f"shape input {name!r} is {tensor.describe()}; a shape input is a 1-D int32 or int64 tensor")
    shape_inputs = frozenset(shape_inputs)
    profiles = []
    for i, raw in enumerate(doc["profiles"]):
        if not isinstance(raw, dict):
            raise bad(f"profile {i} is not an object {{INPUT: {{min, opt, max}}}}")
        ranges = {}
        for name, entry in raw.items():
            if name not in by_name:
                raise bad(f"profile {i}: the model has no input {name!r}{choices(name, by_name)}")
            ranges[name] = _profile_entry(by_name[name], name in shape_inputs, entry, f"profile {i}, input {name!r}",
                                          bad)
        _same_symbols(by_name, ranges, shape_inputs, i, bad)
        profiles.append(ranges)
    for i, ranges in enumerate(profiles):
        _every_dimension_bound(by_name, ranges, shape_inputs, i, bad)
    return profiles, shape_inputs


def _every_dimension_bound(by_name: dict, ranges: dict, shape_inputs, index: int, bad) -> None:
    """A profile gives each shape input and each input with a dimension it cannot bind otherwise (unknown rank, an
    unnamed dimension, a symbol no input it gives carries), as a spec's profiles do (pipeline/shapes.py): a run at
    the profile would bind such a dimension to 1, the silent run that reading profiles strictly exists to prevent."""
    bound = {d for name in ranges if name not in shape_inputs and by_name[name].dims
             for d in by_name[name].dims if isinstance(d, str)}
    for name, tensor in by_name.items():
        if name in ranges:
            continue
        if name in shape_inputs:
            raise bad(f"profile {index}: no min/opt/max for input {name!r}, which is a shape input: every profile "
                      "gives every shape input")
        if tensor.dims is None or any(d is None or (isinstance(d, str) and d not in bound) for d in tensor.dims):
            raise bad(f"profile {index}: no min/opt/max for input {name!r} ({tensor.describe()}), whose dynamic "
                      "dimensions no input of the profile binds: every profile gives every dynamic input")


def _profile_entry(tensor: Tensor, values: bool, entry, where: str, bad) -> tuple:
    if not isinstance(entry, dict) or sorted(entry) != sorted(CORNERS):
        raise bad(f"{where}: expected {{\"min\": [...], \"opt\": [...], \"max\": [...]}}")
    low, high = _SHAPE_TYPES[tensor.elem_type] if values else (0, _INT64_MAX)
    corners = []
    for corner in CORNERS:
        given = entry[corner]
        if not isinstance(given, list) or not all(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high
                                                  for v in given):
            raise bad(f"{where}: {corner!r} is not a list of integers in [{low}, {high}]")
        corners.append(tuple(given))
    if len({len(c) for c in corners}) > 1:
        raise bad(f"{where}: min, opt and max have {', '.join(str(len(c)) for c in corners)} values")
    count = len(corners[0])
    if values:
        if tensor.dims is not None and isinstance(tensor.dims[0], int) and tensor.dims[0] != count:
            raise bad(f"{where}: {count} values; the shape input is {tensor.describe()}")
    elif tensor.dims is not None and len(tensor.dims) != count:
        raise bad(f"{where}: {count} dimensions; the input is {tensor.describe()}")
    elif tensor.dims is not None:
        for axis, dim in enumerate(tensor.dims):
            if isinstance(dim, int) and any(c[axis] != dim for c in corners):
                raise bad(f"{where}: dimension {axis} is {'/'.join(str(c[axis]) for c in corners)} (min/opt/max); "
                          f"the input is {tensor.describe()}")
    for j in range(count):
        if not corners[0][j] <= corners[1][j] <= corners[2][j]:
            raise bad(f"{where}: {'value' if values else 'dimension'} {j} is min/opt/max "
                      f"{'/'.join(str(c[j]) for c in corners)}, not min <= opt <= max")
    return tuple(corners)


def _same_symbols(by_name: dict, ranges: dict, shape_inputs, index: int, bad) -> None:
    """One symbolic dimension has one min/opt/max in a profile, whichever input it appears in (as a spec's)."""
    seen: dict[str, tuple[str, tuple]] = {}
    for name, corners in ranges.items():
        if name in shape_inputs:
            continue
        for axis, dim in enumerate(by_name[name].dims or ()):
            if isinstance(dim, str):
                bounds = tuple(c[axis] for c in corners)
                other, other_bounds = seen.setdefault(dim, (name, bounds))
                if other_bounds != bounds:
                    raise bad(f"profile {index}: {dim!r} is min/opt/max {'/'.join(map(str, bounds))} at input "
                              f"{name!r} and {'/'.join(map(str, other_bounds))} at input {other!r}: one symbolic "
                              "dimension has one range")


