//! The loop planner shared by every runtime kernel, the static kernel's large shapes and the
//! mixed-shape path.
//!
//! Every call works out its loop plan once: each input's strides in the output's index space
//! (0 where it is stretched), size-1 axes dropped, adjacent axes merged wherever every operand
//! steps through them alike. The innermost axis then runs as a contiguous run, a broadcast
//! scalar, or a plain strided loop, and an odometer walks the outer axes with no division.
//! Ranks go up to [`MAX_RANK`]; calls whose ranks are at most 8 use
//! small fixed buffers, so the per-call setup stays in the tens of nanoseconds.

use super::array_ref::{ArrayRef, Strides};
use crate::rules::{Placement, ShapeBuf, MAX_RANK};

/// The capacity of the per-call buffers when every rank involved is at most this: the common
/// case pays for eight slots, not [`MAX_RANK`].
pub(crate) const SMALL: usize = 8;

// `Apply`, `Here`, `Split`, `Hint`, `NoHint`, `Nest` and `Plan` are `pub` in this crate-private
// module only because the public `OperatorPath` trait's method names `Apply` in its bounds:
// users can name none of them.

/// How a kernel runs its element function: [`Here`] on the calling thread (any closure,
/// `FnMut` included), [`Split`] across threads when the output is large (feature `rayon`;
/// closures and elements that can be shared between threads).
pub trait Apply<X, Y, V>: Sized {
    /// Writes `f(a, b)` over the plan into `out` (the plan's element count, non-zero).
    fn apply(self, plan: &Nest<'_>, hint: impl Hint, a: &[X], b: &[Y], out: &mut [V]);
    /// One element.
    fn call(&mut self, x: &X, y: &Y) -> V;
    /// The same function writing into uninitialised memory (the allocating forms).
    fn uninit(&mut self) -> impl Apply<X, Y, core::mem::MaybeUninit<V>> + '_;
    /// Whether [`apply`](Self::apply) may split its work across threads.
    const SPLITS: bool;
    /// The same function, on the calling thread whatever the size: for callers that have
    /// already decided the work is too small to split.
    fn here(self) -> impl Apply<X, Y, V>;
}

/// Runs on the calling thread.
pub struct Here<F>(pub(crate) F);

/// Splits across threads when large (see [`super::parallel`]).
pub struct Split<F>(pub(crate) F);

/// [`Split`] for elements that are `Copy`: an input repeating with a short period along the
/// innermost axes is read from a stack tile of whole periods ([`Nest::run_tiled`]), so the
/// inner loop is one long contiguous run.
pub struct Tiled<F>(pub(crate) F);

/// The length of the innermost contiguous run, when the caller knows it at compile time (the
/// trailing static dims of a mixed shape, [`static_inner_run`]): a `usize`, or [`NoHint`].
/// With `NoHint` (every `DynTensor` and runtime-kernel call) the hinted row body is not
/// compiled at all: it was one of each kernel's eight bodies, in every program.
pub trait Hint: Copy + Send + Sync {
    /// Whether there is a hint: a constant, so that `NoHint` callers skip the hinted body.
    const SOME: bool;
    /// The run length (0: none).
    fn len(self) -> usize;
}

impl Hint for usize {
    const SOME: bool = true;
    #[inline(always)]
    fn len(self) -> usize {
        self
    }
}

/// No compile-time run length.
#[derive(Clone, Copy, Debug)]
pub struct NoHint;

impl Hint for NoHint {
    const SOME: bool = false;
    #[inline(always)]
    fn len(self) -> usize {
        0
    }
}

/// [`Apply`] for the in-place form `f(&mut out, b)`: the kernel of `+=` and its kin.
pub(crate) trait ApplyUpdate<Y, V>: Sized {
    /// `f(out[i], b[i])` over the plan.
    fn apply_update(self, plan: &Nest<'_>, b: &[Y], out: &mut [V]);
}

impl<Y, V, F: FnMut(&mut V, &Y)> ApplyUpdate<Y, V> for Here<F> {
    #[inline(always)]
    fn apply_update(self, plan: &Nest<'_>, b: &[Y], out: &mut [V]) {
        plan.run_update(b, out, self.0);
    }
}

impl<Y: Sync, V: Send, F: Fn(&mut V, &Y) + Sync + Send> ApplyUpdate<Y, V> for Split<F> {
    #[inline(always)]
    fn apply_update(self, plan: &Nest<'_>, b: &[Y], out: &mut [V]) {
        plan.run_update_split(b, out, self.0);
    }
}

impl<X, Y, V, F: FnMut(&X, &Y) -> V> Apply<X, Y, V> for Here<F> {
    #[inline(always)]
    fn apply(self, plan: &Nest<'_>, hint: impl Hint, a: &[X], b: &[Y], out: &mut [V]) {
        plan.run_hinted(hint, a, b, out, self.0);
    }
    #[inline(always)]
    fn call(&mut self, x: &X, y: &Y) -> V {
        (self.0)(x, y)
    }
    #[inline(always)]
    fn uninit(&mut self) -> impl Apply<X, Y, core::mem::MaybeUninit<V>> + '_ {
        Here(move |x: &X, y: &Y| core::mem::MaybeUninit::new((self.0)(x, y)))
    }
    const SPLITS: bool = false;
    #[inline(always)]
    fn here(self) -> impl Apply<X, Y, V> {
        self
    }
}

impl<X: Sync, Y: Sync, V: Send, F: Fn(&X, &Y) -> V + Sync + Send> Apply<X, Y, V> for Split<F> {
    #[inline(always)]
    fn apply(self, plan: &Nest<'_>, hint: impl Hint, a: &[X], b: &[Y], out: &mut [V]) {
        plan.run_split(hint, a, b, out, self.0);
    }
    #[inline(always)]
    fn call(&mut self, x: &X, y: &Y) -> V {
        (self.0)(x, y)
    }
    #[inline(always)]
    fn uninit(&mut self) -> impl Apply<X, Y, core::mem::MaybeUninit<V>> + '_ {
        let f = &self.0;
        Split(move |x: &X, y: &Y| core::mem::MaybeUninit::new(f(x, y)))
    }
    const SPLITS: bool = cfg!(feature = "rayon");
    #[inline(always)]
    fn here(self) -> impl Apply<X, Y, V> {
        Here(self.0)
    }
}

impl<X: Copy + Sync, Y: Copy + Sync, V: Send, F: Fn(&X, &Y) -> V + Sync + Send> Apply<X, Y, V>
    for Tiled<F>
{
    #[inline(always)]
    fn apply(self, plan: &Nest<'_>, hint: impl Hint, a: &[X], b: &[Y], out: &mut [V]) {
        let tasks = plan.outer_tasks(out.len());
        if tasks <= 1 {
            return plan.run_tiled(hint, a, b, out, self.0);
        }
        let f = &self.0;
        plan.split_outer(tasks, out, |sub, oa, ob, chunk| {
            sub.run_tiled(hint, &a[oa..], &b[ob..], chunk, f)
        });
    }
    #[inline(always)]
    fn call(&mut self, x: &X, y: &Y) -> V {
        (self.0)(x, y)
    }
    #[inline(always)]
    fn uninit(&mut self) -> impl Apply<X, Y, core::mem::MaybeUninit<V>> + '_ {
        let f = &self.0;
        Tiled(move |x: &X, y: &Y| core::mem::MaybeUninit::new(f(x, y)))
    }
    const SPLITS: bool = cfg!(feature = "rayon");
    #[inline(always)]
    fn here(self) -> impl Apply<X, Y, V> {
        HereTiled(self.0)
    }
}

/// [`Tiled`] on the calling thread whatever the size.
pub struct HereTiled<F>(pub(crate) F);

impl<X: Copy, Y: Copy, V, F: FnMut(&X, &Y) -> V> Apply<X, Y, V> for HereTiled<F> {
    #[inline(always)]
    fn apply(self, plan: &Nest<'_>, hint: impl Hint, a: &[X], b: &[Y], out: &mut [V]) {
        plan.run_tiled(hint, a, b, out, self.0);
    }
    #[inline(always)]
    fn call(&mut self, x: &X, y: &Y) -> V {
        (self.0)(x, y)
    }
    #[inline(always)]
    fn uninit(&mut self) -> impl Apply<X, Y, core::mem::MaybeUninit<V>> + '_ {
        HereTiled(move |x: &X, y: &Y| core::mem::MaybeUninit::new((self.0)(x, y)))
    }
    const SPLITS: bool = false;
    #[inline(always)]
    fn here(self) -> impl Apply<X, Y, V> {
        self
    }
}

/// An element function with a form for whole rows along which one input holds one value: a
/// row of `n` outputs then costs what `row` costs, not `n` calls (the int8 add reads such a
/// row from a byte table of its outputs, `quant::elementwise::AddRows`).
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) trait RowFn<X, Y, V> {
    /// Whether rows of `n` elements in an output of `total` are worth the row form; if not,
    /// every element is a call.
    fn rows_pay(&self, n: usize, total: usize) -> bool;
    /// One element.
    fn call(&mut self, x: &X, y: &Y) -> V;
    /// `out[i] = f(x, ys[i])`.
    fn row_a<O: crate::util::Slot<V>>(&mut self, x: &X, ys: &[Y], out: &mut [O]);
    /// `out[i] = f(xs[i], y)`.
    fn row_b<O: crate::util::Slot<V>>(&mut self, xs: &[X], y: &Y, out: &mut [O]);
}

/// [`Apply`] for a [`RowFn`]: its rows where the innermost axis holds one input's value and
/// steps through the other's elements one by one, the element function in the ordinary loops
/// elsewhere. On the calling thread.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) struct Rows<R>(pub(crate) R);

#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
impl<X, Y, V, R: RowFn<X, Y, V>> Apply<X, Y, V> for Rows<R> {
    #[inline(always)]
    fn apply(mut self, plan: &Nest<'_>, hint: impl Hint, a: &[X], b: &[Y], out: &mut [V]) {
        plan.run_rows(hint, a, b, out, &mut self.0, |r, x, y| r.call(x, y));
    }
    #[inline(always)]
    fn call(&mut self, x: &X, y: &Y) -> V {
        self.0.call(x, y)
    }
    #[inline(always)]
    fn uninit(&mut self) -> impl Apply<X, Y, core::mem::MaybeUninit<V>> + '_ {
        RowsUninit(&mut self.0)
    }
    const SPLITS: bool = false;
    #[inline(always)]
    fn here(self) -> impl Apply<X, Y, V> {
        self
    }
}

/// [`Rows`] writing into uninitialised memory.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) struct RowsUninit<'r, R>(&'r mut R);

#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
impl<X, Y, V, R: RowFn<X, Y, V>> Apply<X, Y, core::mem::MaybeUninit<V>> for RowsUninit<'_, R> {
    #[inline(always)]
    fn apply(
        self,
        plan: &Nest<'_>,
        hint: impl Hint,
        a: &[X],
        b: &[Y],
        out: &mut [core::mem::MaybeUninit<V>],
    ) {
        plan.run_rows(hint, a, b, out, self.0, |r, x, y| {
            core::mem::MaybeUninit::new(r.call(x, y))
        });
    }
    #[inline(always)]
    fn call(&mut self, x: &X, y: &Y) -> core::mem::MaybeUninit<V> {
        core::mem::MaybeUninit::new(self.0.call(x, y))
    }
    #[inline(always)]
    fn uninit(
        &mut self,
    ) -> impl Apply<X, Y, core::mem::MaybeUninit<core::mem::MaybeUninit<V>>> + '_ {
        let r = &mut *self.0;
        Here(move |x: &X, y: &Y| {
            core::mem::MaybeUninit::new(core::mem::MaybeUninit::new(r.call(x, y)))
        })
    }
    const SPLITS: bool = false;
    #[inline(always)]
    fn here(self) -> impl Apply<X, Y, core::mem::MaybeUninit<V>> {
        self
    }
}

/// The longest tile of whole periods [`Nest::run_tiled`] reads a repeating input from.
const TILE: usize = 64;

/// The longest period [`Nest::run_tiled`] tiles: at least two periods fit in a tile.
const MAX_PERIOD: usize = TILE / 2;

/// Which input of a [`Nest`] repeats along its two innermost axes (see [`Nest::period`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repeats {
    A,
    B,
}

/// The loop nest for one call: merged axes, outermost first, with each input's stride.
#[derive(Clone, Copy, Debug)]
pub struct Plan<const CAP: usize> {
    rank: usize,
    dims: [usize; CAP],
    a: [usize; CAP],
    b: [usize; CAP],
}

/// Strides of `input` laid out in the output's index space by `placement`.
pub(crate) fn aligned_strides<T, const CAP: usize>(
    input: &ArrayRef<'_, T>,
    placement: Placement<'_>,
    out_rank: usize,
) -> [usize; CAP] {
    let mut strides = [0; CAP];
    // Row-major strides are accumulated from the innermost dim outwards.
    let mut row_major = 1usize;
    for (i, &d) in input.shape.iter().enumerate().rev() {
        let stride = match input.strides {
            Strides::Given(s) => s[i],
            Strides::RowMajor => row_major,
        };
        row_major = row_major.wrapping_mul(d); // exact while it matters: the elements exist
        if d == 1 {
            continue; // stretched (or a PDPD-trimmed trailing 1): read with stride 0
        }
        if let Some(axis) = placement.axis_of(i).filter(|&axis| axis < out_rank) {
            strides[axis] = stride;
        }
    }
    strides
}

impl<const CAP: usize> Plan<CAP> {
    pub(crate) fn new<X, Y>(
        out: &[usize],
        a: &ArrayRef<'_, X>,
        pa: Placement<'_>,
        b: &ArrayRef<'_, Y>,
        pb: Placement<'_>,
    ) -> Self {
        // An empty output runs nothing; its other dims may be huge (`[0, usize::MAX, 2]`), so
        // they are not merged (their product could overflow).
        if out.contains(&0) {
            return Plan {
                rank: 0,
                dims: [0; CAP],
                a: [0; CAP],
                b: [0; CAP],
            };
        }
        let sa: [usize; CAP] = aligned_strides(a, pa, out.len());
        let sb: [usize; CAP] = aligned_strides(b, pb, out.len());
        let mut plan = Plan {
            rank: 0,
            dims: [0; CAP],
            a: [0; CAP],
            b: [0; CAP],
        };
        for axis in 0..out.len() {
            let d = out[axis];
            if d == 1 {
                continue;
            }
            if plan.rank > 0 {
                let last = plan.rank - 1;
                // Merge with the previous (outer) axis when both inputs step through the pair
                // as through one axis: outer stride = inner stride * inner dim.
                let merges = |outer: usize, inner: usize| inner.checked_mul(d) == Some(outer);
                if merges(plan.a[last], sa[axis]) && merges(plan.b[last], sb[axis]) {
                    plan.dims[last] *= d; // fits: both are dims of the output, which exists
                    plan.a[last] = sa[axis];
                    plan.b[last] = sb[axis];
                    continue;
                }
            }
            plan.dims[plan.rank] = d;
            plan.a[plan.rank] = sa[axis];
            plan.b[plan.rank] = sb[axis];
            plan.rank += 1;
        }
        plan
    }

    /// The loop nest of this plan, as the kernels run it.
    #[inline(always)]
    pub(crate) fn nest(&self) -> Nest<'_> {
        Nest {
            rank: self.rank,
            dims: &self.dims,
            a: &self.a,
            b: &self.b,
        }
    }
}

/// The largest rank [`RowMajor`] plans: most small calls have rank 2-4, and eight slots
/// instead of four cost a `binary_into` call of `4x4 + 4x4` zeroing and copying them.
pub(crate) const FAST: usize = 4;

/// A NUMPY broadcast of two row-major inputs of rank at most [`FAST`], resolved and planned
/// in one pass ([`RowMajor::numpy`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowMajor {
    /// The output shape.
    pub(crate) out: ShapeBuf<FAST>,
    /// The loop nest.
    pub(crate) plan: Plan<FAST>,
}

/// The element count of two row-major inputs of the same shape, which then run as one
/// contiguous run ([`Plan::contiguous`]) with no shape resolved and no plan made: `4x4 + 4x4`
/// through `binary_into` went from 415 to 248 instructions, with the single run taking the
/// vectorized loop (see `rows_fixed`), and the `DynTensor` add from 675 to 545 (callgrind,
/// `benches/runtime_probe.rs`). `None` for any other pair, a zero dim or an overflowing
/// count.
#[inline(always)]
pub(crate) fn same_row_major<X, Y>(a: &ArrayRef<'_, X>, b: &ArrayRef<'_, Y>) -> Option<usize> {
    if !matches!(
        (a.strides, b.strides),
        (Strides::RowMajor, Strides::RowMajor)
    ) || a.shape.len() != b.shape.len()
    {
        return None;
    }
    let mut count = 1usize;
    // From the innermost dim: where two shapes of one rank differ, they usually differ there
    // (a row or a column broadcast), and the test ends at once.
    for (&x, &y) in a.shape.iter().zip(b.shape).rev() {
        if x != y || x == 0 {
            return None;
        }
        count = count.checked_mul(x)?;
    }
    Some(count)
}

impl Plan<1> {
    /// One contiguous run of `count` elements (non-zero) in both inputs.
    #[inline(always)]
    pub(crate) fn contiguous(count: usize) -> Self {
        Plan {
            rank: 1,
            dims: [count],
            a: [1],
            b: [1],
        }
    }
}

impl RowMajor {
    /// Nothing planned yet. Filled in place by [`numpy`](Self::numpy): returned by value
    /// through an `Option`, the plan was copied twice with `memcpy` on every call.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        RowMajor {
            out: ShapeBuf::new(),
            plan: Plan {
                rank: 0,
                dims: [0; FAST],
                a: [0; FAST],
                b: [0; FAST],
            },
        }
    }

    /// The NUMPY broadcast of `a` and `b` and its plan, in one pass over the dims from the
    /// innermost outwards: each output dim, each input's stride (its row-major stride, 0
    /// where it is stretched), and the merge with the axis inside it, as [`Plan::new`]
    /// merges; returns the output's element count (non-zero). Identical shapes come out as
    /// one contiguous run. `None` (the caller then takes the general path, which reports any
    /// error) when an input is strided, a rank is above [`FAST`], the dims do not broadcast,
    /// the output is empty or its count overflows; `self` is then unspecified.
    ///
    /// Resolving (`rules::resolve`, 99-104 instructions on `4x4 + 4x1`), laying out the
    /// strides (`aligned_strides`, 108-120) and merging (`Plan::new`, 118-124) as three calls
    /// cost about 330 of the 892 instructions of a `binary_into` call and of the 1284 of a
    /// `DynTensor` add (callgrind, `benches/runtime_probe.rs`).
    #[inline(always)]
    pub(crate) fn numpy<X, Y>(
        &mut self,
        a: &ArrayRef<'_, X>,
        b: &ArrayRef<'_, Y>,
    ) -> Option<usize> {
        if !matches!(
            (a.strides, b.strides),
            (Strides::RowMajor, Strides::RowMajor)
        ) {
            return None;
        }
        let rank = a.shape.len().max(b.shape.len());
        let (out, plan) = (&mut self.out, &mut self.plan);
        // The output's dims and the plan's axes are written innermost first, then reversed.
        *out = ShapeBuf::new();
        plan.rank = 0;
        // Each input's row-major stride at the current axis, and the output's element count.
        let (mut row_a, mut row_b, mut count) = (1usize, 1usize, 1usize);
        let (mut dims_a, mut dims_b) = (a.shape.iter().rev(), b.shape.iter().rev());
        for _ in 0..rank {
            let da = dims_a.next().copied().unwrap_or(1);
            let db = dims_b.next().copied().unwrap_or(1);
            let d = crate::rules::numpy_dim(da, db)?;
            if d == 0 || !out.push(d) {
                return None;
            }
            count = count.checked_mul(d)?;
            // Stride 0 where stretched; exact while they are used (no dim so far was 0).
            let xa = if da == 1 { 0 } else { row_a };
            let xb = if db == 1 { 0 } else { row_b };
            row_a = row_a.wrapping_mul(da);
            row_b = row_b.wrapping_mul(db);
            if d == 1 {
                continue;
            }
            let g = plan.rank;
            if g > 0 {
                // This axis merges with the group inside it when both inputs step through
                // the pair as through one axis (`Plan::new`'s test, seen from the inside).
                let inner = plan.dims[g - 1];
                let merges = |outer: usize, stride: usize| stride.checked_mul(inner) == Some(outer);
                if merges(xa, plan.a[g - 1]) && merges(xb, plan.b[g - 1]) {
                    plan.dims[g - 1] = inner * d; // fits: a product of output dims, as `count`
                    continue;
                }
            }
            // At most one group per output axis, and `out.push` has checked the rank.
            plan.dims[g] = d;
            plan.a[g] = xa;
            plan.b[g] = xb;
            plan.rank = g + 1;
        }
        out.as_mut_slice().reverse();
        let groups = plan.rank;
        plan.dims[..groups].reverse();
        plan.a[..groups].reverse();
        plan.b[..groups].reverse();
        Some(count)
    }
}

/// A [`Plan`]'s loop nest, borrowed: the same code runs plans of every capacity. The element
/// function and the row loops are monomorphized once per operation, not once per capacity,
/// which had compiled every kernel twice (`Plan<8>` and `Plan<64>`).
#[derive(Clone, Copy, Debug)]
pub struct Nest<'p> {
    rank: usize,
    dims: &'p [usize],
    a: &'p [usize],
    b: &'p [usize],
}

impl Nest<'_> {
    /// Calls `f` with the nest over indices `lo..hi` of its outermost axis (rank at least 1)
    /// and the offset at which each input's part starts.
    fn outer_slice<R>(
        &self,
        lo: usize,
        hi: usize,
        f: impl FnOnce(&Nest<'_>, usize, usize) -> R,
    ) -> R {
        let mut dims = [0usize; MAX_RANK];
        dims[..self.rank].copy_from_slice(&self.dims[..self.rank]);
        dims[0] = hi - lo;
        let sub = Nest {
            dims: &dims,
            ..*self
        };
        f(&sub, lo * self.a[0], lo * self.b[0])
    }

    /// How many tasks an output of `len` elements splits into along the outermost axis (1: it
    /// stays on the calling thread; see [`super::parallel`]).
    #[inline(always)]
    fn outer_tasks(&self, len: usize) -> usize {
        super::parallel::tasks(len, if self.rank > 0 { self.dims[0] } else { 1 })
    }

    /// Runs `part(sub_plan, offset_a, offset_b, chunk)` for each of `tasks` slices of the
    /// outermost axis (feature `rayon`: across threads), the offsets being where each input's
    /// part starts. The closure is built only once the caller has decided to split, so the
    /// single-threaded path pays for none of it.
    ///
    /// Out of line and cold: inlined, the split path's own copies of the row loops sat in
    /// every caller. With it (and the thread-count test) out of line, a small 4x4+4x1 add
    /// pays 19 instructions for feature `rayon` through `binary_into` (35 before) and 11
    /// through a prepared plan (27); callgrind, `benches/runtime_probe.rs`.
    #[cold]
    #[inline(never)]
    fn split_outer<V: Send>(
        &self,
        tasks: usize,
        out: &mut [V],
        part: impl Fn(&Nest<'_>, usize, usize, &mut [V]) + Sync + Send,
    ) {
        let d0 = self.dims[0];
        let inner = out.len() / d0;
        let per = d0.div_ceil(tasks);
        super::parallel::for_each_chunk(out, per * inner, true, |t, chunk| {
            let lo = t * per;
            self.outer_slice(lo, lo + chunk.len() / inner, |sub, oa, ob| {
                part(sub, oa, ob, chunk)
            });
        });
    }

    /// [`run_hinted`](Self::run_hinted), split along the outermost axis across threads when
    /// the output is large. Each element is computed exactly as on one thread.
    #[inline(always)]
    pub(crate) fn run_split<X: Sync, Y: Sync, V: Send>(
        &self,
        hint: impl Hint,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        f: impl Fn(&X, &Y) -> V + Sync + Send,
    ) {
        let tasks = self.outer_tasks(out.len());
        if tasks <= 1 {
            return self.run_hinted(hint, a, b, out, f);
        }
        self.split_outer(tasks, out, |sub, oa, ob, chunk| {
            sub.run_hinted(hint, &a[oa..], &b[ob..], chunk, &f)
        });
    }

    /// [`run_update`](Self::run_update), split like [`run_split`](Self::run_split).
    #[inline(always)]
    pub(crate) fn run_update_split<Y: Sync, V: Send>(
        &self,
        b: &[Y],
        out: &mut [V],
        f: impl Fn(&mut V, &Y) + Sync + Send,
    ) {
        let tasks = self.outer_tasks(out.len());
        if tasks <= 1 {
            return self.run_update(b, out, f);
        }
        self.split_outer(tasks, out, |sub, _, ob, chunk| {
            sub.run_update(&b[ob..], chunk, &f)
        });
    }

    /// Whether one input repeats with a short period `n` along the two innermost axes while
    /// the other is contiguous there: the innermost axis (`n <= MAX_PERIOD` long) is
    /// contiguous in both, and along the next one the repeating input stays (stride 0) while
    /// the other moves on by `n`. `[.., 3]` against `[3]` or `[1, .., 1, 3]` merge to that.
    #[inline(always)]
    fn period(&self) -> Option<Repeats> {
        if self.rank < 2 {
            return None;
        }
        let (i, k) = (self.rank - 1, self.rank - 2);
        let n = self.dims[i];
        if !(2..=MAX_PERIOD).contains(&n) || (self.a[i], self.b[i]) != (1, 1) || self.dims[k] < 2 {
            return None;
        }
        match (self.a[k], self.b[k]) {
            (x, 0) if x == n => Some(Repeats::B),
            (0, y) if y == n => Some(Repeats::A),
            _ => None,
        }
    }

    /// [`run_hinted`](Self::run_hinted) for `Copy` inputs: where one input repeats with a
    /// short period ([`period`](Self::period)), each block of the two innermost axes is one
    /// contiguous run of the other input, and the repeating one is read from a stack tile
    /// holding as many whole periods as fit in [`TILE`] elements (and no more than the block
    /// has), filled once per block. The inner loop is then as long as the tile and
    /// vectorizes: `[16384, 3] - [3]` (`f32`) ran 770,937 instructions as rows of 3, 68,274
    /// so (callgrind, `benches/short_rows_probe.rs`). Every element is computed by the same `f` from the same two
    /// values, so the results are the row loops' bit for bit.
    #[inline(always)]
    pub(crate) fn run_tiled<X: Copy, Y: Copy, V>(
        &self,
        hint: impl Hint,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        f: impl FnMut(&X, &Y) -> V,
    ) {
        // A block smaller than a tile is one short run either way: filling the tile cost more
        // than the row loop saves (`binary_into` of `[4, 4] + [1, 4]`: 71 ns tiled, where
        // `[4, 4] + [4, 1]`, with no tile, took 48).
        let Some(side) = self.period().filter(|_| {
            let (i, k) = (self.rank - 1, self.rank - 2);
            self.dims[k].saturating_mul(self.dims[i]) >= TILE
        }) else {
            return self.run_hinted(hint, a, b, out, f);
        };
        #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
        if super::wide::avx2(out.len()) {
            // SAFETY: `avx2` has just checked that this CPU has AVX2.
            return unsafe { self.tiled_avx2(side, a, b, out, f) };
        }
        self.tiled(side, a, b, out, f)
    }

    /// [`tiled`](Self::tiled) compiled for AVX2, as [`Self::run_avx2`].
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    unsafe fn tiled_avx2<X: Copy, Y: Copy, V>(
        &self,
        side: Repeats,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        f: impl FnMut(&X, &Y) -> V,
    ) {
        self.tiled(side, a, b, out, f)
    }

    /// The loops of [`run_tiled`](Self::run_tiled) once [`period`](Self::period) has found
    /// the repeating input `side`.
    #[inline(always)]
    fn tiled<X: Copy, Y: Copy, V>(
        &self,
        side: Repeats,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        mut f: impl FnMut(&X, &Y) -> V,
    ) {
        let (i, k) = (self.rank - 1, self.rank - 2);
        let n = self.dims[i];
        let m = self.dims[k];
        // The two innermost axes merged into one of `m * n`: the moving input's stride 1, the
        // repeating input's 0 (its period is read from its block's offset on).
        let (mut dims, mut sa, mut sb) =
            ([0usize; MAX_RANK], [0usize; MAX_RANK], [0usize; MAX_RANK]);
        dims[..k].copy_from_slice(&self.dims[..k]);
        sa[..k].copy_from_slice(&self.a[..k]);
        sb[..k].copy_from_slice(&self.b[..k]);
        dims[k] = m * n;
        let merged = Nest {
            rank: k + 1,
            dims: &dims,
            a: &sa,
            b: &sb,
        };
        // Whole periods, no more than a block holds.
        let width = (TILE / n).min(m) * n;
        match side {
            Repeats::B => merged.drive(
                out,
                m * n,
                #[inline(always)]
                |row, oa, ob| {
                    let tile = fill_tile::<Y>(&b[ob..ob + n], width);
                    tiled_row(row, &a[oa..], &tile[..width], |x, y| f(x, y));
                },
            ),
            Repeats::A => merged.drive(
                out,
                m * n,
                #[inline(always)]
                |row, oa, ob| {
                    let tile = fill_tile::<X>(&a[oa..oa + n], width);
                    tiled_row(row, &b[ob..], &tile[..width], |y, x| f(x, y));
                },
            ),
        }
    }

    /// [`RowFn`] `r` over the plan: where the innermost axis holds `a` (stride 0) and steps
    /// through `b` one by one, or the other way round, in rows that `r.rows_pay`, each row is
    /// one call of the row form; any other plan runs `one(r, x, y)` for each element in
    /// [`run_hinted`](Self::run_hinted)'s loops.
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[inline(always)]
    pub(crate) fn run_rows<X, Y, V, O: crate::util::Slot<V>, R: RowFn<X, Y, V>>(
        &self,
        hint: impl Hint,
        a: &[X],
        b: &[Y],
        out: &mut [O],
        r: &mut R,
        mut one: impl FnMut(&mut R, &X, &Y) -> O,
    ) {
        if self.rank > 0 {
            let inner = self.rank - 1;
            let (n, ia, ib) = (self.dims[inner], self.a[inner], self.b[inner]);
            if r.rows_pay(n, out.len()) {
                match (ia, ib) {
                    (0, 1) => {
                        return self
                            .drive(out, n, |row, oa, ob| r.row_a(&a[oa], &b[ob..ob + n], row));
                    }
                    (1, 0) => {
                        return self
                            .drive(out, n, |row, oa, ob| r.row_b(&a[oa..oa + n], &b[ob], row));
                    }
                    _ => {}
                }
            }
        }
        self.run_hinted(hint, a, b, out, |x, y| one(r, x, y));
    }

    /// Runs `f` over the plan, writing `out` in row-major order. `out.len()` is the element
    /// count of the plan and is non-zero. The inner-loop variant is chosen once per call; large
    /// work runs the loops compiled for AVX2 where the CPU has it (module `wide`). This is
    /// [`run_hinted`](Self::run_hinted) with no hint.
    #[inline(always)]
    pub(crate) fn run<X, Y, V>(&self, a: &[X], b: &[Y], out: &mut [V], f: impl FnMut(&X, &Y) -> V) {
        self.run_hinted(NoHint, a, b, out, f)
    }

    /// [`run_hinted`](Self::run_hinted)'s loops compiled for AVX2, with five of the
    /// baseline's eight row bodies ([`rows_fixed`](Self::rows_fixed) with `WIDE`): each body
    /// is compiled twice in every program using the kernel, and these are the ones that carry
    /// large work (long rows, a broadcast scalar, strides, rows of 16). With all eight, a
    /// small `DynTensor` program rebuilt in release in 2.3 s of CPU against ndarray's 2.0
    /// (without the AVX2 copy at all, 1.8 s); without the 16-element body,
    /// 64x64x64x16+1x64x1x16 ran 11.2 M instructions instead of 6.2 M. The loop nest is
    /// inlined into this function (it is `#[inline(always)]`, as is everything it calls but
    /// the element function), so the whole nest gets the wider vectors.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    unsafe fn run_avx2<X, Y, V>(
        &self,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        f: impl FnMut(&X, &Y) -> V,
    ) {
        self.rows_fixed::<true, X, Y, V>(a, b, out, f)
    }

    /// [`run_update`](Self::run_update)'s loops compiled for AVX2, as [`Self::run_avx2`].
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    unsafe fn run_update_avx2<Y, V>(&self, b: &[Y], out: &mut [V], f: impl FnMut(&mut V, &Y)) {
        self.rows_update(b, out, f)
    }

    /// The loop nest of [`run`](Self::run), compiled for the build's own target: common short
    /// contiguous rows get a fixed-size body that LLVM unrolls completely, the others the
    /// bodies of [`rows_any`](Self::rows_any).
    #[inline(always)]
    fn rows<X, Y, V>(&self, a: &[X], b: &[Y], out: &mut [V], f: impl FnMut(&X, &Y) -> V) {
        self.rows_fixed::<false, X, Y, V>(a, b, out, f)
    }

    /// [`rows`](Self::rows), with only the 16-element fixed body when `WIDE` (the AVX2 copy:
    /// large work with rows of 16 is common, heads and channels of 16; each body is compiled
    /// again in every program, so the shorter ones, which serve small calls, stay out).
    #[inline(always)]
    fn rows_fixed<const WIDE: bool, X, Y, V>(
        &self,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        mut f: impl FnMut(&X, &Y) -> V,
    ) {
        // Rows, not one run: a single run takes the general loop, which LLVM vectorizes (the
        // 16-element body, for `4x4 + 4x4` as one run, stayed 16 scalar adds).
        if self.rank > 1 {
            let inner = self.rank - 1;
            let (n, ia, ib) = (self.dims[inner], self.a[inner], self.b[inner]);
            // Every row body is `#[inline(always)]` (here, in `rows_hinted` and
            // `rows_update`): in the split path's copy, whose element function is a
            // reference, LLVM left the 16-element body a function of its own, called per row
            // and compiled for the baseline outside the AVX2 copy. 64x64x64x16+1x64x1x16 on
            // two threads ran 2.1x the instructions of one thread's copy (callgrind), 690
            // against 610 us by the median.
            if (ia, ib, n) == (1, 1, 16) {
                return self.drive(
                    out,
                    n,
                    #[inline(always)]
                    |row, oa, ob| fixed::<16, _, _, _>(row, a, oa, b, ob, &mut f),
                );
            }
            // A constant: the AVX2 copy compiles neither body.
            if !WIDE {
                if (ia, ib, n) == (1, 1, 8) {
                    return self.drive(
                        out,
                        n,
                        #[inline(always)]
                        |row, oa, ob| fixed::<8, _, _, _>(row, a, oa, b, ob, &mut f),
                    );
                }
                if (ia, ib, n) == (1, 1, 4) {
                    return self.drive(
                        out,
                        n,
                        #[inline(always)]
                        |row, oa, ob| fixed::<4, _, _, _>(row, a, oa, b, ob, &mut f),
                    );
                }
            }
        }
        self.rows_any(a, b, out, f)
    }

    /// The loop bodies for rows of any length: contiguous, a broadcast scalar on either side,
    /// strided.
    #[inline(always)]
    fn rows_any<X, Y, V>(&self, a: &[X], b: &[Y], out: &mut [V], mut f: impl FnMut(&X, &Y) -> V) {
        if self.rank == 0 {
            out[0] = f(&a[0], &b[0]);
            return;
        }
        let inner = self.rank - 1;
        let (n, ia, ib) = (self.dims[inner], self.a[inner], self.b[inner]);
        match (ia, ib) {
            (1, 1) => self.drive(
                out,
                n,
                #[inline(always)]
                |row, oa, ob| {
                    for ((o, x), y) in row.iter_mut().zip(&a[oa..oa + n]).zip(&b[ob..ob + n]) {
                        *o = f(x, y);
                    }
                },
            ),
            (0, 1) => self.drive(
                out,
                n,
                #[inline(always)]
                |row, oa, ob| {
                    let x = &a[oa];
                    for (o, y) in row.iter_mut().zip(&b[ob..ob + n]) {
                        *o = f(x, y);
                    }
                },
            ),
            (1, 0) => self.drive(
                out,
                n,
                #[inline(always)]
                |row, oa, ob| {
                    let y = &b[ob];
                    for (o, x) in row.iter_mut().zip(&a[oa..oa + n]) {
                        *o = f(x, y);
                    }
                },
            ),
            _ => self.drive(
                out,
                n,
                #[inline(always)]
                |row, oa, ob| {
                    for (k, o) in row.iter_mut().enumerate() {
                        *o = f(&a[oa + k * ia], &b[ob + k * ib]);
                    }
                },
            ),
        }
    }

    /// [`run`](Self::run), but when the innermost run is contiguous in both inputs and its
    /// length equals `hint` (a constant after monomorphization, from the static dims of a
    /// mixed shape), the row loop has that constant trip count, as in a static kernel.
    #[inline(always)]
    pub(crate) fn run_hinted<X, Y, V>(
        &self,
        hint: impl Hint,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        f: impl FnMut(&X, &Y) -> V,
    ) {
        #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
        if super::wide::avx2(out.len()) {
            // SAFETY: `avx2` has just checked that this CPU has AVX2.
            return unsafe { self.run_avx2(a, b, out, f) };
        }
        self.rows_hinted(hint, a, b, out, f)
    }

    /// The loop nest of [`run_hinted`](Self::run_hinted), compiled for the build's own target.
    #[inline(always)]
    fn rows_hinted<X, Y, V, H: Hint>(
        &self,
        hint: H,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        mut f: impl FnMut(&X, &Y) -> V,
    ) {
        // A constant: without a hint, this body is never compiled.
        if H::SOME {
            let hint = hint.len();
            if self.rank > 0 {
                let inner = self.rank - 1;
                if hint > 1 && self.dims[inner] == hint && (self.a[inner], self.b[inner]) == (1, 1)
                {
                    self.drive(
                        out,
                        hint,
                        #[inline(always)]
                        |row, oa, ob| {
                            for ((o, x), y) in
                                row.iter_mut().zip(&a[oa..oa + hint]).zip(&b[ob..ob + hint])
                            {
                                *o = f(x, y);
                            }
                        },
                    );
                    return;
                }
            }
        }
        self.rows(a, b, out, f);
    }

    /// `f(out[i], b[i])` in place for every element of `out`, whose own layout is the plan's
    /// output (row-major); `b` is read at the plan's second strides. The in-place form behind
    /// `+=` and its kin.
    #[inline(always)]
    pub(crate) fn run_update<Y, V>(&self, b: &[Y], out: &mut [V], f: impl FnMut(&mut V, &Y)) {
        #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
        if super::wide::avx2(out.len()) {
            // SAFETY: `avx2` has just checked that this CPU has AVX2.
            return unsafe { self.run_update_avx2(b, out, f) };
        }
        self.rows_update(b, out, f)
    }

    /// The loop nest of [`run_update`](Self::run_update), compiled for the build's own target.
    #[inline(always)]
    fn rows_update<Y, V>(&self, b: &[Y], out: &mut [V], mut f: impl FnMut(&mut V, &Y)) {
        if self.rank == 0 {
            f(&mut out[0], &b[0]);
            return;
        }
        let inner = self.rank - 1;
        let (n, ib) = (self.dims[inner], self.b[inner]);
        match ib {
            1 => self.drive(
                out,
                n,
                #[inline(always)]
                |row, _, ob| {
                    for (o, y) in row.iter_mut().zip(&b[ob..ob + n]) {
                        f(o, y);
                    }
                },
            ),
            0 => self.drive(
                out,
                n,
                #[inline(always)]
                |row, _, ob| {
                    let y = &b[ob];
                    for o in row.iter_mut() {
                        f(o, y);
                    }
                },
            ),
            _ => self.drive(
                out,
                n,
                #[inline(always)]
                |row, _, ob| {
                    for (k, o) in row.iter_mut().enumerate() {
                        f(o, &b[ob + k * ib]);
                    }
                },
            ),
        }
    }

    /// Calls `row(out_row, offset_a, offset_b)` for each innermost run: the second-innermost
    /// axis is a plain counted loop (short inner runs pay no odometer), the axes above it an
    /// odometer. The odometer's buffer holds `SMALL` axes; a deeper nest (more than `SMALL + 2`
    /// axes after merging: rare) finds each block's offsets by division instead, in the same
    /// function, so that no kernel gets a second copy of its loops for it.
    #[inline(always)]
    fn drive<V>(&self, out: &mut [V], n: usize, mut row: impl FnMut(&mut [V], usize, usize)) {
        if self.rank == 1 {
            // One run, the whole output: no blocks to cut (their remainder cost a division).
            return row(out, 0, 0);
        }
        let (m, ja, jb) = if self.rank >= 2 {
            let k = self.rank - 2;
            (self.dims[k], self.a[k], self.b[k])
        } else {
            (1, 0, 0)
        };
        let outer = self.rank.saturating_sub(2);
        let mut index = [0usize; SMALL];
        let (mut oa, mut ob) = (0usize, 0usize);
        for (t, block) in out.chunks_exact_mut(m * n).enumerate() {
            let (mut ra, mut rb) = (oa, ob);
            for out_row in block.chunks_exact_mut(n) {
                row(out_row, ra, rb);
                ra += ja;
                rb += jb;
            }
            if outer > SMALL {
                (oa, ob) = self.block_offsets(t + 1);
                continue;
            }
            let mut axis = outer;
            while axis > 0 {
                axis -= 1;
                index[axis] += 1;
                oa += self.a[axis];
                ob += self.b[axis];
                if index[axis] < self.dims[axis] {
                    break;
                }
                oa -= self.a[axis] * self.dims[axis];
                ob -= self.b[axis] * self.dims[axis];
                index[axis] = 0;
            }
        }
    }

    /// Where each input's part of block `t` starts (a block: the two innermost axes), by
    /// division over the outer axes; for [`drive`](Self::drive)'s deep nests.
    #[inline(never)]
    fn block_offsets(&self, mut t: usize) -> (usize, usize) {
        let (mut oa, mut ob) = (0, 0);
        for axis in (0..self.rank.saturating_sub(2)).rev() {
            let d = self.dims[axis];
            let i = t % d;
            t /= d;
            oa += i * self.a[axis];
            ob += i * self.b[axis];
        }
        (oa, ob)
    }
}

/// One row of a tiled block: `out[i] = g(run[i], tile[i % width])`, `run` the contiguous
/// input (at least as long as `out`) and `tile` whole periods of the repeating one (`width`
/// elements, a multiple of the period, so the remainder of the row starts a period). `g` takes
/// the contiguous input first, whichever side of the operation it is.
#[inline(always)]
fn tiled_row<P, Q, V>(out: &mut [V], run: &[P], tile: &[Q], mut g: impl FnMut(&P, &Q) -> V) {
    let width = tile.len();
    let mut ins = run[..out.len()].chunks_exact(width);
    let mut outs = out.chunks_exact_mut(width);
    for (o, x) in outs.by_ref().zip(ins.by_ref()) {
        for ((o, x), y) in o.iter_mut().zip(x).zip(tile) {
            *o = g(x, y);
        }
    }
    for ((o, x), y) in outs
        .into_remainder()
        .iter_mut()
        .zip(ins.remainder())
        .zip(tile)
    {
        *o = g(x, y);
    }
}

/// A tile of [`TILE`] elements whose first `width` (a multiple of `period.len()`, at most
/// [`TILE`]) repeat `period`: the period copied once, then the filled part doubled.
#[inline(always)]
fn fill_tile<T: Copy>(period: &[T], width: usize) -> [T; TILE] {
    let mut tile = [period[0]; TILE];
    let n = period.len();
    tile[..n].copy_from_slice(period);
    let mut filled = n;
    while filled < width {
        let take = filled.min(width - filled);
        tile.copy_within(..take, filled);
        filled += take;
    }
    tile
}

/// One row of exactly `N` contiguous elements from each input, as fixed-size arrays.
#[inline(always)]
fn fixed<const N: usize, X, Y, V>(
    row: &mut [V],
    a: &[X],
    oa: usize,
    b: &[Y],
    ob: usize,
    f: &mut impl FnMut(&X, &Y) -> V,
) {
    let (Ok(row), Ok(xs), Ok(ys)) = (
        <&mut [V; N]>::try_from(row),
        <&[X; N]>::try_from(&a[oa..oa + N]),
        <&[Y; N]>::try_from(&b[ob..ob + N]),
    ) else {
        return; // unreachable: the caller matched the row length
    };
    for k in 0..N {
        row[k] = f(&xs[k], &ys[k]);
    }
}

/// The product of the trailing dims that are static and equal in both shapes: a row length
/// known at compile time (0 when there is none). See [`Plan::run_hinted`].
pub(crate) const fn static_inner_run(a: &[Option<usize>], b: &[Option<usize>]) -> usize {
    let (mut i, mut j, mut run) = (a.len(), b.len(), 1usize);
    while i > 0 && j > 0 {
        match (a[i - 1], b[j - 1]) {
            (Some(x), Some(y)) if x == y && x > 1 => match run.checked_mul(x) {
                Some(r) => run = r,
                None => break,
            },
            _ => break,
        }
        i -= 1;
        j -= 1;
    }
    if run > 1 {
        run
    } else {
        0
    }
}

/// Writes `f(a, b)` for every element of `out_dims` into `out`, both inputs right-aligned and
/// broadcast onto `out_dims` one-directionally. For callers whose shapes are already known to
/// fit (the static kernel): no mode is resolved. `out.len()` is the element count.
#[inline(always)]
pub(crate) fn zip_onto<X, Y, V>(
    out_dims: &[usize],
    a: ArrayRef<'_, X>,
    b: ArrayRef<'_, Y>,
    out: &mut [V],
    hint: impl Hint,
    f: impl Apply<X, Y, V>,
) {
    if out.is_empty() {
        return;
    }
    let (pa, pb) = (
        Placement::At(out_dims.len() - a.shape.len()),
        Placement::At(out_dims.len() - b.shape.len()),
    );
    if out_dims.len() <= SMALL {
        f.apply(
            &Plan::<SMALL>::new(out_dims, &a, pa, &b, pb).nest(),
            hint,
            a.data,
            b.data,
            out,
        );
    } else {
        f.apply(
            &Plan::<MAX_RANK>::new(out_dims, &a, pa, &b, pb).nest(),
            hint,
            a.data,
            b.data,
            out,
        );
    }
}

/// True if `pred` holds for some element of `input` (each logical element visited once).
pub(crate) fn any<T>(input: &ArrayRef<'_, T>, mut pred: impl FnMut(&T) -> bool) -> bool {
    if input.shape.contains(&0) {
        return false;
    }
    let mut found = false;
    // A walk over `input` alone: the plan of `input` on its own shape.
    let mut visit = |x: &T| found |= pred(x);
    if input.shape.len() <= SMALL {
        let plan = Plan::<SMALL>::new(
            input.shape,
            input,
            Placement::At(0),
            input,
            Placement::At(0),
        );
        walk(&plan, input.data, &mut visit);
    } else {
        let plan = Plan::<MAX_RANK>::new(
            input.shape,
            input,
            Placement::At(0),
            input,
            Placement::At(0),
        );
        walk(&plan, input.data, &mut visit);
    }
    found
}

/// Visits every element of the plan's input in row-major order, without an output buffer.
fn walk<T, const CAP: usize>(plan: &Plan<CAP>, data: &[T], visit: &mut impl FnMut(&T)) {
    if plan.rank == 0 {
        visit(&data[0]);
        return;
    }
    let inner = plan.rank - 1;
    // At most the element count of an input that exists.
    let rows: usize = plan.dims[..inner].iter().product();
    let mut index = [0usize; CAP];
    let mut oa = 0usize;
    for _ in 0..rows {
        for k in 0..plan.dims[inner] {
            visit(&data[oa + k * plan.a[inner]]);
        }
        let mut axis = inner;
        while axis > 0 {
            axis -= 1;
            index[axis] += 1;
            oa += plan.a[axis];
            if index[axis] < plan.dims[axis] {
                break;
            }
            oa -= plan.a[axis] * plan.dims[axis];
            index[axis] = 0;
        }
    }
}

/// `f(out[i], b[i])` in place over `out_dims` (row-major), `b` right-aligned and broadcast onto
/// it one-directionally; for callers whose shapes are known to fit (the static kernel).
#[inline(always)]
pub(crate) fn update_onto<Y, V>(
    out_dims: &[usize],
    out: &mut [V],
    b: ArrayRef<'_, Y>,
    f: impl ApplyUpdate<Y, V>,
) {
    if out.is_empty() {
        return;
    }
    let own = ArrayRef::<u8>::trusted(out_dims, &[]);
    let pb = Placement::At(out_dims.len() - b.shape.len());
    if out_dims.len() <= SMALL {
        let plan = Plan::<SMALL>::new(out_dims, &own, Placement::At(0), &b, pb);
        f.apply_update(&plan.nest(), b.data, out);
    } else {
        let plan = Plan::<MAX_RANK>::new(out_dims, &own, Placement::At(0), &b, pb);
        f.apply_update(&plan.nest(), b.data, out);
    }
}

#[cfg(test)]
mod tests {
    use super::static_inner_run;

    /// The AVX2 copy of the loop nest (module `wide`) against the baseline copy, bit for bit,
    /// on every inner-loop variant: rows of 16, 8 and 4 and of any length, a broadcast scalar
    /// on either side, strided reads, the in-place form. Called directly, not through the
    /// size test, so short outputs are covered too; skipped where the CPU lacks AVX2. Under
    /// Miri it runs when the build enables AVX2 (`-C target-feature=+avx2`, as CI does).
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[test]
    fn avx2_loops_write_what_the_baseline_loops_write() {
        use super::{Placement, Plan, SMALL};
        use crate::runtime::ArrayRef;
        use std::vec::Vec;
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        // Floats with the values where lanes could disagree: NaN payloads, signed zeros,
        // infinities, subnormals.
        let specials = [
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7fc0_1234),
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-40,
            -3.5,
            f32::MAX,
        ];
        let value = |i: usize| match i % 13 {
            k if k < specials.len() => specials[k],
            k => (i as f32 - 300.0) * 0.37 + k as f32,
        };
        // (a's shape, a's strides, b's shape): the output is a's shape.
        let cases: [(&[usize], &[usize], &[usize]); 10] = [
            (&[9, 16], &[16, 1], &[1, 16]),      // rows of 16
            (&[9, 8], &[8, 1], &[1, 8]),         // rows of 8
            (&[9, 4], &[4, 1], &[1, 4]),         // rows of 4
            (&[7, 37], &[37, 1], &[1, 37]),      // rows of any length
            (&[7, 37], &[1, 0], &[1, 37]),       // a is a scalar along each row
            (&[7, 37], &[37, 1], &[7, 1]),       // b is a scalar along each row
            (&[7, 37], &[1, 7], &[7, 37]),       // a transposed: strided reads
            (&[3, 5, 37], &[185, 37, 1], &[37]), // an odometer over two outer axes
            (&[29, 3], &[3, 1], &[3]),           // b repeats with a period of 3
            (&[2, 23, 5], &[115, 5, 1], &[5]),   // a period of 5 over two outer axes
        ];
        let mut tiled_cases = 0;
        for (sa, st, sb) in cases {
            let n: usize = sa.iter().product();
            let len_a = sa.iter().zip(st).map(|(d, s)| (d - 1) * s).sum::<usize>() + 1;
            let a: Vec<f32> = (0..len_a).map(value).collect();
            let b: Vec<f32> = (0..sb.iter().product()).map(|i| value(i * 7 + 3)).collect();
            let ra = ArrayRef::with_strides(sa, st, &a).unwrap();
            let rb = ArrayRef::new(sb, &b).unwrap();
            let pb = Placement::At(sa.len() - sb.len());
            let plan = Plan::<SMALL>::new(sa, &ra, Placement::At(0), &rb, pb);
            let f = |x: &f32, y: &f32| x * y + (x - y) / 3.0;
            // Every bit is compared but a NaN's: Rust leaves the sign and payload of a NaN
            // result unspecified (which operand's NaN an addition of two NaNs returns depends
            // on the order the code generator chose), and Miri picks them at random.
            let canon = |x: &f32| match x.is_nan() {
                true => f32::NAN.to_bits(),
                false => x.to_bits(),
            };
            let bits = |v: &[f32]| v.iter().map(canon).collect::<Vec<_>>();
            if let Some(side) = plan.nest().period() {
                // The tiled loops and their AVX2 copy.
                let (mut narrow, mut wide) = (std::vec![0.0f32; n], std::vec![1.0f32; n]);
                plan.nest().tiled(side, &a, &b, &mut narrow, f);
                // SAFETY: this CPU has AVX2 (checked above).
                unsafe { plan.nest().tiled_avx2(side, &a, &b, &mut wide, f) };
                assert_eq!(bits(&wide), bits(&narrow), "{sa:?} {st:?} + {sb:?}, tiled");
                tiled_cases += 1;
            }
            for hint in [0, sa[sa.len() - 1]] {
                let (mut narrow, mut wide) = (std::vec![0.0f32; n], std::vec![1.0f32; n]);
                plan.nest().rows_hinted(hint, &a, &b, &mut narrow, f);
                // SAFETY: this CPU has AVX2 (checked above).
                unsafe { plan.nest().run_avx2(&a, &b, &mut wide, f) };
                assert_eq!(
                    bits(&wide),
                    bits(&narrow),
                    "{sa:?} {st:?} + {sb:?}, hint {hint}"
                );
            }
            if st == [sa[1], 1] || sa.len() == 3 {
                // In place (`+=`): the output is laid out as a.
                let g = |x: &mut f32, y: &f32| *x = (*x - *y) * 0.5 + *y;
                let (mut narrow, mut wide) = (a.clone(), a.clone());
                plan.nest().rows_update(&b, &mut narrow, g);
                // SAFETY: as above.
                unsafe { plan.nest().run_update_avx2(&b, &mut wide, g) };
                assert_eq!(bits(&wide), bits(&narrow), "{sa:?} += {sb:?}");
            }
        }
        assert_eq!(
            tiled_cases, 5,
            "rows of 16, 8 and 4 and periods 3 and 5 take the tiled loops"
        );
    }

    #[test]
    fn static_inner_run_takes_trailing_dims_static_and_equal_in_both() {
        assert_eq!(
            static_inner_run(&[None, Some(64)], &[Some(1), Some(64)]),
            64
        );
        assert_eq!(
            static_inner_run(&[Some(2), Some(3)], &[Some(2), Some(3)]),
            6
        );
        assert_eq!(static_inner_run(&[Some(2), Some(3)], &[Some(3)]), 3);
        assert_eq!(
            static_inner_run(&[Some(3)], &[Some(1)]),
            0,
            "a broadcast dim ends the run"
        );
        assert_eq!(static_inner_run(&[None], &[None]), 0);
        assert_eq!(static_inner_run(&[], &[]), 0);
        let big = Some(usize::MAX);
        assert_eq!(
            static_inner_run(&[big, Some(2)], &[big, Some(2)]),
            2,
            "overflow stops the run"
        );
    }
}
