"""The outcome of one case on one runtime configuration (what reports, the API and the CLI read)."""

from __future__ import annotations

from dataclasses import dataclass, field

PASS, FAIL, ERROR, XFAIL, XPASS, REFUSED = "PASS", "FAIL", "ERROR", "XFAIL", "XPASS", "REFUSED"
# REFUSED: the target cannot take the spec, or cannot run a node of its model (validate --target): not a broken spec
OUTCOMES = (PASS, FAIL, ERROR, XFAIL, XPASS, REFUSED)
BAD = (FAIL, ERROR, XPASS)  # outcomes that fail a run (and REFUSED with --refused=fail: bad_outcomes)
REFUSAL_POLICIES = ("skip", "fail")  # --refused: a refusal is counted and skipped (the default), or fails the run
MAX_SHARDS = 10**6  # --shard I/N (validate) and report merge: N above it is refused, no run has that many reports


def bad_outcomes(refused: str = "skip") -> tuple[str, ...]:
    """The outcomes that fail a run under the ``--refused`` policy (REFUSAL_POLICIES)."""
    return BAD + ((REFUSED,) if refused == "fail" else ())


@dataclass
class CaseResult:
    """The outcome of one case on one runtime configuration: PASS, FAIL, ERROR, XFAIL, XPASS or REFUSED, and why."""

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
    label: str = ""  # what the id shows in brackets: --target's name (when given) and the runtime configuration (several)
    target: str = ""  # the target the case was lowered and checked for (validate: --target's, auto's choice, or the provider's)
    host: str = ""  # "host: legalized copy, N nodes changed": the host ran a copy of the deployment model
    pictures: list[dict] = field(default_factory=list)  # --html only: each failing comparison's error_map summary
    # ({"output", "actual", "against"} + converter/error_map.summarize's keys); never in the JSON or JUnit reports
    shapes: str = ""  # the case's input shapes where the network has dynamic ones, e.g. "x [2, 3, 8, 8], size = [...]"
    notes: list[str] = field(default_factory=list)  # what a verdict rests on beyond finite values compared: outputs
    # holding NaN or infinities (matched as values), empty outputs (their shape compared, no value)

    @property
    def id(self) -> str:
        """``spec/case``, ending in `` [TARGET]`` when --target was given and in the runtime configuration when several
        ran (`` [tensorrt ort[cpu,opt=disabled]]``, as the pytest plugin names its items), as reports use it."""
        if self.bad_input:
            return f"{self.spec} (not loaded)"
        return f"{self.spec}/{self.case}" + (f" [{self.label}]" if self.label else "")

    @property
    def kind(self) -> str:
        """The layer kinds of the case's network joined by ``+`` (the summary table's rows)."""
        return "+".join(self.ops) or "(not loaded)"
