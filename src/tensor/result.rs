//! Where results of a computed shape go (reductions, matrix products): one trait keyed on the
//! shape's kind, so that the same method returns a stack or heap tensor for a static shape and
//! a `Vec`-backed one for a shape that keeps a `Dyn` dim.

use core::mem::MaybeUninit;

use super::{OwnedIn, Tensor};
#[cfg(feature = "alloc")]
use crate::typed::dim::DynKind;
use crate::typed::dim::{DimKind, StaticKind};
use crate::typed::shape::{Shape, StaticShape};
use crate::typed::storage::{Build, DataMut, Family};

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
    type Data<F: Family, V>: DataMut<V>;
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
}

#[cfg(feature = "alloc")]
impl<O: Shape> ResultStorage<O> for DynKind {
    type Data<F: Family, V> = crate::typed::storage::Owned<V, O>;
    #[track_caller]
    fn from_fn<F: Family, V>(dims: &[usize], mut f: impl FnMut(&[usize]) -> V) -> Tensor<V, O> {
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
        finish(dims, data)
    }
    #[track_caller]
    fn filled<F: Family, V: Copy>(
        dims: &[usize],
        init: V,
        fill: impl FnOnce(&mut [V]),
    ) -> Tensor<V, O> {
        let (count, mut data) = result_vec(dims);
        data.resize(count, init);
        fill(&mut data);
        finish(dims, data)
    }
    #[track_caller]
    unsafe fn written<F: Family, V>(
        dims: &[usize],
        fill: impl FnOnce(&mut [MaybeUninit<V>]),
    ) -> Tensor<V, O> {
        let (count, mut data) = result_vec(dims);
        fill(&mut data.spare_capacity_mut()[..count]);
        // SAFETY: `fill` wrote all `count` slots (this function's contract); the capacity is
        // at least `count`.
        unsafe { data.set_len(count) };
        finish(dims, data)
    }
}

/// The element count of a mixed result of `dims` and an empty `Vec` with room for it. These
/// APIs return the tensor itself, so a result too large for memory panics with the error's
/// text (as a runtime shape mismatch does on these types), never aborts: a mixed
/// `[2^50, 0]` summed over its last axis asked for 4 PiB and the process died.
#[cfg(feature = "alloc")]
#[track_caller]
fn result_vec<V>(dims: &[usize]) -> (usize, alloc::vec::Vec<V>) {
    use crate::error::OrPanic;
    crate::runtime::element_count::<V>(dims)
        .and_then(|count| crate::runtime::try_vec(count, dims).map(|data| (count, data)))
        .or_panic()
}

/// A mixed result from its dims, which the type-level rule derived `O` from.
#[cfg(feature = "alloc")]
fn finish<V, O: Shape>(dims: &[usize], data: alloc::vec::Vec<V>) -> Tensor<V, O> {
    match Tensor::from_shape_vec(dims, data) {
        Ok(t) => t,
        Err(_) => unreachable!("the output shape type is derived from these dims"),
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
