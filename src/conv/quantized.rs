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
    #[inline(always)]
    pub(crate) fn finish(&self, acc: i32, r: Requant) -> i8 {
        let v = r.apply(acc, self.rounding).wrapping_add(self.output_offset);
        v.max(self.min).min(self.max) as i8
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
    let (ic, oc) = (dims.in_channels, dims.out_channels);
    let offset = frame.input_offset;
    if ic == oc {
        let load = |i: usize| i32::from(x[i]) + offset;
        let store = |at: usize, o: usize, acc: i32| {
            let acc = acc.wrapping_add(bias.map_or(0, |b| b[o]));
            out[at * oc + o] = frame.finish(acc, requant[o]);
        };
        return super::blocked::depthwise_conv2d(dims, g, load, |i| i32::from(w[i]), store);
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
            // n >= 1: a window inside SAME or VALID padding always meets the input (K1).
            let n = n.max(1) as i32;
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
