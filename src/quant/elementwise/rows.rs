//! A large add's or subtract's rows in which one input holds one value (x86 with `std`): the
//! output of such a row is a function of the other input's byte alone, so it is read from a
//! 256-entry table of output bytes, built once per value held (256 evaluations of the same
//! contract) and kept for the rest of the operation. A per-channel bias
//! (`[8, 256, 56, 56] + [1, 256, 1, 1]`) holds each channel's value along rows of 3136, an
//! outer sum (`[1024, 1] + [1, 1024]`) each row's value along rows of 1024; neither builds
//! more than 256 tables, however many rows it has.
//!
//! The lookups run 64 bytes at a time with AVX-512 VBMI where the CPU has it (two `vpermi2b`,
//! each a 128-entry byte table, and a blend on the index's top bit), 32 at a time with AVX2
//! (16 `vpshufb` of 16 entries, and 15 blends on the index's high bits), one at a time
//! otherwise. Every output byte is the contract's for its pair of inputs: the tables hold
//! [`QAddSub::apply_terms`]'s results, the same integers the per-element loops compute.
//!
//! On a Zen 4 core (one thread, a busy machine, so the ratios are the point), forcing each
//! level: `[8, 256, 56, 56] + [1, 256, 1, 1]` ran at 22-29 Gelem/s with VBMI, 6.1 with AVX2
//! and 2.0-2.8 with the baseline, against 1.5-1.7 computing each element in the AVX2 loops
//! (the loops before) and 0.23-0.32 in the baseline ones; `[1024, 1] + [1, 1024]` at 15-25,
//! 5.5, 1.8-2.4, 1.5-2.1 and 0.23-0.35.

use alloc::vec::Vec;

use super::{index, QAddSub, Terms};
use crate::quant::{QuantElement, Rounding};
use crate::util::Slot;

/// Which input holds one value along a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// The first input (`[1024, 1] + [1, 1024]`: each row's value).
    A,
    /// The second input (`[.., C, H, W] + [1, C, 1, 1]`: each channel's value).
    B,
}

/// The widest loops this CPU runs, found once per operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// The baseline (SSE2): the tables built by the baseline loops, read one byte at a time.
    Base,
    /// AVX2: the tables built eight entries at a time, read 32 bytes at a time.
    Avx2,
    /// AVX-512 with VBMI: the tables built sixteen entries at a time, read 64 bytes at a time.
    #[cfg(shaped_avx512)]
    Vbmi,
}

impl Level {
    /// The widest level this CPU has.
    pub(crate) fn detect() -> Level {
        #[cfg(shaped_avx512)]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
        {
            return Level::Vbmi;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return Level::Avx2;
        }
        Level::Base
    }
}

/// A large add's or subtract's element function with its row form: the term tables of
/// [`QAddSub::terms`] for each element, and the output tables of the values held along rows,
/// built as rows ask for them.
pub(crate) struct AddRows<'o, E, const SUB: bool> {
    op: &'o QAddSub<E, SUB>,
    terms: Terms,
    level: Level,
    /// The output tables built so far, each indexed by the other input's byte.
    tables: Vec<[E; 256]>,
    /// For each side ([`Held`]) and value held (its [`index`]): one more than the position of
    /// its table in `tables`, 0 before it is built.
    built: [[u16; 256]; 2],
}

impl<'o, E: QuantElement, const SUB: bool> AddRows<'o, E, SUB> {
    /// Whether rows of `n` elements in an output of `total` are read from tables: rows of at
    /// least 256 pay for their tables even if no two rows hold the same value, and rows of 16
    /// or more do once the output is large enough for the 256 tables a side can need to cost
    /// no more than computing it element by element. Measured (x86, AVX-512 VBMI, one
    /// thread; tables against elements): `[256, 64] + [256, 1]`, each row holding its own
    /// value, 1.18 against 1.91 Gelem/s, `[256, 128]` 2.33 against 2.07, `[256, 256]` 4.5
    /// against 2.2; with each value held by many rows, `[16384, 32] + [16384, 1]` 4.5 against
    /// 1.9, `[32768, 16]` 1.8-2.3 against 1.6, `[65536, 8]` 1.1-1.5 against 1.1 (each row
    /// then costs about as much as its elements did).
    pub(crate) fn rows_pay(n: usize, total: usize) -> bool {
        n >= 16 && (n >= 256 || total >= 1 << 16)
    }

    /// The element function of `op`, with loops for this CPU.
    pub(crate) fn new(op: &'o QAddSub<E, SUB>) -> Self {
        Self::with_level(op, Level::detect())
    }

    /// The element function of `op`, with the loops of `level` (which the CPU must have).
    pub(crate) fn with_level(op: &'o QAddSub<E, SUB>, level: Level) -> Self {
        AddRows {
            op,
            terms: op.terms(),
            level,
            tables: Vec::new(),
            built: [[0; 256]; 2],
        }
    }

    /// One pair of elements.
    #[inline(always)]
    pub(crate) fn call(&self, x: E, y: E) -> E {
        self.op.apply_terms(&self.terms, x, y)
    }

    /// A row: `out[i]` the result of `held`'s value `value` with `run[i]` from the other
    /// input (as many as the shorter of the two).
    pub(crate) fn row<O: Slot<E>>(&mut self, held: Held, value: E, run: &[E], out: &mut [O]) {
        let level = self.level;
        lookup(level, self.table(held, value), run, out);
    }

    /// The output table of `held`'s value `value`, built on first use.
    fn table(&mut self, held: Held, value: E) -> &[E; 256] {
        let side = held as usize;
        let k = index(value);
        if self.built[side][k] == 0 {
            if self.tables.capacity() == 0 {
                // Room for every value of one side at once (64 KiB for 8-bit elements), so
                // that the tables are not moved as they are added.
                self.tables.reserve_exact(256);
            }
            // Built where it stays: built on the stack and pushed, each table was copied
            // (4% of an outer sum's time went to those copies).
            self.tables.push([E::saturate(0); 256]);
            let last = self.tables.len() - 1;
            build_in(
                self.level,
                self.op,
                &self.terms,
                held,
                k,
                &mut self.tables[last],
            );
            // At most 512 tables (two sides of 256 values): the position fits.
            self.built[side][k] = self.tables.len() as u16;
        }
        &self.tables[usize::from(self.built[side][k]) - 1]
    }
}

/// Fills `table` for the value of index `k` held by `held`, with the loops of `level`.
fn build_in<E: QuantElement, const SUB: bool>(
    level: Level,
    op: &QAddSub<E, SUB>,
    terms: &Terms,
    held: Held,
    k: usize,
    table: &mut [E; 256],
) {
    match level {
        Level::Base => build(op, terms, held, k, table),
        #[cfg(shaped_avx512)]
        Level::Vbmi => {
            // SAFETY: the level is only ever one the CPU has (`AddRows::with_level`).
            unsafe { build_avx512(op, terms, held, k, table) }
        }
        Level::Avx2 => {
            // SAFETY: as above.
            unsafe { build_avx2(op, terms, held, k, table) }
        }
    }
}

/// The raw byte of `x` (its two's complement for `i8`): where its output is in a table.
#[inline(always)]
fn raw<E: QuantElement>(x: E) -> usize {
    (x.to_i32() & 0xff) as usize
}

/// The output table of the value of index `k` held by `held`: entry `raw(v)` is the result for
/// `v` from the other input. The loops are two runs of 128 contiguous terms (each half of the
/// other input's range), so they vectorize.
#[inline(always)]
fn build<E: QuantElement, const SUB: bool>(
    op: &QAddSub<E, SUB>,
    terms: &Terms,
    held: Held,
    k: usize,
    table: &mut [E; 256],
) {
    // Value `i` from the bottom of the range (`E::MIN + i`) has the raw byte `i ^ flip`: the
    // lower 128 values are the raw bytes 128..256 for `i8`, 0..128 for `u8`.
    let flip = E::MIN & 0xff != 0;
    let (low, high) = table.split_at_mut(128);
    let (bottom, top) = if flip { (high, low) } else { (low, high) };
    // One loop per rounding and side, with nothing to test inside it.
    macro_rules! fill {
        ($rounding:expr) => {
            match held {
                Held::A => {
                    let t = terms.a[k];
                    let f = |u| op.combine_in($rounding, t, u);
                    fill_half(bottom, &terms.b[..128], f);
                    fill_half(top, &terms.b[128..], f);
                }
                Held::B => {
                    let t = terms.b[k];
                    let f = |u| op.combine_in($rounding, u, t);
                    fill_half(bottom, &terms.a[..128], f);
                    fill_half(top, &terms.a[128..], f);
                }
            }
        };
    }
    match op.frame.rounding {
        Rounding::Double => fill!(Rounding::Double),
        Rounding::Single => fill!(Rounding::Single),
    }
}

/// `out[i] = f(other[i])`.
#[inline(always)]
fn fill_half<E>(out: &mut [E], other: &[i32], f: impl Fn(i32) -> E) {
    for (o, &t) in out.iter_mut().zip(other) {
        *o = f(t);
    }
}

/// [`build`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn build_avx2<E: QuantElement, const SUB: bool>(
    op: &QAddSub<E, SUB>,
    terms: &Terms,
    held: Held,
    k: usize,
    table: &mut [E; 256],
) {
    build(op, terms, held, k, table)
}

/// [`build`] for AVX-512: in double rounding (TFLM's default), sixteen outputs at a time
/// written out below; in single rounding, [`build`]'s loops compiled for AVX-512.
///
/// The compiled loops widen each sixteen sums to 64 bits in two halves and narrow the
/// products back (six shuffles per sixteen outputs); here the products of the even and the
/// odd lanes are taken in place (`vpmuldq` reads the low half of each 64-bit lane) and the
/// two results blended. An outer sum `[1024, 1] + [1, 1024]`, which builds 253 tables for its
/// million outputs, ran at 15-21 Gelem/s so, 12-18 with the compiled loops for AVX-512 and
/// 12-15 with those for AVX2 (a busy machine, interleaved runs).
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ.
#[cfg(shaped_avx512)]
// `shaped_avx512` is set only for compilers from 1.89, where these intrinsics are stable.
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
#[inline(never)]
unsafe fn build_avx512<E: QuantElement, const SUB: bool>(
    op: &QAddSub<E, SUB>,
    terms: &Terms,
    held: Held,
    k: usize,
    table: &mut [E; 256],
) {
    use core::arch::x86_64::*;
    if op.frame.rounding != Rounding::Double {
        return build(op, terms, held, k, table);
    }
    const {
        assert!(core::mem::size_of::<E>() == 1);
    }
    let (multiplier, shift) = op.out.parts();
    // `multiply_by_quantized_multiplier_double_small`, sixteen lanes at a time.
    let e = if shift < -31 {
        31
    } else if shift > 0 {
        0
    } else {
        shift.unsigned_abs()
    };
    let m = _mm512_set1_epi64(i64::from(multiplier));
    let nudge = _mm512_set1_epi64(1 << 30);
    let half = _mm512_set1_epi32(((1i64 << e) >> 1) as i32);
    let below = _mm512_set1_epi32(-i32::from(e > 0));
    let count = _mm_cvtsi32_si128(e as i32);
    let f = &op.frame;
    let (zero, min, max) = (
        _mm512_set1_epi32(f.out_offset),
        _mm512_set1_epi32(f.min),
        _mm512_set1_epi32(f.max),
    );
    let (held_term, other) = match held {
        Held::A => (terms.a[k], &terms.b),
        Held::B => (terms.b[k], &terms.a),
    };
    let t = _mm512_set1_epi32(held_term);
    // The raw byte of value `i` is `i ^ flip` (see `build`): each block of 16 values is 16
    // contiguous bytes.
    let flip = (E::MIN & 0xff) as usize;
    for (j, block) in other.chunks_exact(16).enumerate() {
        // SAFETY: `block` holds 16 `i32`s.
        let u = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        let sum = match (SUB, held) {
            (false, _) => _mm512_add_epi32(t, u),
            (true, Held::A) => _mm512_sub_epi32(t, u),
            (true, Held::B) => _mm512_sub_epi32(u, t),
        };
        let even = _mm512_mul_epi32(sum, m);
        let odd = _mm512_mul_epi32(_mm512_srli_epi64::<32>(sum), m);
        // Bits 31..62 of each product plus 2^30: the even lanes' moved down to the low half,
        // the odd lanes' up to the high half.
        let even = _mm512_srli_epi64::<31>(_mm512_add_epi64(even, nudge));
        let odd = _mm512_slli_epi64::<1>(_mm512_add_epi64(odd, nudge));
        let v = _mm512_mask_blend_epi32(0xaaaa, even, odd);
        let v = _mm512_add_epi32(
            _mm512_add_epi32(v, half),
            _mm512_and_si512(_mm512_srai_epi32::<31>(v), below),
        );
        let v = _mm512_sra_epi32(v, count);
        let v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, zero), min), max);
        // In `E`'s range after the clamp: the low byte is the value's raw byte.
        let bytes = _mm512_cvtepi32_epi8(v);
        let at = (16 * j) ^ flip;
        // SAFETY: `at + 16 <= 256` (`at` is a multiple of 16 below 256), and `E` is one byte.
        unsafe { _mm_storeu_si128(table.as_mut_ptr().add(at).cast(), bytes) };
    }
}

/// `out[i] = table[raw(run[i])]`, with the lookups of `level`.
#[inline(always)]
fn lookup<E: QuantElement, O: Slot<E>>(level: Level, table: &[E; 256], run: &[E], out: &mut [O]) {
    #[cfg(shaped_avx512)]
    if level == Level::Vbmi {
        const {
            assert!(core::mem::size_of::<E>() == 1 && core::mem::size_of::<O>() == 1);
        }
        let n = run.len().min(out.len());
        // SAFETY: the level is one the CPU has (`AddRows::with_level`). `table` is 256 bytes
        // (`E` is `i8` or `u8`, the sealed `QuantElement`'s two types), `run` has `n`
        // readable bytes and `out` `n` writable ones: its slots are `E` or `MaybeUninit<E>`
        // (the two `Slot` impls; one byte each, asserted above), and any byte is a valid
        // `E`, so writing table bytes into them is writing `E`s.
        unsafe {
            lookup_vbmi(
                table.as_ptr().cast(),
                run.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                n,
            )
        };
        return;
    }
    if level == Level::Avx2 {
        const {
            assert!(core::mem::size_of::<E>() == 1 && core::mem::size_of::<O>() == 1);
        }
        let n = run.len().min(out.len());
        // SAFETY: as above, for AVX2.
        unsafe {
            lookup_avx2(
                table.as_ptr().cast(),
                run.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                n,
            )
        };
        return;
    }
    for (o, &x) in out.iter_mut().zip(run) {
        o.set(table[raw(x)]);
    }
}

/// `dst[i] = table[src[i]]` for `i < n`, 32 bytes at a time: each byte's low four bits look
/// it up in the table's 16 rows of 16 (`vpshufb`), and its high four bits pick among the 16
/// results, one bit at a time (15 `vpblendvb`). The last partial block one byte at a time.
///
/// # Safety
/// The CPU must have AVX2; `table` must be valid for reading 256 bytes, `src` for reading `n`
/// and `dst` for writing `n`.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn lookup_avx2(table: *const u8, src: *const u8, dst: *mut u8, n: usize) {
    #[cfg(target_arch = "x86")]
    use core::arch::x86::*;
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::*;
    // SAFETY: the caller's: `table` holds 256 bytes, `src` `n` and `dst` `n`; each access
    // below is within them (whole blocks while `i + 32 <= n`, then single bytes).
    unsafe {
        let rows: [__m256i; 16] = core::array::from_fn(|k| {
            _mm256_broadcastsi128_si256(_mm_loadu_si128(table.add(16 * k).cast()))
        });
        let low_bits = _mm256_set1_epi8(0x0f);
        let mut i = 0;
        while i + 32 <= n {
            let x = _mm256_loadu_si256(src.add(i).cast());
            let low = _mm256_and_si256(x, low_bits);
            let mut level: [__m256i; 16] =
                core::array::from_fn(|k| _mm256_shuffle_epi8(rows[k], low));
            // Bit 4, 5, 6, then 7 of each byte moved to its top bit, which `vpblendvb` reads
            // (16-bit shifts: a byte's top bit comes from its own lower bits).
            let mut width = 16;
            for select in [
                _mm256_slli_epi16::<3>(x),
                _mm256_slli_epi16::<2>(x),
                _mm256_slli_epi16::<1>(x),
                x,
            ] {
                width /= 2;
                for k in 0..width {
                    level[k] = _mm256_blendv_epi8(level[2 * k], level[2 * k + 1], select);
                }
            }
            _mm256_storeu_si256(dst.add(i).cast(), level[0]);
            i += 32;
        }
        while i < n {
            *dst.add(i) = *table.add(usize::from(*src.add(i)));
            i += 1;
        }
    }
}

/// `dst[i] = table[src[i]]` for `i < n`, 64 bytes at a time: two `vpermi2b` look each byte up
/// in the table's lower and upper 128 entries (its low seven bits), and its top bit picks
/// one. The last partial block is read and written under a mask.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VBMI; `table` must be valid for reading 256 bytes,
/// `src` for reading `n` and `dst` for writing `n`.
#[cfg(shaped_avx512)]
// `shaped_avx512` is set only for compilers from 1.89, where these intrinsics are stable.
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline(never)]
unsafe fn lookup_vbmi(table: *const u8, src: *const u8, dst: *mut u8, n: usize) {
    use core::arch::x86_64::{
        _mm512_loadu_epi8, _mm512_mask_blend_epi8, _mm512_mask_storeu_epi8,
        _mm512_maskz_loadu_epi8, _mm512_movepi8_mask, _mm512_permutex2var_epi8, _mm512_storeu_epi8,
    };
    // SAFETY: the caller's: `table` holds 256 bytes, `src` `n` and `dst` `n`; each access
    // below is within them (whole blocks while `i + 64 <= n`, then a mask of `n - i` bytes).
    unsafe {
        let t = table.cast::<i8>();
        let (t0, t1) = (_mm512_loadu_epi8(t), _mm512_loadu_epi8(t.add(64)));
        let (t2, t3) = (_mm512_loadu_epi8(t.add(128)), _mm512_loadu_epi8(t.add(192)));
        let (src, dst) = (src.cast::<i8>(), dst.cast::<i8>());
        let mut i = 0;
        while i + 64 <= n {
            let x = _mm512_loadu_epi8(src.add(i));
            let low = _mm512_permutex2var_epi8(t0, x, t1);
            let high = _mm512_permutex2var_epi8(t2, x, t3);
            _mm512_storeu_epi8(
                dst.add(i),
                _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high),
            );
            i += 64;
        }
        if i < n {
            let mask = (1u64 << (n - i)) - 1;
            let x = _mm512_maskz_loadu_epi8(mask, src.add(i));
            let low = _mm512_permutex2var_epi8(t0, x, t1);
            let high = _mm512_permutex2var_epi8(t2, x, t3);
            let r = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
            _mm512_mask_storeu_epi8(dst.add(i), mask, r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AddRows, Held, Level};
    use crate::quant::{Activation, QAddSub, Quant, QuantElement, Rounding};
    use core::mem::MaybeUninit;
    use std::vec::Vec;

    /// A xorshift stream.
    struct Rng(u32);

    impl Rng {
        fn next(&mut self) -> u32 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            self.0 = x;
            x
        }
    }

    /// The levels this CPU has, the baseline first.
    fn levels() -> Vec<Level> {
        let mut levels = std::vec![Level::Base];
        if std::arch::is_x86_feature_detected!("avx2") {
            levels.push(Level::Avx2);
        }
        #[cfg(shaped_avx512)]
        if Level::detect() == Level::Vbmi {
            levels.push(Level::Vbmi);
        }
        // A build for AVX2 (as Miri's is, given `-C target-feature=+avx2`) runs its loops.
        assert!(!cfg!(target_feature = "avx2") || levels.contains(&Level::Avx2));
        levels
    }

    /// Scales and zero points drawn at random, kept when the add can be prepared.
    fn prepared<E: QuantElement, const SUB: bool>(rng: &mut Rng) -> QAddSub<E, SUB> {
        loop {
            let quant = |rng: &mut Rng| {
                let scale = 0.001 + (rng.next() % 1000) as f32 * 0.0007;
                let zero = E::MIN + (rng.next() % 256) as i32;
                Quant::<E>::new(scale, zero).unwrap()
            };
            let (a, b, out) = (quant(rng), quant(rng), quant(rng));
            let activation =
                [Activation::None, Activation::Relu, Activation::Relu6][rng.next() as usize % 3];
            let rounding = if rng.next() % 2 == 0 {
                Rounding::Double
            } else {
                Rounding::Single
            };
            if let Ok(op) = QAddSub::<E, SUB>::new(a, b, out, activation, rounding) {
                return op;
            }
        }
    }

    /// Rows of every level, on both sides, of lengths about the 64-byte blocks and the row
    /// threshold, initialised and not, against the contract element by element.
    fn rows_agree<E: QuantElement + PartialEq + core::fmt::Debug, const SUB: bool>(seed: u32) {
        let mut rng = Rng(seed);
        let lengths: &[usize] = if cfg!(miri) {
            &[0, 1, 63, 64, 65, 130]
        } else {
            &[0, 1, 2, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000]
        };
        for _ in 0..if cfg!(miri) { 2 } else { 6 } {
            let op = prepared::<E, SUB>(&mut rng);
            for level in levels() {
                let mut rows = AddRows::with_level(&op, level);
                for &n in lengths {
                    let run: Vec<E> = (0..n)
                        .map(|_| E::saturate(E::MIN + (rng.next() % 256) as i32))
                        .collect();
                    // A value held twice: the second row reads the table the first built.
                    for value in [
                        E::saturate(E::MIN + (rng.next() % 256) as i32),
                        E::saturate(E::MAX),
                    ] {
                        for held in [Held::A, Held::B] {
                            let want: Vec<E> = run
                                .iter()
                                .map(|&x| match held {
                                    Held::A => op.apply(value, x),
                                    Held::B => op.apply(x, value),
                                })
                                .collect();
                            let mut out = std::vec![E::saturate(0); n];
                            rows.row(held, value, &run, &mut out);
                            assert_eq!(out, want, "{level:?} {held:?} n={n}");
                            let mut slots = std::vec![MaybeUninit::<E>::uninit(); n];
                            rows.row(held, value, &run, &mut slots);
                            // SAFETY: `row` wrote every slot (the run is as long).
                            let got: Vec<E> =
                                slots.iter().map(|s| unsafe { s.assume_init() }).collect();
                            assert_eq!(got, want, "{level:?} {held:?} n={n}, uninitialised");
                            for (x, y) in run.iter().zip(&want) {
                                let (a, b) = match held {
                                    Held::A => (value, *x),
                                    Held::B => (*x, value),
                                };
                                assert_eq!(rows.call(a, b), *y);
                            }
                        }
                    }
                }
                // At most one table per value held on each side.
                assert!(rows.tables.len() <= 2 * 2 * lengths.len());
                // Every table entry: each value held on each side, with every other value.
                let every: Vec<E> = (0..256).map(|i| E::saturate(E::MIN + i)).collect();
                let held_values = if cfg!(miri) { &every[..3] } else { &every[..] };
                let mut out = std::vec![E::saturate(0); 256];
                for &value in held_values {
                    for held in [Held::A, Held::B] {
                        rows.row(held, value, &every, &mut out);
                        for (&x, &got) in every.iter().zip(&out) {
                            let want = match held {
                                Held::A => op.apply(value, x),
                                Held::B => op.apply(x, value),
                            };
                            assert_eq!(got, want, "{level:?} {held:?} {value:?} {x:?}");
                        }
                    }
                }
            }
        }
    }

    /// Rows are read from tables when long, or when the output is large enough for every
    /// table a side can need.
    #[test]
    fn long_rows_or_large_outputs_take_tables() {
        type Rows<'o> = AddRows<'o, i8, false>;
        assert!(Rows::rows_pay(256, 1024));
        assert!(Rows::rows_pay(16, 1 << 16));
        assert!(!Rows::rows_pay(15, 1 << 20));
        assert!(!Rows::rows_pay(255, (1 << 16) - 1));
    }

    #[test]
    fn add_rows_read_from_tables_are_the_contract() {
        rows_agree::<i8, false>(0x1234_5678);
        rows_agree::<u8, false>(0x0bad_cafe);
    }

    #[test]
    fn sub_rows_read_from_tables_are_the_contract() {
        rows_agree::<i8, true>(0x2468_ace1);
        rows_agree::<u8, true>(0x1357_9bdf);
    }

    /// Every value held on each side builds one table, kept: 512 tables in all. (Safe code
    /// only, and 131072 rows of 256: not under Miri.)
    #[test]
    #[cfg_attr(miri, ignore)]
    fn every_value_builds_one_table() {
        let q = Quant::<i8>::new(0.05, 3).unwrap();
        let op = QAddSub::<i8, false>::new(q, q, q, Activation::None, Rounding::Double).unwrap();
        let mut rows = AddRows::with_level(&op, Level::Base);
        let run: Vec<i8> = (-128..=127).collect();
        let mut out = std::vec![0i8; 256];
        for round in 0..2 {
            for v in -128..=127i8 {
                for held in [Held::A, Held::B] {
                    rows.row(held, v, &run, &mut out);
                    let want: Vec<i8> = run
                        .iter()
                        .map(|&x| {
                            if held == Held::A {
                                op.apply(v, x)
                            } else {
                                op.apply(x, v)
                            }
                        })
                        .collect();
                    assert_eq!(out, want);
                }
            }
            assert_eq!(rows.tables.len(), 512, "round {round}");
        }
    }
}
