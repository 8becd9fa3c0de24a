//! Every input saved for the fuzz targets over the integrations (serde formats, bytemuck,
//! ndarray: their corpora in `fuzz/corpus/`, any crash inputs in `fuzz/artifacts/`) replayed
//! through the same target bodies, on stable Rust with no cargo-fuzz. The main crate's
//! `tests/fuzz_replay.rs` does the same for the targets over shaped alone.

#[path = "../../fuzz/src/common.rs"]
#[allow(dead_code)]
mod common;
#[path = "../../fuzz/src/interop.rs"]
mod interop;

// The interop targets find their helpers at the root, as in the fuzz crate.
use common::{count, indices, Input};

#[path = "../../fuzz/src/replay.rs"]
mod replay;

/// The fuzz crate's folder.
fn fuzz_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

macro_rules! replay_tests {
    ($($name:ident)*) => {$(
        #[test]
        fn $name() {
            let n = replay::replay(&fuzz_dir(), stringify!($name), interop::$name::run);
            assert!(n >= 20, "only {n} saved inputs for {}", stringify!($name));
        }
    )*};
}

replay_tests!(serde_decoding bytemuck_views ndarray_bridge);
