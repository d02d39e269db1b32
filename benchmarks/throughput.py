"""Validation throughput: `spec2onnx validate -j 2` over 400 one-layer specs of 10 cases, beside the per-spec floor.

Issue 34, item 2: `validate -j 2` over 4,000 small cases (400 one-layer specs of 10 cases each), start-up
included, at >= 0.9 of the per-spec floor, measured in the same run as the floor.

The floor is a bare loop in 2 processes (``python -c``, fresh interpreters) that split the specs between
them (every other spec): each imports numpy and onnxruntime, reads its half (a pickle made before the clock
starts: each spec's model bytes, its cases' inputs and the expected outputs), and for each spec makes ONE
onnxruntime session from the bytes (CPU provider, one intra-op thread, as validate makes its small ones),
runs it on each of the spec's cases and compares every output with numpy (``np.allclose`` at the tolerance validate uses). The model bytes
are the ones validate runs (lowered for ort-cpu by this checkout, before the clock starts): the floor is the
runtime's cost, and lowering is cached by validate as well (below). bfloat16 tensors travel as uint16 bits
(onnxruntime hands bfloat16 neither to numpy nor from it), through I/O binding, so the floor imports nothing
but numpy and onnxruntime. Its wall time runs from launching the two processes to the exit of both.

`spec2onnx validate -j 2 DIR` runs as its console script (this checkout's, or ``python TREE/cli.py`` with
``--against``), a fresh interpreter every time, its output to /dev/null; wall time from launch to exit. Its
caches are warm (one untimed run first, into a cache folder of this benchmark's own): the parsed spec
documents, the loaded specs (validated, case data made: converter/pipeline/spec_cache.py), the lowered models
(``models/``) and the runtime's answers (converter/installed/ort_build.py). What validate still does per run: start,
find and read the spec files, look each up in the cache (hashes, signatures), unpickle it, make one
session per spec, run the numpy reference of every case, run and compare every case, and report.

Rounds interleave the floor and validate (and ``--against``'s validate), so that the load of this shared
machine disturbs both alike; the ratio floor/validate of wall times is taken round by round (>= 0.9 is the
goal). CPU time: user + system of the processes and the children they waited for.

    python -m benchmarks.throughput [--specs 400] [--cases 10] [--repeat 5] [--jobs 2] [--against TREE]
"""

from __future__ import annotations

import argparse
import compileall
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from .common import machine, table, trees_against

HERE = Path(__file__).resolve().parent.parent


def _spec(i: int, cases: int) -> dict:
    """A small one-layer spec; the kinds (trt Scale, ElementWise, Resize; dml DequantizeLinear) and dtypes rotate."""
    kind = i % 4
    if kind == 0:
        dtype = ("float32", "float16", "int8", "bfloat16")[i // 4 % 4]
        layer = {"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": "CHANNEL", "scale": [2, 3], "shift": [1, -1], "power": [1, 2]}
        inputs = {"x": {"dtype": dtype, "shape": [1, 2, 4, 4]}}
    elif kind == 1:
        dtype, op = (("float32", "SUM"), ("int32", "DIV"), ("float16", "PROD"), ("bfloat16", "MAX"))[i // 4 % 4]
        layer = {"name": "y", "op": "trt.ElementWise", "inputs": ["x", "z"], "operation": op}
        inputs = {"x": {"dtype": dtype, "shape": [2, 3, 4]}, "z": {"dtype": dtype, "shape": [2, 1, 4]}}
    elif kind == 2:
        dtype, mode = (("float32", "LINEAR"), ("float16", "NEAREST"), ("int8", "CUBIC"), ("float32", "CUBIC"))[i // 4 % 4]
        layer = {"name": "y", "op": "trt.Resize", "inputs": ["x"], "resize_mode": mode, "shape": [1, 2, 6, 6]}
        inputs = {"x": {"dtype": dtype, "shape": [1, 2, 4, 4]}}
    else:
        xtype = ("int8", "uint8", "int32", "uint16")[i // 4 % 4]
        layer = {"name": "y", "op": "dml.DequantizeLinear", "inputs": ["x", "s", "zp"]}
        inputs = {"x": {"dtype": xtype, "shape": [2, 3, 4]}, "s": {"dtype": "float32", "shape": [2, 3, 4]},
                  "zp": {"dtype": xtype, "shape": [2, 3, 4]}}
    out = []
    for c in range(cases):
        data = {}
        for n, t in inputs.items():
            if t["dtype"].startswith(("int", "uint")):
                data[n] = {"random": "integers", "low": -5 if t["dtype"].startswith("int") else 0, "high": 5, "seed": c * 7 + len(data)}
            else:
                data[n] = {"random": "uniform", "low": 0.5, "high": 2, "seed": c * 7 + len(data)}
        out.append({"name": f"c{c}", "inputs": data})
    return {"name": f"bench-{i}", "network": {"inputs": inputs, "layers": [layer], "outputs": ["y"]}, "cases": out}


def write_suite(folder: Path, specs: int, cases: int) -> int:
    """``specs`` spec files of ``cases`` cases each in ``folder``; the number of cases."""
    for i in range(specs):
        (folder / f"bench-{i}.yaml").write_text(yaml.safe_dump(_spec(i, cases), sort_keys=False))
    return specs * cases


def floor_data(folder: Path) -> list[tuple[bytes, list[tuple[dict, list]]]]:
    """Per spec file (sorted): (the model bytes validate runs, [(feeds, [(expected, atol, rtol) per output]) per case]),
    made with this checkout's spec2onnx: the lowering for ort-cpu, the numpy reference and the tolerance validate
    resolves for each output (an int8 CUBIC Resize may be one off: atol 1). bfloat16 arrays as their uint16 bits."""
    import numpy as np

    from converter import reference
    from converter.pipeline import stages as pipeline
    from converter.pipeline.spec import load_spec

    options = pipeline.make_options()
    target = pipeline.target_for_provider(options.configs[0].provider)

    def bits(a):
        return a.view(np.uint16) if a.dtype.name == "bfloat16" else np.ascontiguousarray(a)

    out = []
    for path in sorted(folder.glob("*.yaml")):
        spec = load_spec(path)
        model, _, _, _, _ = pipeline._lower_for_target(spec, options, target, pipeline.opset_for(spec, options))
        cases = []
        for case in spec.cases:
            want = reference.run_network(spec.network, case.inputs)
            tolerances = [pipeline._resolved({o: pipeline._tolerance(spec, o, options)}, o, case) for o in spec.network.outputs]
            cases.append(({n: bits(a) for n, a in case.inputs.items()},
                          [(bits(want[o]), t.atol or 0.0, t.rtol or 0.0) for o, t in zip(spec.network.outputs, tolerances)]))
        out.append((model, cases))
    return out


# One floor process: python -c FLOOR SHARD.pickle
FLOOR = r"""
import pickle, sys
import numpy as np
import onnxruntime as ort

with open(sys.argv[1], "rb") as f:
    specs = pickle.load(f)
options = ort.SessionOptions()
options.intra_op_num_threads = 1
bad = 0
for model, cases in specs:
    session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    outputs = [(o.name, o.type, o.shape) for o in session.get_outputs()]
    inputs = {i.name: i.type for i in session.get_inputs()}
    bf16 = any(t == "tensor(bfloat16)" for t in inputs.values()) or any(t == "tensor(bfloat16)" for _, t, _ in outputs)
    for feeds, want in cases:
        if not bf16:
            got = session.run([n for n, _, _ in outputs], feeds)
        else:  # bfloat16 as uint16 bits, bound
            binding = session.io_binding()
            for name, array in feeds.items():
                if inputs[name] == "tensor(bfloat16)":
                    binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy_with_onnx_type(array, onnx_element_type=16))
                else:
                    binding.bind_cpu_input(name, array)
            got = []
            for name, type_, shape in outputs:
                if type_ == "tensor(bfloat16)":
                    got.append(np.empty(shape, np.uint16))
                    binding.bind_ortvalue_output(name, ort.OrtValue.ortvalue_from_numpy_with_onnx_type(got[-1], onnx_element_type=16))
                else:
                    got.append(None)
                    binding.bind_output(name)
            session.run_with_iobinding(binding)
            got = [g if g is not None else v.numpy() for g, v in zip(got, binding.get_outputs())]
        for g, (w, atol, rtol) in zip(got, want):
            if w.dtype == np.uint16 and g.dtype == np.uint16:  # (bfloat16 bits: to float32)
                g, w = (g.astype(np.uint32) << 16).view(np.float32), (w.astype(np.uint32) << 16).view(np.float32)
            if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                bad += 1
if bad:
    sys.exit(f"floor: {bad} outputs differ from the numpy reference")
"""


def _run(argvs: list[list[str]]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the commands started together, from the launch to the exit of the last; their
    children that they waited for count in the CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    procs = [subprocess.Popen(a, cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for a in argvs]
    errors = [p.communicate()[1] for p in procs]
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for argv, p, err in zip(argvs, procs, errors):
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(argv[:3])} ... failed ({p.returncode}): {err.decode(errors='replace')[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _front(tree: Path | None) -> list[str]:
    """How to start spec2onnx: this checkout's console script, or ``python TREE/cli.py``."""
    if tree is None:
        script = Path(sys.executable).parent / "spec2onnx"
        if script.exists():
            return [str(script)]
        tree = HERE
    return [sys.executable, str(tree / "cli.py")]


def _spread(values: list[float], fmt: str = "{:.3g}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def _loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, default=400)
    parser.add_argument("--cases", type=int, default=10, help="cases per spec")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; each runs the floor and validate, interleaved")
    parser.add_argument("--jobs", type=int, default=2, help="validate's -j, and the floor's processes")
    parser.add_argument("--against", type=Path, help="another checkout whose spec2onnx is measured beside this one")
    args = parser.parse_args(argv)
    trees = trees_against(args.against, HERE)
    for _, tree in trees:  # as an installed wheel has it (PYTHONDONTWRITEBYTECODE may be set here)
        compileall.compile_dir(str((tree or HERE) / "converter"), quiet=1)
    saved = os.environ.get("SPEC2ONNX_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        suite.mkdir()
        total = write_suite(suite, args.specs, args.cases)
        data = floor_data(suite)
        shards = []
        for k in range(args.jobs):
            shards.append(Path(tmp) / f"floor{k}.pickle")
            shards[-1].write_bytes(pickle.dumps(data[k::args.jobs], protocol=5))
        floor = [[sys.executable, "-c", FLOOR, str(shard)] for shard in shards]
        commands = {f"{label}spec2onnx validate -j {args.jobs}": [*_front(tree), "validate", "-j", str(args.jobs), str(suite)]
                    for label, tree in trees}
        caches = {name: Path(tmp) / f"cache{i}" for i, name in enumerate(commands)}
        try:
            _run(floor)  # untimed: files in the page cache
            for name, argv in commands.items():  # untimed: fills the caches
                os.environ["SPEC2ONNX_CACHE"] = str(caches[name])
                _run([argv])
            loads = [_loadavg()]
            runs: dict[str, list[tuple[float, float]]] = {"floor": [], **{name: [] for name in commands}}
            for _ in range(args.repeat):
                runs["floor"].append(_run(floor))
                for name, argv in commands.items():
                    os.environ["SPEC2ONNX_CACHE"] = str(caches[name])
                    runs[name].append(_run([argv]))
            loads.append(_loadavg())
        finally:
            if saved is None:
                os.environ.pop("SPEC2ONNX_CACHE", None)
            else:
                os.environ["SPEC2ONNX_CACHE"] = saved
    print(f"Validation throughput: {total} cases in {args.specs} specs, -j {args.jobs} against {args.jobs} floor processes, "
          f"{args.repeat} rounds interleaved, start-up included, caches warm; median (min-max), ratios round by round "
          f"({machine()})\n/proc/loadavg before: {loads[0]}; after: {loads[1]}\n")
    rows = []
    for name, values in runs.items():
        row = [name, _spread([w for w, _ in values]), _spread([total / w for w, _ in values], "{:.0f}"),
               _spread([c for _, c in values])]
        if name == "floor":
            row += ["", ""]
        else:
            row += [_spread([f / w for (w, _), (f, _) in zip(values, runs["floor"])], "{:.2f}"),
                    _spread([f / c for (_, c), (_, f) in zip(values, runs["floor"])], "{:.2f}")]
        rows.append(row)
    print(table(["command", "wall s", "cases/s", "CPU s", "floor / validate, wall", "floor / validate, CPU"], rows))


if __name__ == "__main__":
    main(sys.argv[1:])
