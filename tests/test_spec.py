"""The spec loader's rules that are not one bad file each (those are in tests/bad_specs/)."""

from __future__ import annotations

import pytest

from converter.errors import SpecError
from converter.names import MAX_NAME_LENGTH, is_valid_name
from converter.pipeline.spec import load_spec

from .conftest import SPECS


@pytest.mark.parametrize("name", ["a", "_", "x1", "trt-scale.v2_b", "A" * MAX_NAME_LENGTH])
def test_valid_names(name):
    assert is_valid_name(name)


@pytest.mark.parametrize("name", ["", "x\n", "x ", " x", "\tx", "a/b", "..", ".x", "-x", "1x", "é", "x\x00",
                                  "A" * (MAX_NAME_LENGTH + 1), 3, None, ["x"]])
def test_invalid_names(name):
    assert not is_valid_name(name)


def test_a_spec_without_cases_loads_for_converting_only(tmp_path):
    text = (SPECS / "trt_scale/seed-scale-4d.yaml").read_text()
    path = tmp_path / "no-cases.yaml"
    path.write_text(text[:text.index("cases:")])
    assert load_spec(path, require_cases=False).cases == []
    with pytest.raises(SpecError, match="missing required field 'cases'"):
        load_spec(path)
    path.write_text(text[:text.index("cases:")] + "cases: []\n")
    assert load_spec(path, require_cases=False).cases == []
    with pytest.raises(SpecError, match="cases: must not be empty"):
        load_spec(path)
