"""convert/validate --target: lowering for a runtime that need not be installed; the opset rule; DLA refusals."""

from __future__ import annotations

import onnx
import pytest
from click.testing import CliRunner

from cli import main
from converter.pipeline.spec import load_spec
from converter.targets import dla

from ..conftest import SPECS

EQUAL_OPSET19 = """\
name: eq19
opset: 19
network:
  inputs:
    a: {dtype: int32, shape: [1, 4]}
    b: {dtype: int32, shape: [1, 4]}
  layers:
    - {name: eq, op: trt.ElementWise, inputs: [a, b], operation: EQUAL}
  outputs: [eq]
cases:
  - name: c
    inputs: {a: [[1, 2, 3, 4]], b: [[1, 0, 3, 0]]}
    expected: {eq: [[true, false, true, false]]}
"""


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def target_of(path) -> str:
    return {p.key: p.value for p in onnx.load(path).metadata_props}["spec2onnx.target"]


@pytest.mark.parametrize("args, target", [((), "portable"), (("--provider", "cuda"), "ort-cuda"),
                                          (("--provider", "tensorrt"), "tensorrt"), (("--target", "openvino"), "openvino")])
def test_convert_targets_without_the_runtime_installed(args, target, tmp_path):
    out = tmp_path / "m.onnx"
    result = invoke("convert", SPECS / "trt_scale/seed-scale-4d.yaml", "-o", out, *args)
    assert result.exit_code == 0, result.output
    assert f"target {target})" in result.output and target_of(out) == target


@pytest.fixture
def document_table(monkeypatch, request):
    """ort-cuda checked with OperatorKernels.md's CUDA rows alone (tools/data/ort-cuda-kernels.md, no measured rows):
    there CUDA registers Equal 13+ only (ort-cuda-notes.md section 0), which matches since-version 13, not Equal-19.
    (onnxruntime-gpu 1.31.1 ran Equal-19 on an H100, so the committed table has it: test_check.py.)"""
    from converter.targets import check
    from tools import measure_cuda

    meta, _ = measure_cuda.read_cases(measure_cuda.CASES)
    table, real = measure_cuda.build_table(meta, [], {}), check.kernel_table
    monkeypatch.setattr(check, "kernel_table", lambda target: table if target == "ort-cuda" else real(target))
    monkeypatch.setenv("SPEC2ONNX_CACHE", "off")  # lowered models are cached with their check's verdict


def test_the_opset_is_lowered_until_every_node_has_a_kernel(write_spec, tmp_path, document_table):
    spec, out = write_spec(EQUAL_OPSET19), tmp_path / "eq.onnx"
    result = invoke("convert", spec, "-o", out, "--target", "ort-cuda")
    assert result.exit_code == 0, result.output
    assert "note: opset 18 instead of 19: at opset 19, eq (Equal): no kernel for since-version 19" in result.output
    model = onnx.load(out)
    assert model.opset_import[0].version == 18
    assert "opset 18 instead of 19" in {p.key: p.value for p in model.metadata_props}["spec2onnx.opset_choice"]
    # the CPU EP registers Equal 19+: no change there
    assert invoke("convert", spec, "-o", out, "--target", "ort-cpu").exit_code == 0
    assert onnx.load(out).opset_import[0].version == 19


def test_the_committed_cuda_table_runs_equal_19(write_spec, tmp_path):
    spec, out = write_spec(EQUAL_OPSET19), tmp_path / "eq.onnx"
    result = invoke("convert", spec, "-o", out, "--target", "ort-cuda")
    assert result.exit_code == 0 and "note:" not in result.output, result.output
    assert onnx.load(out).opset_import[0].version == 19


@pytest.mark.parametrize("target", ["ort-cpu", "ort-cuda"])
def test_a_spec_opset_newer_than_onnxruntime_loads_is_lowered_to_the_newest_it_loads(target, write_spec, tmp_path, monkeypatch, request):
    """onnx writes opsets up to 28 and a spec may ask for one, but onnxruntime 1.31 loads at most 26: as for
    TensorRT's 9..24, the opset search goes down from the spec's (an explicit --opset is kept and refused).
    With the committed tables (1.31.1's, as on a machine without onnxruntime), whatever onnxruntime is installed."""
    from converter.targets import ort_kernels

    monkeypatch.setenv("SPEC2ONNX_KERNEL_TABLES", "committed")
    ort_kernels.kernel_table.cache_clear()
    request.addfinalizer(ort_kernels.kernel_table.cache_clear)  # after monkeypatch's undo: the registry again
    spec, out = write_spec(EQUAL_OPSET19.replace("opset: 19", "opset: 27").replace("EQUAL", "SUM")
                           .replace("expected: {eq: [[true, false, true, false]]}", "expected: {eq: [[2, 2, 6, 4]]}")), tmp_path / "eq.onnx"
    result = invoke("convert", spec, "-o", out, "--target", target)
    assert result.exit_code == 0, result.output
    assert "note: opset 26 instead of 27" in result.output and "newer than onnxruntime 1.31.1 loads" in result.output
    assert onnx.load(out).opset_import[0].version == 26
    out.unlink()
    result = invoke("convert", spec, "-o", out, "--target", target, "--opset", "27")
    assert result.exit_code == 2 and not out.exists(), result.output


def test_an_explicit_opset_is_kept_and_a_node_without_kernel_is_an_error(write_spec, tmp_path, document_table):
    spec, out = write_spec(EQUAL_OPSET19), tmp_path / "eq.onnx"
    result = invoke("convert", spec, "-o", out, "--target", "ort-cuda", "--opset", "19")
    assert result.exit_code == 2
    assert "eq (Equal): no kernel for since-version 19" in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_validate_target_lowers_for_it_runs_on_cpu_and_checks_statically(write_spec, document_table):
    spec = write_spec(EQUAL_OPSET19)
    result = invoke("validate", spec, "-j", "0", "--target", "ort-cuda")
    assert result.exit_code == 0, result.output
    result = invoke("validate", spec, "-j", "0", "--target", "ort-cuda", "--opset", "19")
    assert result.exit_code == 1  # its only case refused: nothing validated
    assert "REFUSED eq19/c" in result.output and "static check: ort-cuda: eq (Equal)" in result.output


DLA_SPEC = """\
name: dla
network:
  inputs:
    x: {{dtype: {dtype}, shape: [1, 2, 2, 2]}}
    y: {{dtype: {dtype}, shape: {yshape}}}
  layers:
    - {{name: out, op: trt.ElementWise, inputs: [x, y], operation: {op}}}
  outputs: [out]
cases:
  - name: c
    inputs: {{x: {{random: uniform, low: 1, high: 2, seed: 1}}, y: {{random: uniform, low: 1, high: 2, seed: 2}}}}
"""


@pytest.mark.parametrize("dtype, op, yshape, rule", [
    ("float32", "SUM", "[1, 2, 2, 2]", "FP16 and INT8 only"),
    ("float16", "POWER", "[1, 2, 2, 2]", "exactly one input"),  # POW: exactly one constant input
    ("float16", "LESS", "[1, 1, 2, 1]", "NCHW, NC11 or N111"),
    ("float16", "FLOOR_DIV", "[1, 2, 2, 2]", "DLA runs SUM"),
])
def test_dla_rules_refuse_a_spec_naming_the_rule(dtype, op, yshape, rule, write_spec, tmp_path):
    """convert: exit status 2 (no model for the target); validate: the case is REFUSED (issue 26), and as the only
    case was refused, the run validated nothing (exit status 1)."""
    spec = write_spec(DLA_SPEC.format(dtype=dtype, op=op, yshape=yshape))
    result = invoke("convert", spec, "-o", tmp_path / "m.onnx", "--target", "tensorrt-dla")
    assert result.exit_code == 2 and rule in result.output and "network.layers[0]" in result.output
    result = invoke("validate", spec, "-j", "0", "--target", "tensorrt-dla")
    assert result.exit_code == 1 and rule in result.output and "REFUSED dla/c" in result.output


def test_dla_rules_accept_the_seed_combinations(write_spec):
    ok = write_spec(DLA_SPEC.format(dtype="float16", op="LESS", yshape="[1, 2, 1, 1]"))
    dla.refuse_layers(load_spec(ok))  # NC11 broadcast: allowed
    resize = write_spec("""\
name: r
network:
  inputs: {x: {dtype: float16, shape: [1, 1, 2, 2]}}
  layers:
    - {name: out, op: trt.Resize, inputs: [x], resize_mode: NEAREST, shape: [1, 1, 4, 4],
       coordinate_transformation: ASYMMETRIC, nearest_rounding: FLOOR}
  outputs: [out]
cases:
  - {name: c, inputs: {x: [[[[1, 2], [3, 4]]]]}}
""", "r.yaml")
    dla.refuse_layers(load_spec(resize))
    cubic = write_spec(resize.read_text().replace("NEAREST", "CUBIC"), "c.yaml")
    with pytest.raises(dla.DlaRuleError, match="resize_mode CUBIC"):
        dla.refuse_layers(load_spec(cubic))
    power = write_spec("""\
name: p
network:
  inputs: {x: {dtype: float16, shape: [1, 1, 2, 2]}}
  layers:
    - {name: out, op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [2], power: [2]}
  outputs: [out]
cases:
  - {name: c, inputs: {x: [[[[1, 2], [3, 4]]]]}}
""", "p.yaml")
    with pytest.raises(dla.DlaRuleError, match="custom power"):
        dla.refuse_layers(load_spec(power))


def test_tensorrt_refuses_a_spec_whose_inputs_have_no_tensorrt_type(write_spec, tmp_path):
    # onnx-tensorrt docs/operators.md: TensorRT has no int16 (nor uint16, uint32) tensors
    spec = write_spec("""\
name: i16
network:
  inputs: {x: {dtype: int16, shape: [4]}}
  constants: {s: {dtype: float32, shape: [4], data: [0.5, 0.5, 0.5, 0.5]}}
  layers:
    - {name: y, op: dml.DequantizeLinear, inputs: [x, s]}
  outputs: [y]
cases:
  - {name: c, inputs: {x: [1, 2, 3, 4]}}
""")
    for target in ("tensorrt", "portable"):
        result = invoke("convert", spec, "-o", tmp_path / "m.onnx", "--target", target)
        assert result.exit_code == 2 and "input 'x' is int16" in result.output, result.output
    assert invoke("convert", spec, "-o", tmp_path / "m.onnx", "--target", "ort-cpu").exit_code == 0


def test_tensorrt_refuses_a_tensor_of_more_than_8_dimensions(write_spec, tmp_path):
    # NvInfer.h: Dims::MAX_DIMS = 8, "the maximum rank (number of dimensions) supported for a tensor"
    def spec(rank):
        return write_spec(f"""\
name: rank{rank}
network:
  inputs: {{x: {{dtype: float32, shape: {[1] * (rank - 1) + [2]}}}}}
  layers:
    - {{name: y, op: trt.ElementWise, inputs: [x, x], operation: SUM}}
  outputs: [y]
cases:
  - {{name: c, inputs: {{x: {{random: uniform, seed: 1}}}}}}
""", f"rank{rank}.yaml")
    out = tmp_path / "m.onnx"
    for target in ("tensorrt", "portable", "tensorrt-dla"):
        result = invoke("convert", spec(9), "-o", out, "--target", target)
        assert result.exit_code == 2 and not out.exists(), result.output
        assert "tensor 'x' has 9 dimensions" in result.output and "at most 8" in result.output, result.output
        assert invoke("convert", spec(8), "-o", out, "--target", target).exit_code == (2 if target == "tensorrt-dla" else 0)
        out.unlink(missing_ok=True)
    assert invoke("convert", spec(9), "-o", out, "--target", "ort-cpu").exit_code == 0


DQ16 = """\
name: dq16
network:
  inputs: {x: {dtype: int8, shape: [1, 2, 2, 2]}}
  constants: {s: {dtype: float16, shape: [1, 2, 2, 2], data: [[[[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]]]]}}
  layers:
    - {name: y, op: dml.DequantizeLinear, inputs: [x, s]}
  outputs: [y]
"""


def test_with_no_opset_given_convert_chooses_the_lowest_the_target_runs_fully(write_spec, tmp_path):
    """Issue 19 item 13. DequantizeLinear writes float16 from opset 19 (ONNX DequantizeLinear-19); below, the
    lowering casts, and DLA has no Cast layer: TensorRT runs that Cast on the GPU (GPU fallback, NVIDIA's DLA
    guide), a warning, not a refusal (issue 21 item 6). With no opset given anywhere, convert took the
    default 17 (before the GPU fallback rule it failed, telling the user to pass --opset 19): now it takes
    the lowest opset at which every node runs on the target, 19, and says so on stderr."""
    out = tmp_path / "m.onnx"
    result = CliRunner().invoke(main, ["convert", str(write_spec(DQ16)), "-o", str(out), "--target", "tensorrt-dla"])
    assert result.exit_code == 0 and out.exists(), result.output
    assert onnx.load(out).opset_import[0].version == 19
    assert "note: opset 19 instead of the default 17" in result.stderr and "(Cast)" in result.stderr, result.stderr
    assert "note:" not in result.stdout and "wrote" in result.stdout


@pytest.mark.parametrize("given", ["option", "spec"])
def test_an_opset_given_is_kept(write_spec, tmp_path, given):
    """An opset the user gave (--opset 17, or the spec's opset: 17) is never raised: the Cast falls back to the GPU."""
    spec = write_spec(DQ16 + ("opset: 17\n" if given == "spec" else ""))
    out = tmp_path / "m.onnx"
    result = invoke("convert", spec, "-o", out, "--target", "tensorrt-dla", *(["--opset", "17"] if given == "option" else []))
    assert result.exit_code == 0 and onnx.load(out).opset_import[0].version == 17, result.output
    assert invoke("convert", spec, "-o", out, "--target", "tensorrt-dla", "--opset", "19").exit_code == 0
