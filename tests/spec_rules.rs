//! One test per rule of RULES.md (sections 1, 2 and 4) on the static path. Each shape pair goes
//! through the compile-time rules (the output type is written out, so a wrong type fails to
//! compile), the runtime rules in `shaped::rules`, and the index-by-index reference, and the
//! three must agree on shape and values. Rejected pairs are compile-fail cases in `ui-tests/`.

// The by-reference operator forms are what these tests exercise; clippy prefers by-value only
// because tensors of `Copy` elements are themselves `Copy`.
#![allow(clippy::op_ref)]

use crate::common;

use shaped::{rules, Shape, StaticShape, Tensor};

/// Distinct values so a wrong read shows: element k of a tensor is `base + k`.
fn numbered<S: StaticShape>(base: i64) -> Tensor<i64, S> {
    let mut k = base;
    Tensor::from_fn(|_| {
        k += 1;
        k - 1
    })
}

/// Runs `A op B` statically, checks the output type is `Out`, and compares with the runtime
/// rule and the reference, in both operand orders (P4).
macro_rules! numpy_case {
    ([$($a:tt)*] , [$($b:tt)*] => [$($o:tt)*]) => {{
        let a = numbered::<Shape![$($a)*]>(0);
        let b = numbered::<Shape![$($b)*]>(1000);
        let ab: Tensor<i64, Shape![$($o)*]> = &a + &b;
        let ba: Tensor<i64, Shape![$($o)*]> = &b - &a;
        let (out, expect_ab) = common::reference(a.as_slice(), &a.shape(), b.as_slice(), &b.shape(), |x, y| x + y);
        let (_, expect_ba) = common::reference(b.as_slice(), &b.shape(), a.as_slice(), &a.shape(), |x, y| x - y);
        assert_eq!(&ab.shape()[..], &out[..]);
        assert_eq!(ab.as_slice(), &expect_ab[..]);
        assert_eq!(ba.as_slice(), &expect_ba[..]);
        let mut runtime = [usize::MAX; 8];
        let rank = rules::numpy_shape(&a.shape(), &b.shape(), &mut runtime).expect("runtime rule accepts");
        assert_eq!(&runtime[..rank], &out[..]);
        ab
    }};
}

#[test]
fn n1_none_needs_identical_shapes_and_stretches_nothing() {
    let a = numbered::<Shape![2, 3]>(0);
    let b = numbered::<Shape![2, 3]>(10);
    let c: Tensor<i64, Shape![2, 3]> = a.zip_map(&b, |x, y| x * 100 + y);
    assert_eq!(c.as_slice(), &[10, 111, 212, 313, 414, 515]);
    assert!(rules::none_compatible(&[2, 3], &[2, 3]));
    assert!(
        !rules::none_compatible(&[2, 3], &[1, 3]),
        "a 1 does not stretch under NONE"
    );
    // (2, 3) against (3, 2) or (1, 3): ui-tests/none_mismatch.rs
}

#[test]
fn n2_rank0_with_rank0_gives_rank0() {
    let a = Tensor::<i64, Shape![]>::scalar(6);
    let b = Tensor::<i64, Shape![]>::scalar(7);
    let c: Tensor<i64, Shape![]> = a.zip_map(&b, |x, y| x * y);
    assert_eq!(c.shape(), [0usize; 0]);
    assert_eq!(c[[]], 42);
    assert!(
        !rules::none_compatible(&[1], &[]),
        "[1] vs [] is a rank mismatch"
    );
    // [1] against []: ui-tests/none_rank_mismatch.rs
}

#[test]
fn n3_zero_size_dims_are_ordinary_values() {
    let a = Tensor::<f32, Shape![0]>::zeros();
    let c: Tensor<f32, Shape![0]> = a.zip_map(&a, |x, y| x + y);
    assert!(c.is_empty());
    assert_eq!(c.shape(), [0]);
    assert!(!rules::none_compatible(&[0], &[1]));
}

#[test]
fn p1_right_align_and_pad_with_ones() {
    numpy_case!([3], [2, 3] => [2, 3]);
    numpy_case!([6, 5], [2, 1, 5] => [2, 6, 5]);
    numpy_case!([3, 2, 1, 4], [5, 4] => [3, 2, 5, 4]);
}

#[test]
fn p2_equal_dims_or_a_one() {
    numpy_case!([2, 1, 5], [1, 4, 5] => [2, 4, 5]);
    numpy_case!([2, 1, 5], [4, 1] => [2, 4, 5]);
    numpy_case!([1, 1], [1, 1] => [1, 1]);
    let mut out = [0; 2];
    assert_eq!(rules::numpy_shape(&[3], &[2], &mut out), None);
}

#[test]
fn p3_rank0_with_any_shape() {
    let s = numbered::<Shape![]>(5);
    let t = numbered::<Shape![2, 3, 5]>(0);
    let c: Tensor<i64, Shape![2, 3, 5]> = &t * &s;
    assert_eq!(c[[1, 2, 4]], 29 * 5);
    let d: Tensor<i64, Shape![]> = &s + &s;
    assert_eq!(d[[]], 10);
    let e: Tensor<i64, Shape![2, 3, 5]> = &t + 1;
    assert_eq!(e.as_slice()[..3], [1, 2, 3]);
    numpy_case!([], [2, 3, 5] => [2, 3, 5]);
    numpy_case!([], [] => []);
}

#[test]
fn p4_either_operand_stretches() {
    // `numpy_case` runs both orders; here A stretches in the first and B in the second.
    numpy_case!([1, 5, 3], [5, 2, 1, 3] => [5, 2, 5, 3]);
    numpy_case!([5, 2, 1, 3], [1, 5, 3] => [5, 2, 5, 3]);
    let c = numpy_case!([1, 4], [4, 1] => [4, 4]);
    assert_eq!(c[[2, 3]], 3 + 1002);
}

#[test]
fn p5_one_stretches_to_zero_and_not_max() {
    let c = numpy_case!([1], [0] => [0]);
    assert!(c.is_empty());
    let d = numpy_case!([1, 0], [0, 1] => [0, 0]);
    assert_eq!(d.len(), 0);
    numpy_case!([2, 1], [1, 0] => [2, 0]);
    assert_eq!(rules::numpy_dim(1, 0), Some(0), "not max(1, 0)");
    assert_eq!(rules::numpy_dim(0, 2), None);
    // 0 against 3: ui-tests/numpy_zero_vs_n.rs
}

#[test]
fn p6_output_rank_is_the_larger_and_leading_ones_stay() {
    let c = numpy_case!([1, 1], [3] => [1, 3]);
    assert_eq!(c.rank(), 2);
    numpy_case!([1, 1, 1], [2] => [1, 1, 2]);
}

#[test]
fn p7_seed_examples() {
    numpy_case!([2, 3], [1] => [2, 3]);
    numpy_case!([3], [2, 3] => [2, 3]);
    numpy_case!([2, 3, 5], [] => [2, 3, 5]);
    numpy_case!([2, 1, 5], [1, 4, 5] => [2, 4, 5]);
    numpy_case!([6, 5], [2, 1, 5] => [2, 6, 5]);
    numpy_case!([2, 1, 5], [4, 1] => [2, 4, 5]);
    numpy_case!([3, 2, 1, 4], [5, 4] => [3, 2, 5, 4]);
    numpy_case!([1, 5, 3], [5, 2, 1, 3] => [5, 2, 5, 3]);
    numpy_case!([8, 1, 6, 1], [7, 1, 5] => [8, 7, 6, 5]);
    // The rejected seed pairs are compile errors (ui-tests/numpy_*.rs); the runtime rule agrees.
    let mut out = [0; 3];
    for (a, b) in [
        (&[3][..], &[2][..]),
        (&[3, 1, 5], &[4, 4, 5]),
        (&[2, 3], &[2]),
        (&[1, 3, 4], &[2, 3, 3]),
    ] {
        assert_eq!(rules::numpy_shape(a, b, &mut out), None, "{a:?} with {b:?}");
    }
}

#[test]
fn p8_nary_is_a_left_fold_in_any_order() {
    let a = numbered::<Shape![1, 2]>(0);
    let b = numbered::<Shape![3, 1]>(10);
    let c = numbered::<Shape![3, 2]>(100);
    let left: Tensor<i64, Shape![3, 2]> = &(&a + &b) + &c;
    let right: Tensor<i64, Shape![3, 2]> = &a + &(&b + &c);
    let swapped: Tensor<i64, Shape![3, 2]> = &(&c + &a) + &b;
    assert_eq!(left, right);
    assert_eq!(left, swapped);
    assert_eq!(left.as_slice(), &[110, 112, 113, 115, 116, 118]);
    // Adding (10, 5) fails only at that last step: ui-tests/scalar_mismatch_in_chain.rs
}

#[test]
fn b1_bidirectional_is_numpy_of_input_and_target() {
    let a = numbered::<Shape![2, 1, 5]>(0);
    let d: Tensor<i64, Shape![3, 2, 4, 5]> = a.broadcast_bidirectional::<Shape![3, 2, 4, 5]>();
    for idx in common::indices(&d.shape()) {
        let want = common::read_broadcast(a.as_slice(), &a.shape(), &idx);
        assert_eq!(d[[idx[0], idx[1], idx[2], idx[3]]], want);
    }
    // `numpy(input) * ones(target)`: the same shape as the NUMPY rule gives.
    let ones = Tensor::<i64, Shape![3, 2, 4, 5]>::splat(1);
    assert_eq!(&a * &ones, d);
}

#[test]
fn b2_output_may_differ_from_the_target() {
    let a = numbered::<Shape![1, 4, 1]>(0);
    let b: Tensor<i64, Shape![1, 4, 4]> = a.broadcast_bidirectional::<Shape![1, 4]>();
    assert_eq!(b.as_slice()[4..8], [1, 1, 1, 1]);
    let c: Tensor<i64, Shape![2, 3]> =
        numbered::<Shape![2, 3]>(0).broadcast_bidirectional::<Shape![3]>();
    assert_eq!(c.as_slice(), &[0, 1, 2, 3, 4, 5]);
    let d: Tensor<i64, Shape![3]> = numbered::<Shape![3]>(7).broadcast_bidirectional::<Shape![]>();
    assert_eq!(d.as_slice(), &[7, 8, 9]);
    // Shapes np.broadcast_to rejects but Bidirectional accepts (A15).
    let e: Tensor<i64, Shape![3]> = numbered::<Shape![3]>(0).broadcast_bidirectional::<Shape![1]>();
    assert_eq!(e.shape(), [3]);
    let f: Tensor<i64, Shape![2, 2]> =
        numbered::<Shape![1, 2]>(0).broadcast_bidirectional::<Shape![2, 1]>();
    assert_eq!(f.as_slice(), &[0, 1, 0, 1]);
}

#[test]
fn b3_zero_size_targets() {
    let a: Tensor<i64, Shape![0]> = numbered::<Shape![1]>(0).broadcast_bidirectional::<Shape![0]>();
    assert!(a.is_empty());
    let b: Tensor<i64, Shape![2, 0]> =
        numbered::<Shape![2, 0]>(0).broadcast_bidirectional::<Shape![2, 1]>();
    assert_eq!(b.shape(), [2, 0]);
}

#[test]
fn b4_incompatible_pairs_are_rejected_by_the_runtime_rule_too() {
    // Compile-time: ui-tests/bidirectional_mismatch.rs.
    let mut out = [0; 3];
    assert_eq!(rules::numpy_shape(&[4, 3, 2], &[8, 6, 4], &mut out), None);
    assert_eq!(rules::numpy_shape(&[1, 1, 2], &[2, 3], &mut out), None);
}

/// The static path and the runtime rules agree on every pair of small shapes (ranks 0-2,
/// dims 0-3) that the compiler accepts; the reference checks the values.
#[test]
fn static_path_agrees_with_runtime_rules_on_generated_pairs() {
    macro_rules! pairs {
        ($([$($a:tt)*] [$($b:tt)*] [$($o:tt)*]),* $(,)?) => {{
            let mut n = 0;
            $( numpy_case!([$($a)*], [$($b)*] => [$($o)*]); n += 1; )*
            n
        }};
    }
    let n = pairs!(
        [0] [1] [0], [1] [0] [0], [0] [0] [0], [2] [2] [2], [3] [1] [3],
        [1, 0] [3, 1] [3, 0], [2, 3] [3] [2, 3], [0, 3] [1, 3] [0, 3], [3, 1] [1, 2] [3, 2],
        [1, 1] [0] [1, 0], [2, 0] [2, 1] [2, 0], [] [0, 2] [0, 2], [3, 3] [3, 3] [3, 3],
        [1, 2, 3] [2, 1] [1, 2, 3], [2, 1, 1] [1, 3] [2, 1, 3], [1] [] [1],
    );
    assert_eq!(n, 16);
}

/// B6 at compile time: `Stretched::AXES` is a constant, and agrees with the runtime answer.
#[test]
fn b6_stretched_axes_are_compile_time_constants() {
    use shaped::rules::{stretched_axes_to, AxisSet, BroadcastToMode};
    use shaped::typed::rules::Stretched;
    const BIAS: AxisSet = Stretched::<Shape![1, 8, 1, 1], Shape![2, 8, 5, 5]>::AXES;
    const ROW: AxisSet = Stretched::<Shape![4], Shape![3, 4]>::AXES;
    const SAME: AxisSet = Stretched::<Shape![3, 4], Shape![3, 4]>::AXES;
    const SCALAR: AxisSet = Stretched::<Shape![], Shape![2, 1]>::AXES;
    assert_eq!(BIAS.iter().collect::<Vec<_>>(), [0, 2, 3]);
    assert_eq!(ROW.iter().collect::<Vec<_>>(), [0]);
    assert!(SAME.is_empty());
    assert_eq!(SCALAR.iter().collect::<Vec<_>>(), [0, 1]);
    let numpy = |d: &[usize], t: &[usize]| stretched_axes_to(d, t, BroadcastToMode::Numpy).unwrap();
    assert_eq!(BIAS, numpy(&[1, 8, 1, 1], &[2, 8, 5, 5]));
    assert_eq!(ROW, numpy(&[4], &[3, 4]));
    assert_eq!(SCALAR, numpy(&[], &[2, 1]));
}
