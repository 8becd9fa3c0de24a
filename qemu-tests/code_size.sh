#!/usr/bin/env bash
# The code size of each kernel as whole firmware (thumbv7em-none-eabihf, lto, one codegen
# unit): the `.text` of the `firmware` bin built with `<kernel>-<who>`, minus that of the same
# firmware without the kernel (`<kernel>-none`). Everything a kernel pulls in counts: its
# callees, shape resolution, error formatting, runtime kernels. Prints a markdown table for
# opt-levels "s", "z" and 3, fails when a network of shaped's fused layers (the dense layer,
# the controller, the mlp, the int8 sine and residual models) is over 1.5x the hand-fused
# loops' at "s", then runs the `codesize` bin under QEMU to check that shaped and the
# hand-written loops agree (the int8 models with TFLM's outputs).
set -euo pipefail
cd "$(dirname "$0")"

text_bytes() {
  local size
  size=$(readelf -SW "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i == ".text") print $(i + 4) }')
  echo $((16#$size))
}

declare -A size
kernels=(add mul qadd qdense controller mlp sine residual)
declare -A whos=([add]="shaped into hand" [mul]="shaped into hand" [qadd]="shaped into hand"
  [qdense]="shaped into layer hand" [controller]="shaped layer hand" [mlp]="shaped layer hand"
  [sine]="layer hand" [residual]="layer hand")
# Whole networks of fused layers: over 1.5x the hand-fused loops at "s" fails the script.
bounded=" qdense controller mlp sine residual "
profiles=(size-s size-z size-3)
for profile in "${profiles[@]}"; do
  elf="target/thumbv7em-none-eabihf/$profile/firmware"
  for k in "${kernels[@]}"; do
    for who in none ${whos[$k]}; do
      cargo build -q --profile "$profile" --bin firmware --features "$k-$who"
      size[$profile,$k,$who]=$(text_bytes "$elf")
    done
  done
done

name() {
  case "$1" in
    add) echo '`[4, 4] + [1, 4]` f32' ;;
    mul) echo '`[2, 3, 4] * [1, 3, 1]` f32' ;;
    qadd) echo '`[4, 4] + [1, 4]` int8 (TFLM add)' ;;
    qdense) echo 'int8 dense 8 -> 16 ReLU (TFLM fully connected)' ;;
    controller) echo 'f32 controller 8 -> 16 ReLU -> 2 clip' ;;
    mlp) echo 'f32 mlp 16 -> 32 ReLU -> 4, batch 2' ;;
    sine) echo 'int8 sine model (3 layers)' ;;
    residual) echo 'int8 residual network (3 layers, 2 adds)' ;;
  esac
}
cell() {
  if [[ " ${whos[$1]} " == *" $2 "* ]]; then echo $((size[$3,$1,$2] - size[$3,$1,none])); else echo -; fi
}
echo "| kernel | opt-level | shaped operators (bytes) | shaped \`_into\` (bytes) | shaped fused layers (bytes) | hand-written (bytes) | shaped / hand |"
echo "|---|---|---|---|---|---|---|"
status=0
for k in "${kernels[@]}"; do
  for profile in "${profiles[@]}"; do
    shaped=$(cell "$k" shaped "$profile")
    into=$(cell "$k" into "$profile")
    layer=$(cell "$k" layer "$profile")
    hand=$(cell "$k" hand "$profile")
    # The ratio of shaped's best form for this kernel: its layers where it has them.
    best=$shaped
    if [ "$layer" != - ]; then best=$layer; fi
    ratio=$(awk -v s="$best" -v h="$hand" 'BEGIN { printf "%.2f", s / h }')
    echo "| $(name "$k") | ${profile#size-} | $shaped | $into | $layer | $hand | $ratio |"
    if [[ "$bounded" == *" $k "* ]] && [ "$profile" = size-s ] && [ $((best * 2)) -gt $((hand * 3)) ]; then
      echo "$k: shaped's layers are over 1.5x the hand-fused loops at s" >&2
      status=1
    fi
  done
done
echo
echo "firmware without any kernel (the baseline subtracted above, .text bytes):" \
  "s ${size[size-s,controller,none]}, z ${size[size-z,controller,none]}," \
  "3 ${size[size-3,controller,none]}"
cargo run -q --profile size-s --bin codesize
cargo run -q --profile size-z --bin codesize
exit $status
