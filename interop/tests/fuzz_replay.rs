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

use std::path::Path;

/// Runs `target` on every file saved for it; returns how many there were.
fn replay(name: &str, target: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut count = 0;
    for dir in ["corpus", "artifacts"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(outcome.is_ok(), "{} fails again", path.display());
            count += 1;
        }
    }
    count
}

macro_rules! replay_tests {
    ($($name:ident)*) => {$(
        #[test]
        fn $name() {
            let n = replay(stringify!($name), interop::$name::run);
            assert!(n >= 20, "only {n} saved inputs for {}", stringify!($name));
        }
    )*};
}

replay_tests!(serde_decoding bytemuck_views ndarray_bridge);
