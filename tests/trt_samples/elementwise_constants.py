#
# A chain of IElementWiseLayers with constants (add_constant): y = max(x * gain + bias, floor).
# A TensorRT script; the one change for spec2onnx is the import line.
#

import numpy as np

import spec2onnx.trt as trt  # was: import tensorrt as trt

TRT_LOGGER = trt.Logger(trt.Logger.WARNING)


class ModelData(object):
    INPUT_NAME = "x"
    INPUT_SHAPE = (1, 2, 2, 3)
    OUTPUT_NAME = "y"
    DTYPE = trt.float32


def get_weights():
    return {
        "gain": np.array([2.0, -1.0], dtype=np.float32).reshape(1, 2, 1, 1),
        "bias": np.array([1.0, 0.5, -0.5], dtype=np.float32).reshape(1, 1, 1, 3),
        "floor": np.zeros((1, 1, 1, 1), dtype=np.float32),
    }


def populate_network(network, weights):
    input_tensor = network.add_input(name=ModelData.INPUT_NAME, dtype=ModelData.DTYPE, shape=ModelData.INPUT_SHAPE)

    gain = network.add_constant(trt.Dims4(1, 2, 1, 1), trt.Weights(weights["gain"]))
    bias = network.add_constant(trt.Dims4(1, 1, 1, 3), trt.Weights(weights["bias"]))
    floor = network.add_constant((1, 1, 1, 1), weights["floor"])

    scaled = network.add_elementwise(input_tensor, gain.get_output(0), trt.ElementWiseOperation.PROD)
    scaled.name = "scaled"
    shifted = network.add_elementwise(scaled.get_output(0), bias.get_output(0), trt.ElementWiseOperation.SUM)
    shifted.name = "shifted"
    clipped = network.add_elementwise(shifted.get_output(0), floor.get_output(0), trt.ElementWiseOperation.MAX)
    clipped.name = "clipped"

    clipped.get_output(0).name = ModelData.OUTPUT_NAME
    network.mark_output(tensor=clipped.get_output(0))


def build_engine(weights):
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network(0)
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, 1 << 28)
    populate_network(network, weights)
    return builder.build_serialized_network(network, config)


def main(path="elementwise.plan"):
    plan = build_engine(get_weights())
    with open(path, "wb") as f:
        f.write(plan)
    return plan


if __name__ == "__main__":
    main()
