#
# An IResizeLayer with every property TensorRT's Python API has, set to values spec2onnx supports
# (exclude_outside only as False, TensorRT's default). A TensorRT script; the one change is the import line.
#

import spec2onnx.trt as trt  # was: import tensorrt as trt

TRT_LOGGER = trt.Logger(trt.Logger.WARNING)


class ModelData(object):
    INPUT_NAME = "feature"
    INPUT_SHAPE = (1, 1, 2, 2)
    OUTPUT_NAME = "upsampled"
    DTYPE = trt.float32


def populate_network(network):
    input_tensor = network.add_input(name=ModelData.INPUT_NAME, dtype=ModelData.DTYPE, shape=ModelData.INPUT_SHAPE)

    resize = network.add_resize(input=input_tensor)
    resize.name = "upsample"
    resize.scales = [1.0, 1.0, 2.0, 2.0]
    resize.resize_mode = trt.InterpolationMode.LINEAR
    resize.coordinate_transformation = trt.ResizeCoordinateTransformation.HALF_PIXEL
    resize.selector_for_single_pixel = trt.ResizeSelector.UPPER
    resize.nearest_rounding = trt.ResizeRoundMode.HALF_DOWN  # NEAREST only
    resize.cubic_coeff = -0.5  # CUBIC only
    resize.exclude_outside = False  # CUBIC only

    resize.get_output(0).name = ModelData.OUTPUT_NAME
    network.mark_output(tensor=resize.get_output(0))
    return resize


def build_engine():
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network(0)
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, 1 << 28)
    populate_network(network)
    return builder.build_serialized_network(network, config)


def main(path="resize.plan"):
    plan = build_engine()
    with open(path, "wb") as f:
        f.write(plan)
    return plan


if __name__ == "__main__":
    main()
