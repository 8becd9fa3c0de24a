//! DynTensor: every operation's values, its errors, formatting and conversions.

use crate::common;

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

/// Row-major inputs of rank up to 4 under NUMPY are resolved and planned in one pass, and
/// identical shapes run as one contiguous run; strided inputs, higher ranks, empty outputs and
/// mismatches take the general path. Every pair here runs both ways and matches the reference.
#[test]
fn small_numpy_fast_paths_agree_with_the_general_path() {
    use shaped::runtime::{binary_into, ArrayRef};
    let pairs: &[(&[usize], &[usize])] = &[
        (&[], &[]),
        (&[], &[2, 3]),
        (&[2, 3], &[]),
        (&[4, 4], &[4, 4]),
        (&[4, 4], &[1, 4]),
        (&[4, 4], &[4, 1]),
        (&[3, 1], &[1, 3]),
        (&[1, 3], &[3, 1]),
        (&[2, 3, 4], &[4]),
        (&[2, 3, 4], &[1, 3, 1]),
        (&[1, 1], &[2, 3]),
        (&[2, 1, 3], &[2, 4, 3]),
        (&[5], &[5]),
        (&[1], &[7]),
        (&[2, 3, 4, 5], &[2, 3, 4, 5]),
        (&[2, 1, 4, 1], &[3, 1, 5]),
        (&[2, 3, 1, 2, 2], &[3, 2, 1]),
        (&[2, 1, 2, 1, 2, 1], &[2, 1, 2, 1, 2]),
        (&[0, 3], &[1, 3]),
        (&[2, 0], &[2, 1]),
        (&[0], &[]),
    ];
    for &(sa, sb) in pairs {
        let (na, nb) = (sa.iter().product::<usize>(), sb.iter().product::<usize>());
        let a = t(sa, (0..na).map(|i| i as i32 * 3 - 7).collect());
        let b = t(sb, (0..nb).map(|i| i as i32 * 5 + 1).collect());
        check(&a.try_add(&b).unwrap(), &a, &b, |x, y| x + y);
        check(&(&a - &b), &a, &b, |x, y| x - y);
        check(
            &a.binary(&b, BinaryOp::Mul, AutoBroadcast::Numpy).unwrap(),
            &a,
            &b,
            |x, y| x * y,
        );
        let (shape, want) = common::reference(a.as_slice(), sa, b.as_slice(), sb, |x, y| x - y);
        // Row-major `ArrayRef`s (the fast paths) and the same layout as explicit strides (the
        // general path) write the same elements.
        let strides = |s: &[usize]| {
            let mut st = vec![0; s.len()];
            let mut acc = 1;
            for (k, &d) in s.iter().enumerate().rev() {
                st[k] = acc;
                acc *= d.max(1);
            }
            st
        };
        let (ta, tb) = (strides(sa), strides(sb));
        let inputs = [
            (
                ArrayRef::new(sa, a.as_slice()).unwrap(),
                ArrayRef::new(sb, b.as_slice()).unwrap(),
            ),
            (
                ArrayRef::with_strides(sa, &ta, a.as_slice()).unwrap(),
                ArrayRef::with_strides(sb, &tb, b.as_slice()).unwrap(),
            ),
        ];
        for (x, y) in inputs {
            let mut out = vec![0; want.len()];
            binary_into(x, y, BinaryOp::Sub, AutoBroadcast::Numpy, &mut out).unwrap();
            assert_eq!(out, want, "{sa:?} - {sb:?}");
        }
        assert_eq!(a.try_add(&b).unwrap().shape(), &shape[..]);
    }
}

/// The fast paths refuse what the general path refuses, with its errors.
#[test]
fn small_numpy_fast_paths_keep_the_errors() {
    use shaped::runtime::{binary_into, ArrayRef};
    let a = t(&[4, 4], vec![1i32; 16]);
    let e = a.try_add(&t(&[3, 4], vec![1; 12])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [4, 4] with [3, 4] (numpy): axis 0 has 4 vs 3"
    );
    // An output of the wrong length, for identical shapes and for a broadcast.
    let mut short = vec![0; 15];
    for sb in [&[4, 4][..], &[1, 4]] {
        let b = vec![1; sb.iter().product()];
        let e = binary_into(
            ArrayRef::new(&[4, 4], a.as_slice()).unwrap(),
            ArrayRef::new(sb, &b).unwrap(),
            BinaryOp::Add,
            AutoBroadcast::Numpy,
            &mut short,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "shape [4, 4] needs 16 elements, but the buffer holds 15 (numpy)"
        );
    }
    // Value checks still run after the shapes, on both fast paths.
    for sb in [&[4, 4][..], &[4, 1]] {
        let zero = t(sb, vec![0; sb.iter().product()]);
        assert_eq!(
            a.binary(&zero, BinaryOp::Div, AutoBroadcast::Numpy)
                .unwrap_err()
                .to_string(),
            format!("cannot compute [4, 4] with {sb:?}: integer division by zero")
        );
    }
}

/// Up to six dims are kept in the tensor itself, more on the heap: the two agree on shape,
/// equality, hashing, formatting and results, at rank 0, 6 and 7 and with zero-size dims.
#[test]
fn dims_inline_and_on_the_heap() {
    use std::hash::{BuildHasher, RandomState};
    let hasher = RandomState::new();
    for shape in [
        &[][..],
        &[2, 1, 2, 1, 2, 1],
        &[2, 1, 2, 1, 2, 1, 2],
        &[3, 0, 2, 1, 1, 1, 1],
        &[0],
    ] {
        let n = shape.iter().product::<usize>();
        let data: Vec<i64> = (0..n as i64).collect();
        let x = t(shape, data.clone());
        let y = &x * 1;
        assert_eq!(x.shape(), shape);
        assert_eq!(x.rank(), shape.len());
        assert_eq!(x, y);
        assert_eq!(hasher.hash_one(&x), hasher.hash_one(&y));
        let doubled = &x + &y;
        assert_eq!(doubled.shape(), shape);
        assert_eq!(
            doubled.as_slice(),
            data.iter().map(|v| v * 2).collect::<Vec<_>>()
        );
        assert_eq!(x.clone().shape(), shape);
        assert!(format!("{x:?}").starts_with(&format!("DynTensor(shape={shape:?}, ")));
    }
    // Same elements, different shapes: not equal.
    assert_ne!(t(&[1, 2], vec![1, 2]), t(&[2], vec![1, 2]));
    assert_ne!(
        t(&[1, 1, 1, 1, 1, 1, 2], vec![1, 2]),
        t(&[1, 1, 1, 1, 1, 2], vec![1, 2])
    );
    // A rank-7 broadcast (past both the inline dims and the one-pass plan).
    let a = t(&[2, 1, 1, 1, 1, 1, 3], vec![1, 2, 3, 4, 5, 6]);
    let b = t(&[2, 1], vec![10, 20]);
    check(&a.try_add(&b).unwrap(), &a, &b, |x, y| x + y);
    assert_eq!(a.try_add(&b).unwrap().shape(), [2, 1, 1, 1, 1, 2, 3]);
    assert_eq!(DynTensor::<f32>::default().shape(), [0]);
    assert_eq!(DynTensor::scalar(4u8).shape(), [] as [usize; 0]);
}

/// An owned left side is computed in its own buffer when the result has its shape (the same
/// values as the borrowing operator), and allocates when the right side grows it; an owned
/// tensor takes a scalar on the right too.
#[test]
fn owned_left_operands_and_scalars() {
    let a = t(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let row = t(&[3], vec![0.5f32, -1.0, 2.0]);
    let col = t(&[2, 1], vec![10.0f32, 20.0]);
    let tall = t(&[4, 1, 1], vec![1.0f32, 2.0, 3.0, 4.0]);
    for b in [&row, &col, &a, &tall] {
        assert_eq!(a.clone() + b, &a + b);
        assert_eq!(a.clone() - b, &a - b);
        assert_eq!(a.clone() * b, &a * b);
        assert_eq!(a.clone() / b, &a / b);
        assert_eq!(a.clone() % b, &a % b);
    }
    assert_eq!((a.clone() + &tall).shape(), [4, 2, 3]);
    assert_eq!(
        (a.clone() * 2.0).as_slice(),
        [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    );
    assert_eq!(a.clone() - 1.5, &a - 1.5);
    assert_eq!((DynTensor::scalar(7i32) % 4).as_slice(), [3]);
    assert_eq!((t(&[0, 2], Vec::<i32>::new()) + 1).shape(), [0, 2]);
    let ints = t(&[2, 2], vec![7i32, -8, 9, 10]);
    assert_eq!((ints.clone() / 2).as_slice(), [3, -4, 4, 5]);
    // A zero divisor panics with the borrowing operator's message.
    let zero = t(&[2], vec![1i32, 0]);
    let message = |r: std::thread::Result<DynTensor<i32>>| {
        let e = r.unwrap_err();
        e.downcast_ref::<String>().cloned().unwrap()
    };
    let owned = message(std::panic::catch_unwind(|| ints.clone() / &zero));
    let borrowed = message(std::panic::catch_unwind(|| &ints / &zero));
    assert_eq!(
        owned,
        "cannot compute [2, 2] with [2]: integer division by zero"
    );
    assert_eq!(owned, borrowed);
    let by_scalar = message(std::panic::catch_unwind(|| ints.clone() % 0));
    assert_eq!(
        by_scalar,
        "cannot compute [2, 2] with []: integer division by zero"
    );
    // A mismatch panics as the borrowing operator does.
    let bad = message(std::panic::catch_unwind(|| {
        ints.clone() + &t(&[3], vec![1, 2, 3])
    }));
    assert_eq!(
        bad,
        "cannot broadcast [2, 2] with [3] (numpy): axis 1 has 2 vs 3"
    );
}
