//! The `ndarray_bridge` fuzz target: the body is `shaped_fuzz::interop::ndarray_bridge::run`, which the interop
//! crate's `tests/fuzz_replay.rs` also runs on every saved input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| shaped_fuzz::interop::ndarray_bridge::run(data));
