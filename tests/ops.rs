//! Element values of every operation on broadcast shapes, checked against the reference.

// The by-reference operator forms are what these tests exercise; clippy prefers by-value only
// because tensors of `Copy` elements are themselves `Copy`.
#![allow(clippy::op_ref)]

use crate::common;

use shaped::{HeapTensor, Shape, Tensor, TensorView, TensorViewMut};

type A = Shape![2, 1, 3];
type B = Shape![4, 1];
type Out = Shape![2, 4, 3];

fn a_f() -> Tensor<f32, A> {
    Tensor::from([[[1.5, -2.0, 3.0]], [[4.0, 0.5, -6.0]]])
}
fn b_f() -> Tensor<f32, B> {
    Tensor::from([[2.0], [-1.0], [0.5], [3.0]])
}
fn a_i() -> Tensor<i32, A> {
    Tensor::from([[[7, -8, 9]], [[10, 11, -12]]])
}
fn b_i() -> Tensor<i32, B> {
    Tensor::from([[2], [-3], [4], [5]])
}

fn check<T: Copy, V: PartialEq + core::fmt::Debug>(
    got: &Tensor<V, Out>,
    a: &Tensor<T, A>,
    b: &Tensor<T, B>,
    f: impl Fn(T, T) -> V,
) {
    let (shape, want) = common::reference(a.as_slice(), &a.shape(), b.as_slice(), &b.shape(), f);
    assert_eq!(&got.shape()[..], &shape[..]);
    assert_eq!(got.as_slice(), &want[..]);
}

#[test]
fn arithmetic_operators_on_floats() {
    let (a, b) = (a_f(), b_f());
    check(&(&a + &b), &a, &b, |x, y| x + y);
    check(&(&a - &b), &a, &b, |x, y| x - y);
    check(&(&a * &b), &a, &b, |x, y| x * y);
    check(&(&a / &b), &a, &b, |x, y| x / y);
    check(&(&a % &b), &a, &b, |x, y| x % y);
    assert_eq!((&a + &b)[[1, 3, 2]], -3.0);
}

#[test]
fn arithmetic_and_bit_operators_on_ints() {
    let (a, b) = (a_i(), b_i());
    check(&(&a + &b), &a, &b, |x, y| x + y);
    check(&(&a - &b), &a, &b, |x, y| x - y);
    check(&(&a * &b), &a, &b, |x, y| x * y);
    check(&(&a / &b), &a, &b, |x, y| x / y);
    check(&(&a % &b), &a, &b, |x, y| x % y);
    check(&(&a & &b), &a, &b, |x, y| x & y);
    check(&(&a | &b), &a, &b, |x, y| x | y);
    check(&(&a ^ &b), &a, &b, |x, y| x ^ y);
    assert_eq!((&a / &b)[[0, 1, 2]], -3, "9 / -3");
}

#[test]
fn owned_and_borrowed_operands_give_the_same_result() {
    let (a, b) = (a_i(), b_i());
    let by_ref = &a + &b;
    assert_eq!(a + b, by_ref);
    assert_eq!(a + &b, by_ref);
    assert_eq!(&a + b, by_ref);
}

#[test]
fn scalar_operands_on_either_side() {
    let a = a_f();
    let plus: Tensor<f32, A> = &a + 1.0;
    assert_eq!(plus.as_slice(), &[2.5, -1.0, 4.0, 5.0, 1.5, -5.0]);
    let minus: Tensor<f32, A> = 10.0 - &a;
    assert_eq!(minus.as_slice(), &[8.5, 12.0, 7.0, 6.0, 9.5, 16.0]);
    let div = 3.0 / &a;
    assert_eq!(div[[0, 0, 1]], -1.5);
    let i = a_i();
    assert_eq!((2 * &i).as_slice(), &[14, -16, 18, 20, 22, -24]);
    assert_eq!((&i % 4).as_slice(), &[3, 0, 1, 2, 3, 0]);
}

#[test]
fn maximum_minimum_and_nan() {
    let (a, b) = (a_f(), b_f());
    check(&a.maximum(&b), &a, &b, |x: f32, y: f32| x.max(y));
    check(&a.minimum(&b), &a, &b, |x: f32, y: f32| x.min(y));
    let n = Tensor::<f32, Shape![3]>::from([f32::NAN, 1.0, 2.0]);
    let m = Tensor::<f32, Shape![3]>::from([0.0, f32::NAN, 1.0]);
    let max = n.maximum(&m);
    assert!(
        max[[0]].is_nan() && max[[1]].is_nan(),
        "NaN propagates, as in numpy"
    );
    assert_eq!(max[[2]], 2.0);
    let min = n.minimum(&m);
    assert!(min[[0]].is_nan() && min[[1]].is_nan());
    assert_eq!(min[[2]], 1.0);
    assert_eq!(a_i().maximum(0).as_slice(), &[7, 0, 9, 10, 11, 0]);
}

#[test]
fn pow_and_squared_difference() {
    let (a, b) = (a_f(), b_f());
    // `powf` is not bit-reproducible everywhere (Miri perturbs it by a few ULPs), so compare
    // with a relative tolerance; NaN (negative base, fractional exponent) must match NaN.
    let got = a.pow(&b);
    let (_, want) = common::reference(
        a.as_slice(),
        &a.shape(),
        b.as_slice(),
        &b.shape(),
        |x: f32, y: f32| x.powf(y),
    );
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "{g} vs {w}"
        );
    }
    assert!((a.pow(&b)[[0, 1, 1]] + 0.5).abs() < 1e-6, "(-2)^-1");
    assert!(a.pow(&b)[[0, 2, 1]].is_nan(), "(-2)^0.5");
    check(&a.squared_difference(&b), &a, &b, |x, y| (x - y) * (x - y));
    assert!((a.pow(2.0)[[1, 0, 2]] - 36.0).abs() < 1e-4, "(-6)^2");
    assert_eq!(a_i().squared_difference(&b_i())[[1, 2, 2]], 256);
}

#[test]
fn comparisons_give_bool_tensors() {
    let (a, b) = (a_f(), b_f());
    check(&a.eq(&b), &a, &b, |x, y| x == y);
    check(&a.ne(&b), &a, &b, |x, y| x != y);
    check(&a.lt(&b), &a, &b, |x, y| x < y);
    check(&a.le(&b), &a, &b, |x, y| x <= y);
    check(&a.gt(&b), &a, &b, |x, y| x > y);
    check(&a.ge(&b), &a, &b, |x, y| x >= y);
    let half: Tensor<bool, A> = a.eq(0.5);
    assert_eq!(half.as_slice(), &[false, false, false, false, true, false]);
}

#[test]
fn logical_operations_on_bool_tensors() {
    let p = Tensor::<bool, Shape![2, 1]>::from([[true], [false]]);
    let q = Tensor::<bool, Shape![2]>::from([true, false]);
    assert_eq!(p.and(&q).as_slice(), &[true, false, false, false]);
    assert_eq!(p.or(&q).as_slice(), &[true, true, true, false]);
    assert_eq!(p.xor(&q).as_slice(), &[false, true, true, false]);
    assert_eq!(p.and(true).as_slice(), &[true, false]);
    assert_eq!((&p & &q), p.and(&q));
}

#[test]
fn broadcast_with_and_into() {
    let (a, b) = (a_i(), b_i());
    let pairs = a.broadcast_with(&b, |&x, &y| (x, y));
    assert_eq!(pairs[[1, 2, 0]], (10, 4));
    let mut buf = [0i64; 24];
    let mut out = TensorViewMut::<i64, Out>::new(&mut buf).unwrap();
    a.broadcast_with_into(&b, &mut out, |&x, &y| i64::from(x) * 100 + i64::from(y));
    assert_eq!(out[[1, 3, 2]], -1195);
    assert_eq!(buf[0], 702);
}

#[test]
fn map_and_zip_map_keep_the_shape() {
    let a = a_i();
    let m: Tensor<bool, A> = a.map(|&x| x > 0);
    assert_eq!(m.as_slice(), &[true, false, true, true, true, false]);
    let z: Tensor<i32, A> = a.zip_map(&a, |x, y| x - y);
    assert!(z.iter().all(|&x| x == 0));
}

#[test]
fn views_and_heap_tensors_take_part_in_the_same_ops() {
    let data: Vec<f32> = (0..6).map(|x| x as f32).collect();
    let view = TensorView::<f32, Shape![2, 3]>::new(&data).unwrap();
    let row = Tensor::<f32, Shape![3]>::from([10.0, 20.0, 30.0]);
    let on_stack: Tensor<f32, Shape![2, 3]> = &view + &row;
    assert_eq!(on_stack.as_slice(), &[10.0, 21.0, 32.0, 13.0, 24.0, 35.0]);
    let heap = HeapTensor::<f32, Shape![2, 3]>::from_vec(data.clone()).unwrap();
    let on_heap: HeapTensor<f32, Shape![2, 3]> = &heap + &row;
    assert_eq!(on_heap, on_stack);
    let also_heap: HeapTensor<f32, Shape![2, 3]> = &row + &heap;
    assert_eq!(also_heap, on_stack);
    let mapped: HeapTensor<bool, Shape![2, 3]> = heap.gt(2.0);
    assert_eq!(mapped.iter().filter(|x| **x).count(), 3);
}

/// A shape far too large for a default thread stack, only ever on the heap or in views.
/// (Skipped under Miri: heap and view paths reach no `unsafe`, and half a million elements
/// take minutes there.)
#[test]
#[cfg_attr(miri, ignore)]
fn large_static_shapes_stay_off_the_stack() {
    type Big = Shape![512, 1024];
    let a = HeapTensor::<f32, Big>::from_fn(|[i, j]| (i + j) as f32);
    let bias = Tensor::<f32, Shape![1024]>::from_fn(|[j]| -(j as f32));
    let c: HeapTensor<f32, Big> = &a + &bias;
    assert_eq!(c[[511, 1023]], 511.0);
    assert!(c.iter().step_by(997).all(|x| x.fract() == 0.0 && *x >= 0.0));
    let mut out = vec![0.0f32; 512 * 1024];
    let view = TensorView::<f32, Big>::new(a.as_slice()).unwrap();
    let mut dst = TensorViewMut::<f32, Big>::new(&mut out).unwrap();
    view.broadcast_with_into(&bias, &mut dst, |x, y| x * y);
    assert_eq!(out[1025], -2.0, "a[1, 1] * bias[1] = 2 * -1");
}

/// Results of at least 4096 elements take the plan kernel (heap results are written in
/// place); every element is checked against the reference. Just above that size (4608
/// elements) so that Miri, which checks the in-place writes, runs it in about a minute.
#[test]
fn large_results_take_the_plan_kernel_and_match_the_reference() {
    type A = Shape![2, 1, 32, 24];
    type B = Shape![3, 1, 24];
    type Out = Shape![2, 3, 32, 24];
    let a = HeapTensor::<i64, A>::from_fn(|[i, _, k, l]| (i * 10_000 + k * 100 + l) as i64);
    let b = Tensor::<i64, B>::from_fn(|[j, _, l]| (j * 1_000_000 + l) as i64);
    let sum: HeapTensor<i64, Out> = &a + &b;
    let (shape, want) = common::reference(
        a.as_slice(),
        &a.shape(),
        b.as_slice(),
        &b.shape(),
        |x, y| x + y,
    );
    assert_eq!(&sum.shape()[..], &shape[..]);
    assert_eq!(sum.as_slice(), &want[..]);

    let grown: HeapTensor<i64, Out> = a.broadcast_bidirectional::<Out>();
    let mut k = 0;
    common::for_each_index(&grown.shape(), |idx| {
        if k % 97 == 0 {
            assert_eq!(
                grown.as_slice()[k],
                common::read_broadcast(a.as_slice(), &a.shape(), idx)
            );
        }
        k += 1;
    });
    assert_eq!(k, grown.len());
    let doubled = sum.zip_map(&sum, |x, y| x + y);
    assert!(doubled.iter().zip(sum.iter()).all(|(d, s)| *d == 2 * s));
    let parity: HeapTensor<bool, Out> = sum.map(|x| x % 2 == 0);
    assert_eq!(
        parity.iter().filter(|p| **p).count(),
        sum.iter().filter(|x| *x % 2 == 0).count()
    );

    // Into a caller's buffer through views.
    let mut buf = vec![0i64; 2 * 3 * 32 * 24];
    let mut out = TensorViewMut::<i64, Out>::new(&mut buf).unwrap();
    a.view().broadcast_with_into(&b, &mut out, |x, y| x - y);
    let (_, want_diff) = common::reference(
        a.as_slice(),
        &a.shape(),
        b.as_slice(),
        &b.shape(),
        |x, y| x - y,
    );
    assert_eq!(buf, want_diff);
}

/// Static results of 2 KiB and more are filled by an out-of-line call that writes into
/// uninitialised slots (`util::fill_out_of_line`): a broadcast add, a map, a transpose and a
/// narrow just past that size, each element checked. Small enough for Miri, which checks that
/// every slot is written before it is read.
#[test]
fn results_of_two_kib_and_more_are_filled_out_of_line() {
    let a = Tensor::<f32, Shape![16, 32]>::from_fn(|[i, j]| (i * 32 + j) as f32);
    let row = Tensor::<f32, Shape![32]>::from_fn(|[j]| -(j as f32) / 2.0);
    let sum = &a + &row;
    assert_eq!(sum.as_slice().len() * 4, 2048);
    assert_eq!(sum[[3, 10]], 96.0 + 10.0 - 5.0);
    assert!(sum
        .as_slice()
        .iter()
        .enumerate()
        .all(|(k, &x)| x == k as f32 - (k % 32) as f32 / 2.0));
    let doubled = a.map(|x| x * 2.0);
    assert!(doubled
        .as_slice()
        .iter()
        .enumerate()
        .all(|(k, &x)| x == 2.0 * k as f32));
    let t = a.transpose();
    assert_eq!(t.shape().as_ref(), &[32, 16]);
    assert!((0..32).all(|j| (0..16).all(|i| t[[j, i]] == a[[i, j]])));
    let tall = Tensor::<f32, Shape![32, 32]>::from_fn(|[i, j]| (i * 32 + j) as f32);
    let half = tall.narrow::<0, 8, 16>();
    assert!(half
        .as_slice()
        .iter()
        .enumerate()
        .all(|(k, &x)| x == (256 + k) as f32));
}
