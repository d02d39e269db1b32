"""Each target as data: its kernel table, its known run-time limits, its lowering preferences, its sources.

A limit applies to a node when its op matches (``op``: a name, a list, or "*") and every ``when``
condition holds; it is broken when a ``require`` condition fails (a limit without ``require``
is broken whenever it applies). Conditions (see converter/targets/limits.py):

  when:    attr {name: [values]}, attr_gt {name: n}, attr_nonzero [names] (an int attribute, default included, not 0),
           attr_present [names] (set on the node, any value), since_min n (the node's since-version is at least n),
           rank_gt {input: n} / rank_in {input: [ranks]} (the input is given and its rank known, above n / one of
           these), unknown_rank [inputs] (given, and its rank unknown),
           attr_nonempty [names] (a list attribute with at least one entry), not_constant [inputs] (given, and not
           a constant), types {constraint: [types]}, types_any [types], inputs_present [indices] /
           outputs_present [indices] (one of them given)
  require: rank [ranks of input 0], one_element [inputs] (absent, or of one element), unscaled {rank: [[axes], ...]} (output dims equal input dims on
           one of the axis sets), attr {name: [values]}, types {constraint: [types]}, same_types [inputs],
           zero_input i (absent, or a constant of zeros), io_only [types] (such tensors only as graph
           inputs or outputs), locale name (the locale that attribute names, or onnxruntime's default, is
           installed on this machine: converter/targets/machine.py; where it cannot be asked, a warning),
           attr_prefix {name: [values]} (a list attribute, where set, is a prefix of the values,
           case-insensitively), symmetric [names] (an ints attribute's first half equals its second: pads),
           value_kinds [kinds] (every input and output whose type is known is of these: tensor_type, sequence_type,
           optional_type, ...), dim_sum [[input, axis], [[input, axis], ...]] (that dimension is the sum of those;
           an absent input counts 0, an unknown dimension is not checked), static [inputs] (absent, or of known rank
           and every dimension known), resize_scales "scales" / "sizes" (a Resize's constant scales, or the scales
           onnxruntime computes from its constant sizes, are > 0: limits.py _resize_scales)

``at_load``: the runtime refuses the model when it loads it (schema validation), before any kernel lookup or
function expansion. ``at_run``: the runtime fails only when it runs the node (check --probe, which runs nothing, keeps
such an error beside the runtime's own answer). ``severity`` is "error" (the node does not run there) or "warning" (it runs, but its results are
known to differ from ONNX's: the node still counts as running).
"""

from __future__ import annotations

from ..installed.opset import ORT_MAX_IR_VERSION, ORT_MAX_OPSET  # the committed tables' opset and IR limits (one definition)

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
    # exclude_outside and antialias: onnxruntime reads any value but 0 as on ("== 0 ? false : true")
    {"op": "Resize", "when": {"attr_nonzero": ["exclude_outside"], "attr": {"mode": ["nearest"]}},
     "why": "exclude_outside=1 needs mode cubic (or linear with antialias)", "source": UPSAMPLEBASE},
    {"op": "Resize", "when": {"attr_nonzero": ["exclude_outside"], "attr": {"mode": ["linear"], "antialias": [0]}},
     "why": "exclude_outside=1 needs mode cubic (or linear with antialias)", "source": UPSAMPLEBASE},
    {"op": "Resize", "when": {"attr_nonzero": ["antialias"], "attr": {"mode": ["nearest"]}},
     "why": "anti-aliasing needs mode linear or cubic", "source": UPSAMPLEBASE},
    # every mode and type: ScalesValidation's first check, on constant scales when the kernel is made (the session
    # fails), on the scales computed from constant sizes (size / input length) when the node runs; measured with
    # onnxruntime 1.32.0 CPU (tests/targets/test_ort_resize_scales.py asks it on each case)
    {"op": "Resize", "require": {"resize_scales": "scales"},
     "why": "onnxruntime's Resize needs every scale > 0: 'Scale value should be greater than 0' when the session is "
            "created",
     "source": UPSAMPLEBASE + "; line 548 (ScalesValidation) as onnxruntime 1.32.0's error names it"},
    {"op": "Resize", "require": {"resize_scales": "sizes"}, "at_run": True,
     "why": "onnxruntime's Resize computes each scale from sizes as size / input length and needs it > 0 (a 0-long "
            "axis resizes to 0 only): it fails when it runs",
     "source": UPSAMPLEBASE + "; lines 548 (ScalesValidation) and 667 (ParseScalesDataAndAdjustOutputSize) as "
               "onnxruntime 1.32.0's errors name them"},
]

# Shown by onnxruntime 1.31.1 on onnx's node test cases (tools/ground_truth.py); the file:line is the one
# the runtime's own error names (its build of microsoft/onnxruntime rel-1.31.1).
ORT_1_31 = "onnxruntime 1.31.1 CPU on onnx 1.23.2's node test cases (docs/ground-truth.md)"
ORT_KERNEL_LIMITS = [
    {"op": "RNN", "when": {"attr_nonzero": ["layout"]},
     "why": "onnxruntime's RNN kernel enforces layout == 0: 'Batchwise recurrent operations (layout == 1) are not supported'",
     "source": "onnxruntime/core/providers/cpu/rnn/rnn.h:48 (RNN constructor), " + ORT_1_31},
    {"op": "GRU", "when": {"attr_nonzero": ["layout"]},
     "why": "onnxruntime's GRU kernel enforces layout == 0: 'Batchwise recurrent operations (layout == 1) are not supported'",
     "source": "onnxruntime/core/providers/cpu/rnn/deep_cpu_gru.h:56 (DeepCpuGruOp constructor), " + ORT_1_31},
    {"op": "LSTM", "when": {"attr_nonzero": ["layout"]},
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
    {"op": ["Cast", "CastLike"], "when": {"attr": {"saturate": [0]}}, "at_load": True,
     "require": {"types": {"T2": ["float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0"]}},
     "why": "onnxruntime's Cast kernel refuses saturate=0 for a cast to another type than a float 8 one: 'Attribute "
            "saturate is only used for cast to float 8 types' (measured with 1.32.0)",
     "source": "onnxruntime/core/providers/cpu/tensor/cast_op.cc:983 (Cast constructor)"},
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

# The CUDA EP's own refusals. "goes to the CPU EP": CUDAExecutionProvider::GetCapability does not take the node
# (onnxruntime/core/providers/cuda/cuda_execution_provider.cc, RNNNeedFallbackToCPU, ConvTransposeNeedFallbackToCPU,
# CastNeedFallbackToCPU; stored version 0018ddb68e9b), so a session without CPU fallback refuses it; the others fail
# when the session is created or run. "measured": onnxruntime-gpu 1.31.1 on an H100 (tools/data/cuda-ep-node-cases-*.json).
CUDA_EP = "microsoft/onnxruntime onnxruntime/core/providers/cuda/cuda_execution_provider.cc GetCapability"
CUDA_H100 = "measured: onnxruntime-gpu 1.31.1 on an H100, onnx's node test cases (tools/data/cuda-ep-node-cases-2026-11-27.json)"
_TO_CPU = "the CUDA EP leaves it to the CPU EP"
ORT_CUDA = [
    {"op": "BatchNormalization", "require": {"rank": [1, 2, 3, 4, 5]},
     "why": "run-time error on CUDA: 'Input dim size should be < 6 for BatchNorm' (measured on an H100, 2026-11-23)",
     "source": "onnxruntime cpu/nn/batch_norm_helper.h NormalizeDims, " + CUDA_NOTES + " (c)"},
    {"op": "BatchNormalization", "require": {"same_types": [0, 1, 2, 3, 4]},
     "why": "the CUDA kernel binds scale, B, mean and var to X's type", "source": CUDA_NOTES + " (c)"},
    {"op": "BatchNormalization", "when": {"attr": {"training_mode": [1]}},
     "why": "the CUDA BatchNormalization kernel refuses training_mode=1 when the session is created (cuda/nn/batch_norm.h:44)",
     "source": CUDA_H100},
    {"op": "DequantizeLinear", "when": {"attr_gt": {"block_size": 0}}, "require": {"types": {"T1": ["int4", "uint4"]}},
     "why": "blocked DequantizeLinear on CUDA handles int4/uint4 only: 'Unsupported quantization type' at run time "
            "(measured on an H100, 2026-11-23)",
     "source": "onnxruntime cuda/tensor/quantize_linear.cc, " + CUDA_NOTES + " (a)"},
    {"op": "Resize", "when": {"attr_nonzero": ["antialias"]}, "require": {"rank": [2, 3, 4, 5], "unscaled": {"4": [[0, 1]], "5": [[0, 1]]}},
     "why": "CUDA anti-aliased Resize is NCHW only ('NHWC is not supported yet')", "source": CUDA_NOTES + " (b)"},
    {"op": ["ArgMax", "ArgMin"], "when": {"attr": {"select_last_index": [1]}},
     "why": f"select_last_index=1: {_TO_CPU} (every such case of onnx's corpus was assigned to the CPU EP)", "source": CUDA_H100},
    {"op": "ConvTranspose", "when": {"attr": {"auto_pad": ["SAME_UPPER", "SAME_LOWER"]}},
     "why": f"auto_pad SAME_UPPER/SAME_LOWER may pad asymmetrically, which cuDNN does not: {_TO_CPU}",
     "source": CUDA_EP + " (ConvTransposeNeedFallbackToCPU)"},
    {"op": "ConvTranspose", "require": {"symmetric": ["pads"]},
     "why": f"cuDNN pads symmetrically only: {_TO_CPU}", "source": CUDA_EP + " (ConvTransposeNeedFallbackToCPU)"},
    {"op": ["RNN", "GRU", "LSTM"], "when": {"attr_present": ["activation_alpha", "activation_beta", "clip"]},
     "why": f"activation_alpha, activation_beta and clip are not in cuDNN's RNNs: {_TO_CPU}",
     "source": CUDA_EP + " (RNNNeedFallbackToCPU)"},
    {"op": "LSTM", "require": {"attr_prefix": {"activations": ["sigmoid", "tanh", "tanh", "sigmoid", "tanh", "tanh"]}},
     "why": f"cuDNN's LSTM has sigmoid/tanh/tanh only: {_TO_CPU}", "source": CUDA_EP + " (RNNNeedFallbackToCPU)"},
    {"op": "GRU", "require": {"attr_prefix": {"activations": ["sigmoid", "tanh", "sigmoid", "tanh"]}},
     "why": f"cuDNN's GRU has sigmoid/tanh only: {_TO_CPU}", "source": CUDA_EP + " (RNNNeedFallbackToCPU)"},
    {"op": "RNN", "require": {"attr_prefix": {"activations": ["tanh", "tanh"]}},
     "why": f"cuDNN's RNN has tanh only: {_TO_CPU}", "source": CUDA_EP + " (RNNNeedFallbackToCPU)"},
    {"op": "LSTM", "when": {"attr": {"input_forget": [1]}},
     "why": f"input_forget=1 is not in cuDNN's LSTM: {_TO_CPU}", "source": CUDA_EP + " (RNNNeedFallbackToCPU)"},
    {"op": "LSTM", "when": {"inputs_present": [7]},
     "why": f"cuDNN's LSTM has no peepholes (input P): {_TO_CPU}", "source": CUDA_EP + " (RNNNeedFallbackToCPU)"},
    {"op": "GRU", "when": {"attr_present": ["linear_before_reset"]}, "require": {"attr": {"linear_before_reset": [1]}},
     "why": f"cuDNN's GRU needs linear_before_reset=1 (checked where the attribute is set): {_TO_CPU}",
     "source": CUDA_EP + " (RNNNeedFallbackToCPU)"},
    {"op": ["RNN", "GRU", "LSTM"], "when": {"attr": {"layout": [1]}},
     "why": "the CUDA RNN kernels refuse layout=1 when the session is created (cuda/rnn/cudnn_rnn_base.h:116)",
     "source": CUDA_H100},
    {"op": "Cast", "when": {"attr": {"to": [8]}}, "why": f"a Cast to string: {_TO_CPU}", "source": CUDA_EP + " (CastNeedFallbackToCPU)"},
    {"op": "Cast", "when": {"types": {"T1": ["float16"], "T2": ["float4e2m1"]}},
     "why": "the CUDA Cast kernel has no float16 -> float4e2m1 conversion: \"Unimplemented 'to' argument value: 23\" at run time",
     "source": CUDA_H100},
    {"op": "Cast", "when": {"types": {"T1": ["float4e2m1"], "T2": ["float16"]}},
     "why": "a float4e2m1 -> float16 Cast fails when a CUDA session is created (core/optimizer/transformer_memcpy.cc:253)",
     "source": CUDA_H100},
    {"op": "Attention", "when": {"attr": {"qk_matmul_output_mode": [1, 2, 3]}, "outputs_present": [3]},
     "why": "the CUDA Attention kernel writes qk_matmul_output in mode 0 only: 'Only kNone and kQK output modes are "
            "supported' at run time", "source": CUDA_H100},
    {"op": ["If", "Loop", "Identity"], "require": {"value_kinds": ["tensor_type", "sequence_type"]},
     "why": f"the CUDA kernel takes tensors and sequences, no optional values (the CPU one does): {_TO_CPU}",
     "source": "microsoft/onnxruntime docs/OperatorKernels.md at 001d12d: the CUDA If/Loop/Identity rows list "
               "tensor and seq(tensor) types, the CPU ones optional types too (the kernel tables keep tensor types only)"},
    {"op": "Attention", "require": {"dim_sum": [[3, -1], [[1, -2], [4, -2]]]},
     "why": "onnxruntime's Attention needs attn_mask's last dimension to be the total key/value sequence length "
            "(past_key's plus K's): a run-time error otherwise (attention_helper.h)", "source": CUDA_H100},
]

# What onnxruntime's graph partitioner does around the CUDA EP's kernels, for check (converter/targets/placement.py):
# GetCpuPreferredNodes (onnxruntime/core/framework/fallback_cpu_capability.cc, stored version 039e489f3ff5) moves to the
# CPU a node the CUDA EP takes whose inputs are all CPU tensors (the output of a kernel that writes to CPU memory,
# or of a node already moved), small initializers (at most 100 elements) or graph inputs, unless one input is a
# float16/bfloat16/float8 tensor or one CPU tensor is an input that the CUDA kernel itself reads from CPU memory.
# Before that, onnxruntime's level-1 ConstantFolding (onnxruntime/core/optimizer/constant_folding.cc, on by default)
# makes initializers of every deterministic node whose inputs are all constant and of a Shape of a static shape.
# cpu_outputs/cpu_inputs: the CUDA kernels' OutputMemoryType/InputMemoryType (CPU memory) in their registrations,
# as read in microsoft/onnxruntime onnxruntime/core/providers/cuda/: tensor/shape_op.cc (stored 0513716) and
# tensor/size.cc (1c8d0eb): output 0; tensor/reshape.cc (0cccd81), tensor/expand.cc (086afaa), tensor/unsqueeze.cc
# (044f3d7), tensor/squeeze.cc and tensor/tile.cc (index hits), tensor/upsample.cc: input 1; tensor/slice.cc
# (0712c80): inputs 1-4; generator/constant_of_shape.cc (0606f7d): input 0; tensor/resize.cc: inputs 1-3 (CUDA_NOTES (b)).
# Only kernels read there are listed: one missing makes check move a node to the CPU that stays (a refusal too many).
CUDA_PLACEMENT = {
    "cpu_outputs": {"Shape": [0], "Size": [0]},
    "cpu_inputs": {"Reshape": [1], "Expand": [1], "Unsqueeze": [1], "Squeeze": [1], "Tile": [1], "Upsample": [1],
                   "Slice": [1, 2, 3, 4], "ConstantOfShape": [0], "Resize": [1, 2, 3]},
    "small_initializer": 100,
    "stays": ["float16", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"],
    "not_folded": ["RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike", "Multinomial", "Bernoulli",
                   "DequantizeLinear"],
}

# The Resize modes and the Q/DQ zero points of docs/operators.md's prose are not here: the importer's own
# conditions (converter/targets/tensorrt_rules.py, each citing its line of onnxOpImporters.cpp) replace them
# (the prose lists nearest/linear only; the importer maps "cubic" to kCUBIC).
TENSORRT = [
    {"op": "*", "when": {"types_any": ["uint8"]}, "require": {"io_only": ["uint8"]},
     "why": "TensorRT supports UINT8 only as a network input or output type", "source": "onnx/onnx-tensorrt docs/operators.md"},
]

# OpenVINO 2026.4 answers differently for the same model read from a path, from bytes or through convert_model
# (NLLLoss with ignore_index and Bernoulli compile from bytes only, Col2Im fails only through convert_model:
# python -m tools.openvino_read_paths, docs/ground-truth.md); the target models the file path, as a deployment reads it
OPENVINO_READS = ("checked as a deployment reads a model: Core.read_model(file path), compiled on the CPU plugin at f32 "
                  "(--probe asks the same way; read_model(bytes) and convert_model(path) answer otherwise on some "
                  "models: docs/ground-truth.md)")

OV = "the bundled suite's known failures on OpenVINO 2026.4's CPU plugin (specs/*: xfail runtime openvino)"
_OV_ARITH = ["Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Pow", "Neg", "Abs", "Sum", "Clip"]
OV_SEQUENCES = "measured with OpenVINO 2026.4.1 (read_model and compile_model) on onnx 1.23's node cases"
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
    # Unsqueeze's output rank is its input's plus the length of ``axes``, known only where axes is a constant:
    # OpenVINO's frontend then makes an Unsqueeze of dynamic output rank, which the CPU plugin refuses at every
    # since-version ("CPU plug-in doesn't support Unsqueeze operation with dynamic rank"); Squeeze's rank is static
    # with an axes input of known length (measured with OpenVINO 2026.4.1 at opsets 13, 21, 24 and 25)
    {"op": "Unsqueeze", "when": {"since_min": 13, "not_constant": [1]},
     "why": "OpenVINO's CPU plugin takes no operation of dynamic rank, and an Unsqueeze whose axes are not a constant "
            "has a dynamic output rank ('CPU plug-in doesn't support Unsqueeze operation with dynamic rank')",
     "source": "openvinotoolkit/openvino src/plugins/intel_cpu/src/node.cpp (Node::Node); measured with OpenVINO "
               "2026.4.1 at opsets 13, 21, 24 and 25 (tests/targets/test_openvino_rules.py asks it)"},
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
    # Sequence and optional values: OpenVINO's ONNX frontend converts none ("No conversion rule found for operations:
    # util::SequenceMark", "... OptionalGetElement-28"; a sequence graph input: "CPU plug-in doesn't support Parameter
    # operation with dynamic rank"). Measured with OpenVINO 2026.4.1 on every node case of onnx 1.23 with such a value
    # (29; tests/targets/test_openvino_rules.py gives each to it): the one that runs is an Identity of an optional tensor.
    {"op": "*", "require": {"value_kinds": ["tensor_type", "optional_type"]},
     "why": "OpenVINO's ONNX frontend converts no sequence values ('No conversion rule found for operations: "
            "util::SequenceMark')", "source": OV_SEQUENCES},
    {"op": ["If", "Loop", "Scan", "SequenceMap"], "require": {"value_kinds": ["tensor_type"]},
     "why": "OpenVINO's ONNX frontend converts no optional values in control flow ('No conversion rule found for "
            "operations: Optional-16')", "source": OV_SEQUENCES},
    {"op": ["Optional", "OptionalGetElement", "OptionalHasElement"],
     "why": "OpenVINO's ONNX frontend has no conversion rule for it ('No conversion rule found for operations: "
            "OptionalHasElement-28')", "source": OV_SEQUENCES},
    # DequantizeLinear as OpenVINO's ONNX frontend reads it (src/frontends/onnx/frontend/src/op/dequantize_linear.cpp,
    # opset_21::dequantize_linear): a scale of rank 0 or 1 takes opset 13's path (per tensor, per axis), a scale of
    # higher rank (blocked quantization) needs X static; measured with OpenVINO 2026.4.1 (tests/targets/
    # test_openvino_rules.py asks it on each case): a dynamic dimension of X on any axis, blocked or not, or X of
    # unknown rank is refused at read_model, per-axis and per-tensor of a dynamic X read and run
    {"op": "DequantizeLinear", "when": {"since_min": 21, "rank_gt": {"1": 1}}, "require": {"static": [0]},
     "why": "OpenVINO's ONNX frontend reads a blocked DequantizeLinear (a scale of rank > 1) only with X of static "
            "shape: 'DequantizeLinear cannot operate with dynamic shapes of input X' when it reads the model",
     "source": "openvinotoolkit/openvino src/frontends/onnx/frontend/src/op/dequantize_linear.cpp:268 "
               "(opset_21::dequantize_linear), the line OpenVINO 2026.4.1's error names; measured with it"},
    # a scale of rank 1 goes to opset 13's per-axis path even where block_size is set: a 1-D X quantized in blocks of
    # 2 or more has fewer scales than elements, which that path refuses where X's length is known ("The number of
    # dequantization scale elements '3' must match the input shape dimension '5'", dequantize_linear.cpp:119) and
    # fails to broadcast at run time where it is not (the CPU plugin's Multiply: "Check 'input_shape[j] == 1'")
    {"op": "DequantizeLinear", "when": {"since_min": 21, "attr_gt": {"block_size": 1}, "rank_in": {"0": [1]}},
     "require": {"one_element": [1]},
     "why": "OpenVINO's ONNX frontend takes the scale of a 1-D X quantized in blocks as per-axis, one scale per "
            "element: refused when it reads the model, or a failed broadcast at run time where X's length is dynamic",
     "source": "openvinotoolkit/openvino src/frontends/onnx/frontend/src/op/dequantize_linear.cpp:119 "
               "(opset_13 validate_scale, reached from opset_21 for a scale of rank 1); measured with OpenVINO 2026.4.1"},
    # a scale of unknown rank: opset 21's path checks "scale_shape.rank().is_static()" ("Rank of the input data tensor
    # has to be known (static)", dequantize_linear.cpp:267), opset 13's asks its rank's length ("Cannot get length of
    # dynamic dimension"), opset 10's wants a scalar; measured with OpenVINO 2026.4.1 at opsets 10, 13, 19, 21
    {"op": "DequantizeLinear", "when": {"unknown_rank": [1]},
     "why": "OpenVINO's ONNX frontend needs the rank of DequantizeLinear's scale: a scale of unknown rank is refused "
            "when it reads the model",
     "source": "openvinotoolkit/openvino src/frontends/onnx/frontend/src/op/dequantize_linear.cpp; measured with "
               "OpenVINO 2026.4.1"},
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
# onnxruntime 1.31.1 (the kernel tables' version) loads models up to opset 26 and IR version 13 (converter/installed/opset.py
# says where that was measured); with an onnxruntime installed, its own limits are probed (converter/installed/ort_build.py).
# onnx 1.23's helper.make_model writes IR 14 by default, so a model made without ir_version= is refused there
# (tests/test_check_untrusted.py).
ORT_TABLES_VERSION = "1.31.1"  # the committed ort-cpu table's onnxruntime (tables/ort-cpu.json)

# What every onnxruntime target shares, whatever its execution provider, written once: onnxruntime's graph
# loading happens before any execution provider sees the graph. constants_folded: every Constant node becomes an
# initializer (onnxruntime/core/graph/graph.cc, Graph::Graph: "Constant nodes are converted to initializers"), so
# no EP needs a Constant kernel (DirectML's table has none, and neither does the CPU EP's registry); max_opset and
# max_ir_version: the newest opset and IR version that onnxruntime loads (model.cc). local_functions: a call of
# a model-local function is inlined when the session is made (graph_partitioner.cc InlineFunctionsAOT), whatever
# the EP, so its body's nodes are checked in its place (converter/targets/functions.py inline_local).
# OpenVINO 2026.4's ONNX frontend does not inline them ("No conversion rule found for operations: local.F").
ONNXRUNTIME = {"family": "onnxruntime", "constants_folded": True, "max_opset": ORT_MAX_OPSET,
               "max_ir_version": ORT_MAX_IR_VERSION, "local_functions": True}

# The registry: every target is its entry here (or one register_target adds at run time). Every key is optional
# (a target without "summary" is listed by its name alone). converter/targets/target.py reads them, once per name,
# into the Target the rest of the package is handed:
#   summary           one line for the help lists, completion and the pytest plugin's --s2o-target (target_summaries)
#   kernels           its kernel table: a file in tables/ (or an absolute path), rows per op as onnxruntime's registry
#   matrix            or onnx-tensorrt's operator matrix (tables/tensorrt.json)
#   limits            its known run-time limits (the conditions: this module's docstring)
#   importer          onnx-tensorrt's importer conditions hold (converter/targets/tensorrt_rules.py)
#   tensor_limits     the largest tensor it takes (elements, rank)
#   dla               NVIDIA's DLA rules hold (converter/targets/dla.py, dla_guide.py), and no dynamic dimension
#   build_precisions  what its build may allow beyond the model's types (--fp16/--int8, trtexec's flags)
#   deployment        lowerings emit its importer's form, validated through a host-legalized copy (docs/deployment.md)
#   host_copy         (without a deployment form) validate's host runs a legalized copy of its model all the same
#                     (ort-dml, openvino: float16 ops the CPU EP computes without rounding between them)
#   includes, all_of  the other targets a model for it must also run on (all_of: only those, each checked)
#   preferences       lowering preferences (below)
#   reads             how the runtime reads a model, a note under check's verdict
#   probe             how check --probe asks the installed runtime (converter/targets/probe.py)
#   registry          the execution provider whose kernels in the installed onnxruntime's registry are its table
#                     where onnxruntime is installed (the committed "kernels" file otherwise; ort_kernels.py); that
#                     provider must be among the registries installed/ort_build.py reads (PROVIDERS)
#   measured          its kernel table is measured on the runtime itself (openvino.json): a combination it has no
#                     row for is a warning ("not measured"), not an error
#   frontend_domains  (measured) the domains beyond ai.onnx the runtime's ONNX reader converts: their ops are
#                     "not measured"; another domain's node is refused
#   and the onnxruntime family's keys (functions, fallback, placement, float16_via_float, ONNXRUNTIME's)
PROFILES = {
    # float16_via_float: onnxruntime/core/optimizer/insert_cast_transformer.cc runs a float16 node that has
    # only a float CPU kernel in float, between inserted Casts (at every optimization level)
    # registry: the kernel table is the installed onnxruntime's registry, else the committed file (ort_kernels.py);
    # ONNXRUNTIME: what the onnxruntime family shares (above); functions: a node no kernel takes is expanded
    # into its ONNX function body, whose nodes are checked (converter/targets/functions.py)
    "ort-cpu": {"summary": "onnxruntime's CPU execution provider",
                **ONNXRUNTIME, "kernels": "ort-cpu.json", "registry": "CPUExecutionProvider", "functions": True,
                "probe": {"runtime": "onnxruntime", "provider": "CPUExecutionProvider"},
                "limits": ORT_RESIZE + ORT_KERNEL_LIMITS, "float16_via_float": True,
                "preferences": {"scale_batchnorm": True}},
    # ort-cuda: every node on the CUDA EP alone (a session with session.disable_cpu_ep_fallback, as --probe asks).
    # fallback: a node the CUDA EP has no kernel for goes to this target's EP when that has one (the partitioner
    # offers it to the CPU EP next), and only a node no EP takes is inlined as its function body ("functions",
    # graph_partitioner.cc InlineNodes), whose nodes go to CUDA again; placement: GetCpuPreferredNodes (above).
    # The load-time limits of onnxruntime's schemas (at_load) hold for every EP.
    "ort-cuda": {"summary": "onnxruntime's CUDA execution provider, every node on CUDA",
                 **ONNXRUNTIME, "kernels": "ort-cuda.json", "registry": "CUDAExecutionProvider", "functions": True,
                 "probe": {"runtime": "onnxruntime", "provider": "CUDAExecutionProvider"},
                 "fallback": "ort-cpu", "placement": CUDA_PLACEMENT,
                 "limits": [limit for limit in ORT_KERNEL_LIMITS if limit.get("at_load")] + ORT_RESIZE + ORT_CUDA,
                 "preferences": {"scale_batchnorm": False}},
    # onnxruntime's DirectML EP: its kernel table (tables/ort-dml.json, from docs/OperatorKernels.md's DML section,
    # generated from DmlExecutionProvider/src/Operators/OperatorRegistration.cpp); checked statically only (no
    # DirectML here). Its Resize limits are not onnxruntime's CPU/CUDA ones (DML has its own kernel): none known.
    # host_copy: DirectML runs float16 Add/Sub/Mul natively (one rounding each); the host's CPU EP has no float16
    # kernel for them, computes them in float32 and does not round between two layers (a float16 SUM then SUB that
    # overflows in between gave 60000, not inf): validate runs the host-legalized copy (converter/pipeline/legalize.py)
    "ort-dml": {"summary": "onnxruntime's DirectML execution provider, checked statically",
                **ONNXRUNTIME, "kernels": "ort-dml.json", "limits": [], "preferences": {"scale_batchnorm": False},
                "host_copy": True},
    # deployment: lowerings emit what the target's importer reads as one layer per source layer, in the source's
    # types (float16 stays float16, CUBIC is one Resize); validate runs a host-legalized copy of it on onnxruntime's
    # CPU EP (converter/pipeline/legalize.py, docs/deployment.md). scale_batchnorm: BatchNormalization is IScaleLayer there.
    # build_precisions: trtexec's --fp16/--int8 (BuilderFlag.FP16/INT8); the DLA rules read them
    "tensorrt": {"summary": "TensorRT, as onnx-tensorrt's parser imports the model",
                 "matrix": "tensorrt.json", "limits": TENSORRT, "importer": True, "tensor_limits": TENSORRT_TENSORS,
                 "build_precisions": ["fp16", "int8"], "deployment": True, "preferences": {"scale_batchnorm": True}},
    # includes: a DLA model is parsed by onnx-tensorrt too, so lowerings legalize it for tensorrt as well
    "tensorrt-dla": {"summary": "TensorRT on a DLA core, FP16/INT8 only, no dynamic dimension",
                     "matrix": "tensorrt.json", "limits": TENSORRT, "importer": True, "tensor_limits": TENSORRT_TENSORS,
                     "dla": True, "includes": ["tensorrt"], "build_precisions": ["fp16", "int8"], "deployment": True,
                     "preferences": {"scale_batchnorm": True}},
    # measured: openvino.json lists what compiled (and what was refused); a combination never measured is a warning.
    # reads: how the model is read, which changes OpenVINO's answer (docs/ground-truth.md): the table, --probe
    # (runtime_child.openvino_model) and the runner (runners/openvino.py) all read a file path
    "openvino": {"summary": "OpenVINO's CPU plugin",
                 "kernels": "openvino.json", "measured": True, "limits": OPENVINO, "preferences": {"scale_batchnorm": False},
                 "host_copy": True,  # (as ort-dml's: float16 Add/Sub/Mul kept; validate runs it as written on OpenVINO)
                 # the domains beyond ai.onnx that OpenVINO's ONNX frontend registers converters in (its ops_bridge.cpp:
                 # OPENVINO_ONNX_DOMAIN, MICROSOFT_DOMAIN, PYTORCH_ATEN_DOMAIN, MMDEPLOY_DOMAIN; ai.onnx.ml's Normalizer
                 # measured with 2026.4.1): their ops are "not measured"; any other domain (a model-local function, a
                 # custom one, ai.onnx.preview) has no converter
                 "frontend_domains": ["org.openvinotoolkit", "com.microsoft", "org.pytorch.aten", "mmdeploy", "ai.onnx.ml"],
                 "probe": {"runtime": "openvino"},
                 "reads": OPENVINO_READS},
    # every node must run on each of these (tensorrt-dla is not among them: DLA runs FP16/INT8 only)
    "portable": {"summary": "every node runs on all of ort-cpu, ort-cuda, tensorrt and openvino",
                 "all_of": ["ort-cpu", "ort-cuda", "tensorrt", "openvino"], "preferences": {"scale_batchnorm": False}},
}


BUILTIN_TARGETS = frozenset(PROFILES)  # before any register_target: a plugin's targets are not spec2onnx's code


def target_names() -> tuple[str, ...]:
    """Every target of the registry: ``portable`` first, then each profile in order, one register_target added
    included."""
    return tuple(sorted(PROFILES, key=lambda name: name != "portable"))


def target_summaries() -> list[tuple[str, str]]:
    """(name, one line) of every target, in target_names' order: what the help lists, shell completion and the pytest
    plugin show. Light: this module imports no onnx, onnxruntime or numpy (the CLI's --help reads it)."""
    return [(name, str(PROFILES[name].get("summary", ""))) for name in target_names()]


def register_target(name: str, profile: dict) -> None:
    """Add target ``name`` (the documented call; docs/architecture.md, "Adding a target"): its profile, with the keys
    above. A name the registry has already is refused (a ValueError: a plugin's bug, not the user's input)."""
    if not isinstance(name, str) or not name or name in PROFILES:
        raise ValueError(f"register_target: {name!r} is {'taken' if name in PROFILES else 'not a target name'}")
    if not isinstance(profile, dict) or not isinstance(profile.get("summary", ""), str):
        raise ValueError(f"register_target({name!r}): a profile is a dict whose 'summary' is one line of text")
    PROFILES[name] = profile


def unregister_target(name: str) -> None:
    """Remove a target register_target added (a test's, a plugin's): its name is unknown again."""
    PROFILES.pop(name, None)
