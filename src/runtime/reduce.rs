//! Reductions over axes: the kernels, and `DynTensor`'s reduction methods (feature `alloc`).
//!
//! A reduction over several axes is a chain of single-axis reductions, highest axis first. One
//! axis of a row-major shape splits the elements into `outer` blocks of `n` rows of `inner`
//! contiguous elements:
//!
//! * `inner == 1` (the last axis, or only 1s after it): each output is a contiguous run,
//!   summed pairwise ([`pairwise_sum`]).
//! * otherwise each output row is the fold of `n` contiguous rows, which vectorizes across the
//!   row; sums add rows in blocks of 64 and combine the blocks pairwise ([`sum_rows`]).
//!
//! Float sums are therefore accurate to `O(log n)` roundings, as numpy's are, not `O(n)`:
//! `10^7` copies of `0.1f32` sum to `10^6` within `1e-5` relative error, where a plain loop is
//! off by about 10%.

#[cfg(feature = "alloc")]
use {
    super::dyn_tensor::DynTensor,
    crate::error::{Error, ErrorKind, Operation},
    crate::op::ReduceOp,
    crate::rules::{self, reduce_axes, sum_to_axes, Axes},
    alloc::vec::Vec,
};

use super::parallel;
use crate::element::Element;

/// The sum of a contiguous run, pairwise as numpy sums it, accumulated in `T::Acc` (so `f16`
/// and `bf16` in `f32`): sixteen running sums below 256 elements (four SSE registers of
/// `f32`, enough independent additions to hide their latency), the two halves added above.
/// Eight sums (numpy's number) ran 1.4x slower than ndarray's unrolled fold on 1024x1024 row
/// sums.
pub(crate) fn pairwise_sum<T: Element>(x: &[T]) -> T::Acc {
    if x.len() > LEAF {
        // Split on a multiple of the lanes, so both halves keep full chunks. Large halves run
        // on two threads (feature `rayon`): the same split, so the same sum.
        let half = x.len() / 2 / LANES * LANES;
        let (lo, hi) = (&x[..half], &x[half..]);
        let (a, b) = parallel::join(
            parallel::worth_splitting(x.len()),
            || pairwise_sum(lo),
            || pairwise_sum(hi),
        );
        return <T::Acc as Element>::add(a, b);
    }
    leaf_sum(x)
}

/// The longest run [`pairwise_sum`] adds in lanes without splitting it.
const LEAF: usize = 256;

/// The independent sums a leaf keeps: four SSE registers of `f32`.
const LANES: usize = 16;

/// [`pairwise_sum`] of a run of at most [`LEAF`] elements: inlined where the runs are short
/// (a mean over rows of 56 paid a call a row: 15.8 M instructions for `[8, 256, 56, 56]`,
/// against ndarray's 15.3 M).
#[inline(always)]
fn leaf_sum<T: Element>(x: &[T]) -> T::Acc {
    let add = <T::Acc as Element>::add;
    let mut acc = [<T::Acc as Element>::ZERO; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a = add(*a, v.to_acc());
        }
    }
    // The last, partial chunk goes on in the lanes as a full one would, eight and then four
    // elements at a time (element `i` into lane `i mod 16`), and at most three are added
    // after the lanes' tree. Added one by one after the tree, the whole remainder was a chain
    // of up to 15 dependent additions a run: a mean over rows of 56 took 1.05-1.15x ndarray's
    // time, whose unrolled fold has no such tail. Fixed-size pieces, so that the lanes stay in
    // registers: a loop of the remainder's length into them kept them in memory (1.6x).
    let (rest, lane) = match rest.split_first_chunk::<8>() {
        Some((eight, rest)) => {
            for (a, &v) in acc[..8].iter_mut().zip(eight) {
                *a = add(*a, v.to_acc());
            }
            (rest, 8)
        }
        None => (rest, 0),
    };
    let rest = match rest.split_first_chunk::<4>() {
        Some((four, rest)) => {
            for (a, &v) in acc[lane..lane + 4].iter_mut().zip(four) {
                *a = add(*a, v.to_acc());
            }
            rest
        }
        None => rest,
    };
    // Pairwise over the lanes too.
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            acc[i] = add(acc[i], acc[i + width]);
        }
    }
    let mut sum = acc[0];
    for &v in rest {
        sum = add(sum, v.to_acc());
    }
    sum
}

/// Runs `fill(offset, acc)`, which writes the accumulated values of `out[offset..offset +
/// acc.len()]` into `acc`, over all of `out`, and stores `finish` of each: in place when
/// `O` accumulates in itself ([`Element::acc_slice_mut`]; no copy, and for a `finish` that
/// leaves the value as it is, no pass at all), else through stack buffers of [`COLUMNS`]
/// accumulators, each rounded into its part of `out` once `fill` has written it. In place, the
/// `f32`, `f64` and `i32` sums, means and products kept their instructions (callgrind, per
/// call, [512, 512] over either axis, [64, 64, 64] over two, static [64, 64] and [32, 32]:
/// within 0.4% of the kernels that accumulated in the element type).
#[inline(always)]
pub(crate) fn through_acc<O: Element>(
    out: &mut [O],
    fill: impl Fn(usize, &mut [O::Acc]),
    finish: impl Fn(O::Acc) -> O,
) {
    match O::acc_slice_mut(out) {
        Some(acc) => {
            fill(0, acc);
            for a in acc.iter_mut() {
                *a = finish(*a).to_acc();
            }
        }
        None => {
            for (c, part) in out.chunks_mut(COLUMNS).enumerate() {
                let mut buf = [<O::Acc as Element>::ZERO; COLUMNS];
                let buf = &mut buf[..part.len()];
                fill(c * COLUMNS, buf);
                for (o, &a) in part.iter_mut().zip(buf.iter()) {
                    *o = finish(a);
                }
            }
        }
    }
}

/// Rows added in order below this many; above, the two halves are summed apart and added.
/// Sums of 1024x1024 `f32` over the first axis, against the hand loop's naive accumulation:
/// 64-row leaves 1.18x slower, 512-row leaves at par (96.5 vs 95.1 us), still within `1e-5` on
/// `10^7` rows of `0.1`. Within a leaf, four rows are added per pass over the output (one load
/// and store of it per four rows): 62 us, against 91 us for the hand loop and 93 for ndarray.
const ROWS_LEAF: usize = 512;
/// Columns summed together: one stack buffer of this many elements per recursion level
/// (`log2(n / 512)` levels: 4 KiB each for `f32` here). Wide stripes keep the reads long and
/// contiguous: 64-column stripes of a 1024-wide `f32` matrix (a 4 KiB row stride, every stripe
/// in the same L1 sets) ran 1.36x slower than the hand loop. On 32-bit targets
/// (microcontrollers, small stacks) a level takes 256 bytes of `f32`.
#[cfg(target_pointer_width = "64")]
const COLUMNS: usize = 1024;
#[cfg(not(target_pointer_width = "64"))]
const COLUMNS: usize = 64;

/// `out[i] = finish(Σ_k rows[k * inner + i])` over `n` rows of `inner` elements, the sums
/// accumulated in `I::Acc`, with no allocation: column chunks of [`COLUMNS`], and within a
/// chunk the rows summed pairwise (runs of [`ROWS_LEAF`] rows added in order), so a long axis
/// costs `O(log n)` roundings. Each recursion level holds one chunk of accumulators on the
/// stack (4 KiB of `f32`), `log2(n / 512)` levels.
pub(crate) fn sum_rows<I: Element, O: Element<Acc = I::Acc>>(
    rows: &[I],
    n: usize,
    inner: usize,
    out: &mut [O],
    finish: &(impl Fn(I::Acc) -> O + Sync),
) {
    fn chunk<I: Element>(
        rows: &[I],
        inner: usize,
        lo: usize,
        hi: usize,
        c0: usize,
        out: &mut [I::Acc],
    ) {
        let add = <I::Acc as Element>::add;
        let width = out.len();
        if hi - lo <= ROWS_LEAF {
            out.fill(<I::Acc as Element>::ZERO);
            let row = |k: usize| &rows[k * inner + c0..k * inner + c0 + width];
            // Four rows per pass: the output is loaded and stored once per four rows read,
            // not once per row.
            let mut k = lo;
            while k + 4 <= hi {
                let (r0, r1, r2, r3) = (row(k), row(k + 1), row(k + 2), row(k + 3));
                for (i, o) in out.iter_mut().enumerate() {
                    let pair = add(
                        add(r0[i].to_acc(), r1[i].to_acc()),
                        add(r2[i].to_acc(), r3[i].to_acc()),
                    );
                    *o = add(*o, pair);
                }
                k += 4;
            }
            for k in k..hi {
                for (o, &v) in out.iter_mut().zip(row(k)) {
                    *o = add(*o, v.to_acc());
                }
            }
            return;
        }
        let mid = lo + (hi - lo) / 2;
        let mut upper = [<I::Acc as Element>::ZERO; COLUMNS];
        let upper = &mut upper[..width];
        // Large halves on two threads (feature `rayon`): the same split, so the same sums.
        parallel::join(
            parallel::worth_splitting((hi - lo) * width),
            || chunk(rows, inner, lo, mid, c0, out),
            || chunk(rows, inner, mid, hi, c0, upper),
        );
        for (o, &u) in out.iter_mut().zip(upper.iter()) {
            *o = add(*o, u);
        }
    }
    // Each column's sum depends only on the row recursion, never on the chunk width: split
    // across threads, the columns go in narrower chunks, one or more per task.
    let tasks = match n > ROWS_LEAF {
        // The row halves already run on two threads, and wide column chunks read faster.
        true => 1,
        false => parallel::tasks(n * inner, inner.div_ceil(16)),
    };
    let width = match tasks {
        1 => COLUMNS,
        _ => inner
            .div_ceil(tasks)
            .next_multiple_of(16)
            .clamp(256, COLUMNS),
    };
    parallel::for_each_chunk(out, width, tasks > 1, |i, part| {
        through_acc(
            part,
            // A part is at most `COLUMNS` wide, as `chunk` needs.
            |off, acc| chunk(rows, inner, 0, n, i * width + off, acc),
            finish,
        )
    });
}

/// `outer`, `n`, `inner` of reducing `axis` of `shape` (the products fit: the elements exist).
pub(crate) fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// Calls `part(first_block, c0, width, out_part)` over the `outer` blocks of `inner` outputs of
/// a single-axis reduction: `out_part` holds whole consecutive blocks from `first_block` on
/// (`c0 == 0`, `width == inner`), or, when there is one block, columns `c0..c0 + width` of it,
/// in stripes of at least `min_stripe` columns (0: never). Large reductions (feature `rayon`)
/// run the parts on several threads; every output is computed by the same loop wherever it
/// runs, so the results do not change.
fn for_each_part<A: Send>(
    (outer, n, inner): (usize, usize, usize),
    out: &mut [A],
    min_stripe: usize,
    part: impl Fn(usize, usize, usize, &mut [A]) + Sync + Send,
) {
    let out = &mut out[..outer * inner];
    let elements = outer.saturating_mul(n).saturating_mul(inner);
    if outer > 1 {
        let tasks = parallel::tasks(elements, outer);
        if tasks > 1 {
            let per = outer.div_ceil(tasks);
            parallel::for_each_chunk(out, per * inner, true, |t, c| part(t * per, 0, inner, c));
            return;
        }
    } else if let Some(stripes) = inner.checked_div(min_stripe) {
        // One block: its columns are independent. One stripe a thread, none narrower than
        // `min_stripe`: each row of a stripe is a short read on a page of its own, so narrower
        // or more stripes read slower (on a Zen 5 host, 1024x1024 `f32` `max` over the first
        // axis on 2 threads: 134 us in two stripes, 196 us in four; on an Intel Xeon host two
        // such stripes were slower than one thread, see `FOLD_STRIPE_BYTES`).
        let tasks = parallel::tasks_per_thread(elements, stripes, 1);
        if tasks > 1 {
            let width = inner.div_ceil(tasks).next_multiple_of(16);
            parallel::for_each_chunk(out, width, true, |t, c| part(0, t * width, c.len(), c));
            return;
        }
    }
    part(0, 0, inner, out);
}

/// The narrowest column stripe, in bytes of a row, that a memory-bound fold over one block's
/// rows (`prod`, `all`, `any`, wide `max`) splits into. One 1024x1024 block of `f32`, `prod`
/// over the first axis, one thread against two stripes (an Intel Xeon host): 1024 columns
/// 115 against 178 us (two 2 KiB stripes), 512x2048 116 against 118 us (4 KiB), 256x4096 118
/// against 86 us (8 KiB), 64x16384 136 against 72 us.
const FOLD_STRIPE_BYTES: usize = 8192;

/// `fold` over axis `axis` of `data` (row-major, `shape`) into `out`, one output per position
/// of the other axes (`out` holds their count): `first` makes the accumulator from the first
/// element along the axis and `step` adds each further one. An empty axis gives `empty`.
pub(crate) fn fold_axis_into<T: Copy + Sync, A: Copy + Send>(
    data: &[T],
    shape: &[usize],
    axis: usize,
    out: &mut [A],
    empty: A,
    first: impl Fn(usize, T) -> A + Sync + Send,
    step: impl Fn(A, usize, T) -> A + Sync + Send,
) {
    let (outer, n, inner) = split(shape, axis);
    out.fill(empty);
    if n == 0 || inner == 0 {
        return;
    }
    fold_parts(data, (outer, n, inner), out, first, step);
}

/// Each output's fold along the axis (`n > 0`), in order: `first` takes the element at 0,
/// `step` each further one. Rows of outputs fold side by side; a contiguous run (the last
/// axis, `inner == 1`) is one loop over it, not `n` single-element rows (max over the last
/// axis of 1024x1024 f32: 2.57 ms as rows, 1.18 ms as runs).
#[inline(always)]
fn fold_parts<T: Copy + Sync, A: Copy + Send>(
    data: &[T],
    (outer, n, inner): (usize, usize, usize),
    out: &mut [A],
    first: impl Fn(usize, T) -> A + Sync + Send,
    step: impl Fn(A, usize, T) -> A + Sync + Send,
) {
    for_each_part(
        (outer, n, inner),
        out,
        FOLD_STRIPE_BYTES.div_ceil(core::mem::size_of::<T>().max(1)),
        |first_block, c0, width, out| {
            for (b, out_block) in out.chunks_exact_mut(width).enumerate() {
                let block = &data[(first_block + b) * n * inner..];
                if inner == 1 {
                    let run = &block[..n];
                    let mut acc = first(0, run[0]);
                    for (k, &v) in run.iter().enumerate().skip(1) {
                        acc = step(acc, k, v);
                    }
                    out_block[0] = acc;
                    continue;
                }
                let row = |k: usize| &block[k * inner + c0..k * inner + c0 + width];
                for (a, &v) in out_block.iter_mut().zip(row(0)) {
                    *a = first(0, v);
                }
                for k in 1..n {
                    for (a, &v) in out_block.iter_mut().zip(row(k)) {
                        *a = step(*a, k, v);
                    }
                }
            }
        },
    );
}

/// A `Vec` of `outer * inner` copies of `value`: the result of reducing `axis` of `shape`
/// (kept as 1), its allocation checked ([`ErrorKind::OutOfMemory`], naming that result).
#[cfg(feature = "alloc")]
fn reduced_vec<A: Clone>(shape: &[usize], axis: usize, value: A) -> Result<Vec<A>, Error> {
    let (outer, _, inner) = split(shape, axis);
    let mut kept = rules::ShapeBuf::<{ rules::MAX_RANK }>::from_slice(shape).unwrap_or_default();
    if let Some(d) = kept.as_mut_slice().get_mut(axis) {
        *d = 1;
    }
    super::try_filled(outer * inner, value, &kept)
}

/// [`fold_axis_into`] into a new `Vec`.
#[cfg(feature = "alloc")]
fn fold_axis<T: Copy + Sync, A: Copy + Send>(
    data: &[T],
    shape: &[usize],
    axis: usize,
    empty: A,
    first: impl Fn(usize, T) -> A + Sync + Send,
    step: impl Fn(A, usize, T) -> A + Sync + Send,
) -> Result<Vec<A>, Error> {
    let mut out = reduced_vec(shape, axis, empty)?;
    fold_axis_into(data, shape, axis, &mut out, empty, first, step);
    Ok(out)
}

/// `finish` of the sum over axis `axis` into `out`: pairwise on contiguous runs, pairwise
/// across rows otherwise, accumulated in `I::Acc` and rounded once (`finish` is
/// [`Element::from_acc`] for a sum, the division for a mean).
pub(crate) fn sum_axis_into<I: Element, O: Element<Acc = I::Acc>>(
    data: &[I],
    shape: &[usize],
    axis: usize,
    out: &mut [O],
    finish: impl Fn(I::Acc) -> O + Sync + Send,
) {
    let (outer, n, inner) = split(shape, axis);
    if inner == 0 {
        return;
    }
    // Whole blocks only: a single block's columns are split inside `sum_rows`, which keeps
    // them in wide chunks.
    for_each_part((outer, n, inner), out, 0, |first, _, _, out| {
        for (o, out_block) in out.chunks_exact_mut(inner).enumerate() {
            let o = first + o;
            let block = &data[o * n * inner..(o + 1) * n * inner];
            if inner == 1 {
                out_block[0] = finish(match block.len() {
                    0..=LEAF => leaf_sum(block),
                    _ => pairwise_sum(block),
                });
            } else if inner <= SHORT_ROW && n >= 4 {
                sum_short_rows(block, n, inner, out_block, &finish);
            } else {
                sum_rows(block, n, inner, out_block, &finish);
            }
        }
    });
}

/// Rows this short or shorter are summed as [`sum_short_rows`] sums them.
const SHORT_ROW: usize = 16;

/// [`sum_rows`] for rows of at most [`SHORT_ROW`] elements: `l` consecutive rows are read as one
/// row of `l * inner <= 64` elements, so the accumulation runs across a vector-wide row instead
/// of a loop of `inner` iterations per row. Each column then has `l` partial sums (rows `j`,
/// `j + l`, `j + 2l`, ...), each pairwise as [`sum_rows`] sums, which are combined pairwise,
/// and the last `n % l` rows are added in order: an error of `O(log n)` roundings, as before,
/// but not the bits of the row-by-row order. `[16384, 3]` `f32` over axis 0: 564,397
/// instructions row by row, 72,413 so (callgrind, `benches/short_rows_probe.rs`).
fn sum_short_rows<I: Element, O: Element<Acc = I::Acc>>(
    rows: &[I],
    n: usize,
    inner: usize,
    out: &mut [O],
    finish: &(impl Fn(I::Acc) -> O + Sync),
) {
    let add = <I::Acc as Element>::add;
    // At least two rows in each wide row; at least two wide rows.
    let l = (64 / inner).min(n / 2).max(1);
    let width = l * inner;
    let m = n / l;
    let mut acc = [<I::Acc as Element>::ZERO; 64];
    let acc = &mut acc[..width];
    sum_rows(&rows[..m * width], m, width, acc, &|a| a);
    // The `l` partial sums of each column, pairwise: halve the count, adding the upper part.
    let mut count = l;
    while count > 1 {
        let half = count.div_ceil(2);
        let (lo, hi) = acc.split_at_mut(half * inner);
        for (a, &b) in lo.iter_mut().zip(&hi[..(count - half) * inner]) {
            *a = add(*a, b);
        }
        count = half;
    }
    let acc = &mut acc[..inner];
    for row in rows[m * width..n * inner].chunks_exact(inner) {
        for (a, &v) in acc.iter_mut().zip(row) {
            *a = add(*a, v.to_acc());
        }
    }
    for (o, &a) in out.iter_mut().zip(acc.iter()) {
        *o = finish(a);
    }
}

/// `finish` of the product over axis `axis` into `out`, in order along the axis from its
/// first element (1 for none), accumulated in `I::Acc` and rounded once.
pub(crate) fn prod_axis_into<I: Element, O: Element<Acc = I::Acc>>(
    data: &[I],
    shape: &[usize],
    axis: usize,
    out: &mut [O],
    finish: impl Fn(I::Acc) -> O + Sync + Send,
) {
    let mul = <I::Acc as Element>::mul;
    let one = <I::Acc as Element>::ONE;
    if let Some(acc) = O::acc_slice_mut(out) {
        // The output holds the accumulators: the shared fold, split across threads.
        fold_axis_into(
            data,
            shape,
            axis,
            acc,
            one,
            |_, v| v.to_acc(),
            |p, _, v| mul(p, v.to_acc()),
        );
        for a in acc.iter_mut() {
            *a = finish(*a).to_acc();
        }
        return;
    }
    // Narrower outputs: each run, or each block's columns through stack buffers, on one
    // thread.
    let (outer, n, inner) = split(shape, axis);
    if inner == 0 {
        return;
    }
    for (o, out_block) in out[..outer * inner].chunks_exact_mut(inner).enumerate() {
        let block = &data[o * n * inner..(o + 1) * n * inner];
        if inner == 1 {
            out_block[0] = finish(block.iter().fold(one, |p, &v| mul(p, v.to_acc())));
            continue;
        }
        through_acc(
            out_block,
            |c0, acc| {
                acc.fill(one);
                for row in block.chunks_exact(inner) {
                    for (a, &v) in acc.iter_mut().zip(&row[c0..]) {
                        *a = mul(*a, v.to_acc());
                    }
                }
            },
            &finish,
        );
    }
}

/// The NaN-propagating largest (`keep = Greater`) or smallest (`Less`) element along `axis`
/// into `out`. An empty axis writes nothing: callers refuse it unless `out` is empty too.
pub(crate) fn extreme_into<T: PartialOrd + Copy + Send + Sync>(
    data: &[T],
    shape: &[usize],
    axis: usize,
    out: &mut [T],
    keep: core::cmp::Ordering,
) {
    let (outer, n, inner) = split(shape, axis);
    if n == 0 || inner == 0 {
        return;
    }
    // `keep` made a constant in each copy of the loops: with it a runtime value, no loop
    // vectorized (1024x1024 f32 over the first axis: 1.32 ms; over the last: 2.57 ms).
    match keep {
        core::cmp::Ordering::Greater => extreme_with(data, (outer, n, inner), out, |a, v| {
            crate::element::pick(a, v, core::cmp::Ordering::Greater)
        }),
        _ => extreme_with(data, (outer, n, inner), out, |a, v| {
            crate::element::pick(a, v, core::cmp::Ordering::Less)
        }),
    }
}

/// [`extreme_into`] with its choice of element fixed: a fold that keeps the picked element.
#[inline(always)]
fn extreme_with<T: PartialOrd + Copy + Send + Sync>(
    data: &[T],
    dims: (usize, usize, usize),
    out: &mut [T],
    pick: impl Fn(T, T) -> T + Sync + Send,
) {
    let (outer, n, inner) = dims;
    if inner == 1 {
        // Contiguous runs (the last axis): whole blocks split across threads, as for sums.
        for_each_part(dims, out, 0, |first_block, _, _, out| {
            for (b, o) in out.iter_mut().enumerate() {
                let start = (first_block + b) * n;
                *o = run_extreme(&data[start..start + n], &pick);
            }
        });
        return;
    }
    // One block of rows no wider than a column chunk: split its rows, not its columns (see
    // `extreme_rows`). `worth_splitting` is `false` without feature `rayon`.
    if outer == 1 && inner <= COLUMNS && parallel::worth_splitting(n * inner) {
        return extreme_rows(data, (0, n), &mut out[..inner], &pick);
    }
    fold_parts(data, dims, out, |_, v| v, |a, _, v| pick(a, v));
}

/// The element an in-order `pick` fold over `run` (not empty) keeps, found by sixteen folds
/// side by side, which vectorize, and then a search for where that value first occurs.
///
/// The folds find a value that compares equal to the in-order fold's, or a NaN exactly when
/// the run holds one. Equal-comparing elements can still differ in their bits (`0.0` and
/// `-0.0`, NaN payloads), and the in-order fold keeps the first of them, so the search returns
/// the first element equal to that value, or the first NaN: the bits of the in-order fold for
/// every totally ordered element type (floats but for NaN, integers). Over the last axis of
/// 1024x1024 `f32`, `max`, one thread: the in-order fold, one compare-and-select chain, 2.7 ms;
/// this, 0.32 ms.
#[inline(always)]
fn run_extreme<T: PartialOrd + Copy>(run: &[T], pick: &impl Fn(T, T) -> T) -> T {
    const LANES: usize = 16;
    let mut lanes = [run[0]; LANES];
    let chunks = run.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l = pick(*l, v);
        }
    }
    let mut value = lanes[0];
    for &v in lanes[1..].iter().chain(rest) {
        value = pick(value, v);
    }
    let hit = |x: T| if is_nan(value) { is_nan(x) } else { x == value };
    // Sixteen at a time, without a branch inside, so the scan vectorizes too.
    let mut chunks = run.chunks_exact(LANES);
    let found = chunks
        .by_ref()
        .find(|c| c.iter().fold(false, |any, &x| any | hit(x)))
        .unwrap_or(chunks.remainder());
    found.iter().copied().find(|&x| hit(x)).unwrap_or(value)
}

/// Rows `lo..hi` of a single block of rows as wide as `out` (at most [`COLUMNS`]) folded with
/// `pick` into `out`: in two halves on two threads while the work is
/// worth splitting, in order below that.
///
/// The halves give the one-thread result bit for bit: `pick` keeps the first element it
/// prefers (the first NaN, otherwise the first of equal extremes, so `0.0` before `-0.0` when
/// `0.0` comes first), and choosing the first preferred element is associative, so
/// `pick(fold(lower), fold(upper))` is `fold(all)`.
///
/// Why rows and not column stripes: a stripe reads a short piece of every row, each on a page
/// of its own, which the prefetchers follow badly. On a 1024x1024 `f32` max over the first
/// axis (an Intel Xeon host, 2 threads), two 512-column stripes took 227 us against 195 us for
/// the whole fold on one thread; two 512-row halves read two contiguous 2 MiB runs.
fn extreme_rows<T: Copy + Send + Sync>(
    rows: &[T],
    (lo, hi): (usize, usize),
    out: &mut [T],
    pick: &(impl Fn(T, T) -> T + Sync),
) {
    let width = out.len();
    if hi - lo >= 2 && parallel::worth_splitting((hi - lo) * width) {
        let mid = lo + (hi - lo) / 2;
        let mut upper = [rows[0]; COLUMNS];
        let upper = &mut upper[..width];
        parallel::join(
            true,
            || extreme_rows(rows, (lo, mid), out, pick),
            || extreme_rows(rows, (mid, hi), upper, pick),
        );
        for (o, &u) in out.iter_mut().zip(upper.iter()) {
            *o = pick(*o, u);
        }
        return;
    }
    let block = &rows[lo * width..hi * width];
    fold_parts(
        block,
        (1, hi - lo, width),
        out,
        |_, v| v,
        |a, _, v| pick(a, v),
    );
}

/// NaN test for any `PartialOrd` element: NaN is the one value not equal to itself.
#[inline(always)]
#[allow(clippy::eq_op)]
pub(crate) fn is_nan<T: PartialOrd + Copy>(x: T) -> bool {
    x != x
}

/// Which element `argmax` and `argmin` choose among equals (R6), as a test of whether the
/// element `x` met later along the axis replaces the one chosen so far, `best`. NaN is an
/// extreme of both directions, as in numpy (`argmax` and `argmin` of a lane with a NaN are a
/// NaN's index).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Choice {
    /// The first of the largest elements (numpy's `argmax`, ONNX's by default).
    FirstMax,
    /// The last of the largest (ONNX's `select_last_index=1`).
    LastMax,
    /// The first of the smallest.
    FirstMin,
    /// The last of the smallest.
    LastMin,
}

impl Choice {
    /// Whether `x`, later along the axis, replaces `best`.
    #[inline(always)]
    pub(crate) fn replaces<T: PartialOrd + Copy>(self, x: T, best: T) -> bool {
        match self {
            Choice::FirstMax => !is_nan(best) && (is_nan(x) || x > best),
            Choice::FirstMin => !is_nan(best) && (is_nan(x) || x < best),
            Choice::LastMax => is_nan(x) || (!is_nan(best) && x >= best),
            Choice::LastMin => is_nan(x) || (!is_nan(best) && x <= best),
        }
    }
}

/// The index along `axis` of the element `choice` picks, into `out`. An empty axis writes
/// nothing.
pub(crate) fn arg_into<T: PartialOrd + Copy + Sync>(
    data: &[T],
    shape: &[usize],
    axis: usize,
    out: &mut [usize],
    choice: Choice,
) {
    let (outer, n, inner) = split(shape, axis);
    if n == 0 || inner == 0 {
        return;
    }
    // Stripes from 256 columns: the index-keeping loop is bound by its compares, not by
    // reading, and scales on narrow stripes (1024x1024 `f32` `argmax` over the first axis:
    // 1.30 ms on one thread, 0.68-0.73 ms in two 512-column stripes).
    for_each_part(
        (outer, n, inner),
        out,
        256,
        |first_block, c0, width, out| {
            for (b, out_block) in out.chunks_exact_mut(width).enumerate() {
                let block = &data[(first_block + b) * n * inner..];
                out_block.fill(0);
                for k in 1..n {
                    for (i, best) in out_block.iter_mut().enumerate() {
                        let (b, x) = (block[*best * inner + c0 + i], block[k * inner + c0 + i]);
                        if choice.replaces(x, b) {
                            *best = k;
                        }
                    }
                }
            }
        },
    );
}

#[cfg(feature = "alloc")]
mod dyn_methods {
    use super::*;

    /// Applies a single-axis reduction to each axis of `mask`, highest first, keeping each reduced
    /// axis as a 1 so the lower axes keep their numbers; returns the final data (its shape is the
    /// input's with the masked axes 1). `out` is the shape of the final result.
    ///
    /// An input with no elements gives the identity `empty` at each element of the output at
    /// once (for a reduction without one, an empty output or the error of an empty axis): reduced axis by axis, `[2^50, 0]` over both axes built a
    /// `[2^50]` intermediate and aborted, where the result is one element. Time and memory go
    /// with the elements, never with the dims. Every allocation is checked
    /// ([`ErrorKind::OutOfMemory`]).
    fn each_axis<T: Clone>(
        shape: &[usize],
        data: &[T],
        mask: u64,
        out: &[usize],
        empty: Result<T, ReduceOp>,
        mut one: impl FnMut(&[T], &[usize], usize) -> Result<Vec<T>, Error>,
    ) -> Result<Vec<T>, Error> {
        if data.is_empty() {
            let count = super::super::element_count::<T>(out)?;
            return match empty {
                Ok(value) => super::super::try_filled(count, value, out),
                // No identity (`max`, `min`): an empty output, or the error of an empty axis.
                Err(op) => empty_axis(shape, mask, op).map(|()| Vec::new()),
            };
        }
        let mut dims = shape.to_vec();
        let mut current: Option<Vec<T>> = None;
        for axis in (0..shape.len()).rev().filter(|a| mask & (1 << a) != 0) {
            let next = one(current.as_deref().unwrap_or(data), &dims, axis)?;
            dims[axis] = 1;
            current = Some(next);
        }
        match current {
            Some(data) => Ok(data),
            None => super::super::try_vec(data.len(), shape).map(|mut v| {
                v.extend_from_slice(data);
                v
            }),
        }
    }

    /// An axis of `mask` with no elements, when the output is not empty: the error of reductions
    /// with no identity.
    fn empty_axis(shape: &[usize], mask: u64, op: ReduceOp) -> Result<(), Error> {
        // Checked: whether it is 0 is all that counts, and an overflow is not 0.
        let out_count = (0..shape.len())
            .filter(|a| mask & (1 << a) == 0)
            .try_fold(1usize, |n, a| n.checked_mul(shape[a]))
            .unwrap_or(usize::MAX);
        match (0..shape.len()).find(|&a| mask & (1 << a) != 0 && shape[a] == 0) {
            Some(axis) if out_count > 0 => Err(Error::new(
                ErrorKind::EmptyReduction { axis },
                Operation::Reduce { op },
                shape,
                &[],
            )),
            _ => Ok(()),
        }
    }

    impl<T> DynTensor<T> {
        /// `finish` of each reduction of `self` over `mask`'s axes, for a result of shape `out`
        /// (`sum`, `mean`, `prod`, `sum_to`): axis by axis, highest first, `first` reducing
        /// one axis of the elements and `then` one axis of the accumulators the passes before
        /// left, every pass in `T::Acc`, so that each result is rounded once (by `finish`)
        /// however many axes are reduced. The last pass writes into the result itself when `T`
        /// accumulates in itself ([`Element::acc_slice_mut`]). An input with no elements gives
        /// `finish(empty)` everywhere at once (see `each_axis`); every allocation is checked.
        fn accumulated(
            &self,
            mask: u64,
            out: &[usize],
            empty: T::Acc,
            first: impl Fn(&[T], &[usize], usize, &mut [T::Acc]),
            then: impl Fn(&[T::Acc], &[usize], usize, &mut [T::Acc]),
            finish: impl Fn(T::Acc) -> T,
        ) -> Result<Vec<T>, Error>
        where
            T: Element,
        {
            let (shape, data) = (self.shape(), self.as_slice());
            let count = super::super::element_count::<T>(out)?;
            if data.is_empty() {
                return super::super::try_filled(count, finish(empty), out);
            }
            let mut result = super::super::try_filled(count, T::ZERO, out)?;
            if mask == 0 {
                for (r, &x) in result.iter_mut().zip(data) {
                    *r = finish(x.to_acc());
                }
                return Ok(result);
            }
            let last = mask.trailing_zeros() as usize;
            let mut dims = shape.to_vec();
            let mut partial: Option<Vec<T::Acc>> = None;
            for axis in (0..shape.len()).rev().filter(|a| mask & (1 << a) != 0) {
                let pass = |acc: &mut [T::Acc]| match &partial {
                    None => first(data, &dims, axis, acc),
                    Some(p) => then(p, &dims, axis, acc),
                };
                let zero = <T::Acc as Element>::ZERO;
                if axis != last {
                    let mut acc = reduced_vec(&dims, axis, zero)?;
                    pass(&mut acc);
                    partial = Some(acc);
                } else if let Some(acc) = T::acc_slice_mut(&mut result) {
                    pass(acc);
                    for a in acc.iter_mut() {
                        *a = finish(*a).to_acc();
                    }
                } else {
                    let mut acc = reduced_vec(&dims, axis, zero)?;
                    pass(&mut acc);
                    for (r, &a) in result.iter_mut().zip(&acc) {
                        *r = finish(a);
                    }
                }
                dims[axis] = 1;
            }
            Ok(result)
        }

        /// The sums over `mask`'s axes, for a result of shape `out` (`sum`, `sum_to`), and
        /// `finish` of each for `mean`.
        fn summed(
            &self,
            mask: u64,
            out: &[usize],
            finish: impl Fn(T::Acc) -> T,
        ) -> Result<Vec<T>, Error>
        where
            T: Element,
        {
            self.accumulated(
                mask,
                out,
                <T::Acc as Element>::ZERO,
                |d, s, a, o| sum_axis_into(d, s, a, o, |x| x),
                |d, s, a, o| sum_axis_into(d, s, a, o, |x| x),
                finish,
            )
        }

        /// The shape of the reduction of `self` over `mask`, with `keepdims`.
        fn out_shape(&self, mask: u64, keepdims: bool) -> rules::ShapeBuf {
            rules::reduced_shape(self.shape(), mask, keepdims)
        }

        /// The tensor of `data` for the reduction of `self` over `mask`, with `keepdims`.
        fn reduced<V>(&self, mask: u64, keepdims: bool, data: Vec<V>) -> DynTensor<V> {
            DynTensor::from_parts(&rules::reduced_shape(self.shape(), mask, keepdims), data)
        }

        /// The sum over `axes`, each reduced axis kept as a 1 (`keepdims`) or removed. `axes`
        /// is [`Axes::All`], [`Axes::Nothing`] or a non-empty list (`&[0, -1]`; negative axes
        /// count from the end): an empty list is an error, not a guess (R5). Integers wrap;
        /// floats are summed pairwise, in [`Element::Acc`] (`f32` for `f16`/`bf16`, over
        /// every axis reduced, each result rounded once). An empty axis sums to 0.
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let d = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
        /// assert_eq!(d.sum(&[-1], true).unwrap().as_slice(), &[6, 15]);
        /// assert_eq!(d.sum(&[0], false).unwrap().shape(), &[3]);
        /// assert_eq!(d.sum(&[0, 1], false).unwrap().as_slice(), &[21]);
        /// assert_eq!(d.sum(shaped::rules::Axes::All, true).unwrap().shape(), &[1, 1]);
        /// let e = d.sum(&[2], false).unwrap_err();
        /// assert_eq!(e.to_string(), "cannot reduce [2, 3] (sum): axis 2 is out of range for rank 2");
        /// ```
        pub fn sum<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error>
        where
            T: Element,
        {
            let mask = reduce_axes(self.shape(), axes, ReduceOp::Sum)?;
            let data = self.summed(mask, &self.out_shape(mask, keepdims), T::from_acc)?;
            Ok(self.reduced(mask, keepdims, data))
        }

        /// The mean over `axes`: the sum divided by the number of elements summed. For floats
        /// NaN for none; for integers the wrapping sum divided by the count, truncated toward
        /// zero (ONNX's `ReduceMean`, see [`Mean`](crate::element::Mean)), and an empty axis
        /// is [`ErrorKind::EmptyReduction`] (unless the output is empty too).
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let d = DynTensor::from_shape_vec([2, 3], vec![1, 2, 4, -1, -2, -4]).unwrap();
        /// assert_eq!(d.mean(&[1], false).unwrap().as_slice(), &[2, -2]);
        /// let e = DynTensor::<i8>::from_shape_vec([2, 0], vec![]).unwrap();
        /// assert_eq!(
        ///     e.mean(&[1], false).unwrap_err().to_string(),
        ///     "cannot reduce [2, 0] (mean): axis 1 has no elements, and mean of no elements has no value"
        /// );
        /// ```
        pub fn mean<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error>
        where
            T: crate::element::Mean,
        {
            let mask = reduce_axes(self.shape(), axes, ReduceOp::Mean)?;
            if T::mean_of(<T::Acc as Element>::ZERO, 0).is_none() {
                empty_axis(self.shape(), mask, ReduceOp::Mean)?;
            }
            // Some of a tensor's dims: their non-zero ones multiply without overflow, and a
            // zero makes the product 0 wherever it sits.
            let count: usize = (0..self.rank())
                .filter(|a| mask & (1 << a) != 0)
                .map(|a| self.shape()[a])
                .product();
            // `None` only for an integer mean of nothing, refused above.
            let mean = |s| T::mean_of(s, count).unwrap_or_else(|| T::from_acc(s));
            let data = self.summed(mask, &self.out_shape(mask, keepdims), mean)?;
            Ok(self.reduced(mask, keepdims, data))
        }

        /// The product over `axes` (integers wrap), in order along each axis, accumulated in
        /// [`Element::Acc`] (`f32` for `f16`/`bf16`) and rounded once; an empty axis gives 1.
        pub fn prod<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error>
        where
            T: Element,
        {
            let mask = reduce_axes(self.shape(), axes, ReduceOp::Prod)?;
            let data = self.accumulated(
                mask,
                &self.out_shape(mask, keepdims),
                <T::Acc as Element>::ONE,
                |d, s, a, o| prod_axis_into(d, s, a, o, |x| x),
                |d, s, a, o| prod_axis_into(d, s, a, o, |x| x),
                T::from_acc,
            )?;
            Ok(self.reduced(mask, keepdims, data))
        }

        /// The largest element over `axes`, NaN-propagating like `maximum`. An axis with no
        /// elements is [`ErrorKind::EmptyReduction`] (unless the output is empty too).
        pub fn max<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.extreme(axes, keepdims, ReduceOp::Max, core::cmp::Ordering::Greater)
        }

        /// The smallest element over `axes`, NaN-propagating like `minimum`. An axis with no
        /// elements is [`ErrorKind::EmptyReduction`] (unless the output is empty too).
        pub fn min<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.extreme(axes, keepdims, ReduceOp::Min, core::cmp::Ordering::Less)
        }

        /// The largest of `initial` and the elements over `axes` (numpy's `max` with
        /// `initial=`, R3): an empty axis gives `initial`, so `f32::NEG_INFINITY` or `i32::MIN`
        /// gives ONNX's `ReduceMax` of nothing. NaN-propagating like `max`; `initial` counts
        /// as the first element.
        ///
        /// ```
        /// use shaped::{rules::Axes, DynTensor};
        /// let d = DynTensor::from_shape_vec([2, 0], Vec::<f32>::new()).unwrap();
        /// assert!(d.max(&[1], false).is_err());
        /// let m = d.max_initial(&[1], f32::NEG_INFINITY, false).unwrap();
        /// assert_eq!(m.as_slice(), &[f32::NEG_INFINITY; 2]);
        /// let x = DynTensor::from_shape_vec([3], vec![1, 7, 3]).unwrap();
        /// assert_eq!(x.max_initial(Axes::All, 5, false).unwrap().as_slice(), &[7]);
        /// assert_eq!(x.min_initial(Axes::All, 5, false).unwrap().as_slice(), &[1]);
        /// assert_eq!(x.max_initial(Axes::All, 9, false).unwrap().as_slice(), &[9]);
        /// ```
        pub fn max_initial<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            initial: T,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.extreme_from(
                axes,
                keepdims,
                ReduceOp::Max,
                core::cmp::Ordering::Greater,
                initial,
            )
        }

        /// The smallest of `initial` and the elements over `axes` (numpy's `min` with
        /// `initial=`): an empty axis gives `initial` (`f32::INFINITY` or `i32::MAX` for
        /// ONNX's `ReduceMin` of nothing).
        pub fn min_initial<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            initial: T,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.extreme_from(
                axes,
                keepdims,
                ReduceOp::Min,
                core::cmp::Ordering::Less,
                initial,
            )
        }

        /// `max` or `min` folded from `initial`: the extreme of the elements, then `pick`
        /// against `initial`. The same bits as one fold from `initial`, as `pick` keeps the
        /// first element it prefers and that choice is associative.
        fn extreme_from<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
            op: ReduceOp,
            keep: core::cmp::Ordering,
            initial: T,
        ) -> Result<DynTensor<T>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            let mask = reduce_axes(self.shape(), axes, op)?;
            let data = each_axis(
                self.shape(),
                self.as_slice(),
                mask,
                &self.out_shape(mask, keepdims),
                Ok(initial),
                |d, s, a| {
                    // An empty axis leaves `initial` in place.
                    let mut out = reduced_vec(s, a, initial)?;
                    extreme_into(d, s, a, &mut out, keep);
                    Ok(out)
                },
            )?;
            let mut data = data;
            for x in &mut data {
                *x = crate::element::pick(initial, *x, keep);
            }
            Ok(self.reduced(mask, keepdims, data))
        }

        fn extreme<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
            op: ReduceOp,
            keep: core::cmp::Ordering,
        ) -> Result<DynTensor<T>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            let mask = reduce_axes(self.shape(), axes, op)?;
            empty_axis(self.shape(), mask, op)?;
            let data = each_axis(
                self.shape(),
                self.as_slice(),
                mask,
                &self.out_shape(mask, keepdims),
                Err(op),
                |d, s, a| {
                    // `each_axis` calls this with elements only.
                    match d.first() {
                        Some(&first) => {
                            let mut out = reduced_vec(s, a, first)?;
                            extreme_into(d, s, a, &mut out, keep);
                            Ok(out)
                        }
                        None => Ok(Vec::new()),
                    }
                },
            )?;
            Ok(self.reduced(mask, keepdims, data))
        }

        /// The index along `axis` of the first largest element (of the first NaN, if there is
        /// one, as numpy's `argmax`). An axis with no elements is an error.
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let d = DynTensor::from_shape_vec([2, 3], vec![1.0, 5.0, 5.0, f32::NAN, 0.0, 9.0]).unwrap();
        /// assert_eq!(d.argmax(-1, false).unwrap().as_slice(), &[1, 0]);
        /// assert_eq!(d.argmax_last(-1, false).unwrap().as_slice(), &[2, 0]);
        /// assert_eq!(d.argmin(0, true).unwrap().as_slice(), &[1, 1, 0]);
        /// ```
        pub fn argmax(&self, axis: i64, keepdims: bool) -> Result<DynTensor<usize>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.arg_extreme(axis, keepdims, ReduceOp::ArgMax, Choice::FirstMax)
        }

        /// The index along `axis` of the last largest element (of the last NaN, if there is
        /// one): ONNX's `ArgMax` with `select_last_index=1` (R6). An axis with no elements is
        /// an error.
        pub fn argmax_last(&self, axis: i64, keepdims: bool) -> Result<DynTensor<usize>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.arg_extreme(axis, keepdims, ReduceOp::ArgMax, Choice::LastMax)
        }

        /// The index along `axis` of the first smallest element (of the first NaN, if there is
        /// one). An axis with no elements is an error.
        pub fn argmin(&self, axis: i64, keepdims: bool) -> Result<DynTensor<usize>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.arg_extreme(axis, keepdims, ReduceOp::ArgMin, Choice::FirstMin)
        }

        /// The index along `axis` of the last smallest element (of the last NaN, if there is
        /// one): ONNX's `ArgMin` with `select_last_index=1` (R6).
        pub fn argmin_last(&self, axis: i64, keepdims: bool) -> Result<DynTensor<usize>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            self.arg_extreme(axis, keepdims, ReduceOp::ArgMin, Choice::LastMin)
        }

        fn arg_extreme(
            &self,
            axis: i64,
            keepdims: bool,
            op: ReduceOp,
            choice: Choice,
        ) -> Result<DynTensor<usize>, Error>
        where
            T: PartialOrd + Copy + Send + Sync,
        {
            let mask = reduce_axes(self.shape(), &[axis], op)?;
            empty_axis(self.shape(), mask, op)?;
            let a = mask.trailing_zeros() as usize;
            // Elements or none: `empty_axis` refused an empty axis with a non-empty output.
            let mut data = reduced_vec(self.shape(), a, 0usize)?;
            arg_into(self.as_slice(), self.shape(), a, &mut data, choice);
            Ok(self.reduced(mask, keepdims, data))
        }

        /// The adjoint of NUMPY broadcasting: sums every axis that broadcasting `target` to this
        /// shape would have stretched, so `a.broadcast_to(s)?.sum_to(a.shape())?` is `a` times the
        /// stretch factor. `target` must broadcast to this shape (one-directionally, B5).
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let g = DynTensor::from_shape_vec([2, 3, 2], (1..=12).collect()).unwrap();
        /// let s = g.sum_to([3, 1]).unwrap();
        /// assert_eq!(s.shape(), &[3, 1]);
        /// assert_eq!(s.as_slice(), &[1 + 2 + 7 + 8, 3 + 4 + 9 + 10, 5 + 6 + 11 + 12]);
        /// let e = g.sum_to([2, 1]).unwrap_err();
        /// assert_eq!(e.to_string(), "cannot sum [2, 3, 2] to [2, 1] (sum_to): axis 1 has 2 vs 3");
        /// ```
        pub fn sum_to(&self, target: impl AsRef<[usize]>) -> Result<DynTensor<T>, Error>
        where
            T: Element,
        {
            let target = target.as_ref();
            let mask = sum_to_axes(self.shape(), target)?;
            let data = self.summed(mask, target, T::from_acc)?;
            Ok(DynTensor::from_parts(target, data))
        }
    }

    impl DynTensor<bool> {
        /// Whether every element over `axes` is `true` (`true` for an empty axis).
        pub fn all<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<DynTensor<bool>, Error> {
            self.logical_fold(axes, keepdims, ReduceOp::All, true, |a, v| a && v)
        }

        /// Whether some element over `axes` is `true` (`false` for an empty axis).
        pub fn any<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<DynTensor<bool>, Error> {
            self.logical_fold(axes, keepdims, ReduceOp::Any, false, |a, v| a || v)
        }

        fn logical_fold<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
            op: ReduceOp,
            empty: bool,
            f: impl Fn(bool, bool) -> bool + Copy + Sync + Send,
        ) -> Result<DynTensor<bool>, Error> {
            let mask = reduce_axes(self.shape(), axes, op)?;
            let data = each_axis(
                self.shape(),
                self.as_slice(),
                mask,
                &self.out_shape(mask, keepdims),
                Ok(empty),
                |d, s, a| fold_axis(d, s, a, empty, |_, v| v, |acc, _, v| f(acc, v)),
            )?;
            Ok(self.reduced(mask, keepdims, data))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_sum_is_exact_on_small_integers_and_accurate_on_floats() {
        extern crate std;
        let ints: std::vec::Vec<i64> = (1..=1000).collect();
        assert_eq!(pairwise_sum(&ints), 500_500);
        assert_eq!(pairwise_sum::<f32>(&[]), 0.0);
        // Miri interprets every addition: a shorter run there.
        let n = if cfg!(miri) { 1 << 12 } else { 1 << 20 };
        let tenths = std::vec![0.1f32; n];
        let s = pairwise_sum(&tenths);
        let want = n as f32 * 0.1;
        assert!((s - want).abs() / want < 1e-5, "{s}");
    }

    /// R7's order of a run of at most 256 elements, written from its text: element `i` into
    /// running sum `i mod 16`, all but the last `len mod 4`; the sums added pairwise; those
    /// last elements added in order. Values of mixed magnitudes, so another order gives other
    /// bits.
    #[test]
    fn r7_a_short_run_is_summed_in_sixteen_lanes_as_the_rule_says() {
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let exp = (seed >> 28) as i32 - 8;
            (((seed >> 8) & 0xffff) as f32 / 65536.0 - 0.5) * 2f32.powi(exp)
        };
        // Every length; under Miri, which interprets each addition, every remainder mod 16
        // and the longest.
        let lens = (0..=256).filter(|&len| !cfg!(miri) || len <= 40 || len >= 250);
        for len in lens {
            let x: [f32; 256] = core::array::from_fn(|_| next());
            let x = &x[..len];
            let mut lanes = [0.0f32; 16];
            let in_lanes = len - len % 4;
            for (i, &v) in x[..in_lanes].iter().enumerate() {
                lanes[i % 16] += v;
            }
            let mut width = 16;
            while width > 1 {
                width /= 2;
                for i in 0..width {
                    lanes[i] += lanes[i + width];
                }
            }
            let want = x[in_lanes..].iter().fold(lanes[0], |s, &v| s + v);
            assert_eq!(pairwise_sum(x).to_bits(), want.to_bits(), "a run of {len}");
        }
    }

    #[test]
    fn sum_rows_matches_column_sums() {
        let n = 1000;
        extern crate std;
        let rows: std::vec::Vec<i32> = (0..n * 3).map(|i| i as i32).collect();
        let mut out = [0; 3];
        sum_rows(&rows, n, 3, &mut out, &i32::from_acc);
        let want: std::vec::Vec<i32> = (0..3)
            .map(|c| (0..n).map(|r| (r * 3 + c) as i32).sum())
            .collect();
        assert_eq!(out.to_vec(), want);
        sum_rows::<i32, i32>(&[], 0, 3, &mut out, &i32::from_acc);
        assert_eq!(out, [0, 0, 0]);
    }
}
