//! Convolutions and pools on typed NHWC tensors (rules K1-K8): the output shape computed at
//! compile time from static shapes and the window's options ([`Spec2d`]), a mismatch of
//! static dims a compile error naming them and the rule; a `Dyn` dim is checked at run time
//! and a mismatch panics with the error, as the operators do (`DynTensor::conv2d` and the
//! `_into` forms return it).

use super::matmul::{JoinOf, Joined};
use super::result::{ResultStorage, Storable, Stored};
use super::Tensor;
use crate::conv::float::{self, ConvFloat};
use crate::conv::quantized as q;
use crate::conv::{plan_conv, plan_pool, problem, ConvSpec, Plan, QConv2d, QConvKernel};
use crate::error::{panic_with, Error, WindowOp};
use crate::quant::{Activation, AxisParams, Quantized, QuantizedPerAxis};
use crate::runtime::ArrayRef;
use crate::typed::dim::{Const, Dim};
use crate::typed::rules::{
    Conv2dOutput, Conv2dShape, DepthwiseOutput, DepthwiseShape, PoolOutput, PoolShape,
};
use crate::typed::shape::Shape;
use crate::typed::storage::{fits_inline, Data, DataMut, Family};

/// A convolution's bias for `O` output channels (K3): `()` for none, a `&Tensor` of shape
/// `[O]`, or a `&[T; N]` when `O` is `Const<N>`. Sealed.
pub trait ConvBias<T, O: Dim>: private::Sealed<T, O> {
    /// The values, if any.
    fn values(&self) -> Option<&[T]>;
}

mod private {
    pub trait Sealed<T, O> {}
}

impl<T, O: Dim> private::Sealed<T, O> for () {}
impl<T, O: Dim> ConvBias<T, O> for () {
    #[inline(always)]
    fn values(&self) -> Option<&[T]> {
        None
    }
}

impl<T, O: Dim, D: Data<T>> private::Sealed<T, O> for &Tensor<T, (O,), D> {}
impl<T, O: Dim, D: Data<T>> ConvBias<T, O> for &Tensor<T, (O,), D> {
    #[inline(always)]
    fn values(&self) -> Option<&[T]> {
        Some(self.as_slice())
    }
}

impl<T, const N: usize> private::Sealed<T, Const<N>> for &[T; N] {}
impl<T, const N: usize> ConvBias<T, Const<N>> for &[T; N] {
    #[inline(always)]
    fn values(&self) -> Option<&[T]> {
        Some(&self[..])
    }
}

/// The result of a `KH` x `KW` pool of a tensor of shape `S` stored in `D`: stored like it,
/// of shape [`PoolOutput`].
pub type Pooled<T, S, D, const KH: usize, const KW: usize, P> =
    Stored<<D as Data<T>>::Family, T, PoolOutput<S, KH, KW, P>>;

/// The result of an int8 pool ([`Pooled`], quantized).
pub type QuantizedPooled<S, D, const KH: usize, const KW: usize, P> =
    Quantized<Pooled<i8, S, D, KH, KW, P>, i8>;

/// The result of an int8 convolution of shape `O`, of operands stored in `D` and `E`.
pub type QuantizedConv<D, E, O> = Quantized<Joined<i8, D, E, O>, i8>;

/// The plan of a typed operation, or the panic of a `Dyn` dim that does not fit.
#[track_caller]
fn planned(plan: Result<Plan, Error>) -> Plan {
    match plan {
        Ok(p) => p,
        Err(e) => panic_with(e),
    }
}

/// `out`'s dims against the output's `dims` (a `Dyn` dim of `out` may disagree at run time).
/// The dims come back from the kernel, which is not in line where a model has many layers, so
/// the comparison stays: four compares in line (a slice comparison called `memcmp`), the error
/// built out of line.
#[inline(always)]
fn same_dims(out: &[usize], dims: &[usize; 4], op: WindowOp) -> Result<(), Error> {
    match *out {
        [a, b, c, d] if a == dims[0] && b == dims[1] && c == dims[2] && d == dims[3] => Ok(()),
        _ => dims_differ(out, dims, op),
    }
}

/// DEPTHWISE_CONV_2D or CONV_2D.
const fn conv_op(depthwise: bool) -> WindowOp {
    if depthwise {
        WindowOp::DepthwiseConv2d
    } else {
        WindowOp::Conv2d
    }
}

fn dims_differ(out: &[usize], dims: &[usize; 4], op: WindowOp) -> Result<(), Error> {
    Err(crate::runtime::conv::output_dims_differ(out, dims, op))
}

/// A typed tensor as an [`ArrayRef`]: row-major, and its length is its shape's element count
/// (the tensor's invariant), so only the rank is checked (a constant for static shapes:
/// `ArrayRef::new`'s count of the elements did not fold at `"s"`, a loop over the dims per
/// operand of each layer of a model).
#[inline(always)]
fn array_ref<'a, T, S: Shape, D: Data<T>>(
    shape: &'a S::Index,
    x: &'a Tensor<T, S, D>,
) -> Result<ArrayRef<'a, T>, Error> {
    let dims: &[usize] = shape.as_ref();
    if dims.len() > crate::rules::MAX_RANK {
        return ArrayRef::new(dims, x.as_slice());
    }
    debug_assert!(ArrayRef::new(dims, x.as_slice()).is_ok());
    Ok(ArrayRef::trusted(dims, x.as_slice()))
}

/// # Convolutions and pools
///
/// TFLite's `CONV_2D`, `DEPTHWISE_CONV_2D`, `AVERAGE_POOL_2D` and `MAX_POOL_2D` on NHWC
/// tensors of floats, in TFLite's float kernels' order (K1-K6). The window's options are a
/// [`Spec2d`](crate::conv::Spec2d): [`SAME`](crate::conv::SAME) or
/// [`VALID`](crate::conv::VALID), with `.stride::<H, W>()` and `.dilation::<H, W>()`. A fused
/// activation is a clamp after: `relu()`, or `clip(0.0, 6.0)`.
impl<T: ConvFloat, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// CONV_2D (K1-K5): `self` `[n, h, w, c]` by `filter` `[out channels, kh, kw, c]`, plus
    /// `bias` (`()` for none), the output's height and width computed at compile time.
    ///
    /// ```
    /// use shaped::conv::{SAME, VALID};
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 5, 5, 2]>::splat(1.0);
    /// let w = Tensor::<f32, Shape![4, 3, 3, 2]>::splat(0.5);
    /// let y: Tensor<f32, Shape![1, 3, 3, 4]> = x.conv2d(&w, &[1.0; 4], SAME.stride::<2, 2>());
    /// assert_eq!(y[[0, 1, 1, 0]], 10.0); // 9 taps x 2 channels x 0.5, plus 1
    /// assert_eq!(y[[0, 0, 0, 0]], 5.0); // 4 taps inside the input
    /// let v: Tensor<f32, Shape![1, 3, 3, 4]> = x.conv2d(&w, (), VALID);
    /// assert_eq!(v[[0, 2, 2, 3]], 9.0);
    /// ```
    ///
    /// Channels-first tensors (PyTorch's NCHW input, OIHW filter) go through
    /// [`permute`](Self::permute): the kernels are NHWC's, as TFLite's, and a transpose of the
    /// input and output costs far less than the convolution; the shapes are still checked at
    /// compile time.
    ///
    /// ```
    /// use shaped::conv::VALID;
    /// use shaped::{Axes, Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 2, 4, 4]>::from_fn(|[_, c, h, w]| (c + h * w) as f32);
    /// let w = Tensor::<f32, Shape![3, 2, 3, 3]>::splat(1.0); // [out, in, kh, kw]
    /// let nhwc = x.permute::<Axes![0, 2, 3, 1]>().conv2d(&w.permute::<Axes![0, 2, 3, 1]>(), (), VALID);
    /// let y: Tensor<f32, Shape![1, 3, 2, 2]> = nhwc.permute::<Axes![0, 3, 1, 2]>();
    /// // Output channel 1 at (0, 0): the 3x3 window of both input channels.
    /// let window: f32 = (0..3).flat_map(|h| (0..3).map(move |w| (2 * h * w + 1) as f32)).sum();
    /// assert_eq!(y[[0, 1, 0, 0]], window);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::conv::VALID;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 2, 2, 3]>::splat(1.0);
    /// let w = Tensor::<f32, Shape![4, 3, 3, 3]>::splat(0.5);
    /// let y = x.conv2d(&w, (), VALID); // a 3x3 kernel over a 2x2 input (K1)
    /// ```
    #[track_caller]
    pub fn conv2d<F: Shape, E: Data<T>, P: ConvSpec, B: ConvBias<T, S::Channels>>(
        &self,
        filter: &Tensor<T, F, E>,
        bias: B,
        spec: P,
    ) -> Joined<T, D, E, Conv2dOutput<S, F, P>>
    where
        S: Conv2dShape<F, P, Output: Storable>,
    {
        let _ = spec;
        fits_inline!(Stored<JoinOf<T, D, E>, T, Conv2dOutput<S, F, P>>);
        self.float_conv::<_, _, Conv2dOutput<S, F, P>, JoinOf<T, D, E>>(
            WindowOp::Conv2d,
            filter,
            bias.values(),
            P::params(),
        )
    }

    /// DEPTHWISE_CONV_2D (K1-K5): `filter` `[1, kh, kw, c * m]`, output channel `c * m + k`
    /// convolving input channel `c`; a multiplier that does not divide is a compile error for
    /// static channels.
    ///
    /// ```
    /// use shaped::conv::SAME;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 4, 4, 2]>::from_fn(|[_, _, _, c]| c as f32 + 1.0);
    /// let w = Tensor::<f32, Shape![1, 3, 3, 4]>::splat(1.0); // multiplier 2
    /// let y: Tensor<f32, Shape![1, 4, 4, 4]> = x.depthwise_conv2d(&w, (), SAME);
    /// assert_eq!(&y.as_slice()[20..24], &[9.0, 9.0, 18.0, 18.0]); // [0, 1, 1, ..]: 9 taps
    /// ```
    #[track_caller]
    pub fn depthwise_conv2d<F: Shape, E: Data<T>, P: ConvSpec, B: ConvBias<T, S::Channels>>(
        &self,
        filter: &Tensor<T, F, E>,
        bias: B,
        spec: P,
    ) -> Joined<T, D, E, DepthwiseOutput<S, F, P>>
    where
        S: DepthwiseShape<F, P, Output: Storable>,
    {
        let _ = spec;
        fits_inline!(Stored<JoinOf<T, D, E>, T, DepthwiseOutput<S, F, P>>);
        self.float_conv::<_, _, DepthwiseOutput<S, F, P>, JoinOf<T, D, E>>(
            WindowOp::DepthwiseConv2d,
            filter,
            bias.values(),
            P::params(),
        )
    }

    #[track_caller]
    fn float_conv<F: Shape, E: Data<T>, O: Storable, G: Family>(
        &self,
        op: WindowOp,
        filter: &Tensor<T, F, E>,
        bias: Option<&[T]>,
        params: crate::conv::ConvParams,
    ) -> Stored<G, T, O> {
        let (xs, ws) = (self.shape(), filter.shape());
        let bias_len = bias.map(<[T]>::len);
        let plan = planned(plan_conv(op, xs.as_ref(), ws.as_ref(), bias_len, &params));
        let (x, w) = (self.as_slice(), filter.as_slice());
        <O::Kind as ResultStorage<O>>::filled::<G, T>(&plan.output, T::ZERO, |out| match op {
            WindowOp::Conv2d => float::conv2d(
                x,
                &plan.dims,
                w,
                bias,
                &plan.geometry,
                Activation::None,
                out,
            ),
            _ => float::depthwise_conv2d(
                x,
                &plan.dims,
                w,
                bias,
                &plan.geometry,
                Activation::None,
                out,
            ),
        })
    }

    /// [`conv2d`](Self::conv2d) into `out`, clamped by the fused `activation` (TFLite's
    /// `CONV_2D` options), without an allocator. An error value only when a `Dyn` dim does not
    /// fit: static shapes are checked at compile time.
    ///
    /// ```
    /// use shaped::conv::SAME;
    /// use shaped::quant::Activation;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 2, 2, 1]>::from([[[[1.0], [2.0]], [[3.0], [-9.0]]]]);
    /// let w = Tensor::<f32, Shape![1, 2, 2, 1]>::splat(1.0);
    /// let mut y = Tensor::<f32, Shape![1, 2, 2, 1]>::zeros();
    /// x.conv2d_into(&w, &[0.5], SAME, Activation::Relu, &mut y)?;
    /// assert_eq!(y.as_slice(), &[0.0, 0.0, 0.0, 0.0]); // every sum meets -9: ReLU'd
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn conv2d_into<F, E, P, B, O>(
        &self,
        filter: &Tensor<T, F, E>,
        bias: B,
        spec: P,
        activation: Activation,
        out: &mut Tensor<T, Conv2dOutput<S, F, P>, O>,
    ) -> Result<(), Error>
    where
        S: Conv2dShape<F, P>,
        F: Shape,
        E: Data<T>,
        P: ConvSpec,
        B: ConvBias<T, S::Channels>,
        O: DataMut<T>,
    {
        let _ = spec;
        let op = WindowOp::Conv2d;
        self.float_conv_into(op, filter, bias.values(), P::params(), activation, out)
    }

    /// [`depthwise_conv2d`](Self::depthwise_conv2d) into `out`, clamped by `activation`,
    /// without an allocator.
    #[inline]
    pub fn depthwise_conv2d_into<F, E, P, B, O>(
        &self,
        filter: &Tensor<T, F, E>,
        bias: B,
        spec: P,
        activation: Activation,
        out: &mut Tensor<T, DepthwiseOutput<S, F, P>, O>,
    ) -> Result<(), Error>
    where
        S: DepthwiseShape<F, P>,
        F: Shape,
        E: Data<T>,
        P: ConvSpec,
        B: ConvBias<T, S::Channels>,
        O: DataMut<T>,
    {
        let _ = spec;
        let op = WindowOp::DepthwiseConv2d;
        self.float_conv_into(op, filter, bias.values(), P::params(), activation, out)
    }

    #[inline(always)]
    fn float_conv_into<F: Shape, E: Data<T>, Y: Shape, O: DataMut<T>>(
        &self,
        op: WindowOp,
        filter: &Tensor<T, F, E>,
        bias: Option<&[T]>,
        params: crate::conv::ConvParams,
        activation: Activation,
        out: &mut Tensor<T, Y, O>,
    ) -> Result<(), Error> {
        let (xs, ws) = (self.shape(), filter.shape());
        let bias_len = bias.map(<[T]>::len);
        let plan = plan_conv(op, xs.as_ref(), ws.as_ref(), bias_len, &params)?;
        same_dims(out.shape().as_ref(), &plan.output, op)?;
        let (x, w, g) = (self.as_slice(), filter.as_slice(), &plan.geometry);
        let y = out.as_mut_slice();
        match op {
            WindowOp::Conv2d => float::conv2d(x, &plan.dims, w, bias, g, activation, y),
            _ => float::depthwise_conv2d(x, &plan.dims, w, bias, g, activation, y),
        }
        Ok(())
    }

    /// [`avg_pool2d`](Self::avg_pool2d) into `out`, clamped by `activation`, without an
    /// allocator.
    #[inline]
    pub fn avg_pool2d_into<const KH: usize, const KW: usize, P: ConvSpec, O: DataMut<T>>(
        &self,
        spec: P,
        activation: Activation,
        out: &mut Tensor<T, PoolOutput<S, KH, KW, P>, O>,
    ) -> Result<(), Error>
    where
        S: PoolShape<KH, KW, P>,
    {
        let _ = spec;
        self.float_pool_into::<KH, KW, P, O>(activation, false, out)
    }

    /// [`max_pool2d`](Self::max_pool2d) into `out`, clamped by `activation`, without an
    /// allocator.
    #[inline]
    pub fn max_pool2d_into<const KH: usize, const KW: usize, P: ConvSpec, O: DataMut<T>>(
        &self,
        spec: P,
        activation: Activation,
        out: &mut Tensor<T, PoolOutput<S, KH, KW, P>, O>,
    ) -> Result<(), Error>
    where
        S: PoolShape<KH, KW, P>,
    {
        let _ = spec;
        self.float_pool_into::<KH, KW, P, O>(activation, true, out)
    }

    #[inline(always)]
    fn float_pool_into<const KH: usize, const KW: usize, P: ConvSpec, O: DataMut<T>>(
        &self,
        activation: Activation,
        largest: bool,
        out: &mut Tensor<T, PoolOutput<S, KH, KW, P>, O>,
    ) -> Result<(), Error>
    where
        S: PoolShape<KH, KW, P>,
    {
        let op = WindowOp::pool(largest);
        let window = P::params().window([KH, KW]);
        let plan = plan_pool(op, self.shape().as_ref(), &window)?;
        same_dims(out.shape().as_ref(), &plan.output, op)?;
        let (x, y, g) = (self.as_slice(), out.as_mut_slice(), &plan.geometry);
        if largest {
            float::max_pool2d(x, &plan.dims, g, activation, y);
        } else {
            float::avg_pool2d(x, &plan.dims, g, activation, y);
        }
        Ok(())
    }

    /// AVERAGE_POOL_2D over a `KH` x `KW` window (K1, K2, K6): the mean of each window's
    /// elements inside `self`.
    ///
    /// ```
    /// use shaped::conv::VALID;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 4, 4, 1]>::from_fn(|[_, h, w, _]| (h * 4 + w) as f32);
    /// let y: Tensor<f32, Shape![1, 2, 2, 1]> = x.avg_pool2d::<2, 2, _>(VALID.stride::<2, 2>());
    /// assert_eq!(y.as_slice(), &[2.5, 4.5, 10.5, 12.5]);
    /// ```
    #[track_caller]
    pub fn avg_pool2d<const KH: usize, const KW: usize, P: ConvSpec>(
        &self,
        spec: P,
    ) -> Pooled<T, S, D, KH, KW, P>
    where
        S: PoolShape<KH, KW, P, Output: Storable>,
    {
        let _ = spec;
        fits_inline!(Stored<D::Family, T, PoolOutput<S, KH, KW, P>>);
        let plan = self.pool_plan::<KH, KW, P>(WindowOp::AvgPool2d);
        let x = self.as_slice();
        <<PoolOutput<S, KH, KW, P> as Shape>::Kind as ResultStorage<_>>::filled::<D::Family, T>(
            &plan.output,
            T::ZERO,
            |out| float::avg_pool2d(x, &plan.dims, &plan.geometry, Activation::None, out),
        )
    }

    /// MAX_POOL_2D over a `KH` x `KW` window (K1, K2, K6): the largest of each window's
    /// elements inside `self`.
    ///
    /// ```
    /// use shaped::conv::SAME;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 3, 3, 1]>::from_fn(|[_, h, w, _]| (h * 3 + w) as f32);
    /// let y: Tensor<f32, Shape![1, 2, 2, 1]> = x.max_pool2d::<2, 2, _>(SAME.stride::<2, 2>());
    /// assert_eq!(y.as_slice(), &[4.0, 5.0, 7.0, 8.0]);
    /// ```
    #[track_caller]
    pub fn max_pool2d<const KH: usize, const KW: usize, P: ConvSpec>(
        &self,
        spec: P,
    ) -> Pooled<T, S, D, KH, KW, P>
    where
        S: PoolShape<KH, KW, P, Output: Storable>,
    {
        let _ = spec;
        fits_inline!(Stored<D::Family, T, PoolOutput<S, KH, KW, P>>);
        let plan = self.pool_plan::<KH, KW, P>(WindowOp::MaxPool2d);
        let x = self.as_slice();
        <<PoolOutput<S, KH, KW, P> as Shape>::Kind as ResultStorage<_>>::filled::<D::Family, T>(
            &plan.output,
            T::ZERO,
            |out| float::max_pool2d(x, &plan.dims, &plan.geometry, Activation::None, out),
        )
    }
}

impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The plan of a `KH` x `KW` pool under `P` over `self`'s shape.
    #[track_caller]
    fn pool_plan<const KH: usize, const KW: usize, P: ConvSpec>(&self, op: WindowOp) -> Plan {
        let window = P::params().window([KH, KW]);
        planned(plan_pool(op, self.shape().as_ref(), &window))
    }
}

/// # Quantized pools
///
/// TFLM's integer `AVERAGE_POOL_2D` and `MAX_POOL_2D` (K8) on static and mixed tensors: the
/// result keeps the input's parameters (TFLM's pools require equal ones).
impl<S: Shape, D: Data<i8>> Quantized<Tensor<i8, S, D>, i8> {
    /// AVERAGE_POOL_2D on `i8` (K8): TFLM's rounding of the mean, clamped by `activation`.
    #[track_caller]
    pub fn avg_pool2d<const KH: usize, const KW: usize, P: ConvSpec>(
        &self,
        spec: P,
        activation: Activation,
    ) -> Result<QuantizedPooled<S, D, KH, KW, P>, Error>
    where
        S: PoolShape<KH, KW, P, Output: Storable>,
    {
        self.pool::<KH, KW, P>(spec, activation, false)
    }

    /// MAX_POOL_2D on `i8` (K8), clamped by `activation`.
    #[track_caller]
    pub fn max_pool2d<const KH: usize, const KW: usize, P: ConvSpec>(
        &self,
        spec: P,
        activation: Activation,
    ) -> Result<QuantizedPooled<S, D, KH, KW, P>, Error>
    where
        S: PoolShape<KH, KW, P, Output: Storable>,
    {
        self.pool::<KH, KW, P>(spec, activation, true)
    }

    /// [`avg_pool2d`](Self::avg_pool2d) into `out` (its integers under the input's
    /// parameters, as TFLM's pools keep them), without an allocator: an error value when
    /// `activation`'s range cannot be represented, or a `Dyn` dim does not fit.
    ///
    /// ```
    /// use shaped::conv::VALID;
    /// use shaped::quant::{Activation, Quant};
    /// use shaped::{Shape, Tensor};
    /// let q = Quant::<i8>::new(0.5, -2)?;
    /// let x = Tensor::<i8, Shape![1, 2, 2, 1]>::from([[[[1], [2]], [[4], [6]]]]).quantized(q);
    /// let mut y = Tensor::<i8, Shape![1, 1, 1, 1]>::zeros();
    /// x.avg_pool2d_into::<2, 2, _, _>(VALID, Activation::None, &mut y)?;
    /// assert_eq!(y.as_slice(), &[3]); // 13 / 4 rounded
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn avg_pool2d_into<const KH: usize, const KW: usize, P: ConvSpec, O: DataMut<i8>>(
        &self,
        spec: P,
        activation: Activation,
        out: &mut Tensor<i8, PoolOutput<S, KH, KW, P>, O>,
    ) -> Result<(), Error>
    where
        S: PoolShape<KH, KW, P>,
    {
        let _ = spec;
        self.pool_into::<KH, KW, P, O, false>(activation, out)
    }

    /// [`max_pool2d`](Self::max_pool2d) into `out`, without an allocator.
    #[inline]
    pub fn max_pool2d_into<const KH: usize, const KW: usize, P: ConvSpec, O: DataMut<i8>>(
        &self,
        spec: P,
        activation: Activation,
        out: &mut Tensor<i8, PoolOutput<S, KH, KW, P>, O>,
    ) -> Result<(), Error>
    where
        S: PoolShape<KH, KW, P>,
    {
        let _ = spec;
        self.pool_into::<KH, KW, P, O, true>(activation, out)
    }

    /// The pools' `_into` forms: the clamp worked out in line (constant parameters fold it),
    /// then the one kernel, MAX_POOL_2D when `LARGEST`.
    #[inline(always)]
    fn pool_into<
        const KH: usize,
        const KW: usize,
        P: ConvSpec,
        O: DataMut<i8>,
        const LARGEST: bool,
    >(
        &self,
        activation: Activation,
        out: &mut Tensor<i8, PoolOutput<S, KH, KW, P>, O>,
    ) -> Result<(), Error>
    where
        S: PoolShape<KH, KW, P>,
    {
        let op = WindowOp::pool(LARGEST);
        let clamp = crate::runtime::conv::pool_clamp(self.quant(), activation)?;
        let shape = self.values().shape();
        let x = array_ref(&shape, self.values())?;
        let window = P::params().window([KH, KW]);
        let dims = crate::runtime::conv::quantized_pool2d_clamped::<LARGEST>(
            x,
            &window,
            clamp,
            out.as_mut_slice(),
        )?;
        same_dims(out.shape().as_ref(), &dims, op)
    }

    #[track_caller]
    fn pool<const KH: usize, const KW: usize, P: ConvSpec>(
        &self,
        _: P,
        activation: Activation,
        largest: bool,
    ) -> Result<QuantizedPooled<S, D, KH, KW, P>, Error>
    where
        S: PoolShape<KH, KW, P, Output: Storable>,
    {
        fits_inline!(Stored<D::Family, i8, PoolOutput<S, KH, KW, P>>);
        let op = WindowOp::pool(largest);
        let plan = self.values().pool_plan::<KH, KW, P>(op);
        let quant = self.quant();
        let clamp = activation
            .range(quant, i32::from(i8::MIN), i32::from(i8::MAX))
            .ok_or_else(|| {
                crate::quant::params::quant_error(crate::error::QuantProblem::ActivationRange)
            })?;
        let x = self.values().as_slice();
        let y = <<PoolOutput<S, KH, KW, P> as Shape>::Kind as ResultStorage<_>>::filled::<
            D::Family,
            i8,
        >(&plan.output, 0, |out| {
            if largest {
                q::max_pool2d(x, &plan.dims, &plan.geometry, clamp, out)
            } else {
                q::avg_pool2d(x, &plan.dims, &plan.geometry, clamp, out)
            }
        });
        Ok(Quantized::new(y, quant))
    }
}

/// # Quantized convolutions
///
/// TFLM's per-channel `CONV_2D` and `DEPTHWISE_CONV_2D` (K7) on static and mixed tensors,
/// the output shape computed at compile time as for floats.
macro_rules! typed_quantized_conv {
    ($($prepared:ty, [$($gen:tt)*];)*) => {$(
impl<$($gen)*> $prepared {
    /// CONV_2D on `i8` (K7): `x` quantized by [`input`](Self::input), `w` `[N, kh, kw, c]`
    /// quantized along axis 0 by [`weights`](Self::weights), the bias (`()` for none; one
    /// `i32` per output channel, `S::Channels` being the output's) at scale
    /// `input_scale * weight_scale[j]`; the output quantized by [`output`](Self::output). An
    /// error value when the operands carry other parameters, or a kernel sums more than
    /// [`MAX_ACCUMULATED_TERMS`](crate::conv::MAX_ACCUMULATED_TERMS) products.
    #[track_caller]
    #[allow(clippy::type_complexity)] // the `Result` is spelled out for the reader
    pub fn conv2d<S, D, F, E, P, B>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        w: &QuantizedPerAxis<Tensor<i8, F, E>, impl AxisParams<i8>>,
        bias: B,
        spec: P,
    ) -> Result<QuantizedConv<D, E, Conv2dOutput<S, F, P>>, Error>
    where
        S: Conv2dShape<F, P, Output: Storable>,
        F: Shape,
        D: Data<i8>,
        E: Data<i8>,
        P: ConvSpec,
        B: ConvBias<i32, S::Channels>,
    {
        let _ = spec;
        fits_inline!(Stored<JoinOf<i8, D, E>, i8, Conv2dOutput<S, F, P>>);
        let y = self.typed::<_, _, _, _, Conv2dOutput<S, F, P>>(
            WindowOp::Conv2d,
            x,
            w,
            bias.values(),
            P::params(),
        )?;
        Ok(Quantized::new(y, self.output()))
    }

    /// DEPTHWISE_CONV_2D on `i8` (K7): `w` `[1, kh, kw, N]` quantized along axis 3.
    #[track_caller]
    #[allow(clippy::type_complexity)] // the `Result` is spelled out for the reader
    pub fn depthwise_conv2d<S, D, F, E, P, B>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        w: &QuantizedPerAxis<Tensor<i8, F, E>, impl AxisParams<i8>>,
        bias: B,
        spec: P,
    ) -> Result<QuantizedConv<D, E, DepthwiseOutput<S, F, P>>, Error>
    where
        S: DepthwiseShape<F, P, Output: Storable>,
        F: Shape,
        D: Data<i8>,
        E: Data<i8>,
        P: ConvSpec,
        B: ConvBias<i32, S::Channels>,
    {
        let _ = spec;
        fits_inline!(Stored<JoinOf<i8, D, E>, i8, DepthwiseOutput<S, F, P>>);
        let op = WindowOp::DepthwiseConv2d;
        let y = self.typed::<_, _, _, _, DepthwiseOutput<S, F, P>>(
            op,
            x,
            w,
            bias.values(),
            P::params(),
        )?;
        Ok(Quantized::new(y, self.output()))
    }

    #[track_caller]
    fn typed<S: Shape, D: Data<i8>, F: Shape, E: Data<i8>, O: Storable>(
        &self,
        op: WindowOp,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        w: &QuantizedPerAxis<Tensor<i8, F, E>, impl AxisParams<i8>>,
        bias: Option<&[i32]>,
        params: crate::conv::ConvParams,
    ) -> Result<Joined<i8, D, E, O>, Error> {
        let parts = self.parts();
        let axis = if op == WindowOp::Conv2d { 0 } else { 3 };
        let wp = w.params().as_dyn();
        parts.check(x.quant(), wp.scales(), wp.zero_points(), w.axis(), axis)?;
        let (xs, ws) = (x.values().shape(), w.values().shape());
        let (xs, ws) = (xs.as_ref(), ws.as_ref());
        let plan = planned(plan_conv(op, xs, ws, bias.map(<[i32]>::len), &params));
        let per_output = if op == WindowOp::Conv2d {
            plan.dims.in_channels
        } else {
            1
        };
        q::check_terms(plan.geometry.kernel(), per_output).map_err(|p| problem(op, p, xs, ws))?;
        let (xv, wv) = (x.values().as_slice(), w.values().as_slice());
        let (frame, rq) = (parts.frame, parts.requant);
        Ok(
            <O::Kind as ResultStorage<O>>::filled::<JoinOf<i8, D, E>, i8>(&plan.output, 0, |out| {
                if op == WindowOp::Conv2d {
                    q::conv2d(xv, &plan.dims, wv, bias, &plan.geometry, frame, rq, out)
                } else {
                    q::depthwise_conv2d(xv, &plan.dims, wv, bias, &plan.geometry, frame, rq, out)
                }
            }),
        )
    }
}
    )*};
}

/// The typed `_into` forms of a prepared int8 convolution, for every form that holds the
/// frame and the multipliers ([`QConv2d`], `DynQConv2d`, [`QConvKernel`]).
macro_rules! typed_quantized_conv_into {
    ($($prepared:ty, [$($gen:tt)*];)*) => {$(
impl<$($gen)*> $prepared {
    /// CONV_2D on `i8` into `out` (K7; quantized by [`output`](Self::output)), without an
    /// allocator: `x` quantized by [`input`](Self::input), `w`'s integers taken as quantized
    /// by the weights' parameters this operation was prepared with (a plain tensor: weights in
    /// a `static` need no copy). An error value when `x` carries other parameters, a kernel sums more
    /// than [`MAX_ACCUMULATED_TERMS`](crate::conv::MAX_ACCUMULATED_TERMS) products, or a `Dyn`
    /// dim does not fit.
    ///
    /// ```
    /// use shaped::conv::{QConv2d, SAME};
    /// use shaped::quant::{Activation, PerAxis, Quant, Rounding};
    /// use shaped::{Shape, Tensor};
    /// let (scales, zeros) = ([0.02f32, 0.01], [0, 0]);
    /// let conv = QConv2d::new(
    ///     Quant::new(0.5, -3)?,
    ///     PerAxis::new(&scales, &zeros)?,
    ///     Quant::new(0.25, 5)?,
    ///     Activation::Relu,
    ///     Rounding::Double,
    /// )?;
    /// let x = Tensor::<i8, Shape![1, 4, 4, 2]>::splat(7).quantized(conv.input());
    /// let w = Tensor::<i8, Shape![2, 3, 3, 2]>::splat(1);
    /// let mut y = Tensor::<i8, Shape![1, 4, 4, 2]>::zeros();
    /// conv.conv2d_into(&x, &w, &[100, -100], SAME, &mut y)?;
    /// // The corner sums 4 taps: 4 * 2 * (7 + 3) + 100 = 180, times 0.5 * 0.02 / 0.25,
    /// // 7.2, rounds to 7, plus the zero point 5.
    /// assert_eq!(y[[0, 0, 0, 0]], 12);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    ///
    /// An output of the wrong shape does not compile:
    ///
    /// ```compile_fail
    /// # use shaped::conv::{QConv2d, SAME};
    /// # use shaped::quant::{Activation, PerAxis, Quant, Rounding};
    /// # use shaped::{Shape, Tensor};
    /// # let (scales, zeros) = ([0.02f32, 0.01], [0, 0]);
    /// # let q = Quant::new(0.5, -3)?;
    /// # let conv = QConv2d::new(q, PerAxis::new(&scales, &zeros)?, q, Activation::Relu, Rounding::Double)?;
    /// let x = Tensor::<i8, Shape![1, 4, 4, 2]>::splat(7).quantized(q);
    /// let w = Tensor::<i8, Shape![2, 3, 3, 2]>::splat(1);
    /// let mut y = Tensor::<i8, Shape![1, 4, 4, 3]>::zeros();
    /// conv.conv2d_into(&x, &w, (), SAME, &mut y)?;
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn conv2d_into<S, D, F, E, P, B, O>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        w: &Tensor<i8, F, E>,
        bias: B,
        spec: P,
        out: &mut Tensor<i8, Conv2dOutput<S, F, P>, O>,
    ) -> Result<(), Error>
    where
        S: Conv2dShape<F, P>,
        F: Shape,
        D: Data<i8>,
        E: Data<i8>,
        P: ConvSpec,
        B: ConvBias<i32, S::Channels>,
        O: DataMut<i8>,
    {
        let _ = spec;
        self.typed_into::<false, P, _, _, _, _, _, _>(x, w, bias.values(), out)
    }

    /// DEPTHWISE_CONV_2D on `i8` into `out` (K7), without an allocator: `w` `[1, kh, kw, N]`,
    /// its integers taken as quantized by the weights' parameters this operation was prepared
    /// with.
    #[inline]
    pub fn depthwise_conv2d_into<S, D, F, E, P, B, O>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        w: &Tensor<i8, F, E>,
        bias: B,
        spec: P,
        out: &mut Tensor<i8, DepthwiseOutput<S, F, P>, O>,
    ) -> Result<(), Error>
    where
        S: DepthwiseShape<F, P>,
        F: Shape,
        D: Data<i8>,
        E: Data<i8>,
        P: ConvSpec,
        B: ConvBias<i32, S::Channels>,
        O: DataMut<i8>,
    {
        let _ = spec;
        self.typed_into::<true, P, _, _, _, _, _, _>(x, w, bias.values(), out)
    }

    /// The typed forms' one body: `DEPTHWISE` chooses the operation, a constant, so that the
    /// shapes of an all-static call are one constant too.
    #[inline(always)]
    fn typed_into<
        const DEPTHWISE: bool,
        P: ConvSpec,
        S: Shape,
        D: Data<i8>,
        F: Shape,
        E: Data<i8>,
        Y: Shape,
        O: DataMut<i8>,
    >(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        w: &Tensor<i8, F, E>,
        bias: Option<&[i32]>,
        out: &mut Tensor<i8, Y, O>,
    ) -> Result<(), Error> {
        use crate::runtime::conv::TypedConv;
        if x.quant() != self.input() {
            return Err(crate::quant::elementwise::not_prepared());
        }
        let (xs, ws, ys) = (x.values().shape(), w.shape(), out.shape());
        let dynamic;
        let conv: &TypedConv<'_> = if S::ALL_STATIC && F::ALL_STATIC && Y::ALL_STATIC {
            const {
                &TypedConv {
                    op: conv_op(DEPTHWISE),
                    input: S::DIMS_OR_ZERO,
                    filter: F::DIMS_OR_ZERO,
                    output: Y::DIMS_OR_ZERO,
                    params: P::PARAMS,
                }
            }
        } else {
            dynamic = TypedConv {
                op: conv_op(DEPTHWISE),
                input: xs.as_ref(),
                filter: ws.as_ref(),
                output: ys.as_ref(),
                params: P::PARAMS,
            };
            &dynamic
        };
        crate::runtime::conv::quantized_conv_typed(
            self.kernel_parts(),
            conv,
            x.values().as_slice(),
            w.as_slice(),
            bias,
            out.as_mut_slice(),
        )
    }

}
    )*};
}

typed_quantized_conv_into! {
    QConv2d<'_, N>, [const N: usize];
    QConvKernel<N>, [const N: usize];
}
#[cfg(feature = "alloc")]
typed_quantized_conv_into! {
    crate::conv::DynQConv2d<'_>, [];
}

typed_quantized_conv! {
    QConv2d<'_, N>, [const N: usize];
}
#[cfg(feature = "alloc")]
typed_quantized_conv! {
    crate::conv::DynQConv2d<'_>, [];
}
