//! The broadcast rules as types: NUMPY (P1-P6), Bidirectional (B1-B4) and NONE (N1-N3) decided
//! at compile time for static shapes.
//!
//! How a dim pair is decided: both dims are mapped to typenum numbers ([`ToUnsigned`]), three
//! type-level booleans are computed (`A == B`, `A == 1`, `B == 1`), and [`Classify`] turns them
//! into a case. The case either picks the output dim or, for an incompatible pair, fails a trait
//! bound whose `#[diagnostic::on_unimplemented]` names both dims and the rule. The diagnostic sits
//! on that innermost trait because rustc only shows it for the bound that actually fails.

use typenum::{Eq as TEq, IsEqual, U1};

use crate::dim::{Const, Dim, Dyn, ToUnsigned};
use crate::shape::Shape;

/// Marker for the NUMPY mode of elementwise operations (spec section 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Numpy;

/// Marker for Bidirectional broadcasting of a tensor to a target shape (spec section 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bidirectional;

/// Case: the dims are equal; the output is either.
pub struct Equal;
/// Case: the left dim is 1 and stretches; the output is the right dim (also when that is 0).
pub struct StretchLeft;
/// Case: the right dim is 1 and stretches; the output is the left dim.
pub struct StretchRight;
/// Case: neither dim is 1 and they differ: no broadcast.
pub struct Incompatible;

/// Maps `(A == B, A == 1, B == 1)` to a case. Equality is tested first, so `1` with `1` is
/// [`Equal`], and `1` with `0` is [`StretchLeft`] with output `0` (P5, A1).
pub trait Classify {
    /// The case.
    type Case;
}
impl<AIsOne, BIsOne> Classify for (typenum::B1, AIsOne, BIsOne) {
    type Case = Equal;
}
impl<BIsOne> Classify for (typenum::B0, typenum::B1, BIsOne) {
    type Case = StretchLeft;
}
impl Classify for (typenum::B0, typenum::B0, typenum::B1) {
    type Case = StretchRight;
}
impl Classify for (typenum::B0, typenum::B0, typenum::B0) {
    type Case = Incompatible;
}

/// NUMPY per-dim rule (P2): the case's output dim. Not implemented for [`Incompatible`].
#[diagnostic::on_unimplemented(
    message = "cannot broadcast dim `{A}` with dim `{B}` (NUMPY)",
    label = "NUMPY broadcasting needs equal dims or a 1 in each position (rule P2)",
    note = "shapes are right-aligned and the shorter one is padded on the left with 1s (rule P1)"
)]
pub trait NumpyDimRule<A, B> {
    /// The output dim.
    type Output;
}

/// Bidirectional per-dim rule (B1, B4): the case's output dim. Not implemented for
/// [`Incompatible`].
#[diagnostic::on_unimplemented(
    message = "cannot broadcast input dim `{A}` to target dim `{B}` (Bidirectional)",
    label = "each right-aligned pair must be equal or contain a 1 (rule B4)",
    note = "Bidirectional broadcasting is NUMPY applied to (input shape, target shape) (rule B1)"
)]
pub trait BidirectionalDimRule<A, B> {
    /// The output dim.
    type Output;
}

macro_rules! impl_dim_rule_cases {
    ($($rule:ident),*) => {$(
        impl<A, B> $rule<A, B> for Equal {
            type Output = A;
        }
        impl<A, B> $rule<A, B> for StretchLeft {
            type Output = B;
        }
        impl<A, B> $rule<A, B> for StretchRight {
            type Output = A;
        }
    )*};
}
impl_dim_rule_cases!(NumpyDimRule, BidirectionalDimRule);

/// Routes a case to the per-dim rule of a mode, so each mode fails with its own message.
pub trait ModeDimRule<Case, A, B> {
    /// The output dim.
    type Output;
}
impl<Case: NumpyDimRule<A, B>, A, B> ModeDimRule<Case, A, B> for Numpy {
    type Output = Case::Output;
}
impl<Case: BidirectionalDimRule<A, B>, A, B> ModeDimRule<Case, A, B> for Bidirectional {
    type Output = Case::Output;
}

type Num<D> = <D as ToUnsigned>::Output;
type CaseOf<A, B> = <(TEq<Num<A>, Num<B>>, TEq<Num<A>, U1>, TEq<Num<B>, U1>) as Classify>::Case;

/// Broadcasts one dim against another under `Mode` ([`Numpy`] or [`Bidirectional`]).
pub trait BroadcastDim<Rhs, Mode> {
    /// The output dim.
    type Output;
}

impl<const A: usize, const B: usize, Mode> BroadcastDim<Const<B>, Mode> for Const<A>
where
    Const<A>: ToUnsigned,
    Const<B>: ToUnsigned,
    Num<Const<A>>: IsEqual<Num<Const<B>>> + IsEqual<U1>,
    Num<Const<B>>: IsEqual<U1>,
    (
        TEq<Num<Const<A>>, Num<Const<B>>>,
        TEq<Num<Const<A>>, U1>,
        TEq<Num<Const<B>>, U1>,
    ): Classify,
    Mode: ModeDimRule<CaseOf<Const<A>, Const<B>>, Const<A>, Const<B>>,
{
    type Output = <Mode as ModeDimRule<CaseOf<Const<A>, Const<B>>, Const<A>, Const<B>>>::Output;
}

/// Broadcasts a whole shape against another under `Mode`: right-align, pad the shorter with 1s,
/// broadcast each pair (P1-P6; B1-B3). The output rank is the larger rank.
///
/// ```
/// use shaped::{typelevel::{BroadcastShape, Numpy}, Shape};
/// fn same<T>(_: T, _: T) {}
/// let out = <<Shape![2, 1, 5] as BroadcastShape<Shape![4, 1], Numpy>>::Output>::default();
/// same(out, <Shape![2, 4, 5]>::default());
/// ```
pub trait BroadcastShape<Rhs, Mode> {
    /// The output shape.
    type Output: Shape;
}

/// The NUMPY output shape of `A` and `B`.
pub type NumpyOutput<A, B> = <A as BroadcastShape<B, Numpy>>::Output;
/// The Bidirectional output shape of input `A` and target `T`.
pub type BidirectionalOutput<A, T> = <A as BroadcastShape<T, Bidirectional>>::Output;

// Generates `BroadcastShape` for every pair of ranks with at most `MAX_STATIC_RANK` dims:
// `lead` are the dims of the longer shape that meet an implicit 1 (they pass through), `zip`
// are the right-aligned pairs. Both orders (longer on the left, longer on the right) are made.
macro_rules! broadcast_shape_impl {
    ([] [$(($a:ident $b:ident))*]) => {
        impl<Mode, $($a, $b,)*> BroadcastShape<($($b,)*), Mode> for ($($a,)*)
        where
            ($($a,)*): Shape,
            ($($b,)*): Shape,
            $($a: BroadcastDim<$b, Mode>,)*
            ($(<$a as BroadcastDim<$b, Mode>>::Output,)*): Shape,
        {
            type Output = ($(<$a as BroadcastDim<$b, Mode>>::Output,)*);
        }
    };
    ([$($l:ident)+] [$(($a:ident $b:ident))*]) => {
        impl<Mode, $($l,)* $($a, $b,)*> BroadcastShape<($($b,)*), Mode> for ($($l,)* $($a,)*)
        where
            ($($l,)* $($a,)*): Shape,
            ($($b,)*): Shape,
            $($a: BroadcastDim<$b, Mode>,)*
            ($($l,)* $(<$a as BroadcastDim<$b, Mode>>::Output,)*): Shape,
        {
            type Output = ($($l,)* $(<$a as BroadcastDim<$b, Mode>>::Output,)*);
        }
        impl<Mode, $($l,)* $($a, $b,)*> BroadcastShape<($($l,)* $($b,)*), Mode> for ($($a,)*)
        where
            ($($a,)*): Shape,
            ($($l,)* $($b,)*): Shape,
            $($a: BroadcastDim<$b, Mode>,)*
            ($($l,)* $(<$a as BroadcastDim<$b, Mode>>::Output,)*): Shape,
        {
            type Output = ($($l,)* $(<$a as BroadcastDim<$b, Mode>>::Output,)*);
        }
    };
}

// For a fixed `zip` list, every lead length that keeps the rank within the limit.
macro_rules! broadcast_shape_leads {
    ([$($lead:ident)*] [] $zip:tt) => {
        broadcast_shape_impl!([$($lead)*] $zip);
    };
    ([$($lead:ident)*] [$next:ident $($pool:ident)*] $zip:tt) => {
        broadcast_shape_impl!([$($lead)*] $zip);
        broadcast_shape_leads!([$($lead)* $next] [$($pool)*] $zip);
    };
}

// Every zip length 0..=8; each extra pair shrinks the pool of lead dims by one.
macro_rules! broadcast_shape_all {
    ([$($zip:tt)*] [$($pool:ident)*] []) => {
        broadcast_shape_leads!([] [$($pool)*] [$($zip)*]);
    };
    ([$($zip:tt)*] [$drop:ident $($pool:ident)*] [$pair:tt $($pairs:tt)*]) => {
        broadcast_shape_leads!([] [$drop $($pool)*] [$($zip)*]);
        broadcast_shape_all!([$($zip)* $pair] [$($pool)*] [$($pairs)*]);
    };
    ([$($zip:tt)*] [] [$pair:tt $($pairs:tt)*]) => {
        broadcast_shape_leads!([] [] [$($zip)*]);
        broadcast_shape_all!([$($zip)* $pair] [] [$($pairs)*]);
    };
}

broadcast_shape_all!(
    []
    [L0 L1 L2 L3 L4 L5 L6 L7]
    [(A0 B0) (A1 B1) (A2 B2) (A3 B3) (A4 B4) (A5 B5) (A6 B6) (A7 B7)]
);

/// NONE rule (N1-N3): `Self` and `Rhs` must be the same shape, rank and every dim.
///
/// Holds exactly when the two types are equal, so it needs no dim table and works for any size.
#[diagnostic::on_unimplemented(
    message = "shapes `{Self}` and `{Rhs}` differ, but NONE broadcasting needs identical shapes",
    label = "NONE (EXPLICIT): same rank and every dim equal; nothing stretches (rule N1)"
)]
pub trait SameShape<Rhs> {}
impl<S: Shape> SameShape<S> for S {}

/// Picks the output of a static dim `A` against a [`Dyn`]: `Dyn` when `A` is 1 (the runtime
/// dim decides), `A` otherwise (the runtime dim must then be 1 or `A`, checked at run time).
pub trait PickAgainstDyn<A> {
    /// The output dim.
    type Output;
}
impl<A> PickAgainstDyn<A> for typenum::B1 {
    type Output = Dyn;
}
impl<A> PickAgainstDyn<A> for typenum::B0 {
    type Output = A;
}

type IsOne<D> = TEq<Num<D>, U1>;

/// `Const<A>` against `Dyn` (P2 with one side known): static `A` unless `A` is 1.
impl<const A: usize, Mode> BroadcastDim<Dyn, Mode> for Const<A>
where
    Const<A>: ToUnsigned,
    Num<Const<A>>: IsEqual<U1>,
    IsOne<Const<A>>: PickAgainstDyn<Const<A>>,
{
    type Output = <IsOne<Const<A>> as PickAgainstDyn<Const<A>>>::Output;
}

/// `Dyn` against `Const<B>`: the mirror image.
impl<const B: usize, Mode> BroadcastDim<Const<B>, Mode> for Dyn
where
    Const<B>: ToUnsigned,
    Num<Const<B>>: IsEqual<U1>,
    IsOne<Const<B>>: PickAgainstDyn<Const<B>>,
{
    type Output = <IsOne<Const<B>> as PickAgainstDyn<Const<B>>>::Output;
}

/// `Dyn` against `Dyn`: decided at run time.
impl<Mode> BroadcastDim<Dyn, Mode> for Dyn {
    type Output = Dyn;
}

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

// Invokes `$m!` once per rank from 0 to 8 (`MAX_STATIC_RANK`), with that many dim pairs
// `(A_i B_i)`: the per-rank impls of the rules below share this one list.
macro_rules! for_each_rank {
    ($m:ident) => {
        for_each_rank!(@ $m [] [(A0 B0) (A1 B1) (A2 B2) (A3 B3) (A4 B4) (A5 B5) (A6 B6) (A7 B7)]);
    };
    (@ $m:ident [$($done:tt)*] []) => {
        $m!($($done)*);
    };
    (@ $m:ident [$($done:tt)*] [$next:tt $($rest:tt)*]) => {
        $m!($($done)*);
        for_each_rank!(@ $m [$($done)* $next] [$($rest)*]);
    };
}

macro_rules! none_shape_impl {
    ($(($a:ident $b:ident))*) => {
        impl<$($a: Dim + NoneDim<$b>, $b: Dim,)*> NoneShape<($($b,)*)> for ($($a,)*) {
            type Output = ($(<$a as NoneDim<$b>>::Output,)*);
        }
    };
}
for_each_rank!(none_shape_impl);

/// Marker for the binary primitive's source rule (spec section 5, O2).
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

/// Binary post-op per-dim rule (O4): the operand dim `A` is 1 or the destination dim `B`.
/// Implemented for [`Equal`] and [`StretchLeft`] only: an operand never grows the destination.
#[diagnostic::on_unimplemented(
    message = "post-op operand dim `{A}` does not fit destination dim `{B}` (binary post-op)",
    label = "a post-op operand dim must be 1 or the destination's; it never grows the destination (rule O4)"
)]
pub trait PostOpDimRule<A, B> {
    /// The destination dim.
    type Output;
}
impl<A, B> PostOpDimRule<A, B> for Equal {
    type Output = B;
}
impl<A, B> PostOpDimRule<A, B> for StretchLeft {
    type Output = B;
}
impl<Case: PostOpDimRule<A, B>, A, B> ModeDimRule<Case, A, B> for PostOpOnto {
    type Output = Case::Output;
}

/// The binary primitive's destination shape (O1-O3): same rank, each dim pair per
/// [`BinaryDimRule`].
///
/// ```
/// use shaped::{typelevel::BinaryOutput, Shape};
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
pub trait BinaryDst: crate::shape::StaticShape {}

macro_rules! binary_dst_impl {
    ($(($a:ident $b:ident))*) => {
        impl<$($a,)*> BinaryDst for ($($a,)*) where ($($a,)*): crate::shape::StaticShape {}
    };
}
for_each_rank!(binary_dst_impl);

/// No type-level shape: a post-op operand whose dims are checked at run time only
/// (`DynTensor`, [`MemRef`](crate::binary::MemRef)).
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
/// This is what a chain built in a loop uses ([`Binary::push_post_op`](crate::binary::Binary::push_post_op)).
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
