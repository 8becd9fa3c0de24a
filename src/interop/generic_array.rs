//! Rank-1 tensors and `GenericArray`s (feature `generic-array`), both ways, by value and by
//! reference, without a copy of the elements beyond the move itself.
//!
//! A `GenericArray<T, N>` whose typenum length `N` is `ConstArrayLength<M>` (every typenum
//! length generic-array maps from a const, such as `U16`) converts to and from
//! `Tensor<T, Shape![M]>`; the target type names `M`.

use generic_array::{ConstArrayLength, GenericArray, IntoArrayLength};
use typenum::Const as TypenumConst;

use crate::tensor::{Tensor, TensorView};
use crate::typed::dim::Const;
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Data, Owned};

/// A `GenericArray` of length `N` moved into a rank-1 tensor.
///
/// Feature `generic-array`.
///
/// ```
/// use generic_array::{typenum::U3, GenericArray};
/// use shaped::{Shape, Tensor};
/// let g = GenericArray::<i32, U3>::from([1, 2, 3]);
/// let t = Tensor::<i32, Shape![3]>::from(g);
/// assert_eq!(t.as_slice(), &[1, 2, 3]);
/// let back: GenericArray<i32, U3> = t.into();
/// assert_eq!(back, g);
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "generic-array")))]
impl<T, const N: usize> From<GenericArray<T, ConstArrayLength<N>>> for Tensor<T, (Const<N>,)>
where
    TypenumConst<N>: IntoArrayLength,
{
    fn from(g: GenericArray<T, ConstArrayLength<N>>) -> Self {
        fits_inline!(Self);
        Tensor::from_parts(Owned::new(g.into_array::<N>()), (Const,))
    }
}

/// A rank-1 tensor moved into a `GenericArray`.
///
/// Feature `generic-array`.
#[cfg_attr(docsrs, doc(cfg(feature = "generic-array")))]
impl<T, const N: usize> From<Tensor<T, (Const<N>,)>> for GenericArray<T, ConstArrayLength<N>>
where
    TypenumConst<N>: IntoArrayLength,
{
    fn from(t: Tensor<T, (Const<N>,)>) -> Self {
        GenericArray::from_array(t.into_inner())
    }
}

/// A view of a `GenericArray`'s elements as a rank-1 tensor; no copy.
///
/// Feature `generic-array`.
///
/// ```
/// use generic_array::{typenum::U4, GenericArray};
/// use shaped::{Shape, Tensor, TensorView};
/// let g = GenericArray::<f32, U4>::from([1.0, 2.0, 3.0, 4.0]);
/// let v = TensorView::<f32, Shape![4]>::from(&g);
/// let doubled = v * 2.0;
/// assert_eq!(doubled.as_generic_array().as_slice(), &[2.0, 4.0, 6.0, 8.0]);
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "generic-array")))]
impl<'a, T, const N: usize> From<&'a GenericArray<T, ConstArrayLength<N>>>
    for TensorView<'a, T, (Const<N>,)>
where
    TypenumConst<N>: IntoArrayLength,
{
    fn from(g: &'a GenericArray<T, ConstArrayLength<N>>) -> Self {
        Tensor::from_parts(g.as_slice(), (Const,))
    }
}

/// # Interop: GenericArray (feature `generic-array`)
#[cfg_attr(docsrs, doc(cfg(feature = "generic-array")))]
impl<T, const N: usize, D: Data<T>> Tensor<T, (Const<N>,), D>
where
    TypenumConst<N>: IntoArrayLength,
{
    /// The elements of a rank-1 tensor (owned, heap or a view) as a `&GenericArray`; no copy.
    ///
    /// Feature `generic-array`.
    pub fn as_generic_array(&self) -> &GenericArray<T, ConstArrayLength<N>> {
        // The slice of a `Shape![N]` tensor holds exactly `N` elements, the length
        // `from_slice` checks.
        GenericArray::from_slice(self.as_slice())
    }
}
