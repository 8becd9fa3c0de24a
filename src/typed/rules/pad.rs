//! Pad at compile time (rule M13): the shape that padding one axis by amounts fixed at compile
//! time gives, and the compile error of padding an empty axis from its own elements. The
//! runtime form is [`rules::pad_shape`](crate::rules::pad_shape).
//!
//! The padded dim is a typenum sum, so the dim and both amounts must be in the static-dim
//! table, and the result at most 2048 or a power of two ([`ToConst`]).

use typenum::{Eq as TEq, Gr, IsEqual, IsGreater, Or, Sum, U0};

use super::manipulate::ToConst;
use crate::typed::dim::{Const, Dim, ToUnsigned};
use crate::typed::shape::{Shape, StaticShape};

/// `Self` with `BEFORE` elements added before axis `A` and `AFTER` after it: the shape of
/// `pad_constant::<A, BEFORE, AFTER>()` and its kin (M13), axis `A` becoming
/// `N + BEFORE + AFTER`, computed at compile time.
///
/// ```
/// use shaped::{typed::rules::Padded, Shape};
/// fn same<T>(_: T, _: T) {}
/// same(<Padded<Shape![2, 3], -1, 1, 2>>::default(), <Shape![2, 6]>::default());
/// ```
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (M13)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait PadAxis<const A: isize, const BEFORE: usize, const AFTER: usize>: Shape {
    /// The padded shape.
    type Output: Shape;
}

/// `S` with axis `A` padded by `BEFORE` and `AFTER` ([`PadAxis`]).
pub type Padded<S, const A: isize, const BEFORE: usize, const AFTER: usize> =
    <S as PadAxis<A, BEFORE, AFTER>>::Output;

/// `Self` padded along axis `A` is a static shape: the bound of `pad_constant` (M13), a
/// [`PadAxis`] whose output every dim of is known.
#[diagnostic::on_unimplemented(
    message = "axis {A} of shape `{Self}` cannot be padded by {BEFORE} and {AFTER} at compile time (M13)",
    label = "the axis must exist, and the padded dim be in the static-dim table"
)]
pub trait PadStatic<const A: isize, const BEFORE: usize, const AFTER: usize>:
    PadAxis<A, BEFORE, AFTER, Output: StaticShape>
{
}

impl<S, const A: isize, const BEFORE: usize, const AFTER: usize> PadStatic<A, BEFORE, AFTER> for S where
    S: PadAxis<A, BEFORE, AFTER, Output: StaticShape>
{
}

/// The dim `Self + BEFORE + AFTER` (M13).
#[doc(hidden)]
pub trait PadDim<const BEFORE: usize, const AFTER: usize>: Dim {
    /// The padded dim.
    type Output: Dim;
}

/// `N + BEFORE`, then `+ AFTER`, as typenum numbers.
type PadSum<const N: usize, const BEFORE: usize, const AFTER: usize> = Sum<
    Sum<<Const<N> as ToUnsigned>::Output, <Const<BEFORE> as ToUnsigned>::Output>,
    <Const<AFTER> as ToUnsigned>::Output,
>;

impl<const N: usize, const BEFORE: usize, const AFTER: usize> PadDim<BEFORE, AFTER> for Const<N>
where
    Const<N>: ToUnsigned,
    Const<BEFORE>: ToUnsigned,
    Const<AFTER>: ToUnsigned,
    <Const<N> as ToUnsigned>::Output: core::ops::Add<<Const<BEFORE> as ToUnsigned>::Output>,
    Sum<<Const<N> as ToUnsigned>::Output, <Const<BEFORE> as ToUnsigned>::Output>:
        core::ops::Add<<Const<AFTER> as ToUnsigned>::Output>,
    PadSum<N, BEFORE, AFTER>: ToConst,
{
    type Output = <PadSum<N, BEFORE, AFTER> as ToConst>::Output;
}

/// Axis `A` of `Self` has elements to pad from, or is not padded: what `pad_edge`,
/// `pad_reflect` and `pad_wrap` need, since they repeat the axis's own elements (M13).
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (M13)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait PadFrom<const A: isize, const BEFORE: usize, const AFTER: usize>:
    PadStatic<A, BEFORE, AFTER>
{
}

/// A dim that is not 0, or pads that add nothing (M13).
#[doc(hidden)]
pub trait PadFromDim<S, const A: isize, const BEFORE: usize, const AFTER: usize> {}

impl<S, const A: isize, const N: usize, const BEFORE: usize, const AFTER: usize>
    PadFromDim<S, A, BEFORE, AFTER> for Const<N>
where
    Const<N>: ToUnsigned,
    Const<BEFORE>: ToUnsigned,
    Const<AFTER>: ToUnsigned,
    <Const<N> as ToUnsigned>::Output: IsGreater<U0>,
    <Const<BEFORE> as ToUnsigned>::Output: core::ops::Add<<Const<AFTER> as ToUnsigned>::Output>,
    Sum<<Const<BEFORE> as ToUnsigned>::Output, <Const<AFTER> as ToUnsigned>::Output>: IsEqual<U0>,
    Gr<<Const<N> as ToUnsigned>::Output, U0>: core::ops::BitOr<
        TEq<Sum<<Const<BEFORE> as ToUnsigned>::Output, <Const<AFTER> as ToUnsigned>::Output>, U0>,
    >,
    Or<
        Gr<<Const<N> as ToUnsigned>::Output, U0>,
        TEq<Sum<<Const<BEFORE> as ToUnsigned>::Output, <Const<AFTER> as ToUnsigned>::Output>, U0>,
    >: HasElements<S, A, BEFORE, AFTER>,
{
}

/// Holds for `B1`, "the axis has elements, or nothing is added"; its message is the error of
/// padding an empty axis from its own elements.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cannot pad axis {A} of `{S}` by {BEFORE} and {AFTER} from its own elements: it is empty (M13)",
    label = "edge, reflect and wrap repeat an axis's elements; `pad_constant` fills an empty axis"
)]
pub trait HasElements<S, const A: isize, const BEFORE: usize, const AFTER: usize> {}
impl<S, const A: isize, const BEFORE: usize, const AFTER: usize> HasElements<S, A, BEFORE, AFTER>
    for typenum::B1
{
}
