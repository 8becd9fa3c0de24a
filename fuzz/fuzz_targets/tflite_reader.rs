//! The `tflite_reader` fuzz target: shaped-tflite's reader, arena planner and code generator
//! on any bytes. Whatever the input, reading returns a model or an error (never a panic or a
//! hang), a model keeps the reader's promises, every plan of it passes `Plan::verify`, and
//! the generator (what `include_model!` runs in the compiler) returns code or an error.
//!
//! Seed it with the repository's models, copied at run time (never committed: they are
//! `tests/models/`'s files):
//!
//! ```sh
//! mkdir -p corpus/tflite_reader && cp ../tests/models/*.tflite corpus/tflite_reader/
//! cargo +nightly fuzz run tflite_reader -- -max_total_time=300
//! ```
//!
//! Inputs it finds that fail are kept as regression tests in `tflite/tests/fuzz_regressions.rs`.
#![no_main]

use shaped_tflite::{Model, Plan, PlanOptions};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let model = match Model::read(data, "fuzz.tflite") {
        Ok(model) => model,
        Err(e) => {
            // The message is built (a panic there would count) and names the file.
            assert!(e.to_string().starts_with("fuzz.tflite: "));
            return;
        }
    };
    for t in &model.tensors {
        if t.is_constant() {
            assert_eq!(t.bytes(data).map(<[u8]>::len), Some(t.byte_size()));
        }
        if let Some(q) = &t.quantization {
            assert_eq!(q.scales.len(), q.zero_points.len());
        }
    }
    for (i, op) in model.operators.iter().enumerate() {
        assert_eq!(op.index, i);
        for t in op.read_tensors().chain(op.outputs.iter().copied()) {
            assert!(t < model.tensors.len());
        }
    }
    for include_io in [false, true] {
        if let Ok(plan) = Plan::with_options(&model, PlanOptions { include_io }) {
            if let Err(e) = plan.verify(&model) {
                panic!("{e}\n{}", plan.report(&model));
            }
            let _ = plan.report(&model).to_string();
        }
    }
    let name = proc_macro2::Ident::new("Fuzz", proc_macro2::Span::call_site());
    if let Err(e) = shaped_tflite::codegen::generate(&model, data, &name) {
        assert!(e.starts_with("fuzz.tflite: "), "{e}");
    }
});
