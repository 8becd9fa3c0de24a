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

/// The message of an inline tensor of `bytes` bytes.
fn too_large(bytes: usize) -> String {
    format!(
        "error[E0080]: evaluation panicked: this tensor's elements need {bytes} bytes, more than \
         the 65536 that a tensor may hold inline (shaped::typed::storage::MAX_INLINE_BYTES), \
         where it would overflow the stack: use HeapTensor (feature `alloc`) for this shape, or \
         a TensorView over a buffer of your own"
    )
}

/// Each error of `errors` with where the compiler says it was met: the error's line, the
/// function being instantiated (the last segment of its path, without generics) and the
/// `file:line:column` of the call that instantiated it.
fn sites(errors: &str) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    let mut lines = errors.lines();
    while let Some(line) = lines.next() {
        if !line.starts_with("error[") {
            continue;
        }
        let error = line.to_string();
        let mut function = String::new();
        let mut site = String::new();
        for line in lines.by_ref() {
            if let Some(rest) =
                line.strip_prefix("note: the above error was encountered while instantiating `fn ")
            {
                let name = rest.trim_end_matches('`');
                let last = name.rsplit(">::").next().unwrap_or(name);
                function = last.split("::<").next().unwrap_or(last).to_string();
            } else if !function.is_empty() {
                if let Some(at) = line.trim_start().strip_prefix("--> ") {
                    site = at.to_string();
                    break;
                }
            }
        }
        found.push((error, function, site));
    }
    found
}

/// A static tensor too large for the stack (`[2, 512, 768]` f32, 3 MiB) does not build, and
/// the one error, at the line that makes it, says how large it is, the limit, and what to use
/// instead.
#[test]
fn inline_tensor_too_large_names_its_size_the_limit_and_heap_tensor() {
    let errors = build_errors("inline_tensor_too_large");
    assert_eq!(
        sites(&errors),
        [(
            too_large(3145728),
            "zeros".into(),
            "src/main.rs:6:13".into()
        )],
        "{errors}"
    );
    assert!(
        errors.contains(
            "evaluation of `<shaped::Tensor<f32, (shaped::Const<2>, shaped::Const<512>, \
             shaped::Const<768>)> as shaped::typed::storage::InlineSize>::FITS` failed"
        ),
        "{errors}"
    );
}

/// A `[128, 1] + [1, 768]` sum and a `[128, 1] x [1, 256]` product are reported at the user's
/// lines, the operator's and the method's, not inside the crate.
#[test]
fn too_large_results_are_reported_at_the_callers_line() {
    let errors = build_errors("large_static_sites");
    assert_eq!(
        sites(&errors),
        [
            (too_large(393216), "add".into(), "src/main.rs:8:15".into()),
            (
                too_large(131072),
                "matmul".into(),
                "src/main.rs:10:19".into()
            ),
        ],
        "{errors}"
    );
}

/// Every kind of operation that makes a new tensor reports a result too large to be inline at
/// the caller's line: constructors, operators (owned and borrowed, a scalar on the left,
/// negation), `try_*`, the binary primitive, products, numerics, `map`, reductions, reorders,
/// casts, joins and conversions.
#[test]
fn each_kind_of_operation_reports_at_the_callers_line() {
    let errors = build_errors("large_static_methods");
    let expected = [
        (66560, "add", 9),
        (67584, "broadcast_to", 10),
        (68096, "try_add", 11),
        (68608, "apply", 12),
        (69120, "splat", 13),
        (70144, "matmul_t", 14),
        (71168, "layer_norm", 16),
        (71680, "map", 18),
        (72192, "neg", 20),
        (72704, "sub", 22),
        (73216, "sum_axis", 24),
        (73728, "permute", 26),
        (74240, "cast", 28),
        (74752, "concat", 30),
        (75264, "to_stack", 32),
    ]
    .map(|(bytes, function, line)| {
        (
            too_large(bytes),
            function.to_string(),
            format!("src/main.rs:{line}:13"),
        )
    });
    assert_eq!(sites(&errors), expected, "{errors}");
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
