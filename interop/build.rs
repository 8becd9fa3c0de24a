//! Sets `cfg(shared_models)` when TFLM's three example models are beside the repository
//! (`../shared/models/`), which `tests/shared_models.rs` imports; the models are never
//! committed, so elsewhere that test only says it was skipped.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_models)");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/models");
    println!("cargo::rerun-if-changed={}", dir.display());
    let all = ["sine.tflite", "speech.tflite", "person_detect.tflite"]
        .iter()
        .all(|m| dir.join(m).is_file());
    if all {
        println!("cargo::rustc-cfg=shared_models");
    }
}
