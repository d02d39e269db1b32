"""Lowering of validated layers to ONNX. Each module registers one layer family by name."""

from . import dequantize, elementwise, resize, scale  # noqa: F401  (explicit registration: dml.DequantizeLinear, trt.ElementWise, trt.Resize, trt.Scale)

__all__ = ["build_model", "ir_version_for"]


def __getattr__(name: str):
    """``build_model`` and ``ir_version_for`` (lowering/model.py), imported on first use: loading a spec imports
    this package to register the kinds, and a validation whose lowered models are cached builds none (issue 34)."""
    if name in __all__:
        from . import model  # start-up time: the model builder imports onnx and the static check's modules

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
