"""Reports for machines: the JUnit XML stays well-formed whatever the paths, names and messages hold."""

from __future__ import annotations

import os
import sys
import xml.dom.minidom
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from cli import main
from converter.report import to_junit, xml_text
from converter.pipeline.stages import CaseResult


def test_xml_text_escapes_what_xml_cannot_hold_and_keeps_the_rest():
    assert xml_text("plain <&> tab\there\nnewline é 中") == "plain <&> tab\there\nnewline é 中"
    assert xml_text("a\x01b\x1bc\x7f") == "a\\x01b\\x1bc\x7f"  # DEL is allowed in XML 1.0
    assert xml_text("caf" + b"\xe9".decode("utf-8", "surrogateescape")) == "caf\\xe9"  # the undecodable byte
    assert xml_text("\ufffe\ud800") == "\\ufffe\\ud800"


def test_junit_is_well_formed_with_control_characters_and_non_utf8_bytes():
    path = "specs/bad\x01\x1b[31m" + b"\xff\xfe".decode("utf-8", "surrogateescape") + ".yaml"
    results = [
        CaseResult(path, "<load>", "ERROR", path=path, bad_input=True, problems=[f"{path}: name: \x00 bad"]),
        CaseResult("s", "c", "FAIL", path=path, problems=["output 'y': got \x0c"]),
        CaseResult("s", "d", "XFAIL", path=path, reason="known \x02", problems=["x"]),
    ]
    data = to_junit(results, 1.0)
    root = ET.fromstring(data)  # both parsers accept it
    xml.dom.minidom.parseString(data)
    cases = root.findall("./testsuite/testcase")
    assert cases[0].get("file") == "specs/bad\\x01\\x1b[31m\\xff\\xfe.yaml"
    assert cases[0].find("error").get("message").endswith("name: \\x00 bad")
    assert cases[1].find("failure").text == "output 'y': got \\x0c"
    assert cases[2].find("skipped").get("message") == "known failure: known \\x02"


@pytest.mark.skipif(sys.platform != "linux", reason="needs a file system that takes any bytes in names")
def test_validate_writes_well_formed_junit_for_a_spec_named_with_odd_bytes(tmp_path):
    folder = os.fsencode(tmp_path) + b"/d\x01\xff"
    os.mkdir(folder)
    with open(folder + b"/s\x1b\xfe.yaml", "wb") as handle:
        handle.write(b"name: x\nnetwork: {}\ncases: []\n")  # a spec by its keys, and broken
    report = tmp_path / "r.xml"
    result = CliRunner().invoke(main, ["validate", "-j", "0", str(tmp_path), "--junit", str(report)])
    assert result.exit_code == 2, result.output
    assert "\x01" not in result.output and "\x1b" not in result.output  # the terminal gets escapes too
    assert "d\\x01\\xff/s\\x1b\\xfe.yaml" in result.output
    (case,) = ET.parse(report).getroot().iter("testcase")
    xml.dom.minidom.parse(str(report))
    assert case.get("file").endswith("d\\x01\\xff/s\\x1b\\xfe.yaml")


def test_a_report_names_the_openvino_that_ran(tmp_path):
    """Its answers differ by version (the xfails and the measured table name 2026.4); null where it did not run."""
    import importlib.metadata
    import json

    from click.testing import CliRunner

    from cli import main
    from .conftest import SPECS

    pytest.importorskip("openvino")
    spec = SPECS / "trt_scale" / "seed-scale-4d.yaml"
    for runtimes, want in ((("onnxruntime",), None), (("onnxruntime", "openvino"), importlib.metadata.version("openvino"))):
        out = tmp_path / f"{len(runtimes)}.json"
        args = ["validate", "-j", "0", str(spec), "--json", str(out), *[a for r in runtimes for a in ("--runtime", r)]]
        assert CliRunner().invoke(main, args).exit_code == 0
        assert json.loads(out.read_text())["openvino"] == want
