//! The binary primitive's rules at compile time (O1-O4): equal ranks, either source may
//! broadcast, post-op operands never grow the destination.

use super::{BroadcastDim, Equal, ModeDimRule, StretchLeft, StretchRight};
use crate::typed::dim::Dim;
use crate::typed::shape::Shape;

/// Marker for the binary primitive's source rule (rules section 5, O2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinarySources;

/// Marker for a binary post-op operand against the destination (O4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PostOpOnto;

/// Binary primitive per-dim rule (O2, O3): equal, or either side 1 (1 with 0 gives 0).
#[diagnostic::on_unimplemented(
    message = "cannot broadcast src0 dim `{A}` with src1 dim `{B}` (binary primitive)",
    label = "each dim pair must be equal or contain a 1 (rule O2)",
    note = "the binary primitive never extends ranks: src0, src1 and dst have the same rank (rule O1)"
)]
pub trait BinaryDimRule<A, B> {
    /// The output dim.
    type Output;
}
impl_dim_rule_cases!(BinaryDimRule);
impl<Case: BinaryDimRule<A, B>, A, B> ModeDimRule<Case, A, B> for BinarySources {
    type Output = Case::Output;
}

one_way_dim_rule! {
    /// Binary post-op per-dim rule (O4): the operand dim `A` is 1 or the destination dim `B`.
    /// Implemented for [`Equal`] and [`StretchLeft`] only: an operand never grows the
    /// destination.
    #[diagnostic::on_unimplemented(
        message = "post-op operand dim `{A}` does not fit destination dim `{B}` (binary post-op)",
        label = "a post-op operand dim must be 1 or the destination's; it never grows the destination (rule O4)"
    )]
    PostOpDimRule for PostOpOnto
}

/// Marker for src1 onto src0 in a run in place (O8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InPlaceOnto;

one_way_dim_rule! {
    /// In-place per-dim rule (O8): src1's dim `A` is 1 or src0's dim `B`, which is also the
    /// destination's. Implemented for [`Equal`] and [`StretchLeft`] only.
    #[diagnostic::on_unimplemented(
        message = "in place, src1 dim `{A}` would change src0 dim `{B}`, which is also the destination's (binary in place)",
        label = "src1 broadcasts onto src0 one way: each dim 1 or src0's (rule O8)"
    )]
    InPlaceDimRule for InPlaceOnto
}

/// src1 `Self` onto src0 `Dst` in a run in place (O1, O8): the same rank, each dim 1 or
/// src0's.
#[diagnostic::on_unimplemented(
    message = "src1 `{Self}` does not have the rank of src0 `{Dst}` (binary in place)",
    label = "src1 has src0's rank, and src0 is the destination (rules O1, O8)"
)]
pub trait InPlaceShape<Dst> {}

/// The binary primitive's destination shape (O1-O3): same rank, each dim pair per
/// [`BinaryDimRule`].
///
/// ```
/// use shaped::{typed::rules::BinaryOutput, Shape};
/// fn same<T>(_: T, _: T) {}
/// same(BinaryOutput::<Shape![1, 4], Shape![4, 1]>::default(), <Shape![4, 4]>::default());
/// ```
#[diagnostic::on_unimplemented(
    message = "src0 `{Self}` and src1 `{Rhs}` have different ranks, but the binary primitive needs equal ranks",
    label = "no implicit rank extension: src0, src1 and dst have the same rank (rule O1)"
)]
pub trait BinaryShape<Rhs> {
    /// The destination shape (or [`RanksDiffer`]).
    type Output;
}

/// The binary primitive's destination shape for sources `A` and `B`.
pub type BinaryOutput<A, B> = <A as BinaryShape<B>>::Output;

/// A binary post-op operand `Self` against the destination `Dst` (O1, O4): the same rank,
/// each dim 1 or the destination's. `Dyn` dims are checked at run time.
#[diagnostic::on_unimplemented(
    message = "post-op operand `{Self}` does not have the rank of the destination `{Dst}`",
    label = "a binary post-op operand has the destination's rank (rules O1, O4)"
)]
pub trait PostOpShape<Dst> {}

macro_rules! binary_shape_impl {
    ($(($a:ident $b:ident))*) => {
        impl<$($a: Dim + BroadcastDim<$b, BinarySources>, $b: Dim,)*> BinaryShape<($($b,)*)>
            for ($($a,)*)
        where
            ($(<$a as BroadcastDim<$b, BinarySources>>::Output,)*): Shape,
        {
            type Output = ($(<$a as BroadcastDim<$b, BinarySources>>::Output,)*);
        }
        impl<$($a: Dim + BroadcastDim<$b, PostOpOnto>, $b: Dim,)*> PostOpShape<($($b,)*)>
            for ($($a,)*)
        {
        }
        impl<$($a: Dim + BroadcastDim<$b, InPlaceOnto>, $b: Dim,)*> InPlaceShape<($($b,)*)>
            for ($($a,)*)
        {
        }
    };
}
for_each_rank!(binary_shape_impl);

/// The "output" of two shapes whose ranks differ: it is not a shape, so [`BinaryDst`] fails on
/// it with the O1 message. (With only equal-rank impls of [`BinaryShape`], rustc would infer the
/// second shape's rank from the first and report a tuple-length mismatch instead.)
pub struct RanksDiffer<A, B>(core::marker::PhantomData<(A, B)>);

macro_rules! binary_rank_differs {
    ([$($a:ident)*] [$($b:ident)*]) => {
        impl<$($a,)* $($b,)*> BinaryShape<($($b,)*)> for ($($a,)*) {
            type Output = RanksDiffer<($($a,)*), ($($b,)*)>;
        }
    };
}
binary_rank_differs!([][B0]);
binary_rank_differs!([] [B0 B1]);
binary_rank_differs!([] [B0 B1 B2]);
binary_rank_differs!([] [B0 B1 B2 B3]);
binary_rank_differs!([] [B0 B1 B2 B3 B4]);
binary_rank_differs!([] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([] [B0 B1 B2 B3 B4 B5 B6]);
binary_rank_differs!([] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0] []);
binary_rank_differs!([A0] [B0 B1]);
binary_rank_differs!([A0] [B0 B1 B2]);
binary_rank_differs!([A0] [B0 B1 B2 B3]);
binary_rank_differs!([A0] [B0 B1 B2 B3 B4]);
binary_rank_differs!([A0] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([A0] [B0 B1 B2 B3 B4 B5 B6]);
binary_rank_differs!([A0] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0 A1] []);
binary_rank_differs!([A0 A1] [B0]);
binary_rank_differs!([A0 A1] [B0 B1 B2]);
binary_rank_differs!([A0 A1] [B0 B1 B2 B3]);
binary_rank_differs!([A0 A1] [B0 B1 B2 B3 B4]);
binary_rank_differs!([A0 A1] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([A0 A1] [B0 B1 B2 B3 B4 B5 B6]);
binary_rank_differs!([A0 A1] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0 A1 A2] []);
binary_rank_differs!([A0 A1 A2] [B0]);
binary_rank_differs!([A0 A1 A2] [B0 B1]);
binary_rank_differs!([A0 A1 A2] [B0 B1 B2 B3]);
binary_rank_differs!([A0 A1 A2] [B0 B1 B2 B3 B4]);
binary_rank_differs!([A0 A1 A2] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([A0 A1 A2] [B0 B1 B2 B3 B4 B5 B6]);
binary_rank_differs!([A0 A1 A2] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0 A1 A2 A3] []);
binary_rank_differs!([A0 A1 A2 A3] [B0]);
binary_rank_differs!([A0 A1 A2 A3] [B0 B1]);
binary_rank_differs!([A0 A1 A2 A3] [B0 B1 B2]);
binary_rank_differs!([A0 A1 A2 A3] [B0 B1 B2 B3 B4]);
binary_rank_differs!([A0 A1 A2 A3] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([A0 A1 A2 A3] [B0 B1 B2 B3 B4 B5 B6]);
binary_rank_differs!([A0 A1 A2 A3] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0 A1 A2 A3 A4] []);
binary_rank_differs!([A0 A1 A2 A3 A4] [B0]);
binary_rank_differs!([A0 A1 A2 A3 A4] [B0 B1]);
binary_rank_differs!([A0 A1 A2 A3 A4] [B0 B1 B2]);
binary_rank_differs!([A0 A1 A2 A3 A4] [B0 B1 B2 B3]);
binary_rank_differs!([A0 A1 A2 A3 A4] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([A0 A1 A2 A3 A4] [B0 B1 B2 B3 B4 B5 B6]);
binary_rank_differs!([A0 A1 A2 A3 A4] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] []);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] [B0]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] [B0 B1]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] [B0 B1 B2]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] [B0 B1 B2 B3]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] [B0 B1 B2 B3 B4]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] [B0 B1 B2 B3 B4 B5 B6]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] []);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] [B0]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] [B0 B1]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] [B0 B1 B2]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] [B0 B1 B2 B3]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] [B0 B1 B2 B3 B4]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6] [B0 B1 B2 B3 B4 B5 B6 B7]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] []);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] [B0]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] [B0 B1]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] [B0 B1 B2]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] [B0 B1 B2 B3]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] [B0 B1 B2 B3 B4]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] [B0 B1 B2 B3 B4 B5]);
binary_rank_differs!([A0 A1 A2 A3 A4 A5 A6 A7] [B0 B1 B2 B3 B4 B5 B6]);

/// A valid binary destination shape: a static shape of any rank, and not [`RanksDiffer`].
#[diagnostic::on_unimplemented(
    message = "src0 and src1 have different ranks, but the binary primitive needs equal ranks: `{Self}`",
    label = "no implicit rank extension: src0, src1 and dst have the same rank (rule O1)"
)]
pub trait BinaryDst: crate::typed::shape::StaticShape {}

macro_rules! binary_dst_impl {
    ($(($a:ident $b:ident))*) => {
        impl<$($a,)*> BinaryDst for ($($a,)*) where ($($a,)*): crate::typed::shape::StaticShape {}
    };
}
for_each_rank!(binary_dst_impl);

/// No type-level shape: a post-op operand whose dims are checked at run time only
/// (`DynTensor`, [`MemRef`](crate::primitive::MemRef)).
#[derive(Clone, Copy, Debug, Default)]
pub struct Unranked;
impl<Dst: Shape> PostOpShape<Dst> for Unranked {}

/// The empty list of post-op operand shapes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Nil;
/// A list of post-op operand shapes: the latest `H` in front of the earlier `T`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cons<H, T>(core::marker::PhantomData<(H, T)>);

/// A post-op list whose operand shapes are not tracked: every operand is checked at run time.
/// This is what a chain built in a loop uses ([`Binary::push_post_op`](crate::primitive::Binary::push_post_op)).
#[derive(Clone, Copy, Debug, Default)]
pub struct RuntimeChecked;

/// Every post-op operand shape of the list fits the destination `Dst` ([`PostOpShape`]).
pub trait PostOpShapes<Dst> {}
impl<Dst> PostOpShapes<Dst> for Nil {}
impl<Dst> PostOpShapes<Dst> for RuntimeChecked {}
impl<Dst, H: PostOpShape<Dst>, T: PostOpShapes<Dst>> PostOpShapes<Dst> for Cons<H, T> {}

/// A static destination given to the binary primitive has exactly the sources' broadcast shape.
#[diagnostic::on_unimplemented(
    message = "destination `{Self}` is not `{Out}`, the broadcast shape of the sources",
    label = "the destination of the binary primitive has the sources' broadcast shape (rule O2)"
)]
pub trait DstShape<Out> {}
impl<S: Shape> DstShape<S> for S {}
