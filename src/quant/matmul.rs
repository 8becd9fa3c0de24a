//! Prepared quantized matrix products (rules Q17, Q18): TFLM's `FULLY_CONNECTED` and
//! `BATCH_MATMUL` for 8-bit integers. Each output element is
//!
//! ```text
//! acc = bias[j] + sum over k of (a[i, k] - za) * (b[k, j] - zb)      (32-bit, wrapping)
//! out = clamp(requant(acc, sa sb / so) + zo, activation)
//! ```
//!
//! with one multiplier for the whole output ([`QMatMul`]) or one per output column, from
//! per-axis weight scales ([`QMatMulPerChannel`]). The multipliers are derived once, in `const`
//! context when the parameters are constants; the loops are the crate's matrix product
//! layouts (batch broadcasting included), with the requantization applied to each sum.

use super::elementwise::{Frame, Requant};
use super::params::{quant_error, Activation, Quant, QuantElement, Rounding};
use super::per_axis::PerAxis;
use crate::error::{Error, QuantProblem};

/// A prepared quantized product with per-tensor weights (Q17): inputs quantized by `a` and
/// `b`, output by `out`, one multiplier `sa sb / so` (computed in `f64` from the `f32`
/// scales, any size, Q3), a fused activation (Q7).
///
/// ```
/// use shaped::quant::{Activation, QMatMul, Quant, Rounding};
/// use shaped::{Shape, Tensor};
/// const OP: QMatMul<i8> = match QMatMul::new(
///     Quant::new_const(0.5, 1),
///     Quant::new_const(0.25, 0),
///     Quant::new_const(0.125, -3),
///     Activation::None,
///     Rounding::Double,
/// ) {
///     Ok(op) => op,
///     Err(_) => panic!("valid parameters"),
/// };
/// let (qa, qb) = OP.inputs();
/// let x = Tensor::<i8, Shape![1, 2]>::from([[3, 5]]).quantized(qa); // [1.0, 2.0]
/// // Weights stored [out, in], as TFLM's FULLY_CONNECTED keeps them.
/// let w = Tensor::<i8, Shape![3, 2]>::from([[4, 0], [0, 4], [4, 4]]).quantized(qb);
/// let y = OP.fully_connected(&x, &w, None)?;
/// // [1, 2, 3] at scale 1/8, zero point -3.
/// assert_eq!(y.values().as_slice(), &[5, 13, 21]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QMatMul<E> {
    frame: Frame<E>,
    out: Requant,
}

impl<E: QuantElement> QMatMul<E> {
    /// The product of inputs quantized by `a` and `b` into `out`, clamped by `activation`
    /// (Q17): an error value when the multiplier or an activation bound cannot be represented.
    pub const fn new(
        a: Quant<E>,
        b: Quant<E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        // As TFLM's `GetQuantizedConvolutionMultipler`: each scale widened, then in f64.
        let real = a.scale() as f64 * b.scale() as f64 / out.scale() as f64;
        let out_requant = match Requant::new(real, rounding, false) {
            Ok(r) => r,
            Err(e) => return Err(e),
        };
        match Frame::new(a, b, out, activation, rounding) {
            Ok(frame) => Ok(QMatMul {
                frame,
                out: out_requant,
            }),
            Err(e) => Err(e),
        }
    }

    /// The parameters of the inputs it was prepared for; a run refuses others.
    #[inline(always)]
    pub const fn inputs(&self) -> (Quant<E>, Quant<E>) {
        self.frame.inputs
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.frame.output
    }
}

/// A prepared quantized product with per-axis weights (Q18): `N` weight scales, one per
/// output column (TFLM's per-channel `FULLY_CONNECTED`), each column's multiplier
/// `sa sb[j] / so` derived once. The weights' zero points must all be 0 (TFLM's per-channel
/// kernels read none; an error value otherwise).
///
/// ```
/// use shaped::quant::{Activation, PerAxis, QMatMulPerChannel, Quant, Rounding};
/// use shaped::{Shape, Tensor};
/// static SCALES: [f32; 2] = [0.5, 0.25];
/// static ZEROS: [i32; 2] = [0, 0];
/// let w_params = PerAxis::new(&SCALES, &ZEROS)?;
/// let op = QMatMulPerChannel::new(
///     Quant::<i8>::new(1.0, 0)?,
///     w_params,
///     Quant::new(1.0, 0)?,
///     Activation::Relu,
///     Rounding::Double,
/// )?;
/// let x = Tensor::<i8, Shape![1, 2]>::from([[2, -4]]).quantized(op.inputs().0);
/// let w = Tensor::<i8, Shape![2, 2]>::from([[4, 2], [4, -2]]).quantized_per_axis::<0, 2>(w_params);
/// // Column 0: (8 - 8) * 0.5 = 0; column 1: (8 + 8) * 0.25 = 4.
/// assert_eq!(op.fully_connected(&x, &w, Some(&[0, 0]))?.values().as_slice(), &[0, 4]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QMatMulPerChannel<'p, E, const N: usize> {
    frame: Frame<E>,
    weights: PerAxis<'p, E, N>,
    out: [Requant; N],
}

impl<'p, E: QuantElement, const N: usize> QMatMulPerChannel<'p, E, N> {
    /// The product of inputs quantized by `a` and by `b` per output column into `out`,
    /// clamped by `activation` (Q18): an error value when a weight zero point is not 0, or a
    /// multiplier or an activation bound cannot be represented.
    pub const fn new(
        a: Quant<E>,
        b: PerAxis<'p, E, N>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let mut requants = [Requant::ZERO; N];
        let (scales, zeros) = (b.scales(), b.zero_points());
        let mut j = 0;
        while j < N {
            if zeros[j] != 0 {
                return Err(quant_error(QuantProblem::WeightZeroPoint {
                    channel: j,
                    zero_point: zeros[j],
                }));
            }
            // As TFLM's per-channel preparation: each scale widened, then in f64.
            let real = a.scale() as f64 * scales[j] as f64 / out.scale() as f64;
            requants[j] = match Requant::new(real, rounding, false) {
                Ok(r) => r,
                Err(e) => return Err(e),
            };
            j += 1;
        }
        // The frame's second input is a placeholder: the weights' parameters are `b`.
        match Frame::new(a, a, out, activation, rounding) {
            Ok(frame) => Ok(QMatMulPerChannel {
                frame,
                weights: b,
                out: requants,
            }),
            Err(e) => Err(e),
        }
    }

    /// The input's parameters and the weights' it was prepared for; a run refuses others.
    #[inline(always)]
    pub const fn inputs(&self) -> (Quant<E>, PerAxis<'p, E, N>) {
        (self.frame.inputs.0, self.weights)
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.frame.output
    }
}

/// How a product's sums become outputs: its frame and the requantization of each column.
pub(crate) trait ProductRequant<E: QuantElement> {
    /// The offsets, clamp and rounding.
    fn frame(&self) -> &Frame<E>;
    /// The weights' zero point negated (0 for per-channel weights).
    fn b_offset(&self) -> i32;
    /// The requantization of output column `j`.
    fn column(&self, j: usize) -> Requant;
}

impl<E: QuantElement> ProductRequant<E> for QMatMul<E> {
    #[inline(always)]
    fn frame(&self) -> &Frame<E> {
        &self.frame
    }
    #[inline(always)]
    fn b_offset(&self) -> i32 {
        self.frame.b_offset
    }
    #[inline(always)]
    fn column(&self, _: usize) -> Requant {
        self.out
    }
}

impl<E: QuantElement, const N: usize> ProductRequant<E> for QMatMulPerChannel<'_, E, N> {
    #[inline(always)]
    fn frame(&self) -> &Frame<E> {
        &self.frame
    }
    #[inline(always)]
    fn b_offset(&self) -> i32 {
        0
    }
    #[inline(always)]
    fn column(&self, j: usize) -> Requant {
        // `j < N`: the callers checked the output columns against `N`.
        self.out[j % N.max(1)]
    }
}

/// Where a product reads its operands and writes its output: the matrix dims, the batch
/// axes of the output (their counts) and each operand's stride along them (0 where it
/// broadcasts), and each operand's row and column strides.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walk<'w> {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub batch: &'w [usize],
    pub a_batch: &'w [usize],
    pub b_batch: &'w [usize],
    pub a_row: usize,
    pub a_col: usize,
    pub b_row: usize,
    pub b_col: usize,
}

/// The product into `out` (row-major, every element written), each sum from `bias[j]` (or 0)
/// and its terms in `k` order, wrapping in 32 bits (Q17).
pub(crate) fn product_into<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    out: &mut [E],
) {
    let Walk { m, k, n, .. } = walk;
    let f = op.frame();
    let (a_offset, b_offset) = (f.a_offset, op.b_offset());
    let block = m * n;
    if block == 0 {
        return;
    }
    for (position, c) in out.chunks_exact_mut(block).enumerate() {
        // The batch's multi-index, last axis fastest.
        let (mut a0, mut b0, mut flat) = (0, 0, position);
        for axis in (0..walk.batch.len()).rev() {
            let d = walk.batch[axis];
            let at = flat % d;
            flat /= d;
            a0 += at * walk.a_batch[axis];
            b0 += at * walk.b_batch[axis];
        }
        for i in 0..m {
            let ai = a0 + i * walk.a_row;
            for j in 0..n {
                let bj = b0 + j * walk.b_col;
                let mut acc = match bias {
                    Some(bias) => bias[j],
                    None => 0,
                };
                for kk in 0..k {
                    let x = a[ai + kk * walk.a_col].to_i32() + a_offset;
                    let y = b[bj + kk * walk.b_row].to_i32() + b_offset;
                    acc = acc.wrapping_add(x * y);
                }
                c[i * n + j] = f.finish(op.column(j).apply(acc, f.rounding));
            }
        }
    }
}

/// The error of a bias whose length is not the output's column count (Q17).
pub(crate) fn check_bias(bias: Option<&[i32]>, n: usize) -> Result<(), Error> {
    match bias {
        Some(b) if b.len() != n => Err(quant_error(QuantProblem::BiasLength {
            bias: b.len(),
            columns: n,
        })),
        _ => Ok(()),
    }
}
