//! The one elementwise kernel for static shapes.
//!
//! Every operation (arithmetic, comparisons, logic, `map`, `zip_map`, `broadcast_to`) is this
//! function with a different closure. The output is built by nested loops, one per dim, and each
//! input is read at `index · strides`, where the strides are constants computed at compile time
//! (0 on a stretched dim). After monomorphization the trip counts and strides are literals, so
//! LLVM emits what it would for a hand-written loop nest of that shape (see `benches/README.md`).

use core::marker::PhantomData;

use crate::rules;
use crate::shape::{StaticShape, MAX_STATIC_RANK};
use crate::storage::{Build, Family};

/// Compile-time strides for reading `Src` as the output shape `Out`.
struct Layout<Src, Out>(PhantomData<(Src, Out)>);

impl<Src: StaticShape, Out: StaticShape> Layout<Src, Out> {
    // The type-level rules already guarantee this; re-deriving it with `rules` makes a
    // disagreement between the two a compile error instead of a wrong read.
    const STRIDES: [usize; MAX_STATIC_RANK] =
        match rules::broadcast_strides::<MAX_STATIC_RANK>(Src::DIMS, Out::DIMS) {
            Some(strides) => strides,
            None => panic!("internal: input shape does not broadcast onto the output shape"),
        };
}

#[inline(always)]
fn offset(index: &[usize], strides: &[usize; MAX_STATIC_RANK]) -> usize {
    let mut offset = 0;
    let mut d = 0;
    while d < index.len() {
        offset += index[d] * strides[d];
        d += 1;
    }
    offset
}

/// Builds the `Out`-shaped result of `f(a[i], b[i])` where `a` (shape `A`) and `b` (shape `B`)
/// are read broadcast onto `Out`.
#[inline(always)]
pub(crate) fn zip<F, X, Y, V, A, B, Out>(
    a: &[X],
    b: &[Y],
    mut f: impl FnMut(&X, &Y) -> V,
) -> F::Owned<V, Out>
where
    F: Family,
    A: StaticShape,
    B: StaticShape,
    Out: StaticShape,
{
    // Re-slicing to the constant length lets LLVM drop the bounds checks below.
    let a = &a[..A::LEN];
    let b = &b[..B::LEN];
    <F::Owned<V, Out> as Build<V, Out>>::build(|index| {
        let index = index.as_ref();
        f(
            &a[offset(index, &Layout::<A, Out>::STRIDES)],
            &b[offset(index, &Layout::<B, Out>::STRIDES)],
        )
    })
}

/// Like [`zip`], but writes into `out` (row-major, `Out::LEN` elements) instead of building.
#[inline(always)]
pub(crate) fn zip_into<X, Y, V, A, B, Out>(
    a: &[X],
    b: &[Y],
    out: &mut [V],
    mut f: impl FnMut(&X, &Y) -> V,
) where
    A: StaticShape,
    B: StaticShape,
    Out: StaticShape,
{
    let a = &a[..A::LEN];
    let b = &b[..B::LEN];
    let out = &mut out[..Out::LEN];
    let mut k = 0;
    Out::for_each_index(|index| {
        let index = index.as_ref();
        out[k] = f(
            &a[offset(index, &Layout::<A, Out>::STRIDES)],
            &b[offset(index, &Layout::<B, Out>::STRIDES)],
        );
        k += 1;
    });
}
