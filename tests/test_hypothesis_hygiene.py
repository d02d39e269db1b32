"""Property tests never skip from inside ``@given`` (issue 31, item 6).

``pytest.skip`` raised by one drawn example ends the whole test as skipped: every example after it is never run,
and CI shows a skip, not a failure. An unsuitable example is rejected with ``hypothesis.assume`` (hypothesis draws
another and counts the rejections) or not drawn at all. This reads every test module's syntax tree, so a new
property test is held to it too.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_given(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "given") or \
        (isinstance(target, ast.Attribute) and target.attr == "given")


def _skips(function: ast.FunctionDef) -> list[int]:
    """Lines of the function (nested functions included) that call pytest.skip or skip()."""
    lines = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Attribute) and f.attr == "skip" and isinstance(f.value, ast.Name)
                    and f.value.id == "pytest") or (isinstance(f, ast.Name) and f.id == "skip"):
                lines.append(node.lineno)
    return lines


def offenders(source: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(map(_is_given, node.decorator_list)):
            found += [f"{name}:{line} ({node.name})" for line in _skips(node)]
    return found


def test_no_property_test_skips_from_inside_given():
    found = [o for path in sorted(TESTS.rglob("*.py")) for o in offenders(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS)))]
    assert found == [], "pytest.skip inside @given skips every other example: use hypothesis.assume: " + ", ".join(found)


def test_the_scan_finds_a_skip_inside_given_and_not_outside():
    source = (
        "import pytest\nfrom hypothesis import given, assume\n"
        "@given(x=1)\ndef test_a(x):\n    if x:\n        pytest.skip('no')\n"
        "@hypothesis.given(x=1)\ndef test_b(x):\n    assume(x)\n"
        "def test_c():\n    pytest.skip('fine: no @given')\n"
    )
    assert offenders(source, "t.py") == ["t.py:6 (test_a)"]
