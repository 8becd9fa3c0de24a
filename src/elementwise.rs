//! The runtime elementwise operations and what each element type does for them.
//!
//! Integer arithmetic wraps on overflow (as numpy's does) instead of panicking; integer division
//! or remainder by zero and integer powers with negative exponents are errors, found before
//! any element is written.

/// An arithmetic operation for [`binary_into`](crate::strided::binary_into) and
/// `DynTensor::binary`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Subtract,
    /// `a * b`
    Multiply,
    /// `a / b`; integers round toward zero, as Rust's `/` (and the static path) do.
    Divide,
    /// The larger of `a` and `b`; NaN if either is NaN.
    Maximum,
    /// The smaller of `a` and `b`; NaN if either is NaN.
    Minimum,
    /// `a` to the power `b`.
    Power,
    /// `(a - b)²`
    SquaredDifference,
    /// Remainder with the sign of `a` (Rust's `%`, C's `fmod`).
    Mod,
    /// Remainder with the sign of `b` (Python's `%`).
    FloorMod,
}

/// A comparison for [`compare_into`](crate::strided::compare_into) and
/// `DynTensor::compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `a == b`
    Equal,
    /// `a != b`
    NotEqual,
    /// `a < b`
    Less,
    /// `a <= b`
    LessEqual,
    /// `a > b`
    Greater,
    /// `a >= b`
    GreaterEqual,
}

/// A logical operation on `bool` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    /// `a && b`
    And,
    /// `a || b`
    Or,
    /// `a != b`
    Xor,
}

/// An element type of the runtime operations: the primitive integers and floats.
pub trait Element: Copy + PartialOrd + Default + core::fmt::Debug + 'static {
    /// Integer types check divisors and exponents before computing.
    const INTEGER: bool;
    /// Whether [`BinaryOp::Power`] can be computed in this build.
    const HAS_POWER: bool;
    /// True for zero.
    fn is_zero(self) -> bool;
    /// True for a negative value.
    fn is_negative(self) -> bool;
    /// `a + b`, wrapping for integers.
    fn add(a: Self, b: Self) -> Self;
    /// `a - b`, wrapping for integers.
    fn sub(a: Self, b: Self) -> Self;
    /// `a * b`, wrapping for integers.
    fn mul(a: Self, b: Self) -> Self;
    /// `a / b`; for integers `b` is non-zero (checked before).
    fn div(a: Self, b: Self) -> Self;
    /// `a` to the power `b`; for integers `b >= 0` (checked before).
    fn pow(a: Self, b: Self) -> Self;
    /// Remainder with the sign of `a`; for integers `b` is non-zero.
    fn rem(a: Self, b: Self) -> Self;
    /// Remainder with the sign of `b`; for integers `b` is non-zero.
    fn floor_mod(a: Self, b: Self) -> Self;
}

/// NaN-propagating choice: `a` when it compares as `keep` or equal, NaN when unordered.
#[inline(always)]
pub(crate) fn pick<T: PartialOrd>(a: T, b: T, keep: core::cmp::Ordering) -> T {
    match a.partial_cmp(&b) {
        Some(o) if o == keep || o == core::cmp::Ordering::Equal => a,
        Some(_) => b,
        None => {
            // Unordered: one of them is NaN; `a != a` tells which.
            #[allow(clippy::eq_op)]
            let a_is_nan = a != a;
            if a_is_nan {
                a
            } else {
                b
            }
        }
    }
}

macro_rules! impl_float_element {
    ($($t:ty)*) => {$(
        impl Element for $t {
            const INTEGER: bool = false;
            const HAS_POWER: bool = cfg!(any(feature = "std", feature = "libm"));
            #[inline(always)]
            fn is_zero(self) -> bool { self == 0.0 }
            #[inline(always)]
            fn is_negative(self) -> bool { self < 0.0 }
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self { a + b }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self { a - b }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self { a * b }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self { a / b }
            #[inline(always)]
            fn pow(a: Self, b: Self) -> Self {
                #[cfg(any(feature = "std", feature = "libm"))]
                { num_traits::Float::powf(a, b) }
                // Unreachable: `HAS_POWER` is false and the operation is refused first.
                #[cfg(not(any(feature = "std", feature = "libm")))]
                { let _ = b; a }
            }
            #[inline(always)]
            fn rem(a: Self, b: Self) -> Self { a % b }
            #[inline(always)]
            fn floor_mod(a: Self, b: Self) -> Self {
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) { r + b } else { r }
            }
        }
    )*};
}
impl_float_element!(f32 f64);

macro_rules! impl_int_element {
    ($signed:literal; $($t:ty)*) => {$(
        impl Element for $t {
            const INTEGER: bool = true;
            const HAS_POWER: bool = true;
            #[inline(always)]
            fn is_zero(self) -> bool { self == 0 }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn is_negative(self) -> bool { self < 0 }
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                // `b == 0` was refused before the kernel ran; `MIN / -1` wraps.
                if b == 0 { 0 } else { a.wrapping_div(b) }
            }
            #[inline(always)]
            fn pow(a: Self, b: Self) -> Self {
                // Square-and-multiply on the full exponent (no truncation to u32), wrapping.
                let mut result: Self = 1;
                let mut base = a;
                let mut exp = b;
                while exp > 0 {
                    if exp & 1 == 1 {
                        result = result.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    exp >>= 1;
                }
                result
            }
            #[inline(always)]
            fn rem(a: Self, b: Self) -> Self {
                if b == 0 { 0 } else { a.wrapping_rem(b) }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn floor_mod(a: Self, b: Self) -> Self {
                let r = Self::rem(a, b);
                if $signed && r != 0 && ((r < 0) != (b < 0)) { r.wrapping_add(b) } else { r }
            }
        }
    )*};
}
impl_int_element!(true; i8 i16 i32 i64 isize);
impl_int_element!(false; u8 u16 u32 u64 usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_semantics() {
        assert_eq!(i32::div(7, -2), -3);
        assert_eq!(i32::rem(-7, 3), -1);
        assert_eq!(i32::floor_mod(-7, 3), 2);
        assert_eq!(i32::floor_mod(7, -3), -2);
        assert_eq!(u8::floor_mod(7, 3), 1);
        assert_eq!(i8::add(127, 1), -128);
        assert_eq!(i32::div(i32::MIN, -1), i32::MIN);
        assert_eq!(<i64 as Element>::pow(3, 4), 81);
        assert_eq!(<i64 as Element>::pow(-1, (1 << 40) + 1), -1);
        assert_eq!(<u8 as Element>::pow(2, 9), 0);
    }

    #[test]
    fn float_semantics() {
        assert_eq!(f32::floor_mod(-7.0, 3.0), 2.0);
        assert_eq!(f32::rem(-7.0, 3.0), -1.0);
        assert!(pick(f32::NAN, 1.0, core::cmp::Ordering::Greater).is_nan());
        assert!(pick(1.0, f32::NAN, core::cmp::Ordering::Less).is_nan());
        assert_eq!(pick(1.0, 2.0, core::cmp::Ordering::Greater), 2.0);
    }
}
