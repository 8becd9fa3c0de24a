//! Conversions of a static or mixed tensor's elements to another element type (C1-C3): the
//! shape stays, each element converts by `crate::cast`'s one definition.

use super::result::{Storable, Stored};
use super::Tensor;
use crate::cast::{self, CastElement, Mode};
use crate::error::Error;
use crate::runtime::cast::check_cast;
use crate::typed::shape::Shape;
use crate::typed::storage::fits_inline;
use crate::typed::storage::Data;

/// # Casts
///
/// Each element converted to `U`, the shape unchanged, the result stored like `self` (C1-C3;
/// [`crate::cast`] states each conversion). Element types: `bool`, the integers up to 64
/// bits, `f32`, `f64`, and `f16`/`bf16` with feature `half`.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let x = Tensor::<f32, Shape![2, 2]>::from([[-1.7, 0.5], [300.2, f32::NAN]]);
/// assert_eq!(x.cast::<i32>().as_slice(), &[-1, 0, 300, 0]);
/// assert_eq!(x.cast::<u8>().as_slice(), &[0, 0, 255, 0]);
/// assert_eq!(x.cast::<bool>().as_slice(), &[true, true, true, true]);
/// let e = x.try_cast::<u8>().unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot cast [2, 2] from f32 to u8: element 0 (row-major) is NaN or outside u8's range (C3)"
/// );
/// let i = Tensor::<i32, Shape![3]>::from([300, -1, 7]);
/// assert_eq!(i.cast::<u8>().as_slice(), &[44, 255, 7]);
/// assert_eq!(i.cast_saturating::<u8>().as_slice(), &[255, 0, 7]);
/// ```
impl<T: CastElement, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// Each element as a `U` by C1: Rust's `as`, which is numpy's `astype` wherever numpy
    /// defines it (integers wrap, floats truncate toward zero into integers, values round to
    /// nearest), and saturates a float outside an integer's range (NaN gives 0).
    #[inline]
    pub fn cast<U: CastElement>(&self) -> Stored<D::Family, U, S>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, U, S>);
        self.map_shared(|&x| cast::convert::<T, U>(x, Mode::As))
    }

    /// Each element as a `U` by C2: a value outside `U`'s range becomes the nearest inside
    /// (integers never wrap, a finite float never becomes infinite); NaN into an integer
    /// gives 0.
    #[inline]
    pub fn cast_saturating<U: CastElement>(&self) -> Stored<D::Family, U, S>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, U, S>);
        self.map_shared(|&x| cast::convert::<T, U>(x, Mode::Saturating))
    }

    /// Each element as a `U` by C3, or the error naming the first element with no value in
    /// `U` (NaN into an integer, or outside `U`'s range) before anything is computed.
    #[inline]
    pub fn try_cast<U: CastElement>(&self) -> Result<Stored<D::Family, U, S>, Error>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, U, S>);
        let dims = self.shape.dims();
        check_cast::<T, U>(self.as_slice(), dims.as_ref())?;
        // Where C3 has a value, C1 gives the same one.
        Ok(self.cast::<U>())
    }
}
