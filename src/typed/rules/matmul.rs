//! Matrix products at compile time (rules G1-G5): the shape of `a.matmul(&b)`, inner dims
//! compared and batch dims broadcast by NUMPY, each misuse a compile error naming the shapes,
//! the dims and the rule. The runtime form is [`rules::matmul_shape`](crate::rules::matmul_shape).

use typenum::{Eq as TEq, IsEqual};

use super::{BroadcastShape, Numpy, NumpyOutput};
use crate::typed::dim::{Const, Dim, Dyn, ToUnsigned};
use crate::typed::shape::Shape;

/// The shape of `Self` times `Rhs` (numpy's `matmul`): the last two dims multiply (a rank-1
/// left operand is a row, a rank-1 right operand a column, G3), the inner dims are equal
/// (G4), and the batch dims broadcast by NUMPY (G5).
///
/// ```
/// use shaped::{typed::rules::MatMulShape, Shape};
/// fn same<T>(_: T, _: T) {}
/// same(<<Shape![2, 1, 5, 3] as MatMulShape<Shape![4, 3, 7]>>::Output>::default(), <Shape![2, 4, 5, 7]>::default());
/// same(<<Shape![3] as MatMulShape<Shape![3, 7]>>::Output>::default(), <Shape![7]>::default());
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot multiply `{Self}` by `{Rhs}`: matmul needs operands of rank 1 or more (G1)",
    label = "a rank-0 operand has no matrix dims"
)]
pub trait MatMulShape<Rhs: Shape>: Shape {
    /// The product's shape.
    type Output: Shape;
}

/// Never holds: the bound of a product with a rank-0 operand, whose message is the error (G1).
/// (Without these impls the method would not be found at all, a less helpful error.)
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cannot multiply `{L}` by `{R}`: matmul needs operands of rank 1 or more (G1)",
    label = "a rank-0 operand has no matrix dims"
)]
pub trait RankZeroOperand<L, R> {}

impl<R: Shape> MatMulShape<R> for ()
where
    R: RankZeroOperand<(), R>,
{
    type Output = ();
}

/// The product's shape: `<A as MatMulShape<B>>::Output`.
pub type MatMulOutput<A, B> = <A as MatMulShape<B>>::Output;

/// `Self` with the dim `X` added at the end: the matrix dims after the batch dims.
#[doc(hidden)]
pub trait Append<X: Dim>: Shape {
    /// The longer shape.
    type Output: Shape;
}

/// `Self` with its last two dims swapped when `T` is true (OpenVINO's `transpose_a` and
/// `transpose_b`, G2); a rank-1 shape, or `T` false, is left as it is.
pub trait TransposeIf<const T: bool>: Shape {
    /// The shape as the product reads it.
    type Output: Shape;
}

/// `S` with its last two dims swapped ([`TransposeIf`]`<true>`): the shape of `transpose()`.
pub type Transposed<S> = <S as TransposeIf<true>>::Output;

impl<S: Shape> TransposeIf<false> for S {
    type Output = S;
}

/// `()` has no matrix dims; a product with it fails on [`MatMulShape`] (G1).
impl TransposeIf<true> for () {
    type Output = ();
}

/// `Self` (its last two dims swapped if `TA`) times `Rhs` (swapped if `TB`): [`MatMulShape`]
/// after [`TransposeIf`] on each side, under one name, the bound a generic caller of
/// `matmul_nt`, `matmul_tn`, `matmul_tt` or `matmul_t` writes.
///
/// ```
/// use shaped::{typed::rules::MatMulShapeT, Shape};
/// fn same<T>(_: T, _: T) {}
/// // [2, 3] times [4, 3] transposed.
/// let out = <<Shape![2, 3] as MatMulShapeT<Shape![4, 3], false, true>>::Output>::default();
/// same(out, <Shape![2, 4]>::default());
/// ```
pub trait MatMulShapeT<Rhs: Shape, const TA: bool, const TB: bool>: Shape {
    /// The product's shape.
    type Output: Shape;
}

impl<S, R, const TA: bool, const TB: bool> MatMulShapeT<R, TA, TB> for S
where
    S: TransposeIf<TA>,
    R: TransposeIf<TB>,
    <S as TransposeIf<TA>>::Output: MatMulShape<<R as TransposeIf<TB>>::Output>,
{
    type Output = MatMulOutput<<S as TransposeIf<TA>>::Output, <R as TransposeIf<TB>>::Output>;
}

/// The shape of `A` (transposed if `TA`) times `B` (transposed if `TB`).
pub type MatMulOutputT<A, B, const TA: bool, const TB: bool> =
    <A as MatMulShapeT<B, TA, TB>>::Output;

/// `Self` with the dims `X` and `Y` added at the end.
#[doc(hidden)]
pub trait Append2<X: Dim, Y: Dim>: Shape {
    /// The longer shape.
    type Output: Shape;
}

/// The inner dims of a product are equal (G4): static dims at compile time, a `Dyn` at run
/// time. `SA` and `SB` are the operands' shapes, for the message.
#[doc(hidden)]
pub trait InnerDim<K, SA, SB> {}

impl<const N: usize, const M: usize, SA, SB> InnerDim<Const<M>, SA, SB> for Const<N>
where
    Const<N>: ToUnsigned,
    Const<M>: ToUnsigned,
    <Const<N> as ToUnsigned>::Output: IsEqual<<Const<M> as ToUnsigned>::Output>,
    TEq<<Const<N> as ToUnsigned>::Output, <Const<M> as ToUnsigned>::Output>:
        InnerFits<SA, SB, Const<N>, Const<M>>,
{
}
impl<const N: usize, SA, SB> InnerDim<Dyn, SA, SB> for Const<N> {}
impl<K: Dim, SA, SB> InnerDim<K, SA, SB> for Dyn {}

/// Holds for `B1`, "the inner dims are equal"; its message is the error of a product whose
/// inner dims differ.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cannot multiply `{SA}` by `{SB}`: inner dims `{KA}` vs `{KB}` (G4)",
    label = "the left operand's columns must equal the right operand's rows; a 1 does not stretch there"
)]
pub trait InnerFits<SA, SB, KA, KB> {}
impl<SA, SB, KA, KB> InnerFits<SA, SB, KA, KB> for typenum::B1 {}

include!(concat!(env!("OUT_DIR"), "/matmul_impls.rs"));
