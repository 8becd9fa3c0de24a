//! Convolutions and pools on runtime shapes (rules K1-K8): the `_into` forms over
//! [`ArrayRef`]s and caller buffers (no allocator), and the same operations as methods of
//! [`DynTensor`] and of quantized `DynTensor`s, every mismatch an error value.

use super::array_ref::ArrayRef;
use crate::conv::float::{self, ConvFloat};
use crate::conv::quantized as q;
use crate::conv::quantized::ConvFrame;
use crate::conv::{plan_conv, plan_conv_as, plan_pool, ConvParams, Plan, QConv2d, Window2d};
use crate::error::{Error, ErrorKind, Operation, QuantProblem, WindowOp, WindowProblem};
use crate::quant::elementwise::Requant;
use crate::quant::{Activation, Quant};

/// The elements of `a`, row-major, or the error of a strided one.
fn contiguous<'a, T>(a: &ArrayRef<'a, T>, op: WindowOp) -> Result<&'a [T], Error> {
    a.row_major().ok_or_else(|| {
        Error::new(
            ErrorKind::NotContiguous,
            Operation::Window { op },
            a.shape(),
            &[],
        )
    })
}

/// A destination of `out_len` elements checked against the plan's output length.
fn check_out(out_len: usize, plan: &Plan, op: WindowOp) -> Result<(), Error> {
    if out_len != plan.len() {
        return Err(Error::new(
            ErrorKind::LengthMismatch {
                expected: plan.len(),
                actual: out_len,
            },
            Operation::Window { op },
            &plan.output,
            &[],
        ));
    }
    Ok(())
}

/// A bias's length against the plan, as the error of `op` on `input` and `filter`.
fn bias_len<T>(bias: Option<&[T]>) -> Option<usize> {
    bias.map(<[T]>::len)
}

/// CONV_2D on floats into `out` (K1-K5), no allocator: `input` `[n, h, w, c]`, `filter`
/// `[out channels, kh, kw, c]`, `bias` one value per output channel or none. Returns the
/// output's dims; `out` must hold exactly their count.
///
/// ```
/// use shaped::conv::{ConvParams, Padding};
/// use shaped::runtime::{conv2d_into, ArrayRef};
/// let x = [1.0f32, 2.0, 3.0, 4.0]; // [1, 2, 2, 1]
/// let w = [1.0f32, 1.0, 1.0, 1.0]; // [1, 2, 2, 1]
/// let mut out = [0.0f32; 4];
/// let dims = conv2d_into(
///     ArrayRef::new(&[1, 2, 2, 1], &x)?,
///     ArrayRef::new(&[1, 2, 2, 1], &w)?,
///     Some(&[0.5]),
///     &ConvParams::new(Padding::Same),
///     &mut out,
/// )?;
/// assert_eq!(dims, [1, 2, 2, 1]);
/// assert_eq!(out, [10.5, 6.5, 7.5, 4.5]);
/// # Ok::<(), shaped::Error>(())
/// ```
pub fn conv2d_into<T: ConvFloat>(
    input: ArrayRef<'_, T>,
    filter: ArrayRef<'_, T>,
    bias: Option<&[T]>,
    params: &ConvParams,
    out: &mut [T],
) -> Result<[usize; 4], Error> {
    float_conv_into(WindowOp::Conv2d, input, filter, bias, params, out)
}

/// DEPTHWISE_CONV_2D on floats into `out` (K1-K5), no allocator: `filter` is `[1, kh, kw, c *
/// m]` for a depth multiplier `m`; output channel `c * m + k` convolves input channel `c`.
pub fn depthwise_conv2d_into<T: ConvFloat>(
    input: ArrayRef<'_, T>,
    filter: ArrayRef<'_, T>,
    bias: Option<&[T]>,
    params: &ConvParams,
    out: &mut [T],
) -> Result<[usize; 4], Error> {
    float_conv_into(WindowOp::DepthwiseConv2d, input, filter, bias, params, out)
}

fn float_conv_into<T: ConvFloat>(
    op: WindowOp,
    input: ArrayRef<'_, T>,
    filter: ArrayRef<'_, T>,
    bias: Option<&[T]>,
    params: &ConvParams,
    out: &mut [T],
) -> Result<[usize; 4], Error> {
    let plan = plan_conv(op, input.shape(), filter.shape(), bias_len(bias), params)?;
    let (x, w) = (contiguous(&input, op)?, contiguous(&filter, op)?);
    check_out(out.len(), &plan, op)?;
    let (g, dims) = (&plan.geometry, &plan.dims);
    match op {
        WindowOp::Conv2d => float::conv2d(x, dims, w, bias, g, Activation::None, out),
        _ => float::depthwise_conv2d(x, dims, w, bias, g, Activation::None, out),
    }
    Ok(plan.output)
}

/// AVERAGE_POOL_2D on floats into `out` (K1, K2, K6), no allocator: the mean of each window's
/// elements inside the input.
pub fn avg_pool2d_into<T: ConvFloat>(
    input: ArrayRef<'_, T>,
    window: &Window2d,
    out: &mut [T],
) -> Result<[usize; 4], Error> {
    let (plan, x) = pool_plan(WindowOp::AvgPool2d, &input, window, out.len())?;
    float::avg_pool2d(x, &plan.dims, &plan.geometry, Activation::None, out);
    Ok(plan.output)
}

/// MAX_POOL_2D on floats into `out` (K1, K2, K6), no allocator: the largest of each window's
/// elements inside the input.
pub fn max_pool2d_into<T: ConvFloat>(
    input: ArrayRef<'_, T>,
    window: &Window2d,
    out: &mut [T],
) -> Result<[usize; 4], Error> {
    let (plan, x) = pool_plan(WindowOp::MaxPool2d, &input, window, out.len())?;
    float::max_pool2d(x, &plan.dims, &plan.geometry, Activation::None, out);
    Ok(plan.output)
}

fn pool_plan<'a, T>(
    op: WindowOp,
    input: &ArrayRef<'a, T>,
    window: &Window2d,
    out_len: usize,
) -> Result<(Plan, &'a [T]), Error> {
    let plan = plan_pool(op, input.shape(), window)?;
    let x = contiguous(input, op)?;
    check_out(out_len, &plan, op)?;
    Ok((plan, x))
}

/// An int8 pool (K8) into `out`: `input`'s integers under `quant`, the output under the same
/// parameters (TFLM's pools keep them), clamped by `activation`.
pub fn quantized_pool2d_into(
    input: ArrayRef<'_, i8>,
    quant: Quant<i8>,
    window: &Window2d,
    activation: Activation,
    largest: bool,
    out: &mut [i8],
) -> Result<[usize; 4], Error> {
    let clamp = pool_clamp(quant, activation)?;
    if largest {
        quantized_pool2d_clamped::<true>(input, window, clamp, out)
    } else {
        quantized_pool2d_clamped::<false>(input, window, clamp, out)
    }
}

/// The clamp of an int8 pool's output (Q7): in line, so that a caller's constant parameters
/// fold it (out of line, a firmware without LTO computed it at each call, in software
/// double precision: 1.8 kB of `f64` routines in TFLM's person detection at "s").
#[inline(always)]
pub(crate) fn pool_clamp(quant: Quant<i8>, activation: Activation) -> Result<(i32, i32), Error> {
    activation
        .range(quant, i32::from(i8::MIN), i32::from(i8::MAX))
        .ok_or_else(|| {
            crate::quant::params::quant_error(crate::error::QuantProblem::ActivationRange)
        })
}

/// [`quantized_pool2d_into`] with its clamp worked out, MAX_POOL_2D when `LARGEST`: one kernel
/// per call site (a pool chosen at run time linked both).
pub(crate) fn quantized_pool2d_clamped<const LARGEST: bool>(
    input: ArrayRef<'_, i8>,
    window: &Window2d,
    clamp: (i32, i32),
    out: &mut [i8],
) -> Result<[usize; 4], Error> {
    let op = WindowOp::pool(LARGEST);
    let (plan, x) = pool_plan(op, &input, window, out.len())?;
    if LARGEST {
        q::max_pool2d(x, &plan.dims, &plan.geometry, clamp, out);
    } else {
        q::avg_pool2d(x, &plan.dims, &plan.geometry, clamp, out);
    }
    Ok(plan.output)
}

/// Why an int8 convolution's operands were refused, before the error value is built: the
/// checks pass this small value on and [`Refusal::error`] builds the `Error` once, in the
/// `_into` form's caller. (On Cortex-M an `Error` built at each check, about 150 bytes of
/// copies each, was most of the 7.3 kB the `_into` form's checks took in a firmware at
/// opt-level "s".)
#[derive(Clone, Copy)]
enum Refusal {
    Window(WindowProblem),
    /// The input (`filter: false`) or the filter is strided.
    NotContiguous {
        filter: bool,
    },
    Quant(QuantProblem),
    /// A destination of `actual` elements for an output of `dims`.
    Output {
        dims: [usize; 4],
        actual: usize,
    },
}

impl Refusal {
    /// The error of this refusal in `op` on `input` with `filter`, built in the caller's body
    /// ([`Error::in_caller`]; out of line, a firmware's `?` on the `_into` form copied it
    /// with a `memcpy` call). In line, a shape known at compile time also folds here.
    #[inline(always)]
    fn error(&self, op: WindowOp, input: &[usize], filter: &[usize]) -> Error {
        let window = Operation::Window { op };
        let (kind, operation, lhs, rhs): (_, _, &[usize], &[usize]) = match *self {
            Refusal::Window(p) => (ErrorKind::Window(p), window, input, filter),
            Refusal::NotContiguous { filter: f } => {
                let strided = if f { filter } else { input };
                (ErrorKind::NotContiguous, window, strided, &[])
            }
            // As `quant_error`: no shapes.
            Refusal::Quant(p) => (ErrorKind::Quant(p), Operation::Quantize, &[], &[]),
            Refusal::Output { ref dims, actual } => {
                let expected = dims.iter().product();
                (
                    ErrorKind::LengthMismatch { expected, actual },
                    window,
                    dims,
                    &[],
                )
            }
        };
        Error::in_caller(kind, operation, lhs, rhs)
    }
}

/// An int8 kernel of `conv::quantized`.
type QKernel = fn(
    &[i8],
    &crate::conv::Nhwc,
    &[i8],
    Option<&[i32]>,
    &crate::conv::Geometry2d,
    &ConvFrame,
    &[Requant],
    &mut [i8],
);

/// The int8 kernels the `_into` forms call: on Cortex-M with the DSP extension the kernels
/// themselves, not the dispatching functions of `conv::quantized`, which without LTO stayed
/// a call of their own (56 bytes each).
#[cfg(shaped_arm_dsp)]
const CONV2D: QKernel = crate::conv::dsp::conv2d;
#[cfg(shaped_arm_dsp)]
const DEPTHWISE_CONV2D: QKernel = crate::conv::dsp::depthwise_conv2d;
#[cfg(not(shaped_arm_dsp))]
const CONV2D: QKernel = q::conv2d;
#[cfg(not(shaped_arm_dsp))]
const DEPTHWISE_CONV2D: QKernel = q::depthwise_conv2d;

/// An int8 convolution with a prepared operation's frame and multipliers, into `out`: the
/// operands checked (K1-K4, K7), then `kernel`; a refusal is returned as such. Not generic,
/// one copy for both operations and every prepared form; each form passes its own kernel, so
/// a firmware links only the kernels it uses.
#[allow(clippy::too_many_arguments)]
fn quantized_conv_checked(
    (frame, requant): (&ConvFrame, &[Requant]),
    op: WindowOp,
    input: &ArrayRef<'_, i8>,
    filter: &ArrayRef<'_, i8>,
    bias: Option<&[i32]>,
    params: &ConvParams,
    out: &mut [i8],
    kernel: QKernel,
) -> Result<[usize; 4], Refusal> {
    let plan = plan_conv_as(op, input.shape(), filter.shape(), bias_len(bias), params)
        .map_err(Refusal::Window)?;
    let Some(x) = input.row_major() else {
        return Err(Refusal::NotContiguous { filter: false });
    };
    let Some(w) = filter.row_major() else {
        return Err(Refusal::NotContiguous { filter: true });
    };
    let (dims, g) = (&plan.dims, &plan.geometry);
    if requant.len() != dims.out_channels {
        return Err(Refusal::Quant(QuantProblem::PerAxisLength {
            params: requant.len(),
            axis: if op == WindowOp::Conv2d { 0 } else { 3 },
            dim: dims.out_channels,
        }));
    }
    let per_output = if op == WindowOp::Conv2d {
        dims.in_channels
    } else {
        1
    };
    q::check_terms(g.kernel(), per_output).map_err(Refusal::Window)?;
    if out.len() != plan.len() {
        let (dims, actual) = (plan.output, out.len());
        return Err(Refusal::Output { dims, actual });
    }
    kernel(x, dims, w, bias, g, frame, requant, out);
    Ok(plan.output)
}

/// [`quantized_conv_checked`] with a refusal's `Error` built here, in the caller's body:
/// always in line, and the public forms `#[inline]` (without LTO and that hint, a firmware's
/// call of a form stayed a call and its `?` a `memcpy`: CONV_2D at "s", 9164 bytes against
/// 8252).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn quantized_conv_into(
    prepared: (&ConvFrame, &[Requant]),
    op: WindowOp,
    input: &ArrayRef<'_, i8>,
    filter: &ArrayRef<'_, i8>,
    bias: Option<&[i32]>,
    params: &ConvParams,
    out: &mut [i8],
    kernel: QKernel,
) -> Result<[usize; 4], Error> {
    match quantized_conv_checked(prepared, op, input, filter, bias, params, out, kernel) {
        Ok(dims) => Ok(dims),
        Err(refusal) => Err(refusal.error(op, input.shape(), filter.shape())),
    }
}

/// The dims and options of a typed int8 convolution: `'static` constants when every shape is
/// static, so that a call passes one address instead of storing them.
pub(crate) struct TypedConv<'a> {
    pub(crate) op: WindowOp,
    pub(crate) input: &'a [usize],
    pub(crate) filter: &'a [usize],
    /// The output tensor's dims, which the kernel's must equal.
    pub(crate) output: &'a [usize],
    pub(crate) params: ConvParams,
}

/// An int8 convolution of prepared parts into `out`, for the typed `_into` forms: `input` and
/// `filter` are typed tensors' elements (their lengths their shapes' counts), and the output's
/// dims are checked here against the tensor's. The shapes come behind one reference, and the
/// function is `#[inline]`, not always in line: a model of many layers keeps one copy, each
/// layer's call passing six words, where a single call is inlined and its checks fold. TFLM's
/// person detection at "s" with LTO: about 80 instructions of each layer's call in line (the
/// dims stored and compared there), about 26 now, 258.4 -> 248.4 kB of flash with the
/// five-byte multipliers; micro_speech, one layer, 23.1 -> 23.2 kB (kept out of line: 23.7
/// kB, and 25.8 -> 28.2 kB without LTO; `qemu-tests/README.md`).
#[inline]
pub(crate) fn quantized_conv_typed(
    prepared: (&ConvFrame, &[Requant]),
    conv: &TypedConv<'_>,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    out: &mut [i8],
) -> Result<(), Error> {
    let op = conv.op;
    let kernel = if op == WindowOp::Conv2d {
        CONV2D
    } else {
        DEPTHWISE_CONV2D
    };
    let (x, w) = (
        ArrayRef::trusted(conv.input, input),
        ArrayRef::trusted(conv.filter, filter),
    );
    let dims = quantized_conv_into(prepared, op, &x, &w, bias, &conv.params, out, kernel)?;
    if conv.output == dims {
        Ok(())
    } else {
        Err(output_dims_differ(conv.output, &dims, op))
    }
}

/// The error of an output tensor whose dims are not the operation's `dims`.
#[cold]
#[inline(never)]
pub(crate) fn output_dims_differ(out: &[usize], dims: &[usize; 4], op: WindowOp) -> Error {
    Error::new(
        ErrorKind::ShapeMismatch,
        Operation::Window { op },
        out,
        dims,
    )
}

/// The `_into` forms of a prepared int8 convolution ([`QConv2d`] and `DynQConv2d`), one body
/// for both: they differ only in where their multipliers are held.
macro_rules! quantized_conv_into_forms {
    ($($prepared:ty, [$($gen:tt)*];)*) => {$(
        impl<$($gen)*> $prepared {
            /// CONV_2D on `i8` over runtime shapes into `out` (K7), no allocator: `input`'s
            /// integers taken as quantized by [`input`](Self::input), `filter`'s (`[channels,
            /// kh, kw, c]`) by the weights' parameters it was prepared with, the bias at scale
            /// `input_scale * weight_scale[j]`; the output quantized by [`output`](Self::output). Returns the
            /// output's dims. The form over typed tensors is [`conv2d_into`](Self::conv2d_into).
            ///
            /// A 3x3 SAME layer, 2 input channels to 2 output channels, from flat buffers:
            ///
            /// ```
            /// use shaped::conv::{ConvParams, Padding, QConv2d};
            /// use shaped::quant::{Activation, PerAxis, Quant, Rounding};
            /// use shaped::runtime::ArrayRef;
            ///
            /// let (scales, zeros) = ([0.02f32, 0.01], [0, 0]);
            /// let conv = QConv2d::new(
            ///     Quant::new(0.5, -3)?,              // the input's scale and zero point
            ///     PerAxis::new(&scales, &zeros)?,    // one weight scale per output channel
            ///     Quant::new(0.25, 5)?,              // the output's
            ///     Activation::Relu,
            ///     Rounding::Double,
            /// )?;
            /// let input = [7i8; 4 * 4 * 2]; // [1, 4, 4, 2], NHWC
            /// let filter = [1i8; 2 * 3 * 3 * 2]; // [2, 3, 3, 2]: out channels first
            /// let (in_shape, filter_shape) = ([1, 4, 4, 2], [2, 3, 3, 2]);
            /// let mut out = [0i8; 4 * 4 * 2];
            /// let dims = conv.conv2d_array_into(
            ///     ArrayRef::new(&in_shape, &input)?,
            ///     ArrayRef::new(&filter_shape, &filter)?,
            ///     Some(&[100, -100]), // i32, at scale input_scale * weight_scale[j]
            ///     &ConvParams::new(Padding::Same),
            ///     &mut out,
            /// )?;
            /// assert_eq!(dims, [1, 4, 4, 2]);
            /// // The corner sums 4 taps: 4 * 2 * (7 + 3) + 100 = 180, times 0.5 * 0.02 / 0.25,
            /// // 7.2, rounds to 7, plus the zero point 5.
            /// assert_eq!(out[0], 12);
            /// # Ok::<(), shaped::Error>(())
            /// ```
            ///
            /// A shape held in variables is borrowed: bind it (`let s = [n, h, w, c];`) before
            /// `ArrayRef::new(&s, ..)`.
            #[inline]
            pub fn conv2d_array_into(
                &self,
                input: ArrayRef<'_, i8>,
                filter: ArrayRef<'_, i8>,
                bias: Option<&[i32]>,
                params: &ConvParams,
                out: &mut [i8],
            ) -> Result<[usize; 4], Error> {
                let (prepared, op) = (self.kernel_parts(), WindowOp::Conv2d);
                let kernel = CONV2D;
                quantized_conv_into(prepared, op, &input, &filter, bias, params, out, kernel)
            }

            /// DEPTHWISE_CONV_2D on `i8` into `out` (K7), no allocator: `filter`
            /// `[1, kh, kw, channels]`.
            #[inline]
            pub fn depthwise_conv2d_array_into(
                &self,
                input: ArrayRef<'_, i8>,
                filter: ArrayRef<'_, i8>,
                bias: Option<&[i32]>,
                params: &ConvParams,
                out: &mut [i8],
            ) -> Result<[usize; 4], Error> {
                let (prepared, op) = (self.kernel_parts(), WindowOp::DepthwiseConv2d);
                let kernel = DEPTHWISE_CONV2D;
                quantized_conv_into(prepared, op, &input, &filter, bias, params, out, kernel)
            }
        }
    )*};
}

quantized_conv_into_forms! {
    QConv2d<'_, N>, [const N: usize];
    crate::conv::QConvKernel<N>, [const N: usize];
}
#[cfg(feature = "alloc")]
quantized_conv_into_forms! {
    crate::conv::DynQConv2d<'_>, [];
}

#[cfg(feature = "alloc")]
mod dynamic {
    use super::*;
    use crate::conv::DynQConv2d;
    use crate::quant::{AxisParams, Quantized, QuantizedPerAxis};
    use crate::runtime::dyn_tensor::DynTensor;
    use crate::runtime::{element_count, try_vec};

    /// A new buffer of the plan's output, filled by `run`.
    fn filled<T: Copy + Default>(
        dims: [usize; 4],
        run: impl FnOnce(&mut [T]) -> Result<[usize; 4], Error>,
    ) -> Result<DynTensor<T>, Error> {
        let count = element_count::<T>(&dims)?;
        let mut data = try_vec::<T>(count, &dims)?;
        data.resize(count, T::default());
        run(&mut data)?;
        Ok(DynTensor::from_parts(&dims, data))
    }

    /// # Convolutions and pools
    ///
    /// TFLite's `CONV_2D`, `DEPTHWISE_CONV_2D`, `AVERAGE_POOL_2D` and `MAX_POOL_2D` on NHWC
    /// tensors (K1-K6), in TFLite's float kernels' order.
    impl<T: ConvFloat + Default> DynTensor<T> {
        /// CONV_2D (K1-K5): `self` `[n, h, w, c]`, `filter` `[out channels, kh, kw, c]`, one
        /// bias value per output channel or none. A fused activation is a clamp after:
        /// `relu()`, or `clip` for ReLU6.
        ///
        /// ```
        /// use shaped::conv::{ConvParams, Padding};
        /// use shaped::DynTensor;
        /// let x = DynTensor::from_shape_vec([1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
        /// let w = DynTensor::from_shape_vec([2, 2, 2, 1], vec![1.0f32, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0])?;
        /// let y = x.conv2d(&w, None, &ConvParams::new(Padding::Valid))?;
        /// assert_eq!(y.shape(), &[1, 2, 2, 2]);
        /// assert_eq!(y.as_slice(), &[6.0, 6.0, 8.0, 8.0, 12.0, 12.0, 14.0, 14.0]);
        /// let e = x.conv2d(&w, None, &ConvParams::new(Padding::Valid).dilation([3, 1])).unwrap_err();
        /// assert_eq!(
        ///     e.to_string(),
        ///     "cannot conv2d [1, 3, 3, 1] with filter [2, 2, 2, 1]: the kernel spans 4 along the \
        ///      height but the input has 3; VALID padding needs the input at least as large as the \
        ///      dilated kernel (K1)"
        /// );
        /// # Ok::<(), shaped::Error>(())
        /// ```
        pub fn conv2d(
            &self,
            filter: &DynTensor<T>,
            bias: Option<&[T]>,
            params: &ConvParams,
        ) -> Result<DynTensor<T>, Error> {
            self.float_conv(WindowOp::Conv2d, filter, bias, params)
        }

        /// DEPTHWISE_CONV_2D (K1-K5): `filter` `[1, kh, kw, c * m]`; output channel `c * m +
        /// k` convolves input channel `c` with filter channel `c * m + k`.
        pub fn depthwise_conv2d(
            &self,
            filter: &DynTensor<T>,
            bias: Option<&[T]>,
            params: &ConvParams,
        ) -> Result<DynTensor<T>, Error> {
            self.float_conv(WindowOp::DepthwiseConv2d, filter, bias, params)
        }

        fn float_conv(
            &self,
            op: WindowOp,
            filter: &DynTensor<T>,
            bias: Option<&[T]>,
            params: &ConvParams,
        ) -> Result<DynTensor<T>, Error> {
            let plan = plan_conv(op, self.shape(), filter.shape(), bias_len(bias), params)?;
            let (x, w) = (self.array(), filter.array());
            filled(plan.output, |out| {
                float_conv_into(op, x, w, bias, params, out)
            })
        }

        /// AVERAGE_POOL_2D (K1, K2, K6): the mean of each window's elements inside `self`.
        ///
        /// ```
        /// use shaped::conv::{Padding, Window2d};
        /// use shaped::DynTensor;
        /// let x = DynTensor::from_shape_vec([1, 2, 3, 1], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
        /// let y = x.avg_pool2d(&Window2d::new([2, 2], Padding::Same).stride([2, 2]))?;
        /// assert_eq!(y.shape(), &[1, 1, 2, 1]);
        /// assert_eq!(y.as_slice(), &[3.0, 4.5]); // the second window holds 3 and 6 only
        /// # Ok::<(), shaped::Error>(())
        /// ```
        pub fn avg_pool2d(&self, window: &Window2d) -> Result<DynTensor<T>, Error> {
            let plan = plan_pool(WindowOp::AvgPool2d, self.shape(), window)?;
            filled(plan.output, |out| {
                avg_pool2d_into(self.array(), window, out)
            })
        }

        /// MAX_POOL_2D (K1, K2, K6): the largest of each window's elements inside `self`.
        pub fn max_pool2d(&self, window: &Window2d) -> Result<DynTensor<T>, Error> {
            let plan = plan_pool(WindowOp::MaxPool2d, self.shape(), window)?;
            filled(plan.output, |out| {
                max_pool2d_into(self.array(), window, out)
            })
        }
    }

    /// # Quantized pools
    impl Quantized<DynTensor<i8>, i8> {
        /// AVERAGE_POOL_2D on `i8` (K8), TFLM's rounding of the mean, clamped by `activation`
        /// at the input's parameters, which the result keeps.
        pub fn avg_pool2d(&self, window: &Window2d, activation: Activation) -> Result<Self, Error> {
            self.pool(window, activation, false)
        }

        /// MAX_POOL_2D on `i8` (K8), clamped by `activation`; the result keeps the parameters.
        pub fn max_pool2d(&self, window: &Window2d, activation: Activation) -> Result<Self, Error> {
            self.pool(window, activation, true)
        }

        fn pool(
            &self,
            window: &Window2d,
            activation: Activation,
            largest: bool,
        ) -> Result<Self, Error> {
            let op = WindowOp::pool(largest);
            let plan = plan_pool(op, self.values().shape(), window)?;
            let q = self.quant();
            let x = self.values().array();
            let y = filled(plan.output, |out| {
                quantized_pool2d_into(x, q, window, activation, largest, out)
            })?;
            Ok(Quantized::new(y, q))
        }
    }

    fn quantized_dyn(
        parts: &crate::conv::prepared::Parts<'_>,
        op: WindowOp,
        output: Quant<i8>,
        x: &Quantized<DynTensor<i8>, i8>,
        w: &QuantizedPerAxis<DynTensor<i8>, impl AxisParams<i8>>,
        bias: Option<&[i32]>,
        params: &ConvParams,
    ) -> Result<Quantized<DynTensor<i8>, i8>, Error> {
        let wp = w.params().as_dyn();
        let axis = if op == WindowOp::Conv2d { 0 } else { 3 };
        parts.check(x.quant(), wp.scales(), wp.zero_points(), w.axis(), axis)?;
        let (xs, ws) = (x.values(), w.values());
        let plan = plan_conv(op, xs.shape(), ws.shape(), bias_len(bias), params)?;
        let y = filled(plan.output, |out| {
            let kernel = if op == WindowOp::Conv2d {
                q::conv2d
            } else {
                q::depthwise_conv2d
            };
            let (xa, wa) = (xs.array(), ws.array());
            let prepared = (parts.frame, parts.requant);
            quantized_conv_into(prepared, op, &xa, &wa, bias, params, out, kernel)
        })?;
        Ok(Quantized::new(y, output))
    }

    /// The runtime-tensor forms of a prepared int8 convolution, one body for [`QConv2d`]
    /// and [`DynQConv2d`].
    macro_rules! quantized_conv_dyn_forms {
        ($($prepared:ty, [$($gen:tt)*];)*) => {$(
            impl<$($gen)*> $prepared {
                /// CONV_2D on quantized runtime tensors (K7): `x` quantized by
                /// [`input`](Self::input), `w` `[channels, kh, kw, c]` quantized along axis 0
                /// by [`weights`](Self::weights) (an error value otherwise), the bias at scale
                /// `input_scale * weight_scale[j]`.
                pub fn conv2d_dyn(
                    &self,
                    x: &Quantized<DynTensor<i8>, i8>,
                    w: &QuantizedPerAxis<DynTensor<i8>, impl AxisParams<i8>>,
                    bias: Option<&[i32]>,
                    params: &ConvParams,
                ) -> Result<Quantized<DynTensor<i8>, i8>, Error> {
                    let op = WindowOp::Conv2d;
                    quantized_dyn(&self.parts(), op, self.output(), x, w, bias, params)
                }

                /// DEPTHWISE_CONV_2D on quantized runtime tensors (K7): `w`
                /// `[1, kh, kw, channels]` quantized along axis 3.
                pub fn depthwise_conv2d_dyn(
                    &self,
                    x: &Quantized<DynTensor<i8>, i8>,
                    w: &QuantizedPerAxis<DynTensor<i8>, impl AxisParams<i8>>,
                    bias: Option<&[i32]>,
                    params: &ConvParams,
                ) -> Result<Quantized<DynTensor<i8>, i8>, Error> {
                    let op = WindowOp::DepthwiseConv2d;
                    quantized_dyn(&self.parts(), op, self.output(), x, w, bias, params)
                }
            }
        )*};
    }

    quantized_conv_dyn_forms! {
        QConv2d<'_, N>, [const N: usize];
        DynQConv2d<'_>, [];
    }
}
