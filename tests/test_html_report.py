"""--html (issue 33, section 3): one self-contained page per command, opened in a real browser.

The browser tests (marked ``browser``) open each page from a file:// URL in Chromium through Playwright (Debian's
/usr/bin/chromium, or SPEC2ONNX_CHROMIUM; Playwright's own browser download is never used) and assert: no console
error, no request but the file itself, every <img> decoded, and the worst element's index in the text. Where
Chromium or Playwright is missing they skip with the reason; with SPEC2ONNX_REQUIRE_BROWSER=1 (.ci/run sets it)
that is a failure instead."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from converter import error_map

from .conftest import REPO, RUN_CLI, child_env

CHROMIUM = os.environ.get("SPEC2ONNX_CHROMIUM", "/usr/bin/chromium")
WORST = (0, 1, 12, 22)


def cli(*args, cwd, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUN_CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=child_env(PYTHONPATH=str(REPO), **(env or {})), timeout=300)


def _model(path: Path, nodes, shape, opset: int = 17, ir: int = 8) -> Path:
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, shape)])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir)
                     .SerializeToString())
    return path


@pytest.fixture
def failing_run(tmp_path):
    """The issue's example: Relu over a 1x3x32x32 input against golden outputs with a block of errors around
    [0, 1, 12, 22] (0.05 on a 5x5 block, 1.0 more at [0, 1, 12, 22]): the largest error is there."""
    model = _model(tmp_path / "relu.onnx", [helper.make_node("Relu", ["x"], ["y"])], [1, 3, 32, 32])
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    y = np.maximum(x, 0)
    y[0, 1, 10:15, 20:25] += 0.05
    y[WORST] += 1.0
    np.savez(tmp_path / "in.npz", x=x)
    np.savez(tmp_path / "golden.npz", y=y)
    return model


def _browser_or_skip():
    why = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        why, sync_playwright = f"playwright is not installed ({exc}): pip install -e '.[test]'", None
    if why is None and not os.access(CHROMIUM, os.X_OK):
        why = f"no Chromium at {CHROMIUM} (apt-get install -y chromium, or SPEC2ONNX_CHROMIUM=PATH)"
    if why is not None:
        if os.environ.get("SPEC2ONNX_REQUIRE_BROWSER") == "1":
            pytest.fail(f"SPEC2ONNX_REQUIRE_BROWSER=1 and the browser test cannot run: {why}")
        pytest.skip(why)
    return sync_playwright


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])  # (root in CI containers)
        yield launched
        launched.close()


def open_page(browser, path: Path) -> dict:
    """Open ``path`` from a file:// URL: its text, the requests made, console errors and page errors, and the
    naturalWidth of every <img>."""
    page = browser.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    url = path.resolve().as_uri()
    page.goto(url, wait_until="load")
    seen = {"url": url, "text": page.inner_text("body"), "requests": requests, "errors": errors,
            "images": page.evaluate("Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)"),
            "svgs": page.evaluate("document.querySelectorAll('svg').length"),
            "graphs": page.evaluate("document.querySelectorAll('figure > svg').length"),  # (graph.py's drawings)
            "plots": page.evaluate("document.querySelectorAll('.plots > svg').length"),  # (histogram, scatter)
            "rings": page.evaluate("Array.from(document.querySelectorAll('svg.ring circle')).map(c => {"
                                   "const r = c.getBoundingClientRect(), i = c.closest('.mapbox').querySelector('img')"
                                   ".getBoundingClientRect(); return [(r.x + r.width / 2 - i.x) / i.width, "
                                   "(r.y + r.height / 2 - i.y) / i.height]; })"),
            "scripts": page.evaluate("document.scripts.length")}
    page.close()
    return seen


def _self_contained(seen: dict, images: int) -> None:
    assert seen["errors"] == []
    assert seen["requests"] == [seen["url"]]  # the file itself, nothing else
    assert seen["scripts"] == 0
    assert len(seen["images"]) >= images and all(w > 0 for w in seen["images"]), seen["images"]


@pytest.mark.browser
def test_run_model_page_shows_the_worst_element_of_a_block_of_errors(browser, failing_run, tmp_path):
    page = tmp_path / "report.html"
    done = cli("run", failing_run, "--load-inputs", "in.npz", "--load-outputs", "golden.npz", "--html", page,
               cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # (the golden outputs differ: the run fails as without)
    seen = open_page(browser, page)
    _self_contained(seen, images=4)  # per failing comparison (two: each runtime vs golden): heatmap and its scale
    assert seen["plots"] == 4  # (each comparison's histogram and error against magnitude)
    assert "worst element at [0, 1, 12, 22]" in seen["text"]
    # the circle sits on the worst element: row 12, column 22 of the 32x32 slice, centre of its pixel (as drawn)
    assert seen["rings"] and all(abs(x - 22.5 / 32) < 0.01 and abs(y - 12.5 / 32) < 0.01 for x, y in seen["rings"])
    assert "1 of the 1 slices with an error (3 slices in all): [0, 1, :, :]" in seen["text"]
    assert "exact (every element equal)" in seen["text"]  # the passing pair's margin: both runtimes give relu exactly


@pytest.mark.browser
def test_validate_page_from_worker_processes(browser, tmp_path):
    expected = [[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 99.0]]]]  # 2*x, one wrong
    spec = tmp_path / "scale.yaml"
    spec.write_text(json.dumps({
        "name": "html-scale",
        "network": {"inputs": {"x": {"dtype": "float32", "shape": [1, 2, 2, 3]}},
                    "layers": [{"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "UNIFORM", "scale": [2.0]}],
                    "outputs": ["y"]},
        "cases": [{"name": "wrong", "inputs": {"x": [[[[0.5, 1, 1.5], [2, 2.5, 3]], [[3.5, 4, 4.5], [5, 5.5, 6]]]]},
                   "expected": {"y": expected}},
                  {"name": "right", "inputs": {"x": [[[[0.5, 1, 1.5], [2, 2.5, 3]], [[3.5, 4, 4.5], [5, 5.5, 6]]]]}}],
    }))
    page = tmp_path / "validate.html"
    done = cli("validate", "-j", "2", spec, "--html", page, cwd=tmp_path)  # (worker processes carry the pictures)
    assert done.returncode == 1, done.stdout + done.stderr
    seen = open_page(browser, page)
    _self_contained(seen, images=2)
    # the reference's picture and onnxruntime's (the same values: drawn once, shown for each)
    assert seen["text"].count("worst element at [0, 1, 1, 2]: got 12.0, want 99.0") == 2
    assert "html-scale/right" in seen["text"] and "exact (every element equal)" in seen["text"]


@pytest.mark.browser
def test_reduce_page_draws_the_differing_softmax(browser, tmp_path):
    # opset 9's Softmax flattens from axis 1: onnxruntime and onnx's reference differ on it (as on light_squeezenet)
    model = _model(tmp_path / "sm.onnx", [helper.make_node("Relu", ["x"], ["r"]),
                                          helper.make_node("Softmax", ["r"], ["s"], axis=1),
                                          helper.make_node("Neg", ["s"], ["z"])], [1, 10, 2, 2], opset=9, ir=7)
    page = tmp_path / "reduce.html"
    done = cli("reduce", model, "-o", tmp_path / "small.onnx", "--html", page, cwd=tmp_path)
    assert done.returncode == 1 and "1 of 3 nodes (#1 (Softmax))" in done.stdout, done.stdout + done.stderr
    seen = open_page(browser, page)
    _self_contained(seen, images=1)
    assert seen["graphs"] == 1 and "Softmax" in seen["text"] and "#1" in seen["text"]
    assert "Relu" not in seen["text"]  # (reduced away)
    assert "worst element at [" in seen["text"]


@pytest.mark.browser
def test_check_page_colours_nodes_per_target(browser, failing_run, tmp_path):
    page = tmp_path / "check.html"
    done = cli("check", failing_run, "--target", "ort-cpu", "--target", "tensorrt-dla", "--html", page, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # float32 Relu: DLA runs FP16 and INT8 only
    seen = open_page(browser, page)
    _self_contained(seen, images=0)
    assert seen["svgs"] == seen["graphs"] == 2
    assert "every node runs on ort-cpu" in seen["text"] and "not every node runs on tensorrt-dla" in seen["text"]


def test_run_spec_page_lists_the_outputs(tmp_path):
    done = cli("run", REPO / "specs" / "trt_scale" / "seed-scale-4d.yaml", "-o", tmp_path / "out", "--html",
               tmp_path / "spec.html", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (tmp_path / "spec.html").read_text()
    assert "Outputs written" in text and "<script" not in text


def test_html_needs_no_plotting_library(failing_run, tmp_path):
    """The page is drawn with numpy and the standard library (issue 34, item 4: matplotlib's import alone cost
    more than the 10% --html may add): a matplotlib that cannot be imported changes nothing."""
    blocked = tmp_path / "blocked"
    for name in ("matplotlib", "PIL"):
        (blocked / name).mkdir(parents=True)
        (blocked / name / "__init__.py").write_text("raise ImportError('blocked by the test')\n")
    done = subprocess.run([sys.executable, "-c", RUN_CLI, "run", str(failing_run), "--load-inputs", "in.npz",
                           "--load-outputs", "golden.npz", "--html", "r.html"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, env=child_env(PYTHONPATH=f"{blocked}{os.pathsep}{REPO}"))
    assert done.returncode == 1, done.stdout + done.stderr  # (the golden outputs differ)
    page = (tmp_path / "r.html").read_text()
    assert "worst element at [0, 1, 12, 22]" in page and page.count("data:image/png;base64,") == 4


def test_json_report_is_the_same_with_html(failing_run, tmp_path):
    args = ("run", failing_run, "--load-inputs", "in.npz", "--load-outputs", "golden.npz")
    plain = cli(*args, "--json", "a.json", cwd=tmp_path)
    drawn = cli(*args, "--json", "b.json", "--html", "b.html", cwd=tmp_path)
    assert plain.returncode == drawn.returncode == 1
    import re

    def timeless(text):
        return re.sub(r"\d+\.\d\d s\b", "T s", text)

    assert timeless(plain.stdout) == timeless(drawn.stdout)

    def cases(name):
        return [{k: v for k, v in c.items() if k != "seconds"} for c in json.loads((tmp_path / name).read_text())["cases"]]

    assert cases("a.json") == cases("b.json")


def test_html_may_not_overwrite_an_input(failing_run, tmp_path):
    done = cli("run", failing_run, "--load-inputs", "in.npz", "--html", "in.npz", cwd=tmp_path)
    assert done.returncode == 2 and "--html" in done.stderr, done.stderr


# error_map: the summary the page draws, checked against numpy on the whole arrays


def test_error_map_pools_a_big_slice_and_keeps_the_worst_block():
    a = np.zeros((1, 4, 1000, 600), np.float32)
    e = a.copy()
    e[0, 2, 500:510, 300:320] = 0.5
    e[0, 2, 505, 311] = 2.0
    e[0, 0, 0, 0] = 0.25
    s = error_map.summarize(a, e)
    assert s["worst_index"] == [0, 2, 505, 311]
    assert [m["index"] for m in s["slices"]] == [[0, 2, None, None], [0, 0, None, None]]  # worst first, no empty
    first = s["slices"][0]
    assert first["pool"] == [4, 3] and first["map"].shape == (250, 200)  # ceil(1000/256), ceil(600/256)
    assert first["worst"] == [505 // 4, 311 // 3] and first["map"][126, 103] == 2.0 and first["max"] == 2.0
    # bins of 4 per power of 2 from the smallest error's (0.25) to the largest's (2.0): 0.25, 0.3125, ..., 2, 2.5
    assert list(s["hist_edges"]) == [2.0**k * (1 + q / 4) for k in (-2, -1, 0) for q in range(4)] + [2.0, 2.5]
    assert list(s["hist_counts"]) == [1, 0, 0, 0, 199, 0, 0, 0, 0, 0, 0, 0, 1]  # 0.25; the block's 0.5s; 2.0
    assert s["zeros"] == a.size - 201 and s["nonfinite"] == 0
    assert s["scatter_err"].max() == 2.0 and len(s["scatter_err"]) <= error_map.SCATTER_POINTS


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=4), seed=st.integers(0, 2**32 - 1),
       nan=st.booleans())
def test_error_map_agrees_with_numpy(shape, seed, nan):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(np.float32)
    e = a + rng.choice([0.0, 0.0, 0.1, 1.0], size=shape).astype(np.float32) * rng.standard_normal(shape).astype(np.float32)
    if nan:
        a.reshape(-1)[rng.integers(a.size)] = np.nan
    s = error_map.summarize(a, e)
    err = np.abs(a.astype(np.float64) - e.astype(np.float64))
    err[np.isnan(err)] = np.inf
    assert err[tuple(s["worst_index"])] == pytest.approx(float(err.max()), rel=1e-6)  # (float32 ties: any of them)
    assert s["nonfinite"] == int(np.isinf(err).sum())
    assert s["hist_counts"].sum() + s["zeros"] == int(np.isfinite(err).sum())
    assert s["zeros"] == int((err == 0).sum())
    # each nonzero error in the bin of 4 per power of 2 that holds it: [2^k (1 + q/4), 2^k (1 + (q+1)/4))
    diff = np.abs(np.subtract(a, e, dtype=np.float32)).astype(np.float64)[np.isfinite(err) & (err > 0)]
    mantissa, exponent = np.frexp(diff)  # diff = mantissa * 2^exponent, mantissa in [0.5, 1)
    lower = np.ldexp(1 + np.floor((mantissa * 2 - 1) * 4) / 4, exponent - 1)
    want = dict(zip(*np.unique(lower, return_counts=True)))
    edges, counts = s["hist_edges"], s["hist_counts"]
    assert {float(edges[i]): int(n) for i, n in enumerate(counts) if n} == {float(k): int(n) for k, n in want.items()}
    effective = [d for d in shape if d != 1]
    if len(effective) >= 2:
        assert 1 <= len(s["slices"]) <= error_map.MAX_SLICES
        assert s["slices"][0]["worst"] is not None and s["slices"][0]["max"] == pytest.approx(float(err.max()))
        for m in s["slices"]:
            assert m["map"].shape == tuple(effective[-2:])  # (small slices: not pooled)
    else:
        assert s["slices"] == []


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=4), seed=st.integers(0, 2**32 - 1),
       chunk=st.integers(1, 40), block=st.integers(1, 40), dtype=st.sampled_from(["float32", "float64", "float16"]))
def test_the_picture_a_comparison_feeds_is_the_one_summarize_reads(shape, seed, chunk, block, dtype):
    """validate's comparison feeds its chunks' differences to the picture (compare_stats' sink); the picture is
    the one summarize makes reading the arrays itself, whatever the chunks' and blocks' sizes against the slices."""
    from converter import compare

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compare, "CHUNK_ELEMENTS", chunk)
        patch.setattr(error_map, "BLOCK_ELEMENTS", block)
        _fed_and_read(compare, shape, seed, dtype)


def _fed_and_read(compare, shape, seed, dtype):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dtype)
    e = (a + rng.choice([0.0, 0.0, 0.5], size=shape) * rng.standard_normal(shape)).astype(dtype)
    if rng.integers(3) == 0:
        e.reshape(-1)[rng.integers(e.size)] = np.inf
    sink = error_map.for_comparison(a, e)
    mismatch, _ = compare.compare_stats(a, e, compare.Tolerance(0.0, 0.0), statistics=False, sink=sink)
    if mismatch is None:
        return
    fed, read = sink.finish(mismatch.worst_index), error_map.summarize(a, e, mismatch.worst_index)
    assert fed.keys() == read.keys()
    for key in fed:
        if key == "slices":
            assert [(m["index"], m["max"], m["worst"]) for m in fed[key]] == [(m["index"], m["max"], m["worst"]) for m in read[key]]
            assert all(np.array_equal(x["map"], y["map"]) for x, y in zip(fed[key], read[key]))
        else:
            assert np.array_equal(np.asarray(fed[key]), np.asarray(read[key])), key


def test_heatmap_png_decodes_to_the_colour_table():
    """png.py's PNG, read back by an independent decoder (Pillow), is the colour table's colours pixel for pixel;
    the table is matplotlib's inferno."""
    from converter.html_report import png

    indices = np.random.default_rng(1).integers(0, 256, (37, 53)).astype(np.uint8)
    data = png.png(indices)
    table = np.frombuffer(png.INFERNO, np.uint8).reshape(256, 3)
    image = pytest.importorskip("PIL.Image").open(__import__("io").BytesIO(data))
    assert image.size == (53, 37)
    assert np.array_equal(np.asarray(image.convert("RGB")), table[indices])
    matplotlib = pytest.importorskip("matplotlib")
    assert np.array_equal(table, np.round(np.asarray(matplotlib.colormaps["inferno"].colors) * 255).astype(np.uint8))


def test_the_library_call_writes_the_page_as_the_command_does(failing_run, tmp_path):
    """--html is written by each command's one library call, as --json is (issue 32, item 5: the CLI parses and
    prints): check_command and run_spec, called from Python, write the pages `check --html` and `run SPEC --html`
    write. run_spec's case is the spec's first, whose expected output (written in the spec) spans 9 to 361."""
    from converter import api

    page = tmp_path / "check.html"
    api.check_command([failing_run], ["ort-cpu"], html_path=page, argv=["spec2onnx", "check"], json=False)
    text = page.read_text()
    assert "every node runs on ort-cpu" in text and "on ort-cpu: 1 node," in text and "<script" not in text
    written = api.run_spec(REPO / "specs" / "trt_scale" / "seed-scale-4d.yaml", None, (), tmp_path / "out",
                           html_path=tmp_path / "spec.html")
    assert [name for name, _, _ in written] == ["scale"]
    text = (tmp_path / "spec.html").read_text()
    assert "Outputs written" in text and "scale.npy" in text and ">9<" in text and ">361<" in text


def test_the_summary_table_shows_a_nan_output_as_such_and_a_failure_on_it_with_its_own_statistics():
    """A run whose output holds NaN: each side's count is one row ('ort[cpu] gives 20 NaN of 32 elements', a FAIL,
    not 'ort[cpu] vs' with an empty tolerance), and a comparison that failed on NaN against 2.0 shows the differing
    elements' statistics (max abs err inf, as the terminal line) in max_abs, the finite pairs' 0 only in
    error.max_abs."""
    import html as html_module
    import re

    from converter.html_report.page import summary_table
    from converter.results import FAIL, CaseResult

    nan_side = {"output": "z", "actual": "ort[cpu]", "nonfinite": {"nan": 20, "posinf": 0, "neginf": 0}, "total": 32,
                "first_index": [0, 0, 0, 0]}
    failed = {"output": "z", "actual": "openvino", "against": "ort[cpu]", "passed": False, "count": 20, "total": 32,
              "tolerance": {"atol": 1e-6, "rtol": 1e-5, "ulp": None}, "error_stat": "elemwise",
              "max_abs": float("inf"), "mean_abs": float("inf"), "max_rel": float("nan"),
              "error": {"max_abs": 0.0, "mean_abs": 0.0, "median_abs": 0.0, "max_rel": 0.0, "max_ulp": 0,
                        "min_atol": 0.0, "min_rtol": 0.0}}
    result = CaseResult("m.onnx", "openvino vs ort[cpu]", FAIL, comparisons=[nan_side, failed], problems=["..."])
    table = summary_table([result])
    header = [html_module.unescape(h) for h in re.findall(r"<th>(.*?)</th>", table)]  # (the columns' names)
    rows = [[html_module.unescape(re.sub(r"<[^>]+>", "", cell)).replace("\0", "").strip()
             for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", table, re.S) if "<td" in row]
    assert rows[0][3] == "ort[cpu] gives 20 NaN of 32 elements" and rows[0][-1].startswith("FAIL non-finite"), rows
    row = dict(zip(header, rows[1]))
    assert row["compared"] == "openvino vs ort[cpu]" and row["count/total"] == "20/32" and row["max_abs"] == "inf", row
    assert row["error.max_abs"] == "0" and row["verdict / margin"] == "FAIL", row  # (the finite pairs': its own column)
