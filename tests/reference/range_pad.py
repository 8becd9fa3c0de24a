#!/usr/bin/env python3
"""Expected outputs for tests/range_pad.rs, computed by ONNX's reference evaluator
(`onnx.reference.ReferenceEvaluator`) on single `Range` and `Pad` nodes of opset 21: Range on
integers and floats (fractional deltas, deltas that round, huge and infinite ones, empty
ranges), Pad in every mode (constant, reflect, edge, wrap), with `axes` and without, pads
longer than the axis, zero-size dims, on int8, uint8, int32, int64, float32, float64 and bool.

The reference evaluator runs numpy: `np.arange` on the inputs as Python numbers (then a cast
to the element type) and `np.pad`. numpy's `pad` has no negative pads, so for a case with
some, this script removes those elements by slicing first and gives the reference the rest
(rule M13, ambiguity A25: ONNX Runtime's order). Cases the reference refuses (a delta of 0,
a NaN count, a count past memory, an empty axis padded from its own elements) are written as
errors, with the rule's name for why.

Run: python3 tests/reference/range_pad.py > tests/reference/range_pad.txt

Format, one case per line, fields separated by ` | `, lists space-separated (`-` when empty),
integers in decimal, bools as 0/1, floats as the hex of their bits (so -0.0, NaN and
infinities are exact):
  range | dtype | start | limit | delta | values         (or `error <why>` for the values)
  pad | dtype | mode | dims | pads | axes | value | input | out dims | out
where axes is `all` when the node has none, and `out dims | out` is `error <why>` when the
reference refuses the case."""

import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

warnings.simplefilter("ignore")
rng = np.random.default_rng(20260412)
OPSET = 21

ONNX_TYPE = {
    "int8": TensorProto.INT8,
    "uint8": TensorProto.UINT8,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
    "float16": TensorProto.FLOAT16,
    "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
    "bool": TensorProto.BOOL,
}
FLOATS = {"float16": 2, "float32": 4, "float64": 8}


def fmt(values, dtype):
    values = np.asarray(values, dtype=dtype).ravel()
    if values.size == 0:
        return "-"
    if dtype == "bool":
        return " ".join(str(int(v)) for v in values)
    if dtype in FLOATS:
        width = FLOATS[dtype]
        return " ".join(v.tobytes()[::-1].hex() for v in values.view(f"V{width}"))
    return " ".join(str(int(v)) for v in values)


def lst(values):
    values = [int(v) for v in values]
    return " ".join(str(v) for v in values) if values else "-"


def run(op, names, inputs, types):
    """One node of `op` through the reference evaluator."""
    node = helper.make_node(op, names, ["y"], **({"mode": inputs.pop("mode")} if "mode" in inputs else {}))
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, types[n], None) for n in names if n],
        [helper.make_tensor_value_info("y", types[names[0]], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    return ReferenceEvaluator(model).run(None, inputs)[0]


def why(err):
    text = str(err)
    if isinstance(err, ZeroDivisionError):
        return "zero_delta"
    if "cannot compute length" in text:
        return "nan"
    if "Maximum allowed size" in text or "overflow" in text:
        return "overflow"
    if "empty axis" in text:
        return "empty_axis"
    raise err


# ------------------------------------------------------------------ Range

def range_case(dtype, start, limit, delta):
    s, l, d = (np.array(v, dtype=dtype) for v in (start, limit, delta))
    t = ONNX_TYPE[dtype]
    try:
        y = run("Range", ["start", "limit", "delta"], {"start": s, "limit": l, "delta": d},
                {"start": t, "limit": t, "delta": t})
        out = fmt(y, dtype)
    except Exception as err:  # the reference's refusal, named by its rule
        out = f"error {why(err)}"
    if dtype not in FLOATS and not out.startswith("error"):
        # Only cases where numpy's f64 count is the exact one (A24 is tested by value).
        a, b, c = int(s), int(l), int(d)
        exact = max(-((a - b) // c), 0)
        if exact != len(out.split()) - (out == "-"):
            return None
    return f"range | {dtype} | {fmt(s, dtype)} | {fmt(l, dtype)} | {fmt(d, dtype)} | {out}"


lines = [f"# onnx {onnx.__version__}, numpy {np.__version__}, opset {OPSET}"]
INTS = {
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-32768, 32767),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint16": (0, 65535),
    "uint32": (0, 2**32 - 1),
}
for dtype, (lo, hi) in INTS.items():
    cases = [(0, 10, 3), (10, 0, -3), (0, 10, -1), (5, 5, 1), (0, 1, 100), (lo, hi, 1 if hi < 2**8 else (hi - lo) // 50 + 1),
             (hi, lo, -1 if hi < 2**8 else -((hi - lo) // 40 + 1)), (lo, lo + 7, 2), (hi - 7, hi, 3), (0, 5, 0)]
    if lo < 0:
        cases += [(lo, hi, hi), (hi, lo, lo), (-5, 5, 2), (5, -5, -2), (-1, -9, -4)]
    for _ in range(25):
        a = int(rng.integers(max(lo, -300), min(hi, 300) + 1))
        b = int(rng.integers(max(lo, -300), min(hi, 300) + 1))
        c = int(rng.choice([1, 2, 3, 5, 7, 11]))
        if lo < 0 and rng.random() < 0.5:
            c = -c
        cases.append((a, b, c))
    for case in cases:
        if not all(lo <= v <= hi for v in case):
            continue
        line = range_case(dtype, *case)
        if line:
            lines.append(line)

for dtype in ["float32", "float64", "float16"]:
    f = np.dtype(dtype).type
    cases = [(0.0, 1.0, 0.1), (0.1, 1.0, 0.3), (1.0, 0.0, -0.1), (0.0, 10.0, 1.0 / 3.0),
             (-2.5, 2.5, 0.5), (1e8, 1e8 + 10, 1.0), (1.0, 2.0, 0.25), (0.0, 1.0, float("inf")),
             (0.0, 1.0, float("-inf")), (0.0, 0.0, float("inf")), (0.0, 1.0, 0.0), (0.0, 1.0, -0.0),
             (float("nan"), 1.0, 1.0), (0.0, 1.0, float("nan")), (float("inf"), float("inf"), 1.0),
             (0.0, float("inf"), 1.0), (5.0, 5.0, 1.0), (0.0, -1.0, 0.5), (-0.0, 3.0, 1.0),
             (1e-30, 1e-29, 1e-31), (3.0, 1.0, -0.7), (0.0, 1e-300, 1e300)]
    for _ in range(30):
        a = float(rng.normal() * 10)
        b = float(a + rng.normal() * 20)
        c = float(rng.choice([0.1, 0.25, 1.0 / 7, 0.7, 1.5, 3.3, -0.1, -0.25, -1.5, -3.3]))
        cases.append((a, b, c))
    for case in cases:
        line = range_case(dtype, *(f(v) for v in case))
        if line:
            lines.append(line)

# ------------------------------------------------------------------ Pad

MODES = ["constant", "reflect", "edge", "wrap"]


def values_of(dtype, dims):
    n = int(np.prod(dims))
    if dtype == "bool":
        return rng.random(n).reshape(dims) < 0.5
    if dtype in FLOATS:
        return (rng.normal(size=n) * 10).astype(dtype).reshape(dims)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=n, dtype=dtype).reshape(dims)


def pad_case(dtype, mode, x, pads, axes, value):
    """One Pad node; negative pads removed by slicing first (A25)."""
    rank = x.ndim
    axes_list = list(range(rank)) if axes is None else [a % rank for a in axes]
    k = len(axes_list)
    crop = [slice(None)] * rank
    for i, a in enumerate(axes_list):
        b, e = pads[i], pads[k + i]
        crop[a] = slice(max(-b, 0), x.shape[a] - max(-e, 0))
    positive = [max(p, 0) for p in pads]
    cropped = x[tuple(crop)]
    t = ONNX_TYPE[dtype]
    names = ["data", "pads", "value"] + (["axes"] if axes is not None else [])
    inputs = {"data": cropped, "pads": np.array(positive, dtype=np.int64),
              "value": np.array(value, dtype=dtype), "mode": mode}
    types = {"data": t, "pads": TensorProto.INT64, "value": t}
    if axes is not None:
        inputs["axes"] = np.array(axes, dtype=np.int64)
        types["axes"] = TensorProto.INT64
    try:
        y = run("Pad", names, inputs, types)
        out = f"{lst(y.shape)} | {fmt(y, dtype)}"
    except Exception as err:
        out = f"error {why(err)}"
    ax = "all" if axes is None else lst(axes)
    return (f"pad | {dtype} | {mode} | {lst(x.shape)} | {lst(pads)} | {ax} | "
            f"{fmt([value], dtype)} | {fmt(x, dtype)} | {out}")


def some_value(dtype):
    if dtype == "bool":
        return True
    if dtype in FLOATS:
        return float(rng.choice([0.0, -1.5, 7.25, float("nan")]))
    return int(rng.choice([0, 1, -1, 9])) if np.iinfo(dtype).min < 0 else int(rng.choice([0, 1, 9]))


PAD_TYPES = ["int8", "uint8", "int32", "int64", "float32", "float64", "bool"]
# Fixed cases: numpy's examples, pads past the axis, one-element axes, zero-size dims.
fixed = [
    ("int32", "reflect", [3], [5, 5], None),
    ("int32", "wrap", [3], [5, 5], None),
    ("int32", "edge", [3], [5, 5], None),
    ("int32", "constant", [3], [5, 5], None),
    ("int32", "reflect", [1], [2, 3], None),
    ("int32", "wrap", [1], [2, 3], None),
    ("int64", "reflect", [2, 3], [0, 7, 0, 8], None),
    ("int64", "wrap", [4], [-3, 2], None),
    ("int64", "reflect", [4], [-1, 6], None),
    ("int64", "edge", [4], [3, -4], None),
    ("int64", "wrap", [4], [-2, -2], None),
    ("float32", "constant", [0, 3], [1, 0, 0, 1], None),
    ("float32", "edge", [0, 3], [0, 1, 0, 1], None),
    ("float32", "edge", [0, 3], [1, 0, 0, 0], None),
    ("float32", "reflect", [0, 3], [1, 0, 0, 0], None),
    ("float32", "wrap", [2, 0], [0, 0, 0, 2], None),
    ("float32", "constant", [2, 0], [0, 1, 0, 2], None),
    ("float64", "constant", [2, 3, 4], [1, 2], [-3]),
    ("float64", "reflect", [2, 3, 4], [2, 1, 3, 2], [2, 0]),
    ("float64", "wrap", [2, 3, 4], [5, 5], [1]),
    ("float64", "edge", [2, 3, 4], [], []),
    ("int8", "constant", [3, 3], [-1, -1, -1, -1], None),
    ("int8", "edge", [3, 3], [-3, 0, 0, 0], None),
    ("int8", "constant", [3, 3], [-3, 1, 0, 0], None),
    ("bool", "constant", [2, 2], [1, 1, 1, 1], None),
    ("bool", "wrap", [2, 2], [0, 3, 0, 0], None),
]
for dtype, mode, dims, pads, axes in fixed:
    lines.append(pad_case(dtype, mode, values_of(dtype, dims), pads, axes, some_value(dtype)))
for _ in range(360):
    dtype = str(rng.choice(PAD_TYPES))
    mode = str(rng.choice(MODES))
    rank = int(rng.integers(1, 4))
    dims = [int(rng.choice([0, 1, 1, 2, 3, 4, 5])) for _ in range(rank)]
    if rng.random() < 0.4:
        axes = [int(a) for a in rng.permutation(rank)[: int(rng.integers(0, rank + 1))]]
        axes = [a - rank if rng.random() < 0.5 else a for a in axes]
    else:
        axes = None
    count = rank if axes is None else len(axes)
    targets = list(range(rank)) if axes is None else [a % rank for a in axes]
    pads = [0] * (2 * count)
    for i, a in enumerate(targets):
        d = dims[a]
        for j in (i, count + i):
            pads[j] = int(rng.choice([0, 0, 1, 2, 3, 7]))
        # Some crops, never past the axis (that error is tested by value).
        if d > 0 and rng.random() < 0.3:
            pads[i] = -int(rng.integers(0, d + 1))
            left = d + pads[i]
            if left > 0 and rng.random() < 0.5:
                pads[count + i] = -int(rng.integers(0, left + 1))
    lines.append(pad_case(dtype, mode, values_of(dtype, dims), pads, axes, some_value(dtype)))
print("\n".join(lines))
