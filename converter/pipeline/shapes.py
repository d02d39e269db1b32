"""Dynamic shapes in specs: dimensions (integers, names, -1), optimization profiles, shape inputs, and a
network's types at concrete shapes.

A dimension is an integer >= 0, a name (a symbolic dimension, ONNX's dim_param: every dimension of one
name is one value at run time) or -1 (a dynamic dimension of its own). A network with a dynamic input
dimension or a ``shape_tensor`` input needs ``profiles``, TensorRT's optimization profiles: per profile and
input, min/opt/max dimensions (a shape input: min/opt/max values), as ``IOptimizationProfile::setDimensions``
and ``setShapeValues`` take them. A case runs at concrete shapes inside one profile. ``instantiate`` gives
the network's types at concrete shapes (each layer's check run again), so what a dynamic dimension hides at
load is checked for each case and at each profile's min, opt and max. docs/dynamic-shapes.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..brief import brief
from ..errors import SpecError, UserError
from ..names import NAME_RULE, did_you_mean, is_valid_name
from ..network import MAX_ELEMENTS, Network, TensorType
from ..registry import layer_kind

__all__ = ["PROFILE_KEYS", "case_fits", "case_shapes", "check_case", "check_input_shape", "check_profiles", "corner",
           "default_cases", "describe_shapes", "dynamic_inputs", "instantiate", "parse_dims", "parse_profiles"]

PROFILE_KEYS = ("min", "opt", "max")
SHAPE_INPUT_TYPES = ("int32", "int64")  # the seeds' IResizeLayer input1: "an Int32 or Int64 tensor"
MAX_VALUES = 64  # values a case's int32/int64 1-D input may have to be read as a shape (instantiate's ``values``)


def parse_dims(dims: list, where: str) -> tuple[tuple[int | None, ...], tuple[str | None, ...]]:
    """(shape, names) of a spec's ``shape`` list: None and a name for a symbolic dimension, None alone for -1."""
    shape: list[int | None] = []
    names: list[str | None] = []
    for i, dim in enumerate(dims):
        if isinstance(dim, str) and is_valid_name(dim):
            shape.append(None)
            names.append(dim)
            continue
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < -1:
            raise SpecError(f"dimension {brief(dim)} must be an integer >= 0, -1 (a dynamic dimension) or a name "
                            f"(a symbolic dimension: {NAME_RULE})", field=f"{where}[{i}]")
        if dim > MAX_ELEMENTS:
            raise SpecError(f"dimension {dim} is above the 2^31 limit", field=f"{where}[{i}]")
        shape.append(None if dim == -1 else dim)
        names.append(None)
    return tuple(shape), tuple(names)


def _dim_label(ttype: TensorType, axis: int) -> str:
    name = ttype.name(axis)
    return f"dimension {axis} ({name!r})" if name else f"dimension {axis}"


# --- profiles ----------------------------------------------------------------------------------


def dynamic_inputs(network: Network) -> list[str]:
    """The inputs every profile must give: those with a dynamic dimension, and the shape inputs."""
    return [n for n, t in network.inputs.items() if not t.is_static or n in network.shape_inputs]


def parse_profiles(doc: Any, network: Network, *, required: bool = True) -> tuple[dict, ...]:
    """The ``network.profiles`` list, checked against the network's inputs (``doc`` None: not given; refused for a
    dynamic network where ``required``)."""
    dynamic = dynamic_inputs(network)
    if doc is None:
        if dynamic and required:
            name = dynamic[0]
            what = "a shape input" if name in network.shape_inputs else f"{network.inputs[name]}, with a dynamic dimension"
            raise SpecError(f"missing required field 'profiles': input {name!r} is {what}; a dynamic network needs an "
                            "optimization profile (min, opt and max of each dynamic input), as TensorRT's builder does",
                            field="network")
        return ()
    if not isinstance(doc, list) or not doc:
        raise SpecError("must be a non-empty list of profiles, each {input: {min: [...], opt: [...], max: [...]}}",
                        field="network.profiles")
    profiles = []
    for i, raw in enumerate(doc):
        where = f"network.profiles[{i}]"
        if not isinstance(raw, dict):
            raise SpecError(f"a profile is a mapping {{input: {{min, opt, max}}}}, got {brief(raw)}", field=where)
        profile = {}
        for name, entry in raw.items():
            if name not in network.inputs:
                raise SpecError(f"{brief(name)} is not a network input{did_you_mean(name, network.inputs)}",
                                field=f"{where}.{name}")
            profile[name] = _profile_entry(network, name, entry, f"{where}.{name}")
        missing = [n for n in dynamic if n not in profile]
        if missing:
            what = "a shape input" if missing[0] in network.shape_inputs else f"dynamic ({network.inputs[missing[0]]})"
            raise SpecError(f"no min/opt/max for input {missing[0]!r}, which is {what}: every profile gives every "
                            "dynamic input", field=where)
        _check_symbols(network, profile, where)
        profiles.append(profile)
    return tuple(profiles)


def _profile_entry(network: Network, name: str, entry: Any, where: str) -> tuple[tuple[int, ...], ...]:
    ttype = network.inputs[name]
    shape_input = name in network.shape_inputs
    if not isinstance(entry, dict):
        raise SpecError(f"expected {{min: [...], opt: [...], max: [...]}}, got {brief(entry)}", field=where)
    for key in entry:
        if key not in PROFILE_KEYS:
            raise SpecError(f"unknown field {brief(key)}{did_you_mean(key, PROFILE_KEYS)}; allowed: min, opt, max",
                            field=f"{where}.{key}")
    for key in PROFILE_KEYS:
        if key not in entry:
            raise SpecError(f"missing required field {key!r}", field=where)
    corners = []
    for key in PROFILE_KEYS:
        values = entry[key]
        count = ttype.size if shape_input else ttype.rank
        what = f"{count} values (the shape input's)" if shape_input else f"{count} dimensions (the input's rank)"
        if not isinstance(values, list) or len(values) != count:
            raise SpecError(f"expected a list of {what}, got {brief(values)}", field=f"{where}.{key}")
        for j, v in enumerate(values):
            low, high = (ttype.dtype.min, ttype.dtype.max) if shape_input else (0, MAX_ELEMENTS)
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise SpecError(f"{brief(v)} is not an integer in [{low}, {high}]", field=f"{where}.{key}[{j}]")
        corners.append(tuple(values))
    if not shape_input:
        for axis, dim in enumerate(ttype.shape):
            if dim is not None and any(c[axis] != dim for c in corners):
                got = ", ".join(f"{k} {c[axis]}" for k, c in zip(PROFILE_KEYS, corners))
                static = "its shape" if ttype.is_static else "its static dimension"
                raise SpecError(f"{got} at dimension {axis} contradict {static} {ttype}", field=where)
    for j in range(len(corners[0])):
        low, opt, high = (c[j] for c in corners)
        if not low <= opt <= high:
            label = f"value {j}" if shape_input else _dim_label(ttype, j)
            bad = ("min", low, "opt", opt) if low > opt else ("opt", opt, "max", high)
            raise SpecError(f"{label}: {bad[0]} {bad[1]} is above {bad[2]} {bad[3]} (min <= opt <= max)", field=where)
    return tuple(corners)


def _check_symbols(network: Network, profile: dict, where: str) -> None:
    """One symbolic dimension has one min/opt/max in a profile, whichever input it appears in."""
    seen: dict[str, tuple[str, int, tuple]] = {}
    for name, corners in profile.items():
        ttype = network.inputs[name]
        if name in network.shape_inputs:
            continue
        for axis in range(ttype.rank):
            symbol = ttype.name(axis)
            if symbol is None:
                continue
            bounds = tuple(c[axis] for c in corners)
            if symbol in seen and seen[symbol][2] != bounds:
                other, other_axis, other_bounds = seen[symbol]
                raise SpecError(f"{_dim_label(ttype, axis)} is min/opt/max {'/'.join(map(str, bounds))}, but "
                                f"{symbol!r} is {'/'.join(map(str, other_bounds))} at input {other!r} dimension "
                                f"{other_axis}: one symbolic dimension has one range", field=f"{where}.{name}")
            seen.setdefault(symbol, (name, axis, bounds))


def corner(network: Network, profile: dict, key: str) -> tuple[dict, dict]:
    """(shapes, values) of the network's inputs at a profile's ``key`` (min, opt or max)."""
    k = PROFILE_KEYS.index(key)
    shapes, values = {}, {}
    for name, ttype in network.inputs.items():
        if name in network.shape_inputs:
            shapes[name] = ttype.shape
            values[name] = np.array(profile[name][k], ttype.dtype.numpy).reshape(ttype.shape)
        else:
            shapes[name] = tuple(profile[name][k]) if name in profile else ttype.shape
    return shapes, values


def check_profiles(network: Network) -> dict[str, TensorType]:
    """Each profile's min, opt and max must give a valid network (each layer's check at those shapes, every tensor
    within 2^31 elements). Returns, per tensor, its type at the corner where it is largest (for the budget)."""
    largest: dict[str, TensorType] = {}
    for i, profile in enumerate(network.profiles):
        for key in PROFILE_KEYS:
            shapes, values = corner(network, profile, key)
            try:
                types = instantiate(network, shapes, values)
            except UserError as exc:
                raise SpecError(f"at the profile's {key} ({describe_shapes(shapes, values)}): {exc.field}: {exc.detail}",
                                field=f"network.profiles[{i}].{key}") from None
            for name, ttype in types.items():
                if ttype.is_static and (name not in largest or ttype.size > (largest[name].size or 0)):
                    largest[name] = ttype
    return largest


# --- a network at concrete shapes ---------------------------------------------------------------


def instantiate(network: Network, shapes: dict[str, tuple], values: dict[str, np.ndarray] | None = None) -> dict[str, TensorType]:
    """Every tensor's type with the inputs at ``shapes`` (each layer's check run at them), ``values`` the known
    values of shape inputs (a layer's ``check_values`` reads them). SpecError naming the layer's field."""
    known = dict(values or {})
    types: dict[str, TensorType] = {}
    for name, ttype in network.inputs.items():
        types[name] = TensorType(ttype.dtype, tuple(int(d) for d in shapes[name]))
        if types[name].size > MAX_ELEMENTS:
            raise SpecError(f"input {name!r} {list(shapes[name])} has {types[name].size} elements, above the 2^31 limit",
                            field=f"network.inputs.{name}")
    for name, value in network.constants.items():
        types[name] = network.types[name]
        if value.ndim == 1 and value.dtype.kind == "i" and value.size <= MAX_VALUES:
            known.setdefault(name, value)
    for layer in network.layers:
        kind = layer_kind(layer.op)
        in_types = [types[t] for t in layer.inputs]
        given = tuple(known.get(t) for t in layer.inputs)
        try:
            if kind.check_values is not None and any(v is not None for v in given):
                out = kind.check_values(layer, in_types, given)
            else:
                out = kind.check(layer, in_types)
        except UserError as exc:
            raise exc.located(field_prefix=layer.field or f"network.layers[{layer.name}]") from None
        if out.is_static and out.size > MAX_ELEMENTS:
            raise SpecError(f"output {list(out.shape)} has {out.size} elements, above the 2^31 limit",
                            field=layer.field or f"network.layers[{layer.name}]")
        types[layer.name] = out
    return types


# --- cases -------------------------------------------------------------------------------------


def check_input_shape(network: Network, name: str, shape: tuple[int, ...]) -> None:
    """A case's shape for one input, before its data is made: its rank, its static dimensions, and each dynamic one
    within the bounds some profile gives it. SpecError with the field relative to the input's value."""
    ttype = network.inputs[name]
    if len(shape) != ttype.rank:
        raise SpecError(f"shape {list(shape)} has rank {len(shape)}, the input {ttype} has rank {ttype.rank}")
    for axis, (want, got) in enumerate(zip(ttype.shape, shape)):
        if want is not None and want != got:
            raise SpecError(f"shape {list(shape)}: {_dim_label(ttype, axis)} is {got}, the input is {ttype}")
    if name in network.shape_inputs or not network.profiles:
        return
    for axis in range(ttype.rank):
        if ttype.shape[axis] is None:
            low = min(p[name][0][axis] for p in network.profiles if name in p)
            high = max(p[name][2][axis] for p in network.profiles if name in p)
            if not low <= shape[axis] <= high:
                raise SpecError(f"shape {list(shape)}: {_dim_label(ttype, axis)} is {shape[axis]}, outside every "
                                f"profile (at most {low}..{high})")


def case_fits(network: Network, profile: dict, inputs: dict[str, np.ndarray]) -> str:
    """Why the case's inputs lie outside ``profile`` ('' when they fit)."""
    for name, (low, _, high) in profile.items():
        ttype, array = network.inputs[name], inputs[name]
        if name in network.shape_inputs:
            flat = array.reshape(-1).tolist()
            for j, (v, lo, hi) in enumerate(zip(flat, low, high)):
                if not lo <= v <= hi:
                    return f"{name} value {j} is {v}, outside {lo}..{hi}"
            continue
        for axis, (d, lo, hi) in enumerate(zip(array.shape, low, high)):
            if not lo <= d <= hi:
                return f"{name} {_dim_label(ttype, axis)} is {d}, outside {lo}..{hi}"
    return ""


def check_case(network: Network, inputs: dict[str, np.ndarray]) -> dict[str, TensorType]:
    """A case's inputs against the network: one value per symbolic dimension, inside one profile, and the network
    valid at their shapes. Returns the types at those shapes; SpecError with fields relative to the case."""
    bound: dict[str, tuple[str, int, int]] = {}
    for name, ttype in network.inputs.items():
        for axis in range(ttype.rank):
            symbol = ttype.name(axis)
            if symbol is None:
                continue
            size = inputs[name].shape[axis]
            if symbol in bound and bound[symbol][2] != size:
                other, other_axis, other_size = bound[symbol]
                raise SpecError(f"{_dim_label(ttype, axis)} is {size}, but input {other!r} binds {symbol!r} to "
                                f"{other_size} (its dimension {other_axis}): one symbolic dimension has one value",
                                field=f"inputs.{name}")
            bound.setdefault(symbol, (name, axis, size))
    if network.profiles:
        reasons = [case_fits(network, p, inputs) for p in network.profiles]
        if all(reasons):
            shown = "; ".join(f"profile {i}: {r}" for i, r in enumerate(reasons[:3]))
            more = f"; and {len(reasons) - 3} more profiles" if len(reasons) > 3 else ""
            raise SpecError(f"the case's shapes ({case_shapes(network, inputs)}) lie outside every profile: {shown}{more}",
                            field="inputs")
    shapes = {n: a.shape for n, a in inputs.items()}
    values = {n: a for n, a in inputs.items() if _shape_like(a)}
    try:
        return instantiate(network, shapes, values)
    except UserError as exc:
        raise SpecError(f"at the case's shapes ({case_shapes(network, inputs)}): {exc.field}: {exc.detail}",
                        field="inputs") from None


def _shape_like(array: np.ndarray) -> bool:
    return array.ndim == 1 and array.dtype.kind == "i" and array.size <= MAX_VALUES


def case_shapes(network: Network, inputs: dict[str, np.ndarray]) -> str:
    """The shapes of a case's inputs as reports show them, e.g. ``x [2, 3, 8, 8], size = [2, 3, 16, 16]``:
    a shape input (declared, or read by a layer as a shape: a kind with check_values) by its values."""
    read = {t for layer in network.layers if layer_kind(layer.op).check_values is not None for t in layer.inputs[1:]}
    values = {n: a for n, a in inputs.items() if n in network.shape_inputs or (n in read and _shape_like(a))}
    return describe_shapes({n: a.shape for n, a in inputs.items()}, values)


def describe_shapes(shapes: dict, values: dict) -> str:
    parts = []
    for name, shape in shapes.items():
        if name in values:
            parts.append(f"{name} = {np.asarray(values[name]).reshape(-1).tolist()}")
        else:
            parts.append(f"{name} {list(shape)}")
    return ", ".join(parts)


def default_cases(network: Network) -> list[dict]:
    """The cases of a spec that gives none: one at the min, opt and max of each profile (named profileN-min,
    ...), random data (float: uniform in [-1, 1]; integer: integers in [-100, 100] within the type; bool: 0/1;
    a shape input: the profile's values), seeded by the case and input, as case documents."""
    cases = []
    for i, profile in enumerate(network.profiles):
        for key in PROFILE_KEYS:
            shapes, values = corner(network, profile, key)
            inputs: dict[str, Any] = {}
            for j, (name, ttype) in enumerate(network.inputs.items()):
                if name in values:
                    inputs[name] = values[name].tolist()
                    continue
                seed = 1 + len(cases) * len(network.inputs) + j
                inputs[name] = {**_generator(ttype), "seed": seed, "shape": list(shapes[name])}
            cases.append({"name": f"profile{i}-{key}", "inputs": inputs})
    return cases


def _generator(ttype: TensorType) -> dict:
    dtype = ttype.dtype
    if dtype.is_float:
        return {"random": "uniform", "low": -1.0, "high": 1.0}
    return {"random": "integers", "low": max(dtype.min, -100), "high": min(dtype.max, 100)}

