//! An operation chosen at run time ([`BinaryOp`], [`CompareOp`], [`LogicalOp`]) as one
//! [`Apply`]: the `match` over the operation sits inside the kernel call.
//!
//! Matched first (`with_binary_op!(op, T, f => zip_new(.., Split(f), ..))`), each arm held its
//! own copy of everything around the kernel: shape resolution, the output check, the plan,
//! the allocation, and with feature `rayon` the size test and the call to the split path. For
//! `DynTensor` arithmetic on `f32` that was 20 copies (10 operations, 2 buffer capacities), and
//! the feature grew the function holding them from 14.8 to 17.5 KB, moving the code of calls
//! that never split. Matched here, that code exists once per capacity, the split path is a
//! cold function of its own, and the code a small call runs is the same with and without the
//! feature: the `DynTensor` kernels are 85,846 and 86,015 bytes in both builds, and a 4x4+4x1
//! `DynTensor` add runs 1337 instructions in both (`benches/README.md`).

use core::marker::PhantomData;
use core::mem::MaybeUninit;

#[cfg(feature = "rayon")]
use super::parallel;
use super::plan::{Apply, Here, HereTiled, Hint, Nest, Split, Tiled};
use crate::element::Element;
use crate::op::{with_binary_op, with_compare_op, with_logical_op, BinaryOp, CompareOp, LogicalOp};

/// How a kernel stores a computed element `V`: as itself ([`Init`]), or wrapped in
/// `MaybeUninit` for a result being written into fresh memory ([`Uninit`]).
pub(crate) trait Slot<V> {
    /// What the output slice holds.
    type Out: Send;
    /// `v` as stored.
    fn wrap(v: V) -> Self::Out;
}

/// Elements stored as themselves.
pub(crate) struct Init;

/// Elements stored as `MaybeUninit` of what `M` stores.
pub(crate) struct Uninit<M>(PhantomData<M>);

impl<V: Send> Slot<V> for Init {
    type Out = V;
    #[inline(always)]
    fn wrap(v: V) -> V {
        v
    }
}

impl<V, M: Slot<V>> Slot<V> for Uninit<M> {
    type Out = MaybeUninit<M::Out>;
    #[inline(always)]
    fn wrap(v: V) -> Self::Out {
        MaybeUninit::new(M::wrap(v))
    }
}

/// The operation `op` on elements `T`, stored as `M` says; with `SPLIT`, work large enough is
/// split across threads (feature `rayon`), otherwise it stays on the calling thread.
pub(crate) struct ByOp<Op, T, M = Init, const SPLIT: bool = true> {
    op: Op,
    types: PhantomData<fn(T) -> M>,
}

impl<Op, T> ByOp<Op, T> {
    /// `op`, split across threads where large.
    #[inline(always)]
    pub(crate) fn new(op: Op) -> Self {
        ByOp {
            op,
            types: PhantomData,
        }
    }
}

impl<Op: Copy, T, M, const SPLIT: bool> ByOp<Op, T, M, SPLIT> {
    /// The same operation stored as `N`, split or not as `S` says.
    #[inline(always)]
    fn retype<N, const S: bool>(&self) -> ByOp<Op, T, N, S> {
        ByOp {
            op: self.op,
            types: PhantomData,
        }
    }
}

/// Runs one operation's element function `f` over the plan: on the calling thread unless
/// `SPLIT` (then [`Split`] decides by size).
#[inline(always)]
fn run<X: Sync, V, M: Slot<V>, const SPLIT: bool>(
    f: impl Fn(&X, &X) -> V + Sync + Send,
    plan: &Nest<'_>,
    hint: impl Hint,
    a: &[X],
    b: &[X],
    out: &mut [M::Out],
) {
    let f = move |x: &X, y: &X| M::wrap(f(x, y));
    if SPLIT {
        Split(f).apply(plan, hint, a, b, out);
    } else {
        Here(f).apply(plan, hint, a, b, out);
    }
}

/// [`run`] for `Copy` elements: an input repeating with a short period is read from a tile
/// ([`Nest::run_tiled`](super::plan::Nest::run_tiled)).
#[inline(always)]
fn run_tiled<X: Copy + Sync, V, M: Slot<V>, const SPLIT: bool>(
    f: impl Fn(&X, &X) -> V + Sync + Send,
    plan: &Nest<'_>,
    hint: impl Hint,
    a: &[X],
    b: &[X],
    out: &mut [M::Out],
) {
    let f = move |x: &X, y: &X| M::wrap(f(x, y));
    // Tiled: an input repeating with a short period reads from a tile (`Nest::run_tiled`).
    if SPLIT {
        Tiled(f).apply(plan, hint, a, b, out);
    } else {
        HereTiled(f).apply(plan, hint, a, b, out);
    }
}

/// The `match` over one operation enum, binding its element function.
macro_rules! dispatch {
    (BinaryOp, $T:ty, $op:expr, $f:ident => $body:expr) => {
        with_binary_op!($op, $T, $f => $body)
    };
    (CompareOp, $T:ty, $op:expr, $f:ident => $body:expr) => {
        with_compare_op!($op, $f => $body)
    };
    (LogicalOp, $T:ty, $op:expr, $f:ident => $body:expr) => {
        with_logical_op!($op, $f => $body)
    };
}

/// [`Apply`] for [`ByOp`] over one operation enum `$Op`, inputs `$X`, results `$V`.
macro_rules! by_op {
    ($Op:ident, [$($bounds:tt)*], $X:ty, $V:ty, $run:ident) => {
        impl<$($bounds)* M: Slot<$V>, const SPLIT: bool> Apply<$X, $X, M::Out>
            for ByOp<$Op, $X, M, SPLIT>
        {
            /// Law: writes what the kernel of the operation's own element function writes;
            /// only where the `match` runs differs.
            #[inline(always)]
            fn apply(
                self,
                plan: &Nest<'_>,
                hint: impl Hint,
                a: &[$X],
                b: &[$X],
                out: &mut [M::Out],
            ) {
                // The size test comes before the match: the split path, with its own match,
                // is then one cold function rather than a branch in every arm.
                #[cfg(feature = "rayon")]
                if SPLIT && !parallel::small(out.len()) {
                    return self.retype::<M, true>().split(plan, hint, (a, b), out);
                }
                dispatch!($Op, $X, self.op, f => {
                    $run::<$X, $V, M, false>(f, plan, hint, a, b, out)
                })
            }
            #[inline(always)]
            fn call(&mut self, x: &$X, y: &$X) -> M::Out {
                dispatch!($Op, $X, self.op, f => M::wrap(f(x, y)))
            }
            #[inline(always)]
            fn uninit(&mut self) -> impl Apply<$X, $X, MaybeUninit<M::Out>> + '_ {
                self.retype::<Uninit<M>, SPLIT>()
            }
            const SPLITS: bool = SPLIT && cfg!(feature = "rayon");
            #[inline(always)]
            fn here(self) -> impl Apply<$X, $X, M::Out> {
                self.retype::<M, false>()
            }
        }

        #[cfg(feature = "rayon")]
        impl<$($bounds)* M: Slot<$V>> ByOp<$Op, $X, M, true> {
            /// The split path of `apply`: out of line and cold, so that the code of calls too
            /// small to split is the same with and without feature `rayon`.
            #[cold]
            #[inline(never)]
            fn split(
                self,
                plan: &Nest<'_>,
                hint: impl Hint,
                (a, b): (&[$X], &[$X]),
                out: &mut [M::Out],
            ) {
                dispatch!($Op, $X, self.op, f => {
                    $run::<$X, $V, M, true>(f, plan, hint, a, b, out)
                })
            }
        }
    };
}

by_op!(BinaryOp, [T: Element,], T, T, run_tiled);
by_op!(CompareOp, [T: PartialOrd + Sync,], T, bool, run);
by_op!(LogicalOp, [], bool, bool, run);
