"""Check the enumeration table (converter/targets/tables/attribute-values.json) against the installed onnxruntime.

For each entry and op, a model of onnx's node test cases of that op (restamped to an opset in the entry's
since-range where no case is) that onnxruntime loads is given each listed value, then a value outside the
list; onnxruntime must load every listed value (or refuse it for another reason than the entry's source line)
and refuse the value outside the list when it creates the session::

    python -m tools.attribute_values          # one line per entry and op: ok, or what disagrees

tests/targets/test_validation.py holds every entry to it.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from dataclasses import dataclass

import onnx
from onnx import defs, helper

from converter.targets.attributes import TABLE
from converter.targets.validation import has_output, scan_count

BOGUS_TEXT = "not_a_value"


@dataclass
class Verdict:
    op: str
    attribute: str
    since: int | None  # the since-version of the model probed; None: no model found
    problems: list  # what disagrees with the table (empty: the entry holds)

    @property
    def ok(self) -> bool:
        return self.since is not None and not self.problems


def _cases():
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [c for c in collect_testcases() if len(c.model.graph.node) == 1]


def _since(model, node) -> int | None:
    domain = "" if node.domain in ("", "ai.onnx") else node.domain
    version = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}.get(domain)
    try:
        return defs.get_schema(node.op_type, version, domain).since_version
    except Exception:  # noqa: BLE001 - no schema at that opset
        return None


def _restamped(model, domain: str, version: int):
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for o in copy.opset_import:
        if ("" if o.domain == "ai.onnx" else o.domain) == domain:
            o.version = version
    return copy


def _with(model, values: dict):
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    node = copy.graph.node[0]
    for name, value in values.items():
        for attr in list(node.attribute):
            if attr.name == name:
                node.attribute.remove(attr)
        node.attribute.append(helper.make_attribute(name, value, attr_type=onnx.AttributeProto.STRINGS)
                              if value == [] else helper.make_attribute(name, value))
    return copy


def load_error(model) -> str | None:
    """None when onnxruntime's CPU EP creates a session of ``model``, else its error's first line."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - any refusal is an answer
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def fingerprint(row: dict) -> str:
    """What onnxruntime's refusal of a value outside the row names: its 'refusal', else its source's FILE:LINE."""
    found = re.search(r"([\w.]+\.(?:h|cc)):(\d+)", row["source"])
    return row.get("refusal") or (f"{found.group(1)}:{found.group(2)}" if found else row["attribute"])


def outside(row: dict, model) -> object:
    """A value the row does not allow: a bogus string, or an integer or float just past its bounds."""
    node = model.graph.node[0]
    given = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if "data_type" in row:
        return 999
    if "one_element" in row:
        return helper.make_tensor("value", onnx.TensorProto.FLOAT, [2], [1.0, 2.0])
    if "ge_attribute" in row:
        return given.get(row["ge_attribute"], 1) - 1
    if "lt_attribute_per_axis" in row:
        kernel = given.get(row["lt_attribute_per_axis"], [1])
        return [kernel[0]] + [0] * (2 * len(kernel) - 1)
    if "ne_attribute" in row:
        return given.get(row["ne_attribute"], _default(model, row["ne_attribute"]))
    if "le_length_of" in row:
        return len(given.get(row["le_length_of"], [])) + 1
    if "length_of" in row:
        return [1.0] * (len(given.get(row["length_of"], [])) + 1)
    if "index_of" in row:
        return len(given.get(row["index_of"], []))  # (the first index past the list's end)
    if "permutation" in row:
        perm = list(given.get(row["attribute"], [0, 1]))
        return [len(perm)] + perm[1:]
    if "count" in row:
        count = scan_count(given, len(node.input), len(node.output), row["count"])
        return [0] * (count + 1)
    if "per_direction" in row:
        return ["Tanh"] * (row["per_direction"] - 1 if row.get("at_least") else row["per_direction"] + 1)
    if "values" in row:
        first = row["values"][0]
        return BOGUS_TEXT if isinstance(first, str) else max(row["values"]) + 5
    if "axis_of" in row:
        return 1000
    if row.get("odd"):
        return 2
    if "ne" in row:
        return float(row["ne"]) if _is_float(row, model) else row["ne"]
    for key, step in (("le", 1), ("lt", 0), ("gt", 0), ("ge", -1)):
        if key in row:
            bound = len(model.graph.node[0].output) if row[key] == "outputs" else row[key]
            value = bound + step
            return float(value) if _is_float(row, model) else value
    raise ValueError(f"no bound in {row}")


def _default(model, name: str):
    """The schema's default of the node's attribute ``name``."""
    node = model.graph.node[0]
    schema = defs.get_schema(node.op_type, _since(model, node), "" if node.domain in ("", "ai.onnx") else node.domain)
    return helper.get_attribute_value(schema.attributes[name].default_value)


def _is_float(row: dict, model) -> bool:
    node = model.graph.node[0]
    schema = defs.get_schema(node.op_type, _since(model, node), "" if node.domain in ("", "ai.onnx") else node.domain)
    return int(schema.attributes[row["attribute"]].type.value) == onnx.AttributeProto.FLOAT


def _base(cases, row: dict, op: str):
    """(a model of ``op`` in the row's since-range that onnxruntime loads, its since-version), or (None, None)."""
    low, high = row["since"]
    domain = row.get("domain", "")
    setting = [c for c in cases if any(a.name == row["attribute"] for a in c.model.graph.node[0].attribute)]
    for case in setting + [c for c in cases if c not in setting]:  # a model that sets the attribute first
        node = case.model.graph.node[0]
        if node.op_type != op or ("" if node.domain == "ai.onnx" else node.domain) != domain:
            continue
        if not has_output(node, row.get("output")):
            continue
        candidates = [case.model] + [_restamped(case.model, domain, v)
                                     for v in range(low, (high if high is not None else low) + 1)]
        for model in candidates:
            since = _since(model, model.graph.node[0])
            if since is None or since < low or (high is not None and since > high):
                continue
            conditions = {k: v[0] for k, v in row.get("when", {}).items()}
            model = _with(model, conditions) if conditions else model
            if load_error(model) is None:
                return model, since
    return None, None


def verify(cases=None) -> list[Verdict]:
    """Each row of the table's "values", for each of its ops: a Verdict (problems: what disagrees)."""
    cases = _cases() if cases is None else cases
    verdicts = []
    for row in json.loads(TABLE.read_text(encoding="utf-8"))["values"]:
        for op in ([row["op"]] if isinstance(row["op"], str) else row["op"]):
            model, since = _base(cases, row, op)
            problems = []
            if model is not None:
                mark = fingerprint(row)
                repeat = row.get("repeat", 1)
                for value in row.get("values", ()):
                    why = load_error(_with(model, {row["attribute"]: [value] * repeat if _is_list(row, model) else value}))
                    if why is not None and mark in why:
                        problems.append(f"{value!r} is listed, onnxruntime refuses it: {why[:200]}")
                bogus = outside(row, model)
                if _is_list(row, model) and not isinstance(bogus, list):  # one value of the list out of bounds
                    given = {a.name: helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
                    bogus = [bogus] + list(given.get(row["attribute"], [bogus] * repeat))[1:]
                why = load_error(_with(model, {row["attribute"]: bogus}))
                if why is None:
                    problems.append(f"{bogus!r} is not allowed by the table, onnxruntime loads it")
                elif mark not in why:
                    problems.append(f"{bogus!r} is refused for another reason than {mark}: {why[:200]}")
            verdicts.append(Verdict(op, row["attribute"], since, problems))
    return verdicts


def _is_list(row: dict, model) -> bool:
    node = model.graph.node[0]
    schema = defs.get_schema(node.op_type, _since(model, node), "" if node.domain in ("", "ai.onnx") else node.domain)
    return int(schema.attributes[row["attribute"]].type.value) in (onnx.AttributeProto.INTS, onnx.AttributeProto.STRINGS,
                                                                    onnx.AttributeProto.FLOATS)


def main(argv=None) -> int:
    import onnxruntime

    print(f"onnxruntime {onnxruntime.__version__}, onnx {onnx.__version__}")
    bad = 0
    for v in verify():
        status = "ok" if v.ok else ("no model" if v.since is None else "DISAGREES")
        bad += not v.ok
        print(f"{status:9} {v.op}-{v.since} {v.attribute}" + "".join(f"\n          {p}" for p in v.problems))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
