"""Known failures: a runtime-, provider- or level-specific failure declared with a reason.

In a spec (top-level ``xfail:``, applying to its own cases) or in a separate
file given with ``--xfail-file`` (a YAML list, each entry naming ``spec``)::

    xfail:
      - runtime: openvino          # optional: onnxruntime | onnx-reference | openvino
        provider: cuda             # optional: an onnxruntime provider (alias or full name)
        opt_level: disabled        # optional: an onnxruntime optimization level
        case: "tie-*"              # optional: case-name glob (default: every case)
        reason: OpenVINO's CPU plugin rounds ... (required)

A matching case that fails is reported as XFAIL; one that passes as XPASS,
which fails the run (the entry is stale and should go).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SpecError, UserError

KEYS = ("spec", "case", "runtime", "provider", "opt_level", "reason")


@dataclass(frozen=True)
class XfailRule:
    reason: str
    spec: str = "*"
    case: str = "*"
    runtime: str | None = None
    provider: str | None = None
    opt_level: str | None = None

    def matches(self, spec: str, case: str, runtime: str, provider: str, opt_level: str) -> bool:
        from .runtime import PROVIDER_ALIASES

        if not (fnmatch.fnmatchcase(spec, self.spec) and fnmatch.fnmatchcase(case, self.case)):
            return False
        if self.runtime and self.runtime != runtime:
            return False
        if self.provider and PROVIDER_ALIASES.get(self.provider.lower(), self.provider) != provider:
            return False
        return not (self.opt_level and (runtime != "onnxruntime" or self.opt_level != opt_level))


def parse_rules(doc: Any, *, spec_name: str | None = None) -> tuple[XfailRule, ...]:
    """Rules from a list of mappings; inside a spec ``spec`` defaults to (and must be) the spec itself."""
    if not isinstance(doc, list):
        raise SpecError("must be a list of {runtime, provider, opt_level, case, reason} entries")
    rules = []
    for i, entry in enumerate(doc):
        where = f"[{i}]"
        if not isinstance(entry, dict):
            raise SpecError("must be a mapping", field=where)
        allowed = KEYS if spec_name is None else tuple(k for k in KEYS if k != "spec")
        for key, value in entry.items():
            if key not in allowed:
                raise SpecError(f"unknown key {key!r}; allowed: {', '.join(allowed)}", field=f"{where}.{key}")
            if not isinstance(value, str) or not value:
                raise SpecError(f"{value!r} must be non-empty text", field=f"{where}.{key}")
        if "reason" not in entry:
            raise SpecError("a known failure needs a 'reason'", field=where)
        if spec_name is None and "spec" not in entry:
            raise SpecError("an entry of an xfail file must name its 'spec' (a name or glob)", field=where)
        rules.append(XfailRule(**{"spec": spec_name or "*", **entry}))
    return tuple(rules)


def load_rules_file(path: str | Path) -> tuple[XfailRule, ...]:
    """Rules from a YAML or JSON file, read with the spec reader's limits (size, aliases, tags)."""
    from .spec import read_document

    path = Path(path)
    try:
        return parse_rules(read_document(path))
    except UserError as exc:
        raise exc.located(file=str(path)) from None
