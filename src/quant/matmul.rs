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

use super::elementwise::{scaled_product, Frame, Requant};
use super::params::{quant_error, Activation, Quant, QuantElement, Rounding};
use super::per_axis::{DynPerAxis, PerAxis};
use crate::error::{Error, QuantProblem};
use crate::util::{for_rows, Slot};

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
        match scaled_product(a, b, out, activation, rounding) {
            Ok((frame, out)) => Ok(QMatMul { frame, out }),
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
    run: ChannelRequants<E, N>,
    weights: PerAxis<'p, E, N>,
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
                run: ChannelRequants {
                    frame,
                    out: requants,
                },
                weights: b,
            }),
            Err(e) => Err(e),
        }
    }

    /// The input's parameters and the weights' it was prepared for; a run refuses others.
    #[inline(always)]
    pub const fn inputs(&self) -> (Quant<E>, PerAxis<'p, E, N>) {
        (self.run.inputs().0, self.weights)
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.run.output()
    }

    /// What a run reads, without the references to the weights' scales and zero points it
    /// was prepared from (a layer in flash would otherwise keep them: 8 bytes a channel).
    #[inline(always)]
    pub(crate) const fn requants(&self) -> &ChannelRequants<E, N> {
        &self.run
    }
}

/// A prepared per-channel product's frame and multipliers alone
/// ([`QMatMulPerChannel::requants`]): what `layer::QDensePerChannel` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChannelRequants<E, const N: usize> {
    frame: Frame<E>,
    out: [Requant; N],
}

impl<E: QuantElement, const N: usize> ChannelRequants<E, N> {
    /// The input's parameters it was prepared for, then a placeholder (the frame's second
    /// input, the input's again): as [`QMatMul::inputs`], for the layers' shared methods.
    #[inline(always)]
    pub(crate) const fn inputs(&self) -> (Quant<E>, Quant<E>) {
        self.frame.inputs
    }

    /// The output's parameters.
    #[inline(always)]
    pub(crate) const fn output(&self) -> Quant<E> {
        self.frame.output
    }
}

/// [`QMatMulPerChannel`] for weights whose number of channels is known only at run time (a
/// model read at run time): the per-column multipliers derived once into a `Vec`. Feature
/// `alloc`.
///
/// ```
/// use shaped::quant::{Activation, DynPerAxis, DynQMatMulPerChannel, Quant, Rounding};
/// use shaped::DynTensor;
/// let (scales, zeros) = (vec![0.5f32, 0.25], vec![0, 0]);
/// let w_params = DynPerAxis::new(&scales, &zeros)?;
/// let q = Quant::<i8>::new(1.0, 0)?;
/// let op = DynQMatMulPerChannel::new(q, w_params, q, Activation::None, Rounding::Double)?;
/// let x = DynTensor::from_shape_vec([1, 2], vec![2i8, -4]).unwrap().quantized(q);
/// let w = DynTensor::from_shape_vec([2, 2], vec![4i8, 2, 4, -2])
///     .unwrap()
///     .try_quantized_per_axis(0, w_params)?;
/// // Column 0: (8 - 8) * 0.5 = 0; column 1: (8 + 8) * 0.25 = 4.
/// assert_eq!(op.fully_connected_dyn(&x, &w, None)?.values().as_slice(), &[0, 4]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, PartialEq)]
pub struct DynQMatMulPerChannel<'p, E> {
    frame: Frame<E>,
    weights: DynPerAxis<'p, E>,
    out: alloc::vec::Vec<Requant>,
}

#[cfg(feature = "alloc")]
impl<'p, E: QuantElement> DynQMatMulPerChannel<'p, E> {
    /// As [`QMatMulPerChannel::new`], for any number of channels: an error value when a
    /// weight zero point is not 0, a multiplier or an activation bound cannot be represented,
    /// or the allocator refuses the multipliers' room.
    pub fn new(
        a: Quant<E>,
        b: DynPerAxis<'p, E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let mut requants = alloc::vec::Vec::new();
        if requants.try_reserve_exact(b.len()).is_err() {
            let kind = crate::error::ErrorKind::OutOfMemory {
                bytes: b.len().saturating_mul(core::mem::size_of::<Requant>()),
            };
            return Err(Error::new(
                kind,
                crate::error::Operation::Quantize,
                &[b.len()],
                &[],
            ));
        }
        for (j, (&scale, &zero)) in b.scales().iter().zip(b.zero_points()).enumerate() {
            if zero != 0 {
                return Err(quant_error(QuantProblem::WeightZeroPoint {
                    channel: j,
                    zero_point: zero,
                }));
            }
            let real = a.scale() as f64 * scale as f64 / out.scale() as f64;
            requants.push(Requant::new(real, rounding, false)?);
        }
        Ok(DynQMatMulPerChannel {
            frame: Frame::new(a, a, out, activation, rounding)?,
            weights: b,
            out: requants,
        })
    }

    /// The input's parameters and the weights' it was prepared for; a run refuses others.
    #[inline]
    pub fn inputs(&self) -> (Quant<E>, DynPerAxis<'p, E>) {
        (self.frame.inputs.0, self.weights)
    }

    /// The output's parameters.
    #[inline]
    pub fn output(&self) -> Quant<E> {
        self.frame.output
    }
}

#[cfg(feature = "alloc")]
impl<E: QuantElement> ProductRequant<E> for DynQMatMulPerChannel<'_, E> {
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
        // `j` is below the channel count: the callers checked the output columns against it.
        self.out.get(j).copied().unwrap_or(Requant::ZERO)
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

impl<E: QuantElement, const N: usize> ProductRequant<E> for ChannelRequants<E, N> {
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

/// Multiply-adds from which a product runs its loops compiled for AVX2, where the CPU has it.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
const WIDE_MIN: usize = 1 << 12;

/// The product into `out` (row-major, every element written), each sum from `bias[j]` (or 0)
/// and its terms in `k` order, wrapping in 32 bits (Q17). Large products run the same loops
/// compiled for AVX2 where the CPU has it (feature `std`): eight 32-bit lanes where the
/// baseline has four and no 32-bit multiply.
pub(crate) fn product_into<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    out: &mut [E],
) {
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    if is_wide(&walk) && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just now.
        return unsafe { product_avx2(op, walk, a, b, bias, out) };
    }
    product_here(op, walk, a, b, bias, out)
}

/// [`product_into`] inlined into its caller, for a walk that is a compile-time constant (a
/// product of static shapes): the batch loop and the choice among the three loop nests fold,
/// so only the one that runs is compiled. A Cortex-M4 firmware's int8 fully connected layer
/// `[1, 8] x [16, 8]^T` at opt-level "s" without LTO: 4,200 bytes of `.text` through the
/// shared kernel, against the hand loops' 168 (`qemu-tests/code_size.sh`). Large products
/// still go through [`product_into`], for its AVX2 copy.
#[inline(always)]
pub(crate) fn product_fixed<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    out: &mut [E],
) {
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    if is_wide(&walk) {
        return product_into(op, walk, a, b, bias, out);
    }
    product_here(op, walk, a, b, bias, out)
}

/// Whether a product has the [`WIDE_MIN`] multiply-adds from which it may run its AVX2 copy.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[inline(always)]
fn is_wide(walk: &Walk<'_>) -> bool {
    walk.m.saturating_mul(walk.n).saturating_mul(walk.k) >= WIDE_MIN
}

/// [`product_here`] compiled for AVX2 (everything under it is `#[inline(always)]`).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn product_avx2<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    out: &mut [E],
) {
    product_here(op, walk, a, b, bias, out)
}

/// The loops of [`product_into`], compiled for the build's own target.
///
/// The walk was checked against the slices' lengths when the layout was made, so every index
/// below is in bounds; each read is still a checked `get` (the cost of a bounds check), but a
/// failed one returns instead of panicking, since a panic's message would link `core::fmt`
/// (about 7 KB of a Cortex-M firmware's 8 KB without LTO, `qemu-tests/code_size.sh`).
#[inline(always)]
fn product_here<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    out: &mut [E],
) {
    let block = walk.m * walk.n;
    if block == 0 {
        return;
    }
    for (position, c) in out.chunks_exact_mut(block).enumerate() {
        // The batch's multi-index, last axis fastest. (Indices, not iterator adapters: at
        // opt-level "s" without LTO, `Zip::new` stayed a call, and a constant walk no longer
        // folded.)
        let (mut a0, mut b0, mut flat) = (0, 0, position);
        for axis in (0..walk.batch.len()).rev() {
            let (Some(&d), Some(&a_step), Some(&b_step)) = (
                walk.batch.get(axis),
                walk.a_batch.get(axis),
                walk.b_batch.get(axis),
            ) else {
                return;
            };
            let (Some(at), Some(rest)) = (flat.checked_rem(d), flat.checked_div(d)) else {
                return;
            };
            flat = rest;
            a0 += at * a_step;
            b0 += at * b_step;
        }
        let at = [a0, b0];
        if walk.b_col == 1 && walk.n > 1 {
            row_passes(op, walk, at, a, b, bias, c);
        } else if walk.a_col == 1 && walk.b_row == 1 {
            dot_products(op, walk, at, a, b, bias, c);
        } else {
            strided(op, walk, at, a, b, bias, c);
        }
    }
}

/// Columns summed at a time by [`row_passes`], in a local array on the stack.
#[cfg(target_pointer_width = "64")]
const PASS: usize = 64;
/// Columns summed at a time by [`row_passes`]: fewer on 32-bit targets, whose stacks are small
/// (a Cortex-M4 sine model firmware's stack: 892 bytes with 64, 700 with 16, `qemu-tests/model_size.sh`).
#[cfg(not(target_pointer_width = "64"))]
const PASS: usize = 16;

/// One batch's product when the rows of `b` are contiguous (`b` stored `[k, n]`): for each
/// row of `a` and block of [`PASS`] columns, the sums `acc[j] += (a_ik - za) (b_kj - zb)` run
/// along `j` over contiguous memory, which LLVM vectorizes; each sum still adds its terms in
/// `k` order from the bias. (Splitting off the zero points so that the inner loop multiplies
/// 16-bit values was tried: 15.1 against 16.8 Gelem/s on `[64, 64, 64] x [64, 64]` with AVX2,
/// no gain with SSE2 alone; not kept.) Reads as [`product_here`] says.
#[inline(always)]
fn row_passes<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    [a0, b0]: [usize; 2],
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    c: &mut [E],
) {
    let Walk { m, k, n, .. } = walk;
    let f = op.frame();
    let (a_offset, b_offset) = (f.a_offset, op.b_offset());
    let mut acc = [0i32; PASS];
    let mut j0 = 0;
    while j0 < n {
        let width = PASS.min(n - j0);
        for i in 0..m {
            let sums = &mut acc[..width];
            match bias.map(|bias| bias.get(j0..j0 + width)) {
                Some(Some(start)) => {
                    for (s, &v) in sums.iter_mut().zip(start) {
                        *s = v;
                    }
                }
                Some(None) => return,
                None => sums.fill(0),
            }
            let ai = a0 + i * walk.a_row;
            for kk in 0..k {
                let start = b0 + kk * walk.b_row + j0;
                let (Some(&x), Some(row)) =
                    (a.get(ai + kk * walk.a_col), b.get(start..start + width))
                else {
                    return;
                };
                let x = x.to_i32() + a_offset;
                for (s, &y) in sums.iter_mut().zip(row) {
                    *s = s.wrapping_add(x * (y.to_i32() + b_offset));
                }
            }
            let Some(out) = c.get_mut(i * n + j0..i * n + j0 + width) else {
                return;
            };
            for (j, (o, &s)) in out.iter_mut().zip(sums.iter()).enumerate() {
                *o = f.finish(op.column(j0 + j).apply(s, f.rounding));
            }
        }
        j0 += width;
    }
}

/// One batch's product when each row of `a` and each column of `b` is contiguous along `k`
/// (TFLM's `FULLY_CONNECTED`: `b` is the transpose of weights stored `[n, k]`): dot products
/// of two contiguous runs, which LLVM vectorizes as a reduction. Reads as [`product_here`]
/// says.
#[inline(always)]
fn dot_products<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    [a0, b0]: [usize; 2],
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    c: &mut [E],
) {
    let Walk { m, k, n, .. } = walk;
    let f = op.frame();
    let (a_offset, b_offset) = (f.a_offset, op.b_offset());
    for i in 0..m {
        let ai = a0 + i * walk.a_row;
        let (Some(x), Some(row)) = (a.get(ai..ai + k), c.get_mut(i * n..i * n + n)) else {
            return;
        };
        for (j, o) in row.iter_mut().enumerate() {
            let bj = b0 + j * walk.b_col;
            let (Some(y), Some(start)) = (b.get(bj..bj + k), start_of(bias, j)) else {
                return;
            };
            // Indices, not `zip`: at opt-level "s" without LTO, `Zip::new` stayed a call in
            // some builds (the int8 dense firmware's kernel grew from 184 to 304 bytes).
            let mut acc = start;
            for kk in 0..k {
                if let (Some(&p), Some(&q)) = (x.get(kk), y.get(kk)) {
                    acc = acc.wrapping_add((p.to_i32() + a_offset) * (q.to_i32() + b_offset));
                }
            }
            *o = f.finish(op.column(j).apply(acc, f.rounding));
        }
    }
}

/// Where column `j`'s sum starts: its bias, or 0 without one; `None` past the bias's end.
#[inline(always)]
fn start_of(bias: Option<&[i32]>, j: usize) -> Option<i32> {
    match bias {
        Some(bias) => bias.get(j).copied(),
        None => Some(0),
    }
}

/// One batch's product over any strides. Reads as [`product_here`] says.
#[inline(always)]
fn strided<E: QuantElement>(
    op: &impl ProductRequant<E>,
    walk: Walk<'_>,
    [a0, b0]: [usize; 2],
    a: &[E],
    b: &[E],
    bias: Option<&[i32]>,
    c: &mut [E],
) {
    let Walk { m, k, n, .. } = walk;
    let f = op.frame();
    let (a_offset, b_offset) = (f.a_offset, op.b_offset());
    for i in 0..m {
        let ai = a0 + i * walk.a_row;
        let Some(row) = c.get_mut(i * n..i * n + n) else {
            return;
        };
        for (j, o) in row.iter_mut().enumerate() {
            let bj = b0 + j * walk.b_col;
            let Some(mut acc) = start_of(bias, j) else {
                return;
            };
            for kk in 0..k {
                let (Some(&x), Some(&y)) =
                    (a.get(ai + kk * walk.a_col), b.get(bj + kk * walk.b_row))
                else {
                    return;
                };
                acc = acc.wrapping_add((x.to_i32() + a_offset) * (y.to_i32() + b_offset));
            }
            *o = f.finish(op.column(j).apply(acc, f.rounding));
        }
    }
}

/// Whether a dense layer of `work` multiply-adds runs through [`product_into`], for its
/// copy compiled for AVX2 (x86 with `std`, where the CPU has it): a `[16, 64] x [64, 64]`
/// int8 layer took 14.6 us in [`dense_rows`]' loop nest against 6.3 us there
/// (`benches/layers.rs`). Elsewhere the one loop nest of [`dense_rows`] is the fastest and
/// the smallest.
pub(crate) const fn dense_is_wide(work: usize) -> bool {
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    {
        work >= WIDE_MIN
    }
    #[cfg(not(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64"))))]
    {
        let _ = work;
        false
    }
}

/// A dense layer's rows through [`product_into`] (`x` is `rows` rows of `IN`, the weights
/// `[OUT, IN]` the transpose of the product's right operand): the same integers as
/// [`dense_rows`], every element of `out` written.
pub(crate) fn dense_wide<E: QuantElement, const IN: usize, const OUT: usize>(
    op: &impl ProductRequant<E>,
    x: &[E],
    w: &[[E; IN]; OUT],
    bias: Option<&[i32; OUT]>,
    out: &mut [E],
) {
    let walk = Walk {
        m: x.len().checked_div(IN).unwrap_or(0),
        k: IN,
        n: OUT,
        batch: &[],
        a_batch: &[],
        b_batch: &[],
        a_row: IN,
        a_col: 1,
        b_row: 1,
        b_col: IN,
    };
    product_into(op, walk, x, w.as_flattened(), bias.map(|b| &b[..]), out)
}

/// A dense layer's rows (Q19): each row of `OUT` outputs from its row of `IN` inputs and the
/// weights `[out, in]`, each sum from `bias[j]` (or 0) with its terms in `k` order (Q17), then
/// requantized by column. `out` holds as many rows as `x`. One loop nest, its sizes constants:
/// what a hand-written kernel of the same arithmetic is, so a small layer on a microcontroller
/// takes that loop's code.
#[inline(always)]
pub(crate) fn dense_rows<E: QuantElement, O: Slot<E>, const IN: usize, const OUT: usize>(
    op: &impl ProductRequant<E>,
    x: &[E],
    w: &[[E; IN]; OUT],
    bias: Option<&[i32; OUT]>,
    out: &mut [O],
) {
    let f = op.frame();
    let (a_offset, b_offset) = (f.a_offset, op.b_offset());
    for_rows(x, out, |x: &[E; IN], y: &mut [O; OUT]| {
        for j in 0..OUT {
            let start = match bias {
                Some(bias) => bias[j],
                None => 0,
            };
            // Indices, not `zip`, as in `dot_products`.
            let mut acc = start;
            for kk in 0..IN {
                acc =
                    acc.wrapping_add((x[kk].to_i32() + a_offset) * (w[j][kk].to_i32() + b_offset));
            }
            y[j].set(f.finish(op.column(j).apply(acc, f.rounding)));
        }
    });
}

/// The error of per-channel weights that are not the ones a product was prepared for (Q18):
/// other parameters than `prepared` (the input's, the weights'), weights not quantized along
/// their output axis (`rank - 2`: axis 0 of `[out, in]` weights), or another number of
/// indices along it than there are parameters. Inlined: as a call, the Cortex-M4 residual
/// network's firmware at opt-level "s" took 420 bytes of stack instead of 176
/// (`qemu-tests/model_size.sh`).
#[inline(always)]
pub(crate) fn check_per_channel<E: QuantElement>(
    prepared: (Quant<E>, DynPerAxis<'_, E>),
    x: Quant<E>,
    w: DynPerAxis<'_, E>,
    w_axis: usize,
    w_dims: &[usize],
) -> Result<(), Error> {
    // The same tables (the usual case: one `static` of parameters) need no comparison: the
    // residual network of `examples/` took 5720 instructions per inference at opt-level "s"
    // comparing them value by value, 4640 with this (`qemu-tests/icount.sh`).
    let same_tables = core::ptr::eq(prepared.1.scales(), w.scales())
        && core::ptr::eq(prepared.1.zero_points(), w.zero_points());
    let same = prepared.0 == x
        && (same_tables
            || prepared.1.scales() == w.scales() && prepared.1.zero_points() == w.zero_points());
    let along_output = w_axis + 2 == w_dims.len() && w_dims.get(w_axis) == Some(&w.len());
    if same && along_output {
        Ok(())
    } else {
        Err(quant_error(QuantProblem::NotPrepared))
    }
}

/// The error of a bias whose length is not the output's column count (Q17).
///
/// Inlined, so that a bias of constant length against a static product's constant column
/// count folds, and with it the error value: out of line, the check kept the error's
/// construction, which links `memcpy` and `memclr` (1,390 bytes of a Cortex-M4 firmware's
/// `.text` without LTO, `qemu-tests/code_size.sh`).
#[inline(always)]
pub(crate) fn check_bias(bias: Option<&[i32]>, n: usize) -> Result<(), Error> {
    match bias {
        Some(b) if b.len() != n => Err(bias_error(b.len(), n)),
        _ => Ok(()),
    }
}

/// [`check_bias`]'s error, out of its inlined body.
#[cold]
#[inline(never)]
fn bias_error(bias: usize, columns: usize) -> Error {
    quant_error(QuantProblem::BiasLength { bias, columns })
}

#[cfg(test)]
mod tests {
    /// The AVX2 copy of the product loops (where the CPU has it; otherwise the baseline copy)
    /// against the strided loops, which every product below the threshold of
    /// [`WIDE_MIN`](super::WIDE_MIN) multiply-adds takes: row passes, dot products and a
    /// broadcast batch, per-tensor and per-channel, with and without a bias. Small enough for
    /// Miri, which CI runs in a build that enables AVX2.
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[test]
    fn avx2_loops_write_what_the_strided_loops_write() {
        use super::{product_into, strided, QMatMul, QMatMulPerChannel, Walk};
        use crate::quant::{Activation, PerAxis, Quant, Rounding};
        let (m, k, n) = (16, 20, 18); // 5760 multiply-adds: over the threshold
        let value = |i: usize| ((i * 73 + 11) % 256) as i32 as i8;
        let a: std::vec::Vec<i8> = (0..2 * m * k).map(value).collect();
        let b: std::vec::Vec<i8> = (0..k * n).map(|i| value(i * 7 + 3)).collect();
        let bias: std::vec::Vec<i32> = (0..n as i32).map(|j| j * 977 - 9000).collect();
        let q = |s, z| Quant::<i8>::new(s, z).unwrap();
        let plain = QMatMul::new(
            q(0.02, -3),
            q(0.01, 5),
            q(0.3, 7),
            Activation::Relu,
            Rounding::Double,
        )
        .unwrap();
        let scales: [f32; 18] = core::array::from_fn(|j| 0.001 * (j + 1) as f32);
        let zeros = [0i32; 18];
        let per = QMatMulPerChannel::new(
            q(0.02, -3),
            PerAxis::new(&scales, &zeros).unwrap(),
            q(0.3, 7),
            Activation::None,
            Rounding::Double,
        )
        .unwrap();
        // a: 2 batches of [m, k]; b shared: [k, n] row-major (row passes) or its transpose
        // read as [n, k] (dot products).
        let batch = [2usize];
        let rows = Walk {
            m,
            k,
            n,
            batch: &batch,
            a_batch: &[m * k],
            b_batch: &[0],
            a_row: k,
            a_col: 1,
            b_row: n,
            b_col: 1,
        };
        let dots = Walk {
            b_row: 1,
            b_col: k,
            ..rows
        };
        for walk in [rows, dots] {
            for with_bias in [None, Some(&bias[..])] {
                let (mut wide, mut want) = ([0i8; 2 * 16 * 18], [0i8; 2 * 16 * 18]);
                product_into(&plain, walk, &a, &b, with_bias, &mut wide);
                for (t, c) in want.chunks_exact_mut(m * n).enumerate() {
                    strided(&plain, walk, [t * m * k, 0], &a, &b, with_bias, c);
                }
                assert_eq!(wide, want);
                product_into(per.requants(), walk, &a, &b, with_bias, &mut wide);
                for (t, c) in want.chunks_exact_mut(m * n).enumerate() {
                    strided(per.requants(), walk, [t * m * k, 0], &a, &b, with_bias, c);
                }
                assert_eq!(wide, want);
                assert!(want.iter().any(|&v| v != 0 && v != want[0]));
            }
        }
    }
}
