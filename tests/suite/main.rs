//! The integration tests, one binary: each `tests/*.rs` file is a module here. Built as ~40
//! binaries, each one instantiated the same kernels again and linked its own copy: building
//! the tests (feature rayon, debug) took 846 s of compile units and 7m41 on 2 cores; as one
//! binary, 444 s and 5m44 (`cargo test --no-run --timings`). A file that
//! changes process-wide state (a panic hook, rayon's global pool) stays a binary of its own,
//! declared in `Cargo.toml`; `every_test_file_is_built` below checks that no file is left out.
//!
//! Run one file's tests with a filter: `cargo test --test suite -- casts::`.

#![allow(clippy::op_ref)]

// Helpers the files share, once for the whole suite.
#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "alloc")]
#[path = "../common/tflm.rs"]
mod tflm;

#[path = "../adversarial.rs"]
mod adversarial;
#[path = "../agreement.rs"]
mod agreement;
#[path = "../any_tensor.rs"]
mod any_tensor;
#[path = "../binary.rs"]
mod binary;
#[path = "../blocked.rs"]
mod blocked;
#[path = "../casts.rs"]
mod casts;
#[path = "../contract.rs"]
mod contract;
#[path = "../dynamic_rules.rs"]
mod dynamic_rules;
#[path = "../dynamic_tensor.rs"]
mod dynamic_tensor;
#[path = "../fuzz_replay.rs"]
mod fuzz_replay;
#[path = "../generic_helpers.rs"]
mod generic_helpers;
#[path = "../half_accumulate.rs"]
mod half_accumulate;
#[path = "../indexing.rs"]
mod indexing;
#[path = "../integer_math.rs"]
mod integer_math;
#[path = "../large_static.rs"]
mod large_static;
#[path = "../layers.rs"]
mod layers;
#[path = "../logic.rs"]
mod logic;
#[path = "../manipulate.rs"]
mod manipulate;
#[path = "../math.rs"]
mod math;
#[path = "../matmul.rs"]
mod matmul;
#[path = "../mixed.rs"]
mod mixed;
#[path = "../numerics.rs"]
mod numerics;
#[path = "../ops.rs"]
mod ops;
#[path = "../panics_in_fills.rs"]
mod panics_in_fills;
#[path = "../partial_shapes.rs"]
mod partial_shapes;
#[path = "../properties.rs"]
mod properties;
#[path = "../quantized.rs"]
mod quantized;
#[path = "../quantized_tflm.rs"]
mod quantized_tflm;
#[path = "../quantized_tflm_matmul.rs"]
mod quantized_tflm_matmul;
#[path = "../reduce.rs"]
mod reduce;
#[path = "../residual_model.rs"]
mod residual_model;
#[path = "../rules_document.rs"]
mod rules_document;
#[path = "../select.rs"]
mod select;
#[path = "../short_rows.rs"]
mod short_rows;
#[path = "../sine_model.rs"]
mod sine_model;
#[path = "../spec_rules.rs"]
mod spec_rules;
#[path = "../tensor.rs"]
mod tensor;
#[path = "../unary_reference.rs"]
mod unary_reference;
#[path = "../wide.rs"]
mod wide;

/// With `autotests = false`, a file in `tests/` that nobody lists would never run.
#[test]
fn every_test_file_is_built() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = include_str!("main.rs");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut files = 0;
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        let in_suite = suite.contains(&format!("#[path = \"../{name}\"]\nmod {stem};"));
        let own_binary = manifest.contains(&format!("path = \"tests/{name}\""));
        assert!(
            in_suite != own_binary,
            "tests/{name} must be either a module of the suite or a binary of its own"
        );
        files += 1;
    }
    assert!(files > 40, "only {files} test files found");
}
