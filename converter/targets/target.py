"""A resolved target: a name looked up in the registry (converter/targets/profiles.py) once, where the user's
name enters (the API, the pipeline's options, check's entry), and passed down as one object.

Everything the package asks of a target is read from this object: its kernel table, its limits, the importer rules,
the DLA rules, dynamic shapes, the precisions its build may allow, its members (portable's), how --probe asks it, its
lowering preferences as properties; the onnxruntime family's own keys (fallback, placement, ...) through
``profile``, by the static check alone. No other module looks a profile up by name (``PROFILES[...]``,
tests/targets/test_target.py), so a target is its registry entry and nothing else.

Light on purpose (no dataclasses, no onnx): ``converter.targets`` is imported by the CLI's help through
profiles.py, and this module comes with the package.
"""

from __future__ import annotations

from types import MappingProxyType

from ..errors import UserError
from ..names import did_you_mean
from ..installed.providers import PROVIDER_ALIASES, PROVIDER_TARGETS, TARGET_PROVIDERS, full_provider
from .profiles import PROFILES, target_names

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


def _unknown(name, also: tuple[str, ...] = ()) -> UserError:
    names = (*also, *target_names())
    return UserError(f"--target {name}: unknown target{did_you_mean(str(name), names)}; targets: {', '.join(names)}")


class Target:
    """One target, resolved: ``Target(name)`` reads its registry entry now (a UserError naming the known targets for
    an unknown name), and the object carries it from then on. Equal targets have the same name; ``precision`` (what
    the build allows, as trtexec's --fp16/--int8: the DLA rules read it) is not part of the identity."""

    __slots__ = ("name", "profile", "members", "precision")

    def __init__(self, name: str, precision=frozenset()):
        if not isinstance(name, str) or name not in PROFILES:
            raise _unknown(name)
        profile = MappingProxyType(dict(PROFILES[name]))  # read-only, as the registry had it when resolved
        precision = frozenset(precision)
        members = tuple(Target(member, precision) for member in profile.get("all_of", ()))
        for slot, value in (("name", name), ("profile", profile), ("members", members), ("precision", precision)):
            object.__setattr__(self, slot, value)

    def __setattr__(self, slot, value):
        raise AttributeError(f"a Target is read-only ({slot})")

    def __eq__(self, other) -> bool:
        return isinstance(other, Target) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("Target", self.name))

    def __repr__(self) -> str:
        return f"Target({self.name!r}" + (f", precision={sorted(self.precision)!r})" if self.precision else ")")

    def __reduce__(self):
        # to a worker process by name: the worker's registry (the same plugins imported) resolves it again
        return Target, (self.name, self.precision)

    def allowing(self, precision) -> "Target":
        """This target with ``precision`` (PRECISIONS) allowed too."""
        extra = frozenset(precision)
        return self if extra <= self.precision else Target(self.name, self.precision | extra)

    # --- what a model for it must run on ---

    def includes(self, name: str) -> bool:
        """True when a model for this target must also run on target ``name``.

        portable includes ort-cpu, ort-cuda, tensorrt and openvino (not tensorrt-dla: DLA runs FP16/INT8 only);
        tensorrt-dla includes tensorrt (onnx-tensorrt parses its model too).
        """
        return self.name == name or name in self.profile.get("all_of", ()) or name in self.profile.get("includes", ())

    @property
    def checked(self) -> tuple["Target", ...]:
        """The targets whose verdicts make this one's: its members (portable's), else itself."""
        return self.members or (self,)

    # --- its data, each read from the profile once resolved ---

    @property
    def summary(self) -> str:
        return str(self.profile.get("summary", ""))

    @property
    def kernels(self) -> str | None:
        """Its kernel table's file (tables/ or an absolute path), or None."""
        return self.profile.get("kernels")

    @property
    def matrix(self) -> str | None:
        """Its operator matrix's file (onnx-tensorrt's), or None."""
        return self.profile.get("matrix")

    @property
    def registry_provider(self) -> str | None:
        """The execution provider whose kernels in the installed onnxruntime's registry are its table, or None."""
        return self.profile.get("registry") or None

    @property
    def limits(self) -> tuple:
        return tuple(self.profile.get("limits", ()))

    @property
    def importer(self) -> bool:
        """Whether onnx-tensorrt's importer reads its models (its conditions hold: tensorrt_rules.py; --layers)."""
        return bool(self.profile.get("importer"))

    @property
    def dla(self) -> bool:
        """Whether NVIDIA's DLA rules hold (converter/targets/dla.py), no dynamic dimension among them."""
        return bool(self.profile.get("dla"))

    @property
    def dynamic_shapes(self) -> bool:
        """Whether it takes a model with dynamic dimensions (DLA does not: converter/targets/dynamic.py)."""
        return not self.dla

    @property
    def build_precisions(self) -> tuple[str, ...]:
        """What its build may allow beyond the model's types (--fp16/--int8 mean something for it); () for most."""
        return tuple(self.profile.get("build_precisions", ()))

    @property
    def probe(self) -> dict:
        """How ``check --probe`` asks its runtime ({"runtime": "onnxruntime", "provider": ...} or {"runtime":
        "openvino"}); {} where there is none to ask (converter/targets/probe.py)."""
        return dict(self.profile.get("probe", {}))

    @property
    def deployment(self) -> bool:
        """Whether lowerings emit this target's deployment form (one node per layer where its importer has one,
        in the source's types), run on the host through a legalized copy (converter/pipeline/legalize.py)."""
        return bool(self.profile.get("deployment"))

    @property
    def host_copy(self) -> bool:
        """Whether validate's host (onnxruntime's CPU EP) runs a legalized copy of the model convert writes, not the
        model itself: a deployment form, or a model for another EP whose native float16 ops the CPU EP computes in
        float32 without rounding between them (ort-dml: ``host_copy`` in its profile)."""
        return self.deployment or bool(self.profile.get("host_copy"))

    @property
    def own_runtime(self) -> str | None:
        """The runtime of this project that is the target itself, where validate may run it (openvino: its profile's
        ``probe`` names a runtime and no onnxruntime provider): it runs the model convert writes, not the host's
        legalized copy. None for onnxruntime's targets, whose runtime is the host's."""
        probe = self.profile.get("probe", {})
        return probe.get("runtime") if "provider" not in probe else None

    @property
    def preferences(self) -> dict:
        """Lowering preferences (converter/targets/profiles.py), e.g. ``scale_batchnorm``."""
        return self.profile.get("preferences", {})

    @property
    def notes(self) -> list[str]:
        """What its verdict models that the problem lines do not say (openvino: the way the model is read)."""
        return [f"{member.name}: {member.profile['reads']}" for member in self.checked if "reads" in member.profile]


def resolve_target(name, also: tuple[str, ...] = (), *, precision=()) -> Target:
    """The target called ``name`` (allowing ``precision``: see check_precision), resolved once; ``name`` may be a
    Target already. A UserError naming every target otherwise (``also``: the other names the caller takes, e.g.
    ``auto``, which the message lists first)."""
    if isinstance(name, Target):
        return name.allowing(check_precision(precision))
    if not isinstance(name, str) or name not in PROFILES:
        raise _unknown(name, also)
    return Target(name, check_precision(precision))




def precision_targets() -> tuple[str, ...]:
    """The targets whose build reads --fp16/--int8 (a build_precisions in their profile)."""
    return tuple(name for name in target_names() if PROFILES[name].get("build_precisions"))


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
        return resolve_target(target, also)
    if provider:
        full = full_provider(provider)
        if full not in PROVIDER_ALIASES.values():
            raise UserError(f"--provider {provider}: not an execution provider onnxruntime knows; "
                            f"known: {', '.join(sorted(PROVIDER_ALIASES))}")
        return target_for_provider(full)
    return resolve_target("portable")
