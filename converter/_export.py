"""What the network builders (spec2onnx.trt, spec2onnx.dml) share: from a ``network`` mapping to a
spec mapping with cases, a spec file, a model or a validation report.

There is one validation path: the builders write the mapping a spec file would hold and the
loader (``converter.pipeline.spec``) validates it, exactly as it validates files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import yaml

from .errors import UserError
from .api import plain_data
from .files import write_atomic

# Case data when the caller gives none: seeded, within ranges every layer kind takes.
_RANDOM_FLOAT = {"random": "uniform", "low": -4.0, "high": 4.0}
_RANDOM_INT = {"random": "integers", "low": -8, "high": 8}
_RANDOM_UINT = {"random": "integers", "low": 0, "high": 16}
_RANDOM_BOOL = {"random": "integers", "low": 0, "high": 1}


def generator(dtype: str, seed: int = 0) -> dict:
    """Seeded random data of a tensor type (a spec's ``{random: ...}``), within ranges every layer kind takes; also
    the data of an empty constant, which nested lists cannot give the shape of (``[]`` is shape [0])."""
    if dtype.startswith(("float", "bfloat")):
        gen = _RANDOM_FLOAT
    elif dtype == "bool":
        gen = _RANDOM_BOOL
    else:
        gen = _RANDOM_UINT if dtype.startswith("uint") else _RANDOM_INT
    return {**gen, "seed": seed}


def default_case(inputs: Mapping[str, Mapping[str, Any]]) -> dict:
    """One case of seeded random data for every network input (``{dtype, shape}`` mappings)."""
    return {"name": "random", "inputs": {name: generator(tensor["dtype"], seed)
                                         for seed, (name, tensor) in enumerate(inputs.items())}}


def cases_doc(cases, call: str, tensor_name: Callable[[Any, str], str]) -> list[dict]:
    """The ``cases`` list of a spec from what a builder's caller gave.

    ``cases``: one mapping or a list of them, each ``{"name"?, "inputs": {tensor: data}, "expected"?: {...},
    "tolerance"?: {...}}``; tensors may be named or given as builder tensors (``tensor_name`` turns them
    into names, raising a UserError that names ``call`` otherwise).
    """
    if isinstance(cases, Mapping):
        cases = [cases]
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Iterable):
        raise UserError(f"{call}: cases: expected a mapping or a list of mappings, got {type(cases).__name__}")
    out = []
    for i, case in enumerate(cases):
        if not isinstance(case, Mapping):
            raise UserError(f"{call}: cases[{i}]: expected a mapping with 'inputs', got {type(case).__name__}")
        doc = {"name": case.get("name", f"case-{i}")}
        for key, value in case.items():
            if key in ("inputs", "expected") and isinstance(value, Mapping):
                doc[key] = {tensor_name(t, f"{call}: cases[{i}].{key}"): data for t, data in value.items()}
            elif key != "name":
                doc[key] = value
        out.append(doc)
    return out


def write_spec(doc: Mapping, path: str | os.PathLike, call: str) -> Path:
    """Write a spec mapping as YAML (``.yaml``/``.yml``) or JSON (``.json``), atomically."""
    path = Path(path)
    if path.suffix not in (".yaml", ".yml", ".json"):
        raise UserError(f"{call}: path {str(path)!r}: a spec file ends in .yaml, .yml or .json")
    if not path.parent.is_dir():
        raise UserError(f"{call}: path {str(path)!r}: folder {path.parent} does not exist")
    data = plain_data(doc)
    if path.suffix == ".json":
        text = json.dumps(data, indent=1) + "\n"
    else:
        text = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=120)
    write_atomic(path, text.encode("utf-8"))
    return path
