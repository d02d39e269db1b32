#
# Image normalization with an IScaleLayer: per-channel (x - mean) / std as scale and shift trt.Weights.
# A TensorRT script; the one change for spec2onnx is the import line.
#

import numpy as np

import spec2onnx.trt as trt  # was: import tensorrt as trt

# You can set the logger severity higher to suppress messages (or lower to display more messages).
TRT_LOGGER = trt.Logger(trt.Logger.WARNING)


class ModelData(object):
    INPUT_NAME = "image"
    INPUT_SHAPE = (1, 3, 2, 2)
    OUTPUT_NAME = "normalized"
    DTYPE = trt.float32


def GiB(val):
    return val * 1 << 30


def get_weights():
    mean = np.array([128.0, 64.0, 32.0], dtype=np.float32)
    std = np.array([2.0, 4.0, 0.5], dtype=np.float32)
    return {"scale": 1.0 / std, "shift": -mean / std, "power": np.ones(3, dtype=np.float32)}


def populate_network(network, weights):
    # Configure the network layers based on the weights provided.
    input_tensor = network.add_input(name=ModelData.INPUT_NAME, dtype=ModelData.DTYPE, shape=ModelData.INPUT_SHAPE)

    normalize = network.add_scale(
        input=input_tensor,
        mode=trt.ScaleMode.CHANNEL,
        shift=trt.Weights(weights["shift"]),
        scale=trt.Weights(weights["scale"]),
        power=trt.Weights(weights["power"]),
    )
    normalize.name = "normalize"
    normalize.get_output(0).name = ModelData.OUTPUT_NAME
    network.mark_output(tensor=normalize.get_output(0))


def build_engine(weights):
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network(0)
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, GiB(1))
    # Populate the network using the weights.
    populate_network(network, weights)
    # Build and return the serialized network.
    return builder.build_serialized_network(network, config)


def main(path="normalize.plan"):
    plan = build_engine(get_weights())
    with open(path, "wb") as f:
        f.write(plan)
    return plan


if __name__ == "__main__":
    main()
