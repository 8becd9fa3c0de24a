//! nalgebra matrices and shaped tensors (feature `nalgebra`).
//!
//! nalgebra stores matrices column-major and shaped stores tensors row-major, so:
//! * **Copies** (the element order changes): `Tensor<T, Shape![R, C]>` from any static nalgebra
//!   matrix or view and `SMatrix<T, R, C>` from any rank-2 tensor; `Tensor<T, Shape![N]>` and
//!   `SVector<T, N>` both ways; `DynTensor` from any nalgebra matrix and `DMatrix` from a
//!   rank-2 `DynTensor` (`TryFrom`, since the rank is known only at run time).
//! * **No copy**: [`Tensor::as_transposed_matrix_view`] and
//!   [`DynTensor::as_transposed_matrix_view`] view a row-major `R x C` tensor as the `C x R`
//!   column-major matrix its elements already are: its transpose, in nalgebra's standard
//!   layout. (A view of the tensor itself would need a row stride of `C`, and nalgebra 0.35's
//!   products read such views out of bounds: dimforge/nalgebra#1616.) Use
//!   `(A B)^T = B^T A^T` to multiply on the views, or copy.
//!
//! [`DynTensor::as_transposed_matrix_view`]: crate::DynTensor::as_transposed_matrix_view

use nalgebra::{Const as NaConst, Matrix, MatrixView, SMatrix, SVector, Scalar, U1};

use crate::tensor::Tensor;
use crate::typed::dim::Const;
use crate::typed::storage::fits_inline;
use crate::typed::storage::Data;

/// A static nalgebra matrix (or view) copied into a tensor of the same dims, row-major.
///
/// Feature `nalgebra`.
///
/// ```
/// use nalgebra::Matrix2x3;
/// use shaped::{Shape, Tensor};
/// let m = Matrix2x3::new(1, 2, 3, 4, 5, 6);
/// let t = Tensor::<i32, Shape![2, 3]>::from(&m);
/// assert_eq!(t.as_slice(), &[1, 2, 3, 4, 5, 6]); // nalgebra holds [1, 4, 2, 5, 3, 6]
/// assert_eq!(Matrix2x3::from(&t), m);
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T, St, const R: usize, const C: usize> From<&Matrix<T, NaConst<R>, NaConst<C>, St>>
    for Tensor<T, (Const<R>, Const<C>)>
where
    T: Scalar,
    St: nalgebra::RawStorage<T, NaConst<R>, NaConst<C>>,
{
    fn from(m: &Matrix<T, NaConst<R>, NaConst<C>, St>) -> Self {
        Tensor::from_fn(|[i, j]: [usize; 2]| m[(i, j)].clone())
    }
}

/// A static nalgebra matrix copied into a tensor of the same dims, row-major.
///
/// Feature `nalgebra`.
#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T: Scalar, const R: usize, const C: usize> From<SMatrix<T, R, C>>
    for Tensor<T, (Const<R>, Const<C>)>
{
    fn from(m: SMatrix<T, R, C>) -> Self {
        Tensor::from(&m)
    }
}

/// A rank-2 tensor (any storage) copied into an `SMatrix` of the same dims.
///
/// Feature `nalgebra`.
#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T: Scalar, D: Data<T>, const R: usize, const C: usize>
    From<&Tensor<T, (Const<R>, Const<C>), D>> for SMatrix<T, R, C>
{
    fn from(t: &Tensor<T, (Const<R>, Const<C>), D>) -> Self {
        let data = t.as_slice();
        SMatrix::from_fn(|i, j| data[i * C + j].clone())
    }
}

/// A rank-2 tensor copied into an `SMatrix` of the same dims.
///
/// Feature `nalgebra`.
#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T: Scalar, const R: usize, const C: usize> From<Tensor<T, (Const<R>, Const<C>)>>
    for SMatrix<T, R, C>
{
    fn from(t: Tensor<T, (Const<R>, Const<C>)>) -> Self {
        SMatrix::from(&t)
    }
}

/// A static column vector (or view) copied into a rank-1 tensor.
///
/// Feature `nalgebra`.
///
/// ```
/// use nalgebra::Vector3;
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f32, Shape![3]>::from(&Vector3::new(1.0, 2.0, 3.0));
/// assert_eq!(t.as_slice(), &[1.0, 2.0, 3.0]);
/// assert_eq!(Vector3::from(&t), Vector3::new(1.0, 2.0, 3.0));
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T, St, const N: usize> From<&Matrix<T, NaConst<N>, U1, St>> for Tensor<T, (Const<N>,)>
where
    T: Scalar,
    St: nalgebra::RawStorage<T, NaConst<N>, U1>,
{
    fn from(v: &Matrix<T, NaConst<N>, U1, St>) -> Self {
        fits_inline!(Self);
        Tensor::from_fn(|[i]: [usize; 1]| v[i].clone())
    }
}

/// A rank-1 tensor (any storage) copied into an `SVector`.
///
/// Feature `nalgebra`.
#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T: Scalar, D: Data<T>, const N: usize> From<&Tensor<T, (Const<N>,), D>> for SVector<T, N> {
    fn from(t: &Tensor<T, (Const<N>,), D>) -> Self {
        SVector::from_column_slice(t.as_slice())
    }
}

/// # Interop: nalgebra views (feature `nalgebra`)
#[cfg_attr(docsrs, doc(cfg(feature = "nalgebra")))]
impl<T: Scalar, D: Data<T>, const R: usize, const C: usize> Tensor<T, (Const<R>, Const<C>), D> {
    /// The tensor's `R x C` row-major elements as the `C x R` nalgebra matrix they are in
    /// column-major order, that is its transpose, without a copy and in nalgebra's standard
    /// layout.
    ///
    /// Feature `nalgebra`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 3]>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    /// let v = t.as_transposed_matrix_view(); // 3 x 2
    /// assert_eq!((v.nrows(), v.ncols(), v[(2, 0)]), (3, 2, 3.0));
    /// assert_eq!(v.transpose(), nalgebra::Matrix2x3::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0));
    /// ```
    pub fn as_transposed_matrix_view(&self) -> MatrixView<'_, T, NaConst<C>, NaConst<R>> {
        MatrixView::from_slice_generic(self.as_slice(), NaConst::<C>, NaConst::<R>)
    }
}

#[cfg(feature = "alloc")]
mod dynamic {
    use nalgebra::{DMatrix, DMatrixView, Dim, Matrix, RawStorage, Scalar};

    use crate::error::Error;
    use crate::typed::dim::Dyn;
    use crate::DynTensor;

    /// Any nalgebra matrix or view (static or dynamic dims) copied into a `DynTensor` of shape
    /// `[rows, columns]`, row-major. A view with stride 0 may show far more elements than it
    /// holds: a copy whose size overflows is [`ErrorKind::Overflow`], one the allocator
    /// refuses [`ErrorKind::OutOfMemory`].
    ///
    /// Features `nalgebra` and `alloc`.
    ///
    /// ```
    /// use nalgebra::DMatrix;
    /// use shaped::DynTensor;
    /// let m = DMatrix::from_row_slice(2, 3, &[1, 2, 3, 4, 5, 6]);
    /// let t = DynTensor::try_from(&m)?;
    /// assert_eq!((t.shape(), t.as_slice()), (&[2, 3][..], &[1, 2, 3, 4, 5, 6][..]));
    /// assert_eq!(DMatrix::try_from(&t)?, m);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    ///
    /// [`ErrorKind::Overflow`]: crate::ErrorKind::Overflow
    /// [`ErrorKind::OutOfMemory`]: crate::ErrorKind::OutOfMemory
    #[cfg_attr(docsrs, doc(cfg(all(feature = "nalgebra", feature = "alloc"))))]
    impl<T: Scalar, R: Dim, C: Dim, St: RawStorage<T, R, C>> TryFrom<&Matrix<T, R, C, St>>
        for DynTensor<T>
    {
        type Error = Error;
        fn try_from(m: &Matrix<T, R, C, St>) -> Result<Self, Error> {
            let (rows, cols) = m.shape();
            let dims = [rows, cols];
            let count = crate::runtime::element_count::<T>(&dims)?;
            let mut data = crate::runtime::try_vec(count, &dims)?;
            // Row-major: transposing the column-major storage.
            data.extend((0..rows).flat_map(|i| (0..cols).map(move |j| m[(i, j)].clone())));
            Ok(DynTensor::from_parts(&dims, data))
        }
    }

    /// A rank-2 `DynTensor` copied into a `DMatrix`; another rank is an error naming the shape.
    ///
    /// Features `nalgebra` and `alloc`.
    #[cfg_attr(docsrs, doc(cfg(all(feature = "nalgebra", feature = "alloc"))))]
    impl<T: Scalar> TryFrom<&DynTensor<T>> for DMatrix<T> {
        type Error = Error;
        fn try_from(t: &DynTensor<T>) -> Result<Self, Error> {
            let (rows, cols) = rank_two(t)?;
            Ok(DMatrix::from_row_slice(rows, cols, t.as_slice()))
        }
    }

    /// The dims of a rank-2 tensor, or the error naming its shape.
    fn rank_two<T>(t: &DynTensor<T>) -> Result<(usize, usize), Error> {
        let dims = t.shape();
        crate::tensor::shape_for::<(Dyn, Dyn)>(dims)?;
        Ok((dims[0], dims[1]))
    }

    #[cfg_attr(docsrs, doc(cfg(all(feature = "nalgebra", feature = "alloc"))))]
    impl<T: Scalar> DynTensor<T> {
        /// A rank-2 tensor's `rows x cols` row-major elements as the `cols x rows` nalgebra
        /// matrix they are in column-major order (its transpose), without a copy. Another rank
        /// is an error naming the shape.
        ///
        /// Features `nalgebra` and `alloc`.
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let t = DynTensor::from_shape_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        /// let v = t.as_transposed_matrix_view().unwrap();
        /// assert_eq!((v.nrows(), v.ncols(), v[(2, 1)]), (3, 2, 6.0));
        /// let e = DynTensor::from_shape_vec([6], vec![0.0; 6]).unwrap();
        /// assert_eq!(
        ///     e.as_transposed_matrix_view().unwrap_err().to_string(),
        ///     "shape [6] has rank 1, but the shape type has rank 2"
        /// );
        /// ```
        pub fn as_transposed_matrix_view(&self) -> Result<DMatrixView<'_, T>, Error> {
            let (rows, cols) = rank_two(self)?;
            Ok(DMatrixView::from_slice(self.as_slice(), cols, rows))
        }
    }
}
