"""converter/model/inputs.py and model_run's graph walks, by properties: --shapes and --val-range parse what
trtexec and Polygraphy write, shapes bind or are refused naming the input, generated data lies in its range,
.npz files of any content are read or refused in one line, and nodes come out in a topological order."""

from __future__ import annotations

import io
import os
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from converter.errors import UserError
from converter.files import save_arrays
from converter.model.inputs import bind_shapes, generate, load_arrays, parse_shapes, parse_val_ranges
from converter.untrusted.declared import Tensor
from converter.model.run import mark_all, topological_order

NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Z")), min_size=1, max_size=12)
PLAIN_NAME = NAME.filter(lambda n: not set(n) & set(",[]") and not n.startswith("'"))  # (a leading ' quotes)
SHAPE = st.lists(st.integers(0, 64), min_size=1, max_size=5).map(tuple)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.dictionaries(PLAIN_NAME, SHAPE, min_size=1, max_size=4))
def test_trtexec_shapes_comma_separated_parse_back(shapes):
    text = ",".join(f"{name}:{'x'.join(map(str, dims))}" for name, dims in shapes.items())
    assert parse_shapes([text]) == shapes


@settings(deadline=None)
@given(st.dictionaries(PLAIN_NAME, st.lists(st.integers(0, 64), max_size=5).map(tuple), min_size=1, max_size=4),
       st.dictionaries(NAME.filter(lambda n: "'" not in n), SHAPE, min_size=1, max_size=4))
def test_shapes_repeated_in_polygraphys_brackets_or_quoted_parse_back(shapes, any_names):
    assert parse_shapes([f"{n}:[{','.join(map(str, d))}]" for n, d in shapes.items()]) == shapes
    assert parse_shapes([f"{n}:{'x'.join(map(str, d))}" for n, d in shapes.items() if d]) == {n: d for n, d in
                                                                                              shapes.items() if d}
    # a name holding a comma, a bracket or ':1' is ambiguous unquoted (as in trtexec); quoted, it is itself
    quoted = ",".join(f"'{n}':{'x'.join(map(str, d))}" for n, d in any_names.items())
    assert parse_shapes([quoted]) == any_names


DIM = st.one_of(st.integers(0, 9), st.sampled_from(["N", "M", "batch"]), st.none())


@settings(deadline=None)
@given(st.lists(st.lists(DIM, max_size=4), min_size=1, max_size=3), st.data())
def test_a_shape_that_fits_binds_its_symbols_everywhere_and_one_that_does_not_is_refused(declared, data):
    inputs = [Tensor(f"in{i}", TensorProto.FLOAT, tuple(d)) for i, d in enumerate(declared)]
    symbols = {s: data.draw(st.integers(1, 9)) for s in ("N", "M", "batch")}
    given_shapes = {}
    for t in inputs:
        if data.draw(st.booleans()):
            given_shapes[t.name] = tuple(d if isinstance(d, int) else symbols[d] if isinstance(d, str)
                                         else data.draw(st.integers(1, 9)) for d in t.dims)
    bound, notes = bind_shapes(inputs, given_shapes)
    bound_symbols = {d for name in given_shapes for d in next(t for t in inputs if t.name == name).dims
                     if isinstance(d, str)}
    for t in inputs:
        assert len(bound[t.name]) == len(t.dims)
        for d, length in zip(t.dims, bound[t.name]):
            if isinstance(d, int):
                assert length == d
            elif isinstance(d, str):
                assert length == (symbols[d] if d in bound_symbols else 1)
        if t.name in given_shapes:
            assert bound[t.name] == given_shapes[t.name]
    assert len(notes) == sum(1 for t in inputs if t.name not in given_shapes and any(
        d is None or (isinstance(d, str) and d not in bound_symbols) for d in t.dims))
    fixed = [(t, i) for t in inputs if t.name in given_shapes for i, d in enumerate(t.dims) if isinstance(d, int)]
    if fixed:
        t, axis = data.draw(st.sampled_from(fixed))
        wrong = list(given_shapes[t.name])
        wrong[axis] += 1
        with pytest.raises(UserError, match=f"input {t.name!r}"):
            bind_shapes(inputs, {**given_shapes, t.name: tuple(wrong)})
    with pytest.raises(UserError, match="rank"):
        bind_shapes(inputs, {inputs[0].name: (1,) * (len(inputs[0].dims) + 1)})


DTYPES = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16, TensorProto.DOUBLE: np.float64,
          TensorProto.INT8: np.int8, TensorProto.UINT8: np.uint8, TensorProto.INT32: np.int32,
          TensorProto.INT64: np.int64, TensorProto.UINT64: np.uint64, TensorProto.BOOL: np.bool_}


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(sorted(DTYPES)), st.integers(-100, 100), st.integers(0, 50), st.integers(0, 2**32),
       st.lists(st.integers(0, 6), max_size=3))
def test_generated_data_has_the_inputs_type_and_shape_and_lies_in_its_range(elem, low, width, seed, shape):
    dtype = np.dtype(DTYPES[elem])
    if dtype.kind == "u":
        low = max(low, 0)
    high = low + width
    x = Tensor("x", elem, tuple(shape))
    if dtype.kind in "iu" and high > np.iinfo(dtype).max:  # a range the type cannot hold is refused, naming the input
        with pytest.raises(UserError, match=f"input 'x' .*out of range for {dtype.name}"):
            generate([x], {"x": tuple(shape)}, {"x": (low, high)}, seed)
        high = int(np.iinfo(dtype).max)
    feeds = generate([x], {"x": tuple(shape)}, {"x": (low, high)}, seed)
    array = feeds["x"]
    assert array.dtype == dtype and array.shape == tuple(shape)
    if dtype.kind == "b":  # the truth values of the integers in the range, as Polygraphy casts the ends to bool
        assert set(array.ravel().tolist()) <= {bool(i) for i in range(low, high + 1)}
    elif array.size:
        values = array.astype(np.float64)
        assert values.min() >= low and values.max() <= high  # (a float rounded to its type may reach HIGH)
    np.testing.assert_array_equal(generate([x], {"x": tuple(shape)}, {"x": (low, high)}, seed)["x"], array)


def test_a_range_for_every_input_gives_a_bool_input_the_truth_values_of_its_integers():
    b = Tensor("b", TensorProto.BOOL, (1000,))
    for (low, high), want in (((0, 5), {False, True}), ((2, 5), {True}), ((0, 0), {False}), ((-3, -1), {True}),
                              ((-1, 1), {False, True}), ((0, 1), {False, True})):
        assert set(generate([b], {"b": (1000,)}, {None: (low, high)}, 7)["b"].tolist()) == want, (low, high)


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b:c", "x/y"]), st.floats(-1e6, 1e6), st.floats(0, 1e6)),
                min_size=1, max_size=3, unique_by=lambda t: t[0]))
def test_val_ranges_parse_back(items):
    text = [f"{name}:{low!r},{low + width!r}" for name, low, width in items]
    assert parse_val_ranges(text) == {name: (low, low + width) for name, low, width in items}
    assert parse_val_ranges(["[-1, 2]"]) == {None: (-1, 2)}


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_as_an_npz_are_read_or_refused_in_one_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("npz") / "x.npz"
    path.write_bytes(data)
    try:
        members = load_arrays("--load-inputs", path, 2**20)
    except UserError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
    else:
        assert isinstance(members, dict)


@settings(deadline=None)
@given(st.data())
def test_any_corruption_of_a_saved_npz_is_read_or_refused_in_one_line(tmp_path_factory, data):
    """A byte flipped or the file cut anywhere in a saved .npz (the member's data included, which the header
    check does not read): its arrays come back, or a UserError naming the file, never another exception."""
    path = tmp_path_factory.mktemp("npz") / "x.npz"
    save_arrays("--save-inputs", path, {"x": np.arange(3000, dtype=np.float32), "y": np.ones((2, 3), np.int64)})
    raw = bytearray(path.read_bytes())
    at = data.draw(st.integers(0, len(raw) - 1), label="at")
    if data.draw(st.booleans(), label="cut"):
        raw = raw[:at]
    else:
        raw[at] ^= data.draw(st.integers(1, 255), label="xor")
    path.write_bytes(bytes(raw))
    try:
        arrays = {name: member.read() for name, member in load_arrays("--load-inputs", path, 2**20).items()}
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(f"--load-inputs {path}: ")
    else:
        assert all(isinstance(a, np.ndarray) for a in arrays.values())


@settings(deadline=None)
@given(st.dictionaries(st.text(st.characters(blacklist_categories=("Cs",)), max_size=8), st.integers(0, 5),
                       min_size=1, max_size=4))
def test_what_save_arrays_writes_loads_back_under_the_same_names(tmp_path_factory, sizes):
    path = tmp_path_factory.mktemp("npz") / "a.npz"
    arrays = {name: np.arange(n, dtype=np.float32) for name, n in sizes.items()}
    try:
        save_arrays("--save-inputs", path, arrays)
    except UserError as exc:  # refused: a NUL byte, and nothing written
        assert any("\0" in name for name in arrays) and "NUL byte" in str(exc) and not path.exists()
        return
    assert not any("\0" in name for name in arrays)
    loaded = {name: member.read() for name, member in load_arrays("--load-inputs", path, 2**20).items()}
    assert list(loaded) == list(arrays)
    for name, array in arrays.items():
        np.testing.assert_array_equal(loaded[name], array)


def test_save_arrays_streams_the_arrays_into_the_file(tmp_path):
    """A 64 MiB output saved: numpy's 16 MiB pieces in memory at most, not a copy of each array and one of the
    whole archive (--save-outputs of a 192 MiB output took 837 MiB of PSS against 460 without it)."""
    array = np.random.default_rng(5).random((4096, 4096), dtype=np.float32)
    tracemalloc.start()
    try:
        save_arrays("--save-outputs", tmp_path / "o.npz", {"y": array, "z": np.arange(3)})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < array.nbytes / 2, peak
    loaded = np.load(tmp_path / "o.npz")
    np.testing.assert_array_equal(loaded["y"], array)
    np.testing.assert_array_equal(loaded["z"], np.arange(3))


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="/dev/fd names open files")
def test_an_npz_written_in_place_to_an_appending_file_loads(tmp_path):
    """A redirected /dev/stdout is written in place, appended to: a zip writer that seeks back to a member's
    header would write it at the end; it writes forward (sizes after the data) and the file loads."""
    target = tmp_path / "redirected.npz"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        save_arrays("--save-outputs", f"/dev/fd/{fd}", {"y": np.arange(300_000, dtype=np.float32)})
    finally:
        os.close(fd)
    np.testing.assert_array_equal(np.load(target)["y"], np.arange(300_000, dtype=np.float32))
    members = load_arrays("--load-outputs", target, 2**30)
    np.testing.assert_array_equal(members["y"].read(), np.arange(300_000, dtype=np.float32))


def test_npz_members_are_checked_before_their_data_is_read(tmp_path):
    save_arrays("--save-inputs", tmp_path / "a.npz", {"big": np.zeros((1000, 1000), np.float32)})
    with pytest.raises(UserError, match="more than the memory budget"):
        load_arrays("--load-inputs", tmp_path / "a.npz", 10**6)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    (tmp_path / "b.npz").write_bytes(buffer.getvalue())
    with pytest.raises(UserError, match="member 'notes.txt' is not a .npy array"):
        load_arrays("--load-inputs", tmp_path / "b.npz", 10**6)


@settings(deadline=None)
@given(st.permutations(range(6)))
def test_nodes_come_out_in_a_topological_order_whatever_the_files_order(order):
    chain = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"], name=f"n{i}") for i in range(4)]
    chain += [helper.make_node("Add", ["t2", "t4"], ["t5"], name="n4"), helper.make_node("Neg", ["t5"], ["t6"], name="n5")]
    graph = helper.make_graph([chain[i] for i in order], "g", [helper.make_tensor_value_info("t0", 1, [1])],
                              [helper.make_tensor_value_info("t6", 1, [1])])
    names = [graph.node[i].name for i in topological_order(graph)]
    assert sorted(names) == [f"n{i}" for i in range(6)]
    for before, after in (("n0", "n1"), ("n1", "n2"), ("n3", "n4"), ("n2", "n4"), ("n4", "n5")):
        assert names.index(before) < names.index(after)
    if list(order) == sorted(order):
        assert names == [f"n{i}" for i in range(6)]  # a sorted file keeps its order


def test_mark_all_types_what_inference_types_and_leaves_out_sequences():
    nodes = [helper.make_node("Cast", ["x"], ["c"], to=TensorProto.INT64),
             helper.make_node("SplitToSequence", ["x"], ["s"]),
             helper.make_node("Relu", ["x"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    assert mark_all(model) == 1
    added = {o.name: o.type.tensor_type.elem_type for o in model.graph.output}
    assert added == {"y": TensorProto.FLOAT, "c": TensorProto.INT64}


def test_read_all_opens_the_file_once(tmp_path, monkeypatch):
    """reduce reads every tensor --mark-all saved: each member's read() opened the .npz again and read its whole index
    (2,000 tensors: 9 s, quadratic in them); read_all opens it once."""
    import zipfile

    from converter.model import inputs

    path = tmp_path / "v.npz"
    arrays = {f"t{i}": np.full(3, i, np.float32) for i in range(50)}
    save_arrays("--save-outputs", path, arrays)
    members = load_arrays("reduce", path, 1 << 30)
    opened = []
    real = zipfile.ZipFile
    monkeypatch.setattr(inputs.zipfile, "ZipFile", lambda *a, **k: opened.append(a) or real(*a, **k))
    values = inputs.read_all(members)
    assert len(opened) == 1 and {n: v.tolist() for n, v in values.items()} == {n: a.tolist() for n, a in arrays.items()}
