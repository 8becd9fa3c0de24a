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
//!   than a column is summed in chunks. Outside a build for size, a row that fits a column
//!   has its channels' weights walked in order ([`dot_block`]) and the block's outputs
//!   requantized in one call ([`finish_block`]); a 1x1 layer of stride 1 and no padding has
//!   its channels read in place ([`gather_pointwise`]), and a row whose taps are not whole
//!   groups (one input channel) is gathered as 16-bit halves ([`gather_values`]), or a word
//!   at a time where its rows of taps are whole groups ([`gather_rows`]).
//! * DEPTHWISE_CONV_2D, every shape: four output channels at a time. With multiplier 1, four
//!   channels or more and at most [`MAX_TAPS`] taps, their weights are unpacked once per
//!   group (512 bytes), each tap's four input bytes unpacked with two `SXTB16`, and one
//!   `SMLABB` or `SMLATT` per channel, a run of pixels whose windows are inside the input at
//!   a time ([`Window::add`]), the input offset's terms summed once per group. A 3x3 kernel
//!   has every window's taps written out, at the input's edge too ([`chunk3x3`]: the
//!   offset's terms of the taps inside the window worked out once per group, a window cut on
//!   the left read from the input's first column with the taps shifted; [`window3x3`] for
//!   long runs inside); another kernel's windows at the edge add the offset to each tap's
//!   values ([`Window::edge`]). In a build for size, and for the other shapes, windows at the
//!   edge are summed byte by byte ([`Window::bytes`]). The sums of up to [`ROW`] pixels,
//!   across rows, are kept (1 KiB) and requantized channel by channel.
//!
//! No allocation: the scratch is on the stack, at most 2.3 KiB for CONV_2D and 1.5 KiB for
//! DEPTHWISE_CONV_2D. No panic path either: slices are read through checked `get`s that end
//! the kernel instead (the planned lengths never fail them), or, in the inner loops, through
//! pointers after one check of the last read; a panic links `core::fmt` into a firmware
//! (2.1 kB at opt-level "s").
//!
//! A build optimized for size (opt-level "s" or "z": `cfg(shaped_opt_size)`, set by
//! `build.rs`) leaves out the fast paths, keeping a firmware with one of these operations
//! within 1.5 times a hand-written loop nest's (`qemu-tests/code_size.sh`: 1.04x and 1.16x
//! with LTO, 1.35x and 1.45x without): CONV_2D's in-order rows, block requantization and
//! special gathers (about 6.5 kB at opt-level 3, 3 kB of it the gather of halves, whose
//! short loops LLVM unrolls; person detection's 1x1 layer of 8 to 16 channels takes 5.84
//! instructions per MAC with them, 11.7 without, its first layer 12.0 and 18.8:
//! `qemu-tests/icount_layers.sh`), the depthwise kernel's written-out 3x3 windows and
//! word-wise windows at the edge (about 3.5 kB at opt-level 3; without them the depthwise
//! layer of `qemu-tests/icount_conv.sh` takes 9.95 instructions per MAC at "s", 4.8 at
//! opt-level 3, and person detection's 6x6x128 and 3x3x256 ones 18.0 and 23.6, 7.0 and 10.1
//! at 3), and the requantization's form for a right shift, the usual case (one 64-bit sum
//! and a shift, [`multiply_by_quantized_multiplier_double_right`], for both kernels).

use super::geometry::Geometry2d;
use super::quantized::{ChannelRequant, ConvFrame};
use super::Nhwc;
use crate::quant::elementwise::Requant;
#[cfg(not(shaped_opt_size))]
use crate::quant::fixedpoint::multiply_by_quantized_multiplier_double_right;
#[cfg(not(shaped_opt_size))]
use crate::quant::Rounding;
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
/// The output pixels (consecutive, across rows) whose depthwise sums are kept before they
/// are requantized.
const ROW: usize = 64;
/// Whether the depthwise kernel sums windows at the input's edge a word at a time (not in a
/// build for size: [`Window::edge`] and `Window::add::<true>`, 850 bytes at opt-level 3).
const EDGES: bool = cfg!(not(shaped_opt_size));

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

/// A word of four input bytes as the two words the multiply-accumulates read: bytes 0 and 2,
/// then bytes 1 and 3, each sign-extended to 16 bits plus the input offset (`off`, from
/// [`offset_pair`]).
#[inline(always)]
fn widened(v: u32, off: u32) -> [u32; 2] {
    [sadd16(sxtb16(v), off), sadd16(sxtb16_ror8(v), off)]
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
            // The row in chunks of at most a column; one chunk is gathered once for all
            // blocks. A row of one column, outside a build for size: each channel's weights
            // read in order, and no chunk left.
            let mut k0 = 0;
            #[cfg(not(shaped_opt_size))]
            if row <= COLUMN {
                if block == 0 {
                    if pointwise {
                        gather_pointwise(x, row, &px, frame.input_offset, &mut cols);
                    } else if dims.in_channels % 4 != 0 && (kw * dims.in_channels) % 4 == 0 {
                        gather_rows(x, dims, g, &px, frame.input_offset, &mut cols);
                    } else if dims.in_channels % 4 != 0 {
                        gather_values(x, dims, g, &px, frame.input_offset, &mut cols);
                    } else {
                        gather(x, dims, g, &px, (0, row), frame.input_offset, &mut cols);
                    }
                }
                if !dot_block(&cols, w, bias, row, (block, n), &mut sums) {
                    return;
                }
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
    let double = matches!(frame.rounding, Rounding::Double);
    for (j, (kept, &rq)) in sums.iter().zip(rqs).enumerate() {
        let mut at = first + j;
        let (m, shift) = rq.parts();
        if double && shift < 0 && count == PIXELS {
            // The usual case: double rounding by a multiplier below one, four values written
            // out (no count to test between them), each in one 64-bit sum and a shift.
            let v = kept.map(|s| {
                multiply_by_quantized_multiplier_double_right(s, m, shift)
                    .wrapping_add(offset)
                    .max(min)
                    .min(max) as i8
            });
            for v in v {
                // SAFETY: `at <= (base + count - 1) * oc + block + n - 1 < out.len()`,
                // checked above once for the block.
                unsafe { *out.add(at) = v };
                at += oc;
            }
            continue;
        }
        let r = ChannelRequant::new(rq, frame.rounding);
        if let (Some(rq), true) = (r.right_only(), count == PIXELS) {
            // Four values, written out.
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
        let (y0, y1, ybase) = pixel_taps(g, 0, oy);
        let (x0, x1, xbase) = pixel_taps(g, 1, ox);
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
            c[i] = widened(v, off);
        }
    }
}

/// [`gather`] of a whole row of at most [`COLUMN`] values whose taps are not whole groups
/// (input channels not a multiple of four), tap by tap: each value, or zero outside the input,
/// stored as its 16-bit half of the interleaved column. The general form wrote such runs value
/// by value through a checked read-modify-write of the group's word: TFLM's person
/// detection's first layer (a 3x3 window on one channel) took 2.58 million instructions on the
/// Cortex-M4 at opt-level 3 with it, 2.06 million with this (`qemu-tests/icount_layers.sh`).
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
        let (y0, y1, ybase) = pixel_taps(g, 0, oy);
        let (x0, x1, xbase) = pixel_taps(g, 1, ox);
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

/// [`gather`] of a whole row of at most [`COLUMN`] values whose rows of taps are whole groups
/// (`kw * c` a multiple of four) but not their taps (micro_speech's 10x8 window on one
/// channel): a row of taps inside the input a word of four values at a time, one at the edge
/// value by value. TFLM's micro_speech took 1.55 million instructions per inference on the
/// Cortex-M4 at opt-level 3 with the general gather, 1.08 million with this, 1.06 with
/// [`pixel_taps`] in line (`qemu-tests/icount_models.sh`).
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn gather_rows(
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
    let trow = kw * ic;
    if trow == 0 || trow % 4 != 0 || kh * trow > COLUMN {
        return;
    }
    let off = offset_pair(offset);
    for (i, &p) in px.iter().enumerate() {
        let (n, oy, ox) = position(p, g);
        let (y0, y1, ybase) = pixel_taps(g, 0, oy);
        let (x0, x1, xbase) = pixel_taps(g, 1, ox);
        let Some(rows) = cols.get_mut(..kh * trow / 4) else {
            return;
        };
        for (ty, row) in rows.chunks_exact_mut(trow / 4).enumerate() {
            let iy = (ybase + (ty * dh) as isize) as usize;
            let inside = (y0..y1).contains(&ty);
            if inside && dw == 1 && (x0, x1) == (0, kw) {
                let at = ((n * ih + iy) * iw + xbase as usize) * ic;
                let Some(src) = x.get(at..at + trow) else {
                    return;
                };
                for (c, v) in row.iter_mut().zip(src.chunks_exact(4)) {
                    let v = word(v);
                    c[i] = widened(v, off);
                }
                continue;
            }
            if !inside {
                // A row of taps above or below the input: zeros.
                for c in row.iter_mut() {
                    c[i] = [0; 2];
                }
                continue;
            }
            // At the left or right edge: each value, zero outside the input.
            for (q, c) in row.iter_mut().enumerate() {
                let v = |k: usize| {
                    let (tx, ch) = ((4 * q + k) / ic, (4 * q + k) % ic);
                    // Inside the input, `iy` and `ix` are in range (`taps`' bounds).
                    let v = if (x0..x1).contains(&tx) {
                        let ix = (xbase + (tx * dw) as isize) as usize;
                        let at = ((n * ih + iy) * iw + ix) * ic + ch;
                        x.get(at).map_or(0, |&v| i32::from(v) + offset)
                    } else {
                        0
                    };
                    u32::from(v as u16)
                };
                c[i] = [v(0) | v(2) << 16, v(1) | v(3) << 16];
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
                    c[i] = widened(word(v), off);
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
/// Each output pixel's four sums are made in registers and kept for up to [`ROW`]
/// consecutive pixels (across rows: a 6x6 or 3x3 output at once), which are then
/// requantized one channel at a time. With multiplier 1, four channels or more and at most
/// [`MAX_TAPS`] taps, a tap's four input bytes are one word and the lanes' weights are
/// unpacked once per group: [`Window::add`] sums a run of pixels whose windows are inside
/// the input, each from the bias plus `offset * (sum of the lane's weights)`, worked out
/// once, so that the taps add no offset (the same wrapping sum). Except in a build optimized
/// for size, a 3x3 kernel (dilation 1) has all its windows summed by [`chunk3x3`], each from
/// the bias plus the offset's terms of its taps inside the input, and another kernel's
/// windows at the edge by [`Window::edge`], the offset added to each input value. Any other
/// window is summed byte by byte by [`Window::bytes`], the offset added to each input value.
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
    let off = offset_pair(offset);
    let word = m == 1 && c >= 4 && taps <= MAX_TAPS;
    let pixels = dims.batch * oh * ow;
    let (oh, ow) = (oh.max(1), ow.max(1));
    // The output columns whose windows are inside the input along the width.
    let (lo, hi) = inside_columns(g);
    // A 3x3 kernel over rows of at least three pixels: every window, at the edge too, by
    // [`chunk3x3`] (its weights shifted at the edge, so that it reads inside the row).
    #[cfg(not(shaped_opt_size))]
    let fast3x3 = word && [kh, kw] == [3, 3] && [dh, dw] == [1, 1];
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
        }
        let c0 = lanes[0] / m;
        if word {
            // Each tap's four weights unpacked, lanes 0 and 2 then 1 and 3, and summed (in 16
            // bits: at most 64 * 128); the offset's terms from the sums (four multiplies, where
            // one per weight took 16 instructions per tap).
            // Counted, not `iter_mut().take(taps)`: 44 bytes less with LTO.
            let mut total = [0u32; 2];
            let mut unpack = |t: usize, q: u32| {
                let u = [sxtb16(q), sxtb16_ror8(q)];
                if let Some(d) = unpacked.get_mut(t) {
                    *d = u;
                }
                total = [sadd16(total[0], u[0]), sadd16(total[1], u[1])];
            };
            let mut t = 0;
            // The last tap's word inside `w`: the others are before it.
            #[cfg(not(shaped_opt_size))]
            if (taps.saturating_sub(1).checked_mul(oc))
                .and_then(|a| a.checked_add(c0)?.checked_add(4))
                .is_some_and(|l| l <= w.len())
            {
                // One check for all the taps (23 instructions a tap with a check each, 14
                // without: 0.4 instructions per MAC on the 3x3x256 layer).
                while t < taps {
                    // SAFETY: `t * oc + c0 + 4 <= (taps - 1) * oc + c0 + 4 <= w.len()`
                    // (checked above).
                    unpack(t, unsafe { word_at(w, t * oc + c0) });
                    t += 1;
                }
            }
            while t < taps {
                unpack(t, word_of(w.get(t * oc + c0..).unwrap_or_default()));
                t += 1;
            }
            full = with_offset(total, off, &start);
        }
        #[cfg(not(shaped_opt_size))]
        if fast3x3 {
            shift_taps(&mut unpacked);
            group_starts(&mut unpacked, off, &start);
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
        // The output's pixels in chunks of up to [`ROW`], across rows (consecutive pixels'
        // outputs are `oc` apart across rows too): a 6x6 or 3x3 output is one chunk, one
        // requantization call per lane, where a row at a time took one per lane per row.
        let mut base = 0;
        while base < pixels {
            let count = ROW.min(pixels - base);
            #[cfg(not(shaped_opt_size))]
            let done = fast3x3 && chunk3x3(&win, g, (c, c0), (base, count), &mut sums);
            #[cfg(shaped_opt_size)]
            let done = false;
            // Pixels `p..count` of the chunk, with any kernel (all of them when the chunk is
            // not done).
            let mut p = if done { count } else { 0 };
            while p < count {
                // The chunk's part of one row: output pixels `p..end`, columns from `ox0`.
                let (r, ox0) = ((base + p) / ow, (base + p) % ow);
                let (n, oy) = (r / oh, r % oh);
                let end = count.min(p + (ow - ox0));
                let (y0, y1, ybase) = taps_of(g, 0, oy);
                let iy = (ybase + (y0 * dh) as isize) as usize;
                let rows = y1 - y0;
                // Output pixel `p` is at column `ox0 + p - row_p`.
                let row_p = p;
                while p < end {
                    let ox = ox0 + (p - row_p);
                    let inside = (lo..hi).contains(&ox);
                    let origin = (ox * g.strides()[1]) as isize - g.pad_before()[1] as isize;
                    let (x0, x1, xbase) = if inside {
                        (0, kw, origin)
                    } else if EDGES && dw == 1 {
                        // `taps_of` without its divisions (a call and 30 instructions).
                        // `max` and `min`, not `clamp`: its bounds' check is a panic path.
                        let x0 = (-origin).max(0).min(kw as isize) as usize;
                        let x1 = (iw as isize - origin).min(kw as isize).max(x0 as isize);
                        let x1 = x1 as usize;
                        (x0, x1, origin)
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
                        rows,
                        cols: x1 - x0,
                    };
                    if word && inside && (rows == kh || (EDGES && rows > 0)) {
                        // A run of pixels whose windows are inside the input along the
                        // width, and alike along the height.
                        run.pixels = hi.min(ox0 + (end - row_p)) - ox;
                        if rows == kh {
                            #[cfg(not(shaped_opt_size))]
                            if [kh, kw] == [3, 3] && window3x3(&win, &run, full, &mut sums) {
                                p += run.pixels;
                                continue;
                            }
                            win.add::<false>(&run, &full, 0, &mut sums);
                        } else {
                            win.add::<true>(&run, &start, off, &mut sums);
                        }
                    } else if EDGES && word && rows > 0 && run.cols > 0 {
                        #[cfg(not(shaped_opt_size))]
                        win.edge(&run, &start, off, &mut sums);
                    } else {
                        // A window at the edge in a build for size, or lanes that are not
                        // one word: byte by byte (at the edge of the 48x48x8 layer, 0.3
                        // instructions per MAC more than the word loop, for 200 bytes less
                        // code; but 19 and 27 instructions per MAC on the 6x6x128 and
                        // 3x3x256 layers at opt-level 3, where most windows are at the edge).
                        win.bytes(&run, &start, &mut sums);
                    }
                    p += run.pixels;
                }
            }
            // One channel at a time, out of line: its requantization in registers.
            let at = base * oc;
            for k in 0..oc.min(4) {
                let o = lanes[k];
                let (Some(&rq), Some(dst)) = (requant.get(o), out.get_mut(at + o..)) else {
                    return;
                };
                finish_column(frame, rq, &sums[k][..count], dst, oc);
            }
            base += count;
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
    /// The run's four sums per pixel into `sums`, each from `start`; with `EDGE`, the input
    /// offset (both halves of `off`) added to each input value (windows cut by the input's
    /// edge along the height, from the bias). Out of line, so that its loops have the
    /// registers to themselves; nothing is written unless all the run's bytes and weights
    /// are there.
    #[inline(never)]
    fn add<const EDGE: bool>(&self, run: &Run, start: &[i32; 4], off: u32, sums: &mut Sums) {
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
                    let (mut even, mut odd) = (sxtb16(v), sxtb16_ror8(v));
                    if EDGE {
                        (even, odd) = (sadd16(even, off), sadd16(odd, off));
                    }
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

    /// [`add`](Self::add) with the input offset added to each input value (from the bias:
    /// the taps of a window at the edge of the input), for one pixel.
    #[cfg(not(shaped_opt_size))]
    #[inline(never)]
    fn edge(&self, run: &Run, start: &[i32; 4], off: u32, sums: &mut Sums) {
        let ([rs, cs, _], kw) = (self.steps, self.kw);
        let Run {
            at,
            p,
            tap,
            rows,
            cols,
            ..
        } = *run;
        let (x, w) = (self.x, self.taps);
        // The last tap's word and weights: every other read is before them.
        let last = (rows.wrapping_sub(1).checked_mul(rs))
            .zip(cols.wrapping_sub(1).checked_mul(cs))
            .and_then(|(a, b)| at.checked_add(a)?.checked_add(b)?.checked_add(4));
        let weights =
            (rows.wrapping_sub(1).checked_mul(kw)).and_then(|a| a.checked_add(tap + cols));
        if rows == 0
            || cols == 0
            || p >= ROW
            || last.is_none_or(|l| l > x.len())
            || weights.is_none_or(|e| e > MAX_TAPS)
        {
            return;
        }
        let [mut a0, mut a1, mut a2, mut a3] = *start;
        let (mut row, mut wrow) = (at, tap);
        for _ in 0..rows {
            let mut at = row;
            for t in wrow..wrow + cols {
                // SAFETY: `at` is a tap of the window, `at + 4 <= last <= x.len()`, and
                // `t < weights <= MAX_TAPS` (checked above).
                let (v, [we, wo]) = unsafe { (word_at(x, at), *w.get_unchecked(t)) };
                let [even, odd] = widened(v, off);
                a0 = smlabb(even, we, a0);
                a1 = smlabb(odd, wo, a1);
                a2 = smlatt(even, we, a2);
                a3 = smlatt(odd, wo, a3);
                at += cs;
            }
            row += rs;
            wrow += kw;
        }
        // SAFETY: `p < ROW` (checked above).
        unsafe {
            *sums[0].get_unchecked_mut(p) = a0;
            *sums[1].get_unchecked_mut(p) = a1;
            *sums[2].get_unchecked_mut(p) = a2;
            *sums[3].get_unchecked_mut(p) = a3;
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

/// A 3x3 group's taps (`u[..9]`) shifted for the windows cut by the input's edge on the left:
/// `u[9..18]` with each row's taps 1 and 2 first (read from the input's columns 0 and 1),
/// then a zero.
#[cfg(not(shaped_opt_size))]
#[inline(always)]
fn shift_taps(u: &mut [[u32; 2]; MAX_TAPS]) {
    const { assert!(MAX_TAPS >= 18) };
    for i in 0..3 {
        u[9 + 3 * i] = u[3 * i + 1];
        u[9 + 3 * i + 1] = u[3 * i + 2];
        u[9 + 3 * i + 2] = [0; 2];
    }
}

/// The starts of a 3x3 group's windows: the bias plus the input offset times the sum of the
/// lane's weights in the window, for the windows over rows of taps 0..3, 1..3 (cut at the
/// top) and 0..2 (at the bottom), each inside the input along the width, and without the
/// first or the last column of taps (cut on the left, on the right). Kept in `u[18..36]`
/// ([`start_of`]), unused by a 3x3 kernel's taps: 144 bytes of stack less than an array of
/// their own.
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn group_starts(u: &mut [[u32; 2]; MAX_TAPS], off: u32, bias: &[i32; 4]) {
    const { assert!(MAX_TAPS >= 36) };
    let add = |a: [u32; 2], b: [u32; 2]| [sadd16(a[0], b[0]), sadd16(a[1], b[1])];
    // Each column's weights summed over the rows of taps 0..3, 1..3 and 0..2 (16 bits
    // each: at most 3 * 128).
    let mut cols = [[[0u32; 2]; 3]; 3];
    for j in 0..3 {
        let (top, bottom) = (add(u[3 + j], u[6 + j]), add(u[j], u[3 + j]));
        cols[0][j] = add(top, u[j]);
        cols[1][j] = top;
        cols[2][j] = bottom;
    }
    for (cl, col) in cols.iter().enumerate() {
        for (k, st) in column_starts(col, off, bias).iter().enumerate() {
            u[18 + 6 * cl + 2 * k] = [st[0] as u32, st[1] as u32];
            u[18 + 6 * cl + 2 * k + 1] = [st[2] as u32, st[3] as u32];
        }
    }
}

/// The starts of [`group_starts`] for one range of rows of taps, from each column's sums of
/// weights `col`. Out of line: in line, the compiler spilled the sums of all three ranges
/// (330 instructions a group, not 150).
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn column_starts(col: &[[u32; 2]; 3], off: u32, bias: &[i32; 4]) -> [[i32; 4]; 3] {
    let add = |a: [u32; 2], b: [u32; 2]| [sadd16(a[0], b[0]), sadd16(a[1], b[1])];
    let right = add(col[1], col[2]);
    [
        with_offset(add(col[0], right), off, bias),
        with_offset(right, off, bias),
        with_offset(add(col[0], col[1]), off, bias),
    ]
}

/// The starts of [`group_starts`] for rows of taps `cl` (0..3, 1..3, 0..2), by columns
/// (all, cut on the left, on the right), two words each.
#[cfg(not(shaped_opt_size))]
#[inline(always)]
fn starts_of(u: &[[u32; 2]; MAX_TAPS], cl: usize) -> &[[u32; 2]; 6] {
    let at = 18 + 6 * cl.min(2);
    u[at..].first_chunk().unwrap_or(&[[0; 2]; 6])
}

/// The sums of a chunk of `count` output pixels from flat pixel `base`, a 3x3 kernel over
/// `c` channels (the group's first `c0`): [`row3x3`] for each row's part. `false` (the sums
/// partly written) if a window is cut by more than one row or column.
#[cfg(not(shaped_opt_size))]
#[inline(never)]
fn chunk3x3(
    win: &Window<'_>,
    g: &Geometry2d,
    (c, c0): (usize, usize),
    (base, count): (usize, usize),
    sums: &mut Sums,
) -> bool {
    let ([ih, iw], [oh, ow]) = (g.input(), g.output());
    let ([sy, sx], [py, px]) = (g.strides(), g.pad_before());
    let (_, hi) = inside_columns(g);
    if oh == 0 || ow == 0 {
        return false;
    }
    let mut p = 0;
    while p < count {
        // The chunk's part of one row: output pixels `p..end`, columns from `ox0`.
        let (r, ox0) = ((base + p) / ow, (base + p) % ow);
        let (n, oy) = (r / oh, r % oh);
        let end = count.min(p + (ow - ox0));
        // The rows of taps inside the input: 0..3, 1..3 or 0..2.
        let origin = (oy * sy) as isize - py as isize;
        // `min` and `max` for `y1`, not `clamp`: its check of bounds not both constants is a
        // panic path.
        let y0 = (-origin).clamp(0, 3);
        let y1 = (ih as isize - origin).min(3).max(y0);
        let cl = match (y0, y1) {
            (0, 3) => 0,
            (1, 3) => 1,
            (0, 2) => 2,
            _ => return false,
        };
        let (y0, rows) = (y0 as usize, (y1 - y0) as usize);
        let at0 = (n * ih + (origin + y0 as isize) as usize) * iw * c + c0;
        let geometry = (sx, px, iw, hi);
        if !row3x3(win, at0, (p, end), ox0, (y0, rows, cl), geometry, sums) {
            return false;
        }
        p = end;
    }
    true
}

/// The sums of pixels `p..end` of a row (from column `ox0`) of a 3x3 kernel whose windows
/// are over `rows` (2 or 3) rows of taps from `y0`, the input's first such row at `x[at0..]`
/// (its column 0): each window as [`window3x3`]'s, from `starts`; a window cut by the input's
/// edge along the width has two columns of taps (on the left, the taps shifted by
/// [`shift_taps`]). `false` (the sums partly written) if a window is cut by more than one
/// column or its bytes are not all inside `x`.
#[cfg(not(shaped_opt_size))]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn row3x3(
    win: &Window<'_>,
    at0: usize,
    (p, end): (usize, usize),
    ox0: usize,
    (y0, rows, cl): (usize, usize, usize),
    (stride, pad, iw, hi): (usize, usize, usize, usize),
    sums: &mut Sums,
) -> bool {
    let (x, [rs, cs, _]) = (win.x, win.steps);
    // Every read is in the rows `0..rows` from `at0`, in their columns `0..iw` (checked for
    // each window below): the last one's word inside `x`. In 64 bits: no overflow.
    let wide = |a: usize| a as u64;
    let last = wide(at0) + wide(iw.wrapping_sub(1)) * wide(cs) + wide(rows - 1) * wide(rs) + 4;
    if end > ROW || y0 > 1 || !(2..=3).contains(&rows) || iw == 0 || last > wide(x.len()) {
        return false;
    }
    let starts = starts_of(win.taps, cl);
    let taps = |at: usize| win.taps.get(at..).and_then(|w| w.first_chunk::<9>());
    let (Some(w0), Some(w1)) = (taps(3 * y0), taps(9 + 3 * y0)) else {
        return false;
    };
    let mut m = p;
    while m < end {
        let ox = ox0 + (m - p);
        let origin = (ox * stride) as isize - pad as isize;
        // The window's first column read, its taps and start, and whether it has three
        // columns (two when cut on the left or the right).
        let (base, w, k, three) = if origin < 0 {
            (origin + 1, w1, 1, false)
        } else if origin + 3 > iw as isize {
            (origin, w0, 2, false)
        } else {
            (origin, w0, 0, true)
        };
        let start = || {
            let ([a, b], [c, d]) = (starts[2 * k], starts[2 * k + 1]);
            [a as i32, b as i32, c as i32, d as i32]
        };
        // Cut by one column at most, its reads inside the row.
        if base < 0 || base as usize + 2 + three as usize > iw {
            return false;
        }
        let at = at0 + base as usize * cs;
        if three && rows == 3 {
            // A run of windows inside the input, to column `hi`: [`window3x3`]'s loop, the
            // faster for long runs (0.4 instructions per MAC on the 48x48x8 layer), when
            // there are a few.
            let n = hi.saturating_sub(ox).min(end - m);
            let run = Run {
                at,
                p: m,
                pixels: n,
                tap: 0,
                rows: 3,
                cols: 3,
            };
            if n >= 4 && window3x3(win, &run, start(), sums) {
                m += n;
                continue;
            }
        }
        let [mut a0, mut a1, mut a2, mut a3] = start();
        let mut tap = |at: usize, [we, wo]: [u32; 2]| {
            // SAFETY: `at` is a tap of a window inside rows `0..rows` from `at0` and
            // columns `0..iw` (checked above): its word ends at most at `last <= x.len()`.
            let v = unsafe { word_at(x, at) };
            let (even, odd) = (sxtb16(v), sxtb16_ror8(v));
            a0 = smlabb(even, we, a0);
            a1 = smlabb(odd, wo, a1);
            a2 = smlatt(even, we, a2);
            a3 = smlatt(odd, wo, a3);
        };
        let mut row = at;
        for i in 0..3 {
            if i < rows {
                tap(row, w[3 * i]);
                tap(row + cs, w[3 * i + 1]);
                if three {
                    tap(row + 2 * cs, w[3 * i + 2]);
                }
                row += rs;
            }
        }
        // SAFETY: `m < end <= ROW` (checked above).
        unsafe {
            *sums[0].get_unchecked_mut(m) = a0;
            *sums[1].get_unchecked_mut(m) = a1;
            *sums[2].get_unchecked_mut(m) = a2;
            *sums[3].get_unchecked_mut(m) = a3;
        }
        m += 1;
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

/// `start` plus the input offset (both halves of `off`) times the lanes' sums of weights
/// `sums` (lanes 0 and 2, then 1 and 3, 16 bits each).
#[inline(always)]
fn with_offset(sums: [u32; 2], off: u32, start: &[i32; 4]) -> [i32; 4] {
    [
        smlabb(sums[0], off, start[0]),
        smlabb(sums[1], off, start[1]),
        smlatt(sums[0], off, start[2]),
        smlatt(sums[1], off, start[3]),
    ]
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

/// [`Geometry2d::taps`] of a pixel the gathers fill: in line at opt-level 3, where the call
/// per pixel and axis was 1.5% of micro_speech's instructions on the Cortex-M4 (1,078,937 ->
/// 1,062,453 per inference; person detection 18,458,117 -> 18,421,969); [`taps_of`] in a
/// build for size (140 bytes of person detection's firmware, for 0.8% of its instructions).
#[inline(always)]
fn pixel_taps(g: &Geometry2d, axis: usize, o: usize) -> (usize, usize, isize) {
    #[cfg(not(shaped_opt_size))]
    return g.taps(axis, o);
    #[cfg(shaped_opt_size)]
    taps_of(g, axis, o)
}

/// `sums` requantized into `out[0]`, `out[step]`, ...
#[inline(never)]
fn finish_column(frame: &ConvFrame, rq: Requant, sums: &[i32], out: &mut [i8], step: usize) {
    // The usual case, with fewer values to keep in registers: double rounding by a multiplier
    // below one, in one 64-bit sum and a shift. Not in a build for size: the general form
    // alone is 200 bytes less, for 5% more instructions on the depthwise layer at "s".
    #[cfg(not(shaped_opt_size))]
    {
        let (m, shift) = rq.parts();
        if matches!(frame.rounding, Rounding::Double) && shift < 0 {
            let (offset, min, max) = (frame.output_offset, frame.min, frame.max);
            if frame.full_range() {
                // No activation: the clamp to `i8` by constants.
                return column(sums, out, step, |s| {
                    multiply_by_quantized_multiplier_double_right(s, m, shift)
                        .wrapping_add(offset)
                        .clamp(i8::MIN.into(), i8::MAX.into()) as i8
                });
            }
            return column(sums, out, step, |s| {
                multiply_by_quantized_multiplier_double_right(s, m, shift)
                    .wrapping_add(offset)
                    .max(min)
                    .min(max) as i8
            });
        }
    }
    let r = &ChannelRequant::new(rq, frame.rounding);
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
