"""``spec2onnx reduce SPEC``: the layer, and the lowered nodes within it, where a spec's lowering first differs from
its numpy reference.

A spec's model is lowered as ``validate`` lowers it for onnxruntime's CPU provider (converter/pipeline.py,
``lowered``: the cache's copy, the opset search included), and then, for the case asked for (``--case``; by default
each case in turn, up to the first that fails):

- the model runs once on onnxruntime with every tensor marked (``run_model`` with --mark-all: its child process),
  which gives each layer's output (a lowering names its last tensor after the layer: converter/lowering/builder.py)
  and every tensor inside it;
- the case fails where a network output differs from the reference's (converter/reference: ``run_layers``, every
  layer's value) at the tolerance validate uses (``pipeline.tolerance_of``); only the layers those outputs depend on
  are looked at;
- the layer blamed is the first of them, in the network's order, whose output on onnxruntime differs from its own
  reference run on onnxruntime's values of its inputs (``run_layer``): the layer on its own, whatever came before it
  (a difference within tolerance upstream cannot move the blame downstream). Where no layer differs on its own (a
  difference grown from differences each within tolerance), the first whose output differs from the reference's
  end-to-end value is named, and the report says so;
- its lowered nodes (the model's nodes between the previous layer's last node and its own: build_model appends
  each layer's nodes in the network's order) are cut out as SMALL.onnx, its inputs (onnxruntime's values)
  written as SMALL.inputs.npz and the layer's reference on them as SMALL.outputs.npz, the golden outputs of
  ``spec2onnx run SMALL.onnx --runtime onnxruntime --load-inputs ... --load-outputs ...``, which shows the failure;
- SMALL.onnx runs once more on onnxruntime and onnx's reference evaluator with every tensor marked: the first of its
  nodes (topological order) whose output differs between the two is named, where one does; where none does, the
  runtimes agree and the lowering itself differs from the reference.

Ctrl-C (or SIGTERM) before the layer is found stops it with nothing written (exit 130, 143); once it is found and
written, Ctrl-C during the runtimes' comparison inside it keeps what was written and says so.
"""

from __future__ import annotations

import shlex
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import onnx

from . import reference
from .compare import Tolerance, compare, resolve_tolerance
from .errors import EXIT_FAILED, EXIT_OK, InternalError, UserError, printable
from .files import as_argument, save_arrays, write_output
from .model.inputs import dtype_of_array, load_arrays
from .model.reduce import _value_info, inputs_path, outputs_path
from .model.run import check_written, make_run_options, run_model, topological_order, _used_names
from .network import Layer, Network
from .pipeline import stages as pipeline
from .pipeline.spec import Spec, data_files, load_spec
from .pipeline.plugins import load_plugins
from .process.interrupts import exit_status

__all__ = ["SpecReduction", "layer_nodes", "reduce_spec", "reduce_spec_command"]


@dataclass
class SpecReduction:
    """What ``reduce_spec`` found: the case, the layer, its nodes, the first node that differs between runtimes."""

    path: str
    case: str = ""  # the failing case looked at; "" where none fails
    cases: list = field(default_factory=list)  # the cases looked at, in order
    layer: str = ""
    kind: str = ""
    on_its_own: bool = True  # the layer differs from its reference on its own inputs (else: end to end only)
    nodes: list = field(default_factory=list)  # (name, op type) of the layer's lowered nodes, in the model's order
    difference: str = ""  # the layer's output against its reference: the mismatch, described
    tolerance: Tolerance | None = None
    first_node: tuple | None = None  # (name, op type, tensor) of the first node whose output differs between runtimes
    runtimes_note: str = ""  # what the runtimes' comparison inside the layer found
    failing_outputs: list = field(default_factory=list)  # the network outputs that differ in the case
    seconds: float = 0.0
    output: str | None = None
    inputs_file: str | None = None
    outputs_file: str | None = None
    interrupted: int = 0  # Ctrl-C (130) or SIGTERM (143) once the layer was found and written

    @property
    def status(self) -> int:
        """0: every case agrees with the reference (nothing written); 1: the layer found; 130 or 143: interrupted."""
        return (self.interrupted or EXIT_FAILED) if self.case else EXIT_OK

    def lines(self) -> list[str]:
        """What ``reduce SPEC`` prints: nothing to reduce; or the case, the layer, its nodes, the runtimes' note, the
        files written and the command that shows the failure."""
        if not self.case:
            looked = f"case {self.cases[0]}" if len(self.cases) == 1 else f"its {len(self.cases)} cases"
            return [f"{self.path}: {looked}: the lowering agrees with the reference: nothing to reduce (nothing written)"]
        many = len(self.failing_outputs) > 1
        how = "differs from its reference on its own inputs" if self.on_its_own else \
            "is the first whose output differs from the reference (no layer differs on its own inputs)"
        argv = ["spec2onnx", "run", as_argument(self.output), "--runtime", "onnxruntime", "--load-inputs",
                as_argument(self.inputs_file), "--load-outputs", as_argument(self.outputs_file), "--atol", f"{self.tolerance.atol:g}", "--rtol",
                f"{self.tolerance.rtol:g}"]
        return [f"{self.path}: case {self.case}: output{'s' * many} {', '.join(repr(o) for o in self.failing_outputs)} "
                f"differ{'s' * (not many)} from the reference",
                f"layer {self.layer!r} ({self.kind}) {how}: {printable(self.difference)}",
                f"  its {len(self.nodes)} lowered node{'s' * (len(self.nodes) != 1)}: "
                + ", ".join(f"{name!r} ({op})" for name, op in self.nodes),
                f"  {printable(self.runtimes_note)}",
                f"{self.output}: the nodes of layer {self.layer!r}; its inputs: {self.inputs_file}; the reference's "
                f"output: {self.outputs_file} (in {self.seconds:.1f} s)",
                "reproduce: " + shlex.join(argv)]


def reduce_spec_command(path, output, *, case_name: str | None = None, opset: int | None = None, plugins=(),
                        max_memory: int | None = None, progress: Callable[[str], None] = lambda line: None) -> SpecReduction:
    """``spec2onnx reduce SPEC``: the plugins imported (a kind the spec uses may come from one), then reduce_spec."""
    load_plugins(plugins)
    return reduce_spec(path, output, case_name=case_name, opset=opset, max_memory=max_memory, progress=progress)


def layer_nodes(model: onnx.ModelProto, network: Network) -> dict[str, list[int]]:
    """{layer name: indices of its lowered nodes}: build_model appends each layer's nodes in the network's order,
    the last one giving the tensor named after the layer."""
    found, k, current = {}, 0, []
    layers = network.layers
    for i, node in enumerate(model.graph.node):
        if k == len(layers):
            raise InternalError(f"node {node.name!r} comes after the last layer's tensor {layers[-1].name!r}")
        current.append(i)
        if layers[k].name in node.output:
            found[layers[k].name], current, k = current, [], k + 1
    if k != len(layers):
        raise InternalError(f"no lowered node gives layer {layers[k].name!r}'s tensor")
    return found


def _ancestors(network: Network, outputs) -> set[str]:
    """The layers ``outputs`` depend on (their own included)."""
    wanted, names = set(), set(outputs)
    for layer in reversed(network.layers):
        if layer.name in names:
            wanted.add(layer.name)
            names |= set(layer.inputs)
    return wanted


def _case(spec: Spec, name: str | None):
    if name is None:
        return list(spec.cases)
    for case in spec.cases:
        if case.name == name:
            return [case]
    raise UserError(f"--case {name}: {spec.path} has no such case; it has {', '.join(c.name for c in spec.cases) or 'none'}")


def reduce_spec(path, output, *, case_name: str | None = None, opset: int | None = None, max_memory: int | None = None,
                progress: Callable[[str], None] = lambda line: None) -> SpecReduction:
    """Find the layer of the spec at ``path`` whose lowering first differs from the reference (module docstring);
    write its lowered nodes to ``output`` with the files beside it. Where no case fails, nothing is written
    (``SpecReduction.case`` ""). Bad input: UserError before anything is written."""
    t0 = time.perf_counter()
    path = str(path)
    if output is None or not str(output):
        raise UserError("-o: give the file for the reduced model (-o SMALL.onnx)")
    spec = load_spec(path, max_memory=max_memory)
    options = pipeline.make_options(opset=opset, max_memory=max_memory)
    run_options = make_run_options(runtimes=("onnxruntime",), max_memory=max_memory)
    check_written({"-o": str(output), "-o (its inputs file)": inputs_path(output),  # (nor the spec's data files)
                   "-o (its golden outputs file)": outputs_path(output)}, run_options, path, data_files(path))
    cases = _case(spec, case_name)
    progress(f"reduce: lowering {spec.name} ({len(spec.network.layers)} layers) as validate does, for onnxruntime")
    model_bytes, used_opset = pipeline.lowered(spec, options)
    model = onnx.load_from_string(model_bytes)
    groups = layer_nodes(model, spec.network)
    result = SpecReduction(path)
    with tempfile.TemporaryDirectory(prefix="spec2onnx-reduce-") as folder:
        model_file = Path(folder, "lowered.onnx")
        model_file.write_bytes(model_bytes)
        for case in cases:
            result.cases.append(case.name)
            progress(f"reduce: case {case.name}: the lowered model ({len(model.graph.node)} nodes, opset {used_opset}) "
                     "on onnxruntime with every tensor marked, and the reference layer by layer")
            feeds_file = Path(folder, "case.inputs.npz")
            save_arrays("--case", feeds_file, dict(case.inputs))
            ran = _every_tensor(model_file, "onnxruntime", str(feeds_file), max_memory, Path(folder, "case.outputs.npz"))
            if isinstance(ran, str):
                raise UserError(f"{path}: case {case.name}: onnxruntime cannot run the lowered model: {ran}")
            got = ran
            want = reference.run_layers(spec.network, dict(case.inputs))

            def differs(tensor: str, against: dict) -> str:
                tol = pipeline.tolerance_of(spec, tensor, case, options)
                mismatch = compare(got[tensor], against[tensor], tol) if tensor in got else None
                if tensor not in got:
                    return "onnxruntime gave no such tensor"
                return f"{mismatch.describe()} ({tol.describe()})" if mismatch else ""

            failing = [name for name in spec.network.outputs if differs(name, want)]
            if not failing:
                progress(f"reduce: case {case.name}: every output agrees with the reference")
                continue
            result.case, result.failing_outputs = case.name, failing
            suspects = [layer for layer in spec.network.layers if layer.name in _ancestors(spec.network, failing)]
            blamed, local = None, {}

            def own(layer: Layer) -> dict:  # the layer's reference on onnxruntime's values of its inputs
                args = [spec.network.constants[t] if t in spec.network.constants else
                        case.inputs[t] if t in case.inputs else got[t] for t in layer.inputs]
                return {layer.name: reference.run_layer(spec.network, layer, args)}

            for layer in suspects:
                local = own(layer)
                found = differs(layer.name, local)
                progress(f"reduce: case {case.name}: layer {layer.name} ({layer.op}) on its own inputs: "
                         + ("differs" if found else "agrees"))
                if found:
                    blamed, result.difference = layer, found
                    break
            if blamed is None:  # no layer differs on its own: the first whose value differs end to end
                result.on_its_own = False
                for layer in suspects:
                    found = differs(layer.name, want)
                    if found:
                        blamed, result.difference, local = layer, found, own(layer)
                        break
            if blamed is None:  # (an output differs, so its own layer does)
                raise InternalError(f"case {case.name}: outputs {failing} differ, no layer does")
            result.layer, result.kind = blamed.name, blamed.op
            result.tolerance = pipeline.tolerance_of(spec, blamed.name, case, options)
            result.nodes = [(model.graph.node[i].name, model.graph.node[i].op_type) for i in groups[blamed.name]]
            small, feeds = _cut(model, groups[blamed.name], blamed, got, case.inputs)
            save_arrays("-o", inputs_path(output), feeds)  # (the model last: no SMALL.onnx without its inputs)
            save_arrays("-o", outputs_path(output), local)
            write_output("-o", output, small.SerializeToString())
            result.output, result.inputs_file, result.outputs_file = str(output), inputs_path(output), outputs_path(output)
            progress(f"reduce: layer {blamed.name}'s {len(result.nodes)} lowered nodes on onnxruntime and "
                     "onnx-reference with every tensor marked")
            try:  # (the layer is found and written: Ctrl-C here keeps it, as reduce MODEL keeps what it found)
                result.first_node, result.runtimes_note = _first_between_runtimes(output, result.tolerance, max_memory)
            except KeyboardInterrupt as exc:
                result.interrupted = exit_status(exc)
                result.runtimes_note = "interrupted before onnxruntime and onnx-reference were compared inside it"
            break
    result.seconds = time.perf_counter() - t0
    return result


def _cut(model: onnx.ModelProto, indices: list[int], layer: Layer, got: dict, case_inputs: dict):
    """(the model of the layer's nodes, its inputs): every tensor they read that none of them computes and no
    initializer holds is an input, fed with the case's input or onnxruntime's value; the output is the layer's."""
    graph = model.graph
    nodes = [graph.node[i] for i in indices]
    made = {name for node in nodes for name in node.output}
    read = set()
    for node in nodes:
        read |= _used_names(node)
    initializers = {t.name: t for t in graph.initializer}
    declared = {v.name: v for v in graph.input}
    inputs, feeds, kept = [], {}, []
    for name in sorted(read - made):
        if name in initializers:
            kept.append(initializers[name])
        elif name in declared:
            inputs.append(declared[name])
            feeds[name] = np.asarray(case_inputs[name])
        else:
            inputs.append(_value_info(name, got[name]))
            feeds[name] = got[name]
    outputs = [o for o in graph.output if o.name == layer.name] or [_value_info(layer.name, got[layer.name], shaped=False)]
    small = onnx.helper.make_graph(nodes, f"{graph.name}_{layer.name}", inputs, outputs, kept)
    reduced = onnx.ModelProto()
    reduced.ir_version = model.ir_version
    reduced.opset_import.extend(model.opset_import)
    reduced.producer_name = "spec2onnx reduce"
    reduced.doc_string = f"spec2onnx reduce: the lowered nodes of layer {layer.name!r} ({layer.op})"
    reduced.graph.CopyFrom(small)
    return reduced, feeds


def _every_tensor(model_path, runtime: str, inputs_file: str, max_memory, saved: Path) -> dict | str:
    """Every tensor ``runtime`` computes in the model, on the inputs in ``inputs_file`` (run --mark-all
    --save-outputs: written chunk by chunk to ``saved``, read back), or why it cannot run the model."""
    run = run_model(model_path, make_run_options(runtimes=(runtime,), load_inputs=inputs_file, mark_all=True,
                                                 save_outputs=str(saved), max_memory=max_memory))
    if run.runs[0].outputs is None:
        return run.runs[0].error
    return {name: member.read() for name, member in load_arrays("reduce", saved, 1 << 62).items()}


def _first_between_runtimes(small_path, tol: Tolerance, max_memory) -> tuple[tuple | None, str]:
    """(name, op type, tensor) of the first node of ``small_path`` (topological order) whose output differs between
    onnxruntime and onnx's reference evaluator, on its inputs file, every tensor marked; None and a line saying why."""
    small = onnx.load(small_path)
    with tempfile.TemporaryDirectory(prefix="spec2onnx-reduce-") as folder:
        first, second = (_every_tensor(small_path, runtime, inputs_path(small_path), max_memory,
                                       Path(folder, f"{runtime}.npz")) for runtime in ("onnxruntime", "onnx-reference"))
    for label, got in (("ort[cpu]", first), ("onnx-reference", second)):
        if isinstance(got, str):
            return None, f"{label} cannot run it: {got}"
    for i in topological_order(small.graph):
        node = small.graph.node[i]
        for tensor in node.output:
            if tensor in first and tensor in second:
                dtype = dtype_of_array(first[tensor])
                if dtype is None or first[tensor].dtype != second[tensor].dtype:
                    continue
                mismatch = compare(first[tensor], second[tensor], resolve_tolerance(dtype, tol))
                if mismatch:
                    return (node.name, node.op_type, tensor), (f"onnxruntime and onnx-reference first differ at node "
                                                               f"{node.name!r} ({node.op_type}), tensor {tensor!r}: "
                                                               f"{mismatch.describe()}")
    return None, ("onnxruntime and onnx-reference agree on every tensor inside it: the lowering itself, not a "
                  "runtime, differs from the reference")
