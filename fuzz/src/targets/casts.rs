//! Casts (C1-C3) between every pair of bool, the integers and f32/f64, of any bit pattern
//! (NaN payloads, infinities, subnormals, the integers' extremes): each of `cast`,
//! `cast_saturating` and `try_cast` against a reference written from RULES.md in wide
//! arithmetic (i128, and f64 for the floats), on `DynTensor` and a mixed `Tensor` alike.
use super::super::Input;
use shaped::cast::{cast, cast_saturating, try_cast, CastElement};
use shaped::{DynTensor, Shape, Tensor};

/// A value of any castable type, and how the reference sees it.
trait Value: CastElement + PartialEq + std::fmt::Debug {
    fn read(input: &mut Input<'_>) -> Self;
    /// `Some(integer)` for bools and integers, else the float.
    fn exact(self) -> Result<i128, f64>;
    /// The type's range for integers (`None` for floats and bool).
    fn range() -> Option<(i128, i128)>;
    fn is_float() -> bool;
    fn bits(self) -> u64;
}

macro_rules! int_value {
    ($($t:ty)*) => {$(
        impl Value for $t {
            fn read(input: &mut Input<'_>) -> Self {
                match input.below(4) {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    _ => input.i64() as $t,
                }
            }
            fn exact(self) -> Result<i128, f64> {
                Ok(self as i128)
            }
            fn range() -> Option<(i128, i128)> {
                Some((<$t>::MIN as i128, <$t>::MAX as i128))
            }
            fn is_float() -> bool {
                false
            }
            fn bits(self) -> u64 {
                self as u64
            }
        }
    )*};
}
int_value!(i8 i16 i32 i64 u8 u16 u32 u64);

impl Value for bool {
    fn read(input: &mut Input<'_>) -> Self {
        input.byte() & 1 == 1
    }
    fn exact(self) -> Result<i128, f64> {
        Ok(self as i128)
    }
    fn range() -> Option<(i128, i128)> {
        None
    }
    fn is_float() -> bool {
        false
    }
    fn bits(self) -> u64 {
        self as u64
    }
}

impl Value for f32 {
    fn read(input: &mut Input<'_>) -> Self {
        match input.below(4) {
            0 => f32::from_bits(input.i64() as u32),
            1 => (input.i64() % 100_000) as f32 / 8.0,
            2 => [
                f32::NAN,
                f32::INFINITY,
                -0.0,
                f32::MAX,
                2147483648.0,
                -129.5,
            ][input.below(6)],
            _ => input.i64() as f32,
        }
    }
    fn exact(self) -> Result<i128, f64> {
        Err(self as f64)
    }
    fn range() -> Option<(i128, i128)> {
        None
    }
    fn is_float() -> bool {
        true
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Value for f64 {
    fn read(input: &mut Input<'_>) -> Self {
        match input.below(4) {
            0 => f64::from_bits(input.i64() as u64),
            1 => (input.i64() % 1_000_000) as f64 / 16.0,
            2 => [
                f64::NAN,
                f64::NEG_INFINITY,
                1e300,
                9_223_372_036_854_775_808.0,
                -32768.9,
            ][input.below(5)],
            _ => input.i64() as f64,
        }
    }
    fn exact(self) -> Result<i128, f64> {
        Err(self)
    }
    fn range() -> Option<(i128, i128)> {
        None
    }
    fn is_float() -> bool {
        true
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// The reference of C1-C3 for one value: `(cast, cast_saturating, try_cast)` as checks.
fn check<T: Value, U: Value>(x: T) {
    let c1: U = cast(x);
    let c2: U = cast_saturating(x);
    let c3: Option<U> = try_cast(x);
    match (x.exact(), U::range()) {
        // Integer to integer: C1 wraps, C2 clamps, C3 only in range.
        (Ok(v), Some((lo, hi))) => {
            let fits = (lo..=hi).contains(&v);
            let width = (hi - lo + 1) as u128;
            let wrapped = ((v - lo).rem_euclid(width as i128)) + lo;
            assert_eq!(c1.exact().unwrap(), wrapped, "{x:?}");
            assert_eq!(c2.exact().unwrap(), v.clamp(lo, hi));
            assert_eq!(c3.map(|c| c.exact().unwrap()), fits.then_some(v));
        }
        // Float to integer: truncate toward zero; NaN and out of range saturate (NaN to 0)
        // in C1 and C2, have no value in C3.
        (Err(f), Some((lo, hi))) => {
            let want = if f.is_nan() {
                0
            } else {
                (f.trunc() as i128).clamp(lo, hi)
            };
            // In i128, where `hi as f64` cannot round up past the range (i64::MAX did).
            let fits = f.is_finite() && (lo..=hi).contains(&(f.trunc() as i128));
            assert_eq!(c1.exact().unwrap(), want, "{x:?}");
            assert_eq!(c2.exact().unwrap(), want);
            assert_eq!(
                c3.map(|c| c.exact().unwrap()),
                fits.then(|| f.trunc() as i128)
            );
        }
        // Anything to bool: nonzero (NaN too).
        (v, None) if !U::is_float() => {
            let want = match v {
                Ok(i) => i != 0,
                Err(f) => f != 0.0,
            };
            assert_eq!(c1.exact().unwrap(), want as i128);
            assert_eq!(c3.map(|c| c.bits()), Some(c1.bits()));
        }
        // Into a float: one rounding to nearest; a finite value past the range is infinite in
        // C1, the largest finite in C2, no value in C3.
        (v, None) => {
            let wide = match v {
                Ok(i) => i as f64,
                Err(f) => f,
            };
            let got = c1.exact().unwrap_err();
            if wide.is_nan() {
                assert!(got.is_nan());
            } else if let Ok(i) = v {
                // Integers round once, from the integer itself (i128 to float by `as`).
                let direct = if std::mem::size_of::<U>() == 4 {
                    (i as f32) as f64
                } else {
                    i as f64
                };
                assert_eq!(got, direct, "{x:?}");
            } else {
                let r = if std::mem::size_of::<U>() == 4 {
                    (wide as f32) as f64
                } else {
                    wide
                };
                assert_eq!(got, r, "{x:?}");
            }
            let overflow = wide.is_finite() && got.is_infinite();
            assert_eq!(c3.is_none(), overflow, "{x:?}");
            if overflow {
                let sat = c2.exact().unwrap_err();
                assert!(sat.is_finite() && sat.signum() == wide.signum());
            } else {
                assert_eq!(c2.bits(), c1.bits());
            }
        }
    }
}

/// The runtime tensor's casts give the element function's values (C1, and C3's first
/// refusal). `cast_saturating` and the typed paths share the element functions; a mixed
/// tensor is checked into `f64` only, to keep this target's build small.
fn tensors<T: Value, U: Value>(xs: &[T]) {
    let d = DynTensor::from_shape_vec([xs.len()], xs.to_vec()).unwrap();
    let want: Vec<u64> = xs.iter().map(|&x| cast::<T, U>(x).bits()).collect();
    let bits = |v: &[U]| v.iter().map(|&u| u.bits()).collect::<Vec<_>>();
    assert_eq!(bits(d.cast::<U>().as_slice()), want);
    match (
        d.try_cast::<U>(),
        xs.iter().position(|&x| try_cast::<T, U>(x).is_none()),
    ) {
        (Ok(t), None) => assert_eq!(bits(t.as_slice()), want),
        (Err(e), Some(i)) => assert_eq!(e.kind(), shaped::ErrorKind::CastOutOfRange { index: i }),
        (r, p) => panic!("{:?} vs first refusal {p:?}", r.map(|t| t.len())),
    }
}

/// A mixed tensor's casts into `f64`.
fn mixed<T: Value>(xs: &[T]) {
    let m = Tensor::<T, Shape![_]>::from_shape_vec([xs.len()], xs.to_vec()).unwrap();
    let want: Vec<u64> = xs.iter().map(|&x| cast::<T, f64>(x).to_bits()).collect();
    let got: Vec<u64> = m
        .cast::<f64>()
        .as_slice()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(got, want);
    let sat: Vec<u64> = xs
        .iter()
        .map(|&x| cast_saturating::<T, f64>(x).to_bits())
        .collect();
    let got: Vec<u64> = m
        .cast_saturating::<f64>()
        .as_slice()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(got, sat);
}

macro_rules! to_each {
    ($t:ty, $input:expr) => {{
        let xs: Vec<$t> = (0..1 + $input.below(4))
            .map(|_| <$t>::read($input))
            .collect();
        match $input.below(11) {
            0 => {
                xs.iter().for_each(|&x| check::<$t, bool>(x));
                tensors::<$t, bool>(&xs)
            }
            1 => {
                xs.iter().for_each(|&x| check::<$t, i8>(x));
                tensors::<$t, i8>(&xs)
            }
            2 => {
                xs.iter().for_each(|&x| check::<$t, i16>(x));
                tensors::<$t, i16>(&xs)
            }
            3 => {
                xs.iter().for_each(|&x| check::<$t, i32>(x));
                tensors::<$t, i32>(&xs)
            }
            4 => {
                xs.iter().for_each(|&x| check::<$t, i64>(x));
                tensors::<$t, i64>(&xs)
            }
            5 => {
                xs.iter().for_each(|&x| check::<$t, u8>(x));
                tensors::<$t, u8>(&xs)
            }
            6 => {
                xs.iter().for_each(|&x| check::<$t, u16>(x));
                tensors::<$t, u16>(&xs)
            }
            7 => {
                xs.iter().for_each(|&x| check::<$t, u32>(x));
                tensors::<$t, u32>(&xs)
            }
            8 => {
                xs.iter().for_each(|&x| check::<$t, u64>(x));
                tensors::<$t, u64>(&xs)
            }
            9 => {
                xs.iter().for_each(|&x| check::<$t, f32>(x));
                tensors::<$t, f32>(&xs)
            }
            _ => {
                xs.iter().for_each(|&x| check::<$t, f64>(x));
                tensors::<$t, f64>(&xs);
                mixed::<$t>(&xs)
            }
        }
    }};
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let input = &mut input;
    match input.below(11) {
        0 => to_each!(bool, input),
        1 => to_each!(i8, input),
        2 => to_each!(i16, input),
        3 => to_each!(i32, input),
        4 => to_each!(i64, input),
        5 => to_each!(u8, input),
        6 => to_each!(u16, input),
        7 => to_each!(u32, input),
        8 => to_each!(u64, input),
        9 => to_each!(f32, input),
        _ => to_each!(f64, input),
    }
}
