//! The one elementwise kernel for static shapes.
//!
//! Every operation (arithmetic, comparisons, logic, `map`, `zip_map`, `broadcast_to`) is this
//! function with a different closure. The output is built by nested loops, one per dim, and each
//! input is read at `index · strides`, where the strides are constants computed at compile time
//! (0 on a stretched dim). After monomorphization the trip counts and strides are literals, so
//! LLVM emits what it would for a hand-written loop nest of that shape (see `benches/README.md`).

use core::marker::PhantomData;

use super::shape::{StaticShape, MAX_STATIC_RANK};
use super::storage::{Build, Family};
use crate::rules;
use crate::runtime::plan::{self, Apply};
use crate::runtime::ArrayRef;
use crate::util::Push;

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

/// `index · strides`, written out term by term: with constant strides every term folds to a
/// constant multiply (or vanishes) even at `opt-level = "s"`, where LLVM keeps a loop over the
/// dims (and reads the strides from memory) rather than unroll it.
#[inline(always)]
fn offset(index: &[usize], strides: &[usize; MAX_STATIC_RANK]) -> usize {
    const _: () = assert!(
        MAX_STATIC_RANK == 8,
        "offset() writes out one term per dim, 8"
    );
    let term = |d: usize| match index.get(d) {
        Some(&i) => i * strides[d],
        None => 0,
    };
    term(0) + term(1) + term(2) + term(3) + term(4) + term(5) + term(6) + term(7)
}

/// From this many elements on, results are computed by the plan kernel of
/// [`crate::runtime`] (rows as slices, vectorized) instead of per-index offsets, whose bounds
/// checks stay once a loop is too long to unroll (about 1 ns an element, 10x slower, on a
/// 1024 x 64 add; see `benches/README.md`).
const LARGE: usize = 4096;

/// `zip` over the plan kernel: `a` (shape `A`) and `b` (shape `B`) right-aligned and broadcast
/// onto `Out`, written into `out`. Static shapes always fit (the type rules checked them), so
/// no mode is resolved. Returns whether every element of `out` was written; `false` (buffers
/// not of their shapes' lengths, which tensors rule out) writes nothing.
#[must_use]
#[inline(always)]
fn zip_onto<X, Y, V, A, B, Out>(a: &[X], b: &[Y], out: &mut [V], f: impl Apply<X, Y, V>) -> bool
where
    A: StaticShape,
    B: StaticShape,
    Out: StaticShape,
{
    let hint = plan::static_inner_run(A::STATIC_DIMS, B::STATIC_DIMS);
    match (ArrayRef::new(A::DIMS, a), ArrayRef::new(B::DIMS, b)) {
        (Ok(a), Ok(b)) if out.len() == Out::LEN => {
            plan::zip_onto(Out::DIMS, a, b, out, hint, f);
            true
        }
        _ => false,
    }
}

/// Builds the `Out`-shaped result of `f(a[i], b[i])` where `a` (shape `A`) and `b` (shape `B`)
/// are read broadcast onto `Out`.
#[inline(always)]
#[cfg_attr(not(feature = "alloc"), allow(unused_mut))] // `mut`: the heap path
pub(crate) fn zip<F, X, Y, V, A, B, Out, G>(a: &[X], b: &[Y], mut f: G) -> F::Owned<V, Out>
where
    F: Family,
    A: StaticShape,
    B: StaticShape,
    Out: StaticShape,
    G: Apply<X, Y, V>,
{
    #[cfg(feature = "alloc")]
    if F::HEAP && Out::LEN >= LARGE {
        // A large result on the heap: the plan kernel, written in place.
        // SAFETY: the closure returns Ok only when `zip_onto` returned true, which it does only
        // after writing every one of the `Out::LEN` elements once (the plan's loop nest covers
        // the output shape row by row).
        let elements = unsafe {
            crate::runtime::filled_vec(Out::LEN, &[], |spare| {
                let written =
                    zip_onto::<X, Y, core::mem::MaybeUninit<V>, A, B, Out>(a, b, spare, f.uninit());
                written.then_some(()).ok_or_else(|| {
                    // Unreachable for tensors (their buffers have their shapes' lengths); the
                    // inline path below takes over if it ever happens.
                    let kind = crate::error::ErrorKind::ShapeMismatch;
                    crate::error::Error::new(kind, crate::error::Operation::Layout, &[], &[])
                })
            })
        };
        if let Some(owned) = elements.ok().and_then(F::from_vec::<V, Out>) {
            return owned;
        }
    }
    if const { !crate::util::large::<V>(Out::LEN) } {
        // Re-slicing to the constant length lets LLVM drop the bounds checks below.
        let (a, b) = (&a[..A::LEN], &b[..B::LEN]);
        return <F::Owned<V, Out> as Build<V, Out>>::build(|index| {
            let index = index.as_ref();
            f.call(
                &a[offset(index, &Layout::<A, Out>::STRIDES)],
                &b[offset(index, &Layout::<B, Out>::STRIDES)],
            )
        });
    }
    // A large result: written out of line, straight into the variable that receives it.
    let fill = |slots: &mut [core::mem::MaybeUninit<V>], (a, b, mut f): (&[X], &[Y], G)| {
        // Re-slicing to the constant length lets LLVM drop the bounds checks below.
        let (a, b) = (&a[..A::LEN], &b[..B::LEN]);
        let mut out = Push::new(slots);
        Out::for_each_index(|index| {
            let index = index.as_ref();
            let value = f.call(
                &a[offset(index, &Layout::<A, Out>::STRIDES)],
                &b[offset(index, &Layout::<B, Out>::STRIDES)],
            );
            // SAFETY: `for_each_index` visits each of the `Out::LEN` indices once, so at most
            // `Out::LEN` values are pushed into the `Out::LEN` slots.
            unsafe { out.push(value) };
        });
        // SAFETY: `for_each_index` visits all `Out::LEN` indices, so every slot was pushed.
        unsafe { out.finish() };
    };
    // SAFETY: `fill` pushed all `Out::LEN` slots before `finish`.
    unsafe {
        <F::Owned<V, Out> as Build<V, Out>>::build_written(|slots| {
            crate::util::fill_out_of_line(slots, (a, b, f), fill)
        })
    }
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
    // The element function reaches the plan kernel through a closure calling it, not as
    // `&mut f`: at opt-level "s" the Cortex-M4 build kept `<&mut F as FnMut>::call_mut` a
    // function called once per element (an int8 add: 57 instructions per element against 28).
    let here = plan::Here(
        #[inline(always)]
        |x: &X, y: &Y| f(x, y),
    );
    if Out::LEN >= LARGE && zip_onto::<X, Y, V, A, B, Out>(a, b, out, here) {
        return;
    }
    let a = &a[..A::LEN];
    let b = &b[..B::LEN];
    let out = &mut out[..Out::LEN];
    Out::for_each_index(|index| {
        let index = index.as_ref();
        // The output offset from the index and constant row-major strides, like the inputs':
        // each bound then follows from the loop bounds, so no check is left even at
        // `opt-level = "s"` (a separate running counter kept one).
        out[offset(index, &Layout::<Out, Out>::STRIDES)] = f(
            &a[offset(index, &Layout::<A, Out>::STRIDES)],
            &b[offset(index, &Layout::<B, Out>::STRIDES)],
        );
    });
}

/// [`zip_into`] with an [`Apply`] of the caller's (the int8 add's row form): the plan kernel
/// from [`LARGE`] elements, its `call` for each element below.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[inline(always)]
pub(crate) fn zip_into_with<X, Y, V, A, B, Out>(
    a: &[X],
    b: &[Y],
    out: &mut [V],
    mut f: impl Apply<X, Y, V>,
) where
    A: StaticShape,
    B: StaticShape,
    Out: StaticShape,
{
    if Out::LEN >= LARGE && out.len() == Out::LEN {
        if let (Ok(ra), Ok(rb)) = (ArrayRef::new(A::DIMS, a), ArrayRef::new(B::DIMS, b)) {
            let hint = plan::static_inner_run(A::STATIC_DIMS, B::STATIC_DIMS);
            plan::zip_onto(Out::DIMS, ra, rb, out, hint, f);
            return;
        }
    }
    let a = &a[..A::LEN];
    let b = &b[..B::LEN];
    let out = &mut out[..Out::LEN];
    Out::for_each_index(|index| {
        let index = index.as_ref();
        out[offset(index, &Layout::<Out, Out>::STRIDES)] = f.call(
            &a[offset(index, &Layout::<A, Out>::STRIDES)],
            &b[offset(index, &Layout::<B, Out>::STRIDES)],
        );
    });
}

/// `f(out[i], b[i])` in place for every element of `out` (shape `Out`), with `b` (shape `B`)
/// read broadcast onto `Out` one-directionally (the type rules checked that `B` stretches to
/// `Out`): the kernel of `+=` and its kin. Constant strides, as in [`zip_into`]; a large
/// output goes to the plan kernel, split across threads where large enough (feature `rayon`).
#[inline(always)]
pub(crate) fn update<Y: Sync, V: Send, B, Out>(
    out: &mut [V],
    b: &[Y],
    f: impl Fn(&mut V, &Y) + Sync + Send,
) where
    B: StaticShape,
    Out: StaticShape,
{
    if Out::LEN >= LARGE {
        if let Ok(b) = ArrayRef::new(B::DIMS, b) {
            if out.len() == Out::LEN {
                plan::update_onto(Out::DIMS, out, b, plan::Split(f));
                return;
            }
        }
    }
    let b = &b[..B::LEN];
    let out = &mut out[..Out::LEN];
    Out::for_each_index(|index| {
        let index = index.as_ref();
        f(
            &mut out[offset(index, &Layout::<Out, Out>::STRIDES)],
            &b[offset(index, &Layout::<B, Out>::STRIDES)],
        );
    });
}
