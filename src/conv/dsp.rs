//! The int8 convolutions (rule K7) on Arm cores with the DSP extension (Cortex-M4, M7: the
//! `thumbv7em` targets), built only there (`cfg(shaped_arm_dsp)`, set by `build.rs`). The
//! same contract as the portable kernels of [`quantized`](super::quantized), bit for bit: each
//! sum is the same wrapping 32-bit sum of the same products (their order does not matter in
//! wrapping arithmetic), and each channel's requantization is worked out once
//! ([`ChannelRequant`], equal to `Requant::apply` for every sum).
//!
//! Five instructions do the work, each in a small function below: `SXTB16` sign-extends
//! bytes 0 and 2 of a word into its two 16-bit halves (with `ROR #8`, bytes 1 and 3),
//! `SADD16` adds the input offset to both halves, `SMLAD` multiplies two pairs of halves and
//! adds both products to an accumulator, and `SMLABB`/`SMLATT` multiply one pair.
//!
//! * CONV_2D: for four output pixels at a time, the taps' input values (plus the offset, zero
//!   for taps outside the input) are gathered into a column of 16-bit pairs on the stack
//!   ([`COLUMN`] values per pixel, the four columns interleaved: 2 KiB). The values of each
//!   group of four are stored as `[x0, x2]`, `[x1, x3]`, the order in which `SXTB16` and
//!   `SXTB16 ROR #8` unpack a word of four weights, so each weight word is loaded and
//!   unpacked once and feeds eight `SMLAD`s (four pixels, two pairs each). The sums of
//!   [`BLOCK`] channels are kept (256 bytes) and requantized channel by channel; a row longer
//!   than a column is summed in chunks.
//! * DEPTHWISE_CONV_2D with multiplier 1 and at least four channels: four channels at a time,
//!   their weights unpacked once per group (512 bytes for [`MAX_TAPS`] taps), each tap's four
//!   input bytes unpacked with two `SXTB16`, and one `SMLABB` or `SMLATT` per channel; the
//!   input offset's terms are summed once per group (and taken back out for the taps outside
//!   the input). A 3x3 window inside the input has its taps written out ([`window3x3`]); the
//!   sums of up to [`ROW`] pixels of a row are kept (1 KiB) and requantized channel by
//!   channel. Other depthwise convolutions take the portable kernel.
//!
//! No allocation: the scratch is on the stack, at most 2.3 KiB for CONV_2D and 1.5 KiB for
//! DEPTHWISE_CONV_2D.

use super::geometry::Geometry2d;
use super::quantized::{ChannelRequant, ConvFrame};
use super::Nhwc;
use crate::quant::elementwise::Requant;
use core::arch::asm;

/// The 16-bit values per pixel of the gathered column (a multiple of 4): a row of up to this
/// many values (`kh kw c`) is gathered once per four pixels; a longer one in chunks.
pub(crate) const COLUMN: usize = 256;
/// The output pixels computed together.
const PIXELS: usize = 4;
/// The output channels whose sums are kept (between the chunks of a row longer than
/// [`COLUMN`], and until they are requantized).
pub(crate) const BLOCK: usize = 16;
/// The most kernel taps of the depthwise kernel (its unpacked weights: 8 bytes each).
pub(crate) const MAX_TAPS: usize = 64;
/// The output pixels of a row whose depthwise sums are kept before they are requantized.
const ROW: usize = 64;

/// `SMLAD`: `acc + lo(a) lo(b) + hi(a) hi(b)`, the halves signed, the sums wrapping.
///
/// The multiply-accumulates are declared as if they could touch memory (no `nomem`): the
/// compiler then keeps every load where the source has it, next to the instructions that
/// use it. Free to move them, it loads a whole group of columns or taps first, which needs
/// more registers than the core has, and spills the sums.
#[inline(always)]
fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    let mut r = acc;
    // SAFETY: one DSP instruction on registers (the target has the DSP extension: the cfg
    // of this module); it reads and writes no memory (the missing `nomem` only keeps the
    // compiler's loads in order) and sets only the Q flag, which nothing reads.
    unsafe {
        asm!("smlad {r}, {a}, {b}, {r}", r = inout(reg) r, a = in(reg) a, b = in(reg) b,
            options(nostack));
    }
    r
}

/// `SMLABB`: `acc + lo(a) lo(b)`, signed, wrapping.
#[inline(always)]
fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    let mut r = acc;
    // SAFETY: as `smlad`.
    unsafe {
        asm!("smlabb {r}, {a}, {b}, {r}", r = inout(reg) r, a = in(reg) a, b = in(reg) b,
            options(nostack));
    }
    r
}

/// `SMLATT`: `acc + hi(a) hi(b)`, signed, wrapping.
#[inline(always)]
fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    let mut r = acc;
    // SAFETY: as `smlad`.
    unsafe {
        asm!("smlatt {r}, {a}, {b}, {r}", r = inout(reg) r, a = in(reg) a, b = in(reg) b,
            options(nostack));
    }
    r
}

/// `SXTB16`: bytes 0 and 2 of `x`, sign-extended into the low and high halves.
#[inline(always)]
fn sxtb16(x: u32) -> u32 {
    let r: u32;
    // SAFETY: one DSP instruction on registers; no memory, no flags.
    unsafe {
        asm!("sxtb16 {r}, {x}", r = lateout(reg) r, x = in(reg) x,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SXTB16 ROR #8`: bytes 1 and 3 of `x`, sign-extended into the low and high halves.
#[inline(always)]
fn sxtb16_ror8(x: u32) -> u32 {
    let r: u32;
    // SAFETY: as `sxtb16`.
    unsafe {
        asm!("sxtb16 {r}, {x}, ror #8", r = lateout(reg) r, x = in(reg) x,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SADD16`: the two halves added, each wrapping in 16 bits (the values here never wrap:
/// an `i8` plus an offset in `-127..=128`).
#[inline(always)]
fn sadd16(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: one DSP instruction on registers; it reads no memory and sets only the GE
    // flags, which nothing reads.
    unsafe {
        asm!("sadd16 {r}, {a}, {b}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
            options(pure, nomem, nostack));
    }
    r
}

/// Four bytes as a little-endian word (one unaligned load: the M4 allows them).
#[inline(always)]
fn word(b: &[i8]) -> u32 {
    u32::from_le_bytes([b[0] as u8, b[1] as u8, b[2] as u8, b[3] as u8])
}

/// The four bytes `x[p..p + 4]` as a little-endian word, without a bounds check.
///
/// # Safety
///
/// `p + 4 <= x.len()`.
#[inline(always)]
unsafe fn word_at(x: &[i8], p: usize) -> u32 {
    debug_assert!(p + 4 <= x.len());
    // SAFETY: the four bytes are inside `x` (the caller's bound); an unaligned read, which
    // `read_unaligned` allows.
    u32::from_le(unsafe { x.as_ptr().add(p).cast::<u32>().read_unaligned() })
}

/// The input offset in both halves of a word.
#[inline(always)]
fn offset_pair(offset: i32) -> u32 {
    (offset as u16 as u32) * 0x0001_0001
}

/// The batch, row and column of flat output pixel `p`.
#[inline(always)]
fn position(p: usize, g: &Geometry2d) -> (usize, usize, usize) {
    let [oh, ow] = g.output();
    let plane = oh * ow;
    (p / plane, p % plane / ow, p % ow)
}

/// CONV_2D on `i8` (K7), as [`quantized::conv2d`](super::quantized::conv2d).
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv2d(
    x: &[i8],
    dims: &Nhwc,
    w: &[i8],
    bias: Option<&[i32]>,
    g: &Geometry2d,
    frame: &ConvFrame,
    requant: &[Requant],
    out: &mut [i8],
) {
    let oc = dims.out_channels;
    let [kh, kw] = g.kernel();
    let row = kh * kw * dims.in_channels;
    let [oh, ow] = g.output();
    let pixels = dims.batch * oh * ow;
    if pixels == 0 || oc == 0 {
        return;
    }
    // The four pixels' columns, interleaved: group `q` of pixel `i` at `cols[4 q + i]`, its
    // values `[x0, x2]` in the low word and `[x1, x3]` in the high one (one `LDRD`).
    let mut cols = [0u64; COLUMN / 4 * PIXELS];
    let mut sums = [[0i32; PIXELS]; BLOCK];
    let chunks = row.div_ceil(COLUMN).max(1);
    for first in (0..pixels).step_by(PIXELS) {
        // The last four pixels overlap the ones before when the count is not a multiple of
        // four (the overlap is computed twice, to the same values); fewer than four repeat
        // the last.
        let base = first.min(pixels.saturating_sub(PIXELS));
        let px: [usize; PIXELS] = core::array::from_fn(|i| (base + i).min(pixels - 1));
        for block in (0..oc).step_by(BLOCK) {
            let end = (block + BLOCK).min(oc);
            for chunk in 0..chunks {
                let k0 = chunk * COLUMN;
                let k1 = (k0 + COLUMN).min(row);
                let groups = (k1 - k0).div_ceil(4);
                // One chunk: gathered once for all blocks.
                if chunks > 1 || block == 0 {
                    gather(x, dims, g, &px, k0, k1, frame.input_offset, &mut cols);
                }
                let cols = &cols[..groups * PIXELS];
                for (o, kept) in (block..end).zip(sums.iter_mut()) {
                    let acc = if chunk == 0 {
                        [bias.map_or(0, |b| b[o]); PIXELS]
                    } else {
                        *kept
                    };
                    *kept = dot(cols, &w[o * row + k0..o * row + k1], acc);
                }
            }
            // The block's sums requantized, channel by channel: the pixels `base..` are
            // consecutive (fewer than four when the output has fewer), their outputs `oc`
            // apart.
            let count = PIXELS.min(pixels);
            for (o, kept) in (block..end).zip(&sums) {
                let r = ChannelRequant::new(requant[o], frame.rounding);
                finish_column(frame, &r, &kept[..count], &mut out[base * oc + o..], oc);
            }
        }
    }
}

/// The sums of four pixels' columns `cols` with one channel's weights `w` (the chunk's part
/// of its row) added to `acc`.
#[inline(always)]
fn dot(cols: &[u64], w: &[i8], mut acc: [i32; PIXELS]) -> [i32; PIXELS] {
    let (full, tail) = w.split_at(w.len() & !3);
    for (c, q) in cols.chunks_exact(PIXELS).zip(full.chunks_exact(4)) {
        step(c, word(q), &mut acc);
    }
    if !tail.is_empty() {
        // The last group's missing weights are zeros, as are its missing column values.
        let mut q = [0i8; 4];
        for (d, &s) in q.iter_mut().zip(tail) {
            *d = s;
        }
        if let Some(c) = cols.get(cols.len().wrapping_sub(PIXELS)..) {
            step(c, word(&q), &mut acc);
        }
    }
    acc
}

/// One group of four weights (the word `q`) against the four pixels' groups `c`.
#[inline(always)]
fn step(c: &[u64], q: u32, acc: &mut [i32; PIXELS]) {
    let (even, odd) = (sxtb16(q), sxtb16_ror8(q));
    let mac = |a: i32, pair: u64| smlad((pair >> 32) as u32, odd, smlad(pair as u32, even, a));
    // Written out: at opt-level "s" a loop over the four keeps the sums in memory.
    let [a0, a1, a2, a3] = *acc;
    *acc = [mac(a0, c[0]), mac(a1, c[1]), mac(a2, c[2]), mac(a3, c[3])];
}

/// Gathers the values `k0..k1` of each pixel's row (taps in order, then channels) plus the
/// input offset, zero for taps outside the input, into `cols`.
#[allow(clippy::too_many_arguments)]
fn gather(
    x: &[i8],
    dims: &Nhwc,
    g: &Geometry2d,
    px: &[usize; PIXELS],
    k0: usize,
    k1: usize,
    offset: i32,
    cols: &mut [u64],
) {
    if k1 == k0 {
        return;
    }
    let ic = dims.in_channels;
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let [dh, dw] = g.dilations();
    let len = k1 - k0;
    if len % 4 != 0 {
        // The halves past the row in the last group stay zero.
        let last = len / 4 * PIXELS;
        cols[last..last + PIXELS].fill(0);
    }
    let whole = ic % 4 == 0 && k0 == 0 && k1 == kh * kw * ic;
    for (i, &p) in px.iter().enumerate() {
        let (n, oy, ox) = position(p, g);
        let (y0, y1, ybase) = g.taps(0, oy);
        let (x0, x1, xbase) = g.taps(1, ox);
        let cols = &mut cols[i..];
        let at = |ti: usize, tj: usize| {
            let iy = (ybase + (ti * dh) as isize) as usize;
            let ix = (xbase + (tj * dw) as isize) as usize;
            ((n * ih + iy) * iw + ix) * ic
        };
        if whole {
            // The whole row, every tap a whole number of groups: each tap's channels as
            // words, or zeros.
            let mut q = 0;
            for ti in 0..kh {
                for tj in 0..kw {
                    let inside = (y0..y1).contains(&ti) && (x0..x1).contains(&tj);
                    let src = if inside {
                        let a = at(ti, tj);
                        Some(&x[a..a + ic])
                    } else {
                        None
                    };
                    groups(cols, q, src, ic / 4, offset);
                    q += ic / 4 * PIXELS;
                }
            }
            continue;
        }
        // The taps that meet `k0..k1` (ic > 0, as the row is not empty).
        for t in k0 / ic..=(k1 - 1) / ic {
            let (ti, tj) = (t / kw, t % kw);
            let start = t * ic;
            let (a, b) = (start.max(k0), (start + ic).min(k1));
            let src = if (y0..y1).contains(&ti) && (x0..x1).contains(&tj) {
                let s = at(ti, tj) - start;
                Some(&x[s + a..s + b])
            } else {
                None
            };
            fill(cols, a - k0, b - a, src, offset);
        }
    }
}

/// Writes `count` whole groups into a pixel's column from `cols[at]` (then every
/// [`PIXELS`]-th): `src`'s words unpacked, plus `offset`, or zeros.
#[inline(always)]
fn groups(cols: &mut [u64], mut at: usize, src: Option<&[i8]>, count: usize, offset: i32) {
    match src {
        Some(s) => {
            let off = offset_pair(offset);
            for v in s.chunks_exact(4).take(count) {
                let v = word(v);
                let (even, odd) = (sadd16(sxtb16(v), off), sadd16(sxtb16_ror8(v), off));
                cols[at] = u64::from(even) | u64::from(odd) << 32;
                at += PIXELS;
            }
        }
        None => {
            for _ in 0..count {
                cols[at] = 0;
                at += PIXELS;
            }
        }
    }
}

/// Writes `len` values into a pixel's column (its groups at `cols[4 q]`) from position `q`:
/// `src`'s plus `offset`, or zeros.
fn fill(cols: &mut [u64], q: usize, len: usize, src: Option<&[i8]>, offset: i32) {
    if q % 4 == 0 && len % 4 == 0 {
        groups(cols, q / 4 * PIXELS, src, len / 4, offset);
    } else {
        // Input channels not a multiple of four: one value at a time, value `e` of a group
        // in word `e & 1`, half `e >> 1`.
        for e in 0..len {
            let v = src.map_or(0, |s| i32::from(s[e]) + offset);
            let p = q + e;
            let at = p / 4 * PIXELS;
            let shift = (p & 1) * 32 + (p & 2) * 8;
            cols[at] = (cols[at] & !(0xffff << shift)) | (u64::from(v as u16) << shift);
        }
    }
}

/// DEPTHWISE_CONV_2D on `i8` (K7) with multiplier 1, at least four channels and at most
/// [`MAX_TAPS`] taps, as [`quantized::depthwise_conv2d`](super::quantized::depthwise_conv2d);
/// `false` (nothing written) for any other.
///
/// Four channels at a time (the last four overlapping the ones before when the count is not
/// a multiple of four), their weights unpacked once. Each output pixel's four sums are made
/// by [`window`] in registers and kept for up to [`ROW`] pixels of a row, which are then
/// requantized one channel at a time. The input offset is taken out of the taps: each sum
/// starts from the bias plus `offset * (sum of the channel's weights)`, less `offset * w`
/// for each tap outside the input, and adds `w * x` over the taps inside, which is the same
/// wrapping sum.
#[allow(clippy::too_many_arguments)]
pub(crate) fn depthwise_conv2d(
    x: &[i8],
    dims: &Nhwc,
    w: &[i8],
    bias: Option<&[i32]>,
    g: &Geometry2d,
    frame: &ConvFrame,
    requant: &[Requant],
    out: &mut [i8],
) -> bool {
    let c = dims.in_channels;
    let [kh, kw] = g.kernel();
    let taps = kh * kw;
    if dims.out_channels != c || c < 4 || taps > MAX_TAPS {
        return false;
    }
    let [ih, iw] = g.input();
    if x.len() < dims.batch * ih * iw * c {
        return false;
    }
    let [oh, ow] = g.output();
    let [dh, dw] = g.dilations();
    let offset = frame.input_offset;
    // Each tap's four weights of the group, unpacked: channels 0 and 2, then 1 and 3.
    let mut unpacked = [[0u32; 2]; MAX_TAPS];
    // The sums of a row's pixels, channel by channel.
    let mut sums = [[0i32; ROW]; 4];
    for group in (0..c).step_by(4) {
        let c0 = group.min(c - 4);
        let mut start = [0i32; 4];
        for (k, s) in start.iter_mut().enumerate() {
            *s = bias.map_or(0, |b| b[c0 + k]);
        }
        for (t, u) in unpacked.iter_mut().take(taps).enumerate() {
            let q = &w[t * c + c0..t * c + c0 + 4];
            *u = [sxtb16(word(q)), sxtb16_ror8(word(q))];
            for (s, &f) in start.iter_mut().zip(q) {
                *s = s.wrapping_add(offset.wrapping_mul(i32::from(f)));
            }
        }
        // A 3x3 kernel: its inside windows by `window3x3`, the taps written out.
        let three: Option<[[u32; 2]; 9]> = if [kh, kw] == [3, 3] {
            Some(core::array::from_fn(|t| unpacked[t]))
        } else {
            None
        };
        for n in 0..dims.batch {
            for oy in 0..oh {
                let (y0, y1, ybase) = g.taps(0, oy);
                for first in (0..ow).step_by(ROW) {
                    let count = ROW.min(ow - first);
                    let mut m = 0;
                    while m < count {
                        let (x0, x1, xbase) = g.taps(1, first + m);
                        let ix = (xbase + (x0 * dw) as isize) as usize;
                        let iy = (ybase + (y0 * dh) as isize) as usize;
                        let p = ((n * ih + iy) * iw + ix) * c + c0;
                        if let Some(w3) = &three {
                            // A run of pixels whose 3x3 windows are inside the input.
                            let run = if (y0, y1, x0, x1) == (0, 3, 0, 3) {
                                inside_run(first + m, first + count, g)
                            } else {
                                0
                            };
                            if run > 0 {
                                let steps = [dh * iw * c, dw * c, g.strides()[1] * c];
                                let sums = (&mut sums, m..m + run);
                                if window3x3(x, p, steps, w3, start, sums) {
                                    m += run;
                                    continue;
                                }
                            }
                        }
                        let mut acc = start;
                        if (y0, y1, x0, x1) != (0, kh, 0, kw) {
                            // Taps outside the input: their offset terms taken back out.
                            for i in 0..kh {
                                for j in 0..kw {
                                    if (y0..y1).contains(&i) && (x0..x1).contains(&j) {
                                        continue;
                                    }
                                    let t = (i * kw + j) * c + c0;
                                    for (s, &f) in acc.iter_mut().zip(&w[t..t + 4]) {
                                        *s = s.wrapping_sub(offset.wrapping_mul(i32::from(f)));
                                    }
                                }
                            }
                        }
                        if y0 < y1 && x0 < x1 {
                            let first_tap = &unpacked[y0 * kw + x0..taps];
                            let shape = [y1 - y0, x1 - x0, kw];
                            acc = window(x, p, [dh * iw * c, dw * c], first_tap, shape, acc);
                        }
                        for (s, a) in sums.iter_mut().zip(acc) {
                            s[m] = a;
                        }
                        m += 1;
                    }
                    // One channel at a time, out of line: its requantization in registers.
                    let at = ((n * oh + oy) * ow + first) * c + c0;
                    for (k, s) in sums.iter().enumerate() {
                        let r = ChannelRequant::new(requant[c0 + k], frame.rounding);
                        finish_column(frame, &r, &s[..count], &mut out[at + k..], c);
                    }
                }
            }
        }
    }
    true
}

/// One output pixel's four sums added to `acc`: a window of `rows x cols` taps (`shape` is
/// `[rows, cols, kw]`) whose first tap reads `x[p..p + 4]`, the next tap of a row
/// `steps[1]` bytes on and the next row `steps[0]`; `taps` the unpacked weights from the
/// window's first tap, rows `kw` apart. Out of line, so that its loop has the registers to
/// itself.
#[inline(never)]
fn window(
    x: &[i8],
    p: usize,
    steps: [usize; 2],
    taps: &[[u32; 2]],
    [rows, cols, kw]: [usize; 3],
    acc: [i32; 4],
) -> [i32; 4] {
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    // The last tap's bytes: every other tap's are before them.
    let last = p + (rows - 1) * steps[0] + (cols - 1) * steps[1];
    if rows == 0 || cols == 0 || last + 4 > x.len() {
        return acc;
    }
    let mut row = p;
    for r in 0..rows {
        let Some(weights) = taps.get(r * kw..r * kw + cols) else {
            break;
        };
        let mut at = row;
        for &[we, wo] in weights {
            // SAFETY: `at` is a tap of the window, at most `last`, and `last + 4 <=
            // x.len()` (checked above).
            let v = unsafe { word_at(x, at) };
            let (even, odd) = (sxtb16(v), sxtb16_ror8(v));
            a0 = smlabb(even, we, a0);
            a1 = smlabb(odd, wo, a1);
            a2 = smlatt(even, we, a2);
            a3 = smlatt(odd, wo, a3);
            at += steps[1];
        }
        row += steps[0];
    }
    [a0, a1, a2, a3]
}

/// How many output positions from `from` (below `to`) along the width have their whole
/// window inside the input.
#[inline(always)]
fn inside_run(from: usize, to: usize, g: &Geometry2d) -> usize {
    let (s, pad, k, d, len) = (
        g.strides()[1],
        g.pad_before()[1],
        g.kernel()[1],
        g.dilations()[1],
        g.input()[1],
    );
    // Position o's window spans o s - pad ..= o s - pad + (k - 1) d.
    let span = (k - 1) * d;
    let mut end = from;
    while end < to && end * s >= pad && end * s - pad + span < len {
        end += 1;
    }
    end - from
}

/// The four sums of the pixels `range` of `sums` (the first at `x[p..p + 4]`, the next
/// `steps[2]` bytes on) over a whole 3x3 window inside the input, taps `steps[1]` apart in
/// a row and rows `steps[0]` apart, from `start`: the taps written out, so that the
/// compiler keeps the sums in registers. `false` (nothing written) if the last window's
/// bytes are not inside `x`.
#[inline(never)]
fn window3x3(
    x: &[i8],
    p: usize,
    steps: [usize; 3],
    w: &[[u32; 2]; 9],
    start: [i32; 4],
    (sums, range): (&mut [[i32; ROW]; 4], core::ops::Range<usize>),
) -> bool {
    let [rs, cs, ps] = steps;
    let Some(pixels) = range.len().checked_sub(1) else {
        return true;
    };
    let last = p + pixels * ps + 2 * rs + 2 * cs;
    if last + 4 > x.len() || range.end > ROW {
        return false;
    }
    let mut p = p;
    for m in range {
        let [mut a0, mut a1, mut a2, mut a3] = start;
        let mut tap = |at: usize, [we, wo]: [u32; 2]| {
            // SAFETY: `at` is a tap of one of the windows, at most `last`, and `last + 4 <=
            // x.len()` (checked above).
            let v = unsafe { word_at(x, at) };
            let (even, odd) = (sxtb16(v), sxtb16_ror8(v));
            a0 = smlabb(even, we, a0);
            a1 = smlabb(odd, wo, a1);
            a2 = smlatt(even, we, a2);
            a3 = smlatt(odd, wo, a3);
        };
        let (r1, r2) = (p + rs, p + 2 * rs);
        tap(p, w[0]);
        tap(p + cs, w[1]);
        tap(p + 2 * cs, w[2]);
        tap(r1, w[3]);
        tap(r1 + cs, w[4]);
        tap(r1 + 2 * cs, w[5]);
        tap(r2, w[6]);
        tap(r2 + cs, w[7]);
        tap(r2 + 2 * cs, w[8]);
        sums[0][m] = a0;
        sums[1][m] = a1;
        sums[2][m] = a2;
        sums[3][m] = a3;
        p += ps;
    }
    true
}

/// `sums` requantized into `out[0]`, `out[step]`, ...
#[inline(never)]
fn finish_column(frame: &ConvFrame, r: &ChannelRequant, sums: &[i32], out: &mut [i8], step: usize) {
    match r.right_only() {
        // The usual case, with fewer values to keep in registers: no left shift, no
        // activation (the clamp a constant one).
        Some(rq) if frame.full_range() => {
            let offset = frame.output_offset;
            column(sums, out, step, |s| {
                rq(s)
                    .wrapping_add(offset)
                    .clamp(i8::MIN.into(), i8::MAX.into()) as i8
            })
        }
        _ => column(sums, out, step, |s| frame.finish_channel(s, r)),
    }
}

/// `f` of each of `sums` into `out[0]`, `out[step]`, ... (out of line: each form's values
/// in registers of its own).
#[inline(never)]
fn column(sums: &[i32], out: &mut [i8], step: usize, f: impl Fn(i32) -> i8) {
    let mut at = 0;
    for &s in sums {
        out[at] = f(s);
        at += step;
    }
}
