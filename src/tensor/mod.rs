//! The tensor type, its storage variants, construction and element access.

use core::marker::PhantomData;
use core::ops::{Index, IndexMut};

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, vec::Vec};

use crate::dim::Const;
use crate::error::LengthMismatch;
use crate::kernel;
use crate::ops::Scalar;
use crate::shape::{row_major_offset, Shape, StaticShape, TensorIndex};
use crate::storage::{Build, Data, DataMut, Family, Owned, Stack};

pub(crate) mod fmt;

/// A tensor of `T` whose shape `S` is a type, stored in `D`.
///
/// The storage defaults to [`Owned`], the elements inline in a nested array with no heap use.
/// [`TensorView`], [`TensorViewMut`] and (feature `alloc`) `HeapTensor` are the same type over
/// other storage, and take part in the same operations.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 1, 5]>::from_fn(|[i, _, k]| (i * 5 + k) as f32);
/// let b = Tensor::<f32, Shape![4, 1]>::splat(1.0);
/// let c: Tensor<f32, Shape![2, 4, 5]> = &a + &b;
/// assert_eq!(c[[1, 3, 4]], 10.0);
/// ```
pub struct Tensor<T, S: Shape, D = Owned<T, S>> {
    data: D,
    shape: S,
    marker: PhantomData<T>,
}

/// A borrowed, read-only tensor over a `&[T]` of exactly the shape's element count.
pub type TensorView<'a, T, S> = Tensor<T, S, &'a [T]>;

/// A borrowed, writable tensor over a `&mut [T]` of exactly the shape's element count.
pub type TensorViewMut<'a, T, S> = Tensor<T, S, &'a mut [T]>;

/// A static-shape tensor whose elements are on the heap: for shapes too large for the stack.
#[cfg(feature = "alloc")]
pub type HeapTensor<T, S> = Tensor<T, S, Box<[T]>>;

/// A tensor of `T` with shape `S`, owned in the storage family `F` (stack or heap): the type of
/// an operation's result.
pub type OwnedIn<F, T, S> = Tensor<T, S, <F as Family>::Owned<T, S>>;

impl<T, S: Shape, D> Tensor<T, S, D> {
    #[inline(always)]
    pub(crate) fn from_parts(data: D, shape: S) -> Self {
        Tensor {
            data,
            shape,
            marker: PhantomData,
        }
    }
}

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
        Tensor::from_parts(D::build(f), S::default())
    }

    /// A tensor with every element equal to `value`.
    #[inline]
    pub fn splat(value: T) -> Self
    where
        T: Clone,
    {
        Self::from_fn(|_| value.clone())
    }

    /// A tensor of zeros.
    #[inline]
    pub fn zeros() -> Self
    where
        T: num_traits::Zero,
    {
        Self::from_fn(|_| T::zero())
    }
}

impl<T, S: StaticShape> Tensor<T, S> {
    /// The nested array holding the elements (`[[T; 3]; 2]` for `Shape![2, 3]`).
    #[inline]
    pub fn into_inner(self) -> S::Buffer<T> {
        self.data.0
    }
}

impl<'a, T, S: StaticShape> TensorView<'a, T, S> {
    /// Views `data` as a tensor of shape `S`; `data.len()` must be the element count.
    pub fn new(data: &'a [T]) -> Result<Self, LengthMismatch> {
        check_len::<S>(data.len())?;
        Ok(Tensor::from_parts(data, S::default()))
    }
}

impl<'a, T, S: StaticShape> TensorViewMut<'a, T, S> {
    /// Views `data` as a writable tensor of shape `S`; `data.len()` must be the element count.
    pub fn new(data: &'a mut [T]) -> Result<Self, LengthMismatch> {
        check_len::<S>(data.len())?;
        Ok(Tensor::from_parts(data, S::default()))
    }
}

#[cfg(feature = "alloc")]
impl<T, S: StaticShape> HeapTensor<T, S> {
    /// Takes ownership of `data`; its length must be the element count.
    pub fn from_vec(data: Vec<T>) -> Result<Self, LengthMismatch> {
        check_len::<S>(data.len())?;
        Ok(Tensor::from_parts(data.into_boxed_slice(), S::default()))
    }
}

fn check_len<S: StaticShape>(len: usize) -> Result<(), LengthMismatch> {
    if len == S::LEN {
        Ok(())
    } else {
        Err(LengthMismatch::new(S::DIMS, S::LEN, len))
    }
}

/// Access, for every kind of storage.
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
        self.data.as_slice().len()
    }

    /// True when some dim is 0.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements in row-major order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        self.data.as_slice()
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

    /// Applies `f` to each element. The result is stored like `self` (stack or heap).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from([1, 2, 3]).map(|x| x * 10);
    /// assert_eq!(t.as_slice(), &[10, 20, 30]);
    /// ```
    #[inline]
    pub fn map<V>(&self, mut f: impl FnMut(T) -> V) -> OwnedIn<D::Family, V, S>
    where
        S: StaticShape,
        T: Clone,
    {
        let data =
            kernel::zip::<D::Family, T, T, V, S, S, S>(self.as_slice(), self.as_slice(), |x, _| {
                f(x.clone())
            });
        Tensor::from_parts(data, self.shape)
    }

    /// Copies the elements into an inline (stack) tensor.
    #[inline]
    pub fn to_stack(&self) -> Tensor<T, S>
    where
        S: StaticShape,
        T: Clone,
    {
        let data =
            kernel::zip::<Stack, T, T, T, S, S, S>(self.as_slice(), self.as_slice(), |x, _| {
                x.clone()
            });
        Tensor::from_parts(data, self.shape)
    }

    /// Copies the elements into a heap tensor.
    #[cfg(feature = "alloc")]
    pub fn to_heap(&self) -> HeapTensor<T, S>
    where
        T: Clone,
    {
        Tensor::from_parts(self.as_slice().into(), self.shape)
    }
}

/// Mutable access.
impl<T, S: Shape, D: DataMut<T>> Tensor<T, S, D> {
    /// The elements in row-major order, mutably.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data.as_mut_slice()
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

/// Indexing with one coordinate per dim; the arity is checked at compile time
/// ([`TensorIndex`]). Panics when a coordinate is out of range; use [`Tensor::get`] for an
/// `Option`.
impl<T, S: Shape, D: Data<T>, I: TensorIndex<S>> Index<I> for Tensor<T, S, D> {
    type Output = T;
    #[inline]
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

impl<T: Clone, S: Shape, D: Clone> Clone for Tensor<T, S, D> {
    fn clone(&self) -> Self {
        Tensor::from_parts(self.data.clone(), self.shape)
    }
}

impl<T: Copy, S: Shape, D: Copy> Copy for Tensor<T, S, D> {}

/// Tensors of the same shape compare element by element, whatever their storage.
impl<T, U, S: Shape, D: Data<T>, E: Data<U>> PartialEq<Tensor<U, S, E>> for Tensor<T, S, D>
where
    T: PartialEq<U>,
{
    fn eq(&self, other: &Tensor<U, S, E>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq, S: Shape, D: Data<T>> Eq for Tensor<T, S, D> {}

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
    type Error = LengthMismatch;
    fn try_from(data: &[T]) -> Result<Self, LengthMismatch> {
        Ok(TensorView::<T, S>::new(data)?.to_stack())
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
                Tensor::from_parts(Owned(array), Default::default())
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

impl<T> Tensor<T, ()> {
    /// A rank-0 tensor holding `value`.
    #[inline]
    pub fn scalar(value: T) -> Self {
        Tensor::from_parts(Owned(value), ())
    }
}
