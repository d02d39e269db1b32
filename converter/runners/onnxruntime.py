"""Running models on onnxruntime: provider selection, opset support, bfloat16 I/O."""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import shutil
import tempfile
import threading

import numpy as np

from ..installed import opset as opset_policy
from ..dtypes import BFLOAT16, FLOAT8
from ..errors import RuntimeUnavailableError
from ..installed.opset import newest_onnx_opset
from ..installed.ort_build import newest_loadable_opset, unusable
from ..installed.providers import NOT_COMPUTE_PROVIDERS, OPT_LEVELS, PROVIDER_ALIASES, short_provider
from ..process.interrupts import held_interrupts

_IMPORT_FAILED = None  # why an installed onnxruntime could not be imported (a missing shared library, a broken install)
# Ctrl-C or SIGTERM held while onnxruntime is imported, and raised after: a KeyboardInterrupt inside the import comes
# out of it as an ImportError (pybind11's "initialization failed", numpy's C API "import numpy failed"), which read
# as "not installed" (exit 2), or was lost and the command went on to pass
with held_interrupts():
    try:
        import onnxruntime as ort
    except ImportError as exc:  # spec2onnx installed without the [cpu] or [cuda] extra: convert and check still work
        ort = None
        if importlib.util.find_spec("onnxruntime") is not None:
            _IMPORT_FAILED = f"{type(exc).__name__}: {exc}"

NO_ONNXRUNTIME = ('onnxruntime is not installed: pip install "spec2onnx[cpu]" (CPU) or "spec2onnx[cuda]" '
                  "(onnxruntime-gpu), never both in one environment (they share the onnxruntime package: "
                  "microsoft/onnxruntime#26996)")


def require_onnxruntime():
    """The onnxruntime module; a RuntimeUnavailableError (exit status 2) saying how to install it when it is missing,
    or why the one installed cannot be imported."""
    if ort is None:
        if _IMPORT_FAILED is not None:
            raise RuntimeUnavailableError(f"onnxruntime is installed but cannot be imported ({_IMPORT_FAILED}); "
                                          "reinstall it: pip install --force-reinstall \"spec2onnx[cpu]\" (or [cuda])")
        raise RuntimeUnavailableError(NO_ONNXRUNTIME)
    return ort

def resolve_provider(name: str) -> str:
    """The full onnxruntime provider name for ``name`` (alias or full), if this machine has it."""
    full = PROVIDER_ALIASES.get(name.lower(), name)
    available = require_onnxruntime().get_available_providers()
    if full in NOT_COMPUTE_PROVIDERS:
        raise RuntimeUnavailableError(f"--provider {name}: {full} {NOT_COMPUTE_PROVIDERS[full]}, so every case would "
                                      "fail to create a session; give one that runs ONNX operators (cpu, cuda, ...)")
    if full not in available:
        have = ", ".join(f"{short_provider(p)} ({p})" for p in available if p not in NOT_COMPUTE_PROVIDERS)
        known = full in PROVIDER_ALIASES.values()
        hint = " (install onnxruntime-gpu for cuda/tensorrt)" if full in ("CUDAExecutionProvider", "TensorrtExecutionProvider") else ""
        what = "is not available in this onnxruntime" if known else "is not an execution provider onnxruntime knows"
        raise RuntimeUnavailableError(
            f"--provider {name}: {full} {what} (onnxruntime {ort.__version__}){hint}; available: {have}"
        )
    why = unusable(full)  # asked once per build and machine, in a child process (converter/installed/ort_build.py)
    if why is not None:
        raise RuntimeUnavailableError(f"--provider {name}: onnxruntime {ort.__version__} lists {full} but cannot create it "
                                      f"on this machine, so every case would run on the CPU: {why}")
    return full


def max_supported_opset() -> int:
    """The newest default-domain opset the installed onnxruntime loads."""
    require_onnxruntime()
    return newest_loadable_opset()


def check_convert_opset(opset: int) -> int:
    """An opset to convert (or check) at. Without onnxruntime (convert needs none), any opset this onnx writes."""
    if ort is not None:
        return check_opset(opset)
    import onnx

    return opset_policy.check_opset(opset, newest_onnx_opset(), f"onnx {onnx.__version__}")


def check_opset(opset: int) -> int:
    """An opset the installed onnxruntime loads (a RuntimeUnavailableError otherwise)."""
    if isinstance(opset, bool) or not isinstance(opset, int):
        return opset_policy.check_opset(opset, 0, "", error=RuntimeUnavailableError)
    return opset_policy.check_opset(opset, max_supported_opset(), f"onnxruntime {ort.__version__}",
                                    error=RuntimeUnavailableError)


_PROFILE_PREFIX = threading.Lock()  # one shared SessionOptions per configuration: its prefix set per session


@functools.lru_cache(maxsize=16)
def _session_options(provider: str, opt_level: str, threads: int):
    """SessionOptions made once per configuration (a session copies them when it is made: the profile prefix,
    set per session, is the only field that changes)."""
    options = require_onnxruntime().SessionOptions()
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, OPT_LEVELS[opt_level])
    options.log_severity_level = 4  # errors reach the user as exceptions, in one line, not as log noise
    options.intra_op_num_threads = threads
    options.enable_profiling = provider != "CPUExecutionProvider"  # the first run's placement (_check_placement)
    return options


# Element types onnxruntime hands neither to numpy nor from it (session.run: "No corresponding Numpy type for Tensor
# Type", or float8 as bare uint8): run through bound OrtValues over buffers of their bits. type string -> (the
# numpy type of ml_dtypes that holds them, the bits' type, the ONNX element type)
_BITS = {f"tensor({d.name})": (d.numpy, np.dtype(f"uint{8 * d.numpy.itemsize}"), d.onnx) for d in (BFLOAT16, *FLOAT8)}
_BITS_OF = {numpy: (bits, onnx) for numpy, bits, onnx in _BITS.values()}  # numpy type -> (bits' type, ONNX type)

# onnxruntime's type strings (NodeArg.type) of the tensors numpy holds as they are (bfloat16 and strings excepted)
_NUMPY_TYPES = {f"tensor({name})": {"float": "float32", "double": "float64"}.get(name, name)
                for name in ("float", "double", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16",
                             "uint32", "uint64", "bool")}


def optimized_offline(model_bytes: bytes, opt_level: str) -> bytes | None:
    """The model as onnxruntime's CPU provider optimizes it at ``opt_level`` when it makes a session, serialized
    (onnxruntime's "offline mode": docs/performance.md), or None where onnxruntime cannot make that session or
    write it. A session made from these bytes with ``OrtRunner(..., optimized=True)`` skips the optimizations,
    which are most of the cost of a small model's session (0.15 of 0.28 ms), and runs the same graph. The graph
    may hold optimizations for this machine's CPU (NCHWc blocks): only for this build on this machine."""
    options = require_onnxruntime().SessionOptions()
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, OPT_LEVELS[opt_level])
    options.log_severity_level = 4  # (onnxruntime warns that an NCHWc graph is for this machine: it is keyed so)
    options.intra_op_num_threads = 1  # (the graph does not depend on the threads)
    folder = tempfile.mkdtemp(prefix="spec2onnx-optimized-")
    try:
        options.optimized_model_filepath = os.path.join(folder, "model.onnx")
        ort.InferenceSession(model_bytes, sess_options=options, providers=["CPUExecutionProvider"])
        with open(options.optimized_model_filepath, "rb") as f:
            return f.read()
    except Exception:  # noqa: BLE001 - onnxruntime's own exception types: the caller makes the session as usual
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class OrtRunner:
    """One onnxruntime session for one model; ``run`` takes and returns numpy arrays (bfloat16 included)."""

    def __init__(self, model_bytes: bytes, provider: str = "CPUExecutionProvider", opt_level: str = "all", threads: int = 1,
                 optimized: bool = False):
        """``threads``: intra-op threads (validate: 1, or the idle cores for a big spec; run MODEL: 0, onnxruntime's
        own default). ``optimized``: ``model_bytes`` are ``optimized_offline``'s at ``opt_level`` (CPU provider
        only): the session is made without optimizing them again."""
        if optimized and provider != "CPUExecutionProvider":
            raise ValueError(f"an offline-optimized model is for the CPU provider, not {provider}")
        # 0 threads: one per physical core
        options = _session_options(provider, "disabled" if optimized else opt_level, max(0, threads))
        self.provider = provider
        self.placement = None  # with a non-CPU provider, after the first run: (every node's Placement, allowed CPU nodes)
        self._placement_error = None
        self._profile_dir = None
        providers = [provider]
        if provider != "CPUExecutionProvider":
            # onnxruntime may place nodes on the CPU (shape computations by design, others for want of a kernel):
            # the first run is profiled and a compute node on the CPU fails it (converter/runners/placement.py).
            providers.append("CPUExecutionProvider")
            self._profile_dir = tempfile.mkdtemp(prefix="spec2onnx-profile-")
            self._model_bytes = model_bytes
            with _PROFILE_PREFIX:  # (the session copies the options when it is made)
                options.profile_file_prefix = os.path.join(self._profile_dir, "ort")
                self.session = ort.InferenceSession(model_bytes, sess_options=options, providers=providers)
        else:
            self.session = ort.InferenceSession(model_bytes, sess_options=options, providers=providers)
        self._outputs = [(o.name, o.type, o.shape) for o in self.session.get_outputs()]
        self._names = [name for name, _, _ in self._outputs]
        self._bits_outputs = any(t in _BITS for _, t, _ in self._outputs)  # (bfloat16, float8: _run_bound)

    def _after_run(self) -> None:
        """After the first run on a non-CPU provider: where onnxruntime placed each node (a RuntimeError when a
        compute node ran on the CPU)."""
        if self._profile_dir is not None:
            self._check_placement()
        if self._placement_error:
            raise RuntimeError(self._placement_error)

    def _check_placement(self) -> None:
        # a CPU session needs neither, and run MODEL starts one before onnx is imported (converter/model/start.py)
        import onnx

        from .placement import describe, judge, read_profile  # start-up time: placement imports onnx

        path = self.session.end_profiling()
        try:
            placements = read_profile(path)
        finally:
            shutil.rmtree(self._profile_dir, ignore_errors=True)
            self._profile_dir = None
        bad, allowed = judge(placements, lambda: onnx.load_model_from_string(self._model_bytes), self.provider)
        self.placement = (placements, allowed)
        if bad:
            also = f"; shape-only nodes onnxruntime puts on the CPU by design (allowed): {describe(allowed)}" if allowed else ""
            self._placement_error = (f"{len(bad)} compute nodes ran on the CPU, not on {self.provider}: "
                                     f"{describe(bad)}{also}")

    def run(self, feeds: dict[str, np.ndarray], out=None) -> dict[str, np.ndarray]:
        """The outputs of ``feeds``. ``out(name, dtype, shape)``: a writable C-contiguous array for an output whose
        declared shape is fixed (or None): onnxruntime writes the output there (run MODEL: memory its parent maps,
        converter/model/start.py, so that a big output is neither copied nor pickled back)."""
        arrays = {name: np.require(array, requirements="C") for name, array in feeds.items()}  # (ascontiguousarray
        # makes a rank-0 feed shape [1])
        plain = not self._bits_outputs and not any(a.dtype in _BITS_OF for a in arrays.values())
        if out is not None and plain and not any(a.dtype.kind in "OSU" for a in arrays.values()) and \
                all(t in _NUMPY_TYPES for _, t, _ in self._outputs):  # (I/O binding takes no string tensor)
            bound = self._run_into(arrays, out)
            if bound is not None:
                return bound
        if plain:
            # session.run: a third of the I/O binding's cost per run (18 against 54 us a small case), same kernels;
            # also the one way for string tensors, which I/O binding refuses ("Only binding non-string Tensors")
            values = self.session.run(self._names, arrays)
            self._after_run()
            return {name: np.asarray(value) for name, value in zip(self._names, values)}
        return self._run_bound(arrays)

    def _run_into(self, feeds: dict[str, np.ndarray], out) -> dict[str, np.ndarray]:
        """``run`` with every output of a fixed declared shape bound to the array ``out`` gives for it (the others
        allocated by onnxruntime, as session.run does); None where onnxruntime refuses the run so (a declared
        shape the output does not have): ``run`` then runs it as without ``out``, which gives the output as
        computed, or raises what is wrong with the model."""
        binding = self.session.io_binding()
        for name, array in feeds.items():
            binding.bind_cpu_input(name, array)
        given = {}
        for name, type_str, shape in self._outputs:
            fixed = all(isinstance(d, int) and d >= 0 for d in shape)
            buffer = out(name, np.dtype(_NUMPY_TYPES[type_str]), tuple(shape)) if fixed else None
            if buffer is not None:
                binding.bind_ortvalue_output(name, ort.OrtValue.ortvalue_from_numpy(buffer))
                given[name] = buffer
            else:
                binding.bind_output(name)
        try:
            self.session.run_with_iobinding(binding)
        except Exception:  # noqa: BLE001 - onnxruntime's own exception types: run again without the buffers
            return None
        self._after_run()
        values = binding.get_outputs()  # in the order the outputs were bound
        return {name: given[name] if name in given else value.numpy()
                for (name, _, _), value in zip(self._outputs, values)}

    def _run_bound(self, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """onnxruntime hands bfloat16 and float8 neither to numpy nor from it (_BITS): bound OrtValues over buffers of
        their bits instead, viewed as ml_dtypes' types."""
        binding = self.session.io_binding()
        for name, array in feeds.items():
            if array.dtype in _BITS_OF:
                bits, onnx_type = _BITS_OF[array.dtype]
                binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy_with_onnx_type(
                    array.view(bits), onnx_element_type=onnx_type))
            else:
                binding.bind_cpu_input(name, array)
        buffers = {}  # output -> (its buffer, or None where onnxruntime allocates it; ml_dtypes' type)
        for name, type_str, shape in self._outputs:
            if type_str in _BITS and all(isinstance(d, int) for d in shape):
                numpy, bits, onnx_type = _BITS[type_str]  # onnxruntime writes into a buffer of the bits' type
                buffer = np.empty([int(d) for d in shape], bits)
                binding.bind_ortvalue_output(name, ort.OrtValue.ortvalue_from_numpy_with_onnx_type(
                    buffer, onnx_element_type=onnx_type))
                buffers[name] = (buffer, numpy)
            elif type_str in _BITS:  # a dynamic shape: onnxruntime allocates it in CPU memory, read below
                binding.bind_output(name, "cpu")
                buffers[name] = (None, _BITS[type_str][0])
            else:
                binding.bind_output(name)
        self.session.run_with_iobinding(binding)
        self._after_run()
        values = binding.get_outputs()  # in the order the outputs were bound
        out = {}
        for (name, type_str, _), value in zip(self._outputs, values):
            if name not in buffers:
                out[name] = value.numpy()
                continue
            buffer, numpy = buffers[name]
            out[name] = (buffer if buffer is not None else _bits_copy(value, _BITS[type_str][1])).view(numpy)
        return out


def _bits_copy(value, bits: np.dtype) -> np.ndarray:
    """The elements of a CPU OrtValue as their bits (``bits``: uint16 for bfloat16, uint8 for float8: OrtValue.numpy()
    has no numpy type for them), copied."""
    shape = [int(d) for d in value.shape()]
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.empty(shape, bits)
    kind = ctypes.c_uint16 if bits.itemsize == 2 else ctypes.c_uint8
    return np.ctypeslib.as_array((kind * count).from_address(value.data_ptr())).reshape(shape).copy()
