//! Compile-fail tests: the messages users see when a static shape is wrong.
//!
//! The expected `.stderr` files sit next to each case in `ui-tests/`. They were made with the
//! rustc named in the README; re-bless after a compiler upgrade with
//! `TRYBUILD=overwrite cargo test --test ui`, then read the diff.

#[test]
fn compile_errors_read_well() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/*.rs");
}

/// No primary error line may show typenum internals.
#[test]
fn error_lines_show_no_typenum_internals() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui-tests");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "stderr") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines().filter(|l| l.starts_with("error")) {
                for bad in ["UInt<", "UTerm", "B0", "B1"] {
                    assert!(!line.contains(bad), "{}: {line}", path.display());
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "only {checked} error lines found");
}
