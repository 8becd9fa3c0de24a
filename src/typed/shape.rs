//! Shapes: tuples of dims, written with [`Shape!`](crate::Shape!).
//!
//! `Shape![2, 1, 5]` is the type `(Const<2>, Const<1>, Const<5>)`; `Shape![]` is `()`, rank 0.
//! Ranks 0 to [`MAX_STATIC_RANK`] are supported. A fully static shape stores its elements in a
//! nested array (`[[[T; 5]; 1]; 2]`), so no typenum arithmetic is needed for storage and any dim
//! size works there.

use core::fmt::Debug;

use super::dim::{Const, Dim, DimKind, StaticKind};
use super::private::SealedShape;
use crate::rules;

/// The largest rank of a static shape.
pub const MAX_STATIC_RANK: usize = 8;

/// A tensor shape: its rank, its dims and its element count. Implemented for tuples of 0 to
/// [`MAX_STATIC_RANK`] dims, written with [`Shape!`](crate::Shape!).
///
/// Sealed: storage and the in-place kernels trust its element count and buffer layout.
///
/// ```
/// use shaped::{Shape, Shape as _};
/// let s = <Shape![2, 3, 4]>::default();
/// assert_eq!(s.dims(), [2, 3, 4]);
/// assert_eq!(<Shape![2, 3, 4] as shaped::Shape>::RANK, 3);
/// assert_eq!(shaped::Shape::element_count(&s), 24);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a shape: shapes are tuples of at most 8 dims (`MAX_STATIC_RANK`)",
    label = "not a tuple of `Const<N>`/`Dyn` dims of rank 0 to 8"
)]
pub trait Shape: SealedShape + Copy + Debug + 'static {
    /// The number of dims.
    const RANK: usize;
    /// A multi-index into this shape: `[usize; RANK]`.
    type Index: Copy + Debug + PartialEq + AsRef<[usize]> + AsMut<[usize]>;
    /// Owned storage for the elements of a tensor of this shape.
    type Buffer<T>;
    /// [`StaticKind`] when every dim is static, [`DynKind`](crate::typed::dim::DynKind) otherwise.
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

    /// The by-value iterator over an owned buffer.
    type IntoIter<T>: Iterator<Item = T>;

    /// The elements of an owned buffer by value, in row-major order.
    fn buffer_into_iter<T>(buffer: Self::Buffer<T>) -> Self::IntoIter<T>;

    /// The elements of an owned buffer, in row-major order.
    fn buffer_as_slice<T>(buffer: &Self::Buffer<T>) -> &[T];

    /// The elements of an owned buffer, in row-major order, mutably.
    fn buffer_as_mut_slice<T>(buffer: &mut Self::Buffer<T>) -> &mut [T];

    /// The default shape value: each static dim, and 0 for each [`Dyn`](crate::Dyn) dim.
    fn default_shape() -> Self;

    /// An owned buffer of default elements for this shape value.
    #[cfg(feature = "alloc")]
    fn buffer_default<T: Default>(&self) -> Self::Buffer<T>;

    /// An owned buffer holding `elements`, which must number exactly the element count of
    /// `self` (else `None`).
    #[cfg(feature = "alloc")]
    fn buffer_from_vec<T>(&self, elements: alloc::vec::Vec<T>) -> Option<Self::Buffer<T>>;
}

/// A shape whose every dim is known at compile time.
///
/// Sealed, like [`Shape`]: the kernels write exactly `LEN` elements at the offsets `DIMS`
/// gives and trust the two to agree.
pub trait StaticShape: Shape<Kind = StaticKind> + Default {
    /// The dims, as a constant.
    const DIMS: &'static [usize];
    /// The element count. A shape whose count overflows `usize` fails to compile.
    const LEN: usize;

    /// Builds a buffer by calling `f` with each multi-index in row-major order.
    fn buffer_from_fn<T>(f: impl FnMut(Self::Index) -> T) -> Self::Buffer<T>;

    /// Builds a buffer whose elements `fill` writes, given them as `LEN` uninitialised slots in
    /// row-major order.
    ///
    /// # Safety
    /// `fill` must write every slot whenever it returns (it may panic instead).
    #[doc(hidden)]
    unsafe fn buffer_written<T>(
        fill: impl FnOnce(&mut [core::mem::MaybeUninit<T>]),
    ) -> Self::Buffer<T>;

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

macro_rules! impl_static_shape {
    ($rank:literal; $nest:ty; $($n:ident $i:ident $d:ident),*) => {
        /// A shape of this rank over any dims: static dims are stored in nested arrays, a shape
        /// with a [`Dyn`](crate::Dyn) dim in a `Vec`.
        impl<$($d: Dim),*> Shape for ($($d,)*) {
            const RANK: usize = $rank;
            type Index = [usize; $rank];
            type Buffer<T> = <kind!($($d)*) as DimKind>::Buffer<nested!(T; $($d)*), T>;
            type Kind = kind!($($d)*);
            type IntoIter<T> = <kind!($($d)*) as DimKind>::IntoIter<into_iter_ty!(T; $($d)*), T>;

            #[inline]
            fn buffer_into_iter<T>(buffer: Self::Buffer<T>) -> Self::IntoIter<T> {
                <kind!($($d)*) as DimKind>::into_iter(buffer, |nested| {
                    into_iter_val!(nested; $($d)*)
                })
            }
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

            #[inline]
            #[allow(clippy::unused_unit)] // rank 0: the shape is `()`
            fn default_shape() -> Self {
                ($($d::default_dim(),)*)
            }

            #[cfg(feature = "alloc")]
            fn buffer_default<T: Default>(&self) -> Self::Buffer<T> {
                <kind!($($d)*) as DimKind>::default_buffer::<nested!(T; $($d)*), T>(self.element_count(), || {
                    let next = || T::default();
                    impl_static_shape!(@nest next; $($d)*)
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
                // The loops push in the body of this function, with no closure between them and
                // the writes: without LTO at opt-level "s" the closure that held them (given to
                // a builder taking one) stayed out of line, the slices `f` indexes reached it as
                // loaded lengths, and `f`'s bounds checks stayed, their panic linking `core::fmt`
                // (3.4 kB of a Cortex-M4 firmware adding two `[4, 4]` tensors).
                let mut nest = core::mem::MaybeUninit::<$nest>::uninit();
                let mut out = crate::util::Push::of::<$nest>(&mut nest, Self::LEN);
                impl_static_shape!(@loops_push out f; []; $($n $i)*);
                // SAFETY: the loops pushed all `LEN` elements.
                unsafe { out.finish() };
                // SAFETY: all `LEN` elements of the nested array were written, each once.
                unsafe { nest.assume_init() }
            }

            #[inline(always)]
            unsafe fn buffer_written<T>(
                fill: impl FnOnce(&mut [core::mem::MaybeUninit<T>]),
            ) -> $nest {
                // SAFETY: the nested array of this shape is `LEN` consecutive `T`s, and the
                // caller's `fill` writes all `LEN` of them before this returns.
                unsafe { crate::util::written_in_place::<$nest, T>(Self::LEN, fill) }
            }

            #[inline(always)]
            #[allow(unused_mut)]
            fn for_each_index(mut f: impl FnMut([usize; $rank])) {
                impl_static_shape!(@loops f; []; $($n $i)*)
            }
        }

        impl<$($d: Dim),*> TensorIndex<($($d,)*)> for [usize; $rank] {}
        impl<$($d: Dim),*> SealedShape for ($($d,)*) {
            const ALL_STATIC: bool = true $(&& <$d as Dim>::STATIC_SIZE.is_some())*;
            const DIMS_OR_ZERO: &'static [usize] = &[$(
                match <$d as Dim>::STATIC_SIZE {
                    Some(n) => n,
                    None => 0,
                }
            ),*];
        }
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

    (@loops_push $out:ident $f:ident; [$($done:ident)*];) => {
        // SAFETY: the loops visit each of the shape's `LEN` multi-indices once.
        unsafe { $out.push($f([$($done),*])) }
    };
    (@loops_push $out:ident $f:ident; [$($done:ident)*]; $n:ident $i:ident $($rest:ident)*) => {
        for $i in 0..$n {
            impl_static_shape!(@loops_push $out $f; [$($done)* $i]; $($rest)*)
        }
    };
    (@loops $f:ident; [$($done:ident)*];) => { $f([$($done),*]) };
    (@loops $f:ident; [$($done:ident)*]; $n:ident $i:ident $($rest:ident)*) => {
        for $i in 0..$n {
            impl_static_shape!(@loops $f; [$($done)* $i]; $($rest)*)
        }
    };
}

/// The kind of a shape: static only if every dim is.
macro_rules! kind {
    () => { StaticKind };
    ($d:ident $($rest:ident)*) => { <<$d as Dim>::Kind as DimKind>::And<kind!($($rest)*)> };
}

/// The by-value iterator of a nested array: the outer array's, flattened once per further dim.
macro_rules! into_iter_ty {
    ($t:ty;) => { core::iter::Once<$t> };
    ($t:ty; $first:ident $($rest:ident)*) => {
        flatten_ty!(<nested!($t; $first $($rest)*) as IntoIterator>::IntoIter; $($rest)*)
    };
}

macro_rules! flatten_ty {
    ($i:ty;) => { $i };
    ($i:ty; $d:ident $($rest:ident)*) => { flatten_ty!(core::iter::Flatten<$i>; $($rest)*) };
}

/// The value of [`into_iter_ty!`]'s type for the nested array `$e`.
macro_rules! into_iter_val {
    ($e:expr;) => { core::iter::once($e) };
    ($e:expr; $first:ident $($rest:ident)*) => { flatten_val!($e.into_iter(); $($rest)*) };
}

macro_rules! flatten_val {
    ($e:expr;) => { $e };
    ($e:expr; $d:ident $($rest:ident)*) => { flatten_val!($e.flatten(); $($rest)*) };
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
/// Each dim is a number, `Const<N>`, a `{ const expression }` (a const generic `N` is written
/// `{ N }`), or `_` (or `Dyn`) for a dim known only at run time. At most
/// [`MAX_STATIC_RANK`] dims:
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
    // A ninth dim: the limit, said plainly instead of "`(..9 dims..)` is not a shape".
    (@munch [$a:ty, $b:ty, $c:ty, $d:ty, $e:ty, $f:ty, $g:ty, $h:ty,]; $($rest:tt)+) => {
        ::core::compile_error!("a static shape has at most 8 dims (`shaped::MAX_STATIC_RANK`); use `DynTensor` for higher ranks")
    };
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

/// A permutation of axes as a type, for [`Tensor::permute`](crate::Tensor::permute):
/// `Axes![2, 0, 1]` is `(Axis<2>, Axis<0>, Axis<1>)`, output axis `i` taking axis `P[i]` (M4).
///
/// ```
/// use shaped::{Axes, Shape, Tensor};
/// let x = Tensor::<i32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 100 + j * 10 + k) as i32);
/// let p: Tensor<i32, Shape![4, 2, 3]> = x.permute::<Axes![2, 0, 1]>();
/// assert_eq!(p[[3, 1, 2]], 123);
/// ```
#[macro_export]
macro_rules! Axes {
    ($($a:expr),* $(,)?) => { ($($crate::typed::rules::Axis<{ $a }>,)*) };
}

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
}
