//! int8 `CONV_2D` and `DEPTHWISE_CONV_2D` on x86-64 with SIMD, chosen at run time (feature
//! `std`): the same results as [`quantized`](super::quantized)'s loops, bit for bit (K7).
//!
//! `CONV_2D` is a product of patches and filters, in exact integer arithmetic, so any order of
//! the products gives TFLM's sum (modulo `2^32`, as TFLM's wrapping sum):
//! * With AVX-512 VNNI, `VPDPBUSD` multiplies 64 unsigned bytes by 64 signed ones and adds each
//!   four products to a 32-bit lane. Each input byte `x` enters as `u = x + 128` (its top bit
//!   flipped) and each output channel's sum is `sum u * w + (input_offset - 128) * sum w`, the
//!   same integers as `sum w * (x + input_offset)`. A tap outside the input is
//!   `u = 128 - input_offset`, whose term is 0, as TFLM skips it. The lanes are 16 output
//!   channels; a tile of [`TILE`] output positions by 32 channels keeps 16 accumulators in
//!   registers (12 positions spilled 12 of them).
//! * With AVX2 only, `VPMADDWD` multiplies 16 pairs of 16-bit values and adds each pair into
//!   a 32-bit lane: the patch holds `x + input_offset`, 0 outside the input.
//!
//! The filter is packed by panels of output channels on the stack (four or two weights of a
//! lane side by side), so nothing is allocated; the requantization runs on the lanes at once
//! for double rounding (TFLM's default), as [`ChannelRequant::apply`] does per value; single
//! rounding takes the scalar one.
//!
//! `DEPTHWISE_CONV_2D` (multiplier 1): the channels are the lanes, each tap's weights widened
//! once per block of channels.
//! * With AVX-512, blocks of 16 channels; with at most 8 channels, two output positions
//!   whose windows are whole share a vector (the 48x48x8 layer, from 9-12x the loop
//!   nest to 11-22x in three interleaved runs on a loaded machine).
//! * With AVX2 only, blocks of 8 channels; where the windows are inside the input, tiles of
//!   8 output positions keep their sums in registers and each tap's weights are read once a
//!   tile, and the input offset's share is added once a row of outputs; with at most 4
//!   channels, two positions share a vector.
//!
//! Measured on the layers (`benches/conv.rs`, `benches/README.md`).

use core::arch::x86_64::*;

use super::blocked::MAX_TERMS;
use super::geometry::Geometry2d;
use super::quantized::{ChannelRequant, ConvFrame};
use super::Nhwc;
use crate::quant::elementwise::Requant;
use crate::quant::Rounding;

/// Output positions per tile of the `CONV_2D` kernel.
const TILE: usize = 8;

/// The most taps (kernel height times width) of the depthwise kernel, whose weights it keeps
/// widened on the stack.
const MAX_TAPS: usize = 64;

/// Output channels per panel: two vectors of 16 lanes.
const PANEL: usize = 32;

/// The most products per output the kernel takes, rounded up to a multiple of 4.
const QUADS: usize = MAX_TERMS.div_ceil(4);

/// The quads of the smaller stack buffers, for filters of at most `4 * SHORT_QUADS` products
/// per output (the 1x1 layer's 128, the 3x3 layer's 144).
const SHORT_QUADS: usize = 64;

/// A `CONV_2D`'s operands but the output: input, its dims, filter, bias, geometry,
/// requantization frame and per-channel multipliers.
type ConvArgs<'a> = (
    &'a [i8],
    &'a Nhwc,
    &'a [i8],
    Option<&'a [i32]>,
    &'a Geometry2d,
    &'a ConvFrame,
    &'a [Requant],
);

/// Whether this CPU runs the `CONV_2D` kernel (AVX-512 F, BW, VL and VNNI).
fn has_vnni() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512vnni")
}

/// Whether this CPU runs the depthwise kernel (AVX-512 F, BW and VL).
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// 16 values as a vector.
#[inline]
#[target_feature(enable = "avx512f")]
fn vector(a: &[i32; 16]) -> __m512i {
    // SAFETY: `a` is 64 readable bytes; an unaligned load.
    unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
}

/// The mask of the first `n` (at most 16) lanes.
#[inline(always)]
fn first(n: usize) -> __mmask16 {
    (((1u32 << n.min(16)) - 1) & 0xFFFF) as __mmask16
}

/// 16 output channels' requantization, clamp and offset, as vectors: [`ConvFrame::finish`]
/// for each lane, for double rounding.
#[derive(Clone, Copy)]
struct Finish {
    multiplier: __m512i,
    left: __m512i,
    right: __m512i,
    mask: __m512i,
    half: __m512i,
    offset: __m512i,
    min: __m512i,
    max: __m512i,
}

/// Double rounding's constants of `L` lanes, lane `l` as channel `o0 + l % period` (those
/// past `requant` as channel 0's, never stored): the multipliers, left shifts, right shifts,
/// masks and halves, a row each; `None` for single rounding.
fn requant_lanes<const L: usize>(
    frame: &ConvFrame,
    requant: &[Requant],
    o0: usize,
    period: usize,
) -> Option<[[i32; L]; 5]> {
    if !matches!(frame.rounding, Rounding::Double) {
        return None;
    }
    let mut lanes = [[0i32; L]; 5];
    for l in 0..L {
        let r = requant.get(o0 + l % period).or(requant.first())?;
        let (m, left, right, mask, half) = ChannelRequant::new(*r, frame.rounding).double()?;
        for (lane, v) in lanes
            .iter_mut()
            .zip([m, left as i32, right as i32, mask, half])
        {
            lane[l] = v;
        }
    }
    Some(lanes)
}

/// The requantization of channels `o0..o0 + 16` (those past `requant` as channel 0's, never
/// stored), or `None` for single rounding.
#[inline]
#[target_feature(enable = "avx512f")]
fn finish_for(frame: &ConvFrame, requant: &[Requant], o0: usize) -> Option<Finish> {
    finish_period(frame, requant, o0, 16)
}

/// [`finish_for`] with lane `l` requantized as channel `o0 + l % period`.
#[inline]
#[target_feature(enable = "avx512f")]
fn finish_period(
    frame: &ConvFrame,
    requant: &[Requant],
    o0: usize,
    period: usize,
) -> Option<Finish> {
    let lanes = requant_lanes::<16>(frame, requant, o0, period)?;
    let v = vector;
    Some(Finish {
        multiplier: v(&lanes[0]),
        left: v(&lanes[1]),
        right: v(&lanes[2]),
        mask: v(&lanes[3]),
        half: v(&lanes[4]),
        offset: _mm512_set1_epi32(frame.output_offset),
        min: _mm512_set1_epi32(frame.min),
        max: _mm512_set1_epi32(frame.max),
    })
}

/// `acc` requantized (double rounding, [`ChannelRequant::apply`] per lane), offset and
/// clamped, as 16 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn finish16(acc: __m512i, f: &Finish) -> __m128i {
    let shifted = _mm512_sllv_epi32(acc, f.left);
    let nudge = _mm512_set1_epi64(1 << 30);
    // The 64-bit products of the even lanes, then of the odd ones moved down.
    let even = _mm512_add_epi64(_mm512_mul_epi32(shifted, f.multiplier), nudge);
    let odd = _mm512_add_epi64(
        _mm512_mul_epi32(
            _mm512_srli_epi64::<32>(shifted),
            _mm512_srli_epi64::<32>(f.multiplier),
        ),
        nudge,
    );
    let even = _mm512_srai_epi64::<31>(even);
    let odd = _mm512_slli_epi64::<32>(_mm512_srai_epi64::<31>(odd));
    let high = _mm512_mask_blend_epi32(0xAAAA, even, odd);
    // `rounding_divide_by_pot(high, right)`: up by one where the dropped bits pass half
    // (half plus one below zero).
    let threshold = _mm512_add_epi32(f.half, _mm512_srli_epi32::<31>(high));
    let up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(high, f.mask), threshold);
    let q = _mm512_srav_epi32(high, f.right);
    let q = _mm512_mask_sub_epi32(q, up, q, _mm512_set1_epi32(-1));
    let v = _mm512_add_epi32(q, f.offset);
    let v = _mm512_min_epi32(_mm512_max_epi32(v, f.min), f.max);
    _mm512_cvtepi32_epi8(v)
}

/// Writes the `width` (at most 16) first bytes of `v` to `out`, or, without a vector
/// requantization, each lane of `acc` finished by [`ConvFrame::finish`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn store16(
    out: &mut [i8],
    acc: __m512i,
    finish: Option<&Finish>,
    (frame, requant, o0): (&ConvFrame, &[Requant], usize),
) {
    let width = out.len().min(16);
    match finish {
        Some(f) => {
            let v = finish16(acc, f);
            // SAFETY: the mask covers the first `width` bytes of `out`, all in bounds; a
            // masked store writes (and faults on) no others.
            unsafe { _mm_mask_storeu_epi8(out.as_mut_ptr(), first(width), v) };
        }
        None => {
            let mut sums = [0i32; 16];
            // SAFETY: `sums` is 64 writable bytes; an unaligned store.
            unsafe { _mm512_storeu_si512(sums.as_mut_ptr().cast(), acc) };
            for (l, (o, &s)) in out[..width].iter_mut().zip(&sums).enumerate() {
                *o = frame.finish(s, requant[o0 + l]);
            }
        }
    }
}

/// `CONV_2D` on `i8` (K7) if this CPU has the kernel's instructions and the kernel takes
/// the shape (at most [`MAX_TERMS`] products per output); `false`, with `out` untouched,
/// otherwise.
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
) -> bool {
    let [kh, kw] = g.kernel();
    let terms = kh * kw * dims.in_channels;
    if terms == 0 || terms > MAX_TERMS {
        return false;
    }
    if has_vnni() {
        let bufs = (x, dims, w, bias, g, frame, requant);
        // The stack buffers are zeroed on every call: sized for the most terms, zeroing
        // them took 4% of the 1x1 layer's time (40 KB), so short filters take small ones.
        if terms <= 4 * SHORT_QUADS {
            let mut panel = [0u32; PANEL * SHORT_QUADS];
            let mut patch = [0i8; TILE * 4 * SHORT_QUADS];
            // SAFETY: the CPU has AVX-512 F, BW, VL and VNNI, checked just now.
            unsafe { conv2d_vnni(bufs, &mut panel, &mut patch, out) };
        } else {
            let mut panel = [0u32; PANEL * QUADS];
            let mut patch = [0i8; TILE * 4 * QUADS];
            // SAFETY: as above.
            unsafe { conv2d_vnni(bufs, &mut panel, &mut patch, out) };
        }
        return true;
    }
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just now.
        unsafe { conv2d_avx2(x, dims, w, bias, g, frame, requant, out) };
        return true;
    }
    false
}

/// The kernel of [`conv2d`].
///
/// `panel` holds at least `PANEL * terms.div_ceil(4)` words and `patch` `TILE * 4` times as
/// many bytes: the caller's stack buffers.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn conv2d_vnni(
    (x, dims, w, bias, g, frame, requant): ConvArgs,
    panel: &mut [u32],
    patch: &mut [i8],
    out: &mut [i8],
) {
    let oc = dims.out_channels;
    let [kh, kw] = g.kernel();
    let [oh, ow] = g.output();
    let terms = kh * kw * dims.in_channels;
    let quads = terms.div_ceil(4);
    let positions = dims.batch * oh * ow;
    // Gathered patch bytes are `u = x + 128` (each top bit flipped); a tap outside the input
    // is the byte whose term is 0 (`u - 128 + offset = 0`).
    let pad = (128 - frame.input_offset) as u8 as i8;
    // The filter panel: `panel[(b * quads + q) * 16 + l]` is weights `4q..4q + 4` of
    // channel `o0 + 16b + l` (as little-endian bytes), 0 past the terms or the channels.
    // Patches: `patch[p * 4 * quads + k]` is tap `k` of position `p`.
    let stride = 4 * quads;
    let (input_quads, _) = x.as_chunks::<4>();
    // A 1x1 kernel's patch is one pixel's channels, read in place when they are whole quads
    // (gathering them took 12% of the 1x1 layer's time); such a kernel never pads, each
    // axis's output being `ceil(in / stride)` or fewer.
    let in_place = kh == 1 && kw == 1 && dims.in_channels % 4 == 0 && g.pad_before() == [0, 0];
    let mut o0 = 0;
    while o0 < oc {
        let channels = PANEL.min(oc - o0);
        // Pack the panel and each channel's constant: the bias plus the offset's share.
        let sums = pack_panel(&w[o0 * terms..(o0 + channels) * terms], terms, panel);
        let mut constant = [0i32; PANEL];
        for (l, c) in constant.iter_mut().enumerate().take(channels) {
            *c = bias
                .map_or(0, |b| b[o0 + l])
                .wrapping_add((frame.input_offset - 128).wrapping_mul(sums[l]));
        }
        let finish = [
            finish_for(frame, requant, o0),
            finish_for(frame, requant, o0 + 16),
        ];
        let (low, high) = constant.split_at(16);
        let constants = [low, high].map(|half| vector(half.try_into().unwrap_or(&[0; 16])));
        let blocks = channels.div_ceil(16);
        let mut start = 0;
        while start < positions {
            let count = TILE.min(positions - start);
            let mut acc = [[_mm512_setzero_si512(); 2]; TILE];
            if in_place {
                // Position `start + p`'s pixel, counted along the output rows (a division per
                // position took 15% of the 1x1 layer's time). Positions past the tile repeat
                // its last; their sums are not stored.
                let [ih, iw] = g.input();
                let [sy, sx] = g.strides();
                let (n, rest) = (start / (oh * ow), start % (oh * ow));
                let (mut n, mut oy, mut ox) = (n, rest / ow, rest % ow);
                let mut rows = [&input_quads[..0]; TILE];
                for (p, row) in rows.iter_mut().enumerate() {
                    let pixel = (n * ih + oy * sy) * iw + ox * sx;
                    *row = &input_quads[pixel * quads..][..quads];
                    if p + 1 < count {
                        ox += 1;
                        if ox == ow {
                            (ox, oy) = (0, oy + 1);
                            if oy == oh {
                                (oy, n) = (0, n + 1);
                            }
                        }
                    }
                }
                // The input's bytes, their top bits flipped as they are broadcast.
                tiles::<true>(blocks, panel, |p, q| rows[p][q], quads, &mut acc);
            } else {
                for p in 0..count {
                    let row = &mut patch[p * stride..(p + 1) * stride];
                    gather(x, dims, g, start + p, row, pad, |v| {
                        ((v as u8) ^ 0x80) as i8
                    });
                }
                // Flipped when gathered, and read at one stride from one base: flipping them
                // at the broadcast, and a slice a position, cost the 3x3 layer 10% (spilled
                // pointers, a scalar load, xor and move where a broadcast load was).
                let (patch_quads, _) = patch.as_chunks::<4>();
                let row = |p: usize, q: usize| patch_quads[p * quads + q];
                tiles::<false>(blocks, panel, row, quads, &mut acc);
            }
            for (p, sums) in acc.iter().enumerate().take(count) {
                let base = (start + p) * oc + o0;
                for b in 0..blocks {
                    let lo = base + 16 * b;
                    let hi = base + channels;
                    let v = _mm512_add_epi32(sums[b], constants[b]);
                    store16(
                        &mut out[lo..hi],
                        v,
                        finish[b].as_ref(),
                        (frame, requant, o0 + 16 * b),
                    );
                }
            }
            start += count;
        }
        o0 += channels;
    }
}

/// Packs the filter rows `w` (each `terms` long, at most [`PANEL`] of them) into `panel` as
/// the kernel reads it, and returns each row's sum of weights (0 past the rows). Blocks of
/// 16 whole rows are moved 16 quads at a time through registers; the rest word by word.
/// Word by word, packing took 11% of the 1x1 layer's time, and summing the rows 7%.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn pack_panel(w: &[i8], terms: usize, panel: &mut [u32]) -> [i32; PANEL] {
    let quads = terms.div_ceil(4);
    let rows = w.len() / terms;
    let mut sums = [0i32; PANEL];
    for b in 0..rows.div_ceil(16) {
        let block = &mut panel[b * quads * 16..(b + 1) * quads * 16];
        let lanes = 16.min(rows - 16 * b);
        // The quads that 16-quad loads cover within each of 16 rows.
        let fast = if lanes == 16 { terms / 64 * 16 } else { 0 };
        for q0 in (0..fast).step_by(16) {
            let r: [__m512i; 16] = core::array::from_fn(|l| {
                let bytes = &w[(16 * b + l) * terms + 4 * q0..][..64];
                // SAFETY: `bytes` is 64 readable bytes; an unaligned load.
                unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
            });
            for (q, v) in transpose16(r).into_iter().enumerate() {
                let words = &mut block[(q0 + q) * 16..][..16];
                // SAFETY: `words` is 64 writable bytes; an unaligned store.
                unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), v) };
            }
        }
        for l in 0..16 {
            let words = block[fast * 16..].iter_mut().skip(l).step_by(16);
            if l >= lanes {
                words.for_each(|v| *v = 0);
                continue;
            }
            let row = &w[(16 * b + l) * terms..][..terms];
            pack_lane(&row[4 * fast..], words, |[a, b, c, d]: [i8; 4]| {
                u32::from_le_bytes([a as u8, b as u8, c as u8, d as u8])
            });
        }
        // Each lane's sum of weights: the packed words against bytes of 1.
        let ones = _mm512_set1_epi8(1);
        let mut sum = _mm512_setzero_si512();
        for words in block.chunks_exact(16) {
            // SAFETY: `words` is 64 readable bytes; an unaligned load.
            let v = unsafe { _mm512_loadu_si512(words.as_ptr().cast()) };
            sum = _mm512_dpbusd_epi32(sum, ones, v);
        }
        let lane_sums = &mut sums[16 * b..16 * b + 16];
        // SAFETY: `lane_sums` is 64 writable bytes; an unaligned store.
        unsafe { _mm512_storeu_si512(lane_sums.as_mut_ptr().cast(), sum) };
    }
    sums
}

/// The 16 x 16 words of `r` transposed: word `l` of vector `q` is word `q` of `r[l]`.
/// Four rounds of in-register shuffles (64 for 256 words).
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose16(r: [__m512i; 16]) -> [__m512i; 16] {
    // Within each 128-bit lane k (words 4k..4k + 4 of a row): rows 2i and 2i + 1 interleaved,
    // words 0 and 1 (`lo`) or 2 and 3 (`hi`).
    let t: [__m512i; 16] = core::array::from_fn(|i| {
        let (a, b) = (r[i & !1], r[i | 1]);
        if i % 2 == 0 {
            _mm512_unpacklo_epi32(a, b)
        } else {
            _mm512_unpackhi_epi32(a, b)
        }
    });
    // `u[4g + j]`: word `4k + j` of rows `4g..4g + 4`, in lane k.
    let u: [__m512i; 16] = core::array::from_fn(|i| {
        let (g, j) = (i / 4, i % 4);
        let (a, b) = (t[4 * g + j / 2], t[4 * g + 2 + j / 2]);
        if j % 2 == 0 {
            _mm512_unpacklo_epi64(a, b)
        } else {
            _mm512_unpackhi_epi64(a, b)
        }
    });
    // Vector `4k + j` gathers lane k of `u[j]`, `u[4 + j]`, `u[8 + j]` and `u[12 + j]`.
    let mut out = [_mm512_setzero_si512(); 16];
    for j in 0..4 {
        let even_low = _mm512_shuffle_i32x4::<0x88>(u[j], u[4 + j]);
        let odd_low = _mm512_shuffle_i32x4::<0xDD>(u[j], u[4 + j]);
        let even_high = _mm512_shuffle_i32x4::<0x88>(u[8 + j], u[12 + j]);
        let odd_high = _mm512_shuffle_i32x4::<0xDD>(u[8 + j], u[12 + j]);
        out[j] = _mm512_shuffle_i32x4::<0x88>(even_low, even_high);
        out[8 + j] = _mm512_shuffle_i32x4::<0xDD>(even_low, even_high);
        out[4 + j] = _mm512_shuffle_i32x4::<0x88>(odd_low, odd_high);
        out[12 + j] = _mm512_shuffle_i32x4::<0xDD>(odd_low, odd_high);
    }
    out
}

/// Packs one lane of a filter panel: `words` (every lane's stride apart) get the weights of
/// `row` by groups of `G`, each group made a word by `word`, the last group padded with 0.
#[inline(always)]
fn pack_lane<'a, const G: usize>(
    row: &[i8],
    words: impl Iterator<Item = &'a mut u32>,
    word: impl Fn([i8; G]) -> u32,
) {
    let whole = row.chunks_exact(G);
    let mut last = [0i8; G];
    last[..whole.remainder().len()].copy_from_slice(whole.remainder());
    let tail = (!whole.remainder().is_empty()).then_some(last);
    let groups = whole.map(|c| {
        let mut g = [0i8; G];
        g.copy_from_slice(c);
        g
    });
    for (v, group) in words.zip(groups.chain(tail)) {
        *v = word(group);
    }
}

/// The patch of output position `at`: `row[k]` is tap `k` of TFLite's sum (kernel row,
/// column, then input channel) made a patch value by `value`, `pad` for a tap outside the
/// input, and the default (a zero term against the panel's zero weights) past the taps.
#[inline(always)]
fn gather<E: Copy + Default>(
    x: &[i8],
    dims: &Nhwc,
    g: &Geometry2d,
    at: usize,
    row: &mut [E],
    pad: E,
    value: impl Fn(i8) -> E,
) {
    let ic = dims.in_channels;
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dy, dx] = g.dilations();
    let (n, rest) = (at / (oh * ow), at % (oh * ow));
    let (oy, ox) = (rest / ow, rest % ow);
    let (y0, y1, ybase) = g.taps(0, oy);
    let (x0, x1, xbase) = g.taps(1, ox);
    for i in 0..kh {
        for j in 0..kw {
            let dst = &mut row[(i * kw + j) * ic..][..ic];
            if i < y0 || i >= y1 || j < x0 || j >= x1 {
                dst.fill(pad);
                continue;
            }
            let iy = (ybase + (i * dy) as isize) as usize;
            let ix = (xbase + (j * dx) as isize) as usize;
            let px = ((n * ih + iy) * iw + ix) * ic;
            for (d, &v) in dst.iter_mut().zip(&x[px..px + ic]) {
                *d = value(v);
            }
        }
    }
    row[kh * kw * ic..].fill(E::default());
}

/// [`tile`] over `blocks` (1 or 2) vectors of channels.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn tiles<const FLIP: bool>(
    blocks: usize,
    panel: &[u32],
    rows: impl Fn(usize, usize) -> [i8; 4],
    quads: usize,
    acc: &mut [[__m512i; 2]; TILE],
) {
    if blocks == 2 {
        tile::<2, FLIP>(panel, rows, quads, acc);
    } else {
        tile::<1, FLIP>(panel, rows, quads, acc);
    }
}

/// The sums of a tile: `acc[p][b]` gains, for each quad `q`, the four products of position
/// `p`'s taps `4q..4q + 4` (as `u`, or as `x` whose top bits `FLIP` flips) with lane channel
/// `16b + l`'s weights.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn tile<const B: usize, const FLIP: bool>(
    panel: &[u32],
    rows: impl Fn(usize, usize) -> [i8; 4],
    quads: usize,
    acc: &mut [[__m512i; 2]; TILE],
) {
    // Each block's vectors as slices of `quads` items, as the rows are, so that the loop's
    // indices need no bounds checks (with plain slice indexing, assembling each quad from
    // checked bytes cost the 1x1 layer a quarter of its rate).
    let (vectors, _) = panel.as_chunks::<16>();
    let blocks: [&[[u32; 16]]; B] = core::array::from_fn(|b| &vectors[b * quads..][..quads]);
    let mut sums = [[_mm512_setzero_si512(); B]; TILE];
    for q in 0..quads {
        let mut ws = [_mm512_setzero_si512(); B];
        for (v, block) in ws.iter_mut().zip(&blocks) {
            // SAFETY: `block[q]` is 64 readable bytes; an unaligned load.
            *v = unsafe { _mm512_loadu_si512(block[q].as_ptr().cast()) };
        }
        for (p, s) in sums.iter_mut().enumerate() {
            let u = u32::from_le_bytes(rows(p, q).map(|v| v as u8));
            // `u = x + 128`: each byte's top bit flipped.
            let u = if FLIP { u ^ 0x8080_8080 } else { u };
            let u = _mm512_set1_epi32(u as i32);
            for b in 0..B {
                s[b] = _mm512_dpbusd_epi32(s[b], u, ws[b]);
            }
        }
    }
    for (a, s) in acc.iter_mut().zip(&sums) {
        a[..B].copy_from_slice(s);
    }
}

/// Output positions per tile of the AVX2 `CONV_2D` kernel: 8 accumulators of its 16 registers.
const TILE_AVX2: usize = 4;

/// Output channels per panel of the AVX2 kernel: two vectors of 8 lanes.
const PANEL_AVX2: usize = 16;

/// The [`conv2d`] kernel for CPUs with AVX2 but not AVX-512 VNNI: `VPMADDWD` multiplies 16
/// pairs of 16-bit values and adds each pair into a 32-bit lane, exactly, so the patch holds
/// `x + input_offset` (a tap outside the input 0) and the filter panel pairs of weights.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
fn conv2d_avx2(
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
    let [oh, ow] = g.output();
    let terms = kh * kw * dims.in_channels;
    let pairs = terms.div_ceil(2);
    let positions = dims.batch * oh * ow;
    // `panel[(b * pairs + q) * 8 + l]`: weights `2q, 2q + 1` of channel `o0 + 8b + l`.
    let mut panel = [0u32; PANEL_AVX2 * MAX_TERMS.div_ceil(2)];
    let mut patch = [0i16; TILE_AVX2 * 2 * MAX_TERMS.div_ceil(2)];
    let stride = 2 * pairs;
    let offset = frame.input_offset;
    let mut o0 = 0;
    while o0 < oc {
        let channels = PANEL_AVX2.min(oc - o0);
        for l in 0..PANEL_AVX2 {
            let (b, lane) = (l / 8, l % 8);
            let words = panel[b * pairs * 8..].iter_mut().skip(lane).step_by(8);
            if l >= channels {
                words.take(pairs).for_each(|v| *v = 0);
                continue;
            }
            let row = &w[(o0 + l) * terms..(o0 + l + 1) * terms];
            pack_lane(row, words, |[a, b]: [i8; 2]| {
                (a as i16 as u16 as u32) | ((b as i16 as u16 as u32) << 16)
            });
        }
        let mut constant = [0i32; PANEL_AVX2];
        if let Some(bias) = bias {
            constant[..channels].copy_from_slice(&bias[o0..o0 + channels]);
        }
        let constants = [0, 8].map(|l| {
            // SAFETY: `constant` holds 16 values; 32 readable bytes from `l` (0 or 8).
            unsafe { _mm256_loadu_si256(constant[l..].as_ptr().cast()) }
        });
        let finish = [
            finish_avx2_for(frame, requant, o0),
            finish_avx2_for(frame, requant, o0 + 8),
        ];
        let mut start = 0;
        while start < positions {
            let count = TILE_AVX2.min(positions - start);
            for p in 0..count {
                let row = &mut patch[p * stride..(p + 1) * stride];
                gather(x, dims, g, start + p, row, 0, |v| {
                    (i32::from(v) + offset) as i16
                });
            }
            let mut acc = [[_mm256_setzero_si256(); 2]; TILE_AVX2];
            tile_avx2(&panel, &patch, pairs, &mut acc);
            for (p, sums) in acc.iter().enumerate().take(count) {
                let base = (start + p) * oc + o0;
                for (b, &sum) in sums.iter().enumerate().take(channels.div_ceil(8)) {
                    let v = _mm256_add_epi32(sum, constants[b]);
                    let mut lanes = [0i32; 8];
                    let dst = &mut out[base + 8 * b..base + channels];
                    let width = dst.len().min(8);
                    match &finish[b] {
                        Some(f) => {
                            let v = finish8(v, f);
                            // SAFETY: `lanes` is 32 writable bytes; an unaligned store.
                            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
                            for (d, &s) in dst[..width].iter_mut().zip(&lanes) {
                                *d = s as i8;
                            }
                        }
                        None => {
                            // SAFETY: as above.
                            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
                            let o = o0 + 8 * b;
                            for (l, (d, &s)) in dst[..width].iter_mut().zip(&lanes).enumerate() {
                                *d = frame.finish(s, requant[o + l]);
                            }
                        }
                    }
                }
            }
            start += count;
        }
        o0 += channels;
    }
}

/// 8 output channels' requantization, clamp and offset, as AVX2 vectors ([`Finish`] on 8
/// lanes).
#[derive(Clone, Copy)]
struct Finish8 {
    multiplier: __m256i,
    left: __m256i,
    right: __m256i,
    mask: __m256i,
    half: __m256i,
    offset: __m256i,
    min: __m256i,
    max: __m256i,
}

/// The requantization of channels `o0..o0 + 8` (those past `requant` as channel 0's), or
/// `None` for single rounding.
#[inline]
#[target_feature(enable = "avx2")]
fn finish_avx2_for(frame: &ConvFrame, requant: &[Requant], o0: usize) -> Option<Finish8> {
    finish_avx2_period(frame, requant, o0, 8)
}

/// [`finish_avx2_for`] with lane `l` requantized as channel `o0 + l % period`.
#[inline]
#[target_feature(enable = "avx2")]
fn finish_avx2_period(
    frame: &ConvFrame,
    requant: &[Requant],
    o0: usize,
    period: usize,
) -> Option<Finish8> {
    let lanes = requant_lanes::<8>(frame, requant, o0, period)?;
    // SAFETY: each row of `lanes` is 32 readable bytes; unaligned loads.
    let [m, left, right, mask, half] =
        lanes.map(|a| unsafe { _mm256_loadu_si256(a.as_ptr().cast()) });
    Some(Finish8 {
        multiplier: m,
        left,
        right,
        mask,
        half,
        offset: _mm256_set1_epi32(frame.output_offset),
        min: _mm256_set1_epi32(frame.min),
        max: _mm256_set1_epi32(frame.max),
    })
}

/// [`finish16`] on 8 lanes with AVX2, each value left in its 32-bit lane. AVX2 has no 64-bit
/// arithmetic shift; a logical one leaves the same low 32 bits.
#[inline]
#[target_feature(enable = "avx2")]
fn finish8(acc: __m256i, f: &Finish8) -> __m256i {
    let shifted = _mm256_sllv_epi32(acc, f.left);
    let nudge = _mm256_set1_epi64x(1 << 30);
    let even = _mm256_add_epi64(_mm256_mul_epi32(shifted, f.multiplier), nudge);
    let odd = _mm256_add_epi64(
        _mm256_mul_epi32(
            _mm256_srli_epi64::<32>(shifted),
            _mm256_srli_epi64::<32>(f.multiplier),
        ),
        nudge,
    );
    let even = _mm256_srli_epi64::<31>(even);
    let odd = _mm256_slli_epi64::<32>(_mm256_srli_epi64::<31>(odd));
    let high = _mm256_blend_epi32::<0xAA>(even, odd);
    let threshold = _mm256_add_epi32(f.half, _mm256_srli_epi32::<31>(high));
    // All ones (-1) where the dropped bits round up.
    let up = _mm256_cmpgt_epi32(_mm256_and_si256(high, f.mask), threshold);
    let q = _mm256_sub_epi32(_mm256_srav_epi32(high, f.right), up);
    let v = _mm256_add_epi32(q, f.offset);
    _mm256_min_epi32(_mm256_max_epi32(v, f.min), f.max)
}

/// The sums of an AVX2 tile: `acc[p][b]` gains, for each pair `q`, position `p`'s taps
/// `2q, 2q + 1` times lane channel `8b + l`'s weights.
#[inline]
#[target_feature(enable = "avx2")]
fn tile_avx2(
    panel: &[u32; PANEL_AVX2 * MAX_TERMS.div_ceil(2)],
    patch: &[i16; TILE_AVX2 * 2 * MAX_TERMS.div_ceil(2)],
    pairs: usize,
    acc: &mut [[__m256i; 2]; TILE_AVX2],
) {
    let stride = 2 * pairs;
    for q in 0..pairs {
        let mut ws = [_mm256_setzero_si256(); 2];
        for (b, v) in ws.iter_mut().enumerate() {
            let lanes = &panel[(b * pairs + q) * 8..][..8];
            // SAFETY: `lanes` is 32 readable bytes; an unaligned load.
            *v = unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) };
        }
        for (p, s) in acc.iter_mut().enumerate() {
            let at = p * stride + 2 * q;
            let pair = (patch[at] as u16 as u32) | ((patch[at + 1] as u16 as u32) << 16);
            let u = _mm256_set1_epi32(pair as i32);
            for b in 0..2 {
                s[b] = _mm256_add_epi32(s[b], _mm256_madd_epi16(u, ws[b]));
            }
        }
    }
}

/// `DEPTHWISE_CONV_2D` on `i8` with multiplier 1 (K7), at most [`MAX_TAPS`] taps, if this
/// CPU has AVX-512 or AVX2; `false`, with `out` untouched, otherwise.
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
    let [kh, kw] = g.kernel();
    if dims.in_channels != dims.out_channels || kh * kw > MAX_TAPS {
        return false;
    }
    if has_avx512() {
        // SAFETY: the CPU has AVX-512 F, BW and VL, checked just now.
        unsafe { depthwise_avx512(x, dims, w, bias, g, frame, requant, out) };
        return true;
    }
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just now.
        unsafe { depthwise_avx2(x, dims, w, bias, g, frame, requant, out) };
        return true;
    }
    false
}

/// The kernel of [`depthwise_conv2d`]: the channels as lanes, 16 at a time, each tap a
/// widening load of the input's and the filter's channel runs and a 32-bit multiply-add.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn depthwise_avx512(
    x: &[i8],
    dims: &Nhwc,
    w: &[i8],
    bias: Option<&[i32]>,
    g: &Geometry2d,
    frame: &ConvFrame,
    requant: &[Requant],
    out: &mut [i8],
) {
    let c = dims.in_channels;
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dy, dx] = g.dilations();
    let offset = _mm512_set1_epi32(frame.input_offset);
    let mut c0 = 0;
    while c0 < c {
        let width = 16.min(c - c0);
        let mask = first(width);
        let half = |s: &[i8]| {
            let s = &s[..width];
            // SAFETY: the mask covers the first `width` bytes of `s`, all in bounds; a
            // masked load reads (and faults on) no others.
            unsafe { _mm_maskz_loadu_epi8(mask, s.as_ptr()) }
        };
        let load = |s: &[i8]| _mm512_cvtepi8_epi32(half(s));
        // The block's weights, one vector a tap, widened once.
        let mut taps = [_mm512_setzero_si512(); MAX_TAPS];
        for (t, v) in taps.iter_mut().enumerate().take(kh * kw) {
            *v = load(&w[t * c + c0..]);
        }
        let finish = finish_for(frame, requant, c0);
        let mut b = [0i32; 16];
        if let Some(bias) = bias {
            b[..width].copy_from_slice(&bias[c0..c0 + width]);
        }
        let b = vector(&b);
        // At most 8 channels: the pairs' vectors, lanes `l` and `8 + l` channel `l`.
        let twice = |v: __m128i| _mm512_cvtepi8_epi32(_mm_unpacklo_epi64(v, v));
        let pair = (c <= 8).then(|| {
            let mut taps = [_mm512_setzero_si512(); MAX_TAPS];
            for (t, v) in taps.iter_mut().enumerate().take(kh * kw) {
                *v = twice(half(&w[t * c..]));
            }
            let mut b = [0i32; 16];
            if let Some(bias) = bias {
                b[..c].copy_from_slice(&bias[..c]);
                b[8..8 + c].copy_from_slice(&bias[..c]);
            }
            Pair {
                taps,
                bias: vector(&b),
                finish: finish_period(frame, requant, 0, 8),
            }
        });
        let mut at = 0;
        for n in 0..dims.batch {
            for oy in 0..oh {
                let (y0, y1, ybase) = g.taps(0, oy);
                let mut ox = 0;
                while ox < ow {
                    let (x0, x1, xbase) = g.taps(1, ox);
                    if let (Some(two), true) = (&pair, ox + 1 < ow) {
                        let (x0b, x1b, xbase_b) = g.taps(1, ox + 1);
                        if (x0, x1, x0b, x1b) == (0, kw, 0, kw) {
                            // Both positions' windows are whole: one vector for both.
                            let step = (xbase_b - xbase) as usize * c;
                            let mut acc = two.bias;
                            for i in y0..y1 {
                                let iy = (ybase + (i * dy) as isize) as usize;
                                let mut px = ((n * ih + iy) * iw + xbase as usize) * c;
                                for f in &two.taps[i * kw..(i + 1) * kw] {
                                    let v =
                                        _mm_unpacklo_epi64(half(&x[px..]), half(&x[px + step..]));
                                    let v = _mm512_add_epi32(_mm512_cvtepi8_epi32(v), offset);
                                    acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(v, *f));
                                    px += dx * c;
                                }
                            }
                            let o = at * c;
                            store_pair(
                                &mut out[o..o + 2 * c],
                                acc,
                                two.finish.as_ref(),
                                (frame, requant),
                            );
                            at += 2;
                            ox += 2;
                            continue;
                        }
                    }
                    let mut acc = b;
                    for i in y0..y1 {
                        let iy = (ybase + (i * dy) as isize) as usize;
                        let ix = (xbase + (x0 * dx) as isize) as usize;
                        let mut px = ((n * ih + iy) * iw + ix) * c + c0;
                        for f in &taps[i * kw + x0..i * kw + x1] {
                            let v = _mm512_add_epi32(load(&x[px..]), offset);
                            acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(v, *f));
                            px += dx * c;
                        }
                    }
                    let o = at * c + c0;
                    store16(
                        &mut out[o..o + width],
                        acc,
                        finish.as_ref(),
                        (frame, requant, c0),
                    );
                    at += 1;
                    ox += 1;
                }
            }
        }
        c0 += width;
    }
}

/// The depthwise kernel's form for at most 8 channels: two output positions a vector, lanes
/// `0..8` and `8..16`, each tap's weights twice.
struct Pair {
    taps: [__m512i; MAX_TAPS],
    bias: __m512i,
    finish: Option<Finish>,
}

/// Writes two positions' outputs of `c = out.len() / 2` channels each, from lanes `0..c`
/// and `8..8 + c` of `acc`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn store_pair(
    out: &mut [i8],
    acc: __m512i,
    finish: Option<&Finish>,
    (frame, requant): (&ConvFrame, &[Requant]),
) {
    let c = out.len() / 2;
    let (a, b) = out.split_at_mut(c);
    match finish {
        Some(f) => {
            let v = finish16(acc, f);
            // SAFETY: each mask covers the first `c` bytes of its half of `out`, all in
            // bounds; a masked store writes (and faults on) no others.
            unsafe {
                _mm_mask_storeu_epi8(a.as_mut_ptr(), first(c), v);
                _mm_mask_storeu_epi8(b.as_mut_ptr(), first(c), _mm_bsrli_si128::<8>(v));
            }
        }
        None => {
            let mut sums = [0i32; 16];
            // SAFETY: `sums` is 64 writable bytes; an unaligned store.
            unsafe { _mm512_storeu_si512(sums.as_mut_ptr().cast(), acc) };
            for (l, (p, q)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
                *p = frame.finish(sums[l], requant[l]);
                *q = frame.finish(sums[8 + l], requant[l]);
            }
        }
    }
}

/// The [`depthwise_conv2d`] kernel for CPUs with AVX2 but not AVX-512: [`depthwise_avx512`]
/// on 8 channels a vector (`VPMOVSXBD`, `VPMULLD`), each tap's weights widened once per
/// block of 8 channels. Where the windows' columns are inside the input, tiles of
/// [`TILE_DW`] vectors of positions keep their sums in registers while each tap's weights
/// are read once.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
fn depthwise_avx2(
    x: &[i8],
    dims: &Nhwc,
    w: &[i8],
    bias: Option<&[i32]>,
    g: &Geometry2d,
    frame: &ConvFrame,
    requant: &[Requant],
    out: &mut [i8],
) {
    let c = dims.in_channels;
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dy, dx] = g.dilations();
    let (sx, pad) = (g.strides()[1], g.pad_before()[1]);
    let offset = _mm256_set1_epi32(frame.input_offset);
    // The output columns whose window's columns are all inside the input, a run as the
    // window moves right: there each tap is one load, and `w * (x + offset)` is summed as
    // `w * x` plus the offset times the weights of the rows inside, once a row of outputs.
    let whole = |ox: usize| {
        let (x0, x1, _) = g.taps(1, ox);
        (x0, x1) == (0, kw)
    };
    let xa = (0..ow).find(|&ox| whole(ox)).unwrap_or(ow);
    let xb = (xa..ow).find(|&ox| !whole(ox)).unwrap_or(ow);
    let constants = (w, bias, frame, requant);
    let mut c0 = 0;
    while c0 < c {
        let width = 8.min(c - c0);
        let one = Lanes8::new(constants, [kh, kw], c, c0, width, 8);
        // At most 4 channels: two positions a vector, lanes `0..4` and `4..8`.
        let pair = (c <= 4).then(|| Lanes8::new(constants, [kh, kw], c, 0, c, 4));
        let tiles = Tiles {
            x,
            steps: [dy * iw * c, dx * c, sx * c],
            kw,
            c,
            c0,
            width,
            frame,
            requant,
        };
        for n in 0..dims.batch {
            for oy in 0..oh {
                let (y0, y1, ybase) = g.taps(0, oy);
                let inside = |l: &Lanes8| {
                    let rows = l.rows[y0..y1].iter();
                    rows.fold(l.bias, |s, r| {
                        _mm256_add_epi32(s, _mm256_mullo_epi32(*r, offset))
                    })
                };
                // Where each tile's sums start, with one position a vector or two.
                let sum = inside(&one);
                let sum2 = pair.as_ref().map_or(sum, inside);
                let row = (n * oh + oy) * ow;
                let mut ox = 0;
                while ox < ow {
                    let left = xb.saturating_sub(ox);
                    let o = (row + ox) * c + c0;
                    if y0 < y1 && ox >= xa && left > 0 {
                        let iy = (ybase + (y0 * dy) as isize) as usize;
                        let start = ((n * ih + iy) * iw + ox * sx - pad) * c + c0;
                        let t = (start, y0..y1);
                        let out = &mut out[o..];
                        let stored = match &pair {
                            Some(two) if left >= 2 * TILE_DW => {
                                tiles.tile::<TILE_DW, true>(t, two, sum2, out)
                            }
                            Some(two) if left >= 2 => tiles.tile::<1, true>(t, two, sum2, out),
                            _ if left >= TILE_DW => tiles.tile::<TILE_DW, false>(t, &one, sum, out),
                            _ => tiles.tile::<1, false>(t, &one, sum, out),
                        };
                        if let Some(stored) = stored {
                            ox += stored;
                            continue;
                        }
                    }
                    // A window across the input's edge, or one whose loads would pass the
                    // input's end (fewer than 8 channels left).
                    let mut acc = one.bias;
                    let (x0, x1, xbase) = g.taps(1, ox);
                    for i in y0..y1 {
                        let iy = (ybase + (i * dy) as isize) as usize;
                        let ix = (xbase + (x0 * dx) as isize) as usize;
                        let mut px = ((n * ih + iy) * iw + ix) * c + c0;
                        for f in &one.taps[i * kw + x0..i * kw + x1] {
                            let v = _mm256_add_epi32(widen8(&x[px..], width), offset);
                            acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(v, *f));
                            px += dx * c;
                        }
                    }
                    let finish = one.finish.as_ref();
                    store8(&mut out[o..o + width], acc, finish, (frame, requant, c0));
                    ox += 1;
                }
            }
        }
        c0 += width;
    }
}

/// A block's weights and constants on 8 lanes for [`depthwise_avx2`], lane `l` channel
/// `c0 + l % period`, 0 past `width` channels: each tap's weights, each kernel row's sum,
/// the bias and the requantization.
struct Lanes8 {
    taps: [__m256i; MAX_TAPS],
    rows: [__m256i; MAX_TAPS],
    bias: __m256i,
    finish: Option<Finish8>,
}

impl Lanes8 {
    /// The lanes of channels `c0..c0 + width` of `w`, `bias` and `requant`, `c` channels a
    /// tap, repeated every `period` lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(
        (w, bias, frame, requant): (&[i8], Option<&[i32]>, &ConvFrame, &[Requant]),
        [kh, kw]: [usize; 2],
        c: usize,
        c0: usize,
        width: usize,
        period: usize,
    ) -> Self {
        let channel = |l: usize| (l % period < width).then_some(c0 + l % period);
        let mut taps = [_mm256_setzero_si256(); MAX_TAPS];
        let mut rows = [_mm256_setzero_si256(); MAX_TAPS];
        for (t, v) in taps.iter_mut().enumerate().take(kh * kw) {
            let bytes: [i8; 8] = core::array::from_fn(|l| channel(l).map_or(0, |o| w[t * c + o]));
            *v = widen8(&bytes, 8);
            rows[t / kw] = _mm256_add_epi32(rows[t / kw], *v);
        }
        let b: [i32; 8] = core::array::from_fn(|l| match (channel(l), bias) {
            (Some(o), Some(b)) => b[o],
            _ => 0,
        });
        Lanes8 {
            taps,
            rows,
            // SAFETY: `b` is 32 readable bytes; an unaligned load.
            bias: unsafe { _mm256_loadu_si256(b.as_ptr().cast()) },
            finish: finish_avx2_period(frame, requant, c0, period),
        }
    }
}

/// Output positions (or pairs of them) per tile of the AVX2 depthwise kernel: 8
/// accumulators of its 16 registers.
const TILE_DW: usize = 8;

/// What the tiles of one block of [`depthwise_avx2`] share: the input; the steps between
/// kernel rows, kernel columns and output positions in it; the kernel's width; the channels
/// (`c`, the block's `c0..c0 + width`) and the requantization.
struct Tiles<'a> {
    x: &'a [i8],
    steps: [usize; 3],
    kw: usize,
    c: usize,
    c0: usize,
    width: usize,
    frame: &'a ConvFrame,
    requant: &'a [Requant],
}

impl Tiles<'_> {
    /// `P` output positions side by side (`P` pairs of them, lanes `0..4` and `4..8`, if
    /// `TWO`) whose windows' columns are inside the input, each from `inside` plus the
    /// products `w * x` of its kernel rows `rows`, stored from `out[0]`: the number of
    /// positions. Tap `(i, j)` of position `p` reads the 8 bytes (4 if `TWO`) at
    /// `start + (i - rows.start) * rs + j * ts + p * ps` (`[rs, ts, ps]` the steps). `None`,
    /// nothing read or written, where the last of those would pass the end of the input
    /// (fewer than 8 channels at its end).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn tile<const P: usize, const TWO: bool>(
        &self,
        (start, rows): (usize, core::ops::Range<usize>),
        lanes: &Lanes8,
        inside: __m256i,
        out: &mut [i8],
    ) -> Option<usize> {
        let (x, [rs, ts, ps], kw) = (self.x, self.steps, self.kw);
        let (per, bytes) = if TWO { (2, 4) } else { (1, 8) };
        let last = start + (rows.len().checked_sub(1)?) * rs + (kw - 1) * ts;
        let last = last + (per * P - 1) * ps;
        if last + bytes > x.len() {
            return None;
        }
        let mut acc = [inside; P];
        let taps = &lanes.taps[rows.start * kw..rows.end * kw];
        for (i, row) in taps.chunks_exact(kw).enumerate() {
            for (j, f) in row.iter().enumerate() {
                let at = start + i * rs + j * ts;
                for (p, a) in acc.iter_mut().enumerate() {
                    let at = at + per * p * ps;
                    let v = if TWO && ps != 4 {
                        // SAFETY: the 4 bytes from `at` and from `at + ps` are in `x`, as
                        // `at + ps <= last` and `last + 4 <= x.len()`, checked above.
                        // Unaligned reads.
                        let [a, b] = unsafe {
                            [at, at + ps]
                                .map(|i| core::ptr::read_unaligned(x.as_ptr().add(i).cast()))
                        };
                        _mm_insert_epi32::<1>(_mm_cvtsi32_si128(a), b)
                    } else {
                        // SAFETY: the 8 bytes from `at` are in `x`: `at <= last` and `last + 8
                        // <= x.len()`, or, two positions' 4 side by side (`ps` 4), `at + ps
                        // <= last` and `last + 4 <= x.len()`, checked above. `MOVQ` reads
                        // those bytes and no others.
                        unsafe { _mm_loadl_epi64(x.as_ptr().add(at).cast()) }
                    };
                    let v = _mm256_mullo_epi32(_mm256_cvtepi8_epi32(v), *f);
                    *a = _mm256_add_epi32(*a, v);
                }
            }
        }
        let (c, width) = (self.c, self.width);
        for (p, a) in acc.iter().enumerate() {
            // Position `p`'s channels, and its pair's if `TWO` (`width` is then `c`).
            let (lo, hi) = out[per * p * c..][..(per - 1) * c + width].split_at_mut(width);
            match &lanes.finish {
                Some(f) => {
                    let b = finish_bytes(*a, f);
                    copy8(lo, b);
                    copy8(hi, b >> 32);
                }
                None => finish_lanes(lo, hi, *a, (self.frame, self.requant, self.c0)),
            }
        }
        Some(per * P)
    }
}

/// The first 8 bytes of `s` as 32-bit lanes, or, if `s` is shorter, its first `width` (at
/// most 8) and 0 past them; nothing past `s` is read. Lanes past `width` are bytes of the
/// next channels or pixels where `s` goes on: only weights of 0 meet them, and they are
/// never stored.
#[inline]
#[target_feature(enable = "avx2")]
fn widen8(s: &[i8], width: usize) -> __m256i {
    let v = match s.first_chunk::<8>() {
        // SAFETY: `eight` is 8 readable bytes; `MOVQ` reads those and no others.
        Some(eight) => unsafe { _mm_loadl_epi64(eight.as_ptr().cast()) },
        None => {
            let mut tail = [0i8; 8];
            tail[..width].copy_from_slice(&s[..width]);
            // SAFETY: as above, of `tail`.
            unsafe { _mm_loadl_epi64(tail.as_ptr().cast()) }
        }
    };
    _mm256_cvtepi8_epi32(v)
}

/// Writes lanes `0..out.len()` (at most 8) of `acc` to `out`, requantized by [`finish8`],
/// or, without a vector requantization, each by [`ConvFrame::finish`] as channel `c0 + l`.
#[inline]
#[target_feature(enable = "avx2")]
fn store8(
    out: &mut [i8],
    acc: __m256i,
    finish: Option<&Finish8>,
    constants: (&ConvFrame, &[Requant], usize),
) {
    match finish {
        Some(f) => copy8(out, finish_bytes(acc, f)),
        None => finish_lanes(out, &mut [], acc, constants),
    }
}

/// The lanes of `acc` requantized by [`finish8`], as 8 bytes (little-endian).
#[inline]
#[target_feature(enable = "avx2")]
fn finish_bytes(acc: __m256i, f: &Finish8) -> i64 {
    // The lanes are clamped to `i8` already: the saturating packs keep them.
    let v = finish8(acc, f);
    let words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    _mm_cvtsi128_si64(_mm_packs_epi16(words, words))
}

/// The sums of `acc` without a vector requantization (single rounding), out of line: lanes
/// `0..` to `a` and `4..` to `b`, each finished by [`ConvFrame::finish`] as channel `c0 + l`.
#[inline(never)]
#[target_feature(enable = "avx2")]
fn finish_lanes(
    a: &mut [i8],
    b: &mut [i8],
    acc: __m256i,
    (frame, requant, c0): (&ConvFrame, &[Requant], usize),
) {
    let mut sums = [0i32; 8];
    // SAFETY: `sums` is 32 writable bytes; an unaligned store.
    unsafe { _mm256_storeu_si256(sums.as_mut_ptr().cast(), acc) };
    for (l, o) in a.iter_mut().enumerate() {
        *o = frame.finish(sums[l], requant[c0 + l]);
    }
    for (l, o) in b.iter_mut().enumerate() {
        *o = frame.finish(sums[4 + l], requant[c0 + l]);
    }
}

/// The first `out.len()` (at most 8) bytes of `bytes` (little-endian) into `out`, by at most
/// two stores of a power of two bytes: a call to `memcpy` would cost more than the copy.
#[inline(always)]
fn copy8(out: &mut [i8], bytes: i64) {
    let b = bytes.to_le_bytes().map(|b| b as i8);
    let n = out.len();
    if let Some(o) = out.first_chunk_mut::<8>() {
        *o = b;
    } else if n >= 4 {
        out[..4].copy_from_slice(&b[..4]);
        out[n - 4..].copy_from_slice(&b[n - 4..n]);
    } else if n >= 2 {
        out[..2].copy_from_slice(&b[..2]);
        out[n - 2..].copy_from_slice(&b[n - 2..n]);
    } else if n == 1 {
        out[0] = b[0];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conv::{ConvParams, Padding};
    use crate::quant::{Activation, Quant};
    use alloc::vec;
    use alloc::vec::Vec;

    /// A small xorshift generator: the cases are the same on every run.
    struct Gen(u32);

    impl Gen {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            self.next() as usize % n
        }
        fn bytes(&mut self, n: usize) -> Vec<i8> {
            (0..n).map(|_| self.next() as i8).collect()
        }
    }

    /// TFLM's loops, tap by tap: output `o` of position `at` sums
    /// `w[o's tap] * (x[tap] + offset)` over the taps inside the input, then the bias.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        x: &[i8],
        dims: &Nhwc,
        w: &[i8],
        bias: &[i32],
        g: &Geometry2d,
        frame: &ConvFrame,
        requant: &[Requant],
        depthwise: bool,
    ) -> Vec<i8> {
        let (ic, oc) = (dims.in_channels, dims.out_channels);
        let [kh, kw] = g.kernel();
        let [ih, iw] = g.input();
        let [oh, ow] = g.output();
        let [dy, dx] = g.dilations();
        let mut out = Vec::new();
        for n in 0..dims.batch {
            for oy in 0..oh {
                let (y0, y1, ybase) = g.taps(0, oy);
                for ox in 0..ow {
                    let (x0, x1, xbase) = g.taps(1, ox);
                    for o in 0..oc {
                        let mut acc = 0i32;
                        for i in y0..y1 {
                            let iy = (ybase + (i * dy) as isize) as usize;
                            for j in x0..x1 {
                                let ix = (xbase + (j * dx) as isize) as usize;
                                let px = ((n * ih + iy) * iw + ix) * ic;
                                let taps: Vec<(i8, i8)> = if depthwise {
                                    vec![(x[px + o], w[(i * kw + j) * oc + o])]
                                } else {
                                    let pw = ((o * kh + i) * kw + j) * ic;
                                    (0..ic).map(|c| (x[px + c], w[pw + c])).collect()
                                };
                                for (v, f) in taps {
                                    let v = i32::from(v) + frame.input_offset;
                                    acc = acc.wrapping_add(i32::from(f).wrapping_mul(v));
                                }
                            }
                        }
                        out.push(frame.finish(acc.wrapping_add(bias[o]), requant[o]));
                    }
                }
            }
        }
        out
    }

    /// The kernels give the loops' bytes on shapes that exercise their edges: channel counts
    /// off the 16- and 8-lane vectors and the 32-channel panels, kernels whose products are
    /// not a multiple of four, tiles cut short, padding, strides, dilations, both roundings
    /// and every kind of requantization shift.
    #[test]
    fn the_kernels_give_the_loops_bytes() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut rng = Gen(0x9e37_79b9);
        let cases = if cfg!(miri) { 8 } else { 700 };
        // Runs of the dispatched convolution and depthwise kernels, then of the AVX2 ones
        // called directly.
        let mut ran = [0; 4];
        // The depthwise cases that step through every channel count 1..=40 (from 4 down, so
        // that Miri's few cases meet pairs of positions), each with column strides 1, 2 and 3
        // and both roundings: whole 8- and 16-channel blocks, every length of a last, shorter
        // one, and pairs of positions 4 bytes apart or not.
        let mut cycled = 0;
        for case in 0..cases {
            let depthwise = case % 2 == 1;
            let batch = 1 + rng.below(2);
            // Depthwise rows wide enough for whole tiles of the AVX2 kernel (16 positions).
            let (h, w) = (
                1 + rng.below(9),
                1 + rng.below(if depthwise { 40 } else { 9 }),
            );
            let ic = 1 + rng.below(if case % 5 == 0 { 70 } else { 20 });
            let cycle = depthwise && case % 5 != 0;
            let mut ic = if cycle {
                1 + (43 - cycled % 40) % 40
            } else {
                ic
            };
            let oc = if depthwise { ic } else { 1 + rng.below(70) };
            let (mut kh, mut kw) = (1 + rng.below(4), 1 + rng.below(4));
            if case % 6 == 0 {
                // A 1x1 kernel over whole quads of channels: read in place.
                (kh, kw, ic) = (1, 1, 4 * ic.div_ceil(4));
            }
            let padding = if rng.below(2) == 0 {
                Padding::Same
            } else {
                Padding::Valid
            };
            let stride = [1 + rng.below(3), 1 + rng.below(3)];
            let sx = if cycle {
                1 + cycled / 40 % 3
            } else {
                stride[1]
            };
            let params = ConvParams::new(padding)
                .stride([stride[0], sx])
                .dilation([1 + rng.below(2), 1 + rng.below(2)]);
            let Ok(g) = params.window([kh, kw]).resolve([h, w]) else {
                continue;
            };
            let dims = Nhwc {
                batch,
                in_channels: ic,
                out_channels: oc,
            };
            let single = rng.below(4) == 0;
            let single = if cycle { cycled / 120 % 2 == 1 } else { single };
            cycled += cycle as usize;
            let rounding = if single {
                Rounding::Single
            } else {
                Rounding::Double
            };
            let input = Quant::new_const(0.5, rng.below(256) as i32 - 128);
            let output = Quant::new_const(1.0, rng.below(256) as i32 - 128);
            let activation = [Activation::None, Activation::Relu, Activation::Relu6][rng.below(3)];
            let frame = ConvFrame::new(input, output, activation, rounding).unwrap();
            // Multipliers from 2^-20 to 2^3: right shifts, none, and left shifts.
            let requant: Vec<Requant> = (0..oc)
                .map(|_| {
                    let real = (1.0 + rng.below(1000) as f64 / 1000.0)
                        * 2f64.powi(rng.below(24) as i32 - 21);
                    Requant::new(real, rounding, false).unwrap()
                })
                .collect();
            let x = rng.bytes(batch * h * w * ic);
            let filter_len = if depthwise {
                kh * kw * oc
            } else {
                oc * kh * kw * ic
            };
            let f = rng.bytes(filter_len);
            let bias: Vec<i32> = (0..oc).map(|_| rng.next() as i32 >> 12).collect();
            let [oh, ow] = g.output();
            let mut out = vec![0i8; batch * oh * ow * oc];
            let done = if depthwise {
                depthwise_conv2d(&x, &dims, &f, Some(&bias), &g, &frame, &requant, &mut out)
            } else {
                conv2d(&x, &dims, &f, Some(&bias), &g, &frame, &requant, &mut out)
            };
            if !done {
                continue;
            }
            ran[depthwise as usize] += 1;
            let expected = reference(&x, &dims, &f, &bias, &g, &frame, &requant, depthwise);
            assert_eq!(out, expected, "case {case}: {dims:?} {g:?} {rounding:?}");
            // The AVX2 kernels, which the dispatch above passes over where AVX-512 is.
            out.fill(0);
            if depthwise {
                // SAFETY: the CPU has AVX2, checked at the start.
                unsafe {
                    depthwise_avx2(&x, &dims, &f, Some(&bias), &g, &frame, &requant, &mut out)
                };
            } else {
                // SAFETY: as above.
                unsafe { conv2d_avx2(&x, &dims, &f, Some(&bias), &g, &frame, &requant, &mut out) };
            }
            assert_eq!(
                out, expected,
                "AVX2, case {case}: {dims:?} {g:?} {rounding:?}"
            );
            ran[2 + depthwise as usize] += 1;
        }
        // Every kernel ran, and (but under Miri) every channel count, column stride and
        // rounding of the cycle met the AVX2 depthwise kernel.
        assert!(ran.iter().all(|&n| n > 0), "{ran:?}");
        assert!(cfg!(miri) || cycled >= 240, "{cycled}");
    }
}
