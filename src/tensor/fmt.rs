//! `Display` and `Debug` for tensors: numpy-style nested brackets.

use core::fmt::{self, Write};

use super::Tensor;
use crate::typed::shape::Shape;
use crate::typed::storage::Data;
use crate::util::fmt::{debug_elem, display_elem, write_nested};

/// numpy-like nested brackets; honours a precision such as `{:.2}`.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<i32, Shape![2, 2]>::from([[1, 20], [300, 4]]);
/// assert_eq!(t.to_string(), "[[  1  20]\n [300   4]]");
/// ```
impl<T: fmt::Display, S: Shape, D: Data<T>> fmt::Display for Tensor<T, S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_nested(f, self.shape().as_ref(), self.as_slice(), display_elem::<T>)
    }
}

/// The shape, then the elements with their `Debug` form.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f32, Shape![1, 2]>::from([[0.5, 1.0]]);
/// assert_eq!(format!("{t:?}"), "Tensor(shape=[1, 2], [[0.5 1.0]])");
/// ```
impl<T: fmt::Debug, S: Shape, D: Data<T>> fmt::Debug for Tensor<T, S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor(shape={:?}, ", self.shape().as_ref())?;
        write_nested(f, self.shape().as_ref(), self.as_slice(), debug_elem::<T>)?;
        f.write_char(')')
    }
}
