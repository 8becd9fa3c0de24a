#!/usr/bin/env bash
# The code size of each kernel as whole firmware (thumbv7em-none-eabihf): the `.text` of the
# `firmware` bin built with `<kernel>-<who>`, minus that of the same firmware without the
# kernel (`<kernel>-none`). Everything a kernel pulls in counts: its callees, shape
# resolution, error formatting, runtime kernels. Prints a markdown table for opt-levels "s",
# "z" and 3, each built with LTO and one codegen unit (profiles `size-<level>`) and without
# LTO with Cargo's default codegen units (`size-<level>-nolto`); fails when, at "s", a network
# of shaped's fused layers (the dense layer, the controller, the mlp, the int8 sine and
# residual models) or an int8 convolution's `_into` form (CONV_2D, DEPTHWISE_CONV_2D) is over
# 1.5x the hand-written loops' with or without LTO, or any of shaped's forms of a kernel
# (operators, `_into`, layers) is over 1.5x the hand loops' without LTO (the build a firmware
# gets that sets only its opt-level); then runs the `codesize` bin under QEMU to check that
# shaped and the hand-written loops agree (the int8 models with TFLM's outputs).
set -euo pipefail
cd "$(dirname "$0")"

text_bytes() {
  local size
  size=$(readelf -SW "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i == ".text") print $(i + 4) }')
  echo $((16#$size))
}

declare -A size
kernels=(add mul qadd qdense controller mlp sine residual qconv qdwconv)
declare -A whos=([add]="shaped into hand" [mul]="shaped into hand" [qadd]="shaped into hand"
  [qdense]="shaped into layer hand" [controller]="shaped layer hand" [mlp]="shaped layer hand"
  [sine]="layer hand" [residual]="layer hand" [qconv]="shaped hand" [qdwconv]="shaped hand")
# Measured, not bounded (none now; a kernel named here is left out of the checks at "s").
measured_only=" "
# Whole networks of fused layers, and the int8 convolutions' `_into` forms against plain
# loop nests: over 1.5x the hand-written loops at "s" (with or without LTO) fails the script.
bounded=" qdense controller mlp sine residual qconv qdwconv "
# CODE_SIZE_LEVELS="s" builds only the bounded level (CI: 62 firmware builds instead of 186).
read -r -a levels <<<"${CODE_SIZE_LEVELS:-s z 3}"
if [[ " ${levels[*]} " != *" s "* ]]; then
  echo "CODE_SIZE_LEVELS must include s, the level the bounds are checked at" >&2
  exit 2
fi
profiles=()
for level in "${levels[@]}"; do profiles+=("size-$level" "size-$level-nolto"); done
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
    qconv) echo 'int8 3x3 CONV_2D 24x24x16 -> 32 (`conv2d_array_into`)' ;;
    qdwconv) echo 'int8 3x3 DEPTHWISE_CONV_2D 48x48x8 (`depthwise_conv2d_array_into`)' ;;
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
echo "| kernel | opt-level | shaped operators (bytes) | no LTO | shaped \`_into\` (bytes) | no LTO | shaped fused layers (bytes) | no LTO | hand-written (bytes) | no LTO | shaped / hand | no LTO |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
status=0
for k in "${kernels[@]}"; do
  for level in "${levels[@]}"; do
    row="| $(name "$k") | $level |"
    ratios=""
    for who in shaped into layer hand; do
      for profile in "size-$level" "size-$level-nolto"; do
        row="$row $(cell "$k" "$who" "$profile") |"
      done
    done
    for profile in "size-$level" "size-$level-nolto"; do
      # The ratio of shaped's best form for this kernel: its layers where it has them.
      best=$(cell "$k" shaped "$profile")
      layer=$(cell "$k" layer "$profile")
      if [ "$layer" != - ]; then best=$layer; fi
      hand=$(cell "$k" hand "$profile")
      ratios="$ratios $(awk -v s="$best" -v h="$hand" 'BEGIN { printf "%.2f", s / h }') |"
      if [[ "$bounded" == *" $k "* ]] && [ "$level" = s ] && [ $((best * 2)) -gt $((hand * 3)) ]; then
        echo "$k: shaped's best form is over 1.5x the hand-written loops at $profile" >&2
        status=1
      fi
    done
    if [ "$level" = s ] && [[ "$measured_only" != *" $k "* ]]; then
      hand=$(cell "$k" hand size-s-nolto)
      for who in shaped into layer; do
        bytes=$(cell "$k" "$who" size-s-nolto)
        if [ "$bytes" != - ] && [ $((bytes * 2)) -gt $((hand * 3)) ]; then
          echo "$k: shaped's $who form is over 1.5x the hand loops at size-s-nolto" >&2
          status=1
        fi
      done
    fi
    echo "$row$ratios"
  done
done
echo
baseline="firmware without any kernel (the baseline subtracted above, .text bytes):"
for level in "${levels[@]}"; do
  baseline="$baseline $level ${size[size-$level,controller,none]}"
  baseline="$baseline (no LTO ${size[size-$level-nolto,controller,none]});"
done
echo "${baseline%;}"
cargo run -q --profile size-s --bin codesize
cargo run -q --profile size-s-nolto --bin codesize
if [[ " ${levels[*]} " == *" z "* ]]; then cargo run -q --profile size-z --bin codesize; fi
exit $status
