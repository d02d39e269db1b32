"""Prove every source citation of the tensorrt rules against the sources they cite.

Usage: ``python -m tools.verify_tensorrt_rules DIR [--nvinfer NVINFER_H]``

- DIR holds onnxOpImporters.cpp, importerUtils.cpp and onnxOpCheckers.cpp of onnx/onnx-tensorrt at tag
  release/10.1-GA (``git show release/10.1-GA:FILE > DIR/FILE`` in a clone): checks
  converter/targets/tensorrt_rules.py (RULES) and converter/targets/trt_importer.py (CITATIONS).
- NVINFER_H is include/NvInfer.h of NVIDIA/TensorRT at tag v10.7.0: checks converter/targets/dla_guide.py
  (the rules citing ``NvInfer.h:LINE``).

Each ``FILE:LINE`` must contain its ``quote`` (whitespace-insensitive). Exit status 1 lists the misses.
"""

from __future__ import annotations

import sys
from pathlib import Path


def _check(items, files) -> list[str]:
    cache: dict[str, list[str]] = {}
    misses = []
    for ident, source, quote in items:
        name, line = source.split(":")
        lines = cache.setdefault(name, files[name].read_text(encoding="utf-8").splitlines())
        text = lines[int(line) - 1] if int(line) <= len(lines) else ""
        if "".join(quote.split()) not in "".join(text.split()):
            misses.append(f"{ident}: {source}: {text.strip()!r} does not contain {quote!r}")
    return misses


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    nvinfer = None
    if "--nvinfer" in args:
        i = args.index("--nvinfer")
        nvinfer = Path(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    root = Path(args[0])
    from converter.targets.dla_guide import DLA_RULES, NO_DLA
    from converter.targets.tensorrt_rules import RULES
    from converter.targets.trt_importer import CITATIONS

    items = [(r.id, r.source, r.quote) for r in RULES] + [(k, s, q) for k, (s, q) in CITATIONS.items()]
    files = {n: root / n for n in ("onnxOpImporters.cpp", "importerUtils.cpp", "onnxOpCheckers.cpp")}
    if nvinfer is not None:
        items += [(f"dla.{r.id}", r.source, r.quote) for r in DLA_RULES if r.source.startswith("NvInfer.h:")]
        items += [(f"dla.{k}", s, q) for k, (s, q) in NO_DLA.items()]
        files["NvInfer.h"] = nvinfer
    misses = _check(items, files)
    for miss in misses:
        print(miss)
    print(f"{len(items) - len(misses)}/{len(items)} citations verified")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
