//! Selection by a condition on typed tensors (rules W1, W2): `cond.where_cond(&then,
//! &otherwise)` and `cond.select(&then, &otherwise)`, the output shape computed at compile time
//! for static shapes, a `Dyn` dim checked at run time (a mismatch panics with the error, as the
//! operators do; `DynTensor::where_cond` and `DynTensor::select` return it).

use super::ops::{BroadcastWith, Operand};
use super::result::{ResultStorage, Storable, Stored};
use super::Tensor;
use crate::rules::{resolve_select, AutoBroadcast};
use crate::runtime::select;
use crate::runtime::ArrayRef;
use crate::typed::rules::BroadcastToShape;
use crate::typed::shape::{Shape, MAX_STATIC_RANK};
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Data, Family};

/// The output shape of `where_cond` on shapes `C`, `A`, `B` (W1).
pub type WhereOutput<C, A, B> = <<C as BroadcastWith<A>>::Output as BroadcastWith<B>>::Output;

/// The output shape of `select` on values of shapes `A` and `B` (W2).
pub type SelectOutput<A, B> = <A as BroadcastWith<B>>::Output;

/// The condition's shape `Self` and the shapes of the operands `A` and `B` broadcast together
/// by NUMPY (W1): the bound of `where_cond`, whose result has the shape [`Where`].
pub trait WhereShapes<A: Operand, B: Operand>: Shape {
    /// The shape of the selection.
    type Output: Storable;
}

impl<C: Shape, A: Operand, B: Operand> WhereShapes<A, B> for C
where
    C: BroadcastWith<A::Shape, Output: BroadcastWith<B::Shape>>,
{
    type Output = WhereOutput<C, A::Shape, B::Shape>;
}

/// The output shape of `where_cond` on a condition of shape `C` and the operands `A` and `B`
/// ([`WhereOutput`] of their shapes).
pub type Where<C, A, B> = <C as WhereShapes<A, B>>::Output;

/// The operands `A` and `B` broadcast to each other by NUMPY and the condition's shape `Self`
/// one way onto theirs (W2): the bound of `select`, whose result has the shape [`Selected`].
pub trait SelectShapes<A: Operand, B: Operand>: Shape {
    /// The shape of the selection.
    type Output: Storable;
}

impl<C: Shape, A: Operand, B: Operand> SelectShapes<A, B> for C
where
    A::Shape: BroadcastWith<B::Shape>,
    C: BroadcastToShape<SelectOutput<A::Shape, B::Shape>>,
{
    type Output = SelectOutput<A::Shape, B::Shape>;
}

/// The output shape of `select` on a condition of shape `C` and the operands `A` and `B`
/// ([`SelectOutput`] of their shapes).
pub type Selected<C, A, B> = <C as SelectShapes<A, B>>::Output;

/// Where a result of two operands is stored: the heap if either is on it.
type Family2<A, B> = <<A as Operand>::Family as Family>::Join<<B as Operand>::Family>;

/// A selection's result of shape `O`: the operands' element, stored in their joined family
/// (inline when both are and `O` is small enough; else on the heap).
pub type Chosen<A, B, O> = Stored<Family2<A, B>, <A as Operand>::Elem, O>;

/// # Selection by a condition
///
/// On a `bool` tensor: numpy's `where` and OpenVINO's `Select` (NUMPY mode), static and mixed.
impl<C: Shape, DC: Data<bool>> Tensor<bool, C, DC> {
    /// numpy's `where(self, then, otherwise)` and ONNX's `Where` (W1): `then`'s element where
    /// `self` holds, else `otherwise`'s, the three shapes broadcast together by NUMPY (the
    /// condition may grow the output). `then` and `otherwise` are each a tensor, a reference
    /// to one, or a scalar, as for the operators.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mask = Tensor::<bool, Shape![2, 1]>::from([[true], [false]]);
    /// let a = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    /// let y: Tensor<i32, Shape![2, 3]> = mask.where_cond(&a, 0);
    /// assert_eq!(y.into_inner(), [[1, 2, 3], [0, 0, 0]]);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let mask = Tensor::<bool, Shape![2]>::from([true, false]);
    /// let a = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    /// let y = mask.where_cond(&a, &a); // 2 vs 3
    /// ```
    #[track_caller]
    pub fn where_cond<A, B>(&self, then: A, otherwise: B) -> Chosen<A, B, Where<C, A, B>>
    where
        A: Operand<Elem: Clone>,
        B: Operand<Elem = A::Elem>,
        C: WhereShapes<A, B>,
    {
        fits_inline!(Chosen<A, B, Where<C, A, B>>);
        typed_select::<_, _, _, _, Family2<A, B>>(self, &then, &otherwise, None)
    }

    /// OpenVINO's `Select` and oneDNN's `select` in NUMPY mode (W2): `then` and `otherwise`
    /// broadcast to each other, and `self` one way onto that result: a condition that would
    /// grow it does not compile for static shapes (a `Dyn` dim is checked at run time).
    /// `then` and `otherwise` are each a tensor, a reference to one, or a scalar.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mask = Tensor::<bool, Shape![3]>::from([true, false, true]);
    /// let a = Tensor::<f32, Shape![2, 3]>::splat(1.0);
    /// let b = Tensor::<f32, Shape![2, 1]>::from([[-1.0], [-2.0]]);
    /// let y = mask.select(&a, &b);
    /// assert_eq!(y.into_inner(), [[1.0, -1.0, 1.0], [1.0, -2.0, 1.0]]);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let mask = Tensor::<bool, Shape![2, 3]>::splat(true);
    /// let a = Tensor::<f32, Shape![3]>::splat(1.0);
    /// let y = mask.select(&a, &a); // the condition would grow [3] to [2, 3]
    /// ```
    #[track_caller]
    pub fn select<A, B>(&self, then: A, otherwise: B) -> Chosen<A, B, Selected<C, A, B>>
    where
        A: Operand<Elem: Clone>,
        B: Operand<Elem = A::Elem>,
        C: SelectShapes<A, B>,
    {
        fits_inline!(Chosen<A, B, Selected<C, A, B>>);
        let numpy = Some(AutoBroadcast::Numpy);
        typed_select::<_, _, _, _, Family2<A, B>>(self, &then, &otherwise, numpy)
    }
}

/// The selection into a new tensor of shape `O` stored in `F`: the shapes resolved by the
/// runtime rule (constants for static shapes; a `Dyn` dim that does not fit panics with the
/// error), each element read through its input's broadcast strides.
#[track_caller]
fn typed_select<T: Clone, A, B, O: Storable, F: Family>(
    cond: &Tensor<bool, impl Shape, impl Data<bool>>,
    then: &A,
    otherwise: &B,
    mode: Option<AutoBroadcast>,
) -> Stored<F, T, O>
where
    A: Operand<Elem = T>,
    B: Operand<Elem = T>,
{
    let (td, ed) = (then.shape_value().dims(), otherwise.shape_value().dims());
    let cd = cond.shape();
    let (cd, td, ed) = (cd.as_ref(), td.as_ref(), ed.as_ref());
    let (dims, at) = match resolve_select::<MAX_STATIC_RANK>(cd, td, ed, mode) {
        Ok(resolved) => resolved,
        Err(e) => crate::error::panic_with(e),
    };
    let c = ArrayRef::trusted(cd, cond.as_slice());
    let t = ArrayRef::trusted(td, then.elements());
    let e = ArrayRef::trusted(ed, otherwise.elements());
    // SAFETY: `fill` writes every slot of an output of `dims` when it returns `Ok`; an error
    // (an input addressed past its data, which a tensor's own elements never are) panics
    // before the result is made.
    unsafe {
        <O::Kind as ResultStorage<O>>::written::<F, T>(&dims, |out| {
            if let Err(e) = select::fill(&dims, &c, [&t, &e], at, out) {
                crate::error::panic_with(e)
            }
        })
    }
}
