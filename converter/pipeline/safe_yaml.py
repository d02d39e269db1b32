"""Reading spec documents (YAML and JSON) safely: plain data only, bounded time and memory.

A spec is plain data: mappings, lists, text, numbers, booleans and null. The readers
here never construct other objects and stop early, with a one-line ``SpecError``,
on documents built to hurt the loader:

* **Alias expansion** ("billion laughs"). YAML aliases let a few hundred bytes
  stand for billions of values. The loader counts every node it composes and every
  node an alias stands for (an alias of a 1,000-value list counts 1,000), and stops
  at ``MAX_NODES``. The count is done while composing, before anything is built,
  so a bomb fails in milliseconds. Recursive aliases (``&a [*a]``) are an error.
* **Nesting** deeper than ``MAX_DEPTH`` levels (a spec needs about 6 plus the rank
  of its deepest literal tensor). Without the limit, deeply nested brackets exhaust
  the Python stack (and crash libyaml's C composer outright, which is why the
  pure-Python loader is used).
* **Tags**: only the plain-data tags (``!!str``, ``!!int``, ``!!float``, ``!!bool``,
  ``!!null``, ``!!seq``, ``!!map``) may be written; ``!!python/object`` and every
  other tag is rejected before construction. Unquoted dates stay text.
* **Duplicate keys**, which PyYAML and Python's json silently resolve to the last
  value, are errors naming the key, the field and (YAML) both lines.
* **Integers** must fit in 64 bits (a 5,000-digit literal would otherwise raise
  Python's int-conversion ValueError deep in the loader).
* **Numbers with an exponent** (``1e-3``, ``2E5``) are numbers, as YAML 1.2 and JSON read
  them; PyYAML's YAML 1.1 rules read them as text (``EXPONENT_FLOAT``). **Integers** are YAML 1.2's too:
  ``010`` is 10 (YAML 1.1: 8), ``0o17`` octal, ``0x1F`` hexadecimal; ``0b101``, ``1_000`` and ``1:30`` are text
  (``INT_1_2``).

JSON: ``NaN``, ``Infinity`` and ``-Infinity`` are accepted (Python's ``json.dumps``
writes them, and case data may hold them; the strings ``"nan"``, ``"inf"``,
``"-inf"`` work too); layer attributes reject non-finite numbers themselves. A
JSON spec may begin with ``//`` comment lines (a generator's banner); they are
ignored, and line numbers in errors still count them.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from ..errors import SpecError, printable

MAX_NODES = 1_000_000
MAX_DEPTH = 64
INT_MIN, INT_LIMIT = -(2**63), 2**64  # integers must lie in [INT_MIN, INT_LIMIT)

_YAML = "tag:yaml.org,2002:"
ALLOWED_TAGS = frozenset(_YAML + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))
_MERGE = _YAML + "merge"
_INT_TAG = _YAML + "int"


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_YAML):] if tag.startswith(_YAML) else tag


class _SpecComposer(yaml.composer.Composer):
    """PyYAML's composer with the limits above, applied while composing (before anything is built)."""

    def __init__(self):
        super().__init__()
        self._nodes = 0
        self._depth = 0
        self._anchor_sizes: dict[str, int] = {}
        self._path: list[tuple] = []  # (parent, index) per level; formatted only for a message

    # --- where we are, for messages ------------------------------------------------------------

    def _field(self) -> str | None:
        text = "".join(self._segment(parent, index) for parent, index in self._path).lstrip(".")
        if len(text) > 100:  # e.g. a nesting bomb: [0][0][0]...
            text = f"{text[:40]}...{text[-40:]}"
        return text or None

    @staticmethod
    def _segment(parent, index) -> str:
        if isinstance(parent, SequenceNode):
            return f"[{index}]"
        if isinstance(parent, MappingNode):
            if index is None:
                return ".<key>"
            if isinstance(index, ScalarNode):
                return f".{printable(index.value)}"
            return ".<complex key>"
        return ""

    def _fail(self, message: str, mark) -> None:
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise SpecError(message + where, field=self._field())

    # --- composing -----------------------------------------------------------------------------

    def compose_node(self, parent, index):
        self._path.append((parent, index))
        node = self._compose_counted(parent, index)
        self._path.pop()  # (left in place by an error: the message names where it happened)
        return node

    def _compose_counted(self, parent, index):
        event = self.peek_event()
        if event.__class__ is AliasEvent:
            size = self._anchor_sizes.get(event.anchor)
            if size is None and event.anchor in self.anchors:
                self._fail(f"alias *{event.anchor} refers to a node that contains it (a recursive alias)", event.start_mark)
            if size is not None:
                self._count(size, event.start_mark, alias=event.anchor)
            return super().compose_node(parent, index)  # undefined aliases: PyYAML's own error
        tag = event.tag
        if tag is not None and tag != "!" and tag not in ALLOWED_TAGS:
            self._fail(f"tag {_short_tag(tag)!r} is not allowed: a spec holds plain data (mappings, lists, "
                       "text, numbers, booleans, null), and spec2onnx never constructs objects from tags", event.start_mark)
        collection = event.__class__ is not ScalarEvent
        if collection:
            self._depth += 1
            if self._depth > MAX_DEPTH:
                self._fail(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
        before = self._nodes
        self._nodes += 1
        if self._nodes > MAX_NODES:
            self._count(0, event.start_mark)
        node = super().compose_node(parent, index)
        if collection:
            self._depth -= 1
        if event.anchor is not None:
            self._anchor_sizes[event.anchor] = self._nodes - before
        if not collection and node.tag == _INT_TAG:
            self._check_int(node)
        return node

    def compose_mapping_node(self, anchor):
        node = super().compose_mapping_node(anchor)
        seen: dict[Any, ScalarNode] = {}
        for key, _ in node.value:
            if not isinstance(key, ScalarNode) or key.tag == _MERGE:
                continue
            ident = key.value if key.tag == _YAML + "str" else (key.tag, key.value)
            if ident in seen:
                self._fail(f"duplicate key {key.value!r} (first at line {seen[ident].start_mark.line + 1}); "
                           "YAML keys must be unique", key.start_mark)
            seen[ident] = key
        return node

    def _count(self, n: int, mark, alias: str | None = None) -> None:
        self._nodes += n
        if self._nodes > MAX_NODES:
            if alias is not None:
                self._fail(f"aliases expand the document to more than {MAX_NODES:,} nodes (at *{alias}); "
                           "the limit stops alias bombs (\"billion laughs\")", mark)
            self._fail(f"the document has more than {MAX_NODES:,} nodes (values, lists and mappings); "
                       "put large tensors in .npy files", mark)

    def _check_int(self, node: ScalarNode) -> None:
        try:
            value = self.construct_yaml_int(node)
        except ValueError:  # `!!int 1.5`, or more digits than Python converts (4300)
            if not node.value.lstrip("+-").replace("_", "").isdigit():
                self._fail(f"{node.value[:40]!r} is not an integer", node.start_mark)
            value = None
        if value is None or not INT_MIN <= value < INT_LIMIT:
            shown = node.value if len(node.value) <= 30 else f"{node.value[:12]}...({len(node.value)} characters)"
            self._fail(f"integer {shown} does not fit in 64 bits", node.start_mark)


class _SpecConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor whose conversion errors (`!!float abc`) are one-line SpecErrors."""

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, KeyError, OverflowError) as exc:  # e.g. `!!float abc`, `!!bool maybe`
            mark = node.start_mark
            raise SpecError(f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: cannot read "
                            f"{str(getattr(node, 'value', ''))[:40]!r} as {_short_tag(node.tag)} ({type(exc).__name__})") from None


def _construct_int(constructor, node) -> int:
    """An integer as YAML 1.2's core schema reads it: decimal (a leading 0 is still decimal: ``010`` is 10), ``0o``
    octal, ``0x`` hexadecimal. PyYAML's YAML 1.1 rules read ``010`` as 8 (octal), silently."""
    text = str(constructor.construct_scalar(node))
    sign, body = (-1, text[1:]) if text.startswith("-") else (1, text.removeprefix("+"))
    if body[:2] in ("0o", "0x"):
        return sign * int(body[2:], 8 if body[1] == "o" else 16)
    if not body.isdigit():  # (int() would take underscores and spaces: `!!int 1_9` is no YAML 1.2 integer)
        raise ValueError(f"invalid literal for an integer: {text!r}")
    return sign * int(body, 10)


_SpecConstructor.add_constructor(_INT_TAG, _construct_int)
_SpecConstructor.construct_yaml_int = _construct_int  # (the composer's range check calls it by this name)


class SpecYamlLoader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, _SpecComposer, _SpecConstructor,
                     yaml.resolver.Resolver):
    """The pure-Python loader: PyYAML's SafeLoader with our composer and constructor."""

    def __init__(self, stream):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        _SpecComposer.__init__(self)
        _SpecConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


# The same rules over libyaml's scanner and parser (C, about 4x faster). libyaml's own composer
# recurses in C and crashes on deep nesting, so composing stays in Python, where MAX_DEPTH holds.
_CParser = getattr(getattr(yaml, "cyaml", None), "CParser", None)
SpecYamlCLoader = None
if _CParser is not None:

    class SpecYamlCLoader(_SpecComposer, _CParser, _SpecConstructor, yaml.resolver.Resolver):  # type: ignore[no-redef]
        def __init__(self, stream):
            _CParser.__init__(self, stream)
            _SpecComposer.__init__(self)
            _SpecConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


# Dates stay text: a spec has no date fields, and `2024-13-45` would otherwise crash the constructor.
_RESOLVERS = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _YAML + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# Numbers with an exponent are numbers, as YAML 1.2 (its core schema) and JSON read them: `1e-3`, `2E5`, `1.0e400`.
# PyYAML follows YAML 1.1, whose floats need a dot and a signed exponent, and reads these as text, so a spec's
# `scale: [1e-3]` was refused as "expected a number, got '1e-3'". Tried after YAML 1.1's int and float patterns.
EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$")
# Integers as YAML 1.2's core schema writes them (decimal, 0o octal, 0x hexadecimal), not YAML 1.1's (``010`` octal,
# ``0b101``, ``1_000``, base 60 ``1:30``), which stay text: a spec's ``shape: [1, 010]`` was [1, 8] without a word.
INT_1_2 = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
for _first in list(_RESOLVERS):
    _RESOLVERS[_first] = [(tag, regexp) for tag, regexp in _RESOLVERS[_first] if tag != _INT_TAG]
for _first in "-+0123456789":
    _RESOLVERS[_first] = [(_INT_TAG, INT_1_2), *_RESOLVERS.get(_first, [])]
for _first in "-+.0123456789":
    _RESOLVERS[_first] = [*_RESOLVERS.get(_first, []), (_YAML + "float", EXPONENT_FLOAT)]
for _loader in (SpecYamlLoader, SpecYamlCLoader):
    if _loader is not None:
        _loader.yaml_implicit_resolvers = _RESOLVERS


def plain_scalar_tag(value: str) -> str:
    """The tag the spec loader gives ``value`` written as a plain (unquoted) scalar: ``tag:yaml.org,2002:str``,
    ``...:float`` and so on (spec_name_of reads a name without the loader, and must read it alike)."""
    return yaml.resolver.Resolver.resolve(SpecYamlLoader, ScalarNode, value, (True, False))


def load_yaml(text: str) -> Any:
    """The plain data of a one-document YAML text; SpecError on anything unsafe or malformed.

    libyaml parses first; on any YAML error the pure-Python loader parses again, so every
    message (and its line and column) is the same with or without libyaml.
    """
    if SpecYamlCLoader is not None:
        try:
            return _load_with(SpecYamlCLoader, text)
        except (yaml.YAMLError, SpecError):
            pass
    return _load_with(SpecYamlLoader, text)


def _load_with(loader_class, text: str) -> Any:
    loader = None
    try:
        loader = loader_class(text)  # the pure-Python reader checks the characters here already
        node = loader.get_single_node()
        return None if node is None else loader.construct_document(node)
    except yaml.YAMLError as exc:
        if loader_class is not SpecYamlLoader:
            raise
        raise SpecError(_describe_yaml_error(exc, text)) from None
    except RecursionError:  # not reachable with MAX_DEPTH well below the recursion limit; kept as a guard
        raise SpecError(f"nested more than {MAX_DEPTH} levels deep") from None
    finally:
        if loader is not None:
            loader.dispose()


def _describe_yaml_error(exc: yaml.YAMLError, text: str) -> str:
    if isinstance(exc, yaml.reader.ReaderError):  # a control character, or a lone surrogate
        line = text.count("\n", 0, exc.position) + 1
        return f"invalid YAML at line {line}: special character U+{exc.character:04X} is not allowed"
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and context_mark:
        problem += f" ({context} at line {context_mark.line + 1})"
    return f"invalid YAML{where}: {problem}"


# --- JSON ----------------------------------------------------------------------------------------


class _WithDuplicate(dict):
    """A JSON object that repeated a key; reported (with its field) by the walk after parsing."""

    duplicate: str = ""


def _pairs(pairs):
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            dup = _WithDuplicate(obj)
            dup.duplicate = key
            return dup
        obj[key] = value
    return obj


def _strip_comment_header(text: str) -> str:
    """Blank out the leading `//` comment lines (line numbers stay right)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("//"):
            lines[i] = ""
        elif stripped:
            break
    return "\n".join(lines)


def load_json(text: str) -> Any:
    """The data of a JSON text; SpecError on a syntax error, a duplicate key or a limit."""
    try:
        doc = json.loads(_strip_comment_header(text), object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        raise SpecError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise SpecError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # e.g. an integer with more than 4300 digits
        raise SpecError(f"invalid JSON: {str(exc).splitlines()[0].split(';')[0]}") from None
    _check_json_tree(doc)
    return doc


def _check_json_tree(doc: Any) -> None:
    """Depth, node count, duplicate keys and 64-bit integers, each reported with its field."""
    count = 0
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise SpecError(f"the document has more than {MAX_NODES:,} nodes (values, lists and mappings); "
                            "put large tensors in .npy files")
        if isinstance(value, dict):
            if depth >= MAX_DEPTH:
                raise SpecError(f"nested more than {MAX_DEPTH} levels deep", field=where or None)
            if isinstance(value, _WithDuplicate):
                raise SpecError(f"duplicate key {value.duplicate!r}; JSON keys must be unique", field=where or None)
            stack.extend((v, f"{where}.{printable(k)}" if where else printable(k), depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            if depth >= MAX_DEPTH:
                raise SpecError(f"nested more than {MAX_DEPTH} levels deep", field=where or None)
            stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value < INT_LIMIT:
            digits = str(value)
            shown = digits if len(digits) <= 30 else f"{digits[:12]}...({len(digits)} digits)"
            raise SpecError(f"integer {shown} does not fit in 64 bits", field=where or None)
