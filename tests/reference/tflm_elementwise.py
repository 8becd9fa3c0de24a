#!/usr/bin/env python3
"""Expected outputs of int8 ADD and MUL, computed by TensorFlow Lite Micro itself.

Each case is a single-op model (ADD or MUL, int8 in and out, per-tensor scales and zero
points, a fused activation) built here as a .tflite flatbuffer and run by the `tflite-micro`
Python package's interpreter, which runs TFLM's reference kernels as shipped (double
rounding). TFLM broadcasts ADD up to rank 6 and MUL up to rank 4; a case within that rank
runs as it is, with TFLM doing the broadcast; a case of higher rank runs as two same-shape
1-D tensors holding the broadcast operands (numpy spells out the broadcast, TFLM computes
every element), so every output byte below comes from TFLM's kernel.

The inputs are not stored: they come from a 32-bit xorshift generator seeded per case (the
same few lines in tests/quantized_tflm.rs), so the data files hold parameters and outputs;
seed 0 means every input value (a = -128..127 as a column, b as a row).

    python3 -m venv venv && venv/bin/pip install tflite-micro numpy
    venv/bin/python tests/reference/tflm_elementwise.py

writes tests/reference/tflm_{add,mul}.txt (one case per line), tflm_{add,mul}.bin (the
outputs of every case, concatenated, as int8 bytes) and tflm_ties.txt (small vectors whose
every step meets a tie, written out by value).
"""

import math
import os
import random
import sys

import flatbuffers
import numpy as np
from tflite_micro.python.tflite_micro import runtime
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as fb

HERE = os.path.dirname(os.path.abspath(__file__))
ACTIVATIONS = {"none": 0, "relu": 1, "relu_n1_to_1": 2, "relu6": 3}
# The broadcast rank TFLM handles for each op; above it a case runs flattened.
TFLM_BROADCAST_RANK = {"add": 6, "mul": 4, "sub": 4, "maximum": 4, "minimum": 4}
COMPARISONS = {
    "equal": "EQUAL",
    "not_equal": "NOT_EQUAL",
    "less": "LESS",
    "less_equal": "LESS_EQUAL",
    "greater": "GREATER",
    "greater_equal": "GREATER_EQUAL",
}
for _name in COMPARISONS:
    TFLM_BROADCAST_RANK[_name] = 4
# Outputs per op: the 10^6 for add and mul, fewer for the rest.
OUTPUTS = {"add": 1_000_000, "mul": 1_000_000, "sub": 200_000, "maximum": 50_000,
           "minimum": 50_000, "requantize": 100_000}
for _name in COMPARISONS:
    OUTPUTS[_name] = 50_000


def xorshift_bytes(seed, n):
    """`n` int8 values from xorshift32 (13, 17, 5) started at `seed` (non-zero): each value
    is the low byte of the state after one step, as two's complement."""
    x = seed & 0xFFFFFFFF
    out = np.empty(n, dtype=np.int8)
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        b = x & 0xFF
        out[i] = b - 256 if b > 127 else b
    return out


def tensor(name, shape, scale, zero_point, buffer, ty=fb.TensorType.INT8):
    t = fb.TensorT()
    t.name = name
    t.shape = list(shape)
    t.type = ty
    t.buffer = buffer
    if scale is not None:
        q = fb.QuantizationParametersT()
        q.scale = [float(np.float32(scale))]
        q.zeroPoint = [int(zero_point)]
        t.quantization = q
    return t


def model(op, shape_a, shape_b, shape_o, qa, qb, qo, activation, out_type=fb.TensorType.INT8):
    m = fb.ModelT()
    m.version = 3
    code = fb.OperatorCodeT()
    builtin = COMPARISONS.get(op, {"requantize": "QUANTIZE"}.get(op, op.upper()))
    code.builtinCode = getattr(fb.BuiltinOperator, builtin)
    code.deprecatedBuiltinCode = min(code.builtinCode, 127)
    code.version = 1
    m.operatorCodes = [code]
    m.buffers = [fb.BufferT() for _ in range(4)]
    g = fb.SubGraphT()
    if op in COMPARISONS:
        out = tensor("out", shape_o, None, None, 3, fb.TensorType.BOOL)
    else:
        out = tensor("out", shape_o, *qo, 3, out_type)
    unary = op == "requantize"
    g.tensors = [tensor("a", shape_a, *qa, 1)] + ([] if unary else [tensor("b", shape_b, *qb, 2)]) + [out]
    g.inputs = [0] if unary else [0, 1]
    g.outputs = [len(g.tensors) - 1]
    o = fb.OperatorT()
    o.opcodeIndex = 0
    o.inputs = list(g.inputs)
    o.outputs = list(g.outputs)
    options = {"add": "AddOptions", "mul": "MulOptions", "sub": "SubOptions"}
    if op in options:
        o.builtinOptionsType = getattr(fb.BuiltinOptions, options[op])
        opts = getattr(fb, options[op] + "T")()
        opts.fusedActivationFunction = ACTIVATIONS[activation]
        o.builtinOptions = opts
    g.operators = [o]
    m.subgraphs = [g]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def run_tflm(op, a, b, out_shape, qa, qb, qo, activation, out_type=fb.TensorType.INT8):
    data = model(op, a.shape, b.shape if b is not None else None, out_shape, qa, qb, qo,
                 activation, out_type)
    size = 64 * 1024 + 4 * a.size + (4 * b.size if b is not None else 0)
    interp = runtime.Interpreter.from_bytes(data, arena_size=size)
    interp.set_input(a, 0)
    if b is not None:
        interp.set_input(b, 1)
    interp.invoke()
    y = np.asarray(interp.get_output(0))
    return y.astype(np.uint8) if y.dtype != np.int8 else y


def random_case(rng, op, tie_heavy):
    rank = rng.randint(0, 8)
    target = rng.choice([1, 16, 256, 2048, 8192])
    out = [1] * rank
    while out and math.prod(out) < target:
        i = rng.randrange(rank)
        out[i] += max(1, out[i] // 2)
    if rng.random() < 0.03 and out:
        out[rng.randrange(len(out))] = 0
    def operand():
        drop = rng.randint(0, len(out))
        dims = [d if rng.random() < 0.7 else 1 for d in out[drop:]]
        return dims
    sa, sb = operand(), operand()
    # The output shape is the broadcast of the two (a dim dropped by both becomes theirs).
    shape_o = list(np.broadcast_shapes(tuple(sa), tuple(sb)))
    if tie_heavy:
        base = 2.0 ** rng.randint(-12, -1)
        sa_, sb_ = base * 2.0 ** rng.randint(-3, 3), base * 2.0 ** rng.randint(-3, 3)
        so_ = base * 2.0 ** rng.randint(-3, 3)
    else:
        sa_, sb_, so_ = (10 ** rng.uniform(-4, 0) for _ in range(3))
    zp = lambda: rng.randint(-128, 127)
    qa, qb, qo = (float(np.float32(sa_)), zp()), (float(np.float32(sb_)), zp()), (float(np.float32(so_)), zp())
    act = rng.choice(list(ACTIVATIONS))
    return sa, sb, shape_o, qa, qb, qo, act


# Parameters where deriving the add's multipliers in f32 (as TFLM's SUB does) or the
# subtract's in f64 (as its ADD does) changes some outputs (found by a search over random
# scales); each runs on every pair of inputs: seeds 0, a = [-128..127] as [256, 1], b the same
# as [1, 256].
DERIVATION_CASES = [
    ((0.006300545297563076, 34), (0.0017911149188876152, 105), (0.00017859083891380578, -71)),
    ((0.03479592502117157, 124), (0.001456418540328741, 112), (0.1474820077419281, -50)),
    ((0.0364268496632576, 80), (0.039353352040052414, -49), (0.03301424905657768, 75)),
]


def generate(op, seed):
    rng = random.Random(seed)
    lines, outputs, total, n = [], [], 0, 0
    while total < OUTPUTS[op]:
        tie_heavy = n % 4 == 3
        sa, sb, so, qa, qb, qo, act = random_case(rng, op, tie_heavy)
        out_type = fb.TensorType.INT8
        if op in ("maximum", "minimum"):
            # TFLM compares the stored integers: the inputs share their parameters.
            qb = qo = qa
            act = "none"
        if op in COMPARISONS:
            # TFLM rescales each input by its scale, which must be below 1.
            qa, qb = (min(qa[0], 0.99), qa[1]), (min(qb[0], 0.99), qb[1])
            qo, act = (1.0, 0), "none"
        if op == "requantize":
            sb, so, act = [], sa, "none"
            if rng.random() < 0.5:
                out_type = fb.TensorType.UINT8
                qo = (qo[0], qo[1] + 128)
        seed_a, seed_b = 2 * n + 1, 2 * n + 2
        a = xorshift_bytes(seed_a, math.prod(sa)).reshape(sa)
        b = xorshift_bytes(seed_b, math.prod(sb)).reshape(sb)
        if op == "requantize":
            how = "tflm"
            fa = a.reshape(-1)
            y = run_tflm(op, fa, None, [fa.size], qa, None, qo, act, out_type) if fa.size else np.empty(0, np.int8)
        elif len(so) <= TFLM_BROADCAST_RANK[op] and math.prod(so) > 0:
            how = "tflm-broadcast"
            y = run_tflm(op, a, b, so, qa, qb, qo, act).reshape(-1)
        else:
            how = "tflm-flat"
            fa = np.ascontiguousarray(np.broadcast_to(a, so)).reshape(-1)
            fb_ = np.ascontiguousarray(np.broadcast_to(b, so)).reshape(-1)
            y = run_tflm(op, fa, fb_, [fa.size], qa, qb, qo, act) if fa.size else np.empty(0, np.int8)
        assert y.size == math.prod(so)
        dims = lambda s: "x".join(map(str, s)) if s else "-"
        bits = lambda v: np.float32(v).view(np.uint32).item()
        kind = "u8" if out_type == fb.TensorType.UINT8 else "i8"
        lines.append(
            f"{dims(sa)} {dims(sb)} {dims(so)} {bits(qa[0]):08x} {qa[1]} {bits(qb[0]):08x} "
            f"{qb[1]} {bits(qo[0]):08x} {qo[1]} {act} {seed_a} {seed_b} {how} {kind}"
        )
        outputs.append(y.astype(np.uint8).tobytes())
        total += y.size
        n += 1
    for qa, qb, qo in DERIVATION_CASES if op in ("add", "sub") else []:
        a = np.arange(-128, 128, dtype=np.int8).reshape(256, 1)
        b = a.reshape(1, 256)
        y = run_tflm(op, a, b, [256, 256], qa, qb, qo, "none").reshape(-1)
        bits = lambda v: np.float32(v).view(np.uint32).item()
        lines.append(
            f"256x1 1x256 256x256 {bits(qa[0]):08x} {qa[1]} {bits(qb[0]):08x} {qb[1]} "
            f"{bits(qo[0]):08x} {qo[1]} none 0 0 tflm-broadcast i8"
        )
        outputs.append(y.astype(np.uint8).tobytes())
    header = (
        f"# {op.upper()} by TFLM ({runtime.__name__}, the tflite-micro package), double rounding.\n"
        "# shape_a shape_b shape_out scale_a zp_a scale_b zp_b scale_out zp_out activation "
        "seed_a seed_b how out_type; scales as f32 bits in hex, '-' is rank 0; outputs in the "
        ".bin file, in case order (bool outputs as 0 and 1).\n"
    )
    with open(os.path.join(HERE, f"tflm_{op}.txt"), "w") as f:
        f.write(header + "\n".join(lines) + "\n")
    with open(os.path.join(HERE, f"tflm_{op}.bin"), "wb") as f:
        f.write(b"".join(outputs))
    print(op, n, "cases", total, "outputs", file=sys.stderr)


# Hand-checkable ties (tests/quantized.rs asserts them by value): scales that are powers of two
# put exact halves in front of each rounding step.
TIE_VECTORS = [
    ("add", (1.0, 0), (1.0, 0), (2.0, 0), [-3, -1, 1, 3, -5, 5], [0, 0, 0, 0, 0, 0]),
    ("add", (0.5, 0), (0.25, 0), (1.0, 0), [-1, 1, -3, 3, 1, -1], [0, 0, 0, 0, 2, -2]),
    ("mul", (1.0, 0), (1.0, 0), (4.0, 0), [-3, -2, -1, 1, 2, 3], [1, 1, 1, 1, 1, 1]),
    ("mul", (1.0, 0), (1.0, 0), (2.0, 0), [-3, -1, 1, 3, -5, 5], [1, 1, 1, 1, 1, 1]),
]


def ties():
    lines = ["# op scale_a zp_a scale_b zp_b scale_out zp_out a... | b... | TFLM's outputs"]
    for op, qa, qb, qo, a, b in TIE_VECTORS:
        a_, b_ = np.array(a, np.int8), np.array(b, np.int8)
        y = run_tflm(op, a_, b_, [len(a)], qa, qb, qo, "none")
        fmt = lambda v: " ".join(str(int(x)) for x in v)
        lines.append(
            f"{op} {qa[0]} {qa[1]} {qb[0]} {qb[1]} {qo[0]} {qo[1]} {fmt(a)} | {fmt(b)} | {fmt(y)}"
        )
    with open(os.path.join(HERE, "tflm_ties.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    ties()
    for seed, op in enumerate(["add", "mul", "sub", "maximum", "minimum", "requantize",
                               *COMPARISONS], start=36):
        generate(op, seed)
