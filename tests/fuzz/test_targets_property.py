"""For every target T and random valid specs of every layer kind: convert's model passes ``check --target T``, or
the spec is refused before lowering with a user error (a model failing its own target's check is our bug).

For tensorrt also: the deployment model has one node per float16/float32 layer (two for FLOOR_DIV, one more for
a Scale's power, an int32 shape input's Cast), and the host copy validates (docs/deployment.md). Examples: the
hypothesis profile's (60 per test in CI, 2000 with HYPOTHESIS_PROFILE=nightly); SPEC2ONNX_TARGET_EXAMPLES overrides.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converter.errors import UserError
from converter.spec import parse_spec
from converter.targets import TARGET_NAMES, get_target
from converter.targets.check import errors
from converter.pipeline import model_for_target, runnable_opset_above
from converter.targets.spec_rules import TargetRuleError
from converter.pipeline import Options, validate_spec

from .strategies import KINDS, VALID, chain_specs

EXAMPLES = int(os.environ.get("SPEC2ONNX_TARGET_EXAMPLES", "0")) or None
_limit = settings(max_examples=EXAMPLES) if EXAMPLES else (lambda f: f)
SPECS = st.one_of(*(VALID[k]() for k in sorted(VALID) if k in KINDS), chain_specs())


@pytest.mark.parametrize("target", TARGET_NAMES)
@_limit
@given(pair=SPECS)
def test_every_target_checks_its_own_model_or_refuses_before_lowering(target, pair):
    doc, opset = pair
    spec = parse_spec(doc, __import__("pathlib").Path("fuzz.yaml"))
    try:
        model, _, _, problems = model_for_target(spec, get_target(target), opset)
    except TargetRuleError:
        return  # refused before lowering, naming the rule: a user error (exit 2)
    except UserError as exc:
        pytest.fail(f"a user error after the spec rules passed (should be refused before lowering): {exc}")
    failing = errors(problems)
    # a version problem is a user's opset choice (convert names the opset that works); anything else is our bug
    failing = [p for p in failing if "no kernel for since-version" not in p.reason and "opset" not in p.reason]
    if failing and runnable_opset_above(spec, get_target(target), opset) is not None:
        return  # convert refuses (a user error) naming the higher opset where every node runs (e.g. float16
        # DequantizeLinear needs opset 19): the spec's opset is the user's choice
    assert not failing, f"{target}: the model fails its own target's check: {failing[0]}"


@_limit
@given(pair=SPECS)
def test_tensorrt_deployment_models_validate_through_their_host_copy(pair):
    doc, opset = pair
    spec = parse_spec(doc, __import__("pathlib").Path("fuzz.yaml"))
    try:
        # (TensorRT's table covers opsets 9..24: a higher one asked for is the user's choice, refused by the check)
        results = list(validate_spec(spec, Options(opset=min(opset, 24), target=get_target("tensorrt"))))
    except TargetRuleError:
        return
    # a spec the target's rules refuse before lowering is REFUSED, a user's spec (it was an ERROR with bad_input);
    # a model that fails its own target's static check ("static check: ...") stays our bug, as any other outcome
    refused_spec = [r for r in results if r.outcome == "REFUSED" and not r.problems[0].startswith("static check: ")]
    bad = [f"{r.outcome} {r.case}: {'; '.join(r.problems)}" for r in results if r.outcome != "PASS"
           and r not in refused_spec and not r.bad_input]
    assert not bad, "\n".join(bad)
