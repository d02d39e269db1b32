"""How much memory validating a spec will need, estimated from its shapes before anything is allocated.

A spec of a few lines can ask for outputs of 2^31 elements, or constants of gigabytes. Loading
checks two limits before it materializes any constant or case data (``converter.pipeline.spec``):

* the constants become initializers of one ONNX model, a single protobuf message, which cannot
  exceed 2 GiB when serialized (the bytes onnxruntime reads);
* the estimated peak (below) must fit the memory budget: ``--max-memory``, by default an eighth of
  the machine's RAM (``default_budget``).

The estimate, per spec (one worker validates one spec at a time):

* constants, CONSTANT_COPIES (7) times: the numpy arrays, the model's initializers, its serialized bytes,
  onnxruntime's copy of them and its parsed initializers, and the offline-optimized graph validate makes (measured:
  a 229 MiB constant peaked at 1.47x an estimate that counted it three times, when the session was created);
* every case's data (inputs, and expected values where given): all are made when the spec loads;
* one case at a time: the reference's value of every layer (it keeps them all), plus a work area
  as large as the biggest layer output in float32 or wider (the separable Resize reference makes
  one intermediate per axis), plus the runtime's outputs and intermediates, once per runtime
  configuration that runs (the first configuration's outputs are kept to compare the others with).

A network with dynamic dimensions is estimated at its profiles' max (each tensor where it is largest):
no case lies outside every profile. Dimensions only known at run time otherwise (a Resize fed a shape
by the case data without a profile) are not estimated: they are bounded by the 2^31-element limit alone.

``gc_paused``: Python's cycle collector paused around the bursts of allocation (loading, lowering) that make no
cycles worth collecting.
"""

from __future__ import annotations

import functools
import gc
import math
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass

from .errors import SpecError, UserError
from .network import Network, TensorType

PROTOBUF_LIMIT = 2**31 - 1  # bytes in one serialized protobuf message (ModelProto)
GRAPH_HEADROOM = 16 * 2**20  # the graph's nodes, names and attributes beside the initializers
DEFAULT_FRACTION = 8  # the default budget is 1/DEFAULT_FRACTION of the machine's RAM
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


@functools.lru_cache(maxsize=1)  # read once a process: every spec load asks (the default budget)
def machine_ram() -> int | None:
    """The physical RAM, or the cgroup (container) memory limit where that is lower; None where unknown."""
    try:
        ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not a POSIX system
        return None
    try:
        with open("/sys/fs/cgroup/memory.max") as handle:  # cgroup v2; "max" when unlimited
            limit = handle.read().strip()
        if limit.isdigit():
            ram = min(ram, int(limit))
    except OSError:
        pass
    return ram


def default_budget() -> int:
    """An eighth of the machine's RAM (8 GiB where it cannot be told)."""
    ram = machine_ram()
    return ram // DEFAULT_FRACTION if ram else 8 * 2**30


def parse_size(text: str) -> int:
    """Bytes from '512M', '4G', '1.5G', '1000000' (K, M, G, T are powers of 1024; 'iB'/'B' may follow)."""
    from fractions import Fraction

    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", str(text), re.IGNORECASE)
    # Exact arithmetic: a float would turn 400 digits into infinity (an OverflowError) and 0.0001 into 0 bytes.
    size = int(Fraction(match.group(1)) * _UNITS[match.group(2).upper()]) if match else 0
    if size < 1:
        raise UserError(f"--max-memory {text}: " + ("must be at least one byte; " if match else "")
                        + "expected a size such as 512M, 4G or 1.5G (K, M, G, T: powers of 1024)")
    return size


def show(nbytes: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{int(nbytes)} bytes"


def nbytes(ttype: TensorType) -> int:
    """The bytes of a tensor of this type; 0 when a dimension is only known at run time."""
    return math.prod(ttype.shape) * ttype.dtype.numpy.itemsize if ttype.is_static else 0


CONSTANT_COPIES = 7  # a constant's copies alive together when validate creates its session (the module's docstring)


def check_constants(types: dict[str, TensorType], budget: int | None) -> None:
    """Before any constant is made: the model must be serializable, and the constants fit the budget."""
    total = sum(nbytes(t) for t in types.values())
    if total + GRAPH_HEADROOM > PROTOBUF_LIMIT:
        raise SpecError(f"the constants take {show(total)}: an ONNX model is one protobuf message, which cannot exceed "
                        "2 GiB serialized, and the constants become its initializers; pass large tensors as network "
                        "inputs with case data instead", field="network.constants")
    budget = default_budget() if budget is None else budget
    if CONSTANT_COPIES * total > budget:
        raise SpecError(f"the constants take {show(total)}, an estimated {show(CONSTANT_COPIES * total)} once in the "
                        f"model and in onnxruntime, above the memory budget of {_describe_budget(budget)}",
                        field="network.constants")


@dataclass(frozen=True)
class Estimate:
    constants: int
    case_data: int
    reference: int
    runtime: int

    @property
    def total(self) -> int:
        return self.constants + self.case_data + self.reference + self.runtime

    def describe(self) -> str:
        parts = [("constants", self.constants), ("case data", self.case_data), ("reference", self.reference),
                 ("runtime outputs", self.runtime)]
        return ", ".join(f"{name} {show(value)}" for name, value in parts if value)


def estimate(network: Network, case_docs: list, configs: int = 1, types: dict | None = None) -> Estimate:
    """The estimated peak of validating a spec (see the module's docstring); ``case_docs`` are the raw cases.
    ``types``: each tensor's type where it is largest, for a network with dynamic dimensions (the profiles' max:
    converter/pipeline/shapes.py ``check_profiles``); default the network's own."""
    types = {**network.types, **(types or {})}
    constants = CONSTANT_COPIES * sum(nbytes(types[name]) for name in network.constants)
    inputs = sum(nbytes(types[name]) for name in network.inputs)
    case_data = 0
    for doc in case_docs:
        case_data += inputs
        expected = doc.get("expected") if isinstance(doc, dict) else None
        if isinstance(expected, dict):
            case_data += sum(nbytes(types[name]) for name in expected if name in network.outputs)
    layer_bytes = [nbytes(types[layer.name]) for layer in network.layers]
    work = max((math.prod(types[layer.name].shape) * max(4, types[layer.name].dtype.numpy.itemsize)
                for layer in network.layers if types[layer.name].is_static), default=0)
    reference = sum(layer_bytes) + work
    runtime = sum(layer_bytes) * (2 if configs > 1 else 1)
    return Estimate(constants, case_data, reference, runtime)


def check_estimate(network: Network, case_docs: list, budget: int | None, configs: int = 1,
                   types: dict | None = None) -> Estimate:
    """Raise a SpecError when the estimate is above the budget (None: the default budget)."""
    budget = default_budget() if budget is None else budget
    est = estimate(network, case_docs, configs, types)
    if est.total > budget:
        raise SpecError(f"validating this spec needs an estimated {show(est.total)} ({est.describe()}), above the "
                        f"memory budget of {_describe_budget(budget)}; make the tensors smaller or split the cases "
                        "over several specs", field="network")
    return est


def _describe_budget(budget: int) -> str:
    ram = machine_ram()
    default = f"; the default is 1/{DEFAULT_FRACTION} of this machine's {show(ram)} of RAM" if ram else ""
    return f"{show(budget)} (--max-memory{default})"


@contextmanager
def gc_paused():
    """Loading a spec and lowering a network build many small acyclic objects; the collector's passes
    over a growing heap found nothing to collect and took half the time of a 10,000-layer spec
    (benchmarks/conversion.py)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
