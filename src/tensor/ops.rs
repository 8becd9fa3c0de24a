//! Operators and elementwise methods, for static and mixed shapes alike.
//!
//! * NUMPY broadcasting (P1-P6) for `+ - * / %`, `& | ^`, and the methods [`maximum`],
//!   [`minimum`], [`pow`] (with `std` or `libm`), [`squared_difference`], [`floor_mod`], the
//!   comparisons ([`eq`], [`ne`], [`lt`], [`le`], [`gt`], [`ge`]) and the logical operations
//!   ([`and`], [`or`], [`xor`]). The right operand is an [`Operand`]: a tensor, a reference to
//!   one, or a scalar (a rank-0 operand, so `&a + 2.0` is broadcasting too); a scalar also
//!   works on the left (`2.0 - &a`).
//! * `+= -= *= /= %=`: the right side broadcasts onto the left one-directionally (B5); the left
//!   never grows.
//! * `-a` ([`Neg`](core::ops::Neg)) and [`map`].
//! * NONE (N1-N3): [`zip_map`], identical shapes only.
//! * `broadcast_to` (B5, one-directional: exactly the target) and `broadcast_bidirectional`
//!   (B1-B4).
//!
//! Which path runs is decided by the kinds of both shapes ([`OperatorPath`]): two fully static
//! shapes take the static kernel, with every shape error a compile error and nothing to check at
//! run time; a [`Dyn`](crate::Dyn) dim on either side takes the runtime rules and kernel, and a
//! runtime mismatch **panics** with the error's message (the `try_*` methods return it).
//!
//! Integer elements follow one contract on every path ([`Element`]): `+ - *` and negation wrap,
//! in debug and release builds alike; an integer zero divisor makes `/` and `%` panic with the
//! [`DivisionByZero`](crate::ErrorKind::DivisionByZero) error's message (`try_div` returns it).
//!
//! [`maximum`]: Tensor::maximum
//! [`minimum`]: Tensor::minimum
//! [`pow`]: Tensor::pow
//! [`squared_difference`]: Tensor::squared_difference
//! [`floor_mod`]: Tensor::floor_mod
//! [`eq`]: Tensor::eq
//! [`ne`]: Tensor::ne
//! [`lt`]: Tensor::lt
//! [`le`]: Tensor::le
//! [`gt`]: Tensor::gt
//! [`ge`]: Tensor::ge
//! [`and`]: Tensor::and
//! [`or`]: Tensor::or
//! [`xor`]: Tensor::xor
//! [`map`]: Tensor::map
//! [`zip_map`]: Tensor::zip_map

use core::cmp::Ordering;
use core::ops;

use super::result::{ResultStorage, Storable, Stored};
use super::{OwnedIn, Tensor};
use crate::element::{pick, Boolean, Element, Scalar};
use crate::error::{Error, ErrorKind, Operation};
use crate::runtime::plan::{Apply, Here, Split, Tiled};
use crate::runtime::ArrayRef;
use crate::typed::dim::{DimKind, DynKind, StaticKind};
use crate::typed::kernel;
use crate::typed::private::SealedOperand;
use crate::typed::rules::{
    Bidirectional, BidirectionalOutput, BroadcastOutput, BroadcastShape, BroadcastToShape,
    Broadcasts, SameShape,
};
use crate::typed::shape::{Shape, StaticShape};
use crate::typed::storage::{fits_inline, Data, DataMut, Family, Stack};
#[cfg(feature = "alloc")]
use crate::{error::OrPanic, rules::AutoBroadcast, typed::rules::NumpyOutput};

/// The right-hand side of a broadcasting operation: a tensor (owned or borrowed, any storage)
/// or a scalar, with elements of type [`Elem`](Operand::Elem). Sealed; make your own element
/// type a [`Scalar`] to use it as a scalar operand.
///
/// The element types of the two sides are compared where the elements are read, by
/// [`SameElement`], so a mismatch is reported once, as that.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an operand: it must be a tensor, a reference to one, or a scalar",
    label = "not an operand"
)]
pub trait Operand: SealedOperand {
    /// The element type.
    type Elem;
    /// The operand's shape (`()` for a scalar).
    type Shape: Shape;
    /// Where a result involving this operand is stored.
    type Family: Family;
    /// Which path an operation with this operand takes: a tensor's shape broadcasts, a
    /// scalar's is rank 0.
    #[doc(hidden)]
    type Path;
    /// The elements, row-major.
    fn elements(&self) -> &[Self::Elem];
    /// The operand's shape value (its runtime dims, for shapes with `Dyn` dims).
    fn shape_value(&self) -> Self::Shape;
}

/// An [`Operand`] of a static shape (or a scalar): what the `_into` forms take, whose
/// destination's shape is known at compile time.
pub trait StaticOperand: Operand<Shape: StaticShape> {}
impl<R: Operand<Shape: StaticShape>> StaticOperand for R {}

/// `Self` is the element type `T`: the one check of element types in an operation.
#[diagnostic::on_unimplemented(
    message = "cannot combine `{Self}` elements with a tensor of `{T}`: the element types differ",
    label = "this operand's elements are `{Self}`, not `{T}`",
    note = "both sides of an operation have the same element type: for a scalar with a float tensor write `2.0`, not `2`; convert a tensor with `map(|&x| x as f64)`"
)]
pub trait SameElement<T> {
    /// The elements, as `T`s (they are `T`s).
    fn cast(elements: &[Self]) -> &[T]
    where
        Self: Sized;
}

impl<T> SameElement<T> for T {
    #[inline(always)]
    fn cast(elements: &[T]) -> &[T] {
        elements
    }
}

/// The elements of `rhs` as `U`s, which they are ([`SameElement`]).
#[inline(always)]
fn elements_as<U, R: Operand>(rhs: &R) -> &[U]
where
    R::Elem: SameElement<U> + Sized,
{
    <R::Elem as SameElement<U>>::cast(rhs.elements())
}

impl<U, S: Shape, D: Data<U>> SealedOperand for &Tensor<U, S, D> {}
impl<U, S: Shape, D: Data<U>> Operand for &Tensor<U, S, D> {
    type Elem = U;
    type Shape = S;
    type Family = D::Family;
    type Path = TensorOperand;
    #[inline(always)]
    fn elements(&self) -> &[U] {
        self.as_slice()
    }
    #[inline(always)]
    fn shape_value(&self) -> S {
        Tensor::shape_value(self)
    }
}

impl<U, S: Shape, D: Data<U>> SealedOperand for Tensor<U, S, D> {}
impl<U, S: Shape, D: Data<U>> Operand for Tensor<U, S, D> {
    type Elem = U;
    type Shape = S;
    type Family = D::Family;
    type Path = TensorOperand;
    #[inline(always)]
    fn elements(&self) -> &[U] {
        self.as_slice()
    }
    #[inline(always)]
    fn shape_value(&self) -> S {
        Tensor::shape_value(self)
    }
}

impl<X: Scalar> SealedOperand for X {}
impl<X: Scalar> Operand for X {
    type Elem = X;
    type Shape = ();
    type Family = Stack;
    type Path = ScalarOperand;
    #[inline(always)]
    fn elements(&self) -> &[X] {
        core::slice::from_ref(self)
    }
    #[inline(always)]
    fn shape_value(&self) {}
}

/// Two shapes that NUMPY-broadcast (P1-P6), of any kinds: the bound a shape-generic function
/// writes for an operator or an elementwise method between two tensors, with
/// [`Output`](BroadcastWith::Output) the result's shape (stored as [`Stored`], or
/// [`Out`](crate::bounds::Out) for inline tensors and views).
///
/// Two static shapes are checked at compile time (as [`Broadcasts`]) and take the static
/// kernel. With a [`Dyn`](crate::Dyn) dim on either side (feature `alloc`) the static dims are
/// still checked at compile time and the rest at run time, where the operators panic on a
/// mismatch and the `try_*` methods return the error. Concrete shapes have it without being
/// asked; a function generic over a dim names it, with [`Storable`] for the result (named
/// there with `Output = `, the compiler does not carry the bound over). A scalar operand
/// needs no such bound, only [`Storable`] on the tensor's shape.
///
/// ```
/// use shaped::bounds::{BroadcastWith, Const, Dim, Out, Storable};
/// use shaped::{Shape, Tensor};
///
/// /// Adds a bias to every row of a batch of any size, then scales it.
/// fn add_bias<B: Dim, const N: usize>(
///     x: &Tensor<f32, (B, Const<N>)>,
///     bias: &Tensor<f32, (Const<N>,)>,
/// ) -> Out<f32, (B, Const<N>)>
/// where
///     (B, Const<N>): BroadcastWith<(Const<N>,), Output = (B, Const<N>)> + Storable,
/// {
///     (x + bias) * 2.0
/// }
///
/// let x = Tensor::<f32, Shape![2, 3]>::splat(1.0);
/// let bias = Tensor::<f32, Shape![3]>::from([1.0, 2.0, 3.0]);
/// assert_eq!(add_bias(&x, &bias).as_slice(), &[4.0, 6.0, 8.0, 4.0, 6.0, 8.0]);
/// # #[cfg(feature = "alloc")] {
/// let batch = Tensor::<f32, Shape![_, 3]>::from_shape_vec([1, 3], vec![0.0; 3]).unwrap();
/// assert_eq!(add_bias(&batch, &bias).as_slice(), &[2.0, 4.0, 6.0]);
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "shapes `{Self}` and `{R}` are not known to NUMPY-broadcast",
    label = "the left operand's shape",
    note = "in a shape-generic function, add the bound `{Self}: shaped::bounds::BroadcastWith<{R}>` (with `Output =` the result's shape)"
)]
pub trait BroadcastWith<R: Shape>: Shape {
    /// The broadcast shape.
    type Output: Storable;
    /// Runs `check` (after the shapes, before any element), then `f` over the broadcast
    /// elements, on the path the kinds choose.
    #[doc(hidden)]
    fn zip<F: Family, T, U, V>(
        lhs: &[T],
        lhs_dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Apply<T, U, V>,
    ) -> Stored<F, V, Self::Output>;
}

// One blanket impl over a hidden kind-keyed one: a failed rule is reported once, at its cause
// (for static shapes, the dim pair and its message).
impl<S: Shape, R: Shape> BroadcastWith<R> for S
where
    S: KindBroadcast<R, PairKind<S, R>>,
{
    type Output = <S as KindBroadcast<R, PairKind<S, R>>>::Output;
    #[inline(always)]
    #[track_caller]
    fn zip<F: Family, T, U, V>(
        lhs: &[T],
        lhs_dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Apply<T, U, V>,
    ) -> Stored<F, V, Self::Output> {
        <S as KindBroadcast<R, PairKind<S, R>>>::zip(lhs, lhs_dims, rhs, rhs_dims, check, f)
    }
}

/// [`BroadcastWith`] keyed on the kind of both shapes ([`StaticKind`] or [`DynKind`]): two
/// impls that never overlap.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "shapes `{Self}` and `{R}` are not known to NUMPY-broadcast",
    label = "the left operand's shape",
    note = "in a shape-generic function, add the bound `{Self}: shaped::bounds::BroadcastWith<{R}>` (with `Output =` the result's shape)"
)]
pub trait KindBroadcast<R: Shape, K> {
    /// The broadcast shape.
    type Output: Storable;
    /// As [`BroadcastWith::zip`].
    fn zip<F: Family, T, U, V>(
        lhs: &[T],
        lhs_dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Apply<T, U, V>,
    ) -> Stored<F, V, Self::Output>;
}

impl<S, R> KindBroadcast<R, StaticKind> for S
where
    S: Broadcasts<R>,
    R: StaticShape,
{
    type Output = BroadcastOutput<S, R>;
    #[inline(always)]
    #[track_caller]
    fn zip<F: Family, T, U, V>(
        lhs: &[T],
        _: &[usize],
        rhs: &[U],
        _: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Apply<T, U, V>,
    ) -> Stored<F, V, Self::Output> {
        if let Err(e) = check() {
            fail(e)
        }
        let data = kernel::zip::<F, T, U, V, S, R, BroadcastOutput<S, R>, _>(lhs, rhs, f);
        Tensor::from_parts(data, Default::default())
    }
}

#[cfg(feature = "alloc")]
impl<S, R> KindBroadcast<R, DynKind> for S
where
    S: Shape + BroadcastShape<R, crate::typed::rules::Numpy>,
    R: Shape,
    NumpyOutput<S, R>: Storable,
{
    type Output = NumpyOutput<S, R>;
    #[track_caller]
    fn zip<F: Family, T, U, V>(
        lhs: &[T],
        lhs_dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Apply<T, U, V>,
    ) -> Stored<F, V, Self::Output> {
        type Kind<O> = <O as Shape>::Kind;
        // The values are checked after the shapes, as on every other path: a shape error wins.
        let result = super::try_ops::zip_runtime_with::<T, U, V, S, R, _>(
            lhs,
            lhs_dims,
            rhs,
            rhs_dims,
            AutoBroadcast::Numpy,
            |_, _| check(),
            f,
            <Kind<Self::Output> as ResultStorage<Self::Output>>::from_vec::<F, V>,
        );
        result.or_panic()
    }
}

/// The kind of the pair of shapes of an operation: static only if both are.
pub type PairKind<A, B> = <<A as Shape>::Kind as DimKind>::And<<B as Shape>::Kind>;

/// A check of the operands' values before anything is computed (`lhs dims, rhs elements, rhs
/// dims`): zero divisors. It returns the error; the operator panics with it, at the caller's
/// line (a panic inside a function called through a pointer would report this crate's).
pub type Check<U> = fn(&[usize], &[U], &[usize]) -> Result<(), Error>;

/// `out`'s dims against `dims`, the shape mismatch an error of `op` naming both (for static
/// shapes the comparison folds away): the one-tensor `_into` forms' check of their
/// destination.
#[inline(always)]
pub(crate) fn check_same_shape(out: &[usize], dims: &[usize], op: Operation) -> Result<(), Error> {
    if out == dims {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::ShapeMismatch, op, out, dims))
    }
}

/// Each element of `x` through `f` into `out`, which has `x`'s shape (checked, an error of
/// `op`): the body of the element-wise `_into` forms (quantize, dequantize, the int8 lookups,
/// TFLite's float kernels).
#[inline(always)]
pub(crate) fn map_into<T, V, S: Shape, D: Data<T>, O: DataMut<V>>(
    x: &Tensor<T, S, D>,
    out: &mut Tensor<V, S, O>,
    op: Operation,
    f: impl Fn(&T) -> V,
) -> Result<(), Error> {
    check_same_shape(out.shape().as_ref(), x.shape().as_ref(), op)?;
    for (y, v) in out.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *y = f(v);
    }
    Ok(())
}

/// No value check.
#[inline(always)]
fn unchecked<U>(_: &[usize], _: &[U], _: &[usize]) -> Result<(), Error> {
    Ok(())
}

/// What an elementwise operation of `Self` with the operand `R` (elements `U`) needs, and where
/// its work goes:
///
/// * `R` a tensor or a reference to one: the shapes broadcast ([`BroadcastWith`]), on the
///   static kernel when both are static (every shape error a compile error, nothing checked at
///   run time), on the runtime rules and kernel with a [`Dyn`](crate::Dyn) dim on either side
///   (feature `alloc`), where **a runtime mismatch panics** with the error's message (the
///   `try_*` methods return a `Result` instead). The result is stored like the operands (on
///   the heap if either is; its storage type says so when its shape keeps a `Dyn` dim).
/// * `R` a scalar: rank 0, so the result has `Self`'s shape ([`Storable`] is the only bound).
///
/// One blanket impl over a hidden one keyed on the operand's kind, so that a failed rule or
/// an element type of the wrong kind is reported once, at its cause.
pub trait OperatorPath<T, U, R> {
    /// The result, holding `V`s.
    type Output<V>;
    /// Runs `check` on the operands, then combines `self` with `rhs` elementwise through `f`.
    fn apply<V>(&self, rhs: R, check: Check<U>, f: impl Apply<T, U, V>) -> Self::Output<V>;
}

// Hidden from `Tensor`'s page: the operators' docs say what it means.
#[doc(hidden)]
impl<T, S, D, U, R> OperatorPath<T, U, R> for Tensor<T, S, D>
where
    S: Shape,
    D: Data<T>,
    R: Operand,
    R::Path: OperandPath<T, S, D, U, R>,
{
    type Output<V> = <R::Path as OperandPath<T, S, D, U, R>>::Output<V>;
    #[inline(always)]
    #[track_caller]
    fn apply<V>(&self, rhs: R, check: Check<U>, f: impl Apply<T, U, V>) -> Self::Output<V> {
        R::Path::apply(self, rhs, check, f)
    }
}

/// The path of a tensor operand: the shapes broadcast.
#[doc(hidden)]
#[derive(Debug)]
pub enum TensorOperand {}

/// The path of a scalar operand: a map over the left tensor.
#[doc(hidden)]
#[derive(Debug)]
pub enum ScalarOperand {}

/// [`OperatorPath`] implemented by the operand's kind ([`Operand::Path`]), for a left tensor
/// `Tensor<T, S, D>`: two impls, told apart by their `Self` type alone, so a failed bound is
/// reported as itself.
#[doc(hidden)]
pub trait OperandPath<T, S: Shape, D: Data<T>, U, R> {
    /// The result, holding `V`s.
    type Output<V>;
    /// Runs `check`, then combines `lhs` with `rhs` elementwise through `f`.
    fn apply<V>(
        lhs: &Tensor<T, S, D>,
        rhs: R,
        check: Check<U>,
        f: impl Apply<T, U, V>,
    ) -> Self::Output<V>;
}

/// The family of a result of two operands stored in `A` and `B`: the heap if either is.
type Joined<A, B> = <A as Family>::Join<B>;

impl<T, S, D, U, R> OperandPath<T, S, D, U, R> for TensorOperand
where
    S: BroadcastWith<R::Shape>,
    D: Data<T>,
    R: Operand,
    R::Elem: SameElement<U> + Sized,
{
    type Output<V> =
        Stored<Joined<D::Family, R::Family>, V, <S as BroadcastWith<R::Shape>>::Output>;
    #[inline(always)]
    #[track_caller]
    fn apply<V>(
        lhs: &Tensor<T, S, D>,
        rhs: R,
        check: Check<U>,
        f: impl Apply<T, U, V>,
    ) -> Self::Output<V> {
        let elements = elements_as::<U, R>(&rhs);
        let (dims, rhs_dims) = (lhs.shape(), rhs.shape_value().dims());
        let (dims, rhs_dims) = (dims.as_ref(), rhs_dims.as_ref());
        S::zip::<Joined<D::Family, R::Family>, T, U, V>(
            lhs.as_slice(),
            dims,
            elements,
            rhs_dims,
            || check(dims, elements, rhs_dims),
            f,
        )
    }
}

impl<T, S, D, U, R> OperandPath<T, S, D, U, R> for ScalarOperand
where
    S: Storable,
    D: Data<T>,
    R: Operand,
    R::Elem: SameElement<U> + Sized,
{
    type Output<V> = Stored<D::Family, V, S>;
    #[inline(always)]
    #[track_caller]
    fn apply<V>(
        lhs: &Tensor<T, S, D>,
        rhs: R,
        check: Check<U>,
        f: impl Apply<T, U, V>,
    ) -> Self::Output<V> {
        let elements = elements_as::<U, R>(&rhs);
        let dims = lhs.shape();
        if let Err(e) = check(dims.as_ref(), elements, &[]) {
            fail(e)
        }
        let scalar = match elements {
            [x] => x,
            _ => unreachable!("a scalar operand is one element"),
        };
        <S::Kind as ResultStorage<S>>::zip_scalar::<D::Family, T, U, V>(
            lhs.as_slice(),
            dims.as_ref(),
            scalar,
            f,
        )
    }
}

/// The operators' contract on a runtime mismatch or a zero integer divisor: panic with the
/// error's message, at the caller's line.
pub(crate) use crate::error::panic_with as fail;

/// The [`ErrorKind::DivisionByZero`] error when an integer divisor is zero.
/// Nothing is checked for floats (`T::INTEGER` is a constant, so the check compiles away).
#[inline(always)]
fn check_divisor<T: Element>(
    lhs: &[usize],
    divisor: &[T],
    divisor_dims: &[usize],
) -> Result<(), Error> {
    if T::INTEGER && divisor.iter().any(|x| x.is_zero()) {
        let kind = ErrorKind::DivisionByZero;
        return Err(Error::new(kind, Operation::Compute, lhs, divisor_dims));
    }
    Ok(())
}

/// The result of an operation of `L` with the operand `R` on the path their kinds choose,
/// holding `V`s.
pub type PathOutput<L, T, U, R, V> = <L as OperatorPath<T, U, R>>::Output<V>;

// The elementwise methods with one body each, inside the impl block below.
macro_rules! elementwise_methods {
    ($($name:ident <$($bound:path),*> |$x:ident, $y:ident| $body:expr, $out:ty, $doc:literal;)*) => {$(
        #[doc = $doc]
        #[inline(always)]
        #[track_caller]
        pub fn $name<R>(&self, rhs: R) -> PathOutput<Self, T, T, R, $out>
        where
            Self: OperatorPath<T, T, R>,
            T: Copy + Send + Sync $(+ $bound)*,
        {
            fits_inline!(PathOutput<Self, T, T, R, $out>);
            OperatorPath::apply(self, rhs, unchecked, Tiled(|$x: &T, $y: &T| $body))
        }
    )*};
}

/// # Elementwise operations
///
/// NUMPY-broadcast methods (the operators are trait impls below), static and mixed shapes alike.
/// A generic caller writes `S: BroadcastWith<R, Output = O>` and `O: Storable` for two tensors,
/// `S: Storable` with a scalar ([`bounds`](crate::bounds)).
///
/// Operations for every kind of storage and shape.
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// NUMPY-broadcasts `self` with `rhs` and combines each pair of elements with `f`. Static
    /// shapes are checked at compile time; a runtime mismatch of `Dyn` dims panics (see
    /// `try_broadcast_with` for a `Result`).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2, 1]>::from([[1], [2]]);
    /// let b = Tensor::<i32, Shape![3]>::from([10, 20, 30]);
    /// let c = a.broadcast_with(&b, |x, y| x * y);
    /// assert_eq!(c.as_slice(), &[10, 20, 30, 20, 40, 60]);
    /// ```
    ///
    /// If `f` panics part-way, a static result drops the elements already made; a result with `Dyn`
    /// dims is written in place and leaks them (never dropped twice, never read).
    #[inline(always)]
    #[track_caller]
    pub fn broadcast_with<U, R, V>(
        &self,
        rhs: R,
        f: impl FnMut(&T, &U) -> V,
    ) -> PathOutput<Self, T, U, R, V>
    where
        Self: OperatorPath<T, U, R>,
    {
        fits_inline!(PathOutput<Self, T, U, R, V>);
        OperatorPath::apply(self, rhs, unchecked, Here(f))
    }

    /// [`broadcast_with`](Self::broadcast_with) with an [`Apply`] of the caller's (the int8
    /// add's row form).
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[inline(always)]
    #[track_caller]
    pub(crate) fn broadcast_apply<U, R, V>(
        &self,
        rhs: R,
        f: impl Apply<T, U, V>,
    ) -> PathOutput<Self, T, U, R, V>
    where
        Self: OperatorPath<T, U, R>,
    {
        OperatorPath::apply(self, rhs, unchecked, f)
    }

    /// Applies `f` to each element. A static result is stored like `self` (stack or heap).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from([1, 2, 3]).map(|x| x * 10);
    /// assert_eq!(t.as_slice(), &[10, 20, 30]);
    /// ```
    ///
    /// If `f` panics part-way, a static result drops the elements already made; a result with `Dyn`
    /// dims is written in place and leaks them (never dropped twice, never read).
    #[inline(always)]
    #[track_caller]
    pub fn map<V>(&self, mut f: impl FnMut(&T) -> V) -> Stored<D::Family, V, S>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, V, S>);
        self.map_apply(Here(|x: &T, _: &()| f(x)))
    }

    elementwise_methods! {
        maximum<PartialOrd> |x, y| pick(*x, *y, Ordering::Greater), T,
            "Elementwise maximum. A NaN in either operand gives NaN, as in numpy.";
        minimum<PartialOrd> |x, y| pick(*x, *y, Ordering::Less), T,
            "Elementwise minimum. A NaN in either operand gives NaN, as in numpy.";
        squared_difference<Element> |x, y| T::squared_difference(*x, *y), T,
            "Elementwise `(self - rhs)²` (integers wrap).";
        eq<PartialEq> |x, y| x == y, bool,
            "Elementwise `self == rhs`, a `bool` tensor. (`==` compares whole tensors.)";
        ne<PartialEq> |x, y| x != y, bool, "Elementwise `self != rhs`, a `bool` tensor.";
        lt<PartialOrd> |x, y| x < y, bool, "Elementwise `self < rhs`, a `bool` tensor.";
        le<PartialOrd> |x, y| x <= y, bool, "Elementwise `self <= rhs`, a `bool` tensor.";
        gt<PartialOrd> |x, y| x > y, bool, "Elementwise `self > rhs`, a `bool` tensor.";
        ge<PartialOrd> |x, y| x >= y, bool, "Elementwise `self >= rhs`, a `bool` tensor.";
        and<Boolean> |x, y| *x & *y, T, "Elementwise logical and (`bool` tensors).";
        or<Boolean> |x, y| *x | *y, T, "Elementwise logical or (`bool` tensors).";
        xor<Boolean> |x, y| *x ^ *y, T, "Elementwise logical exclusive or (`bool` tensors).";
    }

    /// Elementwise remainder with the sign of `rhs` (Python's `%`), NUMPY-broadcast. An integer
    /// zero divisor panics with the error's message (`try_floor_mod`
    /// returns it).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2]>::from([-7, 7]);
    /// assert_eq!(t.floor_mod(3).as_slice(), &[2, 1]);
    /// assert_eq!((&t % 3).as_slice(), &[-1, 1]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn floor_mod<R>(&self, rhs: R) -> PathOutput<Self, T, T, R, T>
    where
        Self: OperatorPath<T, T, R>,
        T: Element,
    {
        fits_inline!(PathOutput<Self, T, T, R, T>);
        OperatorPath::apply(
            self,
            rhs,
            check_divisor::<T>,
            Split(|x: &T, y: &T| T::floor_mod(*x, *y)),
        )
    }

    /// Elementwise `self.powf(rhs)` for float elements, NUMPY-broadcast. Needs the `std` or the
    /// `libm` feature.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2]>::from([2.0, 3.0]).pow(2.0);
    /// assert_eq!(t.as_slice(), &[4.0, 9.0]);
    /// ```
    #[cfg(any(feature = "std", feature = "libm"))]
    #[cfg_attr(docsrs, doc(cfg(any(feature = "std", feature = "libm"))))]
    #[inline(always)]
    #[track_caller]
    pub fn pow<R>(&self, rhs: R) -> PathOutput<Self, T, T, R, T>
    where
        Self: OperatorPath<T, T, R>,
        T: crate::element::Float,
    {
        fits_inline!(PathOutput<Self, T, T, R, T>);
        OperatorPath::apply(self, rhs, unchecked, Split(|x: &T, y: &T| x.powf(*y)))
    }
}

impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// [`map`](Self::map) with a function threads can share: a large heap-backed or mixed
    /// result is computed on several threads (feature `rayon`), each element as on one.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn map_shared<V>(&self, f: impl Fn(&T) -> V + Sync + Send) -> Stored<D::Family, V, S>
    where
        S: Storable,
        T: Sync,
        V: Send,
    {
        self.map_apply(Split(move |x: &T, _: &()| f(x)))
    }

    /// The kernel of every unary operation: `f(x, ())` for each element, on the path of
    /// `S`'s kind, stored like `self`.
    #[inline(always)]
    #[track_caller]
    fn map_apply<V>(&self, f: impl Apply<T, (), V>) -> Stored<D::Family, V, S>
    where
        S: Storable,
    {
        let dims = self.shape();
        <S::Kind as ResultStorage<S>>::zip_scalar::<D::Family, T, (), V>(
            self.as_slice(),
            dims.as_ref(),
            &(),
            f,
        )
    }
}

/// # Broadcasting, static shapes
///
/// Static-only operations.
impl<T, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// Like [`broadcast_with`](Self::broadcast_with), writing into `out` instead of building a
    /// new tensor: the way to produce a result too large for the stack without a heap.
    ///
    /// ```
    /// use shaped::{Shape, Tensor, TensorViewMut};
    /// let a = Tensor::<f32, Shape![2, 1]>::from([[1.0], [2.0]]);
    /// let b = Tensor::<f32, Shape![2]>::from([10.0, 20.0]);
    /// let mut buf = [0.0f32; 4];
    /// let mut out = TensorViewMut::<f32, Shape![2, 2]>::new(&mut buf).unwrap();
    /// a.broadcast_with_into(&b, &mut out, |x, y| x + y);
    /// assert_eq!(buf, [11.0, 21.0, 12.0, 22.0]);
    /// ```
    #[inline(always)]
    pub fn broadcast_with_into<R: StaticOperand, V, E: DataMut<V>>(
        &self,
        rhs: R,
        out: &mut Tensor<V, BroadcastOutput<S, R::Shape>, E>,
        f: impl FnMut(&T, &R::Elem) -> V,
    ) where
        S: Broadcasts<R::Shape>,
    {
        kernel::zip_into::<T, R::Elem, V, S, R::Shape, BroadcastOutput<S, R::Shape>>(
            self.as_slice(),
            rhs.elements(),
            out.as_mut_slice(),
            f,
        );
    }

    /// [`broadcast_with_into`](Self::broadcast_with_into) with an [`Apply`] of the caller's
    /// (the int8 add's row form).
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[inline(always)]
    pub(crate) fn broadcast_apply_into<R: StaticOperand, V, E: DataMut<V>>(
        &self,
        rhs: R,
        out: &mut Tensor<V, BroadcastOutput<S, R::Shape>, E>,
        f: impl Apply<T, R::Elem, V>,
    ) where
        S: Broadcasts<R::Shape>,
    {
        kernel::zip_into_with::<T, R::Elem, V, S, R::Shape, BroadcastOutput<S, R::Shape>>(
            self.as_slice(),
            rhs.elements(),
            out.as_mut_slice(),
            f,
        );
    }

    /// NONE broadcasting (N1-N3): combines two tensors of *identical* shape with `f`. A shape
    /// mismatch, a rank mismatch included, is a compile error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    /// let p = a.zip_map(&a, |x, y| x * y);
    /// assert_eq!(p.as_slice(), &[1, 4, 9]);
    /// ```
    #[inline(always)]
    pub fn zip_map<U, S2, E, V>(
        &self,
        rhs: &Tensor<U, S2, E>,
        f: impl FnMut(&T, &U) -> V,
    ) -> OwnedIn<<D::Family as Family>::Join<E::Family>, V, S>
    where
        S2: StaticShape + SameShape<S>,
        E: Data<U>,
    {
        fits_inline!(OwnedIn<<D::Family as Family>::Join<E::Family>, V, S>);
        let data = kernel::zip::<<D::Family as Family>::Join<E::Family>, T, U, V, S, S, S, _>(
            self.as_slice(),
            rhs.as_slice(),
            Here(f),
        );
        Tensor::from_parts(data, Default::default())
    }
}

/// # Broadcasting to a shape
///
/// numpy's `broadcast_to` and OpenVINO's bidirectional Broadcast, the target a shape type:
/// static shapes, checked at compile time (`try_broadcast_to` and `try_broadcast_bidirectional`
/// take runtime dims).
impl<T: Clone + Send + Sync, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// numpy's `broadcast_to` (B5, one-directional): the result has exactly the shape
    /// `To`. Each right-aligned dim of `self` must be 1 or the target's, and the target's
    /// rank at least `self`'s; anything else is a compile error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3, 1]>::from([[1], [2], [3]]);
    /// let b: Tensor<i32, Shape![2, 3, 4]> = t.broadcast_to::<Shape![2, 3, 4]>();
    /// assert_eq!(b[[1, 2, 3]], 3);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::splat(0);
    /// let bad = t.broadcast_to::<Shape![3]>(); // the target has a smaller rank
    /// ```
    #[inline(always)]
    pub fn broadcast_to<To>(&self) -> OwnedIn<D::Family, T, To>
    where
        To: StaticShape,
        S: BroadcastToShape<To>,
    {
        fits_inline!(OwnedIn<D::Family, T, To>);
        let data = kernel::zip::<D::Family, T, T, T, S, S, To, _>(
            self.as_slice(),
            self.as_slice(),
            Split(|x: &T, _: &T| x.clone()),
        );
        Tensor::from_parts(data, Default::default())
    }

    /// Bidirectional broadcasting (B1-B4) to the target shape `To`: the output shape is the
    /// NUMPY broadcast of the two shapes, so it may differ from `To` where the target has
    /// 1s or a smaller rank.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![1, 4, 1]>::from([[[1], [2], [3], [4]]]);
    /// let b: Tensor<i32, Shape![1, 4, 4]> = t.broadcast_bidirectional::<Shape![1, 4]>();
    /// assert_eq!(b[[0, 2, 3]], 3);
    /// ```
    #[inline(always)]
    pub fn broadcast_bidirectional<To>(&self) -> OwnedIn<D::Family, T, BidirectionalOutput<S, To>>
    where
        S: BroadcastShape<To, Bidirectional, Output: StaticShape>,
    {
        fits_inline!(OwnedIn<D::Family, T, BidirectionalOutput<S, To>>);
        let data = kernel::zip::<D::Family, T, T, T, S, S, BidirectionalOutput<S, To>, _>(
            self.as_slice(),
            self.as_slice(),
            Split(|x: &T, _: &T| x.clone()),
        );
        Tensor::from_parts(data, Default::default())
    }
}

macro_rules! binary_operator {
    (@check checked) => { check_divisor::<T> };
    (@check plain) => { unchecked::<T> };
    ($($Trait:ident $method:ident [$($bound:tt)*] $check:ident $wrap:ident |$x:ident, $y:ident| $body:expr;)*) => {$(
        /// NUMPY-broadcast operator; the right side is a tensor, a reference to one, or a
        /// scalar. Fully static shapes are checked at compile time; with a `Dyn` dim a runtime
        /// mismatch panics (see [`OperatorPath`]; the `try_*` methods return a `Result`).
        impl<T, S, D, R> ops::$Trait<R> for &Tensor<T, S, D>
        where
            S: Shape,
            D: Data<T>,
            R: Operand,
            Tensor<T, S, D>: OperatorPath<T, T, R>,
            T: $($bound)*,
        {
            type Output = PathOutput<Tensor<T, S, D>, T, T, R, T>;
            #[inline(always)]
            #[track_caller]
            fn $method(self, rhs: R) -> Self::Output {
                fits_inline!(Self::Output);
                let check = binary_operator!(@check $check);
                OperatorPath::apply(self, rhs, check, $wrap(|$x: &T, $y: &T| $body))
            }
        }

        /// NUMPY-broadcast operator on an owned left side.
        impl<T, S, D, R> ops::$Trait<R> for Tensor<T, S, D>
        where
            S: Shape,
            D: Data<T>,
            R: Operand,
            Tensor<T, S, D>: OperatorPath<T, T, R>,
            T: $($bound)*,
        {
            type Output = PathOutput<Tensor<T, S, D>, T, T, R, T>;
            #[inline(always)]
            #[track_caller]
            fn $method(self, rhs: R) -> Self::Output {
                fits_inline!(Self::Output);
                ops::$Trait::$method(&self, rhs)
            }
        }
    )*};
}

// Integers wrap (`Element`); an integer zero divisor panics with the error's message.
binary_operator! {
    Add add [Element] plain Tiled |x, y| T::add(*x, *y);
    Sub sub [Element] plain Tiled |x, y| T::sub(*x, *y);
    Mul mul [Element] plain Tiled |x, y| T::mul(*x, *y);
    Div div [Element] checked Tiled |x, y| T::div(*x, *y);
    Rem rem [Element] checked Tiled |x, y| T::rem(*x, *y);
    BitAnd bitand [Copy + Send + Sync + ops::BitAnd<Output = T>] plain Split |x, y| *x & *y;
    BitOr bitor [Copy + Send + Sync + ops::BitOr<Output = T>] plain Split |x, y| *x | *y;
    BitXor bitxor [Copy + Send + Sync + ops::BitXor<Output = T>] plain Split |x, y| *x ^ *y;
}

/// `-t`, elementwise (integers wrap: `-i32::MIN == i32::MIN`).
impl<T, S, D> ops::Neg for &Tensor<T, S, D>
where
    S: Storable,
    D: Data<T>,
    T: Element + ops::Neg<Output = T>,
{
    type Output = Stored<D::Family, T, S>;
    #[inline(always)]
    #[track_caller]
    fn neg(self) -> Self::Output {
        fits_inline!(Self::Output);
        self.map_apply(Split(|x: &T, _: &()| <T as Element>::neg(*x)))
    }
}

/// `-t` on an owned tensor.
impl<T, S, D> ops::Neg for Tensor<T, S, D>
where
    S: Storable,
    D: Data<T>,
    T: Element + ops::Neg<Output = T>,
{
    type Output = Stored<D::Family, T, S>;
    #[inline(always)]
    #[track_caller]
    fn neg(self) -> Self::Output {
        fits_inline!(Self::Output);
        -&self
    }
}

/// `!t`, elementwise: logical not of a `bool` tensor, bitwise not of an integer one (numpy's
/// `logical_not` and `invert`).
///
/// ```
/// use shaped::{Shape, Tensor};
/// let mask = Tensor::<bool, Shape![3]>::from([true, false, true]);
/// assert_eq!((!&mask).into_inner(), [false, true, false]);
/// assert_eq!((!Tensor::<u8, Shape![2]>::from([0, 0x0f])).into_inner(), [0xff, 0xf0]);
/// ```
impl<T, S, D> ops::Not for &Tensor<T, S, D>
where
    S: Storable,
    D: Data<T>,
    T: Copy + Send + Sync + ops::Not<Output = T>,
{
    type Output = Stored<D::Family, T, S>;
    #[inline(always)]
    #[track_caller]
    fn not(self) -> Self::Output {
        fits_inline!(Self::Output);
        self.map_apply(Split(|x: &T, _: &()| !*x))
    }
}

/// `!t` on an owned tensor.
impl<T, S, D> ops::Not for Tensor<T, S, D>
where
    S: Storable,
    D: Data<T>,
    T: Copy + Send + Sync + ops::Not<Output = T>,
{
    type Output = Stored<D::Family, T, S>;
    #[inline(always)]
    #[track_caller]
    fn not(self) -> Self::Output {
        fits_inline!(Self::Output);
        !&self
    }
}

macro_rules! scalar_lhs_operator {
    ($($t:ty)*) => {$(
        scalar_lhs_operator!(@each $t; Add add false, Sub sub false, Mul mul false, Div div true, Rem rem true);
    )*};
    (@each $t:ty; $($Trait:ident $method:ident $check:literal),*) => {$(
        // A scalar on the left: rank 0 against any shape gives that shape (P3). Hidden from
        // the docs (70 impls on the `Tensor` page); `Tensor`'s own docs say scalars work on
        // either side.
        #[doc(hidden)]
        impl<S, D> ops::$Trait<&Tensor<$t, S, D>> for $t
        where
            S: Storable,
            D: Data<$t>,
        {
            type Output = Stored<D::Family, $t, S>;
            #[inline(always)]
            #[track_caller]
            fn $method(self, rhs: &Tensor<$t, S, D>) -> Self::Output {
                fits_inline!(Self::Output);
                if $check {
                    if let Err(e) = check_divisor(&[], rhs.as_slice(), rhs.shape().as_ref()) {
                        fail(e)
                    }
                }
                rhs.map_apply(Split(move |y: &$t, _: &()| <$t as Element>::$method(self, *y)))
            }
        }
    )*};
}

scalar_lhs_operator!(f32 f64 i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// A right side of shape `R` that broadcasts onto `Self` one-directionally (B5), of any kinds:
/// the bound a shape-generic function writes for `+=` and its kin with a tensor on the right.
/// The left side never grows. Static shapes are checked at compile time; with a
/// [`Dyn`](crate::Dyn) dim a runtime mismatch panics with the error's message. Concrete shapes
/// have it without being asked; a scalar on the right needs no bound.
///
/// ```
/// use shaped::bounds::{Const, Dim, UpdateWith};
/// use shaped::{Shape, Tensor};
///
/// /// Adds a bias to every row of a batch of any size, in place.
/// fn add_bias<B: Dim, const N: usize>(x: &mut Tensor<f32, (B, Const<N>)>, bias: &Tensor<f32, (Const<N>,)>)
/// where
///     (B, Const<N>): UpdateWith<(Const<N>,)>,
/// {
///     *x += bias;
/// }
///
/// let mut x = Tensor::<f32, Shape![2, 3]>::splat(1.0);
/// add_bias(&mut x, &Tensor::<f32, Shape![3]>::from([1.0, 2.0, 3.0]));
/// assert_eq!(x.as_slice(), &[2.0, 3.0, 4.0, 2.0, 3.0, 4.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "a right side of shape `{R}` is not known to broadcast onto `{Self}`",
    label = "the left side's shape",
    note = "in a shape-generic function, add the bound `{Self}: shaped::bounds::UpdateWith<{R}>`"
)]
pub trait UpdateWith<R: Shape>: Shape {
    /// Runs `check` (after the shapes), then `f(out[i], rhs[i])` over the broadcast elements.
    #[doc(hidden)]
    fn update<T: Send, U: Sync>(
        out: &mut [T],
        dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Fn(&mut T, &U) + Sync + Send,
    );
}

impl<S: Shape, R: Shape> UpdateWith<R> for S
where
    S: KindUpdate<R, PairKind<S, R>>,
{
    #[inline(always)]
    #[track_caller]
    fn update<T: Send, U: Sync>(
        out: &mut [T],
        dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Fn(&mut T, &U) + Sync + Send,
    ) {
        <S as KindUpdate<R, PairKind<S, R>>>::update(out, dims, rhs, rhs_dims, check, f)
    }
}

/// [`UpdateWith`] keyed on the kind of both shapes.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a right side of shape `{R}` is not known to broadcast onto `{Self}`",
    label = "the left side's shape",
    note = "in a shape-generic function, add the bound `{Self}: shaped::bounds::UpdateWith<{R}>`"
)]
pub trait KindUpdate<R: Shape, K> {
    /// As [`UpdateWith::update`].
    fn update<T: Send, U: Sync>(
        out: &mut [T],
        dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Fn(&mut T, &U) + Sync + Send,
    );
}

impl<S, R> KindUpdate<R, StaticKind> for S
where
    S: StaticShape,
    R: StaticShape + BroadcastToShape<S>,
{
    #[inline(always)]
    #[track_caller]
    fn update<T: Send, U: Sync>(
        out: &mut [T],
        _: &[usize],
        rhs: &[U],
        _: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Fn(&mut T, &U) + Sync + Send,
    ) {
        if let Err(e) = check() {
            fail(e)
        }
        kernel::update::<U, T, R, S>(out, rhs, f);
    }
}

impl<S, R> KindUpdate<R, DynKind> for S
where
    S: Shape,
    R: Shape + BroadcastToShape<S>,
{
    #[track_caller]
    fn update<T: Send, U: Sync>(
        out: &mut [T],
        dims: &[usize],
        rhs: &[U],
        rhs_dims: &[usize],
        check: impl FnOnce() -> Result<(), Error>,
        f: impl Fn(&mut T, &U) + Sync + Send,
    ) {
        let split = crate::runtime::kernels::Split(f);
        // The shapes first, then the values: a wrong shape is the error to report.
        let result = ArrayRef::new(rhs_dims, rhs)
            .and_then(|b| crate::runtime::kernels::update_into(dims, out, b, check, split));
        if let Err(e) = result {
            fail(e)
        }
    }
}

/// Where the work of `+=` and its kin goes, as for [`OperatorPath`]: a tensor on the right
/// broadcasts onto the left one-directionally ([`UpdateWith`], B5), so the left never grows;
/// a scalar updates every element. Static shapes are checked at compile time; with a `Dyn`
/// dim a runtime mismatch panics with the error's message. No allocation either way; with
/// feature `rayon`, a large left side is updated on several threads, each element as on one.
pub trait AssignPath<T, R> {
    /// Runs `check` on the operands, then `self[i] = f(self[i], rhs[i])`.
    fn update(&mut self, rhs: R, check: Check<T>, f: impl Fn(&mut T, &T) + Sync + Send);
}

#[doc(hidden)]
impl<T, S, D, R> AssignPath<T, R> for Tensor<T, S, D>
where
    T: Send + Sync,
    S: Shape,
    D: DataMut<T>,
    R: Operand,
    R::Path: AssignOperand<T, S, D, R>,
{
    #[inline(always)]
    #[track_caller]
    fn update(&mut self, rhs: R, check: Check<T>, f: impl Fn(&mut T, &T) + Sync + Send) {
        R::Path::update(self, rhs, check, f)
    }
}

/// [`AssignPath`] implemented by the operand's kind ([`Operand::Path`]).
#[doc(hidden)]
pub trait AssignOperand<T, S: Shape, D: DataMut<T>, R> {
    /// Runs `check`, then `lhs[i] = f(lhs[i], rhs[i])`.
    fn update(
        lhs: &mut Tensor<T, S, D>,
        rhs: R,
        check: Check<T>,
        f: impl Fn(&mut T, &T) + Sync + Send,
    );
}

impl<T, S, D, R> AssignOperand<T, S, D, R> for TensorOperand
where
    T: Send + Sync,
    S: UpdateWith<R::Shape>,
    D: DataMut<T>,
    R: Operand,
    R::Elem: SameElement<T> + Sized,
{
    #[inline(always)]
    #[track_caller]
    fn update(
        lhs: &mut Tensor<T, S, D>,
        rhs: R,
        check: Check<T>,
        f: impl Fn(&mut T, &T) + Sync + Send,
    ) {
        let elements = elements_as::<T, R>(&rhs);
        let (dims, rhs_dims) = (lhs.shape(), rhs.shape_value().dims());
        let (dims, rhs_dims) = (dims.as_ref(), rhs_dims.as_ref());
        S::update(
            lhs.as_mut_slice(),
            dims,
            elements,
            rhs_dims,
            || check(dims, elements, rhs_dims),
            f,
        );
    }
}

impl<T, S, D, R> AssignOperand<T, S, D, R> for ScalarOperand
where
    T: Send + Sync,
    S: Shape,
    D: DataMut<T>,
    R: Operand,
    R::Elem: SameElement<T> + Sized,
{
    #[inline(always)]
    #[track_caller]
    fn update(
        lhs: &mut Tensor<T, S, D>,
        rhs: R,
        check: Check<T>,
        f: impl Fn(&mut T, &T) + Sync + Send,
    ) {
        let elements = elements_as::<T, R>(&rhs);
        let dims = lhs.shape();
        if let Err(e) = check(dims.as_ref(), elements, &[]) {
            fail(e)
        }
        let scalar = match elements {
            [x] => x,
            _ => unreachable!("a scalar operand is one element"),
        };
        update_each(lhs.as_mut_slice(), scalar, f);
    }
}

/// `f(x, rhs)` on every element `x` of `out`: `op=` with a scalar, the same flat loop for
/// every kind of shape (nothing to check, nothing to allocate, no `Dyn` dim to read). A large
/// `out` is split across threads (feature `rayon`), each element computed as on one.
#[inline(always)]
fn update_each<T: Send, U: Sync>(out: &mut [T], rhs: &U, f: impl Fn(&mut T, &U) + Sync + Send) {
    let tasks = crate::runtime::parallel::tasks(out.len(), out.len());
    let chunk = out.len().div_ceil(tasks.max(1));
    crate::runtime::parallel::for_each_chunk(out, chunk, tasks > 1, |_, chunk| {
        for x in chunk {
            f(x, rhs)
        }
    });
}

macro_rules! assign_operator {
    ($($Trait:ident $method:ident $elem:ident $check:ident;)*) => {$(
        /// `self op= rhs`: the right side broadcasts onto the left, which never grows (B5).
        /// Integers wrap; an integer zero divisor panics with the error's message.
        impl<T, S, D, R> ops::$Trait<R> for Tensor<T, S, D>
        where
            S: Shape,
            D: DataMut<T>,
            R: Operand,
            Tensor<T, S, D>: AssignPath<T, R>,
            T: Element,
        {
            #[inline(always)]
            #[track_caller]
            fn $method(&mut self, rhs: R) {
                AssignPath::update(self, rhs, $check::<T>, |x: &mut T, y: &T| {
                    *x = <T as Element>::$elem(*x, *y)
                });
            }
        }
    )*};
}

assign_operator! {
    AddAssign add_assign add unchecked;
    SubAssign sub_assign sub unchecked;
    MulAssign mul_assign mul unchecked;
    DivAssign div_assign div check_divisor;
    RemAssign rem_assign rem check_divisor;
}
