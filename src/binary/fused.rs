//! The binary primitive's single pass: every source, every post-op operand and the destination
//! walked together, the post-op chain applied block by block while the block is in L1.
//!
//! Plan: each operand's strides in the destination's index space (0 where it broadcasts), axes
//! ordered as the destination lies in memory, size-1 axes dropped, adjacent axes merged where
//! every operand steps alike. The innermost axis runs in blocks of [`BLOCK`] elements: the
//! algorithm writes the block (into the destination itself when it is contiguous), each post-op
//! then runs over it as one tight loop, and a strided destination gets the block scattered.

use super::element::{with_alg, Alg, Eltwise, Real};
use super::memory::{Desc, MemRef, Order};
use crate::rules::BINARY_MAX_NDIMS;

/// Elements per block: long enough that the per-block dispatch is noise, short enough for L1
/// and a small embedded stack (three blocks of f64 are 1.5 KiB).
pub(crate) const BLOCK: usize = 64;

/// Two sources, up to [`MAX_POST_OPS`](super::MAX_POST_OPS) operands, the destination.
const MAX_OPERANDS: usize = 3 + super::MAX_POST_OPS;

/// One step of the post-op chain, with parameters already converted.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step<T> {
    Eltwise(Eltwise),
    Sum(T),
    /// The algorithm and the operand's position in the operand list.
    Binary(Alg, usize),
}

/// What one call computes.
pub(crate) struct Job<'s, 'd, T> {
    pub(crate) alg: Alg,
    /// Source scales; `None` when both are 1.
    pub(crate) scales: Option<[T; 2]>,
    pub(crate) src0: MemRef<'s, T>,
    pub(crate) src1: MemRef<'s, T>,
    pub(crate) chain: &'s [Step<T>],
    pub(crate) operands: &'s [MemRef<'s, T>],
    pub(crate) dst: &'d mut [T],
    pub(crate) dst_desc: Desc,
}

/// A block's worth of one input: a run of elements or one broadcast value.
#[derive(Clone, Copy)]
enum Lane<'a, T> {
    Slice(&'a [T]),
    Scalar(T),
}

/// The input at `off` stepping `stride`, `len` elements, scaled when asked; gathered into `tmp`
/// when it is neither contiguous nor broadcast, or when it is scaled.
#[inline(always)]
fn lane<'a, T: Real>(
    data: &'a [T],
    off: usize,
    stride: usize,
    len: usize,
    scale: Option<T>,
    tmp: &'a mut [T; BLOCK],
) -> Lane<'a, T> {
    match (stride, scale) {
        (0, None) => Lane::Scalar(data[off]),
        (0, Some(s)) => Lane::Scalar(data[off] * s),
        (1, None) => Lane::Slice(&data[off..off + len]),
        (1, Some(s)) => {
            for (t, &x) in tmp.iter_mut().zip(&data[off..off + len]) {
                *t = x * s;
            }
            Lane::Slice(&tmp[..len])
        }
        (_, s) => {
            for (i, t) in tmp[..len].iter_mut().enumerate() {
                // In range: the descriptor's span was checked against the buffer.
                let x = data[off + i * stride];
                *t = match s {
                    Some(s) => x * s,
                    None => x,
                };
            }
            Lane::Slice(&tmp[..len])
        }
    }
}

/// `out = a (alg) b`.
#[inline(always)]
fn combine<T: Real>(alg: Alg, out: &mut [T], a: Lane<'_, T>, b: Lane<'_, T>) {
    with_alg!(alg, |f| match (a, b) {
        (Lane::Slice(a), Lane::Slice(b)) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Lane::Slice(a), Lane::Scalar(y)) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (Lane::Scalar(x), Lane::Slice(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (Lane::Scalar(x), Lane::Scalar(y)) => out.fill(f(x, y)),
    })
}

/// `out = out (alg) b`.
#[inline(always)]
fn combine_in_place<T: Real>(alg: Alg, out: &mut [T], b: Lane<'_, T>) {
    with_alg!(alg, |f| match b {
        Lane::Slice(b) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(*o, y);
            }
        }
        Lane::Scalar(y) => {
            for o in out.iter_mut() {
                *o = f(*o, y);
            }
        }
    })
}

/// The loop nest: merged axes outermost first, the last one is the row.
struct Plan {
    rank: usize,
    dims: [usize; BINARY_MAX_NDIMS],
    /// `strides[k][axis]`: operand `k` (src0, src1, post-op operands, then the destination).
    strides: [[usize; BINARY_MAX_NDIMS]; MAX_OPERANDS],
    operands: usize,
}

impl Plan {
    fn new(dst: &Desc, inputs: &[&Desc]) -> Plan {
        let operands = inputs.len() + 1;
        let order = Order::by_strides(dst);
        let mut plan = Plan {
            rank: 0,
            dims: [0; BINARY_MAX_NDIMS],
            strides: [[0; BINARY_MAX_NDIMS]; MAX_OPERANDS],
            operands,
        };
        for &axis in &order.axes[..dst.ndims] {
            let n = dst.dims[axis];
            if n == 1 {
                continue;
            }
            // A stride in the destination's index space: 0 where the input broadcasts.
            let stride = |d: &Desc| {
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
        plan
    }
}

/// Runs the job. Shapes, layouts and buffer spans were checked by the caller, so every offset
/// below is in range; slicing still checks, so a bug panics rather than reads out of bounds.
pub(crate) fn run<T: Real>(job: Job<'_, '_, T>) {
    if job.dst_desc.dims().contains(&0) {
        return;
    }
    let mut inputs: [&Desc; MAX_OPERANDS - 1] = [&job.dst_desc; MAX_OPERANDS - 1];
    inputs[0] = &job.src0.desc;
    inputs[1] = &job.src1.desc;
    for (slot, op) in inputs[2..].iter_mut().zip(job.operands) {
        *slot = &op.desc;
    }
    let n_inputs = 2 + job.operands.len();
    let plan = Plan::new(&job.dst_desc, &inputs[..n_inputs]);
    let inner = plan.rank - 1;
    let row = plan.dims[inner];
    let d = plan.operands - 1;
    let step = |k: usize| plan.strides[k][inner];
    let has_sum = job.chain.iter().any(|s| matches!(s, Step::Sum(_)));
    // Compute straight into the destination when it is contiguous and no step reads its old
    // values; otherwise through `buf`.
    let direct = step(d) == 1 && !has_sum;
    let (s0, s1) = match job.scales {
        Some([a, b]) => (Some(a), Some(b)),
        None => (None, None),
    };

    let mut tmp_a = [T::ZERO; BLOCK];
    let mut tmp_b = [T::ZERO; BLOCK];
    let mut buf = [T::ZERO; BLOCK];
    let mut old = [T::ZERO; BLOCK];
    let mut off = [0usize; MAX_OPERANDS];
    let mut counter = [0usize; BINARY_MAX_NDIMS];
    let dst = job.dst;

    loop {
        let mut j = 0;
        while j < row {
            let len = BLOCK.min(row - j);
            let at = |k: usize| off[k] + j * step(k);
            if has_sum {
                // The destination's values before this block is written, for the sum steps.
                for (i, o) in old[..len].iter_mut().enumerate() {
                    *o = dst[at(d) + i * step(d)];
                }
            }
            let out: &mut [T] = if direct {
                &mut dst[at(d)..at(d) + len]
            } else {
                &mut buf[..len]
            };
            let a = lane(job.src0.data, at(0), step(0), len, s0, &mut tmp_a);
            let b = lane(job.src1.data, at(1), step(1), len, s1, &mut tmp_b);
            combine(job.alg, out, a, b);
            for s in job.chain {
                match *s {
                    Step::Eltwise(e) => e.apply_block(out),
                    Step::Binary(alg, k) => {
                        let b = lane(
                            job.operands[k].data,
                            at(2 + k),
                            step(2 + k),
                            len,
                            None,
                            &mut tmp_a,
                        );
                        combine_in_place(alg, out, b);
                    }
                    Step::Sum(scale) => {
                        for (o, &x) in out.iter_mut().zip(&old[..len]) {
                            *o = *o + scale * x;
                        }
                    }
                }
            }
            if !direct {
                let (o, st) = (at(d), step(d));
                for (i, &x) in buf[..len].iter().enumerate() {
                    dst[o + i * st] = x;
                }
            }
            j += len;
        }
        // Odometer over the outer axes, last fastest.
        let mut axis = inner;
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            counter[axis] += 1;
            if counter[axis] < plan.dims[axis] {
                for (k, o) in off[..plan.operands].iter_mut().enumerate() {
                    *o += plan.strides[k][axis];
                }
                break;
            }
            counter[axis] = 0;
            for (k, o) in off[..plan.operands].iter_mut().enumerate() {
                *o -= plan.strides[k][axis] * (plan.dims[axis] - 1);
            }
        }
    }
}
