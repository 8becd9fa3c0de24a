//! [`QDense`] and [`QDensePerChannel`]: TFLM's int8 `FULLY_CONNECTED` as a layer (Q19), the
//! weights, bias and parameters bound once.

use super::{check_output, output, output_filled, DenseShape};
use crate::error::{Error, QuantProblem};
use crate::quant::elementwise::static_count;
use crate::quant::matmul::{dense_is_wide, dense_rows, dense_wide, ChannelRequants};
use crate::quant::params::quant_error;
use crate::quant::{QMatMul, QMatMulPerChannel, Quant, QuantElement, Quantized};
use crate::tensor::{Storable, Stored, Tensor};
use crate::typed::shape::Shape;
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Data, DataMut};

/// The result of a quantized layer with `OUT` outputs on `Tensor<E, S, D>`.
pub type QDenseOutput<E, S, D, const IN: usize, const OUT: usize> =
    Quantized<Stored<<D as Data<E>>::Family, E, <S as DenseShape<IN>>::Output<OUT>>, E>;

/// The error of an input quantized otherwise than the layer's input (Q19).
#[inline(always)]
fn check_input<E: QuantElement>(prepared: Quant<E>, x: Quant<E>) -> Result<(), Error> {
    if prepared == x {
        Ok(())
    } else {
        Err(quant_error(QuantProblem::NotPrepared))
    }
}

/// Whether a layer on an input of `x_len` elements of shape `S` runs the shared product
/// kernel ([`dense_is_wide`]): a constant for static shapes.
#[inline(always)]
fn wide<S: Shape, const IN: usize, const OUT: usize>(x_len: usize) -> bool {
    match const { static_count(S::STATIC_DIMS) } {
        Some(_) => const { wide_count(static_count(S::STATIC_DIMS), OUT) },
        None => IN > 0 && dense_is_wide(x_len.saturating_mul(OUT)),
    }
}

/// [`wide`] for a static input of `count` elements.
const fn wide_count(count: Option<usize>, out: usize) -> bool {
    match count {
        Some(n) => n > 0 && dense_is_wide(n.saturating_mul(out)),
        None => false,
    }
}

/// The layer's two forms, shared by both weight kinds.
macro_rules! forward_methods {
    () => {
        /// The layer on `x` (`[..., IN]`, quantized by [`input`](Self::input)) into a new
        /// tensor `[..., OUT]` quantized by [`output`](Self::output) (Q19): on the stack for
        /// static shapes. An error value when `x` carries other parameters.
        #[inline]
        pub fn forward<S, D>(
            &self,
            x: &Quantized<Tensor<E, S, D>, E>,
        ) -> Result<QDenseOutput<E, S, D, IN, OUT>, Error>
        where
            S: DenseShape<IN>,
            D: Data<E>,
            S::Output<OUT>: Storable,
        {
            fits_inline!(Stored<<D as Data<E>>::Family, E, <S as DenseShape<IN>>::Output<OUT>>);
            check_input(self.input(), x.quant())?;
            let x = x.values();
            let y = if wide::<S, IN, OUT>(x.len()) {
                output_filled::<E, E, S, D, IN, OUT>(x, E::saturate(0), |x, out| {
                    dense_wide(&self.op, x, self.weights, self.bias, out)
                })
            } else {
                output::<E, E, S, D, IN, OUT>(x, |x, out| {
                    dense_rows(&self.op, x, self.weights, self.bias, out)
                })
            };
            Ok(Quantized::new(y, self.output()))
        }

        /// [`forward`](Self::forward) into `out` (quantized by [`output`](Self::output)),
        /// without an allocator. An error value when `x` carries other parameters, or a
        /// runtime leading dim of `out` differs from `x`'s.
        #[inline]
        pub fn forward_into<S, D, O>(
            &self,
            x: &Quantized<Tensor<E, S, D>, E>,
            out: &mut Tensor<E, S::Output<OUT>, O>,
        ) -> Result<(), Error>
        where
            S: DenseShape<IN>,
            D: Data<E>,
            O: DataMut<E>,
        {
            check_input(self.input(), x.quant())?;
            check_output::<E, E, S, D, O, IN, OUT>(x.values(), out)?;
            let (x, out) = (x.values().as_slice(), out.as_mut_slice());
            if wide::<S, IN, OUT>(x.len()) {
                dense_wide(&self.op, x, self.weights, self.bias, out)
            } else {
                dense_rows(&self.op, x, self.weights, self.bias, out)
            }
            Ok(())
        }

        /// The parameters an input must carry.
        #[inline(always)]
        pub const fn input(&self) -> Quant<E> {
            self.op.inputs().0
        }

        /// The output's parameters.
        #[inline(always)]
        pub const fn output(&self) -> Quant<E> {
            self.op.output()
        }

        /// The weights, `[out, in]`.
        #[inline(always)]
        pub const fn weights(&self) -> &'w [[E; IN]; OUT] {
            self.weights
        }

        /// The bias, if any.
        #[inline(always)]
        pub const fn bias(&self) -> Option<&'w [i32; OUT]> {
            self.bias
        }
    };
}

/// TFLM's int8 `FULLY_CONNECTED` with per-tensor weights as a layer (Q19): a prepared
/// [`QMatMul`] (parameters, multiplier, fused activation clamp), the weights `[out, in]` as
/// TFLM stores them and the optional `i32` bias, bound once. Each output is Q17's, the same
/// integers as [`QMatMul::fully_connected`], in one loop nest whose sizes are constants: a
/// small layer on a microcontroller takes the code of a hand-fused loop.
///
/// The weights are read as quantized by the product's weight parameters; the input's
/// parameters are checked on each call (for a `const` layer fed by another `const` layer the
/// check is a comparison of constants, and folds away).
///
/// ```
/// use shaped::layer::QDense;
/// use shaped::quant::{Activation, QMatMul, Quant, Rounding};
/// use shaped::{Shape, Tensor};
/// static W: [[i8; 2]; 3] = [[4, 0], [0, 4], [4, 4]];
/// const LAYER: QDense<'static, i8, 2, 3> = QDense::new(
///     match QMatMul::new(
///         Quant::new_const(0.5, 1),
///         Quant::new_const(0.25, 0),
///         Quant::new_const(0.125, -3),
///         Activation::None,
///         Rounding::Double,
///     ) {
///         Ok(op) => op,
///         Err(_) => panic!("valid parameters"),
///     },
///     &W,
///     None,
/// );
/// let x = Tensor::<i8, Shape![1, 2]>::from([[3, 5]]).quantized(LAYER.input()); // [1, 2]
/// let y = LAYER.forward(&x)?;
/// assert_eq!(y.values().as_slice(), &[5, 13, 21]); // [1, 2, 3]
/// let other = Tensor::<i8, Shape![1, 2]>::from([[3, 5]]).quantized(Quant::new(0.5, 0)?);
/// assert_eq!(
///     LAYER.forward(&other).unwrap_err().to_string(),
///     "invalid quantization: the operands' scales or zero points are not the ones the \
///      operation was prepared for (Q1)"
/// );
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QDense<'w, E, const IN: usize, const OUT: usize> {
    op: QMatMul<E>,
    weights: &'w [[E; IN]; OUT],
    bias: Option<&'w [i32; OUT]>,
}

impl<'w, E: QuantElement, const IN: usize, const OUT: usize> QDense<'w, E, IN, OUT> {
    /// The layer of the prepared product `op` with weights `[out, in]` (quantized by
    /// `op.inputs().1`) and an optional bias (at scale `sa sb`, zero point 0).
    #[inline(always)]
    pub const fn new(
        op: QMatMul<E>,
        weights: &'w [[E; IN]; OUT],
        bias: Option<&'w [i32; OUT]>,
    ) -> Self {
        QDense { op, weights, bias }
    }

    /// The prepared product.
    #[inline(always)]
    pub const fn op(&self) -> &QMatMul<E> {
        &self.op
    }

    forward_methods!();
}

/// TFLM's int8 `FULLY_CONNECTED` with per-channel weights as a layer (Q19): a prepared
/// [`QMatMulPerChannel`] (one multiplier per output, the `OUT` scales checked at compile
/// time), the weights `[out, in]` and the optional bias, bound once. The same integers as
/// [`QMatMulPerChannel::fully_connected`].
///
/// The layer keeps the product's multipliers (5 bytes a channel), not the references to the
/// weights' scales and zero points it was prepared from, which would keep those arrays in a
/// firmware's flash too (MLPerf Tiny's anomaly detection autoencoder, 1,672 channels:
/// 292,624 -> 282,752 bytes, `qemu-tests/README.md`).
///
/// ```
/// use shaped::layer::QDensePerChannel;
/// use shaped::quant::{Activation, PerAxis, QMatMulPerChannel, Quant, Rounding};
/// use shaped::{Shape, Tensor};
/// static W: [[i8; 2]; 2] = [[4, 2], [4, -2]];
/// static SCALES: [f32; 2] = [0.5, 0.25];
/// static ZEROS: [i32; 2] = [0, 0];
/// let op = QMatMulPerChannel::new(
///     Quant::<i8>::new(1.0, 0)?,
///     PerAxis::new(&SCALES, &ZEROS)?,
///     Quant::new(1.0, 0)?,
///     Activation::Relu,
///     Rounding::Double,
/// )?;
/// let layer = QDensePerChannel::new(op, &W, Some(&[0, 0]));
/// let x = Tensor::<i8, Shape![2]>::from([2, -4]).quantized(layer.input());
/// // Output 0: (8 - 8) * 0.5 = 0; output 1: (8 + 8) * 0.25 = 4.
/// assert_eq!(layer.forward(&x)?.values().as_slice(), &[0, 4]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QDensePerChannel<'w, E, const IN: usize, const OUT: usize> {
    op: ChannelRequants<E, OUT>,
    weights: &'w [[E; IN]; OUT],
    bias: Option<&'w [i32; OUT]>,
}

impl<'w, E: QuantElement, const IN: usize, const OUT: usize> QDensePerChannel<'w, E, IN, OUT> {
    /// The layer of the prepared per-channel product `op` with weights `[out, in]`
    /// (quantized by `op.inputs().1`, one scale per output) and an optional bias. The layer
    /// keeps `op`'s multipliers, so `op` may borrow its scales for less long than `'w`.
    #[inline(always)]
    pub const fn new(
        op: QMatMulPerChannel<'_, E, OUT>,
        weights: &'w [[E; IN]; OUT],
        bias: Option<&'w [i32; OUT]>,
    ) -> Self {
        QDensePerChannel {
            op: *op.requants(),
            weights,
            bias,
        }
    }

    forward_methods!();
}
