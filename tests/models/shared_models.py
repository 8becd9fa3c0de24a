#!/usr/bin/env python3
"""TFLM's outputs on TFLM's own example models, which the project reads but never commits.

Runs the three .tflite files of the shared model folder, `../shared/models/` beside the
repository (sine.tflite, speech.tflite, person_detect.tflite: TFLM's hello_world, micro_speech
and person_detection models), in the `tflite-micro` package's interpreter on 100 generated
inputs each, and writes tests/models/shared_<name>.expected.txt in make_models.py's format
(a header with the model's file size and sha256, op list, input and output shapes, dtypes and
quantization, arena size; then `k: v0 v1 ...` per input).

The inputs come from make_models.py's generator (SplitMix64 seeded with fnv1a64(m) ^ k, see
its docstring) with the model names shared_sine, shared_speech and shared_person_detect; an
int8 input takes `(next() >> 56) as i8` per element, an f32 input
`((next() >> 40) as f32) / 2^24 * 2 - 1`, whichever type the model's input tensor has.

    python3 -m venv /tmp/venv-tf && /tmp/venv-tf/bin/pip install tensorflow-cpu tflite-micro numpy
    /tmp/venv-tf/bin/python tests/models/shared_models.py

Only tflite-micro and numpy are needed (not tensorflow). The models are read, never copied.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from make_models import check_generator, run_interpreter, summarize  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(REPO), "shared", "models")

MODELS = {
    "sine": "TFLM hello_world sine model (three FULLY_CONNECTED layers)",
    "speech": "TFLM micro_speech TinyConv model",
    "person_detect": "TFLM person_detection MobileNet v1 0.25, 96x96 grayscale",
}


def main():
    check_generator()
    for name, description in MODELS.items():
        path = os.path.join(SHARED, f"{name}.tflite")
        with open(path, "rb") as f:
            data = f.read()
        text, outs, ops, arena, ind, outd = run_interpreter(
            f"shared_{name}", data, f"shared_{name}: {description}",
            f"../shared/models/{name}.tflite (not in the repository), {len(data)} bytes")
        with open(os.path.join(HERE, f"shared_{name}.expected.txt"), "w") as f:
            f.write(text)
        summarize(f"shared_{name}", outs, ops, arena, ind, outd, len(data))


if __name__ == "__main__":
    main()
