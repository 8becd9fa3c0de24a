//! The broadcast rules as types: each mode decided at compile time for static shapes, in a file
//! named like the runtime form of the same rule in [`crate::rules`].
//!
//! | file | rules | traits |
//! |---|---|---|
//! | `none.rs` | N1-N3 | [`SameShape`], [`NoneShape`] |
//! | `numpy.rs` | P1-P6 | [`BroadcastShape`]`<_, `[`Numpy`]`>`, [`Broadcasts`] |
//! | `broadcast_op.rs` | B1-B5 | [`BroadcastShape`]`<_, `[`Bidirectional`]`>`, [`BroadcastToShape`] |
//! | `primitive.rs` | O1-O4 | [`BinaryShape`], [`PostOpShape`], [`DstShape`] |
//! | `reduce.rs` | R1-R3 | [`RemoveAxis`], [`KeepAxis`], [`NonEmptyAxis`] |
//! | `matmul.rs` | G1-G5 | [`MatMulShape`], [`MatMulOutput`] |
//! | `manipulate.rs` | M1-M7 | [`ReshapeInto`], [`Flatten`], [`InsertAxis`], [`SqueezeAxis`], [`Permute`], [`Narrow`], [`Concat`] |
//! | `pad.rs` | M13 | [`PadAxis`], [`PadStatic`], [`PadFrom`] |
//! | `quant.rs` | Q16 | [`PerAxisShape`] |
//! | `conv.rs` | K1-K4 | [`Conv2dShape`], [`DepthwiseShape`], [`PoolShape`], [`AxisOut`] |
//! | `dense.rs` | G7, Q19 | [`DenseShape`] |
//!
//! How a dim pair is decided: both dims are mapped to typenum numbers
//! (`ToUnsigned`), three type-level booleans are computed
//! (`A == B`, `A == 1`, `B == 1`), and `Classify` turns them into a case. The case either picks
//! the output dim or, for an incompatible pair, fails a trait bound whose
//! `#[diagnostic::on_unimplemented]` names both dims and the rule. The diagnostic sits on that
//! innermost trait because rustc only shows it for the bound that actually fails. The cases and
//! the classifier are machinery (hidden from the docs); users name the shape-level traits and
//! the output aliases.

use typenum::{Eq as TEq, IsEqual, U1};

use crate::typed::dim::{Const, Dyn, ToUnsigned};
use crate::typed::shape::Shape;

pub use broadcast_op::{
    Bidirectional, BidirectionalDimRule, BidirectionalOutput, BroadcastToDim, BroadcastToShape,
    OneWayDimRule, Stretched,
};
pub use conv::{
    AxisOut, ChannelsMatch, Conv2dOutput, Conv2dShape, DepthMultiple, DepthwiseFirst,
    DepthwiseOutput, DepthwiseShape, Divides, KernelFits, PoolOutput, PoolShape, WindowOut,
};
pub use dense::DenseShape;
pub use manipulate::{
    AddDim, Axis, Concat, ConcatFits, Concatenated, Flatten, InRange, InsertAxis, IsPermutation,
    JoinDim, Narrow, NarrowDim, Narrowed, NonZeroStep, Permute, ReplaceAxis, ReshapeInto, Reverse,
    SameCount, SelectAxis, SqueezeAxis, StaticCount, Step, StepDim, Stepped, ToConst, UnitDim,
    WithAxis,
};
pub use matmul::{
    Append, Append2, InnerDim, InnerFits, MatMulOutput, MatMulOutputT, MatMulShape, MatMulShapeT,
    RankZeroOperand, TransposeIf, Transposed,
};
pub use none::{NoneDim, NoneShape, SameShape};
pub use numpy::{BroadcastOutput, Broadcasts, Numpy, NumpyDimRule, NumpyOutput};
pub use pad::{HasElements, PadAxis, PadDim, PadFrom, PadFromDim, PadStatic, Padded};
pub use primitive::{
    BinaryDimRule, BinaryDst, BinaryOutput, BinaryShape, BinarySources, Cons, DstShape,
    InPlaceDimRule, InPlaceOnto, InPlaceShape, Nil, PostOpDimRule, PostOpOnto, PostOpShape,
    PostOpShapes, RanksDiffer, RuntimeChecked, Unranked,
};
pub use quant::{PerAxisDim, PerAxisShape};
pub use reduce::{
    axis_index, KeepAxis, KeepDims, NonEmptyAxis, NonEmptyDim, NotZero, RemoveAxis, WithoutAxis,
};

#[doc(hidden)]
/// Case: the dims are equal; the output is either.
pub struct Equal;
#[doc(hidden)]
/// Case: the left dim is 1 and stretches; the output is the right dim (also when that is 0).
pub struct StretchLeft;
#[doc(hidden)]
/// Case: the right dim is 1 and stretches; the output is the left dim.
pub struct StretchRight;
#[doc(hidden)]
/// Case: neither dim is 1 and they differ: no broadcast.
pub struct Incompatible;

#[doc(hidden)]
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

/// A one-way per-dim rule: the first dim is 1 or the second, which is the result (B5's
/// `numpy`, O4's post-op operands, O8's src1 in place). Implemented for [`Equal`] and
/// [`StretchLeft`] only, and routed from `$marker`; the attributes carry each rule's own
/// compile-error message.
macro_rules! one_way_dim_rule {
    ($(#[$attr:meta])* $rule:ident for $marker:ident) => {
        $(#[$attr])*
        pub trait $rule<A, B> {
            /// The result: the second dim.
            type Output;
        }
        impl<A, B> $rule<A, B> for Equal {
            type Output = B;
        }
        impl<A, B> $rule<A, B> for StretchLeft {
            type Output = B;
        }
        impl<Case: $rule<A, B>, A, B> ModeDimRule<Case, A, B> for $marker {
            type Output = Case::Output;
        }
    };
}

#[doc(hidden)]
/// Routes a case to the per-dim rule of a mode, so each mode fails with its own message.
pub trait ModeDimRule<Case, A, B> {
    /// The output dim.
    type Output;
}
pub(crate) type Num<D> = <D as ToUnsigned>::Output;
pub(crate) type CaseOf<A, B> =
    <(TEq<Num<A>, Num<B>>, TEq<Num<A>, U1>, TEq<Num<B>, U1>) as Classify>::Case;

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
/// use shaped::{typed::rules::{BroadcastShape, Numpy}, Shape};
/// fn same<T>(_: T, _: T) {}
/// let out = <<Shape![2, 1, 5] as BroadcastShape<Shape![4, 1], Numpy>>::Output>::default();
/// same(out, <Shape![2, 4, 5]>::default());
/// ```
pub trait BroadcastShape<Rhs, Mode> {
    /// The output shape.
    type Output: Shape;
}

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
    ($m:ident [$($lead:ident)*] [] $zip:tt) => {
        $m!([$($lead)*] $zip);
    };
    ($m:ident [$($lead:ident)*] [$next:ident $($pool:ident)*] $zip:tt) => {
        $m!([$($lead)*] $zip);
        broadcast_shape_leads!($m [$($lead)* $next] [$($pool)*] $zip);
    };
}

// Every zip length 0..=8; each extra pair shrinks the pool of lead dims by one.
macro_rules! broadcast_shape_all {
    ($m:ident [$($zip:tt)*] [$($pool:ident)*] []) => {
        broadcast_shape_leads!($m [] [$($pool)*] [$($zip)*]);
    };
    ($m:ident [$($zip:tt)*] [$drop:ident $($pool:ident)*] [$pair:tt $($pairs:tt)*]) => {
        broadcast_shape_leads!($m [] [$drop $($pool)*] [$($zip)*]);
        broadcast_shape_all!($m [$($zip)* $pair] [$($pool)*] [$($pairs)*]);
    };
    ($m:ident [$($zip:tt)*] [] [$pair:tt $($pairs:tt)*]) => {
        broadcast_shape_leads!($m [] [] [$($zip)*]);
        broadcast_shape_all!($m [$($zip)* $pair] [] [$($pairs)*]);
    };
}

/// Every (lead, zip) split of two shapes with at most eight dims, handed to `$m!`.
macro_rules! for_each_alignment {
    ($m:ident) => {
        broadcast_shape_all!(
            $m
            []
            [L0 L1 L2 L3 L4 L5 L6 L7]
            [(A0 B0) (A1 B1) (A2 B2) (A3 B3) (A4 B4) (A5 B5) (A6 B6) (A7 B7)]
        );
    };
}

for_each_alignment!(broadcast_shape_impl);

#[doc(hidden)]
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

// Declared after the macros above, which are then in scope in each of these files.
mod broadcast_op;
mod conv;
mod dense;
mod manipulate;
mod matmul;
mod none;
mod numpy;
mod pad;
mod primitive;
mod quant;
mod reduce;
