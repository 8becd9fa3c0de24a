//! `f32` and `f64` products under the blocked gemm's threshold, register-blocked and compiled
//! for AVX2 when the CPU has it (x86 with `std`, as [`super::wide`] does for the elementwise
//! loops). Each tile of 4 rows by 16 `f32` (8 `f64`) columns keeps its sums in 8 vector
//! registers while `k` runs innermost: per step of `k`, two row loads of `b`, four broadcasts
//! of `a` and 8 multiplies and 8 adds for 64 multiply-adds.
//!
//! The bits are those of the loop nest (G6): every output element starts from its `k = 0`
//! term and adds the others in `k` ascending, each product rounded, then each sum (a multiply
//! then an add, never fused: Rust does not contract them, and AVX2 alone has no FMA). A tile
//! only changes which elements are summed side by side.
//!
//! Measured (callgrind, `benches/matmul_probe.rs`, instructions per call): the `f32`
//! `[8, 32] x [32, 64]` product of an MLP took 37.0 K through the row passes, 8.7 K with the
//! tiles (ndarray's `dot` 8.5 K); with `b`'s rows read through checked slices the loop spent
//! 17 instructions per step of `k` on bounds beside 22 of arithmetic (12.2 K). Two steps of
//! `k` a turn spilled accumulators (9.3 K). `benches/README.md` has the whole table.
//!
//! Only `f32` and `f64` have a copy, non-generic, compiled once in this crate: a dependent
//! crate builds no AVX2 code for its element types (a generic AVX2 copy of the small kernel
//! cost a dependent crate's release rebuild 0.06-0.1 s, `benches/README.md`).

use core::any::TypeId;
use core::mem::MaybeUninit;

use crate::element::Element;

/// Rows of `a` in a tile.
const ROWS: usize = 4;

/// Fewest multiply-adds for which a product asks for the tiles: below, the row passes on
/// fixed-size rows ([`super::product_rows_of`]) of the small `DynTensor` products are as
/// cheap and need no feature check.
const MIN_WORK: usize = 1024;

/// The product `[m, k, n]` of `a` (contiguous rows: `a_at` `[offset, row stride, 1]`) by `b`
/// (contiguous rows: `b_at` `[offset, row stride, 1]`) into `c` (`m x n`, row-major, every
/// element written; its rows `ldc` long, the product's columns from `j0`: `out_at` is `[j0,
/// ldc]`) by the AVX2 tiles, when `T` is `f32` or `f64`, the product is large
/// enough, the operands' rows are contiguous and the CPU has AVX2. Returns the columns it
/// wrote: all of them, or 0 when it does not apply.
#[inline(always)]
pub(super) fn product<T: Element>(
    [m, k, n]: [usize; 3],
    a: &[T],
    a_at: [usize; 3],
    b: &[T],
    b_at: [usize; 3],
    c: &mut [MaybeUninit<T>],
    out_at: [usize; 2],
) -> usize {
    let id = TypeId::of::<T>();
    let (f32_id, f64_id) = (TypeId::of::<f32>(), TypeId::of::<f64>());
    let narrow = if id == f32_id { 8 } else { 4 };
    if (id != f32_id && id != f64_id)
        || a_at[2] != 1
        || b_at[2] != 1
        || k == 0
        || n < narrow
        || c.len() != m * out_at[1]
        || out_at[0] + n > out_at[1]
        || m.saturating_mul(k).saturating_mul(n) < MIN_WORK
        || !std::arch::is_x86_feature_detected!("avx2")
    {
        return 0;
    }
    let (a_at, b_at) = ([a_at[0], a_at[1]], [b_at[0], b_at[1]]);
    if id == f32_id {
        // SAFETY: `T` is `f32` (the type ids are equal), so the slices keep their element
        // type, length and layout; the CPU has AVX2, checked just now.
        unsafe {
            let (a, b) = (cast::<T, f32>(a), cast::<T, f32>(b));
            let c = &mut *(c as *mut [MaybeUninit<T>] as *mut [MaybeUninit<f32>]);
            f32_avx2([m, k, n], a, a_at, b, b_at, c, out_at)
        }
    } else {
        // SAFETY: as above, for `f64`.
        unsafe {
            let (a, b) = (cast::<T, f64>(a), cast::<T, f64>(b));
            let c = &mut *(c as *mut [MaybeUninit<T>] as *mut [MaybeUninit<f64>]);
            f64_avx2([m, k, n], a, a_at, b, b_at, c, out_at)
        }
    }
}

/// `x` as a slice of `U`.
///
/// # Safety
/// `T` and `U` must be the same type.
#[inline(always)]
unsafe fn cast<T, U>(x: &[T]) -> &[U] {
    // SAFETY: the caller promises that `T` is `U`: same size, alignment and validity.
    unsafe { core::slice::from_raw_parts(x.as_ptr().cast::<U>(), x.len()) }
}

/// [`columns`] for `f32`, tiles of 16 columns (8 at the padded end), compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) unsafe fn f32_avx2(
    dims: [usize; 3],
    a: &[f32],
    a_at: [usize; 2],
    b: &[f32],
    b_at: [usize; 2],
    c: &mut [MaybeUninit<f32>],
    out_at: [usize; 2],
) -> usize {
    columns::<f32, 16, 8>(dims, a, a_at, b, b_at, c, out_at)
}

/// [`columns`] for `f64`, tiles of 8 columns (4 at the padded end), compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) unsafe fn f64_avx2(
    dims: [usize; 3],
    a: &[f64],
    a_at: [usize; 2],
    b: &[f64],
    b_at: [usize; 2],
    c: &mut [MaybeUninit<f64>],
    out_at: [usize; 2],
) -> usize {
    columns::<f64, 8, 4>(dims, a, a_at, b, b_at, c, out_at)
}

/// The product in blocks of `W` columns, then the last `n % W` columns as one block of `H`
/// or `W` (whichever holds them), its rows of `b` loaded element by element with zeros after
/// the last column (their sums are never stored). Returns the columns written: all of them.
#[inline(always)]
fn columns<F: Element, const W: usize, const H: usize>(
    [m, k, n]: [usize; 3],
    a: &[F],
    a_at: [usize; 2],
    b: &[F],
    [b0, b_row]: [usize; 2],
    c: &mut [MaybeUninit<F>],
    [j0, ldc]: [usize; 2],
) -> usize {
    let mut j = 0;
    while j + W <= n {
        block::<F, W>([m, k, ldc, j0 + j, W], a, a_at, b, [b0 + j, b_row], c);
        j += W;
    }
    let rest = n - j;
    if rest == H {
        block::<F, H>([m, k, ldc, j0 + j, H], a, a_at, b, [b0 + j, b_row], c);
    } else if rest > 0 && rest < H {
        block::<F, H>([m, k, ldc, j0 + j, rest], a, a_at, b, [b0 + j, b_row], c);
    } else if rest > 0 {
        block::<F, W>([m, k, ldc, j0 + j, rest], a, a_at, b, [b0 + j, b_row], c);
    }
    n
}

/// Columns `j..j + width` of the output (`width` at most `NR`) from the `NR` columns of `b`
/// at `b0` (row stride `b_row`): tiles of [`ROWS`] rows, then single rows.
#[inline(always)]
fn block<F: Element, const NR: usize>(
    [m, k, n, j, width]: [usize; 5],
    a: &[F],
    [a0, a_row]: [usize; 2],
    b: &[F],
    b_at: [usize; 2],
    c: &mut [MaybeUninit<F>],
) {
    let mut i = 0;
    while i + ROWS <= m {
        let out = &mut c[i * n + j..];
        tile::<F, ROWS, NR>([k, n, width], a, [a0 + i * a_row, a_row], b, b_at, out);
        i += ROWS;
    }
    while i < m {
        let out = &mut c[i * n + j..];
        tile::<F, 1, NR>([k, n, width], a, [a0 + i * a_row, a_row], b, b_at, out);
        i += 1;
    }
}

/// `R` rows by `NR` columns: the sums in `R x NR` accumulators (registers, once compiled),
/// `k` innermost, each sum from its `k = 0` term; the first `width` columns of each row
/// stored into `out` (rows `n` apart).
#[inline(always)]
fn tile<F: Element, const R: usize, const NR: usize>(
    [k, n, width]: [usize; 3],
    a: &[F],
    [a0, a_row]: [usize; 2],
    b: &[F],
    [b0, b_row]: [usize; 2],
    out: &mut [MaybeUninit<F>],
) {
    let mut rows: [&[F]; R] = [&[]; R];
    for (r, row) in rows.iter_mut().enumerate() {
        let at = a0 + r * a_row;
        *row = &a[at..at + k];
    }
    // The last element a row of `b` is read up to: the loop reads each row without a
    // bounds check (they cost 17 instructions per step of `k` beside 22 of arithmetic), so
    // it is checked here, once, and a product that would read past `b` panics.
    let read = if width == NR { NR } else { width };
    let end = (k - 1)
        .checked_mul(b_row)
        .and_then(|x| x.checked_add(b0))
        .and_then(|x| x.checked_add(read));
    let b = match end {
        Some(end) => &b[..end],
        None => panic!("matmul: the right operand's rows overflow"),
    };
    let mut acc = [[F::ZERO; NR]; R];
    if width == NR {
        // SAFETY: `kk < k`, so `at + NR = b0 + kk * b_row + NR <= b0 + (k - 1) * b_row + NR`,
        // which is `b.len()` (computed without overflow above).
        let full = |kk: usize| unsafe {
            let at = b0 + kk * b_row;
            *b.get_unchecked(at..at + NR).as_ptr().cast::<[F; NR]>()
        };
        sums(&mut acc, k, &rows, full);
    } else {
        // The last block of a product whose `n` is not a multiple of `NR`: `width` elements
        // of each row of `b`, zeros after them.
        // SAFETY: as above, with `width` for `NR`.
        let part = |kk: usize| unsafe {
            let at = b0 + kk * b_row;
            let y = b.get_unchecked(at..at + width);
            core::array::from_fn(|c| if c < y.len() { y[c] } else { F::ZERO })
        };
        sums(&mut acc, k, &rows, part);
    }
    for (r, sums) in acc.iter().enumerate() {
        let line = &mut out[r * n..r * n + width];
        for (o, &s) in line.iter_mut().zip(sums) {
            o.write(s);
        }
    }
}

/// The sums of a tile: `acc[r][c]` is the sum over `kk` below `k` (at least 1) of
/// `rows[r][kk] * line(kk)[c]`, from its `kk = 0` term, in `kk` order.
#[inline(always)]
fn sums<F: Element, const R: usize, const NR: usize>(
    acc: &mut [[F; NR]; R],
    k: usize,
    rows: &[&[F]; R],
    line: impl Fn(usize) -> [F; NR],
) {
    // `rows[r][kk]` for `kk < k`; every row is `k` long.
    let x = |r: usize, kk: usize| {
        debug_assert!(rows[r].len() == k && kk < k);
        // SAFETY: `kk < k` at every call below, and `tile` made each row `k` long.
        unsafe { *rows[r].get_unchecked(kk) }
    };
    let y = line(0);
    for (r, sums) in acc.iter_mut().enumerate() {
        let x = x(r, 0);
        for (s, &y) in sums.iter_mut().zip(&y) {
            *s = F::mul(x, y);
        }
    }
    for kk in 1..k {
        let y = line(kk);
        for (r, sums) in acc.iter_mut().enumerate() {
            let x = x(r, kk);
            for (s, &y) in sums.iter_mut().zip(&y) {
                *s = F::add(*s, F::mul(x, y));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::MaybeUninit;

    /// The AVX2 tiles (where the CPU has it) write every output slot (they start
    /// uninitialised: Miri reports a slot left unwritten) with each element's terms added in
    /// `k` order from the first, bit for bit, as the plain loop: tiles of 4 rows and single
    /// rows, full blocks of 16 (`f32`) or 8 (`f64`) columns and padded last blocks narrower
    /// and wider than half a block, a row stride wider than `n`, an output offset into wider
    /// rows; signed zeros, infinities and subnormals. Small enough for Miri, which CI runs in
    /// a build that enables AVX2.
    #[test]
    fn avx2_loops_write_k_order_sums() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let specials = [0.0f64, -0.0, 1.5, -2.25, f64::INFINITY, 1e-310, -3e300, 7.0];
        let value = |i: usize| specials[i % specials.len()] * (1.0 + (i % 13) as f64 / 8.0);
        // [m, k, n], `b`'s row stride, the output's column offset and row length.
        for ([m, k, n], b_row, [j0, ldc]) in [
            ([5, 17, 21], 21, [0, 21]),
            ([6, 19, 12], 15, [3, 16]),
            ([4, 40, 16], 16, [0, 16]),
            ([9, 1, 120], 120, [0, 120]),
        ] {
            let a: Vec<f64> = (0..m * k + 2).map(value).collect();
            let b: Vec<f64> = (0..(k - 1) * b_row + n).map(|i| value(i + 3)).collect();
            let expected = |i: usize, j: usize| {
                let term = |kk: usize| a[2 + i * k + kk] * b[kk * b_row + j];
                (1..k).fold(term(0), |s, kk| s + term(kk))
            };
            let (a_at, b_at) = ([2, k, 1], [0, b_row, 1]);
            let mut out = std::vec![MaybeUninit::<f64>::uninit(); m * ldc];
            assert_eq!(
                super::product([m, k, n], &a, a_at, &b, b_at, &mut out, [j0, ldc]),
                n
            );
            let bits = |x: f64| {
                if x.is_nan() {
                    f64::NAN.to_bits()
                } else {
                    x.to_bits()
                }
            };
            for i in 0..m {
                for j in 0..n {
                    // SAFETY: the tiles wrote every slot of the product's columns (what this
                    // test checks, under Miri).
                    let got = unsafe { out[i * ldc + j0 + j].assume_init() };
                    assert_eq!(
                        bits(got),
                        bits(expected(i, j)),
                        "f64 [{m}, {k}, {n}] ({i}, {j})"
                    );
                }
            }
            let a: Vec<f32> = a.iter().map(|&x| x as f32).collect();
            let b: Vec<f32> = b.iter().map(|&x| x as f32).collect();
            let expected = |i: usize, j: usize| {
                let term = |kk: usize| a[2 + i * k + kk] * b[kk * b_row + j];
                (1..k).fold(term(0), |s, kk| s + term(kk))
            };
            let mut out = std::vec![MaybeUninit::<f32>::uninit(); m * ldc];
            assert_eq!(
                super::product([m, k, n], &a, a_at, &b, b_at, &mut out, [j0, ldc]),
                n
            );
            let bits = |x: f32| {
                if x.is_nan() {
                    f32::NAN.to_bits()
                } else {
                    x.to_bits()
                }
            };
            for i in 0..m {
                for j in 0..n {
                    // SAFETY: as above.
                    let got = unsafe { out[i * ldc + j0 + j].assume_init() };
                    assert_eq!(
                        bits(got),
                        bits(expected(i, j)),
                        "f32 [{m}, {k}, {n}] ({i}, {j})"
                    );
                }
            }
        }
    }
}
