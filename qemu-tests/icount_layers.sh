#!/usr/bin/env bash
# Instructions per multiply-accumulate of the int8 convolutions on the Cortex-M4, layer by
# layer, on the shapes of TFLM's person detection model: the `icount_layers` bin under QEMU
# with `-icount shift=0` (as icount_conv.sh), at opt-levels 3 (`release`) and "s" (`size-s`).
# Prints a markdown table per level (each layer, how many the model has, and the total), and
# fails when a layer's output differs from the hand-written loop nest's.
set -euo pipefail
cd "$(dirname "$0")"
for profile in release size-s; do
  cargo build -q --profile "$profile" --bin icount_layers
  echo "opt-level ${profile/release/3}:"
  timeout 600 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
    -semihosting-config enable=on,target=native -icount shift=0 \
    -kernel "target/thumbv7em-none-eabihf/$profile/icount_layers"
done
