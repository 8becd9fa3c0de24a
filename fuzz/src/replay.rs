//! Replays every saved input of a fuzz target (its minimized corpus in `corpus/NAME/`, and any
//! crash inputs in `artifacts/NAME/`) through the target's body: the stable-Rust half of every
//! fuzz target, included by the main crate's and the interop crate's `tests/fuzz_replay.rs`.

use std::path::Path;

/// Runs `target` on every file saved for the target `name` under `fuzz_dir`; returns how many
/// there were. A file whose run panics fails the test, naming the file.
pub fn replay(fuzz_dir: &Path, name: &str, target: fn(&[u8])) -> usize {
    let mut count = 0;
    for dir in ["corpus", "artifacts"] {
        let Ok(entries) = std::fs::read_dir(fuzz_dir.join(dir).join(name)) else {
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
