"""The outcome of one case on one runtime configuration (what reports, the API and the CLI read)."""

from __future__ import annotations

from dataclasses import dataclass, field

PASS, FAIL, ERROR, XFAIL, XPASS = "PASS", "FAIL", "ERROR", "XFAIL", "XPASS"
OUTCOMES = (PASS, FAIL, ERROR, XFAIL, XPASS)
BAD = (FAIL, ERROR, XPASS)  # outcomes that fail a run


@dataclass
class CaseResult:
    """The outcome of one case on one runtime configuration: PASS, FAIL, ERROR, XFAIL or XPASS, and why."""

    spec: str  # spec name (the file, when the spec could not be loaded)
    case: str
    outcome: str
    path: str = ""
    ops: tuple[str, ...] = ()
    runtime: str = "onnxruntime"
    provider: str = "CPUExecutionProvider"
    opset: int = 0
    opt_level: str = "all"
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    comparisons: list[dict] = field(default_factory=list)  # mismatch statistics, one per failed comparison
    disagreements: list[dict] = field(default_factory=list)  # differences from the first runtime configuration
    reason: str = ""  # why a case is a known failure
    bad_input: bool = False  # the spec itself could not be loaded (a user error: exit status 2)
    internal: bool = False  # lowering failed with an internal error: our bug (exit status 3)
    label: str = ""  # the runtime configuration, shown when several run
    host: str = ""  # "host: legalized copy, N nodes changed": the host ran a copy of the deployment model

    @property
    def id(self) -> str:
        """``spec/case`` (with the runtime configuration when several ran), as reports and ``-k`` use it."""
        if self.bad_input:
            return f"{self.spec} (not loaded)"
        return f"{self.spec}/{self.case}" + (f" [{self.label}]" if self.label else "")

    @property
    def kind(self) -> str:
        """The layer kinds of the case's network joined by ``+`` (the summary table's rows)."""
        return "+".join(self.ops) or "(not loaded)"
