"""Regenerate the rule tables of docs/tensorrt.md from the rule modules: ``python -m tools.render_tensorrt_rules``.

Rewrites the text between the ``<!-- tensorrt-rules -->`` / ``<!-- /tensorrt-rules -->`` and
``<!-- dla-rules -->`` / ``<!-- /dla-rules -->`` markers of the checkout's docs/tensorrt.md (a test checks
that the file holds what this renders).
"""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "tensorrt.md"


def tensorrt_table() -> str:
    from converter.targets.tensorrt_rules import RULES, UNCONDITIONAL

    rows = ["| rule | ONNX ops | condition (a model breaking it is refused) | source (release/10.1-GA) |", "|---|---|---|---|"]
    for r in RULES:
        rows.append(f"| `{r.id}` | {', '.join(r.ops)} | {r.why} | `{r.source}` |")
    for op, source in UNCONDITIONAL.items():
        rows.append(f"| - | {op} | imported without a condition a model can break | `{source}` |")
    return "\n".join(rows)


def dla_table() -> str:
    from converter.targets.dla_guide import DLA_RULES, NO_DLA

    rows = ["| rule | TensorRT layer | DLA runs it when (else: GPU fallback) | source |", "|---|---|---|---|"]
    for r in DLA_RULES:
        src = f"`{r.source}`" if r.source.startswith("NvInfer.h:") else "guide, DLA Layer Support Summary"
        rows.append(f"| `{r.id}` | {r.kind} | {r.why} | {src} |")
    for kind, (source, _) in NO_DLA.items():
        rows.append(f"| - | {kind} | never (\"No DLA support\") | `{source}` |")
    return "\n".join(rows)


def render(text: str) -> str:
    for tag, table in (("tensorrt-rules", tensorrt_table()), ("dla-rules", dla_table())):
        text = re.sub(rf"(<!-- {tag} -->\n)(?:.*?\n)?(<!-- /{tag} -->)", lambda m: m.group(1) + table + "\n" + m.group(2),
                      text, flags=re.S)
    return text


def main() -> None:
    DOC.write_text(render(DOC.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
