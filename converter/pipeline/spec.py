"""Loading a spec file (YAML or JSON) and validating it, in one place, before any lowering.

Every problem is raised as ``SpecError`` naming the file and the field, e.g.
``specs/x.yaml: network.layers[0].mode: 'UNIFORMX' is not one of UNIFORM, CHANNEL, ELEMENTWISE``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import budget, casedata, lowering
from . import doc_cache, safe_yaml, shapes, spec_cache  # noqa: F401  (lowering: registers the built-in layer kinds)
from ..budget import gc_paused
from ..compare import Tolerance
from ..dtypes import DOUBLE_NAMES, DTYPES, OTHER_NAMES
from ..errors import SpecError, UserError
from ..network import MAX_ELEMENTS, MAX_RANK, Case, Layer, Network, Spec, TensorType, tensor_type
from .quantization import check_quantized_layers, parse_dynamic_range
from ..names import NAME_RULE, did_you_mean, is_valid_name
from ..installed.opset import check_opset, newest_onnx_opset
from ..registry import layer_kind
from ..targets.profiles import target_names
from ..targets.target import PRECISIONS
from ..xfail import XfailRule, check_cases, parse_rules

__all__ = ["Case", "Spec", "data_files", "load_rules_file", "load_spec", "parse_network", "parse_spec", "read_document"]

MAX_SPEC_BYTES = 16 * 1024 * 1024
SPEC_SUFFIXES = (".yaml", ".yml", ".json")

TOP_KEYS = ("name", "source", "description", "opset", "tolerance", "xfail", "precision", "network", "cases")
NETWORK_KEYS = ("inputs", "constants", "layers", "outputs", "profiles")
LAYER_KEYS = ("name", "op", "inputs", "dynamic_range")
CASE_KEYS = ("name", "description", "inputs", "expected", "tolerance")


def load_spec(path: str | Path, *, max_memory: int | None = None, runs: int = 1, require_cases: bool = True) -> Spec:
    """Read, parse and validate one spec file.

    ``max_memory``: the memory budget in bytes (None: ``converter.budget.default_budget()``); a spec
    whose estimated peak, with ``runs`` runtime configurations, is above it is refused before any
    constant or case data is made. ``require_cases=False``: a spec without ``cases`` (or with an
    empty list) is accepted, for converting (validating needs cases).
    """
    return load_spec_keyed(path, max_memory=max_memory, runs=runs, require_cases=require_cases)[0]


def load_spec_keyed(path: str | Path, *, max_memory: int | None = None, runs: int = 1,
                    require_cases: bool = True) -> tuple[Spec, str | None]:
    """``load_spec``, and the key of its file in the spec cache where the spec depends on that file alone and the
    cache keeps it (else None): validate_spec(file_key=) keys its model and references by it while the spec is
    unchanged (the worker that loaded it checks it at once)."""
    path = Path(path)
    try:
        with gc_paused():
            data = _read_bytes(path)
            limit = budget.default_budget() if max_memory is None else max_memory
            key = spec_cache.file_key(data, path)
            cached = spec_cache.get(key, path, limit, runs)
            if cached is not None and (cached.cases or not require_cases):  # a case-less spec: only for converting
                return cached, key
            npy_reads = casedata.npy_reads
            spec, est = _parse_spec(_document(data, path), path, None, max_memory, runs, require_cases)
            kept = False
            if casedata.npy_reads == npy_reads and spec.cases:  # it depends on its own file only
                # (the estimate the budget was checked against: a dynamic network's at its profiles' max, which the
                # network's own types, dynamic dimensions counting 0 bytes, are not: a warm cache took any budget)
                kept = spec_cache.put(key, spec, est.total, est.runtime)
            return spec, (key if kept else None)
    except UserError as exc:
        raise exc.located(file=str(path)) from None


def read_document(path: Path) -> Any:
    """The plain data of a spec file, read safely (see ``converter.pipeline.safe_yaml`` for the limits)."""
    return _document(_read_bytes(path), path)


def _read_bytes(path: Path) -> bytes:
    if path.suffix not in SPEC_SUFFIXES:
        raise SpecError(f"not a spec file: expected one of {', '.join(SPEC_SUFFIXES)}")
    try:
        if not path.is_file():
            raise SpecError("no such file" if not path.exists() else "not a regular file")
        data = read_bounded(path)
    except OSError as exc:
        raise SpecError(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(f"larger than the {MAX_SPEC_BYTES // 2**20} MiB limit for spec files")
    return data


def read_bounded(path: Path) -> bytes:
    """The file's bytes, at most MAX_SPEC_BYTES + 1 of them (one more than the limit: the caller can tell it is
    over), whatever stat said; but no 16 MiB buffer for a 1 KiB file either (a read of the limit allocates it).
    Opened without waiting (a FIFO with no writer blocked ``validate`` forever here, in the names' pre-pass), and
    anything but a regular file is an OSError, as a missing file is."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        first = min(info.st_size, MAX_SPEC_BYTES) + 1
        data = handle.read(first)
        if len(data) == first:  # the file grew since stat, or is at the limit
            data += handle.read(MAX_SPEC_BYTES + 1 - len(data))
    return data


def _document(data: bytes, path: Path) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"cannot read: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    if path.suffix == ".json":
        return safe_yaml.load_json(text)  # json's C parser: faster than reading a cache entry
    return doc_cache.load(data, lambda: safe_yaml.load_yaml(text))


def parse_spec(doc: Any, path: Path, spec_dir: Path | None = None, *, max_memory: int | None = None,
               runs: int = 1, require_cases: bool = True) -> Spec:
    """Validate the plain data of a spec (as read from a file, or a mapping built in Python).

    ``path`` names the spec in results; relative ``.npy`` paths start at ``spec_dir``, by default its folder.
    ``max_memory`` and ``runs``: see ``load_spec``.
    """
    return _parse_spec(doc, path, spec_dir, max_memory, runs, require_cases)[0]


def _parse_spec(doc: Any, path: Path, spec_dir: Path | None, max_memory: int | None, runs: int,
                require_cases: bool) -> tuple[Spec, budget.Estimate]:
    """``parse_spec``, and the estimate of its peak with one runtime configuration that the budget was checked
    against (each dynamic tensor at its profiles' max), which the spec cache keeps to check later budgets."""
    spec_dir = path.parent if spec_dir is None else spec_dir
    if isinstance(doc, dict) and "network" not in doc and ("cases" not in doc or set(doc) - set(TOP_KEYS)):
        raise SpecError("not a spec: a spec's top level is a mapping with 'name', 'network' and 'cases'; "
                        f"this one has {', '.join(map(repr, list(doc)[:5])) or 'no keys'}")
    doc = _mapping(doc, "", TOP_KEYS, required=("name", "network"))
    name = _name(doc["name"], "name")
    source = _text(doc.get("source", ""), "source")
    _text(doc.get("description", ""), "description")
    opset = _at("opset", _opset, doc["opset"]) if "opset" in doc else None
    tolerance = _at("tolerance", Tolerance.parse, doc["tolerance"]) if "tolerance" in doc else None
    xfail = _at("xfail", lambda d: parse_rules(d, spec_name=name, targets=target_names()), doc["xfail"]) \
        if "xfail" in doc else ()
    precision = _precision(doc["precision"]) if "precision" in doc else ()
    network, largest = _parse_network(doc["network"], spec_dir, max_memory)
    if "cases" not in doc and require_cases and not network.profiles:
        raise SpecError("missing required field 'cases'")
    raw_cases = _list(doc["cases"], "cases", nonempty=require_cases and not network.profiles) if "cases" in doc else []
    if not raw_cases and network.profiles:  # by default: a case at the min, opt and max of each profile
        raw_cases = shapes.default_cases(network)
    budget.check_estimate(network, raw_cases, max_memory, runs, types=largest)  # before any case data is made
    cases = _parse_cases(raw_cases, network, spec_dir)
    if xfail and cases:
        _at("xfail", check_cases, xfail, [c.name for c in cases])
    return (Spec(name, path, network, cases, source, opset, tolerance, xfail, precision),
            budget.estimate(network, raw_cases, 1, types=largest))


def _precision(value: Any) -> tuple[str, ...]:
    """``precision: [fp16, int8]``: the TensorRT builder flags the build allows (trtexec --fp16/--int8), sorted."""
    values = _list(value, "precision")
    for i, item in enumerate(values):
        if not isinstance(item, str) or item not in PRECISIONS:
            raise SpecError(f"{repr(item)[:60]} is not a precision{did_you_mean(item, PRECISIONS) if isinstance(item, str) else ''}; "
                            f"allowed: {', '.join(PRECISIONS)} (TensorRT's BuilderFlag FP16, INT8)", field=f"precision[{i}]")
        if item in values[:i]:
            raise SpecError(f"{item!r} is listed twice", field=f"precision[{i}]")
    return tuple(sorted(values))


# --- network -----------------------------------------------------------------------------------


def parse_network(doc: Any, spec_dir: Path = Path("."), *, profiles_required: bool = True) -> Network:
    """Validate the ``network`` mapping of a spec alone (no cases): the loader's own checks, fields named from ``network``.
    ``profiles_required=False``: a dynamic network without ``profiles`` is taken (the TensorRT-style builder checks
    each layer as it is added; its profiles come with the build's config); profiles given are checked all the same."""
    return _parse_network(doc, spec_dir, profiles_required=profiles_required)[0]


def _parse_network(doc: Any, spec_dir: Path, max_memory: int | None = None, *,
                   profiles_required: bool = True) -> tuple[Network, dict[str, TensorType]]:
    """(the network, each tensor's type at the profile corner where it is largest: for the budget of a dynamic one)."""
    doc = _mapping(doc, "network", NETWORK_KEYS, required=("inputs", "layers", "outputs"))
    types: dict[str, TensorType] = {}
    inputs = {}
    shape_inputs = []
    scales: dict[str, float] = {}  # int8 tensors with a dynamic_range (converter/pipeline/quantization.py)
    for name, tdoc in _mapping(doc["inputs"], "network.inputs").items():
        where = f"network.inputs.{name}"
        _name(name, where)
        inputs[name] = types[name] = _tensor_type(tdoc, where, ("dtype", "shape", "dynamic_range", "shape_tensor"))
        if _at(f"{where}.shape_tensor", _shape_tensor, tdoc.get("shape_tensor", False), inputs[name]):
            shape_inputs.append(name)
        if "dynamic_range" in tdoc:
            scales[name] = _at(f"{where}.dynamic_range", parse_dynamic_range, tdoc["dynamic_range"], inputs[name])
    constant_docs = _mapping(doc.get("constants") or {}, "network.constants")
    constant_types = {}
    for name, tdoc in constant_docs.items():
        where = f"network.constants.{name}"
        _name(name, where)
        if name in types:
            raise SpecError(f"name {name!r} is already a network input", field=where)
        constant_types[name] = _tensor_type(tdoc, where, ("dtype", "shape", "data", "dynamic_range"), required=("dtype", "shape", "data"))
        if not constant_types[name].is_static:
            raise SpecError(f"a constant's shape is static; {constant_types[name]} has a dynamic dimension", field=f"{where}.shape")
        if "dynamic_range" in tdoc:
            scales[name] = _at(f"{where}.dynamic_range", parse_dynamic_range, tdoc["dynamic_range"], constant_types[name])
    budget.check_constants(constant_types, max_memory)  # before any constant is made
    constants = {}
    for name, ttype in constant_types.items():
        constants[name] = _at(f"network.constants.{name}.data", casedata.materialize, constant_docs[name]["data"], ttype, spec_dir)
        types[name] = ttype
    raw_layers = _list(doc["layers"], "network.layers", nonempty=True)
    layers = [_parse_layer(raw, f"network.layers[{i}]", types, inputs, constants) for i, raw in enumerate(raw_layers)]
    ordered = _topological_order(layers, types)
    for layer in ordered:
        kind = layer_kind(layer.op)
        in_types = [types[i] for i in layer.inputs]
        out = _at(layer.field, kind.check, layer, in_types)
        if out.is_static and out.size > MAX_ELEMENTS:
            raise SpecError(f"output has {out.size} elements, above the 2^31 limit", field=layer.field)
        huge = [d for d in out.shape if d is not None and d > MAX_ELEMENTS]
        if huge:  # an empty tensor has 0 elements whatever its other dimensions: check them one by one
            raise SpecError(f"output dimension {huge[0]} is above the 2^31 limit (output shape {list(out.shape)})", field=layer.field)
        types[layer.name] = out
    for i, raw in enumerate(raw_layers):  # a layer's dynamic_range: its output tensor's, known now
        if "dynamic_range" in raw:
            where = f"network.layers[{i}].dynamic_range"
            scales[raw["name"]] = _at(where, parse_dynamic_range, raw["dynamic_range"], types[raw["name"]])
    check_quantized_layers(ordered, scales)
    layer_names = {layer.name for layer in layers}
    outputs = []
    for i, name in enumerate(_list(doc["outputs"], "network.outputs", nonempty=True)):
        where = f"network.outputs[{i}]"
        if not isinstance(name, str) or name not in layer_names:
            raise SpecError(f"{name!r} is not a layer{did_you_mean(name, layer_names)}{_yaml_boolean_hint(name)}; "
                           "outputs name layers", field=where)
        if name in outputs:
            raise SpecError(f"{name!r} is listed twice", field=where)
        outputs.append(name)
    network = Network(inputs, constants, ordered, outputs, types, scales, shape_inputs=tuple(shape_inputs))
    network.profiles = shapes.parse_profiles(doc.get("profiles"), network, required=profiles_required)
    return network, shapes.check_profiles(network)


def _shape_tensor(flag: Any, ttype: TensorType) -> bool:
    """``shape_tensor: true``: an input whose values are a shape (TensorRT's shape tensor, set_shape_input)."""
    if not isinstance(flag, bool):
        raise SpecError(f"must be true or false, got {_kind(flag)}")
    if flag and (ttype.dtype.name not in shapes.SHAPE_INPUT_TYPES or ttype.rank != 1 or not ttype.is_static):
        raise SpecError(f"a shape input is a 1-D int32 or int64 tensor of a static length (as IResizeLayer's input1); "
                        f"this one is {ttype}")
    return flag


def _parse_layer(raw: Any, where: str, types: dict, inputs: dict, constants: dict) -> Layer:
    raw = _mapping(raw, where, required=("name", "op", "inputs"))
    name = _name(raw["name"], f"{where}.name")
    if name in types:
        raise SpecError(f"name {name!r} is already a network input or constant", field=f"{where}.name")
    op = raw["op"]
    kind = _at(f"{where}.op", layer_kind, op)
    layer_inputs = _list(raw["inputs"], f"{where}.inputs", nonempty=True)
    if not kind.min_inputs <= len(layer_inputs) <= kind.max_inputs:
        count = str(kind.min_inputs) if kind.min_inputs == kind.max_inputs else f"{kind.min_inputs} to {kind.max_inputs}"
        raise SpecError(f"{op} takes {count} inputs ({', '.join(kind.inputs)}), got {len(layer_inputs)}", field=f"{where}.inputs")
    for j, tensor in enumerate(layer_inputs):
        if not isinstance(tensor, str):
            raise SpecError(f"expected a tensor name, got {tensor!r}{_yaml_boolean_hint(tensor)}",
                            field=f"{where}.inputs[{j}]")
    attrs = {}
    for key, value in raw.items():
        if key in LAYER_KEYS:
            continue
        if key not in kind.attributes:
            allowed = ", ".join(kind.attributes) or "none"
            raise SpecError(
                f"unknown attribute {key!r} for {op}{did_you_mean(key, [*kind.attributes, *LAYER_KEYS])}; allowed: "
                f"{allowed} (and every layer's {', '.join(LAYER_KEYS)})",
                field=f"{where}.{key}",
            )
        attrs[key] = _at(f"{where}.{key}", kind.attributes[key].parse, value)
    for key, attr in kind.attributes.items():
        if key not in attrs:
            if attr.required:
                raise SpecError(f"{op} requires attribute {key!r}", field=where)
            attrs[key] = attr.default
    return Layer(name, op, tuple(layer_inputs), attrs, where)


def _topological_order(layers: list[Layer], types: dict) -> list[Layer]:
    by_name: dict[str, Layer] = {}
    for layer in layers:
        if layer.name in by_name:
            raise SpecError(f"layer name {layer.name!r} is used twice", field=f"{layer.field}.name")
        by_name[layer.name] = layer
    for layer in layers:
        for j, tensor in enumerate(layer.inputs):
            if tensor not in types and tensor not in by_name:
                known = list(types) + list(by_name)
                raise SpecError(f"{tensor!r} names no input, constant or layer{did_you_mean(tensor, known)}", field=f"{layer.field}.inputs[{j}]")
    order: list[Layer] = []
    state: dict[str, int] = {}  # 1 = visiting, 2 = done
    for start in layers:
        stack = [(start, 0)]
        while stack:
            layer, j = stack.pop()
            if j == 0:
                if state.get(layer.name) == 2:
                    continue
                state[layer.name] = 1
            deps = [by_name[t] for t in layer.inputs if t in by_name]
            if j < len(deps):
                stack.append((layer, j + 1))
                dep = deps[j]
                if state.get(dep.name) == 1:
                    raise SpecError(f"layer {dep.name!r} depends on itself through a cycle", field=dep.field)
                if state.get(dep.name) != 2:
                    stack.append((dep, 0))
            else:
                state[layer.name] = 2
                order.append(layer)
    return order


def _tensor_type(doc: Any, where: str, keys, required=("dtype", "shape")) -> TensorType:
    doc = _mapping(doc, where, keys, required=required)
    dtype_name = doc["dtype"]
    if not isinstance(dtype_name, str) or dtype_name not in DTYPES:
        plain = dtype_name.rsplit(".", 1)[-1].lower() if isinstance(dtype_name, str) else None
        hint = (f" (did you mean {OTHER_NAMES[plain]!r}?)" if plain in OTHER_NAMES
                else " (the layers here have no 64-bit float: float32 is the widest)" if plain in DOUBLE_NAMES
                else did_you_mean(dtype_name, DTYPES))
        raise SpecError(f"unknown dtype {dtype_name!r}{hint}; allowed: {', '.join(DTYPES)}", field=f"{where}.dtype")
    shape = _list(doc["shape"], f"{where}.shape")
    if len(shape) > MAX_RANK:
        raise SpecError(f"rank {len(shape)} is above {MAX_RANK}, the most dimensions numpy {np.__version__} allows "
                        "(numpy holds the case data, computes the reference and feeds onnxruntime)", field=f"{where}.shape")
    ttype = tensor_type(DTYPES[dtype_name], *shapes.parse_dims(shape, f"{where}.shape"))
    if ttype.size is not None and ttype.size > MAX_ELEMENTS:
        raise SpecError(f"{ttype.size} elements, above the 2^31 limit", field=f"{where}.shape")
    return ttype


# --- cases -------------------------------------------------------------------------------------


def _parse_cases(doc: list, network: Network, spec_dir: Path) -> list[Case]:
    cases: list[Case] = []
    seen = set()
    # each case's shapes (and shape input values) checked through the network: where a dimension is dynamic
    dynamic = any(not t.is_static for t in network.types.values())
    for i, raw in enumerate(doc):
        where = f"cases[{i}]"
        raw = _mapping(raw, where, CASE_KEYS, required=("name", "inputs"))
        name = _name(raw["name"], f"{where}.name")
        if name in seen:
            raise SpecError(f"case name {name!r} is used twice", field=f"{where}.name")
        seen.add(name)
        given = _mapping(raw["inputs"], f"{where}.inputs")
        inputs = {}
        for tensor in given:
            if tensor not in network.inputs:
                hint = did_you_mean(tensor, network.inputs) + _yaml_boolean_hint(tensor)
                raise SpecError(f"{tensor!r} is not a network input{hint}", field=f"{where}.inputs.{tensor}")
        for tensor, ttype in network.inputs.items():
            if tensor not in given:
                raise SpecError(f"no data for network input {tensor!r}", field=f"{where}.inputs")
            value = given[tensor]
            if not ttype.is_static and isinstance(value, dict) and isinstance(value.get("shape"), list):
                # a random generator's shape, checked before its data is made (rank, static dimensions, profiles)
                given_shape = _at(f"{where}.inputs.{tensor}", casedata.generator_shape, value["shape"])
                _at(f"{where}.inputs.{tensor}.shape", shapes.check_input_shape, network, tensor, given_shape)
            inputs[tensor] = _at(f"{where}.inputs.{tensor}", casedata.materialize, value, ttype, spec_dir)
            if not ttype.is_static:
                _at(f"{where}.inputs.{tensor}", shapes.check_input_shape, network, tensor, inputs[tensor].shape)
        types = _at(where, shapes.check_case, network, inputs) if dynamic else network.types
        expected = None
        if raw.get("expected") is not None:
            expected = {}
            for tensor, value in _mapping(raw["expected"], f"{where}.expected").items():
                if tensor not in network.outputs:
                    hint = did_you_mean(tensor, network.outputs) + _yaml_boolean_hint(tensor)
                    raise SpecError(f"{tensor!r} is not a network output{hint}", field=f"{where}.expected.{tensor}")
                expected[tensor] = _at(f"{where}.expected.{tensor}", casedata.materialize, value, types[tensor], spec_dir)
        tolerance = _at(f"{where}.tolerance", Tolerance.parse, raw["tolerance"]) if "tolerance" in raw else None
        cases.append(Case(name, inputs, expected, tolerance))
    return cases


# --- small helpers -----------------------------------------------------------------------------


def _at(where: str, fn: Callable, *args):
    """Call fn, prefixing the field of any SpecError it raises with ``where``."""
    try:
        return fn(*args)
    except UserError as exc:
        raise exc.located(field_prefix=where) from None


def _mapping(doc: Any, where: str, keys=None, required=()) -> dict:
    if not isinstance(doc, dict):
        what = "the document" if not where else where
        raise SpecError(f"{what} must be a mapping, got {_kind(doc)}", field=where or None)
    if keys is not None:
        for key in doc:
            if key not in keys:
                raise SpecError(
                    f"unknown field {key!r}{did_you_mean(key, keys)}; allowed: {', '.join(keys)}",
                    field=f"{where}.{key}" if where else str(key),
                )
    for key in required:
        if key not in doc:
            raise SpecError(f"missing required field {key!r}", field=where or None)
    return doc


def _list(doc: Any, where: str, nonempty: bool = False) -> list:
    if not isinstance(doc, list):
        raise SpecError(f"must be a list, got {_kind(doc)}", field=where)
    if nonempty and not doc:
        raise SpecError("must not be empty", field=where)
    return doc


def _name(value: Any, where: str) -> str:
    if not is_valid_name(value):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:60] + "..."
        raise SpecError(f"{shown} is not a valid name ({NAME_RULE}){_yaml_boolean_hint(value)}", field=where)
    return value


def _yaml_boolean_hint(value: Any) -> str:
    """Where a name is expected and a boolean came: YAML (1.1, as PyYAML reads it) makes an unquoted on, off, yes
    or no a boolean, so a tensor named ``on`` arrives as True."""
    return " (in YAML an unquoted on, off, yes or no is a boolean: quote a name such as 'on')" \
        if isinstance(value, bool) else ""


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise SpecError(f"must be text, got {_kind(value)}", field=where)
    return value


def _opset(value: Any) -> int:
    newest = newest_onnx_opset() if isinstance(value, int) and not isinstance(value, bool) else 0
    return check_opset(value, newest, "this onnx's newest", label="", error=SpecError)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "text"}.get(type(value), type(value).__name__ + f" {value!r}")


def data_files(path: str | Path) -> list[Path]:
    """The .npy files a (valid) spec file reads its data from: outputs must never overwrite them."""
    path = Path(path)
    found: list[Path] = []

    def walk(value: Any) -> None:
        if isinstance(value, str) and value.endswith(".npy"):
            found.append(path.parent / value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    try:
        walk(read_document(path))
    except UserError:
        return []
    return found


def load_rules_file(path: str | Path) -> tuple[XfailRule, ...]:
    """Rules from a YAML or JSON file, read with the spec reader's limits (size, aliases, tags)."""
    path = Path(path)
    if not path.is_file():  # else read_document's "not a spec file" for a missing file without a suffix, or a folder
        raise UserError(f"{path}: no such file (known-failure rules: a .yaml, .yml or .json file)")
    try:
        return parse_rules(read_document(path), targets=target_names())
    except UserError as exc:
        raise exc.located(file=str(path)) from None
