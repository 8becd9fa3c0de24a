#!/usr/bin/env python3
"""Expected outputs for tests/half_accumulate.rs: reductions, matrix products and numerics of
`f16` and `bf16` tensors, computed by numpy.

The contract (README, feature `half`): the values are widened to `f32`, every sum and product
is computed in `f32`, and each result is rounded once to the element type. For a sum that is
numpy's `np.sum(x.astype(np.float32), axis, dtype=np.float32).astype(np.float16)`. numpy's
own `np.sum` of a float16 array is not the reference: it adds in float16 (pairwise for
contiguous runs, in order across rows), which is what the contract rules out.

`f32` sums in different orders (numpy's pairwise order, shaped's blocks, an in-order loop) can
differ in their last bits, and so could their rounding to 16 bits when the exact value lies
near a point halfway between two 16-bit values. So each expected value here is the exact
result (math.fsum, or float64 for products and the numerics) rounded once to the element type,
and a case is kept only when every result lies far from such a halfway point: at least four
times the largest error of the `f32` computations tried (numpy's pairwise sum, an in-order
sum), plus a few `f32` units for the numerics' `exp` and `sqrt`; or is one, exactly, with no
error (then every order gives it and it rounds to even). There any `f32` order rounds
to the value written here, and that value is also numpy's float32 sum rounded once (asserted).

The inputs are not stored: element `i` of an input is a function of a seed and `i` (splitmix64,
`value` below), computed the same way by the test, exactly representable in both types.
numpy has no bfloat16: it is handled as float32 whose low 16 bits are zero.

Run: python3 tests/reference/half_accumulate.py > tests/reference/half_accumulate.txt
(numpy from pip; its version is written in the output's first line.)

Format, one case per line, fields separated by ` | `:
  op | dtype | dims | params | kind seed | expected
dims is the input's shape (for matmul: `a dims ; b dims`, as stored); params is the axes
(`all`, or a list) for sum, mean and prod, the target dims for sum_to, `ta tb` (0 or 1) for
matmul, `axis ddof` for var, `axis` for softmax, `axis epsilon` for the normalizations and
`-` for sum_all and mean_all. Floats are Python's shortest round-trip form.
"""

import math

import numpy as np

M64 = (1 << 64) - 1


def splitmix(x):
    """splitmix64 of a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def value(kind, dtype, seed, n):
    """Elements 0..n of an input, as float64 (each exactly representable in `dtype`)."""
    i = np.arange(n, dtype=np.uint64)
    h = splitmix((np.uint64(seed) << np.uint64(32)) | i)
    top = (h >> np.uint64(40)).astype(np.int64)
    e = ((h >> np.uint64(20)) % np.uint64(8)).astype(np.int64)
    # Significands of 11 bits for f16, 8 for bf16.
    bits = 11 if dtype == "f16" else 8
    if kind == "signed":
        m = top % (1 << bits) - (1 << (bits - 1))
        return m * np.exp2(-(e + 6.0))
    if kind == "positive":
        m = top % (1 << (bits - 1))
        return m * np.exp2(-(e + 10.0))
    if kind == "near_one":
        step = 2.0 ** -(bits - 1)
        m = top % 64 - 32 if dtype == "f16" else top % 8 - 4
        return 1.0 + m * step
    raise ValueError(kind)


def to_f32(x):
    return np.asarray(x, dtype=np.float64).astype(np.float32)


def round_to(dtype, x):
    """float64 to the element type, returned as float64. bf16 rounds from float32 (the
    margin check below keeps every value far from a halfway point, so the double rounding
    is the single one)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float64)
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    lsb = (b >> np.uint64(16)) & np.uint64(1)
    b = ((b + np.uint64(0x7FFF) + lsb) >> np.uint64(16)) << np.uint64(16)
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


def halfway_distance(dtype, exact):
    """How far each exact value lies from the nearest point halfway between two values of
    the type (the points where rounding changes)."""
    r = round_to(dtype, exact)
    if dtype == "f16":
        h = r.astype(np.float16)
        up = np.nextafter(h, np.float16(np.inf)).astype(np.float64)
        down = np.nextafter(h, np.float16(-np.inf)).astype(np.float64)
    else:
        b = r.astype(np.float32).view(np.uint32).astype(np.int64)
        sign = np.where(r < 0, -1, 1)
        up_b = np.where(r < 0, b - 0x10000, b + 0x10000)
        down_b = np.where(r < 0, b + 0x10000, b - 0x10000)
        up = up_b.astype(np.uint32).view(np.float32).astype(np.float64)
        down = down_b.astype(np.uint32).view(np.float32).astype(np.float64)
        # Zero: both neighbours are the smallest numbers of either sign.
        up = np.where((r == 0), np.float64(np.uint32(0x10000).view(np.float32)), up)
        down = np.where((r == 0), -up, down)
        del sign
    mids = np.stack([(r + up) / 2, (r + down) / 2])
    return np.min(np.abs(mids - exact), axis=0)


def f32_ulp(x):
    x = np.abs(to_f32(x))
    return (np.nextafter(x, np.float32(np.inf)) - x).astype(np.float64)


def fmt(values):
    values = list(np.asarray(values, dtype=np.float64).ravel())
    return " ".join(repr(float(v)) for v in values) if values else "-"


def ints(xs):
    return " ".join(str(x) for x in xs) if len(xs) else "-"


def axes_of(params, rank):
    if params == "all":
        return tuple(range(rank))
    return tuple(int(a) % rank for a in params.split())


def sums(terms, axes):
    """The exact sums of `terms` (float64 array) over `axes`, and the largest error of the
    f32 sums tried (numpy's pairwise float32 sum and an in-order float32 sum)."""
    moved = np.moveaxis(terms, axes, tuple(range(terms.ndim - len(axes), terms.ndim)))
    lead = moved.shape[: terms.ndim - len(axes)]
    flat = moved.reshape(lead + (-1,))
    rows = flat.reshape(-1, flat.shape[-1])
    exact = np.array([math.fsum(r) for r in rows]).reshape(lead)
    pairwise = np.sum(to_f32(terms), axis=axes, dtype=np.float32).astype(np.float64)
    in_order = np.cumsum(to_f32(rows), axis=1, dtype=np.float32)[:, -1] if rows.shape[1] else np.zeros(len(rows), np.float32)
    in_order = in_order.astype(np.float64).reshape(lead)
    err = np.maximum(np.abs(pairwise - exact), np.abs(in_order - exact))
    return exact, err, pairwise


class Rejected(Exception):
    pass


def check(dtype, exact, err, slack=0.0):
    """The expected values, or Rejected when one lies too near a halfway point."""
    exact = np.asarray(exact, dtype=np.float64)
    err = np.asarray(err) + slack
    # An exact result (every f32 computation tried gave it) may be a halfway point itself:
    # any order gives it, and it rounds to even.
    near = (halfway_distance(dtype, exact) <= 4 * err) & (err > 0)
    if np.any(near):
        raise Rejected
    return round_to(dtype, exact)


def case_reduce(op, dtype, dims, params, kind, seed):
    x = value(kind, dtype, seed, int(np.prod(dims))).reshape(dims)
    axes = axes_of(params, len(dims))
    if op == "prod":
        moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
        rows = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))
        exact = np.prod(rows, axis=-1)
        p32 = np.ones(rows.shape[:-1], np.float32)
        for k in range(rows.shape[-1]):
            p32 = p32 * to_f32(rows[..., k])
        err = np.abs(p32.astype(np.float64) - exact) + np.abs(exact) * 2.0**-40
        return check(dtype, exact, err)
    exact, err, pairwise = sums(x, axes)
    if op == "mean":
        n = int(np.prod([dims[a] for a in axes]))
        exact, err, pairwise = exact / n, err / n, pairwise / n
        want = check(dtype, exact, err, slack=f32_ulp(exact))
    else:
        want = check(dtype, exact, err)
        # The contract, as numpy states it.
        if dtype == "f16":
            numpy_says = np.sum(x.astype(np.float16).astype(np.float32), axis=axes, dtype=np.float32)
            assert np.array_equal(numpy_says.astype(np.float16).astype(np.float64), want)
    return want


def case_sum_to(dtype, dims, target, kind, seed):
    x = value(kind, dtype, seed, int(np.prod(dims))).reshape(dims)
    pad = [1] * (len(dims) - len(target)) + list(target)
    axes = tuple(a for a in range(len(dims)) if pad[a] == 1 and dims[a] != 1)
    exact, err, _ = sums(x, axes)
    return check(dtype, exact, err).reshape(-1)


def case_matmul(dtype, a_dims, b_dims, ta, tb, kind, seed):
    a = value(kind, dtype, seed, int(np.prod(a_dims))).reshape(a_dims)
    b = value(kind, dtype, seed + 1, int(np.prod(b_dims))).reshape(b_dims)
    if ta:
        a = np.swapaxes(a, -1, -2)
    if tb:
        b = np.swapaxes(b, -1, -2)
    # Every product of two 16-bit values is exact in float32 and float64.
    terms = a[..., :, :, None] * b[..., None, :, :]
    exact, err, _ = sums(terms, (terms.ndim - 2,))
    return check(dtype, exact, err)


def case_numerics(op, dtype, dims, params, kind, seed):
    x = value(kind, dtype, seed, int(np.prod(dims))).reshape(dims)
    p = params.split()

    def both(f):
        wide = f(x.astype(np.float64))
        narrow = f(to_f32(x)).astype(np.float64)
        return wide, np.abs(narrow - wide)

    if op == "sum_all":
        exact, err, _ = sums(x.reshape(-1), (0,))
        return check(dtype, exact, err).reshape(-1)
    if op == "mean_all":
        exact, err, _ = sums(x.reshape(-1), (0,))
        n = x.size
        return check(dtype, exact / n, err / n, slack=f32_ulp(exact / n)).reshape(-1)
    axis = int(p[0])
    if op == "var":
        exact, err = both(lambda v: np.var(v, axis=axis, ddof=int(p[1])))
    elif op == "softmax":
        exact, err = both(lambda v: np.exp(v - v.max(axis=axis, keepdims=True))
                          / np.exp(v - v.max(axis=axis, keepdims=True)).sum(axis=axis, keepdims=True))
    elif op in ("layer_norm", "rms_norm"):
        eps = float(p[1])
        norm_axes = tuple(range(axis % len(dims), len(dims)))

        def f(v):
            eps_t = v.dtype.type(eps)
            if op == "layer_norm":
                d = v - v.mean(axis=norm_axes, keepdims=True)
                return d * (1 / np.sqrt((d * d).mean(axis=norm_axes, keepdims=True) + eps_t))
            return v * (1 / np.sqrt((v * v).mean(axis=norm_axes, keepdims=True) + eps_t))

        exact, err = both(f)
    else:
        raise ValueError(op)
    return check(dtype, exact, err, slack=8 * f32_ulp(exact)).reshape(-1)


# (op, dims, params, kind): each for f16 and bf16.
CASES = [
    # A column of a million rows: the sum over the leading axis, and its mean.
    ("sum", [1 << 20, 2], "0", "signed"),
    ("mean", [1 << 20, 2], "0", "signed"),
    # Positive values: a long sum grows past where 16-bit steps are coarse.
    ("sum", [65536], "all", "positive"),
    ("sum", [20000, 3], "0", "positive"),
    # Every axis layout: last axis, leading, middle, several, all; small and large shapes.
    ("sum", [64, 80], "0", "signed"),
    ("sum", [64, 80], "1", "signed"),
    ("sum", [64, 80], "all", "positive"),
    ("sum", [8, 24, 24], "0", "positive"),
    ("sum", [8, 24, 24], "1", "positive"),
    ("sum", [8, 24, 24], "2", "positive"),
    ("sum", [8, 24, 24], "0 2", "positive"),
    ("sum", [8, 24, 24], "all", "positive"),
    ("sum", [3, 700], "1", "positive"),
    ("sum", [1500, 3], "0", "positive"),
    ("sum", [40, 30], "0", "positive"),
    ("sum", [40, 30], "1", "positive"),
    ("mean", [64, 80], "0", "signed"),
    ("mean", [8, 24, 24], "0 2", "positive"),
    ("mean", [1500, 3], "0", "positive"),
    ("mean", [40, 30], "1", "positive"),
    ("prod", [40, 30], "0", "near_one"),
    ("prod", [40, 30], "1", "near_one"),
    ("prod", [200, 30], "0", "near_one"),
    ("prod", [5, 2000], "1", "near_one"),
    ("prod", [8, 24, 24], "0 1", "near_one"),
    ("sum_to", [8, 24, 24], "24 1", "positive"),
    # Products: the loop nests of 4 and 16 columns, a gathered (transposed) right operand,
    # row passes, a batch, a long inner dim, and the transposed forms.
    ("matmul", ([3, 64], [64, 5]), "0 0", "signed"),
    ("matmul", ([5, 40], [40, 4]), "0 0", "signed"),
    ("matmul", ([16, 16], [16, 16]), "0 0", "positive"),
    ("matmul", ([2, 4, 300], [300, 3]), "0 0", "positive"),
    ("matmul", ([1, 2048], [2048, 1]), "0 0", "positive"),
    ("matmul", ([64, 3], [64, 5]), "1 0", "signed"),
    ("matmul", ([3, 64], [5, 64]), "0 1", "signed"),
    ("matmul", ([64, 3], [5, 64]), "1 1", "positive"),
    ("matmul", ([8, 32], [16, 32]), "0 1", "positive"),
    # The numerics built-ins, already computed in f32.
    ("sum_all", [1000], "-", "positive"),
    ("mean_all", [1000], "-", "positive"),
    ("var", [30, 50], "1 0", "signed"),
    ("softmax", [4, 50], "1", "signed"),
    ("layer_norm", [4, 50], "1 1e-05", "signed"),
    ("rms_norm", [4, 50], "1 1e-05", "signed"),
]


def expected(op, dtype, dims, params, kind, seed):
    if op in ("sum", "mean", "prod"):
        return case_reduce(op, dtype, dims, params, kind, seed)
    if op == "sum_to":
        return case_sum_to(dtype, dims, [int(t) for t in params.split()], kind, seed)
    if op == "matmul":
        ta, tb = (int(t) for t in params.split())
        return case_matmul(dtype, dims[0], dims[1], ta, tb, kind, seed)
    return case_numerics(op, dtype, dims, params, kind, seed)


def main():
    print(f"# numpy {np.__version__}")
    seed = 1
    for dtype in ("f16", "bf16"):
        for op, dims, params, kind in CASES:
            # The first seed whose results all lie far from a halfway point.
            while True:
                try:
                    want = expected(op, dtype, dims, params, kind, seed)
                    break
                except Rejected:
                    seed += 1
            dims_s = " ; ".join(ints(d) for d in dims) if op == "matmul" else ints(dims)
            print(f"{op} | {dtype} | {dims_s} | {params} | {kind} {seed} | {fmt(want)}")
            seed += 1


if __name__ == "__main__":
    main()
