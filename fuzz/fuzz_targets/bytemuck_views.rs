//! The `bytemuck_views` fuzz target: the body is `shaped_fuzz::interop::bytemuck_views::run`, which the interop
//! crate's `tests/fuzz_replay.rs` also runs on every saved input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| shaped_fuzz::interop::bytemuck_views::run(data));
