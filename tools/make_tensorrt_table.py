"""Regenerate tensorrt.json from onnx-tensorrt's operator support matrix.

Input: tensorrt-operators.txt, the rows of onnx/onnx-tensorrt docs/operators.md for TensorRT 10.15
("supports operators in the inclusive range of opset 9 to opset 24"), one ``Op|Y or N|types|restrictions``
line each, as published. Usage: ``python -m tools.make_tensorrt_table`` from a checkout.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "converter" / "targets" / "tables"  # the checkout's tables
# TensorRT's type names in that matrix -> ONNX element type names.
TYPES = {"FP32": "float", "FP16": "float16", "BF16": "bfloat16", "INT32": "int32", "INT64": "int64", "INT8": "int8",
         "UINT8": "uint8", "BOOL": "bool", "FP8": "float8e4m3fn", "FP4": "float4e2m1", "INT4": "int4"}


def main() -> None:
    ops = {}
    for line in (HERE / "tensorrt-operators.txt").read_text(encoding="utf-8").splitlines():
        op, supported, types, restrictions = (part.strip() for part in line.split("|", 3))
        entry = {"supported": supported == "Y"}
        if entry["supported"]:
            entry["types"] = sorted(TYPES[t.strip()] for t in types.split(",") if t.strip())
        if restrictions:
            entry["restrictions"] = restrictions
        ops[op] = entry
    table = {
        "source": "onnx/onnx-tensorrt docs/operators.md, TensorRT 10.15 (opset 9 to 24)",
        "opset": [9, 24],
        "notes": ["INT8, INT4, FP8 and FP4 are quantized types: only through quantization from a higher-precision float",
                  "UINT8 is only supported as network input or output tensor types"],
        "ops": ops,
    }
    lines = [f'  {json.dumps(op)}: {json.dumps(entry, separators=(",", ":"))}' for op, entry in sorted(ops.items())]
    head = json.dumps({k: v for k, v in table.items() if k != "ops"}, indent=1)[:-2]
    (HERE / "tensorrt.json").write_text(head + ',\n "ops": {\n' + ",\n".join(lines) + "\n }\n}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
