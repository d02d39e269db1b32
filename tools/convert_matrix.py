"""Convert specs for every target with the installed ``spec2onnx`` command, and check each model it writes (CI).

    python -m tools.convert_matrix [--spec2onnx PATH] SPEC...    (with the Python of the environment to test)

For each spec and each target (``spec2onnx.targets.target_names()`` of the installed package), in a fresh
process: ``spec2onnx convert SPEC --target T -o T.onnx`` must either write the model, which ``spec2onnx
check T.onnx --target T`` then says runs (exit 0), or refuse the spec cleanly (exit 2, one ``spec2onnx:
error:`` line, no file written, no traceback). Anything else (a crash: exit 139, an internal error: 3, a
traceback, a warning repeated) fails the run (exit 1). One line per pair; the models go to a temporary folder.
.ci/run runs it in the onnxruntime-gpu environment, where the installed onnxruntime's registry call crashes.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def _run(argv: list[str]) -> Done:
    """A command's exit status and output (started by the installed package's one starter of child processes)."""
    from spec2onnx.process import isolation  # the installed package's (run this with its Python)

    reply = isolation.run(isolation.Command(tuple(argv)))
    return Done(reply.exitcode, *(text.decode("utf-8", "replace") for text in (reply.stdout, reply.stderr)))


def judge(spec2onnx: str, spec: Path, target: str, out: Path) -> str | None:
    """None when convert (and check) behaved; otherwise what went wrong."""
    model = out / f"{spec.stem}.{target}.onnx"
    proc = _run([spec2onnx, "convert", str(spec), "--target", target, "-o", str(model)])
    said = [line for line in proc.stderr.splitlines() if line.strip()]
    if "Traceback" in proc.stderr or len([s for s in said if s.startswith("spec2onnx: warning:")]) > 1:
        return f"convert exit {proc.returncode}: {proc.stderr.strip()[:500]}"
    if proc.returncode == 2:
        errors = [s for s in said if s.startswith("spec2onnx: error:")]
        if len(errors) != 1 or model.exists():
            return f"a refusal must be one error line and no file: {proc.stderr.strip()[:500]}"
        print(f"refused  {target:13} {spec}: {errors[0][len('spec2onnx: error: '):][:150]}")
        return None
    if proc.returncode != 0 or not model.is_file():
        return f"convert exit {proc.returncode}: {proc.stderr.strip()[:500]}"
    check = _run([spec2onnx, "check", str(model), "--target", target])
    if check.returncode != 0 or "Traceback" in check.stderr:
        return f"check of what convert wrote exit {check.returncode}: {(check.stdout + check.stderr).strip()[:500]}"
    print(f"ok       {target:13} {spec}: {check.stdout.strip().splitlines()[-1].split(': ', 1)[-1]}")
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", type=Path)
    parser.add_argument("--spec2onnx", default=shutil.which("spec2onnx") or "spec2onnx", help="the command to run")
    args = parser.parse_args(argv)
    failures = []
    out = Path(tempfile.mkdtemp(prefix="convert-matrix-"))
    try:
        from spec2onnx.targets import target_names  # the installed package's (run this with its Python)

        names = list(target_names())
        for spec in args.specs:
            for target in names:
                wrong = judge(args.spec2onnx, spec, target, out)
                if wrong:
                    print(f"FAILED   {target:13} {spec}: {wrong}")
                    failures.append((spec, target))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(f"{len(args.specs) * len(names) - len(failures)} of {len(args.specs) * len(names)} spec/target pairs behaved")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
