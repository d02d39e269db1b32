"""Choosing what runs: the spec files under some paths, deterministic shards, -k patterns."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import yaml

from . import safe_yaml
from ..errors import UserError
from ..names import is_valid_name
from ..results import MAX_SHARDS
from .spec import SPEC_SUFFIXES, Spec, load_spec, read_bounded


@dataclass
class Selection:
    specs: list[tuple[Spec, list[str]]] = field(default_factory=list)  # each spec with the chosen case names
    load_errors: list[tuple[Path, str]] = field(default_factory=list)  # specs that failed to load, with the message

    @property
    def case_count(self) -> int:
        return sum(len(names) for _, names in self.specs)

    def ids(self) -> list[str]:
        return [f"{spec.name}/{name}" for spec, names in self.specs for name in names]


def parse_shard(text: str) -> tuple[int, int]:
    """'I/N' with 1 <= I <= N."""
    try:
        index, total = (int(part) for part in text.split("/"))
    except ValueError:
        raise UserError(f"--shard {text}: expected I/N, e.g. 2/4") from None
    if not 1 <= index <= total:
        raise UserError(f"--shard {text}: I must be between 1 and N")
    if total > MAX_SHARDS:
        raise UserError(f"--shard {text}: N is above {MAX_SHARDS:,}; one report per shard, and no run has that many")
    return index, total


def matches(case_id: str, patterns: Iterable[str]) -> bool:
    """A -k pattern is ``=ID`` for exactly that id, a glob when it has *, ? or [, else a substring;
    several patterns are OR-ed."""
    patterns = list(patterns)
    if not patterns:
        return True
    for pattern in patterns:
        if pattern.startswith("="):
            if case_id == pattern[1:]:
                return True
            continue
        if any(ch in pattern for ch in "*?[") and fnmatch.fnmatchcase(case_id, pattern):
            return True
        if pattern in case_id:
            return True
    return False


# --- which files are specs ---------------------------------------------------------------------
#
# The rule (README "Robustness"): a file found in a folder is a spec when its name ends in .yaml, .yml
# or .json and its top level is a mapping with both a `network` and a `cases` key, or a `network` with
# `profiles` (a dynamic spec's cases may be its default ones: docs/dynamic-shapes.md). Anything else in
# the folder (a --json report, CI files, data) is skipped. A file named on the command line is always
# loaded, and says why when it is not a spec.

_BLOCK_KEY = re.compile(r"""^(["']?)(network|cases)\1[ \t]*:""", re.MULTILINE)  # a top-level key of a YAML block mapping
_ANY_KEY = re.compile(r"""(["']?)\b(network|cases|profiles)\1\s*:""")
_NESTED_PROFILES = re.compile(r"""^[ \t]+(["']?)profiles\1[ \t]*:""", re.MULTILINE)  # network.profiles, block style
_EXPLICIT_KEY = re.compile(r"^\?[ \t]", re.MULTILINE)  # `? network` then `: ...`: a key the patterns above miss
_YAML_PREAMBLE = re.compile(r"(?:\s|#[^\n]*|---|%[^\n]*)*")  # blank lines, comments, directives, document start


def _spec_keys(found: set) -> bool:
    return {"network", "cases"} <= found or {"network", "profiles"} <= found


def is_spec_file(path: str | Path) -> bool:
    """True when the file at ``path`` is a spec by the rule above: the suffix, then a sniff of its text.

    Cheap (one read of at most 16 MiB, a regular expression; a parse only for JSON and flow-style YAML)
    and never raises. A broken spec still counts as a spec when its `network` and `cases` keys can be
    seen, so that its error is reported rather than the file skipped.
    """
    path = Path(path)
    if path.suffix not in SPEC_SUFFIXES:
        return False
    try:
        text = read_bounded(path).decode("utf-8", errors="replace")
    except OSError:  # a folder, a missing or unreadable file
        return False
    if path.suffix != ".json":
        top = {m.group(2) for m in _BLOCK_KEY.finditer(text)}
        if top == {"network", "cases"} or (top == {"network"} and _NESTED_PROFILES.search(text)):
            return True
        if top != {"network"} and not text[_YAML_PREAMBLE.match(text).end():].startswith("{") \
                and not _EXPLICIT_KEY.search(text):
            return False  # a block mapping without a network (or with one but no cases: parsed below), a list, ...
    try:
        doc = safe_yaml.load_json(text) if path.suffix == ".json" else safe_yaml.load_yaml(text)
    except UserError:  # unparsable: a spec if both keys show anywhere (the load will name the fault)
        return _spec_keys({m.group(2) for m in _ANY_KEY.finditer(text)})
    return isinstance(doc, dict) and "network" in doc and (
        "cases" in doc or (isinstance(doc["network"], dict) and "profiles" in doc["network"]))


def spec_name_of(path: str | Path) -> str | None:
    """The ``name`` a spec file declares, read cheaply (YAML events up to the top-level ``name``; JSON
    parsed), or None when it cannot be told without loading the spec (no valid name, aliases, merge keys,
    unreadable). Used to refuse a second spec with the same name before any of its cases run."""
    path = Path(path)
    try:
        text = read_bounded(path).decode("utf-8")
        if path.suffix == ".json":
            doc = safe_yaml.load_json(text)
            name = doc.get("name") if isinstance(doc, dict) else None
        else:
            first = _FIRST_KEY_NAME.match(text)  # the usual layout, without starting a YAML parser
            plain = first and safe_yaml.plain_scalar_tag(first.group(1))
            name = first.group(1) if plain == _STR_TAG else _yaml_top_level_name(text)
    except (OSError, UnicodeDecodeError, UserError, yaml.YAMLError, RecursionError):
        return None
    return name if is_valid_name(name) else None


def _yaml_top_level_name(text: str) -> str | None:
    depth, key_next, key = 0, False, None
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if depth == 0 and not isinstance(event, yaml.MappingStartEvent):
                return None  # the document is not a mapping
            if depth == 1 and key == "name":
                return None
            if depth >= safe_yaml.MAX_DEPTH:  # (past the loader's bound: it refuses the file, in milliseconds; the
                return None                   # pure-Python parse of a deep flow took minutes here, before it)
            depth += 1
            key_next = depth == 1
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
            if depth == 0:
                return None  # the top-level mapping ended without a name
            key_next = depth == 1
            continue
        if depth != 1:
            continue
        if isinstance(event, yaml.AliasEvent):
            if key_next or key == "name":
                return None
            key_next = True
        elif isinstance(event, yaml.ScalarEvent):
            if key_next:
                key, key_next = event.value, False
                if key == "<<":
                    return None  # a merge key may bring a name in
            else:
                if key == "name":
                    plain = event.style is None and safe_yaml.plain_scalar_tag(event.value) != _STR_TAG
                    return None if plain or event.tag not in (None, "!", _STR_TAG) else event.value
                key_next = True
    return None


_STR_TAG = "tag:yaml.org,2002:str"
# a block mapping whose first line (after blank and comment lines) is `name: <plain name>`
_FIRST_KEY_NAME = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\r?\n)*name:[ \t]+([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*(?:#[^\n]*)?\r?$",
                             re.MULTILINE)


@dataclass
class Found:
    files: list[Path] = field(default_factory=list)  # the spec files, in order
    skipped: list[Path] = field(default_factory=list)  # files in the folders that are not specs, or excluded


def _excluded(path: Path, root: Path, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    relative = path.relative_to(root).as_posix()
    candidates = (relative, path.as_posix(), path.name)
    return any(fnmatch.fnmatchcase(c, pattern.rstrip("/")) or fnmatch.fnmatchcase(c, pattern.rstrip("/") + "/*")
               for pattern in patterns for c in candidates)


def find_specs(paths: Iterable[str | Path], exclude: Iterable[str] = ()) -> Found:
    """The spec files under the given files and folders: folders are searched recursively (sorted) and
    keep the files ``is_spec_file`` accepts and no ``exclude`` glob matches; files named are always kept.

    An exclude glob matches a file's path relative to the folder searched, its path as found, or its
    name (``*`` crosses ``/``); a glob naming a folder excludes everything in it.
    """
    exclude = tuple(exclude)
    found = Found()
    seen: set[Path] = set()  # resolved paths: a file reached twice (specs specs/x) runs once
    for root in map(Path, paths):
        try:
            is_dir = root.is_dir()
        except OSError as exc:  # a name too long, a permission denied: the user's path, not our bug
            raise UserError(f"{root}: {exc.strerror or exc}") from None
        if is_dir:
            candidates = sorted(f for f in root.rglob("*") if f.suffix in SPEC_SUFFIXES and f.is_file())
            folders: dict[Path, str] = {}  # a folder's real path, asked once per folder of this search
            for file in candidates:
                if _excluded(file, root, exclude) or not is_spec_file(file):
                    found.skipped.append(file)
                elif (real := _real_path(file, folders)) not in seen:
                    seen.add(real)
                    found.files.append(file)
        elif root.exists() or root.is_symlink():
            if (real := root.resolve()) not in seen:
                seen.add(real)
                found.files.append(root)
        else:
            raise UserError(f"{root}: no such file or folder")
    return found


def _real_path(file: Path, folders: dict[Path, str]) -> Path:
    """``file.resolve()``: for a file that is no symlink, its folder's real path (kept in ``folders``) and its
    name, without resolving every component of every file's path again (a suite's specs share a few folders)."""
    if os.path.islink(file):
        return file.resolve()
    if file.parent not in folders:
        folders[file.parent] = os.path.realpath(file.parent)
    return Path(folders[file.parent], file.name)


def spec_files(paths: Iterable[str | Path], shard: tuple[int, int] | None = None, exclude: Iterable[str] = ()) -> list[Path]:
    """The spec files under ``paths`` (see ``find_specs``) in shard ``I/N``."""
    return in_shard(find_specs(paths, exclude).files, shard)


def in_shard(files: list[Path], shard: tuple[int, int] | None) -> list[Path]:
    """The files of shard ``I/N``: the sorted files split round-robin, so the same suite always splits the
    same way, every spec is in exactly one shard, and the cases of a spec stay together (one session)."""
    if not shard:
        return files
    index, total = shard
    return files[index - 1::total]


def case_names(spec: Spec, patterns: Iterable[str]) -> list[str]:
    return [c.name for c in spec.cases if matches(f"{spec.name}/{c.name}", patterns)]


def select(paths: Iterable[str | Path], patterns: Iterable[str] = (), shard: tuple[int, int] | None = None,
           exclude: Iterable[str] = ()) -> Selection:
    """Load every spec under ``paths`` in shard ``I/N`` and keep the cases matching ``patterns`` (for --list)."""
    selection = Selection()
    seen_names: dict[str, Path] = {}
    for path in spec_files(paths, shard, exclude):
        try:
            spec = load_spec(path)
        except UserError as exc:
            selection.load_errors.append((path, str(exc)))
            continue
        if spec.name in seen_names:
            selection.load_errors.append((path, f"{path}: name: {spec.name!r} is also the name of {seen_names[spec.name]}; spec names must be unique"))
            continue
        seen_names[spec.name] = path
        names = case_names(spec, patterns)
        if names:
            selection.specs.append((spec, names))
    return selection
