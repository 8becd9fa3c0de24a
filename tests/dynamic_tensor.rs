//! DynTensor: every operation's values, its errors, formatting and conversions.

mod common;

use shaped::{
    AutoBroadcast, BinaryOp, BroadcastToMode, CompareOp, DynTensor, ErrorKind, LogicalOp, Shape,
    Tensor,
};

fn t<T>(shape: &[usize], data: Vec<T>) -> DynTensor<T> {
    DynTensor::from_shape_vec(shape, data).unwrap()
}

fn check<T: Copy + PartialEq + std::fmt::Debug>(
    got: &DynTensor<T>,
    a: &DynTensor<T>,
    b: &DynTensor<T>,
    f: impl Fn(T, T) -> T,
) {
    let (shape, want) = common::reference(a.as_slice(), a.shape(), b.as_slice(), b.shape(), f);
    assert_eq!(got.shape(), &shape[..]);
    assert_eq!(got.as_slice(), &want[..]);
}

#[test]
fn every_binary_op_on_floats() {
    let a = t(&[2, 1, 3], vec![1.5f32, -2.0, 3.0, 4.0, 0.5, -6.0]);
    let b = t(&[4, 1], vec![2.0f32, -1.0, 0.5, 3.0]);
    let run = |op| a.binary(&b, op, AutoBroadcast::Numpy).unwrap();
    check(&run(BinaryOp::Add), &a, &b, |x, y| x + y);
    check(&run(BinaryOp::Sub), &a, &b, |x, y| x - y);
    check(&run(BinaryOp::Mul), &a, &b, |x, y| x * y);
    check(&run(BinaryOp::Div), &a, &b, |x, y| x / y);
    check(&run(BinaryOp::Maximum), &a, &b, f32::max);
    check(&run(BinaryOp::Minimum), &a, &b, f32::min);
    check(&run(BinaryOp::SquaredDifference), &a, &b, |x, y| {
        (x - y) * (x - y)
    });
    check(&run(BinaryOp::Rem), &a, &b, |x, y| x % y);
    check(&run(BinaryOp::FloorMod), &a, &b, |x, y| {
        x - (x / y).floor() * y
    });
    let p = run(BinaryOp::Pow);
    let (_, want) = common::reference(a.as_slice(), a.shape(), b.as_slice(), b.shape(), f32::powf);
    for (g, w) in p.as_slice().iter().zip(&want) {
        assert!(
            (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "{g} vs {w}"
        );
    }
}

#[test]
fn every_binary_op_on_ints() {
    let a = t(&[2, 3], vec![7i32, -8, 9, 10, 11, -12]);
    let b = t(&[3], vec![2i32, -3, 4]);
    let run = |op| a.binary(&b, op, AutoBroadcast::Numpy).unwrap();
    check(&run(BinaryOp::Add), &a, &b, |x, y| x + y);
    check(&run(BinaryOp::Sub), &a, &b, |x, y| x - y);
    check(&run(BinaryOp::Mul), &a, &b, |x, y| x * y);
    check(&run(BinaryOp::Div), &a, &b, |x, y| x / y);
    check(&run(BinaryOp::Maximum), &a, &b, i32::max);
    check(&run(BinaryOp::Minimum), &a, &b, i32::min);
    check(&run(BinaryOp::SquaredDifference), &a, &b, |x, y| {
        (x - y) * (x - y)
    });
    check(&run(BinaryOp::Rem), &a, &b, |x, y| x % y);
    check(&run(BinaryOp::FloorMod), &a, &b, |x, y| {
        x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 }
    });
    let b_abs = b.map(|x: &i32| x.abs());
    let pow = a
        .binary(&b_abs, BinaryOp::Pow, AutoBroadcast::Numpy)
        .unwrap();
    check(&pow, &a, &b_abs, |x, y| x.pow(y as u32));
    assert_eq!(run(BinaryOp::FloorMod).as_slice(), &[1, -2, 1, 0, -1, 0]);
}

#[test]
fn integer_division_by_zero_and_negative_powers_are_errors() {
    let a = t(&[2], vec![1i64, 2]);
    let z = t(&[1], vec![0i64]);
    for op in [BinaryOp::Div, BinaryOp::Rem, BinaryOp::FloorMod] {
        let e = a.binary(&z, op, AutoBroadcast::Numpy).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DivisionByZero);
        assert_eq!(
            e.to_string(),
            "cannot compute [2] with [1]: integer division by zero"
        );
    }
    let neg = t(&[2], vec![1i64, -1]);
    assert_eq!(
        a.binary(&neg, BinaryOp::Pow, AutoBroadcast::Numpy)
            .unwrap_err()
            .kind(),
        ErrorKind::NegativeExponent
    );
    // Floats divide by zero as IEEE says.
    let f = t(&[1], vec![1.0f64])
        .binary(&t(&[1], vec![0.0]), BinaryOp::Div, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(f.as_slice(), &[f64::INFINITY]);
    // A zero divisor in an empty broadcast divides nothing.
    let empty = t(&[0], Vec::<i64>::new())
        .binary(&z, BinaryOp::Div, AutoBroadcast::Numpy)
        .unwrap();
    assert!(empty.is_empty());
    // Shape errors win over value errors.
    let e = a
        .binary(&t(&[3], vec![0i64; 3]), BinaryOp::Div, AutoBroadcast::Numpy)
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 2,
            rhs: 3
        }
    );
}

#[test]
fn integer_overflow_wraps_instead_of_panicking() {
    let a = t(&[2], vec![i8::MAX, i8::MIN]);
    let b = t(&[2], vec![1i8, -1]);
    assert_eq!(
        a.binary(&b, BinaryOp::Add, AutoBroadcast::None)
            .unwrap()
            .as_slice(),
        &[i8::MIN, i8::MAX]
    );
    assert_eq!(
        a.binary(&b, BinaryOp::Div, AutoBroadcast::None)
            .unwrap()
            .as_slice(),
        &[i8::MAX, i8::MIN]
    );
}

#[test]
fn comparisons_and_logic() {
    let a = t(&[2, 1], vec![1.0f32, 5.0]);
    let b = t(&[3], vec![0.0f32, 1.0, 9.0]);
    let lt = a.compare(&b, CompareOp::Lt, AutoBroadcast::Numpy).unwrap();
    assert_eq!(lt.shape(), &[2, 3]);
    assert_eq!(lt.as_slice(), &[false, false, true, false, false, true]);
    let cases = [
        (CompareOp::Eq, [false, true, false, false, false, false]),
        (CompareOp::Ne, [true, false, true, true, true, true]),
        (CompareOp::Le, [false, true, true, false, false, true]),
        (CompareOp::Gt, [true, false, false, true, true, false]),
        (CompareOp::Ge, [true, true, false, true, true, false]),
    ];
    for (op, want) in cases {
        assert_eq!(
            a.compare(&b, op, AutoBroadcast::Numpy).unwrap().as_slice(),
            &want,
            "{op:?}"
        );
    }
    let eq = a.compare(&b, CompareOp::Eq, AutoBroadcast::Numpy).unwrap();
    assert_eq!(
        lt.logical(&eq, LogicalOp::Or, AutoBroadcast::None)
            .unwrap()
            .as_slice(),
        &[false, true, true, false, false, true]
    );
    assert_eq!(
        lt.logical(&eq, LogicalOp::And, AutoBroadcast::None)
            .unwrap()
            .as_slice(),
        &[false; 6]
    );
    let row = t(&[3], vec![true, false, true]);
    assert_eq!(
        lt.logical(&row, LogicalOp::Xor, AutoBroadcast::Numpy)
            .unwrap()
            .as_slice(),
        &[true, false, false, true, false, false]
    );
}

#[test]
fn pdpd_values_follow_d9() {
    let a = t(&[2, 3, 2], (0..12).collect::<Vec<i32>>());
    let b = t(&[3, 1], vec![100, 200, 300]);
    let c = a
        .binary(&b, BinaryOp::Add, AutoBroadcast::Pdpd { axis: 1 })
        .unwrap();
    assert_eq!(c.shape(), &[2, 3, 2]);
    assert_eq!(
        c.as_slice(),
        &[100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311]
    );
    let e = a
        .binary(&b, BinaryOp::Add, AutoBroadcast::Pdpd { axis: 0 })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [2, 3, 2] with [3, 1] (pdpd, axis 0): axis 0 has 2 vs 3"
    );
}

#[test]
fn broadcast_to_in_every_mode() {
    let d = t(&[3, 1], vec![1, 2, 3]);
    let numpy = d.broadcast([2, 3, 2], BroadcastToMode::Numpy).unwrap();
    assert_eq!(numpy.as_slice(), &[1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]);
    let explicit = d
        .broadcast(
            [2, 3, 1],
            BroadcastToMode::Explicit {
                axes_mapping: &[1, 2],
            },
        )
        .unwrap();
    assert_eq!(explicit.as_slice(), &[1, 2, 3, 1, 2, 3]);
    let bidi = t(&[1, 4, 1], vec![1, 2, 3, 4])
        .broadcast([1, 4], BroadcastToMode::Bidirectional)
        .unwrap();
    assert_eq!(bidi.shape(), &[1, 4, 4]);
    let pdpd = d
        .broadcast([2, 3, 6], BroadcastToMode::Pdpd { axis: 1 })
        .unwrap();
    assert_eq!(pdpd.get([1, 2, 5]), Some(&3));
    assert_eq!(pdpd.get([0, 0, 0]), Some(&1));
    let empty = t(&[1], vec![7])
        .broadcast([0], BroadcastToMode::Numpy)
        .unwrap();
    assert!(empty.is_empty());
}

#[test]
fn construction_errors_are_values() {
    let e = DynTensor::from_shape_vec([2, 3], vec![0u8; 5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [2, 3] needs 6 elements, but the buffer holds 5"
    );
    let e = DynTensor::from_shape_vec([usize::MAX, 2], Vec::<u8>::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    let e = DynTensor::from_shape_vec(vec![1; 65], vec![0u8]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankLimit { max: 64 });
    assert!(DynTensor::from_shape_vec(vec![1; 64], vec![0u8]).is_ok());
}

#[test]
fn reshape_map_get_and_formatting() {
    let a = t(&[2, 3], (1..=6).collect::<Vec<i32>>());
    assert_eq!(a.get([1, 2]), Some(&6));
    assert_eq!(a.get([2, 0]), None);
    assert_eq!(a.get([1]), None);
    assert_eq!(a.to_string(), "[[1 2 3]\n [4 5 6]]");
    assert_eq!(
        format!("{a:?}"),
        "DynTensor(shape=[2, 3], [[1 2 3]\n [4 5 6]])"
    );
    let r = a.reshape([3, 2]).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.to_tensor().as_slice(), a.as_slice());
    assert_eq!(
        a.reshape([usize::MAX / 2, 3]).unwrap_err().kind(),
        ErrorKind::Overflow
    );
    assert_eq!(
        a.map(|x| x % 2 == 0).as_slice(),
        &[false, true, false, true, false, true]
    );
    assert_eq!(DynTensor::scalar(2.5f32).to_string(), "2.5");
}

#[test]
fn static_and_dynamic_convert_both_ways() {
    let s = Tensor::<i32, Shape![2, 1, 3]>::from_fn(|[i, _, k]| (i * 3 + k) as i32);
    let d = s.to_dyn();
    assert_eq!(d.shape(), &[2, 1, 3]);
    let back: Tensor<i32, Shape![2, 1, 3]> = d.try_to_shape().unwrap();
    assert_eq!(back, s);
    let e = d.try_to_shape::<Shape![3, 2]>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [2, 1, 3] has rank 3, but the shape type has rank 2"
    );
}

/// Rows of exactly 4, 8 and 16 elements take fixed-size inner loops; check them and their
/// neighbours against the reference.
#[test]
fn fixed_size_inner_rows_match_the_reference() {
    for n in [3usize, 4, 5, 7, 8, 9, 15, 16, 17] {
        let a = t(&[3, 2, n], (0..(6 * n) as i32).collect());
        let b = t(&[2, 1], vec![100, 200]);
        let c = t(&[1, n], (0..n as i32).map(|x| x * 1000).collect());
        let ab = a
            .binary(
                &b.reshape([2, 1]).unwrap(),
                BinaryOp::Add,
                AutoBroadcast::Numpy,
            )
            .unwrap();
        check(&ab, &a, &t(&[2, 1], vec![100, 200]), |x, y| x + y);
        let ac = a.binary(&c, BinaryOp::Sub, AutoBroadcast::Numpy).unwrap();
        check(&ac, &a, &c, |x, y| x - y);
    }
}
