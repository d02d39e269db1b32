"""A test-only layer kind whose reference misbehaves on purpose, to test the runner's isolation.

``test.Misbehave`` is an identity layer. Its numpy reference crashes the process
(SIGSEGV) when the input holds 13, aborts (SIGABRT) on 14, hangs on 42 and
raises on 7; otherwise it returns the input. Loaded with ``--plugin``.
"""

from __future__ import annotations

import os
import signal
import time

from converter.lowering.builder import NodeBuilder
from converter.reference import register_reference
from converter.registry import LayerKind, register_layer


def _reference(layer, inputs):
    (x,) = inputs
    if (x == 13).any():
        os.kill(os.getpid(), signal.SIGSEGV)
    if (x == 14).any():
        os.abort()
    if (x == 42).any():
        time.sleep(3600)
    if (x == 7).any():
        raise RuntimeError("the reference raised on purpose")
    return x.copy()


def _lower(layer, ctx):
    b = NodeBuilder(layer)
    return b.finish(b.op("Identity", [layer.inputs[0]]))


register_layer(LayerKind(
    name="test.Misbehave", summary="identity whose reference crashes, aborts, hangs or raises on purpose",
    inputs=("input",), min_inputs=1, attributes={}, check=lambda layer, types: types[0], lower=_lower,
))
register_reference("test.Misbehave", _reference)
