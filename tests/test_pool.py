"""Workers never outlive the CLI, and SIGTERM stops a run as Ctrl-C does (converter/pipeline/pool.py, converter/process/interrupts.py).

Real processes: the CLI is started with subprocess while two workers hang in a case, then killed;
the workers must be gone within seconds, and after SIGTERM the JSON report must exist.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


from .conftest import REPO, alive
from .test_runner import MISBEHAVING_SPEC, PLUGIN, _as_a_foreground_job

linux = pytest.mark.skipif(sys.platform != "linux", reason="reads worker pids from /proc")


def _children(pid: int) -> list[int]:
    """Live child processes of ``pid`` (from /proc)."""
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(entry.name))
    return kids


# The CLI with the kernel's guard (PR_SET_PDEATHSIG) switched off, as on systems without it: an invalid prctl
# option makes the call fail harmlessly, and the pipes and the parent check must end the workers alone.
WITHOUT_KERNEL_GUARD = (f"import sys; sys.path.insert(0, {str(REPO)!r}); import converter.pipeline.pool as pool; "
                        "pool.PR_SET_PDEATHSIG = 0; from cli import main; main()")


def _start_hanging_run(tmp_path, kernel_guard: bool = True) -> tuple[subprocess.Popen, list[int], Path]:
    """The CLI with two workers, each stuck in the plugin's hanging case (after one passing case each)."""
    for name in ("one", "two"):
        (tmp_path / f"{name}.yaml").write_text(MISBEHAVING_SPEC.replace("name: misbehaving", f"name: {name}"))
    r_json = tmp_path / "r.json"
    cli = [str(REPO / "cli.py")] if kernel_guard else ["-c", WITHOUT_KERNEL_GUARD]
    proc = subprocess.Popen([sys.executable, *cli, "validate", str(tmp_path / "one.yaml"),
                             str(tmp_path / "two.yaml"), "--plugin", PLUGIN, "-j", "2", "-k", "fine-1", "-k", "hangs",
                             "--timeout", "600", "--json", str(r_json)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]  # both fine-1 cases passed: the hanging ones run now
        assert all(line.startswith("PASS") for line in lines), lines
        deadline = time.monotonic() + 10
        while len(workers := _children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(workers) == 2, workers
    except BaseException:  # never leave the CLI and its hanging workers behind for --timeout's 600 s
        proc.kill()
        proc.communicate(timeout=30)
        raise
    time.sleep(0.3)
    return proc, workers, r_json


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def _cleanup(pids: list[int]) -> None:
    for pid in pids:  # only the workers this test started, by pid
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@linux
@pytest.mark.parametrize("kernel_guard", [True, False], ids=["pdeathsig", "pipes-and-parent-check-only"])
def test_kill_9_of_the_cli_takes_its_workers_with_it(tmp_path, kernel_guard):
    proc, workers, _ = _start_hanging_run(tmp_path, kernel_guard)
    proc.kill()
    proc.communicate(timeout=30)
    left = _gone_within(workers, 10)
    _cleanup(left)
    assert left == [], f"workers {left} outlived the killed CLI"


@linux
def test_sigterm_writes_the_reports_exits_143_and_leaves_no_worker(tmp_path):
    proc, workers, r_json = _start_hanging_run(tmp_path)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    left = _gone_within(workers, 10)
    _cleanup(left)
    assert proc.returncode == 143, out + err
    assert left == []
    assert "Traceback" not in err
    assert out.strip().splitlines()[-1].endswith("(terminated)"), out
    report = json.loads(r_json.read_text())
    assert report["interrupted"] is True
    assert sorted((c["spec"], c["case"]) for c in report["cases"]) == [("one", "fine-1"), ("two", "fine-1")]


@linux
def test_sigterm_during_convert_exits_143_with_one_line(tmp_path):
    """Outside validate too: the handler is installed for every command, and nothing is half-written."""
    script = (f"import sys, time; sys.path.insert(0, {str(REPO)!r}); import converter.api.specs as api; "
              "api.load_spec_file = lambda *a, **k: (print('loading', flush=True), time.sleep(600)); "
              "from cli import main; main(['convert', 'x.yaml', '-o', 'm.onnx'])")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "loading\n"  # inside the command: its handler is installed
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, out + err
    assert err.strip() == "spec2onnx: error: terminated (SIGTERM)"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@linux
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_signal_after_the_last_case_waits_for_the_reports_to_be_written(tmp_path, signum):
    """Every case finished, then the signal comes while the verdict is made (a CI cancel at the end of the job): the
    reports of the whole run are still written, then the command ends with 143 / 130. Before, none was written."""
    spec = REPO / "specs" / "trt_scale" / "seed-scale-4d.yaml"
    script = (f"import os, sys; sys.path.insert(0, {str(REPO)!r}); import converter.api.specs as api; "
              "verdict = api.verdict; "
              f"api.verdict = lambda *a, **k: (os.kill(os.getpid(), {int(signum)}), verdict(*a, **k))[1]; "
              f"from cli import main; main(['validate', {str(spec)!r}, '-j', '1', '--json', 'r.json', '--junit', 'r.xml'])")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_a_foreground_job)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, out + err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == ("spec2onnx: error: terminated (SIGTERM)" if signum == signal.SIGTERM
                                            else "spec2onnx: error: interrupted")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["interrupted"] is False  # (every case had finished: the report is the whole run's)
    assert sorted(c["case"] for c in report["cases"]) == ["doc-example", "random"]
    assert (tmp_path / "r.xml").read_text().count("<testcase ") == 2


def test_terminate_as_interrupt_raises_a_keyboard_interrupt_and_restores_the_handler():
    # In a fresh process: in the pytest process, a SIGTERM sent to itself segfaults once OpenVINO's
    # CPU plugin has run there (tests/lowering/test_resize.py loads it; its threads are still alive).
    code = """
import os, signal, time
from converter.process.interrupts import Terminated, exit_status, terminate_as_interrupt
before = signal.getsignal(signal.SIGTERM)
try:
    with terminate_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises at once
    raise SystemExit("no KeyboardInterrupt")
except KeyboardInterrupt as caught:
    assert isinstance(caught, Terminated) and exit_status(caught) == 143
assert exit_status(KeyboardInterrupt()) == 130
assert signal.getsignal(signal.SIGTERM) == before
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ok"), proc.stderr

def test_a_case_whose_last_results_were_unsent_when_its_worker_was_lost_is_run_again_not_lost(tmp_path):
    """The race: case fine-1's first configuration reached the parent, its second was still in the worker's
    outbox (results go in batches) when the next case hung and the worker was killed. fine-1 must get its
    second result from a rerun, and the result the parent already had must not come a second time."""
    from collections import deque

    from converter.pipeline.plugins import load_plugins
    from converter.pipeline.pool import Job, Pool, SpecInfo
    from converter.runners import RunConfig
    from converter.pipeline.stages import PASS, Options

    load_plugins((PLUGIN,))
    spec = tmp_path / "m.yaml"
    spec.write_text(MISBEHAVING_SPEC)
    a, b = RunConfig(opt_level="all"), RunConfig(opt_level="disabled")
    pool = Pool(1, Options(configs=(a, b)), timeout=None, plugins=(PLUGIN,))
    worker = pool._start()
    pool.workers = [worker]
    job = Job(spec, (), ["fine-1", "hangs", "fine-3"])
    worker.job, worker.reported = job, {("fine-1", ("onnxruntime", "CPUExecutionProvider", "all"))}
    worker.info = SpecInfo("misbehaving", str(spec), ("test.Misbehave",), 17, ["fine-1", "hangs", "fine-3"])
    worker.progress[0], worker.progress[1] = 1, 0.0  # in "hangs"
    queue = deque()
    errors = list(pool._lost(worker, queue, "timed out"))
    assert [(r.case, r.opt_level, r.outcome) for r in errors] == [("hangs", "all", "ERROR"), ("hangs", "disabled", "ERROR")]
    [again] = queue
    assert again.cases == ["fine-1", "fine-3"]
    results = list(pool.run([again]))
    assert sorted((r.case, r.opt_level, r.outcome) for r in results) == [
        ("fine-1", "disabled", PASS), ("fine-3", "all", PASS), ("fine-3", "disabled", PASS)]


def test_a_job_too_big_for_the_pipe_is_not_sent_ahead_to_a_worker_stuck_in_a_case(tmp_path):
    """More jobs than workers: the next job is sent ahead into a busy worker's pipe. The worker reads it
    only when its current case ends, so a job bigger than the pipe's buffer (here: a megabyte of -k
    patterns) would block the parent in send behind a hanging case, and --timeout would never fire."""
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.yaml").write_text(MISBEHAVING_SPEC.replace("name: misbehaving", f"name: {name}"))
    code = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from converter.pipeline.pool import Job, Pool
from converter.pipeline.stages import Options
jobs = [Job(__import__("pathlib").Path({str(tmp_path / "a.yaml")!r}), ("hangs",)),
        Job(__import__("pathlib").Path({str(tmp_path / "b.yaml")!r}), ("fine-1", "z" * (1 << 20))),
        Job(__import__("pathlib").Path({str(tmp_path / "c.yaml")!r}), ("fine-1",))]
for r in Pool(1, Options(), timeout=2, plugins=({PLUGIN!r},)).run(jobs):
    print(r.spec, r.case, r.outcome, *r.problems)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines()) == [
        "a hangs ERROR timed out after 2 s (--timeout)", "b fine-1 PASS", "c fine-1 PASS"]


def test_a_worker_whose_results_wait_unread_is_not_timed_out_after_a_slow_consumer(tmp_path):
    """The pool is a generator: while its consumer holds a result (a paged terminal, a slow report), the
    other workers go on and their results wait in their pipes. Back in the loop, a worker whose pipe was
    not ready at the last wait() must not be judged on its clock alone: here b's only case passed long
    ago (its result unread) and was reported as timed out, its worker killed."""
    from converter.pipeline.plugins import load_plugins
    from converter.pipeline.pool import Job, Pool
    from converter.pipeline.stages import Options

    from .test_runner import RESIZE_SPEC

    load_plugins((PLUGIN,))
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(MISBEHAVING_SPEC.replace("name: misbehaving", "name: a"))
    b.write_text(RESIZE_SPEC.format(n=512, m=1024).replace("name: threads", "name: b"))  # about a second
    results = Pool(2, Options(), timeout=2, plugins=(PLUGIN,)).run([Job(a, ("fine-1",)), Job(b)])
    got = []
    for result in results:
        got.append((result.spec, result.case, result.outcome, *result.problems))
        if len(got) == 1:
            time.sleep(6)  # the consumer is slow with the first result
    assert sorted(got) == [("a", "fine-1", "PASS"), ("b", "c", "PASS")]


def test_a_worker_of_fast_jobs_is_sent_more_ahead_within_the_pipes_bytes():
    """SEND_AHEAD_JOBS while its pace is unknown or slow; SEND_AHEAD_SECONDS of its jobs at its last pace when they
    are fast, at most SEND_AHEAD_MAX_JOBS; never more than SEND_AHEAD_TOTAL_BYTES held in its pipe; the parent
    sleeps between reads only while each busy worker holds over twice COALESCE_SECONDS of work."""
    from collections import deque

    from converter.pipeline import pool

    worker = pool._Worker(process=None, conn=None, progress=None, shared_info=None)
    assert worker.ahead() == pool.SEND_AHEAD_JOBS and not worker.supplied()
    worker.pace = 1.0
    assert worker.ahead() == pool.SEND_AHEAD_JOBS
    worker.pace = pool.SEND_AHEAD_SECONDS / 5
    assert worker.ahead() == 5
    worker.pace = pool.SEND_AHEAD_SECONDS / 1000
    assert worker.ahead() == pool.SEND_AHEAD_MAX_JOBS

    class Pipe:
        sent = 0

        def send_bytes(self, data):
            Pipe.sent += len(data)

    worker.conn = Pipe()
    queue = deque(pool.Job(Path(f"s{i}.yaml"), id=i) for i in range(100))
    sent = 0
    while pool.Pool._send_ahead(None, worker, queue.popleft(), queue):
        sent += 1
    assert sent == len(worker.waiting) > pool.SEND_AHEAD_JOBS and len(queue) == 100 - sent
    assert sum(size for _, size in worker.waiting) == Pipe.sent <= pool.SEND_AHEAD_TOTAL_BYTES
    worker.pace = 4 * pool.COALESCE_SECONDS / len(worker.waiting)  # what it holds lasts 4x: the parent may sleep
    assert worker.supplied()
    worker.pace = pool.COALESCE_SECONDS / len(worker.waiting)
    assert not worker.supplied()


def _ranks_in_a_daemonic_process(queue) -> None:
    from onnx import TensorProto, helper

    from converter.targets.model_view import infer_whole

    nodes = [helper.make_node("Reshape", ["b", "flat"], ["r"]), helper.make_node("Gather", ["r", "idx"], ["g"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("b", TensorProto.FLOAT, [6])],
                              [helper.make_tensor_value_info("g", TensorProto.FLOAT, None)],
                              [helper.make_tensor("flat", TensorProto.INT64, [1], [6]),
                               helper.make_tensor("idx", TensorProto.INT64, [2, 3], [0, 1, 2, 3, 4, 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    inferred = infer_whole(model)
    queue.put({v.name: len(v.type.tensor_type.shape.dim) for v in [*inferred.graph.value_info, *inferred.graph.output]
               if v.type.tensor_type.HasField("shape")})


@linux
def test_a_pool_worker_infers_a_models_shapes_as_the_parent_does():
    """validate's workers are daemonic processes, which multiprocessing allows no child; the whole-model inference
    runs in a child for its time limit, so in a worker it raised, and the static check went on without inferred
    shapes: --target openvino -j 1 REFUSED (a scale 'of unknown rank') a spec that -j 0 and check pass."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    worker = context.Process(target=_ranks_in_a_daemonic_process, args=(queue,), daemon=True)
    worker.start()
    ranks = queue.get(timeout=60)
    worker.join(30)
    assert ranks.get("g") == 2 and ranks.get("r") == 1, ranks  # Gather of [6] by [2, 3] indices: rank 2
    spec = REPO / "specs" / "dml_dequantize" / "strides-transposed-native-blocked-opset21.yaml"
    outcomes = []
    for jobs in ("0", "1"):
        proc = subprocess.run([sys.executable, str(REPO / "cli.py"), "validate", str(spec), "--target", "openvino",
                               "-q", "-j", jobs], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "SPEC2ONNX_CACHE": "off"})
        outcomes.append((proc.returncode, proc.stdout.strip().splitlines()[-1]))
    assert outcomes[0][0] == outcomes[1][0] == 0, outcomes
