"""A broken onnxruntime for tests/test_runtime_isolation.py: the real one, with one call sabotaged.

Put this folder on PYTHONPATH and Python imports this module at start-up (site.py's ``sitecustomize``), in
spec2onnx's process and in every child process it starts. Everything of the installed onnxruntime works as
it does, except what $FAKE_ONNXRUNTIME says:

- ``segv``:    ``get_all_opkernel_def()`` kills its process with SIGSEGV (onnxruntime-gpu 1.31.1 on a GPU machine)
- ``raise``:   ``get_all_opkernel_def()`` raises "CUDA failure 100" (onnxruntime-gpu 1.31.1 without a GPU)
- ``hang``:    ``get_all_opkernel_def()`` never returns
- ``garbage``: ``get_all_opkernel_def()`` prints a malformed answer in spec2onnx's child protocol and exits 0
- ``count``:   ``get_all_opkernel_def()`` works
- ``session-segv``: an ``InferenceSession`` of a model holding a node named ``crash_me`` dies of SIGSEGV

Every call of ``get_all_opkernel_def()`` first appends a line to $FAKE_ONNXRUNTIME_LOG (if set): the tests
count them. Since the sabotaged function is also in spec2onnx's own process, a command that called it there
would die: the tests prove it is only called in a child.
"""

import importlib.abc
import importlib.machinery
import os
import signal
import sys
import time

MODE = os.environ.get("FAKE_ONNXRUNTIME", "")
STATE = "onnxruntime.capi.onnxruntime_pybind11_state"


def _log(what: str) -> None:
    path = os.environ.get("FAKE_ONNXRUNTIME_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()} {what}\n")


def _registry(real):
    def get_all_opkernel_def():
        _log("get_all_opkernel_def")
        if MODE == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if MODE == "raise":
            raise RuntimeError("/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_call.cc:129 CUDA failure 100: "
                               "no CUDA-capable device is detected ; GPU=-1 ; expr=cudaSetDevice(info_.device_id);")
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "garbage":
            sys.stdout.write('\x1es2o-answer {"stage": "registry", "tables": {"CPUExecutionProvider": 5}}\n')
            sys.stdout.write("\x1es2o-answer {not json\n")
            sys.stdout.flush()
            os._exit(0)
        return real()

    return get_all_opkernel_def


def _sessions(real):
    class InferenceSession(real):
        def __init__(self, model, *args, **kwargs):
            if isinstance(model, bytes) and b"crash_me" in model:
                _log("InferenceSession crash_me")
                os.kill(os.getpid(), signal.SIGSEGV)
            super().__init__(model, *args, **kwargs)

    return InferenceSession


class _Patching(importlib.abc.Loader):
    def __init__(self, loader, patch):
        self.loader, self.patch = loader, patch

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        self.patch(module)


def _patch_state(module):
    module.get_all_opkernel_def = _registry(module.get_all_opkernel_def)


def _patch_package(module):
    module.InferenceSession = _sessions(module.InferenceSession)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        patch = {STATE: _patch_state, "onnxruntime": _patch_package if MODE == "session-segv" else None}.get(name)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Patching(spec.loader, patch)
        return spec


if MODE:
    sys.meta_path.insert(0, _Finder())
