"""onnxruntime CUDA EP kernel rows for the ops spec2onnx's Scale, ElementWise and DequantizeLinear lowerings emit.

Transcribed (by script) from /work/shared/reference/ort-cuda-kernels.md, itself from microsoft/onnxruntime
docs/OperatorKernels.md at 001d12d2623fd411ce0f83d05abb5e82304a3389. (start, end or None for "N+", {constraint: types}).
An open row "N+" matches only nodes whose since-version is exactly N (kernel_registry.cc, VerifyKernelDef).
"""

CUDA_KERNELS = {
    # Reshape, Gather, Expand: DirectML strides on run-time buffers (converter/lowering/strides.py)
    'Expand': [
        (13, None, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (8, 12, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
    ],
    'Gather': [
        (13, None, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'Tind': ('int32', 'int64')}),
        (11, 12, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'Tind': ('int32', 'int64')}),
        (1, 10, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'Tind': ('int32', 'int64')}),
    ],
    'Reshape': [
        (23, None, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'shape': ('int64',)}),
        (21, 22, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'shape': ('int64',)}),
        (19, 20, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'shape': ('int64',)}),
        (14, 18, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'shape': ('int64',)}),
        (13, 13, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'shape': ('int64',)}),
        (5, 12, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'shape': ('int64',)}),
    ],
    'Abs': [
        (13, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (6, 12, {'T': ('double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
    ],
    'Add': [
        (14, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (13, 13, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (7, 12, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
    ],
    'And': [
        (7, None, {'T': ('bool',), 'T1': ('bool',)}),
    ],
    'BatchNormalization': [
        (15, None, {'T': ('double', 'float', 'float16'), 'T1': ('double', 'float', 'float16'), 'T2': ('double', 'float', 'float16')}),
        (14, 14, {'T': ('double', 'float', 'float16'), 'U': ('double', 'float', 'float16')}),
        (9, 13, {'T': ('double', 'float', 'float16')}),
        (7, 8, {'T': ('double', 'float', 'float16')}),
    ],
    'Cast': [
        (23, None, {'T1': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float4e2m1', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'T2': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float4e2m1', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (21, 22, {'T1': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'T2': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float4e2m1', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (19, 20, {'T1': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'T2': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float4e2m1', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (13, 18, {'T1': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'T2': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float4e2m1', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (9, 12, {'T1': ('bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'T2': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float4e2m1', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (6, 8, {'T1': ('bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8'), 'T2': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float4e2m1', 'float8e4m3fn', 'float8e5m2', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
    ],
    'Clip': [
        (13, None, {'T': ('double', 'float', 'float16', 'int64', 'int8', 'uint64', 'uint8')}),
        (12, 12, {'T': ('double', 'float', 'float16', 'int64', 'int8', 'uint64', 'uint8')}),
        (11, 11, {'T': ('float',)}),
        (6, 10, {'T': ('float',)}),
    ],
    'DequantizeLinear': [
        (21, None, {'T1': ('float8e4m3fn', 'float8e5m2', 'int4', 'int8', 'uint4', 'uint8'), 'T2': ('float', 'float16')}),
        (19, 20, {'T1': ('float8e4m3fn', 'float8e5m2', 'int8', 'uint8'), 'T2': ('float', 'float16')}),
        (13, 18, {'T': ('int8', 'uint8')}),
        (10, 12, {'T': ('int8', 'uint8')}),
    ],
    'Div': [
        (14, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (13, 13, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (7, 12, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
    ],
    'Equal': [
        (13, None, {'T': ('bool', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64'), 'T1': ('bool',)}),
        (11, 12, {'T': ('bool', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (7, 10, {'T': ('bool', 'int32', 'int64')}),
    ],
    'Floor': [
        (13, None, {'T': ('double', 'float', 'float16')}),
        (6, 12, {'T': ('double', 'float', 'float16')}),
    ],
    'Greater': [
        (13, None, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64'), 'T1': ('bool',)}),
        (9, 12, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (7, 8, {'T': ('double', 'float', 'float16')}),
    ],
    'GreaterOrEqual': [
        (16, None, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64'), 'T1': ('bool',)}),
        (12, 15, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64'), 'T1': ('bool',)}),
    ],
    'Identity': [
        (19, None, {'V': ('bfloat16', 'bool', 'double', 'float', 'float16', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz', 'int16', 'int32', 'int64', 'int8', 'sor(bfloat16)', 'sor(bool)', 'sor(double)', 'sor(float)', 'sor(float16)', 'sor(float8e4m3fn)', 'sor(float8e4m3fnuz)', 'sor(float8e5m2)', 'sor(float8e5m2fnuz)', 'sor(int16)', 'sor(int32)', 'sor(int64)', 'sor(int8)', 'sor(uint16)', 'sor(uint32)', 'sor(uint64)', 'sor(uint8)', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (14, 18, {'V': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'sor(bfloat16)', 'sor(bool)', 'sor(double)', 'sor(float)', 'sor(float16)', 'sor(int16)', 'sor(int32)', 'sor(int64)', 'sor(int8)', 'sor(uint16)', 'sor(uint32)', 'sor(uint64)', 'sor(uint8)', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (13, 13, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (1, 12, {'T': ('bfloat16', 'bool', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
    ],
    'IsNaN': [
        (20, None, {'T1': ('bfloat16', 'double', 'float', 'float16', 'float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz'), 'T2': ('bool',)}),
        (13, 19, {'T1': ('bfloat16', 'double', 'float', 'float16'), 'T2': ('bool',)}),
        (9, 12, {'T1': ('double', 'float', 'float16'), 'T2': ('bool',)}),
    ],
    'Less': [
        (13, None, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64'), 'T1': ('bool',)}),
        (9, 12, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (7, 8, {'T': ('double', 'float', 'float16')}),
    ],
    'LessOrEqual': [
        (16, None, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64'), 'T1': ('bool',)}),
        (12, 15, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64'), 'T1': ('bool',)}),
    ],
    'Max': [
        (13, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (12, 12, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (6, 11, {'T': ('bfloat16', 'double', 'float', 'float16')}),
    ],
    'Min': [
        (13, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (12, 12, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (6, 11, {'T': ('bfloat16', 'double', 'float', 'float16')}),
    ],
    'Mul': [
        (14, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (13, 13, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (7, 12, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
    ],
    'Neg': [
        (13, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8')}),
        (6, 12, {'T': ('double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8')}),
    ],
    'Not': [
        (1, None, {'T': ('bool',)}),
    ],
    'Or': [
        (7, None, {'T': ('bool',), 'T1': ('bool',)}),
    ],
    'Pow': [
        (15, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64'), 'T1': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64')}),
        (13, 14, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64'), 'T1': ('double', 'float', 'float16', 'int32', 'int64')}),
        (12, 12, {'T': ('double', 'float', 'float16', 'int32', 'int64'), 'T1': ('double', 'float', 'float16', 'int32', 'int64')}),
        (7, 11, {'T': ('double', 'float', 'float16')}),
    ],
    'QuantizeLinear': [
        (21, None, {'T1': ('float', 'float16'), 'T2': ('float8e4m3fn', 'float8e5m2', 'int4', 'int8', 'uint4', 'uint8')}),
        (19, 20, {'T1': ('float', 'float16'), 'T2': ('float8e4m3fn', 'float8e5m2', 'int8', 'uint8')}),
        (13, 18, {'T1': ('float',), 'T2': ('int8', 'uint8')}),
        (10, 12, {'T1': ('float',), 'T2': ('int8', 'uint8')}),
    ],
    'Reciprocal': [
        (13, None, {'T': ('double', 'float', 'float16')}),
        (6, 12, {'T': ('double', 'float', 'float16')}),
    ],
    'Round': [
        (11, None, {'T': ('double', 'float', 'float16')}),
    ],
    'Sign': [
        (13, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
    ],
    'Sqrt': [
        (13, None, {'T': ('bfloat16', 'double', 'float', 'float16')}),
        (6, 12, {'T': ('double', 'float', 'float16')}),
    ],
    'Sub': [
        (14, None, {'T': ('bfloat16', 'double', 'float', 'float16', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8')}),
        (13, 13, {'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
        (7, 12, {'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint32', 'uint64')}),
    ],
    'Sum': [
        (13, None, {'T': ('bfloat16', 'double', 'float', 'float16')}),
        (8, 12, {'T': ('bfloat16', 'double', 'float', 'float16')}),
        (6, 7, {'T': ('bfloat16', 'double', 'float', 'float16')}),
    ],
    'Where': [
        (16, None, {'B': ('bool',), 'T': ('bfloat16', 'double', 'float', 'float16', 'int32', 'int64', 'uint8')}),
        (9, 15, {'B': ('bool',), 'T': ('double', 'float', 'float16', 'int32', 'int64', 'uint8')}),
    ],
    'Xor': [
        (7, None, {'T': ('bool',), 'T1': ('bool',)}),
    ],
}
