"""The tools for any ONNX file: check, run, reduce, and a model's inputs."""
