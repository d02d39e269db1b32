"""The numpy references are the oracle: they must not lean on what they check."""

from __future__ import annotations

import subprocess
import sys

from ..conftest import REPO


def test_reference_package_imports_no_onnx_onnxruntime_or_lowering():
    code = (
        "import sys, converter.reference\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('onnx', 'onnxruntime') or m.startswith('converter.lowering'))\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert proc.stdout.strip() == ""
