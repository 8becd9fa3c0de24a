//! What elements are, and what each element type computes: one integer contract for every
//! path.
//!
//! * Integer `+ - *`, negation and powers **wrap** on overflow, as numpy's and OpenVINO's do,
//!   in debug and release builds alike and on every path: static operators, mixed `try_*`
//!   methods, `DynTensor`, the runtime kernels.
//! * Integer division or remainder by zero, and an integer raised to a negative power, are
//!   [`ErrorKind::DivisionByZero`](crate::ErrorKind::DivisionByZero) /
//!   [`ErrorKind::NegativeExponent`](crate::ErrorKind::NegativeExponent) values from every
//!   `try_*` and `Result` API, found before any element is written. The operators (`/`, `%`),
//!   which cannot return a `Result`, panic with that error's message.
//! * Floats follow IEEE 754: a zero divisor gives an infinity or NaN. `maximum`, `minimum` and
//!   the `relu` and `clip` eltwise functions propagate NaN (a NaN in gives NaN out).

use core::cmp::Ordering;
use core::fmt::Debug;

/// An element type of the arithmetic operations (operators, `try_*` methods, the runtime
/// kernels): the primitive integers and floats.
///
/// Each method states its law; integer methods wrap on overflow. Implement it for your own
/// number type to use it with the operators and the runtime kernels.
pub trait Element: Copy + PartialOrd + Debug + Send + Sync + 'static {
    /// 0: the sum of no elements.
    const ZERO: Self;
    /// 1: the product of no elements.
    const ONE: Self;
    /// Integer types check divisors and exponents before computing.
    const INTEGER: bool;
    /// Whether [`BinaryOp::Pow`](crate::BinaryOp::Pow) can be computed in this build (float
    /// powers need the `std` or `libm` feature).
    const HAS_POW: bool;
    /// The type that sums and products of these elements accumulate in (the reductions,
    /// `matmul`, the dense layer): the element itself for the integers (which wrap in it),
    /// `f32` and `f64`; `f32` for `f16` and `bf16` (feature `half`), so that a long sum is
    /// not rounded to 16 bits at every step, only once per result. Its own accumulator; for
    /// a [`Real`] type, its [`Compute`](Real::Compute) type.
    type Acc: Element<Acc = Self::Acc>;
    /// Widens to the accumulator (exact).
    fn to_acc(self) -> Self::Acc;
    /// Rounds an accumulated value to this type: the one rounding of a result.
    fn from_acc(x: Self::Acc) -> Self;
    /// The elements as accumulators without a copy, when [`Acc`](Element::Acc) is `Self`:
    /// the kernels then accumulate in the output itself. `None` (the default) makes them
    /// accumulate in a buffer and round into the output, which is right for every type and
    /// costs a copy of the output.
    #[doc(hidden)]
    #[inline(always)]
    fn acc_slice_mut(x: &mut [Self]) -> Option<&mut [Self::Acc]> {
        let _ = x;
        None
    }
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
    /// `a / b`; integers round toward zero and `MIN / -1` wraps. Callers check that an integer
    /// `b` is not zero (this returns 0 for it rather than panic).
    fn div(a: Self, b: Self) -> Self;
    /// Remainder with the sign of `a` (Rust's `%`, C's `fmod`); an integer `b` is non-zero.
    fn rem(a: Self, b: Self) -> Self;
    /// Remainder with the sign of `b` (Python's `%`); an integer `b` is non-zero.
    fn floor_mod(a: Self, b: Self) -> Self;
    /// `a` to the power `b`; for integers `b >= 0` (checked by callers), wrapping.
    fn pow(a: Self, b: Self) -> Self;
    /// `-a`, wrapping for integers (`-i32::MIN == i32::MIN`; unsigned values wrap too).
    fn neg(a: Self) -> Self;
    /// `(a - b)²`, wrapping for integers. One result: the half floats round it once.
    #[inline(always)]
    fn squared_difference(a: Self, b: Self) -> Self {
        let d = Self::sub(a, b);
        Self::mul(d, d)
    }
    /// `|a|`: wrapping for integers (`|i8::MIN| == i8::MIN`, as numpy's `abs`), the sign bit
    /// cleared for floats (`-0.0` gives `0.0`, a NaN stays NaN).
    #[inline(always)]
    fn abs(a: Self) -> Self {
        if a < Self::ZERO {
            Self::neg(a)
        } else {
            a
        }
    }
    /// `-1`, `0` or `1` as `a` is negative, zero or positive (numpy's and ONNX's `sign`): `0`
    /// for both zeros, NaN for NaN; an unsigned `a` gives `0` or `1`.
    #[inline(always)]
    fn sign(a: Self) -> Self {
        if a > Self::ZERO {
            Self::ONE
        } else if a < Self::ZERO {
            Self::neg(Self::ONE)
        } else if a == Self::ZERO {
            Self::ZERO
        } else {
            a
        }
    }
}

/// An element type with a mean over an axis (`mean_axis`, `DynTensor::mean`).
///
/// Floats divide their (pairwise) sum, accumulated in [`Element::Acc`], by the count and
/// round once: NaN for no elements (R3). Integers divide
/// their wrapping sum by the count, truncating toward zero: ONNX's `ReduceMean` of an integer
/// tensor, whose reference computes numpy's `mean(dtype=T)` (the same for sums up to 2^53; numpy
/// divides in `f64`, which rounds 64-bit sums beyond that, and this does not). An integer mean
/// of no elements has no value: [`ErrorKind::EmptyReduction`](crate::ErrorKind::EmptyReduction)
/// at run time (numpy casts the NaN to an arbitrary integer).
pub trait Mean: Element {
    /// The mean of `count` elements that sum to `sum` (accumulated in [`Element::Acc`]);
    /// `None` when there is none (integers with `count == 0`).
    fn mean_of(sum: Self::Acc, count: usize) -> Option<Self>;
}

macro_rules! impl_mean_int {
    ($($t:ty)*) => {$(
        impl Mean for $t {
            #[inline(always)]
            fn mean_of(sum: Self, count: usize) -> Option<Self> {
                // A count past the type's range divides any sum of it to 0... unless it is
                // exactly `MIN` over a count of `-MIN` (signed), which `try_from` cannot hold
                // either: the elements' sum truncated toward zero is 0 or -1 there, and the
                // wrapping sum of that many elements is no longer their sum anyway.
                match <$t>::try_from(count) {
                    Ok(0) => None,
                    Ok(n) => Some(sum.wrapping_div(n)),
                    Err(_) => Some(0),
                }
            }
        }
    )*};
}
impl_mean_int!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// NaN-propagating choice: `a` when it compares as `keep` or equal, NaN when unordered. The one
/// definition behind `maximum`, `minimum`, the primitive's `Maximum`/`Minimum`, and `relu`.
///
/// Written as compares joined without branches and one select rather than a `match` on
/// `partial_cmp`, whose branches stayed in the loop: on a 1024x1024 f32 `maximum(0.0)` 3.6
/// instructions an element against 4.5 (callgrind), and where the branchy form got slower on
/// two threads than on one (390-450 us against 245-365), this one ran 1.0-2.3x faster on two
/// (the fastest of 60 calls, four runs on a noisy host).
#[inline(always)]
pub(crate) fn pick<T: PartialOrd>(a: T, b: T, keep: Ordering) -> T {
    // A NaN `b` wins over a number `a` (`x != x` only for NaN; never for integers, where it
    // folds away), and otherwise `b` wins only when strictly beyond `a` in the kept direction:
    // ties (`-0.0` and `0.0` included) keep `a`, and so does a NaN `a` (every comparison with
    // it is false), whatever `b` is.
    // `&` and `|`, not `&&` and `||`: no branch, so the select stays a vector blend.
    #[allow(clippy::eq_op)]
    let b_is_nan = (b != b) & (a == a);
    let b_wins = match keep {
        Ordering::Greater => b > a,
        Ordering::Less => b < a,
        Ordering::Equal => false,
    };
    if b_is_nan | b_wins {
        b
    } else {
        a
    }
}

macro_rules! impl_float_element {
    ($($t:ty, $bits:ty;)*) => {$(
        impl Element for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const INTEGER: bool = false;
            const HAS_POW: bool = cfg!(any(feature = "std", feature = "libm"));
            type Acc = Self;
            #[inline(always)]
            fn to_acc(self) -> Self {
                self
            }
            #[inline(always)]
            fn from_acc(x: Self) -> Self {
                x
            }
            #[inline(always)]
            fn acc_slice_mut(x: &mut [Self]) -> Option<&mut [Self]> {
                Some(x)
            }
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
            fn rem(a: Self, b: Self) -> Self { a % b }
            #[inline(always)]
            fn floor_mod(a: Self, b: Self) -> Self {
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) { r + b } else { r }
            }
            #[inline(always)]
            fn pow(a: Self, b: Self) -> Self {
                #[cfg(any(feature = "std", feature = "libm"))]
                { num_traits::Float::powf(a, b) }
                // Unreachable: `HAS_POW` is false and the operation is refused first.
                #[cfg(not(any(feature = "std", feature = "libm")))]
                { let _ = b; a }
            }
            #[inline(always)]
            fn neg(a: Self) -> Self { -a }
            #[inline(always)]
            fn abs(a: Self) -> Self { <$t>::from_bits(a.to_bits() & (<$bits>::MAX >> 1)) }
        }

        impl Mean for $t {
            #[inline(always)]
            fn mean_of(sum: Self, count: usize) -> Option<Self> {
                Some(sum / count as $t)
            }
        }
    )*};
}
impl_float_element!(f32, u32; f64, u64;);

macro_rules! impl_int_element {
    ($signed:literal; $($t:ty)*) => {$(
        impl Element for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const INTEGER: bool = true;
            const HAS_POW: bool = true;
            type Acc = Self;
            #[inline(always)]
            fn to_acc(self) -> Self {
                self
            }
            #[inline(always)]
            fn from_acc(x: Self) -> Self {
                x
            }
            #[inline(always)]
            fn acc_slice_mut(x: &mut [Self]) -> Option<&mut [Self]> {
                Some(x)
            }
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
                if b == 0 { 0 } else { a.wrapping_div(b) }
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
            fn neg(a: Self) -> Self { a.wrapping_neg() }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn abs(a: Self) -> Self { if a < 0 { a.wrapping_neg() } else { a } }
        }
    )*};
}
impl_int_element!(true; i8 i16 i32 i64 i128 isize);
impl_int_element!(false; u8 u16 u32 u64 u128 usize);

/// A floating-point element type, `f32` or `f64` (and `f16`/`bf16` with feature `half`): what
/// the unary math (`exp`, `relu`, ...) and the binary primitive compute on.
///
/// Parameters (the primitive's scales and post-op parameters, `clip`'s bounds) are `f32`, as in
/// oneDNN, converted once per call. `sqrt`, `exp`, `ln`, `tanh`, `sigmoid` and `gelu` need the
/// `std` or `libm` feature.
#[diagnostic::on_unimplemented(
    message = "this computes in floating point, but the elements are `{Self}`",
    label = "defined for f32 and f64 tensors",
    note = "for integers, use `map`, or convert with `map(|&x| x as f32)`"
)]
pub trait Real:
    Element<Acc = <Self as Real>::Compute>
    + Default
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
{
    /// The type this element computes in: itself for `f32` and `f64`; `f32` for `f16` and
    /// `bf16` (feature `half`), which are stored narrow, computed in `f32` and rounded once
    /// per result, as oneDNN does for bf16. The same type as [`Element::Acc`].
    type Compute: Real;
    /// Widens to the compute type (exact).
    fn to_compute(self) -> Self::Compute;
    /// Rounds a computed value to this type (the one rounding of a result).
    fn from_compute(x: Self::Compute) -> Self;
    /// The elements as the compute type without a copy, when the two are the same type.
    #[doc(hidden)]
    fn as_compute(x: &[Self]) -> Option<&[Self::Compute]>;
    /// The elements as the compute type without a copy, mutably, when the two are the same.
    #[doc(hidden)]
    fn as_compute_mut(x: &mut [Self]) -> Option<&mut [Self::Compute]>;
    /// Converts a parameter.
    fn from_f32(x: f32) -> Self;
    /// Converts a constant.
    fn from_f64(x: f64) -> Self;
    /// The square root.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn sqrt(self) -> Self;
    /// `e` raised to `self`.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn exp(self) -> Self;
    /// The hyperbolic tangent.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn tanh(self) -> Self;
    /// The natural logarithm.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn ln(self) -> Self;
    /// The error function, `2/sqrt(pi) * integral from 0 to x of e^(-t^2) dt` (the `libm`
    /// crate's `erf`/`erff`, as C's libm computes it).
    #[cfg(any(feature = "std", feature = "libm"))]
    fn erf(self) -> Self;
}

macro_rules! impl_real {
    ($($t:ty, $erf:path;)*) => {$(
        impl Real for $t {
            type Compute = $t;
            #[inline(always)]
            fn to_compute(self) -> Self {
                self
            }
            #[inline(always)]
            fn from_compute(x: Self) -> Self {
                x
            }
            #[inline(always)]
            fn as_compute(x: &[Self]) -> Option<&[Self]> {
                Some(x)
            }
            #[inline(always)]
            fn as_compute_mut(x: &mut [Self]) -> Option<&mut [Self]> {
                Some(x)
            }
            #[inline(always)]
            fn from_f32(x: f32) -> Self {
                x as $t
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn sqrt(self) -> Self {
                num_traits::Float::sqrt(self)
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn exp(self) -> Self {
                num_traits::Float::exp(self)
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn tanh(self) -> Self {
                num_traits::Float::tanh(self)
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn ln(self) -> Self {
                num_traits::Float::ln(self)
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn erf(self) -> Self {
                $erf(self)
            }
        }
    )*};
}
impl_real!(f32, erf_f32; f64, libm::erf;);

/// `erf` of an `f32`, computed in `f64` and rounded once: the correctly rounded value in all
/// but rare cases, and ONNX's reference (`math.erf` of the widened value, rounded to `float32`)
/// bit for bit on every case of `tests/reference/unary.txt`, where `libm::erff` was one unit
/// in the last place off on 24 of 777.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
fn erf_f32(x: f32) -> f32 {
    libm::erf(f64::from(x)) as f32
}

// The one definition of each unary function (`unary_functions!` lists them), shared by the tensors' methods and the binary
// primitive's eltwise post-ops.

/// `maximum(x, 0)` exactly as `pick` defines it: `x` unless `0 > x`, so NaN stays NaN and
/// `-0.0` stays `-0.0`. Written as `0 > x ? 0 : x` because that is x86's `maxps 0, x`, one
/// instruction: `x <= 0 ? 0 : x` (the same for NaN, but `+0.0` for `-0.0`) compiled to a compare
/// and a mask and cost the fused bias+ReLU+scale kernel 0.5 instructions per element (2.36 vs
/// 1.86, callgrind, `benches/binary_probe.rs`).
#[inline(always)]
pub(crate) fn relu<T: PartialOrd + Element>(x: T) -> T {
    if T::ZERO > x {
        T::ZERO
    } else {
        x
    }
}

/// `x` clamped to `[lo, hi]`; NaN stays NaN (both comparisons are false), as through
/// `maximum` and `minimum`.
#[inline(always)]
pub(crate) fn clip<T: PartialOrd>(x: T, lo: T, hi: T) -> T {
    let x = if x < lo { lo } else { x };
    if x > hi {
        hi
    } else {
        x
    }
}

/// numpy's `clip`: `minimum(maximum(x, lo), hi)`, so a NaN in `x` or in either bound gives
/// NaN, and `lo > hi` gives `hi`. (oneDNN's `Eltwise::Clip`, [`clip`], leaves `x` when a bound
/// is NaN.)
#[inline(always)]
pub(crate) fn clip_numpy<T: PartialOrd>(x: T, lo: T, hi: T) -> T {
    pick(pick(x, lo, Ordering::Greater), hi, Ordering::Less)
}

/// `1 / (1 + e^-x)`, computed in `T::Compute` and rounded once.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
pub(crate) fn sigmoid<T: Real>(x: T) -> T {
    #[inline(always)]
    fn wide<C: Real>(x: C) -> C {
        C::ONE / (C::ONE + (C::ZERO - x).exp())
    }
    T::from_compute(wide(x.to_compute()))
}

/// GELU, exact form (ONNX's `Gelu` by default, oneDNN's `gelu_erf`, PyTorch's default):
/// `0.5 x (1 + erf(x / sqrt(2)))`, computed in `T::Compute` and rounded once.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
pub(crate) fn gelu<T: Real>(x: T) -> T {
    #[inline(always)]
    fn wide<C: Real>(x: C) -> C {
        // `x / sqrt(2)`, not `x * (1 / sqrt(2))`: ONNX's function body divides, and the
        // product rounds differently on 35 of 250 f32 inputs.
        let half = C::from_f64(0.5);
        let sqrt2 = C::from_f64(core::f64::consts::SQRT_2);
        half * x * (C::ONE + (x / sqrt2).erf())
    }
    T::from_compute(wide(x.to_compute()))
}

/// GELU, tanh form (ONNX's `Gelu` with `approximate="tanh"`, oneDNN's `gelu_tanh`):
/// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, computed in `T::Compute` and rounded once.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
pub(crate) fn gelu_tanh<T: Real>(x: T) -> T {
    #[inline(always)]
    fn wide<C: Real>(x: C) -> C {
        // ONNX's function body step by step: `sqrt(2/pi)` as the square root of `2/pi` in
        // the compute type (0.7978845 in f32, one unit below the nearest float to
        // sqrt(2/pi), 0.7978846 in oneDNN; the difference is amplified where `1 + tanh`
        // cancels, up to 40 units in the result at x = -1.5), and `c * x^3` with `x^3` first.
        let half = C::from_f64(0.5);
        let k = C::from_f64(core::f64::consts::FRAC_2_PI).sqrt();
        let c = C::from_f64(0.044_715);
        half * x * (C::ONE + (k * (x + c * (x * x * x))).tanh())
    }
    T::from_compute(wide(x.to_compute()))
}

/// Invokes `$m!` with each unary function of the tensors: `[cfg] [bound] name "doc" |x|
/// formula;`, where the bound is `Element` (integers too) or `Real`. One
/// list, so `Tensor` and `DynTensor` have the same functions, computed by the same formulas as
/// the primitive's eltwise post-ops.
macro_rules! unary_functions {
    ($m:ident) => {
        $m! {
            [all()] [Element] abs "`|x|`: for floats the sign bit cleared, so `-0.0` gives `0.0` and \
                NaN stays NaN (`Eltwise::Abs`); for integers wrapping, `|i8::MIN|` is `i8::MIN` \
                as in numpy." |x| <T as $crate::element::Element>::abs(x);
            [all()] [Element] relu "`maximum(x, 0)`: NaN stays NaN and `-0.0` stays `-0.0`, as \
                through `maximum` (`Eltwise::Relu`)." |x| $crate::element::relu(x);
            [all()] [Element] sign "`-1`, `0` or `1` as `x` is negative, zero or positive (numpy's \
                and ONNX's `sign`): `0.0` for both float zeros, NaN for NaN."
                |x| <T as $crate::element::Element>::sign(x);
            [any(feature = "std", feature = "libm")] [Real] sqrt "`sqrt(x)` (`Eltwise::Sqrt`); needs \
                `std` or `libm`." |x| $crate::element::Real::sqrt(x);
            [any(feature = "std", feature = "libm")] [Real] exp "`e^x` (`Eltwise::Exp`); needs `std` or \
                `libm`." |x| $crate::element::Real::exp(x);
            [any(feature = "std", feature = "libm")] [Real] ln "`ln(x)`, the natural logarithm \
                (`Eltwise::Ln`); needs `std` or `libm`." |x| $crate::element::Real::ln(x);
            [any(feature = "std", feature = "libm")] [Real] tanh "`tanh(x)` (`Eltwise::Tanh`); needs `std` \
                or `libm`." |x| $crate::element::Real::tanh(x);
            [any(feature = "std", feature = "libm")] [Real] sigmoid "`1 / (1 + e^-x)` \
                (`Eltwise::Sigmoid`); needs `std` or `libm`." |x| $crate::element::sigmoid(x);
            [any(feature = "std", feature = "libm")] [Real] erf "`erf(x)`, the error function \
                (`Eltwise::Erf`; ONNX's `Erf`); needs `std` or `libm`."
                |x| $crate::element::Real::erf(x);
            [any(feature = "std", feature = "libm")] [Real] gelu "GELU, exact form: \
                `0.5 x (1 + erf(x / sqrt(2)))` (`Eltwise::GeluErf`; ONNX's default `Gelu`, \
                PyTorch's default); needs `std` or `libm`." |x| $crate::element::gelu(x);
            [any(feature = "std", feature = "libm")] [Real] gelu_tanh "GELU, tanh approximation: \
                `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` (`Eltwise::GeluTanh`; ONNX's \
                `Gelu` with `approximate=\"tanh\"`); needs `std` or `libm`."
                |x| $crate::element::gelu_tanh(x);
        }
    };
}
pub(crate) use unary_functions;

/// An element type that can stand alone as a rank-0 operand (`&a + 2.0`, `2.0 * &a`).
///
/// Implemented for the primitive numbers and `bool`; implement it for your own `Copy` element
/// types to use them as scalar operands.
pub trait Scalar: Copy {}

macro_rules! impl_scalar {
    ($($t:ty)*) => {$( impl Scalar for $t {} )*};
}
impl_scalar!(f32 f64 i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);

/// The elements `argmax`, `argmin` and the comparisons that pick one element need: ordered
/// (partially: a NaN is handled as each operation says), copied, and shared across the
/// threads of a large runtime call. Implemented for every such type; a bound to write, never
/// to implement.
pub trait Ordered: PartialOrd + Copy + Send + Sync {}

impl<T: PartialOrd + Copy + Send + Sync> Ordered for T {}

/// The element type of the logical operations: `bool`.
#[diagnostic::on_unimplemented(
    message = "logical operations need `bool` elements, but the elements are `{Self}`",
    label = "`and`, `or` and `xor` are defined for `Tensor<bool, _>`",
    note = "compare first to get a bool tensor, e.g. `t.gt(0.0)`"
)]
pub trait Boolean:
    Copy
    + core::ops::BitAnd<Output = Self>
    + core::ops::BitOr<Output = Self>
    + core::ops::BitXor<Output = Self>
{
}
impl Boolean for bool {}

/// A floating-point element type: what [`Tensor::pow`](crate::Tensor::pow) needs.
///
/// Needs the `std` or `libm` feature.
#[cfg(any(feature = "std", feature = "libm"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "std", feature = "libm"))))]
#[diagnostic::on_unimplemented(
    message = "`pow` needs floating-point elements, but the elements are `{Self}`",
    label = "`pow` is defined for f32 and f64 tensors",
    note = "for integer powers, use `map(|x| x.pow(n))` or `BinaryOp::Pow` on a `DynTensor`"
)]
pub trait Float: Element {
    /// `self` raised to the power `exp`.
    fn powf(self, exp: Self) -> Self;
}

#[cfg(any(feature = "std", feature = "libm"))]
macro_rules! impl_float {
    ($($t:ty)*) => {$(
        impl Float for $t {
            #[inline(always)]
            fn powf(self, exp: Self) -> Self {
                num_traits::Float::powf(self, exp)
            }
        }
    )*};
}
#[cfg(any(feature = "std", feature = "libm"))]
impl_float!(f32 f64);

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
        assert_eq!(<i8 as Element>::neg(i8::MIN), i8::MIN);
        assert_eq!(<u8 as Element>::neg(1), 255);
    }

    #[test]
    fn float_semantics() {
        assert_eq!(f32::floor_mod(-7.0, 3.0), 2.0);
        assert_eq!(f32::rem(-7.0, 3.0), -1.0);
        assert!(pick(f32::NAN, 1.0, Ordering::Greater).is_nan());
        assert!(pick(1.0, f32::NAN, Ordering::Less).is_nan());
        assert_eq!(pick(1.0, 2.0, Ordering::Greater), 2.0);
        assert_eq!(<f32 as Element>::neg(0.0).to_bits(), (-0.0f32).to_bits());
    }

    /// `pick` against the definition it is written to: `a` when it compares as `keep` or
    /// equal, `b` when `b` is beyond it, and the NaN when either is NaN (`a`'s when both are),
    /// bit for bit over every pair of a table of specials, and for integers.
    #[test]
    fn pick_follows_its_definition() {
        let values = [
            f32::NAN,
            -f32::NAN,
            f32::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            f32::MIN_POSITIVE / 2.0,
            2.0,
            f32::INFINITY,
        ];
        for keep in [Ordering::Greater, Ordering::Less] {
            for &a in &values {
                for &b in &values {
                    let want = match a.partial_cmp(&b) {
                        Some(o) if o == keep || o == Ordering::Equal => a,
                        Some(_) => b,
                        None if a.is_nan() => a,
                        None => b,
                    };
                    let got = pick(a, b, keep);
                    assert_eq!(got.to_bits(), want.to_bits(), "{a} {b} {keep:?}");
                }
            }
        }
        assert_eq!(pick(3i32, -4, Ordering::Greater), 3);
        assert_eq!(pick(3i32, -4, Ordering::Less), -4);
        assert_eq!(pick(u8::MAX, u8::MAX, Ordering::Less), u8::MAX);
    }
}
