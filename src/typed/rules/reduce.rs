//! Reductions at compile time: the shape left by reducing axis `A` (removed, or kept as 1;
//! negative axes count from the end, as at run time), an axis outside the shape, and an empty axis for the reductions that have no identity (`max`,
//! `min`, `argmax`, `argmin`), each a compile error that names the axis and the shape. The
//! runtime form is [`rules::reduce_axes`](crate::rules::reduce_axes).

use typenum::{Eq as TEq, IsEqual, U0};

use crate::typed::dim::{Const, Dim, Dyn, ToUnsigned};
use crate::typed::shape::Shape;

/// `Self` with axis `A` removed: the shape of `sum_axis::<A>()` and its kin.
///
/// ```
/// use shaped::{typed::rules::RemoveAxis, Shape};
/// fn same<T>(_: T, _: T) {}
/// same(<<Shape![2, 3, 4] as RemoveAxis<1>>::Output>::default(), <Shape![2, 4]>::default());
/// ```
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (R1)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait RemoveAxis<const A: isize>: Shape {
    /// The shape without axis `A`.
    type Output: Shape;
}

/// `S` without axis `A` ([`RemoveAxis`]): the shape of `sum_axis::<A>()` and its kin.
pub type WithoutAxis<S, const A: isize> = <S as RemoveAxis<A>>::Output;

/// `Self` with axis `A` replaced by a 1: the shape of `sum_keepdims::<A>()` and its kin, which
/// broadcasts back against `Self` (`&x - &x.mean_keepdims::<A>()`).
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (R1)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait KeepAxis<const A: isize>: Shape {
    /// The shape with axis `A` as 1.
    type Output: Shape;
}

/// `S` with axis `A` as 1 ([`KeepAxis`]): the shape of `sum_keepdims::<A>()` and its kin.
pub type KeepDims<S, const A: isize> = <S as KeepAxis<A>>::Output;

/// Axis `A` of `Self` has elements (or is a [`Dyn`], checked at run time): what `max`, `min`,
/// `argmax` and `argmin` need, since no elements have no largest one.
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (R1)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait NonEmptyAxis<const A: isize>: Shape {}

/// Axis `a` of a rank-`rank` shape as an index: a negative axis counts from the end. The
/// traits above hold only for axes inside the shape, so `a + rank` is not negative here.
#[doc(hidden)]
pub const fn axis_index(a: isize, rank: usize) -> usize {
    if a < 0 {
        (a + rank as isize) as usize
    } else {
        a as usize
    }
}

/// A dim that is not 0 (a [`Dyn`] is checked at run time).
pub trait NonEmptyDim {}

impl NonEmptyDim for Dyn {}
impl<const N: usize> NonEmptyDim for Const<N>
where
    Const<N>: ToUnsigned,
    <Const<N> as ToUnsigned>::Output: IsEqual<U0>,
    TEq<<Const<N> as ToUnsigned>::Output, U0>: NotZero<Const<N>>,
{
}

/// Holds for `B0`, "the dim is not 0"; its message is the error of reducing an empty axis.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the reduced axis is `{D}`, which has no elements: `max`, `min`, `argmax` and `argmin` have no value for no elements (R3)",
    label = "reducing an axis of size 0 with no identity"
)]
pub trait NotZero<D> {}
impl<D> NotZero<D> for typenum::B0 {}

include!(concat!(env!("OUT_DIR"), "/axis_impls.rs"));
