"""onnxruntime's kernel tables, read from the installed onnxruntime's kernel registry when there is one.

``onnxruntime.capi.onnxruntime_pybind11_state.get_all_opkernel_def()`` lists every registered kernel:
op, domain, since-version range, type constraints and execution provider (a CUDA build lists its
CUDAExecutionProvider kernels too). The committed tables (tables/ort-cpu.json, tables/ort-cuda.json)
are the same data for the pinned onnxruntime (tools/make_ort_tables.py writes them from the registry;
tests/targets/test_ort_kernels.py proves they are equal); they are the fallback on a machine without
onnxruntime, or without a CUDA build for ort-cuda. ``SPEC2ONNX_KERNEL_TABLES=committed`` forces them.

Table format: ``{"source", "kernel_rule", "ops": {op: [row]}, "domains": {domain: {op: [row]}}}``;
``ops`` is the ai.onnx domain, ``domains`` the others (ai.onnx.ml, com.microsoft, ...). A row is
``{"start", "end", "types": {constraint: [type]}}``; ``end`` null is onnxruntime's open range (INT_MAX),
which matches since-version ``start`` only (kernel_registry.cc VerifyKernelDef).
"""

from __future__ import annotations

import importlib.util
import json
import os
from functools import lru_cache
from pathlib import Path

TABLES = Path(__file__).parent / "tables"
PROVIDERS = {"ort-cpu": "CPUExecutionProvider", "ort-cuda": "CUDAExecutionProvider"}
FILES = {"ort-cpu": "ort-cpu.json", "ort-cuda": "ort-cuda.json"}
KERNEL_RULE = "a row [a, b] matches since-versions a..b; an open row (end null) only its start"
_INT_MAX = 2**31 - 1


def _type_name(onnx_type: str) -> str | None:
    """'tensor(float)' -> 'float'; sequences, maps, optionals and sparse tensors -> None (not tensor kernels)."""
    if onnx_type.startswith("tensor(") and onnx_type.endswith(")"):
        return onnx_type[len("tensor("):-1]
    return None


def _merge(rows: list[dict]) -> list[dict]:
    """Rows of one version range merged where that adds no type combination (they differ in one constraint)."""
    merged: list[dict] = []
    for row in rows:
        for other in merged:
            if other["types"].keys() != row["types"].keys():
                continue
            differ = [c for c in row["types"] if set(row["types"][c]) != set(other["types"][c])]
            if len(differ) <= 1:
                for c in differ:
                    other["types"][c] = sorted(set(other["types"][c]) | set(row["types"][c]))
                break
        else:
            merged.append({"start": row["start"], "end": row["end"], "types": {c: list(v) for c, v in row["types"].items()}})
    return merged


def registry_rows(kernel_defs, provider: str) -> dict[str, dict[str, list[dict]]]:
    """domain ('' for ai.onnx) -> op -> rows, from ``get_all_opkernel_def()`` entries of ``provider``."""
    grouped: dict[tuple, list[dict]] = {}
    for k in kernel_defs:
        if k.provider != provider:
            continue
        start, end = k.version_range
        types = {}
        for constraint, allowed in sorted(k.type_constraints.items()):
            names = sorted({n for n in map(_type_name, allowed) if n})
            if names:
                types[constraint] = names
        row = {"start": start, "end": None if end >= _INT_MAX else end, "types": types}
        grouped.setdefault((k.domain, k.op_name, start, row["end"]), []).append(row)
    out: dict[str, dict[str, list[dict]]] = {}
    for (domain, op, _, _), rows in sorted(grouped.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[0][2])):
        unique = []
        for row in rows:
            if row not in unique:
                unique.append(row)
        out.setdefault(domain, {}).setdefault(op, []).extend(_merge(unique))
    return out


def registry_table(provider: str) -> dict | None:
    """The kernel table of ``provider`` in the installed onnxruntime's registry; None without one."""
    if importlib.util.find_spec("onnxruntime") is None:
        return None
    import onnxruntime
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    rows = registry_rows(state.get_all_opkernel_def(), provider)
    if not rows:
        return None  # e.g. ort-cuda on a CPU build: no CUDA kernels registered
    return {
        "source": f"onnxruntime {onnxruntime.__version__} kernel registry (get_all_opkernel_def), {provider}",
        "kernel_rule": KERNEL_RULE,
        "ops": rows.pop("", {}),
        "domains": {domain: rows[domain] for domain in sorted(rows)},
    }


@lru_cache(maxsize=None)
def committed(target: str) -> dict:
    return json.loads((TABLES / FILES[target]).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def kernel_table(target: str) -> dict:
    """The kernel table check uses for ``target`` (ort-cpu, ort-cuda): the installed registry's, else committed."""
    if os.environ.get("SPEC2ONNX_KERNEL_TABLES") != "committed":
        try:
            table = registry_table(PROVIDERS[target])
        except Exception:  # noqa: BLE001 - a broken onnxruntime install: the committed table still answers
            table = None
        if table is not None:
            return table
    return committed(target)


def modelled_version(target: str) -> str | None:
    """The onnxruntime version whose kernels the check uses for ``target`` ("1.31.1"), from its table's source;
    None for a table transcribed from documents (ort-cuda's committed table)."""
    words = kernel_table(target)["source"].split()
    return words[1] if len(words) > 2 and words[0] == "onnxruntime" and words[1][:1].isdigit() else None


def installed_registry(target: str) -> bool:
    """Whether ``target``'s table in use is the installed onnxruntime's registry (not the committed file): then the
    check models that onnxruntime's own limits too (the newest opset and IR version it loads: opset.py probes
    them once with a one-node model, never the model checked)."""
    return kernel_table(target) is not committed(target)


def dumps(table: dict) -> str:
    """The committed file's text: one row per line, ops sorted (stable diffs)."""
    def block(ops: dict, indent: str) -> str:
        items = sorted(ops.items())
        lines = []
        for i, (op, rows) in enumerate(items):
            body = f",\n{indent}  ".join(json.dumps(r, separators=(",", ":")) for r in rows)
            lines.append(f'{indent}{json.dumps(op)}: [\n{indent}  {body}]' + ("," if i < len(items) - 1 else ""))
        return "\n".join(lines)

    parts = [f' "source": {json.dumps(table["source"])},', f' "kernel_rule": {json.dumps(table["kernel_rule"])},',
             ' "ops": {', block(table["ops"], "  "), " },", ' "domains": {']
    domains = sorted(table.get("domains", {}).items())
    for i, (domain, ops) in enumerate(domains):
        parts += [f'  {json.dumps(domain)}: {{', block(ops, "   "), "  }" + ("," if i < len(domains) - 1 else "")]
    parts.append(" }")
    return "{\n" + "\n".join(parts) + "\n}\n"
