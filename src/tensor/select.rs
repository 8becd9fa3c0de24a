//! Selection by a condition on typed tensors (rules W1, W2): `cond.where_cond(&then,
//! &otherwise)` and `cond.select(&then, &otherwise)`, the output shape computed at compile time
//! for static shapes, a `Dyn` dim checked at run time (a mismatch panics with the error, as the
//! operators do; `DynTensor::where_cond` and `DynTensor::select` return it).

use super::matmul::{JoinOf, Joined};
use super::ops::BroadcastWith;
use super::result::{ResultStorage, Storable, Stored};
use super::Tensor;
use crate::rules::{resolve_select, AutoBroadcast};
use crate::runtime::select;
use crate::runtime::ArrayRef;
use crate::typed::rules::BroadcastToShape;
use crate::typed::shape::{Shape, MAX_STATIC_RANK};
use crate::typed::storage::fits_inline;
use crate::typed::storage::Data;

/// The output shape of `where_cond` on shapes `C`, `A`, `B` (W1).
pub type WhereOutput<C, A, B> = <<C as BroadcastWith<A>>::Output as BroadcastWith<B>>::Output;

/// The output shape of `select` on values of shapes `A` and `B` (W2).
pub type SelectOutput<A, B> = <A as BroadcastWith<B>>::Output;

/// # Selection by a condition
///
/// On a `bool` tensor: numpy's `where` and OpenVINO's `Select` (NUMPY mode), static and mixed.
impl<C: Shape, DC: Data<bool>> Tensor<bool, C, DC> {
    /// numpy's `where(self, then, otherwise)` and ONNX's `Where` (W1): `then`'s element where
    /// `self` holds, else `otherwise`'s, the three shapes broadcast together by NUMPY (the
    /// condition may grow the output).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mask = Tensor::<bool, Shape![2, 1]>::from([[true], [false]]);
    /// let a = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    /// let zero = Tensor::<i32, Shape![]>::splat(0);
    /// let y: Tensor<i32, Shape![2, 3]> = mask.where_cond(&a, &zero);
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
    pub fn where_cond<T, A, DA, B, DB>(
        &self,
        then: &Tensor<T, A, DA>,
        otherwise: &Tensor<T, B, DB>,
    ) -> Joined<T, DA, DB, WhereOutput<C, A, B>>
    where
        T: Clone,
        A: Shape,
        B: Shape,
        DA: Data<T>,
        DB: Data<T>,
        C: BroadcastWith<A, Output: BroadcastWith<B>>,
    {
        fits_inline!(Stored<JoinOf<T, DA, DB>, T, WhereOutput<C, A, B>>);
        typed_select::<_, _, JoinOf<T, DA, DB>>(self, then, otherwise, None)
    }

    /// OpenVINO's `Select` and oneDNN's `select` in NUMPY mode (W2): `then` and `otherwise`
    /// broadcast to each other, and `self` one way onto that result: a condition that would
    /// grow it does not compile for static shapes (a `Dyn` dim is checked at run time).
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
    pub fn select<T, A, DA, B, DB>(
        &self,
        then: &Tensor<T, A, DA>,
        otherwise: &Tensor<T, B, DB>,
    ) -> Joined<T, DA, DB, SelectOutput<A, B>>
    where
        T: Clone,
        A: Shape + BroadcastWith<B>,
        B: Shape,
        DA: Data<T>,
        DB: Data<T>,
        C: BroadcastToShape<SelectOutput<A, B>>,
    {
        fits_inline!(Stored<JoinOf<T, DA, DB>, T, SelectOutput<A, B>>);
        typed_select::<_, _, JoinOf<T, DA, DB>>(self, then, otherwise, Some(AutoBroadcast::Numpy))
    }
}

/// The selection into a new tensor of shape `O` stored in `F`: the shapes resolved by the
/// runtime rule (constants for static shapes; a `Dyn` dim that does not fit panics with the
/// error), each element read through its input's broadcast strides.
#[track_caller]
fn typed_select<T: Clone, O: Storable, F: crate::typed::storage::Family>(
    cond: &Tensor<bool, impl Shape, impl Data<bool>>,
    then: &Tensor<T, impl Shape, impl Data<T>>,
    otherwise: &Tensor<T, impl Shape, impl Data<T>>,
    mode: Option<AutoBroadcast>,
) -> Stored<F, T, O> {
    let (cd, td, ed) = (cond.shape(), then.shape(), otherwise.shape());
    let (cd, td, ed) = (cd.as_ref(), td.as_ref(), ed.as_ref());
    let (dims, at) = match resolve_select::<MAX_STATIC_RANK>(cd, td, ed, mode) {
        Ok(resolved) => resolved,
        Err(e) => crate::error::panic_with(e),
    };
    let c = ArrayRef::trusted(cd, cond.as_slice());
    let t = ArrayRef::trusted(td, then.as_slice());
    let e = ArrayRef::trusted(ed, otherwise.as_slice());
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
