//! Compile-fail tests: the messages users see when a static shape is wrong.
//!
//! The cases are the `*.rs` files of `ui-tests/`, each with the expected `.stderr` beside it.
//! They were made with the rustc named in the README; re-bless after a compiler upgrade with
//! `TRYBUILD=overwrite cargo test -p shaped-ui-tests`, then read the diff.

#[test]
fn compile_errors_read_well() {
    place_models();
    let cases = trybuild::TestCases::new();
    cases.compile_fail("*.rs");
}

/// Copies the models the cases import into the crate trybuild builds them in
/// (`<target>/tests/trybuild/shaped-ui-tests/`), whose directory is their
/// `CARGO_MANIFEST_DIR`: `include_model!` reads paths relative to it.
fn place_models() {
    let exe = std::env::current_exe().unwrap();
    // `<target>/debug/deps/<this test>`.
    let target = exe.ancestors().nth(3).unwrap();
    let project = target.join("tests/trybuild/shaped-ui-tests");
    std::fs::create_dir_all(&project).unwrap();
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models");
    std::fs::copy(models.join("speech.tflite"), project.join("speech.tflite")).unwrap();
}

/// No primary error line may show typenum internals.
#[test]
fn error_lines_show_no_typenum_internals() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "stderr") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines().filter(|l| l.starts_with("error")) {
                // typenum, and the dispatch machinery: a primary line naming either means the
                // rule's own message did not fire.
                for bad in [
                    "UInt<",
                    "UTerm",
                    "B0",
                    "B1",
                    "KindPath",
                    "KindAssign",
                    "OperatorPath",
                    "AssignPath",
                    "NumpyWith",
                ] {
                    assert!(!line.contains(bad), "{}: {line}", path.display());
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "only {checked} error lines found");
}

/// The commonest slips get short errors whose first line says what is wrong: the element types,
/// or the limit that was hit.
#[test]
fn common_slips_have_short_errors_naming_the_cause() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        ("element_type_mismatch", "`f32`"),
        ("integer_literal_operand", "`f32`"),
        ("compare_integer_literal", "`f32`"),
        ("rank_above_max", "at most 8 dims"),
        ("generic_dim_without_bound", "static-dim table"),
    ];
    for (case, needle) in cases {
        let text = std::fs::read_to_string(dir.join(format!("{case}.stderr"))).unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.starts_with("error"), "{case}: {first}");
        assert!(first.contains(needle), "{case}: {first}");
        assert!(
            text.lines().count() <= 30,
            "{case}: {} lines",
            text.lines().count()
        );
    }
}

/// Each static misuse of a reduction, a shape manipulation or a matrix product names, on its first line, the
/// shapes or the axis, and the rule.
#[test]
fn shape_manipulation_errors_name_the_shapes_and_the_rule() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        (
            "reshape_count_mismatch",
            &[
                "`(shaped::Const<2>, shaped::Const<3>, shaped::Const<4>)`",
                "(M1)",
            ][..],
        ),
        (
            "squeeze_not_one",
            &["axis 1", "`shaped::Const<3>`, not 1", "(M3)"],
        ),
        ("insert_axis_out_of_range", &["at 3", "(M3)"]),
        (
            "permute_repeated_axis",
            &["`(Axis<0>, Axis<2>, Axis<0>)`", "repeated (M4)"],
        ),
        ("permute_axis_out_of_range", &["axis 2", "(M4)"]),
        (
            "narrow_past_the_end",
            &["axis 1", "2 elements from 4", "(M5)"],
        ),
        (
            "concat_dim_mismatch",
            &["`(shaped::Const<4>, shaped::Const<4>)`", "axis 0", "(M6)"],
        ),
        ("reduce_axis_out_of_range", &["axis 2", "(R1)"]),
        ("sum_to_incompatible", &["`shaped::Const<4>`", "B5)"]),
        (
            "matmul_inner_mismatch",
            &["`shaped::Const<8>` vs `shaped::Const<4>`", "(G4)"],
        ),
        (
            "matmul_batch_mismatch",
            &["`shaped::Const<2>` with dim `shaped::Const<4>`", "(NUMPY)"],
        ),
        ("matmul_rank_zero", &["`()`", "(G1)"]),
        ("reduce_max_of_empty_axis", &["`shaped::Const<0>`", "(R3)"]),
    ];
    for (case, needles) in cases {
        let text = std::fs::read_to_string(dir.join(format!("{case}.stderr"))).unwrap();
        let first = text.lines().next().unwrap();
        for needle in needles {
            assert!(first.contains(needle), "{case}: {first}");
        }
    }
}

/// A shape-generic function missing a bound is told which bound to add, in `shaped::bounds`.
#[test]
fn generic_functions_are_told_the_bound_to_add() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        (
            "generic_operator_without_bound",
            "shapes `(B, shaped::Const<N>)` and `(shaped::Const<N>,)` are not known to NUMPY-broadcast",
            "add the bound `(B, shaped::Const<N>): shaped::bounds::BroadcastWith<(shaped::Const<N>,)>`",
        ),
        (
            "generic_update_without_bound",
            "a right side of shape `(shaped::Const<N>,)` is not known to broadcast onto `(B, shaped::Const<N>)`",
            "add the bound `(B, shaped::Const<N>): shaped::bounds::UpdateWith<(shaped::Const<N>,)>`",
        ),
        (
            "generic_matmul_without_bound",
            "has no compile-time value for a shape check",
            "required for `(B, shaped::Const<I>)` to implement `MatMulShape<(shaped::Const<I>, shaped::Const<O>)>`",
        ),
        (
            "generic_result_without_storable",
            "is not known to be storable here",
            ": shaped::bounds::Storable` to the function",
        ),
    ];
    for (case, first_line, note) in cases {
        let text = std::fs::read_to_string(dir.join(format!("{case}.stderr"))).unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.contains(first_line), "{case}: {first}");
        assert!(text.contains(note), "{case}: no note `{note}`");
    }
}
