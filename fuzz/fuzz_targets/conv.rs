//! The `conv` fuzz target: the body is `shaped_fuzz::targets::conv::run`, which the main
//! crate's `tests/fuzz_replay.rs` also runs on every saved input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| shaped_fuzz::targets::conv::run(data));
