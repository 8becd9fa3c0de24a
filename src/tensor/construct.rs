//! Making tensors: from a function, a value, nested arrays, slices, vectors and borrowed
//! buffers. Every constructor that takes a runtime shape takes it first, as a slice, an array
//! or a `Vec`.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use super::{Tensor, TensorView, TensorViewMut};
use crate::element::Scalar;
use crate::error::{Error, ErrorKind, Operation};
use crate::rules::{self, RangeElement, ShapeBuf};
use crate::runtime::ArrayRef;
use crate::typed::dim::Const;
use crate::typed::shape::{Shape, StaticShape};
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Build, Owned};

/// # Construction
///
/// Construction, for inline storage (the default: no heap) and heap storage alike; the type
/// says which.
impl<T, S: StaticShape, D: Build<T, S>> Tensor<T, S, D> {
    /// Builds a tensor by calling `f` with each multi-index, in row-major order.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<usize, Shape![2, 3]>::from_fn(|[i, j]| 10 * i + j);
    /// assert_eq!(t.as_slice(), &[0, 1, 2, 10, 11, 12]);
    /// ```
    #[inline]
    pub fn from_fn(f: impl FnMut(S::Index) -> T) -> Self {
        fits_inline!(Self);
        Tensor::from_parts(D::build(f), S::default())
    }

    /// A tensor with every element equal to `value`.
    #[inline]
    pub fn splat(value: T) -> Self
    where
        T: Clone,
    {
        fits_inline!(Self);
        Self::from_fn(|_| value.clone())
    }

    /// A tensor of zeros.
    #[inline]
    pub fn zeros() -> Self
    where
        T: num_traits::Zero,
    {
        fits_inline!(Self);
        Self::from_fn(|_| T::zero())
    }
}

/// Every element `T::default()`.
#[cfg(not(feature = "alloc"))]
impl<T: Default, S: StaticShape> Default for Tensor<T, S> {
    fn default() -> Self {
        fits_inline!(Self);
        Self::from_fn(|_| T::default())
    }
}

/// Every element `T::default()`; a mixed shape's runtime dims are 0, so it has no elements.
/// (Static shapes build their nested array in place, as without `alloc`.)
///
/// ```
/// use shaped::{Shape, Tensor};
/// assert_eq!(Tensor::<u8, Shape![2]>::default().as_slice(), &[0, 0]);
/// assert_eq!(Tensor::<u8, Shape![_, 3]>::default().shape(), [0, 3]);
/// ```
#[cfg(feature = "alloc")]
impl<T: Default, S: Shape> Default for Tensor<T, S> {
    fn default() -> Self {
        fits_inline!(Self);
        let shape = S::default_shape();
        Tensor::from_parts(Owned::new(shape.buffer_default()), shape)
    }
}

/// # Construction: a scalar
///
/// A rank-0 tensor, for a scalar that takes part in tensor operations.
impl<T> Tensor<T, ()> {
    /// A rank-0 tensor holding `value`.
    #[inline]
    pub fn scalar(value: T) -> Self {
        fits_inline!(Self);
        Tensor::from_parts(Owned::new(value), ())
    }
}

/// # Construction: a range
///
/// A range whose count is the type (M12).
impl<T: RangeElement, const N: usize, D: Build<T, (Const<N>,)>> Tensor<T, (Const<N>,), D> {
    /// The `N` values `start`, `start + delta`, `start + 2 * delta`, ... (M12): what
    /// `DynTensor::range` (feature `alloc`) gives for any limit whose count is `N`,
    /// value for value. Integers compute `start + i * delta` wrapping, floats in `f64`,
    /// rounded once as ONNX's reference rounds them; a delta of 0 gives `N` copies of `start`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![4]>::range(10, -3);
    /// assert_eq!(t.as_slice(), &[10, 7, 4, 1]);
    /// let f = Tensor::<f32, Shape![3]>::range(0.5, 0.25);
    /// assert_eq!(f.as_slice(), &[0.5, 0.75, 1.0]);
    /// ```
    #[inline]
    pub fn range(start: T, delta: T) -> Self {
        fits_inline!(Self);
        Self::from_fn(|[i]| rules::range_value(start, delta, i))
    }
}

macro_rules! impl_from_nested {
    ($nest:ty; $($n:ident),+) => {
        /// Moves a nested array of the same shape into a tensor. The element type is a
        /// [`Scalar`], so `Tensor::from([[1, 2], [3, 4]])` is read as rank 2, not as rank 1 of
        /// arrays.
        impl<T: Scalar, $(const $n: usize),+> From<$nest> for Tensor<T, ($(Const<$n>,)+)> {
            #[inline]
            fn from(array: $nest) -> Self {
                fits_inline!(Self);
                Tensor::from_parts(Owned::new(array), Default::default())
            }
        }
    };
}

impl_from_nested!([T; N0]; N0);
impl_from_nested!([[T; N1]; N0]; N0, N1);
impl_from_nested!([[[T; N2]; N1]; N0]; N0, N1, N2);
impl_from_nested!([[[[T; N3]; N2]; N1]; N0]; N0, N1, N2, N3);
impl_from_nested!([[[[[T; N4]; N3]; N2]; N1]; N0]; N0, N1, N2, N3, N4);
impl_from_nested!([[[[[[T; N5]; N4]; N3]; N2]; N1]; N0]; N0, N1, N2, N3, N4, N5);
impl_from_nested!([[[[[[[T; N6]; N5]; N4]; N3]; N2]; N1]; N0]; N0, N1, N2, N3, N4, N5, N6);
impl_from_nested!([[[[[[[[T; N7]; N6]; N5]; N4]; N3]; N2]; N1]; N0]; N0, N1, N2, N3, N4, N5, N6, N7);

macro_rules! impl_view_of_nested {
    ($nest:ty; $($n:ident),+) => {
        /// Views a nested array of the same shape in place, without a copy: weights kept in a
        /// `static` are used where they are (in flash, on a microcontroller).
        ///
        /// ```
        /// use shaped::{Shape, Tensor, TensorView};
        /// static W: [[f32; 3]; 2] = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        /// let w: TensorView<f32, Shape![2, 3]> = TensorView::from(&W);
        /// let x = Tensor::<f32, Shape![2]>::from([1.0, -1.0]);
        /// assert_eq!(x.matmul(&w).as_slice(), &[-3.0, -3.0, -3.0]);
        /// ```
        impl<'a, T: Scalar, $(const $n: usize),+> From<&'a $nest> for TensorView<'a, T, ($(Const<$n>,)+)> {
            #[inline]
            fn from(array: &'a $nest) -> Self {
                fits_inline!(Self);
                let data = <($(Const<$n>,)+) as Shape>::buffer_as_slice(array);
                Tensor::from_parts(data, Default::default())
            }
        }
    };
}

impl_view_of_nested!([T; N0]; N0);
impl_view_of_nested!([[T; N1]; N0]; N0, N1);
impl_view_of_nested!([[[T; N2]; N1]; N0]; N0, N1, N2);
impl_view_of_nested!([[[[T; N3]; N2]; N1]; N0]; N0, N1, N2, N3);

/// `TryFrom<&[T]>` copies a slice of exactly the element count into an inline tensor.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<u8, Shape![2, 2]>::try_from(&[1, 2, 3, 4][..]).unwrap();
/// assert_eq!(t[[1, 1]], 4);
/// let err = Tensor::<u8, Shape![2, 2]>::try_from(&[1, 2, 3][..]).unwrap_err();
/// assert_eq!(err.to_string(), "shape [2, 2] needs 4 elements, but the buffer holds 3");
/// ```
impl<T: Clone, S: StaticShape> TryFrom<&[T]> for Tensor<T, S> {
    type Error = Error;
    fn try_from(data: &[T]) -> Result<Self, Error> {
        fits_inline!(Self);
        Ok(TensorView::<T, S>::new(data)?.to_stack())
    }
}

/// The buffer of a static shape holds exactly its element count. In line, so that a constant
/// length folds the check; the error is built out of line.
#[inline]
fn check_len<S: StaticShape>(len: usize) -> Result<(), Error> {
    if len == S::LEN {
        return Ok(());
    }
    len_mismatch::<S>(len)
}

#[cold]
#[inline(never)]
fn len_mismatch<S: StaticShape>(len: usize) -> Result<(), Error> {
    let kind = ErrorKind::LengthMismatch {
        expected: S::LEN,
        actual: len,
    };
    Err(Error::new(kind, Operation::Layout, S::DIMS, &[]))
}

/// # Construction: a view of a slice
impl<'a, T, S: StaticShape> TensorView<'a, T, S> {
    /// Views `data` as a tensor of shape `S`; `data.len()` must be the element count.
    ///
    /// ```
    /// use shaped::{Shape, TensorView};
    /// let data = [1.0f32; 5];
    /// let err = TensorView::<f32, Shape![2, 3]>::new(&data).unwrap_err();
    /// assert_eq!(err.to_string(), "shape [2, 3] needs 6 elements, but the buffer holds 5");
    /// ```
    pub fn new(data: &'a [T]) -> Result<Self, Error> {
        check_len::<S>(data.len())?;
        Ok(Tensor::from_parts(data, S::default()))
    }
}

/// # Construction: a writable view of a slice
impl<'a, T, S: StaticShape> TensorViewMut<'a, T, S> {
    /// Views `data` as a writable tensor of shape `S`; `data.len()` must be the element count.
    pub fn new(data: &'a mut [T]) -> Result<Self, Error> {
        check_len::<S>(data.len())?;
        Ok(Tensor::from_parts(data, S::default()))
    }
}

/// # Construction: on the heap
#[cfg(feature = "alloc")]
impl<T, S: StaticShape> super::HeapTensor<T, S> {
    /// Takes ownership of `data` (no copy); its length must be the element count.
    pub fn from_vec(data: Vec<T>) -> Result<Self, Error> {
        check_len::<S>(data.len())?;
        Ok(Tensor::from_parts(data.into_boxed_slice(), S::default()))
    }
}

/// The dims a shape type `S` expects, for error messages: its static dims, and
/// [`DYN_DIM`](crate::error::DYN_DIM) (printed `_`) at each `Dyn` position.
fn expected_dims<S: Shape>() -> ShapeBuf {
    let mut expected = [0usize; rules::MAX_RANK];
    for (i, slot) in expected.iter_mut().enumerate().take(S::RANK) {
        *slot = S::STATIC_DIMS[i].unwrap_or(crate::error::DYN_DIM);
    }
    ShapeBuf::from_slice(&expected[..S::RANK.min(rules::MAX_RANK)]).unwrap_or_default()
}

/// `dims` do not fit the shape type `S`: the error names what the type allows.
pub(crate) fn shape_mismatch<S: Shape>(dims: &[usize]) -> Error {
    let expected = expected_dims::<S>();
    Error::new(
        ErrorKind::ShapeMismatch,
        Operation::ToStatic,
        dims,
        &expected,
    )
}

/// The shape value for runtime `dims`, or an error naming what the type allows.
pub(crate) fn shape_for<S: Shape>(dims: &[usize]) -> Result<S, Error> {
    S::from_dims(dims).ok_or_else(|| shape_mismatch::<S>(dims))
}

/// # Construction: shapes known at run time
#[cfg(feature = "alloc")]
impl<T, S: Shape> Tensor<T, S> {
    /// A tensor of `shape` (a slice, an array or a `Vec`) owning `data` (row-major, no copy
    /// for shapes with a `Dyn` dim). Every static dim of `S` must equal the corresponding
    /// value, and `data` must hold the element count.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u8, Shape![_, 2]>::from_shape_vec([3, 2], vec![0; 6]).unwrap();
    /// assert_eq!(t.shape(), [3, 2]);
    /// let e = Tensor::<u8, Shape![_, 2]>::from_shape_vec([3, 4], vec![0; 12]).unwrap_err();
    /// assert_eq!(e.to_string(), "shape [3, 4] does not fit the shape type [_, 2]");
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn from_shape_vec(shape: impl AsRef<[usize]>, data: Vec<T>) -> Result<Self, Error> {
        fits_inline!(Self);
        let dims = shape.as_ref();
        let shape = shape_for::<S>(dims)?;
        // The same length and overflow checks as every runtime input.
        ArrayRef::new(dims, &data)?;
        let buffer = shape
            .buffer_from_vec(data)
            .ok_or_else(|| Error::new(ErrorKind::ShapeMismatch, Operation::Layout, dims, &[]))?;
        Ok(Tensor::from_parts(Owned::new(buffer), shape))
    }
}

/// # Construction: a view with a runtime shape
impl<'a, T, S: Shape> TensorView<'a, T, S> {
    /// A view of `data` (row-major) with `shape`; works for any shape, `Dyn` dims included,
    /// and needs no allocator.
    ///
    /// ```
    /// use shaped::{Shape, TensorView};
    /// let data = [1, 2, 3, 4, 5, 6];
    /// let v = TensorView::<i32, Shape![_, 3]>::with_shape([2, 3], &data).unwrap();
    /// assert_eq!(v[[1, 0]], 4);
    /// ```
    pub fn with_shape(shape: impl AsRef<[usize]>, data: &'a [T]) -> Result<Self, Error> {
        let dims = shape.as_ref();
        let shape = shape_for::<S>(dims)?;
        ArrayRef::new(dims, data)?;
        Ok(Tensor::from_parts(data, shape))
    }
}

/// # Construction: a writable view with a runtime shape
impl<'a, T, S: Shape> TensorViewMut<'a, T, S> {
    /// A writable view of `data` (row-major) with `shape`; needs no allocator.
    pub fn with_shape(shape: impl AsRef<[usize]>, data: &'a mut [T]) -> Result<Self, Error> {
        let dims = shape.as_ref();
        let shape = shape_for::<S>(dims)?;
        ArrayRef::new(dims, &*data)?;
        Ok(Tensor::from_parts(data, shape))
    }
}
