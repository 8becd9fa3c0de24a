#!/usr/bin/env bash
# Flash and RAM of whole firmwares running the int8 models of examples/ (the `models` bin,
# thumbv7em-none-eabihf, lto, one codegen unit), at opt-levels "s" and "z":
#   flash = .vector_table + .text + .rodata + .data (initial values live in flash)
#   RAM   = .data + .bss + the stack high-water mark the firmware measures under QEMU
# and the same firmware with no model (`model-none`). Prints a markdown table; fails when the
# sine model's firmware is over half of MicroFlow's published figures (34.3 kB flash, 4.6 kB
# RAM on a Cortex-M3), or a model's stack grows by less than its ACTIVATION_BYTES.
set -euo pipefail
cd "$(dirname "$0")"

section() {
  local size
  size=$(readelf -SW "$1" | awk -v s="$2" '{ for (i = 1; i <= NF; i++) if ($i == s) print $(i + 4) }')
  echo $((16#${size:-0}))
}

declare -A flash ram stack acts
models=(none sine residual)
profiles=(size-s size-z)
for profile in "${profiles[@]}"; do
  elf="target/thumbv7em-none-eabihf/$profile/models"
  for m in "${models[@]}"; do
    cargo build -q --profile "$profile" --bin models --features "model-$m"
    out=$(timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
      -semihosting-config enable=on,target=native -kernel "$elf")
    read -r name _ used _ _ _ activations <<<"$out"
    [ "$name" = "$m" ] || { echo "unexpected output: $out" >&2; exit 1; }
    text=$(section "$elf" .text)
    rodata=$(section "$elf" .rodata)
    data=$(section "$elf" .data)
    bss=$(section "$elf" .bss)
    vectors=$(section "$elf" .vector_table)
    flash[$profile,$m]=$((vectors + text + rodata + data))
    ram[$profile,$m]=$((data + bss + used))
    stack[$profile,$m]=$used
    acts[$profile,$m]=$activations
  done
done

status=0
echo "| firmware | opt-level | flash (bytes) | RAM (bytes) | of which stack | over the empty firmware: flash, RAM | \`ACTIVATION_BYTES\` |"
echo "|---|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  for profile in "${profiles[@]}"; do
    f=${flash[$profile,$m]}
    r=${ram[$profile,$m]}
    df=$((f - flash[$profile,none]))
    dr=$((r - ram[$profile,none]))
    a=${acts[$profile,$m]}
    over="-"
    [ "$m" != none ] && over="$df, $dr"
    echo "| $m | ${profile#size-} | $f | $r | ${stack[$profile,$m]} | $over | $a |"
    if [ "$m" = sine ] && { [ $((f * 2)) -gt 34300 ] || [ $((r * 2)) -gt 4600 ]; }; then
      echo "the sine firmware is over half of MicroFlow's 34.3 kB flash / 4.6 kB RAM at ${profile#size-}" >&2
      status=1
    fi
    growth=$((stack[$profile,$m] - stack[$profile,none]))
    if [ "$m" != none ] && [ "$growth" -lt "$a" ]; then
      echo "$m's stack grew by $growth bytes, less than its $a bytes of activations" >&2
      status=1
    fi
  done
done
echo
echo "Published for TFLM's sine model: MicroFlow 34.3 kB flash, 4.6 kB RAM (Cortex-M3, LM3S6965)"
echo "and 34.3 kB / 5.3 kB (nRF52840); TFLM 116.4 kB / 45.7 kB there."
exit $status
