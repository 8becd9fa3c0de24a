//! Conversions of a `DynTensor`'s elements to another element type (C1-C3), by
//! `crate::cast`'s one definition, as on static tensors.

#[cfg(feature = "alloc")]
use super::dyn_tensor::DynTensor;
#[cfg(feature = "alloc")]
use crate::cast::Mode;
use crate::cast::{self, CastElement};
use crate::error::{Error, ErrorKind, Operation};

/// The first element of `data` with no value in `U` (C3), as the error to return.
pub(crate) fn check_cast<T: CastElement, U: CastElement>(
    data: &[T],
    dims: &[usize],
) -> Result<(), Error> {
    match data
        .iter()
        .position(|&x| cast::try_cast::<T, U>(x).is_none())
    {
        None => Ok(()),
        Some(index) => Err(Error::new(
            ErrorKind::CastOutOfRange { index },
            Operation::Cast {
                from: T::DTYPE,
                to: U::DTYPE,
            },
            dims,
            &[],
        )),
    }
}

#[cfg(feature = "alloc")]
impl<T: CastElement> DynTensor<T> {
    /// Each element as a `U` by C1 (see [`Tensor::cast`](crate::Tensor::cast)): integers
    /// wrap, floats truncate toward zero into integers and saturate there (NaN gives 0),
    /// values round to nearest.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([3], vec![2.5f64, -0.5, 1e10]).unwrap();
    /// assert_eq!(x.cast::<f32>().as_slice(), &[2.5, -0.5, 1e10]);
    /// assert_eq!(x.cast::<i16>().as_slice(), &[2, 0, i16::MAX]);
    /// assert_eq!(x.try_cast::<i16>().unwrap_err().to_string(),
    ///     "cannot cast [3] from f64 to i16: element 2 (row-major) is NaN or outside i16's range (C3)");
    /// ```
    pub fn cast<U: CastElement>(&self) -> DynTensor<U> {
        self.map_shared(|&x| cast::convert::<T, U>(x, Mode::As))
    }

    /// Each element as a `U` by C2: out-of-range values saturate, NaN into an integer gives 0.
    pub fn cast_saturating<U: CastElement>(&self) -> DynTensor<U> {
        self.map_shared(|&x| cast::convert::<T, U>(x, Mode::Saturating))
    }

    /// Each element as a `U` by C3, or the error naming the first element with no value in
    /// `U`, found before anything is computed.
    pub fn try_cast<U: CastElement>(&self) -> Result<DynTensor<U>, Error> {
        check_cast::<T, U>(self.as_slice(), self.shape())?;
        Ok(self.cast::<U>())
    }
}
