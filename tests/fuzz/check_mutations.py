"""The mutations of tests/fuzz/test_check_mutations.py, and the child process that checks them.

``python tests/fuzz/check_mutations.py CORPUS SEED START COUNT`` makes mutations START.. START+COUNT-1 of the
seed's sequence (the same ones every time: a mutation depends on the seed and its index only) and, for each,
prints one JSON line: what was mutated, then what ``check`` and onnxruntime said. A mutation that kills the
process (a segmentation fault in onnx's or onnxruntime's C++), or hangs it past HANG_SECONDS (then faulthandler
ends it, the stack on stderr), leaves its "try" or "check" line as the last one: the test reports it and goes on
after it in a new process. onnxruntime is not asked to load what check refuses for a value its load never returns
on (converter/untrusted/infer.py first_unsafe(nodes, "hangs")).
"""

from __future__ import annotations

import faulthandler
import json
import math
import pickle
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

import onnx
from onnx import AttributeProto, TensorProto, defs, helper

A = AttributeProto
HUGE_INTS = (2**62, 2**63 - 1, -(2**63), 2**31, -(2**31) - 1, -1, -7, 0, 7, 1000)
FLOATS = (math.nan, math.inf, -math.inf, 1e308, -0.0, 3.4e39)
STRINGS = (b"bogus", b"", b"\xff\xfe", b"NOTSET\x00x", "\u00fcn\u00efcode".encode(), b"x" * 300)
KINDS = (A.INT, A.FLOAT, A.STRING, A.INTS, A.FLOATS, A.STRINGS, A.TENSOR)
HANG_SECONDS = 120  # one mutation's check and load (a second or less each): past it, the process is ended
LOCALE = "Failed to construct locale"  # onnxruntime's StringNormalizer on a machine without the locale it asks for


def _value(rng: random.Random, kind: int):
    """A random attribute value of AttributeProto type ``kind`` (hostile more often than not)."""
    if kind == A.INT:
        return rng.choice(HUGE_INTS)
    if kind == A.FLOAT:
        return rng.choice(FLOATS)
    if kind == A.STRING:
        return rng.choice(STRINGS)
    if kind == A.INTS:
        return [rng.choice(HUGE_INTS) for _ in range(rng.randrange(0, 6))]
    if kind == A.FLOATS:
        return [rng.choice(FLOATS) for _ in range(rng.randrange(0, 4))]
    if kind == A.STRINGS:
        return [rng.choice(STRINGS) for _ in range(rng.randrange(0, 3))]
    return _tensor(rng)


def _tensor(rng: random.Random) -> TensorProto:
    t = helper.make_tensor("t", TensorProto.FLOAT, [2], [1.0, 2.0])
    choice = rng.randrange(4)
    if choice == 0:
        t.dims[:] = [2**40, 2**20]  # enormous, with data for 2
    elif choice == 1:
        t.dims[:] = [-1, 2]
    elif choice == 2:
        t.data_type = rng.choice([0, 999, TensorProto.STRING])
    return t


def _drop(node: onnx.NodeProto, name: str) -> None:
    kept = [a for a in node.attribute if a.name != name]
    del node.attribute[:]
    node.attribute.extend(kept)


SCHEMA_BROKEN = ("required attribute removed", "unknown attribute added", "another type")


def _checker_refuses(node: onnx.NodeProto, model: onnx.ModelProto) -> bool:
    """Whether onnx's checker refuses the node itself (a schema may allow attributes it does not list:
    LayerNormalization's, which onnxruntime loads too), where onnxruntime checks it: never a Constant, which it
    makes an initializer of, from its first attribute (tensorprotoutils.cc ConstantNodeProtoToTensorProto)."""
    if node.op_type == "Constant":
        return False
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version = model.ir_version
    ctx.opset_imports = {o.domain: o.version for o in model.opset_import}
    try:
        onnx.checker.check_node(node, ctx)
    except Exception:  # noqa: BLE001 - any refusal of the checker
        return True
    return False


def mutate(model: onnx.ModelProto, rng: random.Random) -> tuple[onnx.ModelProto, str, str, dict]:
    """A copy of ``model`` with one thing broken: (model, the op and attribute broken, what was done, where: the
    node's index, its attribute, and the kind of mutation (SCHEMA_BROKEN) where onnx's checker refuses the node)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    index = rng.randrange(len(graph.node))
    node = graph.node[index]
    domain = "" if node.domain in ("", "ai.onnx") else node.domain
    opset = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in copy.opset_import}.get(domain, 1)
    try:
        schema = defs.get_schema(node.op_type, opset, domain)
    except Exception:  # noqa: BLE001 - an op onnx has no schema of: mutate what the node has
        schema = None
    formal = dict(schema.attributes) if schema is not None else {}
    names = list(formal) or [a.name for a in node.attribute] or ["axis"]
    kind = rng.randrange(8)
    if kind == 0 and graph.initializer:  # enormous or negative dims of an initializer
        init = rng.choice(graph.initializer)
        init.dims[:] = rng.choice([[2**40, 2**20], [-3], [2**62, 4], [0, 2**63 - 1]])
        return copy, f"{node.op_type} initializer", f"dims {list(init.dims)}", {}
    if kind == 1:
        required = [n for n, f in formal.items() if f.required and any(a.name == n for a in node.attribute)]
        if required:
            name = rng.choice(required)
            _drop(node, name)
            broken = SCHEMA_BROKEN[0] if _checker_refuses(node, copy) else None
            return copy, f"{node.op_type}.{name}", "required attribute removed", \
                {"node": index, "attribute": name, "broken": broken}
    if kind == 2:
        node.attribute.append(helper.make_attribute("not_an_attribute", rng.choice(HUGE_INTS)))
        return copy, f"{node.op_type}.not_an_attribute", "unknown attribute added", \
            {"node": index, "attribute": "not_an_attribute",
             "broken": SCHEMA_BROKEN[1] if schema is not None and _checker_refuses(node, copy) else None}
    name = rng.choice(names)
    declared = int(formal[name].type.value) if name in formal else A.INT
    retyped = kind in (3, 4) and name in formal
    if kind in (3, 4):  # another type
        declared = rng.choice([k for k in KINDS if k != declared])
    value = _value(rng, declared)
    _drop(node, name)
    attr = (helper.make_attribute(name, [], attr_type=declared) if isinstance(value, list) and not value
            else helper.make_attribute(name, value))
    node.attribute.append(attr)
    return copy, f"{node.op_type}.{name}", helper.printable_attribute(attr)[:120], \
        {"node": index, "attribute": name, "broken": None if not _checker_refuses(node, copy)
         else SCHEMA_BROKEN[2] if retyped else SCHEMA_BROKEN[1] if schema is not None and name not in formal else None}


def mutations(models: list, seed: int, start: int, count: int):
    """(index, model, what, how, where) for mutations start.. start + count - 1 of the seed's sequence."""
    for i in range(start, start + count):
        rng = random.Random(f"{seed}:{i}")
        yield (i, *mutate(rng.choice(models), rng))


def load_error(model: onnx.ModelProto) -> str | None:
    """None when onnxruntime's CPU EP creates a session of ``model``, else its error (first line)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - any refusal is an answer
        text = str(exc).strip()
        return text.splitlines()[0][:400] if text else type(exc).__name__
    return None


def _onnx_infers(model: onnx.ModelProto) -> bool:
    """Whether onnx's own inference, strict and with data propagation, passes on the model: where onnxruntime's
    inference refuses a node that onnx's cannot see into (its input's shape known only to onnxruntime's own
    propagation, as in an expanded function body), check, which infers with onnx, cannot tell either."""
    try:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    except Exception:  # noqa: BLE001 - onnx's inference refuses it too: check should have seen it
        return False
    return True


def _say(**record) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> None:
    import contextlib
    import io

    from converter.model.check import check_file
    from converter.targets import target_names
    from converter.untrusted.infer import first_unsafe

    corpus, seed, start, count = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    models = [onnx.load_model_from_string(b) for b in pickle.loads(Path(corpus).read_bytes())]
    targets = list(target_names())
    folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
    for i, model, what, how, where in mutations(models, seed, start, count):
        _say(i=i, step="try", what=what, how=how, model=model.graph.name, **where)
        # a mutation that hangs check or onnxruntime ends the process, as a crash does, its stack on stderr
        faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
        path = folder / "m.onnx"
        path.write_bytes(model.SerializeToString())
        started = time.perf_counter()
        try:
            report = check_file(path, targets)
        except Exception:  # noqa: BLE001 - what the test holds: reported, not raised
            _say(i=i, step="check", crash=traceback.format_exc(limit=6))
            continue
        runs = None if report.error is not None else report.runs("ort-cpu")
        refusals = [] if runs is not False else [[p.index, p.op, p.node, p.reason[:300]]
                                                 for p in report.problems("ort-cpu") if p.severity == "error"]
        _say(i=i, step="check", error=report.error, runs=runs, refusals=refusals,
             s=round(time.perf_counter() - started, 3))
        started = time.perf_counter()
        hangs = first_unsafe(model.graph.node, "hangs") if runs is False else None
        if hangs:  # onnxruntime's load never returns (measured: tests/targets/test_validation.py)
            _say(i=i, step="ort", skipped=hangs[2])
            continue
        with contextlib.redirect_stdout(io.StringIO()):  # onnxruntime's Python layer prints EP fallbacks
            why = load_error(model) if runs is not None else None  # refused too: counted (check may be stricter)
        _say(i=i, step="ort", refused=why, s=round(time.perf_counter() - started, 3),
             onnx_infers=bool(why and "ShapeInferenceError" in why and runs and _onnx_infers(model)))
    faulthandler.cancel_dump_traceback_later()


if __name__ == "__main__":
    main(sys.argv[1:])
