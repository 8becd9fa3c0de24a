#!/usr/bin/env bash
# Instructions per call of each case of `matmul_probe.rs` (callgrind, 100 calls counted inside
# `measured`), as a markdown table: static, DynTensor, ndarray `dot`, hand `i`-`k`-`j` loop.
#
#   ./matmul_probe.sh                   # every case
#   ./matmul_probe.sh 8x32x64 mlp       # some cases
set -euo pipefail
cd "$(dirname "$0")"  # the benches crate: its own target/
cargo bench -q --bench matmul_probe --no-run 2>/dev/null
bin=$(ls -t target/release/deps/matmul_probe-* | grep -v '\.d$' | head -1)
cases=${*:-8x32x64 8x64x10 16x16x16 attn_nt attn_nn 32x64x64 32x64x256 32x256x64 mlp}
echo "| case | static | DynTensor | ndarray | hand loop |"
echo "|---|---|---|---|---|"
for shape in $cases; do
  row="| $shape |"
  for probe in static dyn ndarray hand; do
    out=$(mktemp)
    SHAPE=$shape PROBE=$probe valgrind --tool=callgrind --callgrind-out-file="$out" \
      --toggle-collect='matmul_probe::measured' "$bin" >/dev/null 2>&1
    total=$(grep -m1 '^summary:' "$out" | awk '{print $2}')
    rm -f "$out"
    row="$row $((total / 100)) |"
  done
  echo "$row"
done
