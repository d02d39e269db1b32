"""TensorRT-style sample scripts, written as NVIDIA's Python samples are (samples/python/network_api_pytorch_mnist),
that differ from a TensorRT script only in their import line. tests/test_trt_samples.py runs them."""
