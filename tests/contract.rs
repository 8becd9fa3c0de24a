//! The contracts every path shares: integer arithmetic wraps, zero divisors are errors (or a
//! panic naming the error, from operators), `broadcast_to` is one-directional (B5) with
//! `broadcast_bidirectional` beside it (B1), `+=` never grows its left side, NaN goes through
//! `relu` and `clip` as through `maximum`, and every tensor kind has the same access and
//! operators. Each case runs through the static, mixed and runtime paths.

// Borrowed operands are how tensors are combined without moving them; Copy tensors too.
#![allow(clippy::op_ref)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};

use shaped::primitive::{Alg, Binary, Eltwise};
use shaped::{
    BroadcastToMode, DynTensor, ErrorKind, HeapTensor, Shape, Tensor, TensorView, TensorViewMut,
};

/// The message of the panic `f` raises.
fn panic_text(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn hash_of<H: Hash>(x: &H) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

#[test]
fn integer_arithmetic_wraps_on_every_path_in_every_build() {
    let s = Tensor::<i8, Shape![3]>::from([127, -128, 100]);
    let one = Tensor::<i8, Shape![1]>::from([1]);
    let m = Tensor::<i8, Shape![_]>::from_shape_vec([3], vec![127, -128, 100]).unwrap();
    let d = DynTensor::from_shape_vec([3], vec![127i8, -128, 100]).unwrap();
    let d1 = DynTensor::from_shape_vec([1], vec![1i8]).unwrap();
    let want_add = [-128, -127, 101];
    assert_eq!((&s + &one).as_slice(), &want_add);
    assert_eq!((&s + 1).as_slice(), &want_add);
    assert_eq!((&m + &one).as_slice(), &want_add);
    assert_eq!(m.try_add(&one).unwrap().as_slice(), &want_add);
    assert_eq!((&d + &d1).as_slice(), &want_add);
    assert_eq!(d.try_add(&d1).unwrap().as_slice(), &want_add);
    let want_mul = [-2, 0, -56];
    assert_eq!((&s * 2).as_slice(), &want_mul);
    assert_eq!((&m * 2).as_slice(), &want_mul);
    assert_eq!((&d * 2).as_slice(), &want_mul);
    assert_eq!((2 * &s).as_slice(), &want_mul);
    assert_eq!((2 * &m).as_slice(), &want_mul);
    assert_eq!((2 * &d).as_slice(), &want_mul);
    // Negation wraps too: -(-128) is -128 for i8.
    assert_eq!((-&s).as_slice(), &[-127, -128, -100]);
    assert_eq!((-&m).as_slice(), &[-127, -128, -100]);
    assert_eq!((-&d).as_slice(), &[-127, -128, -100]);
    let mut a = s;
    a += 1;
    assert_eq!(a.as_slice(), &want_add);
    let mut a = d.clone();
    a -= &d1;
    assert_eq!(a.as_slice(), &[126, 127, 99]);
}

#[test]
fn integer_division_by_zero_is_an_error_value_or_a_panic_naming_it() {
    let s = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    let z = Tensor::<i32, Shape![2]>::from([1, 0]);
    let m = Tensor::<i32, Shape![_, 2]>::from_shape_vec([2, 2], vec![1, 2, 3, 4]).unwrap();
    let d = s.to_dyn();
    let dz = z.to_dyn();
    let text = "cannot compute [2, 2] with [2]: integer division by zero";
    for e in [
        s.try_div(&z).unwrap_err(),
        s.try_rem(&z).unwrap_err(),
        s.try_floor_mod(&z).unwrap_err(),
        m.try_div(&z).unwrap_err(),
        d.try_div(&dz).unwrap_err(),
        d.try_rem(&dz).unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::DivisionByZero);
        assert_eq!(e.to_string(), text);
    }
    assert_eq!(
        panic_text(|| {
            let _ = &s / &z;
        }),
        text
    );
    assert_eq!(
        panic_text(|| {
            let _ = &s % &z;
        }),
        text
    );
    assert_eq!(
        panic_text(|| {
            let _ = s.floor_mod(&z);
        }),
        text
    );
    assert_eq!(
        panic_text(|| {
            let _ = &m / &z;
        }),
        text
    );
    // Shapes are checked before values on every path: a mismatch wins over a zero divisor.
    let z3 = Tensor::<i32, Shape![_]>::from_shape_vec([3], vec![0, 1, 2]).unwrap();
    let mismatch = "cannot broadcast [2, 2] with [3] (numpy): axis 1 has 2 vs 3";
    assert_eq!(m.try_div(&z3).unwrap_err().to_string(), mismatch);
    assert_eq!(
        panic_text(|| {
            let _ = &m / &z3;
        }),
        mismatch
    );
    assert_eq!(
        panic_text(|| {
            let _ = &d / &dz;
        }),
        text
    );
    assert_eq!(
        panic_text(|| {
            let _ = &s / 0;
        }),
        "cannot compute [2, 2] with []: integer division by zero"
    );
    assert_eq!(
        panic_text(|| {
            let _ = 7 / &z;
        }),
        "cannot compute [] with [2]: integer division by zero"
    );
    assert_eq!(
        panic_text(|| {
            let mut a = s;
            a /= &z;
        }),
        text
    );
    assert_eq!(
        panic_text(|| {
            let mut a = d.clone();
            a /= &dz;
        }),
        text
    );
    // Floats follow IEEE: no error.
    let f = Tensor::<f32, Shape![2]>::from([1.0, -1.0]) / 0.0;
    assert_eq!(f.as_slice(), &[f32::INFINITY, f32::NEG_INFINITY]);
}

/// B5: numpy's `broadcast_to` returns exactly the target, or refuses; the same cases through
/// each path.
#[test]
fn b5_broadcast_to_is_one_directional_on_every_path() {
    let s = Tensor::<i32, Shape![3, 1]>::from([[1], [2], [3]]);
    let stat: Tensor<i32, Shape![2, 3, 4]> = s.broadcast_to::<Shape![2, 3, 4]>();
    let mixed = s.try_broadcast_to::<Shape![_, 3, 4]>([2, 3, 4]).unwrap();
    let dynamic = s.to_dyn().broadcast_to([2, 3, 4]).unwrap();
    assert_eq!(stat.shape(), [2, 3, 4]);
    assert_eq!(mixed.shape(), [2, 3, 4]);
    assert_eq!(dynamic.shape(), &[2, 3, 4]);
    assert_eq!(stat.as_slice(), mixed.as_slice());
    assert_eq!(stat.as_slice(), dynamic.as_slice());
    assert_eq!(stat[[1, 2, 3]], 3);
    // A target that would make the input shrink: an error value at run time (a compile error
    // statically: ui-tests/broadcast_to_dim_mismatch.rs).
    let text = "cannot broadcast [3, 1] with [2, 1, 4] (broadcast_to numpy): axis 1 has 3 vs 1";
    let m = Tensor::<i32, Shape![_, 1]>::from_shape_vec([3, 1], vec![1, 2, 3]).unwrap();
    assert_eq!(
        m.try_broadcast_to::<Shape![2, _, 4]>([2, 1, 4])
            .unwrap_err()
            .to_string(),
        text
    );
    assert_eq!(
        s.to_dyn().broadcast_to([2, 1, 4]).unwrap_err().to_string(),
        text
    );
    // The target's static dims must match the runtime target.
    let e = m
        .try_broadcast_to::<Shape![_, 3, 4]>([2, 3, 5])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ShapeMismatch);
    // A smaller target rank is refused (B5), where Bidirectional (B1) accepts it.
    let e = s.to_dyn().broadcast_to([3]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TargetRankTooSmall);
    assert_eq!(
        s.to_dyn().broadcast_bidirectional([3]).unwrap().shape(),
        &[3, 3]
    );
    // The Broadcast op's numpy mode is the same rule.
    assert_eq!(
        s.to_dyn().broadcast([2, 3, 4], BroadcastToMode::Numpy),
        s.to_dyn().broadcast_to([2, 3, 4])
    );
}

/// B1-B3: Bidirectional keeps its own method on every path, and may differ from the target.
#[test]
fn b1_broadcast_bidirectional_on_every_path() {
    let s = Tensor::<i32, Shape![1, 4, 1]>::from([[[1], [2], [3], [4]]]);
    let stat: Tensor<i32, Shape![1, 4, 4]> = s.broadcast_bidirectional::<Shape![1, 4]>();
    let mixed = s
        .try_broadcast_bidirectional::<Shape![_, 4]>([1, 4])
        .unwrap();
    let dynamic = s.to_dyn().broadcast_bidirectional([1, 4]).unwrap();
    assert_eq!(mixed.shape(), [1, 4, 4]);
    assert_eq!(dynamic.shape(), &[1, 4, 4]);
    assert_eq!(stat.as_slice(), mixed.as_slice());
    assert_eq!(stat.as_slice(), dynamic.as_slice());
}

#[test]
fn compound_assignment_broadcasts_onto_the_left_which_never_grows() {
    let mut s = Tensor::<f32, Shape![2, 3]>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let row = Tensor::<f32, Shape![3]>::from([10.0, 20.0, 30.0]);
    let col = Tensor::<f32, Shape![2, 1]>::from([[2.0], [3.0]]);
    s += &row;
    s *= &col;
    s -= 1.0;
    let want = [21.0, 43.0, 65.0, 41.0, 74.0, 107.0];
    assert_eq!(s.as_slice(), &want);

    let mut m =
        Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
            .unwrap();
    m += &row;
    m *= &col;
    m -= 1.0;
    assert_eq!(m.as_slice(), &want);

    let mut d = DynTensor::from_shape_vec([2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    d += &row.to_dyn();
    d *= &col.to_dyn();
    d -= 1.0;
    assert_eq!(d.as_slice(), &want);

    // Views too, with no allocation.
    let mut buf = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut v = TensorViewMut::<f32, Shape![_, 3]>::with_shape([2, 3], &mut buf).unwrap();
    v += &row;
    assert_eq!(buf, [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);

    // A right side that would grow the left: a panic naming the error at run time.
    let big = DynTensor::from_shape_vec([4, 3], vec![0.0f32; 12]).unwrap();
    assert_eq!(
        panic_text(|| {
            let mut d = d.clone();
            d += &big;
        }),
        "cannot broadcast [4, 3] with [2, 3] (broadcast_to numpy): axis 0 has 4 vs 2"
    );
    let m4 = Tensor::<f32, Shape![_, 3]>::from_shape_vec([4, 3], vec![0.0; 12]).unwrap();
    assert_eq!(
        panic_text(|| {
            let mut m = m.clone();
            m += &m4;
        }),
        "cannot broadcast [4, 3] with [2, 3] (broadcast_to numpy): axis 0 has 4 vs 2"
    );
}

#[test]
fn dyn_tensor_has_what_tensor_has() {
    let a = DynTensor::from_shape_vec([2, 1], vec![1, 2]).unwrap();
    let b = DynTensor::from_shape_vec([3], vec![10, 20, 30]).unwrap();
    let c = &a + &b;
    assert_eq!(c.shape(), &[2, 3]);
    assert_eq!(c[[1, 2]], 32);
    assert_eq!(c[vec![0, 1]], 21);
    assert_eq!(c.get([2, 0]), None);
    assert_eq!(c.get([0]), None, "wrong rank");
    let mut c = c;
    c[[0, 0]] = 0;
    *c.get_mut([0, 1]).unwrap() = 1;
    for x in c.iter_mut() {
        *x *= 2;
    }
    for x in &mut c {
        *x += 1;
    }
    assert_eq!(
        c.iter().copied().collect::<Vec<_>>(),
        [1, 3, 63, 25, 45, 65]
    );
    assert_eq!((&c).into_iter().count(), 6);
    assert_eq!(c.as_ref(), &[1, 3, 63, 25, 45, 65]);
    assert_eq!(c.clone().into_iter().sum::<i32>(), 202);
    assert_eq!(
        panic_text(|| {
            let _ = &a + &DynTensor::from_shape_vec([3, 1], vec![0; 3]).unwrap();
        }),
        "cannot broadcast [2, 1] with [3, 1] (numpy): axis 0 has 2 vs 3"
    );
    assert_eq!(
        panic_text(|| {
            let _ = c[[2, 0]];
        }),
        "index [2, 0] is out of bounds for shape [2, 3]"
    );
    assert_eq!(DynTensor::<String>::default().shape(), &[0]);
    assert_eq!(hash_of(&a), hash_of(&a.clone()));
    // Comparisons by their one name.
    assert_eq!(a.try_lt(&b).unwrap().as_slice(), &[true; 6]);
    assert_eq!(
        a.try_eq(&DynTensor::scalar(2)).unwrap().as_slice(),
        &[false, true]
    );
}

#[test]
fn every_tensor_kind_iterates_by_value_reference_and_mutably() {
    let s = Tensor::<String, Shape![2, 2]>::from_fn(|[i, j]| format!("{i}{j}"));
    assert_eq!(
        s.clone().into_iter().collect::<Vec<_>>(),
        ["00", "01", "10", "11"]
    );
    let rank0 = Tensor::scalar(String::from("x"));
    assert_eq!(rank0.into_iter().collect::<Vec<_>>(), ["x"]);
    let m = Tensor::<u8, Shape![_, 2]>::from_shape_vec([2, 2], vec![1, 2, 3, 4]).unwrap();
    assert_eq!(m.into_iter().collect::<Vec<_>>(), [1, 2, 3, 4]);
    let h = HeapTensor::<u8, Shape![2]>::from_vec(vec![5, 6]).unwrap();
    assert_eq!(h.into_iter().collect::<Vec<_>>(), [5, 6]);
    let data = [7u8, 8];
    let v = TensorView::<u8, Shape![2]>::new(&data).unwrap();
    assert_eq!(v.into_iter().copied().collect::<Vec<_>>(), [7, 8]);
    let mut t = Tensor::<u8, Shape![2]>::from([1, 2]);
    for x in t.view_mut() {
        *x += 1;
    }
    assert_eq!(t.as_ref(), &[2, 3]);
    let e = Tensor::<u8, Shape![0, 3]>::from_fn(|_| unreachable!());
    assert_eq!(e.into_iter().count(), 0);
}

#[test]
fn hash_default_and_equality_agree() {
    let a = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    let b = a.view().to_stack();
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
    assert_eq!(Tensor::<i32, Shape![2]>::default().as_slice(), &[0, 0]);
    let empty = Tensor::<String, Shape![_, 2]>::default();
    assert_eq!((empty.shape(), empty.len()), ([0, 2], 0));
    // Mixed shapes with different runtime dims are different tensors.
    let x = Tensor::<i32, Shape![_]>::from_shape_vec([0], vec![]).unwrap();
    let y = Tensor::<i32, Shape![_]>::from_shape_vec([1], vec![0]).unwrap();
    assert_ne!(x, y);
}

#[test]
fn methods_and_left_scalars_work_on_mixed_shapes_as_on_static_ones() {
    let s = Tensor::<f32, Shape![2, 3]>::from([[1.0, -2.0, 3.0], [f32::NAN, 5.0, -6.0]]);
    let m = Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 3], s.as_slice().to_vec()).unwrap();
    let d = s.to_dyn();
    let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(s.maximum(0.0).as_slice()),
        bits(m.maximum(0.0).as_slice())
    );
    assert_eq!(
        bits(s.maximum(0.0).as_slice()),
        bits(d.try_maximum(&DynTensor::scalar(0.0)).unwrap().as_slice())
    );
    assert_eq!(s.lt(0.0).as_slice(), m.lt(0.0).as_slice());
    assert_eq!(
        s.lt(0.0).as_slice(),
        &[false, true, false, false, false, true]
    );
    assert_eq!((1.0 - &s).as_slice()[..3], [0.0, 3.0, -2.0]);
    assert_eq!((1.0 - &m).as_slice()[..3], [0.0, 3.0, -2.0]);
    assert_eq!((1.0 - &d).as_slice()[..3], [0.0, 3.0, -2.0]);
    assert_eq!(m.map(|x| x * 2.0).as_slice()[..3], [2.0, -4.0, 6.0]);
    // A runtime mismatch in a method panics with the error's message, like the operators.
    let wrong = Tensor::<f32, Shape![_]>::from_shape_vec([4], vec![0.0; 4]).unwrap();
    assert_eq!(
        panic_text(|| {
            let _ = m.maximum(&wrong);
        }),
        "cannot broadcast [2, 3] with [4] (numpy): axis 1 has 3 vs 4"
    );
}

/// NaN goes through `relu` and `clip` as through `maximum` and `minimum`: NaN in, NaN out.
#[test]
fn nan_through_relu_and_clip_follows_maximum() {
    let x = Tensor::<f32, Shape![3]>::from([f32::NAN, -1.0, 2.0]);
    let relu = Eltwise::Relu;
    let clip = Eltwise::Clip { lo: 0.0, hi: 1.0 };
    assert!(relu.apply(f32::NAN).is_nan());
    assert!(clip.apply(f32::NAN).is_nan());
    assert!(x.maximum(0.0)[[0]].is_nan());
    // relu is maximum(x, 0) exactly, signed zeros included.
    let neg_zero = Tensor::<f32, Shape![1]>::from([-0.0]);
    assert_eq!(
        relu.apply(-0.0f32).to_bits(),
        neg_zero.maximum(0.0)[[0]].to_bits()
    );
    assert_eq!(relu.apply(-3.0f32), 0.0);
    // Through the fused primitive too, where ReLU joins the algorithm's loop.
    let zero = Tensor::<f32, Shape![3]>::splat(0.0);
    let y = Binary::new(Alg::Add)
        .post_op(relu)
        .apply(&x, &zero)
        .unwrap();
    assert!(y[[0]].is_nan());
    assert_eq!(y.as_slice()[1..], [0.0, 2.0]);
    let y = Binary::new(Alg::Add)
        .post_op(clip)
        .apply(&x, &zero)
        .unwrap();
    assert!(y[[0]].is_nan());
    assert_eq!(y.as_slice()[1..], [0.0, 1.0]);
}

/// `clip` on tensors is numpy's `minimum(maximum(x, lo), hi)`: a NaN bound gives NaN (numpy:
/// `np.clip(x, nan, nan)` is all NaN), `lo > hi` gives `hi`; static, mixed and runtime alike.
/// The primitive's `Eltwise::Clip` keeps oneDNN's definition, which leaves `x` there.
#[test]
fn clip_with_a_nan_bound_is_nan_as_in_numpy() {
    use shaped::DynTensor;
    let values = [f32::NAN, -1.0, 0.5, 2.0];
    let s = Tensor::<f32, Shape![4]>::from(values);
    let m = Tensor::<f32, Shape![_]>::from_shape_vec([4], values.to_vec()).unwrap();
    let d = DynTensor::from_shape_vec([4], values.to_vec()).unwrap();
    let bits = |v: &[f32]| {
        v.iter()
            .map(|x| if x.is_nan() { u32::MAX } else { x.to_bits() })
            .collect::<Vec<_>>()
    };
    for (lo, hi, want) in [
        (f32::NAN, f32::NAN, [f32::NAN; 4]),
        (f32::NAN, 1.0, [f32::NAN; 4]),
        (0.0, f32::NAN, [f32::NAN; 4]),
        (0.0, 1.0, [f32::NAN, 0.0, 0.5, 1.0]),
        (1.0, 0.0, [f32::NAN, 0.0, 0.0, 0.0]),
    ] {
        assert_eq!(bits(s.clip(lo, hi).as_slice()), bits(&want), "{lo} {hi}");
        assert_eq!(bits(m.clip(lo, hi).as_slice()), bits(&want), "{lo} {hi}");
        assert_eq!(bits(d.clip(lo, hi).as_slice()), bits(&want), "{lo} {hi}");
    }
    let ints = Tensor::<i32, Shape![3]>::from([-5, 3, 9]);
    assert_eq!(ints.clip(0, 4).as_slice(), &[0, 3, 4]);
    assert_eq!(
        Eltwise::Clip {
            lo: f32::NAN,
            hi: f32::NAN
        }
        .apply(2.0f32),
        2.0
    );
}
