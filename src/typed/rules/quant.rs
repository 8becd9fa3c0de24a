//! Per-axis quantization at compile time (Q16): `N` parameters fit axis `A` of a shape when
//! that axis has the static size `N`. The runtime form is `quant::DynPerAxis`'s check, taken by
//! `try_quantized_per_axis`.

use crate::typed::dim::Const;
use crate::typed::shape::Shape;

use super::SelectAxis;

/// `N` per-axis parameters fit axis `A` of `Self` (Q16): the axis exists and its size is the
/// static `N`. An axis of runtime size is checked at run time instead
/// (`try_quantized_per_axis`).
///
/// ```
/// use shaped::{typed::rules::PerAxisShape, Shape};
/// fn fits<S: PerAxisShape<1, 3>>() {}
/// fits::<Shape![_, 3, 4]>();
/// ```
pub trait PerAxisShape<const A: usize, const N: usize>: Shape {}

impl<S, const A: usize, const N: usize> PerAxisShape<A, N> for S
where
    S: SelectAxis<A>,
    <S as SelectAxis<A>>::Dim: PerAxisDim<N, S, A>,
{
}

/// Holds for `Const<N>` only; its message is the error of per-axis parameters that do not fit
/// their axis.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "{N} per-axis parameters cannot quantize axis {A} of `{S}`, whose dim is `{Self}` (Q16)",
    label = "one scale and zero point per index of the axis",
    note = "an axis of runtime size takes `try_quantized_per_axis`, checked at run time"
)]
pub trait PerAxisDim<const N: usize, S, const A: usize> {}

impl<const N: usize, S, const A: usize> PerAxisDim<N, S, A> for Const<N> {}
