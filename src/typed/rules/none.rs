//! NONE at compile time (N1-N3): identical shapes, for static and mixed dims.

use crate::typed::dim::{Const, Dim, Dyn};
use crate::typed::shape::Shape;

/// NONE rule (N1-N3): `Self` and `Rhs` must be the same shape, rank and every dim.
///
/// Holds exactly when the two types are equal, so it needs no dim table and works for any size.
#[diagnostic::on_unimplemented(
    message = "shapes `{Self}` and `{Rhs}` differ, but NONE broadcasting needs identical shapes",
    label = "NONE (EXPLICIT): same rank and every dim equal; nothing stretches (rule N1)"
)]
pub trait SameShape<Rhs> {}
impl<S: Shape> SameShape<S> for S {}

/// NONE per dim for shapes with [`Dyn`] dims: equal static dims, or a static and a `Dyn` (the
/// runtime value must equal the static one), or two `Dyn`s.
#[diagnostic::on_unimplemented(
    message = "dims `{Self}` and `{Rhs}` differ, but NONE broadcasting needs identical shapes",
    label = "NONE (EXPLICIT): every dim equal; nothing stretches (rule N1)"
)]
pub trait NoneDim<Rhs> {
    /// The output dim: the static one when there is one.
    type Output: Dim;
}
impl<const N: usize> NoneDim<Const<N>> for Const<N> {
    type Output = Const<N>;
}
impl<const N: usize> NoneDim<Dyn> for Const<N> {
    type Output = Const<N>;
}
impl<const N: usize> NoneDim<Const<N>> for Dyn {
    type Output = Const<N>;
}
impl NoneDim<Dyn> for Dyn {
    type Output = Dyn;
}

/// NONE for shapes that may have [`Dyn`] dims: same rank, each dim pair per [`NoneDim`].
#[diagnostic::on_unimplemented(
    message = "shapes `{Self}` and `{Rhs}` have different ranks, but NONE broadcasting needs identical shapes",
    label = "NONE (EXPLICIT): same rank and every dim equal (rules N1, N2)"
)]
pub trait NoneShape<Rhs> {
    /// The output shape.
    type Output: Shape;
}

macro_rules! none_shape_impl {
    ($(($a:ident $b:ident))*) => {
        impl<$($a: Dim + NoneDim<$b>, $b: Dim,)*> NoneShape<($($b,)*)> for ($($a,)*) {
            type Output = ($(<$a as NoneDim<$b>>::Output,)*);
        }
    };
}
for_each_rank!(none_shape_impl);
