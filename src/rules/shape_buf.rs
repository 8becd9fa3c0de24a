//! [`ShapeBuf`]: a shape held inline, what the shape functions return.

use core::fmt;
use core::ops::Deref;

use super::{checked_element_count, MAX_RANK};

/// A shape held inline (up to [`MAX_RANK`] dims): what the shape functions return.
///
/// ```
/// use shaped::{broadcast_shapes, AutoBroadcast};
/// let s = broadcast_shapes(&[2, 1, 5], &[4, 1], AutoBroadcast::Numpy).unwrap();
/// assert_eq!(s.as_ref(), &[2, 4, 5]);
/// assert_eq!(s, [2, 4, 5]);
/// assert_eq!(s.to_string(), "[2, 4, 5]");
/// ```
///
/// `CAP` is the capacity; the kernels use a small one internally for the common ranks, so a
/// call does not zero and copy 64-dim buffers.
#[derive(Clone, Copy)]
pub struct ShapeBuf<const CAP: usize = MAX_RANK> {
    pub(super) dims: [usize; CAP],
    pub(super) len: usize,
}

impl<const CAP: usize> ShapeBuf<CAP> {
    /// An empty (rank 0) shape.
    pub const fn new() -> Self {
        ShapeBuf {
            dims: [0; CAP],
            len: 0,
        }
    }

    /// Copies `dims`, or `None` when the rank is above the capacity.
    pub fn from_slice(dims: &[usize]) -> Option<Self> {
        let mut out = ShapeBuf::new();
        out.dims.get_mut(..dims.len())?.copy_from_slice(dims);
        out.len = dims.len();
        Some(out)
    }

    /// The dims.
    pub fn as_slice(&self) -> &[usize] {
        &self.dims[..self.len]
    }

    /// Appends a dim; false (and nothing changes) at capacity.
    pub(crate) fn push(&mut self, dim: usize) -> bool {
        match self.dims.get_mut(self.len) {
            Some(slot) => {
                *slot = dim;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// The dims, mutably (the gathers' odometers, the one-pass NUMPY plan).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [usize] {
        &mut self.dims[..self.len]
    }

    /// The element count, or `None` on overflow.
    pub fn element_count(&self) -> Option<usize> {
        checked_element_count(self.as_slice())
    }
}

impl<const CAP: usize> Default for ShapeBuf<CAP> {
    fn default() -> Self {
        ShapeBuf::new()
    }
}

/// The shape of these dims. Panics when `N` is above the capacity, a mistake in the program
/// (`N` is a constant); [`from_slice`](ShapeBuf::from_slice) is the checked form.
impl<const CAP: usize, const N: usize> From<[usize; N]> for ShapeBuf<CAP> {
    fn from(dims: [usize; N]) -> Self {
        match ShapeBuf::from_slice(&dims) {
            Some(s) => s,
            None => panic!("a shape of rank {N} exceeds the capacity {CAP}"),
        }
    }
}

impl<const CAP: usize> Deref for ShapeBuf<CAP> {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl<const CAP: usize> AsRef<[usize]> for ShapeBuf<CAP> {
    fn as_ref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl<const CAP: usize> PartialEq for ShapeBuf<CAP> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl<const CAP: usize> Eq for ShapeBuf<CAP> {}

impl<const CAP: usize> PartialEq<[usize]> for ShapeBuf<CAP> {
    fn eq(&self, other: &[usize]) -> bool {
        self.as_slice() == other
    }
}

impl<const CAP: usize> PartialEq<&[usize]> for ShapeBuf<CAP> {
    fn eq(&self, other: &&[usize]) -> bool {
        self.as_slice() == *other
    }
}

impl<const CAP: usize, const N: usize> PartialEq<[usize; N]> for ShapeBuf<CAP> {
    fn eq(&self, other: &[usize; N]) -> bool {
        self.as_slice() == other
    }
}

impl<const CAP: usize> fmt::Debug for ShapeBuf<CAP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl<const CAP: usize> fmt::Display for ShapeBuf<CAP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}
