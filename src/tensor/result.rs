//! Where results of a computed shape go (reductions, matrix products): one trait keyed on the
//! shape's kind, so that the same method returns a stack or heap tensor for a static shape and
//! a `Vec`-backed one for a shape that keeps a `Dyn` dim.

use core::mem::MaybeUninit;

use super::{OwnedIn, Tensor};
#[cfg(feature = "alloc")]
use crate::error::OrPanic;
use crate::runtime::plan::Apply;
#[cfg(feature = "alloc")]
use crate::typed::dim::DynKind;
use crate::typed::dim::{DimKind, StaticKind};
use crate::typed::kernel;
use crate::typed::shape::{Shape, StaticShape};
use crate::typed::storage::{Build, DataMut, Family};
#[cfg(feature = "alloc")]
use alloc::vec::Vec;

/// Where a computed result of shape `O` goes (a reduction's, a matrix product's), chosen by
/// `O`'s kind: a static result is stored like the inputs (stack or heap), a result that keeps
/// a `Dyn` dim in a `Vec` (feature `alloc`).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the result shape `{O}` is not known to be storable here",
    label = "a shape-generic function must say so",
    note = "add the bound `{O}: shaped::bounds::Storable` to the function"
)]
pub trait ResultStorage<O: Shape>: DimKind {
    /// The result's storage, holding `V`s, for inputs stored in the family `F`: the result is
    /// always a `Tensor<V, O, Data<F, V>>`, so a generic caller can use it as one, and no
    /// bound names the family (a chain of operations needs none).
    type Data<F: Family, V>: DataMut<V, Family = F>;
    /// A result whose element at each multi-index of `dims` (row-major) is `f(index)`.
    fn from_fn<F: Family, V>(
        dims: &[usize],
        f: impl FnMut(&[usize]) -> V,
    ) -> Tensor<V, O, Self::Data<F, V>>;
    /// A result of `dims` whose every element `fill` writes (starting from `init`).
    fn filled<F: Family, V: Copy>(
        dims: &[usize],
        init: V,
        fill: impl FnOnce(&mut [V]),
    ) -> Tensor<V, O, Self::Data<F, V>>;
    /// A result of `dims` whose elements `fill` writes, given as uninitialised slots in
    /// row-major order: no fill first, so the kernel writes where the result will live.
    ///
    /// # Safety
    /// `fill` must write every slot whenever it returns (it may panic instead).
    unsafe fn written<F: Family, V>(
        dims: &[usize],
        fill: impl FnOnce(&mut [MaybeUninit<V>]),
    ) -> Tensor<V, O, Self::Data<F, V>>;
    /// `f(x, rhs)` for each element `x` of `lhs` (of shape `O`, dims `dims`): the kernel of
    /// unary operations and of operations with a scalar, on the path of `O`'s kind (the
    /// static kernel, or the runtime one when `O` has a `Dyn` dim). Cannot fail.
    fn zip_scalar<F: Family, T, U, V>(
        lhs: &[T],
        dims: &[usize],
        rhs: &U,
        f: impl Apply<T, U, V>,
    ) -> Tensor<V, O, Self::Data<F, V>>;
    /// A result of `dims` holding `data` (row-major), which the runtime rules computed for the
    /// shape `O` the type-level rule derived: the dims fit `O` and the count fits the dims.
    #[cfg(feature = "alloc")]
    fn from_vec<F: Family, V>(dims: &[usize], data: Vec<V>) -> Tensor<V, O, Self::Data<F, V>>;
}

impl<O: StaticShape> ResultStorage<O> for StaticKind {
    type Data<F: Family, V> = F::Owned<V, O>;
    #[inline(always)]
    fn from_fn<F: Family, V>(_: &[usize], mut f: impl FnMut(&[usize]) -> V) -> OwnedIn<F, V, O> {
        OwnedIn::<F, V, O>::from_fn(|index| f(index.as_ref()))
    }
    #[inline(always)]
    fn filled<F: Family, V: Copy>(
        _: &[usize],
        init: V,
        fill: impl FnOnce(&mut [V]),
    ) -> OwnedIn<F, V, O> {
        // On the heap, one `vec!` fill instead of a walk over every multi-index (a 64x64x64
        // `f32` product: 588 us before, against 447 us for the same kernel from `DynTensor`).
        #[cfg(feature = "alloc")]
        if F::HEAP {
            if let Some(owned) = F::from_vec::<V, O>(alloc::vec![init; O::LEN]) {
                let mut out = Tensor::from_parts(owned, O::default());
                fill(out.as_mut_slice());
                return out;
            }
        }
        let mut out = OwnedIn::<F, V, O>::from_fn(|_| init);
        fill(out.as_mut_slice());
        out
    }
    #[inline(always)]
    unsafe fn written<F: Family, V>(
        _: &[usize],
        fill: impl FnOnce(&mut [MaybeUninit<V>]),
    ) -> OwnedIn<F, V, O> {
        // SAFETY: passed on from this function's caller.
        let storage = unsafe { <F::Owned<V, O> as Build<V, O>>::build_written(fill) };
        Tensor::from_parts(storage, O::default())
    }
    #[inline(always)]
    fn zip_scalar<F: Family, T, U, V>(
        lhs: &[T],
        _: &[usize],
        rhs: &U,
        f: impl Apply<T, U, V>,
    ) -> OwnedIn<F, V, O> {
        let data = kernel::zip::<F, T, U, V, O, (), O, _>(lhs, core::slice::from_ref(rhs), f);
        Tensor::from_parts(data, O::default())
    }
    #[cfg(feature = "alloc")]
    fn from_vec<F: Family, V>(_: &[usize], data: Vec<V>) -> OwnedIn<F, V, O> {
        if F::HEAP {
            // The heap takes the `Vec` as it is; `from_vec` refuses only a wrong length.
            match F::from_vec::<V, O>(data) {
                Some(owned) => return Tensor::from_parts(owned, O::default()),
                None => unreachable!("the runtime rules gave the static shape's element count"),
            }
        }
        let mut elements = data.into_iter();
        OwnedIn::<F, V, O>::from_fn(|_| match elements.next() {
            Some(x) => x,
            None => unreachable!("the runtime rules gave the static shape's element count"),
        })
    }
}

#[cfg(feature = "alloc")]
impl<O: Shape> ResultStorage<O> for DynKind {
    type Data<F: Family, V> = F::Grown<V, O>;
    #[track_caller]
    fn from_fn<F: Family, V>(
        dims: &[usize],
        mut f: impl FnMut(&[usize]) -> V,
    ) -> Tensor<V, O, F::Grown<V, O>> {
        let (count, mut data) = result_vec(dims);
        let mut index = [0usize; crate::typed::shape::MAX_STATIC_RANK];
        let index = &mut index[..dims.len()];
        for _ in 0..count {
            data.push(f(index));
            // The odometer: the last coordinate moves fastest.
            for (i, &d) in index.iter_mut().zip(dims).rev() {
                *i += 1;
                if *i < d {
                    break;
                }
                *i = 0;
            }
        }
        finish::<F, V, O>(dims, data)
    }
    #[track_caller]
    fn filled<F: Family, V: Copy>(
        dims: &[usize],
        init: V,
        fill: impl FnOnce(&mut [V]),
    ) -> Tensor<V, O, F::Grown<V, O>> {
        let (count, mut data) = result_vec(dims);
        data.resize(count, init);
        fill(&mut data);
        finish::<F, V, O>(dims, data)
    }
    #[track_caller]
    unsafe fn written<F: Family, V>(
        dims: &[usize],
        fill: impl FnOnce(&mut [MaybeUninit<V>]),
    ) -> Tensor<V, O, F::Grown<V, O>> {
        let (count, mut data) = result_vec(dims);
        fill(&mut data.spare_capacity_mut()[..count]);
        // SAFETY: `fill` wrote all `count` slots (this function's contract); the capacity is
        // at least `count`.
        unsafe { data.set_len(count) };
        finish::<F, V, O>(dims, data)
    }
    #[track_caller]
    fn zip_scalar<F: Family, T, U, V>(
        lhs: &[T],
        dims: &[usize],
        rhs: &U,
        f: impl Apply<T, U, V>,
    ) -> Tensor<V, O, F::Grown<V, O>> {
        let result = super::try_ops::zip_runtime_with::<T, U, V, O, (), _>(
            lhs,
            dims,
            core::slice::from_ref(rhs),
            &[],
            crate::rules::AutoBroadcast::Numpy,
            |_, _| Ok(()),
            f,
            finish::<F, V, O>,
        );
        result.or_panic()
    }
    fn from_vec<F: Family, V>(dims: &[usize], data: Vec<V>) -> Tensor<V, O, F::Grown<V, O>> {
        finish::<F, V, O>(dims, data)
    }
}

/// The element count of a mixed result of `dims` and an empty `Vec` with room for it. These
/// APIs return the tensor itself, so a result too large for memory panics with the error's
/// text (as a runtime shape mismatch does on these types), never aborts: a mixed
/// `[2^50, 0]` summed over its last axis asked for 4 PiB and the process died.
#[cfg(feature = "alloc")]
#[track_caller]
fn result_vec<V>(dims: &[usize]) -> (usize, Vec<V>) {
    crate::runtime::element_count::<V>(dims)
        .and_then(|count| crate::runtime::try_vec(count, dims).map(|data| (count, data)))
        .or_panic()
}

/// A mixed result from its dims, which the type-level rule derived `O` from.
#[cfg(feature = "alloc")]
fn finish<F: Family, V, O: Shape>(dims: &[usize], data: Vec<V>) -> Tensor<V, O, F::Grown<V, O>> {
    let shape = O::from_dims(dims);
    match shape.and_then(|shape| Some((F::grown_from_vec(&shape, data)?, shape))) {
        Some((data, shape)) => Tensor::from_parts(data, shape),
        None => unreachable!("the output shape type is derived from these dims"),
    }
}

/// A result of shape `Self` can be stored: every static shape (stored like the inputs, on
/// the stack or the heap), and every shape with a [`Dyn`](crate::Dyn) dim (in a `Vec`,
/// feature `alloc`). Concrete shapes have it without being asked; a shape-generic function
/// names it for the shapes of its results.
pub trait Storable: Shape<Kind: ResultStorage<Self>> {}

impl<S: Shape> Storable for S where S::Kind: ResultStorage<S> {}

/// The type of a result of shape `O` holding `V`s, computed from tensors stored in `F`.
pub type Stored<F, V, O> = Tensor<V, O, <<O as Shape>::Kind as ResultStorage<O>>::Data<F, V>>;
