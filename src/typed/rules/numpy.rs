//! NUMPY at compile time (P1-P6): the per-dim rule and its message, and [`Broadcasts`], the
//! bound that states the rule in a function generic over shapes.

use super::{BroadcastShape, Equal, ModeDimRule, StretchLeft, StretchRight};
use crate::typed::shape::StaticShape;

/// Marker for the NUMPY mode of elementwise operations (rules section 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Numpy;

/// NUMPY per-dim rule (P2): the case's output dim. Not implemented for `Incompatible`.
#[diagnostic::on_unimplemented(
    message = "cannot broadcast dim `{A}` with dim `{B}` (NUMPY)",
    label = "NUMPY broadcasting needs equal dims or a 1 in each position (rule P2)",
    note = "shapes are right-aligned and the shorter one is padded on the left with 1s (rule P1)"
)]
pub trait NumpyDimRule<A, B> {
    /// The output dim.
    type Output;
}

impl_dim_rule_cases!(NumpyDimRule);
impl<Case: NumpyDimRule<A, B>, A, B> ModeDimRule<Case, A, B> for Numpy {
    type Output = Case::Output;
}

/// The NUMPY output shape of `A` and `B` (any dims, `Dyn` included).
pub type NumpyOutput<A, B> = <A as BroadcastShape<B, Numpy>>::Output;

/// `Self` and `Rhs` are static shapes that NUMPY-broadcast (P1-P6): the bound to write in a
/// function generic over shapes, which reads like the rule. Its [`Output`](Broadcasts::Output)
/// is the broadcast shape ([`BroadcastOutput`]).
///
/// ```
/// use shaped::{BroadcastOutput, Broadcasts, Shape, StaticShape, Tensor};
///
/// fn add_bias<S, B>(x: &Tensor<f32, S>, bias: &Tensor<f32, B>) -> Tensor<f32, BroadcastOutput<S, B>>
/// where
///     S: Broadcasts<B>,
///     B: StaticShape,
/// {
///     x + bias
/// }
///
/// // A generic dim is written `{ N }`; the bound is checked for the caller's N.
/// fn scale_rows<const N: usize>(x: &Tensor<f32, Shape![{ N }, 3]>) -> Tensor<f32, Shape![{ N }, 3]>
/// where
///     Shape![{ N }, 3]: Broadcasts<Shape![{ N }, 1], Output = Shape![{ N }, 3]>,
/// {
///     let s = Tensor::<f32, Shape![{ N }, 1]>::splat(2.0);
///     x * &s
/// }
///
/// let x = Tensor::<f32, Shape![2, 3]>::splat(1.0);
/// let y = add_bias(&x, &Tensor::<f32, Shape![3]>::from([1.0, 2.0, 3.0]));
/// assert_eq!(y.as_slice(), &[2.0, 3.0, 4.0, 2.0, 3.0, 4.0]);
/// assert_eq!(scale_rows(&x).as_slice(), &[2.0; 6]);
/// ```
#[diagnostic::on_unimplemented(
    message = "shapes `{Self}` and `{Rhs}` do not NUMPY-broadcast (or are not both static)",
    label = "each right-aligned dim pair must be equal or contain a 1 (rule P2)"
)]
pub trait Broadcasts<Rhs>: StaticShape {
    /// The broadcast shape.
    type Output: StaticShape;
}

impl<S, R> Broadcasts<R> for S
where
    S: StaticShape + BroadcastShape<R, Numpy>,
    NumpyOutput<S, R>: StaticShape,
{
    type Output = NumpyOutput<S, R>;
}

/// The NUMPY output shape of two static shapes, as [`Broadcasts`] names it.
pub type BroadcastOutput<A, B> = <A as Broadcasts<B>>::Output;
