//! The fuzz targets' bodies and what they share.
//!
//! Two halves, so that each is replayed on stable by the crate that has its dependencies: the
//! decoding helpers and the targets over shaped alone (`common.rs`, replayed by the main
//! crate's `tests/fuzz_replay.rs`), and the targets over the integrations, serde formats,
//! bytemuck and ndarray (`interop.rs`, replayed by `interop/tests/fuzz_replay.rs`).

#[path = "common.rs"]
mod common;
pub use common::*;

#[path = "interop.rs"]
pub mod interop;
