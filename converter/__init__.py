"""spec2onnx: lower TensorRT / DirectML layer specs to ONNX and validate them on real runtimes."""

__version__ = "0.1.0"
