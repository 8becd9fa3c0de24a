#!/usr/bin/env python3
"""Expected outputs of CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D (int8 and
f32), computed by TensorFlow Lite Micro itself.

Each case is a single-op model built here as a .tflite flatbuffer (filter and bias as
constant buffers, as a converter writes them) and run by the `tflite-micro` Python package's
interpreter: TFLM's reference kernels as shipped (the int8 convolutions are the per-channel
kernels, with double rounding).

- int8 CONV_2D: input NHWC int8 with one scale and zero point, filter [OC, KH, KW, IC] int8
  quantized per output channel (quantized_dimension 0, one scale per OC, zero points 0), bias
  int32 [OC] (scale input_scale * weight_scale[j], zero point 0) or no bias, output int8 with
  one scale and zero point.
- int8 DEPTHWISE_CONV_2D: filter [1, KH, KW, IC * M] quantized along axis 3
  (quantized_dimension 3), output channel ic * M + m, depth multiplier M in 1..4. A
  DEPTHWISE_CONV_2D without bias is written with two operator inputs: with the optional bias
  given as -1 (as CONV_2D takes it) this TFLM build crashes in Prepare (it releases the absent
  bias tensor).
- int8 AVERAGE_POOL_2D and MAX_POOL_2D: TFLM requires the output's scale to be the input's
  (within 1e-6) and its zero point to be the input's (PoolingPrepare fails otherwise), so the
  two are written equal. Average pooling sums the stored int8 values of the window's cells
  that lie inside the input (padding cells are not counted), then divides by that count,
  rounding half away from zero: (sum +- count / 2) / count, truncating.
- f32 versions of the four ops (TFLM's float kernels): inputs and weights are the generator's
  int8 values divided by 32, so every product and every partial sum of a window is exact in
  f32 (whatever the order); a conv output rounds once, when the bias is added (biases are
  arbitrary f32 values, written as their bits); an average pool output rounds once, in the
  division by the count of the window's cells inside the input.

Output sizes and padding are TFLM's (tensorflow/lite/kernels/padding.h): with the effective
filter size e = (k - 1) * dilation + 1, SAME gives out = ceil(in / stride) and VALID gives
out = floor((in - e) / stride) + 1; the padding before is total / 2 with total =
max(0, (out - 1) * stride + e - in), the odd cell going after (at the bottom and right).
Padded cells take no part in the sum: an int8 convolution skips them, which is padding with
the input's zero point. TFLM rejects no stride, dilation or padding: it never checks the
model's output shape against its own computation (a wrong output shape runs, with windows
clipped to the input), so the script computes the shape. A VALID case whose effective filter
is larger than the input has an empty output (TFLite's rule gives out = 0), and TFLM cannot
allocate a zero-size output tensor ("dynamic tensors are not supported"): such draws are
skipped and never written.

The inputs and filters are not stored: they come from the same 32-bit xorshift generator as
tflm_elementwise.py (and tests/common/tflm.rs), seeded per case; biases and per-channel
scales are short and stored in the case line.

    python3 -m venv venv && venv/bin/pip install tflite-micro numpy
    venv/bin/python tests/reference/tflm_conv.py

writes tests/reference/tflm_{conv2d,depthwise_conv2d,average_pool2d,max_pool2d}.txt and
.bin (int8 outputs, as bytes) and the same names with `_f32` (outputs as little-endian f32),
one case per line in the .txt and every case's outputs, concatenated in case order, in the
.bin; tests/common/tflm_conv.rs reads them.
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
PADDING = {"same": fb.Padding.SAME, "valid": fb.Padding.VALID}
OPS = {
    "conv2d": fb.BuiltinOperator.CONV_2D,
    "depthwise_conv2d": fb.BuiltinOperator.DEPTHWISE_CONV_2D,
    "average_pool2d": fb.BuiltinOperator.AVERAGE_POOL_2D,
    "max_pool2d": fb.BuiltinOperator.MAX_POOL_2D,
}
# Outputs per op (at least; the last case overshoots).
OUTPUTS_INT8 = 100_000
OUTPUTS_F32 = 20_000


def f32(x):
    return float(np.float32(x))


def bits(x):
    return np.float32(x).view(np.uint32).item()


def dims(s):
    return "x".join(map(str, s)) if len(s) else "-"


def tensor(name, shape, buffer, ty, scales=None, zero_points=None, axis=0):
    t = fb.TensorT()
    t.name = name
    t.shape = list(shape)
    t.type = ty
    t.buffer = buffer
    if scales is not None:
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


def build(tensors, buffers, inputs, outputs, op_inputs, code, options_type, options):
    """A one-operator model: `tensors` (buffer 0 is the empty one), the graph's inputs and
    outputs, and the operator's inputs (-1 for an absent optional one)."""
    m = fb.ModelT()
    m.version = 3
    c = fb.OperatorCodeT()
    c.builtinCode = code
    c.deprecatedBuiltinCode = min(code, 127)
    c.version = 1
    m.operatorCodes = [c]
    m.buffers = [buffer()] + buffers
    g = fb.SubGraphT()
    g.tensors = tensors
    g.inputs = inputs
    g.outputs = outputs
    o = fb.OperatorT()
    o.opcodeIndex = 0
    o.inputs = op_inputs
    o.outputs = outputs
    if options_type is not None:
        o.builtinOptionsType = options_type
        o.builtinOptions = options
    g.operators = [o]
    m.subgraphs = [g]
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def run(model, inputs, work):
    """Runs `model` on `inputs` and returns its output, flattened."""
    interp = runtime.Interpreter.from_bytes(model, arena_size=256 * 1024 + 16 * work)
    for i, x in enumerate(inputs):
        interp.set_input(x, i)
    interp.invoke()
    return np.asarray(interp.get_output(0)).reshape(-1)


def out_size(padding, size, k, stride, dilation):
    """TFLM's output size (ComputeOutSize), or None where the output is empty."""
    e = (k - 1) * dilation + 1
    n = (size + stride - 1) // stride if padding == "same" else (size - e) // stride + 1
    return n if n > 0 else None


def conv(op, x, w, bias, stride, dilation, padding, act, multiplier, q):
    """TFLM's CONV_2D or DEPTHWISE_CONV_2D of x (NHWC) and the constant filter w; `q` is None
    for f32, else (input params, weight scales, output params)."""
    n, h, wd, _ = x.shape
    _, kh, kw, _ = w.shape
    oh = out_size(padding, h, kh, stride[0], dilation[0])
    ow = out_size(padding, wd, kw, stride[1], dilation[1])
    oc = w.shape[0] if op == "conv2d" else w.shape[3]
    out_shape = [n, oh, ow, oc]
    if q is None:
        ty, bty = fb.TensorType.FLOAT32, fb.TensorType.FLOAT32
        tx = tensor("x", x.shape, 1, ty)
        tw = tensor("w", w.shape, 2, ty)
        tb = tensor("bias", [oc], 3, bty)
        to = tensor("out", out_shape, 4, ty)
    else:
        (sx, zx), w_scales, (so, zo) = q
        ty, bty = fb.TensorType.INT8, fb.TensorType.INT32
        axis = 0 if op == "conv2d" else 3
        tx = tensor("x", x.shape, 1, ty, [sx], [zx])
        tw = tensor("w", w.shape, 2, ty, w_scales, [0] * oc, axis)
        tb = tensor("bias", [oc], 3, bty, [f32(sx) * f32(s) for s in w_scales], [0] * oc)
        to = tensor("out", out_shape, 4, ty, [so], [zo])
    if op == "conv2d":
        opts = fb.Conv2DOptionsT()
        opts_type = fb.BuiltinOptions.Conv2DOptions
    else:
        opts = fb.DepthwiseConv2DOptionsT()
        opts_type = fb.BuiltinOptions.DepthwiseConv2DOptions
        opts.depthMultiplier = multiplier
    opts.padding = PADDING[padding]
    opts.strideH, opts.strideW = stride
    opts.dilationHFactor, opts.dilationWFactor = dilation
    opts.fusedActivationFunction = ACTIVATIONS[act]
    buffers = [buffer(), buffer(w), buffer(bias) if bias is not None else buffer(), buffer()]
    # Without a bias the operator has two inputs: TFLM's DEPTHWISE_CONV_2D crashes in Prepare
    # when the third is present as -1 (it releases the absent bias tensor).
    model = build([tx, tw, tb, to], buffers, [0], [3], [0, 1, 2] if bias is not None else [0, 1],
                  OPS[op], opts_type, opts)
    y = run(model, [x], x.size + math.prod(out_shape))
    assert y.size == math.prod(out_shape)
    return y, out_shape


def pool(op, x, k, stride, padding, act, q):
    """TFLM's AVERAGE_POOL_2D or MAX_POOL_2D of x (NHWC); `q` is None for f32, else the
    (scale, zero point) of both input and output."""
    n, h, wd, c = x.shape
    out_shape = [n, out_size(padding, h, k[0], stride[0], 1),
                 out_size(padding, wd, k[1], stride[1], 1), c]
    if q is None:
        ty, qp = fb.TensorType.FLOAT32, (None, None)
    else:
        ty, qp = fb.TensorType.INT8, ([q[0]], [q[1]])
    opts = fb.Pool2DOptionsT()
    opts.padding = PADDING[padding]
    opts.strideH, opts.strideW = stride
    opts.filterHeight, opts.filterWidth = k
    opts.fusedActivationFunction = ACTIVATIONS[act]
    model = build([tensor("x", x.shape, 1, ty, *qp), tensor("out", out_shape, 2, ty, *qp)],
                  [buffer(), buffer()], [0], [1], [0], OPS[op],
                  fb.BuiltinOptions.Pool2DOptions, opts)
    y = run(model, [x], x.size + math.prod(out_shape))
    assert y.size == math.prod(out_shape)
    return y, out_shape


def side(rng):
    """An input height or width: small ones (where kernels overhang) half the time."""
    return rng.randint(1, 6) if rng.random() < 0.5 else rng.randint(1, 20)


def window(rng, padding, h, w, dilated):
    """Kernel, stride and dilation for an input of h x w, or None where VALID would leave no
    output (the draw is skipped)."""
    k = [rng.randint(1, 5), rng.randint(1, 5)]
    stride = [rng.randint(1, 3), rng.randint(1, 3)]
    dilation = [1, 1]
    if dilated and rng.random() < 0.6:
        dilation = [rng.randint(1, 3), rng.randint(1, 3)]
    if padding == "valid" and rng.random() < 0.15:
        # A kernel exactly the input's size (one output row or column), where that fits.
        for i, s in enumerate((h, w)):
            if s <= 5 and dilation[i] == 1:
                k[i] = s
    for i, s in enumerate((h, w)):
        if out_size(padding, s, k[i], stride[i], dilation[i]) is None:
            return None
    return k, stride, dilation


def generate_conv(op, quantized, seed):
    rng = random.Random(seed)
    lines, outputs, total, n_case = [], [], 0, 0
    stats = {"same_kernel_over_input": 0, "valid_kernel_equals_input": 0}
    while total < (OUTPUTS_INT8 if quantized else OUTPUTS_F32):
        n, h, w = rng.randint(1, 2), side(rng), side(rng)
        ic = rng.randint(1, 24)
        padding = rng.choice(["same", "valid"])
        drawn = window(rng, padding, h, w, dilated=True)
        if drawn is None:
            continue
        k, stride, dilation = drawn
        act = rng.choice(list(ACTIVATIONS))
        if op == "conv2d":
            multiplier, oc = 1, rng.randint(1, 24)
            w_shape = [oc, k[0], k[1], ic]
        else:
            multiplier = rng.randint(1, 4)
            oc = ic * multiplier
            w_shape = [1, k[0], k[1], oc]
        seed_x, seed_w = 2 * n_case + 1, 2 * n_case + 2
        x = xorshift_bytes(seed_x, n * h * w * ic).reshape(n, h, w, ic)
        wt = xorshift_bytes(seed_w, math.prod(w_shape)).reshape(w_shape)
        has_bias = rng.random() < 0.8
        if quantized:
            scale = lambda lo, hi: f32(10 ** rng.uniform(lo, hi))
            zp = lambda: rng.randint(-128, 127)
            qx = (scale(-3, 0), zp())
            w_scales = [scale(-4, -1) for _ in range(oc)]
            qo = (scale(-2, 1), zp())
            bias = None
            if has_bias:
                bias = np.array([rng.randint(-(1 << 16), 1 << 16) for _ in range(oc)], np.int32)
            y, so = conv(op, x, wt, bias, stride, dilation, padding, act, multiplier,
                         (qx, w_scales, qo))
            bias_text = ",".join(str(v) for v in bias) if bias is not None else "-"
            params = (f"{bits(qx[0]):08x} {qx[1]} {','.join(f'{bits(s):08x}' for s in w_scales)} "
                      f"{bits(qo[0]):08x} {qo[1]} ")
            outputs.append(y.astype(np.int8).tobytes())
        else:
            bias = None
            if has_bias:
                bias = np.array([rng.uniform(-8, 8) for _ in range(oc)], np.float32)
            xf = x.astype(np.float32) / np.float32(32)
            wf = wt.astype(np.float32) / np.float32(32)
            y, so = conv(op, xf, wf, bias, stride, dilation, padding, act, multiplier, None)
            bias_text = ",".join(f"{bits(v):08x}" for v in bias) if bias is not None else "-"
            params = ""
            outputs.append(y.astype("<f4").tobytes())
        lines.append(
            f"{dims([n, h, w, ic])} {dims(w_shape)} {dims(so)} {dims(stride)} {dims(dilation)} "
            f"{padding} {act} {multiplier} {params}{seed_x} {seed_w} {bias_text}"
        )
        eff = [(k[i] - 1) * dilation[i] + 1 for i in range(2)]
        if padding == "same" and (eff[0] > h or eff[1] > w):
            stats["same_kernel_over_input"] += 1
        if padding == "valid" and (eff[0] == h or eff[1] == w):
            stats["valid_kernel_equals_input"] += 1
        total += y.size
        n_case += 1
    name = op if quantized else op + "_f32"
    what = "int8, per-channel weights, double rounding" if quantized else "f32"
    params_head = ("scale_in zp_in weight_scales(comma, one per output channel) scale_out "
                   "zp_out " if quantized else "")
    bias_head = "bias(comma, int32" if quantized else "bias(comma, f32 bits in hex"
    values = ("" if quantized else
              " Inputs and filter are the generator's int8 values divided by 32.")
    header = (
        f"# {OPS_NAME[op]} by TFLM (the tflite-micro package), {what}.\n"
        f"# input_shape(NHWC) filter_shape({FILTER_LAYOUT[op]}) output_shape stride(HxW) "
        f"dilation(HxW) padding(same/valid) activation {MULTIPLIER_HEAD[op]} "
        f"{params_head}seed_input seed_filter {bias_head}, or - for none); "
        f"{'scales as f32 bits in hex; ' if quantized else ''}outputs in the .bin file "
        f"({'int8' if quantized else 'f32 LE'}), in case order.{values}\n"
    )
    write(name, header, lines, outputs)
    print(name, n_case, "cases", total, "outputs", stats, file=sys.stderr)


def generate_pool(op, quantized, seed):
    rng = random.Random(seed)
    lines, outputs, total, n_case = [], [], 0, 0
    stats = {"same_kernel_over_input": 0, "valid_kernel_equals_input": 0}
    while total < (OUTPUTS_INT8 if quantized else OUTPUTS_F32):
        n, h, w, c = rng.randint(1, 2), side(rng), side(rng), rng.randint(1, 24)
        padding = rng.choice(["same", "valid"])
        drawn = window(rng, padding, h, w, dilated=False)
        if drawn is None:
            continue
        k, stride, _ = drawn
        act = rng.choice(list(ACTIVATIONS))
        seed_x = n_case + 1
        x = xorshift_bytes(seed_x, n * h * w * c).reshape(n, h, w, c)
        if quantized:
            q = (f32(10 ** rng.uniform(-3, 0)), rng.randint(-128, 127))
            y, so = pool(op, x, k, stride, padding, act, q)
            params = f"{bits(q[0]):08x} {q[1]} {bits(q[0]):08x} {q[1]} "
            outputs.append(y.astype(np.int8).tobytes())
        else:
            y, so = pool(op, x.astype(np.float32) / np.float32(32), k, stride, padding, act,
                         None)
            params = ""
            outputs.append(y.astype("<f4").tobytes())
        lines.append(
            f"{dims([n, h, w, c])} {dims(k)} {dims(so)} {dims(stride)} {padding} {act} "
            f"{params}{seed_x}"
        )
        if padding == "same" and (k[0] > h or k[1] > w):
            stats["same_kernel_over_input"] += 1
        if padding == "valid" and (k[0] == h or k[1] == w):
            stats["valid_kernel_equals_input"] += 1
        total += y.size
        n_case += 1
    name = op if quantized else op + "_f32"
    params_head = ("scale_in zp_in scale_out zp_out (TFLM requires the output's to be the "
                   "input's) " if quantized else "")
    values = "" if quantized else " Inputs are the generator's int8 values divided by 32."
    header = (
        f"# {OPS_NAME[op]} by TFLM (the tflite-micro package), "
        f"{'int8' if quantized else 'f32'}.\n"
        f"# input_shape(NHWC) filter(HxW) output_shape stride(HxW) padding(same/valid) "
        f"activation {params_head}seed_input; {'scales as f32 bits in hex; ' if quantized else ''}"
        f"outputs in the .bin file ({'int8' if quantized else 'f32 LE'}), in case order."
        f"{values}\n"
    )
    write(name, header, lines, outputs)
    print(name, n_case, "cases", total, "outputs", stats, file=sys.stderr)


OPS_NAME = {"conv2d": "CONV_2D", "depthwise_conv2d": "DEPTHWISE_CONV_2D",
            "average_pool2d": "AVERAGE_POOL_2D", "max_pool2d": "MAX_POOL_2D"}
FILTER_LAYOUT = {"conv2d": "OC x KH x KW x IC", "depthwise_conv2d": "1 x KH x KW x IC*M"}
MULTIPLIER_HEAD = {"conv2d": "depth_multiplier(always 1)",
                   "depthwise_conv2d": "depth_multiplier(M)"}


def write(name, header, lines, outputs):
    with open(os.path.join(HERE, f"tflm_{name}.txt"), "w") as f:
        f.write(header + "\n".join(lines) + "\n")
    with open(os.path.join(HERE, f"tflm_{name}.bin"), "wb") as f:
        f.write(b"".join(outputs))


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    seed = 80
    for quantized in (True, False):
        for op in ("conv2d", "depthwise_conv2d"):
            generate_conv(op, quantized, seed)
            seed += 1
        for op in ("average_pool2d", "max_pool2d"):
            generate_pool(op, quantized, seed)
            seed += 1
