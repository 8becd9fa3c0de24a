#!/usr/bin/env python3
"""Expected outputs for tests/unary_reference.rs, computed by ONNX's reference evaluator
(`onnx.reference`): Erf (opset 13) and Gelu (opset 20, `approximate` "none" and "tanh"), in
float32, on random inputs and on the special values (signed zeros, infinities, NaN,
subnormals, the points where erf saturates). For float64 the evaluator is not a reference:
its Erf rounds through float32 (`np.vectorize(math.erf, otypes=["f"])`) and Gelu's function
body casts float32 constants (0.63661975, 0.044715) to the input type. The float64 lines run
the same function body in numpy float64 with Python's `math.erf` (C's libm, which the
evaluator's Erf calls too) and the constants in float64.

Run: python3 tests/reference/unary.py > tests/reference/unary.txt
(numpy and onnx from pip; the versions used are written in the output's first line.)

Format, one case per line, fields separated by ` | `:
  op | dtype | input | expected
with the values space-separated in Python's shortest round-trip form."""

import math

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

rng = np.random.default_rng(20261126)
np.seterr(all="ignore")


def run(op, opset, x, **attrs):
    elem = TensorProto.FLOAT if x.dtype == np.float32 else TensorProto.DOUBLE
    node = helper.make_node(op, ["X"], ["Y"], **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("X", elem, None)],
        [helper.make_tensor_value_info("Y", elem, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, {"X": x})[0]


def float64_body(op, x):
    """Gelu's ONNX function body (opset 20) in float64, constants in float64."""
    erf = np.vectorize(math.erf, otypes=["d"])
    if op == "erf":
        return erf(x)
    if op == "gelu":
        return (0.5 * x) * (1.0 + erf(x / np.sqrt(2.0)))
    inner = np.sqrt(2.0 / np.pi) * (x + 0.044715 * np.power(x, 3.0))
    return (0.5 * x) * (1.0 + np.tanh(inner))


def fmt(values):
    return " ".join(repr(float(v)) for v in np.asarray(values).ravel())


special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1e-30, 1e-8, -1e-8, 0.5, -0.5,
           0.84375, 1.25, 2.857142857, 3.9, 3.92, 4.0, 6.0, 10.0, 26.0, 30.0, -5.9, -10.0,
           -30.0, 1e30, -1e30]
lines = [f"# numpy {np.__version__}, onnx {onnx.__version__}"]
for dtype in (np.float32, np.float64):
    chunks = [np.array(special, dtype=dtype)]
    chunks += [rng.normal(0.0, s, size=250).astype(dtype) for s in (0.5, 2.0, 6.0)]
    for x in chunks:
        for op, opset, attrs in (("erf", 13, {}), ("gelu", 20, {}),
                                 ("gelu_tanh", 20, {"approximate": "tanh"})):
            if dtype == np.float32:
                onnx_op = "Erf" if op == "erf" else "Gelu"
                y = run(onnx_op, opset, x, **attrs)
            else:
                y = float64_body(op, x)
            assert y.dtype == x.dtype
            lines.append(" | ".join([op, str(x.dtype), fmt(x), fmt(y)]))
print("\n".join(lines))
