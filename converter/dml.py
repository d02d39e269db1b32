"""DirectML operator descriptors, as Python dicts shaped like DirectML's C structs.

::

    from spec2onnx import dml

    desc = dml.dequantize_linear(
        dml.tensor_desc(dml.DML_TENSOR_DATA_TYPE_UINT8, [1, 1, 2, 2]),   # InputTensor
        np.full((1, 1, 2, 2), 0.5, np.float32),                          # ScaleTensor (an array: a constant)
        np.full((1, 1, 2, 2), 128, np.uint8),                            # ZeroPointTensor (optional)
        dml.DML_TENSOR_DATA_TYPE_FLOAT32)                                # OutputTensor's DataType
    desc["OutputTensor"]        # {"DataType": "DML_TENSOR_DATA_TYPE_FLOAT32", "DimensionCount": 4, "Sizes": [1, 1, 2, 2]}
    desc.validate({"inputs": {"input": [[[[128, 130], [126, 255]]]]}})
    desc.to_onnx(), desc.to_spec("dq.yaml")

A tensor argument is a tensor descriptor (``tensor_desc``, or a dict with ``DataType`` and
``Sizes``: an operator input, fed by the cases) or a numpy array (a constant). The spec names the
inputs ``input``, ``scale``, ``zero_point`` and the output ``output``. As for the TensorRT builder,
the descriptor is written as a spec mapping and validated by the spec loader (one validation
path); errors are ``UserError``s naming the call and the argument.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from . import _export, api
from .errors import UserError
from .pipeline.spec import parse_network

__all__ = ["tensor_desc", "dequantize_linear", "OperatorDesc", "DATA_TYPES", "FEATURE_LEVELS"]

# DML_TENSOR_DATA_TYPE_* -> the spec's dtype name (the types DirectML and spec2onnx share)
DATA_TYPES = {"FLOAT32": "float32", "FLOAT16": "float16", "INT8": "int8", "INT16": "int16", "INT32": "int32",
              "INT64": "int64", "UINT8": "uint8", "UINT16": "uint16", "UINT32": "uint32"}
for _short in DATA_TYPES:
    globals()[f"DML_TENSOR_DATA_TYPE_{_short}"] = f"DML_TENSOR_DATA_TYPE_{_short}"
    __all__.append(f"DML_TENSOR_DATA_TYPE_{_short}")
FEATURE_LEVELS = ("1.0", "2.1", "3.0", "6.0", "6.2")
for _level in FEATURE_LEVELS:
    globals()[f"DML_FEATURE_LEVEL_{_level.replace('.', '_')}"] = f"DML_FEATURE_LEVEL_{_level.replace('.', '_')}"
    __all__.append(f"DML_FEATURE_LEVEL_{_level.replace('.', '_')}")

_CALL = "dml.dequantize_linear()"
_SPEC_NAMES = {"InputTensor": "input", "ScaleTensor": "scale", "ZeroPointTensor": "zero_point"}


def tensor_desc(data_type: str, sizes: Sequence[int]) -> dict:
    """A ``DML_BUFFER_TENSOR_DESC`` as a dict: ``{"DataType", "DimensionCount", "Sizes"}``."""
    name = _data_type(data_type, "dml.tensor_desc()", "data_type")
    dims = _sizes(sizes, "dml.tensor_desc()", "sizes")
    return {"DataType": f"DML_TENSOR_DATA_TYPE_{name}", "DimensionCount": len(dims), "Sizes": dims}


class _ReadOnly(dict):
    """A dict that refuses changes: the operator was checked and lowered from its members as they were made, so a
    member changed afterwards would describe another operator than the model and the validation (they ignored it)."""

    def _refuse(self, *args, **kwargs):
        raise UserError(f"{_CALL}: a descriptor is read-only once made (its model and checks are of these members): "
                        "make a new one with dml.dequantize_linear(...)")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):  # (copy, deepcopy and pickle rebuild it whole, not item by item)
        return type(self), (dict(self),)


class _ReadOnlyList(list):
    """A list that refuses changes (a descriptor's Sizes, Strides): equal to the list it was made from."""

    def _refuse(self, *args, **kwargs):
        raise UserError(f"{_CALL}: a descriptor is read-only once made, its lists too (desc[...]['Sizes'][i] = ... "
                        "changed what it showed, not its model): make a new one with dml.dequantize_linear(...)")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = extend = insert = remove = pop = clear = sort = \
        reverse = _refuse

    def __reduce__(self):
        return type(self), (list(self),)


def _read_only(value):
    """``value`` with every dict in it (a member, a tensor descriptor) and every list a read-only copy."""
    if isinstance(value, dict):
        return _ReadOnly({k: _read_only(v) for k, v in value.items()})
    if isinstance(value, list):
        return _ReadOnlyList(_read_only(v) for v in value)
    return value


class OperatorDesc(_ReadOnly):
    """An operator descriptor: a dict with the C struct's members (read-only), plus ``to_spec``, ``to_onnx``,
    ``validate``."""

    def __init__(self, members: dict, network: dict):
        super().__init__({k: _read_only(v) for k, v in members.items()})
        self._network = network

    def __reduce__(self):
        return type(self), (dict(self), self._network)

    def to_spec_dict(self, name: str = "dml-operator", cases=None) -> dict:
        """The spec mapping of this operator (see ``spec2onnx.load_spec``); ``cases`` as in ``spec2onnx.trt.INetworkDefinition``.

        Case tensors are named ``input``, ``scale``, ``zero_point`` (or by the struct member, ``InputTensor`` ...)
        and ``output``. None: one case of seeded random data for every descriptor input.
        """
        if cases is None:
            case_list = [_export.default_case(self._network["inputs"])]
        else:
            case_list = _export.cases_doc(cases, f"{_CALL} cases", _tensor_name)
        return {"name": name, "network": self._network, "cases": case_list}

    def to_spec(self, path, name: str | None = None, cases=None) -> Path:
        """Write the operator as a spec file (``.yaml``/``.yml``/``.json``) that ``spec2onnx validate`` takes."""
        path = Path(path)
        doc = self.to_spec_dict(name or path.stem, cases)
        _load(doc, "to_spec()")
        return _export.write_spec(doc, path, "to_spec()")

    def to_onnx(self, target: str = "portable", *, opset: int | None = None, path=None, name: str = "dml-operator"):
        """The operator as an ``onnx.ModelProto`` for ``target`` (see ``spec2onnx.convert``)."""
        return api.convert(_load(self.to_spec_dict(name), "to_onnx()"), path, target=target, opset=opset).model

    def validate(self, cases=None, *, runtime: str = "onnxruntime", provider: str = "cpu", opset: int | None = None,
                 name: str = "dml-operator"):
        """Run ``cases`` and compare with the numpy reference and ``expected``; a ``spec2onnx.ValidationReport``."""
        return api.validate(_load(self.to_spec_dict(name, cases), "validate()"), runtime=runtime, provider=provider,
                        opset=opset)


def dequantize_linear(input: Any, scale: Any, zero_point: Any = None, output_dtype: str | None = None, *,  # noqa: A002
                      feature_level: str | float | None = None) -> OperatorDesc:
    """``DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC``: ``(input - zero_point) * scale``, element by element.

    ``input``, ``scale``, ``zero_point``: tensor descriptors (operator inputs) or numpy arrays (constants);
    all of one shape. ``output_dtype``: OutputTensor's DataType (``DML_TENSOR_DATA_TYPE_FLOAT32`` or
    ``FLOAT16``; default the scale's). ``feature_level``: ``DML_FEATURE_LEVEL_6_2`` or ``"6.2"`` ...
    (default the newest): that level's tensor table is enforced.
    """
    members, inputs, constants, names = {}, {}, {}, []
    for member, value in (("InputTensor", input), ("ScaleTensor", scale), ("ZeroPointTensor", zero_point)):
        if value is None:
            if member != "ZeroPointTensor":
                raise UserError(f"{_CALL}: {_SPEC_NAMES[member]}: required (a tensor descriptor or an array)")
            members[member] = None
            continue
        spec_name = _SPEC_NAMES[member]
        desc, data = _tensor_argument(value, spec_name)
        members[member] = desc
        tensor = {"dtype": DATA_TYPES[desc["DataType"].removeprefix("DML_TENSOR_DATA_TYPE_")], "shape": desc["Sizes"]}
        if data is None:
            inputs[spec_name] = tensor
        else:
            constants[spec_name] = {**tensor, "data": data}
        names.append(spec_name)
    layer = {"name": "output", "op": "dml.DequantizeLinear", "inputs": names}
    out_type = members["ScaleTensor"]["DataType"]
    if output_dtype is not None:
        out_type = f"DML_TENSOR_DATA_TYPE_{_data_type(output_dtype, _CALL, 'output_dtype')}"
        layer["output_dtype"] = DATA_TYPES[out_type.removeprefix("DML_TENSOR_DATA_TYPE_")]
    if feature_level is not None:
        layer["feature_level"] = _feature_level(feature_level)
    members["OutputTensor"] = {"DataType": out_type, "DimensionCount": members["InputTensor"]["DimensionCount"],
                               "Sizes": list(members["InputTensor"]["Sizes"])}
    network = {"inputs": inputs, **({"constants": constants} if constants else {}), "layers": [layer],
               "outputs": ["output"]}
    if not inputs:
        raise UserError(f"{_CALL}: input: at least one tensor must be an operator input (a tensor descriptor), "
                        "not an array")
    _check(network)
    return OperatorDesc(members, network)


def _tensor_argument(value, argument: str) -> tuple[dict, Any]:
    if isinstance(value, np.ndarray):
        for short, name in DATA_TYPES.items():
            if np.dtype(name) == value.dtype:
                return {"DataType": f"DML_TENSOR_DATA_TYPE_{short}", "DimensionCount": value.ndim,
                        "Sizes": list(value.shape)}, value
        raise UserError(f"{_CALL}: {argument}: numpy {value.dtype} is not a DirectML data type here; "
                        f"allowed: {', '.join(DATA_TYPES.values())}")
    if isinstance(value, Mapping):
        if "DataType" not in value or "Sizes" not in value:
            raise UserError(f"{_CALL}: {argument}: a tensor descriptor needs 'DataType' and 'Sizes' (see dml.tensor_desc)")
        name = _data_type(value["DataType"], _CALL, f"{argument} DataType")
        sizes = _sizes(value["Sizes"], _CALL, f"{argument} Sizes")
        desc = {"DataType": f"DML_TENSOR_DATA_TYPE_{name}", "DimensionCount": len(sizes), "Sizes": sizes}
        unknown = sorted(str(k) for k in value if k not in _BUFFER_DESC_MEMBERS)
        if unknown:
            raise UserError(f"{_CALL}: {argument}: {unknown[0]!r} is not a DML_BUFFER_TENSOR_DESC member; "
                            f"allowed: {', '.join(_BUFFER_DESC_MEMBERS)}")
        strides = value.get("Strides")
        if strides is not None and not _dense(sizes, _sizes(strides, _CALL, f"{argument} Strides", least=0)):
            # Ignoring them would read the buffer as dense: silently another operator.
            raise UserError(f"{_CALL}: {argument}: Strides {list(strides)}: a descriptor here is dense (Strides "
                            f"{_packed_strides(sizes)} or none); strided scale and zero point buffers are written in "
                            "a spec, `strides: {scale: [...]}` (docs/semantics.md, dml.DequantizeLinear)")
        if "DimensionCount" in value and value["DimensionCount"] != desc["DimensionCount"]:
            raise UserError(f"{_CALL}: {argument}: DimensionCount {value['DimensionCount']!r} differs from the "
                            f"{desc['DimensionCount']} Sizes")
        return desc, None
    raise UserError(f"{_CALL}: {argument}: expected a tensor descriptor (dml.tensor_desc) or a numpy array, "
                    f"got {type(value).__name__}")


# Flags, TotalTensorSizeInBytes and GuaranteedBaseOffsetAlignment change no value; Strides do (checked).
_BUFFER_DESC_MEMBERS = ("DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
                        "GuaranteedBaseOffsetAlignment")


def _packed_strides(sizes: list[int]) -> list[int]:
    """The strides of a dense row-major tensor of ``sizes``, in elements (what no Strides means)."""
    strides, step = [], 1
    for n in reversed(sizes):
        strides.insert(0, step)
        step *= n
    return strides


def _dense(sizes: list[int], strides: list[int]) -> bool:
    """Whether ``strides`` read the tensor as a dense one (a dimension of size 1 may have any stride)."""
    return len(strides) == len(sizes) and all(n == 1 or s == p for n, s, p in zip(sizes, strides, _packed_strides(sizes)))


def _data_type(value, call: str, argument: str) -> str:
    if isinstance(value, str):
        short = value.removeprefix("DML_TENSOR_DATA_TYPE_").upper()
        if short in DATA_TYPES:
            return short
    raise UserError(f"{call}: {argument}: {value!r} is not a DirectML data type spec2onnx knows; allowed: "
                    f"{', '.join('DML_TENSOR_DATA_TYPE_' + s for s in DATA_TYPES)}")


def _feature_level(value) -> str:
    if isinstance(value, str) and value.startswith("DML_FEATURE_LEVEL_"):
        return value.removeprefix("DML_FEATURE_LEVEL_").replace("_", ".")
    return value  # "6.2" or 6.2: the loader checks it


def _sizes(value, call: str, argument: str, least: int = 1) -> list[int]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise UserError(f"{call}: {argument}: expected a sequence of integers, got {value!r}")
    sizes = list(value)
    for i, s in enumerate(sizes):
        if isinstance(s, type(True)) or not isinstance(s, (int, np.integer)):
            raise UserError(f"{call}: {argument}: {s!r} is not an integer size")
        if s < least:  # (DML_BUFFER_TENSOR_DESC: Sizes are UINTs, and "a size of zero in any dimension is invalid"; a -1
            # read as a dynamic dimension, and an error about TensorRT's optimization profiles followed)
            raise UserError(f"{call}: {argument}[{i}]: {int(s)}: " + ("a DirectML size is at least 1 (DML_BUFFER_TENSOR_DESC: "
                            "a size of zero in any dimension is invalid)" if least else "a stride is at least 0"))
    return [int(s) for s in sizes]


def _tensor_name(tensor, where: str) -> str:
    name = _SPEC_NAMES.get(tensor, tensor) if isinstance(tensor, str) else None
    if name is None:
        raise UserError(f"{where}: tensors are named input, scale, zero_point or output, got {tensor!r}")
    return "output" if name == "OutputTensor" else name


def _check(network: dict) -> None:
    try:
        parse_network(api.plain_data(network))
    except UserError as exc:
        raise _translate(exc) from None


def _load(doc: dict, call: str):
    try:
        return api.load_spec(doc)
    except UserError as exc:
        if exc.field and exc.field.startswith("network."):
            raise _translate(exc) from None
        raise UserError(f"{call}: {exc.field}: {exc.detail}" if exc.field else f"{call}: {exc.detail}") from None


def _translate(exc: UserError) -> UserError:
    """A loader error told as the argument of ``dequantize_linear`` it comes from."""
    field = exc.field or ""
    for prefix in ("network.layers[0].", "network.inputs.", "network.constants."):
        if field.startswith(prefix):
            argument = field.removeprefix(prefix)
            argument = {"inputs[0]": "input", "inputs[1]": "scale", "inputs[2]": "zero_point"}.get(argument, argument)
            return UserError(f"{_CALL}: {argument}: {exc.detail}")
    return UserError(f"{_CALL}: {exc.detail}")
