//! Prepared int8 activations (rules Q20-Q22): TFLM's `SOFTMAX`, `LOGISTIC` and `TANH` on
//! `i8`, in its default (double rounding) build. Each is derived once from the parameters, in
//! `const` context when they are constants; the arithmetic is gemmlowp's fixed point
//! ([`fixedpoint`](super::fixedpoint)), step for step, so every output byte is TFLM's.
//!
//! Their outputs have fixed parameters, whatever a model declares: scale 1/256 and zero point
//! -128 for softmax and logistic ([`QSoftmax::OUTPUT`], [`QLogistic::OUTPUT`]), scale 1/128
//! and zero point 0 for tanh ([`QTanh::OUTPUT`]). Other output parameters are an error value.

use super::fixedpoint::{
    exp_on_negative_values, get_reciprocal, logistic, multiply_by_quantized_multiplier_double,
    rounding_divide_by_pot, saturating_rounding_doubling_high_mul, tanh,
};
use super::multiplier::quantize_multiplier;
use super::params::{quant_error, Quant, Rounding};
use crate::error::{Error, ErrorKind, FixedOp, Operation, QuantProblem};
use crate::op::ReduceOp;

/// The error of output parameters other than `want`, the ones `op`'s output always has.
const fn check_output(output: Quant<i8>, want: Quant<i8>, op: FixedOp) -> Result<(), Error> {
    if output.scale().to_bits() == want.scale().to_bits()
        && output.zero_point() == want.zero_point()
    {
        return Ok(());
    }
    Err(quant_error(op.output_problem()))
}

/// The error of a softmax of a rank-0 tensor, which has no last axis.
pub(crate) fn softmax_rank_error(shape: &[usize]) -> Error {
    let kind = ErrorKind::BadAxis { axis: -1, rank: 0 };
    Error::new(
        kind,
        Operation::Reduce {
            op: ReduceOp::Softmax,
        },
        shape,
        &[],
    )
}

/// The integer bits of softmax's scaled input differences (TFLM's `kScaledDiffIntegerBits`):
/// they are `Q_5`.
const SOFTMAX_DIFF_BITS: u32 = 5;
/// The integer bits of softmax's sum of exponentials (TFLM's `kAccumulationIntegerBits`):
/// `Q_12`.
const SOFTMAX_SUM_BITS: u32 = 12;
/// The sum of exponentials from which TFLM's output exponent `bits over one + 23` passes 31:
/// 512 in `Q_12`. TFLM's kernel stops (`TFLITE_CHECK`) there.
const SOFTMAX_SUM_LIMIT: i64 = 1 << 28;

/// A prepared int8 softmax along the last axis (Q20), TFLM's `SOFTMAX` (`reference_ops::Softmax`
/// on `int8`, the gemmlowp fixed-point kernel): for each row, with `d = x - max(row)`,
///
/// ```text
/// e(d)  = exp_on_negative_values(srdhm(d * 2^shift, multiplier))   (Q_5 in, Q_0 out)
/// sum   = the sum over the row of rdpot(e(d), 12), for every d >= diff_min   (Q_12)
/// out   = clamp(rdpot(srdhm(1 / sum, e(d)), bits over one + 23) - 128)   for d >= diff_min,
///         -128 otherwise
/// ```
///
/// where `(multiplier, shift)` is `min(beta * s_in * 2^26, 2^31 - 1)` as a multiplier above one
/// (Q3; TFLM's `PreprocessSoftmaxScaling`), `diff_min = -floor(31 * 2^26 / 2^shift)` (TFLM's
/// `CalculateInputRadius`), `1 / sum` is [`get_reciprocal`], `srdhm` is
/// [`saturating_rounding_doubling_high_mul`] (Q4) and `rdpot` [`rounding_divide_by_pot`] (Q5).
/// The input's zero point plays no part: only differences are used.
///
/// ```
/// use shaped::quant::{QSoftmax, Quant};
/// const SOFTMAX: QSoftmax = match QSoftmax::new(Quant::new_const(0.1, 0), 1.0, QSoftmax::OUTPUT) {
///     Ok(op) => op,
///     Err(_) => panic!("valid parameters"),
/// };
/// let mut out = [0i8; 3];
/// SOFTMAX.apply_row(&[10, 10, 10], &mut out)?;
/// assert_eq!(out, [-43, -43, -43]); // a third each: 85 steps of 1/256 above -128
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QSoftmax {
    input: Quant<i8>,
    beta: f32,
    multiplier: i32,
    left_shift: i32,
    diff_min: i32,
}

impl QSoftmax {
    /// The parameters of every int8 softmax output: scale 1/256, zero point -128.
    pub const OUTPUT: Quant<i8> = Quant::new_const(1.0 / 256.0, -128);

    /// The softmax of inputs quantized by `input` with `beta` (TFLite's `SoftmaxOptions`), into
    /// `output`, which must be [`OUTPUT`](Self::OUTPUT) (Q20). An error value as well when
    /// `beta * s_in * 2^26` (in `f64`) is not above 1, which TFLM refuses (a `beta` that is 0,
    /// negative or NaN among them).
    pub const fn new(input: Quant<i8>, beta: f32, output: Quant<i8>) -> Result<Self, Error> {
        if let Err(e) = check_output(output, Self::OUTPUT, FixedOp::Softmax) {
            return Err(e);
        }
        // As TFLM: beta and the scale widened, multiplied in that order, then by 2^26, and
        // capped at the largest multiplier of its double-rounding build.
        let product = beta as f64 * input.scale() as f64 * (1u32 << 26) as f64;
        let max = ((1u64 << 31) - 1) as f64;
        let real = if product > max { max } else { product };
        // NaN is neither above 1 nor at most 1.
        if real.is_nan() || real <= 1.0 {
            return Err(quant_error(QuantProblem::SoftmaxScale));
        }
        // Above one and at most 2^31 - 1: a shift in 1..=31.
        let (multiplier, left_shift) = match quantize_multiplier(real, Rounding::Double) {
            Some(q) => q,
            None => (0, 0),
        };
        // floor(31 * 2^26 / 2^shift), exact in integers.
        let radius = (31i64 << 26) >> left_shift;
        Ok(QSoftmax {
            input,
            beta,
            multiplier,
            left_shift,
            diff_min: -(radius as i32),
        })
    }

    /// The input's parameters it was prepared for; a run refuses others.
    #[inline(always)]
    pub const fn input(&self) -> Quant<i8> {
        self.input
    }

    /// The output's parameters: [`OUTPUT`](Self::OUTPUT).
    #[inline(always)]
    pub const fn output(&self) -> Quant<i8> {
        Self::OUTPUT
    }

    /// The `beta` it was prepared with.
    #[inline(always)]
    pub const fn beta(&self) -> f32 {
        self.beta
    }

    /// `exp(beta * s_in * d)` in `Q_0` for a difference `d >= diff_min` from the row's
    /// largest value.
    #[inline(always)]
    fn exp_of(&self, d: i32) -> i32 {
        // |d| <= floor(31 * 2^26 / 2^shift): the shifted difference fits in 31 bits (for a
        // shift of 31 only d = 0 passes, and the wrapping product is 0).
        let shifted = d.wrapping_mul(1i32.wrapping_shl(self.left_shift as u32));
        let scaled = saturating_rounding_doubling_high_mul(shifted, self.multiplier);
        exp_on_negative_values(scaled, SOFTMAX_DIFF_BITS)
    }

    /// The softmax of one row into `output`, of the same length (an error value otherwise);
    /// an error value too when the row's exponentials add up to 512 or more, where TFLM's
    /// kernel stops (Q20). No allocation.
    ///
    /// ```
    /// use shaped::quant::{QSoftmax, Quant};
    /// let op = QSoftmax::new(Quant::new(0.5, 3)?, 1.0, QSoftmax::OUTPUT)?;
    /// let mut out = [0i8; 2];
    /// op.apply_row(&[4, 0], &mut out)?; // real values 0.5 and -1.5: 0.881 and 0.119
    /// assert_eq!(out, [97, -97]); // 225/256 and 31/256
    /// assert_eq!(
    ///     op.apply_row(&[1, 2, 3], &mut out).unwrap_err().to_string(),
    ///     "shape [3] needs 3 elements, but the buffer holds 2 (softmax)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn apply_row(&self, input: &[i8], output: &mut [i8]) -> Result<(), Error> {
        if input.len() != output.len() {
            let kind = ErrorKind::LengthMismatch {
                expected: input.len(),
                actual: output.len(),
            };
            let op = Operation::Reduce {
                op: ReduceOp::Softmax,
            };
            return Err(Error::new(kind, op, &[input.len()], &[]));
        }
        let Some(max) = input.iter().copied().max() else {
            return Ok(());
        };
        let max = i32::from(max);
        let mut sum = 0i64;
        for &x in input {
            let d = i32::from(x) - max;
            if d >= self.diff_min {
                // Rescaled from Q_0 to Q_12: 12 bits fewer.
                sum += i64::from(rounding_divide_by_pot(self.exp_of(d), SOFTMAX_SUM_BITS));
            }
        }
        // The largest element contributes exp(0), so the sum is at least 2^19.
        if sum >= SOFTMAX_SUM_LIMIT {
            return Err(quant_error(QuantProblem::SoftmaxSum));
        }
        let (reciprocal, over_unit) = get_reciprocal(sum as i32, SOFTMAX_SUM_BITS);
        // In 23..=31: the sum is in [2^19, 2^28).
        let exponent = (over_unit + 31 - 8) as u32;
        for (o, &x) in output.iter_mut().zip(input) {
            let d = i32::from(x) - max;
            *o = if d >= self.diff_min {
                let p = saturating_rounding_doubling_high_mul(reciprocal, self.exp_of(d));
                (rounding_divide_by_pot(p, exponent) - 128).clamp(-128, 127) as i8
            } else {
                i8::MIN
            };
        }
        Ok(())
    }

    /// The softmax of each row of `depth` elements of `input` into `output` (as long): the
    /// kernel of the tensor forms.
    pub(crate) fn rows(&self, input: &[i8], depth: usize, output: &mut [i8]) -> Result<(), Error> {
        if depth == 0 {
            return Ok(());
        }
        for (x, y) in input
            .chunks_exact(depth)
            .zip(output.chunks_exact_mut(depth))
        {
            self.apply_row(x, y)?;
        }
        Ok(())
    }
}

/// The input rescaling of TFLM's int8 logistic and tanh (`kInputIntegerBits = 4`): the
/// multiplier and shift of `s_in * 2^27` (`frexp`, the fraction to 31 bits: Q3 without a
/// renormalization, which an `f32` scale never needs) and the input radius `floor(15 * 2^27 /
/// 2^shift)`, an error value where TFLM's radius is undefined (the shift outside `0..=62`: a
/// scale outside `[2^-28, 2^35)`).
const fn input_rescaling(input: Quant<i8>, op: FixedOp) -> Result<(i32, i32, i32), Error> {
    let real = input.scale() as f64 * (1u32 << 27) as f64;
    match quantize_multiplier(real, Rounding::Double) {
        // A shift of 0 to 62: the radius 15 * 2^27 / 2^shift, floored, fits in i32 (0 from a
        // shift of 31 on).
        Some((multiplier, shift)) if shift >= 0 && shift <= 62 => {
            let radius = (15i64 << 27) >> shift;
            Ok((multiplier, shift, radius as i32))
        }
        _ => Err(quant_error(op.scale_problem())),
    }
}

/// The 256 outputs of an int8 logistic (`tanh: false`) or tanh for inputs quantized by `input`
/// (Q21, Q22), indexed by the input byte's bits with the sign bit flipped (-128 first).
const fn activation_table(input: Quant<i8>, tanh_table: bool) -> Result<[i8; 256], Error> {
    let op = if tanh_table {
        FixedOp::Tanh
    } else {
        FixedOp::Logistic
    };
    let (multiplier, shift, radius) = match input_rescaling(input, op) {
        Ok(r) => r,
        Err(e) => return Err(e),
    };
    let mut table = [0i8; 256];
    let mut i = 0;
    while i < 256 {
        let x = i as i32 - 128 - input.zero_point();
        table[i] = if x <= -radius {
            i8::MIN
        } else if x >= radius {
            i8::MAX
        } else {
            // |x| < radius: x * 2^shift < 15 * 2^27, in Q_4.
            let q4 = multiply_by_quantized_multiplier_double(x, multiplier, shift);
            let v = if tanh_table {
                rounding_divide_by_pot(tanh(q4, 4), 31 - 7)
            } else {
                rounding_divide_by_pot(logistic(q4, 4), 31 - 8) - 128
            };
            if v < -128 {
                i8::MIN
            } else if v > 127 {
                i8::MAX
            } else {
                v as i8
            }
        };
        i += 1;
    }
    Ok(table)
}

/// The position of `x` in a table of 256 outputs, -128 first.
#[inline(always)]
const fn table_index(x: i8) -> usize {
    (x as u8 ^ 0x80) as usize
}

/// A prepared int8 logistic (Q21), TFLM's `LOGISTIC` (`reference_integer_ops::Logistic`):
/// with `x = q - z_in`, `-128` for `x <= -radius`, `127` for `x >= radius`, and otherwise
///
/// ```text
/// clamp(rdpot(logistic(rq(x, s_in * 2^27)), 23) - 128)     (Q_4 in, Q_0 out)
/// ```
///
/// `rq` the double-rounding requantization (Q4, then `rdpot`, [`rounding_divide_by_pot`], Q5)
/// with the multiplier and shift of `s_in * 2^27`, `radius = floor(15 * 2^27 / 2^shift)`, and
/// `logistic` gemmlowp's ([`fixedpoint::logistic`](super::fixedpoint::logistic)). Its 256
/// outputs are computed when it is prepared, so applying it is a table lookup.
///
/// ```
/// use shaped::quant::{QLogistic, Quant};
/// let op = QLogistic::new(Quant::new(0.0625, 0)?, QLogistic::OUTPUT)?;
/// assert_eq!(op.apply(0), 0); // 0.5: 128 steps of 1/256 above -128
/// assert_eq!(op.apply(16), 59); // logistic(1.0) = 0.731
/// assert_eq!(op.apply(127), 127);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QLogistic {
    input: Quant<i8>,
    table: [i8; 256],
}

impl QLogistic {
    /// The parameters of every int8 logistic output: scale 1/256, zero point -128.
    pub const OUTPUT: Quant<i8> = Quant::new_const(1.0 / 256.0, -128);

    /// The logistic function of inputs quantized by `input` into `output`, which must be
    /// [`OUTPUT`](Self::OUTPUT) (Q21; TFLM checks the zero point and ignores the scale, its
    /// bytes meaning 1/256 whatever the model says). An error value as well for an input scale
    /// outside `[2^-28, 2^35)`, where TFLM's input radius is undefined.
    pub const fn new(input: Quant<i8>, output: Quant<i8>) -> Result<Self, Error> {
        if let Err(e) = check_output(output, Self::OUTPUT, FixedOp::Logistic) {
            return Err(e);
        }
        match activation_table(input, false) {
            Ok(table) => Ok(QLogistic { input, table }),
            Err(e) => Err(e),
        }
    }

    /// The input's parameters it was prepared for; a run refuses others.
    #[inline(always)]
    pub const fn input(&self) -> Quant<i8> {
        self.input
    }

    /// The output's parameters: [`OUTPUT`](Self::OUTPUT).
    #[inline(always)]
    pub const fn output(&self) -> Quant<i8> {
        Self::OUTPUT
    }

    /// The logistic of one input byte.
    #[inline(always)]
    pub const fn apply(&self, x: i8) -> i8 {
        self.table[table_index(x)]
    }
}

/// A prepared int8 tanh (Q22), TFLM's `TANH` (`reference_integer_ops::Tanh`): with `x = q -
/// z_in`, `-128` for `x <= -radius`, `127` for `x >= radius`, and otherwise
///
/// ```text
/// clamp(rdpot(tanh(rq(x, s_in * 2^27)), 24))     (Q_4 in, Q_0 out)
/// ```
///
/// with the input rescaling and radius of [`QLogistic`] and gemmlowp's `tanh`
/// ([`fixedpoint::tanh`](super::fixedpoint::tanh)). Its 256 outputs are computed when it is
/// prepared.
///
/// ```
/// use shaped::quant::{QTanh, Quant};
/// let op = QTanh::new(Quant::new(0.0625, 0)?, QTanh::OUTPUT)?;
/// assert_eq!(op.apply(0), 0);
/// assert_eq!(op.apply(16), 97); // tanh(1.0) = 0.762: 97.5 steps of 1/128, rounded down
/// assert_eq!(op.apply(-16), -97);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QTanh {
    input: Quant<i8>,
    table: [i8; 256],
}

impl QTanh {
    /// The parameters of every int8 tanh output: scale 1/128, zero point 0.
    pub const OUTPUT: Quant<i8> = Quant::new_const(1.0 / 128.0, 0);

    /// The tanh of inputs quantized by `input` into `output`, which must be
    /// [`OUTPUT`](Self::OUTPUT) (Q22; TFLM checks neither, its bytes meaning 1/128 and 0
    /// whatever the model says). An error value as well for an input scale outside
    /// `[2^-28, 2^35)`, where TFLM's input radius is undefined.
    pub const fn new(input: Quant<i8>, output: Quant<i8>) -> Result<Self, Error> {
        if let Err(e) = check_output(output, Self::OUTPUT, FixedOp::Tanh) {
            return Err(e);
        }
        match activation_table(input, true) {
            Ok(table) => Ok(QTanh { input, table }),
            Err(e) => Err(e),
        }
    }

    /// The input's parameters it was prepared for; a run refuses others.
    #[inline(always)]
    pub const fn input(&self) -> Quant<i8> {
        self.input
    }

    /// The output's parameters: [`OUTPUT`](Self::OUTPUT).
    #[inline(always)]
    pub const fn output(&self) -> Quant<i8> {
        Self::OUTPUT
    }

    /// The tanh of one input byte.
    #[inline(always)]
    pub const fn apply(&self, x: i8) -> i8 {
        self.table[table_index(x)]
    }
}
