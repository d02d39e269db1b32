"""Crashes the fuzzer found in files outside the issue-7 change, tolerated until they are fixed.

Each entry is the exception type and the innermost converter/ function it escapes from.
``test_known_bugs.py`` reproduces each one with ``xfail(strict=True)``: when a fix lands,
that test XPASSes (a failure), and its entry here must be deleted, so that the fuzzer
guards the fix from then on. Nothing else is tolerated.
"""

from __future__ import annotations

import os
import traceback

# (exception type, file, function): the fix needed
KNOWN = {
    ("TypeError", "spec.py", "_tensor_type"):
        "an unhashable dtype (a list or mapping) reaches `dtype_name not in DTYPES`: check isinstance(dtype_name, str) first",
    ("TypeError", "spec.py", "_parse_network"):
        "an unhashable output name reaches `name not in layer_names`: check isinstance(name, str) first",
    ("TypeError", "registry.py", "layer_kind"):
        "an unhashable op reaches `_KINDS[name]`: check isinstance(name, str) first",
    ("OverflowError", "network.py", "size"):
        "TensorType.size uses np.prod(dtype=int64): dims >= 2^63 overflow, products >= 2^63 wrap silently (to 0 for "
        "[2^32, 2^32, 1, 1], which then passes the 2^31 check); use math.prod(self.shape)",
    ("OverflowError", "schema.py", "parse_number"):
        "math.isnan(int) overflows for integers beyond float range: convert with float() inside try, SpecError on OverflowError",
    ("OverflowError", "schema.py", "parse"):
        "NumberArray(integer=True) builds np.array(dtype=int64) from integers beyond int64: range-check first",
}


# Valid specs that do not validate today; the strategies stay out of these regions while the entry exists.
AVOID = {
    "rank0-feeds":
        "converter/runtime.py OrtRunner.run: np.ascontiguousarray turns a rank-0 feed into shape [1], so every rank-0 "
        "network outputs shape [1] (FAIL: shape [1] != expected []); use np.require(array, requirements='C')",
    "resize-empty-runtime-shape":
        "converter/lowering/resize.py _interpolate_dynamic: LINEAR/CUBIC with a shape input on an empty input reshapes "
        "to [1, -1, ...], which ONNX cannot infer for 0 elements ('Invalid position of 0' in Reshape)",
    "float16-after-cast":
        "converter/lowering/elementwise.py: float16 DIV, POWER, EQUAL, GREATER, LESS rely on onnxruntime's CPU float16 "
        "support; where it has no float16 kernel it inserts Cast float16->float32 and merges it with the previous "
        "layer's Cast float32->float16 (e.g. trt.Scale's), so the rounding to float16 is skipped: Scale(x * 1e-12) "
        "then EQUAL 0 is False on onnxruntime, True in TensorRT. Compute these in float32 with explicit Casts, as "
        "for bfloat16 (explicit Casts are not merged)",
    "newline-in-messages":
        "converter/errors.py UserError._render: field paths are built from the document's keys, so a key holding a "
        "line break (YAML '\\n' in quotes, JSON \"a\\nb\") breaks the one-line message; escape unprintable "
        "characters there (converter.safe_yaml.printable does it for the reader's own messages)",
}

# Characters str.splitlines() breaks a line at: a message must contain none of them.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def site(exc: BaseException) -> tuple[str, str, str]:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f"{os.sep}converter{os.sep}" in f.filename]
    last = frames[-1] if frames else None
    return type(exc).__name__, os.path.basename(last.filename) if last else "?", last.name if last else "?"


def is_known(exc: BaseException) -> bool:
    return site(exc) in KNOWN
