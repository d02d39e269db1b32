"""Hypothesis strategies: random dynamic networks of one layer kind, with profiles and cases at random shapes inside
them (issue 27, item 8). Each strategy draws a spec document; the test validates it against the numpy references.

Dimensions: every dynamic one is a symbol (shared with other inputs where the layer needs equal sizes) or -1;
each gets a range min <= opt <= max in one profile (sometimes two profiles), and each case draws a value inside
the range of one profile. Small sizes (at most 6 or so): the point is shapes, not magnitude.
"""

from __future__ import annotations

from hypothesis import strategies as st

SYMBOLS = ("n", "c", "h", "w", "d")
FLOATS = ("float32", "float16")


@st.composite
def ranges(draw, low=1, high=6):
    """(min, opt, max) with low <= min <= opt <= max <= high."""
    a, b, c = sorted(draw(st.lists(st.integers(low, high), min_size=3, max_size=3)))
    return a, b, c


@st.composite
def dims(draw, rank: int, static_axes=(), low=1):
    """A rank-``rank`` shape for a spec: per axis a static size, a symbol or -1 (``static_axes`` always static), and
    per dynamic axis its range. Returns (spec dims, {axis: (min, opt, max)})."""
    out, bounds, used = [], {}, set()
    for axis in range(rank):
        kind = "static" if axis in static_axes else draw(st.sampled_from(("static", "symbol", "symbol", "any")))
        if kind == "static":
            out.append(draw(st.integers(max(low, 1), 4)))
            continue
        if kind == "symbol":
            name = draw(st.sampled_from([s for s in SYMBOLS if s not in used]))
            used.add(name)
            out.append(name)
        else:
            out.append(-1)
        bounds[axis] = draw(ranges(low=low))
    return out, bounds


def corner(spec_dims, bounds, k: int) -> list[int]:
    return [bounds[a][k] if a in bounds else d for a, d in enumerate(spec_dims)]


@st.composite
def case_shape(draw, spec_dims, bounds):
    """A concrete shape inside the bounds (a shared symbol takes one value: the caller keeps symbols per input)."""
    return [draw(st.integers(bounds[a][0], bounds[a][2])) if a in bounds else d for a, d in enumerate(spec_dims)]


def profile_entry(spec_dims, bounds):
    return {key: corner(spec_dims, bounds, k) for k, key in enumerate(("min", "opt", "max"))}


def generator(dtype: str, shape, seed: int) -> dict:
    if dtype in ("float32", "float16", "bfloat16"):
        return {"random": "uniform", "low": -2, "high": 2, "seed": seed, "shape": list(shape)}
    if dtype == "bool":
        return {"random": "integers", "low": 0, "high": 1, "seed": seed, "shape": list(shape)}
    low = 0 if dtype.startswith("uint") else -20
    return {"random": "integers", "low": low, "high": 20, "seed": seed, "shape": list(shape)}


def document(name, inputs, layer, profile, cases):
    network = {"inputs": inputs, "layers": [layer], "outputs": [layer["name"]], "profiles": [profile]}
    doc = {"name": name, "network": network}
    if cases:
        doc["cases"] = cases
    return doc


@st.composite
def same_shape_cases(draw, names_dtypes, spec_dims, bounds, count=None):
    """Cases of inputs that share one shape (every input has the same dims)."""
    cases = []
    for i in range(draw(st.integers(0, 3)) if count is None else count):
        shape = draw(case_shape(spec_dims, bounds))
        cases.append({"name": f"c{i}", "inputs": {n: generator(t, shape, 10 * i + j)
                                                   for j, (n, t) in enumerate(names_dtypes)}})
    return cases


@st.composite
def scale_specs(draw):
    rank = draw(st.integers(4, 5))
    mode = draw(st.sampled_from(("UNIFORM", "CHANNEL", "ELEMENTWISE")))
    axis = draw(st.integers(0, rank - 1))
    fixed = {axis} if mode == "CHANNEL" else set(range(axis, rank)) if mode == "ELEMENTWISE" else set()
    spec_dims, bounds = draw(dims(rank, fixed))
    dtype = draw(st.sampled_from(("float32", "float16", "int8", "bfloat16")))
    count = 1 if mode == "UNIFORM" else (spec_dims[axis] if mode == "CHANNEL" else _product(spec_dims[axis:]))
    layer = {"name": "y", "op": "trt.Scale", "inputs": ["x"], "mode": mode, "channel_axis": axis}
    for key, values in (("scale", st.floats(-2, 2, width=16)), ("shift", st.floats(-1, 1, width=16))):
        if draw(st.booleans()):
            layer[key] = draw(st.lists(values, min_size=count, max_size=count))
    if draw(st.booleans()):
        layer["power"] = [2.0] * count
    cases = draw(same_shape_cases([("x", dtype)], spec_dims, bounds))
    return document("dyn-scale", {"x": {"dtype": dtype, "shape": spec_dims}}, layer,
                    {"x": profile_entry(spec_dims, bounds)}, cases)


def _product(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


ELEMENTWISE = {"SUM": FLOATS + ("int32", "int8"), "PROD": FLOATS + ("int32",), "SUB": FLOATS + ("int64",),
               "MAX": FLOATS + ("int8",), "MIN": FLOATS + ("int32",), "DIV": FLOATS + ("int32", "int64"),
               "FLOOR_DIV": ("float32", "int32"), "POWER": ("float32",), "EQUAL": FLOATS + ("int32",),
               "GREATER": ("float32", "int64"), "LESS": ("float16", "int32"), "AND": ("bool",), "XOR": ("bool",)}


@st.composite
def elementwise_specs(draw):
    """Two inputs of one rank: per axis the same symbol, a symbol against 1 (broadcast), or static sizes."""
    rank = draw(st.integers(1, 4))
    op = draw(st.sampled_from(sorted(ELEMENTWISE)))
    dtype = draw(st.sampled_from(ELEMENTWISE[op]))
    a, b, bounds = [], [], {}
    for axis in range(rank):
        form = draw(st.sampled_from(("shared", "a-broadcast", "b-broadcast", "static", "any-against-1")))
        if form == "static":
            size = draw(st.integers(1, 3))
            a.append(size)
            b.append(draw(st.sampled_from((size, 1))))
            continue
        bounds[SYMBOLS[axis]] = draw(ranges())
        symbol = SYMBOLS[axis] if form != "any-against-1" else -1
        a.append(1 if form == "a-broadcast" else symbol)
        b.append(1 if form in ("b-broadcast", "any-against-1") else symbol)

    def entry(spec_dims):
        if all(isinstance(d, int) and d >= 0 for d in spec_dims):
            return None
        return {key: [bounds[SYMBOLS[i]][k] if not (isinstance(d, int) and d >= 0) else d for i, d in enumerate(spec_dims)]
                for k, key in enumerate(("min", "opt", "max"))}

    profile = {n: e for n, e in (("a", entry(a)), ("b", entry(b))) if e is not None}
    if not profile:  # static after all: one symbol, so that the network is dynamic
        bounds["n"] = draw(ranges())
        a[0] = b[0] = "n"
        profile = {n: entry(d) for n, d in (("a", a), ("b", b))}
    cases = []
    for i in range(draw(st.integers(0, 3))):
        values = {s: draw(st.integers(r[0], r[2])) for s, r in bounds.items()}

        def shape(spec_dims):
            return [values[SYMBOLS[j]] if not (isinstance(d, int) and d >= 0) else d for j, d in enumerate(spec_dims)]

        cases.append({"name": f"c{i}", "inputs": {"a": generator(dtype, shape(a), 2 * i), "b": generator(dtype, shape(b), 2 * i + 1)}})
    layer = {"name": "y", "op": "trt.ElementWise", "inputs": ["a", "b"], "operation": op}
    return document("dyn-elementwise", {"a": {"dtype": dtype, "shape": a}, "b": {"dtype": dtype, "shape": b}}, layer,
                    profile, cases)


RESIZE_ATTRS = {
    "coordinate_transformation": ("ASYMMETRIC", "HALF_PIXEL", "ALIGN_CORNERS"),
    "selector_for_single_pixel": ("FORMULA", "UPPER"),
    "nearest_rounding": ("FLOOR", "CEIL", "HALF_UP", "HALF_DOWN"),
}


@st.composite
def _resize_attrs(draw, rank):
    mode = draw(st.sampled_from(("NEAREST", "LINEAR", "CUBIC")))
    attrs = {"resize_mode": mode, **{k: draw(st.sampled_from(v)) for k, v in RESIZE_ATTRS.items()}}
    window = 2 if mode == "CUBIC" else min(3, rank)
    return attrs, window


@st.composite
def resize_scale_specs(draw):
    rank = draw(st.integers(2, 4))
    attrs, window = draw(_resize_attrs(rank))
    spec_dims, bounds = draw(dims(rank))
    scales = [1.0] * (rank - window) + [draw(st.sampled_from((1.0, 2.0, 0.5, 1.5, 3.0, 0.75))) for _ in range(window)]
    dtype = draw(st.sampled_from(("float32", "float16", "int8")))
    if not bounds:  # a static input: make the first dimension dynamic (before the cases draw their shapes)
        spec_dims[0], bounds[0] = "n", draw(ranges())
    cases = draw(same_shape_cases([("x", dtype)], spec_dims, bounds))
    layer = {"name": "y", "op": "trt.Resize", "inputs": ["x"], "scales": scales, **attrs}
    return document("dyn-resize-scales", {"x": {"dtype": dtype, "shape": spec_dims}}, layer,
                    {"x": profile_entry(spec_dims, bounds)}, cases)


@st.composite
def resize_sizes_specs(draw):
    """Resize to a run-time shape: a shape input (int32/int64) whose values a profile bounds; the input's resized
    dimensions dynamic or static, its other dimensions static (the shape input repeats them)."""
    rank = draw(st.integers(2, 4))
    attrs, window = draw(_resize_attrs(rank))
    spec_dims, bounds = draw(dims(rank, static_axes=set(range(rank - window))))
    out_bounds = [None] * (rank - window) + [draw(ranges(low=0, high=7)) for _ in range(window)]
    sizes = {k: [spec_dims[a] if out_bounds[a] is None else out_bounds[a][i] for a in range(rank)]
             for i, k in enumerate(("min", "opt", "max"))}
    dtype, size_type = draw(st.sampled_from(("float32", "float16", "int8"))), draw(st.sampled_from(("int32", "int64")))
    cases = []
    for i in range(draw(st.integers(0, 3))):
        shape = draw(case_shape(spec_dims, bounds))
        out = [shape[a] if out_bounds[a] is None else draw(st.integers(out_bounds[a][0], out_bounds[a][2])) for a in range(rank)]
        cases.append({"name": f"c{i}", "inputs": {"x": generator(dtype, shape, i), "size": out}})
    profile = {"size": sizes}
    if bounds:
        profile["x"] = profile_entry(spec_dims, bounds)
    inputs = {"x": {"dtype": dtype, "shape": spec_dims}, "size": {"dtype": size_type, "shape": [rank], "shape_tensor": True}}
    layer = {"name": "y", "op": "trt.Resize", "inputs": ["x", "size"], **attrs}
    return document("dyn-resize-sizes", inputs, layer, profile, cases)


DQ_INPUTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32")


@st.composite
def dequantize_specs(draw):
    """dml.DequantizeLinear over one dynamic shape shared by input, scale and zero point; or a per-channel scale
    buffer read through DirectML strides (0 on every axis but a static channel axis)."""
    rank = draw(st.integers(1, 4))
    x_type, s_type = draw(st.sampled_from(DQ_INPUTS)), draw(st.sampled_from(("float32", "float16")))
    zero_point = draw(st.booleans())
    strided = draw(st.booleans())
    channel = draw(st.integers(0, rank - 1))
    spec_dims, bounds = draw(dims(rank, static_axes={channel} if strided else set()))
    if not bounds:
        free = [a for a in range(rank) if a != channel or not strided]
        if not free:  # rank 1, strided: nothing dynamic can remain; not strided then
            strided, free = False, [0]
        spec_dims[free[0]], bounds[free[0]] = "n", draw(ranges())
    names = ["q", "s"] + (["zp"] if zero_point else [])
    buffer = [spec_dims[channel]] if strided else spec_dims
    inputs = {"q": {"dtype": x_type, "shape": spec_dims}, "s": {"dtype": s_type, "shape": buffer}}
    if zero_point:
        inputs["zp"] = {"dtype": x_type, "shape": buffer}
    layer = {"name": "y", "op": "dml.DequantizeLinear", "inputs": names}
    if strided:
        strides = [1 if a == channel else 0 for a in range(rank)]
        layer["strides"] = {"scale": strides, **({"zero_point": strides} if zero_point else {})}
    profile = {n: profile_entry(spec_dims, bounds) for n in names if n == "q" or not strided}
    cases = []
    for i in range(draw(st.integers(0, 3))):
        shape = draw(case_shape(spec_dims, bounds))
        own = buffer if strided else shape
        cases.append({"name": f"c{i}", "inputs": {
            "q": generator(x_type, shape, 3 * i), "s": {"random": "uniform", "low": -1, "high": 1, "seed": 3 * i + 1, "shape": own},
            **({"zp": generator(x_type, own, 3 * i + 2)} if zero_point else {})}})
    return document("dyn-dequantize", inputs, layer, profile, cases)


KINDS = {"trt.Scale": scale_specs, "trt.ElementWise": elementwise_specs, "trt.Resize/scales": resize_scale_specs,
         "trt.Resize/sizes": resize_sizes_specs, "dml.DequantizeLinear": dequantize_specs}


def accepting_target(spec, order) -> str | None:
    """The first target of ``order`` that takes ``spec`` at opset 17 (its rules, its check), or None."""
    from converter.errors import TargetRefusal
    from converter.pipeline.stages import convert
    from converter.targets import resolve_target

    for name in order:
        try:
            convert(spec, resolve_target(name), 17)
        except TargetRefusal:
            continue  # refused: its rules (a TensorRT type) or its check (a shape computation CUDA puts on the CPU)
        return name
    return None
