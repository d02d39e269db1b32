"""spec2onnx: lower TensorRT / DirectML layer specs to ONNX and validate them on real runtimes.

The public API (documented in each name's docstring and in the README, "Python API")::

    import spec2onnx

    spec = spec2onnx.load_spec("my.yaml")          # or a dict with the same structure
    spec2onnx.convert(spec, "my.onnx", target="ort-cpu")
    report = spec2onnx.validate(spec)              # report.ok, report.results, report.summary()
    spec2onnx.check(spec, target="tensorrt")       # a static check: CheckReport(problems=...)

    net = spec2onnx.trt.Network()                  # TensorRT's Python network API for Scale,
    ...                                            # ElementWise and Resize (see spec2onnx.trt)
    desc = spec2onnx.dml.dequantize_linear(...)    # a DirectML operator descriptor (spec2onnx.dml)

Installed, this folder is the package ``spec2onnx``; in a source checkout it is ``converter``,
and ``spec2onnx`` is made another name of it (one copy of the library: see ``_alias``).
Names are imported on first use, so that importing a submodule (e.g. the numpy references)
does not import onnx or onnxruntime.
"""

import sys as _sys
import types as _types

__version__ = "0.1.0"

_PUBLIC = {  # name -> the submodule that defines it
    "load_spec": "public", "convert": "public", "validate": "public", "check": "public", "plain_data": "public",
    "Conversion": "public", "ValidationReport": "public", "CheckReport": "public",
    "Spec": "spec", "Case": "spec", "CaseResult": "validate", "Tolerance": "compare",
    "Spec2OnnxError": "errors", "UserError": "errors", "SpecError": "errors", "InternalError": "errors",
}
_SUBMODULES = ("trt", "dml")

__all__ = ["__version__", *_PUBLIC, *_SUBMODULES]


def __getattr__(name: str):
    import importlib

    if name in _PUBLIC:
        value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(_types.ModuleType):
    """Keeps a public function when a submodule of the same name is imported (``validate``).

    Importing ``.validate`` would otherwise replace the function ``validate`` with the module on the
    package. The module stays reachable as ``from .validate import X`` (and in ``sys.modules``).
    """

    def __setattr__(self, name, value):
        if name in _PUBLIC and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


if __name__ != "spec2onnx":  # a source checkout: ``spec2onnx`` becomes another name of this package
    from ._alias import alias_package

    alias_package("spec2onnx", __name__)
    del alias_package
