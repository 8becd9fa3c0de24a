#!/usr/bin/env bash
# Instructions a call of each `numerics_probe.rs` case (callgrind, N calls minus the setup-only
# run, divided by N), for SHAPE (default 32x64).
#
#   ./numerics_probe.sh                  # every case on [32, 64]
#   SHAPE=128x512 N=20 ./numerics_probe.sh softmax-static softmax-static-composed
#   BASE=none-std0 N=10 ./numerics_probe.sh std0-dyn std0-ndarray std0-hand   # [100000, 12]
#   BASE=none-std03 N=10 ./numerics_probe.sh std0-static std0-ndarray3 std0-hand3   # [16384, 3]
set -euo pipefail
cd "$(dirname "$0")"  # the benches crate: its own target/
cargo bench -q --bench numerics_probe --no-run 2>/dev/null
bin=${BIN:-$(ls -t target/release/deps/numerics_probe-* | grep -v '\.d$' | head -1)}
export SHAPE=${SHAPE:-32x64} N=${N:-1000}
count() {
    local out
    out=$(mktemp)
    PROBE=$1 valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" >/dev/null 2>&1
    grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}'
    rm -f "$out"
}
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
    for op in softmax log_softmax layer_norm rms_norm; do
        for kind in static dyn; do
            cases+=("$op-$kind" "$op-$kind-composed")
        done
    done
    cases+=(permute-static permute-dyn permute-hand permute-ndarray)
fi
base=$(count "${BASE:-none}")
for c in "${cases[@]}"; do
    total=$(count "$c")
    echo "$SHAPE $c $(( (total - base) / N ))"
done
