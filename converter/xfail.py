"""Known failures: a runtime-, provider- or level-specific failure declared with a reason.

In a spec (top-level ``xfail:``, applying to its own cases) or in a separate
file given with ``--xfail-file`` (a YAML list, each entry naming ``spec``)::

    xfail:
      - runtime: openvino          # optional: onnxruntime | onnx-reference | openvino
        provider: cuda             # optional: an onnxruntime provider (alias or full name)
        opt_level: disabled        # optional: an onnxruntime optimization level
        case: "tie-*"              # optional: case-name glob (default: every case)
        machine: openvino-bfloat16-rounding  # optional: only where this fact of the machine holds (MACHINE_FACTS)
        target: ort-cpu            # optional: only for the model lowered for this target (a name or a glob)
        reason: OpenVINO's CPU plugin rounds ... (required)

A matching case that fails is reported as XFAIL; one that passes as XPASS,
which fails the run (the entry is stale and should go). An entry with ``machine``
applies only on a machine where that fact holds (asked of the runtime itself, once
per process: converter/runners machine_has); elsewhere the case must pass.

A ``target`` entry applies to the model lowered for that target (validate's --target; without it the
target the provider implies, ort-cpu for the CPU EP): a failure of one lowering of a spec need not be
one of another (OpenVINO refuses a native blocked DequantizeLinear that the openvino target decomposes).

Entries that name nothing real are reported, not ignored: an unknown ``runtime``,
``provider``, ``opt_level`` or ``target`` is an error where the entry is read (exit status 2);
in a spec, a ``case`` glob that matches none of its cases is an error too. An entry
of an xfail file whose ``spec``/``case`` globs match no case of a whole run (no -k,
--shard or -x) gets a warning line naming it after the run (the exit status is
unchanged: a spec can be missing from one checkout and not another).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any, Callable

from .errors import SpecError
from .installed.providers import PROVIDER_ALIASES, RUNTIMES

KEYS = ("spec", "case", "runtime", "provider", "opt_level", "machine", "target", "reason")

# Facts of the validating machine a known failure may depend on (converter/runners/__init__.py machine_has asks them).
MACHINE_FACTS = {
    "openvino-bfloat16-rounding": "OpenVINO's CPU plugin here rounds float32 results to bfloat16 other than to nearest "
                                  "even (without avx512_core: ov::intel_cpu::bfloat16_t truncates when the kept last "
                                  "bit is even)",
}


@dataclass(frozen=True)
class XfailRule:
    reason: str
    spec: str = "*"
    case: str = "*"
    runtime: str | None = None
    provider: str | None = None
    opt_level: str | None = None
    machine: str | None = None
    target: str | None = None

    def matches(self, spec: str, case: str, runtime: str, provider: str, opt_level: str,
                machine_has: Callable[[str], bool] | None = None, target: str = "") -> bool:
        """``machine_has(fact)``: whether a MACHINE_FACTS fact holds here (asked only of a rule that names one);
        ``target``: the target the case's model was lowered for."""
        if not (fnmatch.fnmatchcase(spec, self.spec) and fnmatch.fnmatchcase(case, self.case)):
            return False
        if self.target and not fnmatch.fnmatchcase(target, self.target):
            return False
        if self.runtime and self.runtime != runtime:
            return False
        if self.provider and PROVIDER_ALIASES.get(self.provider.lower(), self.provider) != provider:
            return False
        if self.opt_level and (runtime != "onnxruntime" or self.opt_level != opt_level):
            return False
        return not self.machine or (machine_has is not None and machine_has(self.machine))


def parse_rules(doc: Any, *, spec_name: str | None = None, targets: tuple[str, ...] = ()) -> tuple[XfailRule, ...]:
    """Rules from a list of mappings; inside a spec ``spec`` defaults to (and must be) the spec itself. ``targets``:
    the registry's target names, which a ``target`` glob must match one of."""
    if not isinstance(doc, list):
        raise SpecError("must be a list of {runtime, provider, opt_level, machine, target, case, reason} entries")
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
        for key, check in (("runtime", _check_runtime), ("provider", _check_provider), ("opt_level", _check_opt_level),
                           ("machine", _check_machine), ("target", lambda glob: _check_target(glob, targets))):
            if key in entry:
                problem = check(entry[key])
                if problem:
                    raise SpecError(problem, field=f"{where}.{key}")
        if "reason" not in entry:
            raise SpecError("a known failure needs a 'reason'", field=where)
        if spec_name is None and "spec" not in entry:
            raise SpecError("an entry of an xfail file must name its 'spec' (a name or glob)", field=where)
        rules.append(XfailRule(**{"spec": spec_name or "*", **entry}))
    return tuple(rules)


def _check_runtime(name: str) -> str:
    return "" if name in RUNTIMES else f"unknown runtime {name!r}; one of {', '.join(RUNTIMES)}"


def _check_provider(name: str) -> str:
    import onnxruntime  # (validating needs it; a spec's xfail names a provider of it)

    known = set(onnxruntime.get_all_providers()) | set(PROVIDER_ALIASES.values())
    if name.lower() in PROVIDER_ALIASES or name in known:
        return ""
    return f"unknown onnxruntime provider {name!r}; one of {', '.join(PROVIDER_ALIASES)} or a full name such as CUDAExecutionProvider"


def _check_target(glob: str, targets: tuple[str, ...]) -> str:
    if any(fnmatch.fnmatchcase(name, glob) for name in targets):
        return ""
    return f"{glob!r} names no target; one of {', '.join(targets)}"


def _check_machine(name: str) -> str:
    return "" if name in MACHINE_FACTS else f"unknown machine fact {name!r}; one of {', '.join(MACHINE_FACTS)}"


def _check_opt_level(name: str) -> str:
    levels = ("disabled", "basic", "extended", "all")
    return "" if name in levels else f"unknown optimization level {name!r}; one of {', '.join(levels)}"


def check_cases(rules: tuple[XfailRule, ...], case_names: list[str]) -> None:
    """A spec's own entries: each ``case`` glob must match one of its cases."""
    for i, rule in enumerate(rules):
        if not any(fnmatch.fnmatchcase(name, rule.case) for name in case_names):
            raise SpecError(f"{rule.case!r} matches none of this spec's cases ({', '.join(case_names) or 'none'})",
                            field=f"[{i}].case")


def unmatched(rules: tuple[XfailRule, ...], ran: set[tuple[str, str]]) -> list[tuple[int, XfailRule]]:
    """The entries (with their index) whose spec and case globs match none of the (spec, case) pairs in ``ran``."""
    return [(i, rule) for i, rule in enumerate(rules)
            if not any(fnmatch.fnmatchcase(spec, rule.spec) and fnmatch.fnmatchcase(case, rule.case) for spec, case in ran)]
