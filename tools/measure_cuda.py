"""Measure ort-cuda: run every case of onnx's node test corpus on onnxruntime's CUDA EP; write the cases and the table.

onnxruntime-gpu's kernel registry cannot always be read (1.31.1's ``get_all_opkernel_def()`` dies of SIGSEGV on a
GPU machine and raises "no CUDA-capable device" without one: docs/ground-truth.md), so the ort-cuda table is
made from measurement where it cannot, as tools/measure_openvino.py does for OpenVINO. Two steps:

1. **Probe** (needs a CUDA EP; ``--provider CPUExecutionProvider`` runs the same probes on the CPU EP, a dry run
   that any machine can do): every case of the installed onnx's ``collect_testcases()`` whose graph inputs are
   all tensors is loaded and run twice, as the H100 measurement of issue 24 defines it:

   - ``cuda_only``: ``InferenceSession(providers=[P])`` with ``session.disable_cpu_ep_fallback=1``, then a run
     on the case's first data set; true when nothing raised. This is what ``check --target ort-cuda`` answers.
   - ``cuda_then_cpu``: ``InferenceSession(providers=[P, 'CPUExecutionProvider'])``, then a run.

   Inputs numpy cannot hand over (bfloat16, float8, int4) go in as OrtValues of their ONNX type; where even that
   fails, loading is taken as the verdict. The probes run in a child process, one case at a time with a
   timeout: a case that kills it (a crash of the runtime) or hangs is recorded as failed, with why, and a new
   child goes on with the next case. The cases file (``--cases``) has the format of the committed
   tools/data/cuda-ep-node-cases-2026-11-27.json.

2. **Table** (no GPU needed): tables/ort-cuda.json is the transcription of docs/OperatorKernels.md
   (tools/data/ort-cuda-kernels.md; its com.microsoft rows, tools/data/ort-cuda-contrib-kernels.md, are the
   table's ``domains``) plus a row for every (op, since-version, types) that ran under ``cuda_only``
   and that the transcription has no kernel for: what the measured build registers beyond the document. A node
   of a case that ran is recorded when the table has no row for it; a node of an op that neither the CUDA nor
   the CPU table has and whose schema defines a function ran as its function body (onnxruntime inlines a node no
   execution provider takes: graph_partitioner.cc InlineNodes), so its body's nodes are recorded instead.
   Measured rows are closed ``[N, N]`` (the since-version measured, nothing newer) with the measured types.

Usage (from a checkout)::

    python -m tools.measure_cuda --cases out/cases.json            # probe the CUDA EP, write the cases and the table
    python -m tools.measure_cuda --provider CPUExecutionProvider --cases /tmp/c.json --table /tmp/t.json
    python -m tools.measure_cuda --from-cases tools/data/cuda-ep-node-cases-2026-11-27.json   # the committed table

Without ``--table`` the checkout's converter/targets/tables/ort-cuda.json is written (never an installed copy).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import sys
import time
import warnings
from pathlib import Path

from converter.process import isolation  # every child process is started there (its guarantees: docs/robustness.md)

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "converter" / "targets" / "tables" / "ort-cuda.json"  # the checkout's, never site-packages
TRANSCRIPTION = REPO / "tools" / "data" / "ort-cuda-kernels.md"
# the same document's com.microsoft rows of the CUDA EP (onnxruntime/contrib_ops/cuda/cuda_contrib_kernels.cc registers them)
CONTRIB = REPO / "tools" / "data" / "ort-cuda-contrib-kernels.md"
CASES = REPO / "tools" / "data" / "cuda-ep-node-cases-2026-11-27.json"  # the committed H100 measurement
TIMEOUT = 120.0  # seconds one case may take (a session with cuDNN autotuning takes a few)
ERROR_CHARS = 120


def short(text: str) -> str:
    """A runtime's error as the cases file keeps it: without onnxruntime's prefix and source paths, 120 characters."""
    line = " ".join(str(text).split())
    return line.replace("[ONNXRuntimeError] : ", "").replace("/onnxruntime_src/onnxruntime/", "")[:ERROR_CHARS]


# ---------------------------------------------------------------------------------------------------- the cases file

def read_cases(path: Path) -> tuple[dict, list[dict]]:
    """(meta, cases) of a cases file: each case {"case", "cuda_only", "cuda_then_cpu", "error"[, "cuda_then_cpu_error"]}."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return data["meta"], data["cases"]


def dumps_cases(meta: dict, cases: list[dict]) -> str:
    """The cases file's text: the meta block, then one case per line (stable diffs)."""
    lines = ",\n".join("  " + json.dumps(case) for case in cases)
    return '{\n "meta": ' + json.dumps(meta, indent=2).replace("\n", "\n ") + ',\n "cases": [\n' + lines + "\n ]\n}\n"


def case_entry(name: str, cuda_only: str | None, cuda_then_cpu: str | None) -> dict:
    """One case's record from the two probes' errors (None: it ran)."""
    entry = {"case": name, "cuda_only": cuda_only is None, "cuda_then_cpu": cuda_then_cpu is None,
             "error": short(cuda_only or "")}
    if cuda_then_cpu and short(cuda_then_cpu) != entry["error"]:
        entry["cuda_then_cpu_error"] = short(cuda_then_cpu)
    return entry


# ------------------------------------------------------------------------------------------------------- the probes

def corpus() -> dict:
    """name -> onnx's node test case, for every case without sequence or map inputs (as the H100 measurement:
    1,777 of onnx 1.23.1's cases; an optional input the Python API cannot feed leaves loading as the verdict)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generators' numpy overflow warnings
        cases = collect_testcases()
    out = {}
    for case in cases:
        inits = {i.name for i in case.model.graph.initializer}
        kinds = {i.type.WhichOneof("value") for i in case.model.graph.input if i.name not in inits}
        if kinds <= {"tensor_type", "optional_type"}:
            out[case.name] = case
    return out


def _feed(ort, value, type_proto):
    """An OrtValue of a case's input: from numpy, or from its raw bytes with the ONNX element type (bfloat16, ...)."""
    import numpy as np
    from onnx import TensorProto, numpy_helper

    if isinstance(value, TensorProto):
        value = numpy_helper.to_array(value)
    if value is None or isinstance(value, (list, dict)):
        raise TypeError("not a tensor (an empty optional, a sequence or a map)")
    array = np.asarray(value)
    if array.dtype.kind in "OSU":
        return array  # strings: no OrtValue from numpy; session.run takes the array
    try:
        return ort.OrtValue.ortvalue_from_numpy(array)
    except Exception:  # noqa: BLE001 - an ml_dtypes array (bfloat16, float8, int4): its bits with the ONNX type
        elem = type_proto.tensor_type.elem_type
        bits = array.view(np.dtype(f"uint{8 * array.dtype.itemsize}")) if array.dtype.itemsize in (1, 2, 4, 8) else array
        return ort.OrtValue.ortvalue_from_numpy_with_onnx_type(np.ascontiguousarray(bits), elem)


def probe_case(ort, model: bytes, feeds_in: list, providers: list[str], only: bool) -> str | None:
    """None when the model loads and runs on ``feeds_in`` ([(name, ONNX TypeProto bytes, value)]) with
    ``providers`` (``only``: CPU fallback disabled); else the error."""
    from onnx import TypeProto

    options = ort.SessionOptions()
    options.log_severity_level = 4
    if only and providers != ["CPUExecutionProvider"]:  # (onnxruntime refuses the option with the CPU EP named)
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    try:
        session = ort.InferenceSession(model, options, providers=providers)
    except Exception as exc:  # noqa: BLE001 - any failure is the measurement
        return str(exc) or type(exc).__name__
    try:
        feeds = {name: _feed(ort, value, TypeProto.FromString(type_bytes)) for name, type_bytes, value in feeds_in}
    except Exception:  # noqa: BLE001 - an input the Python API cannot hand over at all: loading is the verdict
        return None
    try:
        if any(not isinstance(v, ort.OrtValue) for v in feeds.values()):
            session.run(None, feeds)
        else:
            session.run_with_ort_values([o.name for o in session.get_outputs()], feeds)
    except Exception as exc:  # noqa: BLE001
        return str(exc) or type(exc).__name__
    return None


def _case_file(folder: str, index: int, case) -> str:
    """The case as the worker reads it (a pickle this process writes to its own temporary folder): the worker
    then needs neither onnx's corpus generator (seconds at every start) nor anything from this process."""
    import pickle

    inits = {i.name for i in case.model.graph.initializer}
    declared = [i for i in case.model.graph.input if i.name not in inits]
    values = list(case.data_sets[0][0]) if case.data_sets else []
    feeds = [(i.name, i.type.SerializeToString(), v) for i, v in zip(declared, values)]
    path = os.path.join(folder, f"{index}.pkl")
    with open(path, "wb") as handle:
        pickle.dump((case.name, case.model.SerializeToString(), feeds), handle)
    return path


def worker(provider: str) -> int:
    """The child: reads case files (_case_file) from stdin, writes one JSON line of both probes' errors per case."""
    import pickle

    import onnxruntime as ort

    pair = [provider] if provider == "CPUExecutionProvider" else [provider, "CPUExecutionProvider"]
    print(json.dumps({"ready": ort.__version__, "providers": list(ort.get_available_providers())}), flush=True)
    for line in sys.stdin:
        with open(line.strip(), "rb") as handle:
            name, model, feeds = pickle.load(handle)  # noqa: S301 - written by the parent process, just now
        only = probe_case(ort, model, feeds, [provider], only=True)
        then = probe_case(ort, model, feeds, pair, only=False)
        print(json.dumps({"case": name, "cuda_only": only, "cuda_then_cpu": then}), flush=True)
    return 0


class Unavailable(RuntimeError):
    """The execution provider to measure is not in the installed onnxruntime (or it cannot start)."""


class _Child:
    """One worker process (``python -m tools.measure_cuda --worker P``) and its output lines, read with a timeout."""

    def __init__(self, provider: str, start_timeout: float):
        self.process = isolation.start(isolation.Command((sys.executable, "-m", "tools.measure_cuda", "--worker",
                                                          provider), cwd=str(REPO), talk=True))
        self.buffer, self.closed = "", False
        ready = self.line(start_timeout)
        if ready is None:
            raise Unavailable(f"onnxruntime could not start in a child process ({self.died()})")
        found = json.loads(ready)
        self.version = found["ready"]
        if provider not in found["providers"]:
            self.close()
            raise Unavailable(f"onnxruntime {self.version} has no {provider} (it has {', '.join(found['providers'])})")

    def line(self, timeout: float) -> str | None:
        """The next line the child writes; None when it died or ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        stream = self.process.stdout
        while "\n" not in self.buffer:  # (select and os.read: a buffered read would wait past the deadline)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stream], [], [], left)[0]:
                return None
            chunk = os.read(stream.fileno(), 65536).decode("utf-8", "replace")
            if not chunk:
                self.closed = True  # its end of the pipe closed: it exited or was killed
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition("\n")
        return line

    def died(self) -> str:
        """Why the child stopped answering (killing it if it still runs)."""
        self.process.join(30 if self.closed else 0)
        code = self.process.exitcode
        if code is None:
            self.process.stop()
            return "hung"
        if code < 0:
            return f"the process died of {signal.Signals(-code).name}"
        return f"the process exited with status {code}"

    def write(self, line: str) -> None:
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def close(self) -> None:
        self.process.stop()


def probe(provider: str, cases: list, timeout: float = TIMEOUT, log=None) -> tuple[str, list[dict]]:
    """(the worker's onnxruntime version, a case record per case of onnx's corpus), each probed in a child process."""
    import shutil
    import tempfile

    results, child, version = [], None, "?"
    folder = tempfile.mkdtemp(prefix="measure-cuda-")
    try:
        for i, case in enumerate(cases):
            if child is None:
                child = _Child(provider, start_timeout=max(timeout, 120.0))
                version = child.version
            child.write(_case_file(folder, i, case))
            answer = child.line(timeout)
            if answer is None:
                why = child.died()
                why = f"timed out after {timeout:g} s" if why == "hung" else why
                child = None
                results.append(case_entry(case.name, why, why))
            else:
                found = json.loads(answer)
                results.append(case_entry(case.name, found["cuda_only"], found["cuda_then_cpu"]))
            if log and len(results) % 100 == 0:
                log(f"{len(results)} of {len(cases)} cases")
    finally:
        if child is not None:
            child.close()
        shutil.rmtree(folder, ignore_errors=True)
    return version, results


def transcription() -> dict:
    """tools/data/ort-cuda-kernels.md as a kernel table (tools/make_ort_tables.py's parser)."""
    from tools.make_ort_tables import parse_domains

    return parse_domains(TRANSCRIPTION.read_text(encoding="utf-8")).get("ai.onnx", {})


def contrib_domains() -> dict:
    """tools/data/ort-cuda-contrib-kernels.md as the table's ``domains`` (com.microsoft), as transcribed: the CUDA EP
    registers these kernels (cuda_contrib_kernels.cc) and the H100 measurement ran no node of those domains."""
    from tools.make_ort_tables import parse_domains

    return {d: ops for d, ops in parse_domains(CONTRIB.read_text(encoding="utf-8")).items() if d != "ai.onnx" and ops}


def _no_row(node, *tables: dict) -> bool:
    """Whether none of ``tables`` (op -> rows) has a kernel for ``node`` (onnxruntime's matching: check._kernel)."""
    from converter.targets.check import _kernel

    rows = [row for ops in tables for row in ops.get(node.op, [])]
    return _kernel(node, {"ops": {node.op: rows}}, None) is not None


def _record(view, node, ops: dict, cpu: dict, measured: dict, depth: int = 0) -> None:
    """Record a node that ran on the CUDA EP where ``ops`` has no kernel for it (its function body, if it was inlined)."""
    from converter.targets.functions import expand

    if node.node.domain not in ("", "ai.onnx") or node.since is None or node.op == "Constant":
        return  # Constant nodes are initializers by the time onnxruntime assigns kernels
    if any(n and t is None for n, t in zip(node.inputs, node.input_types)) or not _no_row(node, ops, measured):
        return
    body = expand(view, node) if _no_row(node, cpu) and depth < 8 else None
    if body is not None:  # no kernel on either EP and a function: onnxruntime inlined it, its body ran on CUDA
        for inner in body.nodes:
            _record(body, inner, ops, cpu, measured, depth + 1)
        return
    row = {"start": node.since, "end": node.since,
           "types": {c: sorted(v) for c, v in sorted(node.bindings().items())}}
    rows = measured.setdefault(node.op, [])
    if row not in rows:
        rows.append(row)


def build_table(meta: dict, cases: list[dict], corpus_cases: dict | None = None) -> dict:
    """The ort-cuda table: the transcription plus a closed row per measured (op, since-version, types) it lacks."""
    import onnx

    from converter.targets.model_view import ModelView
    from converter.targets.ort_kernels import KERNEL_RULE, committed

    corpus_cases = corpus() if corpus_cases is None else corpus_cases
    ops = transcription()
    cpu = committed("ort-cpu")["ops"]
    measured: dict[str, list[dict]] = {}
    used = 0
    for entry in cases:
        case = corpus_cases.get(entry["case"])
        if not entry["cuda_only"] or case is None:
            continue
        used += 1
        view = ModelView(case.model)
        for node in view.nodes:
            _record(view, node, ops, cpu, measured)
    added = inferred = 0
    for op, rows in measured.items():
        versions = {r["start"] for r in rows}
        new = [_row(op, version, [r for r in rows if r["start"] == version], ops.get(op, []))
               for version in sorted(versions, reverse=True)]
        between = _between(op, ops.get(op, []), versions)
        new += [dict(_row(op, version, [], ops.get(op, [])), measured=False, inferred=True) for version in between]
        added, inferred = added + len(new) - len(between), inferred + len(between)
        ops[op] = sorted(ops.get(op, []) + new, key=lambda r: (-r["start"], r["end"] is None))
    source = (f"onnxruntime {_version(meta)} CUDAExecutionProvider kernels: docs/OperatorKernels.md at "
              f"{_commit()} (tools/data/ort-cuda-kernels.md), {inferred} rows (\"inferred\": true) of the since-versions "
              f"between a transcribed open row and a measured one, and {added} rows (\"measured\": true) of what ran on "
              f"{meta.get('machine', '?').split(',')[0]} ({meta.get('onnxruntime', '?')}, {meta.get('measured', '?')}) "
              f"beyond it: {used} node test cases of onnx {onnx.__version__} that ran with the CUDA EP alone "
              "(python -m tools.measure_cuda); the com.microsoft domain: the same document's rows "
              "(tools/data/ort-cuda-contrib-kernels.md)")
    return {"source": source, "kernel_rule": KERNEL_RULE + "; a measured row matches its since-version only and takes the "
                                             "types of the transcribed kernel it continues (types_of) and those measured",
            "ops": ops, "domains": contrib_domains()}


def _row(op: str, version: int, rows: list[dict], transcribed: list[dict]) -> dict:
    """One closed row for a measured since-version: the types of the newest transcribed kernel before it, with
    every measured type added ("types_of" names that kernel's since-version).

    onnxruntime registers a kernel for a new ONNX version of an op by closing the old registration's range and
    repeating it from the new version, with the same types; the measurement shows the new version is registered,
    and every combination measured on the H100 is among the older kernel's types (only Pad-24's new Tind is not)."""
    types: dict[str, set[str]] = {}
    for row in rows:
        for constraint, names in row["types"].items():
            types.setdefault(constraint, set()).update(names)
    older = [r for r in transcribed if r["start"] < version]
    row = {"start": version, "end": version, "types": {}, "measured": True}
    if older:
        before = max(older, key=lambda r: r["start"])
        for constraint, names in before["types"].items():
            types.setdefault(constraint, set()).update(names)
        row["types_of"] = before["start"]
    row["types"] = {c: sorted(v) for c, v in sorted(types.items())}
    return row


def _between(op: str, transcribed: list[dict], measured: set[int]) -> list[int]:
    """ONNX's since-versions of ``op`` between the transcription's open row N+ and the newest measured version:
    registered too. A build that registers since-version M > N has closed the N+ kernel into a range and
    registered every version after it up to M (onnxruntime adds one registration per ONNX version; a gap would
    leave a model at that opset without a kernel that both neighbours have), so Identity-21 is there when
    Identity-23 ran, though no case of the corpus is at opset 21."""
    import onnx.defs

    open_rows = [r["start"] for r in transcribed if r["end"] is None]
    if not open_rows or not measured:
        return []
    low, high = max(open_rows), max(measured)
    found = set()
    for opset in range(low, high + 1):
        try:
            found.add(onnx.defs.get_schema(op, max_inclusive_version=opset).since_version)
        except onnx.defs.SchemaError:
            continue
    return sorted((v for v in found if low < v < high and v not in measured), reverse=True)


def _version(meta: dict) -> str:
    words = str(meta.get("onnxruntime", "")).split()
    return next((w for w in words if w[:1].isdigit()), "?")


def _commit() -> str:
    import re

    found = re.search(r"Commit: ([0-9a-f]{40})", TRANSCRIPTION.read_text(encoding="utf-8"))
    return found[1][:7] if found else "?"


def write_table(table: dict, path: Path) -> None:
    from converter.targets.ort_kernels import dumps

    text = dumps(table)
    if not table["domains"]:
        text = text.replace(',\n "domains": {\n }\n}', ',\n "domains": {}\n}')
    Path(path).write_text(text, encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------- the CLI

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.measure_cuda", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--provider", default="CUDAExecutionProvider",
                        help="the execution provider to probe (default CUDAExecutionProvider; CPUExecutionProvider: a dry run)")
    parser.add_argument("--cases", type=Path, help="write the probed cases here (the committed file's format)")
    parser.add_argument("--from-cases", type=Path, metavar="FILE", help="probe nothing: make the table from this cases file")
    parser.add_argument("--table", type=Path, help=f"where to write the table (default: {TABLE.relative_to(REPO)}, for a "
                        "measurement of CUDAExecutionProvider on the whole corpus; a dry run or a -k subset writes none)")
    parser.add_argument("--no-table", action="store_true", help="write only the cases file")
    parser.add_argument("-k", dest="patterns", action="append", metavar="TEXT",
                        help="only the cases whose name contains this (repeatable)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help=f"seconds one case may take (default {TIMEOUT:.0f})")
    parser.add_argument("--worker", metavar="PROVIDER", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    if args.from_cases:
        meta, cases = read_cases(args.from_cases)
    else:
        if args.cases is None and args.no_table:
            parser.error("nothing to write: give --cases, or leave out --no-table")
        found = corpus()
        chosen = [found[n] for n in sorted(found) if not args.patterns or any(p in n for p in args.patterns)]
        start = time.perf_counter()
        try:
            version, cases = probe(args.provider, chosen, args.timeout, log=lambda m: print(m, file=sys.stderr))
        except Unavailable as exc:
            print(f"python -m tools.measure_cuda: {exc}: nothing measured", file=sys.stderr)
            return 2
        meta = _meta(args.provider, version, len(cases), time.perf_counter() - start)
        if args.cases:
            args.cases.parent.mkdir(parents=True, exist_ok=True)
            args.cases.write_text(dumps_cases(meta, cases), encoding="utf-8")
            print(f"wrote {args.cases}: {len(cases)} cases, {sum(c['cuda_only'] for c in cases)} ran with "
                  f"{args.provider} alone, {sum(c['cuda_then_cpu'] for c in cases)} with the CPU EP beside it")
    whole = args.from_cases or not args.patterns
    path = args.table or (TABLE if whole and meta.get("provider", "CUDAExecutionProvider") == "CUDAExecutionProvider" else None)
    if args.no_table:
        return 0
    if path is None:
        print("no table written: the committed one is made only from a CUDAExecutionProvider measurement of the whole "
              "corpus (give --table FILE to write this one elsewhere)")
        return 0
    table = build_table(meta, cases)
    write_table(table, path)
    print(f"wrote {path}: {sum(map(len, table['ops'].values()))} rows, "
          f"{sum(r.get('measured', False) for rows in table['ops'].values() for r in rows)} of them measured")
    return 0


def _meta(provider: str, version: str, count: int, seconds: float) -> dict:
    import platform

    import onnx

    return {
        "what": f"onnx {onnx.__version__} node test cases (onnx.backend.test.case.node.collect_testcases; tensor inputs "
                f"only), each loaded and run on {provider}",
        "machine": _machine(provider) + f", Python {platform.python_version()}",
        "onnxruntime": f"onnxruntime {version}",
        "provider": provider,
        "cuda_only": f"InferenceSession(providers=['{provider}']) with session.disable_cpu_ep_fallback=1, then run on "
                     "the case's first data set; true when nothing raised",
        "cuda_then_cpu": f"InferenceSession(providers=['{provider}', 'CPUExecutionProvider']), then run; true when nothing raised",
        "note": "inputs of types numpy cannot hand over (bfloat16, float8, int4) went in as OrtValues; where even that "
                "failed, loading was taken as the truth; a case that crashed or hung the process is failed, with why",
        "measured": time.strftime("%Y-%m-%d"),
        "cases": count,
        "seconds": round(seconds, 1),
        "error": f"the first {ERROR_CHARS} characters of onnxruntime's message, without its '[ONNXRuntimeError] : ' "
                 "prefix and '/onnxruntime_src/onnxruntime/' paths; cuda_then_cpu_error only where it differs from error",
    }


def _machine(provider: str) -> str:
    if provider == "CUDAExecutionProvider":
        try:
            done = isolation.run(isolation.Command(("nvidia-smi", "--query-gpu=name,driver_version",
                                                    "--format=csv,noheader")), timeout=30)
            out = done.stdout.decode("utf-8", "replace").strip().splitlines()
            if out:
                name, _, driver = out[0].partition(",")
                return f"{name.strip()}, driver {driver.strip()}"
        except OSError:
            pass
    import platform

    return f"{platform.machine()} CPU ({platform.node() or 'host'})"


if __name__ == "__main__":
    sys.exit(main())
