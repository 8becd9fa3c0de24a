//! The binary primitive's single pass: every source, every post-op operand and the destination
//! walked together, the post-op chain applied block by block while the block is in L1.
//!
//! Plan: each operand's strides in the destination's index space (0 where it broadcasts), axes
//! ordered as the destination lies in memory, size-1 axes dropped, adjacent axes merged where
//! every operand steps alike. The innermost axis runs in blocks of [`BLOCK`] elements: the
//! algorithm writes the block (into the destination itself when it is contiguous), each post-op
//! then runs over it as one tight loop, and a strided destination gets the block scattered.

use super::blocked::{self, Split, View, PLAN_RANK};
use super::element::{with_alg, Alg, DataType, Eltwise};
use super::memory::{axes_by_stride, Desc, MemRef};
use crate::element::{relu, Real};
use core::marker::PhantomData;

/// Elements per block: long enough that the per-block dispatch (about a hundred instructions)
/// is noise, short enough for L1. Five scratch blocks live on the stack, so 32-bit targets
/// (microcontrollers with small stacks) use shorter blocks: 2.5 KiB of f32 there, 20 KiB here.
#[cfg(target_pointer_width = "64")]
pub(crate) const BLOCK: usize = 1024;
/// Elements per block (short: small stacks on 32-bit targets).
#[cfg(not(target_pointer_width = "64"))]
pub(crate) const BLOCK: usize = 128;

/// Two sources, up to [`MAX_POST_OPS`](super::MAX_POST_OPS) operands, the destination.
const MAX_OPERANDS: usize = 3 + super::MAX_POST_OPS;

/// The most inputs one plan reads as a repeated tile (see [`Plan::merge_periodic`]).
const MAX_TILES: usize = 2;

/// No tile: the input is read in place.
const NO_TILE: u8 = u8::MAX;

/// One step of the post-op chain, with parameters already converted.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step<T> {
    Eltwise(Eltwise),
    Sum(T),
    /// The algorithm, the operand's position in the operand list, and whether a ReLU follows
    /// (fused into the same loop).
    Binary(Alg, usize, bool),
}

/// What one call computes. Post-op operands are stored as `T`, the sources as `A` and `B`, the
/// destination as `D`; every value is computed as `T::Compute` (the same type for `f32` and
/// `f64`; `f32` for the half floats and 8-bit integers), converted once at the store.
pub(crate) struct Job<'s, 'd, T: Real, A, B, D> {
    pub(crate) alg: Alg,
    /// A ReLU directly after the algorithm, fused into its loop.
    pub(crate) relu: bool,
    /// Source scales; `None` when both are 1.
    pub(crate) scales: Option<[T::Compute; 2]>,
    pub(crate) src0: MemRef<'s, A>,
    pub(crate) src1: MemRef<'s, B>,
    pub(crate) chain: &'s [Step<T::Compute>],
    pub(crate) operands: &'s [MemRef<'s, T>],
    pub(crate) dst: &'d mut [D],
    pub(crate) dst_desc: Desc,
    /// The dims blocked layouts split (none for plain and strided memory).
    pub(crate) split: Split,
    /// src0 is the destination (O8): its values are read from `dst`, `src0.data` is empty.
    pub(crate) in_place: bool,
}

/// The descriptors of a run's memories in operand order (src0, src1, the post-op operands, the
/// destination), and how many there are: for the blocked split and for each piece's plan.
pub(crate) fn descs<'j, T>(
    src0: &'j Desc,
    src1: &'j Desc,
    operands: &'j [MemRef<'_, T>],
    dst: &'j Desc,
) -> ([&'j Desc; MAX_OPERANDS], usize) {
    let mut all = [dst; MAX_OPERANDS];
    all[0] = src0;
    all[1] = src1;
    for (slot, op) in all[2..].iter_mut().zip(operands) {
        *slot = &op.desc;
    }
    (all, 3 + operands.len())
}

/// A block's worth of one input: a run of elements or one broadcast value.
#[derive(Clone, Copy)]
enum Lane<'a, T> {
    Slice(&'a [T]),
    Scalar(T),
}

/// The input at `off` stepping `stride`, `len` elements, scaled when asked, in the compute
/// type; gathered into `tmp` when it is neither contiguous nor broadcast, when it is scaled,
/// or when it is stored as another type (the half floats, 8-bit integers).
#[inline(always)]
fn lane<'a, C: Real, X: DataType<C>>(
    data: &'a [X],
    off: usize,
    stride: usize,
    len: usize,
    scale: Option<C>,
    tmp: &'a mut [C; BLOCK],
) -> Lane<'a, C> {
    match (stride, scale) {
        (0, _) => {
            let x = data[off].load();
            Lane::Scalar(scale.map_or(x, |s| x * s))
        }
        (1, None) => match X::as_compute(&data[off..off + len]) {
            Some(same) => Lane::Slice(same),
            None => {
                gather(&mut tmp[..len], data, off, 1, None);
                Lane::Slice(&tmp[..len])
            }
        },
        _ => {
            gather(&mut tmp[..len], data, off, stride, scale);
            Lane::Slice(&tmp[..len])
        }
    }
}

/// `out.len()` values of `data` from `off` stepping `stride`, loaded into the compute type and
/// scaled when asked. The contiguous forms are loops of their own, which LLVM vectorizes (the
/// strided loop it does not: an in-place add that read its block through it ran at 2x the
/// out-of-place time).
#[inline(always)]
fn gather<C: Real, X: DataType<C>>(
    out: &mut [C],
    data: &[X],
    off: usize,
    stride: usize,
    scale: Option<C>,
) {
    let len = out.len();
    match (stride, scale) {
        (1, None) => {
            for (t, &x) in out.iter_mut().zip(&data[off..off + len]) {
                *t = x.load();
            }
        }
        (1, Some(s)) => {
            for (t, &x) in out.iter_mut().zip(&data[off..off + len]) {
                *t = x.load() * s;
            }
        }
        (_, s) => {
            for (i, t) in out.iter_mut().enumerate() {
                // In range: the descriptor's span was checked against the buffer.
                let x = data[off + i * stride].load();
                *t = s.map_or(x, |s| x * s);
            }
        }
    }
}

/// A tile: the input's row of `period` values from `off` stepping `stride`, loaded (and
/// scaled) once, repeated to fill `tile`.
#[inline(always)]
fn fill_tile<C: Real, X: DataType<C>>(
    tile: &mut [C],
    data: &[X],
    off: usize,
    stride: usize,
    period: usize,
    scale: Option<C>,
) {
    let first = period.min(tile.len());
    gather(&mut tile[..first], data, off, stride, scale);
    // Then doubled: no `i % period` (a division per element) in the loop.
    let mut filled = first;
    while filled < tile.len() {
        let n = filled.min(tile.len() - filled);
        tile.copy_within(..n, filled);
        filled += n;
    }
}

// The loops below index slices cut to one length, which LLVM turns into plain vector loops
// with no per-element bounds checks (a three-way `zip` cost about one extra instruction per
// element).

#[inline(always)]
fn zip_lanes<T: Real>(out: &mut [T], a: Lane<'_, T>, b: Lane<'_, T>, f: impl Fn(T, T) -> T) {
    let n = out.len();
    match (a, b) {
        (Lane::Slice(a), Lane::Slice(b)) => {
            let (a, b) = (&a[..n], &b[..n]);
            for i in 0..n {
                out[i] = f(a[i], b[i]);
            }
        }
        (Lane::Slice(a), Lane::Scalar(y)) => {
            let a = &a[..n];
            for i in 0..n {
                out[i] = f(a[i], y);
            }
        }
        (Lane::Scalar(x), Lane::Slice(b)) => {
            let b = &b[..n];
            for i in 0..n {
                out[i] = f(x, b[i]);
            }
        }
        (Lane::Scalar(x), Lane::Scalar(y)) => out.fill(f(x, y)),
    }
}

#[inline(always)]
fn zip_in_place<T: Real>(out: &mut [T], b: Lane<'_, T>, f: impl Fn(T, T) -> T) {
    let n = out.len();
    match b {
        Lane::Slice(b) => {
            let b = &b[..n];
            for i in 0..n {
                out[i] = f(out[i], b[i]);
            }
        }
        Lane::Scalar(y) => {
            for o in out.iter_mut() {
                *o = f(*o, y);
            }
        }
    }
}

/// `out = a (alg) b`, then ReLU in the same loop when `then_relu` (the most common chain
/// in inference: bias or residual add, then ReLU) so the block is not swept twice.
#[inline(always)]
fn combine<T: Real>(alg: Alg, then_relu: bool, out: &mut [T], a: Lane<'_, T>, b: Lane<'_, T>) {
    if then_relu {
        with_alg!(alg, |f| zip_lanes(out, a, b, |x, y| relu(f(x, y))))
    } else {
        with_alg!(alg, |f| zip_lanes(out, a, b, f))
    }
}

/// `out = out (alg) b`, then ReLU in the same loop when `then_relu`.
#[inline(always)]
fn combine_in_place<T: Real>(alg: Alg, then_relu: bool, out: &mut [T], b: Lane<'_, T>) {
    if then_relu {
        with_alg!(alg, |f| zip_in_place(out, b, |x, y| relu(f(x, y))))
    } else {
        with_alg!(alg, |f| zip_in_place(out, b, f))
    }
}

/// The chain shape that bias, scale and residual blocks produce: `(a (alg) b)`, optionally
/// ReLU, then `(alg2) c` from the first binary post-op, in one loop, for `alg` in add, sub,
/// mul and `alg2` in add, mul. Returns `false` (and does nothing) for any other shape, which
/// then takes the step-by-step path.
#[inline(always)]
fn fused_pair<T: Real>(
    alg: Alg,
    then_relu: bool,
    alg2: Alg,
    out: &mut [T],
    a: &[T],
    b: Lane<'_, T>,
    c: Lane<'_, T>,
) -> bool {
    let n = out.len();
    let a = &a[..n];
    macro_rules! go {
        ($f:expr) => {{
            let f = $f;
            match (b, c) {
                (Lane::Slice(b), Lane::Slice(c)) => {
                    let (b, c) = (&b[..n], &c[..n]);
                    for i in 0..n {
                        out[i] = f(a[i], b[i], c[i]);
                    }
                }
                (Lane::Slice(b), Lane::Scalar(z)) => {
                    let b = &b[..n];
                    for i in 0..n {
                        out[i] = f(a[i], b[i], z);
                    }
                }
                (Lane::Scalar(y), Lane::Slice(c)) => {
                    let c = &c[..n];
                    for i in 0..n {
                        out[i] = f(a[i], y, c[i]);
                    }
                }
                (Lane::Scalar(y), Lane::Scalar(z)) => {
                    for i in 0..n {
                        out[i] = f(a[i], y, z);
                    }
                }
            }
            true
        }};
    }
    macro_rules! second {
        ($first:expr) => {{
            let first = $first;
            match (then_relu, alg2) {
                (false, Alg::Add) => go!(|x: T, y: T, z: T| first(x, y) + z),
                (false, Alg::Mul) => go!(|x: T, y: T, z: T| first(x, y) * z),
                (true, Alg::Add) => go!(|x: T, y: T, z: T| relu(first(x, y)) + z),
                (true, Alg::Mul) => go!(|x: T, y: T, z: T| relu(first(x, y)) * z),
                _ => false,
            }
        }};
    }
    match alg {
        Alg::Add => second!(|x: T, y: T| x + y),
        Alg::Sub => second!(|x: T, y: T| x - y),
        Alg::Mul => second!(|x: T, y: T| x * y),
        _ => false,
    }
}

/// The loop nest: merged axes outermost first, the last one is the row.
#[derive(Clone, Copy)]
struct Plan {
    rank: usize,
    dims: [usize; PLAN_RANK],
    /// `strides[k][axis]`: operand `k` (src0, src1, post-op operands, then the destination).
    strides: [[usize; PLAN_RANK]; MAX_OPERANDS],
    operands: usize,
    /// The period of the tiled inputs along the row (0: none is tiled).
    period: usize,
    /// Each operand's tile, or [`NO_TILE`].
    tile_of: [u8; MAX_OPERANDS],
}

impl Plan {
    fn new(dst: &View, inputs: &[View]) -> Plan {
        let operands = inputs.len() + 1;
        let order: [usize; PLAN_RANK] = axes_by_stride(&dst.strides[..dst.ndims]);
        let mut plan = Plan {
            rank: 0,
            dims: [0; PLAN_RANK],
            strides: [[0; PLAN_RANK]; MAX_OPERANDS],
            operands,
            period: 0,
            tile_of: [NO_TILE; MAX_OPERANDS],
        };
        for &axis in &order[..dst.ndims] {
            let n = dst.dims[axis];
            if n == 1 {
                continue;
            }
            // A stride in the destination's index space: 0 where the input broadcasts.
            let stride = |d: &View| {
                if d.dims[axis] == 1 {
                    0
                } else {
                    d.strides[axis]
                }
            };
            let mut col = [0usize; MAX_OPERANDS];
            for (c, d) in col.iter_mut().zip(inputs) {
                *c = stride(d);
            }
            col[operands - 1] = dst.strides[axis];
            // Merge into the previous (outer) axis when every operand steps alike.
            if plan.rank > 0 {
                let outer = plan.rank - 1;
                let alike = (0..operands).all(|k| plan.strides[k][outer] == col[k] * n);
                if alike {
                    plan.dims[outer] *= n;
                    for (k, &c) in col[..operands].iter().enumerate() {
                        plan.strides[k][outer] = c;
                    }
                    continue;
                }
            }
            plan.dims[plan.rank] = n;
            for (k, &c) in col[..operands].iter().enumerate() {
                plan.strides[k][plan.rank] = c;
            }
            plan.rank += 1;
        }
        if plan.rank == 0 {
            // Rank 0, or every dim 1: one element.
            plan.dims[0] = 1;
            plan.rank = 1;
        }
        plan.merge_periodic();
        plan
    }

    /// A short row (a block of 16 channels, the channels of a channels-last pixel) costs the
    /// per-row dispatch every few elements: an 8x256x56x56 nChw16c add of a per-channel bias
    /// ran in rows of 16. When every operand either continues contiguously from the row into
    /// the axis outside it or repeats the same row there (stride 0: the bias), the two axes
    /// become one long row, and each repeating input is read from a tile, its row repeated
    /// up to a block's length, filled once per row. The axis stays inside the outermost one,
    /// which threads split.
    fn merge_periodic(&mut self) {
        if self.rank < 3 {
            return;
        }
        let (inner, outer) = (self.rank - 1, self.rank - 2);
        let period = self.dims[inner];
        if period > BLOCK / 2 {
            return; // long enough already
        }
        let d = self.operands - 1;
        let mut tile_of = [NO_TILE; MAX_OPERANDS];
        let mut tiles = 0;
        for (k, (slot, strides)) in tile_of.iter_mut().zip(&self.strides).enumerate() {
            if k == self.operands {
                break;
            }
            let (si, so) = (strides[inner], strides[outer]);
            if so == si * period {
                continue; // contiguous across the two axes (or broadcast along both)
            }
            if k == d || so != 0 || tiles == MAX_TILES {
                return;
            }
            *slot = tiles as u8;
            tiles += 1;
        }
        if tiles == 0 {
            return; // Plan::new merged every such pair already
        }
        self.dims[outer] *= period;
        for k in 0..self.operands {
            self.strides[k][outer] = self.strides[k][inner];
        }
        self.rank -= 1;
        self.period = period;
        self.tile_of = tile_of;
    }
}

/// Runs the job. Shapes, layouts and buffer spans were checked by the caller, so every offset
/// below is in range; slicing still checks, so a bug panics rather than reads out of bounds.
///
/// Plain and strided memory is one plan. Blocked memory (O7) is one plan per piece: each
/// split dim runs over its whole blocks, then over the partial last one; a dim blocked by
/// different sizes runs one chunk (the sizes' common divisor) at a time.
pub(crate) fn run<T: Real, A, B, D>(job: Job<'_, '_, T, A, B, D>)
where
    A: DataType<T::Compute>,
    B: DataType<T::Compute>,
    D: DataType<T::Compute>,
{
    if job.dst_desc.dims().contains(&0) {
        return;
    }
    let (descs, ops) = descs(&job.src0.desc, &job.src1.desc, job.operands, &job.dst_desc);
    let dst = job.dst;
    'pieces: for number in 0..job.split.pieces() {
        let mut views = [View::EMPTY; MAX_OPERANDS];
        let mut base = [0usize; MAX_OPERANDS];
        for k in 0..ops {
            match blocked::piece(descs[k], &job.dst_desc, &job.split, number) {
                Some((v, b)) => (views[k], base[k]) = (v, b),
                None => continue 'pieces,
            }
        }
        let plan = Plan::new(&views[ops - 1], &views[..ops - 1]);
        let d = base[ops - 1];
        base[ops - 1] = 0;
        let parts = Parts {
            alg: job.alg,
            relu: job.relu,
            scales: job.scales,
            src0: job.src0.data,
            src1: job.src1.data,
            chain: job.chain,
            operands: job.operands,
            in_place: job.in_place,
        };
        run_plan(&parts, &plan, base, &mut dst[d..]);
    }
}

/// What every piece of a job shares.
struct Parts<'s, T: Real, A, B> {
    alg: Alg,
    relu: bool,
    scales: Option<[T::Compute; 2]>,
    src0: &'s [A],
    src1: &'s [B],
    chain: &'s [Step<T::Compute>],
    operands: &'s [MemRef<'s, T>],
    in_place: bool,
}

/// One plan: the operands start at `base` (the destination at the start of `dst`).
fn run_plan<T: Real, A, B, D>(
    job: &Parts<'_, T, A, B>,
    plan: &Plan,
    base: [usize; MAX_OPERANDS],
    dst: &mut [D],
) where
    A: DataType<T::Compute>,
    B: DataType<T::Compute>,
    D: DataType<T::Compute>,
{
    let plan = *plan;
    let ops = plan.operands;
    // The innermost axis is the row; the one outside it (if any) is walked by a plain loop;
    // only the axes beyond those two go through the odometer.
    let inner = plan.rank - 1;
    let mut step = [0usize; MAX_OPERANDS];
    for (s, strides) in step.iter_mut().zip(&plan.strides[..ops]) {
        *s = strides[inner];
    }
    let (row, rows, outer_rank) = match inner {
        0 => (plan.dims[0], 1, 0),
        _ => (plan.dims[inner], plan.dims[inner - 1], inner - 1),
    };
    let has_sum = job.chain.iter().any(|s| matches!(s, Step::Sum(_)));
    let row_job = Row {
        alg: job.alg,
        relu: job.relu,
        chain: job.chain,
        src0: job.src0,
        src1: job.src1,
        operands: job.operands,
        scales: job.scales,
        step,
        d: ops - 1,
        // Straight into the destination when it is contiguous, stored as it computes, and no
        // step reads its old values; otherwise through a block buffer.
        direct: step[ops - 1] == 1 && !has_sum && D::as_compute(&[]).is_some(),
        has_sum,
        row,
        period: plan.period,
        tile_of: plan.tile_of,
        in_place: job.in_place,
        // Blocks start at multiples of the period, so that every block reads the tile from 0.
        block: match plan.period {
            0 => BLOCK,
            p => BLOCK - BLOCK % p,
        },
        store: PhantomData,
    };

    // Split along the outermost axis across threads (feature `rayon`) when the work is large
    // and each index of that axis owns its own stretch of the destination (true of every dense
    // layout: the outermost axis has the largest stride). Every element is computed as on one
    // thread.
    let d = ops - 1;
    let (d0, s0) = (plan.dims[0], plan.strides[d][0]);
    let span = 1
        + (1..plan.rank).fold(0usize, |acc, k| {
            acc.saturating_add((plan.dims[k] - 1).saturating_mul(plan.strides[d][k]))
        });
    let elements = plan.dims[..plan.rank].iter().product::<usize>();
    let tasks = crate::runtime::parallel::tasks(elements, d0);
    if tasks > 1 && s0 > 0 && span <= s0 {
        let per = d0.div_ceil(tasks);
        crate::runtime::parallel::for_each_chunk(dst, per * s0, true, |t, chunk| {
            let lo = t * per;
            if lo >= d0 {
                return; // padding past the last index of the axis
            }
            let mut sub = plan;
            sub.dims[0] = (d0 - lo).min(per);
            let mut start = base;
            for (k, o) in start[..d].iter_mut().enumerate() {
                *o += lo * plan.strides[k][0];
            }
            let mut row = row_job;
            if sub.rank == 1 {
                row.row = sub.dims[0];
            }
            // The split axis is the row (rank 1), the rows (rank 2), or an odometer axis.
            let sub_rows = match sub.rank {
                1 => 1,
                2 => sub.dims[0],
                _ => rows,
            };
            drive(&sub, &row, start, sub_rows, outer_rank, chunk);
        });
        return;
    }
    drive(&plan, &row_job, base, rows, outer_rank, dst);
}

/// Walks `plan` from the operands' offsets `off` (the destination's within `dst`): `rows`
/// rows along the second-innermost axis, an odometer over the `outer_rank` axes outside it.
/// Large work runs the loops compiled for AVX2 where the CPU has it, as the runtime kernels
/// do (`crate::runtime::wide`).
fn drive<T: Real, A, B, D>(
    plan: &Plan,
    row_job: &Row<'_, T, A, B, D>,
    off: [usize; MAX_OPERANDS],
    rows: usize,
    outer_rank: usize,
    dst: &mut [D],
) where
    A: DataType<T::Compute>,
    B: DataType<T::Compute>,
    D: DataType<T::Compute>,
{
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    if crate::runtime::wide::avx2(dst.len()) {
        // SAFETY: `avx2` has just checked that this CPU has AVX2.
        return unsafe { drive_avx2(plan, row_job, off, rows, outer_rank, dst) };
    }
    drive_here(plan, row_job, off, rows, outer_rank, dst)
}

/// [`drive`]'s loops compiled for AVX2: everything under [`drive_here`] is
/// `#[inline(always)]`, so the whole nest, blocks and post-op loops included, gets the wider
/// vectors.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn drive_avx2<T: Real, A, B, D>(
    plan: &Plan,
    row_job: &Row<'_, T, A, B, D>,
    off: [usize; MAX_OPERANDS],
    rows: usize,
    outer_rank: usize,
    dst: &mut [D],
) where
    A: DataType<T::Compute>,
    B: DataType<T::Compute>,
    D: DataType<T::Compute>,
{
    drive_here(plan, row_job, off, rows, outer_rank, dst)
}

/// The loop nest of [`drive`], compiled for the build's own target.
#[inline(always)]
fn drive_here<T: Real, A, B, D>(
    plan: &Plan,
    row_job: &Row<'_, T, A, B, D>,
    mut off: [usize; MAX_OPERANDS],
    rows: usize,
    outer_rank: usize,
    dst: &mut [D],
) where
    A: DataType<T::Compute>,
    B: DataType<T::Compute>,
    D: DataType<T::Compute>,
{
    let ops = plan.operands;
    let mut row_step = [0usize; MAX_OPERANDS];
    if plan.rank > 1 {
        for (k, r) in row_step[..ops].iter_mut().enumerate() {
            *r = plan.strides[k][plan.rank - 2];
        }
    }
    let zero = <T::Compute as crate::element::Element>::ZERO;
    let mut bufs = Buffers {
        tmp_a: [zero; BLOCK],
        tmp_b: [zero; BLOCK],
        buf: [zero; BLOCK],
        buf2: [zero; BLOCK],
        old: [zero; BLOCK],
        tiles: [[zero; BLOCK]; MAX_TILES],
    };
    let mut counter = [0usize; PLAN_RANK];

    loop {
        let mut base = off;
        for _ in 0..rows {
            row_job.run(&base, dst, &mut bufs);
            for (b, &s) in base[..ops].iter_mut().zip(&row_step) {
                *b += s;
            }
        }
        // Odometer over the axes outside the last two, last fastest.
        let mut axis = outer_rank;
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            counter[axis] += 1;
            if counter[axis] < plan.dims[axis] {
                for (k, o) in off[..ops].iter_mut().enumerate() {
                    *o += plan.strides[k][axis];
                }
                break;
            }
            counter[axis] = 0;
            for (k, o) in off[..ops].iter_mut().enumerate() {
                *o -= plan.strides[k][axis] * (plan.dims[axis] - 1);
            }
        }
    }
}

/// Scratch blocks, allocated once per call.
struct Buffers<T> {
    tmp_a: [T; BLOCK],
    tmp_b: [T; BLOCK],
    buf: [T; BLOCK],
    buf2: [T; BLOCK],
    old: [T; BLOCK],
    /// Repeating inputs, their row repeated (see [`Plan::merge_periodic`]).
    tiles: [[T; BLOCK]; MAX_TILES],
}

/// Everything one row needs, fixed for the call.
struct Row<'s, T: Real, A, B, D> {
    alg: Alg,
    relu: bool,
    chain: &'s [Step<T::Compute>],
    src0: &'s [A],
    src1: &'s [B],
    operands: &'s [MemRef<'s, T>],
    scales: Option<[T::Compute; 2]>,
    /// Each operand's stride along the row.
    step: [usize; MAX_OPERANDS],
    /// The destination's operand index.
    d: usize,
    direct: bool,
    has_sum: bool,
    row: usize,
    /// The row's period and each operand's tile (see [`Plan::merge_periodic`]).
    period: usize,
    tile_of: [u8; MAX_OPERANDS],
    /// Elements per block: [`BLOCK`], or a multiple of the period.
    block: usize,
    /// src0 is the destination (O8).
    in_place: bool,
    store: PhantomData<fn(D)>,
}

impl<T: Real, A, B, D> Clone for Row<'_, T, A, B, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Real, A, B, D> Copy for Row<'_, T, A, B, D> {}

impl<T: Real, A, B, D> Row<'_, T, A, B, D>
where
    A: DataType<T::Compute>,
    B: DataType<T::Compute>,
    D: DataType<T::Compute>,
{
    /// One row, block by block, starting at the operands' offsets `off`.
    #[inline(always)]
    fn run(&self, off: &[usize; MAX_OPERANDS], dst: &mut [D], bufs: &mut Buffers<T::Compute>) {
        let (step, d) = (&self.step, self.d);
        let (s0, s1) = match self.scales {
            Some([a, b]) => (Some(a), Some(b)),
            None => (None, None),
        };
        if self.period > 0 {
            // Fill each repeating input's tile from its row at this row's offsets.
            let n = self.block.min(self.row);
            for k in 0..self.d {
                let Some(tile) = bufs.tiles.get_mut(usize::from(self.tile_of[k])) else {
                    continue;
                };
                let (o, s, p) = (off[k], step[k], self.period);
                match k {
                    0 => fill_tile(&mut tile[..n], self.src0, o, s, p, s0),
                    1 => fill_tile(&mut tile[..n], self.src1, o, s, p, s1),
                    _ => fill_tile(&mut tile[..n], self.operands[k - 2].data, o, s, p, None),
                }
            }
        }
        let tile_of = self.tile_of;
        // In place, into the destination itself, with nothing to scale: the algorithm reads
        // src0 where it writes (`out = out (alg) src1`), and the post-ops follow one by one
        // over the block in L1. Copying the block out first to keep the fused pair made the
        // in-place add 1.45 ms against 1.0 out of place (8x256x56x56, `benches/blocked.rs`);
        // this way it is 0.55.
        let over_src0 = self.in_place && self.direct && s0.is_none();
        let zero = <T::Compute as crate::element::Element>::ZERO;
        let mut j = 0;
        while j < self.row {
            let len = self.block.min(self.row - j);
            let at = |k: usize| off[k] + j * step[k];
            if self.has_sum {
                // The destination's values before this block is written, for the sum steps.
                for (i, o) in bufs.old[..len].iter_mut().enumerate() {
                    *o = dst[at(d) + i * step[d]].load();
                }
            }
            let [tile0, tile1] = &bufs.tiles;
            let tiled = |k: usize| match tile_of[k] {
                0 => Some(Lane::Slice(&tile0[..len])),
                1 => Some(Lane::Slice(&tile1[..len])),
                _ => None,
            };
            let a = match tiled(0) {
                Some(t) => t,
                // Not read: the algorithm runs over the destination (below).
                None if over_src0 => Lane::Scalar(zero),
                None if self.in_place => {
                    // src0 is the destination: its block is read whole before any of it is
                    // written (an L1 copy; the run then streams two arrays, not three).
                    gather(&mut bufs.tmp_a[..len], dst, at(d), step[d], s0);
                    Lane::Slice(&bufs.tmp_a[..len])
                }
                None => lane(self.src0, at(0), step[0], len, s0, &mut bufs.tmp_a),
            };
            // `direct` is only set when `D` computes as itself, so `as_compute_mut` gives the
            // destination back; the buffer is the fallback all the same.
            let direct_out = match self.direct {
                true => D::as_compute_mut(&mut dst[at(d)..at(d) + len]),
                false => None,
            };
            let scatter = direct_out.is_none();
            let out: &mut [T::Compute] = match direct_out {
                Some(o) => o,
                None => &mut bufs.buf[..len],
            };
            let b = match tiled(1) {
                Some(t) => t,
                None => lane(self.src1, at(1), step[1], len, s1, &mut bufs.tmp_b),
            };
            // The first post-op joins the algorithm's loop when the pair has a fused form.
            let mut rest = self.chain;
            let first_joined = match (a, self.chain.first()) {
                (Lane::Slice(a), Some(&Step::Binary(alg2, k, then_relu))) if !over_src0 => {
                    let operand = self.operands[k].data;
                    let c = match tiled(2 + k) {
                        Some(t) => t,
                        None => lane(operand, at(2 + k), step[2 + k], len, None, &mut bufs.buf2),
                    };
                    let joined = fused_pair(self.alg, self.relu, alg2, out, a, b, c);
                    if joined && then_relu {
                        Eltwise::Relu.apply_block(out);
                    }
                    joined
                }
                _ => false,
            };
            if first_joined {
                rest = &self.chain[1..];
            } else if over_src0 {
                combine_in_place(self.alg, self.relu, out, b);
            } else {
                combine(self.alg, self.relu, out, a, b);
            }
            for s in rest {
                match *s {
                    Step::Eltwise(e) => e.apply_block(out),
                    Step::Binary(alg, k, then_relu) => {
                        let operand = self.operands[k].data;
                        let b = match tiled(2 + k) {
                            Some(t) => t,
                            None => {
                                lane(operand, at(2 + k), step[2 + k], len, None, &mut bufs.tmp_a)
                            }
                        };
                        combine_in_place(alg, then_relu, out, b);
                    }
                    Step::Sum(scale) => {
                        for (o, &x) in out.iter_mut().zip(&bufs.old[..len]) {
                            *o = *o + scale * x;
                        }
                    }
                }
            }
            if scatter {
                let (o, st) = (at(d), step[d]);
                if st == 1 {
                    // A contiguous destination stored as another type: a loop LLVM vectorizes
                    // (the strided one below does not; 885 against 1324 Melem/s for an int8
                    // add in `benches/quantized.rs`).
                    for (x, &v) in dst[o..o + len].iter_mut().zip(&bufs.buf[..len]) {
                        *x = D::store(v);
                    }
                } else {
                    for (i, &x) in bufs.buf[..len].iter().enumerate() {
                        dst[o + i * st] = D::store(x);
                    }
                }
            }
            j += len;
        }
    }
}

#[cfg(test)]
mod tests {
    /// The AVX2 copy of the single pass (where the CPU has AVX2; otherwise the baseline copy)
    /// against one-element runs (always the baseline loops), on the fused bias-ReLU-scale pair
    /// and on a chain with a sum post-op into a channels-last destination (the block-buffer
    /// path). `tests/wide.rs` covers more chains; this one is
    /// small enough for Miri, which CI runs in a build that enables AVX2
    /// (`-C target-feature=+avx2`).
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[test]
    fn avx2_loops_write_what_one_element_runs_write() {
        use crate::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
        use std::vec::Vec;
        let dims = [1, 8, 8, 8]; // 512 elements: the AVX2 threshold
        let n: usize = dims.iter().product();
        let value = |i: usize| match i % 11 {
            0 => f32::NAN,
            1 => -0.0,
            2 => f32::INFINITY,
            3 => 1e-40,
            k => (i as f32 - 250.0) * 0.37 + k as f32,
        };
        let x: Vec<f32> = (0..n).map(value).collect();
        let bias: Vec<f32> = (0..8).map(|i| value(i * 5 + 4)).collect();
        let scale: Vec<f32> = (0..8).map(|i| 0.5 + i as f32).collect();
        let old: Vec<f32> = (0..n).map(|i| value(i + 3)).collect();
        let canon = |v: f32| if v.is_nan() { u32::MAX } else { v.to_bits() };
        for (layout, sum) in [(Layout::RowMajor, false), (Layout::ChannelsLast, true)] {
            let run = |x: &[f32], b: &[f32], s: &[f32], d: &mut [f32], shape: &[usize]| {
                // Per channel: [1, C, 1, 1] beside the full shape, [1] beside one element.
                let per_channel = [1, b.len(), 1, 1];
                let one = if shape.len() == 1 {
                    shape
                } else {
                    &per_channel[..]
                };
                let (b, s) = (
                    MemRef::new(one, b, Layout::RowMajor).unwrap(),
                    MemRef::new(one, s, Layout::RowMajor).unwrap(),
                );
                let mut prim = Binary::new(Alg::Add).runtime_checked();
                prim.push_post_op(PostOp::Eltwise(Eltwise::Relu));
                prim.push_post_op(PostOp::binary(Alg::Mul, &s));
                if sum {
                    prim.push_post_op(PostOp::Sum { scale: 0.25 });
                }
                let x = MemRef::new(shape, x, Layout::RowMajor).unwrap();
                let layout = if shape.len() == 1 {
                    Layout::RowMajor
                } else {
                    layout
                };
                let mut d = MemMut::new(shape, d, layout).unwrap();
                prim.run_into(&x, &b, &mut d).unwrap();
            };
            let mut wide = old.clone();
            run(&x, &bias, &scale, &mut wide, &dims);
            let got = MemRef::new(dims, &wide, layout).unwrap();
            let before = MemRef::new(dims, &old, layout).unwrap();
            for c in 0..8 {
                for hw in 0..64 {
                    let index = [0, c, hw / 8, hw % 8];
                    let mut want = [*before.get(&index).unwrap()];
                    let at = c * 64 + hw;
                    run(&x[at..=at], &bias[c..=c], &scale[c..=c], &mut want, &[1]);
                    assert_eq!(
                        canon(*got.get(&index).unwrap()),
                        canon(want[0]),
                        "{layout:?} at {index:?}"
                    );
                }
            }
        }
    }
}
