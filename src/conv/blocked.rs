//! The convolutions' fast loops (K5, K7), with the same results as the direct ones in
//! `float.rs` and `quantized.rs`.
//!
//! `CONV_2D`: a block of [`PIXELS`] output positions has its input taps gathered into a
//! transposed patch (`patch[k][p]`, `k` the tap-major index of TFLite's sum, `p` the position),
//! then each output channel runs `acc[p] += patch[k][p] * w[o][k]` over `k` with the positions
//! as vector lanes: each output still sums its products in TFLite's order, from 0, so a float
//! result keeps its bits, while the loop over `p` vectorizes (the direct loop sums one output at
//! a time along a short channel run, and a float sum cannot be reordered). A tap outside the
//! input is a 0 in the patch: an integer sum is unchanged, and a float one too, since its
//! total starts at `+0.0` and so is never `-0.0`, and `0 * w` is `±0` for a finite `w` (a
//! filter with an infinite or NaN weight takes the direct loop, whose skipped taps multiply
//! nothing).
//!
//! `DEPTHWISE_CONV_2D` with multiplier 1: the channels are the lanes, `acc[c] += x[.., c] *
//! w[tap][c]`, tap by tap, in blocks of [`CHANNELS`].
//!
//! Measured on the 3x3 24x24x16 -> 32 layer (`benches/conv.rs`, x86-64 with SSE2 only):
//! see `benches/README.md`.

use super::float::ConvFloat;
use super::geometry::Geometry2d;
use super::Nhwc;

/// Output positions per block: the vector lanes of the `CONV_2D` loop.
pub(crate) const PIXELS: usize = 8;

/// The most products per output the patch holds (`kh * kw * channels`); longer kernels take
/// the direct loop. The patch is `PIXELS * MAX_TERMS` values on the stack: 32 KB of `f32` on
/// 64-bit targets, 4 KB on 32-bit ones, whose stacks are small.
#[cfg(target_pointer_width = "64")]
pub(crate) const MAX_TERMS: usize = 1024;
#[cfg(not(target_pointer_width = "64"))]
pub(crate) const MAX_TERMS: usize = 128;

/// Channels per block of the depthwise loop.
pub(crate) const CHANNELS: usize = 64;

/// What a patch holds: floats as they are, int8 values with the input offset added (as `i32`).
pub trait Lane: Copy + Default {
    /// Whether the `CONV_2D` loop runs four output channels at a time: it pays where a
    /// multiply is one instruction (floats), not for 32-bit integers on x86-64's baseline
    /// SSE2, which has no such multiply (int8's 3x3 layer went from 4.2 to 1.9 Gelem/s).
    const FOUR: bool;
    /// `a + b * c`, in the element's arithmetic (wrapping for integers).
    fn mul_add(a: Self, b: Self, c: Self) -> Self;
}

impl Lane for f32 {
    const FOUR: bool = true;
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        a + b * c
    }
}

impl Lane for f64 {
    const FOUR: bool = true;
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        a + b * c
    }
}

impl Lane for i32 {
    const FOUR: bool = false;
    #[inline(always)]
    fn mul_add(a: Self, b: Self, c: Self) -> Self {
        a.wrapping_add(b.wrapping_mul(c))
    }
}

/// Whether the blocked `CONV_2D` loop takes a kernel of `terms` products per output.
#[inline(always)]
pub(crate) fn fits(terms: usize) -> bool {
    terms > 0 && terms <= MAX_TERMS
}

/// `CONV_2D` by blocks of output positions: `load(i)` is input element `i` as a lane value,
/// `weight(i)` filter element `i`, `store(at, o, acc)` writes output position `at`, channel
/// `o` from its sum. The caller has checked [`fits`]. Where the CPU has AVX2 (feature `std`
/// on x86), the loops run compiled for it: eight 32-bit lanes and a 32-bit multiply, which
/// the baseline lacks (no fused multiply-add: AVX2 does not enable FMA, and Rust never fuses).
#[inline(always)]
pub(crate) fn conv2d<L: Lane>(
    dims: &Nhwc,
    g: &Geometry2d,
    load: impl Fn(usize) -> L,
    weight: impl Fn(usize) -> L,
    store: impl FnMut(usize, usize, L),
) {
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just now.
        return unsafe { conv2d_avx2(dims, g, load, weight, store) };
    }
    conv2d_here(dims, g, load, weight, store)
}

/// [`conv2d_here`] compiled for AVX2 (everything under it is `#[inline(always)]`).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn conv2d_avx2<L: Lane>(
    dims: &Nhwc,
    g: &Geometry2d,
    load: impl Fn(usize) -> L,
    weight: impl Fn(usize) -> L,
    store: impl FnMut(usize, usize, L),
) {
    conv2d_here(dims, g, load, weight, store)
}

/// The loops of [`conv2d`], compiled for the build's own target.
#[inline(always)]
fn conv2d_here<L: Lane>(
    dims: &Nhwc,
    g: &Geometry2d,
    load: impl Fn(usize) -> L,
    weight: impl Fn(usize) -> L,
    mut store: impl FnMut(usize, usize, L),
) {
    let (ic, oc) = (dims.in_channels, dims.out_channels);
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dy, dx] = g.dilations();
    let terms = kh * kw * ic;
    let positions = dims.batch * oh * ow;
    let mut patch = [L::default(); PIXELS * MAX_TERMS];
    let mut start = 0;
    while start < positions {
        let count = PIXELS.min(positions - start);
        // Gather: patch[k * PIXELS + p], zeros outside the input.
        for p in 0..PIXELS {
            let lane = &mut patch[..terms * PIXELS];
            if p >= count {
                for k in 0..terms {
                    lane[k * PIXELS + p] = L::default();
                }
                continue;
            }
            let at = start + p;
            let (n, rest) = (at / (oh * ow), at % (oh * ow));
            let (oy, ox) = (rest / ow, rest % ow);
            let (y0, y1, ybase) = g.taps(0, oy);
            let (x0, x1, xbase) = g.taps(1, ox);
            for i in 0..kh {
                for j in 0..kw {
                    let k0 = (i * kw + j) * ic;
                    if i < y0 || i >= y1 || j < x0 || j >= x1 {
                        for c in 0..ic {
                            lane[(k0 + c) * PIXELS + p] = L::default();
                        }
                        continue;
                    }
                    let iy = (ybase + (i * dy) as isize) as usize;
                    let ix = (xbase + (j * dx) as isize) as usize;
                    let px = ((n * ih + iy) * iw + ix) * ic;
                    for c in 0..ic {
                        lane[(k0 + c) * PIXELS + p] = load(px + c);
                    }
                }
            }
        }
        // Multiply: the output channels over the block's positions, four at a time so that
        // each patch row loaded serves four sums.
        let block = &patch[..terms * PIXELS];
        let mut o = 0;
        while L::FOUR && o + 4 <= oc {
            let mut acc = [[L::default(); PIXELS]; 4];
            let rows = [o * terms, (o + 1) * terms, (o + 2) * terms, (o + 3) * terms];
            for (k, lanes) in block.chunks_exact(PIXELS).enumerate() {
                for (sums, &row) in acc.iter_mut().zip(&rows) {
                    let wk = weight(row + k);
                    for (a, &v) in sums.iter_mut().zip(lanes) {
                        *a = L::mul_add(*a, v, wk);
                    }
                }
            }
            for (q, sums) in acc.iter().enumerate() {
                for (p, &a) in sums.iter().enumerate().take(count) {
                    store(start + p, o + q, a);
                }
            }
            o += 4;
        }
        for o in o..oc {
            let mut acc = [L::default(); PIXELS];
            let row = o * terms;
            for (k, lanes) in block.chunks_exact(PIXELS).enumerate() {
                let wk = weight(row + k);
                for (a, &v) in acc.iter_mut().zip(lanes) {
                    *a = L::mul_add(*a, v, wk);
                }
            }
            for (p, &a) in acc.iter().enumerate().take(count) {
                store(start + p, o, a);
            }
        }
        start += count;
    }
}

/// `DEPTHWISE_CONV_2D` with multiplier 1, channels as lanes: the input `x` and filter `w`,
/// each element made a lane value by `load` and `weight`; `store(at, c, acc)` as for
/// [`conv2d`], compiled for AVX2 where the CPU has it, as there.
#[inline(always)]
pub(crate) fn depthwise_conv2d<S: Copy, L: Lane>(
    dims: &Nhwc,
    g: &Geometry2d,
    (x, w): (&[S], &[S]),
    (load, weight): (impl Fn(S) -> L, impl Fn(S) -> L),
    store: impl FnMut(usize, usize, L),
) {
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just now.
        return unsafe { depthwise_avx2(dims, g, (x, w), (load, weight), store) };
    }
    depthwise_here(dims, g, (x, w), (load, weight), store)
}

/// [`depthwise_here`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn depthwise_avx2<S: Copy, L: Lane>(
    dims: &Nhwc,
    g: &Geometry2d,
    (x, w): (&[S], &[S]),
    (load, weight): (impl Fn(S) -> L, impl Fn(S) -> L),
    store: impl FnMut(usize, usize, L),
) {
    depthwise_here(dims, g, (x, w), (load, weight), store)
}

/// The loops of [`depthwise_conv2d`], compiled for the build's own target.
#[inline(always)]
fn depthwise_here<S: Copy, L: Lane>(
    dims: &Nhwc,
    g: &Geometry2d,
    (x, w): (&[S], &[S]),
    (load, weight): (impl Fn(S) -> L, impl Fn(S) -> L),
    mut store: impl FnMut(usize, usize, L),
) {
    let c = dims.in_channels;
    let kw = g.kernel()[1];
    let [ih, iw] = g.input();
    let [oh, ow] = g.output();
    let [dy, dx] = g.dilations();
    let mut at = 0;
    for n in 0..dims.batch {
        for oy in 0..oh {
            let (y0, y1, ybase) = g.taps(0, oy);
            for ox in 0..ow {
                let (x0, x1, xbase) = g.taps(1, ox);
                let mut c0 = 0;
                while c0 < c {
                    let width = CHANNELS.min(c - c0);
                    let mut acc = [L::default(); CHANNELS];
                    for i in y0..y1 {
                        let iy = (ybase + (i * dy) as isize) as usize;
                        for j in x0..x1 {
                            let ix = (xbase + (j * dx) as isize) as usize;
                            let px = ((n * ih + iy) * iw + ix) * c + c0;
                            let pw = (i * kw + j) * c + c0;
                            // Runs of the channels, so that the loop over them vectorizes
                            // (an index per element kept a bounds check in it).
                            let (Some(xs), Some(ws)) =
                                (x.get(px..px + width), w.get(pw..pw + width))
                            else {
                                return;
                            };
                            for ((a, &xv), &wv) in acc[..width].iter_mut().zip(xs).zip(ws) {
                                *a = L::mul_add(*a, load(xv), weight(wv));
                            }
                        }
                    }
                    for (q, &a) in acc[..width].iter().enumerate() {
                        store(at, c0 + q, a);
                    }
                    c0 += width;
                }
                at += 1;
            }
        }
    }
}

/// Whether every weight is finite, so that a float patch may hold zeros for the taps outside
/// the input.
pub(crate) fn all_finite<T: ConvFloat>(w: &[T]) -> bool {
    w.iter().all(|&v| v.is_finite_value())
}
