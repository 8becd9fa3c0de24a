#!/usr/bin/env bash
# Flash and RAM of whole firmwares running the int8 models of examples/ (the `models` bin, lto,
# one codegen unit) on thumbv7em-none-eabihf (Cortex-M4F, QEMU mps2-an386) and
# thumbv7m-none-eabi (Cortex-M3, mps2-an385: the same memory map), at opt-levels "s" and "z":
#   flash = .vector_table + .text + .rodata + .data (initial values live in flash)
#   RAM   = .data + .bss + the stack high-water mark the firmware measures under QEMU
# and the same firmware with no model (`model-none`). Prints a markdown table; fails when the
# sine model's firmware is over half of MicroFlow's published figures (34.3 kB flash, 4.6 kB
# RAM on a Cortex-M3), a model's stack grows by less than its ACTIVATION_BYTES, or the two
# targets' checksums of the models' outputs differ.
set -euo pipefail
cd "$(dirname "$0")"

section() {
  local size
  size=$(readelf -SW "$1" | awk -v s="$2" '{ for (i = 1; i <= NF; i++) if ($i == s) print $(i + 4) }')
  echo $((16#${size:-0}))
}

declare -A flash ram stack acts sums
models=(none sine residual)
profiles=(size-s size-z)
targets=(thumbv7em-none-eabihf thumbv7m-none-eabi)
declare -A machine=([thumbv7em-none-eabihf]="cortex-m4 mps2-an386" [thumbv7m-none-eabi]="cortex-m3 mps2-an385")
for target in "${targets[@]}"; do
  read -r cpu board <<<"${machine[$target]}"
  for profile in "${profiles[@]}"; do
    elf="target/$target/$profile/models"
    for m in "${models[@]}"; do
      # The link script is set for the default target only (.cargo/config.toml).
      CARGO_TARGET_THUMBV7M_NONE_EABI_RUSTFLAGS="-C link-arg=-Tlink.x" \
        cargo build -q --profile "$profile" --target "$target" --bin models --features "model-$m"
      out=$(timeout 120 qemu-system-arm -cpu "$cpu" -machine "$board" -nographic \
        -semihosting-config enable=on,target=native -kernel "$elf")
      read -r name _ used _ checksum _ activations <<<"$out"
      [ "$name" = "$m" ] || { echo "unexpected output: $out" >&2; exit 1; }
      text=$(section "$elf" .text)
      rodata=$(section "$elf" .rodata)
      data=$(section "$elf" .data)
      bss=$(section "$elf" .bss)
      vectors=$(section "$elf" .vector_table)
      key="$target,$profile,$m"
      flash[$key]=$((vectors + text + rodata + data))
      ram[$key]=$((data + bss + used))
      stack[$key]=$used
      acts[$key]=$activations
      sums[$key]=$checksum
    done
  done
done

status=0
echo "| firmware | target | opt-level | flash (bytes) | RAM (bytes) | of which stack | over the empty firmware: flash, RAM | \`ACTIVATION_BYTES\` |"
echo "|---|---|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  for target in "${targets[@]}"; do
    for profile in "${profiles[@]}"; do
      key="$target,$profile,$m"
      none="$target,$profile,none"
      f=${flash[$key]}
      r=${ram[$key]}
      a=${acts[$key]}
      over="-"
      [ "$m" != none ] && over="$((f - flash[$none])), $((r - ram[$none]))"
      echo "| $m | ${target%%-*} | ${profile#size-} | $f | $r | ${stack[$key]} | $over | $a |"
      if [ "$m" = sine ] && { [ $((f * 2)) -gt 34300 ] || [ $((r * 2)) -gt 4600 ]; }; then
        echo "the sine firmware is over half of MicroFlow's 34.3 kB flash / 4.6 kB RAM ($target, ${profile#size-})" >&2
        status=1
      fi
      growth=$((stack[$key] - stack[$none]))
      if [ "$m" != none ] && [ "$growth" -lt "$a" ]; then
        echo "$m's stack grew by $growth bytes, less than its $a bytes of activations" >&2
        status=1
      fi
      if [ "${sums[$key]}" != "${sums[thumbv7em-none-eabihf,$profile,$m]}" ]; then
        echo "$m computes other outputs on $target" >&2
        status=1
      fi
    done
  done
done
echo
echo "Published for TFLM's sine model: MicroFlow 34.3 kB flash, 4.6 kB RAM (Cortex-M3, LM3S6965)"
echo "and 34.3 kB / 5.3 kB (nRF52840); TFLM 116.4 kB / 45.7 kB there."
exit $status
