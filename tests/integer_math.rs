//! `abs`, `relu`, `sign`, `clip` and `mean` on integer elements (and `sign` on floats), on
//! static, mixed and runtime tensors: numpy's values (wrapping `abs`, `sign` of zeros and
//! NaN), ONNX's integer `ReduceMean` (the wrapping sum over the count, truncated toward zero),
//! and the error of an integer mean of nothing.

use shaped::{DynTensor, ErrorKind, Shape, Tensor};

/// Each unary function on the three paths, against the expected values.
macro_rules! on_every_path {
    ($t:ty, $input:expr, $($name:ident ($($arg:expr),*) => $want:expr;)*) => {{
        let input: [$t; 6] = $input;
        let s = Tensor::<$t, Shape![2, 3]>::from_fn(|[i, j]| input[i * 3 + j]);
        let m = Tensor::<$t, Shape![_, 3]>::from_shape_vec([2, 3], input.to_vec()).unwrap();
        let d = DynTensor::from_shape_vec([2, 3], input.to_vec()).unwrap();
        $(
            let want: [$t; 6] = $want;
            assert_eq!(s.$name($($arg),*).as_slice(), &want, "{} static", stringify!($name));
            assert_eq!(m.$name($($arg),*).as_slice(), &want, "{} mixed", stringify!($name));
            assert_eq!(d.$name($($arg),*).as_slice(), &want, "{} runtime", stringify!($name));
        )*
    }};
}

#[test]
fn integer_abs_relu_sign_clip_on_every_path() {
    on_every_path!(i8, [-128, -3, 0, 1, 127, -1],
        abs() => [-128, 3, 0, 1, 127, 1];
        relu() => [0, 0, 0, 1, 127, 0];
        sign() => [-1, -1, 0, 1, 1, -1];
        clip(-2, 5) => [-2, -2, 0, 1, 5, -1];
    );
    on_every_path!(u8, [0, 3, 255, 1, 7, 128],
        abs() => [0, 3, 255, 1, 7, 128];
        relu() => [0, 3, 255, 1, 7, 128];
        sign() => [0, 1, 1, 1, 1, 1];
        clip(2, 100) => [2, 3, 100, 2, 7, 100];
    );
    on_every_path!(i64, [i64::MIN, -5, 0, 9, i64::MAX, -1],
        abs() => [i64::MIN, 5, 0, 9, i64::MAX, 1];
        sign() => [-1, -1, 0, 1, 1, -1];
    );
}

#[test]
fn float_sign_follows_numpy() {
    let nan = f32::NAN;
    let x = DynTensor::from_shape_vec([6], vec![-0.0f32, 0.0, nan, -3.5, f32::INFINITY, 1e-45])
        .unwrap();
    let got = x.sign();
    let bits: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
    // numpy 2.4: sign(-0.0) is 0.0, sign(nan) is nan.
    assert_eq!(bits[..2], [0, 0]);
    assert!(got.as_slice()[2].is_nan());
    assert_eq!(got.as_slice()[3..], [-1.0, 1.0, 1.0]);
    let s = Tensor::<f64, Shape![3]>::from([-2.0, 0.0, 5.0]);
    assert_eq!(s.sign().as_slice(), &[-1.0, 0.0, 1.0]);
}

#[test]
fn integer_means_truncate_toward_zero_on_every_path() {
    // Row sums 7, -7, 200 (wrapping in i8 to -56), -3.
    let data: [i8; 12] = [1, 2, 4, -1, -2, -4, 100, 100, 0, -1, -1, -1];
    let s = Tensor::<i8, Shape![4, 3]>::from_fn(|[i, j]| data[i * 3 + j]);
    let m = Tensor::<i8, Shape![_, 3]>::from_shape_vec([4, 3], data.to_vec()).unwrap();
    let d = DynTensor::from_shape_vec([4, 3], data.to_vec()).unwrap();
    // numpy.mean(x, axis=1, dtype=int8): [2, -2, -18, -1].
    let want = [2i8, -2, -18, -1];
    assert_eq!(s.mean_axis::<1>().as_slice(), &want);
    assert_eq!(m.mean_axis::<1>().as_slice(), &want);
    assert_eq!(d.mean(&[1], false).unwrap().as_slice(), &want);
    // Over the first axis: sums 99, 99, -1 over 4.
    let want = [24i8, 24, 0];
    assert_eq!(s.mean_keepdims::<0>().as_slice(), &want);
    assert_eq!(m.mean_keepdims::<0>().as_slice(), &want);
    assert_eq!(d.mean(&[0], true).unwrap().as_slice(), &want);
    // numpy.mean(x, dtype=int8): the wrapped total -59 over 12.
    assert_eq!(d.mean(shaped::Axes::All, false).unwrap().as_slice(), &[-4]);
    // Above the static kernel threshold: the shared sum, then the division.
    let big = Tensor::<i32, Shape![70, 64]>::from_fn(|[i, j]| (i * 64 + j) as i32 - 2000);
    let db = DynTensor::from_shape_vec([70, 64], big.as_slice().to_vec()).unwrap();
    assert_eq!(
        big.mean_axis::<0>().as_slice(),
        db.mean(&[0], false).unwrap().as_slice()
    );
    assert_eq!(
        big.mean_axis::<0>().as_slice()[0],
        (0..70).map(|i| i * 64 - 2000).sum::<i32>() / 70
    );
    let u = DynTensor::from_shape_vec([3], vec![u64::MAX, 1, 1]).unwrap();
    assert_eq!(u.mean(&[0], false).unwrap().as_slice(), &[1 / 3]);
}

#[test]
fn an_integer_mean_of_nothing_is_an_error() {
    let e = DynTensor::<i32>::from_shape_vec([2, 0], vec![]).unwrap();
    let err = e.mean(&[1], false).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::EmptyReduction { axis: 1 });
    assert_eq!(
        err.to_string(),
        "cannot reduce [2, 0] (mean): axis 1 has no elements, and mean of no elements has no value"
    );
    // No output elements: nothing to compute, no error.
    assert_eq!(e.mean(&[0], false).unwrap().shape(), &[0]);
    // Floats have a mean of nothing: NaN.
    let f = DynTensor::<f32>::from_shape_vec([2, 0], vec![]).unwrap();
    assert!(f.mean(&[1], false).unwrap().iter().all(|v| v.is_nan()));
    let m = Tensor::<i32, Shape![2, _]>::from_shape_vec([2, 0], vec![]).unwrap();
    let caught = std::panic::catch_unwind(|| m.mean_axis::<1>());
    let msg = caught.unwrap_err();
    assert_eq!(
        msg.downcast_ref::<String>().unwrap(),
        "cannot reduce [2, 0] (mean): axis 1 has no elements, and mean of no elements has no value"
    );
}
