"""Choosing what runs: the spec files under some paths, deterministic shards, -k patterns."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .errors import UserError
from .spec import Spec, find_spec_files, load_spec


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


def spec_files(paths: Iterable[str | Path], shard: tuple[int, int] | None = None) -> list[Path]:
    """The spec files under ``paths`` (sorted) in shard ``I/N``.

    Shards split the sorted files round-robin: the same suite always splits the same way, every
    spec is in exactly one shard, and the cases of a spec stay together (one model, one session).
    """
    files = find_spec_files(paths)
    if shard:
        index, total = shard
        files = files[index - 1::total]
    return files


def case_names(spec: Spec, patterns: Iterable[str]) -> list[str]:
    return [c.name for c in spec.cases if matches(f"{spec.name}/{c.name}", patterns)]


def select(paths: Iterable[str | Path], patterns: Iterable[str] = (), shard: tuple[int, int] | None = None) -> Selection:
    """Load every spec under ``paths`` in shard ``I/N`` and keep the cases matching ``patterns`` (for --list)."""
    selection = Selection()
    seen_names: dict[str, Path] = {}
    for path in spec_files(paths, shard):
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
