//! Where a window meets the input (rules K1, K2): the output size of one spatial axis and the
//! padding before it, from the input size, kernel, stride, dilation and padding mode, exactly
//! as TFLite's `ComputePaddingHeightWidth` computes them, with every step checked.

use crate::error::{Error, ErrorKind, Operation, WindowOp, WindowProblem};

/// How a window meets the input's edges (K1): TFLite's and TensorFlow's two paddings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Zeros added around the input so that the output has `ceil(in / stride)` positions
    /// along each axis; the odd one of an uneven total goes after (below and to the right).
    Same,
    /// No padding: every window lies inside the input, `ceil((in - dilated_kernel + 1) /
    /// stride)` positions, and the input must be at least the dilated kernel.
    #[default]
    Valid,
}

/// A 2-D window at run time: the kernel's height and width, the strides, the dilations and
/// the padding (K1, K2). A convolution's kernel size comes from its filter; a pool's is the
/// window's own.
///
/// ```
/// use shaped::conv::{Padding, Window2d};
/// let w = Window2d::new([3, 3], Padding::Same).stride([2, 2]);
/// let g = w.resolve([24, 25])?;
/// assert_eq!(g.output(), [12, 13]);
/// assert_eq!(g.pad_before(), [0, 1]); // totals 1 and 2: the odd one goes after
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Window2d {
    kernel: [usize; 2],
    stride: [usize; 2],
    dilation: [usize; 2],
    padding: Padding,
}

impl Window2d {
    /// A `kernel` (height, width) window under `padding`, stride and dilation 1.
    pub const fn new(kernel: [usize; 2], padding: Padding) -> Self {
        Window2d {
            kernel,
            stride: [1, 1],
            dilation: [1, 1],
            padding,
        }
    }

    /// The same window with the strides (height, width).
    pub const fn stride(self, stride: [usize; 2]) -> Self {
        Window2d { stride, ..self }
    }

    /// The same window with the dilations (height, width): the kernel's taps `dilation`
    /// apart, spanning `(kernel - 1) * dilation + 1`.
    pub const fn dilation(self, dilation: [usize; 2]) -> Self {
        Window2d { dilation, ..self }
    }

    /// The kernel (height, width).
    pub const fn kernel(&self) -> [usize; 2] {
        self.kernel
    }

    /// The strides (height, width).
    pub const fn strides(&self) -> [usize; 2] {
        self.stride
    }

    /// The dilations (height, width).
    pub const fn dilations(&self) -> [usize; 2] {
        self.dilation
    }

    /// The padding mode.
    pub const fn padding(&self) -> Padding {
        self.padding
    }

    /// The window over an input of `input` (height, width): both axes resolved (K1), or the
    /// problem (K2) as an error of a convolution.
    pub const fn resolve(&self, input: [usize; 2]) -> Result<Geometry2d, Error> {
        match self.resolve_as(input, WindowOp::Conv2d) {
            Ok(g) => Ok(g),
            Err(problem) => Err(window_error(problem, WindowOp::Conv2d)),
        }
    }

    /// [`resolve`](Self::resolve) with the problem left for the caller to place. In line, as
    /// [`resolve_axis`]: a Cortex-M firmware with a convolution's `_into` form was 240 bytes
    /// smaller at opt-level "s" (140 without LTO).
    #[inline]
    pub(crate) const fn resolve_as(
        &self,
        input: [usize; 2],
        _op: WindowOp,
    ) -> Result<Geometry2d, WindowProblem> {
        let h = match resolve_axis(
            0,
            input[0],
            self.kernel[0],
            self.stride[0],
            self.dilation[0],
            self.padding,
        ) {
            Ok(a) => a,
            Err(e) => return Err(e),
        };
        let w = match resolve_axis(
            1,
            input[1],
            self.kernel[1],
            self.stride[1],
            self.dilation[1],
            self.padding,
        ) {
            Ok(a) => a,
            Err(e) => return Err(e),
        };
        Ok(Geometry2d {
            input,
            output: [h.0, w.0],
            pad: [h.1, w.1],
            kernel: self.kernel,
            stride: self.stride,
            dilation: self.dilation,
        })
    }
}

/// A window resolved over an input (K1): the output size of each axis and the padding
/// before it, with the window's kernel, strides and dilations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry2d {
    input: [usize; 2],
    output: [usize; 2],
    pad: [usize; 2],
    kernel: [usize; 2],
    stride: [usize; 2],
    dilation: [usize; 2],
}

impl Geometry2d {
    /// The input's height and width.
    pub const fn input(&self) -> [usize; 2] {
        self.input
    }

    /// The output's height and width.
    pub const fn output(&self) -> [usize; 2] {
        self.output
    }

    /// The padding before the first row and column (TFLite's `padding_values`): an output
    /// position `o` reads the input from `o * stride - pad_before`.
    pub const fn pad_before(&self) -> [usize; 2] {
        self.pad
    }

    /// The kernel's height and width.
    pub const fn kernel(&self) -> [usize; 2] {
        self.kernel
    }

    /// The strides.
    pub const fn strides(&self) -> [usize; 2] {
        self.stride
    }

    /// The dilations.
    pub const fn dilations(&self) -> [usize; 2] {
        self.dilation
    }

    /// The kernel taps of output position `o` along `axis` that fall inside the input: the
    /// first tap and one past the last, and the input position of tap 0 (which may be before
    /// the input). Taps outside the input read padding and are skipped, as TFLM skips them.
    #[inline(always)]
    pub(crate) fn taps(&self, axis: usize, o: usize) -> (usize, usize, isize) {
        // Cannot overflow: o * stride <= (out - 1) * stride, checked when resolved.
        let origin = (o * self.stride[axis]) as isize - self.pad[axis] as isize;
        // The dilation is at least 1 (checked when resolved): `max(1)` tells the compiler, so
        // the divisions below have no panic path.
        let (d, k, n) = (
            self.dilation[axis].max(1),
            self.kernel[axis],
            self.input[axis],
        );
        // First tap with origin + t * d >= 0; one past the last with origin + t * d < n.
        let first = if origin >= 0 {
            0
        } else {
            ((-origin) as usize).div_ceil(d)
        };
        let end = if (n as isize) <= origin {
            0
        } else {
            (((n as isize - origin) as usize).div_ceil(d)).min(k)
        };
        (first.min(end), end, origin)
    }
}

/// One axis (K1): `(output size, padding before)`, or the problem (K2).
#[inline]
const fn resolve_axis(
    axis: usize,
    input: usize,
    kernel: usize,
    stride: usize,
    dilation: usize,
    padding: Padding,
) -> Result<(usize, usize), WindowProblem> {
    if kernel == 0 {
        return Err(WindowProblem::ZeroKernel { axis });
    }
    if stride == 0 {
        return Err(WindowProblem::ZeroStride { axis });
    }
    if dilation == 0 {
        return Err(WindowProblem::ZeroDilation { axis });
    }
    // The dilated kernel's span: (kernel - 1) * dilation + 1.
    let span = match (kernel - 1).checked_mul(dilation) {
        Some(s) => s + 1,
        None => return Err(WindowProblem::Overflow),
    };
    let output = match padding {
        Padding::Same => input.div_ceil(stride),
        Padding::Valid => {
            if input < span {
                return Err(WindowProblem::KernelTooLarge { axis, span, input });
            }
            (input - span) / stride + 1
        }
    };
    let pad = match padding {
        Padding::Valid => 0,
        _ if output == 0 => 0,
        Padding::Same => {
            // TFLite's total: (out - 1) * stride + span - in, at least 0, half of it before.
            // (out - 1) * stride < in, so the sum is below in + span: no overflow.
            let reach = (output - 1) * stride + span;
            if reach > input {
                (reach - input) / 2
            } else {
                0
            }
        }
    };
    Ok((output, pad))
}

/// The error of a window problem in operation `op`, with no shapes.
pub(crate) const fn window_error(problem: WindowProblem, op: WindowOp) -> Error {
    Error::new_const(ErrorKind::Window(problem), Operation::Window { op })
}
