"""Deployment targets: what runtime a model is lowered for, and what that runtime can run.

A target is a capability table (op, since-version, types, ranks, attribute limits, known run-time
limits) plus lowering preferences, kept as data with its source named. Lowerings read
``ctx.target`` (converter/lowering/builder.py) to legalize; ``check.check_model(model, target)`` lists
every node a target cannot run. The tables are in tables/ (JSON, each naming its source), the
limits and preferences in profiles.py, the DLA rules in dla.py.

Names: ``portable`` (every node runs on all targets below; the default of ``convert``), ``ort-cpu``
(onnxruntime's CPU EP; the default of ``validate --provider cpu``), ``ort-cuda``, ``ort-dml`` (onnxruntime's
DirectML EP, what a DirectML user deploys with), ``tensorrt``
(onnx-tensorrt's parser), ``tensorrt-dla``, ``openvino``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import UserError
from ..names import did_you_mean
from ..installed.providers import PROVIDER_ALIASES, PROVIDER_TARGETS, TARGET_PROVIDERS, full_provider
from .profiles import PROFILES


def target_names() -> tuple[str, ...]:
    """Every target: ``portable`` first, then each profile in profiles.py (a target is its PROFILES entry)."""
    return ("portable", *(name for name in PROFILES if name != "portable"))


TARGET_NAMES = target_names()  # the built-in ones (a profile added at run time shows in target_names())


PRECISIONS = ("fp16", "int8")  # what a TensorRT build may allow (BuilderFlag.FP16/INT8, trtexec --fp16/--int8)


def check_precision(values, where: str = "--fp16/--int8") -> frozenset:
    """The precisions named (a subset of PRECISIONS); a UserError naming ``where`` otherwise."""
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise UserError(f"{where}: expected a list of {', '.join(PRECISIONS)}, got {values!r}")
    values = tuple(values)
    bad = [v for v in values if v not in PRECISIONS]
    if bad:
        raise UserError(f"{where}: {bad[0]!r} is not a precision{did_you_mean(str(bad[0]), PRECISIONS)}; allowed: "
                        f"{', '.join(PRECISIONS)}")
    return frozenset(values)


@dataclass(frozen=True)
class Target:
    name: str  # one of TARGET_NAMES
    # What the build allows beyond the model's own types, as trtexec's --fp16/--int8 (TensorRT targets; the DLA
    # rules read it: converter/targets/dla.py precision_problem). Not part of the target's identity.
    precision: frozenset = field(default=frozenset(), compare=False)

    def allowing(self, precision) -> "Target":
        """This target with ``precision`` (PRECISIONS) allowed too."""
        extra = frozenset(precision)
        return self if extra <= self.precision else replace(self, precision=self.precision | extra)

    def includes(self, name: str) -> bool:
        """True when a model for this target must also run on target ``name``.

        portable includes ort-cpu, ort-cuda, tensorrt and openvino (not tensorrt-dla: DLA runs FP16/INT8 only);
        tensorrt-dla includes tensorrt (onnx-tensorrt parses its model too).
        """
        profile = PROFILES[self.name]
        return self.name == name or name in profile.get("all_of", ()) or name in profile.get("includes", ())

    @property
    def deployment(self) -> bool:
        """Whether lowerings emit this target's deployment form (one node per layer where its importer has one,
        in the source's types), run on the host through a legalized copy (converter/pipeline/legalize.py)."""
        return bool(PROFILES[self.name].get("deployment"))

    @property
    def preferences(self) -> dict:
        """Lowering preferences (converter/targets/profiles.py), e.g. ``scale_batchnorm``."""
        return PROFILES[self.name].get("preferences", {})


def get_target(name: str, also: tuple[str, ...] = (), *, precision=()) -> Target:
    """The target called ``name`` (allowing ``precision``: see check_precision); a UserError naming the allowed ones
    otherwise (``also``: the other names the caller takes, e.g. ``auto``, which the message lists first)."""
    names = (*also, *target_names())
    if name not in names:
        raise UserError(f"--target {name}: unknown target{did_you_mean(name, names)}; targets: {', '.join(names)}")
    return Target(name, check_precision(precision))


def target_for_provider(provider: str) -> Target:
    """The target an onnxruntime execution provider (full name) implies; ``portable`` for others."""
    return Target(PROVIDER_TARGETS.get(provider, "portable"))


def provider_for_target(target: Target) -> str:
    return TARGET_PROVIDERS.get(target.name, "CPUExecutionProvider")


def choose_target(target: str | None = None, provider: str | None = None, also: tuple[str, ...] = ()) -> Target:
    """``target`` when given; else the target ``provider`` implies (cuda: ort-cuda); else portable.

    Works without that provider installed: only the names are looked at.
    """
    if target:
        return get_target(target, also)
    if provider:
        full = full_provider(provider)
        if full not in PROVIDER_ALIASES.values():
            raise UserError(f"--provider {provider}: not an execution provider onnxruntime knows; "
                            f"known: {', '.join(sorted(PROVIDER_ALIASES))}")
        return target_for_provider(full)
    return get_target("portable")
