"""Which files are specs (the rule that `validate DIR` and the pytest plugin share), --exclude, shards."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from cli import main
from converter.pipeline import safe_yaml
from converter.pipeline.selection import find_specs, is_spec_file, spec_files, spec_name_of

from .conftest import BAD_SPECS, REPO, SPECS

SEED = SPECS / "trt_scale/seed-scale-4d.yaml"


def _invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_every_bundled_spec_is_a_spec_file():
    files = sorted(p for p in SPECS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    assert len(files) > 200
    assert [p for p in files if not is_spec_file(p)] == []


@pytest.mark.parametrize("text, name, want", [
    ("name: x\nnetwork: {}\ncases: []\n", "a.yaml", True),
    ("'network': 1\n\"cases\"  : 2\n", "a.yml", True),  # quoted block keys
    ("# banner\n---\n{name: x, network: {}, cases: []}\n", "a.yaml", True),  # flow style: parsed
    ("name: [unclosed\nnetwork: {}\ncases: []\n", "a.yaml", True),  # broken, but a spec by its keys
    ("network: {}\n", "a.yaml", False),  # no cases
    ("networks: {}\ncases: []\n", "a.yaml", False),
    ("jobs:\n  test:\n    network: 1\n    cases: 2\n", "ci.yml", False),  # keys not at the top level
    ("- network: 1\n  cases: 2\n", "a.yaml", False),  # a list
    ("", "a.yaml", False),
    ("{unclosed: [", "a.yaml", False),
    ('{"network": {}, "cases": []}', "a.json", True),
    ('// generated\n{"name": "x",\n "network": {}, "cases": []}', "a.json", True),
    ('{"network": {}, "cases": [}', "a.json", True),  # broken JSON with both keys: reported, not skipped
    ('{"schema": "spec2onnx-report/1", "cases": [{"network": 1}]}', "r.json", False),  # nested: parsed, not a spec
    ('[{"network": 1, "cases": 2}]', "a.json", False),
    ("name: x\nnetwork: {}\ncases: []\n", "a.txt", False),  # not a spec suffix
])
def test_is_spec_file_sniffs_the_top_level_keys(tmp_path, text, name, want):
    path = tmp_path / name
    path.write_text(text)
    assert is_spec_file(path) is want


def test_is_spec_file_is_false_for_folders_missing_and_non_utf8_files(tmp_path):
    (tmp_path / "d.yaml").mkdir()
    assert not is_spec_file(tmp_path / "d.yaml")
    assert not is_spec_file(tmp_path / "missing.yaml")
    (tmp_path / "latin1.yaml").write_bytes(b"name: caf\xe9\nnetwork: {}\ncases: []\n")
    assert is_spec_file(tmp_path / "latin1.yaml")  # a spec; loading it reports the encoding


def test_a_json_spec_is_found_in_a_folder(tmp_path):
    doc = safe_yaml.load_yaml(SEED.read_text())
    (tmp_path / "seed.json").write_text(json.dumps(doc, indent=None))
    assert find_specs([tmp_path]).files == [tmp_path / "seed.json"]


def test_folder_search_skips_non_specs_and_excluded_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "gen").mkdir()
    for path in (tmp_path / "a.yaml", tmp_path / "sub/b.yaml", tmp_path / "gen/c.yaml"):
        path.write_text(SEED.read_text())
    (tmp_path / "ci.yml").write_text("jobs: {test: {runs-on: linux}}\n")
    (tmp_path / "notes.txt").write_text("network: 1\ncases: 2\n")
    found = find_specs([tmp_path])
    assert found.files == [tmp_path / "a.yaml", tmp_path / "gen/c.yaml", tmp_path / "sub/b.yaml"]
    assert found.skipped == [tmp_path / "ci.yml"]  # only candidates by suffix are counted
    assert find_specs([tmp_path], exclude=["gen"]).files == [tmp_path / "a.yaml", tmp_path / "sub/b.yaml"]
    assert find_specs([tmp_path], exclude=["sub/*.yaml"]).files == [tmp_path / "a.yaml", tmp_path / "gen/c.yaml"]
    assert find_specs([tmp_path], exclude=["c.yaml", "a.*"]).files == [tmp_path / "sub/b.yaml"]
    excluded = find_specs([tmp_path], exclude=["gen/"])
    assert tmp_path / "gen/c.yaml" in excluded.skipped


def test_a_file_named_is_always_kept_even_when_not_a_spec(tmp_path):
    ci = tmp_path / "ci.yml"
    ci.write_text("jobs: {}\n")
    assert find_specs([ci]).files == [ci]
    assert find_specs([ci], exclude=["*"]).files == [ci]  # --exclude filters folder searches only


def test_a_file_reached_twice_is_kept_once():
    assert spec_files([SEED, SEED.parent]).count(SEED) == 1


def test_a_file_reached_through_links_is_kept_once(tmp_path):
    """The search resolves a found file through its folder's real path (kept per folder): a symlinked folder, a
    symlinked file and a link in a parent folder all reach the one real file, which runs once, as Path.resolve says."""
    real = tmp_path / "real" / "deep"
    real.mkdir(parents=True)
    spec = real / "s.yaml"
    spec.write_text(SEED.read_text())
    (tmp_path / "linked").symlink_to(tmp_path / "real")  # a link to a parent folder of the spec
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "alias.yaml").symlink_to(spec)  # a link to the file itself
    (tmp_path / "other" / "own.yaml").write_text(SEED.read_text().replace("name: ", "name: own", 1))
    found = find_specs([tmp_path / "linked", tmp_path / "other", tmp_path / "real"]).files
    assert found == [tmp_path / "linked" / "deep" / "s.yaml", tmp_path / "other" / "own.yaml"]
    assert len({f.resolve() for f in found}) == len(found)


def test_shards_split_the_specs_round_robin():
    everything = spec_files([SPECS / "trt_scale"])
    shards = [spec_files([SPECS / "trt_scale"], (i, 3)) for i in (1, 2, 3)]
    assert sorted(f for shard in shards for f in shard) == sorted(everything)
    assert shards[0] == everything[0::3]


def test_validate_folder_ignores_its_own_report_and_ci_files(tmp_path):
    (tmp_path / "seed.yaml").write_text(SEED.read_text())
    first = _invoke("validate", "-j", "0", tmp_path, "--json", tmp_path / "report.json")
    assert first.exit_code == 0, first.output
    (tmp_path / ".gitlab-ci.yml").write_text("test:\n  script: [spec2onnx validate]\n")
    again = _invoke("validate", "-j", "0", "-v", tmp_path)
    assert again.exit_code == 0, again.output
    assert "2 cases: 2 passed" in again.output
    assert f"SKIP  {tmp_path / '.gitlab-ci.yml'} (not a spec" in again.output
    assert f"SKIP  {tmp_path / 'report.json'} (not a spec" in again.output
    quiet = _invoke("validate", "-j", "0", tmp_path)
    assert "SKIP" not in quiet.output


def test_validate_names_a_file_that_is_not_a_spec(tmp_path):
    report = tmp_path / "report.json"
    report.write_text('{"schema": "spec2onnx-report/1", "cases": []}')
    result = _invoke("validate", "-j", "0", report)
    assert result.exit_code == 2
    assert f"{report}: not a spec: a spec's top level is a mapping with 'name', 'network' and 'cases'; " \
           "this one has 'schema', 'cases'" in result.output


def test_list_honours_exclude():
    result = _invoke("validate", "--list", SPECS / "trt_scale", "--exclude", "gen-*")
    assert result.exit_code == 0
    assert result.output.splitlines() and not any(line.startswith("gen-") for line in result.output.splitlines())


def test_the_bad_spec_corpus_is_found_only_where_its_files_look_like_specs():
    found = find_specs([BAD_SPECS])
    assert BAD_SPECS / "common/empty.yaml" in found.skipped
    assert BAD_SPECS / "common/cases-empty.yaml" in found.files


@pytest.mark.parametrize("text, name, want", [
    ("# banner\n\nname: abc\nnetwork: {}\n", "a.yaml", "abc"),  # the usual first line
    ("network: {x: {name: inner}}\nname: 'q-1'\n", "a.yaml", "q-1"),  # a nested name is not the spec's
    ("cases: [{name: inner}]\nname: late\n", "a.yaml", "late"),
    ("{name: flow, cases: []}", "a.yaml", "flow"),
    ('{"network": {"name": "inner"}, "name": "json-name"}', "a.json", "json-name"),
    ("name: true\n", "a.yaml", None),  # YAML reads a boolean: not a name
    ("name: 1x\n", "a.yaml", None),
    ('name: "x\\n"\n', "a.yaml", None),
    ("x: &n abc\nname: *n\n", "a.yaml", None),  # an alias: only loading can tell
    ("<<: {name: m}\n", "a.yaml", None),
    ("- name: x\n", "a.yaml", None),
    ("name: [unclosed\n", "a.yaml", None),
])
def test_spec_name_of_reads_the_top_level_name(tmp_path, text, name, want):
    path = tmp_path / name
    path.write_text(text)
    assert spec_name_of(path) == want


def test_spec_name_of_agrees_with_the_loader_on_the_bundled_suite():
    from converter.pipeline.spec import load_spec

    for path in spec_files([SPECS / "trt_scale"])[:20]:
        assert spec_name_of(path) == load_spec(path).name


@pytest.mark.parametrize("text, name, want", [
    ("name: x\nnetwork:\n  inputs: {}\n  profiles: []\n", "a.yaml", True),  # a dynamic spec: its cases by default
    ("name: x\nnetwork: {inputs: {}, profiles: []}\n", "a.yaml", True),  # a flow-style network: parsed
    ('{"name": "x", "network": {"profiles": []}}', "a.json", True),
    ("{name: x, network: {profiles: []}}", "a.yaml", True),  # flow style: parsed
    ("name: x\nprofiles: []\n", "a.yaml", False),  # not under a network
    ("name: x\nnetwork: {inputs: {}}\n", "a.yaml", False),  # a network without cases or profiles
    ('{"network": {"profiles": [}', "a.json", True),  # broken, both keys seen: reported, not skipped
])
def test_a_network_with_profiles_is_a_spec_without_cases(tmp_path, text, name, want):
    path = tmp_path / name
    path.write_text(text)
    assert is_spec_file(path) is want


def test_the_names_pre_pass_stops_at_the_loaders_depth_bound(monkeypatch):
    """validate reads each file's top-level name before it loads any (spec names must be unique); a flow nesting
    60,000 deep before `name:` was parsed event by event in pure Python: minutes, where the loader refuses it
    past 64 levels at once. The pre-pass now stops there too (None: the load reports the file)."""
    import yaml

    from converter.pipeline import selection

    consumed = []
    real = yaml.parse

    def counting(*args, **kwargs):
        for event in real(*args, **kwargs):
            consumed.append(event)
            yield event

    monkeypatch.setattr(selection.yaml, "parse", counting)
    text = "x: " + "[" * 60000 + "]" * 60000 + "\nname: a\nnetwork: {}\ncases: []\n"
    assert selection._yaml_top_level_name(text) is None
    assert len(consumed) <= safe_yaml.MAX_DEPTH + 8, len(consumed)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_fifo_named_on_the_command_line_is_refused_not_waited_on(tmp_path):
    """validate's names pre-pass opened it and waited for a writer, forever (convert and --list refused it at once)."""
    fifo = tmp_path / "f.yaml"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, str(REPO / "cli.py"), "validate", str(fifo), "-j", "1"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "SPEC2ONNX_CACHE": "off"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{fifo}: not a regular file" in proc.stdout


def test_a_spec_whose_keys_are_written_as_explicit_yaml_keys_is_found_in_a_folder(tmp_path):
    """`? network` / `: ...` is a valid YAML key: the spec passed when named, and a folder run left it out without a
    word (only -v said SKIP), since the cheap sniff looks for `network:` at column 0. Such a file is parsed instead."""
    (tmp_path / "explicit.yaml").write_text(
        "name: explicit\n? network\n: inputs: {x: {dtype: float32, shape: [1, 1, 1, 2]}}\n"
        "  layers: [{name: y, op: trt.Scale, inputs: [x], mode: UNIFORM, scale: [2]}]\n  outputs: [y]\n"
        "cases: [{name: c, inputs: {x: [[[[1, 2]]]]}, expected: {y: [[[[2, 4]]]]}}]\n")
    (tmp_path / "notes.yaml").write_text("? just\n: a mapping\n")  # explicit keys, and no spec: still skipped
    assert is_spec_file(tmp_path / "explicit.yaml") and not is_spec_file(tmp_path / "notes.yaml")
    assert [p.name for p in find_specs([tmp_path]).files] == ["explicit.yaml"]
