"""The library entry points behind each CLI command; usable without the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from .errors import UserError
from .files import bundled_specs_dir, save_npy_atomic, write_atomic
from .lowering import build_model
from .registry import layer_kinds
from .runtime import OrtRunner, check_opset, resolve_provider
from .spec import Spec, load_spec
from .validate import CaseResult, Options, opset_for, validate_paths


def convert_spec(spec_path: Path, output: Path | None = None, *, opset: int | None = None, provider: str = "cpu"):
    """Load, validate and lower a spec; write the model atomically. Returns (model, path written)."""
    spec = load_spec(spec_path)
    options = _options(provider, opset)
    model = build_model(spec.network, name=spec.name, opset=opset_for(spec, options), provider=options.provider, doc=spec.source)
    output = Path(output) if output else Path(f"{spec.name}.onnx")
    if not output.parent.is_dir():
        raise UserError(f"{output}: folder {output.parent} does not exist")
    write_atomic(output, model.SerializeToString())
    return model, output


def run_validation(paths: Iterable[Path], *, provider: str = "cpu", opset: int | None = None,
                   opt_levels: tuple[str, ...] = ("all",)) -> Iterator[CaseResult]:
    options = _options(provider, opset, tuple(opt_levels) or ("all",))
    return validate_paths(list(paths) or [bundled_specs_dir()], options)


def run_spec(spec_path: Path, case_name: str | None, input_files: Iterable[str], output_dir: Path,
             *, provider: str = "cpu", opset: int | None = None):
    """Run a spec's model on the inputs of a case (or .npy files) and write each output as <name>.npy."""
    spec = load_spec(spec_path)
    options = _options(provider, opset)
    feeds = dict(_pick_case(spec, case_name).inputs) if spec.cases else {}
    for item in input_files:
        name, sep, file = item.partition("=")
        if not sep or name not in spec.network.inputs:
            raise UserError(f"--input {item}: expected NAME=FILE.npy with NAME one of {', '.join(spec.network.inputs)}")
        feeds[name] = _load_input(file, spec, name)
    missing = [n for n in spec.network.inputs if n not in feeds]
    if missing:
        raise UserError(f"no data for input {missing[0]!r}: give --case or --input {missing[0]}=FILE.npy")
    if not output_dir.is_dir():
        raise UserError(f"-o {output_dir}: no such folder")
    model = build_model(spec.network, name=spec.name, opset=opset_for(spec, options), provider=options.provider)
    outputs = OrtRunner(model.SerializeToString(), options.provider).run(feeds)
    written = []
    for name, array in outputs.items():
        path = output_dir / f"{name}.npy"
        save_npy_atomic(path, array)
        written.append((name, path, array))
    return written


def _pick_case(spec: Spec, case_name: str | None):
    if case_name is None:
        return spec.cases[0]
    for case in spec.cases:
        if case.name == case_name:
            return case
    raise UserError(f"--case {case_name}: {spec.path} has no such case; it has {', '.join(c.name for c in spec.cases)}")


def _load_input(file: str, spec: Spec, name: str) -> np.ndarray:
    want = spec.network.inputs[name]
    try:
        array = np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise UserError(f"--input {name}={file}: cannot load ({exc})") from None
    if array.dtype != want.dtype.numpy or array.shape != want.shape:
        raise UserError(f"--input {name}={file}: is {array.dtype}{list(array.shape)}, input {name!r} is {want}")
    return array


def _options(provider: str, opset: int | None, opt_levels: tuple[str, ...] = ("all",)) -> Options:
    return Options(provider=resolve_provider(provider), opset=check_opset(opset) if opset is not None else None, opt_levels=opt_levels)


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
        lines.append("")
    return "\n".join(lines).rstrip()


def _show(value) -> str:
    if isinstance(value, str) and not value or value is None:
        return "none"
    if isinstance(value, np.ndarray):
        return "[]" if value.size == 0 else str(value.tolist())
    return str(value)
