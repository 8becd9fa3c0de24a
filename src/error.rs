//! Error values. They are `Copy`, need no allocator, and say what was expected and what came.

use core::fmt;

use crate::shape::MAX_STATIC_RANK;

/// A shape held inline, for error messages: no allocation, `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dims {
    dims: [usize; MAX_STATIC_RANK],
    rank: u8,
}

impl Dims {
    /// Copies `dims`; returns `None` if the rank exceeds [`MAX_STATIC_RANK`].
    pub fn new(dims: &[usize]) -> Option<Self> {
        let mut out = Dims {
            dims: [0; MAX_STATIC_RANK],
            rank: u8::try_from(dims.len()).ok()?,
        };
        out.dims.get_mut(..dims.len())?.copy_from_slice(dims);
        Some(out)
    }

    /// The dims.
    pub fn as_slice(&self) -> &[usize] {
        &self.dims[..usize::from(self.rank)]
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// A buffer's length does not match the element count of the shape it was given for.
///
/// ```
/// use shaped::{Shape, TensorView};
/// let data = [1.0f32; 5];
/// let err = TensorView::<f32, Shape![2, 3]>::new(&data).unwrap_err();
/// assert_eq!(err.to_string(), "shape [2, 3] needs 6 elements, but the buffer holds 5");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LengthMismatch {
    shape: Dims,
    expected: usize,
    actual: usize,
}

impl LengthMismatch {
    pub(crate) fn new(shape: &[usize], expected: usize, actual: usize) -> Self {
        // Static shapes have at most MAX_STATIC_RANK dims, so `Dims::new` cannot fail here;
        // an empty shape is the harmless fallback rather than a panic.
        let shape = Dims::new(shape).unwrap_or(Dims {
            dims: [0; MAX_STATIC_RANK],
            rank: 0,
        });
        LengthMismatch {
            shape,
            expected,
            actual,
        }
    }

    /// The shape the buffer was meant for.
    pub fn shape(&self) -> &[usize] {
        self.shape.as_slice()
    }

    /// The element count of that shape.
    pub fn expected(&self) -> usize {
        self.expected
    }

    /// The length of the buffer given.
    pub fn actual(&self) -> usize {
        self.actual
    }
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shape {} needs {} elements, but the buffer holds {}",
            self.shape, self.expected, self.actual
        )
    }
}

impl core::error::Error for LengthMismatch {}
