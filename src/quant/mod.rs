//! Quantized tensors: 8-bit elements with a scale and a zero point, and the arithmetic of
//! TensorFlow Lite Micro on them, bit for bit (rules Q1-Q25 of `RULES.md`).
//!
//! A quantized tensor is [`Quantized`]: any tensor of `i8` or `u8` (static, mixed, a view,
//! a `DynTensor`) with its [`Quant`] parameters. Its operations follow TFLM's integer
//! contract exactly:
//!
//! * the parameters (Q1) and the rounding mode (Q2: TFLM's default double rounding, or its
//!   `TFLITE_SINGLE_ROUNDING` build);
//! * the derivation of each multiplier from the `f32` scales (Q3, [`multiplier`]);
//! * every integer step, ties included (Q4-Q6, [`fixedpoint`]);
//! * the fused activation's bounds (Q7, [`Activation`]);
//! * add, multiply and subtract (Q8, Q9, Q11: [`QAdd`], [`QMul`], [`QSub`]), comparisons
//!   (Q12, [`QCompare`]), maximum and minimum (Q13, [`QExtreme`]) and requantization (Q14,
//!   [`QRequant`]), each prepared once per set of parameters;
//! * matrix products, TFLM's `FULLY_CONNECTED` and `BATCH_MATMUL` (Q17, [`QMatMul`]), with
//!   per-channel weights (Q18, [`QMatMulPerChannel`]);
//! * quantize and dequantize (Q10), also per axis ([`PerAxis`], [`DynPerAxis`],
//!   [`QuantizedPerAxis`]: one scale and zero point per index of an axis, its length checked
//!   at compile time for an axis of static size, Q16);
//! * TFLM's int8 `SOFTMAX`, `LOGISTIC` and `TANH` (Q20-Q22: [`QSoftmax`], [`QLogistic`],
//!   [`QTanh`], gemmlowp's fixed-point functions in [`fixedpoint`]), `MEAN` over height and
//!   width (Q23, [`QMean`]), and `PAD`/`PADV2` and `CONCATENATION` (Q24, Q25), which copy
//!   bytes: methods of the quantized tensors.
//!
//! The binary primitive also takes 8-bit sources and destinations
//! ([`Binary::run_mixed_into`](crate::primitive::Binary::run_mixed_into)), under oneDNN's
//! contract instead (Q15): scales, `f32` arithmetic and post-ops, one rounding half to even at
//! the store.
//!
//! Broadcasting is the crate's: NUMPY on static shapes, checked at compile time, and on mixed
//! ones; all four modes on `DynTensor`. The elementwise function does not depend on the rank,
//! so a broadcast of any rank gives TFLM's bytes (TFLM itself stops at rank 6 for add, 4 for
//! mul).
//!
//! ```
//! use shaped::quant::{Activation, Quant};
//! use shaped::{Shape, Tensor};
//! let qa = Quant::<i8>::new(0.02, -5)?;
//! let qb = Quant::new(0.03, 7)?;
//! let qo = Quant::new(0.05, 3)?;
//! let a = Tensor::<i8, Shape![8, 16, 4, 4]>::splat(100).quantized(qa);
//! let b = Tensor::<i8, Shape![16, 1, 1]>::splat(-100).quantized(qb);
//! let c = a.add(&b, qo, Activation::Relu)?;
//! assert_eq!(c.values().shape(), [8, 16, 4, 4]);
//! assert_eq!(c.values()[[7, 15, 3, 3]], 3); // -1.11 clamped at 0.0 by the ReLU
//! # Ok::<(), shaped::Error>(())
//! ```

pub(crate) mod activation;
mod convert;
pub mod elementwise;
pub mod fixedpoint;
pub(crate) mod matmul;
pub(crate) mod mean;
pub mod multiplier;
pub(crate) mod params;
pub(crate) mod per_axis;
mod quantized;

pub use activation::{QLogistic, QSoftmax, QTanh};
pub use convert::{dequantize_value, quantize_value, saturate_round_half_even};
pub use elementwise::{QAdd, QAddSub, QCompare, QExtreme, QMul, QRequant, QSub};
#[cfg(feature = "alloc")]
pub use matmul::DynQMatMulPerChannel;
pub use matmul::{QMatMul, QMatMulPerChannel};
pub use mean::QMean;
pub use params::{Activation, Quant, QuantElement, Rounding};
pub use per_axis::{AxisParams, DynPerAxis, PerAxis, QuantizedPerAxis};
pub use quantized::Quantized;
