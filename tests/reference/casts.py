#!/usr/bin/env python3
"""Expected outputs for tests/casts.rs: numpy's `astype` (what ONNX's reference `Cast` runs)
between bool, the integers up to 64 bits, float16, float32 and float64, on values chosen to
round, wrap and overflow, and ml_dtypes' bfloat16 from float32 (one rounding there).

Only the conversions numpy defines are written (rule C1): a NaN, an infinity or an
out-of-range float into an integer is platform-defined in numpy, so those pairs are left out
(shaped saturates them, C1, tested by value). ml_dtypes' float64 -> bfloat16 rounds through
float32 first (two roundings: 1 + 2^-8 + 2^-40 gives 1, not 1.0078125), so bfloat16 lines come
from float32 sources only.

Run: python3 tests/reference/casts.py > tests/reference/casts.txt

Format, one case per line: `from | to | inputs | outputs`, values space-separated: integers in
decimal, bools as 0/1, floats as the hex of their bits (so NaN payloads and -0.0 are exact)."""

import warnings

import ml_dtypes
import numpy as np

warnings.simplefilter("ignore")

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]

int_values = [0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 300, -300, 32767, 32768, -32769,
              65519, 65520, 70000, 2**24 + 1, 2**31 - 1, 2**31, -2**31, 2**32 + 5,
              2**53 + 1, 2**60 + 2**52 + 1, 2**63 - 1, -2**63, 12345678901]
float_values = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 127.9, -128.9, 255.5,
                256.0, -1.0, 65504.0, 65519.99, 65520.0, 1e10, -1e10, 3.4e38, 1e-8, 6e-8,
                1e-45, 1 + 2**-11 + 2**-40, 1 + 2**-24 + 2**-50, 2.0**63, 1e300, -1e300,
                float("nan"), float("inf"), float("-inf"), 0.1, -7.75]


def fmt(values, dtype):
    if dtype == "bool":
        return " ".join(str(int(v)) for v in values)
    if dtype in FLOATS or dtype == "bfloat16":
        width = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}[dtype]
        return " ".join(v.tobytes()[::-1].hex() for v in values.view(f"V{width}"))
    return " ".join(str(int(v)) for v in values)


def source(dtype):
    """The test values that exist in `dtype`."""
    if dtype == "bool":
        return np.array([False, True], dtype=bool)
    if dtype in INTS:
        info = np.iinfo(dtype)
        return np.array([v for v in int_values if info.min <= v <= info.max], dtype=dtype)
    return np.array(float_values, dtype=np.float64).astype(dtype)


def defined(x, src, dst):
    """numpy defines every conversion but a float outside an integer's range (NaN, inf)."""
    if src in FLOATS and dst in INTS:
        info = np.iinfo(dst)
        with np.errstate(invalid="ignore"):
            t = np.trunc(x.astype(np.float64))
            # `info.max + 1` is a power of two, exact as a float: no rounding in the bound.
            return np.isfinite(t) & (t >= info.min) & (t < float(info.max + 1))
    return np.ones(len(x), dtype=bool)


types = ["bool"] + INTS + FLOATS
lines = [f"# numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}"]
for src in types:
    x = source(src)
    for dst in types:
        if src == dst:
            continue
        keep = defined(x, src, dst)
        xs = x[keep]
        y = xs.astype(dst)
        lines.append(f"{src} | {dst} | {fmt(xs, src)} | {fmt(y, dst)}")
x = source("float32")
lines.append(f"float32 | bfloat16 | {fmt(x, 'float32')} | {fmt(x.astype(ml_dtypes.bfloat16), 'bfloat16')}")
print("\n".join(lines))
