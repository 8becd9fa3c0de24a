//! The numerics every model writes by hand, on static and mixed tensors: `softmax::<A>()`,
//! `log_softmax::<A>()`, `var_axis::<A>(ddof)` and `std_axis::<A>(ddof)` (and their
//! `_keepdims` forms), `layer_norm::<A>(epsilon)`, `rms_norm::<A>(epsilon)`, `sum_all()`,
//! `mean_all()`. The axis is a const generic, checked at compile time; the kernels are
//! `DynTensor`'s (`runtime/normalize.rs`), so every path gives the same bits. Nothing
//! allocates for a static shape: the result is stored like `self`. A scale and a bias are the
//! operators' business: `&x.layer_norm::<1>(1e-5) * &gamma + &beta` (NUMPY broadcasting,
//! checked at compile time).

#[cfg(any(feature = "std", feature = "libm"))]
use super::ops::{check_same_shape, map_into};
use super::result::{Storable, Stored};
use super::Tensor;
use crate::element::Real;
#[cfg(any(feature = "std", feature = "libm"))]
use crate::error::Operation;
use crate::runtime::normalize;
use crate::typed::rules::{axis_index, KeepAxis, RemoveAxis};
use crate::typed::shape::Shape;
use crate::typed::storage::fits_inline;
use crate::typed::storage::Data;
#[cfg(any(feature = "std", feature = "libm"))]
use crate::util::fill_out_of_line;
#[cfg(any(feature = "std", feature = "libm"))]
use core::mem::MaybeUninit;

/// The variance and the standard deviation, with the axis removed or kept: one body, the
/// result shape and the last step (`sqrt` or none) differing.
macro_rules! moments {
    ($($name:ident $Axis:ident [$($cfg:meta)?] |$v:ident| $finish:expr, $doc:literal;)*) => {$(
        #[doc = $doc]
        $(#[cfg($cfg)])*
        #[inline]
        #[track_caller]
        pub fn $name<const A: isize>(
            &self,
            ddof: usize,
        ) -> Stored<D::Family, T, <S as $Axis<A>>::Output>
        where
            S: $Axis<A>,
            <S as $Axis<A>>::Output: Storable,
        {
            fits_inline!(Stored<D::Family, T, <S as $Axis<A>>::Output>);
            self.reduce_large::<T, <S as $Axis<A>>::Output>(axis::<S, A>(), T::ZERO, |x, dims, a, out| {
                normalize::var_into(x, dims, a, ddof, |$v| $finish, out)
            })
        }
    )*};
}

/// Axis `A` of `S` as an index (negative from the end), a constant.
#[inline(always)]
fn axis<S: Shape, const A: isize>() -> usize {
    const { axis_index(A, S::RANK) }
}

/// # Numerics
///
/// The numerics every model needs (rules S1-S6): the same formulas and the same kernels as
/// `DynTensor`'s methods of these names. A generic caller writes `S: Storable` for
/// `softmax`, `log_softmax`, `layer_norm` and `rms_norm`, and `O: Storable` for the result
/// shape `O` of `var_*` and `std_*`, as for the reductions ([`bounds`](crate::bounds)).
///
/// ```
/// # #[cfg(any(feature = "std", feature = "libm"))] {
/// use shaped::{Shape, Tensor};
/// let x = Tensor::<f64, Shape![2, 3]>::from([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]);
/// let p = x.softmax::<1>();
/// assert!((p[[0, 2]] - 0.6652409557748219).abs() < 1e-15);
/// assert_eq!(x.var_axis::<1>(0).as_slice(), &[2.0 / 3.0, 0.0]);
/// assert_eq!(x.std_keepdims::<1>(0).shape().as_ref(), &[2, 1]);
/// assert_eq!(x.mean_all(), 1.5);
/// let gamma = Tensor::<f64, Shape![3]>::from([1.0, 2.0, 3.0]);
/// let y = &x.layer_norm::<1>(1e-5) * &gamma;
/// assert_eq!(y.as_slice()[3..], [0.0; 3]);
/// # }
/// ```
impl<T: Real, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The sum of every element, pairwise (0 for none).
    #[inline]
    pub fn sum_all(&self) -> T {
        normalize::sum_all(self.as_slice())
    }

    /// The mean of every element (NaN for none).
    #[inline]
    pub fn mean_all(&self) -> T {
        normalize::mean_all(self.as_slice())
    }

    moments! {
        var_axis RemoveAxis [] |v| v,
        "The variance along axis `A` (removed), numpy's `var(x, axis=A, ddof=ddof)`: \
         `sum((x - mean)^2) / max(n - ddof, 0)`; NaN for an empty axis.";
        var_keepdims KeepAxis [] |v| v,
        "[`var_axis`](Self::var_axis) with the axis kept as 1.";
        std_axis RemoveAxis [any(feature = "std", feature = "libm")] |v| v.sqrt(),
        "The standard deviation along axis `A` (removed): the square root of \
         [`var_axis`](Self::var_axis).";
        std_keepdims KeepAxis [any(feature = "std", feature = "libm")] |v| v.sqrt(),
        "[`std_axis`](Self::std_axis) with the axis kept as 1.";
    }

    /// Softmax along axis `A`: `exp(x - max) / sum(exp(x - max))` per lane (NaN, infinities
    /// and empty axes as `DynTensor::softmax`).
    #[cfg(any(feature = "std", feature = "libm"))]
    #[inline]
    #[track_caller]
    pub fn softmax<const A: isize>(&self) -> Stored<D::Family, T, S>
    where
        S: KeepAxis<A> + Storable,
    {
        fits_inline!(Stored<D::Family, T, S>);
        self.same_shape(|x, dims, out| normalize::softmax_into(x, dims, axis::<S, A>(), false, out))
    }

    /// Log-softmax along axis `A`: `(x - max) - ln(sum(exp(x - max)))` per lane.
    #[cfg(any(feature = "std", feature = "libm"))]
    #[inline]
    #[track_caller]
    pub fn log_softmax<const A: isize>(&self) -> Stored<D::Family, T, S>
    where
        S: KeepAxis<A> + Storable,
    {
        fits_inline!(Stored<D::Family, T, S>);
        self.same_shape(|x, dims, out| normalize::softmax_into(x, dims, axis::<S, A>(), true, out))
    }

    /// Layer normalization over every axis from `A` on (ONNX's `LayerNormalization` without
    /// scale and bias): `(x - mean) / sqrt(var + epsilon)` per normalized block.
    #[cfg(any(feature = "std", feature = "libm"))]
    #[inline]
    #[track_caller]
    pub fn layer_norm<const A: isize>(&self, epsilon: f32) -> Stored<D::Family, T, S>
    where
        S: KeepAxis<A> + Storable,
    {
        fits_inline!(Stored<D::Family, T, S>);
        let eps = T::Compute::from_f32(epsilon);
        self.same_shape(|x, dims, out| {
            normalize::layer_norm_into(x, dims, axis::<S, A>(), eps, out)
        })
    }

    /// RMS normalization over every axis from `A` on (ONNX's `RMSNormalization` without
    /// scale): `x / sqrt(mean(x^2) + epsilon)` per normalized block.
    #[cfg(any(feature = "std", feature = "libm"))]
    #[inline]
    #[track_caller]
    pub fn rms_norm<const A: isize>(&self, epsilon: f32) -> Stored<D::Family, T, S>
    where
        S: KeepAxis<A> + Storable,
    {
        fits_inline!(Stored<D::Family, T, S>);
        let eps = T::Compute::from_f32(epsilon);
        self.same_shape(|x, dims, out| normalize::rms_norm_into(x, dims, axis::<S, A>(), eps, out))
    }

    /// A result of `self`'s shape written by `kernel(x, dims, out)`, which writes every slot
    /// of `out`: in place, without a zero fill first (the fill was a `memset` of the whole
    /// result, 8200 instructions of 21600 for a layer norm of `[32, 64]` `f32`), inside one
    /// out-of-line call so that the result is not built in a temporary and copied.
    #[cfg(any(feature = "std", feature = "libm"))]
    #[inline(always)]
    #[track_caller]
    fn same_shape(
        &self,
        kernel: impl FnOnce(&[T], &[usize], &mut [MaybeUninit<T>]),
    ) -> Stored<D::Family, T, S>
    where
        S: Storable,
    {
        let dims = self.shape.dims();
        let dims = dims.as_ref();
        // SAFETY: the kernels write every slot of their output.
        unsafe {
            <S::Kind as super::result::ResultStorage<S>>::written::<D::Family, T>(dims, |slots| {
                fill_out_of_line(slots, (self.as_slice(), dims), |slots, (x, dims)| {
                    kernel(x, dims, slots)
                })
            })
        }
    }
}

/// # TFLite's float softmax
#[cfg(any(feature = "std", feature = "libm"))]
impl<S: Shape, D: Data<f32>> Tensor<f32, S, D> {
    /// TFLite's float `SOFTMAX` into `out`, along the last axis, in TFLite's reference order:
    /// per row, `m` its maximum; each `e = exp((x - m) * beta)` written, summed first to last
    /// from zero; then each `e / sum`. ([`softmax`](Self::softmax) sums pairwise and has no
    /// `beta`; this form gives the bits TFLite's and TFLM's kernels give.) An error value only
    /// for rank 0, or a `Dyn` dim of `out` that does not fit.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 3]>::from([[1.0, 2.0, 3.0]]);
    /// let mut y = Tensor::<f32, Shape![1, 3]>::zeros();
    /// x.tflite_softmax_into(1.0, &mut y)?;
    /// let (e1, e2) = ((-2.0f32).exp(), (-1.0f32).exp());
    /// let sum = e1 + e2 + 1.0;
    /// assert_eq!(y.as_slice(), &[e1 / sum, e2 / sum, 1.0 / sum]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn tflite_softmax_into<O: crate::typed::storage::DataMut<f32>>(
        &self,
        beta: f32,
        out: &mut Tensor<f32, S, O>,
    ) -> Result<(), crate::Error> {
        use crate::error::{Error, ErrorKind, Operation};
        use crate::op::ReduceOp;
        let op = Operation::Reduce {
            op: ReduceOp::Softmax,
        };
        let dims = self.shape();
        let (dims, got) = (dims.as_ref(), out.shape());
        let Some(&depth) = dims.last() else {
            let kind = ErrorKind::BadAxis { axis: -1, rank: 0 };
            return Err(Error::new(kind, op, dims, &[]));
        };
        check_same_shape(got.as_ref(), dims, op)?;
        if depth == 0 {
            return Ok(());
        }
        let rows = self.as_slice().chunks_exact(depth);
        for (x, y) in rows.zip(out.as_mut_slice().chunks_exact_mut(depth)) {
            let max = x.iter().fold(f32::MIN, |m, &v| if v > m { v } else { m });
            let mut sum = 0.0f32;
            for (e, &v) in y.iter_mut().zip(x) {
                *e = num_traits::Float::exp((v - max) * beta);
                sum += *e;
            }
            for e in y.iter_mut() {
                *e /= sum;
            }
        }
        Ok(())
    }
}

/// # TFLite's float kernels of one tensor (S8)
///
/// What an imported float model's `LOGISTIC`, `TANH`, `RELU`, `RELU6` and `MEAN` run: TFLite's
/// reference formulas, in its order, into a buffer of the right shape.
#[cfg(any(feature = "std", feature = "libm"))]
impl<S: Shape, D: Data<f32>> Tensor<f32, S, D> {
    /// TFLite's float `LOGISTIC` into `out` (S8): 1 above 16.619047, `exp(x)` below -9,
    /// `1 / (1 + exp(-x))` between.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![3]>::from([0.0, 20.0, -10.0]);
    /// let mut y = Tensor::<f32, Shape![3]>::zeros();
    /// x.tflite_logistic_into(&mut y)?;
    /// assert_eq!(y.as_slice(), &[0.5, 1.0, (-10.0f32).exp()]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn tflite_logistic_into<O: crate::typed::storage::DataMut<f32>>(
        &self,
        out: &mut Tensor<f32, S, O>,
    ) -> Result<(), crate::Error> {
        // TFLite's cutoffs: above it the result rounds to 1; below -9, `exp(x)` alone.
        const UPPER: f32 = 16.619_047;
        let exp = num_traits::Float::exp;
        map_into(self, out, Operation::Compute, |&x| {
            if x > UPPER {
                1.0
            } else if x < -9.0 {
                exp(x)
            } else {
                1.0 / (1.0 + exp(-x))
            }
        })
    }

    /// TFLite's float `TANH` into `out` (S8): `tanh` of each element.
    pub fn tflite_tanh_into<O: crate::typed::storage::DataMut<f32>>(
        &self,
        out: &mut Tensor<f32, S, O>,
    ) -> Result<(), crate::Error> {
        map_into(self, out, Operation::Compute, |&x| {
            num_traits::Float::tanh(x)
        })
    }

    /// TFLite's float `RELU` (`six: false`: `x < 0 ? 0 : x`) or `RELU6` (`x > 6 ? 6 : x < 0 ?
    /// 0 : x`) into `out` (S8); NaN stays NaN.
    pub fn tflite_relu_into<O: crate::typed::storage::DataMut<f32>>(
        &self,
        six: bool,
        out: &mut Tensor<f32, S, O>,
    ) -> Result<(), crate::Error> {
        if six {
            // `clamp` keeps NaN and -0.0, as TFLite's comparisons do.
            map_into(self, out, Operation::Compute, |&x| x.clamp(0.0, 6.0))
        } else {
            map_into(
                self,
                out,
                Operation::Compute,
                |&x| if x < 0.0 { 0.0 } else { x },
            )
        }
    }

    /// TFLite's float `MEAN` over axes 1 and 2 (height and width of NHWC, any rank from 3)
    /// into `out`, its dims those axes removed or kept as 1 (S8): each output the sum from 0 of
    /// its window in row-major order, divided once by the count.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 2, 2, 1]>::from([[[[1.0], [2.0]], [[3.0], [5.0]]]]);
    /// let mut y = Tensor::<f32, Shape![1, 1]>::zeros();
    /// x.tflite_mean_hw_into(&mut y)?;
    /// assert_eq!(y.as_slice(), &[2.75]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn tflite_mean_hw_into<S2: Shape, O: crate::typed::storage::DataMut<f32>>(
        &self,
        out: &mut Tensor<f32, S2, O>,
    ) -> Result<(), crate::Error> {
        let (dims, got) = (self.shape(), out.shape());
        let (outer, hw, inner) = crate::quant::mean::mean_blocks_into(dims.as_ref(), got.as_ref())?;
        let (x, y) = (self.as_slice(), out.as_mut_slice());
        for (b, block) in y.chunks_exact_mut(inner.max(1)).enumerate().take(outer) {
            for (c, v) in block.iter_mut().enumerate().take(inner) {
                let mut sum = 0.0f32;
                for p in 0..hw {
                    sum += x[(b * hw + p) * inner + c];
                }
                *v = sum / hw as f32;
            }
        }
        Ok(())
    }
}
