#!/usr/bin/env python3
"""Expected outputs of int8 SOFTMAX, LOGISTIC, TANH, MEAN, PAD/PADV2 and CONCATENATION,
computed by TensorFlow Lite Micro itself.

Each case is a single-op model built here as a .tflite flatbuffer and run by the
`tflite-micro` Python package's interpreter: TFLM's reference kernels as shipped (double
rounding). What TFLM requires of the quantization parameters, checked in its Prepare
functions (a model that breaks a rule fails to allocate) or found by running it:

- SOFTMAX: the output's scale must be exactly 1/256 (as f32) and its zero point -128; the
  input's zero point plays no part (the kernel works on differences from the row's maximum).
  The rows are the last axis; the cases are rank 2, [rows, 1..64], with beta 1.0 in half of
  them and other betas in the rest.
- LOGISTIC: the output's zero point must be -128; its scale is not checked and not used (the
  kernel's output means 1/256 whatever the model says), so the cases write 1/256.
- TANH: the output's scale and zero point are neither checked nor used (the output means
  1/128 and zero point 0), so the cases write those.
- MEAN: input and output parameters may differ (one multiplier, input_scale / output_scale);
  TFLM folds the division by the count n of averaged elements into that multiplier:
  multiplier' = (multiplier << s) / n (integer division) and shift' = shift - s, with
  s = min(floor(log2 n), 32, 31 + shift), then output = zp_out + MultiplyByQuantizedMultiplier(
  sum - zp_in * n, multiplier', shift'), clamped to int8. The cases reduce axes [1, 2] of an
  NHWC tensor, keep_dims true ([N, 1, 1, C]) or false ([N, C]).
- PAD and PADV2: the paddings must be a constant tensor and non-negative; the input's bytes
  are copied unchanged, with no requantization even when the input's parameters differ from
  the output's (so the cases use equal ones). PAD fills with the output's zero point; PADV2
  fills with its constant_values byte, which must be an int8 tensor with exactly the output's
  scale and zero point.
- CONCATENATION: TFLM does not requantize: every int8 input must have exactly the output's
  scale and zero point (and the activation must be none); the output is the inputs' bytes
  placed side by side. The cases give every input the output's parameters (written per input
  all the same) and join 2-4 inputs along axis 3 (channels) or along axis 0, 1 or 2.

The inputs are not stored: they come from the same 32-bit xorshift generator as
tflm_elementwise.py (and tests/common/tflm.rs), seeded per case; seed 0 means every value
-128..127 in order (the LOGISTIC and TANH cases, each on all 256 input bytes).

    python3 -m venv venv && venv/bin/pip install tflite-micro numpy
    venv/bin/python tests/reference/tflm_activations.py

writes tests/reference/tflm_{softmax,logistic,tanh,mean,pad,concatenation}.txt (one case per
line) and .bin (every case's outputs, concatenated in case order, as int8 bytes);
tests/common/tflm_conv.rs reads them.
"""

import math
import os
import random
import sys

import numpy as np

from tflm_conv import bits, buffer, build, dims, f32, fb, run, tensor
from tflm_elementwise import xorshift_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
I8, I32 = fb.TensorType.INT8, fb.TensorType.INT32
B = fb.BuiltinOperator
OUTPUTS = 100_000


def every_byte():
    return np.arange(-128, 128, dtype=np.int8)


def inputs(seed, shape):
    if seed == 0:
        return np.resize(every_byte(), math.prod(shape)).reshape(shape)
    return xorshift_bytes(seed, math.prod(shape)).reshape(shape)


def unary(code, x, qi, qo, options_type=None, options=None):
    model = build([tensor("x", x.shape, 1, I8, [qi[0]], [qi[1]]),
                   tensor("out", x.shape, 2, I8, [qo[0]], [qo[1]])],
                  [buffer(), buffer()], [0], [1], [0], code, options_type, options)
    return run(model, [x], 2 * x.size)


def q_line(q):
    return f"{bits(q[0]):08x} {q[1]}"


def write(name, header, lines, outputs):
    with open(os.path.join(HERE, f"tflm_{name}.txt"), "w") as f:
        f.write(header + "\n".join(lines) + "\n")
    with open(os.path.join(HERE, f"tflm_{name}.bin"), "wb") as f:
        f.write(b"".join(o.astype(np.int8).tobytes() for o in outputs))
    print(name, len(lines), "cases", sum(o.size for o in outputs), "outputs", file=sys.stderr)


def softmax(seed):
    rng = random.Random(seed)
    lines, outputs, total, n = [], [], 0, 0
    while total < OUTPUTS:
        shape = [rng.randint(1, 32), rng.randint(1, 64)]
        qi = (f32(10 ** rng.uniform(-3, 0)), rng.randint(-128, 127))
        qo = (f32(1 / 256), -128)
        if n % 2 == 0:
            beta = 1.0
        else:
            beta = f32(rng.choice([0.5, 2.0, 0.1, 10 ** rng.uniform(-1, 1)]))
        x = inputs(n + 1, shape)
        opts = fb.SoftmaxOptionsT()
        opts.beta = beta
        y = unary(B.SOFTMAX, x, qi, qo, fb.BuiltinOptions.SoftmaxOptions, opts)
        lines.append(f"{dims(shape)} {q_line(qi)} {bits(beta):08x} {q_line(qo)} {n + 1}")
        outputs.append(y)
        total += y.size
        n += 1
    write("softmax", "# SOFTMAX by TFLM (the tflite-micro package), int8.\n"
          "# shape scale_in zp_in beta scale_out zp_out seed; scales and beta as f32 bits "
          "in hex; softmax along the last axis; outputs in the .bin file, in case order.\n",
          lines, outputs)


def logistic_tanh(op, seed):
    """Every input byte, for power-of-two input scales and random ones, random zero points."""
    rng = random.Random(seed)
    code, qo = {"logistic": (B.LOGISTIC, (f32(1 / 256), -128)),
                "tanh": (B.TANH, (f32(1 / 128), 0))}[op]
    scales = [f32(2.0 ** -k) for k in range(0, 13)]
    lines, outputs, total = [], [], 0
    while total < OUTPUTS:
        i = len(lines)
        scale = scales[i] if i < len(scales) else f32(10 ** rng.uniform(-3, 0))
        zp = 0 if i < len(scales) else rng.randint(-128, 127)
        qi = (scale, zp)
        y = unary(code, every_byte(), qi, qo)
        lines.append(f"256 {q_line(qi)} {q_line(qo)} 0")
        outputs.append(y)
        total += y.size
    write(op, f"# {op.upper()} by TFLM (the tflite-micro package), int8.\n"
          "# shape scale_in zp_in scale_out zp_out seed; scales as f32 bits in hex; seed 0 is "
          "every input value -128..127 in order; outputs in the .bin file, in case order.\n",
          lines, outputs)


def mean(seed):
    rng = random.Random(seed)
    lines, outputs, total, n = [], [], 0, 0
    while total < OUTPUTS:
        shape = [rng.randint(1, 4), rng.randint(1, 16), rng.randint(1, 16), rng.randint(1, 64)]
        keep = rng.random() < 0.5
        qi = (f32(10 ** rng.uniform(-3, 0)), rng.randint(-128, 127))
        if rng.random() < 0.3:
            qo = qi
        else:
            qo = (f32(qi[0] * 10 ** rng.uniform(-1, 1)), rng.randint(-128, 127))
        out_shape = [shape[0], 1, 1, shape[3]] if keep else [shape[0], shape[3]]
        axes = np.array([1, 2], np.int32)
        x = inputs(n + 1, shape)
        opts = fb.ReducerOptionsT()
        opts.keepDims = keep
        model = build([tensor("x", shape, 1, I8, [qi[0]], [qi[1]]),
                       tensor("axes", [2], 2, I32),
                       tensor("out", out_shape, 3, I8, [qo[0]], [qo[1]])],
                      [buffer(), buffer(axes), buffer()], [0], [2], [0, 1], B.MEAN,
                      fb.BuiltinOptions.ReducerOptions, opts)
        y = run(model, [x], x.size)
        assert y.size == math.prod(out_shape)
        lines.append(f"{dims(shape)} {dims(out_shape)} 1,2 {int(keep)} {q_line(qi)} "
                     f"{q_line(qo)} {n + 1}")
        outputs.append(y)
        total += y.size
        n += 1
    write("mean", "# MEAN by TFLM (the tflite-micro package), int8.\n"
          "# input_shape output_shape axes(comma) keep_dims(0/1) scale_in zp_in scale_out "
          "zp_out seed; scales as f32 bits in hex; outputs in the .bin file, in case order.\n",
          lines, outputs)


def pad(seed):
    rng = random.Random(seed)
    lines, outputs, total, n = [], [], 0, 0
    while total < OUTPUTS:
        shape = [rng.randint(1, 2), rng.randint(1, 8), rng.randint(1, 8), rng.randint(1, 8)]
        image_style = rng.random() < 0.4
        paddings = [[rng.randint(0, 3), rng.randint(0, 3)] for _ in range(4)]
        if image_style:
            # Batch and channels unpadded (TFLM's "image style" resize category).
            paddings[0] = paddings[3] = [0, 0]
        out_shape = [s + b + a for s, (b, a) in zip(shape, paddings)]
        q = (f32(10 ** rng.uniform(-3, 0)), rng.randint(-128, 127))
        v2 = rng.random() < 0.5
        constant = rng.randint(-128, 127) if v2 else None
        x = inputs(n + 1, shape)
        tensors = [tensor("x", shape, 1, I8, [q[0]], [q[1]]),
                   tensor("paddings", [4, 2], 2, I32),
                   tensor("out", out_shape, 3, I8, [q[0]], [q[1]])]
        buffers = [buffer(), buffer(np.array(paddings, np.int32)), buffer()]
        op_inputs = [0, 1]
        if v2:
            tensors.append(tensor("constant", [], 4, I8, [q[0]], [q[1]]))
            buffers.append(buffer(np.array([constant], np.int8)))
            op_inputs.append(3)
            code, opts_type, opts = B.PADV2, fb.BuiltinOptions.PadV2Options, fb.PadV2OptionsT()
        else:
            code, opts_type, opts = B.PAD, fb.BuiltinOptions.PadOptions, fb.PadOptionsT()
        model = build(tensors, buffers, [0], [2], op_inputs, code, opts_type, opts)
        y = run(model, [x], x.size + math.prod(out_shape))
        fill = constant if v2 else q[1]
        assert (y == np.pad(x, paddings, constant_values=fill).reshape(-1)).all()
        pads = ",".join(str(p) for pair in paddings for p in pair)
        lines.append(f"{'padv2' if v2 else 'pad'} {dims(shape)} {dims(out_shape)} {pads} "
                     f"{q_line(q)} {q_line(q)} {constant if v2 else '-'} {n + 1}")
        outputs.append(y)
        total += y.size
        n += 1
    write("pad", "# PAD and PADV2 by TFLM (the tflite-micro package), int8.\n"
          "# op(pad/padv2) input_shape output_shape paddings(comma: before,after per axis, "
          "axes 0-3) scale_in zp_in scale_out zp_out constant(padv2's constant_values byte, or "
          "- for pad, which fills with zp_out) seed; scales as f32 bits in hex; outputs in the "
          ".bin file, in case order.\n", lines, outputs)


def concatenation(seed):
    rng = random.Random(seed)
    lines, outputs, total, n, next_seed = [], [], 0, 0, 1
    while total < OUTPUTS:
        base = [rng.randint(1, 2), rng.randint(1, 8), rng.randint(1, 8), rng.randint(1, 16)]
        axis = 3 if rng.random() < 0.5 else rng.randint(0, 2)
        count = rng.randint(2, 4)
        shapes = []
        for _ in range(count):
            s = list(base)
            s[axis] = rng.randint(1, 8)
            shapes.append(s)
        out_shape = list(base)
        out_shape[axis] = sum(s[axis] for s in shapes)
        q = (f32(10 ** rng.uniform(-3, 0)), rng.randint(-128, 127))
        seeds = list(range(next_seed, next_seed + count))
        next_seed += count
        xs = [inputs(sd, s) for sd, s in zip(seeds, shapes)]
        tensors = [tensor(f"x{i}", s, i + 1, I8, [q[0]], [q[1]]) for i, s in enumerate(shapes)]
        tensors.append(tensor("out", out_shape, count + 1, I8, [q[0]], [q[1]]))
        opts = fb.ConcatenationOptionsT()
        opts.axis = axis
        model = build(tensors, [buffer() for _ in range(count + 1)], list(range(count)),
                      [count], list(range(count)), B.CONCATENATION,
                      fb.BuiltinOptions.ConcatenationOptions, opts)
        y = run(model, xs, 2 * math.prod(out_shape))
        assert y.size == math.prod(out_shape)
        assert (y == np.concatenate(xs, axis).reshape(-1)).all()
        lines.append(
            f"{','.join(dims(s) for s in shapes)} "
            f"{','.join(f'{bits(q[0]):08x}' for _ in shapes)} "
            f"{','.join(str(q[1]) for _ in shapes)} {dims(out_shape)} {q_line(q)} {axis} "
            f"{','.join(map(str, seeds))}")
        outputs.append(y)
        total += y.size
        n += 1
    write("concatenation", "# CONCATENATION by TFLM (the tflite-micro package), int8.\n"
          "# input_shapes(comma) scales_in(comma) zps_in(comma) output_shape scale_out zp_out "
          "axis seeds(comma, one per input); scales as f32 bits in hex; TFLM requires every "
          "input's parameters to be the output's; outputs in the .bin file, in case order.\n",
          lines, outputs)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    softmax(100)
    logistic_tanh("logistic", 101)
    logistic_tanh("tanh", 102)
    mean(103)
    pad(104)
    concatenation(105)
