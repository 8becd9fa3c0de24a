//! The integration tests that reach the crate's `unsafe` code at sizes Miri can interpret, as a
//! binary of their own, so that CI's Miri step builds only them, not the whole suite
//! (`tests/suite/main.rs` holds the rest, `tests/native_paths/main.rs` the unsafe paths too
//! large for Miri; `every_test_file_is_built` in the suite checks that each `tests/*.rs` file
//! is in one of the binaries). Separate binaries also build side by side on two cores, where
//! one was a single long compile.

#![allow(clippy::op_ref)]

#[path = "../adversarial.rs"]
mod adversarial;
#[path = "../common/mod.rs"]
mod common;
#[path = "../contract.rs"]
mod contract;
#[path = "../manipulate.rs"]
mod manipulate;
#[path = "../matmul.rs"]
mod matmul;
#[path = "../mixed.rs"]
mod mixed;
#[path = "../ops.rs"]
mod ops;
#[path = "../panics_in_fills.rs"]
mod panics_in_fills;
#[path = "../tensor.rs"]
mod tensor;
