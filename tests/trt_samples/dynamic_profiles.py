#
# A network with a dynamic batch and dynamic spatial dimensions, built with two optimization profiles, the way
# TensorRT's samples and developer guide ("Working with Dynamic Shapes") build dynamic-shape engines: -1 dimensions
# at add_input, min/opt/max per profile with set_shape, add_optimization_profile, build_serialized_network.
# normalize (Scale per channel), center (ElementWise with a constant, broadcast), upsample (Resize x2).
# The one change is the import line.
#

import numpy as np

import spec2onnx.trt as trt  # was: import tensorrt as trt

TRT_LOGGER = trt.Logger(trt.Logger.WARNING)


class ModelData(object):
    INPUT_NAME = "image"
    INPUT_SHAPE = (-1, 3, -1, -1)  # batch, height and width chosen at run time
    OUTPUT_NAME = "upsampled"
    DTYPE = trt.float32
    # (min, opt, max) of each optimization profile: small images in batches, large ones alone or in pairs
    PROFILES = [((1, 3, 8, 8), (2, 3, 16, 16), (4, 3, 32, 32)),
                ((1, 3, 48, 64), (1, 3, 64, 96), (2, 3, 96, 128))]


def get_weights():
    return {"shift": np.array([-1.0, 0.0, 1.0], dtype=np.float32), "scale": np.array([0.5, 1.0, 2.0], dtype=np.float32),
            "mean": np.array([0.25, -0.5, 1.0], dtype=np.float32).reshape(1, 3, 1, 1)}


def populate_network(network, weights):
    input_tensor = network.add_input(name=ModelData.INPUT_NAME, dtype=ModelData.DTYPE, shape=ModelData.INPUT_SHAPE)

    normalize = network.add_scale(input_tensor, trt.ScaleMode.CHANNEL, shift=trt.Weights(weights["shift"]),
                                  scale=trt.Weights(weights["scale"]))
    normalize.name = "normalize"

    mean = network.add_constant((1, 3, 1, 1), trt.Weights(weights["mean"]))
    center = network.add_elementwise(normalize.get_output(0), mean.get_output(0), trt.ElementWiseOperation.SUB)
    center.name = "center"

    upsample = network.add_resize(center.get_output(0))
    upsample.name = "upsample"
    upsample.scales = [1.0, 1.0, 2.0, 2.0]
    upsample.resize_mode = trt.InterpolationMode.NEAREST

    upsample.get_output(0).name = ModelData.OUTPUT_NAME
    network.mark_output(tensor=upsample.get_output(0))


def add_profiles(builder, config):
    for min_shape, opt_shape, max_shape in ModelData.PROFILES:
        profile = builder.create_optimization_profile()
        profile.set_shape(ModelData.INPUT_NAME, min_shape, opt_shape, max_shape)
        config.add_optimization_profile(profile)


def build_engine():
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, 1 << 30)
    populate_network(network, get_weights())
    add_profiles(builder, config)
    return builder.build_serialized_network(network, config)


def main(path="dynamic_profiles.plan"):
    plan = build_engine()
    with open(path, "wb") as f:
        f.write(plan)
    return plan


if __name__ == "__main__":
    main()
