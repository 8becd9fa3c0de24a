#!/usr/bin/env python3
"""Expected outputs for tests/indexing.rs, computed by numpy: slices with steps (`x[a:b:c]` per
axis, bounds past the ends, negative bounds and steps, `None` bounds), `take` (gather) with
negative indices, and `take_along_axis` (gather_elements) where the dims off the axis are
equal, on random shapes of rank 1 to 4 (zero-size dims included).

Run: python3 tests/reference/indexing.py > tests/reference/indexing.txt

Format, one case per line, fields separated by ` | ` (lists space-separated, `-` when empty):
  slice | dims | start,end,step per axis (`_` for None) separated by `;` | out dims | out
  take | dims | axis | index dims | indices | out dims | out
  along | dims | axis | index dims | indices | out dims | out
The input is always `arange(count)`."""

import numpy as np

rng = np.random.default_rng(20261126)


def lst(values):
    values = list(np.asarray(values).ravel())
    return " ".join(str(int(v)) for v in values) if values else "-"


def bound():
    return None if rng.random() < 0.25 else int(rng.integers(-7, 8))


lines = [f"# numpy {np.__version__}"]
for _ in range(400):
    rank = int(rng.integers(1, 5))
    dims = [int(rng.integers(0, 5)) for _ in range(rank)]
    x = np.arange(int(np.prod(dims))).reshape(dims)
    n = int(rng.integers(1, rank + 1))
    slices = []
    for _ in range(n):
        step = int(rng.choice([-3, -2, -1, 1, 2, 3, 1, -1]))
        slices.append((bound(), bound(), step))
    y = x[tuple(slice(a, b, c) for a, b, c in slices)]
    spec = ";".join(",".join("_" if v is None else str(v) for v in s) for s in slices)
    lines.append(f"slice | {lst(dims)} | {spec} | {lst(y.shape)} | {lst(y)}")
for _ in range(300):
    rank = int(rng.integers(1, 4))
    dims = [int(rng.integers(1, 5)) for _ in range(rank)]
    x = np.arange(int(np.prod(dims))).reshape(dims)
    axis = int(rng.integers(-rank, rank))
    d = dims[axis]
    irank = int(rng.integers(0, 3))
    idims = [int(rng.integers(0, 4)) for _ in range(irank)]
    idx = rng.integers(-d, d, size=idims)
    y = np.take(x, idx, axis=axis)
    lines.append(f"take | {lst(dims)} | {axis} | {lst(idims)} | {lst(idx)} | {lst(y.shape)} | {lst(y)}")
    idims2 = list(dims)
    idims2[axis] = int(rng.integers(0, 4))
    idx2 = rng.integers(-d, d, size=idims2)
    y2 = np.take_along_axis(x, idx2, axis=axis)
    lines.append(f"along | {lst(dims)} | {axis} | {lst(idims2)} | {lst(idx2)} | {lst(y2.shape)} | {lst(y2)}")
print("\n".join(lines))
