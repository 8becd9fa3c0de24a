//! Convolutions and pools over NHWC tensors (rules K1-K8 of `RULES.md`): TFLite's `CONV_2D`,
//! `DEPTHWISE_CONV_2D`, `AVERAGE_POOL_2D` and `MAX_POOL_2D`, on floats in TFLite's order and
//! on `i8` with TensorFlow Lite Micro's per-channel integer contract, bit for bit.
//!
//! * [`Padding`], [`ConvParams`] and [`Window2d`]: where a window meets the input, the output
//!   size and the padding before it as TFLite computes them (K1), every parameter checked
//!   (K2). [`Window2d::resolve`] gives the [`Geometry2d`].
//! * The shapes (K3, K4): the input is `[batch, height, width, channels]`; a convolution's
//!   filter is `[out channels, kernel height, kernel width, in channels]`, a depthwise one
//!   `[1, kernel height, kernel width, channels * multiplier]`; the bias has one value per
//!   output channel.
//! * [`QConv2d`] (and `DynQConv2d`, feature `alloc`): a prepared int8 convolution, its
//!   per-channel multipliers derived once (K7).
//!
//! The operations themselves are methods of the tensors: `Tensor::conv2d` and its kin, whose
//! output shape is computed at compile time from static shapes, and the same names on
//! `DynTensor`, every mismatch an error value.

pub(crate) mod blocked;
#[cfg(shaped_arm_dsp)]
pub(crate) mod dsp;
pub(crate) mod float;
mod geometry;
pub(crate) mod prepared;
pub(crate) mod quantized;
mod spec;
// build.rs sets `shaped_avx512` only for a rustc that has the AVX-512 intrinsics (1.89).
#[cfg(all(shaped_avx512, feature = "std", target_arch = "x86_64"))]
#[clippy::msrv = "1.89"]
mod x86;

pub use float::ConvFloat;
pub use geometry::{Geometry2d, Padding, Window2d};
#[cfg(feature = "alloc")]
pub use prepared::DynQConv2d;
pub use prepared::{QConv2d, QConvKernel};
pub use quantized::MAX_ACCUMULATED_TERMS;
pub use spec::{ConvSpec, PaddingKind, SamePadding, Spec2d, ValidPadding, SAME, VALID};

use crate::error::{Error, ErrorKind, Operation, WindowOp, WindowProblem};

/// A convolution's options (K1, K2): its padding, strides and dilations; its kernel is its
/// filter's.
///
/// ```
/// use shaped::conv::{ConvParams, Padding};
/// let p = ConvParams::new(Padding::Same).stride([2, 2]);
/// assert_eq!(p.window([3, 3]).resolve([9, 9])?.output(), [5, 5]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvParams {
    padding: Padding,
    stride: [usize; 2],
    dilation: [usize; 2],
}

impl ConvParams {
    /// `padding`, strides and dilations 1.
    pub const fn new(padding: Padding) -> Self {
        ConvParams {
            padding,
            stride: [1, 1],
            dilation: [1, 1],
        }
    }

    /// The same options with the strides (height, width).
    pub const fn stride(self, stride: [usize; 2]) -> Self {
        ConvParams { stride, ..self }
    }

    /// The same options with the dilations (height, width).
    pub const fn dilation(self, dilation: [usize; 2]) -> Self {
        ConvParams { dilation, ..self }
    }

    /// The window of a `kernel` (height, width) under these options.
    pub const fn window(&self, kernel: [usize; 2]) -> Window2d {
        Window2d::new(kernel, self.padding)
            .stride(self.stride)
            .dilation(self.dilation)
    }
}

/// The channel counts of a planned operation: the batch, the input's channels and the
/// output's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Nhwc {
    pub(crate) batch: usize,
    pub(crate) in_channels: usize,
    pub(crate) out_channels: usize,
}

/// A checked convolution or pool over runtime shapes: its channels, its window resolved over
/// the input, and the output's dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) dims: Nhwc,
    pub(crate) geometry: Geometry2d,
    pub(crate) output: [usize; 4],
}

impl Plan {
    /// The output's element count (checked when planned).
    pub(crate) fn len(&self) -> usize {
        self.output.iter().product()
    }
}

/// The error of `problem` in `op` on `input` with `other` (a filter, or a pool's window).
/// Cold and out of line: an `Error` copies both shapes, about 150 bytes of code on Cortex-M
/// wherever it is built.
#[cold]
#[inline(never)]
pub(crate) fn problem(
    op: WindowOp,
    problem: WindowProblem,
    input: &[usize],
    other: &[usize],
) -> Error {
    Error::new(
        ErrorKind::Window(problem),
        Operation::Window { op },
        input,
        other,
    )
}

/// The output dims `[n, h, w, c]`, or an overflow.
fn output_dims(n: usize, hw: [usize; 2], c: usize) -> Result<[usize; 4], WindowProblem> {
    let len = n
        .checked_mul(hw[0])
        .and_then(|v| v.checked_mul(hw[1]))
        .and_then(|v| v.checked_mul(c));
    match len {
        Some(_) => Ok([n, hw[0], hw[1], c]),
        None => Err(WindowProblem::Overflow),
    }
}

/// Checks a convolution (`op` is `Conv2d` or `DepthwiseConv2d`) of `input` by `filter` with a
/// bias of `bias` values (K1-K4), and plans it.
pub(crate) fn plan_conv(
    op: WindowOp,
    input: &[usize],
    filter: &[usize],
    bias: Option<usize>,
    params: &ConvParams,
) -> Result<Plan, Error> {
    plan_conv_as(op, input, filter, bias, params).map_err(|p| problem(op, p, input, filter))
}

/// [`plan_conv`] with the problem left for the caller to place (each check a small value, the
/// error built once). In line: the plan is then built where its caller keeps it, not copied
/// back (a Cortex-M firmware with a convolution's `_into` form: 70 bytes less).
#[inline(always)]
pub(crate) fn plan_conv_as(
    op: WindowOp,
    input: &[usize],
    filter: &[usize],
    bias: Option<usize>,
    params: &ConvParams,
) -> Result<Plan, WindowProblem> {
    let rank = |filter: bool, dims: &[usize]| WindowProblem::Rank {
        filter,
        rank: dims.len(),
    };
    let &[n, h, w, c] = input else {
        return Err(rank(false, input));
    };
    let &[f0, kh, kw, f3] = filter else {
        return Err(rank(true, filter));
    };
    let out_channels = if op == WindowOp::DepthwiseConv2d {
        if f0 != 1 {
            return Err(WindowProblem::DepthwiseFilter { first: f0 });
        }
        // 0 input channels take only a 0-channel filter (a multiple of 0).
        if (c == 0 && f3 != 0) || (c != 0 && f3 % c != 0) {
            return Err(WindowProblem::DepthMultiplier {
                input: c,
                filter: f3,
            });
        }
        f3
    } else {
        if f3 != c {
            return Err(WindowProblem::Channels {
                input: c,
                filter: f3,
            });
        }
        f0
    };
    if let Some(b) = bias {
        if b != out_channels {
            return Err(WindowProblem::BiasLength {
                bias: b,
                channels: out_channels,
            });
        }
    }
    let geometry = params.window([kh, kw]).resolve_as([h, w], op)?;
    let output = output_dims(n, geometry.output(), out_channels)?;
    Ok(Plan {
        dims: Nhwc {
            batch: n,
            in_channels: c,
            out_channels,
        },
        geometry,
        output,
    })
}

/// Checks a pool (`op` is `AvgPool2d` or `MaxPool2d`) of `input` over `window` (K1, K2), and
/// plans it.
pub(crate) fn plan_pool(op: WindowOp, input: &[usize], window: &Window2d) -> Result<Plan, Error> {
    let plan = || {
        let &[n, h, w, c] = input else {
            return Err(WindowProblem::Rank {
                filter: false,
                rank: input.len(),
            });
        };
        let geometry = window.resolve_as([h, w], op)?;
        let output = output_dims(n, geometry.output(), c)?;
        Ok(Plan {
            dims: Nhwc {
                batch: n,
                in_channels: c,
                out_channels: c,
            },
            geometry,
            output,
        })
    };
    plan().map_err(|p| problem(op, p, input, &window.kernel()))
}
