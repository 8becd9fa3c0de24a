//! int8 convolutions and pools, TensorFlow Lite Micro's integer contract bit for bit (rules
//! K7, K8): `ConvPerChannel`, `DepthwiseConvPerChannel`, and the integer `AveragePool` and
//! `MaxPool` of TFLM's `reference_integer_ops`.

use super::float::pool;
use super::geometry::Geometry2d;
use super::Nhwc;
use crate::error::{Error, QuantProblem, WindowProblem};
use crate::quant::elementwise::Requant;
use crate::quant::params::quant_error;
use crate::quant::{Activation, Quant, Rounding};

/// The most products one output may sum (K7): `|w (x - zp)| <= 128 * 255`, so 65536 of them
/// stay below `2^31` and the `i32` sum is exact (the bias is added in 32 bits after them,
/// wrapping as TFLM's does).
pub const MAX_ACCUMULATED_TERMS: usize = 1 << 16;

/// What a prepared convolution holds besides its multipliers: the input's zero point as an
/// offset, the output's zero point, the activation's clamp (Q7) and the rounding (Q2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ConvFrame {
    pub(crate) input_offset: i32,
    pub(crate) output_offset: i32,
    pub(crate) min: i32,
    pub(crate) max: i32,
    pub(crate) rounding: Rounding,
}

impl ConvFrame {
    /// The frame of an `i8` output `out` under `activation`, or the error of a bound that
    /// does not fit (Q7).
    pub(crate) const fn new(
        input: Quant<i8>,
        out: Quant<i8>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        match activation.range(out, i8::MIN as i32, i8::MAX as i32) {
            Some((min, max)) => Ok(ConvFrame {
                input_offset: -input.zero_point(),
                output_offset: out.zero_point(),
                min,
                max,
                rounding,
            }),
            None => Err(quant_error(QuantProblem::ActivationRange)),
        }
    }

    /// A sum requantized, offset, clamped and stored (K7).
    #[cfg_attr(shaped_arm_dsp, allow(dead_code))]
    #[inline(always)]
    pub(crate) fn finish(&self, acc: i32, r: Requant) -> i8 {
        let v = r.apply(acc, self.rounding).wrapping_add(self.output_offset);
        v.max(self.min).min(self.max) as i8
    }

    /// Whether the clamp is the whole `i8` range (no activation), which a kernel can apply
    /// with constants.
    #[cfg_attr(any(not(shaped_arm_dsp), shaped_opt_size), allow(dead_code))]
    pub(crate) fn full_range(&self) -> bool {
        (self.min, self.max) == (i8::MIN as i32, i8::MAX as i32)
    }

    /// [`finish`](Self::finish) with the channel's requantization worked out beforehand.
    #[cfg_attr(not(shaped_arm_dsp), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn finish_channel(&self, acc: i32, r: &ChannelRequant) -> i8 {
        let v = r.apply(acc).wrapping_add(self.output_offset);
        v.max(self.min).min(self.max) as i8
    }
}

/// One output channel's requantization with its shifts and rounding constants worked out
/// once, for a kernel that applies it to many sums: [`apply`](Self::apply) gives
/// [`Requant::apply`]'s result for every sum (tests below). Double rounding (TFLM's default)
/// becomes a shift, a multiply-accumulate and a compare; single rounding is left to
/// [`Requant::apply`].
#[cfg_attr(
    not(any(shaped_arm_dsp, test, all(shaped_avx512, feature = "std"))),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChannelRequant {
    requant: Requant,
    /// Double rounding's left shift, `max(shift, 0)` (at most 30, Q3).
    left: u32,
    /// Double rounding's right shift, `max(-shift, 0)` taken to at most 31.
    right: u32,
    /// `2^right - 1`: the bits the right shift drops.
    mask: i32,
    /// `mask / 2`: a remainder above it (above it plus one below zero) rounds away.
    half: i32,
    double: bool,
}

#[cfg_attr(not(any(shaped_arm_dsp, test)), allow(dead_code))]
impl ChannelRequant {
    pub(crate) fn new(requant: Requant, rounding: Rounding) -> Self {
        let shift = requant.parts().1;
        let right = if shift < 0 {
            shift.unsigned_abs().min(31)
        } else {
            0
        };
        let mask = ((1u32 << right) - 1) as i32;
        ChannelRequant {
            requant,
            left: shift.max(0) as u32,
            right,
            mask,
            half: mask >> 1,
            double: matches!(rounding, Rounding::Double),
        }
    }

    /// `x` requantized, as [`Requant::apply`] in the rounding it was made for: for double
    /// rounding, `multiply_by_quantized_multiplier_double_nonneg` with its shifts and its
    /// divide's mask and threshold taken from the table.
    #[inline(always)]
    pub(crate) fn apply(&self, x: i32) -> i32 {
        if !self.double {
            return self.apply_single(x);
        }
        let multiplier = self.requant.parts().0;
        // `x * 2^left` wrapping, as `x.wrapping_mul(1 << left)`.
        let shifted = x.wrapping_shl(self.left);
        // |shifted * multiplier| <= 2^62 for a multiplier >= 0: no overflow in 64 bits.
        let high = ((shifted as i64 * multiplier as i64 + (1 << 30)) >> 31) as i32;
        // `rounding_divide_by_pot(high, right)`.
        let threshold = self.half + (high < 0) as i32;
        (high >> self.right) + ((high & self.mask) > threshold) as i32
    }

    /// [`apply`](Self::apply) for double rounding with no left shift (a real multiplier
    /// below one, the usual case), `None` for any other: the same steps without the shift.
    #[cfg_attr(shaped_opt_size, allow(dead_code))]
    #[inline(always)]
    pub(crate) fn right_only(&self) -> Option<impl Fn(i32) -> i32> {
        let (multiplier, right, mask, half) =
            (self.requant.parts().0, self.right, self.mask, self.half);
        (self.double && self.left == 0).then_some(move |x: i32| {
            let high = ((x as i64 * multiplier as i64 + (1 << 30)) >> 31) as i32;
            let threshold = half + (high < 0) as i32;
            (high >> right) + ((high & mask) > threshold) as i32
        })
    }

    /// Double rounding's constants for a vector kernel: the multiplier, the left and right
    /// shifts, the dropped bits' mask and its half; `None` for single rounding.
    #[cfg(all(shaped_avx512, feature = "std", target_arch = "x86_64"))]
    pub(crate) fn double(&self) -> Option<(i32, u32, u32, i32, i32)> {
        let m = self.requant.parts().0;
        self.double
            .then_some((m, self.left, self.right, self.mask, self.half))
    }

    /// Single rounding, out of line: its 64-bit constants are not worth registers in a
    /// kernel built for the default rounding.
    #[inline(never)]
    fn apply_single(&self, x: i32) -> i32 {
        self.requant.apply(x, Rounding::Single)
    }
}

/// The multiplier of output channel `j` (K7): `input_scale * weight_scale[j] / output_scale`,
/// each `f32` scale widened to `f64` first, as TFLM's `PopulateConvolutionQuantizationParams`.
pub(crate) const fn channel_multiplier(
    input: Quant<i8>,
    weight_scale: f32,
    out: Quant<i8>,
    rounding: Rounding,
) -> Result<Requant, Error> {
    let real = input.scale() as f64 * weight_scale as f64 / out.scale() as f64;
    Requant::new(real, rounding, false)
}

/// The per-channel multipliers of weights with `scales` and `zero_points` (all 0, Q18),
/// written into `out`, one per channel.
pub(crate) const fn channel_multipliers(
    input: Quant<i8>,
    scales: &[f32],
    zero_points: &[i32],
    output: Quant<i8>,
    rounding: Rounding,
    out: &mut [Requant],
) -> Result<(), Error> {
    let mut j = 0;
    while j < out.len() {
        let zero_point = zero_points[j];
        if zero_point != 0 {
            return Err(quant_error(QuantProblem::WeightZeroPoint {
                channel: j,
                zero_point,
            }));
        }
        out[j] = match channel_multiplier(input, scales[j], output, rounding) {
            Ok(r) => r,
            Err(e) => return Err(e),
        };
        j += 1;
    }
    Ok(())
}

/// CONV_2D on `i8` (K7): `out = clamp(rq_o(bias[o] + sum over taps (i, j, c) of w[o, i, j, c]
/// * (x - zp_in)) + zp_out)`, the products summed in 32 bits, then the bias.
///
/// On cores with the DSP extension, the kernel of `conv::dsp` (the same results); elsewhere,
/// the loop nest below.
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
    #[cfg(shaped_arm_dsp)]
    super::dsp::conv2d(x, dims, w, bias, g, frame, requant, out);
    #[cfg(not(shaped_arm_dsp))]
    conv2d_portable(x, dims, w, bias, g, frame, requant, out);
}

/// [`conv2d`] as a loop nest over outputs, taps and channels.
#[cfg(not(shaped_arm_dsp))]
#[allow(clippy::too_many_arguments)]
fn conv2d_portable(
    x: &[i8],
    dims: &Nhwc,
    w: &[i8],
    bias: Option<&[i32]>,
    g: &Geometry2d,
    frame: &ConvFrame,
    requant: &[Requant],
    out: &mut [i8],
) {
    #[cfg(all(shaped_avx512, feature = "std", target_arch = "x86_64"))]
    if super::x86::conv2d(x, dims, w, bias, g, frame, requant, out) {
        return;
    }
    let (ic, oc) = (dims.in_channels, dims.out_channels);
    let [kh, kw] = g.kernel();
    let [ih, iw] = g.input();
    let offset = frame.input_offset;
    if super::blocked::fits(kh * kw * ic) {
        let load = |i: usize| i32::from(x[i]) + offset;
        let store = |at: usize, o: usize, acc: i32| {
            let acc = acc.wrapping_add(bias.map_or(0, |b| b[o]));
            out[at * oc + o] = frame.finish(acc, requant[o]);
        };
        return super::blocked::conv2d(dims, g, load, |i| i32::from(w[i]), store);
    }
    let mut at = 0;
    for n in 0..dims.batch {
        for oy in 0..g.output()[0] {
            let (y0, y1, ybase) = g.taps(0, oy);
            for ox in 0..g.output()[1] {
                let (x0, x1, xbase) = g.taps(1, ox);
                for o in 0..oc {
                    let mut acc = 0i32;
                    for i in y0..y1 {
                        let iy = (ybase + (i * g.dilations()[0]) as isize) as usize;
                        for j in x0..x1 {
                            let ix = (xbase + (j * g.dilations()[1]) as isize) as usize;
                            let px = ((n * ih + iy) * iw + ix) * ic;
                            let pw = ((o * kh + i) * kw + j) * ic;
                            acc = acc.wrapping_add(dot_offset(
                                &x[px..px + ic],
                                &w[pw..pw + ic],
                                offset,
                            ));
                        }
                    }
                    if let Some(b) = bias {
                        acc = acc.wrapping_add(b[o]);
                    }
                    out[at] = frame.finish(acc, requant[o]);
                    at += 1;
                }
            }
        }
    }
}

/// `sum of w[k] * (x[k] + offset)` in 32 bits: exact for the lengths K7 allows.
#[cfg(not(shaped_arm_dsp))]
#[inline(always)]
fn dot_offset(x: &[i8], w: &[i8], offset: i32) -> i32 {
    let mut acc = 0i32;
    for (&a, &b) in x.iter().zip(w) {
        acc = acc.wrapping_add(i32::from(b).wrapping_mul(i32::from(a) + offset));
    }
    acc
}

/// DEPTHWISE_CONV_2D on `i8` (K7): output channel `c * m + k` sums
/// `w[0, i, j, c * m + k] * (x[.., c] - zp_in)` over the taps, then the bias, then as CONV_2D.
///
/// On cores with the DSP extension, the kernel of `conv::dsp` (every shape); elsewhere, the
/// blocked kernel or the loop nest below.
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
    #[cfg(shaped_arm_dsp)]
    super::dsp::depthwise_conv2d(x, dims, w, bias, g, frame, requant, out);
    #[cfg(not(shaped_arm_dsp))]
    depthwise_portable(x, dims, w, bias, g, frame, requant, out);
}

/// [`depthwise_conv2d`] as the blocked kernel (multiplier 1) or a loop nest over outputs and
/// taps.
#[cfg(not(shaped_arm_dsp))]
#[allow(clippy::too_many_arguments)]
fn depthwise_portable(
    x: &[i8],
    dims: &Nhwc,
    w: &[i8],
    bias: Option<&[i32]>,
    g: &Geometry2d,
    frame: &ConvFrame,
    requant: &[Requant],
    out: &mut [i8],
) {
    #[cfg(all(shaped_avx512, feature = "std", target_arch = "x86_64"))]
    if super::x86::depthwise_conv2d(x, dims, w, bias, g, frame, requant, out) {
        return;
    }
    let (ic, oc) = (dims.in_channels, dims.out_channels);
    let offset = frame.input_offset;
    if ic == oc {
        let load = |v: i8| i32::from(v) + offset;
        let store = |at: usize, o: usize, acc: i32| {
            let acc = acc.wrapping_add(bias.map_or(0, |b| b[o]));
            out[at * oc + o] = frame.finish(acc, requant[o]);
        };
        let lanes = (load, |v: i8| i32::from(v));
        return super::blocked::depthwise_conv2d(dims, g, (x, w), lanes, store);
    }
    let m = oc / ic.max(1);
    let kw = g.kernel()[1];
    let [ih, iw] = g.input();
    let mut at = 0;
    for n in 0..dims.batch {
        for oy in 0..g.output()[0] {
            let (y0, y1, ybase) = g.taps(0, oy);
            for ox in 0..g.output()[1] {
                let (x0, x1, xbase) = g.taps(1, ox);
                for o in 0..oc {
                    let c = o / m;
                    let mut acc = 0i32;
                    for i in y0..y1 {
                        let iy = (ybase + (i * g.dilations()[0]) as isize) as usize;
                        for j in x0..x1 {
                            let ix = (xbase + (j * g.dilations()[1]) as isize) as usize;
                            let v = i32::from(x[((n * ih + iy) * iw + ix) * ic + c]) + offset;
                            let f = i32::from(w[(i * kw + j) * oc + o]);
                            acc = acc.wrapping_add(f.wrapping_mul(v));
                        }
                    }
                    if let Some(b) = bias {
                        acc = acc.wrapping_add(b[o]);
                    }
                    out[at] = frame.finish(acc, requant[o]);
                    at += 1;
                }
            }
        }
    }
}

/// AVERAGE_POOL_2D on `i8` (K8): the window's sum inside the input, divided by its count
/// rounding half away from zero (`(s + n/2) / n` for a positive sum, `(s - n/2) / n`
/// otherwise, in C's truncating division), clamped.
pub(crate) fn avg_pool2d(x: &[i8], dims: &Nhwc, g: &Geometry2d, clamp: (i32, i32), out: &mut [i8]) {
    pool(
        x,
        dims,
        g,
        out,
        0i32,
        |s, v| s + i32::from(v),
        |s, n| {
            // n >= 1: a window inside SAME or VALID padding always meets the input (K1). As
            // a positive `i32` the divisions need no check for a zero divisor or an overflow
            // (whose panics linked `core::fmt` without LTO).
            let n = i32::try_from(n).unwrap_or(i32::MAX).max(1);
            let avg = if s > 0 {
                (s + n / 2) / n
            } else {
                (s - n / 2) / n
            };
            avg.max(clamp.0).min(clamp.1) as i8
        },
    )
}

/// MAX_POOL_2D on `i8` (K8): the largest element of the window inside the input, clamped.
pub(crate) fn max_pool2d(x: &[i8], dims: &Nhwc, g: &Geometry2d, clamp: (i32, i32), out: &mut [i8]) {
    pool(
        x,
        dims,
        g,
        out,
        i8::MIN,
        |m, v| m.max(v),
        |m, _| i32::from(m).max(clamp.0).min(clamp.1) as i8,
    )
}

/// The terms per output of a convolution with `kernel` and `channels` input channels per
/// output (K7): an error past [`MAX_ACCUMULATED_TERMS`].
pub(crate) fn check_terms(kernel: [usize; 2], channels: usize) -> Result<(), WindowProblem> {
    match kernel[0]
        .checked_mul(kernel[1])
        .and_then(|k| k.checked_mul(channels))
    {
        Some(t) if t <= MAX_ACCUMULATED_TERMS => Ok(()),
        Some(terms) => Err(WindowProblem::Accumulator { terms }),
        None => Err(WindowProblem::Overflow),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's requantization equals `Requant::apply` on sums of every size, for
    /// multipliers of every shift the derivation makes (Q3: -31..=30), in both roundings.
    #[test]
    fn channel_requant_is_requant() {
        let mut state = 0x2545_f491u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let mut reals = alloc::vec::Vec::new();
        for e in (-40..32).step_by(if cfg!(miri) { 5 } else { 1 }) {
            for frac in [0.5, 0.5000001, 0.61803, 0.75, 0.999999] {
                reals.push(frac * 2f64.powi(e));
            }
        }
        for rounding in [Rounding::Double, Rounding::Single] {
            for &real in &reals {
                let Ok(r) = Requant::new(real, rounding, false) else {
                    continue;
                };
                let c = ChannelRequant::new(r, rounding);
                let special = [
                    0,
                    1,
                    -1,
                    i32::MAX,
                    i32::MIN,
                    i32::MIN + 1,
                    1 << 30,
                    -(1 << 30),
                ];
                let mut xs = alloc::vec::Vec::from(special);
                // Miri interprets: a few sums per multiplier there.
                for _ in 0..if cfg!(miri) { 8 } else { 2000 } {
                    xs.push(next() as i32);
                    let (v, s) = (next() as i32, next() % 32);
                    xs.push(v >> s);
                }
                let right_only = c.right_only();
                for x in xs {
                    assert_eq!(c.apply(x), r.apply(x, rounding), "{real} {x} {rounding:?}");
                    if let Some(f) = &right_only {
                        assert_eq!(f(x), r.apply(x, rounding), "{real} {x}");
                    }
                }
            }
        }
    }
}
