//! Errors that only a build reports (`cargo check`, and so trybuild, stops before them): a
//! constant evaluated for each concrete type, such as the inline-size limit of a static tensor.
//!
//! Each `build-fail/*.rs` is built as the `main.rs` of a crate depending on shaped, in a target
//! directory under `target/tests/`, and its errors are checked line by line.

use std::path::Path;
use std::process::Command;

/// Builds `build-fail/{case}.rs` and returns what the compiler printed; panics if it built.
fn build_errors(case: &str) -> String {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.parent().unwrap();
    let dir = root.join("target/tests/build-fail").join(case);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{case}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\
         [workspace]\n[dependencies]\nshaped = {{ path = {:?} }}\n",
        root.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let source = std::fs::read_to_string(here.join(format!("build-fail/{case}.rs"))).unwrap();
    std::fs::write(dir.join("src/main.rs"), source).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--offline", "--color=never"])
        .env(
            "CARGO_TARGET_DIR",
            root.join("target/tests/build-fail/target"),
        )
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!output.status.success(), "{case} built");
    String::from_utf8(output.stderr).unwrap()
}

/// A static tensor too large for the stack (`[2, 512, 768]` f32, 3 MiB) does not build, and
/// the error says how large it is, the limit, and what to use instead.
#[test]
fn inline_tensor_too_large_names_its_size_the_limit_and_heap_tensor() {
    let errors = build_errors("inline_tensor_too_large");
    let first = errors.lines().next().unwrap();
    assert_eq!(
        first,
        "error[E0080]: evaluation panicked: this tensor's elements need 3145728 bytes, more than \
         the 65536 that a tensor may hold inline (shaped::typed::storage::MAX_INLINE_BYTES), \
         where it would overflow the stack: use HeapTensor (feature `alloc`) for this shape, or \
         a TensorView over a buffer of your own",
    );
    assert!(
        errors.contains("Owned::<f32, (shaped::Const<2>, shaped::Const<512>, shaped::Const<768>)>"),
        "{errors}"
    );
}

/// O7: a block size given as a const parameter is checked when the program is built.
#[test]
fn block_of_one_is_refused_when_built() {
    let errors = build_errors("block_of_one");
    let first = errors.lines().next().unwrap();
    assert_eq!(
        first,
        "error[E0080]: evaluation panicked: a block holds 2 to 1024 values"
    );
}
