#!/usr/bin/env bash
# Instructions per multiply-accumulate of the int8 convolutions (TFLM's contract) on the
# Cortex-M4: the `icount_conv` bin under QEMU with `-icount shift=0` (one nanosecond of virtual
# time per guest instruction, counted by SysTick), at opt-levels 3 (`release`) and "s"
# (`size-s`). The bin calibrates itself on a loop of known length and exits with status 1 when
# a kernel's output differs from the hand-written loop nest's.
set -euo pipefail
cd "$(dirname "$0")"
for profile in release size-s; do
  cargo build -q --profile "$profile" --bin icount_conv
  echo "opt-level ${profile/release/3}:"
  timeout 300 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
    -semihosting-config enable=on,target=native -icount shift=0 \
    -kernel "target/thumbv7em-none-eabihf/$profile/icount_conv"
done
