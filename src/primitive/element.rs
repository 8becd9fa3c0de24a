//! What the binary primitive computes: its algorithms and eltwise post-ops, per element type.

use crate::element::{self, pick, Real};

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
    /// Computed in `T::Compute` and rounded once (the half floats compute in `f32`).
    #[inline]
    pub fn apply<T: Real>(self, a: T, b: T) -> T {
        #[inline(always)]
        fn wide<T: Real>(alg: Alg, a: T, b: T) -> T {
            with_alg!(alg, |f| f(a, b))
        }
        T::from_compute(wide(self, a.to_compute(), b.to_compute()))
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
    /// `1 / (1 + e^-x)` (oneDNN's `logistic`).
    #[cfg(any(feature = "std", feature = "libm"))]
    Sigmoid,
    /// `ln(x)`, the natural logarithm.
    #[cfg(any(feature = "std", feature = "libm"))]
    Ln,
    /// `erf(x)`, the error function.
    #[cfg(any(feature = "std", feature = "libm"))]
    Erf,
    /// GELU, exact form (oneDNN's `gelu_erf`, ONNX's default `Gelu`):
    /// `0.5 x (1 + erf(x / sqrt(2)))`.
    #[cfg(any(feature = "std", feature = "libm"))]
    GeluErf,
    /// GELU, tanh approximation (oneDNN's `gelu_tanh`):
    /// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    #[cfg(any(feature = "std", feature = "libm"))]
    GeluTanh,
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
    /// Computed in `T::Compute` and rounded once (the half floats compute in `f32`).
    #[inline]
    pub fn apply<T: Real>(self, x: T) -> T {
        let mut one = [x.to_compute()];
        self.apply_block(&mut one);
        T::from_compute(one[0])
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
            Eltwise::Relu => each(out, element::relu),
            Eltwise::LeakyRelu { slope } => {
                let s = T::from_f32(slope);
                each(out, |x| if x > T::ZERO { x } else { x * s })
            }
            Eltwise::Clip { lo, hi } => {
                let (lo, hi) = (T::from_f32(lo), T::from_f32(hi));
                each(out, |x| element::clip(x, lo, hi))
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
            Eltwise::Sigmoid => each(out, element::sigmoid),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::Ln => each(out, T::ln),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::Erf => each(out, T::erf),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::GeluErf => each(out, element::gelu),
            #[cfg(any(feature = "std", feature = "libm"))]
            Eltwise::GeluTanh => each(out, element::gelu_tanh),
        }
    }
}

/// An element type the primitive reads and writes around its compute type `C` (oneDNN's data
/// types): loaded exactly into `C`, computed there, and converted once at the store.
///
/// Implemented for every [`Real`] type with its own compute type (`f32`, `f64`; `f16` and
/// `bf16` in `f32` with feature `half`, rounded once when stored), for `i8` and `u8` in
/// `f32`, stored rounded half to even and saturated to the type's range (Q15), and for `i32`
/// (oneDNN's `s32`) in `f32`, loaded as the nearest `f32` and stored the same way (O9).
/// Sealed.
pub trait DataType<C>: Copy + Send + Sync + sealed::Sealed {
    /// The value in the compute type (exact).
    #[doc(hidden)]
    fn load(self) -> C;
    /// A computed value stored as this type (the one rounding of a result).
    #[doc(hidden)]
    fn store(x: C) -> Self;
    /// The elements as the compute type without a copy, when the two are the same type.
    #[doc(hidden)]
    fn as_compute(x: &[Self]) -> Option<&[C]>;
    /// The elements as the compute type without a copy, mutably, when the two are the same.
    #[doc(hidden)]
    fn as_compute_mut(x: &mut [Self]) -> Option<&mut [C]>;
}

/// The seal of [`DataType`].
mod sealed {
    pub trait Sealed {}
    impl<T: super::Real> Sealed for T {}
    impl Sealed for i8 {}
    impl Sealed for u8 {}
    impl Sealed for i32 {}
}

impl<T: Real> DataType<T::Compute> for T {
    #[inline(always)]
    fn load(self) -> T::Compute {
        self.to_compute()
    }
    #[inline(always)]
    fn store(x: T::Compute) -> Self {
        T::from_compute(x)
    }
    #[inline(always)]
    fn as_compute(x: &[Self]) -> Option<&[T::Compute]> {
        T::as_compute(x)
    }
    #[inline(always)]
    fn as_compute_mut(x: &mut [Self]) -> Option<&mut [T::Compute]> {
        T::as_compute_mut(x)
    }
}

/// The integer data types: loaded with `as` (exact for the 8-bit ones; `s32` beyond 2^24 in
/// magnitude loads as the nearest `f32`, as oneDNN converts it), stored by `$store`.
macro_rules! integer_data_type {
    ($($t:ty => $store:expr),* $(,)?) => {$(
        impl DataType<f32> for $t {
            #[inline(always)]
            fn load(self) -> f32 {
                self as f32
            }
            #[inline(always)]
            fn store(x: f32) -> Self {
                $store(x)
            }
            #[inline(always)]
            fn as_compute(_: &[Self]) -> Option<&[f32]> {
                None
            }
            #[inline(always)]
            fn as_compute_mut(_: &mut [Self]) -> Option<&mut [f32]> {
                None
            }
        }
    )*};
}

// 8-bit: rounded half to even and saturated (Q15); `s32` the same way, NaN as 0 (O9).
integer_data_type!(
    i8 => crate::quant::saturate_round_half_even::<i8>,
    u8 => crate::quant::saturate_round_half_even::<u8>,
    i32 => round_half_even_to_i32,
);

/// `x` rounded to the nearest integer, ties to even, then saturated to `i32` (NaN to 0).
///
/// Below 2^23 in magnitude, adding 2^23 of the same sign leaves a float whose last place is 1,
/// so that addition rounds to an integer, ties to even, and subtracting 2^23 back is exact; at
/// 2^23 and above every `f32` is an integer already. Rust's `as` then saturates. No libm call,
/// so it is the same with `std` and without.
#[inline(always)]
pub(crate) fn round_half_even_to_i32(x: f32) -> i32 {
    const TWO_23: f32 = 8_388_608.0;
    let rounded = if x.abs() < TWO_23 {
        let big = if x < 0.0 { -TWO_23 } else { TWO_23 };
        (x + big) - big
    } else {
        x
    };
    rounded as i32
}
