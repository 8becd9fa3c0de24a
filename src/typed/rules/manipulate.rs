//! Shape manipulation at compile time (rules M1-M7): the shape that `reshape`, `flatten`,
//! `insert_axis`, `squeeze`, `permute`, `narrow`, `concat` and `stack` give a static shape,
//! and for each misuse a compile error naming the shapes, the axis and the rule. The runtime
//! form is in [`rules`](crate::rules) (`reshape_shape`, `permute_shape`, ...).
//!
//! Element counts, narrowed ranges and concatenated dims are typenum numbers here, so every
//! dim involved must be in the static-dim table (see
//! [`STATIC_DIM_LIMIT`](crate::typed::dim::STATIC_DIM_LIMIT)), and a dim computed at compile
//! time (a flattened count, a concatenated axis) must be at most 2048 or a power of two
//! ([`ToConst`]); beyond, `reshape::<S>()` names the shape, or the runtime forms apply.

use typenum::{
    Eq as TEq, Gr, IsEqual, IsGreater, IsLessOrEqual, LeEq, Max, Maximum, Quot, Sub1, Sum,
    Unsigned, B1, U0, U1,
};

use super::pad::{PadAxis, PadDim, PadFrom, PadFromDim, PadStatic};
use crate::typed::dim::{Const, Dim, Dyn, ToUnsigned};
use crate::typed::shape::Shape;

/// An axis as a type: the items of [`Axes!`](crate::Axes!), the permutations of `permute`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Axis<const A: usize>;

/// The element count of a static shape as a typenum number (M1): what `reshape` compares.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no compile-time element count: every dim must be a static dim of the table",
    label = "a `Dyn` dim, or a dim outside the static-dim table",
    note = "`try_reshape` and `DynTensor::reshape` check the count at run time"
)]
pub trait StaticCount: Shape {
    /// The product of the dims.
    type Count: Unsigned;
}

/// `Self` reshaped into `Target` keeps the element count (M1).
///
/// ```
/// use shaped::{typed::rules::ReshapeInto, Shape};
/// fn fits<S: ReshapeInto<T>, T: shaped::Shape>() {}
/// fits::<Shape![2, 3, 4], Shape![6, 4]>();
/// ```
pub trait ReshapeInto<Target: Shape>: Shape {}

impl<S: StaticCount, Target: StaticCount> ReshapeInto<Target> for S
where
    S::Count: IsEqual<Target::Count>,
    TEq<S::Count, Target::Count>: SameCount<S, Target>,
{
}

/// Holds for `B1`: "the counts are equal"; its message is the error of a reshape that changes
/// the element count.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cannot reshape `{S}` into `{T}`: the element counts differ (M1)",
    label = "a reshape keeps every element: the products of the dims must be equal"
)]
pub trait SameCount<S, T> {}
impl<S, T> SameCount<S, T> for typenum::B1 {}

/// The `Const<N>` equal to a typenum number of the static-dim table: the dim that type-level
/// arithmetic makes (a flattened count, a concatenated axis).
#[diagnostic::on_unimplemented(
    message = "the computed dim `{Self}` is outside the static-dim table, so it has no `Const<N>`",
    label = "a flattened element count or a concatenated dim beyond the table",
    note = "computed dims cover every N in 0..=2048 and the powers of two up to 2^31; name the shape with `reshape::<S>()`, or use the runtime forms"
)]
pub trait ToConst {
    /// The dim.
    type Output: Dim;
}

/// `Self` with its axes in reverse order: the shape of `reversed()` (numpy's `.T`; M4).
pub trait Reverse: Shape {
    /// The reversed shape.
    type Output: Shape;
    /// Output axis `i` is input axis `AXES[i]`: `rank - 1` down to 0.
    const AXES: &'static [usize];
}

/// The one-dim shape with the element count of `Self`: the shape of `flatten()` (M1).
pub trait Flatten: Shape {
    /// `(Const<COUNT>,)`.
    type Output: Shape;
}

impl<S: StaticCount> Flatten for S
where
    S::Count: ToConst,
{
    type Output = (<S::Count as ToConst>::Output,);
}

/// `Self` with the dim `N` inserted before axis `A` (`0..=rank`): `insert_axis::<A>()` inserts
/// `Const<1>` (M3), `stack::<A>()` the number of tensors (M7).
#[diagnostic::on_unimplemented(
    message = "cannot insert an axis at {A} into `{Self}`: a shape of rank R takes a new axis at 0 to R, or -R - 1 to -1 from the end (M3)",
    label = "axis out of range, or the shape already has 8 dims"
)]
pub trait InsertAxis<const A: isize, N: Dim>: Shape {
    /// The shape with the new axis.
    type Output: Shape;
}

/// `S` with a new axis `A` of dim `N` ([`InsertAxis`]): the shape of `insert_axis::<A>()`
/// (`N` = `Const<1>`) and of `stack::<A>` of `N` tensors.
pub type WithAxis<S, const A: isize, N> = <S as InsertAxis<A, N>>::Output;

/// `Self` with axis `A` replaced by the dim `N`: the shape of `narrow`.
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}`",
    label = "a static shape of rank R has the axes 0 to R - 1"
)]
pub trait ReplaceAxis<const A: isize, N: Dim>: Shape {
    /// The shape with axis `A` as `N`.
    type Output: Shape;
}

/// The dim at axis `A` of `Self`.
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (M4)",
    label = "a static shape of rank R has the axes 0 to R - 1"
)]
pub trait SelectAxis<const A: usize>: Shape {
    /// The dim.
    type Dim: Dim;
}

/// Axis `A` of `Self` is a static 1, which `squeeze::<A>()` may remove (M3); the result is
/// [`RemoveAxis`](super::RemoveAxis)'s.
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (M3)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait SqueezeAxis<const A: isize>: Shape {}

/// Holds for `Const<1>` only: the dim that `squeeze` may remove. Its message is the error of
/// squeezing any other dim.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cannot squeeze axis {A} of `{S}`: it is `{Self}`, not 1 (M3)",
    label = "squeeze removes only an axis of static size 1"
)]
pub trait UnitDim<S, const A: isize> {}
impl<S, const A: isize> UnitDim<S, A> for Const<1> {}

/// `Self` with elements `START..START + LEN` of axis `A` kept: the shape of
/// `narrow::<A, START, LEN>()` (M5), axis `A` becoming `Const<LEN>`.
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (M5)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait Narrow<const A: isize, const START: usize, const LEN: usize>: Shape {
    /// The narrowed shape.
    type Output: Shape;
}

/// `S` with axis `A` cut to `LEN` ([`Narrow`]): the shape of `narrow::<A, START, LEN>()`.
pub type Narrowed<S, const A: isize, const START: usize, const LEN: usize> =
    <S as Narrow<A, START, LEN>>::Output;

/// `START + LEN` fits in the dim (M5).
#[doc(hidden)]
pub trait NarrowDim<S, const A: isize, const START: usize, const LEN: usize> {}

impl<S, const A: isize, const N: usize, const START: usize, const LEN: usize>
    NarrowDim<S, A, START, LEN> for Const<N>
where
    Const<N>: ToUnsigned,
    Const<START>: ToUnsigned,
    Const<LEN>: ToUnsigned,
    <Const<START> as ToUnsigned>::Output: core::ops::Add<<Const<LEN> as ToUnsigned>::Output>,
    Sum<<Const<START> as ToUnsigned>::Output, <Const<LEN> as ToUnsigned>::Output>:
        IsLessOrEqual<<Const<N> as ToUnsigned>::Output>,
    LeEq<
        Sum<<Const<START> as ToUnsigned>::Output, <Const<LEN> as ToUnsigned>::Output>,
        <Const<N> as ToUnsigned>::Output,
    >: InRange<S, A, START, LEN>,
{
}

/// Holds for `B1`, "the range fits"; its message is the error of narrowing past the end.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cannot narrow axis {A} of `{S}` to {LEN} elements from {START}: they do not fit (M5)",
    label = "START + LEN must be at most the dim"
)]
pub trait InRange<S, const A: isize, const START: usize, const LEN: usize> {}
impl<S, const A: isize, const START: usize, const LEN: usize> InRange<S, A, START, LEN>
    for typenum::B1
{
}

/// `Self` with every `STEP`-th element of axis `A` kept, from the first: the shape of
/// `step::<A, STEP>()` (M8, numpy's `x[..., ::STEP, ...]`), axis `A` becoming
/// `ceil(N / STEP)`, computed at compile time.
#[diagnostic::on_unimplemented(
    message = "axis {A} is out of range for shape `{Self}` (M8)",
    label = "a static shape of rank R has the axes 0 to R - 1, and -R to -1 counted from the end"
)]
pub trait Step<const A: isize, const STEP: usize>: Shape {
    /// The stepped shape.
    type Output: Shape;
}

/// `S` with axis `A` stepped by `STEP` ([`Step`]).
pub type Stepped<S, const A: isize, const STEP: usize> = <S as Step<A, STEP>>::Output;

/// The dim that a step of `STEP` leaves of `Self`: `ceil(N / STEP)`; a step of 0 does not
/// compile (M8).
#[doc(hidden)]
pub trait StepDim<const STEP: usize>: Dim {
    /// The stepped dim.
    type Output: Dim;
}

impl<const N: usize, const STEP: usize> StepDim<STEP> for Const<N>
where
    Const<N>: ToUnsigned,
    Const<STEP>: ToUnsigned,
    <Const<STEP> as ToUnsigned>::Output: IsGreater<U0> + Max<U1>,
    Gr<<Const<STEP> as ToUnsigned>::Output, U0>: NonZeroStep,
    // The arithmetic runs on `max(STEP, 1)`, total, so that a step of 0 fails only the check
    // above, with its message.
    Maximum<<Const<STEP> as ToUnsigned>::Output, U1>: core::ops::Sub<B1>,
    <Const<N> as ToUnsigned>::Output:
        core::ops::Add<Sub1<Maximum<<Const<STEP> as ToUnsigned>::Output, U1>>>,
    CeilSum<N, STEP>: core::ops::Div<Maximum<<Const<STEP> as ToUnsigned>::Output, U1>>,
    Quot<CeilSum<N, STEP>, Maximum<<Const<STEP> as ToUnsigned>::Output, U1>>: ToConst,
{
    type Output =
        <Quot<CeilSum<N, STEP>, Maximum<<Const<STEP> as ToUnsigned>::Output, U1>> as ToConst>::Output;
}

/// `N + max(STEP, 1) - 1`, the numerator of `ceil(N / STEP)`.
type CeilSum<const N: usize, const STEP: usize> =
    Sum<<Const<N> as ToUnsigned>::Output, Sub1<Maximum<<Const<STEP> as ToUnsigned>::Output, U1>>>;

impl<const STEP: usize> StepDim<STEP> for Dyn {
    type Output = Dyn;
}

/// Holds for `B1`, "the step is positive"; its message is the error of a step of 0.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a step of 0 takes no element: the step must be at least 1 (M8)",
    label = "`step::<A, STEP>()` needs STEP >= 1"
)]
pub trait NonZeroStep {}
impl NonZeroStep for B1 {}

/// The sum of two dims, the joined axis of `concat` (M6): static dims add at compile time; a
/// `Dyn` on either side gives `Dyn`.
pub trait AddDim<Rhs: Dim>: Dim {
    /// The sum.
    type Output: Dim;
}

impl<const N: usize, const M: usize> AddDim<Const<M>> for Const<N>
where
    Const<N>: ToUnsigned,
    Const<M>: ToUnsigned,
    <Const<N> as ToUnsigned>::Output: core::ops::Add<<Const<M> as ToUnsigned>::Output>,
    Sum<<Const<N> as ToUnsigned>::Output, <Const<M> as ToUnsigned>::Output>: ToConst,
{
    type Output =
        <Sum<<Const<N> as ToUnsigned>::Output, <Const<M> as ToUnsigned>::Output> as ToConst>::Output;
}
impl<const N: usize> AddDim<Dyn> for Const<N> {
    type Output = Dyn;
}
impl<D: Dim> AddDim<D> for Dyn {
    type Output = Dyn;
}

/// `Self` and `Rhs` joined along axis `A` (M6): the ranks and every other dim equal (NONE),
/// axis `A` the sum ([`AddDim`]).
#[diagnostic::on_unimplemented(
    message = "cannot concat `{Self}` with `{Rhs}` along axis {A}: every other dim must be equal (M6)",
    label = "equal ranks, equal dims off the joined axis, and an axis below the rank"
)]
pub trait Concat<const A: isize, Rhs: Shape>: Shape {
    /// The joined shape.
    type Output: Shape;
}

/// The shape of `S` and `Rhs` joined along axis `A`: `concat`'s result.
pub type Concatenated<S, const A: isize, Rhs> = <S as Concat<A, Rhs>>::Output;

/// A dim off the joined axis of `concat` equals the other operand's (M6, NONE).
#[doc(hidden)]
pub trait JoinDim<E, S, R, const A: isize> {}

impl<const N: usize, const M: usize, S, R, const A: isize> JoinDim<Const<M>, S, R, A> for Const<N>
where
    Const<N>: ToUnsigned,
    Const<M>: ToUnsigned,
    <Const<N> as ToUnsigned>::Output: IsEqual<<Const<M> as ToUnsigned>::Output>,
    TEq<<Const<N> as ToUnsigned>::Output, <Const<M> as ToUnsigned>::Output>: ConcatFits<S, R, A>,
{
}
impl<S, R, const A: isize> JoinDim<Dyn, S, R, A> for Dyn {}

/// Holds for `B1`, "the dims are equal"; its message is the error of a concat whose other
/// dims differ.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cannot concat `{S}` with `{R}` along axis {A}: every other dim must be equal (M6)",
    label = "the dims off the joined axis differ"
)]
pub trait ConcatFits<S, R, const A: isize> {}
impl<S, R, const A: isize> ConcatFits<S, R, A> for typenum::B1 {}

/// `Self` permuted by `P`, a tuple of [`Axis`] naming every axis once: output axis `i` is axis
/// `P[i]` (M4). Write `P` with [`Axes!`](crate::Axes!).
///
/// ```
/// use shaped::{typed::rules::Permute, Axes, Shape};
/// fn same<T>(_: T, _: T) {}
/// same(<<Shape![2, 3, 4] as Permute<Axes![2, 0, 1]>>::Output>::default(), <Shape![4, 2, 3]>::default());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{P}` is not a permutation of the axes of `{Self}` (M4)",
    label = "one axis per dim, each below the rank"
)]
pub trait Permute<P>: Shape {
    /// The permuted shape.
    type Output: Shape;
    /// The axes of `P`, as values.
    const AXES: &'static [usize];
}

/// Holds for `B1`, "every axis once"; its message is the error of a repeated axis.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{P}` is not a permutation of the axes of `{S}`: an axis is repeated (M4)",
    label = "a permutation names every axis once"
)]
pub trait IsPermutation<S, P> {}
impl<S, P> IsPermutation<S, P> for typenum::B1 {}

include!(concat!(env!("OUT_DIR"), "/manipulate_impls.rs"));
/// The generated reverse table, in short names for typenum's parts; its `Low0`..`Low15`
/// traits are public only so that the `ToConst` impls may name them: the module is private.
mod table {
    use super::{Const, Dim, ToConst};
    use typenum::{UInt as N, UTerm as Z, B0 as O, B1 as I};
    include!(concat!(env!("OUT_DIR"), "/reverse_table.rs"));
}
