//! The unsafe paths Miri cannot afford, as a binary of their own for CI's AddressSanitizer
//! step: the AVX2 copies of the runtime loops at full size (`wide`, which Miri runs only at
//! small sizes, in the library's own `avx2_loops` test) and every saved fuzz input
//! (`fuzz_replay`, 14 000 inputs). Built alone, the sanitized build is the library and these
//! two files, not the whole suite.

#[path = "../common/mod.rs"]
mod common;
#[path = "../fuzz_replay.rs"]
mod fuzz_replay;
#[path = "../wide.rs"]
mod wide;
