//! The `range_pad` fuzz target: the body is `shaped_fuzz::targets::range_pad::run`, which the main
//! crate's `tests/fuzz_replay.rs` also runs on every saved input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| shaped_fuzz::targets::range_pad::run(data));
