//! `AnyTensor` (feature `any-tensor`): each method gives the typed `DynTensor` method's
//! result for every element type it takes, and the exact error when the element types differ
//! or the type lacks the operation.
#![cfg(feature = "any-tensor")]

use shaped::op::{BinaryOp, CompareOp, LogicalOp};
use shaped::rules::MatMulOptions;
use shaped::{AnyTensor, AutoBroadcast, Axes, BroadcastToMode, DType, DynTensor, ErrorKind};

const NUMPY: AutoBroadcast = AutoBroadcast::Numpy;

fn t<T: Clone>(shape: &[usize], data: &[T]) -> DynTensor<T> {
    DynTensor::from_shape_vec(shape, data.to_vec()).unwrap()
}

/// The elements as f64 bits (NaN compares by its bits).
fn bits(a: &AnyTensor) -> Vec<u64> {
    let wide = a.cast(DType::F64).into_typed::<f64>().unwrap();
    wide.iter().map(|v| v.to_bits()).collect()
}

/// Every element type this build holds.
fn dtypes() -> Vec<DType> {
    let mut all = vec![
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::ISize,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::USize,
        DType::F32,
        DType::F64,
    ];
    if cfg!(feature = "half") {
        all.extend([DType::F16, DType::BF16]);
    }
    all
}

#[test]
fn the_element_type_is_a_value_and_the_typed_tensor_comes_back() {
    let a = AnyTensor::from(t(&[2, 3], &[1.5f32, -2.0, 0.0, 3.25, 7.0, -0.5]));
    assert_eq!(a.dtype(), DType::F32);
    assert_eq!(
        (a.shape(), a.rank(), a.len(), a.is_empty()),
        (&[2, 3][..], 2, 6, false)
    );
    assert_eq!(a.typed::<f32>().unwrap().as_slice()[3], 3.25);
    let e = a.typed::<i64>().unwrap_err();
    assert_eq!(e.to_string(), "the elements of [2, 3] are f32, not i64");
    assert_eq!(
        e.kind(),
        ErrorKind::ElementTypes {
            op: shaped::op::AnyOp::Typed,
            lhs: DType::F32,
            rhs: DType::I64
        }
    );
    assert_eq!(a.clone().into_typed::<f32>().unwrap().len(), 6);
    assert!(a.into_typed::<u8>().is_err());
    for d in dtypes() {
        let z = AnyTensor::zeros(d, [2, 0, 3]).unwrap().unwrap();
        assert_eq!((z.dtype(), z.shape()), (d, &[2, 0, 3][..]));
        let one = AnyTensor::zeros(d, []).unwrap().unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(
            one.cast(DType::F64).typed::<f64>().unwrap().as_slice(),
            &[0.0]
        );
    }
}

/// A cast chosen at run time is the typed cast, for every pair of element types.
#[test]
fn casts_to_a_type_chosen_at_run_time_are_the_typed_casts() {
    let x = t(&[5], &[-3.7f64, 0.0, 1.5, 300.0, f64::NAN]);
    let a = AnyTensor::from(x.clone());
    let want = |d: DType| -> Vec<f64> {
        // The typed cast, then widened to f64 to compare.
        let typed = a.cast(d);
        typed
            .cast(DType::F64)
            .into_typed::<f64>()
            .unwrap()
            .into_vec()
    };
    assert_eq!(
        AnyTensor::from(x.cast::<u8>())
            .cast(DType::F64)
            .typed::<f64>()
            .unwrap()
            .as_slice(),
        &want(DType::U8)[..]
    );
    for from in dtypes() {
        let src = a.cast(from);
        assert_eq!(src.dtype(), from);
        for to in dtypes() {
            let y = src.cast(to);
            assert_eq!((y.dtype(), y.shape()), (to, &[5][..]), "{from} -> {to}");
            let s = src.cast_saturating(to);
            assert_eq!(s.dtype(), to);
            match src.try_cast(to) {
                Ok(c) => assert_eq!(
                    bits(&c),
                    bits(&y),
                    "{from} -> {to}: try_cast agrees with cast"
                ),
                Err(e) => assert!(matches!(e.kind(), ErrorKind::CastOutOfRange { .. })),
            }
        }
    }
    let e = a.try_cast(DType::I8).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot cast [5] from f64 to i8: element 3 (row-major) is NaN or outside i8's range (C3)"
    );
    assert_eq!(
        a.cast(DType::I8).typed::<i8>().unwrap().as_slice(),
        &[-3, 0, 1, 127, 0]
    );
    assert_eq!(
        a.cast_saturating(DType::U8)
            .typed::<u8>()
            .unwrap()
            .as_slice(),
        &[0, 0, 1, 255, 0]
    );
}

#[test]
fn operations_on_two_tensors_need_one_element_type() {
    let a = AnyTensor::from(t(&[2, 2], &[1i32, 2, 3, 4]));
    let b = AnyTensor::from(t(&[2], &[10i32, 20]));
    let f = AnyTensor::from(t(&[2], &[1.0f32, 2.0]));
    let sum = a.binary(&b, BinaryOp::Add, NUMPY).unwrap();
    assert_eq!(sum.typed::<i32>().unwrap().as_slice(), &[11, 22, 13, 24]);
    let e = a.binary(&f, BinaryOp::Mul, NUMPY).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot compute mul of i32 [2, 2] and f32 [2]: the element types differ"
    );
    // The typed method's own errors pass through.
    let z = AnyTensor::from(t(&[2], &[0i32, 1]));
    assert_eq!(
        a.binary(&z, BinaryOp::Div, NUMPY).unwrap_err().kind(),
        ErrorKind::DivisionByZero
    );
    let bad = AnyTensor::from(t(&[3], &[1i32, 2, 3]));
    assert_eq!(
        a.binary(&bad, BinaryOp::Add, NUMPY)
            .unwrap_err()
            .to_string(),
        "cannot broadcast [2, 2] with [3] (numpy): axis 1 has 2 vs 3"
    );
    // Comparisons give bool tensors, bool included.
    let lt = a.compare(&b, CompareOp::Lt, NUMPY).unwrap();
    assert_eq!(lt.dtype(), DType::Bool);
    let p = AnyTensor::from(t(&[2], &[true, false]));
    let q = AnyTensor::from(t(&[2], &[false, false]));
    assert_eq!(
        p.compare(&q, CompareOp::Gt, NUMPY)
            .unwrap()
            .typed::<bool>()
            .unwrap()
            .as_slice(),
        &[true, false]
    );
    assert_eq!(
        p.compare(&f, CompareOp::Eq, NUMPY).unwrap_err().to_string(),
        "cannot compute eq of bool [2] and f32 [2]: the element types differ"
    );
    // Arithmetic on bool, logic on numbers: not defined.
    assert_eq!(
        p.binary(&q, BinaryOp::Add, NUMPY).unwrap_err().to_string(),
        "cannot compute add of bool [2]: not defined for bool"
    );
    assert_eq!(
        a.logical(&b, LogicalOp::And, NUMPY)
            .unwrap_err()
            .to_string(),
        "cannot compute and of i32 [2, 2]: not defined for i32"
    );
    assert_eq!(
        p.logical(&q, LogicalOp::Or, NUMPY)
            .unwrap()
            .typed::<bool>()
            .unwrap()
            .as_slice(),
        &[true, false]
    );
    // Matrix products.
    let m = a
        .matmul(
            &AnyTensor::from(t(&[2], &[1i32, 1])),
            MatMulOptions::default(),
        )
        .unwrap();
    assert_eq!(m.typed::<i32>().unwrap().as_slice(), &[3, 7]);
    assert_eq!(
        a.matmul(&f, MatMulOptions::default())
            .unwrap_err()
            .to_string(),
        "cannot compute matmul of i32 [2, 2] and f32 [2]: the element types differ"
    );
}

#[test]
fn select_unary_reductions_and_shapes_dispatch() {
    let cond = AnyTensor::from(t(&[2, 1], &[true, false]));
    let then = AnyTensor::from(t(&[2], &[1u8, 2]));
    let zero = AnyTensor::from(DynTensor::scalar(0u8));
    let w = cond.where_cond(&then, &zero).unwrap();
    assert_eq!(w.typed::<u8>().unwrap().as_slice(), &[1, 2, 0, 0]);
    // Select's condition may not grow the values' broadcast (W2).
    assert_eq!(
        cond.select(&then, &zero, NUMPY).unwrap_err().kind(),
        ErrorKind::ConditionGrows
    );
    let row = AnyTensor::from(t(&[2], &[false, true]));
    let s = row.select(&then, &zero, NUMPY).unwrap();
    assert_eq!(s.typed::<u8>().unwrap().as_slice(), &[0, 2]);
    assert_eq!(
        cond.where_cond(&then, &AnyTensor::from(DynTensor::scalar(0i8)))
            .unwrap_err()
            .to_string(),
        "cannot compute select of u8 [2] and i8 []: the element types differ"
    );
    assert_eq!(
        then.where_cond(&then, &zero).unwrap_err().to_string(),
        "cannot compute select of u8 [2]: not defined for u8"
    );

    let x = AnyTensor::from(t(&[2, 3], &[-1i16, 5, 5, 2, -7, 0]));
    assert_eq!(
        x.neg().unwrap().typed::<i16>().unwrap().as_slice(),
        &[1, -5, -5, -2, 7, 0]
    );
    assert_eq!(x.not().unwrap().typed::<i16>().unwrap().as_slice()[0], 0);
    assert_eq!(
        x.clip(-2.0, 3.0)
            .unwrap()
            .typed::<i16>()
            .unwrap()
            .as_slice(),
        &[-1, 3, 3, 2, -2, 0]
    );
    assert_eq!(
        AnyTensor::from(t(&[1], &[1.0f64]))
            .not()
            .unwrap_err()
            .to_string(),
        "cannot compute not of f64 [1]: not defined for f64"
    );
    assert_eq!(
        cond.not().unwrap().typed::<bool>().unwrap().as_slice(),
        &[false, true]
    );
    assert!(cond.neg().is_err());

    assert_eq!(
        x.sum(&[1], false)
            .unwrap()
            .typed::<i16>()
            .unwrap()
            .as_slice(),
        &[9, -5]
    );
    assert_eq!(
        x.sum(Axes::All, false)
            .unwrap()
            .typed::<i16>()
            .unwrap()
            .as_slice(),
        &[4]
    );
    assert_eq!(
        x.mean(&[1], false)
            .unwrap()
            .typed::<i16>()
            .unwrap()
            .as_slice(),
        &[3, -1]
    );
    assert_eq!(
        x.prod(&[0], false)
            .unwrap()
            .typed::<i16>()
            .unwrap()
            .as_slice(),
        &[-2, -35, 0]
    );
    assert_eq!(x.max(&[1], true).unwrap().shape(), &[2, 1]);
    let am = x.argmax(1, false, true).unwrap();
    assert_eq!(
        (am.dtype(), am.typed::<usize>().unwrap().as_slice()),
        (DType::USize, &[2, 0][..])
    );
    assert_eq!(
        x.argmax(1, false, false)
            .unwrap()
            .typed::<usize>()
            .unwrap()
            .as_slice(),
        &[1, 0]
    );
    assert_eq!(
        x.argmin(1, false, false)
            .unwrap()
            .typed::<usize>()
            .unwrap()
            .as_slice(),
        &[0, 1]
    );
    assert_eq!(
        cond.any(Axes::All, false)
            .unwrap()
            .typed::<bool>()
            .unwrap()
            .as_slice(),
        &[true]
    );
    assert_eq!(
        x.all(Axes::All, false).unwrap_err().to_string(),
        "cannot compute all of i16 [2, 3]: not defined for i16"
    );
    assert_eq!(
        cond.sum(Axes::All, false).unwrap_err().to_string(),
        "cannot compute sum of bool [2, 1]: not defined for bool"
    );

    let r = x.clone().into_shape([3, 2]).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.clone().flatten().shape(), &[6]);
    assert_eq!(x.permute([1, 0]).unwrap().shape(), &[3, 2]);
    assert_eq!(x.clone().insert_axis(0).unwrap().shape(), &[1, 2, 3]);
    assert_eq!(x.clone().insert_axis(0).unwrap().squeeze(0).unwrap(), x);
    assert_eq!(
        x.broadcast([2, 2, 3], BroadcastToMode::Numpy)
            .unwrap()
            .shape(),
        &[2, 2, 3]
    );
    let c = AnyTensor::concat(&[&x, &x], 0).unwrap();
    assert_eq!(c.shape(), &[4, 3]);
    assert_eq!(AnyTensor::stack(&[&x, &x], 0).unwrap().shape(), &[2, 2, 3]);
    let other = AnyTensor::from(t(&[2, 3], &[0i32; 6]));
    assert_eq!(
        AnyTensor::concat(&[&x, &other], 0).unwrap_err().to_string(),
        "cannot compute concat of i16 [2, 3] and i32 [2, 3]: the element types differ"
    );
    assert_eq!(
        AnyTensor::concat(&[], 0).unwrap_err().kind(),
        ErrorKind::NoTensors
    );
}

#[test]
fn indexing_dispatches_with_indices_of_any_integer_type() {
    use shaped::rules::Slice;
    let x = AnyTensor::from(t(&[2, 3], &[1.5f64, 2.5, 3.5, 4.5, 5.5, 6.5]));
    let s = x
        .slice(&[Slice::step(-1), Slice::new(None, None, 2)])
        .unwrap();
    assert_eq!(s.typed::<f64>().unwrap().as_slice(), &[4.5, 6.5, 1.5, 3.5]);
    let i = AnyTensor::from(t(&[2], &[2u8, 0]));
    let g = x.gather(&i, 1).unwrap();
    assert_eq!(g.typed::<f64>().unwrap().as_slice(), &[3.5, 1.5, 6.5, 4.5]);
    let i = AnyTensor::from(t(&[2, 1], &[-1i64, 0]));
    let e = x.gather_elements(&i, 1).unwrap();
    assert_eq!(e.typed::<f64>().unwrap().as_slice(), &[3.5, 4.5]);
    let f = AnyTensor::from(t(&[1], &[0.0f32]));
    assert_eq!(
        x.gather(&f, 0).unwrap_err().to_string(),
        "cannot compute gather of f32 [1]: not defined for f32"
    );
    let parts = x.split(1, &[1, 2]).unwrap();
    assert_eq!(parts[1].shape(), &[2, 2]);
    let one = AnyTensor::from(t(&[1, 3, 1], &[1u16, 2, 3]));
    assert_eq!(one.clone().squeeze_all().shape(), &[3]);
    assert_eq!(one.squeeze_axes(&[-1]).unwrap().shape(), &[1, 3]);
}

/// Range from inputs of any numeric type chosen at run time, each of one element, is the
/// typed range (M12); `bool` has none.
#[test]
fn m12_range_dispatches_on_every_numeric_type() {
    for d in dtypes().into_iter().filter(|&d| d != DType::Bool) {
        let of = |v: f64| AnyTensor::from(t(&[], &[v])).cast(d);
        let r = AnyTensor::range(&of(1.0), &of(10.0), &of(4.0)).unwrap();
        assert_eq!((r.dtype(), r.shape()), (d, &[3][..]), "{d:?}");
        assert_eq!(bits(&r), [1.0f64, 5.0, 9.0].map(f64::to_bits), "{d:?}");
        let e = AnyTensor::range(&of(1.0), &of(10.0), &of(0.0)).unwrap_err();
        assert_eq!(e.to_string(), "cannot range: the delta is 0 (M12)");
    }
    let s = |v: i32| AnyTensor::from(t(&[], &[v]));
    let e = AnyTensor::range(&s(0), &AnyTensor::from(t(&[], &[5i64])), &s(1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot compute range of i32 [] and i64 []: the element types differ"
    );
    let e = AnyTensor::range(&s(0), &s(5), &AnyTensor::from(t(&[0], &[0i32; 0]))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot range: the delta has shape [0]; start, limit and delta hold one element each (M12)"
    );
    assert_eq!(e.kind(), ErrorKind::NotScalar { position: 2 });
    let b = AnyTensor::from(t(&[], &[true]));
    assert_eq!(
        AnyTensor::range(&b, &b, &b).unwrap_err().to_string(),
        "cannot compute range of bool []: not defined for bool"
    );
}

/// Pad of every element type chosen at run time is the typed pad (M13); the constant is a
/// tensor of one element of the same type, or 0.
#[test]
fn m13_pad_dispatches_on_every_type() {
    use shaped::rules::PadMode;
    for d in dtypes() {
        let x = AnyTensor::from(t(&[2, 2], &[1.0f64, 0.0, 1.0, 1.0])).cast(d);
        let one = AnyTensor::from(t(&[], &[1.0f64])).cast(d);
        let c = x.pad(&[0, 1, 0, 1], PadMode::Constant, Some(&one)).unwrap();
        assert_eq!(c.dtype(), d);
        assert_eq!(
            bits(&c),
            [1.0f64, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0].map(f64::to_bits),
            "{d:?}"
        );
        let z = x.pad_axes(&[1, 0], &[0], PadMode::Constant, None).unwrap();
        assert_eq!(
            bits(&z),
            [0.0f64, 0.0, 1.0, 0.0, 1.0, 1.0].map(f64::to_bits),
            "{d:?}"
        );
        let w = x.pad_axes(&[0, 2], &[-1], PadMode::Wrap, None).unwrap();
        assert_eq!(w.shape(), &[2, 4]);
    }
    let x = AnyTensor::from(t(&[2], &[1u8, 2]));
    let e = x
        .pad(
            &[1, 1],
            PadMode::Constant,
            Some(&AnyTensor::from(t(&[2], &[0u8, 0]))),
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot pad [2]: the constant value has shape [2]; it holds one element (M13)"
    );
    let e = x
        .pad(
            &[1, 1],
            PadMode::Constant,
            Some(&AnyTensor::from(t(&[], &[0i8]))),
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot compute pad of u8 [2] and i8 []: the element types differ"
    );
}
