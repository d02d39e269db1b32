"""The tensorrt importer rules on a hand-made corpus: an accepted and a refused model per condition.

Each pair is written from the condition's source line (converter/targets/tensorrt_rules.py cites it, at
onnx/onnx-tensorrt release/10.1-GA): the refused form breaks exactly that condition, the accepted form
is the nearest model that meets it. Built with onnx.helper at test time (nothing committed).
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from converter.targets import resolve_target
from converter.targets.check import check_model, errors
from converter.targets.model_view import ModelView
from converter.targets.tensorrt_rules import RULES, UNCONDITIONAL, node_problems

F, H, I8, U8, I32, I64, B = T.FLOAT, T.FLOAT16, T.INT8, T.UINT8, T.INT32, T.INT64, T.BOOL
X4 = [1, 3, 4, 4]


def model(op, inputs, consts=(), *, outputs=("y",), opset=17, order=None, **attrs):
    """One ``op`` node. inputs: (name, elem_type, shape) graph inputs; consts: (name, array) initializers;
    ``order``: the node's input names (default: inputs then consts; "" for an omitted one)."""
    names = order if order is not None else [i[0] for i in inputs] + [c[0] for c in consts]
    node = helper.make_node(op, list(names), list(outputs), name="n", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(o, T.UNDEFINED, None) for o in outputs],
                              initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in consts])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def f32(*v):
    return np.array(v, np.float32)


def i64(*v):
    return np.array(v, np.int64)


def bn(shapes=((3,),) * 4, dtype=np.float32, x=F, opset=15, **attrs):
    consts = [(n, np.ones(s, dtype)) for n, s in zip(("s", "b", "m", "v"), shapes)]
    return model("BatchNormalization", [("x", x, X4)], consts, opset=opset, **attrs)


def conv(w_shape=(4, 3, 3, 3), bias=None, x_shape=X4, **attrs):
    consts = [("w", np.ones(w_shape, np.float32))] + ([("bias", np.ones(bias, np.float32))] if bias else [])
    return model("Conv", [("x", F, x_shape)], consts, **attrs)


def pool(op="MaxPool", shape=X4, kernel=(2, 2), outputs=("y",), **attrs):
    return model(op, [("x", F, shape)], kernel_shape=list(kernel), outputs=outputs, **attrs)


def qdq(op="QuantizeLinear", x=F, scale=f32(0.5), zp=None, shape=X4, **attrs):
    consts = [("s", scale)] + ([("z", zp)] if zp is not None else [])
    return model(op, [("x", x, shape)], consts, **attrs)


def resize(x=F, shape=X4, scales=f32(1, 1, 2, 2), opset=17, **attrs):
    return model("Resize", [("x", x, shape)], [("sc", scales)], order=["x", "", "sc"], opset=opset, **attrs)


def slice_(starts=i64(0), ends=i64(2), axes=i64(1), x=F, runtime_axes=False, n_inputs=4):
    consts = [("st", starts), ("en", ends)]
    inputs = [("x", x, X4)]
    if runtime_axes:
        inputs.append(("ax", I64, [len(axes)]))
    elif n_inputs >= 4:
        consts.append(("ax", axes))
    order = ["x", "st", "en", "ax"][:n_inputs] if n_inputs >= 3 else ["x", "st"]
    if n_inputs < 3:
        consts = consts[:1]
    return model("Slice", inputs, consts, order=order)


def binary(op, t, shape=X4, opset=17, **attrs):
    return model(op, [("a", t, shape), ("b", t, shape)], opset=opset, **attrs)


def unary(op, t, shape=X4, **attrs):
    return model(op, [("x", t, shape)], **attrs)


# rule id -> (accepted, refused)
CORPUS = {
    "elementwise.bool-ops": (binary("And", B), binary("And", F)),
    "elementwise.no-bool": (binary("Add", F), binary("Add", B)),
    "elementwise.pow-float": (binary("Pow", H), binary("Pow", I32)),
    "unary.not-bool": (unary("Not", B), unary("Not", F)),
    "unary.abs-sign": (unary("Abs", I32), unary("Sign", U8)),
    "unary.neg": (unary("Neg", I32), unary("Neg", B)),
    "unary.float": (unary("Floor", H), unary("Sqrt", I32)),
    "activation.types": (unary("Relu", H), unary("Relu", I32)),
    "clip.uint8": (unary("Clip", F), unary("Clip", U8)),
    "clip.elementwise-types": (model("Clip", [("x", F, X4), ("lo", F, [])]), model("Clip", [("x", I8, X4), ("lo", I8, [])])),
    "cast.to": (unary("Cast", F, to=T.FLOAT16), unary("Cast", F, to=T.UINT16)),
    "batchnorm.training": (bn(training_mode=0), bn(training_mode=1)),
    "batchnorm.scale-rank": (bn(), bn(((1, 3), (3,), (3,), (3,)))),
    "batchnorm.bias-rank": (bn(), bn(((3,), (1, 3), (3,), (3,)))),
    "batchnorm.mean-rank": (bn(), bn(((3,), (3,), (1, 3), (3,)))),
    "batchnorm.var-rank": (bn(), bn(((3,), (3,), (3,), (1, 3)))),
    "batchnorm.same-shape": (bn(), bn(((3,), (3,), (4,), (3,)))),
    "batchnorm.type": (bn(dtype=np.float16, x=H), bn(dtype=np.int32, x=I32)),
    "conv.spatial-dims": (conv(), conv(w_shape=(4, 3, 3, 3, 3))),
    "conv.bias": (conv(bias=(4,)), conv(bias=(5,))),
    "conv.kernel-shape": (conv(kernel_shape=[3, 3]), conv(kernel_shape=[2, 2])),
    "conv.groups": (conv(w_shape=(3, 1, 3, 3), group=3), conv(group=3)),
    "kernel.auto-pad-pads": (conv(auto_pad="SAME_UPPER"), conv(auto_pad="SAME_UPPER", pads=[1, 1, 1, 1])),
    "pool.dims": (pool(), pool(shape=[1, 3, 4, 4, 4, 4], kernel=(2, 2, 2, 2))),
    "pool.dilations": (pool(dilations=[1, 1]), pool(dilations=[2, 2])),
    "maxpool.indices": (pool(), pool(outputs=("y", "idx"))),
    "gemm.types": (model("Gemm", [("a", F, [2, 3]), ("b", F, [3, 4])]), model("Gemm", [("a", I32, [2, 3]), ("b", I32, [3, 4])])),
    "gemm.rank-a": (model("Gemm", [("a", F, [2, 3]), ("b", F, [3, 4])]), model("Gemm", [("a", F, [1, 2, 3]), ("b", F, [3, 4])])),
    "gemm.rank-b": (model("Gemm", [("a", F, [2, 3]), ("b", F, [3, 4])]), model("Gemm", [("a", F, [2, 3]), ("b", F, [1, 3, 4])])),
    "matmul.types": (model("MatMul", [("a", H, [2, 3]), ("b", H, [3, 4])]), model("MatMul", [("a", I64, [2, 3]), ("b", I64, [3, 4])])),
    "concat.uint8": (binary("Concat", F, axis=1), binary("Concat", U8, axis=1)),
    "concat.axis": (binary("Concat", F, axis=-1), binary("Concat", F, axis=4)),
    "gather.uint8": (model("Gather", [("x", F, X4)], [("i", i64(0, 1))]), model("Gather", [("x", U8, X4)], [("i", i64(0, 1))])),
    "gather.axis": (model("Gather", [("x", F, X4)], [("i", i64(0))], axis=-1), model("Gather", [("x", F, X4)], [("i", i64(0))], axis=4)),
    "where.uint8": (model("Where", [("c", B, X4), ("a", F, X4), ("b", F, X4)]), model("Where", [("c", B, X4), ("a", U8, X4), ("b", U8, X4)])),
    "expand.uint8": (model("Expand", [("x", F, [1, 1])], [("s", i64(2, 2))]), model("Expand", [("x", U8, [1, 1])], [("s", i64(2, 2))])),
    "expand.shape-1d": (model("Expand", [("x", F, [1, 1])], [("s", i64(2, 2))]), model("Expand", [("x", F, [1, 1])], [("s", np.array([[2, 2]], np.int64))])),
    "mod.uint8": (binary("Mod", I32), binary("Mod", U8)),
    "mod.fmod0-int": (binary("Mod", I32), binary("Mod", F)),
    "constant.attrs": (model("Constant", [], value=numpy_helper.from_array(f32(1))),
                       model("Constant", [], value_strings=["a"])),
    "constantofshape.uint8": (model("ConstantOfShape", [], [("s", i64(2))], value=numpy_helper.from_array(f32(1))),
                              model("ConstantOfShape", [], [("s", i64(2))], value=numpy_helper.from_array(np.array([1], np.uint8)))),
    "range.same-types": (model("Range", [("a", I32, []), ("b", I32, []), ("c", I32, [])]),
                         model("Range", [("a", I32, []), ("b", I64, []), ("c", I32, [])])),
    "range.types": (model("Range", [("a", F, []), ("b", F, []), ("c", F, [])]),
                    model("Range", [("a", T.INT16, []), ("b", T.INT16, []), ("c", T.INT16, [])])),
    "qdq.uint8": (qdq("DequantizeLinear", x=I8), qdq("DequantizeLinear", x=U8)),
    "q.uint8-zero-point": (qdq(zp=np.array(0, np.int8)), qdq(zp=np.array(0, np.uint8))),
    "qdq.two-inputs": (qdq(), model("QuantizeLinear", [("x", F, X4)])),
    "qdq.scale-positive": (qdq(scale=f32(0.5)), qdq(scale=f32(-0.5))),
    "qdq.zero-point-zero": (qdq(zp=np.array(0, np.int8)), qdq(zp=np.array(3, np.int8))),
    "qdq.zero-point-size": (qdq(scale=f32(1, 1, 1), zp=np.zeros(3, np.int8), axis=1),
                            qdq(scale=f32(1, 1, 1), zp=np.zeros(1, np.int8), axis=1)),
    "qdq.per-channel": (qdq(scale=f32(1, 1, 1), axis=1), qdq(scale=f32(1, 1, 1, 1, 1), axis=1)),
    # no axis attribute: the importer uses axis 0 for a per-channel scale (onnxOpImporters.cpp:1521/1529), so a
    # 3-value scale fits channel axis 1 under ONNX's default but not the importer's: that form is refused below
    "qdq.scale-rank": (qdq(scale=f32(1, 1, 1), axis=1), qdq(scale=np.ones((1, 3), np.float32), axis=1)),
    "resize.types": (resize(x=H), resize(x=U8)),
    "resize.scalar": (resize(shape=[4], scales=f32(2)), resize(shape=[], scales=np.zeros(0, np.float32))),
    "resize.mode": (resize(mode="cubic"), resize(mode="bicubic")),
    "resize.tf-half-pixel-for-nn": (resize(coordinate_transformation_mode="tf_half_pixel_for_nn"),
                                    resize(coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode="floor")),
    "resize.coordinate-transformation": (resize(coordinate_transformation_mode="asymmetric"),
                                         resize(coordinate_transformation_mode="tf_crop_and_resize")),
    "resize.antialias": (resize(opset=18, mode="linear", antialias=0), resize(opset=18, mode="linear", antialias=1)),
    "resize.keep-aspect-ratio": (resize(opset=18, keep_aspect_ratio_policy="stretch"),
                                 resize(opset=18, keep_aspect_ratio_policy="not_larger")),
    "resize.axes-unique": (resize(opset=18, scales=f32(2, 2), axes=[2, 3]), resize(opset=18, scales=f32(2, 2), axes=[2, -2])),
    "resize.scales-1d": (resize(), resize(scales=np.array([[1, 1, 2, 2]], np.float32))),
    "resize.linear-dims": (resize(mode="linear", scales=f32(1, 2, 2, 2)), resize(mode="linear", scales=f32(2, 1, 2, 2))),
    "resize.cubic-dims": (resize(mode="cubic", scales=f32(1, 1, 2, 2)), resize(mode="cubic", scales=f32(1, 2, 2, 2))),
    "slice.inputs": (slice_(n_inputs=3), slice_(n_inputs=2)),
    "slice.uint8": (slice_(), slice_(x=U8)),
    "slice.axes-constant": (slice_(), slice_(runtime_axes=True)),
    "slice.lengths": (slice_(), slice_(starts=i64(0, 0))),
    "slice.axes-range": (slice_(axes=i64(-1)), slice_(axes=i64(5))),
    "slice.axes-unique": (slice_(starts=i64(0, 0), ends=i64(2, 2), axes=i64(1, 2)),
                          slice_(starts=i64(0, 0), ends=i64(2, 2), axes=i64(1, -3))),
    "softmax.axis": (unary("Softmax", F, axis=-1), unary("Softmax", F, axis=4)),
    "transpose.rank": (unary("Transpose", F), unary("Transpose", F, shape=[1] * 9)),
    "transpose.perm": (unary("Transpose", F, perm=[0, 1, 3, 2]), unary("Transpose", F, perm=[0, 1, 3, 7])),
    "unsqueeze.axes-constant": (model("Unsqueeze", [("x", F, X4)], [("ax", i64(0))]),
                                model("Unsqueeze", [("x", F, X4), ("ax", I64, [1])])),
}


def fired(m):
    view = ModelView(m)
    return {rule.id for node in view.nodes for rule, _ in node_problems(node)}


def test_every_rule_has_a_corpus_pair_and_the_corpus_is_large_enough():
    assert {r.id for r in RULES} == set(CORPUS)
    assert 2 * len(CORPUS) >= 100


@pytest.mark.parametrize("rule_id", sorted(CORPUS))
def test_refused_form_breaks_the_rule_and_accepted_form_meets_it(rule_id):
    accepted, refused = CORPUS[rule_id]
    assert rule_id in fired(refused), f"{rule_id}: the refused form passed"
    assert rule_id not in fired(accepted), f"{rule_id}: the accepted form was refused"


@pytest.mark.parametrize("rule_id", sorted(CORPUS))
def test_check_target_tensorrt_reports_the_rule_with_its_citation(rule_id):
    rule = next(r for r in RULES if r.id == rule_id)
    found = [p.reason for p in errors(check_model(CORPUS[rule_id][1], "tensorrt"))]
    # the operator matrix (docs/operators.md types) answers first where it already refuses the node's types
    assert any(rule.source in reason for reason in found) or any("(onnx-tensorrt: " in r for r in found), found


def test_every_rule_cites_a_source_line_and_quotes_it():
    pattern = re.compile(r"^(onnxOpImporters|importerUtils|onnxOpCheckers)\.cpp:\d+$")
    for rule in RULES:
        assert pattern.match(rule.source), rule
        assert len(rule.quote) > 10 and rule.why and rule.ops, rule
    for op, source in UNCONDITIONAL.items():
        assert pattern.match(source), op


def test_cubic_resize_is_accepted_for_tensorrt():
    # onnxOpImporters.cpp:4406 maps mode "cubic" to InterpolationMode::kCUBIC (docs/operators.md's prose says nearest/linear)
    m = resize(mode="cubic", cubic_coeff_a=-0.5, coordinate_transformation_mode="half_pixel")
    assert errors(check_model(m, "tensorrt")) == []


def test_fp16_conv_relu_runs_on_dla():
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float16), "w")
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                               helper.make_node("Relu", ["c"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", H, X4)], [helper.make_tensor_value_info("y", H, None)], [w])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    assert check_model(m, "tensorrt-dla") == []


def test_a_layer_dla_lacks_is_gpu_fallback_not_illegal():
    m = unary("Cast", H, to=T.FLOAT)  # ICastLayer: not a DLA layer in the guide
    problems = check_model(m, "tensorrt-dla")
    assert errors(problems) == [] and len(problems) == 1
    assert problems[0].severity == "warning" and "GPU fallback" in problems[0].reason


def test_dla_guide_limits_are_gpu_fallback_warnings():
    big_kernel = conv(w_shape=(4, 3, 33, 33))  # Convolution: kernel [1, 32] (DLA Layer Support Summary)
    # a float32 model: DLA runs it in FP16 where the build allows FP16 (--fp16; converter/targets/dla.py precision_problem)
    problems = check_model(big_kernel, resolve_target("tensorrt-dla", precision=["fp16"]))
    assert errors(problems) == [] and any("kernel [33, 33] outside [1, 32]" in p.reason for p in problems)
    assert [p.reason for p in errors(check_model(big_kernel, "tensorrt-dla"))] == [
        "input x is float32; tensorrt-dla runs FP16 and INT8 only (DLA Support): float32 runs there in FP16 when the build "
        "allows FP16 (--fp16 as trtexec's, precision: [fp16], BuilderFlag.FP16)"]
    concat_axis2 = binary("Concat", H, axis=2)  # Concatenation: channel axis only
    assert any("channel axis" in p.reason for p in check_model(concat_axis2, "tensorrt-dla"))
    assert not any("channel axis" in p.reason for p in check_model(binary("Concat", H, axis=1), "tensorrt-dla"))


def test_seed_dla_rules_stay_errors():
    # seeds (Resize "DLA 支持"): cubic is no DLA combination
    assert errors(check_model(resize(x=H, mode="cubic"), "tensorrt-dla"))


def hconv(w_shape=(4, 3, 3, 3), x_shape=X4, **attrs):
    return model("Conv", [("x", H, x_shape)], [("w", np.ones(w_shape, np.float16))], **attrs)


def hpool(op="MaxPool", kernel=(2, 2), **attrs):
    return model(op, [("x", H, X4)], kernel_shape=list(kernel), **attrs)


def hslice(starts, ends, axes, steps=None, x_shape=X4):
    consts = [("st", i64(*starts)), ("en", i64(*ends)), ("ax", i64(*axes))] + ([("sp", i64(*steps))] if steps else [])
    return model("Slice", [("x", H, x_shape)], consts)


# DLA rule id (converter/targets/dla_guide.py) -> (accepted, refused), each from the cited NvInfer.h note or guide row
DLA_CORPUS = {
    "conv.kernel": (hconv(), hconv(w_shape=(4, 3, 33, 33))),
    "conv.stride": (hconv(strides=[8, 8]), hconv(strides=[9, 9])),
    "conv.padding": (hconv(pads=[2, 2, 2, 2]), hconv(pads=[3, 3, 3, 3])),
    "conv.dilation": (hconv(dilations=[2, 2]), hconv(w_shape=(4, 3, 1, 1), dilations=[33, 33])),
    "conv.outputs": (hconv(w_shape=(8192, 3, 1, 1)), hconv(w_shape=(8193, 3, 1, 1))),
    "conv.groups": (hconv(w_shape=(3, 1, 1, 1), group=3), hconv(w_shape=(8193, 1, 1, 1), x_shape=[1, 8193, 1, 1], group=8193)),
    "activation.type": (unary("LeakyRelu", H), unary("Elu", H)),
    "activation.2d": (unary("Relu", H), unary("Relu", H, shape=[2, 3])),
    "pool.window": (hpool(kernel=(4, 4)), hpool(kernel=(9, 9))),
    "pool.stride": (hpool(strides=[2, 2]), hpool(kernel=(1, 1), strides=[17, 17])),
    "pool.padding": (hpool(kernel=(8, 8), pads=[7, 7, 7, 7]), hpool(kernel=(8, 8), pads=[8, 8, 8, 8])),
    "concat.axis": (binary("Concat", H, axis=1), binary("Concat", H, axis=3)),
    "concat.inputs": (binary("Concat", H, axis=1), model("Concat", [("a", H, X4)], axis=1)),
    "elementwise.op": (binary("Pow", H), binary("Or", B)),
    "elementwise.2d": (binary("Add", H), binary("Add", H, shape=[2, 3])),
    "unary.op": (unary("Abs", H), unary("Sqrt", H)),
    "softmax.axis": (unary("Softmax", H, axis=1), unary("Softmax", H, axis=0)),
    "slice.form": (hslice([0], [2], [1]), hslice([0], [1], [0])),
    "resize.output-dims": (resize(x=H), model("Resize", [("x", H, X4)], [("sz", i64(1, 3, 8, 8))], order=["x", "", "", "sz"])),
    "resize.scales": (resize(x=H, scales=f32(1, 1, 32, 32)), resize(x=H, scales=f32(1, 1, 1.5, 1.5))),
    "prelu.slopes": (model("PRelu", [("x", H, X4)], [("sl", np.ones((3, 1, 1), np.float16))]),
                     model("PRelu", [("x", H, X4), ("sl", H, [3, 1, 1])])),
}


def test_every_dla_rule_has_a_corpus_pair():
    from converter.targets.dla_guide import DLA_RULES

    assert {r.id for r in DLA_RULES} == set(DLA_CORPUS)


@pytest.mark.parametrize("rule_id", sorted(DLA_CORPUS))
def test_dla_rule_refused_form_is_gpu_fallback_accepted_form_is_not(rule_id):
    from converter.targets.dla_guide import DLA_RULES

    rule = next(r for r in DLA_RULES if r.id == rule_id)
    accepted, refused = DLA_CORPUS[rule_id]
    tag = f"{rule.kind}: {rule.why}:"
    hits = [p for p in check_model(refused, "tensorrt-dla") if tag in p.reason]
    assert hits and all(p.severity == "warning" and "GPU fallback" in p.reason and rule.source in p.reason for p in hits)
    assert not [p for p in check_model(accepted, "tensorrt-dla") if tag in p.reason]


def test_docs_tables_are_generated_from_the_rules():
    from pathlib import Path

    from tools.render_tensorrt_rules import DOC, render

    text = Path(DOC).read_text(encoding="utf-8")
    assert text == render(text), "docs/tensorrt.md is stale: python -m tools.render_tensorrt_rules"
    for rule in RULES:
        assert f"`{rule.id}`" in text and f"`{rule.source}`" in text


def test_qdq_without_axis_attribute_is_per_channel_on_axis_0():
    # onnxOpImporters.cpp:1521 reads axis with default nbDims, :1529 turns it into 0 (ONNX's default is 1)
    on_batch = qdq(scale=f32(1), shape=[1, 3, 4, 4])  # per-tensor: no axis question
    assert "qdq.per-channel" not in fired(on_batch)
    no_axis = qdq(scale=f32(1, 1, 1), shape=[1, 3, 4, 4])  # 3 scales, axis 0 has 1 element
    assert "qdq.per-channel" in fired(no_axis)
    assert "qdq.per-channel" not in fired(qdq(scale=f32(1, 1, 1), shape=[3, 1, 4, 4]))
