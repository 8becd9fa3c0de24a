//! ndarray arrays and shaped tensors (feature `ndarray`).
//!
//! Both crates store row-major by default, so most conversions share the elements:
//! * **No copy**: `as_array_view`/`as_array_view_mut` on every tensor (static, mixed, heap,
//!   views, `DynTensor`) and on a strided [`DynView`] (its strides carried over);
//!   `ArrayD` from a `DynTensor` and a `DynTensor` from an `Array` in standard layout (the
//!   `Vec` is moved); `TensorView`/`TensorViewMut` from an ndarray view in standard layout,
//!   the shape checked against the type.
//! * **Copies**: a `DynTensor` from an `Array` that is not in standard layout, or from any
//!   ndarray view (`DynTensor::from_array`); an owned `Tensor` (static or mixed) from any
//!   ndarray view, whatever its strides (`TryFrom`, shape checked).
//!
//! shaped never views a strided ndarray without a copy: its views hold a slice covering
//! every element they address, and an ndarray view with gaps cannot lend one soundly.
//!
//! [`DynView`]: crate::runtime::DynView

use alloc::vec::Vec;

use ndarray::{Array, ArrayBase, ArrayD, ArrayView, ArrayViewD, ArrayViewMut, ArrayViewMutD};
use ndarray::{Data as NdData, Dimension, IxDyn, ShapeBuilder};

use crate::error::{Error, ErrorKind, Operation};
use crate::runtime::DynView;
use crate::tensor::{Tensor, TensorView, TensorViewMut};
use crate::typed::shape::Shape;
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Data, DataMut};
use crate::DynTensor;

/// A row-major view of `data` with `dims` (a tensor's own slice, holding exactly their
/// element count). ndarray also needs the product of the non-zero dims to fit in `isize`,
/// which an empty tensor need not satisfy (`[0, 2^63]`): that is an error, with ndarray's
/// reason mapped to [`ErrorKind::Overflow`].
fn view<'a, T>(dims: &[usize], data: &'a [T]) -> Result<ArrayViewD<'a, T>, Error> {
    ArrayView::from_shape(IxDyn(dims), data).map_err(|_| too_large(dims))
}

fn view_mut<'a, T>(dims: &[usize], data: &'a mut [T]) -> Result<ArrayViewMutD<'a, T>, Error> {
    ArrayViewMut::from_shape(IxDyn(dims), data).map_err(|_| too_large(dims))
}

/// The operation of an error about an ndarray array.
const NDARRAY: Operation = Operation::FromNdarray;

/// The error of a shape ndarray cannot hold: its non-zero dims multiply past `isize::MAX`.
fn too_large(dims: &[usize]) -> Error {
    Error::new(ErrorKind::Overflow, Operation::ToNdarray, dims, &[])
}

/// The error of an ndarray array whose rank shaped does not support.
fn rank_limit(dims: &[usize]) -> Error {
    let kind = ErrorKind::RankLimit {
        max: crate::rules::MAX_RANK,
    };
    Error::new(kind, NDARRAY, dims, &[])
}

fn not_contiguous(dims: &[usize]) -> Error {
    Error::new(ErrorKind::NotContiguous, NDARRAY, dims, &[])
}

/// # Interop: ndarray views (feature `ndarray`)
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The tensor as an ndarray view of the same shape; no copy. An error only for an empty
    /// shape whose other dims multiply past `isize::MAX`, which ndarray cannot hold.
    ///
    /// Feature `ndarray`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as f32);
    /// let a = t.as_array_view()?;
    /// assert_eq!(a.shape(), &[2, 3]);
    /// assert_eq!((a[[1, 2]], a.sum()), (5.0, 15.0));
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn as_array_view(&self) -> Result<ArrayViewD<'_, T>, Error> {
        view(self.shape().as_ref(), self.as_slice())
    }
}

/// # Interop: writable ndarray views (feature `ndarray`)
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T, S: Shape, D: DataMut<T>> Tensor<T, S, D> {
    /// The tensor as a writable ndarray view of the same shape; no copy. Errors as
    /// [`as_array_view`](Self::as_array_view).
    ///
    /// Feature `ndarray`.
    pub fn as_array_view_mut(&mut self) -> Result<ArrayViewMutD<'_, T>, Error> {
        let dims = self.shape();
        view_mut(dims.as_ref(), self.as_mut_slice())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T> DynTensor<T> {
    /// The tensor as an ndarray view of the same shape; no copy. An error only for an empty
    /// shape whose other dims multiply past `isize::MAX` (`[0, 2^63]`), which ndarray cannot
    /// hold.
    ///
    /// Feature `ndarray`.
    pub fn as_array_view(&self) -> Result<ArrayViewD<'_, T>, Error> {
        view(self.shape(), self.as_slice())
    }

    /// The tensor as a writable ndarray view of the same shape; no copy. Errors as
    /// [`as_array_view`](Self::as_array_view).
    ///
    /// Feature `ndarray`.
    pub fn as_array_view_mut(&mut self) -> Result<ArrayViewMutD<'_, T>, Error> {
        let (dims, data) = self.parts_mut();
        view_mut(dims, data)
    }

    /// A copy of any ndarray array or view, whatever its strides (reversed axes included),
    /// in row-major order. A rank above [`MAX_RANK`](crate::rules::MAX_RANK) is
    /// [`ErrorKind::RankLimit`]; the allocation is checked ([`ErrorKind::OutOfMemory`]).
    ///
    /// Feature `ndarray`.
    ///
    /// ```
    /// use ndarray::array;
    /// use shaped::DynTensor;
    /// let a = array![[1, 2, 3], [4, 5, 6]];
    /// let t = DynTensor::from_array(&a.t())?;
    /// assert_eq!((t.shape(), t.as_slice()), (&[3, 2][..], &[1, 4, 2, 5, 3, 6][..]));
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn from_array<St, Dm>(a: &ArrayBase<St, Dm>) -> Result<Self, Error>
    where
        T: Clone,
        St: NdData<Elem = T>,
        Dm: Dimension,
    {
        let dims = a.shape();
        if dims.len() > crate::rules::MAX_RANK {
            return Err(rank_limit(dims));
        }
        let mut data = crate::runtime::try_vec(a.len(), dims)?;
        data.extend(a.iter().cloned());
        Ok(DynTensor::from_parts(dims, data))
    }
}

/// The `DynTensor`'s `Vec` moved into an `ArrayD`; no copy. An error only for an empty shape
/// whose other dims multiply past `isize::MAX` (`[0, 2^63]`), which ndarray cannot hold.
///
/// Feature `ndarray`.
///
/// ```
/// use ndarray::ArrayD;
/// use shaped::DynTensor;
/// let t = DynTensor::from_shape_vec([2, 2], vec![1, 2, 3, 4])?;
/// let a = ArrayD::try_from(t)?;
/// assert_eq!(a[[1, 0]], 3);
/// let back = DynTensor::try_from(a)?;
/// assert_eq!(back.as_slice(), &[1, 2, 3, 4]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T> TryFrom<DynTensor<T>> for ArrayD<T> {
    type Error = Error;
    fn try_from(t: DynTensor<T>) -> Result<Self, Error> {
        let dims: Vec<usize> = t.shape().to_vec();
        Array::from_shape_vec(IxDyn(&dims), t.into_vec()).map_err(|_| too_large(&dims))
    }
}

/// An owned ndarray array as a `DynTensor`: its `Vec` moved when the array is in standard
/// layout (trimmed if the array was sliced), the elements copied in row-major order otherwise
/// (a transposed array, or one sliced with a step). A rank above
/// [`MAX_RANK`](crate::rules::MAX_RANK) is [`ErrorKind::RankLimit`].
///
/// Feature `ndarray`.
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T: Clone, Dm: Dimension> TryFrom<Array<T, Dm>> for DynTensor<T> {
    type Error = Error;
    fn try_from(a: Array<T, Dm>) -> Result<Self, Error> {
        let dims: Vec<usize> = a.shape().to_vec();
        if dims.len() > crate::rules::MAX_RANK {
            return Err(rank_limit(&dims));
        }
        if !a.is_standard_layout() {
            return DynTensor::from_array(&a);
        }
        // Standard layout: the elements are contiguous, from `offset` (a sliced owned array
        // keeps its whole `Vec`). Trim the `Vec` to them: a move, at most a shift.
        let count = a.len();
        let (mut data, offset) = a.into_raw_vec_and_offset();
        let offset = offset.unwrap_or(0);
        data.truncate(offset + count);
        data.drain(..offset);
        Ok(DynTensor::from_parts(&dims, data))
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<'a, T> DynView<'a, T> {
    /// The view as an ndarray view with the same shape and strides; no copy (permuted,
    /// narrowed and broadcast views included).
    ///
    /// Feature `ndarray`.
    ///
    /// An error only where ndarray cannot hold the view: dims whose product passes
    /// `isize::MAX` (an empty view with huge other dims, or a huge broadcast).
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
    /// let v = t.strided().transpose();
    /// let a = v.as_array_view()?;
    /// assert_eq!((a.shape(), a.strides()), (&[3, 2][..], &[1, 3][..]));
    /// assert_eq!(a[[2, 1]], 6);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn as_array_view(&self) -> Result<ArrayViewD<'a, T>, Error> {
        let (data, dims, strides) = self.parts();
        if dims.contains(&0) {
            // No elements: the strides address nothing, and ndarray checks them against a
            // slice all the same (an empty permuted view was refused), so row-major ones.
            return ArrayView::from_shape(IxDyn(dims), &data[..0]).map_err(|_| too_large(dims));
        }
        ArrayView::from_shape(IxDyn(dims).strides(IxDyn(strides)), data)
            .map_err(|_| too_large(dims))
    }
}

/// An ndarray view in standard layout (row-major, contiguous) as a tensor view of shape type
/// `S`; no copy. A shape the type does not allow, or a view that is not contiguous
/// (transposed, sliced with a step, reversed), is an error.
///
/// Feature `ndarray`.
///
/// ```
/// use ndarray::array;
/// use shaped::{Shape, TensorView};
/// let a = array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
/// let v = TensorView::<f64, Shape![3, 2]>::try_from(a.view()).unwrap();
/// assert_eq!(v[[2, 0]], 5.0);
/// let e = TensorView::<f64, Shape![2, 3]>::try_from(a.view()).unwrap_err();
/// assert_eq!(e.to_string(), "shape [3, 2] is not the static shape [2, 3]");
/// let e = TensorView::<f64, Shape![2, 3]>::try_from(a.t()).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "the array of shape [2, 3] is not contiguous in row-major order, so it cannot be viewed \
///      without a copy (copy it with `to_owned`, or convert by value)"
/// );
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<'a, T, S: Shape, Dm: Dimension> TryFrom<ArrayView<'a, T, Dm>> for TensorView<'a, T, S> {
    type Error = Error;
    fn try_from(a: ArrayView<'a, T, Dm>) -> Result<Self, Error> {
        let dims: Vec<usize> = a.shape().to_vec();
        crate::tensor::shape_for::<S>(&dims)?;
        let data = a.to_slice().ok_or_else(|| not_contiguous(&dims))?;
        TensorView::with_shape(&dims, data)
    }
}

/// A writable ndarray view in standard layout as a writable tensor view; no copy. Errors as
/// for `TensorView`.
///
/// Feature `ndarray`.
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<'a, T, S: Shape, Dm: Dimension> TryFrom<ArrayViewMut<'a, T, Dm>> for TensorViewMut<'a, T, S> {
    type Error = Error;
    fn try_from(a: ArrayViewMut<'a, T, Dm>) -> Result<Self, Error> {
        let dims: Vec<usize> = a.shape().to_vec();
        crate::tensor::shape_for::<S>(&dims)?;
        let data = a.into_slice().ok_or_else(|| not_contiguous(&dims))?;
        TensorViewMut::with_shape(&dims, data)
    }
}

/// Any ndarray view copied into an owned tensor of shape type `S` (static: inline; mixed: on
/// the heap), whatever its strides (broadcast ones included); a shape the type does not allow
/// is an error, and so is a copy too large for memory ([`ErrorKind::OutOfMemory`]).
///
/// Feature `ndarray`.
///
/// ```
/// use ndarray::array;
/// use shaped::{Shape, Tensor};
/// let a = array![[1, 2, 3], [4, 5, 6]];
/// let t = Tensor::<i32, Shape![3, 2]>::try_from(a.t()).unwrap();
/// assert_eq!(t, Tensor::from([[1, 4], [2, 5], [3, 6]]));
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T: Clone, S: Shape, Dm: Dimension> TryFrom<ArrayView<'_, T, Dm>> for Tensor<T, S> {
    type Error = Error;
    fn try_from(a: ArrayView<'_, T, Dm>) -> Result<Self, Error> {
        fits_inline!(Self);
        let dims: Vec<usize> = a.shape().to_vec();
        crate::tensor::shape_for::<S>(&dims)?;
        // A broadcast view may show far more elements than it holds: the copy's allocation
        // is checked ([`ErrorKind::OutOfMemory`]).
        let mut data = crate::runtime::try_vec(a.len(), &dims)?;
        data.extend(a.iter().cloned());
        Tensor::from_shape_vec(&dims, data)
    }
}
