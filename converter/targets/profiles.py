"""Each target as data: its kernel table, its known run-time limits, its lowering preferences, its sources.

A limit applies to a node when its op matches (``op``: a name, a list, or "*") and every ``when``
condition holds; it is broken when a ``require`` condition fails (a limit without ``require``
is broken whenever it applies). Conditions (see converter/targets/limits.py):

  when:    attr {name: [values]}, attr_gt {name: n}, attr_present [names] (set on the node, any value),
           attr_nonempty [names] (a list attribute with at least one entry), not_constant [inputs] (given, and not
           a constant), types {constraint: [types]}, types_any [types]
  require: rank [ranks of input 0], one_element [inputs] (absent, or of one element), unscaled {rank: [[axes], ...]} (output dims equal input dims on
           one of the axis sets), attr {name: [values]}, types {constraint: [types]}, same_types [inputs],
           zero_input i (absent, or a constant of zeros), io_only [types] (such tensors only as graph
           inputs or outputs), locale name (the locale that attribute names, or onnxruntime's default, is
           installed on this machine: converter/targets/machine.py; where it cannot be asked, a warning)

``at_load``: the runtime refuses the model when it loads it (schema validation), before any kernel lookup or
function expansion. ``severity`` is "error" (the node does not run there) or "warning" (it runs, but its results are
known to differ from ONNX's: the node still counts as running).
"""

from __future__ import annotations

UPSAMPLEBASE = "microsoft/onnxruntime onnxruntime/core/providers/cpu/tensor/upsamplebase.h (ScalesValidation; shared by the CPU and CUDA Resize)"
CUDA_NOTES = "onnxruntime CUDA EP source notes (the project's ort-cuda-notes.md)"

# onnxruntime's Resize checks, the same for the CPU and the CUDA kernels.
ORT_RESIZE = [
    {"op": "Resize", "when": {"attr": {"mode": ["linear"]}},
     "require": {"rank": [2, 3, 4, 5], "unscaled": {"4": [[0, 1], [0, 3]], "5": [[0, 1]]}},
     "why": "'Linear' mode only supports 2-D or 3-D inputs, or 4-D and 5-D inputs whose outermost 2 scales are 1",
     "source": UPSAMPLEBASE},
    {"op": "Resize", "when": {"attr": {"mode": ["cubic"]}},
     "require": {"rank": [2, 4], "unscaled": {"4": [[0, 1]]}},
     "why": "'Cubic' mode only supports 2-D inputs or 4-D inputs whose outermost 2 scales are 1",
     "source": UPSAMPLEBASE},
    {"op": "Resize", "when": {"attr": {"exclude_outside": [1], "mode": ["nearest"]}},
     "why": "exclude_outside=1 needs mode cubic (or linear with antialias)", "source": UPSAMPLEBASE},
    {"op": "Resize", "when": {"attr": {"exclude_outside": [1], "mode": ["linear"], "antialias": [0]}},
     "why": "exclude_outside=1 needs mode cubic (or linear with antialias)", "source": UPSAMPLEBASE},
    {"op": "Resize", "when": {"attr": {"antialias": [1], "mode": ["nearest"]}},
     "why": "anti-aliasing needs mode linear or cubic", "source": UPSAMPLEBASE},
]

# Shown by onnxruntime 1.31.1 on onnx's node test cases (tools/ground_truth.py); the file:line is the one
# the runtime's own error names (its build of microsoft/onnxruntime rel-1.31.1).
ORT_1_31 = "onnxruntime 1.31.1 CPU on onnx 1.23.2's node test cases (docs/ground-truth.md)"
ORT_KERNEL_LIMITS = [
    {"op": "RNN", "when": {"attr": {"layout": [1]}},
     "why": "onnxruntime's RNN kernel enforces layout == 0: 'Batchwise recurrent operations (layout == 1) are not supported'",
     "source": "onnxruntime/core/providers/cpu/rnn/rnn.h:48 (RNN constructor), " + ORT_1_31},
    {"op": "GRU", "when": {"attr": {"layout": [1]}},
     "why": "onnxruntime's GRU kernel enforces layout == 0: 'Batchwise recurrent operations (layout == 1) are not supported'",
     "source": "onnxruntime/core/providers/cpu/rnn/deep_cpu_gru.h:56 (DeepCpuGruOp constructor), " + ORT_1_31},
    {"op": "LSTM", "when": {"attr": {"layout": [1]}},
     "why": "onnxruntime's LSTM kernel enforces layout == 0: 'Batchwise recurrent operations (layout == 1) are not supported'",
     "source": "onnxruntime/core/providers/cpu/rnn/lstm_base.h:53 (LSTMBase constructor), " + ORT_1_31},
    {"op": "ConvInteger", "require": {"one_element": [3]},
     "why": "onnxruntime's ConvInteger takes a per-tensor w_zero_point only: 'Non per-tensor quantization is not supported now'",
     "source": "onnxruntime/core/providers/cpu/quantization/conv_integer.cc:52 (IsScalarOr1ElementVector(W_Zero_Point)), "
               + ORT_1_31},
    {"op": "Attention", "when": {"attr_present": ["left_window_size", "right_window_size"]}, "at_load": True,
     "onnxruntime": "1.31",  # a fact of that version's schemas: a later onnxruntime may know Attention-25
     "why": "onnxruntime 1.31 knows Attention up to version 24, which has no left_window_size/right_window_size "
            "(onnx 1.23's Attention-25 added them): 'Unrecognized attribute' when the model loads", "source": ORT_1_31},
    # the machine's own locales (converter/targets/machine.py asks glibc as libstdc++'s std::locale does); measured on
    # 1.31.1 and 1.32.0 alike: the locale is built at load for a case change, and for stopwords compared without case
    # (is_case_sensitive=0), never for NONE without stopwords; "C", "POSIX", "C.UTF-8" and "" (the environment's) load
    *({"op": "StringNormalizer", "when": when, "require": {"locale": "locale"},
       "why": "onnxruntime builds a std::locale to " + what + ": the session fails to load where that locale is not "
              "installed ('Failed to construct locale')",
       "source": "onnxruntime/core/providers/cpu/text/string_normalizer.cc:235 (Locale), " + ORT_1_31 + "; 1.32.0 alike"}
      for when, what in (({"attr": {"case_change_action": ["LOWER", "UPPER"]}}, "change case"),
                         ({"attr": {"case_change_action": ["NONE"], "is_case_sensitive": [0]}, "attr_nonempty": ["stopwords"]},
                          "compare stopwords without case"))),
]

ORT_CUDA = [
    {"op": "BatchNormalization", "require": {"rank": [1, 2, 3, 4, 5]},
     "why": "run-time error on CUDA: 'Input dim size should be < 6 for BatchNorm' (measured on an H100, 2026-11-23)",
     "source": "onnxruntime cpu/nn/batch_norm_helper.h NormalizeDims, " + CUDA_NOTES + " (c)"},
    {"op": "BatchNormalization", "require": {"same_types": [0, 1, 2, 3, 4]},
     "why": "the CUDA kernel binds scale, B, mean and var to X's type", "source": CUDA_NOTES + " (c)"},
    {"op": "DequantizeLinear", "when": {"attr_gt": {"block_size": 0}}, "require": {"types": {"T1": ["int4", "uint4"]}},
     "why": "blocked DequantizeLinear on CUDA handles int4/uint4 only: 'Unsupported quantization type' at run time "
            "(measured on an H100, 2026-11-23)",
     "source": "onnxruntime cuda/tensor/quantize_linear.cc, " + CUDA_NOTES + " (a)"},
    {"op": "Resize", "when": {"attr": {"antialias": [1]}}, "require": {"rank": [2, 3, 4, 5], "unscaled": {"4": [[0, 1]], "5": [[0, 1]]}},
     "why": "CUDA anti-aliased Resize is NCHW only ('NHWC is not supported yet')", "source": CUDA_NOTES + " (b)"},
]

# The Resize modes and the Q/DQ zero points of docs/operators.md's prose are not here: the importer's own
# conditions (converter/targets/tensorrt_rules.py, each citing its line of onnxOpImporters.cpp) replace them
# (the prose lists nearest/linear only; the importer maps "cubic" to kCUBIC).
TENSORRT = [
    {"op": "*", "when": {"types_any": ["uint8"]}, "require": {"io_only": ["uint8"]},
     "why": "TensorRT supports UINT8 only as a network input or output type", "source": "onnx/onnx-tensorrt docs/operators.md"},
]

OV = "the bundled suite's known failures on OpenVINO 2026.4's CPU plugin (specs/*: xfail runtime openvino)"
_OV_ARITH = ["Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Pow", "Neg", "Abs", "Sum", "Clip"]
OPENVINO = [
    {"op": _OV_ARITH, "when": {"types": {"T": ["int64", "uint32", "uint64"]}}, "severity": "warning",
     "why": "OpenVINO's CPU plugin computes 64-bit integers in int32 (it lowers i64 precision): values wrap at 32 bits",
     "source": OV},
    {"op": "Div", "when": {"types": {"T": ["int32"]}}, "severity": "warning",
     "why": "OpenVINO's CPU plugin divides int32 through float32, inexact above 2^24", "source": OV},
    {"op": ["Max", "Min"], "when": {"types": {"T": ["float", "float16", "bfloat16", "double"]}}, "severity": "warning",
     "why": "OpenVINO's Maximum/Minimum return the other operand when one is NaN (like C fmax); ONNX propagates NaN",
     "source": OV},
    # OpenVINO's CPU plugin takes no node with an input or output of dynamic rank (src/plugins/intel_cpu/src/node.cpp,
    # Node::Node: "CPU plug-in doesn't support ... operation with dynamic rank"); a reduction's output rank is dynamic
    # when its axes are not a constant, keepdims is 0 and the axes are not of exactly one element (OpenVINO's
    # src/core/shape_inference/include/reduce_shape_inference.hpp: one axis is "unique by definition", more may repeat)
    {"op": ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
            "ReduceLogSumExp", "ReduceSumSquare"], "when": {"attr": {"keepdims": [0]}, "not_constant": [1]},
     "require": {"one_element": [1]},
     "why": "OpenVINO's CPU plugin takes no operation of dynamic rank, and a reduction whose axes are not a constant "
            "has a dynamic output rank unless keepdims=1 or the axes are one element",
     "source": "openvinotoolkit/openvino src/plugins/intel_cpu/src/node.cpp (Node::Node) and "
               "src/core/shape_inference/include/reduce_shape_inference.hpp; measured with OpenVINO 2026.4.1 "
               "(test_reduce_log_sum_asc_axes_expanded: axes [2] refused, test_reduce_sum_do_not_keepdims_example: [1] runs)"},
    # a node that rounds its float32 result to bfloat16 (a Cast to it; arithmetic in it, computed in float32 there)
    *({"op": ops, "when": {"types": {constraint: ["bfloat16"]}}, "severity": "warning",
       "why": "on a CPU without avx512_core, OpenVINO's CPU plugin rounds a float32 result to bfloat16 with (bits + "
              "((bits & 0x10000) >> 1)) >> 16, not to nearest even: when the kept last bit is even it truncates, so a "
              "result can be one bfloat16 step towards zero (3 + 0.75 * 2^-6 gives 3); with avx512_core it rounds to "
              "nearest even",
       "source": "openvinotoolkit/openvino src/plugins/intel_cpu/src/utils/bfloat16.hpp (bfloat16_t::round_to_nearest_even) "
                 "and src/plugins/intel_cpu/src/nodes/common/cpu_convert.cpp (jit_uni_vcvtneps2bf16 only with "
                 "avx512_core); measured with OpenVINO 2026.4.1 on an AVX2-only AMD EPYC (tests/test_runner.py)"}
      for ops, constraint in (([*_OV_ARITH, "Reciprocal", "Sqrt", "BatchNormalization", "MatMul", "Gemm"], "T"),
                              (["Cast", "CastLike"], "T2"), (["Resize"], "T1"))),
]

# TensorRT's per-tensor limits, checked on every tensor of a model (declared or inferred static shapes):
# nvinfer1::ITensor: "The volume of the tensor must be less than 2^31 elements" (TensorRT C++ API,
# docs.nvidia.com/deeplearning/tensorrt/api/c_api/classnvinfer1_1_1_i_tensor.html); Dims64::MAX_DIMS = 8,
# "the maximum rank (number of dimensions) supported for a tensor" (classnvinfer1_1_1_dims64.html).
TENSORRT_TENSORS = {"elements": 2**31 - 1, "rank": 8,
                    "why_elements": "TensorRT tensors hold fewer than 2^31 elements (nvinfer1::ITensor)",
                    "why_rank": "TensorRT tensors have at most 8 dimensions (nvinfer1::Dims64::MAX_DIMS)"}

# Lowering preferences (read by the lowerings through ctx.target.preferences).
#   scale_batchnorm: fuse a Scale's scale and shift into one BatchNormalization (CPU: 0.11 of the naive time,
#                    README). Only where it is measured bit-identical to multiply-then-add: onnxruntime's CPU
#                    kernel rounds the product and the sum separately (tests/lowering/test_scale_lowering.py);
#                    another runtime may fuse them (FMA). CUDA: also slower than Mul+Add (0.247 against 0.122 ms, H100)
# onnxruntime 1.31.1 (the kernel tables' version) loads models up to opset 26: InferenceSession refuses a
# one-node model at 27 and 28, which onnx 1.23 writes (probed by converter/opset.py newest_loadable_opset).
ORT_MAX_OPSET = 26
ORT_TABLES_VERSION = "1.31.1"  # the committed ort-cpu table's onnxruntime (tables/ort-cpu.json)
# ... and models up to IR version 13: "Unsupported model IR version: 14, max supported IR version: 13"
# (onnxruntime/core/graph/model.cc, Model::Model; measured with 1.31.1; 1.32.0 loads 14:
# with an onnxruntime installed, its own limit is probed, opset.newest_loadable_ir). onnx 1.23's helper.make_model writes IR 14
# by default, so a model made without ir_version= is refused (tests/test_check_untrusted.py).
ORT_MAX_IR_VERSION = 13

# What every onnxruntime target shares, whatever its execution provider, written once: onnxruntime's graph
# loading happens before any execution provider sees the graph. constants_folded: every Constant node becomes an
# initializer (onnxruntime/core/graph/graph.cc, Graph::Graph: "Constant nodes are converted to initializers"), so
# no EP needs a Constant kernel (DirectML's table has none, and neither does the CPU EP's registry); max_opset and
# max_ir_version: the newest opset and IR version that onnxruntime loads (model.cc).
ONNXRUNTIME = {"family": "onnxruntime", "constants_folded": True, "max_opset": ORT_MAX_OPSET,
               "max_ir_version": ORT_MAX_IR_VERSION}

PROFILES = {
    # float16_via_float: onnxruntime/core/optimizer/insert_cast_transformer.cc runs a float16 node that has
    # only a float CPU kernel in float, between inserted Casts (at every optimization level)
    # registry: the kernel table is the installed onnxruntime's registry, else the committed file (ort_kernels.py);
    # ONNXRUNTIME: what the onnxruntime family shares (above); functions: a node no kernel takes is expanded
    # into its ONNX function body, whose nodes are checked (converter/targets/functions.py)
    "ort-cpu": {**ONNXRUNTIME, "kernels": "ort-cpu.json", "registry": True, "functions": True,
                "limits": ORT_RESIZE + ORT_KERNEL_LIMITS, "float16_via_float": True,
                "preferences": {"scale_batchnorm": True}},
    # no "functions" for ort-cuda: with the CPU EP present, a node the CUDA EP does not take goes to the CPU
    # (if it has a CPU kernel) rather than being expanded for CUDA; not measured on a CUDA build here
    "ort-cuda": {**ONNXRUNTIME, "kernels": "ort-cuda.json", "registry": True, "limits": ORT_RESIZE + ORT_CUDA,
                 "preferences": {"scale_batchnorm": False}},
    # onnxruntime's DirectML EP: its kernel table (tables/ort-dml.json, from docs/OperatorKernels.md's DML section,
    # generated from DmlExecutionProvider/src/Operators/OperatorRegistration.cpp); checked statically only (no
    # DirectML here). Its Resize limits are not onnxruntime's CPU/CUDA ones (DML has its own kernel): none known.
    "ort-dml": {**ONNXRUNTIME, "kernels": "ort-dml.json", "limits": [], "preferences": {"scale_batchnorm": False}},
    # deployment: lowerings emit what the target's importer reads as one layer per source layer, in the source's
    # types (float16 stays float16, CUBIC is one Resize); validate runs a host-legalized copy of it on onnxruntime's
    # CPU EP (converter/legalize.py, docs/deployment.md). scale_batchnorm: BatchNormalization is IScaleLayer there.
    "tensorrt": {"matrix": "tensorrt.json", "limits": TENSORRT, "importer": True, "tensor_limits": TENSORRT_TENSORS, "deployment": True,
                 "preferences": {"scale_batchnorm": True}},
    # includes: a DLA model is parsed by onnx-tensorrt too, so lowerings legalize it for tensorrt as well
    "tensorrt-dla": {"matrix": "tensorrt.json", "limits": TENSORRT, "importer": True, "tensor_limits": TENSORRT_TENSORS, "dla": True, "includes": ["tensorrt"],
                     "deployment": True, "preferences": {"scale_batchnorm": True}},
    # measured: openvino.json lists what compiled (and what was refused); a combination never measured is a warning
    "openvino": {"kernels": "openvino.json", "measured": True, "limits": OPENVINO, "preferences": {"scale_batchnorm": False}},
    # every node must run on each of these (tensorrt-dla is not among them: DLA runs FP16/INT8 only)
    "portable": {"all_of": ["ort-cpu", "ort-cuda", "tensorrt", "openvino"], "preferences": {"scale_batchnorm": False}},
}
