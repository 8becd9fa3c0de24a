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
///
/// At most [`MAX_INLINE_BYTES`]: a larger static tensor does not compile as `Owned` (the
/// error names its size and the limit), since it would overflow a thread's stack.
pub struct Owned<T, S: Shape>(S::Buffer<T>);

/// The most bytes a tensor may hold inline ([`Owned`], the default storage of
/// [`Tensor`](crate::Tensor)): 64 KiB, a 128 x 128 `f32` matrix. A debug build keeps every
/// temporary of a function in its own stack slot, and copies a result once or twice on its
/// way out: a chain of a dozen operations on 128 KiB tensors overflowed the 2 MiB stack that
/// Rust gives each spawned thread (test threads included), the same chain on 64 KiB ones did
/// not. A static shape whose elements need more is a compile error naming its size, this
/// limit and the ways out: `HeapTensor` (feature `alloc`), with the same shape and the same
/// operations, or a [`TensorView`](crate::TensorView) over a buffer of your own with the
/// `*_into` methods. The error points at the caller's line: each public function that makes
/// an inline tensor (constructors, operators, elementwise and unary methods, reductions,
/// products, reorders, casts, selections, the `try_*` forms) checks its result's size in its
/// own body, and the compiler names the call that instantiated it.
///
/// Only `cargo build` (and `cargo test`, `cargo run`) reports it, not `cargo check`: the
/// check is a constant of each concrete element type and shape, and stable Rust evaluates
/// such constants of generic code when it instantiates that code for the concrete types,
/// a step that `cargo check` does not take. Nor is the storage chosen by size: that would
/// need specialization or types computed from constants, neither of which stable Rust has.
///
/// ```compile_fail
/// use shaped::{Shape, Tensor};
/// // error: this tensor's elements need 3145728 bytes, more than the 65536 ... use HeapTensor ...
/// let x = Tensor::<f32, Shape![2, 512, 768]>::zeros();
/// ```
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use shaped::{HeapTensor, Shape};
/// let x = HeapTensor::<f32, Shape![2, 512, 768]>::zeros();
/// assert_eq!((&x + &x)[[1, 511, 767]], 0.0);
/// # }
/// ```
pub const MAX_INLINE_BYTES: usize = 64 * 1024;

/// The inline-size check of a value of type `Self`: a compile error, when the crate using it
/// is built, if `Self` needs more than [`MAX_INLINE_BYTES`]. Every type has it. A public
/// function that returns an inline tensor evaluates `<Result as InlineSize>::FITS` in its own
/// body, so that the compiler reports the error while instantiating that function: at the
/// caller's line, not inside this crate.
pub(crate) trait InlineSize {
    /// `()`, or a compile error naming the size, the limit and `HeapTensor`.
    const FITS: ();
}

impl<X> InlineSize for X {
    const FITS: () = {
        let bytes = core::mem::size_of::<X>();
        if bytes > MAX_INLINE_BYTES {
            let (text, len) = &too_large_message(bytes);
            match core::str::from_utf8(text.split_at(*len).0) {
                Ok(message) => panic!("{}", message),
                Err(_) => panic!("a tensor too large to be stored inline: use HeapTensor"),
            }
        }
    };
}

/// Checks, in the body of the public function it is written in, that a value of the type
/// given fits inline ([`InlineSize`]): see there for why it must be that function's body.
macro_rules! fits_inline {
    ($t:ty) => {
        let () = <$t as $crate::typed::storage::InlineSize>::FITS;
    };
}
pub(crate) use fits_inline;

impl<T, S: Shape> Owned<T, S> {
    /// Inline storage holding `buffer`. Its size is checked against [`MAX_INLINE_BYTES`] by
    /// the tensor made of it (`Tensor::from_parts`, the one constructor of every tensor), not
    /// here: that is the same constant as the public functions' check of their result, so a
    /// too-large shape is one error, not two, and storage need not know the tensor type.
    #[inline(always)]
    pub(crate) fn new(buffer: S::Buffer<T>) -> Self {
        Owned(buffer)
    }

    /// The nested array.
    #[inline(always)]
    pub(crate) fn into_buffer(self) -> S::Buffer<T> {
        self.0
    }
}

/// The compile error of an inline tensor of `bytes` bytes, with the numbers written out (a
/// constant's panic message cannot be formatted): the text and its length.
const fn too_large_message(bytes: usize) -> ([u8; 320], usize) {
    const fn push(out: &mut [u8; 320], mut at: usize, text: &[u8]) -> usize {
        let mut i = 0;
        while i < text.len() {
            out[at] = text[i];
            at += 1;
            i += 1;
        }
        at
    }
    const fn push_number(out: &mut [u8; 320], at: usize, mut n: usize) -> usize {
        // The digits from the last, written from the end of a buffer of the most a `usize`
        // has.
        let mut digits = [0u8; 20];
        let mut first = digits.len();
        loop {
            first -= 1;
            digits[first] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        push(out, at, digits.split_at(first).1)
    }
    let mut out = [0u8; 320];
    let mut at = push(&mut out, 0, b"this tensor's elements need ");
    at = push_number(&mut out, at, bytes);
    at = push(&mut out, at, b" bytes, more than the ");
    at = push_number(&mut out, at, MAX_INLINE_BYTES);
    at = push(
        &mut out,
        at,
        b" that a tensor may hold inline (shaped::typed::storage::MAX_INLINE_BYTES), where it \
          would overflow the stack: use HeapTensor (feature `alloc`) for this shape, or a \
          TensorView over a buffer of your own",
    );
    (out, at)
}

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
        Owned(self.0.clone()) // a copy of a tensor that was checked when made
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

    /// Builds storage whose `S::LEN` elements `fill` writes, given as uninitialised slots in
    /// row-major order.
    ///
    /// # Safety
    /// `fill` must write every slot whenever it returns (it may panic instead).
    #[doc(hidden)]
    unsafe fn build_written(fill: impl FnOnce(&mut [core::mem::MaybeUninit<T>])) -> Self;
}

impl<T, S: StaticShape> Build<T, S> for Owned<T, S> {
    #[inline(always)]
    fn build(f: impl FnMut(S::Index) -> T) -> Self {
        Owned::new(S::buffer_from_fn(f))
    }

    #[inline(always)]
    unsafe fn build_written(fill: impl FnOnce(&mut [core::mem::MaybeUninit<T>])) -> Self {
        // SAFETY: passed on from this function's caller.
        Owned::new(unsafe { S::buffer_written(fill) })
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

    #[inline]
    unsafe fn build_written(fill: impl FnOnce(&mut [core::mem::MaybeUninit<T>])) -> Self {
        let mut v = Vec::with_capacity(S::LEN);
        fill(&mut v.spare_capacity_mut()[..S::LEN]);
        // SAFETY: `fill` wrote all `S::LEN` slots (this function's contract); the capacity
        // is at least `S::LEN`.
        unsafe { v.set_len(S::LEN) };
        v.into_boxed_slice()
    }
}

/// A kind of owned storage that results can be built in.
pub trait Family: SealedStorage {
    /// Owned storage of this kind for shape `S`.
    type Owned<T, S: StaticShape>: Build<T, S> + Data<T, Family = Self>;

    /// Owned storage of this kind for a shape that keeps a `Dyn` dim: on the heap whatever
    /// the family (its size is known at run time), the type saying where the inputs were
    /// ([`Owned`]'s `Vec` for the stack, `Box<[T]>` for the heap), so that a chain of
    /// operations keeps one storage family and a generic caller can name its results.
    #[cfg(feature = "alloc")]
    type Grown<T, S: Shape>: DataMut<T, Family = Self>;

    /// The family of a result computed from operands stored in `Self` and `Other`: the heap
    /// if either is there, else the stack. Every pair has one, so no bound names it.
    type Join<Other: Family>: Family;

    /// True for heap storage, which large results are computed into directly.
    const HEAP: bool;

    /// Storage of this kind holding `elements` (exactly `S::LEN` of them), when this kind can
    /// take a `Vec` without copying: the heap can, the stack cannot (`None`).
    #[cfg(feature = "alloc")]
    fn from_vec<T, S: StaticShape>(elements: Vec<T>) -> Option<Self::Owned<T, S>>;

    /// [`Grown`](Self::Grown) storage of `shape` holding `elements`, or `None` if their count
    /// is not the shape's.
    #[cfg(feature = "alloc")]
    fn grown_from_vec<T, S: Shape>(shape: &S, elements: Vec<T>) -> Option<Self::Grown<T, S>>;
}

/// Results on the stack, in [`Owned`].
#[derive(Debug)]
pub enum Stack {}

impl Family for Stack {
    type Owned<T, S: StaticShape> = Owned<T, S>;
    const HEAP: bool = false;
    type Join<Other: Family> = Other;

    #[cfg(feature = "alloc")]
    type Grown<T, S: Shape> = Owned<T, S>;

    #[cfg(feature = "alloc")]
    fn from_vec<T, S: StaticShape>(_elements: Vec<T>) -> Option<Owned<T, S>> {
        None
    }

    #[cfg(feature = "alloc")]
    fn grown_from_vec<T, S: Shape>(shape: &S, elements: Vec<T>) -> Option<Owned<T, S>> {
        shape.buffer_from_vec(elements).map(Owned::new)
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
    type Join<Other: Family> = Heap;

    type Grown<T, S: Shape> = Box<[T]>;

    fn from_vec<T, S: StaticShape>(elements: Vec<T>) -> Option<Box<[T]>> {
        (elements.len() == S::LEN).then(|| elements.into_boxed_slice())
    }

    fn grown_from_vec<T, S: Shape>(shape: &S, elements: Vec<T>) -> Option<Box<[T]>> {
        (elements.len() == shape.element_count()).then(|| elements.into_boxed_slice())
    }
}
