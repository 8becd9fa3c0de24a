//! Range (rule M12): how many values `range(start, limit, delta)` makes, and each value, for
//! every numeric element type. The runtime form is `DynTensor::range`; a static count is
//! `Tensor::<T, Shape![N]>::range`.

use crate::error::{Error, ErrorKind, Operation};
use crate::op::ShapeOp;

fn error(kind: ErrorKind) -> Error {
    Error::new(kind, Operation::Shape { op: ShapeOp::Range }, &[], &[])
}

/// A numeric element type that a range is made of (M12): the primitive integers, `f32`,
/// `f64`, and with feature `half`, `f16` and `bf16`. Sealed.
///
/// Integers count exactly and compute value `i` as `start + i * delta`, wrapping (exact
/// whenever the value lies between `start` and `limit`, as every value of a
/// [`range_len`]-counted range does). Floats count and compute in `f64` and round each value
/// to the element type once, as ONNX's reference (`np.arange` on Python floats, then
/// `astype`) does.
pub trait RangeElement: Copy + private::Sealed {
    #[doc(hidden)]
    fn count(start: Self, limit: Self, delta: Self) -> Result<usize, ErrorKind>;
    #[doc(hidden)]
    fn value(start: Self, delta: Self, i: usize) -> Self;
}

mod private {
    pub trait Sealed {}
}

macro_rules! range_int {
    ($($t:ty => $u:ty;)*) => {$(
        impl private::Sealed for $t {}
        impl RangeElement for $t {
            #[inline]
            #[allow(unused_comparisons)]
            fn count(start: Self, limit: Self, delta: Self) -> Result<usize, ErrorKind> {
                if delta == 0 {
                    return Err(ErrorKind::ZeroDelta);
                }
                // The distance and the step as unsigned magnitudes: `hi - lo` of two values of
                // the type, with `hi > lo`, is below 2^bits, so the wrapping difference of the
                // unsigned forms is exact (and so is `|delta|`, `MIN` included).
                let (lo, hi, step) = if delta > 0 {
                    (start, limit, delta as $u)
                } else {
                    (limit, start, (delta as $u).wrapping_neg())
                };
                if hi <= lo {
                    return Ok(0);
                }
                let distance = (hi as $u).wrapping_sub(lo as $u);
                let n = distance / step + <$u>::from(distance % step != 0);
                usize::try_from(n).map_err(|_| ErrorKind::Overflow)
            }
            #[inline(always)]
            fn value(start: Self, delta: Self, i: usize) -> Self {
                // Modulo 2^bits, which is exact when the value fits the type.
                start.wrapping_add((i as $t).wrapping_mul(delta))
            }
        }
    )*};
}
range_int! {
    i8 => u8; i16 => u16; i32 => u32; i64 => u64; i128 => u128; isize => usize;
    u8 => u8; u16 => u16; u32 => u32; u64 => u64; u128 => u128; usize => usize;
}

/// The count of a float range in `f64` (numpy's `arange` on Python floats): `ceil((limit -
/// start) / delta)`, none when that is not positive. A quotient that underflows to 0 while
/// the distance is not 0 (a huge or infinite delta) counts as numpy counts it: one value when
/// the delta points at the limit, none otherwise.
fn float_count(start: f64, limit: f64, delta: f64) -> Result<usize, ErrorKind> {
    if delta == 0.0 {
        return Err(ErrorKind::ZeroDelta);
    }
    let distance = limit - start;
    let quotient = distance / delta;
    if quotient.is_nan() {
        return Err(ErrorKind::RangeNaN);
    }
    if quotient == 0.0 && distance != 0.0 {
        return Ok(usize::from(quotient.is_sign_positive()));
    }
    // `FloatCore`'s `ceil` needs no `std`.
    let n = num_traits::float::FloatCore::ceil(quotient);
    if n <= 0.0 {
        Ok(0)
    } else if n < usize::MAX as f64 {
        // Below `usize::MAX` (its `f64` rounds up to 2^64 on 64-bit targets): exact.
        Ok(n as usize)
    } else {
        Err(ErrorKind::Overflow)
    }
}

/// Value `i` of a float range in `f64`, as numpy's `arange` fills it: the start, then
/// `start + delta`, then `start + i * d` with `d` the difference of those two (not `delta`
/// itself: they differ when `start + delta` rounds).
#[inline(always)]
fn float_value(start: f64, delta: f64, i: usize) -> f64 {
    match i {
        0 => start,
        1 => start + delta,
        _ => start + i as f64 * ((start + delta) - start),
    }
}

macro_rules! range_float {
    ($($(#[$m:meta])* $t:ty: |$x:ident| $to:expr, |$y:ident| $from:expr;)*) => {$(
        $(#[$m])*
        impl private::Sealed for $t {}
        $(#[$m])*
        impl RangeElement for $t {
            #[inline]
            fn count(start: Self, limit: Self, delta: Self) -> Result<usize, ErrorKind> {
                let wide = |$x: $t| -> f64 { $to };
                float_count(wide(start), wide(limit), wide(delta))
            }
            #[inline(always)]
            fn value(start: Self, delta: Self, i: usize) -> Self {
                let wide = |$x: $t| -> f64 { $to };
                let $y = float_value(wide(start), wide(delta), i);
                $from
            }
        }
    )*};
}
range_float! {
    f32: |x| f64::from(x), |y| y as f32;
    f64: |x| x, |y| y;
    #[cfg(feature = "half")]
    half::f16: |x| x.to_f64(), |y| half::f16::from_f64(y);
    #[cfg(feature = "half")]
    half::bf16: |x| x.to_f64(), |y| half::bf16::from_f64(y);
}

/// How many values `range(start, limit, delta)` makes (M12): ONNX's
/// `max(ceil((limit - start) / delta), 0)`, exact for integers and in `f64` for floats; a
/// delta of 0, a NaN count and a count beyond `usize` are errors.
///
/// ```
/// use shaped::rules::range_len;
/// assert_eq!(range_len(0, 10, 3).unwrap(), 4);               // 0 3 6 9
/// assert_eq!(range_len(10, 0, -3).unwrap(), 4);              // 10 7 4 1
/// assert_eq!(range_len(0, 10, -1).unwrap(), 0);
/// assert_eq!(range_len(1.0f32, 2.0, 0.25).unwrap(), 4);
/// assert_eq!(range_len(-128i8, 127, 1).unwrap(), 255);       // the distance exceeds i8
/// let e = range_len(0, 10, 0).unwrap_err();
/// assert_eq!(e.to_string(), "cannot range: the delta is 0 (M12)");
/// let e = range_len(0.0, f64::NAN, 1.0).unwrap_err();
/// assert_eq!(e.to_string(), "cannot range: the count (limit - start) / delta is NaN (M12)");
/// ```
pub fn range_len<T: RangeElement>(start: T, limit: T, delta: T) -> Result<usize, Error> {
    T::count(start, limit, delta).map_err(error)
}

/// Value `i` of a range from `start` by `delta` (M12): for integers `start + i * delta`
/// (wrapping); for floats as numpy's `arange` fills it, in `f64` and rounded once.
#[inline(always)]
pub(crate) fn range_value<T: RangeElement>(start: T, delta: T, i: usize) -> T {
    T::value(start, delta, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m12_counts_at_the_type_limits() {
        assert_eq!(range_len(i64::MIN, i64::MAX, i64::MAX), Ok(3));
        assert_eq!(range_len(i64::MAX, i64::MIN, i64::MIN), Ok(2));
        assert_eq!(range_len(0u8, 255, 1), Ok(255));
        assert_eq!(range_len(u128::MAX, 0, 1), Ok(0));
        assert_eq!(
            range_len(0u128, u128::MAX, 1).unwrap_err().kind(),
            ErrorKind::Overflow
        );
        assert_eq!(range_value(-128i8, 1, 255), 127);
        assert_eq!(range_value(i64::MAX, i64::MIN, 1), -1);
    }

    #[test]
    fn m12_float_counts_follow_numpy() {
        assert_eq!(range_len(0.0, 1.0, f64::INFINITY), Ok(1));
        assert_eq!(range_len(0.0, 1.0, f64::NEG_INFINITY), Ok(0));
        assert_eq!(range_len(0.0, 0.0, f64::INFINITY), Ok(0));
        assert_eq!(range_len(0.0, 1e-300, 1e300), Ok(1));
        assert_eq!(
            range_len(0.0, f64::INFINITY, 1.0).unwrap_err().kind(),
            ErrorKind::Overflow
        );
        assert_eq!(
            range_len(f64::INFINITY, f64::INFINITY, 1.0)
                .unwrap_err()
                .kind(),
            ErrorKind::RangeNaN
        );
        assert_eq!(
            range_len(0.0, 1.0, -0.0).unwrap_err().kind(),
            ErrorKind::ZeroDelta
        );
    }
}
