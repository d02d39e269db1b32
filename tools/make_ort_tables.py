"""Regenerate ort-cpu.json and ort-cuda.json: from the installed onnxruntime's kernel registry, or its published tables.

From the registry (the way the committed tables are made; the checkout's tables, never site-packages)::

    python -m tools.make_ort_tables --registry ort-cpu     # needs onnxruntime
    python -m tools.make_ort_tables --registry ort-cuda    # needs a CUDA build whose registry can be read;
                                                            # else python -m tools.measure_cuda (from measurement)
    python -m tools.make_ort_tables --contrib-formals       # ort-contrib-formals.json: which type constraint each
                                                            # input of a com.microsoft op binds (needs onnxruntime)

It records the installed onnxruntime's registry: as the table itself when that is the pinned version (the table's
own, profiles.py ORT_TABLES_VERSION), else as that version's entry under ``versions`` (the ops whose rows differ
from the pinned ones), keeping the other versions recorded. ``--pin`` makes the installed version the pinned one
(every other recorded version is kept, re-expressed against it); then set ORT_TABLES_VERSION, ORT_MAX_OPSET and
ORT_MAX_IR_VERSION in converter/targets/profiles.py to that version's.

From a document (the older way, kept for a provider whose build is not at hand). Input: a Markdown transcription of docs/OperatorKernels.md (one row per registered kernel,
``| op | opset range | type constraints |``), such as the project's reference copies of
microsoft/onnxruntime at 001d12d2623fd411ce0f83d05abb5e82304a3389. A line ``Operator Domain: D`` (the
document's own domain headings) puts the rows after it in domain D; rows before any such line, or under
``ai.onnx``, are the ai.onnx ops. Usage::

    python -m tools.make_ort_tables ort-cpu-kernels.md ort-cpu.json "onnxruntime CPUExecutionProvider"

Kernel matching rule kept in the output (onnxruntime/core/framework/kernel_registry.cc, VerifyKernelDef):
a row ``[a, b]`` matches nodes whose since-version is in a..b; an open row ``N+`` (written with
``"end": null``) matches only since-version exactly N.
"""

from __future__ import annotations

import re
import sys


def parse_domains(text: str) -> dict[str, dict[str, list[dict]]]:
    """Rows by domain: ``Operator Domain: D`` lines switch the domain (ai.onnx before any)."""
    chunks: dict[str, list[str]] = {}
    domain = "ai.onnx"
    for line in text.splitlines():
        if m := re.fullmatch(r"\s*Operator Domain:\s*(\S+)\s*", line):
            domain = m[1]
            continue
        chunks.setdefault(domain, []).append(line)
    return {d: parse_rows("\n".join(lines)) for d, lines in chunks.items()}


def parse_rows(text: str) -> dict[str, list[dict]]:
    ops: dict[str, list[dict]] = {}
    for line in text.splitlines():
        if re.fullmatch(r"\s*Operator Domain:.*", line):
            raise ValueError(f"a domain heading inside one domain's rows (use parse_domains): {line}")
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"[A-Z]\w*", cells[0]):
            continue
        op, versions, constraints = cells
        if m := re.fullmatch(r"(\d+)\+", versions):
            start, end = int(m[1]), None
        elif m := re.fullmatch(r"\[(\d+),\s*(\d+)\]", versions):
            start, end = int(m[1]), int(m[2])
        elif re.fullmatch(r"\d+", versions):
            start = end = int(versions)
        else:
            raise ValueError(f"cannot read the version range of: {line}")
        types = {}
        for part in constraints.split(";"):
            name, _, allowed = part.partition("=")
            if allowed:
                types[name.strip()] = sorted(t.strip()[len("tensor("):-1] for t in allowed.split(",")
                                             if t.strip().startswith("tensor("))
        ops.setdefault(op, []).append({"start": start, "end": end, "types": types})
    return ops


def record(existing: dict | None, live: dict, pin: bool) -> dict:
    """The committed table with ``live`` (one onnxruntime version's registry table) recorded in it."""
    from converter.targets.ort_kernels import applied, difference, table_version

    version = table_version(live)
    if existing is None or table_version(existing) is None:  # a first table, or one transcribed from documents
        return live
    tables = {table_version(existing): {k: v for k, v in existing.items() if k != "versions"}}
    for other, patch in existing.get("versions", {}).items():
        tables[other] = applied(existing, patch)
    tables[version] = live
    pinned = version if pin else table_version(existing)
    base = tables.pop(pinned)
    versions = {v: difference(base, t) for v, t in sorted(tables.items())}
    return {**base, **({"versions": versions} if versions else {})}


def from_registry(target: str, pin: bool = False) -> None:
    import json
    from pathlib import Path

    from converter.targets.ort_kernels import dumps, registry_provider, registry_table, table_file, table_version

    provider = registry_provider(target)
    live = registry_table(provider)
    if live is None and target == "ort-cuda":  # no CUDA build, or one whose registry cannot be read (1.31.1's crashes)
        sys.exit("no CUDAExecutionProvider kernels in a readable registry: without a CUDA build, or where its registry "
                 "cannot be read (onnxruntime-gpu 1.31.1's dies of SIGSEGV), make the table from measurement: "
                 "python -m tools.measure_cuda (docs/gpu.md)")
    if live is None:
        sys.exit(f"no {provider} kernels: onnxruntime (a CUDA build for ort-cuda) is not installed")
    out = table_file(target)
    existing = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else None
    table = record(existing, live, pin)
    out.write_text(dumps(table), encoding="utf-8")
    where = "pinned" if table_version(table) == table_version(live) else "under versions"
    print(f"wrote {out}: onnxruntime {table_version(live)}'s registry ({where}): "
          f"{sum(len(r) for r in live['ops'].values())} ai.onnx rows, "
          f"{sum(len(r) for d in live['domains'].values() for r in d.values())} rows of other domains")


def contrib_formals() -> dict:
    """The formal parameters of onnxruntime's own operator schemas (com.microsoft, ...: the domains onnx has no
    schemas for), from the installed onnxruntime's ``get_all_operator_schema()``: which type constraint each input
    and output binds, so that check matches a contrib node's types against a kernel row (ort_kernels.formals)."""
    import onnxruntime
    from onnxruntime.capi.onnxruntime_pybind11_state import get_all_operator_schema

    domains: dict[str, dict[str, list[dict]]] = {}
    for schema in get_all_operator_schema():
        if schema.domain in ("", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training"):
            continue  # onnx's own schemas (onnx.defs) serve these
        entry = {"since": schema.since_version,
                 "inputs": [f.typeStr for f in schema.inputs], "outputs": [f.typeStr for f in schema.outputs],
                 "constraints": {c.type_param_str: sorted(t[len("tensor("):-1] for t in c.allowed_type_strs
                                                          if t.startswith("tensor("))
                                 for c in sorted(schema.type_constraints, key=lambda c: c.type_param_str)}}
        domains.setdefault(schema.domain, {}).setdefault(schema.name, []).append(entry)
    for ops in domains.values():
        for entries in ops.values():
            entries.sort(key=lambda e: -e["since"])
    return {"source": f"onnxruntime {onnxruntime.__version__} get_all_operator_schema(): the formal parameters of its "
                      "own domains' schemas (python -m tools.make_ort_tables --contrib-formals)",
            "domains": {d: dict(sorted(ops.items())) for d, ops in sorted(domains.items())}}


def main(argv: list[str]) -> None:
    if argv[:1] in (["-h"], ["--help"]) or not argv:
        print(__doc__)
        return
    if argv == ["--contrib-formals"]:
        import json
        from pathlib import Path

        from converter.targets.ort_kernels import FORMALS

        out = Path(__file__).resolve().parent.parent / "converter" / "targets" / "tables" / FORMALS  # the checkout's
        table = contrib_formals()
        blocks = []  # one op a line (stable diffs)
        for domain, ops in table["domains"].items():
            body = ",\n".join(f"   {json.dumps(op)}: {json.dumps(entries, separators=(',', ':'))}" for op, entries in ops.items())
            blocks.append(f"  {json.dumps(domain)}: {{\n{body}\n  }}")
        text = f'{{\n "source": {json.dumps(table["source"])},\n "domains": {{\n' + ",\n".join(blocks) + "\n }\n}\n"
        assert json.loads(text) == table
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}: {sum(len(o) for o in table['domains'].values())} ops of {', '.join(table['domains'])}")
        return
    pin = "--pin" in argv
    registry = [a for a in argv if a != "--pin"]
    if registry[:1] == ["--registry"] and len(registry) == 2 and registry[1] in ("ort-cpu", "ort-cuda"):
        from_registry(registry[1], pin)
        return
    if len(argv) != 3:
        sys.exit("usage: python -m tools.make_ort_tables --registry ort-cpu|ort-cuda [--pin], or SOURCE.md OUT.json PROVIDER")
    source_md, out, provider = argv
    from converter.targets.ort_kernels import KERNEL_RULE, dumps

    text = open(source_md, encoding="utf-8").read()
    commit = re.search(r"Commit: ([0-9a-f]{40})", text)
    by_domain = parse_domains(text)
    ops = by_domain.pop("ai.onnx", {})
    others = {d: rows for d, rows in by_domain.items() if rows}
    table = {
        "source": f"{provider} kernels in microsoft/onnxruntime docs/OperatorKernels.md"
                  + (f" at {commit[1]}" if commit else "")
                  + (f" (ai.onnx, {', '.join(sorted(others))})" if others else " (ai.onnx domain)"),
        "kernel_rule": KERNEL_RULE,
        "ops": ops,
        "domains": others,
    }
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(dumps(table))

if __name__ == "__main__":
    main(sys.argv[1:])
