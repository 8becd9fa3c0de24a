//! [`ArrayRef`]: the read-only input of every runtime kernel, a slice with a shape and
//! optional strides, checked once when it is made.

use crate::error::{Error, ErrorKind, Operation};
use crate::rules::{self, MAX_RANK};

/// A read-only n-dimensional input: elements, shape and strides (in elements).
///
/// ```
/// use shaped::runtime::ArrayRef;
/// let data = [1, 2, 3, 4, 5, 6];
/// let a = ArrayRef::new(&[2, 3], &data).unwrap();
/// // The transpose of `a`: shape [3, 2], strides [1, 3].
/// let t = ArrayRef::with_strides(&[3, 2], &[1, 3], &data).unwrap();
/// assert_eq!(t.shape(), [3, 2]);
/// let e = ArrayRef::new(&[4, 2], &data).unwrap_err();
/// assert_eq!(e.to_string(), "shape [4, 2] needs 8 elements, but the buffer holds 6");
/// # let _ = a;
/// ```
#[derive(Debug)]
pub struct ArrayRef<'a, T> {
    pub(super) data: &'a [T],
    pub(super) shape: &'a [usize],
    pub(super) strides: Strides<'a>,
}

impl<T> Clone for ArrayRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ArrayRef<'_, T> {}

#[derive(Clone, Copy, Debug)]
pub(super) enum Strides<'a> {
    RowMajor,
    Given(&'a [usize]),
}

impl<'a, T> ArrayRef<'a, T> {
    /// A row-major input of `shape` (a slice, an array or a `Vec`, borrowed); `data.len()`
    /// must be the element count.
    // In line, its one error built in the caller (`Error::in_caller`): a firmware's `?` on
    // it then links no `memcpy`, and a shape known at compile time folds the checks.
    #[inline]
    pub fn new<Sh: AsRef<[usize]> + ?Sized>(shape: &'a Sh, data: &'a [T]) -> Result<Self, Error> {
        let shape = shape.as_ref();
        let kind = if shape.len() > MAX_RANK {
            ErrorKind::RankLimit { max: MAX_RANK }
        } else {
            match rules::checked_element_count(shape) {
                Some(expected) if expected == data.len() => {
                    return Ok(ArrayRef {
                        data,
                        shape,
                        strides: Strides::RowMajor,
                    });
                }
                Some(expected) => ErrorKind::LengthMismatch {
                    expected,
                    actual: data.len(),
                },
                None => ErrorKind::Overflow,
            }
        };
        Err(Error::in_caller(kind, Operation::Layout, shape, &[]))
    }

    /// An input with explicit strides (one per dim, in elements, 0 allowed): a transposed or
    /// sliced view. Every addressed element must lie inside `data`.
    pub fn with_strides<Sh, St>(
        shape: &'a Sh,
        strides: &'a St,
        data: &'a [T],
    ) -> Result<Self, Error>
    where
        Sh: AsRef<[usize]> + ?Sized,
        St: AsRef<[usize]> + ?Sized,
    {
        let (shape, strides) = (shape.as_ref(), strides.as_ref());
        let err = |kind| Error::new(kind, Operation::Layout, shape, strides);
        if shape.len() > MAX_RANK {
            return Err(err(ErrorKind::RankLimit { max: MAX_RANK }));
        }
        if strides.len() != shape.len() {
            return Err(err(ErrorKind::BadStrides));
        }
        // The same count rule as row-major inputs: a zero dim does not excuse the others.
        if rules::checked_element_count(shape).is_none() {
            return Err(err(ErrorKind::Overflow));
        }
        if shape.contains(&0) {
            return Ok(ArrayRef {
                data,
                shape,
                strides: Strides::Given(strides),
            });
        }
        let last =
            rules::checked_last_offset(shape, strides).ok_or_else(|| err(ErrorKind::Overflow))?;
        if last >= data.len() {
            return Err(err(ErrorKind::BadStrides));
        }
        Ok(ArrayRef {
            data,
            shape,
            strides: Strides::Given(strides),
        })
    }

    /// The shape.
    pub fn shape(&self) -> &'a [usize] {
        self.shape
    }

    /// The elements when they are row-major (no strides given, or the row-major ones).
    pub(crate) fn row_major(&self) -> Option<&'a [T]> {
        match self.strides {
            Strides::RowMajor => Some(self.data),
            Strides::Given(strides) => {
                let mut step = 1usize;
                for (&d, &s) in self.shape.iter().zip(strides).rev() {
                    if d > 1 && s != step {
                        return None;
                    }
                    step = step.checked_mul(d)?;
                }
                self.data.get(..step)
            }
        }
    }

    /// A strided input whose shape and strides the caller keeps inside `data` (a
    /// [`DynView`](crate::runtime::DynView)'s own).
    #[cfg(feature = "alloc")]
    pub(crate) fn trusted_strided(shape: &'a [usize], strides: &'a [usize], data: &'a [T]) -> Self {
        debug_assert!(ArrayRef::with_strides(shape, strides, data).is_ok());
        ArrayRef {
            data,
            shape,
            strides: Strides::Given(strides),
        }
    }

    /// A row-major input whose length the caller has already checked (a tensor's own
    /// elements), for the kernels' internal use.
    pub(crate) fn trusted(shape: &'a [usize], data: &'a [T]) -> Self {
        ArrayRef {
            data,
            shape,
            strides: Strides::RowMajor,
        }
    }
}
