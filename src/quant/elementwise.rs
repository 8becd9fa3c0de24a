//! Prepared quantized elementwise operations (rules Q8, Q9): the multipliers and shifts are
//! derived once from the parameters, in `const` context when they are constants, and each
//! element is then a handful of integer operations ([`fixedpoint`](super::fixedpoint)).

use super::fixedpoint::{
    multiply_by_quantized_multiplier_double, multiply_by_quantized_multiplier_single,
};
use super::multiplier::{quantize_multiplier, quantize_multiplier_below_one};
use super::params::{quant_error, Activation, Quant, QuantElement, Rounding};
use crate::error::{Error, QuantProblem};

/// A `Q31` multiplier and its shift, applied in the chosen rounding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Requant {
    multiplier: i32,
    shift: i32,
}

impl Requant {
    /// `real` as a multiplier (Q3), or the error naming it.
    const fn new(real: f64, rounding: Rounding, below_one: bool) -> Result<Requant, Error> {
        let q = if below_one {
            quantize_multiplier_below_one(real, rounding)
        } else {
            quantize_multiplier(real, rounding)
        };
        match q {
            Some((multiplier, shift)) => Ok(Requant { multiplier, shift }),
            None => Err(quant_error(QuantProblem::Multiplier {
                bits: real.to_bits(),
            })),
        }
    }

    #[inline(always)]
    fn apply(self, x: i32, rounding: Rounding) -> i32 {
        match rounding {
            Rounding::Double => {
                multiply_by_quantized_multiplier_double(x, self.multiplier, self.shift)
            }
            Rounding::Single => {
                multiply_by_quantized_multiplier_single(x, self.multiplier, self.shift)
            }
        }
    }
}

/// What every prepared operation holds besides its multipliers: the zero points as offsets,
/// the clamp of the fused activation (Q7), the rounding mode and the output's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Frame<E> {
    a_offset: i32,
    b_offset: i32,
    out_offset: i32,
    min: i32,
    max: i32,
    rounding: Rounding,
    output: Quant<E>,
}

impl<E: QuantElement> Frame<E> {
    const fn new(
        a: Quant<E>,
        b: Quant<E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let Some((min, max)) = activation.range(out, E::MIN, E::MAX) else {
            return Err(quant_error(QuantProblem::ActivationRange));
        };
        Ok(Frame {
            a_offset: -a.zero_point(),
            b_offset: -b.zero_point(),
            out_offset: out.zero_point(),
            min,
            max,
            rounding,
            output: out,
        })
    }

    /// `rq(x)` in this frame's rounding.
    #[inline(always)]
    fn requant(&self, x: i32, r: Requant) -> i32 {
        r.apply(x, self.rounding)
    }

    /// The requantized value with the output zero point, clamped (Q7) and stored.
    #[inline(always)]
    fn finish(&self, scaled: i32) -> E {
        E::saturate((scaled + self.out_offset).clamp(self.min, self.max))
    }
}

/// `?` for `const fn`.
macro_rules! try_const {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

/// A prepared quantized add (Q8), TFLM's `ADD` for `i8` and `u8`: both inputs are rescaled to
/// a common scale, twice the larger input scale, with 20 bits of headroom, added, and
/// requantized to the output:
///
/// ```text
/// a' = requant((a - za) * 2^20, sa / (2 max(sa, sb)))
/// b' = requant((b - zb) * 2^20, sb / (2 max(sa, sb)))
/// out = clamp(requant(a' + b', 2 max(sa, sb) / (2^20 so)) + zo, activation)
/// ```
///
/// each `requant` a `Q31` multiplier below one (Q3) in the chosen rounding (Q6).
///
/// ```
/// use shaped::quant::{Activation, QAdd, Quant, Rounding};
/// const ADD: QAdd<i8> = match QAdd::new(
///     Quant::new_const(0.02, -5),
///     Quant::new_const(0.03, 7),
///     Quant::new_const(0.05, 3),
///     Activation::None,
///     Rounding::Double,
/// ) {
///     Ok(add) => add,
///     Err(_) => panic!(),
/// };
/// // 0.02 * (100 + 5) + 0.03 * (-100 - 7) = 2.1 - 3.21 = -1.11: -22.2 steps of 0.05, + 3.
/// assert_eq!(ADD.apply(100, -100), -19);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QAdd<E> {
    frame: Frame<E>,
    a: Requant,
    b: Requant,
    out: Requant,
}

/// The headroom of the add's common scale for 8-bit elements (TFLM's `left_shift`).
const ADD_LEFT_SHIFT: u32 = 20;

impl<E: QuantElement> QAdd<E> {
    /// The add of inputs quantized by `a` and `b` into `out`, clamped by `activation` (Q7),
    /// requantized with `rounding`. An error when a derived multiplier is not below one (the
    /// output scale is smaller than `2 max(sa, sb) / 2^20`) or an activation bound does not
    /// fit.
    pub const fn new(
        a: Quant<E>,
        b: Quant<E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        // As TFLM: the larger scale in f32, then everything in f64.
        let larger = if a.scale() > b.scale() {
            a.scale()
        } else {
            b.scale()
        };
        let twice = 2.0 * larger as f64;
        let real_out = twice / ((1u32 << ADD_LEFT_SHIFT) as f64 * out.scale() as f64);
        Ok(QAdd {
            a: try_const!(Requant::new(a.scale() as f64 / twice, rounding, true)),
            b: try_const!(Requant::new(b.scale() as f64 / twice, rounding, true)),
            out: try_const!(Requant::new(real_out, rounding, true)),
            frame: try_const!(Frame::new(a, b, out, activation, rounding)),
        })
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.frame.output
    }

    /// The quantized sum of one pair of elements.
    #[inline(always)]
    pub fn apply(&self, x: E, y: E) -> E {
        let f = &self.frame;
        // |x - zx| <= 255 < 2^8, so the shifted values stay below 2^28.
        let xs = (x.to_i32() + f.a_offset) << ADD_LEFT_SHIFT;
        let ys = (y.to_i32() + f.b_offset) << ADD_LEFT_SHIFT;
        let sum = f.requant(xs, self.a) + f.requant(ys, self.b);
        f.finish(f.requant(sum, self.out))
    }
}

/// A prepared quantized multiply (Q9), TFLM's `MUL` for `i8` and `u8`: the product of the
/// zero-point-shifted inputs, requantized once by `sa sb / so` (any size, Q3):
///
/// ```text
/// out = clamp(requant((a - za) (b - zb), sa sb / so) + zo, activation)
/// ```
///
/// ```
/// use shaped::quant::{Activation, QMul, Quant, Rounding};
/// let mul = QMul::new(
///     Quant::<i8>::new(0.1, 0)?,
///     Quant::new(0.1, 0)?,
///     Quant::new(0.25, 0)?,
///     Activation::None,
///     Rounding::Double,
/// )?;
/// // 1.0 * 2.0 = 2.0: 8 steps of 0.25.
/// assert_eq!(mul.apply(10, 20), 8);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QMul<E> {
    frame: Frame<E>,
    out: Requant,
}

impl<E: QuantElement> QMul<E> {
    /// The multiply of inputs quantized by `a` and `b` into `out`, clamped by `activation`,
    /// requantized with `rounding`. An error only when an activation bound does not fit (the
    /// multiplier of valid scales always has a representation, Q3).
    pub const fn new(
        a: Quant<E>,
        b: Quant<E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let real = a.scale() as f64 * b.scale() as f64 / out.scale() as f64;
        Ok(QMul {
            out: try_const!(Requant::new(real, rounding, false)),
            frame: try_const!(Frame::new(a, b, out, activation, rounding)),
        })
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.frame.output
    }

    /// The quantized product of one pair of elements.
    #[inline(always)]
    pub fn apply(&self, x: E, y: E) -> E {
        let f = &self.frame;
        // |x - zx| <= 255, so the product is at most 65025 in magnitude.
        let product = (x.to_i32() + f.a_offset) * (y.to_i32() + f.b_offset);
        f.finish(f.requant(product, self.out))
    }
}
