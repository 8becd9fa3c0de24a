//! Where a tensor's elements live, and where an operation's result goes.
//!
//! * [`Owned`]: the elements inline in a nested array (`[[T; 4]; 4]`), no heap.
//! * `&[T]` / `&mut [T]`: a borrowed view; the length is checked once, when the view is made.
//! * `Box<[T]>` (feature `alloc`): heap storage for static shapes too large for the stack.
//!
//! A result is stored like its operands: on the stack ([`Stack`]) unless one operand is on the
//! heap (`Heap`, feature `alloc`). Views count as [`Stack`]; write a large result into a caller's buffer with
//! the `*_into` methods instead.

use core::fmt;

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, vec::Vec};

use super::private::SealedStorage;
use super::shape::{Shape, StaticShape};

/// Read access to elements in row-major order. Sealed: the kinds of storage are this crate's.
pub trait Data<T>: SealedStorage {
    /// Where results computed from this data are stored.
    type Family: Family;
    /// The elements, row-major.
    fn as_slice(&self) -> &[T];
}

/// Write access to elements in row-major order.
pub trait DataMut<T>: Data<T> {
    /// The elements, row-major, mutably.
    fn as_mut_slice(&mut self) -> &mut [T];
}

/// Elements owned inline, in the nested array that the shape `S` prescribes.
pub struct Owned<T, S: Shape>(pub(crate) S::Buffer<T>);

impl<T, S: Shape> SealedStorage for Owned<T, S> {}
impl<T> SealedStorage for &[T] {}
impl<T> SealedStorage for &mut [T] {}
#[cfg(feature = "alloc")]
impl<T> SealedStorage for Box<[T]> {}
impl SealedStorage for Stack {}
#[cfg(feature = "alloc")]
impl SealedStorage for Heap {}

impl<T, S: Shape> Data<T> for Owned<T, S> {
    type Family = Stack;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        S::buffer_as_slice(&self.0)
    }
}

impl<T, S: Shape> DataMut<T> for Owned<T, S> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        S::buffer_as_mut_slice(&mut self.0)
    }
}

impl<T, S: Shape> Clone for Owned<T, S>
where
    S::Buffer<T>: Clone,
{
    fn clone(&self) -> Self {
        Owned(self.0.clone())
    }
}

impl<T, S: Shape> Copy for Owned<T, S> where S::Buffer<T>: Copy {}

impl<T: fmt::Debug, S: Shape> fmt::Debug for Owned<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T> Data<T> for &[T] {
    type Family = Stack;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T> Data<T> for &mut [T] {
    type Family = Stack;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T> DataMut<T> for &mut [T] {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<T> Data<T> for Box<[T]> {
    type Family = Heap;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<T> DataMut<T> for Box<[T]> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

/// Owned storage that can be built element by element for shape `S`: [`Owned`] and, with
/// `alloc`, `Box<[T]>`. The tensor constructors are generic over it, so a type annotation
/// picks where the elements go.
pub trait Build<T, S: StaticShape>: DataMut<T> + Sized {
    /// Builds storage by calling `f` for each multi-index of `S` in row-major order.
    fn build(f: impl FnMut(S::Index) -> T) -> Self;
}

impl<T, S: StaticShape> Build<T, S> for Owned<T, S> {
    #[inline(always)]
    fn build(f: impl FnMut(S::Index) -> T) -> Self {
        Owned(S::buffer_from_fn(f))
    }
}

/// Written straight to the heap, never through a stack array.
#[cfg(feature = "alloc")]
impl<T, S: StaticShape> Build<T, S> for Box<[T]> {
    #[inline]
    fn build(mut f: impl FnMut(S::Index) -> T) -> Self {
        let mut v = Vec::with_capacity(S::LEN);
        S::for_each_index(|idx| v.push(f(idx)));
        v.into_boxed_slice()
    }
}

/// A kind of owned storage that results can be built in.
pub trait Family: SealedStorage {
    /// Owned storage of this kind for shape `S`.
    type Owned<T, S: StaticShape>: Build<T, S>;

    /// True for heap storage, which large results are computed into directly.
    const HEAP: bool;

    /// Storage of this kind holding `elements` (exactly `S::LEN` of them), when this kind can
    /// take a `Vec` without copying: the heap can, the stack cannot (`None`).
    #[cfg(feature = "alloc")]
    fn from_vec<T, S: StaticShape>(elements: Vec<T>) -> Option<Self::Owned<T, S>>;
}

/// Results on the stack, in [`Owned`].
#[derive(Debug)]
pub enum Stack {}

impl Family for Stack {
    type Owned<T, S: StaticShape> = Owned<T, S>;
    const HEAP: bool = false;

    #[cfg(feature = "alloc")]
    fn from_vec<T, S: StaticShape>(_elements: Vec<T>) -> Option<Owned<T, S>> {
        None
    }
}

/// Results on the heap, in `Box<[T]>`.
#[cfg(feature = "alloc")]
#[derive(Debug)]
pub enum Heap {}

#[cfg(feature = "alloc")]
impl Family for Heap {
    type Owned<T, S: StaticShape> = Box<[T]>;
    const HEAP: bool = true;

    fn from_vec<T, S: StaticShape>(elements: Vec<T>) -> Option<Box<[T]>> {
        (elements.len() == S::LEN).then(|| elements.into_boxed_slice())
    }
}

/// The family of a result computed from two operands: the heap if either operand is there.
pub trait Join<Other: Family>: Family + SealedStorage {
    /// The family of the result.
    type Out: Family;
}
impl Join<Stack> for Stack {
    type Out = Stack;
}
#[cfg(feature = "alloc")]
impl Join<Heap> for Stack {
    type Out = Heap;
}
#[cfg(feature = "alloc")]
impl Join<Stack> for Heap {
    type Out = Heap;
}
#[cfg(feature = "alloc")]
impl Join<Heap> for Heap {
    type Out = Heap;
}
