//! The integration tests, one binary: each `tests/*.rs` file is a module here (those that
//! reach `unsafe` code are in `tests/unsafe_paths/` for CI's Miri step, and those too large
//! for Miri in `tests/native_paths/` for its AddressSanitizer step). Built as ~40 binaries,
//! each one instantiated the same kernels again and linked its own copy: building the tests
//! (feature rayon, debug) took 846 s of compile units and 7m41 on 2 cores; as one binary,
//! 444 s and 5m44 (`cargo test --no-run --timings`). A file that changes process-wide state
//! (a panic hook, rayon's global pool) stays a binary of its own, declared in `Cargo.toml`;
//! `every_test_file_is_built` below checks that no file is left out.
//!
//! Run one file's tests with a filter: `cargo test --test suite -- casts::`.

#![allow(clippy::op_ref)]

// Helpers the files share, once for the whole suite.
#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "model")]
#[path = "../common/model_inputs.rs"]
mod model_inputs;
#[cfg(feature = "alloc")]
#[path = "../common/tflm.rs"]
mod tflm;
#[cfg(feature = "alloc")]
#[path = "../common/tflm_conv.rs"]
mod tflm_conv;
#[path = "../common/written.rs"]
mod written;

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
#[cfg(feature = "alloc")]
#[path = "../conv_rules.rs"]
mod conv_rules;
#[cfg(feature = "alloc")]
#[path = "../conv_tflm.rs"]
mod conv_tflm;
#[path = "../dynamic_rules.rs"]
mod dynamic_rules;
#[path = "../dynamic_tensor.rs"]
mod dynamic_tensor;
#[path = "../generic_helpers.rs"]
mod generic_helpers;
#[path = "../half_accumulate.rs"]
mod half_accumulate;
#[cfg(feature = "model")]
#[path = "../imported_models.rs"]
mod imported_models;
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
#[path = "../math.rs"]
mod math;
#[path = "../numerics.rs"]
mod numerics;
#[path = "../partial_shapes.rs"]
mod partial_shapes;
#[path = "../properties.rs"]
mod properties;
#[path = "../quantized.rs"]
mod quantized;
#[path = "../quantized_tflm.rs"]
mod quantized_tflm;
#[path = "../quantized_tflm_activations.rs"]
mod quantized_tflm_activations;
#[path = "../quantized_tflm_matmul.rs"]
mod quantized_tflm_matmul;
#[cfg(feature = "alloc")]
#[path = "../range_pad.rs"]
mod range_pad;
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
#[path = "../unary_reference.rs"]
mod unary_reference;

/// With `autotests = false`, a file in `tests/` that nobody lists would never run.
#[test]
fn every_test_file_is_built() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let binaries = [
        include_str!("main.rs"),
        include_str!("../unsafe_paths/main.rs"),
        include_str!("../native_paths/main.rs"),
    ];
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut files = 0;
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        let module = format!("#[path = \"../{name}\"]\nmod {stem};");
        let in_binaries = binaries.iter().filter(|b| b.contains(&module)).count();
        let own_binary = manifest.contains(&format!("path = \"tests/{name}\""));
        assert_eq!(
            in_binaries + usize::from(own_binary),
            1,
            "tests/{name} must be in exactly one test binary"
        );
        files += 1;
    }
    assert!(files > 40, "only {files} test files found");
}
