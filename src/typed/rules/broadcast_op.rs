//! The Broadcast op's modes at compile time: Bidirectional (B1-B4, NUMPY applied to input and
//! target, so the output may differ from the target) and one-directional `numpy`
//! `broadcast_to` (B5: the output is exactly the target; the input's dims are 1 or the
//! target's). The one-directional rule is also what `+=` and its kin need: the right side
//! broadcasts onto the left, which never grows.

use super::{BroadcastDim, BroadcastShape, Equal, ModeDimRule, StretchLeft, StretchRight};
use crate::typed::dim::{Const, Dyn};

/// Marker for Bidirectional broadcasting of a tensor to a target shape (rules section 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bidirectional;

/// Bidirectional per-dim rule (B1, B4): the case's output dim. Not implemented for
/// `Incompatible`.
#[diagnostic::on_unimplemented(
    message = "cannot broadcast input dim `{A}` to target dim `{B}` (Bidirectional)",
    label = "each right-aligned pair must be equal or contain a 1 (rule B4)",
    note = "Bidirectional broadcasting is NUMPY applied to (input shape, target shape) (rule B1)"
)]
pub trait BidirectionalDimRule<A, B> {
    /// The output dim.
    type Output;
}

impl_dim_rule_cases!(BidirectionalDimRule);
impl<Case: BidirectionalDimRule<A, B>, A, B> ModeDimRule<Case, A, B> for Bidirectional {
    type Output = Case::Output;
}

/// The Bidirectional output shape of input `A` and target `T`.
pub type BidirectionalOutput<A, T> = <A as BroadcastShape<T, Bidirectional>>::Output;

/// Marker for the one-directional rule (B5 `numpy` mode).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OneWay;

one_way_dim_rule! {
    /// One-directional per-dim rule (B5): the input dim `A` is 1 or the target dim `B`.
    /// Implemented for [`Equal`] and [`StretchLeft`] only: the target never shrinks to the
    /// input.
    #[diagnostic::on_unimplemented(
        message = "cannot stretch dim `{A}` to dim `{B}` (one-directional NUMPY: `broadcast_to`, `+=`, `sum_to`; B5)",
        label = "the input dim must be 1 or equal to the target dim; the target never changes (rule B5)"
    )]
    OneWayDimRule for OneWay
}

/// A dim that stretches to the target dim `Target` (B5): static pairs are decided here, a pair
/// with a [`Dyn`] is checked at run time.
pub trait BroadcastToDim<Target> {}

/// Two static dims: the one-way case of the shared per-dim classification.
impl<const A: usize, const B: usize> BroadcastToDim<Const<B>> for Const<A> where
    Const<A>: BroadcastDim<Const<B>, OneWay>
{
}
impl<const A: usize> BroadcastToDim<Dyn> for Const<A> {}
impl<const B: usize> BroadcastToDim<Const<B>> for Dyn {}
impl BroadcastToDim<Dyn> for Dyn {}

/// `Self` stretches to the target shape `Target` one-directionally (B5, numpy's
/// `broadcast_to`): the target's rank is at least `Self`'s, and each right-aligned dim of
/// `Self` is 1 or the target's. The result has exactly the target's shape.
///
/// ```
/// use shaped::{typed::rules::BroadcastToShape, Shape};
/// fn stretches<S: BroadcastToShape<T>, T>() {}
/// stretches::<Shape![3, 1], Shape![2, 3, 4]>();
/// stretches::<Shape![], Shape![2]>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be broadcast to `{Target}`: the target has a smaller rank",
    label = "one-directional broadcasting needs the target's rank to be at least the input's (rule B5)",
    note = "to let both sides grow, use `broadcast_bidirectional` (rule B1)"
)]
pub trait BroadcastToShape<Target> {}

macro_rules! broadcast_to_impl {
    ([$($l:ident)*] [$(($a:ident $b:ident))*]) => {
        impl<$($l,)* $($a: BroadcastToDim<$b>, $b,)*> BroadcastToShape<($($l,)* $($b,)*)>
            for ($($a,)*)
        {
        }
    };
}
for_each_alignment!(broadcast_to_impl);

/// B6 at compile time: the axes of `Target` that a tensor of shape `S` is stretched along
/// when broadcast to it one way (numpy's `broadcast_to`, the Broadcast op's `numpy` mode,
/// and each input of a NUMPY elementwise operation against its output). `S` must broadcast to
/// `Target` (checked at compile time); [`Stretched::AXES`] is a constant.
///
/// ```
/// use shaped::typed::rules::Stretched;
/// use shaped::Shape;
/// const AXES: shaped::rules::AxisSet = Stretched::<Shape![3, 1], Shape![2, 3, 4]>::AXES;
/// assert_eq!(AXES.iter().collect::<Vec<_>>(), [0, 2]);
/// ```
///
/// A shape that does not broadcast to the target does not compile:
///
/// ```compile_fail
/// use shaped::typed::rules::Stretched;
/// use shaped::Shape;
/// let _ = Stretched::<Shape![2, 3], Shape![3, 3]>::AXES;
/// ```
pub struct Stretched<S, Target>(core::marker::PhantomData<fn() -> (S, Target)>);

impl<S, Target> Stretched<S, Target>
where
    S: crate::typed::shape::StaticShape + BroadcastToShape<Target>,
    Target: crate::typed::shape::StaticShape,
{
    /// The stretched axes, computed at compile time.
    pub const AXES: crate::rules::AxisSet =
        crate::rules::AxisSet::placed(S::DIMS, Target::DIMS, Target::DIMS.len() - S::DIMS.len());
}
