"""Prove every citation of converter/targets/tensorrt_rules.py (and trt_importer.py) against onnx-tensorrt's source.

Usage: ``python -m tools.verify_tensorrt_rules DIR`` where DIR holds onnxOpImporters.cpp, importerUtils.cpp and
onnxOpCheckers.cpp of onnx/onnx-tensorrt at tag release/10.1-GA (e.g. ``git show release/10.1-GA:FILE > DIR/FILE``).
Each rule's ``source`` FILE:LINE must contain its ``quote`` (whitespace-insensitive). Exit status 1 lists the misses.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__)
        return 2
    root = Path(args[0])
    from converter.targets.tensorrt_rules import RULES
    from converter.targets.trt_importer import CITATIONS

    cache: dict[str, list[str]] = {}
    misses = []
    items = [(r.id, r.source, r.quote) for r in RULES] + [(k, s, q) for k, (s, q) in CITATIONS.items()]
    for ident, source, quote in items:
        name, line = source.split(":")
        lines = cache.setdefault(name, (root / name).read_text(encoding="utf-8").splitlines())
        text = lines[int(line) - 1] if int(line) <= len(lines) else ""
        if "".join(quote.split()) not in "".join(text.split()):
            misses.append(f"{ident}: {source}: {text.strip()!r} does not contain {quote!r}")
    for miss in misses:
        print(miss)
    print(f"{len(items) - len(misses)}/{len(items)} citations verified")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
