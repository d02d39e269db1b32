"""Invalid specs always give a UserError (exit status 2), never another exception.

``invalid_specs`` breaks a valid spec in a way that must be rejected; ``junk_specs`` puts
arbitrary data at any one place (the result may still be valid: then it must also build).
``text`` mutations damage the YAML/JSON text itself and go through the file reader.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, note, reject
from hypothesis import strategies as st

from converter.errors import UserError
from converter.lowering import build_model
from converter.pipeline.spec import load_spec, parse_spec

from .known_bugs import AVOID, is_known
from .strategies import _text, any_valid_spec, invalid_specs, junk_specs

PATH = Path("fuzz.yaml")


def _parse(doc):
    """The spec, or None when loading gave a user error (whose message must be one line)."""
    try:
        return parse_spec(doc, PATH)
    except UserError as exc:
        _one_line(str(exc))
        return None
    except Exception as exc:  # noqa: BLE001
        if is_known(exc):
            reject()  # a known crash: see known_bugs.py
        raise


@given(invalid_specs())
def test_mutated_specs_are_user_errors(mutated):
    doc, what = mutated
    note(what)
    note(yaml.safe_dump(doc, sort_keys=False, width=200) if _dumpable(doc) else repr(doc))
    if _parse(doc) is not None:
        raise AssertionError(f"accepted an invalid spec ({what})")


@given(junk_specs())
def test_junk_anywhere_is_a_user_error_or_valid(mutated):
    doc, what = mutated
    note(what)
    spec = _parse(doc)
    if spec is not None:
        build_model(spec.network, name=spec.name)  # accepted: then it must lower and pass the checker


@given(any_valid_spec(), st.sampled_from([".yaml", ".json"]), st.data())
def test_damaged_text_is_a_user_error_or_valid(tmp_path_factory, doc, suffix, data):
    import json

    text = yaml.safe_dump(doc, sort_keys=False) if suffix == ".yaml" else json.dumps(doc, indent=1)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 40)))
    insert = data.draw(st.one_of(st.just(""), st.sampled_from(["&a ", "*a", "!!python/object:os.system ", "{", "]", ":", "- ",
                                                             "\t", "'", '"', "\\", "\n  ", "<<: ", "? ", "|", "%YAML 1.1\n",
                                                             "\x00", "\ufeff", "1e400", "0x10", "~"]),
                                  _text(6)))
    damaged = text[:start] + insert + text[end:]
    note(repr(damaged))
    path = tmp_path_factory.mktemp("text") / f"spec{suffix}"
    path.write_text(damaged, encoding="utf-8", errors="surrogatepass")
    try:
        load_spec(path)
    except UserError as exc:
        _one_line(str(exc))
        assert str(exc).startswith(f"{path}: "), str(exc)
    except Exception as exc:  # noqa: BLE001
        if is_known(exc):
            reject()
        raise


def _one_line(message: str) -> None:
    """A user error is one line (CLI output is split with str.splitlines)."""
    if len(message.splitlines()) != 1:
        if "newline-in-messages" in AVOID:
            reject()  # a key with a line break in it: see known_bugs.AVOID
        raise AssertionError(f"not one line: {message!r}")


def _dumpable(doc) -> bool:
    try:
        yaml.safe_dump(doc)
        return True
    except Exception:  # noqa: BLE001 - only for the note
        return False
