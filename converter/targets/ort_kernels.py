"""onnxruntime's kernel tables, read from the installed onnxruntime's kernel registry when there is one.

``onnxruntime.capi.onnxruntime_pybind11_state.get_all_opkernel_def()`` lists every registered kernel:
op, domain, since-version range, type constraints and execution provider (a CUDA build lists its
CUDAExecutionProvider kernels too, where the call works: onnxruntime-gpu 1.31.1's dies of SIGSEGV, so it is
made in a child process, once per build: converter/installed/ort_build.py). The committed tables (tables/ort-cpu.json, tables/ort-cuda.json)
are the same data for the pinned onnxruntime (tools/make_ort_tables.py writes them from the registry;
tests/targets/test_ort_kernels.py proves they are equal); they are the fallback on a machine without
onnxruntime, without a CUDA build for ort-cuda, or where the registry cannot be read. ``SPEC2ONNX_KERNEL_TABLES=committed`` forces them.
A committed table also records the registries of other onnxruntime versions, as the ops whose rows differ
from the pinned one's (``versions``; ``committed_for``), so that the test compares every recorded version's
registry, whichever one is installed, and names the command that records a new one.

Table format: ``{"source", "kernel_rule", "ops": {op: [row]}, "domains": {domain: {op: [row]}},
"versions": {version: {"source", "ops": {op: [row] | null}, "domains": {domain: {op: [row] | null}}}}}``;
``ops`` is the ai.onnx domain, ``domains`` the others (ai.onnx.ml, com.microsoft, ...). A row is
``{"start", "end", "types": {constraint: [type]}}``; ``end`` null is onnxruntime's open range (INT_MAX),
which matches since-version ``start`` only (kernel_registry.cc VerifyKernelDef). In ``versions``, an op's
rows replace the pinned table's; null: that version registers no kernel for the op.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from ..installed import ort_build
from ..process.runtime_child import registry_rows  # noqa: F401 - get_all_opkernel_def() entries -> rows (tools, tests)
from .target import Target

TABLES = Path(__file__).parent / "tables"
KERNEL_RULE = "a row [a, b] matches since-versions a..b; an open row (end null) only its start"


FORMALS = "ort-contrib-formals.json"  # onnxruntime's own schemas' formal parameters (tools/make_ort_tables.py)


@lru_cache(maxsize=None)
def _formals() -> dict:
    return json.loads((TABLES / FORMALS).read_text(encoding="utf-8"))["domains"]


def formals(domain: str, op: str, since: int | None) -> dict | None:
    """The formal parameters of onnxruntime's schema of ``op`` in ``domain`` (com.microsoft, ...: onnx has no schema
    for them) at ``since``: {"inputs": [type_str], "outputs": [type_str], "constraints": {name: [tensor types the
    schema allows]}}; None when unknown."""
    entries = _formals().get(domain, {}).get(op, [])
    return next((e for e in entries if since is None or e["since"] <= since), None)


def registry_table(provider: str) -> dict | None:
    """The kernel table of ``provider`` in the installed onnxruntime's registry (read in a child process, once
    per build: converter/installed/ort_build.py); None without onnxruntime, without kernels of ``provider`` (ort-cuda on
    a CPU build), or where the registry could not be read (then a warning said why, once)."""
    rows = ort_build.registry_rows(provider)
    if rows is None:
        return None
    rows = dict(rows)
    return {
        "source": f"onnxruntime {ort_build.build().version} kernel registry (get_all_opkernel_def), {provider}",
        "kernel_rule": KERNEL_RULE,
        "ops": rows.pop("", {}),
        "domains": {domain: rows[domain] for domain in sorted(rows)},
    }


def table_file(target: str) -> Path:
    """The committed kernel table of ``target`` (its profile's ``kernels``: a file in tables/, or an absolute path)."""
    return TABLES / Target(target).kernels


def registry_provider(target: str) -> str:
    """The execution provider whose kernels in the installed onnxruntime's registry are ``target``'s table (its
    profile's ``registry``: ort-cpu, ort-cuda)."""
    return Target(target).registry_provider


@lru_cache(maxsize=None)
def committed(target: str) -> dict:
    return json.loads(table_file(target).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def kernel_table(target: str) -> dict:
    """The kernel table check uses for ``target`` (ort-cpu, ort-cuda): the installed registry's, else committed."""
    if ort_build.registry_wanted():
        table = registry_table(registry_provider(target))
        if table is not None:
            return table
    return committed(target)


def modelled_version(target: str) -> str | None:
    """The onnxruntime version whose kernels the check uses for ``target`` ("1.31.1"), from its table's source;
    None for a table transcribed from documents (ort-cuda's committed table)."""
    return table_version(kernel_table(target))


def installed_registry(target: str) -> bool:
    """Whether ``target``'s table in use is the installed onnxruntime's registry (not the committed file): then the
    check models that onnxruntime's own limits too (the newest opset and IR version it loads: opset.py probes
    them once with a one-node model, never the model checked)."""
    return kernel_table(target) is not committed(target)


def registry_read(target: Target) -> str:
    """What ``target``'s static check reads of the installed onnxruntime, for the keys of what it computed
    (spec_cache.lowered_model keeps the check's verdict and opset with the model): "" for a target whose check
    reads committed tables only; for one whose table is onnxruntime's registry, the build that answered (its files,
    ort_build.identity: an upgrade, a reduced build, onnxruntime-gpu in place of onnxruntime) or "committed" where the
    committed table stands in (SPEC2ONNX_KERNEL_TABLES=committed, or a registry that could not be read)."""
    if not target.profile.get("registry"):
        return ""
    if not installed_registry(target.name):
        return "committed"
    return hashlib.sha256(ort_build.identity()).hexdigest()[:32]


def table_version(table: dict) -> str | None:
    """"1.31.1" of a table whose source is "onnxruntime 1.31.1 kernel registry ..."; None for a transcribed one."""
    words = table["source"].split()
    return words[1] if len(words) > 2 and words[0] == "onnxruntime" and words[1][:1].isdigit() else None


def recorded_versions(target: str) -> list[str]:
    """The onnxruntime versions whose registries the committed table of ``target`` records (pinned first)."""
    table = committed(target)
    return [v for v in [table_version(table), *table.get("versions", {})] if v]


def committed_for(target: str, version: str) -> dict | None:
    """The committed table of ``target`` as onnxruntime ``version`` registers it; None when not recorded."""
    table = committed(target)
    if version == table_version(table):
        return {k: v for k, v in table.items() if k != "versions"}
    patch = table.get("versions", {}).get(version)
    return None if patch is None else applied(table, patch)


def applied(pinned: dict, patch: dict) -> dict:
    """The table a ``versions`` entry stands for: ``pinned`` with that version's rows (``difference``'s inverse)."""
    ops = {**pinned["ops"], **patch["ops"]}
    domains = {d: {**pinned["domains"].get(d, {}), **patch["domains"].get(d, {})}
               for d in sorted(set(pinned["domains"]) | set(patch["domains"]))}
    return {"source": patch["source"], "kernel_rule": pinned["kernel_rule"],
            "ops": {op: rows for op, rows in sorted(ops.items()) if rows is not None},
            "domains": {d: {op: rows for op, rows in sorted(o.items()) if rows is not None} for d, o in domains.items()}}


def difference(pinned: dict, other: dict) -> dict:
    """``other`` as a ``versions`` entry against ``pinned``: its source, and the ops whose rows differ."""
    def changed(a: dict, b: dict) -> dict:
        return {op: b.get(op) for op in sorted(set(a) | set(b)) if a.get(op) != b.get(op)}

    domains = {d: changed(pinned["domains"].get(d, {}), other["domains"].get(d, {}))
               for d in sorted(set(pinned["domains"]) | set(other["domains"]))}
    return {"source": other["source"], "ops": changed(pinned["ops"], other["ops"]),
            "domains": {d: ops for d, ops in domains.items() if ops}}


def dumps(table: dict) -> str:
    """The committed file's text: one row per line, ops sorted (stable diffs)."""
    def ops_block(ops: dict, indent: str) -> list[str]:
        items = sorted(ops.items())
        lines = []
        for i, (op, rows) in enumerate(items):
            comma = "," if i < len(items) - 1 else ""
            if rows is None:  # (versions: the op has no kernel in that version)
                lines.append(f"{indent}{json.dumps(op)}: null{comma}")
                continue
            body = f",\n{indent}  ".join(json.dumps(r, separators=(",", ":")) for r in rows)
            lines.append(f"{indent}{json.dumps(op)}: [\n{indent}  {body}]{comma}")
        return lines

    def body(part: dict, indent: str) -> list[str]:  # "ops" and "domains" of a table or of one of its versions
        lines = [f'{indent}"ops": {{', *ops_block(part["ops"], indent + " "), f"{indent}}},", f'{indent}"domains": {{']
        domains = sorted(part.get("domains", {}).items())
        for i, (domain, ops) in enumerate(domains):
            lines += [f"{indent} {json.dumps(domain)}: {{", *ops_block(ops, indent + "  "),
                      f"{indent} }}" + ("," if i < len(domains) - 1 else "")]
        return lines + [f"{indent}}}"]

    parts = [f' "source": {json.dumps(table["source"])},', f' "kernel_rule": {json.dumps(table["kernel_rule"])},',
             *body(table, " ")]
    versions = sorted(table.get("versions", {}).items())
    if versions:
        parts[-1] += ","
        parts.append(' "versions": {')
        for i, (version, patch) in enumerate(versions):
            parts += [f"  {json.dumps(version)}: {{", f'   "source": {json.dumps(patch["source"])},', *body(patch, "   "),
                      "  }" + ("," if i < len(versions) - 1 else "")]
        parts.append(" }")
    return "{\n" + "\n".join(parts) + "\n}\n"
