"""The inputs of ``spec2onnx run MODEL``: what a model declares, the shapes bound to it, the data fed to it.

* ``model_inputs(model)``: the graph inputs a run feeds (initialized ones excluded, as onnxruntime and
  Polygraphy do), each with its element type and declared dimensions: a number, a symbol (``dim_param``)
  or unknown;
* ``parse_shapes`` / ``bind_shapes``: trtexec's ``--shapes NAME:DxDxD`` (several comma-separated, or the
  option repeated; Polygraphy's ``NAME:[D,D,D]`` too). A shape of another rank, or a fixed dimension
  given another length, is refused naming the input; a symbol is bound everywhere it appears, and one
  bound to two lengths is refused; a dimension left unbound is 1, and the run says so (as Polygraphy does);
* ``pick_profile`` / ``profile_shapes`` / ``profile_values``: the optimization profiles a model carries (the
  metadata ``convert`` writes for a dynamic spec, read by converter/untrusted/profiles.py): the generated inputs
  take one profile's min, opt (the default, trtexec's --optShapes) or max shapes, a shape input its values there;
  ``--shapes`` wins for its input inside the profile's range;
* ``parse_val_ranges``: Polygraphy's ``--val-range NAME:LOW,HIGH`` (or ``[LOW,HIGH]``; a bare ``LOW,HIGH``
  for every input). The data: floats uniform in [LOW, HIGH) (rounded to the input's type, which may reach
  HIGH), integers uniform in [LOW, HIGH] (both ends), bools the truth values of those integers (so a bare range
  such as 0,5 for every input gives a bool input both), default [0, 1] as Polygraphy's; drawn by
  converter/casedata.py's generators, one seeded stream per input (``--seed`` and the input's name: adding
  an input changes no other input's data);
* ``load_arrays`` / ``save_arrays``: ``.npz`` files, one array per tensor name, read without pickle, each
  array's header checked (names, dtypes, shapes, bytes against the budget) before its data is read.
"""

from __future__ import annotations

import contextlib
import math
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from ..budget import show
from ..casedata import materialize
from ..dtypes import DType
from ..errors import UserError
from ..network import TensorType
from ..untrusted.declared import BY_ONNX, STRING, Tensor, choices, declared_tensor, not_a_tensor
from ..untrusted.profiles import CORNERS


def dtype_of_array(array: np.ndarray) -> DType | None:
    """The DType of an array a runtime returned (for the per-dtype tolerances); None for strings and others."""
    for dtype in BY_ONNX.values():
        if array.dtype == dtype.numpy:
            return dtype
    return None


PACKED = {21: "uint4", 22: "int4", 23: "float4e2m1"}  # element types stored two to a byte (onnx's TensorProto)


def _tensor(info, what: str, where: str) -> Tensor:
    kind = not_a_tensor(info)
    if kind is not None:
        raise UserError(f"{where}: graph {what} {info.name!r} is {kind}; run feeds and compares tensors only")
    tensor = declared_tensor(info)
    if tensor.elem_type in PACKED:  # (onnxruntime hands them to numpy in no form, OpenVINO as packed bytes: their
        # values were compared as bytes, of half the shape; float8 and every other tensor type run)
        raise UserError(f"{where}: graph {what} {info.name!r} is {PACKED[tensor.elem_type]}, packed two elements to a "
                        "byte: run does not feed or compare such tensors (float8 and every other tensor type it does)")
    return tensor


def model_inputs(model, where: str) -> list[Tensor]:
    """The graph inputs a run feeds: those without an initializer (an initialized input keeps its value)."""
    initialized = {init.name for init in model.graph.initializer}
    return [_tensor(i, "input", where) for i in model.graph.input if i.name not in initialized]


def model_outputs(model, where: str) -> list[Tensor]:
    return [_tensor(o, "output", where) for o in model.graph.output]


# --shapes


def parse_shapes(values) -> dict[str, tuple[int, ...]]:
    """``--shapes`` values -> {input name: shape}: ``NAME:1x3x224x224`` (trtexec), several comma-separated or the
    option repeated; ``NAME:[1,3,224,224]`` (Polygraphy) too. The name is what comes before the last ``:`` of
    an item, so names holding ``:`` work; a name in single quotes is taken as it is (trtexec's escape:
    ``'a,b:0':1x3``, for names holding a comma, a bracket or a colon before a length). A name given twice is
    refused."""
    shapes: dict[str, tuple[int, ...]] = {}
    for value in values:
        text, pos = value.strip(), 0
        if not text:
            raise UserError("--shapes: empty; expected NAME:DxDxD, e.g. input:1x3x224x224")
        while pos < len(text):
            item = _next_item(text, pos)
            name, dims_text = _split_item(item.strip())
            if name in shapes:
                raise UserError(f"--shapes {value}: input {name!r} is given twice")
            shapes[name] = _dims(name, dims_text)
            pos += len(item) + 1
    return shapes


def _next_item(text: str, pos: int) -> str:
    """The text of one NAME:DIMS item from ``pos`` to the next comma outside quotes and brackets (or the end)."""
    depth, quoted = 0, text[pos:pos + 1] == "'" and text.find("':", pos + 1) > pos
    start = pos + 1 if quoted else pos
    for i in range(start, len(text)):
        if quoted:
            quoted = text[i] != "'"
        elif text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
        elif text[i] == "," and depth == 0 and re.fullmatch(r".*:\s*(\[[^\]]*\]|[0-9xX ]*)", text[pos:i], re.DOTALL):
            return text[pos:i]
    return text[pos:]


def _split_item(item: str) -> tuple[str, str]:
    if item.startswith("'"):  # 'NAME':DIMS
        end = item.find("'", 1)
        if end > 0 and item[end + 1:end + 2] == ":":
            return item[1:end], item[end + 2:].strip()
    name, sep, dims = item.rpartition(":")
    if not sep or not name:
        raise UserError(f"--shapes {item}: expected NAME:DxDxD (trtexec's syntax), e.g. input:1x3x224x224")
    return name, dims.strip()


def _dims(name: str, text: str) -> tuple[int, ...]:
    if text.startswith("["):
        if not text.endswith("]"):
            raise UserError(f"--shapes {name}:{text}: expected [D,D,...]")
        parts = [p.strip() for p in text[1:-1].split(",")] if text[1:-1].strip() else []
    else:
        parts = [p.strip() for p in re.split(r"[xX]", text)] if text else []
    if not parts and not text.startswith("["):
        raise UserError(f"--shapes {name}:: no dimensions; expected NAME:DxDxD (a rank-0 input: NAME:[])")
    dims = []
    for part in parts:
        if not part.isdigit():
            raise UserError(f"--shapes {name}:{text}: {part!r} is not a length (a whole number >= 0)")
        dims.append(int(part))
    return tuple(dims)


def bind_shapes(inputs: list[Tensor], shapes: dict[str, tuple[int, ...]],
                generating: bool = True) -> tuple[dict[str, tuple[int, ...]], list[str]]:
    """({input: concrete shape}, notes): the declared shapes with ``shapes`` bound into them. Refused (UserError,
    naming the input): an unknown name, another rank, a fixed length given another, one symbol bound to two
    lengths, and, where the inputs are to be ``generating``, an input of unknown rank not bound (inputs loaded
    from a file bring their shapes: such an input is left out). Unbound symbols and unknown lengths are 1, each
    said in a note (Polygraphy's default)."""
    by_name = {t.name: t for t in inputs}
    for name in shapes:
        if name not in by_name:
            raise UserError(f"--shapes {name}: the model has no input {name!r}{choices(name, by_name)}")
    symbols: dict[str, tuple[int, str]] = {}  # symbol -> (length, input that bound it)
    for name, shape in shapes.items():
        declared = by_name[name].dims
        if declared is None:
            continue
        if len(shape) != len(declared):
            raise UserError(f"--shapes {name}:{show_shape(shape)}: rank {len(shape)}; input {name!r} is "
                            f"{by_name[name].describe()}, rank {len(declared)}")
        for axis, (want, got) in enumerate(zip(declared, shape)):
            if isinstance(want, int) and want != got:
                raise UserError(f"--shapes {name}:{show_shape(shape)}: dimension {axis} is {got}; input {name!r} is "
                                f"{by_name[name].describe()}, whose dimension {axis} is fixed at {want}")
            if isinstance(want, str):
                if want in symbols and symbols[want][0] != got:
                    length, other = symbols[want]
                    raise UserError(f"--shapes {name}:{show_shape(shape)}: dimension {axis} ({want!r}) is {got}, but "
                                    f"--shapes {other} binds {want!r} to {length}")
                symbols.setdefault(want, (got, name))
    bound, notes = {}, []
    for tensor in inputs:
        if tensor.name in shapes:
            bound[tensor.name] = shapes[tensor.name]
            continue
        if tensor.dims is None:
            if not generating:
                continue
            raise UserError(f"input {tensor.name!r}: the model does not declare its shape (its rank is unknown); "
                            f"give it with --shapes {tensor.name}:DxDx... (one length per dimension)")
        dims, defaulted = [], []
        for axis, dim in enumerate(tensor.dims):
            if isinstance(dim, int):
                dims.append(dim)
            elif isinstance(dim, str) and dim in symbols:
                dims.append(symbols[dim][0])
            else:
                dims.append(1)
                defaulted.append(f"{dim!r}" if dim else f"dimension {axis}")
        bound[tensor.name] = tuple(dims)
        if defaulted:
            notes.append(f"input {tensor.name!r} is {tensor.describe()}: {', '.join(defaulted)} not bound, using 1: "
                         f"{show_shape(bound[tensor.name])} (bind with --shapes {tensor.name}:{_template(tensor.dims)})")
    for tensor in inputs:  # numpy sizes an array by its nonzero lengths, a 0-element one too (multiarray/ctors.c)
        shape = bound.get(tensor.name, ())
        if math.prod(d for d in shape if d) * (tensor.dtype.numpy.itemsize if tensor.dtype else 8) >= 2**63:
            raise UserError(f"input {tensor.name!r} at {show_shape(shape)}: no array has these lengths (their "
                            "product, zeros left out, passes numpy's 2^63 bytes)")
    return bound, notes


def _template(dims: tuple) -> str:
    """The --shapes value to fill in for declared ``dims``: its fixed lengths, D for the others (x:Dx3xDxD)."""
    return "x".join(str(d) if isinstance(d, int) else "D" for d in dims)


def show_shape(shape) -> str:
    """A shape as trtexec writes it (1x3x224x224; [] for a scalar)."""
    return "x".join(map(str, shape)) if shape else "[]"


# Optimization profiles (read by converter/untrusted/profiles.py: the metadata ``convert`` writes for a dynamic spec)


@dataclass(frozen=True)
class Profile:
    """The optimization profile a run takes its shapes from: ``--profile`` (index, of ``count``), ``--profile-shapes``
    (``corner``: min, opt or max), each input's (min, opt, max), and the inputs whose values it bounds."""

    index: int
    count: int
    corner: str
    ranges: dict  # input -> (min, opt, max), each a tuple: a shape, or a shape input's values
    shape_inputs: frozenset

    def at(self, name: str) -> tuple:
        return self.ranges[name][CORNERS.index(self.corner)]

    def describe(self) -> str:
        return f"profile {self.index}{f' of {self.count}' if self.count > 1 else ''} at {self.corner}"


def pick_profile(profiles: list[dict], shape_inputs: frozenset, index: int | None, corner: str | None,
                 key: str) -> Profile | None:
    """The profile a run takes (``index`` default 0, ``corner`` default opt, as trtexec's --optShapes); None where the
    model carries no profiles and neither was asked for."""
    if not profiles:
        if index is not None or corner is not None:
            option = f"--profile {index}" if index is not None else f"--profile-shapes {corner}"
            raise UserError(f"{option}: the model carries no optimization profiles (metadata {key}, which spec2onnx "
                            "convert writes for a dynamic spec)")
        return None
    index = 0 if index is None else index
    if not 0 <= index < len(profiles):
        raise UserError(f"--profile {index}: the model has {len(profiles)} optimization profile"
                        f"{'s (0 to ' + str(len(profiles) - 1) + ')' if len(profiles) > 1 else ' (0)'}, in metadata "
                        f"{key}")
    return Profile(index, len(profiles), corner or "opt", profiles[index], shape_inputs)


def profile_shapes(inputs: list[Tensor], shapes: dict[str, tuple[int, ...]], profile: Profile) -> dict:
    """``shapes`` (--shapes) with the profile's shape at its corner for every input of the profile that ``shapes``
    leaves unbound (a symbol --shapes binds keeps that length everywhere); every shape of an input of the profile
    must lie in its min..max, else a UserError naming the --shapes value and the range."""
    by_name = {t.name: t for t in inputs}
    bound: dict[str, tuple[int, str]] = {}  # symbol -> (length, input whose --shapes bound it)
    for name, shape in shapes.items():
        dims = by_name[name].dims if name in by_name else None
        if dims is not None and len(dims) == len(shape):
            for dim, length in zip(dims, shape):
                if isinstance(dim, str):
                    bound.setdefault(dim, (length, name))
    result = dict(shapes)
    for name, corners in profile.ranges.items():
        tensor = by_name[name]
        if name in profile.shape_inputs:  # its values come from the profile (profile_values): its shape is their count
            count = (len(corners[0]),)
            if shapes.get(name, count) != count:
                raise UserError(f"--shapes {name}:{show_shape(shapes[name])}: input {name!r} is a shape input of "
                                f"profile {profile.index}, which gives it {count[0]} values")
            result[name] = count
            continue
        if name in shapes:
            if len(shapes[name]) != len(corners[0]):
                continue  # (another rank: bind_shapes refuses it against the model)
            for axis, length in enumerate(shapes[name]):
                _in_range(profile, name, tensor, axis, length, name, shapes[name])
            continue
        shape = list(profile.at(name))
        for axis, dim in enumerate(tensor.dims or ()):
            if isinstance(dim, str) and dim in bound:
                length, source = bound[dim]
                _in_range(profile, name, tensor, axis, length, source, shapes[source])
                shape[axis] = length
        result[name] = tuple(shape)
    return result


def _in_range(profile: Profile, name: str, tensor: Tensor, axis: int, length: int, source: str, given) -> None:
    low, _, high = (c[axis] for c in profile.ranges[name])
    if low <= length <= high:
        return
    dim = tensor.dims[axis] if tensor.dims is not None else None
    label = f"dimension {axis}" + (f" ({dim!r})" if isinstance(dim, str) else "")
    at = "" if source == name else f" of input {name!r}"
    lows, highs = (show_shape(c) for c in (profile.ranges[name][0], profile.ranges[name][2]))
    raise UserError(f"--shapes {source}:{show_shape(given)}: {label}{at} is {length}, outside profile "
                    f"{profile.index}'s range {low} to {high} (input {name!r}: min {lows}, max {highs}); pick another "
                    "profile with --profile N")


def profile_values(inputs: list[Tensor], profile: Profile) -> dict[str, np.ndarray]:
    """The shape inputs' data: the profile's values at its corner, of the input's type."""
    return {t.name: np.array(profile.at(t.name), t.dtype.numpy) for t in inputs
            if t.name in profile.shape_inputs and t.name in profile.ranges}


# --val-range


def parse_val_ranges(values) -> dict[str | None, tuple[float, float]]:
    """``--val-range`` values -> {input name or None (every input): (low, high)}: ``NAME:LOW,HIGH``,
    ``NAME:[LOW,HIGH]``, or a bare ``LOW,HIGH``; finite numbers with LOW <= HIGH."""
    ranges: dict[str | None, tuple[float, float]] = {}
    for value in values:
        match = re.fullmatch(r"\s*(?:(.+):)?\s*\[?\s*([^,\[\]]+?)\s*,\s*([^,\[\]]+?)\s*\]?\s*", value, re.DOTALL)
        if not match:
            raise UserError(f"--val-range {value}: expected NAME:LOW,HIGH (or LOW,HIGH for every input)")
        name, low, high = match.group(1), _number(value, match.group(2)), _number(value, match.group(3))
        if not low <= high:
            raise UserError(f"--val-range {value}: LOW {match.group(2)} is above HIGH {match.group(3)}")
        if name in ranges:
            raise UserError(f"--val-range {value}: {'input ' + repr(name) if name else 'the range of every input'} "
                            "is given twice")
        ranges[name] = (low, high)
    return ranges


def _number(value: str, text: str) -> float:
    try:
        number = int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)
    except (ValueError, OverflowError):
        number = None
    if number is None or not math.isfinite(number):
        raise UserError(f"--val-range {value}: {text!r} is not a finite number")
    return number


# Data


def generate(inputs: list[Tensor], shapes: dict[str, tuple[int, ...]], ranges: dict, seed: int) -> dict[str, np.ndarray]:
    """Seeded data for every input (see the module's docstring); a UserError naming an input it cannot make."""
    by_name = {t.name for t in inputs}
    for name in ranges:
        if name is not None and name not in by_name:
            raise UserError(f"--val-range {name}: the model has no input {name!r}{choices(name, by_name)}")
    feeds = {}
    for tensor in inputs:
        dtype = tensor.dtype
        if dtype is None:
            raise UserError(f"input {tensor.name!r} is {tensor.type_name()}: run cannot generate it; give its data "
                            "with --load-inputs FILE.npz")
        low, high = ranges.get(tensor.name, ranges.get(None, (0, 1)))
        kind = "uniform" if dtype.is_float else "integers"
        if kind == "integers" and not (float(low).is_integer() and float(high).is_integer()):
            low, high = math.ceil(low), math.floor(high)
            if low > high:
                raise UserError(f"--val-range: input {tensor.name!r} is {dtype.name} and no integer lies in the range")
        if dtype.numpy == np.bool_:  # the truth values of the integers in the range (Polygraphy casts both ends to bool)
            low, high = (0 if low <= 0 <= high else 1), (0 if low == high == 0 else 1)
        seed_i = int(np.random.SeedSequence([seed, zlib.crc32(tensor.name.encode("utf-8", "surrogateescape"))])
                     .generate_state(1, np.uint64)[0] >> 1)
        try:
            feeds[tensor.name] = materialize({"random": kind, "low": low, "high": high, "seed": seed_i},
                                             TensorType(dtype, shapes[tensor.name]), Path("."))
        except UserError as exc:
            raise UserError(f"input {tensor.name!r} ({dtype.name}{list(shapes[tensor.name])}): {exc.detail}") from None
    return feeds


def load_arrays(option: str, path, budget: int) -> dict[str, "_Member"]:
    """{name: member (dtype, shape, read())} of a .npz file: each member's header is read (no pickle: an object
    dtype is refused), its data only when ``read()`` is called. The members' bytes together must fit ``budget``."""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a .npz (zip) file"
        if str(path).endswith(".pb") and not (isinstance(exc, OSError) and exc.strerror):  # onnx's one-tensor files
            why += ("; onnx's TensorProto files are read from a test_data_set_N folder, the K-th input or output as "
                    "input_K.pb or output_K.pb: put it in one as such and give the folder")
        raise UserError(f"{option} {path}: cannot read ({why})") from None
    found, total = {}, 0
    with archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                raise UserError(f"{option} {path}: member {info.filename!r} is not a .npy array (numpy.savez writes "
                                "NAME.npy per array)")
            name = info.filename[:-4]
            try:
                with archive.open(info) as handle:
                    version = np.lib.format.read_magic(handle)
                    read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                                   (2, 0): np.lib.format.read_array_header_2_0}.get(version)
                    if read_header is None:
                        raise ValueError(f"format version {version}")
                    shape, _, dtype = read_header(handle)
            except Exception as exc:  # noqa: BLE001 - a corrupt member: one line naming it
                raise UserError(f"{option} {path}: array {name!r} is not a readable .npy ({type(exc).__name__})") from None
            if dtype.hasobject:
                raise UserError(f"{option} {path}: array {name!r} holds Python objects (saved with pickle); run never "
                                "unpickles: save plain arrays")
            total += math.prod(shape) * dtype.itemsize
            if total > budget:
                raise UserError(f"{option} {path}: its arrays take more than the memory budget ({show(budget)})")
            # numpy stores ml_dtypes' bfloat16 as 2-byte records (|V2): a member says bfloat16, and reads as it
            found[name] = (np.dtype(ml_dtypes.bfloat16) if dtype == np.dtype("V2") else dtype, tuple(shape), info)
    return {name: _Member(path, info, dtype, shape, option) for name, (dtype, shape, info) in found.items()}


@dataclass(frozen=True)
class _Member:
    path: object
    info: zipfile.ZipInfo
    dtype: np.dtype
    shape: tuple
    option: str

    def read(self, archive: zipfile.ZipFile | None = None) -> np.ndarray:
        """The array; a UserError naming the file and the member where its data is corrupt: shorter than its
        header says (numpy's "EOF: reading array data"), a CRC that does not match (zipfile's BadZipFile, raised
        when the member's last byte is read), compressed data that does not inflate (zlib.error). ``archive``: the
        file already open (read_all: opening it again read its whole index for each member, quadratic in them)."""
        try:
            with contextlib.nullcontext(archive) if archive is not None else zipfile.ZipFile(self.path) as opened, \
                    opened.open(self.info) as handle:
                array = np.lib.format.read_array(handle, allow_pickle=False)
        except (ValueError, EOFError, OSError, zipfile.BadZipFile, zlib.error) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            raise UserError(f"{self.option} {self.path}: member {self.info.filename!r} (array "
                            f"{self.info.filename[:-4]!r}): its data cannot be read ({why})") from None
        return array.view(ml_dtypes.bfloat16) if array.dtype == np.dtype("V2") else array


def read_all(members: dict[str, "_Member"]) -> dict[str, np.ndarray]:
    """Every member of one .npz (load_arrays'), read through one open of the file."""
    if not members:
        return {}
    path = next(iter(members.values())).path
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError):
        return {name: member.read() for name, member in members.items()}  # (each then says what is wrong)
    with archive:
        return {name: member.read(archive) for name, member in members.items()}


def of_type(stored: np.dtype, want: np.dtype | None) -> bool:
    """Whether an array stored as ``stored`` holds elements of ``want``: the same type, or (float8) the 1-byte records
    numpy writes an ml_dtypes type as (|V1: a .npz keeps no type name; which float8 the model says)."""
    return want is not None and (stored.newbyteorder("=") == want or (
        stored.kind == "V" and stored.fields is None and want.isbuiltin == 2 and stored.itemsize == want.itemsize))


def as_type(array: np.ndarray, want: np.dtype | None) -> np.ndarray:
    """``array`` of element type ``want`` (of_type's): records viewed as it, anything else converted."""
    if want is None or array.dtype == want:
        return array
    return array.view(want) if array.dtype.kind == "V" and want.isbuiltin == 2 else array.astype(want)


def loaded_inputs(option: str, path, inputs: list[Tensor], shapes: dict, budget: int,
                  members: dict | None = None) -> dict[str, np.ndarray]:
    """The feeds of a ``--load-inputs`` file, checked against the model: every input present, no other name,
    each of the input's dtype and of a shape its declared dimensions (and ``--shapes``) allow. ``members``: the
    arrays already read another way (a test_data_set folder: model_reading.read_test_data_set), else the .npz's."""
    members = load_arrays(option, path, budget) if members is None else members
    by_name = {t.name: t for t in inputs}
    for name in members:
        if name not in by_name:
            raise UserError(f"{option} {path}: array {name!r} is no input of the model{choices(name, by_name)}")
    feeds = {}
    for tensor in inputs:
        if tensor.name not in members:
            raise UserError(f"{option} {path}: no array for input {tensor.name!r} ({tensor.describe()})")
        member = members[tensor.name]
        dtype = member.dtype
        want = tensor.dtype.numpy if tensor.dtype else None
        if tensor.elem_type == STRING:
            ok = dtype.kind in "US"
        else:
            ok = of_type(dtype, want)
        if not ok:
            raise UserError(f"{option} {path}: array {tensor.name!r} is {dtype}{list(member.shape)}; input "
                            f"{tensor.name!r} is {tensor.describe()}")
        if not _fits(member.shape, tensor.dims, shapes.get(tensor.name)):
            bound = f" (--shapes {tensor.name}:{show_shape(shapes[tensor.name])})" if tensor.name in shapes else ""
            raise UserError(f"{option} {path}: array {tensor.name!r} has shape {list(member.shape)}; input "
                            f"{tensor.name!r} is {tensor.describe()}{bound}")
        array = member.read()
        feeds[tensor.name] = as_type(array, want)
    return feeds


def _fits(shape: tuple, dims, bound) -> bool:
    if bound is not None:
        return tuple(shape) == tuple(bound)
    if dims is None:
        return True
    return len(shape) == len(dims) and all(not isinstance(d, int) or d == s for d, s in zip(dims, shape))
