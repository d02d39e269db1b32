"""Property tests of dynamic shapes (issue 27, items 6 and 8).

- Random dynamic networks of each layer kind (Scale; ElementWise with broadcast; Resize by scales and by run-time
  sizes; DequantizeLinear, strided too) validate at random shapes inside their profiles, on a target that accepts
  them, against the numpy references (converter/reference: numpy only, independent of the lowering).
- ``check`` never crashes on a dimension that is a dim_param or unknown: onnx's own node-test models (a corpus
  nobody here wrote) with random dimensions of their graph inputs made symbolic, checked for every target.

Examples: the hypothesis profile's (tests/fuzz/conftest.py: 60 in CI, a fresh seed each run, printed at the end;
HYPOTHESIS_PROFILE=nightly for 2000), a third of it for the validations (each runs onnxruntime several times). A
drawn network no target accepts is rejected with ``assume`` (hypothesis draws another), never a skip of the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import tests.fuzz.conftest  # noqa: F401  (registers and loads the hypothesis profiles: ci, nightly, dev)
from converter.pipeline.stages import Options, validate_spec
from converter.pipeline.spec import parse_spec
from converter.targets import TARGET_NAMES, resolve_target
from converter.targets.check import check_model

from .strategies import KINDS, accepting_target

VALIDATIONS = settings(max_examples=max(10, settings.default.max_examples // 3))
TARGETS = [t for t in TARGET_NAMES if t != "tensorrt-dla"]  # (DLA refuses dynamic dimensions: test_targets.py)


@pytest.mark.parametrize("kind", sorted(KINDS))
@VALIDATIONS
@given(data=st.data())
def test_dynamic_networks_validate_at_random_shapes_inside_their_profiles(kind, data):
    doc = data.draw(KINDS[kind](), label=kind)
    note(yaml.safe_dump(doc, sort_keys=False, width=200))
    spec = parse_spec(doc, Path("dynamic.yaml"))
    order = data.draw(st.permutations(TARGETS), label="targets, first that accepts")
    name = accepting_target(spec, order)
    assume(name is not None)  # (not pytest.skip: one such draw would skip every other example of the test)
    note(f"target {name}")
    results = list(validate_spec(spec, Options(target=resolve_target(name))))
    assert len(results) == len(spec.cases) > 0
    bad = [f"{r.outcome} {r.case} ({r.shapes}): {'; '.join(r.problems)}" for r in results if r.outcome != "PASS"]
    assert not bad, "\n".join(bad)


def _node_models():
    import warnings

    import numpy as np
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):  # (the corpus computes its own expected values)
        warnings.simplefilter("ignore")
        return [case.model for case in collect_testcases(None)]


NODE_MODELS = None


@st.composite
def symbolic_models(draw):
    """An onnx node-test model with random dimensions of its graph inputs made a dim_param or unknown, and its value
    infos dropped (so inference propagates the symbols)."""
    global NODE_MODELS
    if NODE_MODELS is None:
        NODE_MODELS = _node_models()
    import onnx

    model = onnx.ModelProto()
    model.CopyFrom(draw(st.sampled_from(NODE_MODELS)))
    for value in list(model.graph.input) + list(model.graph.output):
        if not value.type.HasField("tensor_type"):
            continue
        for dim in value.type.tensor_type.shape.dim:
            form = draw(st.sampled_from(("keep", "keep", "param", "unknown")))
            if form == "param":
                dim.Clear()
                dim.dim_param = draw(st.sampled_from(("n", "m", "batch")))
            elif form == "unknown":
                dim.Clear()
    del model.graph.value_info[:]
    return model


@given(model=symbolic_models(), target=st.sampled_from(TARGET_NAMES))
def test_check_never_crashes_on_symbolic_dimensions(model, target):
    note(f"{model.graph.name} on {target}")
    problems = check_model(model, target)
    assert all(p.severity in ("error", "warning") for p in problems)
