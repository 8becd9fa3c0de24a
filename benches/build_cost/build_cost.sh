#!/usr/bin/env bash
# What building shaped costs, against ndarray in the same run: CPU seconds (user + sys, which
# load moves far less than wall time), wall seconds, and the crates compiled.
#
#   benches/build_cost/build_cost.sh            # everything below (about 15 minutes on 2 cores)
#   benches/build_cost/build_cost.sh lib        # the library alone, and ndarray alone
#   benches/build_cost/build_cost.sh rebuild    # the dependent crates, scratch and rebuild
#   benches/build_cost/build_cost.sh readme     # the README's two commands, fresh clone
#
# * lib: `cargo build --lib` of shaped (debug and release, default features and none) and of
#   ndarray 0.17 (as a dependency of an empty crate), each from an empty target directory,
#   with incremental compilation off: what a user's build of the crate from crates.io pays.
# * rebuild: `shaped_app/` and `ndarray_app/`, one program on each library, built in release
#   from scratch, then rebuilt RUNS times (default 5), interleaved, after changing the line
#   marked `EDIT`: what a user waits for after a one-line change.
# * readme: the README's two commands (`cargo run --example quickstart`, `cargo test
#   --workspace`) in a fresh clone of this repository's HEAD, with an empty cargo home
#   (downloads included).
#
# Prints one markdown row per measurement. The load average is printed first and last.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
what="${1:-all}"
runs="${RUNS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_INCREMENTAL=0

echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(rustc --version)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| what | CPU s (user + sys) | wall s | crates compiled |"
echo "|---|---|---|---|"

# measure LABEL DIR CMD...: runs CMD in DIR, prints the row.
measure() {
  local label="$1" dir="$2"
  shift 2
  local log="$work/log" times="$work/times"
  (cd "$dir" && /usr/bin/time -f "%U %S %e" -o "$times" "$@" >"$log" 2>&1) || {
    echo "failed: $label" >&2
    tail -20 "$log" >&2
    exit 1
  }
  local crates
  crates=$(grep -c '^ *Compiling ' "$log" || true)
  read -r user sys wall <"$times"
  awk -v l="$label" -v u="$user" -v s="$sys" -v w="$wall" -v c="$crates" \
    'BEGIN { printf "| %s | %.1f | %.1f | %s |\n", l, u + s, w, c }'
}

# An empty crate depending on ndarray, for its own build cost.
ndarray_alone() {
  mkdir -p "$work/nd/src"
  cat >"$work/nd/Cargo.toml" <<'EOF'
[package]
name = "ndarray-alone"
version = "0.0.0"
edition = "2021"
publish = false
[workspace]
[dependencies]
ndarray = { version = "0.17", default-features = false }
[features]
default = ["ndarray/std"]
EOF
  : >"$work/nd/src/lib.rs"
  (cd "$work/nd" && cargo fetch -q)
}

if [ "$what" = all ] || [ "$what" = lib ]; then
  ndarray_alone
  (cd "$repo" && cargo fetch -q)
  for profile in dev release; do
    flag=$([ "$profile" = release ] && echo --release || true)
    measure "shaped, $profile, default features" "$repo" \
      cargo build --lib $flag --target-dir "$work/t-shaped-$profile"
    measure "shaped, $profile, --no-default-features" "$repo" \
      cargo build --lib $flag --no-default-features --target-dir "$work/t-shaped-nd-$profile"
    measure "ndarray 0.17, $profile, default features" "$work/nd" \
      cargo build --lib $flag --target-dir "$work/t-nd-$profile"
    measure "ndarray 0.17, $profile, --no-default-features" "$work/nd" \
      cargo build --lib $flag --no-default-features --target-dir "$work/t-nd-nd-$profile"
  done
fi

if [ "$what" = all ] || [ "$what" = rebuild ]; then
  for app in shaped_app ndarray_app; do
    # The sources only: a target directory or lock file left beside them would be reused.
    mkdir -p "$work/$app"
    cp -r "$here/$app/Cargo.toml" "$here/$app/src" "$work/$app/"
    # The path to shaped is relative to this folder: point it at the repository.
    sed -i "s|path = \"../../..\"|path = \"$repo\"|" "$work/$app/Cargo.toml"
    measure "$app, release, from scratch" "$work/$app" cargo build --release
  done
  for i in $(seq 1 "$runs"); do
    for app in shaped_app ndarray_app; do
      main="$work/$app/src/main.rs"
      # The one-line change: a new constant on the EDIT line, different each run.
      sed -i "s|let scale = [0-9.]*f32; // EDIT|let scale = 0.$((i + 1))f32; // EDIT|" "$main"
      measure "$app, release rebuild after a one-line change (run $i)" "$work/$app" \
        cargo build --release
    done
  done
fi

if [ "$what" = all ] || [ "$what" = readme ]; then
  git clone -q "$repo" "$work/clone"
  export CARGO_HOME="$work/cargo-home"
  mkdir -p "$CARGO_HOME"
  measure "README: cargo run --example quickstart (fresh clone, empty cargo home)" \
    "$work/clone" cargo run --example quickstart
  measure "README: cargo test --workspace (after the example)" \
    "$work/clone" cargo test --workspace
fi

echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
