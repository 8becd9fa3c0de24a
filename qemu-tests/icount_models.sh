#!/usr/bin/env bash
# The `.tflite` models imported by `include_model!` on the Cortex-M4 under QEMU: the
# `model_outputs` bin runs each on the first 10 generated inputs of tests/models/README.md,
# compares every output with TFLM's (tests/models/<name>.expected.txt) and counts the
# instructions of each inference with `-icount shift=0` (SysTick, calibrated, as icount.sh), at
# opt-levels 3 (`release`) and "s" (`size-s`), both with LTO. The project's speech, person
# detection, keyword spotting (kws), ResNet-8 and anomaly detection models, and TFLM's own micro_speech and
# person_detection (../shared/models/, beside the repository: skipped with a
# message when absent). Prints a markdown table with MicroFlow's published cycles per inference
# on the nRF52840 (64 MHz: speech 50.6 ms, 3.24 million cycles; person detection 896 ms, 57.3
# million), and fails when an output differs from TFLM's. Instructions are not cycles: see
# README.md.
set -euo pipefail
cd "$(dirname "$0")"

models=(speech person kws resnet8 anomaly)
if [ -f ../../shared/models/speech.tflite ] && [ -f ../../shared/models/person_detect.tflite ]; then
  models+=(shared-speech shared-person)
else
  echo "../shared/models/ is not beside the repository: TFLM's own models are SKIPPED"
fi
declare -A microflow=([speech]=3238400 [shared-speech]=3238400 [person]=57344000 [shared-person]=57344000)
declare -A mean
for profile in release size-s; do
  for m in "${models[@]}"; do
    cargo build -q --profile "$profile" --bin model_outputs --features "model-$m"
    out=$(timeout 300 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
      -semihosting-config enable=on,target=native -icount shift=0 \
      -kernel "target/thumbv7em-none-eabihf/$profile/model_outputs") || {
      echo "$out"
      echo "$m ($profile): outputs differ from TFLM's, or the run failed" >&2
      exit 1
    }
    echo "$out"
    # `<name>: 10/10 outputs equal to TFLM's; instructions per inference: mean N, ...`
    mean[$profile,$m]=$(sed -n 's/.*instructions per inference: mean \([0-9]*\),.*/\1/p' <<<"$out")
  done
done

echo
echo "| model | opt-level | instructions per inference | MicroFlow's cycles (nRF52840) | ratio |"
echo "|---|---|---|---|---|"
for m in "${models[@]}"; do
  for profile in release size-s; do
    level=3
    [ "$profile" = size-s ] && level=s
    n=${mean[$profile,$m]}
    c=${microflow[$m]:-}
    ratio=-
    [ -n "$c" ] && ratio=$(awk -v n="$n" -v c="$c" 'BEGIN { printf "%.2f", n / c }')
    echo "| $m | $level | $n | ${c:--} | $ratio |"
  done
done
