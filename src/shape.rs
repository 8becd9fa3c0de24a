//! Shapes: tuples of dims, written with [`Shape!`](crate::Shape!).
//!
//! `Shape![2, 1, 5]` is the type `(Const<2>, Const<1>, Const<5>)`; `Shape![]` is `()`, rank 0.
//! Ranks 0 to [`MAX_STATIC_RANK`] are supported. A fully static shape stores its elements in a
//! nested array (`[[[T; 5]; 1]; 2]`), so no typenum arithmetic is needed for storage and any dim
//! size works there.

use core::fmt::Debug;

use crate::dim::{Const, Dim, DimKind, StaticKind};
use crate::rules;

/// The largest rank of a static shape.
pub const MAX_STATIC_RANK: usize = 8;

/// A tensor shape: its rank, its dims and its element count.
///
/// ```
/// use shaped::{Shape, Shape as _};
/// let s = <Shape![2, 3, 4]>::default();
/// assert_eq!(s.dims(), [2, 3, 4]);
/// assert_eq!(<Shape![2, 3, 4] as shaped::Shape>::RANK, 3);
/// assert_eq!(shaped::Shape::element_count(&s), 24);
/// ```
pub trait Shape: Copy + Debug + 'static {
    /// The number of dims.
    const RANK: usize;
    /// A multi-index into this shape: `[usize; RANK]`.
    type Index: Copy + Debug + PartialEq + AsRef<[usize]> + AsMut<[usize]>;
    /// Owned storage for the elements of a tensor of this shape.
    type Buffer<T>;
    /// [`StaticKind`] when every dim is static, [`DynKind`](crate::dim::DynKind) otherwise.
    type Kind: DimKind;

    /// The dims, outermost first.
    fn dims(&self) -> Self::Index;

    /// The number of elements (the product of the dims; 1 for rank 0), saturating at
    /// `usize::MAX` for a hand-built shape whose product overflows.
    fn element_count(&self) -> usize;

    /// The shape with these runtime dims, if the rank matches and every static dim equals the
    /// corresponding value.
    fn from_dims(dims: &[usize]) -> Option<Self>;

    /// Each dim's static size, `None` for a [`Dyn`](crate::Dyn) dim.
    const STATIC_DIMS: &'static [Option<usize>];

    /// `dims` with each static dim of this shape type put in its place: what `from_dims`
    /// would have accepted (for error messages).
    fn expected_dims(dims: Self::Index) -> Self::Index;

    /// The elements of an owned buffer, in row-major order.
    fn buffer_as_slice<T>(buffer: &Self::Buffer<T>) -> &[T];

    /// The elements of an owned buffer, in row-major order, mutably.
    fn buffer_as_mut_slice<T>(buffer: &mut Self::Buffer<T>) -> &mut [T];

    /// An owned buffer holding `elements`, which must number exactly the element count of
    /// `self` (else `None`).
    #[cfg(feature = "alloc")]
    fn buffer_from_vec<T>(&self, elements: alloc::vec::Vec<T>) -> Option<Self::Buffer<T>>;
}

/// A shape whose every dim is known at compile time.
pub trait StaticShape: Shape + Default {
    /// The dims, as a constant.
    const DIMS: &'static [usize];
    /// The element count. A shape whose count overflows `usize` fails to compile.
    const LEN: usize;

    /// Builds a buffer by calling `f` with each multi-index in row-major order.
    fn buffer_from_fn<T>(f: impl FnMut(Self::Index) -> T) -> Self::Buffer<T>;

    /// Calls `f` with each multi-index in row-major order.
    fn for_each_index(f: impl FnMut(Self::Index));
}

/// A multi-index that fits shape `S`: `[usize; RANK]`. Checks the arity of `tensor[[i, j]]`
/// at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot index a tensor of shape `{S}`: it needs one coordinate per dim",
    label = "wrong number of coordinates for this shape"
)]
pub trait TensorIndex<S: Shape>: AsRef<[usize]> {}

/// Row-major offset of `index` in `dims`, or `None` when a coordinate is out of range.
#[inline]
pub(crate) fn row_major_offset(dims: &[usize], index: &[usize]) -> Option<usize> {
    debug_assert_eq!(dims.len(), index.len());
    let mut offset = 0usize;
    for (&d, &i) in dims.iter().zip(index) {
        if i >= d {
            return None;
        }
        // Cannot overflow: offset < product of the dims so far, which fits (the buffer exists).
        offset = offset * d + i;
    }
    Some(offset)
}

macro_rules! impl_static_shape {
    ($rank:literal; $nest:ty; $($n:ident $i:ident $d:ident),*) => {
        /// A shape of this rank over any dims: static dims are stored in nested arrays, a shape
        /// with a [`Dyn`](crate::Dyn) dim in a `Vec`.
        impl<$($d: Dim),*> Shape for ($($d,)*) {
            const RANK: usize = $rank;
            type Index = [usize; $rank];
            type Buffer<T> = <kind!($($d)*) as DimKind>::Buffer<nested!(T; $($d)*), T>;
            type Kind = kind!($($d)*);
            const STATIC_DIMS: &'static [Option<usize>] = &[$(<$d as Dim>::STATIC_SIZE),*];

            #[inline(always)]
            #[allow(non_snake_case)]
            fn dims(&self) -> [usize; $rank] {
                let ($($d,)*) = *self;
                [$($d.size()),*]
            }

            #[inline(always)]
            fn element_count(&self) -> usize {
                // Saturating: a shape built by hand from `Dyn` dims may overflow; tensors check
                // their element counts when they are made.
                self.dims().iter().fold(1usize, |n, &d| n.saturating_mul(d))
            }

            #[allow(unused_mut, unused_variables, unused_assignments)]
            fn expected_dims(mut dims: [usize; $rank]) -> [usize; $rank] {
                let mut k = 0;
                $(
                    if let Some(n) = <$d as Dim>::STATIC_SIZE {
                        dims[k] = n;
                    }
                    k += 1;
                )*
                dims
            }

            #[inline(always)]
            fn from_dims(dims: &[usize]) -> Option<Self> {
                let [$($i),*] = <[usize; $rank]>::try_from(dims).ok()?;
                Some(($($d::from_size($i)?,)*))
            }

            #[inline(always)]
            fn buffer_as_slice<T>(buffer: &Self::Buffer<T>) -> &[T] {
                <kind!($($d)*) as DimKind>::as_slice(buffer, |nested| {
                    impl_static_shape!(@flat nested, flat, flat_slice; $($d)*)
                })
            }

            #[inline(always)]
            fn buffer_as_mut_slice<T>(buffer: &mut Self::Buffer<T>) -> &mut [T] {
                <kind!($($d)*) as DimKind>::as_mut_slice(buffer, |nested| {
                    impl_static_shape!(@flat nested, flat_mut, flat_slice_mut; $($d)*)
                })
            }

            #[cfg(feature = "alloc")]
            fn buffer_from_vec<T>(&self, elements: alloc::vec::Vec<T>) -> Option<Self::Buffer<T>> {
                if elements.len() != self.element_count() {
                    return None;
                }
                Some(<kind!($($d)*) as DimKind>::from_vec(elements, |v| {
                    let mut it = v.into_iter();
                    // Cannot run short: the length was checked above.
                    let mut next = || it.next().unwrap_or_else(|| unreachable!());
                    impl_static_shape!(@nest next; $($d)*)
                }))
            }
        }

        impl<$(const $n: usize),*> StaticShape for ($(Const<$n>,)*) {
            const DIMS: &'static [usize] = &[$($n),*];
            const LEN: usize = match rules::checked_element_count(Self::DIMS) {
                Some(len) => len,
                None => panic!("the element count of this shape overflows usize"),
            };

            #[inline(always)]
            #[allow(unused_mut)]
            fn buffer_from_fn<T>(mut f: impl FnMut([usize; $rank]) -> T) -> $nest {
                impl_static_shape!(@build f; []; $($i)*)
            }

            #[inline(always)]
            #[allow(unused_mut)]
            fn for_each_index(mut f: impl FnMut([usize; $rank])) {
                impl_static_shape!(@loops f; []; $($n $i)*)
            }
        }

        impl<$($d: Dim),*> TensorIndex<($($d,)*)> for [usize; $rank] {}
    };

    // Flattening: the outer level, then one slice flatten per further dim.
    (@flat $b:ident, flat, flat_slice;) => { core::slice::from_ref($b) };
    (@flat $b:ident, flat_mut, flat_slice_mut;) => { core::slice::from_mut($b) };
    (@flat $b:ident, $one:ident, $slice:ident; $first:ident $($rest:ident)*) => {
        impl_static_shape!(@flat_more $slice; $first::$one($b); $($rest)*)
    };
    (@flat_more $slice:ident; $e:expr;) => { $e };
    (@flat_more $slice:ident; $e:expr; $d:ident $($rest:ident)*) => {
        impl_static_shape!(@flat_more $slice; $d::$slice($e); $($rest)*)
    };

    // A nested array built level by level from `Dim::nest_from_fn`.
    (@nest $next:ident;) => { $next() };
    (@nest $next:ident; $d:ident $($rest:ident)*) => {
        $d::nest_from_fn(|_| impl_static_shape!(@nest $next; $($rest)*))
    };

    // Nested `array_from_fn`, one per dim, so the loop structure is that of a hand-written
    // loop nest.
    (@build $f:ident; [$($done:ident)*];) => { $f([$($done),*]) };
    (@build $f:ident; [$($done:ident)*]; $i:ident $($rest:ident)*) => {
        array_from_fn(|$i| impl_static_shape!(@build $f; [$($done)* $i]; $($rest)*))
    };

    (@loops $f:ident; [$($done:ident)*];) => { $f([$($done),*]) };
    (@loops $f:ident; [$($done:ident)*]; $n:ident $i:ident $($rest:ident)*) => {
        for $i in 0..$n {
            impl_static_shape!(@loops $f; [$($done)* $i]; $($rest)*)
        }
    };
}

/// Builds `[T; N]` by calling `f(0)`, `f(1)`, ... in order: `core::array::from_fn`, but always
/// inlined.
///
/// Why not `core::array::from_fn`: nested three deep, LLVM stops inlining its internal closure
/// wrapper in multi-codegen-unit builds, and a static 2x3x4 add then runs 3-4x slower than a
/// hand-written loop (`benches/README.md`). Here every level is `inline(always)`.
#[inline(always)]
pub(crate) fn array_from_fn<T, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    use core::mem::MaybeUninit;

    /// Drops the elements written so far if `f` panics, so nothing leaks and nothing is
    /// dropped twice.
    struct Guard<'a, T, const N: usize> {
        array: &'a mut MaybeUninit<[T; N]>,
        initialized: usize,
    }

    impl<T, const N: usize> Drop for Guard<'_, T, N> {
        fn drop(&mut self) {
            let first = self.array.as_mut_ptr().cast::<T>();
            // SAFETY: exactly the first `initialized` elements were written, each once, and
            // nothing else refers to them; dropping them in place leaves the storage unused.
            unsafe {
                core::ptr::drop_in_place(core::ptr::slice_from_raw_parts_mut(
                    first,
                    self.initialized,
                ));
            }
        }
    }

    let mut array = MaybeUninit::<[T; N]>::uninit();
    let mut guard = Guard {
        array: &mut array,
        initialized: 0,
    };
    while guard.initialized < N {
        let value = f(guard.initialized);
        // SAFETY: `initialized < N`, so the pointer is inside the array, whose layout is N
        // consecutive `T`s; the slot has not been written yet, so nothing is overwritten.
        unsafe {
            guard
                .array
                .as_mut_ptr()
                .cast::<T>()
                .add(guard.initialized)
                .write(value);
        }
        guard.initialized += 1;
    }
    core::mem::forget(guard);
    // SAFETY: the loop wrote all N elements.
    unsafe { array.assume_init() }
}

/// The kind of a shape: static only if every dim is.
macro_rules! kind {
    () => { StaticKind };
    ($d:ident $($rest:ident)*) => { <<$d as Dim>::Kind as DimKind>::And<kind!($($rest)*)> };
}

/// The nested-array type of a static shape: `[[T; N1]; N0]` for `(Const<N0>, Const<N1>)`.
macro_rules! nested {
    ($t:ty;) => { $t };
    ($t:ty; $d:ident $($rest:ident)*) => { <$d as Dim>::Nest<nested!($t; $($rest)*)> };
}

impl_static_shape!(0; T;);
impl_static_shape!(1; [T; N0]; N0 i0 D0);
impl_static_shape!(2; [[T; N1]; N0]; N0 i0 D0, N1 i1 D1);
impl_static_shape!(3; [[[T; N2]; N1]; N0]; N0 i0 D0, N1 i1 D1, N2 i2 D2);
impl_static_shape!(4; [[[[T; N3]; N2]; N1]; N0]; N0 i0 D0, N1 i1 D1, N2 i2 D2, N3 i3 D3);
impl_static_shape!(5; [[[[[T; N4]; N3]; N2]; N1]; N0];
    N0 i0 D0, N1 i1 D1, N2 i2 D2, N3 i3 D3, N4 i4 D4);
impl_static_shape!(6; [[[[[[T; N5]; N4]; N3]; N2]; N1]; N0];
    N0 i0 D0, N1 i1 D1, N2 i2 D2, N3 i3 D3, N4 i4 D4, N5 i5 D5);
impl_static_shape!(7; [[[[[[[T; N6]; N5]; N4]; N3]; N2]; N1]; N0];
    N0 i0 D0, N1 i1 D1, N2 i2 D2, N3 i3 D3, N4 i4 D4, N5 i5 D5, N6 i6 D6);
impl_static_shape!(8; [[[[[[[[T; N7]; N6]; N5]; N4]; N3]; N2]; N1]; N0];
    N0 i0 D0, N1 i1 D1, N2 i2 D2, N3 i3 D3, N4 i4 D4, N5 i5 D5, N6 i6 D6, N7 i7 D7);

/// The type of a shape, written as its dims.
///
/// Each dim is a number, `Const<N>`, a `{ const expression }`, or `_` (or `Dyn`) for a dim
/// known only at run time:
///
/// ```
/// use shaped::{Const, Shape};
/// const W: usize = 5;
/// type A = Shape![2, 1, 5];
/// type B = Shape![2, Const<1>, { W }];
/// let _same: A = B::default();
/// let _scalar: Shape![] = ();
/// let _mixed: Shape![_, 3, 4] = (shaped::Dyn(7), Const, Const);
/// ```
#[macro_export]
macro_rules! Shape {
    (@munch [$($out:ty,)*];) => { ($($out,)*) };
    (@munch [$($out:ty,)*]; $n:literal $(, $($rest:tt)*)?) => {
        $crate::Shape!(@munch [$($out,)* $crate::Const<$n>,]; $($($rest)*)?)
    };
    (@munch [$($out:ty,)*]; _ $(, $($rest:tt)*)?) => {
        $crate::Shape!(@munch [$($out,)* $crate::Dyn,]; $($($rest)*)?)
    };
    (@munch [$($out:ty,)*]; { $e:expr } $(, $($rest:tt)*)?) => {
        $crate::Shape!(@munch [$($out,)* $crate::Const<{ $e }>,]; $($($rest)*)?)
    };
    (@munch [$($out:ty,)*]; $t:ty $(, $($rest:tt)*)?) => {
        $crate::Shape!(@munch [$($out,)* $t,]; $($($rest)*)?)
    };
    () => { () };
    ($($dims:tt)+) => { $crate::Shape!(@munch []; $($dims)+) };
}

/// Every dim type is a [`Dim`]: a compile-time reminder that shapes are tuples of dims.
const _: fn() = || {
    fn is_dim<D: Dim>() {}
    is_dim::<Const<3>>();
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_dims_and_len_of_each_rank() {
        assert_eq!(<Shape![]>::DIMS, &[] as &[usize]);
        assert_eq!(<Shape![]>::LEN, 1);
        assert_eq!(<Shape![0, 3]>::LEN, 0);
        assert_eq!(<Shape![2, 3, 4]>::default().dims(), [2, 3, 4]);
        assert_eq!(<Shape![1, 2, 1, 2, 1, 2, 1, 2] as Shape>::RANK, 8);
        assert_eq!(<Shape![1, 2, 1, 2, 1, 2, 1, 2]>::LEN, 16);
    }

    #[test]
    fn for_each_index_is_row_major() {
        let mut seen = [[0usize; 2]; 6];
        let mut k = 0;
        <Shape![3, 2]>::for_each_index(|idx| {
            seen[k] = idx;
            k += 1;
        });
        assert_eq!(seen, [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]]);
    }

    #[test]
    fn array_from_fn_calls_in_order() {
        let a: [usize; 4] = array_from_fn(|i| i * 10);
        assert_eq!(a, [0, 10, 20, 30]);
        let empty: [u8; 0] = array_from_fn(|_| unreachable!());
        assert_eq!(empty, []);
    }

    /// A panic part-way drops exactly the elements built so far (checked for leaks and double
    /// drops under Miri).
    #[test]
    fn array_from_fn_drops_the_built_prefix_on_panic() {
        extern crate std;
        use core::sync::atomic::{AtomicUsize, Ordering};
        use std::boxed::Box;
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        struct Counted(#[allow(dead_code)] Box<usize>);
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPS.fetch_add(1, Ordering::SeqCst);
            }
        }
        let result = std::panic::catch_unwind(|| {
            let _: [Counted; 5] = array_from_fn(|i| {
                assert!(i < 3, "stop at 3");
                Counted(Box::new(i))
            });
        });
        assert!(result.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), 3);
        let built: [Counted; 2] = array_from_fn(|i| Counted(Box::new(i)));
        drop(built);
        assert_eq!(DROPS.load(Ordering::SeqCst), 5);
    }

    #[test]
    fn row_major_offset_checks_each_coordinate() {
        assert_eq!(row_major_offset(&[2, 3, 4], &[1, 2, 3]), Some(23));
        assert_eq!(row_major_offset(&[2, 3, 4], &[1, 3, 0]), None);
        assert_eq!(row_major_offset(&[], &[]), Some(0));
        assert_eq!(row_major_offset(&[0], &[0]), None);
    }
}
