//! The prepared int8 mean over the height and width of NHWC tensors (rule Q23), TFLM's
//! `MEAN` on axes 1 and 2, and the parameter check of its byte-copying `CONCATENATION`
//! (Q25).

use super::elementwise::Requant;
use super::params::{quant_error, Quant, QuantElement, Rounding};
use crate::error::{Error, ErrorKind, Operation, QuantProblem};
use crate::op::ReduceOp;

/// A prepared int8 mean over axes 1 and 2 (height and width of an NHWC tensor, Q23), TFLM's
/// `MEAN` (`reference_ops::QuantizedMeanOrSum`): for each output element, the `n` inputs
/// averaged (`n` = height x width),
///
/// ```text
/// sum  = the sum of the stored values                     (32 bits, wrapping)
/// out  = clamp(rq(sum - z_in * n, m_n, shift_n) + z_out)
/// ```
///
/// where `(m, shift)` is `s_in / s_out` as a multiplier (Q3, computed in `f64` from the `f32`
/// scales) and the division by `n` is folded into it, in integers: with `s = min(floor(log2
/// n), 32, 31 + shift)`, `m_n = floor(m * 2^s / n)` and `shift_n = shift - s`. `sum - z_in * n`
/// is computed in 64 bits and truncated to 32, and `rq` is the chosen requantization (Q4 then
/// Q5, or Q6). The multiplier and shift are derived once; the fold by `n`, once per call.
/// With no element to average (a height or width of 0) every output is 0, as TFLM leaves it.
///
/// ```
/// use shaped::quant::{QMean, Quant, Rounding};
/// let q = Quant::<i8>::new(0.5, -1)?;
/// let op = QMean::new(q, q, Rounding::Double)?;
/// // One image of 2 x 2 pixels and 2 channels: channel 0 holds 1, 2, 3, 4.
/// let input = [1, 10, 2, 10, 3, 10, 4, -10];
/// let mut out = [0i8; 2];
/// op.apply_nhwc(&input, [1, 2, 2, 2], &mut out)?;
/// assert_eq!(out, [3, 5]); // (1 + 2 + 3 + 4) / 4 = 2.5, rounded away from zero once shifted
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QMean {
    input: Quant<i8>,
    output: Quant<i8>,
    requant: Requant,
    rounding: Rounding,
}

impl QMean {
    /// The mean of inputs quantized by `input` into `output`, requantized with `rounding`:
    /// an error value when the multiplier `s_in / s_out` is `2^30` or more in double rounding
    /// (Q3).
    pub const fn new(
        input: Quant<i8>,
        output: Quant<i8>,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let real = input.scale() as f64 / output.scale() as f64;
        match Requant::new(real, rounding, false) {
            Ok(requant) => Ok(QMean {
                input,
                output,
                requant,
                rounding,
            }),
            Err(e) => Err(e),
        }
    }

    /// The input's parameters it was prepared for; a run refuses others.
    #[inline(always)]
    pub const fn input(&self) -> Quant<i8> {
        self.input
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<i8> {
        self.output
    }

    /// The multiplier with the division by `n >= 1` folded in (TFLM's integer fold).
    const fn folded(&self, n: usize) -> Requant {
        let (multiplier, shift) = self.requant.parts();
        let log2 = 63 - (n as u64).leading_zeros() as i32;
        // `shift >= -31` (Q3 flushes smaller ones), so `31 + shift >= 0`.
        let mut s = if log2 < 32 { log2 } else { 32 };
        if s > 31 + shift {
            s = 31 + shift;
        }
        // 2^s <= n: the quotient is at most the multiplier, below 2^31.
        let m = ((multiplier as i64) << s) / n as i64;
        Requant::from_parts(m as i32, shift - s)
    }

    /// The means over the `hw` positions of each of `outer` blocks of `hw * inner` values of
    /// `input`, into `outer * inner` outputs (checked by the callers).
    pub(crate) fn reduce_into(
        &self,
        input: &[i8],
        outer: usize,
        hw: usize,
        inner: usize,
        output: &mut [i8],
    ) {
        if hw == 0 {
            output.fill(0);
            return;
        }
        let requant = self.folded(hw);
        let (z_in, z_out) = (self.input.zero_point() as i64, self.output.zero_point());
        let offset = z_in.wrapping_mul(hw as i64);
        for o in 0..outer {
            let block = o * hw * inner;
            for c in 0..inner {
                let mut sum = 0i32;
                for p in 0..hw {
                    let Some(&x) = input.get(block + p * inner + c) else {
                        return;
                    };
                    sum = sum.wrapping_add(i32::from(x));
                }
                let shifted = (i64::from(sum).wrapping_sub(offset)) as i32;
                let v = requant.apply(shifted, self.rounding).saturating_add(z_out);
                if let Some(y) = output.get_mut(o * inner + c) {
                    *y = <i8 as QuantElement>::saturate(v);
                }
            }
        }
    }

    /// The mean over the height and width of `input`, an NHWC tensor of `dims`, into
    /// `output`, `[N, C]` row-major (the same bytes as `[N, 1, 1, C]`): an error value when
    /// the slices do not hold `N H W C` and `N C` values. No allocation.
    pub fn apply_nhwc(
        &self,
        input: &[i8],
        dims: [usize; 4],
        output: &mut [i8],
    ) -> Result<(), Error> {
        let [n, h, w, c] = dims;
        let op = Operation::Reduce { op: ReduceOp::Mean };
        let (Some(hw), Some(nc)) = (h.checked_mul(w), n.checked_mul(c)) else {
            return Err(Error::new(ErrorKind::Overflow, op, &dims, &[]));
        };
        let Some(count) = hw.checked_mul(nc) else {
            return Err(Error::new(ErrorKind::Overflow, op, &dims, &[]));
        };
        if input.len() != count {
            let kind = ErrorKind::LengthMismatch {
                expected: count,
                actual: input.len(),
            };
            return Err(Error::new(kind, op, &dims, &[]));
        }
        if output.len() != nc {
            let kind = ErrorKind::LengthMismatch {
                expected: nc,
                actual: output.len(),
            };
            return Err(Error::new(kind, op, &[n, c], &[]));
        }
        self.reduce_into(input, n, hw, c, output);
        Ok(())
    }
}

/// The blocks of a mean over axes 1 and 2 of `shape`: `(outer, positions, inner)`, the dim
/// of axis 0, the count of axes 1 and 2, and the count of the axes after them; an error value
/// for a shape without axes 1 and 2.
pub(crate) fn mean_blocks(shape: &[usize]) -> Result<(usize, usize, usize), Error> {
    if shape.len() < 3 {
        let kind = ErrorKind::BadAxis {
            axis: if shape.len() < 2 { 1 } else { 2 },
            rank: shape.len(),
        };
        let op = Operation::Reduce { op: ReduceOp::Mean };
        return Err(Error::new(kind, op, shape, &[]));
    }
    // A tensor's dims multiply without overflow.
    let inner = shape[3..].iter().product();
    Ok((shape[0], shape[1] * shape[2], inner))
}

/// [`mean_blocks`] of `shape` for a mean written into a destination of dims `out`, which must
/// be `shape` with axes 1 and 2 removed, or kept as 1 (TFLite's `keep_dims`): an error naming
/// `out` and the removed form otherwise. The int8 and float `_into` forms' check.
pub(crate) fn mean_blocks_into(
    shape: &[usize],
    out: &[usize],
) -> Result<(usize, usize, usize), Error> {
    let blocks = mean_blocks(shape)?;
    let removed = out.len() + 2 == shape.len() && out[0] == shape[0] && out[1..] == shape[3..];
    let kept = out.len() == shape.len()
        && out[0] == shape[0]
        && out[1] == 1
        && out[2] == 1
        && out[3..] == shape[3..];
    if !(removed || kept) {
        // The output's dims, both axes removed.
        let mut want = [0usize; crate::rules::MAX_RANK];
        want[0] = shape[0];
        want[1..shape.len() - 2].copy_from_slice(&shape[3..]);
        let op = Operation::Reduce { op: ReduceOp::Mean };
        return Err(Error::new(
            ErrorKind::ShapeMismatch,
            op,
            out,
            &want[..shape.len() - 2],
        ));
    }
    Ok(blocks)
}

/// The error of a concatenation input quantized by `q` where the output is quantized by `out`
/// (Q25): TFLM copies the bytes, so they must be equal.
pub(crate) fn check_concat<E>(q: Quant<E>, out: Quant<E>) -> Result<(), Error> {
    if q == out {
        return Ok(());
    }
    Err(quant_error(QuantProblem::ConcatParams))
}
