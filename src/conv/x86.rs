//! int8 `CONV_2D` and `DEPTHWISE_CONV_2D` on x86-64 CPUs with AVX-512 (with VNNI for
//! `CONV_2D`), checked at run time (feature `std`): the same results as
//! [`quantized`](super::quantized)'s loops, bit for bit (K7).
//!
//! `CONV_2D` is a product of patches and filters. `VPDPBUSD` multiplies 64 unsigned bytes by
//! 64 signed ones and adds each four products to a 32-bit lane, exactly. So each input byte
//! `x` enters as `u = x + 128` (its top bit flipped) and each output channel's sum is
//! `sum u * w + (input_offset - 128) * sum w`, the same integers as TFLM's
//! `sum w * (x + input_offset)` (all of it modulo `2^32`, as TFLM's wrapping sum). A tap
//! outside the input is `u = 128 - input_offset`, whose term is 0, as TFLM skips it. The lanes
//! are 16 output channels: a tile of [`TILE`] output positions by 32 channels keeps 24
//! accumulators in registers; the filter is packed by panels of 32 channels (four weights of
//! a lane side by side) on the stack, so nothing is allocated.
//!
//! The requantization runs on 16 lanes at once for double rounding (TFLM's default), as
//! [`ChannelRequant::apply`] does per value; single rounding takes the scalar one.
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

/// Output channels per panel: two vectors of 16 lanes.
const PANEL: usize = 32;

/// The most products per output the kernel takes, rounded up to a multiple of 4.
const QUADS: usize = MAX_TERMS.div_ceil(4);

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

/// The requantization of channels `o0..o0 + 16` (those past `requant` as channel 0's, never
/// stored), or `None` for single rounding.
#[inline]
#[target_feature(enable = "avx512f")]
fn finish_for(frame: &ConvFrame, requant: &[Requant], o0: usize) -> Option<Finish> {
    if !matches!(frame.rounding, Rounding::Double) {
        return None;
    }
    let mut lanes = [[0i32; 16]; 5];
    for l in 0..16 {
        let r = requant.get(o0 + l).or(requant.first())?;
        let (m, left, right, mask, half) = ChannelRequant::new(*r, frame.rounding).double()?;
        for (lane, v) in lanes
            .iter_mut()
            .zip([m, left as i32, right as i32, mask, half])
        {
            lane[l] = v;
        }
    }
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
    if terms == 0 || terms > MAX_TERMS || !has_vnni() {
        return false;
    }
    // SAFETY: the CPU has AVX-512 F, BW, VL and VNNI, checked just now.
    unsafe { conv2d_vnni(x, dims, w, bias, g, frame, requant, out) };
    true
}

/// The kernel of [`conv2d`].
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn conv2d_vnni(
    x: &[i8],
    dims: &Nhwc,
    w: &[i8],
    bias: Option<&[i32]>,
    g: &Geometry2d,
    frame: &ConvFrame,
    requant: &[Requant],
    out: &mut [i8],
) {
    let (ic, oc) = (dims.in_channels, dims.out_channels);
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dy, dx] = g.dilations();
    let terms = kh * kw * ic;
    let quads = terms.div_ceil(4);
    let positions = dims.batch * oh * ow;
    // A tap outside the input: the byte whose term is 0 (`u - 128 + offset = 0`).
    let pad = (128 - frame.input_offset) as u8;
    // The filter panel: `panel[(b * quads + q) * 16 + l]` is weights `4q..4q + 4` of
    // channel `o0 + 16b + l` (as little-endian bytes), 0 past the terms or the channels.
    let mut panel = [0u32; PANEL * QUADS];
    // Patches: `patch[p * 4 * quads + k]` is tap `k` of position `p` as `u`.
    let mut patch = [0u8; TILE * 4 * QUADS];
    let stride = 4 * quads;
    let mut o0 = 0;
    while o0 < oc {
        let channels = PANEL.min(oc - o0);
        // Pack the panel and each channel's constant: the bias plus the offset's share.
        let mut constant = [0i32; PANEL];
        for l in 0..PANEL {
            let (b, lane) = (l / 16, l % 16);
            let words = panel[b * quads * 16..].iter_mut().skip(lane).step_by(16);
            if l >= channels {
                words.take(quads).for_each(|v| *v = 0);
                continue;
            }
            let row = &w[(o0 + l) * terms..(o0 + l + 1) * terms];
            let whole = row.chunks_exact(4);
            let rest = whole.remainder();
            let mut last = [0u8; 4];
            for (d, &v) in last.iter_mut().zip(rest) {
                *d = v as u8;
            }
            let four =
                |c: &[i8]| u32::from_le_bytes([c[0] as u8, c[1] as u8, c[2] as u8, c[3] as u8]);
            let tail = (!rest.is_empty()).then_some(u32::from_le_bytes(last));
            for (v, word) in words.zip(whole.map(four).chain(tail)) {
                *v = word;
            }
            let sum: i32 = row.iter().map(|&v| i32::from(v)).sum();
            constant[l] = bias
                .map_or(0, |b| b[o0 + l])
                .wrapping_add((frame.input_offset - 128).wrapping_mul(sum));
        }
        let finish = [
            finish_for(frame, requant, o0),
            finish_for(frame, requant, o0 + 16),
        ];
        let mut start = 0;
        while start < positions {
            let count = TILE.min(positions - start);
            // Gather the tile's patches.
            for p in 0..count {
                let at = start + p;
                let (n, rest) = (at / (oh * ow), at % (oh * ow));
                let (oy, ox) = (rest / ow, rest % ow);
                let (y0, y1, ybase) = g.taps(0, oy);
                let (x0, x1, xbase) = g.taps(1, ox);
                let row = &mut patch[p * stride..(p + 1) * stride];
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
                            *d = (v as u8) ^ 0x80;
                        }
                    }
                }
                row[terms..].fill(0);
            }
            let (low, high) = constant.split_at(16);
            let constants = [low, high].map(|half| vector(half.try_into().unwrap_or(&[0; 16])));
            let blocks = channels.div_ceil(16);
            let mut acc = [[_mm512_setzero_si512(); 2]; TILE];
            if blocks == 2 {
                tile::<2>(&panel, &patch, quads, &mut acc);
            } else {
                tile::<1>(&panel, &patch, quads, &mut acc);
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

/// The sums of a tile: `acc[p][b]` gains, for each quad `q`, the four products of position
/// `p`'s taps `4q..4q + 4` with lane channel `16b + l`'s weights.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn tile<const B: usize>(
    panel: &[u32; PANEL * QUADS],
    patch: &[u8; TILE * 4 * QUADS],
    quads: usize,
    acc: &mut [[__m512i; 2]; TILE],
) {
    let stride = 4 * quads;
    let mut sums = [[_mm512_setzero_si512(); B]; TILE];
    for q in 0..quads {
        let mut ws = [_mm512_setzero_si512(); B];
        for (b, v) in ws.iter_mut().enumerate() {
            let lanes = &panel[(b * quads + q) * 16..][..16];
            // SAFETY: `lanes` is 64 readable bytes; an unaligned load.
            *v = unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) };
        }
        for (p, s) in sums.iter_mut().enumerate() {
            let at = p * stride + 4 * q;
            let four = [patch[at], patch[at + 1], patch[at + 2], patch[at + 3]];
            let u = _mm512_set1_epi32(i32::from_le_bytes(four));
            for b in 0..B {
                s[b] = _mm512_dpbusd_epi32(s[b], u, ws[b]);
            }
        }
    }
    for (a, s) in acc.iter_mut().zip(&sums) {
        a[..B].copy_from_slice(s);
    }
}

/// `DEPTHWISE_CONV_2D` on `i8` with multiplier 1 (K7) if this CPU has AVX-512; `false`,
/// with `out` untouched, otherwise.
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
    if dims.in_channels != dims.out_channels || !has_avx512() {
        return false;
    }
    // SAFETY: the CPU has AVX-512 F, BW and VL, checked just now.
    unsafe { depthwise_avx512(x, dims, w, bias, g, frame, requant, out) };
    true
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
    let kw = g.kernel()[1];
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dy, dx] = g.dilations();
    let offset = _mm512_set1_epi32(frame.input_offset);
    let mut c0 = 0;
    while c0 < c {
        let width = 16.min(c - c0);
        let finish = finish_for(frame, requant, c0);
        let mut b = [0i32; 16];
        if let Some(bias) = bias {
            b[..width].copy_from_slice(&bias[c0..c0 + width]);
        }
        let b = vector(&b);
        let mask = first(width);
        let load = |s: &[i8]| {
            let s = &s[..width];
            // SAFETY: the mask covers the first `width` bytes of `s`, all in bounds; a
            // masked load reads (and faults on) no others.
            _mm512_cvtepi8_epi32(unsafe { _mm_maskz_loadu_epi8(mask, s.as_ptr()) })
        };
        let mut at = 0;
        for n in 0..dims.batch {
            for oy in 0..oh {
                let (y0, y1, ybase) = g.taps(0, oy);
                for ox in 0..ow {
                    let (x0, x1, xbase) = g.taps(1, ox);
                    let mut acc = _mm512_setzero_si512();
                    for i in y0..y1 {
                        let iy = (ybase + (i * dy) as isize) as usize;
                        for j in x0..x1 {
                            let ix = (xbase + (j * dx) as isize) as usize;
                            let px = ((n * ih + iy) * iw + ix) * c + c0;
                            let pw = (i * kw + j) * c + c0;
                            let v = _mm512_add_epi32(load(&x[px..]), offset);
                            let f = load(&w[pw..]);
                            acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(v, f));
                        }
                    }
                    let acc = _mm512_add_epi32(acc, b);
                    let o = at * c + c0;
                    store16(
                        &mut out[o..o + width],
                        acc,
                        finish.as_ref(),
                        (frame, requant, c0),
                    );
                    at += 1;
                }
            }
        }
        c0 += width;
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
    /// off the 16-lane vectors and the 32-channel panels, kernels whose products are not a
    /// multiple of four, tiles cut short, padding, strides, dilations, both roundings and
    /// every kind of requantization shift.
    #[test]
    fn the_kernels_give_the_loops_bytes() {
        if !has_avx512() {
            return;
        }
        let mut rng = Gen(0x9e37_79b9);
        let cases = if cfg!(miri) { 6 } else { 400 };
        let mut ran = [0; 2];
        for case in 0..cases {
            let depthwise = case % 2 == 1;
            let batch = 1 + rng.below(2);
            let (h, w) = (1 + rng.below(9), 1 + rng.below(9));
            let ic = 1 + rng.below(if case % 5 == 0 { 70 } else { 20 });
            let oc = if depthwise { ic } else { 1 + rng.below(70) };
            let (kh, kw) = (1 + rng.below(4), 1 + rng.below(4));
            let padding = if rng.below(2) == 0 {
                Padding::Same
            } else {
                Padding::Valid
            };
            let params = ConvParams::new(padding)
                .stride([1 + rng.below(3), 1 + rng.below(3)])
                .dilation([1 + rng.below(2), 1 + rng.below(2)]);
            let Ok(g) = params.window([kh, kw]).resolve([h, w]) else {
                continue;
            };
            let dims = Nhwc {
                batch,
                in_channels: ic,
                out_channels: oc,
            };
            let rounding = if rng.below(4) == 0 {
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
        }
        // Both kernels ran (the convolution only where the CPU has VNNI).
        assert!(ran[1] > 0 && (ran[0] > 0 || !has_vnni()), "{ran:?}");
    }
}
