#!/bin/sh
# Instructions per run of each version of each program, counted by callgrind around the one
# measured call (`measure` in count.rs) after a warm-up run, so input generation, the warm-up
# and process start are not counted. Prints a markdown table.
#
#   cd benches && sh programs/count.sh            # builds programs_count in release first
#   sh programs/count.sh mlp signal               # only these programs
set -eu
cd "$(dirname "$0")/.."
cargo build --release --bin programs_count >&2
bin=target/release/programs_count
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
programs=${*:-mlp transformer image stats signal controller}

count() {
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
        --toggle-collect='*programs_count::measure*' "$bin" "$1" "$2" 2>"$out/log" >/dev/null
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$out/log"
}

echo "| program | shaped | ndarray | hand | shaped / hand | ndarray / hand | shaped / ndarray |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for p in $programs; do
    s=$(count "$p" shaped)
    n=$(count "$p" ndarray)
    h=$(count "$p" hand)
    awk -v p="$p" -v s="$s" -v n="$n" -v h="$h" '
        function c(x,   r) { r = ""; while (x >= 1000) { r = sprintf(",%03d", x % 1000) r; x = int(x / 1000) } return x r }
        BEGIN { printf "| %s | %s | %s | %s | %.2f | %.2f | %.2f |\n", p, c(s), c(n), c(h), s / h, n / h, s / n }'
done
