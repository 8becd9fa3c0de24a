//! Every input the fuzz targets saved (their minimized corpora in `fuzz/corpus/`, and any crash
//! inputs in `fuzz/artifacts/`) replayed through the same target bodies, on stable Rust with no
//! cargo-fuzz: a finding stays fixed, and the references keep agreeing with the crate.

#[path = "../fuzz/src/common.rs"]
#[allow(dead_code)]
mod shaped_fuzz;

#[path = "../fuzz/src/replay.rs"]
mod replay;

/// The fuzz crate's folder.
fn fuzz_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

macro_rules! replay_tests {
    ($($name:ident)*) => {$(
        #[test]
        fn $name() {
            let n = replay::replay(&fuzz_dir(), stringify!($name), shaped_fuzz::targets::$name::run);
            assert!(n >= 20, "only {n} saved inputs for {}", stringify!($name));
        }
    )*};
}

replay_tests!(broadcast_shapes broadcast_to dyn_tensor strided_kernels binary_primitive reductions products shape_ops slicing gather casts blocked_layouts partial_shapes range_pad conv);
