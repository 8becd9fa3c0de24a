//! The `blocked_layouts` fuzz target: the body is `shaped_fuzz::targets::blocked_layouts::run`, which the main
//! crate's `tests/fuzz_replay.rs` also runs on every saved input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| shaped_fuzz::targets::blocked_layouts::run(data));
