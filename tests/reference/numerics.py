#!/usr/bin/env python3
"""Expected outputs for tests/numerics.rs, computed by the references themselves: ONNX's
reference evaluator (`onnx.reference`) for Softmax (opset 13), LayerNormalization (opset 17)
and RMSNormalization (opset 23); numpy for var, std, sum and mean, and for log-softmax in its
stable form `(x - max) - log(sum(exp(x - max)))` (ONNX's reference takes `log(softmax(x))`,
which is -inf wherever softmax underflows).

Run: python3 tests/reference/numerics.py > tests/reference/numerics.txt
(numpy and onnx from pip; the versions used are written in the output's first line.)

Format, one case per line, fields separated by ` | `:
  op | dtype | dims | params | input | expected [| scale | bias]
where dims, input and the others are space-separated (an empty list is `-`), floats are
Python's shortest round-trip form (`nan`, `inf`, `-inf` included), and params is
`axis` (softmax, log_softmax), `axis ddof keepdims` (var, std), `axis epsilon`
(layer_norm, rms_norm) or nothing (sum_all, mean_all)."""

import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

rng = np.random.default_rng(20261125)
# Empty axes and NaN lanes warn; their results are what the tests check.
warnings.simplefilter("ignore")
np.seterr(all="ignore")


def fmt(values):
    values = list(np.asarray(values).ravel())
    if not values:
        return "-"
    return " ".join(repr(float(v)) for v in values)


def dims_str(shape):
    return " ".join(str(d) for d in shape) if len(shape) else "-"


def onnx_run(op, opset, x, axis, extra_inputs=(), **attrs):
    elem = TensorProto.FLOAT if x.dtype == np.float32 else TensorProto.DOUBLE
    names = ["X"] + [f"I{i}" for i in range(len(extra_inputs))]
    inputs = [helper.make_tensor_value_info(n, elem, None) for n in names]
    node = helper.make_node(op, names, ["Y"], axis=axis, **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("Y", elem, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {"X": x}
    feeds.update({n: v for n, v in zip(names[1:], extra_inputs)})
    return ReferenceEvaluator(model).run(None, feeds)[0]


def random_input(shape, dtype):
    x = rng.normal(0.0, 3.0, size=shape).astype(dtype)
    return x


def special_lanes(dtype):
    """Lanes with NaN, infinities and values that overflow exp without the max subtracted."""
    rows = [
        [1.0, np.nan, 2.0],
        [np.inf, 1.0, 2.0],
        [-np.inf, -np.inf, -np.inf],
        [-np.inf, 0.0, 1.0],
        [1000.0, 999.0, -1000.0],
        [-1e30, 0.0, 1e-30],
    ]
    return np.array(rows, dtype=dtype)


lines = [f"# numpy {np.__version__}, onnx {onnx.__version__}"]


def emit(op, x, params, expected, *extra):
    fields = [op, str(x.dtype), dims_str(x.shape), params, fmt(x), fmt(expected)]
    fields += [fmt(e) for e in extra]
    lines.append(" | ".join(fields))


shapes = [(5,), (2, 3), (3, 1, 4), (2, 3, 4), (2, 0, 3), (0,), (2, 2, 1, 3), (1, 7)]
for dtype in (np.float64, np.float32):
    cases = [random_input(s, dtype) for s in shapes] + [special_lanes(dtype)]
    for x in cases:
        rank = x.ndim
        for axis in range(-rank, rank):
            # Softmax: ONNX's reference (it returns an empty input unchanged).
            emit("softmax", x, str(axis), onnx_run("Softmax", 13, x, axis))
            m = x.max(axis=axis, keepdims=True) if x.size else x
            tmp = x - m
            ls = tmp - np.log(np.exp(tmp).sum(axis=axis, keepdims=True))
            emit("log_softmax", x, str(axis), ls.astype(dtype))
            for ddof, keep in ((0, False), (1, True), (3, False)):
                v = np.var(x, axis=axis, ddof=ddof, keepdims=keep)
                s = np.std(x, axis=axis, ddof=ddof, keepdims=keep)
                params = f"{axis} {ddof} {int(keep)}"
                emit("var", x, params, v)
                emit("std", x, params, s)
            if x.size == 0 or not np.isfinite(x).all():
                continue
            norm_shape = x.shape[axis % rank:]
            scale = rng.normal(1.0, 0.5, size=norm_shape).astype(dtype)
            bias = rng.normal(0.0, 0.5, size=norm_shape).astype(dtype)
            ones = np.ones(norm_shape, dtype=dtype)
            params = f"{axis} {1e-5!r}"
            emit("layer_norm", x, params,
                 onnx_run("LayerNormalization", 17, x, axis, (ones,), epsilon=1e-5))
            emit("rms_norm", x, params,
                 onnx_run("RMSNormalization", 23, x, axis, (ones,), epsilon=1e-5))
            params = f"{axis} {0.5!r}"
            emit("layer_norm_affine", x, params,
                 onnx_run("LayerNormalization", 17, x, axis, (scale, bias), epsilon=0.5),
                 scale, bias)
            emit("rms_norm_scaled", x, params,
                 onnx_run("RMSNormalization", 23, x, axis, (scale,), epsilon=0.5), scale)
        emit("sum_all", x, "", np.array([x.sum()], dtype=dtype))
        emit("mean_all", x, "", np.array([x.mean()], dtype=dtype))

print("\n".join(lines))
