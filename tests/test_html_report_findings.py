"""--html against the terminal and the JSON report (the reports review's findings 1-4, 11 and 12): one statistic per
column, named as the JSON names it; NaN and infinite errors in a colour of their own; no warning added to stderr; the
true reason where a failure has no picture; what ran (shapes, a known failure's reason, runtime disagreements); and
links from the summary to each failure's section.

The expected values are computed by hand (each test says how) or read from the JSON report of the same run, never
from the page itself. The page is read with the standard library's HTML parser; Pillow (the test extra) decodes
its PNGs."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter import error_map

from .conftest import REPO, RUN_CLI, child_env

# trt.Scale (UNIFORM, scale 2, shift 1, power 2): (2x + 1)^2 of x = 1..9 is 9, 25, 49, ..., 361. Case `offset` expects
# 25.5 for 25 and 360 for 361 in its second channel: 2 of 18 elements differ, by 0.5 and by 1.
WRONG_F32 = """\
name: wrong-f32
network:
  inputs:
    input1: {dtype: float32, shape: [1, 2, 3, 3]}
  layers:
    - {name: scale, op: trt.Scale, inputs: [input1], mode: UNIFORM, scale: [2], shift: [1], power: [2]}
  outputs: [scale]
cases:
  - name: offset
    inputs:
      input1: [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]
    expected:
      scale: [[[[9, 25, 49], [81, 121, 169], [225, 289, 361]], [[9, 25.5, 49], [81, 121, 169], [225, 289, 360]]]]
  - name: good
    inputs:
      input1: [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]
    expected:
      scale: [[[[9, 25, 49], [81, 121, 169], [225, 289, 361]], [[9, 25, 49], [81, 121, 169], [225, 289, 361]]]]
"""

# float16 SUM: 60000 + 10000 overflows to +inf, and the case expects it (70000 is +inf in float16), so that the
# failing comparison (4.01 for 4) holds an infinity on both sides: inf - inf.
F16_INF = """\
name: f16-inf
network:
  inputs:
    a: {dtype: float16, shape: [1, 4]}
    b: {dtype: float16, shape: [1, 4]}
  layers:
    - {name: h, op: trt.ElementWise, inputs: [a, b], operation: SUM}
  outputs: [h]
cases:
  - name: wrong
    inputs:
      a: [[1, 2, 3, 60000]]
      b: [[1, 1, 1, 10000]]
    expected:
      h: [[2, 3, 4.01, 70000]]
"""


def cli(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUN_CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=child_env(PYTHONPATH=str(REPO)), timeout=300)


def relu_model(path: Path, shape) -> Path:
    """Relu over a float32 input x: it keeps +inf and NaN as they are (what the golden data is compared with)."""
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
                     .SerializeToString())
    return path


class Page(HTMLParser):
    """A page's tables (each: its header rows and body rows of cell texts, and each body row's links), the text of
    every element with an id (by id), each <h2 id=...>'s section (its text up to the next <h2>, by id), the <a href>
    of the page in order, and its text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables, self.ids, self.links, self.order = [], {}, [], []
        self._table = self._row = self._cell = None
        self._open_ids: list[tuple[str, str, list]] = []
        self.text_parts: list[str] = []
        self._h2: list[tuple[str | None, int]] = []
        self.feed(text)
        self.text = "".join(self.text_parts)
        ends = [start for _, start in self._h2[1:]] + [len(self.text_parts)]
        self.sections = {name: "".join(self.text_parts[start:end])
                         for (name, start), end in zip(self._h2, ends) if name}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self._open_ids.append((tag, attrs["id"], []))
            self.order.append(attrs["id"])
        if tag == "h2":
            self._h2.append((attrs.get("id"), len(self.text_parts)))
        if tag == "table":
            self._table = {"head": [], "body": [], "links": []}
            self.tables.append(self._table)
        elif tag == "tr" and self._table is not None:
            self._row, self._row_links = [], []
        elif tag in ("td", "th") and self._row is not None:
            self._cell, self._is_head = [], tag == "th"
        elif tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
            if self._row is not None:
                self._row_links.append(attrs["href"])
        elif tag == "br":
            self._data("\n")

    def handle_endtag(self, tag):
        if self._open_ids and self._open_ids[-1][0] == tag:
            _, name, parts = self._open_ids.pop()
            self.ids[name] = "".join(parts)
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(("th" if self._is_head else "td", "".join(self._cell).strip()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if all(kind == "th" for kind, _ in self._row):
                self._table["head"].append([text for _, text in self._row])
            else:
                self._table["body"].append([text for _, text in self._row])
                self._table["links"].append(self._row_links)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        self._data(data)

    def _data(self, data):
        self.text_parts.append(data)
        if self._cell is not None:
            self._cell.append(data)
        for _, _, parts in self._open_ids:
            parts.append(data)

    def rows(self, table: dict) -> list[dict]:
        """A table's body rows as {column name: cell text}, the names its last header row's."""
        return [dict(zip(table["head"][-1], row)) for row in table["body"]]


def _validate(tmp_path, spec_text: str, *args):
    (tmp_path / "spec.yaml").write_text(spec_text)
    done = cli("validate", "-j", "0", "spec.yaml", "--json", "r.json", "--html", "r.html", *args, cwd=tmp_path)
    return done, json.loads((tmp_path / "r.json").read_text()), Page((tmp_path / "r.html").read_text())


# 1. one column, one statistic: the terminal's and the JSON's


def test_mean_abs_is_the_terminal_and_json_statistic_on_every_row(tmp_path):
    """The failing case differs in 2 of 18 elements, by 0.5 and by 1: its mean abs err over the elements that differ
    is 0.75 (the terminal line, the JSON's mean_abs), over every element 1.5 / 18 = 0.08333 (the JSON's
    error.mean_abs). The runtime's row and the reference's own row (the same numbers, no `error` gathered) show 0.75
    in the column named mean_abs, in the summary and in the failure's own table; 0.08333 appears only in the column
    named error.mean_abs, and a passing row leaves the columns of the elements that differ blank."""
    done, report, page = _validate(tmp_path, WRONG_F32)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "mean abs err 0.75," in done.stdout
    case = next(c for c in report["cases"] if c["case"] == "offset")
    by_pair = {(c["actual"], c["against"]): c for c in case["comparisons"]}
    assert by_pair["onnxruntime", "expected"]["mean_abs"] == pytest.approx(0.75)
    assert by_pair["onnxruntime", "expected"]["error"]["mean_abs"] == pytest.approx(1.5 / 18)
    assert by_pair["reference", "expected"]["mean_abs"] == pytest.approx(0.75)

    summary = next(t for t in page.tables if "compared" in t["head"][-1])
    rows = {(r["case"].splitlines()[0], r["compared"]): r for r in page.rows(summary)}
    for pair in ("onnxruntime vs expected", "reference vs expected"):
        row = rows["wrong-f32/offset", pair]
        assert row["mean_abs"] == "0.75" and row["max_abs"] == "1" and row["count/total"] == "2/18", row
    assert rows["wrong-f32/offset", "onnxruntime vs expected"]["error.mean_abs"] == "0.08333"
    assert rows["wrong-f32/offset", "reference vs expected"]["error.mean_abs"] == ""  # (not gathered: not made up)
    passing = rows["wrong-f32/good", "onnxruntime vs expected"]
    assert passing["mean_abs"] == "" and passing["count/total"] == "0/18" and passing["error.mean_abs"] == "0"
    # the failure section's own tables: the same columns, the same numbers
    detail = [page.rows(t)[0] for t in page.tables if t is not summary and "mean_abs" in t["head"][-1]]
    assert len(detail) == 2 and all(d["mean_abs"] == "0.75" for d in detail), detail
    # no column holds the two statistics: every cell of 0.08333 is in an error.* column
    for table in page.tables:
        for row in page.rows(table):
            assert all(name.startswith("error.") for name, cell in row.items() if cell == "0.08333"), row


# 2. NaN and infinite errors: a colour of their own, named by the legend


def _pngs(html_text: str, css: str) -> list:
    """The PNGs of the <img class="{css}"> elements, decoded by Pillow to RGB arrays."""
    image = pytest.importorskip("PIL.Image")
    found = re.findall(r'<img class="' + css + r'"[^>]*src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html_text)
    return [np.asarray(image.open(io.BytesIO(base64.b64decode(b))).convert("RGB")) for b in found]


def test_heatmap_draws_nan_and_inf_errors_in_their_own_colour(tmp_path):
    """Relu keeps x = [[inf, nan, 1], [1, 1, 1]]; the golden data is [[-inf, 1, 1], [1, 1, 0.5]]: with
    --allow-nonfinite the errors are [[inf (inf vs -inf), inf (NaN vs 1), 0], [0, 0, 0.5]]. The two non-finite
    errors are drawn in a colour that is not on the finite scale (0 to 0.5) and that the legend's swatch names; the
    0.5 error in the scale's top colour, the zeros in its bottom one."""
    model = relu_model(tmp_path / "m.onnx", [2, 3])
    np.savez(tmp_path / "in.npz", x=np.array([[np.inf, np.nan, 1], [1, 1, 1]], np.float32))
    np.savez(tmp_path / "g.npz", y=np.array([[-np.inf, 1, 1], [1, 1, 0.5]], np.float32))
    done = cli("run", model, "--runtime", "onnxruntime", "--load-inputs", "in.npz", "--load-outputs", "g.npz",
               "--allow-nonfinite", "--json", "r.json", "--html", "r.html", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    text = (tmp_path / "r.html").read_text()
    (heat,) = _pngs(text, "map")
    (strip,) = _pngs(text, "map strip")
    assert heat.shape[:2] == (2, 3)  # (one pixel an element: the page scales it up)
    cell = heat
    scale = [tuple(c) for c in strip[0]]
    nonfinite = tuple(cell[0, 0])
    assert tuple(cell[0, 1]) == nonfinite and nonfinite not in scale  # both non-finite errors, off the scale
    assert tuple(cell[1, 2]) == scale[-1] != nonfinite  # 0.5: the top of the finite scale
    assert all(tuple(cell[i, j]) == scale[0] for i, j in ((0, 2), (1, 0), (1, 1)))  # the zeros
    legend = re.search(r'<p class="scale">(.*?)</p>', text, re.S).group(1)
    assert re.search(r">\s*0\.5\b", legend)  # the scale's top: the largest finite error, not inf
    swatch = re.search(r'background:#([0-9a-f]{6})', legend).group(1)
    assert tuple(bytes.fromhex(swatch)) == nonfinite and "NaN" in legend and "inf" in legend


# 3. --html adds nothing to stderr


def test_error_map_of_matching_infinities_warns_nothing():
    """inf - inf is NaN in numpy, with a RuntimeWarning: the picture's subtraction may not print it (the error of two
    equal infinities is 0, compare's rule). float16 [1, 2, inf] against [1, 3, inf]: one error, 1."""
    a, e = np.array([1, 2, np.inf], np.float16), np.array([1, 3, np.inf], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        picture = error_map.summarize(a, e)
    assert picture["zeros"] == 2 and picture["nonfinite"] == 0 and picture["worst_index"] == [1]


def test_html_adds_no_warning_to_stderr(tmp_path):
    """The float16 case fails (4.01 for 4) with +inf on both sides (60000 + 10000): its terminal output and stderr
    are the same with and without --html (docs/cli.md: nothing else changes)."""
    (tmp_path / "spec.yaml").write_text(F16_INF)
    without = cli("validate", "-j", "0", "spec.yaml", "-q", cwd=tmp_path)
    with_html = cli("validate", "-j", "0", "spec.yaml", "-q", "--html", "r.html", cwd=tmp_path)
    assert without.returncode == with_html.returncode == 1, without.stdout + without.stderr
    assert with_html.stderr == without.stderr == "", with_html.stderr
    strip_time = re.compile(r" in \d+\.\d+ s")
    assert strip_time.sub("", with_html.stdout) == strip_time.sub("", without.stdout)
    assert "worst element at [0, 2]" in (tmp_path / "r.html").read_text()  # (the picture was made)


# 4. the true reason where a failure has no picture


def test_run_page_says_a_nan_output_is_why_there_is_no_picture(tmp_path):
    """Relu of [[inf, nan, 1], [1, 1, 1]] on one runtime, no golden data: it fails on its NaN and +inf (1 NaN, 1 +inf
    of 6 elements, as the terminal and the JSON's nonfinite entry say), not on a shape, a type or strings."""
    model = relu_model(tmp_path / "m.onnx", [2, 3])
    np.savez(tmp_path / "in.npz", x=np.array([[np.inf, np.nan, 1], [1, 1, 1]], np.float32))
    done = cli("run", model, "--runtime", "onnxruntime", "--load-inputs", "in.npz", "--json", "r.json",
               "--html", "r.html", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = [c for c in json.loads((tmp_path / "r.json").read_text())["cases"][0]["comparisons"] if "nonfinite" in c]
    assert entry["nonfinite"] == {"nan": 1, "posinf": 1, "neginf": 0}
    page = Page((tmp_path / "r.html").read_text())
    reasons = [line for line in page.text.splitlines() if "no picture" in line]
    assert reasons and all("strings" not in line and "shape" not in line for line in reasons), reasons
    assert any("NaN/inf" in line and "1 NaN, 1 +inf of 6 elements" in line and "--allow-nonfinite" in line
               for line in reasons), reasons


def test_no_picture_reasons_name_the_shape_and_the_empty_output():
    """A comparison of another shape says so, with its own shape_problem; an empty output says it is empty; an
    XPASS (nothing differs) gets no 'no picture' line at all."""
    from converter.html_report.page import failures
    from converter.results import FAIL, XPASS, CaseResult

    shape = {"output": "y", "actual": "onnxruntime", "against": "expected", "count": 6, "total": 6,
             "shape_problem": "shape [2, 3] != expected [3, 2]"}
    empty = {"output": "z", "actual": "onnxruntime", "against": "expected", "count": 0, "total": 0,
             "shape_problem": ""}
    passed = {"output": "y", "actual": "onnxruntime", "against": "reference", "passed": True,
              "error": {"count": 6, "max_abs": 0.0}}
    text = "\n".join(failures([CaseResult("s", "c", FAIL, comparisons=[shape, empty], problems=["..."]),
                               CaseResult("s", "d", XPASS, comparisons=[passed], problems=["passed, but ..."])]))
    assert "no picture: shape [2, 3] != expected [3, 2]" in text
    assert "output z: onnxruntime vs expected: no picture: the output is empty" in text
    assert text.count("no picture") == 2


# 11. what ran: shapes, a known failure's reason, runtime disagreements


def test_page_shows_a_dynamic_cases_shapes(tmp_path):
    """The bundled dynamic-shape Resize spec: case `up` runs x [1, 3, 2, 3] with size [1, 3, 5, 7] (its inputs, as
    written in the spec); every case's `shapes` in the JSON report is on the page, in its summary row."""
    spec = REPO / "specs" / "trt_resize" / "dynamic-shape-input.yaml"
    done = cli("validate", "-j", "0", spec, "--json", "r.json", "--html", "r.html", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = json.loads((tmp_path / "r.json").read_text())["cases"]
    page = Page((tmp_path / "r.html").read_text())
    summary = next(t for t in page.tables if "compared" in t["head"][-1])
    cells = [r["case"] for r in page.rows(summary)]
    assert any("x [1, 3, 2, 3], size = [1, 3, 5, 7]" in c and c.startswith("trt-resize-dynamic-shape-input/up")
               for c in cells), cells
    for case in cases:
        assert case["shapes"] and any(c.startswith(case["id"]) and case["shapes"] in c for c in cells), case["id"]


def test_page_shows_why_an_xfail_is_allowed(tmp_path):
    """A known failure from --xfail-file: its section and its summary row carry the declared reason (the JSON's
    `reason`), which is why its FAIL lines do not fail the run."""
    (tmp_path / "xf.yaml").write_text('- {spec: wrong-f32, case: offset, '
                                      'reason: "the expected value is known wrong"}\n')
    done, report, page = _validate(tmp_path, WRONG_F32, "--xfail-file", "xf.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    (case,) = [c for c in report["cases"] if c["outcome"] == "XFAIL"]
    assert case["reason"] == "the expected value is known wrong"
    (section,) = [text for text in page.sections.values() if text.startswith("XFAIL wrong-f32/offset")]
    assert section.splitlines()[1] == "known failure: the expected value is known wrong", section[:300]
    summary = next(t for t in page.tables if "compared" in t["head"][-1])
    assert any("known failure: the expected value is known wrong" in r["case"] for r in page.rows(summary))


def test_page_lists_the_runtime_disagreements_as_the_terminal_does():
    """A case whose second runtime differs from the first: the page lists each disagreement as the terminal's
    'Runtime disagreements:' list does (report.disagreement_lines: the case, the output, the runtime it differs
    from, the count and the max abs err, a known failure's reason), and its section repeats it."""
    from converter.html_report.page import validate_page
    from converter.report import disagreement_lines
    from converter.results import PASS, XFAIL, CaseResult

    differs = {"with": "ort[cpu]", "output": "max", "count": 1, "total": 6, "max_abs": float("inf"), "mean_abs": 1.0}
    known = CaseResult("float-edges", "nan-propagates", XFAIL, runtime="openvino", label="openvino",
                       reason="OpenVINO's Maximum returns the other operand", disagreements=[differs],
                       problems=["output 'max': openvino vs expected: 1/6 elements differ"])
    quiet = CaseResult("float-edges", "by-hand", PASS, runtime="openvino", label="openvino",
                       disagreements=[dict(differs, output="min", count=2, max_abs=0.25)])
    results = [quiet, known]
    page = Page(validate_page(results=results, argv=["spec2onnx", "validate"], summary="2 cases"))
    lines = disagreement_lines(results)
    assert len(lines) == 2 and "(known: OpenVINO's Maximum returns the other operand)" in lines[1]
    listed = page.text[page.text.index("Runtime disagreements"):]
    for line in lines:
        assert line in listed, (line, listed[:600])
    (section,) = [text for text in page.sections.values() if text.startswith("XFAIL float-edges/nan-propagates")]
    assert "output 'max' differs from ort[cpu]: 1/6 elements, max abs err inf" in section


# 12. links from the summary to each failure, the failures first


def _many(tmp_path, cases: int = 12) -> Path:
    """A spec of ``cases`` cases of x + 1 on float32[2]; every third expects 9 for its first element (it fails)."""
    lines = ["name: many", "network:", "  inputs:", "    x: {dtype: float32, shape: [2]}", "  layers:",
             "    - {name: y, op: trt.ElementWise, inputs: [x, x], operation: SUM}", "  outputs: [y]", "cases:"]
    for i in range(cases):
        lines += [f"  - name: c{i:02d}", "    inputs:", f"      x: [{i}, 1]", "    expected:",
                  f"      y: [{9 if i % 3 == 0 else 2 * i}, 2]"]
    (tmp_path / "many.yaml").write_text("\n".join(lines) + "\n")
    return tmp_path / "many.yaml"


def test_failing_rows_link_to_their_sections_and_failures_come_first(tmp_path):
    """12 cases, c00, c03, c06 and c09 failing (x + x of [i, 1] is [2i, 2]; they expect 9 first, and 9 is no 2i):
    the list of failures comes before the summary table, each entry and each failing summary row links to the
    case's section (an element whose id is the link's target, headed by the case's id), passing rows link nowhere."""
    import urllib.parse

    _many(tmp_path)
    done = cli("validate", "-j", "0", "many.yaml", "--json", "r.json", "--html", "r.html", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    failing = sorted(c["id"] for c in json.loads((tmp_path / "r.json").read_text())["cases"] if c["outcome"] == "FAIL")
    assert failing == ["many/c00", "many/c03", "many/c06", "many/c09"]
    text = (tmp_path / "r.html").read_text()
    page = Page(text)
    summary = next(t for t in page.tables if "compared" in t["head"][-1])
    assert text.index("many/c09") < text.index("<table")  # (the list of failures: before the summary table)
    linked = {}
    for row, links in zip(page.rows(summary), summary["links"]):
        case = row["case"].splitlines()[0]
        if case in failing:
            assert len(links) == 1, (case, links)
            linked[case] = links[0]
        else:
            assert links == [], (case, links)
    assert sorted(linked) == failing
    for case, href in linked.items():
        assert href.startswith("#")
        target = urllib.parse.unquote(href[1:])
        assert page.ids[target].split("\n")[0].strip().endswith(case), (case, page.ids.get(target))
        assert href in page.links[:len(failing)]  # (the list at the top links there too)
    assert len(set(linked.values())) == len(failing)


@pytest.mark.browser
def test_a_failing_rows_link_scrolls_to_its_section_in_the_browser(tmp_path):
    """In Chromium, following a failing row's link brings the case's section to the top of the window, with no
    script and no request."""
    from .test_html_report import CHROMIUM, _browser_or_skip

    sync_playwright = _browser_or_skip()
    _many(tmp_path, cases=60)
    done = cli("validate", "-j", "0", "many.yaml", "--html", "r.html", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 600})
        requests = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto((tmp_path / "r.html").resolve().as_uri(), wait_until="load")
        link = page.locator("table a", has_text="many/c57").first
        link.click()
        page.wait_for_timeout(100)
        where = page.evaluate("""() => { const t = document.getElementById(decodeURIComponent(location.hash.slice(1)));
                                         return [t.textContent, t.getBoundingClientRect().top, window.scrollY]; }""")
        browser.close()
    assert where[0].endswith("many/c57") and abs(where[1]) < 5 and where[2] > 600, where
    assert len(requests) == 1
