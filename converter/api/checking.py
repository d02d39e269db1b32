"""``spec2onnx.check`` and ``spec2onnx check``: the static check of a spec (lowered first), of a model, or of many
ONNX files (the file loop, the probe and the grouping live in converter/model/check.py; this joins the spec
pipeline's target resolution and plugins to it)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import onnx

from ..errors import UserError
from ..model.check import CheckRun, check_file, check_loaded, check_paths
from ..pipeline import stages as pipeline
from ..pipeline.plugins import load_plugins
from .specs import SpecSource, load_spec

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

__all__ = ["check", "CheckReport", "CheckRun", "check_command"]


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check` returns: whether a target can run the model, and why not."""

    spec: str  # the spec's name (the model's graph name, or its path, for a model)
    target: str
    problems: tuple[str, ...]  # one line each; empty when the target can run every node
    warnings: tuple[str, ...] = ()  # runs there, but results are known to differ

    @property
    def ok(self) -> bool:
        """True when nothing stops the target from running the model."""
        return not self.problems




def check(source: "SpecSource | onnx.ModelProto | Iterable[str | os.PathLike]", target: "str | Iterable[str]" = "portable",
          *, opset: int | None = None, precision: Iterable[str] = ()) -> "CheckReport | CheckRun":
    """Statically check that ``target`` can run a model, without running it (``spec2onnx check``).

    ``source``: a spec (a path, a mapping or a ``Spec``: it is lowered for ``target`` first, its
    legalizations applied) or an ONNX model (an ``onnx.ModelProto`` or a ``.onnx`` path): a ``CheckReport``.
    Every node the target's capability tables, run-time limits and, for ``tensorrt-dla``, DLA rules refuse is a
    problem; known numerical differences are warnings. A spec the target cannot take at all (a
    ``UserError`` while lowering, e.g. a DLA rule) is one problem. ``precision``: what the TensorRT build
    allows, as trtexec's ``--fp16``/``--int8`` (with a spec: beyond its own ``precision``).

    Several ONNX files, or a folder (its ``*.onnx``, recursively), as ``spec2onnx check PATHS`` takes them: a
    ``CheckRun``, what the command prints and writes: each file's lines (``files[i].lines``), the table
    (``table``), the ``--json`` report (``json``) and the exit status (``status``); ``target`` may then be
    several names, as repeated ``--target``.
    """
    many = isinstance(source, (list, tuple)) or (isinstance(source, (str, os.PathLike)) and Path(source).is_dir())
    if many:
        if isinstance(source, (list, tuple)):
            for item in source:
                if not isinstance(item, (str, os.PathLike)):
                    raise UserError(f"check([...]): a list holds .onnx files or folders (paths), not "
                                    f"{type(item).__name__}; check one model or spec on its own: check(model, target)")
        return check_command([source] if isinstance(source, (str, os.PathLike)) else list(source),
                             [target] if isinstance(target, str) else list(target), precision=precision)
    if not isinstance(target, str):
        raise UserError(f"check(target={target!r}): one target name for one model or spec (several: give a list of files)")
    chosen = pipeline.resolve_target(target, precision=precision)
    if isinstance(source, onnx.ModelProto) or (isinstance(source, (str, os.PathLike))
                                                and Path(source).suffix == ".onnx"):
        if isinstance(source, onnx.ModelProto):  # onnx's checker first, as for a file
            name, problems = source.graph.name, check_loaded(source, [chosen])[chosen.name]
        else:  # structure only, bounded (converter/untrusted/reading.py)
            report = check_file(source, [chosen])
            if report.error is not None:
                raise UserError(report.error)
            name, problems = str(source), report.problems(chosen.name)
    else:
        spec = load_spec(source, require_cases=False)  # checking needs no cases (as converting)
        name = spec.name
        try:
            problems = pipeline.check(spec, chosen, opset)
        except UserError as exc:
            return CheckReport(name, chosen.name, (str(exc),))
    failing = pipeline.errors(problems)
    return CheckReport(name, chosen.name, tuple(str(p) for p in failing),
                       tuple(str(p) for p in problems if p not in failing))


def check_command(paths, targets: Iterable[str] = (), *, precision: Iterable[str] = (), verbose: bool = False,
                  quiet: bool = False, probe: bool = False, layers: bool = False, json_path=None, json: bool = True,
                  html_path=None, html_nodes: int = 200, argv=(),
                  max_memory: int | None = None, plugins: Iterable[str] = (),
                  on_file: "Callable | None" = None, warn: "Callable | None" = None,
                  on_done: "Callable | None" = None) -> CheckRun:
    """``spec2onnx check PATHS``: the plugins imported, the targets resolved (default portable; each name once),
    then each file read once and checked for each (converter/model/check.py ``check_paths``; ``on_file(report)``
    as each is done; ``warn(line)`` for a line for stderr before the files': --fp16/--int8 meaning nothing there)."""
    if verbose and quiet:  # (before anything is imported or looked up, as every usage error)
        raise UserError("-q and -v: give one of them (-q: errors only; -v: every node)")
    load_plugins(plugins)
    precision = tuple(precision)
    chosen = {t.name: t for t in (pipeline.resolve_target(t, precision=precision) for t in (list(targets) or ["portable"]))}
    unused = pipeline.precision_unused(list(chosen), precision)
    if unused and warn is not None:
        warn(unused)
    return check_paths(paths, list(chosen.values()), verbose=verbose, quiet=quiet, probe_runtime=probe, layers=layers,
                       max_memory=max_memory, json=json, json_path=json_path, warnings=[unused] if unused else [],
                       html_path=html_path, html_nodes=html_nodes, argv=argv,
                       on_file=on_file or (lambda report: None), on_done=on_done or (lambda run: None))
