"""Hypothesis strategies: valid spec documents for every layer kind, and mutations that break them.

A document is the plain data a spec file holds (what ``converter.pipeline.spec.parse_spec`` takes).
Valid strategies draw every attribute, dtype and rank the layer kind allows, with case data
(literal lists, or seeded generators for empty tensors); each returns ``(doc, opset)``.
Mutations return ``(doc, what)``: ``what`` says, for the failure report, what was broken.
"""

from __future__ import annotations

import copy
import importlib
import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from converter.dtypes import DTYPES
from converter.registry import layer_kinds
from ..helpers import newest_opset_with_every_kernel as max_supported_opset  # (runs, not only loads)
from .known_bugs import AVOID, LINE_BREAKS

# Text for junk: while the newline-in-messages entry exists, without line breaks (they would only find that bug again).
_CHARS = st.characters(blacklist_characters=LINE_BREAKS) if "newline-in-messages" in AVOID else st.characters()


def _text(max_size: int, min_size: int = 0):
    return st.text(alphabet=_CHARS, min_size=min_size, max_size=max_size)

OPSETS = sorted({13, 17, 19, 21, max_supported_opset()} - {o for o in (19, 21) if o > max_supported_opset()})
KINDS = layer_kinds()


# --- case data -----------------------------------------------------------------------------------


def _elements(dtype: str, magnitude: float = 8.0, special: bool = False):
    """Values for a tensor; ``special`` adds NaN, infinities and values near the type's limits."""
    if dtype == "bool":
        return st.booleans()
    if DTYPES[dtype].is_integer:
        lo, hi = DTYPES[dtype].min, DTYPES[dtype].max
        edges = [v for v in (0, 1, -1, 2, lo, hi, lo + 1, hi - 1) if lo <= v <= hi]
        return st.one_of(st.sampled_from(edges), st.integers(max(lo, -300), min(hi, 300)), st.integers(lo, hi))
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, magnitude, -magnitude]
    values = st.one_of(st.sampled_from(edges), st.floats(-magnitude, magnitude, width=32))
    if not special:
        return values
    top = float(DTYPES[dtype].max)
    extremes = [math.nan, math.inf, -math.inf, top, -top, top / 2, 1e-30, -1e-30, 65504.0, 3.0e38]
    return st.one_of(values, values, values, st.sampled_from([v for v in extremes if abs(v) <= top or math.isinf(v) or math.isnan(v)]))


@st.composite
def tensor_data(draw, dtype: str, shape: tuple[int, ...], magnitude: float = 8.0, elements=None, special: bool = False):
    """Literal nested lists for a tensor (a seeded generator when it is empty: lists cannot say [2, 0, 3])."""
    size = math.prod(shape)
    if size == 0:
        kind = "integers" if DTYPES[dtype].kind != "float" else "uniform"
        return {"random": kind, "seed": draw(st.integers(0, 2**32))}
    if elements is None:
        elements = _elements(dtype, magnitude, special)
    values = draw(st.lists(elements, min_size=size, max_size=size))
    if DTYPES[dtype].is_float and any(isinstance(v, float) and not math.isfinite(v) for v in values):
        values = [v if math.isfinite(v) else str(v) for v in values]  # as a spec writes them: "nan", "inf", "-inf"
    if dtype == "bool":
        return np.array(values, dtype=bool).reshape(shape).tolist()
    return np.array(values, dtype=object).reshape(shape).tolist()


def _doc(name: str, inputs: dict, layers: list, outputs: list, cases: list, constants: dict | None = None) -> dict:
    network = {"inputs": inputs}
    if constants:
        network["constants"] = constants
    network.update({"layers": layers, "outputs": outputs})
    return {"name": name, "network": network, "cases": cases}


@st.composite
def _cases(draw, inputs: dict, count=st.integers(1, 2), elements_for=None, magnitude: float = 8.0, special=False) -> list:
    cases = []
    for i in range(draw(count)):
        data = {}
        for name, decl in inputs.items():
            elements = elements_for(name) if elements_for else None
            data[name] = draw(tensor_data(decl["dtype"], tuple(decl["shape"]), magnitude, elements, special))
        cases.append({"name": f"case{i}", "inputs": data})
    return cases


def _shape(rank: int, low: int = 1, high: int = 3, zero: bool = True):
    dim = st.one_of(st.integers(low, high), st.just(0)) if zero else st.integers(low, high)
    return st.lists(dim, min_size=rank, max_size=rank).map(tuple)


# --- trt.Scale -----------------------------------------------------------------------------------


@st.composite
def scale_specs(draw):
    dtype = draw(st.sampled_from(["int8", "float16", "float32", "bfloat16"]))
    rank = draw(st.integers(4, 6))
    shape = draw(_shape(rank))
    mode = draw(st.sampled_from(["UNIFORM", "CHANNEL", "ELEMENTWISE"]))
    layer: dict[str, Any] = {"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": mode}
    axis = 1
    if draw(st.booleans()):
        axis = draw(st.integers(0, rank - 1))
        layer["channel_axis"] = axis
    count = {"UNIFORM": 1, "CHANNEL": shape[axis], "ELEMENTWISE": math.prod(shape[axis:])}[mode]
    values = {
        "scale": st.one_of(st.sampled_from([1.0, -1.0, 0.5, 2.0, 0.0]), st.floats(-4, 4, width=32)),
        "shift": st.one_of(st.sampled_from([0.0, 1.0, -0.5, 0.25]), st.floats(-4, 4, width=32)),
        "power": st.one_of(st.sampled_from([1.0, 2.0, 0.0, -1.0, 0.5, 3.0, -2.0, 1.5]), st.floats(-3, 3, width=32)),
    }
    for key, element in values.items():
        form = draw(st.sampled_from(["omit", "empty", "flat", "nested", "number"]))
        if form == "omit":
            continue
        if form == "empty" or count == 0:
            layer[key] = []
            continue
        flat = draw(st.lists(element, min_size=count, max_size=count))
        if form == "number" and count == 1:
            layer[key] = flat[0]
        elif form == "nested" and mode == "ELEMENTWISE" and len(shape) - axis > 1:
            layer[key] = np.array(flat, dtype=object).reshape(shape[axis:]).tolist()
        else:
            layer[key] = flat
    inputs = {"x": {"dtype": dtype, "shape": list(shape)}}
    cases = draw(_cases(inputs, special=draw(st.booleans())))
    return _doc("fuzz-scale", inputs, [layer], ["y"], cases), draw(st.sampled_from(OPSETS))


# --- trt.ElementWise -----------------------------------------------------------------------------

EW_TYPES = {
    "SUM": "ARITH", "PROD": "ARITH", "MAX": "ARITH", "MIN": "ARITH", "SUB": "ARITH", "DIV": "ARITH",
    "POWER": ("int8", "float16", "float32", "bfloat16"), "FLOOR_DIV": "ARITH",
    "AND": ("bool",), "OR": ("bool",), "XOR": ("bool",),
    "EQUAL": "COMPARE", "GREATER": "COMPARE", "LESS": "COMPARE",
}
_GROUPS = {"ARITH": ("int8", "int32", "int64", "float16", "float32", "bfloat16"),
           "COMPARE": ("int32", "int64", "float16", "float32", "bfloat16")}


def elementwise_types(operation: str) -> tuple[str, ...]:
    allowed = EW_TYPES[operation]
    return _GROUPS[allowed] if isinstance(allowed, str) else allowed


@st.composite
def broadcast_shapes(draw, max_rank: int = 4):
    """Two shapes TensorRT broadcasts: equal ranks, each dimension pair equal or one of them 1."""
    rank = draw(st.integers(1 if "rank0-feeds" in AVOID else 0, max_rank))
    base = draw(_shape(rank))
    a = tuple(d if draw(st.booleans()) else 1 for d in base)
    b = tuple(d if draw(st.booleans()) else 1 for d in base)
    return a, b


@st.composite
def elementwise_specs(draw, operations=None, dtypes=None):
    """``operations``, ``dtypes``: only these (a test of a subset draws it, rather than filter most examples out)."""
    operation = draw(st.sampled_from([o for o in EW_TYPES if operations is None or o in operations]))
    dtype = draw(st.sampled_from([t for t in elementwise_types(operation) if dtypes is None or t in dtypes]))
    a_shape, b_shape = draw(broadcast_shapes())
    inputs = {"a": {"dtype": dtype, "shape": list(a_shape)}}
    layer = {"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": operation}
    constants = None
    magnitude = 4.0 if operation == "POWER" else 64.0
    special = draw(st.booleans())
    if draw(st.booleans()):
        inputs["b"] = {"dtype": dtype, "shape": list(b_shape)}
    else:  # the second operand a constant: the lowering may specialize on its values
        data = draw(tensor_data(dtype, b_shape, magnitude, special=special))
        constants = {"b": {"dtype": dtype, "shape": list(b_shape), "data": data}}
    cases = draw(_cases(inputs, magnitude=magnitude, special=special))
    return _doc("fuzz-elementwise", inputs, [layer], ["y"], cases, constants), draw(st.sampled_from(OPSETS))


# --- dml.DequantizeLinear ------------------------------------------------------------------------


@st.composite
def dequantize_specs(draw):
    from converter.lowering.dequantize import FEATURE_LEVELS, NEWEST_LEVEL

    level = draw(st.sampled_from([None, *FEATURE_LEVELS]))
    table = FEATURE_LEVELS[level or NEWEST_LEVEL]
    x_dtype = draw(st.sampled_from([t.name for t in table.input_types]))
    s_dtype = draw(st.sampled_from([t.name for t in table.scale_types]))
    rank = draw(st.integers(table.ranks[0], min(table.ranks[1], 5)))
    shape = list(draw(_shape(rank)))
    with_zero_point = not table.zero_point_optional or draw(st.booleans())
    layer: dict[str, Any] = {"name": "y", "op": "dml.DequantizeLinear", "inputs": ["x", "scale"]}
    if level is not None:
        layer["feature_level"] = draw(st.sampled_from([level, float(level)]))
    if draw(st.booleans()):
        layer["output_dtype"] = s_dtype
    inputs = {"x": {"dtype": x_dtype, "shape": shape}}
    constants = {}
    scale_values = st.one_of(st.sampled_from([1.0, 0.5, -0.25, 0.0, 2.0**-10, 3.0]), st.floats(-4, 4, width=16 if s_dtype == "float16" else 32))
    tensors = [("scale", s_dtype, scale_values)]
    if with_zero_point:
        layer["inputs"].append("zp")
        tensors.append(("zp", x_dtype, None))
    for name, dtype, elements in tensors:
        if draw(st.booleans()):
            inputs[name] = {"dtype": dtype, "shape": shape}
        else:
            constants[name] = {"dtype": dtype, "shape": shape, "data": draw(tensor_data(dtype, tuple(shape), elements=elements))}
    cases = draw(_cases(inputs, elements_for=lambda n: scale_values if n == "scale" else None))
    return _doc("fuzz-dequantize", inputs, [layer], ["y"], cases, constants), draw(st.sampled_from(OPSETS))


# --- trt.Resize ----------------------------------------------------------------------------------


@st.composite
def resize_specs(draw):
    mode = draw(st.sampled_from(["NEAREST", "LINEAR", "CUBIC"]))
    dtype = draw(st.sampled_from(["int8", "float16", "float32"]))
    rank = draw(st.integers(2 if mode == "CUBIC" else 1, 5))
    shape = draw(_shape(rank, 1, 4))
    window = 2 if mode == "CUBIC" else min(3, rank)
    first = rank - window
    layer: dict[str, Any] = {"name": "y", "op": "trt.Resize", "inputs": ["x"]}
    if mode != "NEAREST" or draw(st.booleans()):
        layer["resize_mode"] = mode
    for key, choices in (("coordinate_transformation", ["ALIGN_CORNERS", "ASYMMETRIC", "HALF_PIXEL"]),
                         ("selector_for_single_pixel", ["FORMULA", "UPPER"]),
                         ("nearest_rounding", ["HALF_UP", "HALF_DOWN", "FLOOR", "CEIL"])):
        if draw(st.booleans()):
            layer[key] = draw(st.sampled_from(choices))
    if mode == "CUBIC" and draw(st.booleans()):
        layer["cubic_coeff"] = draw(st.sampled_from([-0.75, -0.5, -1.0, -0.6]))
    inputs = {"x": {"dtype": dtype, "shape": list(shape)}}
    constants = {}
    how = draw(st.sampled_from(["shape", "scales", "shape-input", "shape-constant"]))
    if how == "shape-input" and mode != "NEAREST" and 0 in shape and "resize-empty-runtime-shape" in AVOID:
        shape = tuple(d or 1 for d in shape)
        inputs["x"]["shape"] = list(shape)
    out = [a if i < first or a == 0 else draw(st.integers(0, 7)) for i, a in enumerate(shape)]
    if how == "shape":
        layer["shape"] = out
    elif how == "scales":
        scales = [1.0 if i < first or a == 0 else draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0, 0.25, 2.5, 1 / 3, 0.75]))
                  for i, a in enumerate(shape)]
        layer["scales"] = scales
    else:
        s_dtype = draw(st.sampled_from(["int32", "int64"]))
        layer["inputs"].append("s")
        if how == "shape-constant":
            constants["s"] = {"dtype": s_dtype, "shape": [rank], "data": out}
        else:
            inputs["s"] = {"dtype": s_dtype, "shape": [rank]}
    cases = draw(_cases({"x": inputs["x"]}, magnitude=8.0))
    if "s" in inputs:
        for case in cases:
            case["inputs"]["s"] = [a if i < first or a == 0 else draw(st.integers(0, 7)) for i, a in enumerate(shape)]
    return _doc("fuzz-resize", inputs, [layer], ["y"], cases, constants), draw(st.sampled_from(OPSETS))


# --- networks of several layers, and arbitrary names --------------------------------------------

NAMES = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_.\-]{0,12}\Z")


@st.composite
def renamed(draw, pair):
    """The same spec with every tensor (and the spec) renamed to arbitrary valid names."""
    doc, opset = pair
    net = doc["network"]
    old = list(net["inputs"]) + list(net.get("constants") or {}) + [layer["name"] for layer in net["layers"]]
    new = draw(st.lists(NAMES, min_size=len(old), max_size=len(old), unique=True))
    to = dict(zip(old, new))
    net["inputs"] = {to[k]: v for k, v in net["inputs"].items()}
    if net.get("constants"):
        net["constants"] = {to[k]: v for k, v in net["constants"].items()}
    for layer in net["layers"]:
        layer["name"] = to[layer["name"]]
        layer["inputs"] = [to[t] for t in layer["inputs"]]
    net["outputs"] = [to[t] for t in net["outputs"]]
    for case in doc["cases"]:
        case["inputs"] = {to[k]: v for k, v in case["inputs"].items()}
    doc["name"] = draw(NAMES)
    return doc, opset


@st.composite
def chain_specs(draw):
    """Two to four float layers in a chain (Scale, ElementWise with a fresh input or an earlier tensor), all outputs."""
    dtypes = ["float32", "bfloat16", "int8"] + ([] if "float16-after-cast" in AVOID else ["float16"])
    dtype = draw(st.sampled_from(dtypes))
    shape = list(draw(_shape(4, 1, 3, zero=False)))
    inputs = {"x": {"dtype": dtype, "shape": shape}}
    layers, tensors = [], ["x"]
    ops = ["SUM", "PROD", "MAX", "MIN", "SUB"] + (["DIV", "POWER"] if dtype != "int8" else ["POWER"])
    for i in range(draw(st.integers(2, 4))):
        name = f"l{i}"
        if draw(st.booleans()):
            mode = draw(st.sampled_from(["UNIFORM", "CHANNEL"]))
            count = 1 if mode == "UNIFORM" else shape[1]
            layer = {"name": name, "op": "trt.Scale", "inputs": [draw(st.sampled_from(tensors))], "mode": mode,
                     "scale": draw(st.lists(st.floats(-2, 2, width=32), min_size=count, max_size=count)),
                     "shift": draw(st.lists(st.floats(-2, 2, width=32), min_size=count, max_size=count))}
        else:
            other = draw(st.sampled_from(tensors + ["new"]))
            if other == "new":
                other = f"in{i}"
                inputs[other] = {"dtype": dtype, "shape": shape}
            layer = {"name": name, "op": "trt.ElementWise", "inputs": [draw(st.sampled_from(tensors)), other],
                     "operation": draw(st.sampled_from(ops))}
        layers.append(layer)
        tensors.append(name)
    cases = draw(_cases(inputs, magnitude=2.0))
    outputs = draw(st.lists(st.sampled_from(tensors[1:]), min_size=1, unique=True))
    return _doc("fuzz-chain", inputs, layers, outputs, cases), draw(st.sampled_from(OPSETS))


def strategy_of(name: str):
    """The strategy of valid specs of kind ``name`` its registration names (``LayerKind.strategy``: "module:function",
    resolved here, the package never imports it; or the function itself), or None when it names none. A function
    takes no arguments and returns a strategy of ``(doc, opset)`` pairs."""
    ref = layer_kinds()[name].strategy
    if ref is None or callable(ref):
        return ref
    module, _, function = ref.partition(":")
    namespace = globals() if module == __name__ else vars(importlib.import_module(module))
    return namespace[function]


def valid_strategies() -> dict:
    """{kind: strategy function} of every kind registered now that names one (tests/fuzz/test_valid_specs.py fails
    for a registered kind that names none: a new kind is fuzzed, or the suite says it is not)."""
    return {name: fn for name in layer_kinds() if (fn := strategy_of(name)) is not None}


VALID = valid_strategies()  # the built-in kinds (registered by importing the package)


def any_valid_spec():
    return st.one_of(*(VALID[k]() for k in VALID if k in KINDS), chain_specs()).map(lambda pair: pair[0])


# --- mutations -----------------------------------------------------------------------------------

NAME_KEYED = {"inputs", "constants", "expected"}  # mappings whose keys are tensor names, not fields


def paths(doc, prefix=()) -> list[tuple]:
    """Every path (a tuple of keys and indices) in the document, the root excluded."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        out.append(prefix + (key,))
        out.extend(paths(value, prefix + (key,)))
    return out


def get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def put(doc, path, value):
    get(doc, path[:-1])[path[-1]] = value


def _layers(doc):
    return doc["network"]["layers"]


def _names(doc) -> set[str]:
    net = doc["network"]
    return set(net["inputs"]) | set(net.get("constants") or {}) | {layer["name"] for layer in net["layers"]}


@st.composite
def _fresh_name(draw, taken):
    name = draw(st.from_regex(r"\A[a-z][a-z0-9_]{0,6}\Z"))
    return name + "_missing" if name in taken else name


@st.composite
def drop_required(draw, doc):
    spots = [("name",), ("network",), ("cases",), ("network", "inputs"), ("network", "layers"), ("network", "outputs")]
    for i, layer in enumerate(_layers(doc)):
        spots += [("network", "layers", i, k) for k in ("name", "op", "inputs")]
        kind = KINDS[layer["op"]]
        spots += [("network", "layers", i, k) for k, attr in kind.attributes.items() if attr.required]
    for section in ("inputs", "constants"):
        for name in doc["network"].get(section) or {}:
            keys = ("dtype", "shape") + (("data",) if section == "constants" else ())
            spots += [("network", section, name, k) for k in keys]
    for i, case in enumerate(doc["cases"]):
        spots += [("cases", i, "name"), ("cases", i, "inputs")]
        spots += [("cases", i, "inputs", name) for name in case["inputs"]]
    path = draw(st.sampled_from(spots))
    del get(doc, path[:-1])[path[-1]]
    return doc, f"dropped {path}"


_NOT_A = {
    dict: st.one_of(st.none(), st.integers(-3, 3), _text(4), st.lists(st.integers(0, 2), max_size=2)),
    list: st.one_of(st.none(), st.integers(-3, 3), _text(4), st.dictionaries(_text(3), st.integers(), max_size=2)),
    str: st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                   st.lists(_text(3), max_size=2), st.dictionaries(_text(3), st.integers(), max_size=2)),
}


def _typed_spots(doc) -> list[tuple[tuple, type]]:
    net = ("network",)
    spots = [(net, dict), (net + ("inputs",), dict), (net + ("layers",), list), (net + ("outputs",), list),
             (("cases",), list), (("name",), str)]
    for section in ("inputs", "constants"):
        for name in doc["network"].get(section) or {}:
            base = net + (section, name)
            spots += [(base, dict), (base + ("dtype",), str), (base + ("shape",), list)]
    for i, layer in enumerate(_layers(doc)):
        base = net + ("layers", i)
        spots += [(base, dict), (base + ("name",), str), (base + ("op",), str), (base + ("inputs",), list)]
        spots += [(base + ("inputs", j), str) for j in range(len(layer["inputs"]))]
    spots += [(net + ("outputs", j), str) for j in range(len(doc["network"]["outputs"]))]
    for i, case in enumerate(doc["cases"]):
        spots += [(("cases", i), dict), (("cases", i, "name"), str), (("cases", i, "inputs"), dict)]
    return spots


@st.composite
def wrong_type(draw, doc):
    path, kind = draw(st.sampled_from(_typed_spots(doc)))
    value = draw(_NOT_A[kind])
    put(doc, path, value)
    return doc, f"{path} = {value!r} (not a {kind.__name__})"


@st.composite
def unknown_field(draw, doc):
    spots = [()] + [("network",)]
    spots += [("network", "layers", i) for i in range(len(_layers(doc)))]
    spots += [("network", s, n) for s in ("inputs", "constants") for n in doc["network"].get(s) or {}]
    spots += [("cases", i) for i in range(len(doc["cases"]))]
    spots += [("cases", i, "inputs", n) for i, c in enumerate(doc["cases"]) for n, v in c["inputs"].items() if isinstance(v, dict)]
    path = draw(st.sampled_from(spots))
    target = get(doc, path)
    known = set(target) | {"random", "low", "high", "seed", "mean", "std", "xfail", "source", "description", "opset",
                           "tolerance", "expected", "channel_axis"}
    if len(path) == 3 and path[1] == "layers":
        known |= set(KINDS[target["op"]].attributes)
    key = draw(st.from_regex(r"\A[a-z_]{1,10}\Z").filter(lambda k: k not in known))
    target[key] = draw(st.one_of(st.integers(0, 3), _text(3)))
    return doc, f"added {key!r} at {path}"


def _enum_spots(doc):
    spots = [(("network", s, n, "dtype"), tuple(DTYPES)) for s in ("inputs", "constants") for n in doc["network"].get(s) or {}]
    for i, layer in enumerate(_layers(doc)):
        spots.append((("network", "layers", i, "op"), tuple(KINDS)))
        for key, attr in KINDS[layer["op"]].attributes.items():
            choices = getattr(attr, "choices", None)
            if choices:
                spots.append((("network", "layers", i, key), tuple(choices)))
    return spots


@st.composite
def bad_enum(draw, doc):
    path, choices = draw(st.sampled_from(_enum_spots(doc)))
    current = get(doc, path[:-1]).get(path[-1], choices[0])
    value = draw(st.one_of(
        st.just(str(current).lower() if str(current).lower() not in choices else str(current) + "X"),
        st.just(str(current)[:-1]), st.just(str(current) + " "), _text(8, min_size=1),
    ).filter(lambda v: v not in choices and v != ""))
    put(doc, path, value)
    return doc, f"{path} = {value!r}"


@st.composite
def bad_dim(draw, doc):
    spots = [("network", s, n, "shape") for s in ("inputs", "constants") for n in doc["network"].get(s) or {}]
    spots = [p for p in spots if get(doc, p)]
    if not spots:
        return draw(broken_reference(doc))
    path = draw(st.sampled_from(spots))
    shape = get(doc, path)
    index = draw(st.integers(0, len(shape) - 1))
    value = draw(st.one_of(st.integers(-2**40, -1), st.sampled_from([1.5, 0.5, True, False, "3", None, float("nan"), float("inf"), [2], {}])))
    shape[index] = value
    return doc, f"{path}[{index}] = {value!r}"


@st.composite
def wrong_data_shape(draw, doc):
    spots = [("cases", i, "inputs", n) for i, c in enumerate(doc["cases"]) for n in c["inputs"]]
    spots += [("network", "constants", n, "data") for n in doc["network"].get("constants") or {}]
    path = draw(st.sampled_from(spots))
    put(doc, path, [get(doc, path)])  # one more dimension than the tensor has
    return doc, f"{path} wrapped in a list"


@st.composite
def broken_reference(draw, doc):
    taken = _names(doc)
    layers = _layers(doc)
    choice = draw(st.sampled_from(["input", "output", "output-is-input", "duplicate", "self-loop", "case-input", "expected"]))
    i = draw(st.integers(0, len(layers) - 1))
    if choice == "input":
        j = draw(st.integers(0, len(layers[i]["inputs"]) - 1))
        layers[i]["inputs"][j] = draw(_fresh_name(taken))
    elif choice == "output":
        doc["network"]["outputs"][0] = draw(_fresh_name(taken))
    elif choice == "output-is-input":
        doc["network"]["outputs"][0] = next(iter(doc["network"]["inputs"]))
    elif choice == "duplicate":
        layers[i]["name"] = draw(st.sampled_from(sorted(taken - {layers[i]["name"]})))
    elif choice == "self-loop":
        layers[i]["inputs"][0] = layers[i]["name"]
    elif choice == "case-input":
        case = doc["cases"][0]
        case["inputs"][draw(_fresh_name(taken))] = 1
    else:
        doc["cases"][0]["expected"] = {draw(_fresh_name(set(doc["network"]["outputs"]))): [1]}
    return doc, f"broken reference: {choice} (layer {i})"


MUTATIONS = {
    "drop_required": drop_required, "wrong_type": wrong_type, "unknown_field": unknown_field,
    "bad_enum": bad_enum, "bad_dim": bad_dim, "wrong_data_shape": wrong_data_shape,
    "broken_reference": broken_reference,
}


@st.composite
def invalid_specs(draw, mutations=tuple(MUTATIONS)):
    """A valid spec broken by one mutation that always makes it invalid."""
    doc = copy.deepcopy(draw(any_valid_spec()))
    name = draw(st.sampled_from(mutations))
    return draw(MUTATIONS[name](doc))


JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _text(8),
              st.sampled_from(["nan", "inf", "x.npy", "../x.npy", "/etc/passwd.npy", "float32", "trt.Scale", "UNIFORM",
                               2**31, 2**63, -(2**63) - 1, 10**30, 1e308, -0.0])),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(_text(6), children, max_size=3)),
    max_leaves=12,
)


@st.composite
def junk_specs(draw):
    """A valid spec with junk at any one place (it may still be valid)."""
    doc = copy.deepcopy(draw(any_valid_spec()))
    path = draw(st.sampled_from(paths(doc)))
    value = draw(JUNK)
    put(doc, path, value)
    return doc, f"{path} = {value!r}"
