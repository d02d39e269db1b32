"""Reading untrusted ONNX files: bounded bytes, structure, external data."""
