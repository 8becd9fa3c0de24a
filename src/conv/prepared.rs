//! Prepared int8 convolutions (rule K7): the input's and output's parameters, the weights'
//! per-channel scales, the activation and the rounding, with every channel's multiplier
//! derived once (in `const` context when the parameters are constants).

use super::quantized::{channel_multipliers, ConvFrame};
use crate::error::{Error, QuantProblem};
use crate::quant::elementwise::Requant;
use crate::quant::params::quant_error;
#[cfg(feature = "alloc")]
use crate::quant::DynPerAxis;
use crate::quant::{Activation, PerAxis, Quant, Rounding};

/// A prepared int8 convolution with `N` output channels (K7): TFLM's `CONV_2D` and
/// `DEPTHWISE_CONV_2D` with per-channel weights. The input is quantized per tensor by
/// `input`, the weights per output channel by `weights` (every zero point 0, as TFLM's
/// per-channel kernels read none), the output by `output`; channel `j`'s multiplier
/// `input_scale * weight_scale[j] / output_scale` is derived once (Q3), and the fused
/// activation clamps the output (Q7).
///
/// ```
/// use shaped::conv::QConv2d;
/// use shaped::quant::{Activation, PerAxis, Quant, Rounding};
/// static SCALES: [f32; 2] = [0.5, 0.25];
/// static ZEROS: [i32; 2] = [0, 0];
/// const OP: QConv2d<'static, 2> = match QConv2d::new(
///     Quant::new_const(0.5, -1),
///     PerAxis::new_const(&SCALES, &ZEROS),
///     Quant::new_const(0.25, 3),
///     Activation::Relu6,
///     Rounding::Double,
/// ) {
///     Ok(op) => op,
///     Err(_) => panic!("valid parameters"),
/// };
/// assert_eq!(OP.output().zero_point(), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QConv2d<'p, const N: usize> {
    frame: ConvFrame,
    input: Quant<i8>,
    weights: PerAxis<'p, i8, N>,
    output: Quant<i8>,
    requant: [Requant; N],
}

impl<'p, const N: usize> QConv2d<'p, N> {
    /// The convolution of an input quantized by `input` with weights quantized by `weights`
    /// (one scale per output channel, zero points 0) into `output`, clamped by `activation`:
    /// an error value when a weight zero point is not 0, or a multiplier or an activation
    /// bound cannot be represented.
    pub const fn new(
        input: Quant<i8>,
        weights: PerAxis<'p, i8, N>,
        output: Quant<i8>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let mut requant = [Requant::ZERO; N];
        if let Err(e) = channel_multipliers(
            input,
            weights.scales(),
            weights.zero_points(),
            output,
            rounding,
            &mut requant,
        ) {
            return Err(e);
        }
        match ConvFrame::new(input, output, activation, rounding) {
            Ok(frame) => Ok(QConv2d {
                frame,
                input,
                weights,
                output,
                requant,
            }),
            Err(e) => Err(e),
        }
    }

    /// The input's parameters it was prepared for.
    pub const fn input(&self) -> Quant<i8> {
        self.input
    }

    /// The weights' parameters it was prepared for.
    pub const fn weights(&self) -> PerAxis<'p, i8, N> {
        self.weights
    }

    /// The output's parameters.
    pub const fn output(&self) -> Quant<i8> {
        self.output
    }

    /// What the kernels read: the frame and the multipliers (the `_into` forms check no
    /// operand parameters, so they pass on nothing else).
    pub(crate) fn kernel_parts(&self) -> (&ConvFrame, &[Requant]) {
        (&self.frame, &self.requant)
    }

    pub(crate) fn parts(&self) -> Parts<'_> {
        Parts {
            frame: &self.frame,
            requant: &self.requant,
            input: self.input,
            scales: self.weights.scales(),
            zero_points: self.weights.zero_points(),
        }
    }
}

/// What a prepared int8 convolution runs with, without the weights' parameters it was prepared
/// from: the input's and output's parameters, the frame (offsets, clamp, rounding) and one
/// multiplier per output channel (K7). [`QConv2d::kernel`] makes it, in `const` context
/// too; it holds no reference, so a model kept in flash carries neither the weights' scales
/// nor their zero points (in person detection, 2,738 channels: 21.9 kB). Its `_into` forms
/// are [`QConv2d`]'s.
///
/// ```
/// use shaped::conv::{QConv2d, QConvKernel, SAME};
/// use shaped::quant::{Activation, PerAxis, Quant, Rounding};
/// use shaped::{Shape, Tensor};
/// const KERNEL: QConvKernel<2> = match QConv2d::new(
///     Quant::new_const(0.5, -3),
///     PerAxis::new_const(&[0.02, 0.01], &[0, 0]),
///     Quant::new_const(0.25, 5),
///     Activation::Relu,
///     Rounding::Double,
/// ) {
///     Ok(op) => op.kernel(),
///     Err(_) => panic!("valid parameters"),
/// };
/// let x = Tensor::<i8, Shape![1, 4, 4, 2]>::splat(7).quantized(KERNEL.input());
/// let w = Tensor::<i8, Shape![2, 3, 3, 2]>::splat(1);
/// let mut y = Tensor::<i8, Shape![1, 4, 4, 2]>::zeros();
/// KERNEL.conv2d_into(&x, &w, &[100, -100], SAME, &mut y)?;
/// assert_eq!(y[[0, 0, 0, 0]], 12);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QConvKernel<const N: usize> {
    frame: ConvFrame,
    input: Quant<i8>,
    output: Quant<i8>,
    requant: [Requant; N],
}

impl<const N: usize> QConvKernel<N> {
    /// The input's parameters it was prepared for.
    pub const fn input(&self) -> Quant<i8> {
        self.input
    }

    /// The output's parameters.
    pub const fn output(&self) -> Quant<i8> {
        self.output
    }

    /// What the kernels read.
    pub(crate) fn kernel_parts(&self) -> (&ConvFrame, &[Requant]) {
        (&self.frame, &self.requant)
    }
}

impl<const N: usize> QConv2d<'_, N> {
    /// The convolution without the weights' parameters: what its `_into` forms run with.
    pub const fn kernel(&self) -> QConvKernel<N> {
        QConvKernel {
            frame: self.frame,
            input: self.input,
            output: self.output,
            requant: self.requant,
        }
    }
}

/// [`QConv2d`] for a number of channels known only at run time (a model read at run time):
/// the multipliers derived once into a `Vec`. Feature `alloc`.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, PartialEq)]
pub struct DynQConv2d<'p> {
    frame: ConvFrame,
    input: Quant<i8>,
    weights: DynPerAxis<'p, i8>,
    output: Quant<i8>,
    requant: alloc::vec::Vec<Requant>,
}

#[cfg(feature = "alloc")]
impl<'p> DynQConv2d<'p> {
    /// As [`QConv2d::new`], for any number of channels; also an error value when the
    /// allocator refuses the multipliers' room.
    pub fn new(
        input: Quant<i8>,
        weights: DynPerAxis<'p, i8>,
        output: Quant<i8>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let mut requant = alloc::vec::Vec::new();
        requant.try_reserve_exact(weights.len()).map_err(|_| {
            Error::new(
                crate::error::ErrorKind::OutOfMemory {
                    bytes: weights
                        .len()
                        .saturating_mul(core::mem::size_of::<Requant>()),
                },
                crate::error::Operation::Quantize,
                &[weights.len()],
                &[],
            )
        })?;
        requant.resize(weights.len(), Requant::ZERO);
        channel_multipliers(
            input,
            weights.scales(),
            weights.zero_points(),
            output,
            rounding,
            &mut requant,
        )?;
        let frame = ConvFrame::new(input, output, activation, rounding)?;
        Ok(DynQConv2d {
            frame,
            input,
            weights,
            output,
            requant,
        })
    }

    /// The input's parameters it was prepared for.
    pub fn input(&self) -> Quant<i8> {
        self.input
    }

    /// The weights' parameters it was prepared for.
    pub fn weights(&self) -> DynPerAxis<'p, i8> {
        self.weights
    }

    /// The output's parameters.
    pub fn output(&self) -> Quant<i8> {
        self.output
    }

    /// What the kernels read: the frame and the multipliers (the `_into` forms check no
    /// operand parameters, so they pass on nothing else).
    pub(crate) fn kernel_parts(&self) -> (&ConvFrame, &[Requant]) {
        (&self.frame, &self.requant)
    }

    pub(crate) fn parts(&self) -> Parts<'_> {
        Parts {
            frame: &self.frame,
            requant: &self.requant,
            input: self.input,
            scales: self.weights.scales(),
            zero_points: self.weights.zero_points(),
        }
    }
}

/// A prepared convolution's pieces, whichever form holds them.
pub(crate) struct Parts<'a> {
    pub(crate) frame: &'a ConvFrame,
    pub(crate) requant: &'a [Requant],
    pub(crate) input: Quant<i8>,
    pub(crate) scales: &'a [f32],
    pub(crate) zero_points: &'a [i32],
}

impl Parts<'_> {
    /// The operands' parameters against the prepared ones (Q1): the input's, and the
    /// weights' along `axis` (0 for a convolution's filter, 3 for a depthwise one).
    pub(crate) fn check(
        &self,
        input: Quant<i8>,
        scales: &[f32],
        zero_points: &[i32],
        axis: usize,
        expected_axis: usize,
    ) -> Result<(), Error> {
        // A filter with other than the prepared number of output channels: its count named.
        if scales.len() != self.scales.len() && axis == expected_axis {
            return Err(quant_error(QuantProblem::PerAxisLength {
                params: self.scales.len(),
                axis,
                dim: scales.len(),
            }));
        }
        let same_scales = scales.len() == self.scales.len()
            && scales
                .iter()
                .zip(self.scales)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        if input != self.input
            || !same_scales
            || zero_points != self.zero_points
            || axis != expected_axis
        {
            return Err(quant_error(QuantProblem::NotPrepared));
        }
        Ok(())
    }
}
