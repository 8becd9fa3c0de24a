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
//!   ([`COLUMN`] values per pixel, the four columns interleaved: 2 KiB), a row of taps at a
//!   time in at most three runs (before, inside and after the input). The values of each
//!   group of four are stored as `[x0, x2]`, `[x1, x3]`, the order in which `SXTB16` and
//!   `SXTB16 ROR #8` unpack a word of four weights, so each weight word is loaded and
//!   unpacked once and feeds eight `SMLAD`s (four pixels, two pairs each). The sums of
//!   [`BLOCK`] channels are kept (256 bytes) and requantized channel by channel; a row longer
//!   than a column is summed in chunks.
//! * DEPTHWISE_CONV_2D, every shape: four output channels at a time. With multiplier 1, four
//!   channels or more and at most [`MAX_TAPS`] taps, their weights are unpacked once per
//!   group (512 bytes), each tap's four input bytes unpacked with two `SXTB16`, and one
//!   `SMLABB` or `SMLATT` per channel, a run of pixels whose windows are inside the input at
//!   a time ([`Window::add`]), the input offset's terms summed once per group; a 3x3 window
//!   has its taps written out ([`window3x3`]). Windows at the edge of the input, and the
//!   other shapes, are summed byte by byte ([`Window::bytes`]). The sums of up to [`ROW`]
//!   pixels of a row are kept (1 KiB) and requantized channel by channel.
//!
//! No allocation: the scratch is on the stack, at most 2.3 KiB for CONV_2D and 1.5 KiB for
//! DEPTHWISE_CONV_2D. No panic path either: slices are read through checked `get`s that end
//! the kernel instead (the planned lengths never fail them), or, in the inner loops, through
//! pointers after one check of the last read; a panic links `core::fmt` into a firmware
//! (2.1 kB at opt-level "s").
//!
//! A build optimized for size (opt-level "s" or "z": `cfg(shaped_opt_size)`, set by
//! `build.rs`) leaves out two fast paths, bringing a firmware with one of these operations
//! near 1.5 times a hand-written loop nest's (`qemu-tests/code_size.sh`; the convolution
//! within it, the depthwise one at 1.55x): the written-out 3x3 window
//! (584 bytes; without it the depthwise layer of `qemu-tests/icount_conv.sh` takes 10.0
//! instructions per MAC at "s", not 7.9) and the requantization's short form for a
//! multiplier below one and no activation (about 230 bytes; 3% more instructions for
//! CONV_2D at "s", 18% for DEPTHWISE_CONV_2D).

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
/// A group of four values of the four pixels' columns: each pixel's as two words of 16-bit
/// pairs, `[x0, x2]` and `[x1, x3]`, read by one `LDRD` ([`pair`]).
type Group = [[u32; 2]; PIXELS];
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
#[cfg(not(shaped_opt_size))]
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

/// The batch, row and column of flat output pixel `p` (the divisors taken to at least one,
/// as they are for any pixel: no panic path).
#[inline(always)]
fn position(p: usize, g: &Geometry2d) -> (usize, usize, usize) {
    let [oh, ow] = g.output();
    let (ow, plane) = (ow.max(1), (oh * ow).max(1));
    (p / plane, p % plane / ow, p % ow)
}

/// Bias `o`, or 0 without a bias.
#[inline(always)]
fn bias_at(bias: Option<&[i32]>, o: usize) -> i32 {
    bias.and_then(|b| b.get(o)).copied().unwrap_or(0)
}

/// CONV_2D on `i8` (K7), as [`quantized::conv2d`](super::quantized::conv2d).
///
/// Every slice is read through checked `get`s that end the kernel instead of panicking (the
/// planned lengths never fail them): a panic path links `core::fmt` into a firmware, 2.1 kB
/// at opt-level "s".
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
    // The four pixels' columns, interleaved: group `q` of pixel `i` at `cols[q][i]`.
    let mut cols = [[[0u32; 2]; PIXELS]; COLUMN / 4];
    // A 1x1 window of stride 1 and no padding reads each pixel's channels in place, a whole
    // number of groups (TFLM's person detection's pointwise layers).
    #[cfg(not(shaped_opt_size))]
    let pointwise = [kh, kw] == [1, 1]
        && g.strides() == [1, 1]
        && g.pad_before() == [0, 0]
        && g.input() == g.output()
        && row % 4 == 0;
    let mut sums = [[0i32; PIXELS]; BLOCK];
    // Plain loops: `step_by` and `zip` cost their trip counts' arithmetic in code.
    let mut first = 0;
    while first < pixels {
        // The last four pixels overlap the ones before when the count is not a multiple of
        // four (the overlap is computed twice, to the same values); fewer than four repeat
        // the last.
        let base = first.min(pixels.saturating_sub(PIXELS));
        let mut px = [0; PIXELS];
        for (i, p) in px.iter_mut().enumerate() {
            *p = (base + i).min(pixels - 1);
        }
        let mut block = 0;
        while block < oc {
            let n = BLOCK.min(oc - block);
            // A row of one column: gathered once for all blocks, each channel's weights read
            // in order.
            #[cfg(not(shaped_opt_size))]
            if row <= COLUMN {
                if block == 0 {
                    if pointwise {
                        gather_pointwise(x, row, &px, frame.input_offset, &mut cols);
                    } else if dims.in_channels % 4 != 0 {
                        gather_values(x, dims, g, &px, frame.input_offset, &mut cols);
                    } else {
                        gather(x, dims, g, &px, (0, row), frame.input_offset, &mut cols);
                    }
                }
                if !dot_block(&cols, w, bias, row, (block, n), &mut sums) {
                    return;
                }
            }
            // The row in chunks of at most a column; one chunk is gathered once for all
            // blocks.
            let mut k0 = 0;
            #[cfg(not(shaped_opt_size))]
            if row <= COLUMN {
                k0 = row;
            }
            while k0 < row {
                let k1 = (k0 + COLUMN).min(row);
                if row > COLUMN || block == 0 {
                    gather(x, dims, g, &px, (k0, k1), frame.input_offset, &mut cols);
                }
                let cols = cols.get(..(k1 - k0).div_ceil(4)).unwrap_or_default();
                for (j, kept) in sums.iter_mut().take(n).enumerate() {
                    let o = block + j;
                    let Some(wo) = w.get(o * row + k0..o * row + k1) else {
                        return;
                    };
                    let acc = if k0 == 0 {
                        [bias_at(bias, o); PIXELS]
                    } else {
                        *kept
                    };
                    *kept = dot(cols, wo, acc);
                }
                k0 = k1;
            }
            // The block's sums requantized, channel by channel: the pixels `base..` are
            // consecutive (fewer than four when the output has fewer), their outputs `oc`
            // apart.
            let count = PIXELS.min(pixels);
            #[cfg(not(shaped_opt_size))]
            if !finish_block(frame, requant, &sums, (base, count), (block, n), oc, out) {
                return;
            }
            #[cfg(shaped_opt_size)]
            for (j, kept) in sums.iter().take(n).enumerate() {
                let o = block + j;
                let (Some(&rq), Some(dst)) = (requant.get(o), out.get_mut(base * oc + o..)) else {
                    return;
                };
                finish_column(frame, rq, &kept[..count], dst, oc);
            }
            block += n;
        }
        first += PIXELS;
    }
}

/// The sums of channels `block..block + n` of pixels `base..base + count` requantized into
/// `out` (channel `o` of pixel `p` at `p * oc + o`), in line: `false`, with nothing written,
/// where `out` or `requant` is too short (the planned lengths never are).
///
/// Four outputs per channel are too few to pay for [`finish_column`]'s two calls and its
/// forms: on the Cortex-M4 at opt-level 3 each output cost about 70 instructions besides its
/// multiply-accumulates (TFLM's person detection's 1x1 layer of 8 to 16 channels took 11.7
/// instructions per MAC; `qemu-tests/README.md`).
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn finish_block(
    frame: &ConvFrame,
    requant: &[Requant],
    sums: &[[i32; PIXELS]; BLOCK],
    (base, count): (usize, usize),
    (block, n): (usize, usize),
    oc: usize,
    out: &mut [i8],
) -> bool {
    let (Some(rqs), Some(last)) = (requant.get(block..block + n), count.checked_sub(1)) else {
        return count == 0;
    };
    // The last output written: channel `block + n - 1` of pixel `base + count - 1`.
    let end = (base + last)
        .checked_mul(oc)
        .and_then(|e| e.checked_add(block + n));
    if end.is_none_or(|end| end > out.len()) || n == 0 {
        return n == 0;
    }
    let first = base * oc + block;
    let out = out.as_mut_ptr();
    let (offset, min, max) = (frame.output_offset, frame.min, frame.max);
    for (j, (kept, &rq)) in sums.iter().zip(rqs).enumerate() {
        let r = ChannelRequant::new(rq, frame.rounding);
        let mut at = first + j;
        if let (Some(rq), true) = (r.right_only(), count == PIXELS) {
            // Four values, the usual case, written out: no count to test between them.
            let v = kept.map(|s| rq(s).wrapping_add(offset).max(min).min(max) as i8);
            for v in v {
                // SAFETY: `at <= (base + count - 1) * oc + block + n - 1 < out.len()`,
                // checked above once for the block.
                unsafe { *out.add(at) = v };
                at += oc;
            }
            continue;
        }
        if let Some(rq) = r.right_only() {
            for &s in &kept[..count] {
                // SAFETY: `at <= (base + count - 1) * oc + block + n - 1 < out.len()`,
                // checked above once for the block.
                unsafe { *out.add(at) = rq(s).wrapping_add(offset).max(min).min(max) as i8 };
                at += oc;
            }
            continue;
        }
        for &s in &kept[..count] {
            // SAFETY: as above.
            unsafe { *out.add(at) = frame.finish_channel(s, &r) };
            at += oc;
        }
    }
    true
}

/// The sums of channels `block..block + n` over four pixels' gathered rows of `row` values
/// (at most a column), from their biases, into `sums`: `false` where `w` is too short (the
/// planned lengths never are).
///
/// The weights of consecutive channels are consecutive: one pointer walks them, where the
/// chunked loop checked each channel's slice and chose its starting sums. On the Cortex-M4 at
/// opt-level 3 that was about 45 instructions per channel and four pixels, more than the
/// multiply-accumulates of a row of 8 (TFLM's person detection's first 1x1 layer).
#[cfg(not(shaped_opt_size))]
#[inline(always)]
fn dot_block(
    cols: &[Group; COLUMN / 4],
    w: &[i8],
    bias: Option<&[i32]>,
    row: usize,
    (block, n): (usize, usize),
    sums: &mut [[i32; PIXELS]; BLOCK],
) -> bool {
    let (groups, tail) = (row / 4, row % 4);
    let Some(wb) = block
        .checked_mul(row)
        .zip((block + n).checked_mul(row))
        .and_then(|(a, b)| w.get(a..b))
    else {
        return false;
    };
    if row > COLUMN || n > BLOCK {
        return false;
    }
    let biases = bias.and_then(|b| b.get(block..block + n));
    let mut wp = wb.as_ptr();
    for (j, kept) in sums.iter_mut().take(n).enumerate() {
        let b = biases.and_then(|b| b.get(j)).copied().unwrap_or(0);
        let mut acc = [b; PIXELS];
        for c in &cols[..groups] {
            // SAFETY: channel `j`'s `row` weights start at `wp` (`j * row` into `wb`, whose
            // length is `n * row`); this reads four of its first `groups * 4`.
            let q = u32::from_le(unsafe { wp.cast::<u32>().read_unaligned() });
            step(c, q, &mut acc);
            // SAFETY: at most to the end of channel `j`'s weights, inside `wb`.
            wp = unsafe { wp.add(4) };
        }
        if tail != 0 {
            // The last group's missing weights are zeros, as are its missing column values.
            let mut q = 0u32;
            for t in (0..tail).rev() {
                // SAFETY: `t < tail`: the channel's last `tail` weights, inside `wb`.
                q = q << 8 | u32::from(unsafe { *wp.add(t) } as u8);
            }
            step(&cols[groups], q, &mut acc);
            // SAFETY: to the end of channel `j`'s weights, at most the end of `wb`.
            wp = unsafe { wp.add(tail) };
        }
        *kept = acc;
    }
    true
}

/// The sums of four pixels' columns `cols` with one channel's weights `w` (the chunk's part
/// of its row) added to `acc`.
#[inline(always)]
fn dot(cols: &[Group], w: &[i8], mut acc: [i32; PIXELS]) -> [i32; PIXELS] {
    let groups = w.chunks_exact(4);
    let tail = groups.remainder();
    for (c, q) in cols.iter().zip(groups) {
        step(c, word(q), &mut acc);
    }
    if !tail.is_empty() {
        // The last group's missing weights are zeros, as are its missing column values.
        let q = tail
            .iter()
            .rev()
            .fold(0, |q, &b| q << 8 | u32::from(b as u8));
        if let Some(c) = cols.get(w.len() / 4) {
            step(c, q, &mut acc);
        }
    }
    acc
}

/// One group of four weights (the word `q`) against the four pixels' groups `c`.
#[inline(always)]
fn step(c: &Group, q: u32, acc: &mut [i32; PIXELS]) {
    let (even, odd) = (sxtb16(q), sxtb16_ror8(q));
    let mac = |a: i32, [e, o]: [u32; 2]| smlad(o, odd, smlad(e, even, a));
    // Written out: at opt-level "s" a loop over the four keeps the sums in memory.
    let [a0, a1, a2, a3] = *acc;
    *acc = [
        mac(a0, pair::<0>(c)),
        mac(a1, pair::<8>(c)),
        mac(a2, pair::<16>(c)),
        mac(a3, pair::<24>(c)),
    ];
}

/// The pixel's two words at byte `AT` of the group, by one `LDRD`: as two `u32` loads
/// between the multiply-accumulates, LLVM did not always pair them (19 instructions for the
/// 16 MACs of the inner loop at opt-level 3, not 18); as a `u64` the group needs 8-byte
/// alignment, and zeroing the column then links `__aeabi_memclr8` (174 bytes).
#[inline(always)]
fn pair<const AT: usize>(c: &Group) -> [u32; 2] {
    const { assert!(AT % 8 == 0 && AT < core::mem::size_of::<Group>()) };
    let (e, o);
    // SAFETY: reads the two words of `c` at byte `AT` (inside `c`, asserted above; 4-byte
    // aligned as `c` is, which `LDRD` needs); no other memory, no flags.
    unsafe {
        asm!("ldrd {e}, {o}, [{c}, #{at}]", e = out(reg) e, o = out(reg) o, c = in(reg) c.as_ptr(),
            at = const AT, options(pure, readonly, nostack, preserves_flags));
    }
    [e, o]
}

/// Gathers the values `k0..k1` of each pixel's row (taps in order, then channels) plus the
/// input offset, zero for taps outside the input, into `cols`. A row of taps is at most three
/// runs: the taps before the input, those inside it (one run of consecutive input values
/// when the dilation is 1, else one run per tap), those after; each run is written as whole
/// groups where it starts and ends on one (a multiple of four channels), else value by
/// value. Out of line at opt-level 3, so that its loops have the registers to themselves;
/// in line in a build for size (140 bytes less at "s", 68 without LTO, and no slower there).
#[cfg_attr(not(shaped_opt_size), inline(never))]
fn gather(
    x: &[i8],
    dims: &Nhwc,
    g: &Geometry2d,
    px: &[usize; PIXELS],
    (k0, k1): (usize, usize),
    offset: i32,
    cols: &mut [Group; COLUMN / 4],
) {
    let ic = dims.in_channels;
    let kw = g.kernel()[1];
    let trow = kw * ic;
    if k1 <= k0 || trow == 0 {
        return;
    }
    let [ih, iw] = g.input();
    let [dh, dw] = g.dilations();
    let len = k1 - k0;
    if len % 4 != 0 {
        // The halves past the row in the last group stay zero.
        if let Some(last) = cols.get_mut(len / 4) {
            *last = [[0; 2]; PIXELS];
        }
    }
    for (i, &p) in px.iter().enumerate() {
        let (n, oy, ox) = position(p, g);
        let (y0, y1, ybase) = taps_of(g, 0, oy);
        let (x0, x1, xbase) = taps_of(g, 1, ox);
        for ti in k0 / trow..(k1 - 1) / trow + 1 {
            let inside = (y0..y1).contains(&ti);
            let iy = (ybase + (ti * dh) as isize) as usize;
            let mut tj = 0;
            while tj < kw {
                let (end, src) = if !inside || tj < x0 {
                    (if inside { x0 } else { kw }, None)
                } else if tj < x1 {
                    let ix = (xbase + (tj * dw) as isize) as usize;
                    let end = if dw == 1 { x1 } else { tj + 1 };
                    (end, Some(((n * ih + iy) * iw + ix) * ic))
                } else {
                    (kw, None)
                };
                // The run's values `r0..r1` of the row, clipped to the chunk.
                let (r0, r1) = (ti * trow + tj * ic, ti * trow + end * ic);
                let (a, b) = (r0.max(k0), r1.min(k1));
                if a < b {
                    let src = src.and_then(|s| x.get(s + (a - r0)..s + (b - r0)));
                    fill(cols, i, a - k0, b - a, src, offset);
                }
                tj = end;
            }
        }
    }
}

/// [`gather`] for a 1x1 window of stride 1 and no padding, `row` (the input's channels) a
/// multiple of four: pixel `p`'s values are `x[p * row..][..row]`. Its general form found each
/// pixel's taps and runs first: about 270 instructions per pixel of a layer of 8 channels on
/// the Cortex-M4 at opt-level 3, against about 25 here.
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn gather_pointwise(
    x: &[i8],
    row: usize,
    px: &[usize; PIXELS],
    offset: i32,
    cols: &mut [Group; COLUMN / 4],
) {
    let off = offset_pair(offset);
    for (i, &p) in px.iter().enumerate() {
        let Some(src) = p
            .checked_mul(row)
            .and_then(|a| x.get(a..a.checked_add(row)?))
        else {
            return;
        };
        for (c, v) in cols.iter_mut().zip(src.chunks_exact(4)) {
            let v = word(v);
            c[i] = [sadd16(sxtb16(v), off), sadd16(sxtb16_ror8(v), off)];
        }
    }
}

/// [`gather`] of a whole row of at most [`COLUMN`] values whose taps are not whole groups
/// (input channels not a multiple of four), tap by tap: each value, or zero outside the input,
/// stored as its 16-bit half of the interleaved column. The general form wrote such runs value
/// by value through a checked read-modify-write of the group's word, about 750 instructions
/// per pixel of TFLM's person detection's first layer (a 3x3 window on one channel) on the
/// Cortex-M4 at opt-level 3.
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn gather_values(
    x: &[i8],
    dims: &Nhwc,
    g: &Geometry2d,
    px: &[usize; PIXELS],
    offset: i32,
    cols: &mut [Group; COLUMN / 4],
) {
    let ic = dims.in_channels;
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let [dh, dw] = g.dilations();
    let Some(row) = kh
        .checked_mul(kw)
        .and_then(|t| t.checked_mul(ic))
        .filter(|&r| r <= COLUMN)
    else {
        return;
    };
    // The halves past the row in the last group: zero.
    if let Some(last) = cols.get_mut(row / 4).filter(|_| row % 4 != 0) {
        *last = [[0; 2]; PIXELS];
    }
    // The column as 16-bit halves: value `q` of pixel `i` is half `(q & 2) / 2` of word
    // `q & 1` of the pixel's pair in group `q / 4`.
    let halves = cols.as_mut_ptr().cast::<u16>();
    let half = |q: usize, i: usize| (q / 4) * 4 * PIXELS + i * 4 + (q & 1) * 2 + ((q >> 1) & 1);
    for (i, &p) in px.iter().enumerate() {
        let (n, oy, ox) = position(p, g);
        let (y0, y1, ybase) = taps_of(g, 0, oy);
        let (x0, x1, xbase) = taps_of(g, 1, ox);
        // Each row of taps: zeros before the input, its values, zeros after; the values one
        // run when the dilation is 1.
        let trow = kw * ic;
        let (inside, after) = (x0 * ic, x1 * ic);
        let mut q = 0;
        for ty in 0..kh {
            let src = if (y0..y1).contains(&ty) && x0 < x1 {
                let iy = (ybase + (ty * dh) as isize) as usize;
                let ix = (xbase + (x0 * dw) as isize) as usize;
                let at = ((n * ih + iy) * iw + ix) * ic;
                let len = if dw == 1 { after - inside } else { ic };
                x.get(at..at + len)
            } else {
                None
            };
            let end = q + trow;
            match src {
                Some(src) if dw == 1 => {
                    // Zeros, the run's values, zeros: `inside + src.len() + (trow - after)`
                    // values, `trow` in all (`src.len() == after - inside`).
                    for _ in 0..inside {
                        // SAFETY: `q < end <= row <= COLUMN`, so the half is inside `cols`
                        // (`COLUMN / 4` groups of `4 * PIXELS` halves).
                        unsafe { *halves.add(half(q, i)) = 0 };
                        q += 1;
                    }
                    for &v in src {
                        // SAFETY: as above.
                        unsafe { *halves.add(half(q, i)) = (i32::from(v) + offset) as u16 };
                        q += 1;
                    }
                    while q < end {
                        // SAFETY: as above.
                        unsafe { *halves.add(half(q, i)) = 0 };
                        q += 1;
                    }
                }
                Some(_) => {
                    // A dilated row: tap by tap.
                    let iy = (ybase + (ty * dh) as isize) as usize;
                    for tx in 0..kw {
                        let ix = xbase + (tx * dw) as isize;
                        let taps = (x0..x1)
                            .contains(&tx)
                            .then(|| ((n * ih + iy) * iw + ix as usize) * ic)
                            .and_then(|at| x.get(at..at + ic));
                        for c in 0..ic {
                            let v = taps
                                .and_then(|t| t.get(c))
                                .map_or(0, |&v| i32::from(v) + offset);
                            // SAFETY: as above.
                            unsafe { *halves.add(half(q, i)) = v as u16 };
                            q += 1;
                        }
                    }
                }
                None => {
                    while q < end {
                        // SAFETY: as above.
                        unsafe { *halves.add(half(q, i)) = 0 };
                        q += 1;
                    }
                }
            }
        }
    }
}

/// Writes `len` values into pixel `i`'s column from position `q`: `src`'s plus `offset`, or
/// zeros.
#[inline(always)]
fn fill(cols: &mut [Group], i: usize, q: usize, len: usize, src: Option<&[i8]>, offset: i32) {
    let i = i % PIXELS;
    if q % 4 == 0 && len % 4 == 0 {
        let Some(cols) = cols.get_mut(q / 4..(q + len) / 4) else {
            return;
        };
        match src {
            Some(s) => {
                let off = offset_pair(offset);
                for (c, v) in cols.iter_mut().zip(s.chunks_exact(4)) {
                    let v = word(v);
                    let (even, odd) = (sadd16(sxtb16(v), off), sadd16(sxtb16_ror8(v), off));
                    c[i] = [even, odd];
                }
            }
            None => cols.iter_mut().for_each(|c| c[i] = [0; 2]),
        }
    } else {
        // Input channels not a multiple of four: one value at a time, value `e` of a group
        // in word `e & 1`, half `e >> 1`.
        for e in 0..len {
            let v = src
                .and_then(|s| s.get(e))
                .map_or(0, |&v| i32::from(v) + offset);
            let p = q + e;
            if let Some(c) = cols.get_mut(p / 4) {
                let h = &mut c[i][p & 1];
                let shift = (p & 2) * 8;
                *h = (*h & !(0xffff << shift)) | u32::from(v as u16) << shift;
            }
        }
    }
}

/// DEPTHWISE_CONV_2D on `i8` (K7), as
/// [`quantized::depthwise_conv2d`](super::quantized::depthwise_conv2d), every shape.
///
/// Four output channels at a time (the lanes; the last four overlapping the ones before
/// when the count is not a multiple of four, fewer than four channels repeating the last).
/// Each output pixel's four sums are made in registers and kept for up to [`ROW`] pixels of
/// a row, which are then requantized one channel at a time. With multiplier 1, four
/// channels or more and at most [`MAX_TAPS`] taps, a tap's four input bytes are one word and
/// the lanes' weights are unpacked once per group: [`Window::add`] sums a run of pixels whose
/// windows are inside the input ([`window3x3`] for a 3x3 kernel, except in a build optimized
/// for size), each from the bias plus `offset * (sum of the lane's weights)`, worked out once,
/// so that the taps add no offset (the same wrapping sum). A window at the edge, and any
/// other shape, is summed byte by byte by [`Window::bytes`], the offset added to each input
/// value.
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
) {
    let (c, oc) = (dims.in_channels, dims.out_channels);
    // The depth multiplier (the output channels are a multiple of the input's, K4).
    let Some(m) = oc.checked_div(c).filter(|&m| m > 0) else {
        return;
    };
    let [kh, kw] = g.kernel();
    let taps = kh * kw;
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dh, dw] = g.dilations();
    let offset = frame.input_offset;
    let word = m == 1 && c >= 4 && taps <= MAX_TAPS;
    // The output columns whose windows are inside the input along the width.
    let (lo, hi) = inside_columns(g);
    let steps = [dh * iw * c, dw * c];
    // Each tap's four weights of the group, unpacked.
    let mut unpacked = [[0u32; 2]; MAX_TAPS];
    // The lanes' sums of a row's pixels.
    let mut sums = [[0i32; ROW]; 4];
    let mut group = 0;
    while group < oc {
        let first_lane = group.min(oc.saturating_sub(4));
        group += 4;
        let mut lanes = [0; 4];
        let (mut start, mut full) = ([0i32; 4], [0i32; 4]);
        for k in 0..4 {
            lanes[k] = (first_lane + k).min(oc - 1);
            start[k] = bias_at(bias, lanes[k]);
            full[k] = start[k];
        }
        let c0 = lanes[0] / m;
        if word {
            // Each tap's four weights unpacked, lanes 0 and 2 then 1 and 3; the offset's terms.
            // Counted, not `iter_mut().take(taps)`: 44 bytes less with LTO.
            for t in 0..taps {
                let q = w.get(t * oc + c0..t * oc + c0 + 4).unwrap_or(&[0; 4]);
                if let Some(u) = unpacked.get_mut(t) {
                    *u = [sxtb16(word_of(q)), sxtb16_ror8(word_of(q))];
                }
                for k in 0..4 {
                    let f = i32::from(q[k]);
                    full[k] = full[k].wrapping_add(offset.wrapping_mul(f));
                }
            }
        }
        let win = Window {
            x,
            taps: &unpacked,
            steps: [steps[0], steps[1], g.strides()[1] * c],
            kw,
            w,
            lanes,
            m,
            oc,
            offset,
        };
        for r in 0..dims.batch * oh {
            let (n, oy) = (r / oh.max(1), r % oh.max(1));
            let (y0, y1, ybase) = taps_of(g, 0, oy);
            let iy = (ybase + (y0 * dh) as isize) as usize;
            let mut first = 0;
            while first < ow {
                let count = ROW.min(ow - first);
                let mut p = 0;
                while p < count {
                    let ox = first + p;
                    let inside = (lo..hi).contains(&ox);
                    let (x0, x1, xbase) = if inside {
                        (
                            0,
                            kw,
                            (ox * g.strides()[1]) as isize - g.pad_before()[1] as isize,
                        )
                    } else {
                        taps_of(g, 1, ox)
                    };
                    let ix = (xbase + (x0 * dw) as isize) as usize;
                    let at = ((n * ih + iy) * iw + ix) * c + c0;
                    let mut run = Run {
                        at,
                        p,
                        pixels: 1,
                        tap: y0 * kw + x0,
                        rows: y1 - y0,
                        cols: x1 - x0,
                    };
                    if word && inside && run.rows == kh {
                        // A run of pixels whose windows are inside the input.
                        run.pixels = hi.min(first + count) - ox;
                        #[cfg(not(shaped_opt_size))]
                        if [kh, kw] == [3, 3] && window3x3(&win, &run, full, &mut sums) {
                            p += run.pixels;
                            continue;
                        }
                        win.add(&run, &full, &mut sums);
                    } else {
                        // A window at the edge, or lanes that are not one word: byte by
                        // byte (at the edge of the 48x48x8 layer, 0.3 instructions per MAC
                        // more than the word loop, for 200 bytes less code).
                        win.bytes(&run, &start, &mut sums);
                    }
                    p += run.pixels;
                }
                // One channel at a time, out of line: its requantization in registers.
                let at = (r * ow + first) * oc;
                for k in 0..oc.min(4) {
                    let o = lanes[k];
                    let (Some(&rq), Some(dst)) = (requant.get(o), out.get_mut(at + o..)) else {
                        return;
                    };
                    finish_column(frame, rq, &sums[k][..count], dst, oc);
                }
                first += count;
            }
        }
    }
}

/// A group's taps over the input: the lanes' unpacked weights (lanes 0 and 2, then 1 and
/// 3), rows of taps `kw` apart, and the bytes from a tap to the next row of taps, to the next
/// tap of a row and to the next output pixel's.
struct Window<'a> {
    x: &'a [i8],
    taps: &'a [[u32; 2]; MAX_TAPS],
    steps: [usize; 3],
    kw: usize,
    /// For lanes that are not one word: the weights, the lanes' output channels, the
    /// depth multiplier and the input offset.
    w: &'a [i8],
    lanes: [usize; 4],
    m: usize,
    oc: usize,
    offset: i32,
}

/// The sums of a row's pixels, lane by lane.
type Sums = [[i32; ROW]; 4];

/// Pixels `p..p + pixels` of a row, their windows alike: the first one's first tap's word at
/// `x[at..at + 4]`, the window `rows x cols` taps from tap `tap`.
#[derive(Clone, Copy)]
struct Run {
    at: usize,
    p: usize,
    pixels: usize,
    tap: usize,
    rows: usize,
    cols: usize,
}

impl Window<'_> {
    /// The run's four sums per pixel into `sums`, each from `start`. Out of line, so that its
    /// loops have the registers to themselves; nothing is written unless all the run's bytes
    /// and weights are there.
    #[inline(never)]
    fn add(&self, run: &Run, start: &[i32; 4], sums: &mut Sums) {
        let ([rs, cs, ps], kw) = (self.steps, self.kw);
        let Run {
            at,
            p,
            pixels,
            tap,
            rows,
            cols,
        } = *run;
        if pixels == 0 || rows == 0 || cols == 0 || p + pixels > ROW {
            return;
        }
        // The end of the last pixel's last tap's word, and of the weights, in 64 bits:
        // every other read is before them (`checked_mul` and `checked_add` cost 40
        // instructions).
        let wide = |n: usize, step: usize| (n - 1) as u64 * step as u64;
        let last = at as u64 + wide(pixels, ps) + wide(rows, rs) + wide(cols, cs) + 4;
        let weights = tap as u64 + wide(rows, kw) + cols as u64;
        if last > self.x.len() as u64 || weights > MAX_TAPS as u64 {
            return;
        }
        let mut first = self.x.as_ptr().wrapping_add(at);
        for m in p..p + pixels {
            let [mut a0, mut a1, mut a2, mut a3] = *start;
            let (mut row, mut wrow) = (first, tap);
            for _ in 0..rows {
                // SAFETY: the row's weights are the window's, `wrow + cols <= weights <=
                // MAX_TAPS` (checked above).
                let weights = unsafe { self.taps.get_unchecked(wrow..wrow + cols) };
                // A pointer, with the weights' iterator: the fewest values for the loop to
                // keep in registers (indexed, opt-level "s" kept two of them on the stack).
                let mut x = row;
                for &[we, wo] in weights {
                    // SAFETY: `x` is a tap of the run, its word ends at most at `last <=
                    // x.len()` (checked above); an unaligned read, which the core allows.
                    let v = u32::from_le(unsafe { x.cast::<u32>().read_unaligned() });
                    let (even, odd) = (sxtb16(v), sxtb16_ror8(v));
                    a0 = smlabb(even, we, a0);
                    a1 = smlabb(odd, wo, a1);
                    a2 = smlatt(even, we, a2);
                    a3 = smlatt(odd, wo, a3);
                    x = x.wrapping_add(cs);
                }
                row = row.wrapping_add(rs);
                wrow += kw;
            }
            // SAFETY: `m < p + pixels <= ROW` (checked above).
            unsafe {
                *sums[0].get_unchecked_mut(m) = a0;
                *sums[1].get_unchecked_mut(m) = a1;
                *sums[2].get_unchecked_mut(m) = a2;
                *sums[3].get_unchecked_mut(m) = a3;
            }
            first = first.wrapping_add(ps);
        }
    }

    /// [`add`](Self::add) for one pixel, any lanes (a window at the edge, a multiplier
    /// above one, fewer than four channels, more than [`MAX_TAPS`] taps): the bytes read
    /// one by one, lane `k` reading input channel `lanes[k] / m` of the tap's pixel (`at`
    /// less the first lane's input channel) and weight `lanes[k]` of each tap, plus the
    /// input offset.
    #[inline(never)]
    fn bytes(&self, run: &Run, start: &[i32; 4], sums: &mut Sums) {
        let ([rs, cs, _], kw, m) = (self.steps, self.kw, self.m.max(1));
        let (oc, c0) = (self.oc, self.lanes[0] / m);
        let mut acc = *start;
        for i in 0..run.rows {
            for j in 0..run.cols {
                let (t, at) = (run.tap + i * kw + j, run.at - c0 + i * rs + j * cs);
                for (a, &o) in acc.iter_mut().zip(&self.lanes) {
                    let (v, f) = (self.x.get(at + o / m), self.w.get(t * oc + o));
                    if let (Some(&v), Some(&f)) = (v, f) {
                        *a = a.wrapping_add(i32::from(f).wrapping_mul(i32::from(v) + self.offset));
                    }
                }
            }
        }
        for (s, a) in sums.iter_mut().zip(acc) {
            if let Some(s) = s.get_mut(run.p) {
                *s = a;
            }
        }
    }
}

/// [`Window::add`] for a run of 3x3 windows inside the input, from `start`: the taps written
/// out, so that the compiler keeps the sums in registers (opt-level 3: 6.5 instructions per
/// MAC on the 48x48x8 layer, where the loop over the taps takes more than 7). `false`
/// (nothing written) if the run's bytes are not all inside `x`.
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn window3x3(win: &Window<'_>, run: &Run, start: [i32; 4], sums: &mut Sums) -> bool {
    let (x, [rs, cs, ps]) = (win.x, win.steps);
    let Run { at, p, pixels, .. } = *run;
    let Some(w) = win.taps.first_chunk::<9>() else {
        return false;
    };
    let last = (pixels.wrapping_sub(1).checked_mul(ps))
        .zip(rs.checked_mul(2).zip(cs.checked_mul(2)))
        .and_then(|(a, (b, c))| {
            at.checked_add(a)?
                .checked_add(b)?
                .checked_add(c)?
                .checked_add(4)
        });
    if pixels == 0 || last.is_none_or(|l| l > x.len()) || p + pixels > ROW {
        return false;
    }
    let mut at = at;
    for m in p..p + pixels {
        let [mut a0, mut a1, mut a2, mut a3] = start;
        let mut tap = |at: usize, [we, wo]: [u32; 2]| {
            // SAFETY: `at` is a tap of one of the windows, `at + 4 <= last <= x.len()`
            // (checked above).
            let v = unsafe { word_at(x, at) };
            let (even, odd) = (sxtb16(v), sxtb16_ror8(v));
            a0 = smlabb(even, we, a0);
            a1 = smlabb(odd, wo, a1);
            a2 = smlatt(even, we, a2);
            a3 = smlatt(odd, wo, a3);
        };
        let (r1, r2) = (at + rs, at + 2 * rs);
        tap(at, w[0]);
        tap(at + cs, w[1]);
        tap(at + 2 * cs, w[2]);
        tap(r1, w[3]);
        tap(r1 + cs, w[4]);
        tap(r1 + 2 * cs, w[5]);
        tap(r2, w[6]);
        tap(r2 + cs, w[7]);
        tap(r2 + 2 * cs, w[8]);
        // SAFETY: `m < p + pixels <= ROW` (checked above).
        unsafe {
            *sums[0].get_unchecked_mut(m) = a0;
            *sums[1].get_unchecked_mut(m) = a1;
            *sums[2].get_unchecked_mut(m) = a2;
            *sums[3].get_unchecked_mut(m) = a3;
        }
        at += ps;
    }
    true
}

/// The output columns `lo..hi` whose windows are wholly inside the input along the width.
fn inside_columns(g: &Geometry2d) -> (usize, usize) {
    let (s, pad, k, d, len) = (
        g.strides()[1].max(1),
        g.pad_before()[1],
        g.kernel()[1],
        g.dilations()[1],
        g.input()[1],
    );
    // Column o's window spans o s - pad ..= o s - pad + (k - 1) d.
    let span = k.saturating_sub(1) * d;
    let lo = pad.div_ceil(s);
    // The first column whose window ends at or past the input's end.
    let hi = (len + pad)
        .checked_sub(span)
        .map_or(0, |room| room.div_ceil(s));
    (lo, hi.max(lo))
}

/// Four bytes as a little-endian word, or 0 for a slice too short.
#[inline(always)]
fn word_of(b: &[i8]) -> u32 {
    b.first_chunk::<4>()
        .map_or(0, |b| u32::from_le_bytes(b.map(|v| v as u8)))
}

/// [`Geometry2d::taps`], out of line: it is not worth a copy per caller.
#[inline(never)]
fn taps_of(g: &Geometry2d, axis: usize, o: usize) -> (usize, usize, isize) {
    g.taps(axis, o)
}

/// `sums` requantized into `out[0]`, `out[step]`, ...
#[inline(never)]
fn finish_column(frame: &ConvFrame, rq: Requant, sums: &[i32], out: &mut [i8], step: usize) {
    let r = &ChannelRequant::new(rq, frame.rounding);
    // The usual case, with fewer values to keep in registers: no left shift, no activation
    // (the clamp a constant one). Not in a build for size: the general form alone is 200
    // bytes less, for 5% more instructions on the depthwise layer at "s".
    #[cfg(not(shaped_opt_size))]
    if let Some(rq) = r.right_only().filter(|_| frame.full_range()) {
        let offset = frame.output_offset;
        return column(sums, out, step, |s| {
            rq(s)
                .wrapping_add(offset)
                .clamp(i8::MIN.into(), i8::MAX.into()) as i8
        });
    }
    column(sums, out, step, |s| frame.finish_channel(s, r))
}

/// `f` of each of `sums` into `out[0]`, `out[step]`, ... (out of line where there are two
/// forms: each form's values in registers of its own). Nothing is written unless every one
/// fits.
#[cfg_attr(not(shaped_opt_size), inline(never))]
#[cfg_attr(shaped_opt_size, inline(always))]
fn column(sums: &[i32], out: &mut [i8], step: usize, f: impl Fn(i32) -> i8) {
    let Some(last) = sums.len().checked_sub(1) else {
        return;
    };
    if last.checked_mul(step).is_none_or(|end| end >= out.len()) {
        return;
    }
    let out = out.as_mut_ptr();
    let mut at = 0;
    for &s in sums {
        // SAFETY: `at <= last * step < out.len()`, checked above (one check, where a checked
        // store per value cost 3% of the depthwise layer's instructions).
        unsafe { *out.add(at) = f(s) };
        at += step;
    }
}
