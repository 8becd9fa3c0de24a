#!/usr/bin/env bash
# Runs every fuzz target for a fixed budget (seconds, default 60) and prints libFuzzer's run
# count for each. Needs a nightly toolchain and cargo-fuzz:
#   rustup toolchain install nightly && cargo install cargo-fuzz
set -euo pipefail
cd "$(dirname "$0")"
budget="${1:-60}"
# tflite_reader starts from the repository's models, copied in (not committed: see .gitignore).
mkdir -p corpus/tflite_reader && cp ../tests/models/*.tflite corpus/tflite_reader/
for target in broadcast_shapes broadcast_to dyn_tensor strided_kernels binary_primitive reductions products shape_ops slicing gather casts blocked_layouts partial_shapes range_pad \
    serde_decoding bytemuck_views ndarray_bridge tflite_reader; do
  printf '%-18s ' "$target"
  cargo +nightly fuzz run "$target" -- -max_total_time="$budget" -rss_limit_mb=2048 -timeout=10 2>&1 |
    grep -E '^Done|panicked|SUMMARY' | tail -1
done
