"""Lowering of validated layers to ONNX. Each module registers one layer family by name."""

from . import dequantize, elementwise, resize, scale  # noqa: F401  (explicit registration: dml.DequantizeLinear, trt.ElementWise, trt.Resize, trt.Scale)
from .model import build_model, ir_version_for

__all__ = ["build_model", "ir_version_for"]
