"""The validation pass (converter/targets/validation.py) and the typed attribute readers the rules use.

- no rule in targets/ reads an attribute but through converter/targets/attributes.py (a grep);
- ``decode`` and the readers take any AttributeProto, of any type, without raising (hypothesis);
- every row of tables/attribute-values.json holds against the installed onnxruntime (tools/attribute_values.py);
- the values onnx's shape inference crashes on are never given to it, in any path (a child process: a crash
  would take the test run down).
"""

from __future__ import annotations

import importlib.util
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import AttributeProto, TensorProto, helper

from converter.targets.attributes import INVALID, decode, float_attr, int_attr, ints_attr, string_attr
from converter.untrusted import infer as hazards
from converter.untrusted.infer import within
from converter.targets.model_view import node_attributes, schema_of

from ..conftest import REPO, child_env

TARGETS = REPO / "converter" / "targets"
# Where attributes are decoded and validated: every other module of targets/ reads them through the readers.
READERS = {"attributes.py", "model_view.py", "validation.py", "checker.py", "functions.py"}
RAW = re.compile(r"\b(node|n)\.attrs\b|\.node\.attribute\b|get_attribute_value|\b(a|attr)\.(i|f|s|t|g|ints|floats|strings)\b")


def test_no_rule_reads_an_attribute_but_through_the_typed_readers():
    found = []
    for path in sorted(TARGETS.glob("*.py")):
        if path.name in READERS:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if RAW.search(line) and not line.lstrip().startswith("#"):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, "read attributes through converter/targets/attributes.py:\n" + "\n".join(found)


ANY_VALUE = st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=True, allow_infinity=True, width=32),
                      st.binary(max_size=8), st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=4),
                      st.lists(st.floats(width=32), min_size=1, max_size=3), st.lists(st.binary(max_size=4), min_size=1, max_size=3))


@settings(deadline=None)
@given(name=st.sampled_from(["axis", "mode", "perm", "cubic_coeff_a", "kernel_shape", "to", "pads", "epsilon"]),
       value=ANY_VALUE, declared=st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13]))
def test_decode_and_the_readers_take_any_attribute(name, value, declared):
    attr = helper.make_attribute(name, value)
    attr.type = declared  # a declared type that need not match the field set (as in a hostile file)
    for expected in (None, AttributeProto.INT, AttributeProto.STRING, AttributeProto.INTS, AttributeProto.FLOAT):
        got = decode(attr, expected)
        assert got is INVALID or expected is None or attr.type == expected
    node = helper.make_node("Resize", ["x"], ["y"])
    node.attribute.append(attr)
    schema, defaults = schema_of("Resize", "", {"": 19})
    attrs, explicit = node_attributes(node, schema, defaults)

    class View:  # what the readers read of a NodeView
        pass

    view = View()
    view.attrs, view.explicit = attrs, explicit
    assert int_attr(view, name) is None or type(int_attr(view, name)) is int
    assert float_attr(view, name) is None or type(float_attr(view, name)) is float
    assert string_attr(view, name) is None or type(string_attr(view, name)) is str
    assert ints_attr(view, name) is None or all(type(v) is int for v in ints_attr(view, name))
    for entry in ({"gt": 0}, {"ge": -1, "le": 2, "odd": True}, {"gt": 0, "nan": "allowed"}):
        assert within(entry, attrs.get(name), 3) in (True, False)


def test_a_schema_lookup_takes_any_opset():
    assert schema_of("Relu", "", {"": 2**63 - 1})[0].since_version == 14  # the newest Relu (get_schema takes C ints)
    assert schema_of("Relu", "", {"": -1})[0] is None
    assert schema_of("Relu", "", {})[0] is None


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
def test_every_row_of_the_attribute_table_holds_against_the_installed_onnxruntime():
    from tools import attribute_values

    verdicts = attribute_values.verify()
    disagreements = [f"{v.op} {v.attribute}: {p}" for v in verdicts for p in v.problems]
    assert not disagreements, disagreements
    unprobed = [f"{v.op}.{v.attribute}" for v in verdicts if v.since is None]
    assert len(unprobed) <= 2, unprobed  # a row no node test model exercises is taken on its source alone
    assert len(verdicts) >= 40


CRASHERS = '''
import onnx
from onnx import TensorProto, helper

def one(node, inputs, outputs):
    graph = helper.make_graph([node], "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)

f = lambda n, s: helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
i = lambda n, s: helper.make_tensor_value_info(n, TensorProto.INT64, s)
einsum = lambda equation, rank: one(helper.make_node("Einsum", ["x"], ["y"], equation=equation), [f("x", [2] * rank)],
                                    [f("y", None)])
models = {  # one per row of the table's "unsafe" list at least (op.attribute: models)
    "GatherND.batch_dims": [one(helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=-7),
                                [f("x", [2, 2]), i("i", [2, 1])], [f("y", None)])],
    "LayerNormalization.axis": [one(helper.make_node("LayerNormalization", ["x", "s"], ["y", "m", "v"], axis=2**63 - 1),
                                    [f("x", [2, 3]), f("s", [3])], [f("y", None), f("m", None), f("v", None)])],
    "Split.num_outputs": [one(helper.make_node("Split", ["x"], ["a", "b"], axis=0, num_outputs=2**31), [f("x", [4])],
                              [f("a", None), f("b", None)])],
    "Einsum.equation": [einsum(b"\\xff\\xfe", 0), einsum("1", 0), einsum("a.b", 2), einsum("a-b->ab", 2),
                        einsum("....a->a", 1)],
}
'''

CHECKED = CRASHERS + '''
from converter.model.check import check_loaded

for model in sum(models.values(), []):
    for accepted in (True, False):  # per group, and the whole model
        found = check_loaded(model, ["ort-cpu", "tensorrt", "openvino"])
        assert all(any("shape inference cannot take the node" in p.reason for p in problems)
                   for problems in found.values()), found
print("ok")
'''


def test_values_onnx_shape_inference_crashes_on_are_refused_without_inferring_them():
    proc = subprocess.run([sys.executable, "-c", CHECKED], capture_output=True, text=True, cwd=REPO, timeout=300,
                          env=child_env(PYTHONPATH=str(REPO)))
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stderr[-3000:])


SAFE = '''
SAFE = {"Einsum.equation": einsum("a b->ba", 2)}  # the control: the same node with an equation inference takes
'''
# One model, one runtime, in a child process: it prints what the runtime did where it returns
LOAD = CRASHERS + SAFE + '''
import sys
key, index, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
model = models[key][index] if index >= 0 else SAFE[key]
try:
    if how == "onnx":
        onnx.shape_inference.infer_shapes(model, strict_mode=True)
    else:
        import onnxruntime
        onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    print("returned")
except Exception as exc:
    print("raised", type(exc).__name__)
'''
HANG_SECONDS = 2  # CPU seconds: the hangs are infinite loops (Split's allocation takes minutes); an answer takes less


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (HANG_SECONDS, HANG_SECONDS + 1))  # SIGXCPU ends a loop, however busy


def test_every_unsafe_value_crashes_or_hangs_onnx_inference_and_onnxruntimes_load():
    """The table's claims, measured: on each model, onnx's shape inference and onnxruntime's load do what the row
    says ("crashes": a signal; "hangs": still spinning after HANG_SECONDS of CPU time; "refuses": an error); the
    control, an equation inference takes, returns (so the harness can tell)."""
    pytest.importorskip("onnxruntime")
    namespace: dict = {}
    exec(CRASHERS, namespace)
    assert set(namespace["models"]) == {f"{op}.{e['attribute']}" for op, rows in hazards.UNSAFE.items() for e in rows}
    runs = [(key, index, how) for key, models in namespace["models"].items() for index in range(len(models))
            for how in ("onnx", "onnxruntime")] + [("Einsum.equation", -1, how) for how in ("onnx", "onnxruntime")]
    procs = [(run, subprocess.Popen([sys.executable, "-c", LOAD, *map(str, run)], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True, cwd=REPO, env=child_env(PYTHONPATH=str(REPO)),
                                    preexec_fn=_limited))
             for run in runs]
    seen = {run: _effect(*proc.communicate(timeout=600), proc.returncode) for run, proc in procs}
    effects = {(key, index, how): UNSAFE_ROW[key][how] for key, index, how in runs if index >= 0}
    # A crash of onnx's inference is an out-of-bounds access (undefined behaviour): it faults only where the access
    # lands outside mapped memory, so one run may return (CI seed run of 2026-11-29: LayerNormalization.axis). The
    # value is screened either way; a hang, a refusal and onnxruntime's effects are held exactly.
    seen = {run: "crashes" if (run[2] == "onnx" and effects.get(run) == "crashes" and effect == "returns") else effect
            for run, effect in seen.items()}
    assert {run: seen[run] for run in effects} == effects
    assert all(seen[("Einsum.equation", -1, how)] == "returns" for how in ("onnx", "onnxruntime")), seen


UNSAFE_ROW = {f"{op}.{e['attribute']}": e for op, rows in hazards.UNSAFE.items() for e in rows}


def _effect(out: str, _, code: int) -> str:
    """What the child's runtime did: as the table says it ("crashes": a signal; "hangs": ended by the CPU limit;
    "refuses": an error), or "returns"."""
    if out.startswith("returned"):
        return "returns"
    if out.startswith("raised"):
        return "refuses"
    return "hangs" if code == -signal.SIGXCPU else "crashes" if code < 0 else f"exit status {code}"


def _einsum_loops(equation: str) -> bool:
    """onnx 1.23's einsumShapeInference (onnx/defs/math/utils.cc) transliterated: spaces removed, the left-hand side
    (before the first "->") cut at each comma; the loop over a term advances past its first "..." and past
    letters, and past nothing else (the branch for another character does not move the index)."""
    equation = equation.replace(" ", "")
    left = equation.split("->", 1)[0]
    for term in left.split(","):
        ellipsis, index = term.find("..."), 0
        while index < len(term):
            if index == ellipsis:
                index += 3
            elif ("a" <= term[index] <= "z") or ("A" <= term[index] <= "Z"):
                index += 1
            else:
                return True
    return False


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abAZ,.->1 \xff\u00e9", max_size=12))
def test_an_einsum_equation_is_unsafe_exactly_where_onnx_inference_would_loop(equation):
    node = helper.make_node("Einsum", ["x"], ["y"], equation=equation.encode("utf-8"))
    assert bool(hazards.unsafe(node)) == _einsum_loops(equation.encode("utf-8").decode("latin-1")), equation


def test_the_unsafe_table_names_real_attributes_of_real_ops_in_their_type():
    from onnx import defs

    for op, entries in hazards.UNSAFE.items():
        schema = defs.get_schema(op, 28)
        for entry in entries:
            kind = AttributeProto.STRING if "pattern" in entry else AttributeProto.INT
            assert int(schema.attributes[entry["attribute"]].type.value) == kind, (op, entry)
            assert entry["source"]
    assert TensorProto  # (imported for the crash models' element types)


FORKED = '''
import onnx
from onnx import TensorProto, helper
from converter.targets import checker

checker.PARALLEL_NODES = 1
nodes = [helper.make_node("Relu", ["a"], ["b"]), helper.make_node("Relu", ["b"], ["a2"]), helper.make_node("Relu", ["a2"], ["c"])]
good = helper.make_model(helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1])],
                                           [helper.make_tensor_value_info("c", TensorProto.FLOAT, [1])]),
                         opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
cycle = onnx.ModelProto()
cycle.CopyFrom(good)
cycle.graph.node[0].input[0] = "c"  # a -> ... -> c -> first node: a cycle
cycle.graph.output[0].type.tensor_type.ClearField("shape")  # and a tolerated complaint before it
for m in (good, cycle):
    data = m.SerializeToString()
    pending = checker.start(data, m)
    assert pending.forked, "not forked"
    assert pending.result() == checker.findings(data, m), (pending.result(), checker.findings(data, m))
print("ok", len(checker.findings(cycle.SerializeToString(), cycle)))
'''


def test_the_checker_in_a_forked_process_finds_what_it_finds_in_this_one():
    proc = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, cwd=REPO, timeout=300,
                          env=child_env(PYTHONPATH=str(REPO)))
    assert proc.returncode == 0 and proc.stdout.strip() == "ok 2", (proc.stdout, proc.stderr[-3000:])


def test_an_axis_of_no_rank_is_refused_where_the_rank_is_unknown_as_onnxruntime_refuses_the_session():
    """Fuzz (CI seed of 2026-11-29, mutation #62): the second Split of onnx's
    test_rotary_embedding_no_position_ids_expanded given axis -2147483649. Its input's rank is unknown to onnx's
    inference on the file, so check said "runs"; onnxruntime knows it after its own optimizations and refuses the
    session ('Invalid value of attribute 'axis'. Rank=4 Value=2147483647': the axis read as a C int). An axis whose
    value is no axis of any tensor, read as int64 or as int32, is refused whatever the rank."""
    import warnings

    import numpy as np
    from onnx.backend.test.case.node import collect_testcases

    from converter.targets.check import check_model, errors
    from converter.targets.validation import _int32, _no_axis

    from ..helpers import ort_cpu_loads

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        model = next(c.model for c in collect_testcases(None)
                     if c.name == "test_rotary_embedding_no_position_ids_expanded")
    split = [n for n in model.graph.node if n.op_type == "Split"][1]
    next(a for a in split.attribute if a.name == "axis").i = -2147483649
    assert not ort_cpu_loads(model)
    reasons = [p.reason for p in errors(check_model(model, "ort-cpu"))]
    # (the rank is known now, given the Split's part from its input: model_view.split_ranks; the rule holds without it)
    assert any(r.startswith("attribute axis=-2147483649: Split-18 takes an axis of input 0 (rank 4)") for r in reasons), reasons
    assert _int32(-2147483649) == 2**31 - 1 and _int32(2**63 - 1) == -1 and _int32(5) == 5
    assert _no_axis(-2147483649) and _no_axis(2**31) and not _no_axis(2**63 - 1) and not _no_axis(-1)


def test_the_ne_bound_refuses_that_value_alone():
    """'ne': GroupNormalization's num_groups=0 (onnxruntime's Div in its function body refuses a constant 0 at load;
    a CI seed, 2953629352 #257); -1 and 3 load (measured: python -m tools.attribute_values checks the entry)."""
    assert not within({"ne": 0}, 0) and not within({"ne": 0}, [2, 0])
    assert within({"ne": 0}, -1) and within({"ne": 0}, 3) and within({"ne": 0}, [1, 2])


@pytest.mark.parametrize("ids, refused", [([0, 1, 2], False), ([2**62, -2**63, -1], True), ([-1, 0, 0], True),
                                          ([2**31, 0, 0], True), ([2**31 - 1, 0, 0], False)])
def test_tree_ensemble_feature_ids_outside_int32_are_refused_as_onnxruntime_refuses(ids, refused):
    """Fuzz (CI seed 3355536265, #145): TreeEnsemble's nodes_featureids [2^62, -2^63, -1] in onnx's
    test_ai_onnx_ml_tree_ensemble_single_tree: check said it runs on ort-cpu; onnxruntime refuses a non-leaf node's
    feature id outside [0, 2^31 - 1] when it makes the session (tree_ensemble_common.h:529)."""
    import warnings

    import numpy as np
    from onnx.backend.test.case.node import collect_testcases

    from converter.targets.check import check_model, errors

    from ..helpers import ort_cpu_loads

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        model = next(c.model for c in collect_testcases(None) if c.name == "test_ai_onnx_ml_tree_ensemble_single_tree")
    attribute = next(a for a in model.graph.node[0].attribute if a.name == "nodes_featureids")
    del attribute.ints[:]
    attribute.ints.extend(ids)
    assert ort_cpu_loads(model) is not refused
    found = [p.reason for p in errors(check_model(model, "ort-cpu"))]
    assert bool([r for r in found if "nodes_featureids" in r]) is refused, found


def _node_case(name: str):
    import warnings

    import numpy as np
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return next(c.model for c in collect_testcases(None) if c.name == name)


@pytest.mark.parametrize("roots, refused", [([0], False), ([2], False), ([3], True), ([-1], True),
                                            ([-7, -2**63, -2**31 - 1], True)])
def test_tree_ensemble_roots_outside_its_nodes_are_refused_as_onnxruntime_refuses(roots, refused):
    """Fuzz seed 3110137386 (#140): TreeEnsemble's tree_roots [-7, -2^63, -2^31 - 1] in onnx's
    test_ai_onnx_ml_tree_ensemble_set_membership (3 nodes): check said it runs on ort-cpu; onnxruntime refuses a
    root that is no index of the nodes_* lists (tree_ensemble_attribute.h:479). Tabled as 'index_of'."""
    from converter.targets.check import check_model, errors

    from ..helpers import ort_cpu_loads

    model = _node_case("test_ai_onnx_ml_tree_ensemble_set_membership")
    attribute = next(a for a in model.graph.node[0].attribute if a.name == "tree_roots")
    del attribute.ints[:]
    attribute.ints.extend(roots)
    assert ort_cpu_loads(model) is not refused
    found = [p.reason for p in errors(check_model(model, "ort-cpu"))]
    assert bool([r for r in found if "tree_roots" in r and "takes indices of nodes_featureids" in r]) is refused, found


@pytest.mark.parametrize("weights, refused", [(None, False), ([1.0] * 7, False), ([], True), ([1.0] * 6, True)])
def test_tfidf_weights_the_node_sets_empty_are_refused_as_onnxruntime_refuses(weights, refused):
    """Fuzz seed 3110137386 (#1460): TfIdfVectorizer's weights set to an empty list (7 n-gram indexes): check said it
    runs on ort-cpu; onnxruntime reads the empty list as given and refuses it (tfidfvectorizer.cc:210); no weights
    at all loads."""
    import onnx
    from onnx import helper

    from converter.targets.check import check_model, errors

    from ..helpers import ort_cpu_loads

    model = _node_case("test_tfidfvectorizer_tf_batch_onlybigrams_skip5")
    node = model.graph.node[0]
    for attribute in [a for a in node.attribute if a.name == "weights"]:
        node.attribute.remove(attribute)
    if weights is not None:
        attribute = helper.make_attribute("weights", weights, attr_type=onnx.AttributeProto.FLOATS)
        node.attribute.append(attribute)
    assert ort_cpu_loads(model) is not refused
    found = [p.reason for p in errors(check_model(model, "ort-cpu"))]
    assert bool([r for r in found if "weights" in r and "one value per value of ngram_indexes" in r]) is refused, found
