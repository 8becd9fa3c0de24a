//! Quantization parameters (rule Q1), the fused activations (Q7) and the rounding mode (Q2).

use core::marker::PhantomData;

use crate::error::{Error, ErrorKind, Operation, QuantProblem};

/// An element type a quantized tensor holds: `i8` or `u8`. Sealed.
pub trait QuantElement: Copy + Send + Sync + 'static + sealed::Sealed {
    /// The smallest value, as `i32`.
    const MIN: i32;
    /// The largest value, as `i32`.
    const MAX: i32;
    /// The value as `i32`.
    fn to_i32(self) -> i32;
    /// `v` clamped to the type's range (the saturating store of every quantized result).
    fn saturate(v: i32) -> Self;
}

/// The seal: no element types but these two.
mod sealed {
    pub trait Sealed {}
}

macro_rules! quant_element {
    ($($t:ty)*) => {$(
        impl sealed::Sealed for $t {}
        impl QuantElement for $t {
            const MIN: i32 = <$t>::MIN as i32;
            const MAX: i32 = <$t>::MAX as i32;
            #[inline(always)]
            fn to_i32(self) -> i32 {
                self as i32
            }
            #[inline(always)]
            fn saturate(v: i32) -> Self {
                // In range after the clamp, so the cast is exact.
                v.clamp(<Self as QuantElement>::MIN, <Self as QuantElement>::MAX) as $t
            }
        }
    )*};
}

quant_element!(i8 u8);

/// Per-tensor quantization parameters (Q1) for elements `E` (`i8` or `u8`): a real value `r`
/// is stored as the integer `q = zero_point + round(r / scale)`, so `r = scale * (q -
/// zero_point)`.
///
/// The scale is an `f32`, as in a `.tflite` file: every derivation starts from it, so the
/// multipliers match TFLM's. Built by [`Quant::new`] (runtime values, an error value when
/// invalid) or [`Quant::new_const`] (a compile error in `const` context).
///
/// ```
/// use shaped::quant::Quant;
/// let q = Quant::<i8>::new(0.02, -5)?;
/// assert_eq!((q.scale(), q.zero_point()), (0.02, -5));
/// assert_eq!(
///     Quant::<i8>::new(0.0, 0).unwrap_err().to_string(),
///     "invalid quantization: the scale 0 must be finite and positive (Q1)"
/// );
/// assert_eq!(
///     Quant::<u8>::new(0.5, -1).unwrap_err().to_string(),
///     "invalid quantization: the zero point -1 is outside the element range 0..=255 (Q1)"
/// );
/// # Ok::<(), shaped::Error>(())
/// ```
pub struct Quant<E> {
    scale: f32,
    zero_point: i32,
    element: PhantomData<E>,
}

// By hand: the element type need not be `Clone` or `Debug` for the parameters to be.
impl<E> Clone for Quant<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Quant<E> {}
impl<E> PartialEq for Quant<E> {
    // Inlined so that a prepared operation's check of constant parameters folds away: left
    // to LLVM at opt-level "s" without LTO, the call was kept in some builds (after the
    // convolutions were added), and the int8 add firmware then kept its error path: 692
    // bytes of `.text` became 2,172 (`qemu-tests/code_size.sh`).
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.scale.to_bits() == other.scale.to_bits() && self.zero_point == other.zero_point
    }
}
impl<E> Eq for Quant<E> {}
impl<E> core::fmt::Debug for Quant<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Quant")
            .field("scale", &self.scale)
            .field("zero_point", &self.zero_point)
            .finish()
    }
}

impl<E: QuantElement> Quant<E> {
    /// Parameters from a scale and a zero point, checked (Q1): the scale finite and positive,
    /// the zero point within `E`'s range.
    pub const fn new(scale: f32, zero_point: i32) -> Result<Self, Error> {
        if !(scale > 0.0 && scale < f32::INFINITY) {
            return Err(quant_error(QuantProblem::Scale {
                bits: scale.to_bits(),
            }));
        }
        if zero_point < E::MIN || zero_point > E::MAX {
            return Err(quant_error(QuantProblem::ZeroPoint {
                zero_point,
                min: E::MIN,
                max: E::MAX,
            }));
        }
        Ok(Quant {
            scale,
            zero_point,
            element: PhantomData,
        })
    }

    /// [`Quant::new`] for constants: invalid parameters are a compile error where it is
    /// evaluated in `const` context.
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// const Q: Quant<i8> = Quant::new_const(0.05, 3);
    /// assert_eq!(Q.zero_point(), 3);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::quant::Quant;
    /// const Q: Quant<i8> = Quant::new_const(-0.05, 3); // a negative scale
    /// ```
    pub const fn new_const(scale: f32, zero_point: i32) -> Self {
        match Self::new(scale, zero_point) {
            Ok(q) => q,
            Err(_) => panic!("invalid quantization parameters (Q1)"),
        }
    }
}

impl<E> Quant<E> {
    /// The scale.
    #[inline(always)]
    pub const fn scale(&self) -> f32 {
        self.scale
    }

    /// The zero point.
    #[inline(always)]
    pub const fn zero_point(&self) -> i32 {
        self.zero_point
    }
}

/// The error for a quantization problem (no shapes involved).
pub(crate) const fn quant_error(problem: QuantProblem) -> Error {
    Error::new_const(ErrorKind::Quant(problem), Operation::Quantize)
}

/// How a result is requantized (Q2): TFLM's two builds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Two roundings: the `Q31` high multiply (ties up), then the divide by a power of two
    /// (ties away from zero), [`fixedpoint`](super::fixedpoint): TFLM's default build, and
    /// what the `tflite-micro` package and LiteRT's reference kernels compute.
    #[default]
    Double,
    /// One rounding, half toward positive infinity: TFLM built with
    /// `TFLITE_SINGLE_ROUNDING=1`.
    Single,
}

/// A fused activation (Q7): the output clamped to a range given in real values, whose
/// bounds are quantized with the output's parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Activation {
    /// No clamp beyond the element type's range.
    #[default]
    None,
    /// `[0, inf)`.
    Relu,
    /// `[0, 6]`.
    Relu6,
    /// `[-1, 1]` (TFLite's `RELU_N1_TO_1`).
    ReluN1To1,
}

impl Activation {
    /// The clamp in quantized values for output parameters `out` and an element range
    /// `[min, max]` (Q7): each real bound `b` becomes `zero_point + round(b / scale)`, the
    /// division in `f32` and the rounding half away from zero, then clamped to the range.
    /// `None` when a bound's quantized value does not fit in `i32` (TFLM refuses such a
    /// model).
    // In line: a caller's constant parameters then fold it, where a call (without LTO, at
    // "s") worked it out at run time in software double precision (1.8 kB of a Cortex-M
    // firmware's `f64` routines).
    #[inline(always)]
    pub const fn range<E>(self, out: Quant<E>, min: i32, max: i32) -> Option<(i32, i32)> {
        let (lo, hi) = match self {
            Activation::None => return Some((min, max)),
            Activation::Relu => (Some(0.0), None),
            Activation::Relu6 => (Some(0.0), Some(6.0)),
            Activation::ReluN1To1 => (Some(-1.0), Some(1.0)),
        };
        let lo = match lo {
            Some(b) => match quantize_bound(b, out) {
                Some(q) => {
                    if q > min {
                        q
                    } else {
                        min
                    }
                }
                None => return None,
            },
            None => min,
        };
        let hi = match hi {
            Some(b) => match quantize_bound(b, out) {
                Some(q) => {
                    if q < max {
                        q
                    } else {
                        max
                    }
                }
                None => return None,
            },
            None => max,
        };
        Some((lo, hi))
    }
}

/// `zero_point + round(b / scale)` as TFLM computes an activation bound: `f32` division,
/// `round` half away from zero, `None` outside `i32`.
#[inline(always)]
const fn quantize_bound<E>(b: f32, q: Quant<E>) -> Option<i32> {
    let x = b / q.scale;
    if (if x < 0.0 { -x } else { x }) >= 2147483648.0 {
        return None;
    }
    let v = round_half_away(x) + q.zero_point as i64;
    if v < i32::MIN as i64 || v > i32::MAX as i64 {
        return None;
    }
    Some(v as i32)
}

/// `x` rounded to the nearest integer, ties away from zero (TFLM's `TfLiteRound`), as `i64`:
/// `|x| + 0.5` is exact in `f64` and the cast truncates, saturating beyond `i64`; NaN gives 0.
/// The rounding of every quantize step (Q7, Q10).
pub(crate) const fn round_half_away(x: f32) -> i64 {
    let magnitude = ((if x < 0.0 { -x } else { x }) as f64 + 0.5) as i64;
    if x < 0.0 {
        -magnitude
    } else {
        magnitude
    }
}
