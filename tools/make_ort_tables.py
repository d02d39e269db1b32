"""Regenerate ort-cpu.json and ort-cuda.json: from the installed onnxruntime's kernel registry, or its published tables.

From the registry (the way the committed tables are made; the checkout's tables, never site-packages)::

    python -m tools.make_ort_tables --registry ort-cpu     # needs onnxruntime (the pinned version)
    python -m tools.make_ort_tables --registry ort-cuda    # needs a CUDA build (onnxruntime-gpu)

From a document (the older way, kept for a provider whose build is not at hand). Input: a Markdown transcription of docs/OperatorKernels.md (one row per registered kernel,
``| op | opset range | type constraints |``), such as the project's reference copies of
microsoft/onnxruntime at 001d12d2623fd411ce0f83d05abb5e82304a3389. Usage::

    python -m tools.make_ort_tables ort-cpu-kernels.md ort-cpu.json "onnxruntime CPUExecutionProvider"

Kernel matching rule kept in the output (onnxruntime/core/framework/kernel_registry.cc, VerifyKernelDef):
a row ``[a, b]`` matches nodes whose since-version is in a..b; an open row ``N+`` (written with
``"end": null``) matches only since-version exactly N.
"""

from __future__ import annotations

import json
import re
import sys


def parse_rows(text: str) -> dict[str, list[dict]]:
    ops: dict[str, list[dict]] = {}
    for line in text.splitlines():
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


def from_registry(target: str) -> None:
    from pathlib import Path

    from converter.targets.ort_kernels import FILES, PROVIDERS, dumps, registry_table

    table = registry_table(PROVIDERS[target])
    if table is None:
        sys.exit(f"no {PROVIDERS[target]} kernels: onnxruntime (a CUDA build for ort-cuda) is not installed")
    out = Path(__file__).resolve().parent.parent / "converter" / "targets" / "tables" / FILES[target]
    out.write_text(dumps(table), encoding="utf-8")
    print(f"wrote {out}: {sum(len(r) for r in table['ops'].values())} ai.onnx rows, "
          f"{sum(len(r) for d in table['domains'].values() for r in d.values())} rows of other domains")


def main(argv: list[str]) -> None:
    if argv[:1] in (["-h"], ["--help"]) or not argv:
        print(__doc__)
        return
    if argv[0] == "--registry" and len(argv) == 2 and argv[1] in ("ort-cpu", "ort-cuda"):
        from_registry(argv[1])
        return
    if len(argv) != 3:
        sys.exit("usage: python -m tools.make_ort_tables --registry ort-cpu|ort-cuda, or SOURCE.md OUT.json PROVIDER")
    source_md, out, provider = argv
    text = open(source_md, encoding="utf-8").read()
    commit = re.search(r"Commit: ([0-9a-f]{40})", text)
    table = {
        "source": f"{provider} kernels in microsoft/onnxruntime docs/OperatorKernels.md"
                  + (f" at {commit[1]}" if commit else "") + " (ai.onnx domain)",
        "kernel_rule": "a row [a, b] matches since-versions a..b; an open row (end null) only its start",
        "ops": parse_rows(text),
    }
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("{\n")
        handle.write(f' "source": {json.dumps(table["source"])},\n "kernel_rule": {json.dumps(table["kernel_rule"])},\n')
        handle.write(' "ops": {\n')
        items = sorted(table["ops"].items())
        for i, (op, rows) in enumerate(items):
            body = ",\n    ".join(json.dumps(r, separators=(",", ":")) for r in rows)
            handle.write(f'  {json.dumps(op)}: [\n    {body}]' + (",\n" if i < len(items) - 1 else "\n"))
        handle.write(" }\n}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
