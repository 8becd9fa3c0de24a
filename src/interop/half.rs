//! `f16` and `bf16` elements (feature `half`): stored in 16 bits, computed in `f32`, rounded
//! once per result (to nearest, ties to even), as oneDNN computes bf16.
//!
//! Every elementwise operation (operators, `try_*`, the runtime kernels, the unary math), the
//! reductions and the binary primitive (sources, post-op operands and destination) take them.
//! In the primitive the whole chain (scales, algorithm, every post-op) runs in `f32` and the
//! result is rounded once when stored. Sums and products (the reductions, `matmul`, the dense
//! layer) accumulate in `f32` ([`Element::Acc`]) and round once per result, as numpy's
//! `sum(dtype=float32)` of the values would, then cast back.

use half::{bf16, f16};

use crate::element::{Element, Real, Scalar};

macro_rules! impl_half {
    ($($t:ty, $d:ident, $sign:literal, $doc:literal;)*) => {$(
        /// Stored in 16 bits, computed in `f32`, rounded once per result.
        ///
        /// Feature `half`.
        ///
        /// ```
        #[doc = $doc]
        /// use shaped::{Shape, Tensor};
        /// let a = Tensor::<H, Shape![2]>::from([H::from_f32(1.0), H::from_f32(2.5)]);
        /// let b = Tensor::<H, Shape![1]>::from([H::from_f32(0.1)]);
        /// let c = &a * &b + &a;
        /// // Each result is the f32 computation of the widened values, rounded once.
        /// let expect = |x: f32| H::from_f32(H::from_f32(x * H::from_f32(0.1).to_f32()).to_f32() + x);
        /// assert_eq!(c.as_slice(), &[expect(1.0), expect(2.5)]);
        /// ```
        #[cfg_attr(docsrs, doc(cfg(feature = "half")))]
        impl Element for $t {
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            const INTEGER: bool = false;
            const HAS_POW: bool = cfg!(any(feature = "std", feature = "libm"));
            type Acc = f32;
            #[inline(always)]
            fn to_acc(self) -> f32 {
                self.to_f32()
            }
            #[inline(always)]
            fn from_acc(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self.to_f32() == 0.0
            }
            #[inline(always)]
            fn is_negative(self) -> bool {
                self.to_f32() < 0.0
            }
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() + b.to_f32())
            }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() - b.to_f32())
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() * b.to_f32())
            }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() / b.to_f32())
            }
            #[inline(always)]
            fn rem(a: Self, b: Self) -> Self {
                <$t>::from_f32(a.to_f32() % b.to_f32())
            }
            #[inline(always)]
            fn floor_mod(a: Self, b: Self) -> Self {
                <$t>::from_f32(f32::floor_mod(a.to_f32(), b.to_f32()))
            }
            #[inline(always)]
            fn pow(a: Self, b: Self) -> Self {
                <$t>::from_f32(<f32 as Element>::pow(a.to_f32(), b.to_f32()))
            }
            #[inline(always)]
            fn squared_difference(a: Self, b: Self) -> Self {
                let d = a.to_f32() - b.to_f32();
                <$t>::from_f32(d * d)
            }
            #[inline(always)]
            fn neg(a: Self) -> Self {
                // Exact: only the sign bit changes (NaN payloads and -0.0 included).
                <$t>::from_bits(a.to_bits() ^ $sign)
            }
            #[inline(always)]
            fn abs(a: Self) -> Self {
                <$t>::from_bits(a.to_bits() & !$sign)
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = "half")))]
        impl crate::element::Mean for $t {
            #[inline(always)]
            fn mean_of(sum: f32, count: usize) -> Option<Self> {
                Some(<$t>::from_f32(sum / count as f32))
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = "half")))]
        impl Real for $t {
            type Compute = f32;
            #[inline(always)]
            fn to_compute(self) -> f32 {
                self.to_f32()
            }
            #[inline(always)]
            fn from_compute(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            #[inline(always)]
            fn as_compute(_: &[Self]) -> Option<&[f32]> {
                None
            }
            #[inline(always)]
            fn as_compute_mut(_: &mut [Self]) -> Option<&mut [f32]> {
                None
            }
            #[inline(always)]
            fn from_f32(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                <$t>::from_f64(x)
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::from_f32(Real::sqrt(self.to_f32()))
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::from_f32(Real::exp(self.to_f32()))
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn tanh(self) -> Self {
                <$t>::from_f32(Real::tanh(self.to_f32()))
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::from_f32(Real::ln(self.to_f32()))
            }
            #[cfg(any(feature = "std", feature = "libm"))]
            #[inline(always)]
            fn erf(self) -> Self {
                <$t>::from_f32(Real::erf(self.to_f32()))
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = "half")))]
        impl Scalar for $t {}

        impl crate::cast::hub::Sealed for $t {}
        #[cfg_attr(docsrs, doc(cfg(feature = "half")))]
        impl crate::cast::CastElement for $t {
            const DTYPE: crate::cast::DType = crate::cast::DType::$d;
            #[inline(always)]
            fn to_hub(self) -> crate::cast::Hub {
                crate::cast::Hub::Float(self.to_f64())
            }
            #[inline(always)]
            fn from_hub(value: crate::cast::Hub, mode: crate::cast::Mode) -> Option<Self> {
                // Round to odd into f32, then to nearest: one rounding (`cast::to_odd_f32`).
                crate::cast::to_float(
                    value,
                    mode,
                    |x| <$t>::from_f32(crate::cast::to_odd_f32(x)),
                    <$t>::is_infinite,
                    <$t>::MAX,
                    <$t>::MIN,
                )
            }
        }

        #[cfg(any(feature = "std", feature = "libm"))]
        #[cfg_attr(docsrs, doc(cfg(all(feature = "half", any(feature = "std", feature = "libm")))))]
        impl crate::element::Float for $t {
            #[inline(always)]
            fn powf(self, exp: Self) -> Self {
                <$t>::from_f32(crate::element::Float::powf(self.to_f32(), exp.to_f32()))
            }
        }
    )*};
}

impl_half!(
    f16, F16, 0x8000u16, "use half::f16 as H;";
    bf16, BF16, 0x8000u16, "use half::bf16 as H;";
);
