"""Ground truth of ``spec2onnx check``: its static verdicts against the real runtimes, on onnx's node test corpus.

The corpus is generated from the installed onnx at run time (nothing committed):
``onnx.backend.test.case.node.collect_testcases()``, one-node models with the inputs onnx ships for
them. A case whose inputs are not all tensors (sequences, optionals, maps) is skipped and counted
with its reason. For each case and target:

- static: ``check_model(model, target)`` (tables and rules; no runtime is asked about the model);
  "runs" when it finds no error.
- runtime: onnxruntime's CPU EP (``InferenceSession`` + ``run`` on the case's inputs) for ort-cpu;
  OpenVINO's CPU plugin (``read_model`` + ``compile_model`` at f32 + infer) for openvino.
  "runs" when that raises nothing (the outputs' values are not compared: a verdict is about running).
- ort-cuda: no GPU is needed: the runtime's verdicts are the recorded ones of the committed measurement
  (tools/data/cuda-ep-node-cases-*.json, ``cuda_only``: onnxruntime-gpu's CUDA EP alone, CPU fallback
  disabled; python -m tools.measure_cuda records a new one on a GPU machine), on every case of the installed
  corpus that the measurement has (tensor inputs of any type: nothing is fed here). The static check uses the
  committed tables, which model the measured onnxruntime. Its section is the recording's onnxruntime version's.

Each runtime runs the cases in a worker process, one case at a time within CASE_SECONDS: a case that hangs or
crashes the runtime is killed and counted as failing, and the worker restarted (OpenVINO once spent 35 minutes
in one Loop).

Verdicts depend on the runtime's version: docs/ground-truth.md keeps one section per (target, runtime version)
measured, each listing its disagreements; KNOWN explains those every documented version shows, KNOWN_BY_VERSION
those of one version only. DOCUMENTED names the versions measured and listed: the test fails on any other,
saying how to measure and document it (a newer onnxruntime in CI fails loudly rather than pass unexamined).

Usage (from a checkout, with onnxruntime and OpenVINO installed)::

    python -m tools.ground_truth                 # print the confusion matrices and disagreements
    python -m tools.ground_truth --write-docs    # rewrite the installed versions' sections of docs/ground-truth.md
    python -m tools.ground_truth --write-docs --target ort-cuda   # only ort-cuda's section (no runtime needed)

tests/targets/test_ground_truth.py runs the same comparison and holds the thresholds.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

from converter.process import isolation  # every child process is started there (docs/robustness.md)

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "ground-truth.md"
BEGIN, END = "<!-- ground-truth: begin (python -m tools.ground_truth --write-docs) -->", "<!-- ground-truth: end -->"

# The thresholds the test holds (issue 21): agreement per target, and "runs" said of a case that fails.
MIN_AGREEMENT = 0.99
MAX_WRONG_RUNS = 0.005


# The runtime versions measured and listed in docs/ground-truth.md (a section each): the test holds the thresholds on
# any version, and fails on one not listed here, saying how to document it.
DOCUMENTED: dict[str, tuple[str, ...]] = {"ort-cpu": ("1.31.1", "1.32.0"), "openvino": ("2026.4.1",)}

# Every remaining disagreement, with why check cannot see it statically (docs/ground-truth.md lists them): those of
# every documented version of the runtime here, those of one version only in KNOWN_BY_VERSION.
KNOWN: dict[str, dict[str, str]] = {
    "ort-cpu": {
        "test_attention_4d_diff_heads_mask4d_padded_kv": "a value check at run time: the mask's last dim must equal "
            "past + current sequence length (attention_helper.h:159 in 1.31.1, :164 in 1.32.0); the shapes are known "
            "only with the inputs",
        "test_reduce_max_empty_set_bool": "a data-dependent refusal: ReduceMax over an empty bool tensor "
            "(no identity for max of bool); the same node on a non-empty tensor runs",
    },
    "openvino": {
        **{f"test_affine_grid_{d}_expanded": "AffineGrid's expanded body branches on the rank (If): one branch splits "
           "the size input into N,C,H,W, the other into N,C,D,H,W. OpenVINO converts and validates both branches with "
           "the size's static shape, so the branch not taken fails (2-D: a Split of 4 elements into 5, 'The split "
           "number is invalid'; 3-D: the 2-D branch's theta shapes); onnxruntime runs the taken one only. check does "
           "not look inside If branches" for d in ("2d", "2d_align_corners", "3d", "3d_align_corners")},
    },
}
KNOWN_BY_VERSION: dict[str, dict[str, dict[str, str]]] = {"ort-cpu": {}, "openvino": {}}

# ort-cuda: against the committed recording of onnxruntime-gpu 1.31.1 on an H100 (CUDA_CASES), where every verdict agrees
DOCUMENTED["ort-cuda"] = ("1.31.1",)
KNOWN["ort-cuda"] = {}
KNOWN_BY_VERSION["ort-cuda"] = {}


# Disagreements that come and go between runs or machines (the same runtime, the same case): always listed.
FLAKY: dict[str, dict[str, str]] = {
    "openvino": {
        "test_range_float_type_positive_delta_expanded": "Range's expanded body is a Loop whose trip count is data: "
            "OpenVINO sometimes fails its inference ('Node output of type Loop') after compiling it, sometimes runs it, "
            "and once ran it for 35 minutes (killed after CASE_SECONDS now)",
    },
}


def reason(target: str, case: str, version: str | None = None) -> str | None:
    """Why ``target``'s check disagrees with its runtime (at ``version``) on ``case``; None when nothing says."""
    return (KNOWN.get(target, {}).get(case) or KNOWN_BY_VERSION.get(target, {}).get(version, {}).get(case)
            or FLAKY.get(target, {}).get(case))


@dataclass
class Case:
    name: str
    model: onnx.ModelProto
    inputs: list  # numpy arrays, in graph-input order


@dataclass
class Corpus:
    cases: list[Case]
    skipped: dict[str, str] = field(default_factory=dict)  # case name -> why


def corpus() -> Corpus:
    """onnx's node test cases whose inputs are all tensors; the others counted in ``skipped``."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generators' numpy overflow warnings
        collected = collect_testcases()
    cases, skipped = [], {}
    for case in collected:
        inputs = [_array(a) for a in (case.data_sets[0][0] if case.data_sets else [])]
        graph_inputs = [i for i in case.model.graph.input
                        if i.name not in {init.name for init in case.model.graph.initializer}]
        kinds = {i.type.WhichOneof("value") for i in graph_inputs}
        if kinds - {"tensor_type"}:
            skipped[case.name] = f"{'/'.join(sorted(kinds - {'tensor_type'}))} input (not a tensor)"
        elif not all(isinstance(a, np.ndarray) for a in inputs):
            skipped[case.name] = "input data not a tensor"
        elif any(a.dtype.kind == "V" or type(a.dtype).__module__.startswith("ml_dtypes") or a.dtype.name in _ML_DTYPES
                 for a in inputs):
            skipped[case.name] = "an input of a type onnxruntime's Python API cannot feed (bfloat16, float8, int4, int2)"
        elif len(inputs) != len(graph_inputs):
            skipped[case.name] = f"{len(inputs)} input arrays for {len(graph_inputs)} graph inputs"
        else:
            cases.append(Case(case.name, case.model, list(inputs)))
    return Corpus(cases, skipped)


_ML_DTYPES = {"bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
              "float4_e2m1fn", "int4", "uint4", "int2", "uint2"}


def _array(value):
    """A numpy array of a numpy scalar or a TensorProto (the corpus's bfloat16, float8, int4 inputs); else as is."""
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, onnx.TensorProto):
        from onnx import numpy_helper

        return numpy_helper.to_array(value)
    return value


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith((
        "Exception from", "Check '", "FrontEnd API failed", "Model wasn't fully", "While validating", "Summary:",
        "-- Conversion is failed", "Shape inference input")) and not line.endswith("with a message:")] or lines
    return (lines[0] if lines else type(exc).__name__)[:240]


class OnnxruntimeCPU:
    name = "onnxruntime CPU"

    def __init__(self):
        import onnxruntime as ort

        self.ort = ort
        self.options = ort.SessionOptions()
        self.options.log_severity_level = 4
        self.options.intra_op_num_threads = 1
        self.release = ort.__version__
        self.version = f"onnxruntime {ort.__version__}"

    def run(self, case: Case) -> str | None:
        """None when onnxruntime loads and runs ``case``; else the first line of its error."""
        try:
            session = self.ort.InferenceSession(case.model.SerializeToString(), self.options,
                                                providers=["CPUExecutionProvider"])
            feeds = {i.name: a for i, a in zip(session.get_inputs(), case.inputs)}
            if any(a.dtype.kind in "OSU" for a in feeds.values()):  # string tensors: no OrtValue from numpy
                session.run(None, feeds)
            else:
                # outputs stay OrtValues: the Python API has no numpy type for some (bfloat16, float8, int4 casts),
                # and whether the model runs does not depend on handing them back
                session.run_with_ort_values([o.name for o in session.get_outputs()],
                                            {n: self.ort.OrtValue.ortvalue_from_numpy(a) for n, a in feeds.items()})
        except Exception as exc:  # noqa: BLE001 - any failure is the measurement
            return _first_line(exc)
        return None


class OpenVINOCPU:
    name = "OpenVINO CPU"

    def __init__(self):
        import openvino as ov

        self.ov = ov
        self.core = ov.Core()
        self.release = ov.get_version().split("-")[0]
        self.version = f"OpenVINO {self.release}"
        self.folder = tempfile.mkdtemp(prefix="ground-truth-")

    def run(self, case: Case) -> str | None:
        path = os.path.join(self.folder, "m.onnx")
        try:
            with open(path, "wb") as handle:
                handle.write(case.model.SerializeToString())
            model = self.core.read_model(path)
            compiled = self.core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            names = [i.name for i in case.model.graph.input
                     if i.name not in {init.name for init in case.model.graph.initializer}]
            feeds = dict(zip(names, case.inputs))
            # by name: OpenVINO's frontend drops an input it folds (an empty axes input, ...)
            compiled({port.get_any_name(): feeds[port.get_any_name()] for port in compiled.inputs
                      if port.get_any_name() in feeds})
        except Exception as exc:  # noqa: BLE001 - any failure is the measurement
            return _first_line(exc)
        return None


RUNTIMES = {"ort-cpu": OnnxruntimeCPU, "openvino": OpenVINOCPU}
CASE_SECONDS = 120  # a case longer than this (hung, or a runaway Loop) is killed and counted as failing


class Isolated:
    """A runtime of RUNTIMES in a worker process: each case within CASE_SECONDS; a case that hangs or takes the
    worker down (a crash in the runtime) is reported as failing, and a new worker takes the next case."""

    def __init__(self, target: str, runtime: type | None = None):
        """``runtime``: the class the worker makes (RUNTIMES[target] unless given; importable by the worker)."""
        self.runtime = runtime or RUNTIMES[target]
        self._start()

    def _start(self) -> None:
        self.conn, child = isolation.pipe()
        # fresh: no fork of a process that holds runtime threads
        self.process = isolation.start(isolation.Serve(_serve, (self.runtime, child), fresh=True))
        child.close()
        try:
            self.release, self.version = self.conn.recv()
        except EOFError:
            self.process.join()
            raise RuntimeError(f"the worker running {self.runtime.__name__} did not start "
                               f"(exit status {self.process.exitcode}; its traceback is above)") from None

    def run(self, case: Case) -> str | None:
        self.conn.send((case.name, case.model.SerializeToString(), case.inputs))
        try:
            if self.conn.poll(CASE_SECONDS):
                return self.conn.recv()
            why = f"did not finish in {CASE_SECONDS} s (killed)"
        except EOFError:
            why = f"the runtime's process died (exit status {self.process.join(5) or self.process.exitcode})"
        self.close()
        self._start()
        return why

    def close(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _serve(make, conn) -> None:
    """The worker of Isolated: one runtime, cases in, verdicts out, until the pipe closes."""
    runtime = make()
    conn.send((runtime.release, runtime.version))
    while True:
        try:
            name, data, inputs = conn.recv()
        except EOFError:
            return
        conn.send(runtime.run(Case(name, onnx.load_from_string(data), inputs)))


def available(target: str) -> bool:
    import importlib.util

    if target == "ort-cuda":
        return CUDA_CASES.is_file()
    return importlib.util.find_spec({"ort-cpu": "onnxruntime", "openvino": "openvino"}[target]) is not None


@dataclass
class Outcome:
    case: str
    static: str | None  # None: check says it runs; else the first error
    runtime: str | None  # None: the runtime ran it; else its error


@dataclass
class Result:
    target: str
    runtime: str
    outcomes: list[Outcome]
    seconds: float
    release: str = ""  # the runtime's version, "1.32.0" (docs/ground-truth.md has a section per target and release)

    def count(self, static_runs: bool, runtime_runs: bool) -> int:
        return sum((o.static is None) == static_runs and (o.runtime is None) == runtime_runs for o in self.outcomes)

    @property
    def agreement(self) -> float:
        return (self.count(True, True) + self.count(False, False)) / len(self.outcomes)

    @property
    def wrong_runs(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.static is None and o.runtime is not None]

    @property
    def wrong_refusals(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.static is not None and o.runtime is None]


def measure(target: str, cases: list[Case]) -> Result:
    from converter.targets.check import check_model, errors

    runtime = Isolated(target)
    start = time.perf_counter()
    outcomes = []
    try:
        for case in cases:
            found = errors(check_model(case.model, target))
            outcomes.append(Outcome(case.name, str(found[0]) if found else None, runtime.run(case)))
    finally:
        runtime.close()
    return Result(target, runtime.version, outcomes, time.perf_counter() - start, runtime.release)


# ---- ort-cuda: against a recorded measurement of onnxruntime's CUDA EP (no GPU at hand) ----------------------
CUDA_CASES = REPO / "tools" / "data" / "cuda-ep-node-cases-2026-11-27.json"


class RecordedCUDA:
    """onnxruntime's CUDA EP as tools/measure_cuda.py recorded it: ``cuda_only``, the CUDA EP alone."""

    name = "onnxruntime CUDA EP (recorded)"

    def __init__(self, path: Path = CUDA_CASES):
        import json

        data = json.loads(Path(path).read_text(encoding="utf-8"))
        meta = data["meta"]
        self.release = next((w for w in str(meta["onnxruntime"]).split() if w[:1].isdigit()), "?")
        self.version = (f"{meta['onnxruntime']}, CUDA EP alone, on {meta['machine'].split(',')[0]} "
                        f"(recorded {meta['measured']}, {Path(path).name})")
        self.verdicts = {c["case"]: None if c["cuda_only"] else (c["error"] or "failed") for c in data["cases"]}

    def run(self, case: Case) -> str | None:
        return self.verdicts[case.name]


def recorded_cases(path: Path = CUDA_CASES) -> list[Case]:
    """Every case of the installed onnx's corpus that the recorded measurement has (inputs are not needed)."""
    from onnx.backend.test.case.node import collect_testcases

    verdicts = RecordedCUDA(path).verdicts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collected = collect_testcases()
    return [Case(c.name, c.model, []) for c in collected if c.name in verdicts]


def measure_recorded(cases: list[Case] | None = None, path: Path = CUDA_CASES) -> Result:
    """ort-cuda's static verdicts (committed tables: the measured onnxruntime's) against the recorded ones."""
    from converter.targets import ort_kernels
    from converter.targets.check import check_model, errors

    runtime = RecordedCUDA(path)
    cases = recorded_cases(path) if cases is None else cases
    saved = os.environ.get("SPEC2ONNX_KERNEL_TABLES")
    os.environ["SPEC2ONNX_KERNEL_TABLES"] = "committed"  # the recording is of 1.31.1, as the committed tables
    ort_kernels.kernel_table.cache_clear()
    try:
        start = time.perf_counter()
        outcomes = []
        for case in cases:
            found = errors(check_model(case.model, "ort-cuda"))
            outcomes.append(Outcome(case.name, str(found[0]) if found else None, runtime.run(case)))
        return Result("ort-cuda", runtime.version, outcomes, time.perf_counter() - start, runtime.release)
    finally:
        if saved is None:
            os.environ.pop("SPEC2ONNX_KERNEL_TABLES", None)
        else:
            os.environ["SPEC2ONNX_KERNEL_TABLES"] = saved
        ort_kernels.kernel_table.cache_clear()


def held_out(cases: list[Case], folds: int = 2, path: Path = CUDA_CASES) -> Result:
    """ort-cuda with its measured table rows made from part of the recording only: each fold of op families
    (a case and its _expanded twin together) is checked with a table built from the other folds' cases
    (tools/measure_cuda.py build_table), so its agreement says what the rules and the transcription predict
    for ops whose measurement they did not see."""
    import zlib

    from converter.targets import check
    from tools import measure_cuda

    meta, recorded = measure_cuda.read_cases(path)
    by_name = {c.name: c for c in cases}
    real = check.kernel_table
    outcomes, seconds = [], 0.0
    try:
        for k in range(folds):
            fold = [n for n in by_name if zlib.crc32(n.split("_expanded")[0].encode()) % folds == k]
            train = [c for c in recorded if c["case"] in by_name and c["case"] not in set(fold)]
            table = measure_cuda.build_table(meta, train, by_name)
            check.kernel_table = lambda target, table=table: table if target == "ort-cuda" else real(target)
            result = measure_recorded([by_name[n] for n in fold], path)
            outcomes += result.outcomes
            seconds += result.seconds
    finally:
        check.kernel_table = real
    runtime = RecordedCUDA(path)
    return Result("ort-cuda", f"{runtime.version}; measured rows from the other {folds - 1} of {folds} folds of op "
                              "families only", sorted(outcomes, key=lambda o: o.case), seconds, runtime.release)


def report_recorded(path: Path = CUDA_CASES) -> tuple[Result, str]:
    """ort-cuda against the recording: its result, and its section's text (the section, then the held-out matrix)."""
    cases = recorded_cases(path)
    result = measure_recorded(cases, path)
    print(f"ort-cuda: {len(cases)} recorded cases in {result.seconds:.1f} s", file=sys.stderr)
    held = held_out(cases, path=path)
    print(f"ort-cuda held out: {held.seconds:.1f} s", file=sys.stderr)
    return result, "\n".join([section_text(result, len(cases)), "",
                              "Held out (the measured rows of the table built without the checked case's op family, "
                              "`tools.ground_truth.held_out`):", "", matrix(held, len(cases))])


def matrix(result: Result, corpus_size: int) -> str:
    n = len(result.outcomes)
    agree = result.count(True, True) + result.count(False, False)
    return "\n".join([
        f"**{result.target}** against {result.runtime} ({n} cases):",
        "",
        "| check says \\ runtime | runs | fails |",
        "|---|---|---|",
        f"| runs | {result.count(True, True)} | {result.count(True, False)} |",
        f"| refused | {result.count(False, True)} | {result.count(False, False)} |",
        "",
        f"Agreement {agree} of {n} ({100 * agree / n:.1f}%); \"runs\" but fails: {len(result.wrong_runs)} "
        f"({100 * len(result.wrong_runs) / corpus_size:.2f}% of the corpus).",
    ])


def corpus_text(corpus_: Corpus) -> str:
    import onnx as onnx_

    parts = [f"Corpus: onnx {onnx_.__version__} `collect_testcases()`: "
             f"{len(corpus_.cases) + len(corpus_.skipped)} node test cases, {len(corpus_.cases)} with tensor inputs "
             f"(measured), {len(corpus_.skipped)} skipped:", ""]
    why: dict[str, list[str]] = {}
    for name, skip in corpus_.skipped.items():
        why.setdefault(skip, []).append(name)
    parts += [f"- {skip}: {len(names)} ({', '.join(sorted(names)[:6])}{', ...' if len(names) > 6 else ''})"
              for skip, names in sorted(why.items(), key=lambda kv: -len(kv[1]))]
    return "\n".join(parts)


def section_text(result: Result, corpus_size: int) -> str:
    """One (target, runtime version)'s part of the docs: its matrix, its disagreements and why, its flaky cases."""
    parts = [matrix(result, corpus_size), ""]
    wrong = [("runs", o) for o in result.wrong_runs] + [("refused", o) for o in result.wrong_refusals]
    if wrong:
        parts += ["| case | check says | runtime | why they differ |", "|---|---|---|---|"]
        for said, o in sorted(wrong, key=lambda w: w[1].case):
            detail = (o.runtime or "runs") if said == "runs" else f"runs (check: {o.static})"
            why = reason(result.target, o.case, result.release) or "NOT EXPLAINED"
            parts.append(f"| {o.case} | {said} | {_cell(detail)} | {_cell(why)} |")
    flaky = FLAKY.get(result.target, {})
    if flaky:
        parts += ["", "Depends on the run or the machine (listed whether or not this run disagreed):", "",
                  "| case | why |", "|---|---|"]
        parts += [f"| {case} | {_cell(why)} |" for case, why in sorted(flaky.items())]
    return "\n".join(parts)


def report(results: list[Result], corpus_: Corpus) -> str:
    return "\n\n".join([corpus_text(corpus_), *(section_text(r, len(corpus_.cases)) for r in results)])


_SECTION = re.compile(r"^<!-- section: (\S+) (\S+) -->$", re.M)


def sections(doc: str) -> tuple[str, dict[tuple[str, str], str]]:
    """The generated block of ``doc``: its corpus text, and the text of each (target, runtime version) section."""
    inner = doc.partition(BEGIN)[2].partition(END)[0]
    pieces = _SECTION.split(inner)
    return pieces[0].strip(), {(t, v): text.strip() for t, v, text in zip(pieces[1::3], pieces[2::3], pieces[3::3])}


def write_docs(doc: str, corpus_: Corpus, results: list[Result], texts: dict | None = None) -> str:
    """``doc`` with the corpus text and the measured versions' sections replaced; other versions' sections kept.
    ``texts``: (target, version) -> a section's text made otherwise (ort-cuda's, from a recording)."""
    _, kept = sections(doc)
    kept.update({(r.target, r.release): section_text(r, len(corpus_.cases)) for r in results})
    kept.update(texts or {})
    body = "\n\n".join([corpus_text(corpus_), *(f"<!-- section: {t} {v} -->\n{text}" for (t, v), text in
                                                 sorted(kept.items(), key=lambda kv: (kv[0][0], _key(kv[0][1]))))])
    head, _, rest = doc.partition(BEGIN)
    return f"{head}{BEGIN}\n{body}\n{END}{rest.partition(END)[2]}"


def _key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.+-]", version))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.ground_truth", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write-docs", action="store_true",
                        help=f"rewrite the installed runtimes' sections of {DOC.relative_to(REPO)} (others are kept)")
    parser.add_argument("--target", action="append", choices=sorted([*RUNTIMES, "ort-cuda"]),
                        help="only this target (repeatable)")
    parser.add_argument("--cuda-cases", type=Path, default=CUDA_CASES, metavar="FILE",
                        help="ort-cuda's recorded verdicts (python -m tools.measure_cuda --cases FILE; default: the "
                             f"committed {CUDA_CASES.relative_to(REPO)})")
    args = parser.parse_args(argv)
    targets = args.target or [*sorted(RUNTIMES), "ort-cuda"]
    corpus_ = corpus()
    results = []
    for target in [t for t in targets if t in RUNTIMES]:
        if not available(target):
            print(f"{target}: its runtime is not installed; not measured", file=sys.stderr)
            continue
        results.append(measure(target, corpus_.cases))
        print(f"{target}: {len(corpus_.cases)} cases in {results[-1].seconds:.1f} s", file=sys.stderr)
    texts = {}
    if "ort-cuda" in targets:  # a recording: no runtime is needed (tools/data/cuda-ep-node-cases-*.json)
        recorded, text = report_recorded(args.cuda_cases)
        texts[(recorded.target, recorded.release)] = text
    if args.write_docs:
        DOC.write_text(write_docs(DOC.read_text(encoding="utf-8"), corpus_, results, texts), encoding="utf-8")
        written = [f"{r.target} {r.release}" for r in results] + [f"{t} {v}" for t, v in texts]
        print(f"wrote {DOC}: the sections of {', '.join(written)}")
    else:
        print("\n\n".join([report(results, corpus_), *texts.values()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
