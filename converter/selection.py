"""Choosing what runs: loading the specs under some paths, -k patterns, deterministic shards."""

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
    """A -k pattern is a glob when it has *, ? or [, else a substring; several patterns are OR-ed."""
    patterns = list(patterns)
    if not patterns:
        return True
    for pattern in patterns:
        if any(ch in pattern for ch in "*?[") and fnmatch.fnmatchcase(case_id, pattern):
            return True
        if pattern in case_id:
            return True
    return False


def select(paths: Iterable[str | Path], patterns: Iterable[str] = (), shard: tuple[int, int] | None = None) -> Selection:
    """Load every spec under ``paths`` and keep the cases matching ``patterns`` in shard ``I/N``.

    Shards split the sorted list of case ids round-robin: the same suite always splits the same way,
    and every case is in exactly one shard.
    """
    selection = Selection()
    loaded = []
    seen_names: dict[str, Path] = {}
    for path in find_spec_files(paths):
        try:
            spec = load_spec(path)
        except UserError as exc:
            selection.load_errors.append((path, str(exc)))
            continue
        if spec.name in seen_names:
            selection.load_errors.append((path, f"{path}: name: {spec.name!r} is also the name of {seen_names[spec.name]}; spec names must be unique"))
            continue
        seen_names[spec.name] = path
        loaded.append(spec)
    ids = sorted((spec.name, case.name) for spec in loaded for case in spec.cases if matches(f"{spec.name}/{case.name}", patterns))
    if shard:
        index, total = shard
        ids = ids[index - 1::total]
    chosen: dict[str, list[str]] = {}
    for spec_name, case_name in ids:
        chosen.setdefault(spec_name, []).append(case_name)
    selection.specs = [(spec, [c.name for c in spec.cases if c.name in chosen[spec.name]]) for spec in loaded if spec.name in chosen]
    return selection
