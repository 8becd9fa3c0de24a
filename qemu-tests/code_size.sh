#!/usr/bin/env bash
# Prints the `.text` size in bytes of each kernel in src/bin/codesize.rs (its symbol size in the
# linked thumbv7em-none-eabihf binary), at opt-level "s" and 3, as a markdown table, then runs
# the binary under QEMU to check that shaped and the hand-written loops agree.
set -euo pipefail
cd "$(dirname "$0")"
kernels="add_4x4_1x4 mul_2x3x4_1x3x1"
declare -A size
for profile in size-s size-3; do
  cargo build -q --profile "$profile" --bin codesize
  elf="target/thumbv7em-none-eabihf/$profile/codesize"
  for k in $kernels; do
    for who in shaped shaped_into hand; do
      s=$(readelf -sW "$elf" | awk -v f="${who}_$k" '$8 == f { print $3 }')
      [ -n "$s" ] || { echo "symbol ${who}_$k not found in $elf" >&2; exit 1; }
      size[$profile,$who,$k]=$((s))
    done
  done
done
echo "| kernel | opt-level | shaped \`a + b\` (bytes) | shaped \`broadcast_with_into\` (bytes) | hand-written (bytes) |"
echo "|---|---|---|---|---|"
for k in $kernels; do
  for profile in size-s size-3; do
    echo "| $k | ${profile#size-} | ${size[$profile,shaped,$k]} | ${size[$profile,shaped_into,$k]} | ${size[$profile,hand,$k]} |"
  done
done
for profile in size-s size-3; do
  elf="target/thumbv7em-none-eabihf/$profile/codesize"
  for who in shaped hand; do
    s=$(readelf -sW "$elf" | awk -v f="${who}_mlp_16_32_4" '$8 == f { print $3 }')
    [ -n "$s" ] || { echo "symbol ${who}_mlp_16_32_4 not found in $elf" >&2; exit 1; }
    size[$profile,$who,mlp]=$((s))
  done
done
echo
echo "| network | opt-level | shaped matmul, bias add, relu (bytes) | hand-written (bytes) |"
echo "|---|---|---|---|"
for profile in size-s size-3; do
  echo "| mlp_16_32_4 (examples/dense_layer.rs) | ${profile#size-} | ${size[$profile,shaped,mlp]} | ${size[$profile,hand,mlp]} |"
done
cargo run -q --profile size-s --bin codesize
