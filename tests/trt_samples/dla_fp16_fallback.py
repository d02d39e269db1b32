#
# A network built for DLA in FP16 with GPU fallback, as TensorRT's samples enable DLA
# (GPU_FALLBACK, FP16, default device DLA, DLA core): normalize (Scale), upsample (Resize), square (Scale
# with power 2, which DLA does not run: it falls back to the GPU). The one change is the import line.
#

import numpy as np

import spec2onnx.trt as trt  # was: import tensorrt as trt

TRT_LOGGER = trt.Logger(trt.Logger.WARNING)


class ModelData(object):
    INPUT_NAME = "image"
    INPUT_SHAPE = (1, 2, 2, 2)
    OUTPUT_NAME = "energy"
    DTYPE = trt.float32


def GiB(val):
    return val * 1 << 30


def populate_network(network):
    input_tensor = network.add_input(name=ModelData.INPUT_NAME, dtype=ModelData.DTYPE, shape=ModelData.INPUT_SHAPE)

    normalize = network.add_scale(
        input_tensor,
        trt.ScaleMode.CHANNEL,
        shift=np.array([-1.0, 2.0], dtype=np.float32),
        scale=np.array([0.5, 0.25], dtype=np.float32),
    )
    normalize.name = "normalize"

    upsample = network.add_resize(normalize.get_output(0))
    upsample.name = "upsample"
    upsample.scales = (1.0, 1.0, 2.0, 2.0)  # DLA takes scales, not output dimensions (NvInfer.h, IResizeLayer on DLA)
    upsample.resize_mode = trt.InterpolationMode.NEAREST
    upsample.coordinate_transformation = trt.ResizeCoordinateTransformation.ASYMMETRIC
    upsample.nearest_rounding = trt.ResizeRoundMode.FLOOR

    square = network.add_scale(upsample.get_output(0), trt.ScaleMode.UNIFORM, power=np.array([2.0], dtype=np.float32))
    square.name = "square"

    square.get_output(0).name = ModelData.OUTPUT_NAME
    network.mark_output(tensor=square.get_output(0))


def enable_dla(builder, config, dla_core=0):
    config.set_flag(trt.BuilderFlag.GPU_FALLBACK)
    config.set_flag(trt.BuilderFlag.FP16)
    config.default_device_type = trt.DeviceType.DLA
    config.DLA_core = dla_core


def build_engine(dla_core=0):
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network(0)
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, GiB(1))
    config.set_memory_pool_limit(trt.MemoryPoolType.DLA_MANAGED_SRAM, 1 << 20)
    enable_dla(builder, config, dla_core)

    populate_network(network)

    profile = builder.create_optimization_profile()
    shape = ModelData.INPUT_SHAPE
    profile.set_shape(ModelData.INPUT_NAME, shape, shape, shape)
    config.add_optimization_profile(profile)

    return builder.build_serialized_network(network, config)


def main(path="dla_fp16.plan"):
    plan = build_engine()
    with open(path, "wb") as f:
        f.write(plan)
    return plan


if __name__ == "__main__":
    main()
