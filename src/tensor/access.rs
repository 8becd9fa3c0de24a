//! Reading and writing elements: shape, slices, indexing, iterators, views.

use core::ops::{Index, IndexMut};

use super::{Tensor, TensorView, TensorViewMut};
use crate::quant::elementwise::static_count;
use crate::typed::shape::{Shape, StaticShape, TensorIndex};
use crate::typed::storage::{Data, DataMut, Owned};
use crate::util::{row_major_offset, static_prefix, static_prefix_mut};

/// # Access
///
/// Shape, elements, indexing and iteration, for every kind of storage.
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The dims, as `[usize; RANK]`.
    #[inline(always)]
    pub fn shape(&self) -> S::Index {
        self.shape.dims()
    }

    /// The shape value itself (a tuple of dims; `Dyn` dims carry their runtime size).
    #[inline(always)]
    pub fn shape_value(&self) -> S {
        self.shape
    }

    /// The number of dims.
    #[inline(always)]
    pub fn rank(&self) -> usize {
        S::RANK
    }

    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// True when some dim is 0.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements in row-major order.
    ///
    /// For a static shape the slice's length is the constant element count, whatever the
    /// storage (a view's buffer length is a value loaded at run time): indices below it need
    /// no bounds checks in the code that reads it, inlined or not. Without LTO, a quantized
    /// add's kernel kept the check of a view re-sliced to its shape's length, and the check's
    /// panic linked `core::fmt`: 6.9 kB of a Cortex-M4 firmware at opt-level "s"
    /// (`qemu-tests/code_size.sh`).
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        let all = self.data.as_slice();
        match const { static_count(S::STATIC_DIMS) } {
            // SAFETY: a tensor's buffer holds its shape's element count (every constructor
            // checks or builds it so), so `len <= all.len()`.
            Some(len) => unsafe { static_prefix(all, len) },
            None => all,
        }
    }

    /// The element at `index`, or `None` when a coordinate is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    /// assert_eq!(t.get([1, 0]), Some(&3));
    /// assert_eq!(t.get([2, 0]), None);
    /// ```
    #[inline]
    pub fn get(&self, index: S::Index) -> Option<&T> {
        let offset = row_major_offset(self.shape.dims().as_ref(), index.as_ref())?;
        self.as_slice().get(offset)
    }

    /// An iterator over the elements in row-major order.
    #[inline]
    pub fn iter(&self) -> core::slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// A read-only view of this tensor.
    #[inline]
    pub fn view(&self) -> TensorView<'_, T, S> {
        Tensor::from_parts(self.as_slice(), self.shape)
    }
}

/// # Access: writing
impl<T, S: Shape, D: DataMut<T>> Tensor<T, S, D> {
    /// The elements in row-major order, mutably.
    ///
    /// For a static shape its length is the constant element count, as
    /// [`as_slice`](Self::as_slice)'s.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        let all = self.data.as_mut_slice();
        match const { static_count(S::STATIC_DIMS) } {
            // SAFETY: as in `as_slice`, `len <= all.len()`.
            Some(len) => unsafe { static_prefix_mut(all, len) },
            None => all,
        }
    }

    /// The element at `index` mutably, or `None` when a coordinate is out of range.
    #[inline]
    pub fn get_mut(&mut self, index: S::Index) -> Option<&mut T> {
        let offset = row_major_offset(self.shape.dims().as_ref(), index.as_ref())?;
        self.as_mut_slice().get_mut(offset)
    }

    /// An iterator over the elements in row-major order, mutably.
    #[inline]
    pub fn iter_mut(&mut self) -> core::slice::IterMut<'_, T> {
        self.as_mut_slice().iter_mut()
    }

    /// A writable view of this tensor.
    #[inline]
    pub fn view_mut(&mut self) -> TensorViewMut<'_, T, S> {
        let shape = self.shape;
        Tensor::from_parts(self.as_mut_slice(), shape)
    }
}

/// # Access: the nested array
///
/// The elements of an inline tensor as the nested array they are stored in.
impl<T, S: StaticShape> Tensor<T, S> {
    /// The nested array holding the elements (`[[T; 3]; 2]` for `Shape![2, 3]`), without
    /// copying.
    #[inline]
    pub fn into_inner(self) -> S::Buffer<T> {
        self.data.into_buffer()
    }
}

impl<T, S: Shape, D: Data<T>> AsRef<[T]> for Tensor<T, S, D> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T, S: Shape, D: DataMut<T>> AsMut<[T]> for Tensor<T, S, D> {
    fn as_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<'a, T, S: Shape, D: Data<T>> IntoIterator for &'a Tensor<T, S, D> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T, S: Shape, D: DataMut<T>> IntoIterator for &'a mut Tensor<T, S, D> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// The elements by value, in row-major order, moved out of the inline (or, for mixed shapes,
/// `Vec`) storage.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<String, Shape![2, 2]>::from_fn(|[i, j]| format!("{i}{j}"));
/// let all: Vec<String> = t.into_iter().collect();
/// assert_eq!(all, ["00", "01", "10", "11"]);
/// ```
impl<T, S: Shape> IntoIterator for Tensor<T, S, Owned<T, S>> {
    type Item = T;
    type IntoIter = S::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        S::buffer_into_iter(self.data.into_buffer())
    }
}

/// The elements by value, moved out of the heap storage.
#[cfg(feature = "alloc")]
impl<T, S: Shape> IntoIterator for Tensor<T, S, alloc::boxed::Box<[T]>> {
    type Item = T;
    type IntoIter = alloc::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.into_vec().into_iter()
    }
}

/// A view iterates over the elements it borrows, for the view's whole lifetime.
impl<'a, T, S: Shape> IntoIterator for TensorView<'a, T, S> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter()
    }
}

/// A writable view iterates over the elements it borrows, mutably.
impl<'a, T, S: Shape> IntoIterator for TensorViewMut<'a, T, S> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter_mut()
    }
}

/// Indexing with one coordinate per dim; the arity is checked at compile time
/// ([`TensorIndex`]). Panics, naming the index and the shape, when a coordinate is out of
/// range; use [`Tensor::get`] for an `Option`.
impl<T, S: Shape, D: Data<T>, I: TensorIndex<S>> Index<I> for Tensor<T, S, D> {
    type Output = T;
    #[inline]
    #[track_caller]
    fn index(&self, index: I) -> &T {
        let dims = self.shape.dims();
        let index = index.as_ref();
        match row_major_offset(dims.as_ref(), index) {
            Some(offset) => &self.as_slice()[offset],
            None => out_of_bounds(index, dims.as_ref()),
        }
    }
}

impl<T, S: Shape, D: DataMut<T>, I: TensorIndex<S>> IndexMut<I> for Tensor<T, S, D> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut T {
        let dims = self.shape.dims();
        let index = index.as_ref();
        match row_major_offset(dims.as_ref(), index) {
            Some(offset) => &mut self.as_mut_slice()[offset],
            None => out_of_bounds(index, dims.as_ref()),
        }
    }
}

#[cold]
#[track_caller]
fn out_of_bounds(index: &[usize], dims: &[usize]) -> ! {
    panic!("index {index:?} is out of bounds for shape {dims:?}")
}
