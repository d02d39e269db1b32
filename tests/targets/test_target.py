"""The resolved Target (issue 32 item 4): a name is looked up in the registry once, where it enters, and the object
carries its profile from then on; nothing else in the package looks a profile up by name."""

from __future__ import annotations

import pickle
import re

import pytest

from converter.errors import UserError
from converter.targets import (Target, precision_targets, register_target, resolve_target, target_names,
                               target_summaries, unregister_target)
from converter.targets.profiles import PROFILES

from ..conftest import REPO
from ..test_startup import modules_of, own

BUILT_IN = ("portable", "ort-cpu", "ort-cuda", "ort-dml", "tensorrt", "tensorrt-dla", "openvino")


def test_the_registry_lists_the_built_in_targets_portable_first_each_with_one_line():
    assert target_names()[:len(BUILT_IN)] == BUILT_IN
    summaries = dict(target_summaries())
    assert all(summaries[name] and "\n" not in summaries[name] for name in BUILT_IN)


def test_an_unknown_name_is_one_user_error_naming_every_target_and_the_closest():
    with pytest.raises(UserError) as raised:
        resolve_target("tensort", also=("auto",))
    assert str(raised.value) == ("--target tensort: unknown target (did you mean 'tensorrt'?); targets: auto, "
                                 + ", ".join(target_names()))
    with pytest.raises(UserError, match="unknown target"):
        Target("no-such-target")  # a Target cannot exist for a name the registry does not have


def test_a_target_is_resolved_once_and_carries_its_profile():
    dla = resolve_target("tensorrt-dla", precision=["fp16"])
    assert dla.profile["matrix"] == "tensorrt.json" and dla.matrix == "tensorrt.json" and dla.kernels is None
    assert dla.importer and dla.dla and not dla.dynamic_shapes and dla.deployment and dla.precision == {"fp16"}
    assert dla.includes("tensorrt") and not dla.includes("openvino")
    with pytest.raises(AttributeError):
        dla.name = "tensorrt"
    with pytest.raises(TypeError):
        dla.profile["dla"] = False  # read-only: a target's data is the registry's
    # portable: its members resolved with it, with its precision
    portable = resolve_target("portable", precision=["int8"])
    assert [m.name for m in portable.checked] == ["ort-cpu", "ort-cuda", "tensorrt", "openvino"]
    assert all(m.precision == {"int8"} for m in portable.members) and portable.includes("openvino")
    ort = resolve_target("ort-cpu")
    assert ort.checked == (ort,) and ort.probe == {"runtime": "onnxruntime", "provider": "CPUExecutionProvider"}
    assert resolve_target("openvino").notes[0].startswith("openvino: checked as a deployment reads a model")
    assert [n.split(":")[0] for n in portable.notes] == ["openvino"]


def test_identity_is_the_name_precision_travels_and_pickling_resolves_again():
    plain, fp16 = resolve_target("tensorrt"), resolve_target("tensorrt", precision=["fp16"])
    assert plain == fp16 and hash(plain) == hash(fp16) and plain != resolve_target("tensorrt-dla")
    assert plain.allowing(["fp16"]).precision == {"fp16"} and plain.allowing([]) is plain
    assert resolve_target(fp16) is fp16  # a Target passes an entry as it is
    again = pickle.loads(pickle.dumps(fp16))
    assert again == fp16 and again.precision == {"fp16"} and again.profile == fp16.profile
    assert len(pickle.dumps(resolve_target("portable"))) < 200  # by name, not its limits


def test_the_precision_readers_are_the_profiles_with_build_precisions():
    """trtexec's --fp16/--int8 are TensorRT builder flags: only the TensorRT targets read them."""
    assert precision_targets() == ("tensorrt", "tensorrt-dla")
    assert [resolve_target(n).build_precisions for n in ("tensorrt", "tensorrt-dla", "ort-cuda")] == [
        ("fp16", "int8"), ("fp16", "int8"), ()]


def test_register_target_refuses_a_taken_name_and_unregister_forgets_it():
    with pytest.raises(ValueError, match="'ort-cpu' is taken"):
        register_target("ort-cpu", {"summary": "again"})
    register_target("toy-regs", {"summary": "a test's", "kernels": "ort-cpu.json", "build_precisions": ["fp16"]})
    try:
        assert target_names()[-1] == "toy-regs" and ("toy-regs", "a test's") in target_summaries()
        assert "toy-regs" in precision_targets() and resolve_target("toy-regs").kernels == "ort-cpu.json"
    finally:
        unregister_target("toy-regs")
    assert "toy-regs" not in PROFILES
    with pytest.raises(UserError, match="unknown target"):
        resolve_target("toy-regs")


def test_no_module_but_the_registry_looks_a_profile_up_by_name():
    """The profile is read through a Target: PROFILES is named only by profiles.py (the registry) and target.py."""
    users = sorted(str(p.relative_to(REPO)) for p in (REPO / "converter").rglob("*.py")
                   if re.search(r"\bPROFILES\b", p.read_text(encoding="utf-8")))
    assert users == ["converter/targets/profiles.py", "converter/targets/target.py"]


def test_a_help_that_lists_the_targets_reads_only_the_light_registry(tmp_path):
    """--target's help reads the registry (profiles.py, target.py) and nothing else of targets/ (no check, no
    onnx); the top-level --help reads no target at all."""
    modules, done = modules_of(tmp_path, "convert", "--help")
    assert done.returncode == 0 and "tensorrt-dla (TensorRT on a DLA core" in " ".join(done.stdout.split())
    assert {m for m in own(modules) if m.startswith("targets")} == {"targets", "targets.profiles", "targets.target"}
    modules, done = modules_of(tmp_path, "--help")
    assert done.returncode == 0 and not {m for m in own(modules) if m.startswith("targets")}
