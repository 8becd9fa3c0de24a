#!/usr/bin/env python3
"""Expected outputs of int8 FULLY_CONNECTED (per-tensor and per-channel weights) and
BATCH_MATMUL, computed by TensorFlow Lite Micro itself.

Each case is a single-op model built here as a .tflite flatbuffer (weights and bias as constant
buffers, as a converter writes them) and run by the `tflite-micro` Python package's
interpreter: TFLM's reference kernels as shipped (double rounding).

The inputs and weights are not stored: they come from the same 32-bit xorshift generator as
tflm_elementwise.py (and tests/quantized_tflm.rs), seeded per case; biases and per-channel
scales are short and stored in the case line.

    python3 -m venv venv && venv/bin/pip install tflite-micro numpy
    venv/bin/python tests/reference/tflm_matmul.py

writes tests/reference/tflm_{fully_connected,fully_connected_per_channel,batch_matmul}.txt
(one case per line) and .bin (every case's outputs, concatenated, as int8 bytes).
"""

import math
import os
import random
import sys

import flatbuffers
import numpy as np
from tflite_micro.python.tflite_micro import runtime
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as fb

from tflm_elementwise import ACTIVATIONS, xorshift_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUTS = {"fully_connected": 200_000, "fully_connected_per_channel": 100_000,
           "batch_matmul": 100_000}
# The output columns of per-channel cases: the Rust tests build one prepared product per
# count (its length is part of the type).
PER_CHANNEL_COLUMNS = [1, 3, 8, 16, 33]


def f32(x):
    return float(np.float32(x))


def bits(x):
    return np.float32(x).view(np.uint32).item()


def tensor(name, shape, scales, zero_points, buffer, ty=fb.TensorType.INT8, axis=0):
    t = fb.TensorT()
    t.name = name
    t.shape = list(shape)
    t.type = ty
    t.buffer = buffer
    q = fb.QuantizationParametersT()
    q.scale = [f32(s) for s in scales]
    q.zeroPoint = [int(z) for z in zero_points]
    q.quantizedDimension = axis
    t.quantization = q
    return t


def buffer(data=None):
    b = fb.BufferT()
    if data is not None:
        b.data = list(np.frombuffer(data.tobytes(), dtype=np.uint8))
    return b


def build(m, graph, code):
    c = fb.OperatorCodeT()
    c.builtinCode = code
    c.deprecatedBuiltinCode = min(code, 127)
    c.version = 1
    m.operatorCodes = [c]
    m.subgraphs = [graph]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def fully_connected(x, w, bias, qx, w_scales, w_zp, qo, act, keep_dims):
    """TFLM's FULLY_CONNECTED of x [..., k] and constant weights w [n, k] (per-channel when
    there is more than one scale), with a constant int32 bias or none."""
    n = w.shape[0]
    m = fb.ModelT()
    m.version = 3
    m.buffers = [buffer(), buffer(), buffer(w), buffer(bias) if bias is not None else buffer(),
                 buffer()]
    g = fb.SubGraphT()
    out_shape = list(x.shape[:-1]) + [n] if keep_dims else [x.size // x.shape[-1], n]
    bias_scales = [qx[0] * s for s in w_scales]
    g.tensors = [
        tensor("x", x.shape, [qx[0]], [qx[1]], 1),
        tensor("w", w.shape, w_scales, [w_zp] * len(w_scales), 2),
        tensor("bias", [n], bias_scales, [0] * len(w_scales), 3, fb.TensorType.INT32),
        tensor("out", out_shape, [qo[0]], [qo[1]], 4),
    ]
    g.inputs = [0]
    g.outputs = [3]
    o = fb.OperatorT()
    o.opcodeIndex = 0
    o.inputs = [0, 1, 2 if bias is not None else -1]
    o.outputs = [3]
    o.builtinOptionsType = fb.BuiltinOptions.FullyConnectedOptions
    opts = fb.FullyConnectedOptionsT()
    opts.fusedActivationFunction = ACTIVATIONS[act]
    opts.keepNumDims = keep_dims
    o.builtinOptions = opts
    g.operators = [o]
    data = build(m, g, fb.BuiltinOperator.FULLY_CONNECTED)
    interp = runtime.Interpreter.from_bytes(data, arena_size=64 * 1024 + 8 * x.size)
    interp.set_input(x, 0)
    interp.invoke()
    return np.asarray(interp.get_output(0)).reshape(-1)


def batch_matmul(a, b, qa, qb, qo):
    """TFLM's BATCH_MATMUL of a [..., m, k] and b [..., k, n], both inputs."""
    out_shape = list(np.broadcast_shapes(a.shape[:-2], b.shape[:-2])) + [a.shape[-2], b.shape[-1]]
    m = fb.ModelT()
    m.version = 3
    m.buffers = [buffer() for _ in range(4)]
    g = fb.SubGraphT()
    g.tensors = [
        tensor("a", a.shape, [qa[0]], [qa[1]], 1),
        tensor("b", b.shape, [qb[0]], [qb[1]], 2),
        tensor("out", out_shape, [qo[0]], [qo[1]], 3),
    ]
    g.inputs = [0, 1]
    g.outputs = [2]
    o = fb.OperatorT()
    o.opcodeIndex = 0
    o.inputs = [0, 1]
    o.outputs = [2]
    o.builtinOptionsType = fb.BuiltinOptions.BatchMatMulOptions
    o.builtinOptions = fb.BatchMatMulOptionsT()
    g.operators = [o]
    data = build(m, g, fb.BuiltinOperator.BATCH_MATMUL)
    size = 64 * 1024 + 8 * (a.size + b.size + math.prod(out_shape))
    interp = runtime.Interpreter.from_bytes(data, arena_size=size)
    interp.set_input(a, 0)
    interp.set_input(b, 1)
    interp.invoke()
    return np.asarray(interp.get_output(0)).reshape(-1), out_shape


def dims(s):
    return "x".join(map(str, s)) if len(s) else "-"


def generate(op, seed):
    rng = random.Random(seed)
    lines, outputs, total, n_case = [], [], 0, 0
    while total < OUTPUTS[op]:
        seed_a, seed_b = 2 * n_case + 1, 2 * n_case + 2
        scale = lambda lo, hi: f32(10 ** rng.uniform(lo, hi))
        zp = lambda: rng.randint(-128, 127)
        qa, qo = (scale(-3, 0), zp()), (scale(-2, 1), zp())
        if op == "batch_matmul":
            mm, k, nn = rng.randint(1, 8), rng.randint(1, 24), rng.randint(1, 8)
            batch = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
            ba = [d if rng.random() < 0.7 else 1 for d in batch][rng.randint(0, len(batch)):]
            bb = [d if rng.random() < 0.7 else 1 for d in batch][rng.randint(0, len(batch)):]
            sa, sb = ba + [mm, k], bb + [k, nn]
            qb = (scale(-3, 0), zp())
            a = xorshift_bytes(seed_a, math.prod(sa)).reshape(sa)
            b = xorshift_bytes(seed_b, math.prod(sb)).reshape(sb)
            y, so = batch_matmul(a, b, qa, qb, qo)
            lines.append(
                f"{dims(sa)} {dims(sb)} {dims(so)} {bits(qa[0]):08x} {qa[1]} {bits(qb[0]):08x} "
                f"{qb[1]} {bits(qo[0]):08x} {qo[1]} none {seed_a} {seed_b}"
            )
        else:
            per_channel = op == "fully_connected_per_channel"
            nn = rng.choice(PER_CHANNEL_COLUMNS) if per_channel else rng.randint(1, 40)
            k = rng.randint(1, 64)
            keep_dims = rng.random() < 0.3
            lead = [rng.randint(1, 6)] + ([rng.randint(1, 4)] if keep_dims and rng.random() < 0.5 else [])
            sx, sw = lead + [k], [nn, k]
            w_scales = [scale(-4, -1) for _ in range(nn)] if per_channel else [scale(-4, -1)]
            act = rng.choice(list(ACTIVATIONS))
            x = xorshift_bytes(seed_a, math.prod(sx)).reshape(sx)
            w = xorshift_bytes(seed_b, math.prod(sw)).reshape(sw)
            bias = None
            if rng.random() < 0.8:
                bias = np.array([rng.randint(-(1 << 16), 1 << 16) for _ in range(nn)], np.int32)
            y = fully_connected(x, w, bias, qa, w_scales, 0, qo, act, keep_dims)
            so = list(x.shape[:-1]) + [nn] if keep_dims else [x.size // k, nn]
            bias_text = ",".join(str(v) for v in bias) if bias is not None else "-"
            scales_text = ",".join(f"{bits(s):08x}" for s in w_scales)
            lines.append(
                f"{dims(sx)} {dims(sw)} {dims(so)} {bits(qa[0]):08x} {qa[1]} {scales_text} 0 "
                f"{bits(qo[0]):08x} {qo[1]} {act} {seed_a} {seed_b} {bias_text}"
            )
        assert y.size == math.prod(so)
        outputs.append(y.astype(np.int8).tobytes())
        total += y.size
        n_case += 1
    header = {
        "batch_matmul": "# BATCH_MATMUL by TFLM (the tflite-micro package), double rounding.\n"
        "# shape_a shape_b shape_out scale_a zp_a scale_b zp_b scale_out zp_out activation "
        "seed_a seed_b; scales as f32 bits in hex; outputs in the .bin file, in case order.\n",
    }.get(op, f"# {op.upper()} by TFLM (the tflite-micro package), double rounding.\n"
        "# shape_x shape_w shape_out scale_x zp_x weight_scales(comma) zp_w scale_out zp_out "
        "activation seed_x seed_w bias(comma, or -); scales as f32 bits in hex; outputs in "
        "the .bin file, in case order.\n")
    with open(os.path.join(HERE, f"tflm_{op}.txt"), "w") as f:
        f.write(header + "\n".join(lines) + "\n")
    with open(os.path.join(HERE, f"tflm_{op}.bin"), "wb") as f:
        f.write(b"".join(outputs))
    print(op, n_case, "cases", total, "outputs", file=sys.stderr)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    for seed, op in enumerate(["fully_connected", "fully_connected_per_channel",
                               "batch_matmul"], start=60):
        generate(op, seed)
