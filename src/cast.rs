//! Conversions between element types (C1-C3): `bool`, the integers, `f32`, `f64`, and `f16`
//! and `bf16` with feature `half`. One definition per target type, shared by static, mixed
//! and runtime tensors ([`Tensor::cast`](crate::Tensor::cast),
//! `DynTensor::cast` and their `try_` and `_saturating` forms).
//!
//! Every source converts exactly into an intermediate value (a `bool`, an `i64`, a `u64` or an
//! `f64`, which holds every `f32`, `f16` and `bf16`), and each target converts from that once:
//! a value is rounded at most once, to nearest with ties to even. The narrow floats are
//! reached through a round-to-odd step into `f32`, so an `i64` or `f64` becomes an
//! `f16` or `bf16` with one correct rounding, where the `half` crate's own `from_f64`
//! truncates the low bits of a `bf16` before rounding.
//!
//! ```
//! use shaped::cast::{cast, cast_saturating, try_cast};
//! assert_eq!(cast::<f32, i8>(-3.9), -3); // toward zero
//! assert_eq!(cast::<i32, u8>(300), 44); // wraps, as numpy's astype
//! assert_eq!(cast_saturating::<i32, u8>(300), 255);
//! assert_eq!(try_cast::<i32, u8>(300), None);
//! assert_eq!(cast::<f32, i32>(f32::NAN), 0); // saturating where numpy is undefined
//! assert_eq!(try_cast::<f32, i32>(f32::NAN), None);
//! assert!(cast::<f32, bool>(f32::NAN)); // nonzero, as numpy's bool(nan)
//! assert_eq!(cast::<f64, f32>(1e300), f32::INFINITY);
//! assert_eq!(cast_saturating::<f64, f32>(1e300), f32::MAX);
//! ```

/// The exact intermediate of every conversion; not nameable outside the crate.
pub(crate) mod hub {
    /// A value of any castable element type, held exactly.
    #[derive(Clone, Copy, Debug)]
    pub enum Hub {
        Bool(bool),
        Int(i64),
        UInt(u64),
        Float(f64),
    }

    /// The seal of [`CastElement`](super::CastElement).
    pub trait Sealed {}

    /// How a value that does not fit its target converts (C1-C3).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Mode {
        /// C1: Rust's `as` (numpy's `astype` wherever numpy defines it).
        As,
        /// C2: to the nearest value of the target's range.
        Saturating,
        /// C3: no value: the caller reports an error.
        Checked,
    }
}
pub(crate) use hub::{Hub, Mode};

/// The element types a tensor can hold whatever its Rust type: what [`CastElement::DTYPE`]
/// names, and what errors show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DType {
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `isize`.
    ISize,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `usize`.
    USize,
    /// `half::f16` (feature `half`).
    F16,
    /// `half::bf16` (feature `half`).
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl DType {
    /// The Rust name of the type: `"f32"`, `"i8"`, `"bool"`.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::ISize => "isize",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::USize => "usize",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }
}

impl core::fmt::Display for DType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// An element type that converts to and from every other (C1-C3). Sealed: implemented for
/// `bool`, `i8`-`i64`, `isize`, `u8`-`u64`, `usize`, `f32`, `f64`, and `f16`/`bf16` with
/// feature `half`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type that casts",
    label = "casts take bool, the integers up to 64 bits, f32, f64 (and f16/bf16 with `half`)"
)]
pub trait CastElement: Copy + Send + Sync + 'static + hub::Sealed {
    /// Which type this is.
    const DTYPE: DType;
    #[doc(hidden)]
    fn to_hub(self) -> Hub;
    #[doc(hidden)]
    fn from_hub(value: Hub, mode: Mode) -> Option<Self>;
}

/// `x` as a `U` under C1: integers wrap, floats truncate toward zero into integers and
/// saturate there (NaN gives 0), and everything else rounds to nearest.
#[inline(always)]
pub fn cast<T: CastElement, U: CastElement>(x: T) -> U {
    convert(x, Mode::As)
}

/// `x` as a `U` under C2: a value outside `U`'s range becomes the nearest one inside (a finite
/// float never becomes infinite, an integer never wraps); NaN into an integer gives 0.
#[inline(always)]
pub fn cast_saturating<T: CastElement, U: CastElement>(x: T) -> U {
    convert(x, Mode::Saturating)
}

/// `x` as a `U` under C3, or `None` when it has no value there: NaN into an integer, a value
/// (truncated toward zero) outside an integer's range, or a finite float outside a float's.
#[inline(always)]
pub fn try_cast<T: CastElement, U: CastElement>(x: T) -> Option<U> {
    U::from_hub(x.to_hub(), Mode::Checked)
}

#[inline(always)]
pub(crate) fn convert<T: CastElement, U: CastElement>(x: T, mode: Mode) -> U {
    // `As` and `Saturating` always have a value; the fallback is never taken.
    match U::from_hub(x.to_hub(), mode) {
        Some(v) => v,
        None => cast_fallback::<U>(),
    }
}

/// A value for the impossible `None` of an infallible mode, without a panic path.
#[cold]
fn cast_fallback<U: CastElement>() -> U {
    // Every target converts `false`.
    match U::from_hub(Hub::Bool(false), Mode::As) {
        Some(v) => v,
        None => cast_fallback::<U>(),
    }
}

/// `x` rounded to an `f32` with round-to-odd: the `f32` nearest `x` toward zero, its last bit
/// set when that was inexact. A value with 2 or more bits to spare rounded this way and then
/// to nearest (into `f16` or `bf16`, 11 and 8 bits against `f32`'s 24) is `x` rounded to
/// nearest once (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved
/// algorithms using rounding to odd", 2008); rounding to nearest twice is not.
#[cfg(any(feature = "half", test))]
#[inline]
pub(crate) fn to_odd_f32(x: f64) -> f32 {
    let near = x as f32;
    if x.is_nan() || f64::from(near) == x {
        return near;
    }
    // Inexact: step back toward zero if nearest rounded away from it (an overflow to
    // infinity steps back to the largest finite value), then mark the inexactness.
    let mut bits = near.to_bits();
    if magnitude(f64::from(near)) > magnitude(x) {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// `x` rounded to an `f64` with round-to-odd, for integers past 2^53.
#[inline]
pub(crate) fn int_to_odd_f64(x: i128) -> f64 {
    let near = x as f64;
    // `near` is at most 2^64 in size: its integer value fits an `i128` exactly.
    let back = near as i128;
    if back == x {
        return near;
    }
    let mut bits = near.to_bits();
    if back.unsigned_abs() > x.unsigned_abs() {
        bits -= 1;
    }
    f64::from_bits(bits | 1)
}

/// The bits of `|x|`, which order like the magnitudes of non-NaN floats.
#[cfg(any(feature = "half", test))]
#[inline(always)]
fn magnitude(x: f64) -> u64 {
    x.to_bits() & !(1 << 63)
}

/// The exact value of a float source.
#[inline(always)]
pub(crate) fn float_hub(x: f64) -> Hub {
    Hub::Float(x)
}

/// A float value converted to a float target whose own rounding is `round`; `max` is the
/// target's largest finite value. Finite values that round to an infinity saturate (C2) or
/// have no value (C3).
#[inline(always)]
pub(crate) fn to_float<F: Copy>(
    value: Hub,
    mode: Mode,
    round: impl Fn(f64) -> F,
    is_infinite: impl Fn(F) -> bool,
    max: F,
    min: F,
) -> Option<F> {
    // An integer past 2^53 stands in as its round-to-odd `f64`: rounding that once more (to
    // odd again for the narrow floats, then to nearest) is one rounding of the integer.
    let x = match value {
        Hub::Bool(b) => f64::from(u8::from(b)),
        Hub::Int(i) => int_to_odd_f64(i128::from(i)),
        Hub::UInt(u) => int_to_odd_f64(i128::from(u)),
        Hub::Float(f) => f,
    };
    let y = round(x);
    if is_infinite(y) && x.is_finite() {
        return match mode {
            Mode::As => Some(y),
            Mode::Saturating => Some(if x > 0.0 { max } else { min }),
            Mode::Checked => None,
        };
    }
    Some(y)
}

macro_rules! int_target {
    ($($t:ty: $d:ident),*) => {$(
        impl hub::Sealed for $t {}
        impl CastElement for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_hub(self) -> Hub {
                #[allow(unused_comparisons)]
                if <$t>::MIN < 0 {
                    Hub::Int(self as i64)
                } else {
                    Hub::UInt(self as u64)
                }
            }
            #[inline(always)]
            fn from_hub(value: Hub, mode: Mode) -> Option<Self> {
                match value {
                    Hub::Bool(b) => Some(b as $t),
                    Hub::Int(i) => match mode {
                        Mode::As => Some(i as $t),
                        Mode::Saturating => Some(<$t>::try_from(i).unwrap_or(if i < 0 { <$t>::MIN } else { <$t>::MAX })),
                        Mode::Checked => <$t>::try_from(i).ok(),
                    },
                    Hub::UInt(u) => match mode {
                        Mode::As => Some(u as $t),
                        Mode::Saturating => Some(<$t>::try_from(u).unwrap_or(<$t>::MAX)),
                        Mode::Checked => <$t>::try_from(u).ok(),
                    },
                    Hub::Float(f) => {
                        // Truncation toward zero fits when `MIN - 1 < f < MAX + 1`. `MAX + 1`
                        // is a power of two, exact in `f64` (`MAX as f64` rounds up to it for
                        // 64 bits, and adding 1 leaves it). `MIN - 1` is exact below 54 bits;
                        // for 64 no `f64` lies strictly between it and `MIN`, which is itself
                        // exact, so `f > MIN - 1` there is `f >= MIN`.
                        let lo = (<$t>::MIN as f64) - 1.0;
                        let lo_ok = f > lo || f == <$t>::MIN as f64;
                        let fits = lo_ok && f < (<$t>::MAX as f64) + 1.0;
                        if mode == Mode::Checked && !fits {
                            // NaN fails both comparisons.
                            return None;
                        }
                        // Rust's `as`: toward zero, saturating, NaN to 0.
                        Some(f as $t)
                    }
                }
            }
        }
    )*};
}
int_target!(i8: I8, i16: I16, i32: I32, i64: I64, isize: ISize, u8: U8, u16: U16, u32: U32, u64: U64, usize: USize);

impl hub::Sealed for bool {}
impl CastElement for bool {
    const DTYPE: DType = DType::Bool;
    #[inline(always)]
    fn to_hub(self) -> Hub {
        Hub::Bool(self)
    }
    #[inline(always)]
    fn from_hub(value: Hub, _: Mode) -> Option<Self> {
        // Nonzero is true, NaN included (numpy's `bool(nan)`); nothing is out of range.
        Some(match value {
            Hub::Bool(b) => b,
            Hub::Int(i) => i != 0,
            Hub::UInt(u) => u != 0,
            Hub::Float(f) => f != 0.0,
        })
    }
}

impl hub::Sealed for f64 {}
impl CastElement for f64 {
    const DTYPE: DType = DType::F64;
    #[inline(always)]
    fn to_hub(self) -> Hub {
        float_hub(self)
    }
    #[inline(always)]
    fn from_hub(value: Hub, _: Mode) -> Option<Self> {
        // Every value has one here: integers round once, nothing overflows.
        Some(match value {
            Hub::Bool(b) => f64::from(u8::from(b)),
            Hub::Int(i) => i as f64,
            Hub::UInt(u) => u as f64,
            Hub::Float(f) => f,
        })
    }
}

impl hub::Sealed for f32 {}
impl CastElement for f32 {
    const DTYPE: DType = DType::F32;
    #[inline(always)]
    fn to_hub(self) -> Hub {
        float_hub(f64::from(self))
    }
    #[inline(always)]
    fn from_hub(value: Hub, mode: Mode) -> Option<Self> {
        match value {
            // One rounding straight from the integer (Rust's `as` rounds to nearest).
            Hub::Int(i) => Some(i as f32),
            Hub::UInt(u) => Some(u as f32),
            _ => to_float(
                value,
                mode,
                |x| x as f32,
                f32::is_infinite,
                f32::MAX,
                f32::MIN,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_to_odd_then_nearest_is_one_rounding() {
        // 1 + 2^-24 + 2^-60 is just above the midpoint between 1 and the next f32: nearest
        // rounds up, but rounding to f64's nearest and then f32's nearest could not see the
        // 2^-60; to-odd keeps it as the f32 last bit.
        let x = 1.0 + 2f64.powi(-24) + 2f64.powi(-52);
        assert_eq!(to_odd_f32(x).to_bits(), 1.0f32.to_bits() | 1);
        assert_eq!(to_odd_f32(1.5), 1.5);
        assert_eq!(to_odd_f32(-1e300).to_bits(), f32::MIN.to_bits());
        assert!(to_odd_f32(f64::NAN).is_nan());
        assert_eq!(to_odd_f32(f64::INFINITY), f32::INFINITY);
        assert_eq!(to_odd_f32(1e-50).to_bits(), 1);
        // 2^60 + 2^52 + 1: the +1 decides, and to-odd keeps it.
        let big = (1i128 << 60) + (1 << 52) + 1;
        let odd = int_to_odd_f64(big);
        assert_eq!(
            odd.to_bits(),
            (((1u64 << 60) + (1 << 52)) as f64).to_bits() + 1
        );
        assert_eq!(int_to_odd_f64(-big).to_bits(), (-odd).to_bits());
        // i64::MAX rounds up to 2^63; to-odd takes the f64 below, whose last bit is set.
        assert_eq!(
            int_to_odd_f64(i128::from(i64::MAX)),
            9_223_372_036_854_774_784.0
        );
    }
}
