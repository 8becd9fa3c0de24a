//! Per-axis (per-channel) parameters (Q16): one scale and zero point for each index along one
//! axis, TFLite's `quantized_dimension`. TFLM uses them for the weights of its matrix and
//! convolution kernels; here they also quantize and dequantize any tensor.
//!
//! The parameters borrow their arrays, so a model's tables stay in flash (`static`) and nothing
//! is allocated. [`PerAxis`] knows its length at compile time, so attaching it to an axis of
//! static size is checked by the compiler; [`DynPerAxis`] knows it at run time.

use core::marker::PhantomData;

use super::params::{quant_error, Quant, QuantElement};
use crate::error::{Error, QuantProblem};

/// `N` per-axis parameters for elements `E`: index `i` along the quantized axis holds the real
/// value `scales[i] * (q - zero_points[i])` (Q16). Each pair is checked as [`Quant::new`]
/// checks one (Q1).
///
/// ```
/// use shaped::quant::PerAxis;
/// static SCALES: [f32; 3] = [0.5, 0.25, 0.125];
/// static ZEROS: [i32; 3] = [0, 0, 0];
/// const P: PerAxis<'static, i8, 3> = PerAxis::new_const(&SCALES, &ZEROS);
/// assert_eq!(P.get(1).map(|q| q.scale()), Some(0.25));
/// assert_eq!(
///     PerAxis::<i8, 2>::new(&[0.5, f32::NAN], &[0, 0]).unwrap_err().to_string(),
///     "invalid quantization: the scale NaN must be finite and positive (Q1)"
/// );
/// ```
#[derive(Debug, PartialEq)]
pub struct PerAxis<'p, E, const N: usize> {
    scales: &'p [f32; N],
    zero_points: &'p [i32; N],
    element: PhantomData<fn() -> E>,
}

impl<E, const N: usize> Clone for PerAxis<'_, E, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E, const N: usize> Copy for PerAxis<'_, E, N> {}

/// Per-axis parameters whose count is known at run time (Q16): the form a model read at run
/// time gives, and what [`PerAxis`] becomes on a runtime tensor.
///
/// ```
/// use shaped::quant::DynPerAxis;
/// let p = DynPerAxis::<u8>::new(&[0.5, 0.25], &[128, 100])?;
/// assert_eq!(p.len(), 2);
/// assert_eq!(
///     DynPerAxis::<u8>::new(&[0.5, 0.25], &[128]).unwrap_err().to_string(),
///     "invalid quantization: 2 scales but 1 zero points; each index of the axis needs one \
///      of each (Q16)"
/// );
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Debug, PartialEq)]
pub struct DynPerAxis<'p, E> {
    scales: &'p [f32],
    zero_points: &'p [i32],
    element: PhantomData<fn() -> E>,
}

impl<E> Clone for DynPerAxis<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for DynPerAxis<'_, E> {}

/// Checks each pair as Q1 does; the first bad one is the error.
const fn check_pairs<E: QuantElement>(scales: &[f32], zero_points: &[i32]) -> Result<(), Error> {
    if scales.len() != zero_points.len() {
        return Err(quant_error(QuantProblem::PerAxisCounts {
            scales: scales.len(),
            zero_points: zero_points.len(),
        }));
    }
    let mut i = 0;
    while i < scales.len() {
        if let Err(e) = Quant::<E>::new(scales[i], zero_points[i]) {
            return Err(e);
        }
        i += 1;
    }
    Ok(())
}

impl<'p, E: QuantElement, const N: usize> PerAxis<'p, E, N> {
    /// Parameters from `N` scales and `N` zero points, each pair checked (Q1).
    pub const fn new(scales: &'p [f32; N], zero_points: &'p [i32; N]) -> Result<Self, Error> {
        match check_pairs::<E>(scales, zero_points) {
            Ok(()) => Ok(PerAxis {
                scales,
                zero_points,
                element: PhantomData,
            }),
            Err(e) => Err(e),
        }
    }

    /// [`PerAxis::new`] for constants: invalid parameters are a compile error where it is
    /// evaluated in `const` context.
    ///
    /// ```compile_fail
    /// use shaped::quant::PerAxis;
    /// const P: PerAxis<'static, i8, 2> = PerAxis::new_const(&[0.5, 0.5], &[0, 300]);
    /// ```
    pub const fn new_const(scales: &'p [f32; N], zero_points: &'p [i32; N]) -> Self {
        match Self::new(scales, zero_points) {
            Ok(p) => p,
            Err(_) => panic!("invalid per-axis quantization parameters (Q1, Q16)"),
        }
    }

    /// The same parameters with their count known at run time.
    #[inline]
    pub const fn to_dyn(self) -> DynPerAxis<'p, E> {
        DynPerAxis {
            scales: self.scales,
            zero_points: self.zero_points,
            element: PhantomData,
        }
    }
}

impl<'p, E: QuantElement> DynPerAxis<'p, E> {
    /// Parameters from as many scales as zero points, each pair checked (Q1, Q16).
    pub const fn new(scales: &'p [f32], zero_points: &'p [i32]) -> Result<Self, Error> {
        match check_pairs::<E>(scales, zero_points) {
            Ok(()) => Ok(DynPerAxis {
                scales,
                zero_points,
                element: PhantomData,
            }),
            Err(e) => Err(e),
        }
    }

    /// These parameters for an axis of `dim` indices: an error unless there is one pair per
    /// index (Q16).
    pub(crate) const fn check_dim(&self, axis: usize, dim: usize) -> Result<(), Error> {
        if self.scales.len() == dim {
            Ok(())
        } else {
            Err(quant_error(QuantProblem::PerAxisLength {
                params: self.scales.len(),
                axis,
                dim,
            }))
        }
    }
}

impl<'p, E> DynPerAxis<'p, E> {
    /// The number of indices along the axis these parameters quantize.
    #[inline]
    pub const fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether there are no parameters (they fit an axis of size 0).
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// The scales.
    #[inline]
    pub const fn scales(&self) -> &'p [f32] {
        self.scales
    }

    /// The zero points.
    #[inline]
    pub const fn zero_points(&self) -> &'p [i32] {
        self.zero_points
    }
}

impl<E: QuantElement> DynPerAxis<'_, E> {
    /// The parameters of index `i` along the axis, `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Quant<E>> {
        match (self.scales.get(i), self.zero_points.get(i)) {
            // Checked at construction, so `new` does not fail here.
            (Some(&s), Some(&z)) => Quant::new(s, z).ok(),
            _ => None,
        }
    }
}

impl<'p, E, const N: usize> PerAxis<'p, E, N> {
    /// The number of indices along the axis these parameters quantize: `N`.
    #[inline]
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether `N` is 0 (the parameters of an axis of size 0).
    #[inline]
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// The scales.
    #[inline]
    pub const fn scales(&self) -> &'p [f32; N] {
        self.scales
    }

    /// The zero points.
    #[inline]
    pub const fn zero_points(&self) -> &'p [i32; N] {
        self.zero_points
    }
}

impl<E: QuantElement, const N: usize> PerAxis<'_, E, N> {
    /// The parameters of index `i` along the axis, `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Quant<E>> {
        self.as_dyn().get(i)
    }
}

/// Values of any tensor type `X` quantized along one axis by per-axis parameters `P`
/// ([`PerAxis`] or [`DynPerAxis`]), made by `quantized_per_axis` (static and mixed tensors,
/// checked at compile time when the axis has a static size) or `try_quantized_per_axis`
/// (runtime tensors and axes), or by `quantize_per_axis` from `f32`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantizedPerAxis<X, P> {
    values: X,
    params: P,
    axis: usize,
}

impl<X, P> QuantizedPerAxis<X, P> {
    /// `values` with `params` along `axis`; the caller has checked that they fit.
    #[inline]
    pub(crate) const fn new_unchecked(values: X, params: P, axis: usize) -> Self {
        QuantizedPerAxis {
            values,
            params,
            axis,
        }
    }

    /// The stored integers.
    #[inline]
    pub const fn values(&self) -> &X {
        &self.values
    }

    /// The stored integers, to change in place.
    #[inline]
    pub fn values_mut(&mut self) -> &mut X {
        &mut self.values
    }

    /// The parameters.
    #[inline]
    pub const fn params(&self) -> &P {
        &self.params
    }

    /// The quantized axis.
    #[inline]
    pub const fn axis(&self) -> usize {
        self.axis
    }

    /// The values, the parameters and the axis.
    #[inline]
    pub fn into_parts(self) -> (X, P, usize) {
        (self.values, self.params, self.axis)
    }
}

/// Per-axis parameters as slices, whichever form holds them.
pub trait AxisParams<E>: Copy + sealed::Sealed {
    /// The parameters with their count known at run time.
    fn as_dyn(&self) -> DynPerAxis<'_, E>;
}

mod sealed {
    pub trait Sealed {}
    impl<E, const N: usize> Sealed for super::PerAxis<'_, E, N> {}
    impl<E> Sealed for super::DynPerAxis<'_, E> {}
}

impl<E, const N: usize> AxisParams<E> for PerAxis<'_, E, N> {
    #[inline]
    fn as_dyn(&self) -> DynPerAxis<'_, E> {
        DynPerAxis {
            scales: self.scales,
            zero_points: self.zero_points,
            element: PhantomData,
        }
    }
}

impl<E> AxisParams<E> for DynPerAxis<'_, E> {
    #[inline]
    fn as_dyn(&self) -> DynPerAxis<'_, E> {
        *self
    }
}

/// The product of the dims after `axis` (how many elements each index of the axis spans in
/// row-major order), `None` when it overflows, which only a shape with no elements can do
/// (and then nothing is spanned).
fn inner_count(dims: &[usize], axis: usize) -> Option<usize> {
    dims.get(axis + 1..)?
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Checks `params` against axis `axis` of `dims` (Q16).
pub(crate) fn check_axis<E: QuantElement>(
    dims: &[usize],
    axis: usize,
    params: DynPerAxis<'_, E>,
) -> Result<(), Error> {
    let Some(&dim) = dims.get(axis) else {
        return Err(quant_error(QuantProblem::PerAxisAxis {
            axis,
            rank: dims.len(),
        }));
    };
    params.check_dim(axis, dim)
}

/// `out[i] = f(values[i], the parameters of i's index along the axis)`, the axis's indices each
/// spanning `inner` elements, row-major.
fn along<E: QuantElement, X: Copy, Y>(
    values: &[X],
    inner: usize,
    params: DynPerAxis<'_, E>,
    out: &mut [Y],
    f: impl Fn(X, Quant<E>) -> Y,
) {
    if values.is_empty() || inner == 0 || params.is_empty() {
        return;
    }
    let channels = (0..params.len()).cycle();
    for ((src, dst), c) in values
        .chunks(inner)
        .zip(out.chunks_mut(inner))
        .zip(channels)
    {
        if let Some(q) = params.get(c) {
            for (d, &v) in dst.iter_mut().zip(src) {
                *d = f(v, q);
            }
        }
    }
}

/// `out[i] = scale_c * (values[i] - zero_point_c)` (Q10 with the parameters of `i`'s index
/// `c` along `axis` of the row-major `dims`, Q16), for parameters checked against the axis.
pub(crate) fn dequantize_along<E: QuantElement>(
    values: &[E],
    dims: &[usize],
    axis: usize,
    params: DynPerAxis<'_, E>,
    out: &mut [f32],
) {
    let inner = inner_count(dims, axis).unwrap_or(0);
    along(values, inner, params, out, super::dequantize_value);
}

/// `out[i] = clamp(zero_point_c + round(values[i] / scale_c))` (Q10 with the parameters of
/// `i`'s index `c` along `axis` of the row-major `dims`, Q16), for parameters checked
/// against the axis.
pub(crate) fn quantize_along<E: QuantElement>(
    values: &[f32],
    dims: &[usize],
    axis: usize,
    params: DynPerAxis<'_, E>,
    out: &mut [E],
) {
    let inner = inner_count(dims, axis).unwrap_or(0);
    along(values, inner, params, out, super::quantize_value);
}
