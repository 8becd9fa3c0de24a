//! The numerics every model writes by hand: softmax and log-softmax along an axis, variance
//! and standard deviation along an axis (with `ddof`), layer and RMS normalization over the
//! trailing axes, and the sum or mean of every element. The slice kernels here serve static,
//! mixed and runtime tensors alike, so the three agree bit for bit; `DynTensor`'s methods are
//! at the end.
//!
//! Each follows the reference formula of its definition, step for step (rules S1-S6):
//! softmax subtracts the maximum first (numpy's and ONNX's `Softmax`), so no
//! finite input overflows; variance is numpy's two-pass `sum((x - mean)^2) / max(n - ddof,
//! 0)`; the normalizations are ONNX's `LayerNormalization` and `RMSNormalization` (opset 23)
//! with `stash_type` 1. Every sum is pairwise (error `O(log n)` roundings, as numpy's), in the
//! element's compute type (`f32` for `f16`/`bf16`), rounded once per result.

use super::reduce::split;
use crate::element::Real;

/// The pairwise sum of `f(0) + ... + f(n - 1)`: halves added recursively, runs of 8 in order.
#[inline]
fn pairwise<C: Real>(lo: usize, hi: usize, f: &impl Fn(usize) -> C) -> C {
    if hi - lo <= 8 {
        let mut s = C::ZERO;
        for k in lo..hi {
            s = s + f(k);
        }
        s
    } else {
        let mid = lo + (hi - lo) / 2;
        pairwise(lo, mid, f) + pairwise(mid, hi, f)
    }
}

/// The largest of `f(0), ..., f(n - 1)`, NaN if any is NaN (numpy's `max`); `n > 0`.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline]
fn lane_max<C: Real>(n: usize, f: &impl Fn(usize) -> C) -> C {
    let mut m = f(0);
    for k in 1..n {
        let v = f(k);
        // Once NaN, `m` stays NaN: `v > NaN` is false and a non-NaN `v` equals itself.
        #[allow(clippy::eq_op)]
        if v > m || v != v {
            m = v;
        }
    }
    m
}

/// The mean of `f(0), ..., f(n - 1)` and the sum of their squared deviations from it, in two
/// passes (numpy's `var`): the shared first steps of the variance and layer normalization.
#[inline]
fn moments<C: Real>(n: usize, f: &impl Fn(usize) -> C) -> (C, C) {
    let mean = pairwise(0, n, f) / count(n);
    let ss = pairwise(0, n, &|k| {
        let d = f(k) - mean;
        d * d
    });
    (mean, ss)
}

/// The sum of every element, pairwise, in the compute type (0 for none).
fn total<T: Real>(x: &[T]) -> T::Compute {
    pairwise(0, x.len(), &|k| x[k].to_compute())
}

/// The sum of every element, pairwise, rounded once (0 for none).
pub(crate) fn sum_all<T: Real>(x: &[T]) -> T {
    T::from_compute(total(x))
}

/// The mean of every element (NaN for none, as numpy's `mean`).
pub(crate) fn mean_all<T: Real>(x: &[T]) -> T {
    T::from_compute(total(x) / count::<T::Compute>(x.len()))
}

/// `n` as the compute type.
#[inline]
fn count<C: Real>(n: usize) -> C {
    C::from_f64(n as f64)
}

/// Softmax (or, with `log`, log-softmax) of `x` (row-major `dims`) along `axis`, into `out`
/// (the same length). Per lane: `m` its maximum (NaN if any element is); softmax
/// `exp(x - m) / sum(exp(x - m))`; log-softmax `(x - m) - ln(sum(exp(x - m)))`.
#[cfg(any(feature = "std", feature = "libm"))]
pub(crate) fn softmax_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    log: bool,
    out: &mut [T],
) {
    let (outer, n, inner) = split(dims, axis);
    if n == 0 {
        return;
    }
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            let at = |k: usize| base + k * inner;
            let m = lane_max(n, &|k| x[at(k)].to_compute());
            let s = pairwise(0, n, &|k| (x[at(k)].to_compute() - m).exp());
            if log {
                let ls = s.ln();
                for k in 0..n {
                    out[at(k)] = T::from_compute((x[at(k)].to_compute() - m) - ls);
                }
            } else {
                for k in 0..n {
                    out[at(k)] = T::from_compute((x[at(k)].to_compute() - m).exp() / s);
                }
            }
        }
    }
}

/// The variance of `x` (row-major `dims`) along `axis` into `out` (`outer * inner` results,
/// the axis removed), numpy's: `sum((x - mean)^2) / max(n - ddof, 0)`, so NaN for an empty
/// axis and `inf` (or NaN) when `ddof >= n`; with `sqrt`, the standard deviation.
pub(crate) fn var_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    ddof: usize,
    finish: impl Fn(T::Compute) -> T::Compute,
    out: &mut [T],
) {
    let (outer, n, inner) = split(dims, axis);
    let divisor = count::<T::Compute>(n.saturating_sub(ddof));
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            let (_, ss) = moments(n, &|k| x[base + k * inner].to_compute());
            out[o * inner + i] = T::from_compute(finish(ss / divisor));
        }
    }
}

/// `x` (row-major `dims`) normalized block by block over every axis from `axis` on, into
/// `out`: `stats(block)` gives each block's `(shift, inv)`, and each result is
/// `(x - shift) * inv`. The blocks are contiguous, the product of those dims long.
#[cfg(any(feature = "std", feature = "libm"))]
fn blocks_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    out: &mut [T],
    stats: impl Fn(&[T]) -> (T::Compute, T::Compute),
) {
    // At most the element count of a shape that exists.
    let n: usize = dims[axis..].iter().product();
    if n == 0 {
        return;
    }
    for (lane, dst) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
        let (shift, inv) = stats(lane);
        for (x, y) in lane.iter().zip(dst) {
            *y = T::from_compute((x.to_compute() - shift) * inv);
        }
    }
}

/// Layer normalization (ONNX `LayerNormalization`, no scale or bias) of `x` (row-major
/// `dims`) over every axis from `axis` on, into `out`: per block, `d = x - mean`,
/// `var = mean(d^2)`, `d * (1 / sqrt(var + epsilon))`.
#[cfg(any(feature = "std", feature = "libm"))]
pub(crate) fn layer_norm_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    epsilon: T::Compute,
    out: &mut [T],
) {
    blocks_into(x, dims, axis, out, |lane| {
        let n = lane.len();
        let (mean, ss) = moments(n, &|k| lane[k].to_compute());
        let var = ss / count(n);
        (
            mean,
            <T::Compute as crate::element::Element>::ONE / (var + epsilon).sqrt(),
        )
    })
}

/// RMS normalization (ONNX `RMSNormalization`, no scale) of `x` (row-major `dims`) over
/// every axis from `axis` on, into `out`: per block, `x * (1 / sqrt(mean(x^2) + epsilon))`
/// (a shift of 0: `x - 0` is `x`, bit for bit, `-0.0` and NaN included).
#[cfg(any(feature = "std", feature = "libm"))]
pub(crate) fn rms_norm_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    epsilon: T::Compute,
    out: &mut [T],
) {
    blocks_into(x, dims, axis, out, |lane| {
        let v = |k: usize| lane[k].to_compute();
        let ms = pairwise(0, lane.len(), &|k| v(k) * v(k)) / count(lane.len());
        let zero = <T::Compute as crate::element::Element>::ZERO;
        (
            zero,
            <T::Compute as crate::element::Element>::ONE / (ms + epsilon).sqrt(),
        )
    })
}

#[cfg(feature = "alloc")]
mod dyn_tensor {
    use super::*;
    use crate::error::Error;
    #[cfg(any(feature = "std", feature = "libm"))]
    use crate::op::BinaryOp;
    use crate::op::ReduceOp;
    use crate::rules;
    use crate::runtime::dyn_tensor::DynTensor;

    /// `axis` of `shape` resolved (negative from the end), or the reduction's error naming it.
    fn one_axis(shape: &[usize], axis: i64, op: ReduceOp) -> Result<usize, Error> {
        let mask = rules::reduce_axes(shape, &[axis], op)?;
        Ok(mask.trailing_zeros() as usize)
    }

    /// The numerics every model needs (rules S1-S6): each follows the reference formula of its
    /// definition, sums pairwise in the compute type, and agrees bit for bit with the method
    /// of the same name on static and mixed tensors.
    ///
    /// ```
    /// # #[cfg(any(feature = "std", feature = "libm"))] {
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 3], vec![1.0f64, 2.0, 3.0, 1.0, 1.0, 1.0])?;
    /// let p = x.softmax(-1)?;
    /// assert!((p.as_slice()[2] - 0.6652409557748219).abs() < 1e-15);
    /// assert!(p.sum(&[1], false)?.iter().all(|s| (s - 1.0).abs() < 1e-15));
    /// assert_eq!(x.var(1, 0, false)?.as_slice(), &[2.0 / 3.0, 0.0]);
    /// assert_eq!(x.mean_all(), 1.5);
    /// let y = x.layer_norm(1, 1e-5, None, None)?;
    /// assert!(y.as_slice()[3..].iter().all(|&v| v == 0.0));
    /// # }
    /// # Ok::<(), shaped::Error>(())
    /// ```
    impl<T: Real> DynTensor<T> {
        /// The sum of every element, pairwise (0 for none).
        pub fn sum_all(&self) -> T {
            sum_all(self.as_slice())
        }

        /// The mean of every element (NaN for none).
        pub fn mean_all(&self) -> T {
            mean_all(self.as_slice())
        }

        /// The variance along `axis` (negative from the end), numpy's
        /// `var(x, axis, ddof=ddof)`: `sum((x - mean)^2) / max(n - ddof, 0)`. An empty axis
        /// gives NaN; `ddof >= n` divides by 0 (`inf`, or NaN when every deviation is 0).
        /// The axis is kept as 1 with `keepdims`, else removed.
        pub fn var(&self, axis: i64, ddof: usize, keepdims: bool) -> Result<DynTensor<T>, Error> {
            self.moments(axis, ddof, keepdims, ReduceOp::Var, |v| v)
        }

        /// The standard deviation along `axis`: the square root of [`var`](Self::var).
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn std(&self, axis: i64, ddof: usize, keepdims: bool) -> Result<DynTensor<T>, Error> {
            self.moments(axis, ddof, keepdims, ReduceOp::Std, |v| v.sqrt())
        }

        fn moments(
            &self,
            axis: i64,
            ddof: usize,
            keepdims: bool,
            op: ReduceOp,
            finish: impl Fn(T::Compute) -> T::Compute,
        ) -> Result<DynTensor<T>, Error> {
            let a = one_axis(self.shape(), axis, op)?;
            let shape = rules::reduced_shape(self.shape(), 1 << a, keepdims);
            let count = crate::runtime::element_count::<T>(&shape)?;
            let mut out = crate::runtime::try_filled(count, T::ZERO, &shape)?;
            var_into(self.as_slice(), self.shape(), a, ddof, finish, &mut out);
            Ok(DynTensor::from_parts(&shape, out))
        }

        /// Softmax along `axis` (negative from the end): `exp(x - max) / sum(exp(x - max))`
        /// per lane, so no finite input overflows. A lane holding NaN, or `+inf`, or only
        /// `-inf`, is all NaN (as numpy's and ONNX's formula gives); an empty axis gives an
        /// empty result.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn softmax(&self, axis: i64) -> Result<DynTensor<T>, Error> {
            self.along(axis, ReduceOp::Softmax, |x, dims, a, out| {
                softmax_into(x, dims, a, false, out)
            })
        }

        /// Log-softmax along `axis`: `(x - max) - ln(sum(exp(x - max)))` per lane. Finite
        /// where `ln(softmax)` would round to `-inf` (ONNX's reference computes the latter);
        /// NaN, infinities and empty axes as in [`softmax`](Self::softmax).
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn log_softmax(&self, axis: i64) -> Result<DynTensor<T>, Error> {
            self.along(axis, ReduceOp::LogSoftmax, |x, dims, a, out| {
                softmax_into(x, dims, a, true, out)
            })
        }

        /// Layer normalization over every axis from `axis` on (negative from the end), ONNX's
        /// `LayerNormalization`: `(x - mean) / sqrt(var + epsilon)` per normalized block, then
        /// `* scale` and `+ bias` when given, each broadcast onto the result (B5: a `[D]`
        /// scale for the last axis, or the normalized block's shape).
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn layer_norm(
            &self,
            axis: i64,
            epsilon: f32,
            scale: Option<&DynTensor<T>>,
            bias: Option<&DynTensor<T>>,
        ) -> Result<DynTensor<T>, Error> {
            let eps = T::Compute::from_f32(epsilon);
            let y = self.along(axis, ReduceOp::LayerNorm, |x, dims, a, out| {
                layer_norm_into(x, dims, a, eps, out)
            })?;
            y.scaled(scale, bias)
        }

        /// RMS normalization over every axis from `axis` on, ONNX's `RMSNormalization`:
        /// `x / sqrt(mean(x^2) + epsilon)` per normalized block, then `* scale` when given
        /// (broadcast onto the result, B5).
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn rms_norm(
            &self,
            axis: i64,
            epsilon: f32,
            scale: Option<&DynTensor<T>>,
        ) -> Result<DynTensor<T>, Error> {
            let eps = T::Compute::from_f32(epsilon);
            let y = self.along(axis, ReduceOp::RmsNorm, |x, dims, a, out| {
                rms_norm_into(x, dims, a, eps, out)
            })?;
            y.scaled(scale, None)
        }

        /// A normalization's result `* scale`, then `+ bias`, each broadcast onto it (B5).
        #[cfg(any(feature = "std", feature = "libm"))]
        fn scaled(
            mut self,
            scale: Option<&DynTensor<T>>,
            bias: Option<&DynTensor<T>>,
        ) -> Result<DynTensor<T>, Error> {
            if let Some(s) = scale {
                self.update_op(s.view(), BinaryOp::Mul, crate::op::binary_fn!(Mul, T))?;
            }
            if let Some(b) = bias {
                self.update_op(b.view(), BinaryOp::Add, crate::op::binary_fn!(Add, T))?;
            }
            Ok(self)
        }

        /// A result of `self`'s shape written by `kernel(x, dims, axis, out)`.
        #[cfg(any(feature = "std", feature = "libm"))]
        fn along(
            &self,
            axis: i64,
            op: ReduceOp,
            kernel: impl FnOnce(&[T], &[usize], usize, &mut [T]),
        ) -> Result<DynTensor<T>, Error> {
            let a = one_axis(self.shape(), axis, op)?;
            let mut out = crate::runtime::try_filled(self.len(), T::ZERO, self.shape())?;
            kernel(self.as_slice(), self.shape(), a, &mut out);
            Ok(DynTensor::from_parts(self.shape(), out))
        }
    }
}
