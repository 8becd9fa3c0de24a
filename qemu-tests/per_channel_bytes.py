#!/usr/bin/env python3
"""The least flash a bit-exact firmware needs for a model's per-channel quantization.

TFLM derives each output channel's multiplier from the weights' f32 scale of that channel (in
double precision, with the input's and output's scales), so a firmware that gives TFLM's
outputs holds, in some form, every channel's scale: its 23 mantissa bits and its binary
exponent. Within one layer the exponents span a few values, so a layer needs
23 + ceil(log2(span)) bits a channel at the least (bit-packed, with the layer's least exponent
once). Prints, for each operator with per-channel weights, its channel count, the span of the
scales' exponents and of the multipliers' shifts, then the totals: the scales as the file
stores them (4 bytes each), bit-packed, and the prepared multipliers as shaped keeps them
(5 bytes each: `Requant`).

    python3 -m venv /tmp/venv-q && /tmp/venv-q/bin/pip install tflite numpy
    /tmp/venv-q/bin/python qemu-tests/per_channel_bytes.py ../shared/models/person_detect.tflite

(`tflite` is the TFLite flatbuffer schema as a Python package.)
"""

import math
import sys

import numpy as np
import tflite


def main(path):
    model = tflite.Model.GetRootAsModel(open(path, "rb").read(), 0)
    graph = model.Subgraphs(0)
    channels = bits = 0
    print("| operator | op | channels | scale exponents span | shifts span |")
    print("|---|---|---|---|---|")
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        if op.InputsLength() < 2 or op.Inputs(1) < 0:
            continue
        q = graph.Tensors(op.Inputs(1)).Quantization()
        if q is None or q.ScaleLength() <= 1:
            continue
        scales = q.ScaleAsNumpy().astype(np.float32)
        s_in = float(graph.Tensors(op.Inputs(0)).Quantization().Scale(0))
        s_out = float(graph.Tensors(op.Outputs(0)).Quantization().Scale(0))
        # TFLM's order: input scale times the weight's, over the output's, in double.
        shifts = [math.frexp(s_in * float(s) / s_out)[1] for s in scales]
        exps = [math.frexp(float(s))[1] for s in scales]
        span = max(exps) - min(exps) + 1
        code = model.OperatorCodes(op.OpcodeIndex()).BuiltinCode()
        name = {3: "CONV_2D", 4: "DEPTHWISE_CONV_2D", 9: "FULLY_CONNECTED"}.get(code, str(code))
        print(f"| {i} | {name} | {len(scales)} | {span} | {max(shifts) - min(shifts) + 1} |")
        channels += len(scales)
        bits += (23 + math.ceil(math.log2(span))) * len(scales)
    print()
    print(f"channels {channels}: scales as stored {4 * channels} bytes, "
          f"bit-packed at the least {math.ceil(bits / 8)} bytes, "
          f"prepared multipliers {5 * channels} bytes")


if __name__ == "__main__":
    main(sys.argv[1])
