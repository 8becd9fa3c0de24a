//! The numerics every model writes by hand: softmax and log-softmax along an axis, variance
//! and standard deviation along an axis (with `ddof`), layer and RMS normalization over the
//! trailing axes, and the sum or mean of every element. The slice kernels here serve static,
//! mixed and runtime tensors alike, so the three agree bit for bit; `DynTensor`'s methods are
//! at the end.
//!
//! Each follows the reference formula of its definition, step for step (rules S1-S6):
//! softmax subtracts the maximum first (numpy's and ONNX's `Softmax`), so no
//! finite input overflows; variance is numpy's two-pass `sum((x - mean)^2) / max(n - ddof,
//! 0)`; the normalizations are ONNX's `LayerNormalization` and `RMSNormalization` (opset 23)
//! with `stash_type` 1. Every sum is pairwise (error `O(log n)` roundings, as numpy's), in the
//! element's compute type (`f32` for `f16`/`bf16`), rounded once per result.
//!
//! A contiguous lane (the last axis, or a normalized block) is walked by slices, each pass a
//! loop the compiler vectorizes, and summed as `sum` sums a row ([`run_sum`]); a strided lane
//! (an axis before the last) is walked by index, except by the variance, which sums sixteen
//! lanes at a time by whole rows ([`column_sums`]). Softmax computes `exp` once an element: it
//! stores `exp(x - max)` in the output, then divides it by the sum in place. Before this,
//! each built-in took more instructions than the same steps composed from operators (softmax
//! over `[32, 64]` `f32`, static: 1.84x, `benches/numerics_probe.rs`).

use super::reduce::split;
use crate::element::Real;
#[cfg(any(feature = "std", feature = "libm"))]
use core::mem::MaybeUninit;

/// The pairwise sum of `f(0) + ... + f(n - 1)`: halves added recursively, runs of 8 in order
/// (a strided lane's sum).
#[cfg(any(feature = "std", feature = "libm"))]
#[inline]
fn pairwise<C: Real>(lo: usize, hi: usize, f: &impl Fn(usize) -> C) -> C {
    if hi - lo <= 8 {
        let mut s = C::ZERO;
        for k in lo..hi {
            s = s + f(k);
        }
        s
    } else {
        let mid = lo + (hi - lo) / 2;
        pairwise(lo, mid, f) + pairwise(mid, hi, f)
    }
}

/// The longest run [`run_sum`] adds in lanes without splitting it: sixteen additions a lane,
/// as `reduce::pairwise_sum`. Half the leaves of 128 (the former size), so half their fixed
/// cost (zeroing the lanes, adding them pairwise): layer norm over `[128, 512]` `f32` took
/// 331 K instructions a call with 128, 291 K with this. As accurate: the RMS relative error of
/// a sum of `exp` values in `f32` against `f64`, 400 random lanes of each length from 100 to
/// 100 000, was within 7% of 128's either way (3.6e-8 to 4.6e-8 for both).
const LEAF: usize = 256;

/// The independent sums of a leaf: four SSE registers of `f32`.
const LANES: usize = 16;

/// The sum of `f(v)` over a contiguous run, pairwise: sixteen running sums below [`LEAF`]
/// elements (the remainder added to the first ones), then those pairwise; the two halves
/// (split on a multiple of [`LANES`]) added above. A loop that vectorizes, where the
/// closure-driven recursion in runs of 8 that this replaced did not. As accurate as that
/// order: the RMS relative error of a sum of `exp` values in `f32`, against `f64`, on random
/// lanes of 100 to 100 000 elements, is within 6% of it either way (3.6e-8 to 4.4e-8 for
/// both), and the largest error of the sample is no larger by more than that.
///
/// `WIDE` is true only in code compiled for AVX2 and reached after checking that the CPU has
/// it ([`blocks_avx2`]): the halves of a long run then recurse through
/// [`run_sum_halves_avx2`], so the whole sum keeps the wide vectors.
#[inline(always)]
fn run_sum<T: Copy, C: Real, const WIDE: bool>(x: &[T], f: &impl Fn(T) -> C) -> C {
    if x.len() > LEAF {
        #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
        if WIDE {
            // SAFETY: `WIDE` is true only where the CPU has AVX2 (see above).
            return unsafe { run_sum_halves_avx2(x, f) };
        }
        return run_sum_halves(x, f);
    }
    let mut acc = [C::ZERO; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a = *a + f(v);
        }
    }
    // The remainder into the lanes, not onto the total: added last to the whole sum, it
    // doubled the error of a 100-element sum (RMS 6.0e-8 against 4.0e-8). Zero-padded to a
    // whole chunk, so the lanes stay in vector registers (`a + 0` is `a`); skipped when there
    // is none (a lane of 512 has four leaves and no remainder).
    if !rest.is_empty() {
        let mut tail = [C::ZERO; LANES];
        for (t, &v) in tail.iter_mut().zip(rest) {
            *t = f(v);
        }
        for (a, t) in acc.iter_mut().zip(tail) {
            *a = *a + t;
        }
    }
    // Pairwise over the lanes too.
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            acc[i] = acc[i] + acc[i + width];
        }
    }
    acc[0]
}

/// [`run_sum`] of a run longer than [`LEAF`]: its halves, out of line.
#[inline(never)]
fn run_sum_halves<T: Copy, C: Real>(x: &[T], f: &impl Fn(T) -> C) -> C {
    let half = x.len() / 2 / LANES * LANES;
    run_sum::<_, _, false>(&x[..half], f) + run_sum::<_, _, false>(&x[half..], f)
}

/// [`run_sum_halves`] compiled for AVX2: the same additions in the same order, so the same
/// bits.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn run_sum_halves_avx2<T: Copy, C: Real>(x: &[T], f: &impl Fn(T) -> C) -> C {
    let half = x.len() / 2 / LANES * LANES;
    run_sum::<_, _, true>(&x[..half], f) + run_sum::<_, _, true>(&x[half..], f)
}

/// The largest of `f(0), ..., f(n - 1)`, NaN if any is NaN (numpy's `max`); `n > 0`.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline]
fn lane_max<C: Real>(n: usize, f: &impl Fn(usize) -> C) -> C {
    let mut m = f(0);
    for k in 1..n {
        m = larger(m, f(k));
    }
    m
}

/// `v` if it is larger than `m` or NaN, else `m`: once NaN, the fold stays NaN (`v > NaN` is
/// false and a non-NaN `v` equals itself).
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
fn larger<C: Real>(m: C, v: C) -> C {
    #[allow(clippy::eq_op)]
    if v > m || v != v {
        v
    } else {
        m
    }
}

/// The largest element of a contiguous run as the compute type, NaN if any is NaN; `x` is
/// not empty. Sixteen running maxima (one compare-and-select chain is a loop-carried
/// dependency the compiler does not vectorize), then those in order. Only the sign of a zero
/// maximum can differ from the in-order fold's (`-0.0` and `0.0` compare equal): `x - max`
/// is then `±0.0`, whose `exp` is 1 either way, so softmax is unchanged; log-softmax can
/// give `0.0` for `-0.0` where the sum of the lane's exponentials is exactly 1.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
fn run_max<T: Real>(x: &[T]) -> T::Compute {
    let first = x[0].to_compute();
    if x.len() < LANES {
        // No whole chunk: the fold in order, without folding the sixteen lanes too (a softmax
        // over rows of 10 spent 249 instructions a row in 25 compares, now 9).
        return x[1..].iter().fold(first, |m, &v| larger(m, v.to_compute()));
    }
    let mut lanes = [first; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l = larger(*l, v.to_compute());
        }
    }
    let mut m = lanes[0];
    for &l in &lanes[1..] {
        m = larger(m, l);
    }
    for &v in rest {
        m = larger(m, v.to_compute());
    }
    m
}

/// The columns a strided-lane variance sums at once: four SSE registers of `f32`, kept in an
/// array on the stack (no allocator needed).
const COLS: usize = 16;

/// Per column `j < width`, the pairwise sum over rows `lo..hi` of
/// `f(x[k * stride + j], shift[j])`,
/// in exactly [`pairwise`]'s order (halves added recursively, runs of 8 rows in order), so
/// each column's sum is bit for bit the sum of its lane by index. Each leaf walks its rows
/// whole, a run of `width` contiguous elements: a loop across the columns that vectorizes,
/// where the lane-by-lane walk reloaded each element with a stride.
#[inline]
fn column_sums<T: Copy, C: Real, const W: usize>(
    x: &[T],
    stride: usize,
    width: usize,
    lo: usize,
    hi: usize,
    shift: &[C; W],
    f: &impl Fn(T, C) -> C,
) -> [C; W] {
    if hi - lo <= 8 {
        let mut s = [C::ZERO; W];
        for k in lo..hi {
            let row = &x[k * stride..k * stride + width];
            for ((a, &v), &m) in s.iter_mut().zip(row).zip(shift) {
                *a = *a + f(v, m);
            }
        }
        s
    } else {
        let mid = lo + (hi - lo) / 2;
        let mut a = column_sums(x, stride, width, lo, mid, shift, f);
        let b = column_sums(x, stride, width, mid, hi, shift, f);
        for (a, b) in a.iter_mut().zip(b) {
            *a = *a + b;
        }
        a
    }
}

/// [`moments`] of a contiguous run: two passes, each a loop that vectorizes (`WIDE` as
/// [`run_sum`] says).
#[inline(always)]
fn run_moments<T: Real, const WIDE: bool>(x: &[T]) -> (T::Compute, T::Compute) {
    let mean = run_sum::<_, _, WIDE>(x, &|v: T| v.to_compute()) / count(x.len());
    let ss = run_sum::<_, _, WIDE>(x, &|v: T| {
        let d = v.to_compute() - mean;
        d * d
    });
    (mean, ss)
}

/// The sum of every element, pairwise, in the compute type (0 for none).
fn total<T: Real>(x: &[T]) -> T::Compute {
    run_sum::<_, _, false>(x, &|v: T| v.to_compute())
}

/// The sum of every element, pairwise, rounded once (0 for none).
pub(crate) fn sum_all<T: Real>(x: &[T]) -> T {
    T::from_compute(total(x))
}

/// The mean of every element (NaN for none, as numpy's `mean`).
pub(crate) fn mean_all<T: Real>(x: &[T]) -> T {
    T::from_compute(total(x) / count::<T::Compute>(x.len()))
}

/// `n` as the compute type.
#[inline]
fn count<C: Real>(n: usize) -> C {
    C::from_f64(n as f64)
}

/// Softmax (or, with `log`, log-softmax) of `x` (row-major `dims`) along `axis`, into `out`
/// (the same length, every slot written). Per lane: `m` its maximum (NaN if any element is);
/// softmax `exp(x - m) / sum(exp(x - m))`; log-softmax `(x - m) - ln(sum(exp(x - m)))`.
#[cfg(any(feature = "std", feature = "libm"))]
pub(crate) fn softmax_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    log: bool,
    out: &mut [MaybeUninit<T>],
) {
    let (outer, n, inner) = split(dims, axis);
    if n == 0 {
        return;
    }
    if inner == 1 {
        for (lane, dst) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
            softmax_run(lane, log, dst);
        }
        return;
    }
    let out = zeroed(out);
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            let at = |k: usize| base + k * inner;
            let m = lane_max(n, &|k| x[at(k)].to_compute());
            // The exponentials are kept in the output where it holds the compute type: `exp`
            // once an element.
            let s = match T::as_compute_mut(out) {
                Some(o) if !log => {
                    for k in 0..n {
                        o[at(k)] = (x[at(k)].to_compute() - m).exp();
                    }
                    pairwise(0, n, &|k| o[at(k)])
                }
                _ => pairwise(0, n, &|k| (x[at(k)].to_compute() - m).exp()),
            };
            if log {
                let ls = s.ln();
                for k in 0..n {
                    out[at(k)] = T::from_compute((x[at(k)].to_compute() - m) - ls);
                }
            } else if let Some(o) = T::as_compute_mut(out) {
                for k in 0..n {
                    o[at(k)] = o[at(k)] / s;
                }
            } else {
                for k in 0..n {
                    out[at(k)] = T::from_compute((x[at(k)].to_compute() - m).exp() / s);
                }
            }
        }
    }
}

/// Every slot of `out` set to 0, as elements.
#[cfg(any(feature = "std", feature = "libm"))]
fn zeroed<T: Real>(out: &mut [MaybeUninit<T>]) -> &mut [T] {
    for slot in out.iter_mut() {
        slot.write(T::ZERO);
    }
    // SAFETY: every slot was just written, and `MaybeUninit<T>` has `T`'s layout.
    unsafe { written(out) }
}

/// `out` as elements.
///
/// # Safety
/// Every slot of `out` has been written.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
unsafe fn written<T>(out: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and every slot is initialized (this
    // function's contract).
    unsafe { &mut *(out as *mut [MaybeUninit<T>] as *mut [T]) }
}

/// [`softmax_into`] of one contiguous lane `x` into `out` (the same length, not 0).
#[cfg(any(feature = "std", feature = "libm"))]
#[inline]
fn softmax_run<T: Real>(x: &[T], log: bool, out: &mut [MaybeUninit<T>]) {
    let m = run_max(x);
    let shifted = |v: T| v.to_compute() - m;
    if log {
        let ls = run_sum::<_, _, false>(x, &|v| shifted(v).exp()).ln();
        for (y, &v) in out.iter_mut().zip(x) {
            y.write(T::from_compute(shifted(v) - ls));
        }
        return;
    }
    if T::as_compute(x).is_some() {
        // The element is the compute type: the exponentials stored (`from_compute` is the
        // identity), summed, then divided in place, `exp` once an element.
        for (y, &v) in out.iter_mut().zip(x) {
            y.write(T::from_compute(shifted(v).exp()));
        }
        // SAFETY: the loop wrote every slot (`out` and `x` have the same length).
        let out = unsafe { written(out) };
        if let Some(e) = T::as_compute_mut(out) {
            let s = run_sum::<_, _, false>(e, &|v| v);
            for y in e.iter_mut() {
                *y = *y / s;
            }
        }
        return;
    }
    // A narrow element (`f16`, `bf16`): the exponentials are recomputed rather than rounded
    // to it before the sum and the division.
    let s = run_sum::<_, _, false>(x, &|v| shifted(v).exp());
    for (y, &v) in out.iter_mut().zip(x) {
        y.write(T::from_compute(shifted(v).exp() / s));
    }
}

/// The variance of `x` (row-major `dims`) along `axis` into `out` (`outer * inner` results,
/// the axis removed), numpy's: `sum((x - mean)^2) / max(n - ddof, 0)`, so NaN for an empty
/// axis and `inf` (or NaN) when `ddof >= n`; with `sqrt`, the standard deviation.
pub(crate) fn var_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    ddof: usize,
    finish: impl Fn(T::Compute) -> T::Compute,
    out: &mut [T],
) {
    let (outer, n, inner) = split(dims, axis);
    let divisor = count::<T::Compute>(n.saturating_sub(ddof));
    if inner == 1 && n > 0 {
        for (lane, y) in x.chunks_exact(n).zip(out.iter_mut()) {
            let (_, ss) = run_moments::<_, false>(lane);
            *y = T::from_compute(finish(ss / divisor));
        }
        return;
    }
    // A strided lane: its columns `COLS` at a time, each pass walking whole rows; a
    // narrower remainder (or a narrow inner dim) in arrays of 4 or 8, since every level of
    // the recursion adds and copies the whole array: `[16384, 3]` along axis 0 took 1.67 M
    // instructions with 16 (3 columns of 16 used), more than by index (1.41 M).
    for o in 0..outer {
        // Within `x`: `outer * n * inner` is its length.
        let block = &x[o * n * inner..(o + 1) * n * inner];
        let dst = &mut out[o * inner..(o + 1) * inner];
        if (2..=COLS / 2).contains(&inner) && n >= COLS / inner {
            narrow_var(block, n, inner, divisor, &finish, dst);
            continue;
        }
        let mut c0 = 0;
        while c0 < inner {
            let width = COLS.min(inner - c0);
            let d = &mut dst[c0..c0 + width];
            match width {
                0..=4 => strided_var::<T, 4>(block, n, inner, c0, width, divisor, &finish, d),
                5..=8 => strided_var::<T, 8>(block, n, inner, c0, width, divisor, &finish, d),
                _ => strided_var::<T, COLS>(block, n, inner, c0, width, divisor, &finish, d),
            }
            c0 += width;
        }
    }
}

/// The variance of columns `c0..c0 + width` (`width <= W`) of an `[n, inner]` block, into
/// `out`: the sums of [`column_sums`], the mean, then the squared deviations' sums.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn strided_var<T: Real, const W: usize>(
    block: &[T],
    n: usize,
    inner: usize,
    c0: usize,
    width: usize,
    divisor: T::Compute,
    finish: &impl Fn(T::Compute) -> T::Compute,
    out: &mut [T],
) {
    let zero = [<T::Compute as crate::element::Element>::ZERO; W];
    // Empty when `n` is 0: every sum is then 0, as `pairwise`'s.
    let cols = block.get(c0..).unwrap_or(&[]);
    let sums = column_sums(cols, inner, width, 0, n, &zero, &|v: T, _| v.to_compute());
    let mean = sums.map(|s| s / count(n));
    let ss = column_sums(cols, inner, width, 0, n, &mean, &|v: T, m| {
        let d = v.to_compute() - m;
        d * d
    });
    for (y, s) in out.iter_mut().zip(ss) {
        *y = T::from_compute(finish(s / divisor));
    }
}

/// The variance of each of the `inner <= COLS / 2` columns of an `[n, inner]` block (`n` at
/// least `COLS / inner`), into `out`: `l = COLS / inner` rows are read as one row of `l *
/// inner` columns, so each pass over the rows fills its accumulators, and each column's `l`
/// partial sums (and those of the last `n mod l` rows) are then added pairwise. By rows of 3,
/// `std_axis::<0>` of `[16384, 3]` took 1.05 M instructions (`benches/programs/image.rs`,
/// most of its 1.62 M): a pass per row of 3 values, and a level of the pairwise recursion per
/// 8 rows.
#[inline(always)]
fn narrow_var<T: Real>(
    block: &[T],
    n: usize,
    inner: usize,
    divisor: T::Compute,
    finish: &impl Fn(T::Compute) -> T::Compute,
    out: &mut [T],
) {
    let zero = [<T::Compute as crate::element::Element>::ZERO; COLS];
    let l = COLS / inner;
    let wide = l * inner;
    let rows = n / l;
    let (main, tail) = block.split_at(rows * wide);
    // Column `c`'s sum: its `l` partials of the wide rows pairwise, then the tail's.
    let fold = |w: &[T::Compute; COLS], t: &[T::Compute; COLS], c: usize| {
        let mut parts = [<T::Compute as crate::element::Element>::ZERO; COLS];
        for (j, p) in parts[..l].iter_mut().enumerate() {
            *p = w[j * inner + c];
        }
        let mut width = l;
        while width > 1 {
            let half = width.div_ceil(2);
            for i in 0..width / 2 {
                parts[i] = parts[i] + parts[i + half];
            }
            width = half;
        }
        parts[0] + t[c]
    };
    let id = |v: T, _| v.to_compute();
    let sums = column_sums(main, wide, wide, 0, rows, &zero, &id);
    let tail_sums = column_sums(tail, inner, inner, 0, n - rows * l, &zero, &id);
    let mut mean = zero;
    let mut shift = zero;
    for (c, m) in mean[..inner].iter_mut().enumerate() {
        *m = fold(&sums, &tail_sums, c) / count(n);
    }
    for (k, s) in shift[..wide].iter_mut().enumerate() {
        *s = mean[k % inner];
    }
    let sq = |v: T, m: T::Compute| {
        let d = v.to_compute() - m;
        d * d
    };
    let ss = column_sums(main, wide, wide, 0, rows, &shift, &sq);
    let tail_ss = column_sums(tail, inner, inner, 0, n - rows * l, &mean, &sq);
    for (c, y) in out.iter_mut().enumerate().take(inner) {
        *y = T::from_compute(finish(fold(&ss, &tail_ss, c) / divisor));
    }
}

/// What a block is normalized by: layer norm's mean and variance, or RMS norm's mean square,
/// each with its `epsilon`.
#[cfg(any(feature = "std", feature = "libm"))]
#[derive(Clone, Copy)]
enum Norm<C> {
    Layer(C),
    Rms(C),
}

/// A block's `(shift, inv)` for `norm`: layer norm `(mean, 1 / sqrt(var + epsilon))` with
/// `var = mean((x - mean)^2)`, RMS norm `(0, 1 / sqrt(mean(x^2) + epsilon))` (a shift of 0:
/// `x - 0` is `x`, bit for bit, `-0.0` and NaN included). `WIDE` as [`run_sum`] says.
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
fn block_stats<T: Real, const WIDE: bool>(
    lane: &[T],
    norm: Norm<T::Compute>,
) -> (T::Compute, T::Compute) {
    let one = <T::Compute as crate::element::Element>::ONE;
    match norm {
        Norm::Layer(epsilon) => {
            let (mean, ss) = run_moments::<T, WIDE>(lane);
            let var = ss / count(lane.len());
            (mean, one / (var + epsilon).sqrt())
        }
        Norm::Rms(epsilon) => {
            let ms = run_sum::<_, _, WIDE>(lane, &|v: T| {
                let v = v.to_compute();
                v * v
            }) / count(lane.len());
            (
                <T::Compute as crate::element::Element>::ZERO,
                one / (ms + epsilon).sqrt(),
            )
        }
    }
}

/// `x` (row-major `dims`) normalized block by block over every axis from `axis` on, into
/// `out` (every slot written): each result is `(x - shift) * inv` with its block's
/// [`block_stats`]. The blocks are contiguous, the product of those dims long.
///
/// Work of `MIN_WIDE` (512) elements or more runs a copy compiled for AVX2 where the CPU has
/// it (x86 with `std`), as the operators' loops do (`src/runtime/wide.rs`): the same additions
/// in the same order, so the same bits. Layer norm over `[128, 512]` `f32`: 389 K
/// instructions a call without it, 1.32x the 294 K of the same steps composed from operators
/// (whose loops had their AVX2 copy); 331 K with it (`benches/numerics_probe.sh`).
#[cfg(any(feature = "std", feature = "libm"))]
fn blocks_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    out: &mut [MaybeUninit<T>],
    norm: Norm<T::Compute>,
) {
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    if super::wide::avx2(x.len()) {
        // SAFETY: `avx2` has just checked that this CPU has AVX2.
        return unsafe { blocks_avx2(x, dims, axis, out, norm) };
    }
    blocks_here::<T, false>(x, dims, axis, out, norm)
}

/// [`blocks_here`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn blocks_avx2<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    out: &mut [MaybeUninit<T>],
    norm: Norm<T::Compute>,
) {
    blocks_here::<T, true>(x, dims, axis, out, norm)
}

/// The loops of [`blocks_into`] (`WIDE` as [`run_sum`] says).
#[cfg(any(feature = "std", feature = "libm"))]
#[inline(always)]
fn blocks_here<T: Real, const WIDE: bool>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    out: &mut [MaybeUninit<T>],
    norm: Norm<T::Compute>,
) {
    // At most the element count of a shape that exists.
    let n: usize = dims[axis..].iter().product();
    if n == 0 {
        return;
    }
    for (lane, dst) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
        let (shift, inv) = block_stats::<T, WIDE>(lane, norm);
        for (x, y) in lane.iter().zip(dst) {
            y.write(T::from_compute((x.to_compute() - shift) * inv));
        }
    }
}

/// Layer normalization (ONNX `LayerNormalization`, no scale or bias) of `x` (row-major
/// `dims`) over every axis from `axis` on, into `out`: per block, `d = x - mean`,
/// `var = mean(d^2)`, `d * (1 / sqrt(var + epsilon))`.
#[cfg(any(feature = "std", feature = "libm"))]
pub(crate) fn layer_norm_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    epsilon: T::Compute,
    out: &mut [MaybeUninit<T>],
) {
    blocks_into(x, dims, axis, out, Norm::Layer(epsilon))
}

/// RMS normalization (ONNX `RMSNormalization`, no scale) of `x` (row-major `dims`) over
/// every axis from `axis` on, into `out`: per block, `x * (1 / sqrt(mean(x^2) + epsilon))`
/// (a shift of 0: `x - 0` is `x`, bit for bit, `-0.0` and NaN included).
#[cfg(any(feature = "std", feature = "libm"))]
pub(crate) fn rms_norm_into<T: Real>(
    x: &[T],
    dims: &[usize],
    axis: usize,
    epsilon: T::Compute,
    out: &mut [MaybeUninit<T>],
) {
    blocks_into(x, dims, axis, out, Norm::Rms(epsilon))
}

#[cfg(feature = "alloc")]
mod dyn_tensor {
    use super::*;
    use crate::error::Error;
    #[cfg(any(feature = "std", feature = "libm"))]
    use crate::op::BinaryOp;
    use crate::op::ReduceOp;
    use crate::rules;
    use crate::runtime::dyn_tensor::DynTensor;

    /// `axis` of `shape` resolved (negative from the end), or the reduction's error naming it.
    #[cfg(any(feature = "std", feature = "libm"))]
    fn one_axis(shape: &[usize], axis: i64, op: ReduceOp) -> Result<usize, Error> {
        let mask = rules::reduce_axes(shape, &[axis], op)?;
        Ok(mask.trailing_zeros() as usize)
    }

    /// The numerics every model needs (rules S1-S6): each follows the reference formula of its
    /// definition, sums pairwise in the compute type, and agrees bit for bit with the method
    /// of the same name on static and mixed tensors.
    ///
    /// ```
    /// # #[cfg(any(feature = "std", feature = "libm"))] {
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 3], vec![1.0f64, 2.0, 3.0, 1.0, 1.0, 1.0])?;
    /// let p = x.softmax(-1)?;
    /// assert!((p.as_slice()[2] - 0.6652409557748219).abs() < 1e-15);
    /// assert!(p.sum(&[1], false)?.iter().all(|s| (s - 1.0).abs() < 1e-15));
    /// assert_eq!(x.var(&[1], 0, false)?.as_slice(), &[2.0 / 3.0, 0.0]);
    /// assert_eq!(x.mean_all(), 1.5);
    /// let y = x.layer_norm(1, 1e-5)?;
    /// assert!(y.as_slice()[3..].iter().all(|&v| v == 0.0));
    /// # }
    /// # Ok::<(), shaped::Error>(())
    /// ```
    impl<T: Real> DynTensor<T> {
        /// The sum of every element, pairwise (0 for none).
        pub fn sum_all(&self) -> T {
            sum_all(self.as_slice())
        }

        /// The mean of every element (NaN for none).
        pub fn mean_all(&self) -> T {
            mean_all(self.as_slice())
        }

        /// The variance over `axes`, numpy's `var(x, axis=axes, ddof=ddof)`:
        /// `sum((x - mean)^2) / max(n - ddof, 0)` with `n` the number of elements reduced
        /// per result. `axes` as for [`sum`](Self::sum): [`Axes::All`](rules::Axes::All), a
        /// non-empty list (`&[0]`, `&[0, 2]`, negative from the end), or
        /// [`Axes::Nothing`](rules::Axes::Nothing). Each reduced axis is kept as a 1 with
        /// `keepdims`, else removed. An empty axis gives NaN; `ddof >= n` divides by 0 (`inf`,
        /// or NaN when every deviation is 0).
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let x = DynTensor::from_shape_vec([2, 2, 2], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])?;
        /// assert_eq!(x.var(&[-1], 0, false)?.as_slice(), &[0.25; 4]);
        /// // Axes 0 and 2: the values 1, 2, 5, 6 and 3, 4, 7, 8.
        /// assert_eq!(x.var(&[0, 2], 0, true)?.as_slice(), &[4.25, 4.25]);
        /// assert_eq!(x.var(&[0, 2], 0, true)?.shape(), &[1, 2, 1]);
        /// # Ok::<(), shaped::Error>(())
        /// ```
        pub fn var<'a>(
            &self,
            axes: impl Into<rules::Axes<'a>>,
            ddof: usize,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error> {
            self.moments(axes, ddof, keepdims, ReduceOp::Var, |v| v)
        }

        /// The standard deviation over `axes`: the square root of [`var`](Self::var).
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn std<'a>(
            &self,
            axes: impl Into<rules::Axes<'a>>,
            ddof: usize,
            keepdims: bool,
        ) -> Result<DynTensor<T>, Error> {
            self.moments(axes, ddof, keepdims, ReduceOp::Std, |v| v.sqrt())
        }

        /// [`var`](Self::var) along one axis, the axis removed: `var_axis::<A>(ddof)` of a
        /// static tensor with the axis a value.
        pub fn var_axis(&self, axis: i64, ddof: usize) -> Result<DynTensor<T>, Error> {
            self.var(&[axis], ddof, false)
        }

        /// [`var`](Self::var) along one axis, kept as a 1: `var_keepdims::<A>(ddof)`.
        pub fn var_keepdims(&self, axis: i64, ddof: usize) -> Result<DynTensor<T>, Error> {
            self.var(&[axis], ddof, true)
        }

        /// [`std`](Self::std) along one axis, the axis removed: `std_axis::<A>(ddof)`.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn std_axis(&self, axis: i64, ddof: usize) -> Result<DynTensor<T>, Error> {
            self.std(&[axis], ddof, false)
        }

        /// [`std`](Self::std) along one axis, kept as a 1: `std_keepdims::<A>(ddof)`.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn std_keepdims(&self, axis: i64, ddof: usize) -> Result<DynTensor<T>, Error> {
            self.std(&[axis], ddof, true)
        }

        /// The variance kernel runs along one axis: reduced axes that are adjacent (or none,
        /// or all) merge into one without a copy; others are moved last first (a copy).
        fn moments<'a>(
            &self,
            axes: impl Into<rules::Axes<'a>>,
            ddof: usize,
            keepdims: bool,
            op: ReduceOp,
            finish: impl Fn(T::Compute) -> T::Compute,
        ) -> Result<DynTensor<T>, Error> {
            let dims = self.shape();
            let mask = rules::reduce_axes(dims, axes, op)?;
            let shape = rules::reduced_shape(dims, mask, keepdims);
            let count = crate::runtime::element_count::<T>(&shape)?;
            let mut out = crate::runtime::try_filled(count, T::ZERO, &shape)?;
            let reduced = |a: &usize| mask & (1 << a) != 0;
            // The reduced dims' product: some of a tensor's dims, so it does not overflow.
            let n: usize = (0..dims.len()).filter(reduced).map(|a| dims[a]).product();
            let first = mask.trailing_zeros() as usize;
            let adjacent = mask == 0 || (mask >> first) & ((mask >> first) + 1) == 0;
            if adjacent {
                // [before, n, after]; no axis reduced: each element its own lane of 1.
                let (a, end) = if mask == 0 {
                    (dims.len(), dims.len())
                } else {
                    (first, first + mask.count_ones() as usize)
                };
                let before = dims[..a].iter().product();
                let after = dims[end..].iter().product();
                var_into(
                    self.as_slice(),
                    &[before, n, after],
                    1,
                    ddof,
                    finish,
                    &mut out,
                );
            } else {
                // The kept axes in order, then the reduced ones.
                let mut order = [0i64; rules::MAX_RANK];
                let kept = (0..dims.len()).filter(|a| !reduced(a));
                for (slot, a) in order
                    .iter_mut()
                    .zip(kept.chain((0..dims.len()).filter(reduced)))
                {
                    *slot = a as i64;
                }
                let moved = self.permute(&order[..dims.len()])?;
                var_into(moved.as_slice(), &[count, n], 1, ddof, finish, &mut out);
            }
            Ok(DynTensor::from_parts(&shape, out))
        }

        /// Softmax along `axis` (negative from the end): `exp(x - max) / sum(exp(x - max))`
        /// per lane, so no finite input overflows. A lane holding NaN, or `+inf`, or only
        /// `-inf`, is all NaN (as numpy's and ONNX's formula gives); an empty axis gives an
        /// empty result.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn softmax(&self, axis: i64) -> Result<DynTensor<T>, Error> {
            self.along(axis, ReduceOp::Softmax, |x, dims, a, out| {
                softmax_into(x, dims, a, false, out)
            })
        }

        /// Log-softmax along `axis`: `(x - max) - ln(sum(exp(x - max)))` per lane. Finite
        /// where `ln(softmax)` would round to `-inf` (ONNX's reference computes the latter);
        /// NaN, infinities and empty axes as in [`softmax`](Self::softmax).
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn log_softmax(&self, axis: i64) -> Result<DynTensor<T>, Error> {
            self.along(axis, ReduceOp::LogSoftmax, |x, dims, a, out| {
                softmax_into(x, dims, a, true, out)
            })
        }

        /// Layer normalization over every axis from `axis` on (negative from the end), ONNX's
        /// `LayerNormalization` without its scale and bias: `(x - mean) / sqrt(var +
        /// epsilon)` per normalized block; `layer_norm::<A>(epsilon)` of a static tensor with
        /// the axis a value. [`layer_norm_scaled`](Self::layer_norm_scaled) applies ONNX's
        /// scale and bias in the same call.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn layer_norm(&self, axis: i64, epsilon: f32) -> Result<DynTensor<T>, Error> {
            let eps = T::Compute::from_f32(epsilon);
            self.along(axis, ReduceOp::LayerNorm, |x, dims, a, out| {
                layer_norm_into(x, dims, a, eps, out)
            })
        }

        /// [`layer_norm`](Self::layer_norm), then `* scale` and `+ bias` when given, each
        /// broadcast onto the result (B5: a `[D]` scale for the last axis, or the normalized
        /// block's shape): the whole of ONNX's `LayerNormalization`.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn layer_norm_scaled(
            &self,
            axis: i64,
            epsilon: f32,
            scale: Option<&DynTensor<T>>,
            bias: Option<&DynTensor<T>>,
        ) -> Result<DynTensor<T>, Error> {
            self.layer_norm(axis, epsilon)?.scaled(scale, bias)
        }

        /// RMS normalization over every axis from `axis` on, ONNX's `RMSNormalization` without
        /// its scale: `x / sqrt(mean(x^2) + epsilon)` per normalized block;
        /// `rms_norm::<A>(epsilon)` of a static tensor with the axis a value.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn rms_norm(&self, axis: i64, epsilon: f32) -> Result<DynTensor<T>, Error> {
            let eps = T::Compute::from_f32(epsilon);
            self.along(axis, ReduceOp::RmsNorm, |x, dims, a, out| {
                rms_norm_into(x, dims, a, eps, out)
            })
        }

        /// [`rms_norm`](Self::rms_norm), then `* scale` when given (broadcast onto the result,
        /// B5): the whole of ONNX's `RMSNormalization`.
        #[cfg(any(feature = "std", feature = "libm"))]
        pub fn rms_norm_scaled(
            &self,
            axis: i64,
            epsilon: f32,
            scale: Option<&DynTensor<T>>,
        ) -> Result<DynTensor<T>, Error> {
            self.rms_norm(axis, epsilon)?.scaled(scale, None)
        }

        /// A normalization's result `* scale`, then `+ bias`, each broadcast onto it (B5).
        #[cfg(any(feature = "std", feature = "libm"))]
        fn scaled(
            mut self,
            scale: Option<&DynTensor<T>>,
            bias: Option<&DynTensor<T>>,
        ) -> Result<DynTensor<T>, Error> {
            if let Some(s) = scale {
                self.update_op(s.view(), BinaryOp::Mul, crate::op::binary_fn!(Mul, T))?;
            }
            if let Some(b) = bias {
                self.update_op(b.view(), BinaryOp::Add, crate::op::binary_fn!(Add, T))?;
            }
            Ok(self)
        }

        /// A result of `self`'s shape written by `kernel(x, dims, axis, out)`, which writes
        /// every slot of `out`.
        #[cfg(any(feature = "std", feature = "libm"))]
        fn along(
            &self,
            axis: i64,
            op: ReduceOp,
            kernel: impl FnOnce(&[T], &[usize], usize, &mut [MaybeUninit<T>]),
        ) -> Result<DynTensor<T>, Error> {
            let a = one_axis(self.shape(), axis, op)?;
            // SAFETY: the kernels write every slot of their output.
            let out = unsafe {
                crate::runtime::filled_vec(self.len(), self.shape(), |out| {
                    kernel(self.as_slice(), self.shape(), a, out);
                    Ok(())
                })
            }?;
            Ok(DynTensor::from_parts(self.shape(), out))
        }
    }
}

#[cfg(test)]
mod tests {
    /// S3 on narrow columns (`narrow_var`: `l` rows read as one wide row): the variance along
    /// axis 0 of `[n, inner]` blocks, `inner` 2 to 8 and `n` around the multiples of `l`, as
    /// the two-pass formula gives it in `f64`, within a few `f32` roundings.
    #[test]
    fn s3_narrow_columns_have_the_two_pass_variance() {
        extern crate std;
        use std::vec::Vec;
        let mut seed = 11u32;
        for inner in 2..=8usize {
            // Miri interprets every addition: the long lanes natively only.
            let long = if cfg!(miri) { 41 } else { 1001 };
            for n in [1, 2, 7, 8, 9, 15, 16, 17, 40, long] {
                let x: Vec<f32> = (0..n * inner)
                    .map(|_| {
                        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                        (seed >> 8) as f32 / (1u32 << 24) as f32 * 10.0 - 3.0
                    })
                    .collect();
                let mut out = [0.0f32; 8];
                super::var_into(&x, &[n, inner], 0, 0, |v| v, &mut out[..inner]);
                for (c, &got) in out[..inner].iter().enumerate() {
                    let col = || x.iter().skip(c).step_by(inner).map(|&v| f64::from(v));
                    let mean = col().sum::<f64>() / n as f64;
                    let want = col().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
                    let err = (f64::from(got) - want).abs();
                    assert!(
                        err <= 1e-5 * want.max(1.0),
                        "[{n}, {inner}] column {c}: {got} vs {want}"
                    );
                }
            }
        }
    }

    /// The AVX2 copy of the normalizations (`blocks_avx2`) against the baseline copy, bit for
    /// bit (any NaN as NaN): layer and RMS norm, `f32` and `f64`, blocks shorter than a leaf,
    /// of whole leaves, and long with a remainder (so the halves recurse through
    /// `run_sum_halves_avx2`), with NaN, infinities, signed zeros and subnormals among the
    /// values. Called directly, so short work is covered too; skipped where the CPU lacks
    /// AVX2. Under Miri it runs when the build enables AVX2 (`-C target-feature=+avx2`, as CI
    /// does).
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    #[test]
    fn avx2_loops_normalize_as_the_baseline_loops() {
        use super::{blocks_avx2, blocks_here, Norm};
        use core::mem::MaybeUninit;
        use std::vec::Vec;
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let specials = [f64::NAN, 0.0, -0.0, f64::INFINITY, 1e-310, -3.5, 1e300];
        let value = |i: usize| match i % 29 {
            k if k < specials.len() && i % 3 == 0 => specials[k],
            k => (i as f64 - 300.0) * 0.37 + k as f64,
        };
        // (rows, block): under Miri, shorter blocks.
        let shapes: &[[usize; 2]] = if cfg!(miri) {
            &[[2, 7], [1, 40], [1, 300]]
        } else {
            &[[3, 7], [2, 16], [4, 256], [2, 512], [1, 1000], [1, 4099]]
        };
        macro_rules! check {
            ($t:ty) => {
                for &[rows, n] in shapes {
                    let x: Vec<$t> = (0..rows * n).map(|i| value(i) as $t).collect();
                    let dims = [rows, n];
                    for norm in [Norm::Layer(1e-5 as $t), Norm::Rms(1e-5 as $t)] {
                        let mut here = std::vec![MaybeUninit::<$t>::uninit(); x.len()];
                        let mut wide = std::vec![MaybeUninit::<$t>::uninit(); x.len()];
                        blocks_here::<$t, false>(&x, &dims, 1, &mut here, norm);
                        // SAFETY: the CPU has AVX2, checked above.
                        unsafe { blocks_avx2(&x, &dims, 1, &mut wide, norm) };
                        let bits = |v: &[MaybeUninit<$t>]| -> Vec<_> {
                            v.iter()
                                .map(|s| {
                                    // SAFETY: both wrote every slot (`rows` blocks of `n`).
                                    let v = unsafe { s.assume_init() };
                                    // Which NaN an operation returns is unspecified (Miri
                                    // picks at random): NaN compares as NaN.
                                    (!v.is_nan()).then(|| v.to_bits())
                                })
                                .collect()
                        };
                        assert_eq!(bits(&here), bits(&wide), "{rows}x{n} {}", stringify!($t));
                    }
                }
            };
        }
        check!(f32);
        check!(f64);
    }
}
