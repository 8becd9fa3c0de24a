//! Casts between element types (C1-C3) on static, mixed and runtime tensors: C1 against
//! numpy's `astype` on every pair numpy defines (`tests/reference/casts.py`, its output in
//! `tests/reference/casts.txt`), C2 and C3 by value, the error's exact text, and the one
//! rounding into `bf16` from `f64` checked against the definition of rounding to nearest.

use shaped::cast::{cast, cast_saturating, try_cast};
use shaped::{CastElement, DynTensor, ErrorKind, Shape, Tensor};

use crate::written::Written;

/// An element type of the data file (read and compared by its bits) that casts.
trait Val: CastElement + PartialEq + Written {}

impl<T: CastElement + PartialEq + Written> Val for T {}

/// One line of the data through the runtime path; the bits must be numpy's. Returns the
/// number of values checked.
fn check<T: Val, U: Val>(from: &str, to: &str, input: &str, output: &str) -> usize {
    let x: Vec<T> = input.split_whitespace().map(T::read).collect();
    let want: Vec<u64> = output
        .split_whitespace()
        .map(|s| U::read(s).bits())
        .collect();
    let bits = |v: &[U]| v.iter().map(|&u| u.bits()).collect::<Vec<_>>();
    let d = DynTensor::from_shape_vec([x.len()], x.clone()).unwrap();
    assert_eq!(
        bits(d.cast::<U>().as_slice()),
        want,
        "{from} -> {to}, runtime"
    );
    x.len()
}

macro_rules! dispatch_to {
    ($t:ty, $from:expr, $to:expr, $i:expr, $o:expr; $($name:literal $u:ty),*) => {
        match $to {
            $($name => check::<$t, $u>($from, $to, $i, $o),)*
            #[cfg(feature = "half")]
            "float16" => check::<$t, shaped::f16>($from, $to, $i, $o),
            #[cfg(feature = "half")]
            "bfloat16" => check::<$t, shaped::bf16>($from, $to, $i, $o),
            #[cfg(not(feature = "half"))]
            "float16" | "bfloat16" => 0,
            other => panic!("unknown type {other}"),
        }
    };
}

macro_rules! dispatch {
    ($from:expr, $to:expr, $i:expr, $o:expr; $($name:literal $t:ty),*) => {
        match $from {
            $($name => dispatch_to!($t, $from, $to, $i, $o; "bool" bool, "int8" i8, "int16" i16,
                "int32" i32, "int64" i64, "uint8" u8, "uint16" u16, "uint32" u32, "uint64" u64,
                "float32" f32, "float64" f64),)*
            #[cfg(feature = "half")]
            "float16" => dispatch_to!(shaped::f16, $from, $to, $i, $o; "bool" bool, "int8" i8,
                "int16" i16, "int32" i32, "int64" i64, "uint8" u8, "uint16" u16, "uint32" u32,
                "uint64" u64, "float32" f32, "float64" f64),
            #[cfg(not(feature = "half"))]
            "float16" => 0,
            other => panic!("unknown type {other}"),
        }
    };
}

#[test]
fn c1_cast_is_numpys_astype_wherever_numpy_defines_it() {
    let mut checked = 0;
    for line in include_str!("reference/casts.txt").lines() {
        if line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(" | ").collect();
        checked += dispatch!(f[0], f[1], f[2], f[3]; "bool" bool, "int8" i8, "int16" i16,
            "int32" i32, "int64" i64, "uint8" u8, "uint16" u16, "uint32" u32, "uint64" u64,
            "float32" f32, "float64" f64);
    }
    // Every value of the data file; without `half`, the lines with f16 and bf16 are skipped.
    let want = if cfg!(feature = "half") { 2166 } else { 1698 };
    assert_eq!(checked, want);
}

/// C1 where numpy is undefined: a float outside an integer's range saturates, NaN gives 0.
#[test]
fn c1_floats_outside_an_integer_saturate_and_nan_is_zero() {
    let x = DynTensor::from_shape_vec(
        [6],
        vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -129.0,
            255.99,
        ],
    )
    .unwrap();
    assert_eq!(x.cast::<i8>().as_slice(), &[0, 127, -128, 127, -128, 127]);
    assert_eq!(x.cast::<u8>().as_slice(), &[0, 255, 0, 255, 0, 255]);
    assert_eq!(
        x.cast::<i64>().as_slice()[..4],
        [0, i64::MAX, i64::MIN, i64::MAX]
    );
    assert_eq!(
        x.cast::<bool>().as_slice(),
        &[true, true, true, true, true, true]
    );
    assert_eq!(cast::<f32, u64>(-0.9), 0);
    assert_eq!(cast::<f32, i32>(2147483520.0), 2147483520);
}

#[test]
fn c2_cast_saturating_keeps_values_in_range() {
    let i = Tensor::<i64, Shape![5]>::from([-300, 300, i64::MAX, -1, 70000]);
    assert_eq!(
        i.cast_saturating::<i8>().as_slice(),
        &[-128, 127, 127, -1, 127]
    );
    assert_eq!(
        i.cast_saturating::<u16>().as_slice(),
        &[0, 300, u16::MAX, 0, u16::MAX]
    );
    assert_eq!(
        i.cast::<u16>().as_slice(),
        &[65236, 300, u16::MAX, u16::MAX, 4464]
    );
    let f = Tensor::<f64, Shape![4]>::from([1e300, -1e300, f64::INFINITY, f64::NAN]);
    let s = f.cast_saturating::<f32>();
    assert_eq!(s.as_slice()[..3], [f32::MAX, f32::MIN, f32::INFINITY]);
    assert!(s.as_slice()[3].is_nan());
    assert_eq!(
        f.cast_saturating::<i32>().as_slice(),
        &[i32::MAX, i32::MIN, i32::MAX, 0]
    );
    assert_eq!(cast_saturating::<u64, i64>(u64::MAX), i64::MAX);
    #[cfg(feature = "half")]
    {
        assert_eq!(cast_saturating::<i32, shaped::f16>(70000), shaped::f16::MAX);
        assert_eq!(cast::<i32, shaped::f16>(70000), shaped::f16::INFINITY);
        assert_eq!(
            cast_saturating::<f32, shaped::bf16>(-3.4e38),
            shaped::bf16::MIN
        );
    }
}

#[test]
fn c3_try_cast_refuses_values_with_none_and_names_the_first() {
    let cases: [(DynTensor<f64>, &str); 3] = [
        (
            DynTensor::from_shape_vec([2, 2], vec![1.0, 2.9, f64::NAN, 1e9]).unwrap(),
            "cannot cast [2, 2] from f64 to i16: element 2 (row-major) is NaN or outside i16's range (C3)",
        ),
        (
            DynTensor::from_shape_vec([3], vec![-32768.9, 32767.9, 32768.0]).unwrap(),
            "cannot cast [3] from f64 to i16: element 2 (row-major) is NaN or outside i16's range (C3)",
        ),
        (
            DynTensor::from_shape_vec([1, 1], vec![-32769.0]).unwrap(),
            "cannot cast [1, 1] from f64 to i16: element 0 (row-major) is NaN or outside i16's range (C3)",
        ),
    ];
    for (x, text) in cases {
        let e = x.try_cast::<i16>().unwrap_err();
        assert_eq!(e.to_string(), text);
        assert!(matches!(e.kind(), ErrorKind::CastOutOfRange { .. }));
        let m = Tensor::<f64, Shape![_]>::from_shape_vec([x.len()], x.as_slice().to_vec()).unwrap();
        let me = m.try_cast::<i16>().unwrap_err();
        assert_eq!(me.kind(), e.kind());
    }
    // Truncation toward zero decides: -32768.9 and 32767.9 fit.
    let ok = Tensor::<f64, Shape![2]>::from([-32768.9, 32767.9]);
    assert_eq!(ok.try_cast::<i16>().unwrap().as_slice(), &[-32768, 32767]);
    assert_eq!(try_cast::<f64, u8>(-0.99), Some(0));
    assert_eq!(try_cast::<f64, u8>(-1.0), None);
    assert_eq!(try_cast::<u64, i64>(1 << 63), None);
    assert_eq!(try_cast::<i64, u32>(-1), None);
    assert_eq!(try_cast::<f64, f32>(1e300), None);
    assert_eq!(try_cast::<f64, f32>(f64::INFINITY), Some(f32::INFINITY));
    assert!(try_cast::<f64, f32>(f64::NAN).unwrap().is_nan());
    assert_eq!(
        try_cast::<f64, u64>(18446744073709549568.0),
        Some(18446744073709549568)
    );
    assert_eq!(try_cast::<f64, u64>(18446744073709551616.0), None);
    // Rounding is not an error.
    assert_eq!(try_cast::<i64, f32>(16777217), Some(16777216.0));
    // Empty tensors and rank 0.
    let e = DynTensor::<f32>::from_shape_vec([0, 3], vec![]).unwrap();
    assert_eq!(e.try_cast::<u8>().unwrap().shape(), &[0, 3]);
    assert_eq!(
        DynTensor::scalar(7.5f32)
            .try_cast::<u8>()
            .unwrap()
            .as_slice(),
        &[7]
    );
}

/// `f64` and `i64` into `bf16` round once (C1): each result is the nearest `bf16`, ties to
/// even, checked against the midpoints of its neighbours (exact in `f64`) on random values
/// and on values just past a midpoint, where rounding through `f32` first goes wrong.
#[cfg(feature = "half")]
#[test]
fn c1_bf16_from_f64_and_i64_is_one_rounding() {
    use shaped::bf16;
    let nearest = |x: f64, b: bf16| {
        let v = b.to_f64();
        let up = bf16::from_bits(b.to_bits() + 1).to_f64();
        let down = bf16::from_bits(b.to_bits() - 1).to_f64();
        let (lo, hi) = if v >= 0.0 { (down, up) } else { (up, down) };
        let (mid_lo, mid_hi) = ((lo + v) / 2.0, (v + hi) / 2.0);
        let even = b.to_bits() & 1 == 0;
        (x > mid_lo || (x == mid_lo && even)) && (x < mid_hi || (x == mid_hi && even))
    };
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..20_000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // A random mantissa at a random exponent within bf16's normal range.
        let exponent = (state >> 56) % 240; // 2^-120 ..= 2^119
        let x = f64::from_bits((state >> 12) | ((1023 - 120 + exponent) << 52));
        let x = if state & 1 == 0 { x } else { -x };
        let b: bf16 = cast(x);
        assert!(nearest(x, b), "{x:e} -> {b}");
    }
    // Just past a midpoint: 1 + 2^-8 + 2^-40 is nearer 1.0078125 than 1.
    let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
    assert_eq!(cast::<f64, bf16>(x).to_f64(), 1.0078125);
    assert_eq!(
        cast::<f64, bf16>(1.0 + 2f64.powi(-8)).to_f64(),
        1.0,
        "a tie goes to even"
    );
    let i = (1i64 << 40) + (1 << 32) + 1;
    assert_eq!(
        cast::<i64, bf16>(i).to_f64(),
        ((1i64 << 40) + (1 << 33)) as f64
    );
    assert_eq!(
        cast::<i64, bf16>((1i64 << 40) + (1 << 32)).to_f64(),
        (1i64 << 40) as f64
    );
}

/// The mixed and static paths give the runtime path's bits, on lines of the data into and out
/// of each kind of type (every pair on every path compiled 507 kernels into this test).
#[test]
fn c1_the_typed_paths_agree_with_the_runtime_path() {
    fn typed<T: Val, U: Val>(from: &str, to: &str) {
        let line = include_str!("reference/casts.txt")
            .lines()
            .find(|l| l.starts_with(&format!("{from} | {to} |")))
            .unwrap();
        let f: Vec<&str> = line.split(" | ").collect();
        let x: Vec<T> = f[2].split_whitespace().map(T::read).collect();
        let bits = |v: &[U]| v.iter().map(|&u| u.bits()).collect::<Vec<_>>();
        let want = bits(
            DynTensor::from_shape_vec([x.len()], x.clone())
                .unwrap()
                .cast::<U>()
                .as_slice(),
        );
        let m = Tensor::<T, Shape![_]>::from_shape_vec([x.len()], x.clone()).unwrap();
        assert_eq!(
            bits(m.cast::<U>().as_slice()),
            want,
            "{from} -> {to}, mixed"
        );
        let (first, last) = (x[0], x[x.len() - 1]);
        let s = Tensor::<T, Shape![2]>::from_fn(|[i]| if i == 0 { first } else { last });
        let got = bits(s.cast::<U>().as_slice());
        assert_eq!(
            got,
            [want[0], want[want.len() - 1]],
            "{from} -> {to}, static"
        );
        let sat = bits(s.cast_saturating::<U>().as_slice());
        assert_eq!(sat.len(), 2);
    }
    typed::<f64, i8>("float64", "int8");
    typed::<f32, u16>("float32", "uint16");
    typed::<i64, f32>("int64", "float32");
    typed::<i32, u8>("int32", "uint8");
    typed::<u64, i64>("uint64", "int64");
    typed::<bool, f64>("bool", "float64");
    typed::<i16, bool>("int16", "bool");
    typed::<f64, f32>("float64", "float32");
    #[cfg(feature = "half")]
    {
        typed::<f64, shaped::f16>("float64", "float16");
        typed::<shaped::f16, i32>("float16", "int32");
    }
}
