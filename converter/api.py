"""The library entry points behind each CLI command; usable without the CLI."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from .dtypes import BFLOAT16
from .errors import UserError
from .files import (bundled_specs_dir, check_distinct, check_output, check_writable_folder, save_npy_atomic,
                    write_atomic)
from .lowering import build_model
from .registry import layer_kinds
from .runtime import OPT_LEVELS, OrtRunner, check_opset, resolve_provider
from .spec import Spec, data_files, load_spec
from .compare import Tolerance
from .pool import Job, Pool, run_in_process
from .runtimes import RunConfig, check_runtime
from .selection import spec_files, spec_name_of
from .validate import CaseResult, Options, opset_for
from .xfail import load_rules_file


def convert_spec(spec_path: Path, output: str | Path | None = None, *, opset: int | None = None, provider: str | None = None,
                 target: str | None = None, max_memory: int | None = None):
    """Load, validate and lower a spec (it needs no cases) for a target; check it; write the model atomically.

    The target: ``target``, else the one ``provider`` implies (cuda: ort-cuda), else portable; the
    provider need not be installed. Without ``opset``, the spec's (else 17), lowered where needed to
    the highest one at which the target has a kernel for every node (converter/targets/opset.py).
    A node the target cannot run is a UserError (nothing is written). Returns (model, path, note).
    """
    from .targets import choose_target
    from .targets.opset import model_for_target, refuse_unrunnable, wanted_opset

    if output is not None:
        check_output("-o", output, [spec_path])  # before loading: `convert s.yaml -o s.yaml` never reads twice
    spec = load_spec(spec_path, max_memory=max_memory, require_cases=False)
    output = Path(output) if output is not None else Path(f"{spec.name}.onnx")
    check_output("-o", output, [spec_path, *data_files(spec_path)])
    if target == "auto" or (target is None and provider is None):
        model, used, note, chosen = _auto_target(spec, wanted_opset(spec, opset), fixed=opset is not None)
    else:
        chosen = choose_target(target, provider)
        model, used, note, problems = model_for_target(spec, chosen, wanted_opset(spec, opset), fixed=opset is not None)
        refuse_unrunnable(spec, chosen, problems, " (nothing written; see docs/semantics.md, Targets)", opset=used)
    _write("-o", output, model.SerializeToString())
    return model, output, note


def auto_candidates(spec) -> list[str]:
    """The targets ``--target auto`` tries, most portable first: portable, then the spec's own runtime family
    (tensorrt for trt.* layers; ort-dml, DirectML through onnxruntime, for dml.* layers)."""
    families = {op.split(".")[0] for op in spec.ops}
    out = ["portable"]
    if families == {"trt"}:
        out.append("tensorrt")
    elif families == {"dml"}:
        out.append("ort-dml")
    return out


def _auto_target(spec, opset: int, *, fixed: bool):
    """(model, opset, note, target) for the first of auto_candidates the spec fits (the model says which target was
    chosen and why: metadata ``spec2onnx.auto``); the last candidate's refusal otherwise."""
    from onnx import helper

    from .targets import TARGET_NAMES, get_target
    from .targets.opset import model_for_target, refuse_unrunnable

    candidates = [t for t in auto_candidates(spec) if t in TARGET_NAMES]
    why = []
    for i, name in enumerate(candidates):
        chosen = get_target(name)
        try:
            model, used, note, problems = model_for_target(spec, chosen, opset, fixed=fixed)
            refuse_unrunnable(spec, chosen, problems, " (nothing written; see docs/semantics.md, Targets)", opset=used)
        except UserError as exc:
            if i == len(candidates) - 1:
                raise
            why.append(f"not {name}: {str(exc).removeprefix(f'{spec.path}: ')}")
            continue
        props = {p.key: p.value for p in model.metadata_props}
        props["spec2onnx.auto"] = name + (f" ({'; '.join(why)})" if why else " (the most portable target)")
        helper.set_model_props(model, props)
        return model, used, note, chosen
    raise AssertionError("unreachable: the last candidate returns or raises")


def _write(option: str, path: Path, data: bytes) -> None:
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise UserError(f"{option} {path}: cannot write ({exc.strerror or exc})") from None


def check_report_paths(reports: dict[str, str | None], inputs) -> None:
    """Refuse report files (``{"--json": path, ...}``) that cannot be written, that are inputs, or that clash."""
    inputs = list(inputs)
    for option, path in reports.items():
        if path is not None:
            check_output(option, path, inputs)
    check_distinct(reports)


def make_options(*, runtimes=("onnxruntime",), provider: str = "cpu", opt_levels=("all",), opset: int | None = None,
                 tolerance: Tolerance | None = None, xfail_file: str | None = None, repro_dir: str | None = None,
                 plugins: tuple[str, ...] = (), max_memory: int | None = None,
                 target: str | None = None) -> Options:
    """Options for a validation run, every name checked (unknown provider, opset, runtime, target: UserError).

    ``target``: lower for it (and check the model statically) instead of for what the provider implies.
    """
    from .targets import get_target

    full_provider = resolve_provider(provider)
    configs = []
    for runtime in dict.fromkeys(runtimes or ("onnxruntime",)):
        check_runtime(runtime)
        if runtime == "onnxruntime":
            for level in opt_levels or ():
                if level not in OPT_LEVELS:  # the CLI's click.Choice checks it; the pytest plugin's option does not
                    raise UserError(f"--opt-level {level}: not one of {', '.join(OPT_LEVELS)}")
            configs += [RunConfig(runtime, full_provider, level) for level in dict.fromkeys(opt_levels or ("all",))]
        else:
            configs.append(RunConfig(runtime, "CPUExecutionProvider", "all"))
    return Options(
        configs=tuple(configs),
        opset=check_opset(opset) if opset is not None else None,
        tolerance=tolerance,
        xfail=load_rules_file(xfail_file) if xfail_file else (),
        xfail_file=xfail_file,
        repro_dir=_writable_folder("--repro-dir", repro_dir) if repro_dir is not None else None,
        plugins=tuple(plugins),
        max_memory=max_memory,
        target=get_target(target) if target else None,
    )


def _writable_folder(option: str, folder: str) -> str:
    if not str(folder):
        raise UserError(f"{option}: the folder name is empty")
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{option} {folder}: cannot create the folder ({exc.strerror})") from None
    check_writable_folder(option, folder)
    return folder


def run_validation(files: list[Path], options: Options, *, patterns=(), jobs: int = 1, timeout: float | None = None,
                   plugins: tuple[str, ...] = ()) -> Iterator[CaseResult]:
    """Results for every case of the spec files matching ``patterns``, in the order they finish.

    A spec that fails to load gives one ERROR result with ``bad_input`` set; so does a spec whose
    name an earlier spec file (in ``files`` order) already uses: names identify cases in reports, so
    the second spec is reported once and none of its cases run.
    """
    claimed: dict[str, str] = {}  # spec name -> the first file that declares it
    work = []
    for path in map(Path, files):
        name = spec_name_of(path)  # None where it cannot be told cheaply: checked on the results below
        if name is not None and name in claimed:
            yield _name_clash(str(path), name, claimed[name])
            continue
        if name is not None:
            claimed[name] = str(path)
        work.append(Job(path, tuple(patterns)))
    options = dataclasses.replace(options, threads=intra_op_threads(usable_cores(), jobs, len(work)))
    results = run_in_process(work, options) if jobs <= 0 else Pool(jobs, options, timeout, plugins).run(work)
    refused: set[str] = set()  # files whose name turned out to be taken only once they were loaded
    for result in results:
        if not result.bad_input and result.case != "<load>":
            first = claimed.setdefault(result.spec, result.path)
            if first != result.path:
                if result.path not in refused:
                    refused.add(result.path)
                    yield _name_clash(result.path, result.spec, first)
                continue
        yield result


def intra_op_threads(cores: int, jobs: int, specs: int) -> int:
    """onnxruntime's intra-op threads for a spec with big outputs (small ones always get one): the cores the
    workers leave idle. The pool starts at most one worker per spec (one in-process, -j 0), so a single big
    spec at the default -j (one worker per core) gets every core, not one."""
    workers = max(1, min(jobs, specs))
    return max(1, cores // workers)


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _name_clash(path: str, name: str, first: str) -> CaseResult:
    return CaseResult(path, "<load>", "ERROR", path=path, bad_input=True,
                      problems=[f"{path}: name: {name!r} is also the name of {first}; spec names must be unique"])


def validate_paths(paths: Iterable[Path], **option_kwargs) -> list[CaseResult]:
    """Validate everything under ``paths`` in this process (the library's simplest entry point)."""
    files = spec_files(list(paths) or [bundled_specs_dir()])
    return list(run_validation(files, make_options(**option_kwargs), jobs=0))


def run_spec(spec_path: Path, case_name: str | None, input_files: Iterable[str], output_dir: str | Path = ".",
             *, provider: str = "cpu", opset: int | None = None, max_memory: int | None = None):
    """Run a spec's model on the inputs of a case (or .npy files) and write each output as <name>.npy.

    ``output_dir`` is created when missing. A spec without cases runs on ``--input`` files alone."""
    spec = load_spec(spec_path, max_memory=max_memory, require_cases=False)
    options = make_options(provider=provider, opset=opset)
    feeds = dict(_pick_case(spec, case_name).inputs) if spec.cases or case_name is not None else {}
    read = [Path(spec_path), *data_files(spec_path)]
    for item in input_files:
        name, sep, file = item.partition("=")
        if not sep or name not in spec.network.inputs:
            raise UserError(f"--input {item}: expected NAME=FILE.npy with NAME one of {', '.join(spec.network.inputs)}")
        feeds[name] = _load_input(file, spec, name)
        read.append(Path(file))
    missing = [n for n in spec.network.inputs if n not in feeds]
    if missing:
        raise UserError(f"no data for input {missing[0]!r}: give --case or --input {missing[0]}=FILE.npy")
    if not str(output_dir):
        raise UserError("-o: the folder name is empty")
    output_dir = Path(output_dir)
    _writable_folder("-o", str(output_dir))  # created when missing
    for name in spec.network.outputs:
        check_output("-o", output_dir / f"{name}.npy", read)
    provider = options.configs[0].provider
    model = build_model(spec.network, name=spec.name, opset=opset_for(spec, options), provider=provider)
    outputs = OrtRunner(model.SerializeToString(), provider).run(feeds)
    written = []
    for name, array in outputs.items():
        path = output_dir / f"{name}.npy"
        if array.dtype == BFLOAT16.numpy:
            # .npy has no bfloat16: ml_dtypes writes opaque 2-byte records other tools cannot read.
            # float32 holds every bfloat16 value exactly.
            array = array.astype(np.float32)
        try:
            save_npy_atomic(path, array)
        except OSError as exc:
            raise UserError(f"-o {output_dir}: cannot write {path.name} ({exc.strerror or exc})") from None
        written.append((name, path, array))
    return written


def _pick_case(spec: Spec, case_name: str | None):
    if case_name is None:
        return spec.cases[0]
    for case in spec.cases:
        if case.name == case_name:
            return case
    have = ", ".join(c.name for c in spec.cases) or "none"
    raise UserError(f"--case {case_name}: {spec.path} has no such case; it has {have}")


def _load_input(file: str, spec: Spec, name: str) -> np.ndarray:
    want = spec.network.inputs[name]
    try:
        array = np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise UserError(f"--input {name}={file}: cannot load ({exc.strerror if isinstance(exc, OSError) and exc.strerror else exc})") from None
    if not isinstance(array, np.ndarray):  # a .npz archive: a dict-like of arrays
        array.close()
        raise UserError(f"--input {name}={file}: is a .npz archive of several arrays; give one array as a .npy file (numpy.save)")
    if array.dtype != want.dtype.numpy or array.shape != want.shape:
        raise UserError(f"--input {name}={file}: is {array.dtype}{list(array.shape)}, input {name!r} is {want}")
    return array


def describe_layers() -> str:
    lines = []
    for name, kind in layer_kinds().items():
        lines.append(f"{name}: {kind.summary}")
        at_least = f" (the last {kind.max_inputs - kind.min_inputs} optional)" if kind.min_inputs < kind.max_inputs else ""
        lines.append(f"  inputs: {', '.join(kind.inputs)}{at_least}")
        if kind.notes:
            lines.append(f"  {kind.notes}")
        for attr_name, attr in kind.attributes.items():
            default = "required" if attr.required else f"default {_show(attr.default)}"
            lines.append(f"  {attr_name} ({default}): {attr.describe()}")
            lines.append(f"      {attr.doc}")
        if name.startswith("trt."):
            from .quantization import LAYER_HELP

            lines += LAYER_HELP
        lines.append("")
    return "\n".join(lines).rstrip()


def _show(value) -> str:
    if isinstance(value, str) and not value or value is None:
        return "none"
    if isinstance(value, np.ndarray):
        return "[]" if value.size == 0 else str(value.tolist())
    return str(value)
