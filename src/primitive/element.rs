//! What the binary primitive computes: its algorithms and eltwise post-ops, per element type.

use core::ops::{Add, Div, Mul, Sub};

use crate::element::pick;

/// An element type of the binary primitive: `f32` or `f64`.
///
/// Post-op parameters and scales are `f32`, as in oneDNN, and are converted once per call.
/// `sqrt`, `exp`, `tanh`, `logistic` and `gelu` need the `std` or `libm` feature.
#[diagnostic::on_unimplemented(
    message = "the binary primitive computes in floating point, but the elements are `{Self}`",
    label = "`Binary` runs on f32 and f64 data"
)]
pub trait Real:
    Copy
    + PartialOrd
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Converts a parameter.
    fn from_f32(x: f32) -> Self;
    /// Converts a constant.
    fn from_f64(x: f64) -> Self;
    /// The absolute value (clears the sign bit, so `-0.0` and NaN behave as in `abs`).
    fn abs(self) -> Self;
    /// The square root.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn sqrt(self) -> Self;
    /// `e` raised to `self`.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn exp(self) -> Self;
    /// The hyperbolic tangent.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn tanh(self) -> Self;
}

macro_rules! impl_real {
    ($($t:ty, $bits:ty;)*) => {$(
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn from_f32(x: f32) -> Self {
                x as $t
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::from_bits(self.to_bits() & (<$bits>::MAX >> 1))
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
        }
    )*};
}
impl_real!(f32, u32; f64, u64;);

/// The binary primitive's algorithm (and a binary post-op's), named as
/// [`BinaryOp`](crate::BinaryOp) and [`CompareOp`](crate::CompareOp) name the same operations.
///
/// Comparisons write 1 where they hold and 0 elsewhere, in the destination's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b` (IEEE: a zero divisor gives an infinity or NaN).
    Div,
    /// The larger; NaN if either is NaN.
    Maximum,
    /// The smaller; NaN if either is NaN.
    Minimum,
    /// `a >= b`.
    Ge,
    /// `a > b`.
    Gt,
    /// `a <= b`.
    Le,
    /// `a < b`.
    Lt,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
}

/// Runs `$body` with `$f` bound to the element function of `$alg`: the match happens once per
/// block, and each arm's loop is compiled for its own function.
macro_rules! with_alg {
    ($alg:expr, |$f:ident| $body:expr) => {{
        use $crate::primitive::element::Alg as A;
        match $alg {
            A::Add => {
                let $f = |a: T, b: T| a + b;
                $body
            }
            A::Sub => {
                let $f = |a: T, b: T| a - b;
                $body
            }
            A::Mul => {
                let $f = |a: T, b: T| a * b;
                $body
            }
            A::Div => {
                let $f = |a: T, b: T| a / b;
                $body
            }
            A::Maximum => {
                let $f = $crate::primitive::element::max::<T>;
                $body
            }
            A::Minimum => {
                let $f = $crate::primitive::element::min::<T>;
                $body
            }
            A::Ge => {
                let $f = |a: T, b: T| $crate::primitive::element::truth_of::<T>(a >= b);
                $body
            }
            A::Gt => {
                let $f = |a: T, b: T| $crate::primitive::element::truth_of::<T>(a > b);
                $body
            }
            A::Le => {
                let $f = |a: T, b: T| $crate::primitive::element::truth_of::<T>(a <= b);
                $body
            }
            A::Lt => {
                let $f = |a: T, b: T| $crate::primitive::element::truth_of::<T>(a < b);
                $body
            }
            A::Eq => {
                let $f = |a: T, b: T| $crate::primitive::element::truth_of::<T>(a == b);
                $body
            }
            A::Ne => {
                let $f = |a: T, b: T| $crate::primitive::element::truth_of::<T>(a != b);
                $body
            }
        }
    }};
}
pub(crate) use with_alg;

#[inline(always)]
pub(crate) fn truth_of<T: Real>(b: bool) -> T {
    if b {
        T::ONE
    } else {
        T::ZERO
    }
}

#[inline(always)]
pub(crate) fn max<T: Real>(a: T, b: T) -> T {
    pick(a, b, core::cmp::Ordering::Greater)
}

#[inline(always)]
pub(crate) fn min<T: Real>(a: T, b: T) -> T {
    pick(a, b, core::cmp::Ordering::Less)
}

impl Alg {
    /// The algorithm on one pair of elements.
    ///
    /// ```
    /// use shaped::primitive::Alg;
    /// assert_eq!(Alg::Sub.apply(5.0f32, 2.0), 3.0);
    /// assert_eq!(Alg::Gt.apply(5.0f32, 2.0), 1.0);
    /// assert!(Alg::Maximum.apply(f32::NAN, 2.0).is_nan());
    /// ```
    #[inline]
    pub fn apply<T: Real>(self, a: T, b: T) -> T {
        with_alg!(self, |f| f(a, b))
    }
}

/// `maximum(x, 0)` exactly as `pick` defines it: `x` unless `0 > x`, so NaN stays NaN and
/// `-0.0` stays `-0.0`. Written as `0 > x ? 0 : x` because that is x86's `maxps 0, x`, one
/// instruction: `x <= 0 ? 0 : x` (the same for NaN, but `+0.0` for `-0.0`) compiled to a compare
/// and a mask and cost the fused bias+ReLU+scale kernel 0.5 instructions per element (2.36 vs
/// 1.86, callgrind, `benches/binary_probe.rs`).
#[inline(always)]
pub(crate) fn relu<T: Real>(x: T) -> T {
    if T::ZERO > x {
        T::ZERO
    } else {
        x
    }
}

/// An eltwise post-op: oneDNN's algorithms with their `alpha`/`beta` parameters named.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Eltwise {
    /// `maximum(x, 0)`, NaN-propagating like [`Alg::Maximum`]: `relu(NaN)` is NaN and
    /// `relu(-0.0)` is `-0.0`, as `maximum(-0.0, 0.0)` is.
    Relu,
    /// `x` if `x > 0`, else `slope * x` (oneDNN's relu with `alpha = slope`).
    LeakyRelu {
        /// The slope below zero.
        slope: f32,
    },
    /// `x` clamped to `[lo, hi]`; NaN stays NaN, as through `maximum` and `minimum`.
    Clip {
        /// The lower bound.
        lo: f32,
        /// The upper bound.
        hi: f32,
    },
    /// `alpha * x + beta`.
    Linear {
        /// The factor.
        alpha: f32,
        /// The offset.
        beta: f32,
    },
    /// `|x|`.
    Abs,
    /// `x * x`.
    Square,
    /// `sqrt(x)`.
    #[cfg(any(feature = "std", feature = "libm"))]
    Sqrt,
    /// `e^x`.
    #[cfg(any(feature = "std", feature = "libm"))]
    Exp,
    /// `tanh(x)`.
    #[cfg(any(feature = "std", feature = "libm"))]
    Tanh,
    /// `1 / (1 + e^-x)`.
    #[cfg(any(feature = "std", feature = "libm"))]
    Logistic,
    /// GELU, tanh form (oneDNN's `gelu_tanh`):
    /// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    #[cfg(any(feature = "std", feature = "libm"))]
    Gelu,
}

impl Eltwise {
    /// The function on one element.
    ///
    /// ```
    /// use shaped::primitive::Eltwise;
    /// assert_eq!(Eltwise::Relu.apply(-2.0f32), 0.0);
    /// assert_eq!(Eltwise::LeakyRelu { slope: 0.5 }.apply(-2.0f32), -1.0);
    /// assert_eq!(Eltwise::Clip { lo: 0.0, hi: 6.0 }.apply(7.5f32), 6.0);
    /// assert!(Eltwise::Relu.apply(f32::NAN).is_nan());
    /// assert!(Eltwise::Clip { lo: 0.0, hi: 6.0 }.apply(f32::NAN).is_nan());
    /// ```
    #[inline]
    pub fn apply<T: Real>(self, x: T) -> T {
        let mut one = [x];
        self.apply_block(&mut one);
        one[0]
    }

    /// The function over a block in place: one match, then a plain loop.
    #[inline]
    pub(crate) fn apply_block<T: Real>(self, out: &mut [T]) {
        #[inline(always)]
        fn each<T: Copy>(out: &mut [T], f: impl Fn(T) -> T) {
            for x in out {
                *x = f(*x);
            }
        }
        match self {
            Eltwise::Relu => each(out, relu),
            Eltwise::LeakyRelu { slope } => {
                let s = T::from_f32(slope);
                each(out, |x| if x > T::ZERO { x } else { x * s })
            }
            Eltwise::Clip { lo, hi } => {
                let (lo, hi) = (T::from_f32(lo), T::from_f32(hi));
                each(out, |x| {
                    let x = if x < lo { lo } else { x };
                    if x > hi {
                        hi
                    } else {
                        x
                    }
                })
            }
            Eltwise::Linear { alpha, beta } => {
                let (a, b) = (T::from_f32(alpha), T::from_f32(beta));
                each(out, |x| a * x + b)
            }
            Eltwise::Abs => each(out, T::abs),
            Eltwise::Square => each(out, |x| x * x),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::Sqrt => each(out, T::sqrt),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::Exp => each(out, T::exp),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::Tanh => each(out, T::tanh),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::Logistic => each(out, |x| T::ONE / (T::ONE + (T::ZERO - x).exp())),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::Gelu => {
                let half = T::from_f64(0.5);
                let k = T::from_f64(0.797_884_560_802_865_4); // sqrt(2 / pi)
                let c = T::from_f64(0.044_715);
                each(out, |x| {
                    half * x * (T::ONE + (k * (x + c * x * x * x)).tanh())
                })
            }
        }
    }
}
