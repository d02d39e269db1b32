"""spec2onnx: lower TensorRT / DirectML layer specs to ONNX and validate them on real runtimes.

The public API (documented in each name's docstring and in the README, "Python API")::

    import spec2onnx

    spec = spec2onnx.load_spec("my.yaml")          # or a dict with the same structure
    spec2onnx.convert(spec, "my.onnx", target="ort-cpu")
    report = spec2onnx.validate(spec)              # report.ok, report.results, report.summary()
    spec2onnx.check(spec, target="tensorrt")       # a static check: CheckReport(problems=...)

    net = spec2onnx.trt.INetworkDefinition()       # TensorRT's Python network API for Scale,
    ...                                            # ElementWise and Resize (see spec2onnx.trt)
    desc = spec2onnx.dml.dequantize_linear(...)    # a DirectML operator descriptor (spec2onnx.dml)

Installed, this folder is the package ``spec2onnx``; in a source checkout it is ``converter``,
and ``spec2onnx`` is made another name of it (one copy of the library: see ``_alias``).
Names are imported on first use, so that importing a submodule (e.g. the numpy references)
does not import onnx or onnxruntime.
"""

__version__ = "0.1.0"

_PUBLIC = {  # name -> the submodule that defines it
    "load_spec": "api", "convert": "api", "validate": "api", "check": "api", "plain_data": "api",
    "Conversion": "api", "ValidationReport": "api", "CheckReport": "api", "CheckRun": "api",
    "Spec": "network", "Case": "network", "CaseResult": "results", "Tolerance": "compare",
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


if __name__ != "spec2onnx":  # a source checkout: ``spec2onnx`` becomes another name of this package
    from ._alias import alias_package

    alias_package("spec2onnx", __name__)
    del alias_package
