"""validate's onnxruntime CPU sessions from the graph onnxruntime optimized offline (its documented offline mode:
the optimized graph serialized, then loaded with the optimizations off) run what the usual session runs.

Held bit for bit, against onnxruntime itself: every case of every spec in specs/ (its model as validate lowers
it), and onnx's own node test cases (models and inputs nobody here wrote), the whole corpus at each optimization
level a user can ask for. A model onnxruntime refuses is refused both ways. The cache keeps one graph per model,
level, onnxruntime build and CPU (spec_cache.optimized_model).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from converter.pipeline import spec_cache
from converter.pipeline.selection import spec_files
from converter.pipeline.spec import load_spec
from converter.pipeline.stages import _lower_for_target, make_options, opset_for, target_for_provider
from converter.runners.onnxruntime import OrtRunner, optimized_offline

from .conftest import SPECS

pytest.importorskip("onnxruntime")


def _same(a: dict, b: dict) -> bool:
    """Equal names, dtypes, shapes and bits (NaN payloads included); strings compared as strings."""
    if list(a) != list(b):
        return False
    for name in a:
        x, y = np.asarray(a[name]), np.asarray(b[name])
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype == object:
            if not (x == y).all():
                return False
        elif np.ascontiguousarray(x).tobytes() != np.ascontiguousarray(y).tobytes():
            return False
    return True


def _outputs(model: bytes, feeds: list[dict], opt_level: str, optimized: bool):
    """Each feed's outputs (or the exception's type and text) from one session; the session's refusal as a string."""
    try:
        runner = OrtRunner(model, opt_level=opt_level, optimized=optimized)
    except Exception as exc:  # noqa: BLE001 - the refusal is the answer
        return f"refused: {type(exc).__name__}"
    found = []
    for feed in feeds:
        try:
            found.append(runner.run(feed))
        except Exception as exc:  # noqa: BLE001
            found.append(type(exc).__name__)
    return found


def _agree(model: bytes, feeds: list[dict], opt_level: str) -> str | None:
    """None where the offline-optimized graph gives what the model gives; else what differs."""
    online = _outputs(model, feeds, opt_level, optimized=False)
    graph = optimized_offline(model, opt_level)
    if graph is None:
        return None if isinstance(online, str) else "onnxruntime made a session but no optimized graph"
    offline = _outputs(graph, feeds, opt_level, optimized=True)
    if isinstance(online, str) or isinstance(offline, str):
        return None if online == offline else f"sessions: {online!r} against {offline!r}"
    for i, (x, y) in enumerate(zip(online, offline)):
        if isinstance(x, str) or isinstance(y, str):
            if x != y:
                return f"feed {i}: {x!r} against {y!r}"
        elif not _same(x, y):
            return f"feed {i}: outputs differ"
    return None


def _suite():
    options = make_options()
    target = target_for_provider(options.configs[0].provider)
    for path in spec_files([SPECS]):
        spec = load_spec(path)
        try:
            model, _, static, _, _ = _lower_for_target(spec, options, target, opset_for(spec, options))
        except Exception:  # noqa: BLE001 - a spec the target refuses has no model to run
            continue
        yield spec.name, model, [dict(case.inputs) for case in spec.cases]


def test_every_bundled_case_runs_the_same_from_the_offline_graph():
    checked, differ = 0, []
    for name, model, feeds in _suite():
        why = _agree(model, feeds, "all")
        checked += len(feeds)
        if why:
            differ.append(f"{name}: {why}")
    assert checked > 400 and not differ, differ


def _node_cases():
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = [c for c in collect_testcases() if c.model is not None and c.data_sets]
    for case in cases:
        graph = case.model.graph
        initialized = {i.name for i in graph.initializer}
        names = [i.name for i in graph.input if i.name not in initialized]
        inputs = case.data_sets[0][0]
        if len(inputs) != len(names) or not all(isinstance(a, np.ndarray) for a in inputs):
            continue  # (a sequence, an optional, an input left out)
        yield case.name, case.model.SerializeToString(), [dict(zip(names, inputs))]


@pytest.mark.parametrize("opt_level", ["basic", "extended", "all"])
def test_onnx_node_cases_run_the_same_from_the_offline_graph(opt_level):
    checked, differ = 0, []
    for name, model, feeds in _node_cases():
        why = _agree(model, feeds, opt_level)
        checked += 1
        if why:
            differ.append(f"{name}: {why}")
    assert checked > 1000 and not differ, differ


def test_the_cache_keeps_one_graph_per_model_and_level(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEC2ONNX_CACHE", str(tmp_path))
    _, model, _ = next(_suite())
    built = []

    def build(level):
        def make():
            built.append(level)
            return optimized_offline(model, level)
        return make

    first = spec_cache.optimized_model(model, "all", build("all"))
    assert first is not None and first == spec_cache.optimized_model(model, "all", build("all"))
    assert spec_cache.optimized_model(model, "basic", build("basic")) is not None
    assert built == ["all", "basic"]  # (the second "all" was read back)
    assert len(list((tmp_path / "optimized").rglob("*.model"))) == 2


def test_no_graph_is_kept_where_caching_is_off_or_onnxruntime_refuses_the_model(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEC2ONNX_CACHE", "off")
    _, model, _ = next(_suite())
    assert spec_cache.optimized_model(model, "all", lambda: pytest.fail("built with caching off")) is None
    monkeypatch.setenv("SPEC2ONNX_CACHE", str(tmp_path))
    assert optimized_offline(b"not a model", "all") is None
    assert spec_cache.optimized_model(b"not a model", "all", lambda: optimized_offline(b"not a model", "all")) is None
    assert not list(tmp_path.rglob("*.model"))


def test_an_offline_graph_is_for_the_cpu_provider_only():
    _, model, _ = next(_suite())
    with pytest.raises(ValueError, match="for the CPU provider"):
        OrtRunner(model, "CUDAExecutionProvider", optimized=True)
