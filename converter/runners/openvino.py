"""OpenVINO as a runner: it reads the ONNX model and runs it on its CPU plugin (optional extra:
``pip install "spec2onnx[openvino]"``; imported on first use)."""

from __future__ import annotations

import functools
import itertools
import os
import tempfile

import ml_dtypes
import numpy as np

from ..dtypes import BFLOAT16

Feeds = dict[str, np.ndarray]
# the element types numpy holds only through ml_dtypes, which OpenVINO takes and gives as their bits: ml_dtypes'
# name -> (ov.Type's name, the bits' type); OpenVINO's f8e4m3 is OCP's E4M3, ONNX's float8e4m3fn (no infinity)
_BITS = {"bfloat16": ("bf16", np.uint16), "float8_e4m3fn": ("f8e4m3", np.uint8), "float8_e5m2": ("f8e5m2", np.uint8)}
_NUMPY_OF = {"bf16": BFLOAT16.numpy, "f8e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
             "f8e5m2": np.dtype(ml_dtypes.float8_e5m2)}  # ov.Type.get_type_name() -> numpy type


def runner(model_bytes: bytes):
    import openvino as ov

    core = ov.Core()
    fd, path = tempfile.mkstemp(suffix=".onnx")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(model_bytes)
        model = core.read_model(path)
    finally:
        os.unlink(path)
    # f32 precision: the CPU plugin would otherwise pick bf16 or f16 on CPUs that have them.
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    graph_inputs, graph_outputs = _graph_io(model_bytes)
    # Which graph input each input port is (an input the frontend dropped, an empty ReduceSum axes or an input nothing
    # reads, has no port: it is not fed), and which graph output each output port is: fed and read by port, never by
    # a name the port may have lost.
    bound = bind_inputs([_port(port) for port in compiled.inputs], graph_inputs)
    names = output_names([set(port.get_names()) for port in compiled.outputs],
                         [port.get_any_name() for port in compiled.outputs], graph_outputs)
    outputs = list(zip(compiled.outputs, names))

    def run(feeds: Feeds) -> Feeds:
        inputs = {}
        for index, name in bound.items():
            if name not in feeds:  # (never run on memory nobody wrote, as OpenVINO does with an input left unset)
                raise RuntimeError(f"no value given for the model's input {name!r}")
            array = feeds[name]
            if array.dtype.name in _BITS:  # bfloat16, float8: an OpenVINO tensor of that type, filled with the bits
                type_name, bits = _BITS[array.dtype.name]
                inputs[index] = ov.Tensor(getattr(ov.Type, type_name), array.shape)
                inputs[index].data.view(bits)[...] = array.view(bits)
            else:
                inputs[index] = writeable(array)
        result = compiled(inputs)
        out = {}
        for port, names in outputs:
            value = result[port]
            numpy = _NUMPY_OF.get(port.get_element_type().get_type_name())
            if numpy is not None:  # (OpenVINO hands bf16 and f8 over as their bits)
                value = np.asarray(value).view(_BITS[numpy.name][1]).view(numpy)
            for name in names:
                out[name] = np.asarray(value)
        return out

    return run


def writeable(array: np.ndarray) -> np.ndarray:
    """``array``, or a copy where it is read-only: OpenVINO's infer (share_inputs) refuses a read-only 0-d array
    ("array is not writeable"), as the arrays of a --load-inputs test_data_set folder are (np.frombuffer)."""
    return array if array.flags.writeable else np.array(array)


Port = tuple  # (its names, its numpy dtype or None, its rank or None)


def _port(port) -> Port:
    try:
        dtype = np.dtype(port.get_element_type().to_dtype())
    except Exception:  # noqa: BLE001 - a type numpy has no name for (bf16, dynamic)
        dtype = None
    shape = port.get_partial_shape()
    return set(port.get_names()), dtype, shape.rank.get_length() if shape.rank.is_static else None


def bind_inputs(ports: list[Port], graph_inputs: list[Port]) -> dict[int, str]:
    """``{input port index: the graph input it is}``, from each port's names, dtype and rank and the graph inputs'.

    A port whose names hold a graph input's name is that input. A port without one was renamed by OpenVINO's ONNX
    frontend: a graph input that a Dropout or an Identity hands straight to an output becomes a Parameter named after
    the output (onnx's node test test_dropout_default: input x arrives as port 'y'; fed by name, it was not fed at all,
    and OpenVINO computed on memory nobody wrote, with no error). The frontend makes its Parameters in the graph's
    input order, some left out (an input nothing reads: Dropout's ratio), so the ports left are an ordered selection
    of the inputs left: the one selection whose dtypes and ranks agree is taken. Where none or several do, which is
    which cannot be told: a RuntimeError (an ERROR for the runtime) rather than a guess."""
    bound: dict[int, str] = {}
    for index, (names, _, _) in enumerate(ports):
        found = next((name for name, _, _ in graph_inputs if name in names), None)
        if found is not None:
            bound[index] = found
    ports_left = [index for index in range(len(ports)) if index not in bound]
    if not ports_left:
        return bound
    inputs_left = [given for given in graph_inputs if given[0] not in bound.values()]

    def agree(port: Port, given: Port) -> bool:
        return all(a is None or b is None or a == b for a, b in zip(port[1:], given[1:]))

    choices = [chosen for chosen in itertools.combinations(inputs_left, len(ports_left))
               if all(agree(ports[i], given) for i, given in zip(ports_left, chosen))]
    if len(choices) != 1:
        raise RuntimeError(f"OpenVINO renamed the input ports {[sorted(ports[i][0]) for i in ports_left]}: which of the "
                           f"inputs {[given[0] for given in inputs_left]} each is cannot be told ({len(choices)} fit)")
    bound.update((i, given[0]) for i, given in zip(ports_left, choices[0]))
    return bound


def output_names(port_names: list[set[str]], any_names: list[str], graph_outputs: list[str]) -> list[list[str]]:
    """The graph outputs each output port is. The frontend makes a Result per graph output in the graph's order (over
    1,700 of onnx's test models: always): with as many ports as outputs, port i is output i, whatever its names (x ->
    Relu r -> Dropout d with r and d both outputs, as run --mark-all makes them: two ports, both named d; r was left
    out). Otherwise by name: a port holds every name of its tensor (``get_any_name`` may give an inner one of an
    inlined function's body, RotaryEmbedding's expanded graph: ``..._YTransposed`` for ``output``)."""
    if len(port_names) == len(graph_outputs):
        return [[name] for name in graph_outputs]
    return [sorted(n for n in names if n in graph_outputs) or [any_name]
            for names, any_name in zip(port_names, any_names)]


def _graph_io(model_bytes: bytes) -> tuple[list[Port], list[str]]:
    """The model's graph inputs in order, each ``(name, numpy dtype or None, rank or None)`` (its initializers left
    out: OpenVINO makes no Parameter of them), and its graph outputs' names (onnx's parse of the bytes OpenVINO read)."""
    from onnx import ModelProto, helper

    graph = ModelProto.FromString(model_bytes).graph
    initializers = {t.name for t in graph.initializer}
    inputs = []
    for given in graph.input:
        if given.name in initializers:
            continue
        tensor = given.type.tensor_type
        try:
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type)) if tensor.elem_type else None
        except Exception:  # noqa: BLE001 - a type numpy has no name for
            dtype = None
        inputs.append((given.name, dtype, len(tensor.shape.dim) if tensor.HasField("shape") else None))
    return inputs, [o.name for o in graph.output]


# float32 values whose bfloat16 rounding tells round-to-nearest-even from what OpenVINO's CPU plugin does without
# avx512_core: ov::intel_cpu::bfloat16_t(float) is (bits + ((bits & 0x10000) >> 1)) >> 16 (it rounds up only when the
# kept last bit is odd: truncation when it is even), openvinotoolkit/openvino src/plugins/intel_cpu/src/utils/
# bfloat16.hpp, used by cpu_convert.cpp's ConvertPrecision<float, bfloat16_t>; with avx512_core its jit converter
# rounds to nearest even (jit_uni_vcvtneps2bf16). 3 + 0.75 * 2^-6: nearest even 3.015625, that rule 3.0.
BF16_PROBE = np.array([3.01171875, -3.01171875, 1.01171875, 1.0 + 2**-8 + 2**-20], np.float32)


@functools.lru_cache(maxsize=None)
def rounds_bfloat16_to_nearest_even() -> bool:
    """Whether OpenVINO's CPU plugin, on this machine, rounds float32 results to bfloat16 to nearest even (a Cast
    f32 -> bf16 of BF16_PROBE, compiled as runner() compiles models). Asked once per process."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.BFLOAT16)], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(BF16_PROBE)])],
                              [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [len(BF16_PROBE)])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    got = runner(model.SerializeToString())({"x": BF16_PROBE})["y"]
    return bool(np.array_equal(got.view(np.uint16), BF16_PROBE.astype(BFLOAT16.numpy).view(np.uint16)))
