//! Every input the fuzz targets saved (their minimized corpora in `fuzz/corpus/`, and any crash
//! inputs in `fuzz/artifacts/`) replayed through the same target bodies, on stable Rust with no
//! cargo-fuzz: a finding stays fixed, and the references keep agreeing with the crate.

#[path = "../fuzz/src/common.rs"]
#[allow(dead_code)]
mod shaped_fuzz;

use std::path::Path;

/// Runs `target` on every file saved for it; returns how many there were.
fn replay(name: &str, target: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
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
            let n = replay(stringify!($name), shaped_fuzz::targets::$name::run);
            assert!(n >= 20, "only {n} saved inputs for {}", stringify!($name));
        }
    )*};
}

replay_tests!(broadcast_shapes broadcast_to dyn_tensor strided_kernels binary_primitive reductions products shape_ops);
