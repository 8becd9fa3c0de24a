#!/usr/bin/env python3
"""The project's own test models for the .tflite importer, and TFLM's outputs on them.

Builds six Keras models in the architectures of TFLM's and MLPerf Tiny's reference models and
two small ones (ops, ops2) for the remaining operators, all with random weights (Keras
initialisers, fixed seeds) and non-trivial BatchNorm, converts them with tensorflow's converter
and runs each .tflite in the `tflite-micro` package's interpreter (TFLM's kernels) on 100
generated inputs:

- full int8 (int8 input and output, TFLITE_BUILTINS_INT8, calibrated on 100 representative
  samples): speech, person_detection, vww, kws, anomaly, resnet8, ops2 -> <name>.tflite;
- int8 inside, float32 input and output (the converter adds QUANTIZE and DEQUANTIZE; calibrated
  the same way): ops -> ops.tflite;
- float32, no quantization: speech_f32, ops_f32 and ops2_f32 (the same Keras models as speech,
  ops and ops2) -> <name>.tflite (anomaly's float32 form is 1 MB, too large to commit for what
  it adds);
- for every model, <name>.expected.txt: a header (model, file size and sha256, op list, input
  and output shapes, dtypes and quantization, TFLM's arena size) and one line per input k,
  `k: v0 v1 ...`, the output tensor's values in row-major order (int8 as decimal integers,
  f32 as the 8 hex digits of the value's bits, e.g. 3f800000 for 1.0).

    python3 -m venv /tmp/venv-tf && /tmp/venv-tf/bin/pip install tensorflow-cpu tflite-micro numpy
    /tmp/venv-tf/bin/python tests/models/make_models.py                  # models and expected files
    /tmp/venv-tf/bin/python tests/models/make_models.py --expected-only  # expected files only

`--expected-only` reruns the interpreter on the committed .tflite files and needs only
tflite-micro and numpy (not tensorflow). Building depends on the TensorFlow build, so a rebuild
may give other bytes; the .tflite files and their expected files are committed together, and
each expected file records the sha256 of the .tflite it came from.

Inputs are generated, never stored. Input k (k = 0..99) of model m is drawn from SplitMix64
seeded with `fnv1a64(m) ^ k`, where m is the model's name as an ASCII string ("speech",
"speech_f32", ...):

    fnv1a64(s):  h = 0xcbf29ce484222325
                 for each byte b of s: h = (h ^ b) * 0x100000001b3   (mod 2^64)
    SplitMix64:  state = seed
                 next(): state = state + 0x9e3779b97f4a7c15           (mod 2^64)
                         z = state
                         z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9     (mod 2^64)
                         z = (z ^ (z >> 27)) * 0x94d049bb133111eb     (mod 2^64)
                         return z ^ (z >> 31)

The input tensor is filled in row-major order, one next() per element: an int8 element is
`(next() >> 56) as i8` (the top byte, two's complement); an f32 element is
`((next() >> 40) as f32) / 2^24 * 2 - 1`, uniform in [-1, 1) (every step exact in f32).
Calibration uses the same generator with k = 1000..1099: the int8 bytes q, dequantized as
q / 128 (so the converter picks input scale 1/128, zero point 0, and the int8 test inputs are
the calibration distribution); the same floats feed the data-dependent BatchNorm statistics.
"""

import hashlib
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
COUNT = 100
CALIBRATION = range(1000, 1100)
ARENA = 4 << 20
MASK = (1 << 64) - 1

DESCRIPTIONS = {
    "speech": "TFLM micro_speech TinyConv: Conv2D 8 10x8 /2 SAME + ReLU, Flatten, Dense 4, Softmax",
    "speech_f32": "speech's Keras model (same weights) converted to float32, no quantization",
    "person_detection": "TFLM person_detection MobileNet v1 0.25 on 96x96x1: 3x3/2 conv, 13 "
                        "depthwise-separable blocks (BN folded, ReLU6), AvgPool 3x3, 1x1 conv to "
                        "2 classes, Reshape, Softmax",
    "vww": "MLPerf Tiny visual wake words MobileNet v1 0.25 on 96x96x3 (ReLU, as MLPerf's "
           "vww_model.py): 3x3/2 conv, 13 depthwise-separable blocks, AvgPool 3x3, Flatten, "
           "Dense 2, Softmax",
    "kws": "MLPerf Tiny keyword spotting DS-CNN on 49x10x1: Conv2D 64 10x4 /2, 4 x (DW 3x3 + "
           "1x1 conv 64, BN, ReLU), AvgPool 25x5, Flatten, Dense 12, Softmax",
    "anomaly": "MLPerf Tiny anomaly detection FC autoencoder: 640 -> (Dense 128 + BN + ReLU) x4 "
               "-> Dense 8 + BN + ReLU -> (Dense 128 + BN + ReLU) x4 -> Dense 640",
    "resnet8": "MLPerf Tiny image classification ResNet-8 on 32x32x3: Conv 16 + BN + ReLU, "
               "three residual stacks (16, 32 /2, 64 /2; 1x1 conv shortcuts), AvgPool 8x8, "
               "Flatten, Dense 10, Softmax",
    "ops": "one of each remaining operator, int8 inside float32 input and output: Conv2D 6 3x3 "
           "SAME + BN + ReLU6 and DepthwiseConv2D 3x3 x2 SAME + BN on the input, Subtract, "
           "Multiply, Add of a 1x1 Conv2D 1 (broadcast over channels), MaxPool 2x2 + AvgPool 3x3 "
           "/2 SAME, Conv2D 8 3x3 dilation 2 VALID + BN + ReLU, Flatten, Dense 10",
    "ops_f32": "ops's Keras model (same weights) converted to float32, no quantization",
    "ops2": "LOGISTIC, TANH, CONCATENATION, standalone RELU and RELU6, PAD, MEAN, full int8: "
            "Conv2D 6 1x1 + BN + sigmoid and Conv2D 6 3x3 SAME + BN + tanh on the input, "
            "Concatenate (channels), ReLU, ZeroPadding2D 2, Conv2D 8 3x3 /2 VALID, "
            "GlobalAveragePooling2D (keepdims), ReLU6, Flatten, Dense 8",
    "ops2_f32": "ops2's Keras model (same weights) converted to float32, no quantization",
}


# --- the input generator ---------------------------------------------------------------------

def fnv1a64(name):
    h = 0xCBF29CE484222325
    for b in name.encode("ascii"):
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


class SplitMix64:
    """The scalar definition (the docstring's), checked against `words` below."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def words(seed, n):
    """The first n outputs of SplitMix64(seed), as a uint64 array (numpy wraps mod 2^64)."""
    u = np.uint64
    with np.errstate(over="ignore"):
        z = u(seed) + u(0x9E3779B97F4A7C15) * np.arange(1, n + 1, dtype=u)
        z = (z ^ (z >> u(30))) * u(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> u(27))) * u(0x94D049BB133111EB)
    return z ^ (z >> u(31))


def int8_input(name, k, shape):
    w = words(fnv1a64(name) ^ k, int(np.prod(shape)))
    return (w >> np.uint64(56)).astype(np.uint8).view(np.int8).reshape(shape)


def f32_input(name, k, shape):
    w = words(fnv1a64(name) ^ k, int(np.prod(shape)))
    x = (w >> np.uint64(40)).astype(np.float32) / np.float32(1 << 24) * np.float32(2) - np.float32(1)
    return x.reshape(shape)


def generated_input(name, k, shape, dtype):
    if dtype == np.int8:
        return int8_input(name, k, shape)
    if dtype == np.float32:
        return f32_input(name, k, shape)
    raise ValueError(f"{name}: no generator for input dtype {dtype}")


def check_generator():
    g = SplitMix64(fnv1a64("speech") ^ 7)
    ref = [g.next() for _ in range(64)]
    assert [int(v) for v in words(fnv1a64("speech") ^ 7, 64)] == ref
    assert [((v >> 56) ^ 0x80) - 0x80 for v in ref] == list(int8_input("speech", 7, (64,)))
    assert fnv1a64("") == 0xCBF29CE484222325 and fnv1a64("a") == 0xAF63DC4C8601EC8C
    assert SplitMix64(0).next() == 0xE220A8397B1DCDAF


# --- the interpreter and the expected files --------------------------------------------------

def _schema():
    from tflite_micro.python.tflite_micro import runtime
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as fb
    enum = lambda cls: {v: k for k, v in vars(cls).items() if not k.startswith("_")}
    return runtime, fb, enum


def op_names(data):
    """The operators' code names in execution order, a line describing each (its tensors and
    options), and the number of subgraphs."""
    runtime, fb, enum = _schema()
    ops, types = enum(fb.BuiltinOperator), enum(fb.TensorType)
    acts, pads = enum(fb.ActivationFunctionType), enum(fb.Padding)
    m = runtime.convert_bytearray_to_object(bytearray(data))
    names, details = [], []
    for g in m.subgraphs:
        def tensor(i):
            if i < 0:
                return "none"
            t = g.tensors[i]
            q = t.quantization
            scales = 0 if q is None or q.scale is None else len(q.scale)
            text = f"{[int(d) for d in t.shape]} {types[t.type].lower()}"
            if m.buffers[t.buffer].data is not None:
                text += " const"
            if scales > 1:
                text += f" ({scales} scales, axis {q.quantizedDimension})"
            return text
        for o in g.operators:
            code = m.operatorCodes[o.opcodeIndex]
            b = runtime.get_builtin_code_from_operator_code(code)
            name = ops[b] if b != fb.BuiltinOperator.CUSTOM else f"CUSTOM({code.customCode})"
            v = vars(o.builtinOptions) if o.builtinOptions else {}
            opts = []
            if "padding" in v:
                opts.append(pads[v["padding"]])
            if "strideH" in v:
                opts.append(f"stride {v['strideH']}x{v['strideW']}")
            if "filterHeight" in v:
                opts.append(f"filter {v['filterHeight']}x{v['filterWidth']}")
            if v.get("dilationHFactor", 1) != 1 or v.get("dilationWFactor", 1) != 1:
                opts.append(f"dilation {v['dilationHFactor']}x{v['dilationWFactor']}")
            if "depthMultiplier" in v:
                opts.append(f"depth multiplier {v['depthMultiplier']}")
            if "fusedActivationFunction" in v:
                opts.append(f"activation {acts[v['fusedActivationFunction']]}")
            if v.get("keepNumDims"):
                opts.append("keep_num_dims")
            if "beta" in v:
                opts.append(f"beta {v['beta']!r}")
            names.append(name)
            details.append(f"{name}({', '.join(tensor(i) for i in o.inputs)}) -> "
                           f"{', '.join(tensor(i) for i in o.outputs)}"
                           + (f"; {', '.join(opts)}" if opts else ""))
    return names, details, len(m.subgraphs)


def arena_bytes(interp):
    """The arena TFLM's RecordingMicroAllocator used (it prints to the C stderr)."""
    import tempfile
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            interp.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode(errors="replace")
    for line in text.splitlines():
        if "Arena allocation total" in line:
            return int(line.split("total")[1].split()[0])
    return None


def f32_text(v):
    v = np.float32(v)
    return f"{v!r}".replace("np.float32(", "").rstrip(")") + f" (0x{v.view(np.uint32):08x})"


def quant_text(details):
    q = details["quantization_parameters"]
    if len(q["scales"]) == 0:
        return "not quantized"
    if len(q["scales"]) > 1:
        return f"per-axis {len(q['scales'])} scales, dimension {q['quantized_dimension']}"
    return f"scale {f32_text(q['scales'][0])}, zero point {int(q['zero_points'][0])}"


def value_text(v):
    if v.dtype == np.float32:
        return f"{v.view(np.uint32):08x}"
    return str(int(v))


def run_interpreter(seed_name, data, title, file_line, header_extra=()):
    """Runs the model on inputs 0..99 of `seed_name`; returns the expected file's text and the
    outputs (an array [100, ...])."""
    from tflite_micro.python.tflite_micro import runtime
    import tflite_micro

    ops, op_lines, subgraphs = op_names(data)
    interp = runtime.Interpreter.from_bytes(data, arena_size=ARENA)
    ind, outd = interp.get_input_details(0), interp.get_output_details(0)
    shape = tuple(int(d) for d in ind["shape"])
    outs = []
    for k in range(COUNT):
        interp.set_input(generated_input(seed_name, k, shape, ind["dtype"]), 0)
        interp.invoke()
        outs.append(np.array(interp.get_output(0), copy=True))
    arena = arena_bytes(interp)
    outs = np.stack(outs)
    for k in range(COUNT):  # the interpreter keeps no state between inputs
        if k % 25 == 0:
            interp.set_input(generated_input(seed_name, k, shape, ind["dtype"]), 0)
            interp.invoke()
            assert np.array_equal(np.asarray(interp.get_output(0)), outs[k])
    dt = lambda d: np.dtype(d["dtype"]).name
    gen = ("(next() >> 56) as i8" if ind["dtype"] == np.int8
           else "((next() >> 40) as f32) / 2^24 * 2 - 1")
    lines = [
        f"# model: {title}",
        f"# file: {file_line}, sha256 {hashlib.sha256(data).hexdigest()}",
        f"# ops ({len(ops)}{'' if subgraphs == 1 else f', {subgraphs} subgraphs'}): {' '.join(ops)}",
        f"# input: shape {list(shape)} {dt(ind)}, {quant_text(ind)}",
        f"# output: shape {[int(d) for d in outd['shape']]} {dt(outd)}, {quant_text(outd)}",
        f"# arena: {arena} bytes (tflite-micro {tflite_micro.__version__}, RecordingMicroAllocator)",
        *header_extra,
        *(f"# op {i}: {line}" for i, line in enumerate(op_lines)),
        f"# input k: SplitMix64 seeded with fnv1a64(\"{seed_name}\") ^ k, one {gen} per element, row-major",
        "# k: the output tensor's values, row-major"
        + (" (f32 bits as 8 hex digits)" if outd["dtype"] == np.float32 else ""),
    ]
    for k in range(COUNT):
        lines.append(f"{k}: " + " ".join(value_text(v) for v in outs[k].reshape(-1)))
    return "\n".join(lines) + "\n", outs, ops, arena, ind, outd


def summarize(name, outs, ops, arena, ind, outd, size):
    flat = outs.reshape(COUNT, -1)
    distinct = len({row.tobytes() for row in flat})
    print(f"{name}: {size} bytes, arena {arena} bytes")
    print(f"  ops: {' '.join(ops)}")
    print(f"  input {[int(d) for d in ind['shape']]} {np.dtype(ind['dtype']).name} {quant_text(ind)}")
    print(f"  output {[int(d) for d in outd['shape']]} {np.dtype(outd['dtype']).name} {quant_text(outd)}")
    vals = flat.astype(np.float64)
    line = f"  {distinct} distinct outputs of {COUNT}; values in [{vals.min():.6g}, {vals.max():.6g}]"
    if flat.dtype == np.int8:
        line += f", {len(np.unique(flat))} distinct int8 values"
    if 1 < flat.shape[1] <= 12:
        line += f"; argmax counts {np.bincount(flat.argmax(1), minlength=flat.shape[1]).tolist()}"
    print(line)
    assert distinct > 1, f"{name}: all {COUNT} outputs are equal"


def write_expected(name):
    path = os.path.join(HERE, f"{name}.tflite")
    with open(path, "rb") as f:
        data = f.read()
    text, outs, ops, arena, ind, outd = run_interpreter(
        name, data, f"{name}: {DESCRIPTIONS[name]}", f"tests/models/{name}.tflite, {len(data)} bytes")
    with open(os.path.join(HERE, f"{name}.expected.txt"), "w") as f:
        f.write(text)
    summarize(name, outs, ops, arena, ind, outd, len(data))


# --- the models ------------------------------------------------------------------------------

def build_speech(L):
    inp = L.Input((49, 40, 1), batch_size=1)
    x = L.Conv2D(8, (10, 8), strides=(2, 2), padding="same", activation="relu")(inp)
    x = L.Flatten()(x)
    x = L.Dense(4, name="logits")(x)
    return inp, L.Softmax()(x)


def conv_bn(L, x, filters, kernel, strides, relu6, bias):
    x = L.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=bias)(x)
    x = L.BatchNormalization()(x)
    return L.ReLU(max_value=6.0 if relu6 else None)(x)


def dw_bn(L, x, strides, relu6, bias):
    x = L.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=bias)(x)
    x = L.BatchNormalization()(x)
    return L.ReLU(max_value=6.0 if relu6 else None)(x)


MOBILENET_BLOCKS = [(1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128),
                    (1, 128), (1, 128), (1, 128), (1, 128), (1, 128), (2, 256), (1, 256)]


def build_mobilenet(L, channels, tflm):
    """MobileNet v1, alpha 0.25, 96x96. tflm: TFLM's person_detection (slim: convs without
    bias, ReLU6, a 1x1 conv head, Reshape); otherwise MLPerf Tiny's vww_model.py (convs with
    bias, ReLU, Flatten and Dense head)."""
    bias = not tflm
    inp = L.Input((96, 96, channels), batch_size=1)
    x = conv_bn(L, inp, 8, 3, 2, tflm, bias)
    for stride, filters in MOBILENET_BLOCKS:
        x = dw_bn(L, x, stride, tflm, bias)
        x = conv_bn(L, x, filters, 1, 1, tflm, bias)
    x = L.AveragePooling2D(pool_size=(3, 3))(x)
    if tflm:
        x = L.Conv2D(2, 1, padding="same", name="logits")(x)
        x = L.Reshape((2,))(x)
    else:
        x = L.Flatten()(x)
        x = L.Dense(2, name="logits")(x)
    return inp, L.Softmax()(x)


def build_kws(L):
    inp = L.Input((49, 10, 1), batch_size=1)
    x = conv_bn(L, inp, 64, (10, 4), (2, 2), False, True)
    for _ in range(4):
        x = dw_bn(L, x, 1, False, True)
        x = conv_bn(L, x, 64, 1, 1, False, True)
    x = L.AveragePooling2D(pool_size=tuple(x.shape[1:3]))(x)
    x = L.Flatten()(x)
    x = L.Dense(12, name="logits")(x)
    return inp, L.Softmax()(x)


def build_anomaly(L):
    inp = L.Input((640,), batch_size=1)
    x = inp
    for units in [128] * 4 + [8] + [128] * 4:
        x = L.Dense(units)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
    return inp, L.Dense(640)(x)


def build_resnet8(L):
    inp = L.Input((32, 32, 3), batch_size=1)
    conv = lambda x, f, k, s: L.Conv2D(f, k, strides=s, padding="same",
                                       kernel_initializer="he_normal")(x)
    x = L.ReLU()(L.BatchNormalization()(conv(inp, 16, 3, 1)))
    for filters, stride in [(16, 1), (32, 2), (64, 2)]:
        y = L.ReLU()(L.BatchNormalization()(conv(x, filters, 3, stride)))
        y = L.BatchNormalization()(conv(y, filters, 3, 1))
        if stride != 1 or x.shape[-1] != filters:
            x = conv(x, filters, 1, stride)
        x = L.ReLU()(L.Add()([x, y]))
    x = L.AveragePooling2D(pool_size=int(min(x.shape[1:3])))(x)
    x = L.Flatten()(x)
    x = L.Dense(10, kernel_initializer="he_normal", name="logits")(x)
    return inp, L.Softmax()(x)


def build_ops(L):
    """Small, for the operators and cases the other models lack: float32 input and output (the
    converter adds QUANTIZE and DEQUANTIZE), SUB and MUL of two activations, an ADD of
    [1,12,12,6] and [1,12,12,1] (broadcast over channels), MAX_POOL_2D, AVERAGE_POOL_2D 3x3
    stride 2 SAME (overlapping windows, partial ones at the bottom and right edges), a depthwise
    conv with depth multiplier 2, a conv with dilation 2 and VALID padding, a fused RELU6."""
    inp = L.Input((12, 12, 3), batch_size=1)
    c = L.ReLU(max_value=6.0)(L.BatchNormalization()(L.Conv2D(6, 3, padding="same")(inp)))
    d = L.BatchNormalization()(L.DepthwiseConv2D(3, depth_multiplier=2, padding="same")(inp))
    x = L.Multiply()([L.Subtract()([c, d]), d])
    x = L.Add()([x, L.Conv2D(1, 1)(x)])
    x = L.Add()([L.MaxPooling2D(2)(x), L.AveragePooling2D(3, strides=2, padding="same")(x)])
    x = L.ReLU()(L.BatchNormalization()(L.Conv2D(8, 3, dilation_rate=2)(x)))
    x = L.Flatten()(x)
    return inp, L.Dense(10, name="logits")(x)


def build_ops2(L):
    """Small, for the operators the other models lack, full int8: LOGISTIC and TANH (Keras
    sigmoid and tanh as layers of their own, after a BatchNorm so that they are not saturated),
    CONCATENATION of the two along channels, a standalone RELU after it (the converter fuses
    activations into convs, FULLY_CONNECTED and ADD, not into CONCATENATION, PAD or MEAN),
    PAD (ZeroPadding2D 2 before a 3x3 VALID conv, more padding than SAME would give, so the
    converter cannot fold it into the conv), MEAN over height and width (GlobalAveragePooling2D
    with keepdims) and a standalone RELU6 after it, whose input the "mean_input" conv spreads
    over both clamps (see fit_mean_input). The converter gives the
    CONCATENATION's inputs its own parameters, so it requantizes LOGISTIC's and TANH's fixed
    outputs with a QUANTIZE (int8 to int8) each; the RELU6's output parameters differ from its
    input's, which TFLM's int8 RELU6 ignores (README, converter notes)."""
    inp = L.Input((10, 10, 4), batch_size=1)
    s = L.Activation("sigmoid")(L.BatchNormalization()(L.Conv2D(6, 1)(inp)))
    t = L.Activation("tanh")(L.BatchNormalization()(L.Conv2D(6, 3, padding="same")(inp)))
    x = L.ReLU()(L.Concatenate()([s, t]))
    x = L.ZeroPadding2D(2)(x)
    x = L.Conv2D(8, 3, strides=2, name="mean_input")(x)
    x = L.ReLU(max_value=6.0)(L.GlobalAveragePooling2D(keepdims=True)(x))
    x = L.Flatten()(x)
    return inp, L.Dense(8, name="logits")(x)


BUILDERS = {
    "speech": build_speech,
    "person_detection": lambda L: build_mobilenet(L, 1, True),
    "vww": lambda L: build_mobilenet(L, 3, False),
    "kws": build_kws,
    "anomaly": build_anomaly,
    "resnet8": build_resnet8,
    "ops": build_ops,
    "ops2": build_ops2,
}
FLOAT_VARIANTS = {"speech": "speech_f32", "ops": "ops_f32", "ops2": "ops2_f32"}
FLOAT_IO = {"ops"}  # int8 models whose input and output stay float32


def calibration_inputs(name, shape):
    """Inputs k = 1000..1099 of `name`'s generator, the int8 bytes dequantized as q / 128."""
    return np.stack([int8_input(name, k, shape).astype(np.float32) / 128 for k in CALIBRATION])


def fit_batchnorm(tf, model, x, rng):
    """Gives each BatchNorm, in order, statistics near those of its input on the calibration
    samples (moving mean and variance perturbed at random) and a random gamma and beta: the
    folded biases are real and the activations neither vanish nor all saturate."""
    for layer in model.layers:
        if not isinstance(layer, tf.keras.layers.BatchNormalization):
            continue
        feats = tf.keras.Model(model.inputs, layer.input)(x, training=False).numpy()
        axes = tuple(range(feats.ndim - 1))
        mean, var = feats.mean(axes), np.maximum(feats.var(axes), 1e-4)
        c = mean.shape[0]
        layer.set_weights([
            rng.uniform(0.5, 2.0, c).astype(np.float32),
            rng.normal(0.0, 0.5, c).astype(np.float32),
            (mean + 0.2 * np.sqrt(var) * rng.normal(0.0, 1.0, c)).astype(np.float32),
            (var * rng.uniform(0.7, 1.4, c)).astype(np.float32),
        ])


def fit_mean_input(tf, model, x, rng, center=3.0, spread=3.0):
    """Rescales the conv named "mean_input" so that, over the calibration samples, the mean of
    each of its channels over height and width (what the MEAN after it computes) has mean
    `center` + N(0, 1) and standard deviation `spread`: the RELU6 after the MEAN then clamps at
    0 for some inputs and at 6 for others."""
    try:
        layer = model.get_layer("mean_input")
    except ValueError:
        return
    z = tf.keras.Model(model.inputs, layer.output)(x, training=False).numpy().mean((1, 2))
    w, b = layer.get_weights()
    a = spread / np.maximum(z.std(0), 1e-6)
    b = (b - z.mean(0)) * a + center + rng.normal(0.0, 1.0, len(b))
    layer.set_weights([(w * a).astype(np.float32), b.astype(np.float32)])


def fit_logits(tf, model, x, rng, spread=2.0):
    """Rescales the layer named "logits" so that, over the calibration samples, each class's
    logit has mean ~N(0, 0.5) and standard deviation `spread`: the softmax outputs vary from
    input to input instead of sitting on one class."""
    try:
        layer = model.get_layer("logits")
    except ValueError:
        return
    z = tf.keras.Model(model.inputs, layer.output)(x, training=False).numpy()
    z = z.reshape(len(x), -1)
    w, b = layer.get_weights()
    a = spread / np.maximum(z.std(0), 1e-6)
    layer.set_weights([(w * a).astype(np.float32),
                       ((b - z.mean(0)) * a + rng.normal(0.0, 0.5, len(b))).astype(np.float32)])


def convert(tf, model, name, calib, float_io=False):
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if calib is not None:
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = lambda: ([calib[i:i + 1]] for i in range(len(calib)))
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        if not float_io:
            converter.inference_input_type = tf.int8
            converter.inference_output_type = tf.int8
    data = converter.convert()
    with open(os.path.join(HERE, f"{name}.tflite"), "wb") as f:
        f.write(data)
    return data


def build_all(names):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    for name in names:
        tf.keras.backend.clear_session()
        seed = fnv1a64(name) & 0x7FFFFFFF
        tf.keras.utils.set_random_seed(seed)
        rng = np.random.default_rng(seed)
        inp, out = BUILDERS[name](tf.keras.layers)
        model = tf.keras.Model(inp, out, name=name)
        calib = calibration_inputs(name, (1,) + tuple(model.input_shape[1:]))[:, 0]
        fit_batchnorm(tf, model, calib, rng)
        fit_mean_input(tf, model, calib, rng)
        fit_logits(tf, model, calib, rng)
        print(f"{name}: {model.count_params()} Keras parameters "
              f"({sum(int(np.prod(w.shape)) for w in model.trainable_weights)} trainable)")
        convert(tf, model, name, calib, name in FLOAT_IO)
        if name in FLOAT_VARIANTS:
            convert(tf, model, FLOAT_VARIANTS[name], None)


def all_names():
    out = []
    for name in BUILDERS:
        out.append(name)
        if name in FLOAT_VARIANTS:
            out.append(FLOAT_VARIANTS[name])
    return out


if __name__ == "__main__":
    check_generator()
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    expected_only = "--expected-only" in sys.argv[1:]
    chosen = args or list(BUILDERS)
    if not expected_only:
        build_all(chosen)
    for name in all_names():
        base = name[:-4] if name.endswith("_f32") else name
        if base in chosen:
            write_expected(name)
