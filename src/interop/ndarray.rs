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
use crate::typed::storage::{Data, DataMut};
use crate::DynTensor;

/// A row-major view of `data` with `dims`; `data` holds exactly their element count (a
/// tensor's own slice), which is all `from_shape` checks.
fn view<'a, T>(dims: &[usize], data: &'a [T]) -> ArrayViewD<'a, T> {
    ArrayView::from_shape(IxDyn(dims), data).unwrap_or_else(|_| unreachable!())
}

fn view_mut<'a, T>(dims: &[usize], data: &'a mut [T]) -> ArrayViewMutD<'a, T> {
    ArrayViewMut::from_shape(IxDyn(dims), data).unwrap_or_else(|_| unreachable!())
}

fn not_contiguous(dims: &[usize]) -> Error {
    Error::new(ErrorKind::NotContiguous, Operation::Layout, dims, &[])
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The tensor as an ndarray view of the same shape; no copy.
    ///
    /// Feature `ndarray`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as f32);
    /// let a = t.as_array_view();
    /// assert_eq!(a.shape(), &[2, 3]);
    /// assert_eq!((a[[1, 2]], a.sum()), (5.0, 15.0));
    /// ```
    pub fn as_array_view(&self) -> ArrayViewD<'_, T> {
        view(self.shape().as_ref(), self.as_slice())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T, S: Shape, D: DataMut<T>> Tensor<T, S, D> {
    /// The tensor as a writable ndarray view of the same shape; no copy.
    ///
    /// Feature `ndarray`.
    pub fn as_array_view_mut(&mut self) -> ArrayViewMutD<'_, T> {
        let dims = self.shape();
        view_mut(dims.as_ref(), self.as_mut_slice())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T> DynTensor<T> {
    /// The tensor as an ndarray view of the same shape; no copy.
    ///
    /// Feature `ndarray`.
    pub fn as_array_view(&self) -> ArrayViewD<'_, T> {
        view(self.shape(), self.as_slice())
    }

    /// The tensor as a writable ndarray view of the same shape; no copy.
    ///
    /// Feature `ndarray`.
    pub fn as_array_view_mut(&mut self) -> ArrayViewMutD<'_, T> {
        let (dims, data) = self.parts_mut();
        view_mut(dims, data)
    }

    /// A copy of any ndarray array or view, whatever its strides (reversed axes included),
    /// in row-major order.
    ///
    /// Feature `ndarray`.
    ///
    /// ```
    /// use ndarray::array;
    /// use shaped::DynTensor;
    /// let a = array![[1, 2, 3], [4, 5, 6]];
    /// let t = DynTensor::from_array(&a.t());
    /// assert_eq!((t.shape(), t.as_slice()), (&[3, 2][..], &[1, 4, 2, 5, 3, 6][..]));
    /// ```
    pub fn from_array<St, Dm>(a: &ArrayBase<St, Dm>) -> Self
    where
        T: Clone,
        St: NdData<Elem = T>,
        Dm: Dimension,
    {
        DynTensor::from_parts(a.shape(), a.iter().cloned().collect())
    }
}

/// The `DynTensor`'s `Vec` moved into an `ArrayD`; no copy.
///
/// Feature `ndarray`.
///
/// ```
/// use ndarray::ArrayD;
/// use shaped::DynTensor;
/// let t = DynTensor::from_shape_vec([2, 2], vec![1, 2, 3, 4]).unwrap();
/// let a = ArrayD::from(t);
/// assert_eq!(a[[1, 0]], 3);
/// let back = DynTensor::from(a);
/// assert_eq!(back.as_slice(), &[1, 2, 3, 4]);
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T> From<DynTensor<T>> for ArrayD<T> {
    fn from(t: DynTensor<T>) -> Self {
        let dims: Vec<usize> = t.shape().to_vec();
        // The element count is the `Vec`'s length and fits in `isize` (a `DynTensor` keeps
        // both true), which is all `from_shape_vec` checks.
        Array::from_shape_vec(IxDyn(&dims), t.into_vec()).unwrap_or_else(|_| unreachable!())
    }
}

/// An owned ndarray array as a `DynTensor`: its `Vec` moved when the array is in standard
/// layout (trimmed if the array was sliced), the elements copied in row-major order otherwise
/// (a transposed array, or one sliced with a step).
///
/// Feature `ndarray`.
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<T: Clone, Dm: Dimension> From<Array<T, Dm>> for DynTensor<T> {
    fn from(a: Array<T, Dm>) -> Self {
        let dims: Vec<usize> = a.shape().to_vec();
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
        DynTensor::from_parts(&dims, data)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<'a, T> DynView<'a, T> {
    /// The view as an ndarray view with the same shape and strides; no copy (permuted,
    /// narrowed and broadcast views included).
    ///
    /// Feature `ndarray`.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
    /// let v = t.strided().transpose().unwrap();
    /// let a = v.as_array_view();
    /// assert_eq!((a.shape(), a.strides()), (&[3, 2][..], &[1, 3][..]));
    /// assert_eq!(a[[2, 1]], 6);
    /// ```
    pub fn as_array_view(&self) -> ArrayViewD<'a, T> {
        let (data, dims, strides) = self.parts();
        // A `DynView` addresses only elements inside its slice, with non-negative strides,
        // which is what `from_shape` checks.
        ArrayView::from_shape(IxDyn(dims).strides(IxDyn(strides)), data)
            .unwrap_or_else(|_| unreachable!())
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
/// the heap), whatever its strides; a shape the type does not allow is an error.
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
        let dims: Vec<usize> = a.shape().to_vec();
        crate::tensor::shape_for::<S>(&dims)?;
        Tensor::from_shape_vec(&dims, a.iter().cloned().collect())
    }
}
