//! int8 convolutions written by hand, as plain loop nests of TFLM's contract
//! (`ConvPerChannel`, `DepthwiseConvPerChannel`): for each output, the bias plus the sum over
//! the taps inside the input of `w * (x - input_zero)` in wrapping 32-bit arithmetic, then
//! TFLM's double-rounding requantization per channel ([`requant`]), the output zero point and
//! the clamp. The baselines of `icount_conv.sh` and `code_size.sh`, and what the on-target
//! tests compare shaped's kernels with. Also the three layers those scripts measure, their
//! weights and inputs pseudo-random `static`s built at compile time.

use crate::hand_models::requant;
use shaped::conv::{ConvParams, Padding, QConv2d};
use shaped::quant::multiplier::quantize_multiplier;
use shaped::quant::{Activation, PerAxis, Quant, Rounding};

/// A convolution's shapes: the input `[n, h, w, c]`, the kernel (height, width), the output
/// channels (the channels times the multiplier for a depthwise one), strides, dilations and
/// the padding (SAME or VALID, as TFLite computes them).
#[derive(Clone, Copy, Debug)]
pub struct Conv {
    /// `[n, h, w, c]`.
    pub input: [usize; 4],
    /// Kernel height and width.
    pub kernel: [usize; 2],
    /// Output channels.
    pub out_channels: usize,
    /// Strides (height, width).
    pub stride: [usize; 2],
    /// Dilations (height, width).
    pub dilation: [usize; 2],
    /// SAME padding (VALID otherwise).
    pub same: bool,
}

impl Conv {
    /// The output's height or width along `axis` and the padding before it.
    pub const fn axis(&self, axis: usize) -> (usize, usize) {
        let (n, k, s, d) = (
            self.input[1 + axis],
            self.kernel[axis],
            self.stride[axis],
            self.dilation[axis],
        );
        let span = (k - 1) * d + 1;
        if self.same {
            let out = n.div_ceil(s);
            let reach = (out - 1) * s + span;
            (out, if reach > n { (reach - n) / 2 } else { 0 })
        } else {
            ((n - span) / s + 1, 0)
        }
    }

    /// `[n, oh, ow, out channels]`.
    pub const fn output(&self) -> [usize; 4] {
        [
            self.input[0],
            self.axis(0).0,
            self.axis(1).0,
            self.out_channels,
        ]
    }

    /// The output's element count.
    pub const fn output_len(&self) -> usize {
        let o = self.output();
        o[0] * o[1] * o[2] * o[3]
    }

    /// The filter's dims: `[out, kh, kw, c]`, or `[1, kh, kw, out]` for a depthwise one.
    pub const fn filter(&self, depthwise: bool) -> [usize; 4] {
        if depthwise {
            [1, self.kernel[0], self.kernel[1], self.out_channels]
        } else {
            [
                self.out_channels,
                self.kernel[0],
                self.kernel[1],
                self.input[3],
            ]
        }
    }

    /// The multiply-adds of a full window per output (padding taps counted, as the layers'
    /// MAC counts are quoted): `kh kw c` for a convolution, `kh kw` for a depthwise one.
    pub const fn macs(&self, depthwise: bool) -> usize {
        let per = self.kernel[0] * self.kernel[1] * if depthwise { 1 } else { self.input[3] };
        self.output_len() * per
    }

    /// shaped's options for this window.
    pub const fn params(&self) -> ConvParams {
        ConvParams::new(if self.same {
            Padding::Same
        } else {
            Padding::Valid
        })
        .stride(self.stride)
        .dilation(self.dilation)
    }
}

/// The quantization a hand loop applies: the input's zero point, each output channel's
/// multiplier and shift, the output's zero point and the clamp.
#[derive(Clone, Copy, Debug)]
pub struct Requant<'a> {
    /// The input's zero point.
    pub input_zero: i32,
    /// Each output channel's `(multiplier, shift)`.
    pub multipliers: &'a [(i32, i32)],
    /// The output's zero point.
    pub output_zero: i32,
    /// The activation's bounds.
    pub clamp: (i32, i32),
    /// TFLM's single-rounding build (double rounding otherwise).
    pub single: bool,
}

impl Requant<'_> {
    #[inline(always)]
    fn finish(&self, acc: i32, o: usize) -> i8 {
        let (m, shift) = self.multipliers[o];
        let scaled = if self.single {
            shaped::quant::fixedpoint::multiply_by_quantized_multiplier_single(acc, m, shift)
        } else {
            requant(acc, (m, shift))
        };
        (scaled + self.output_zero).clamp(self.clamp.0, self.clamp.1) as i8
    }
}

/// The input position of tap `t` of output `o` along `axis` (`pad` before it), if inside the
/// input.
#[inline(always)]
fn tap(l: &Conv, axis: usize, pad: usize, o: usize, t: usize) -> Option<usize> {
    let p = (o * l.stride[axis] + t * l.dilation[axis]) as isize - pad as isize;
    if p >= 0 && (p as usize) < l.input[1 + axis] {
        Some(p as usize)
    } else {
        None
    }
}

/// CONV_2D by hand: `x` `[n, h, w, c]`, `w` `[out, kh, kw, c]`.
pub fn conv2d(l: &Conv, x: &[i8], w: &[i8], bias: &[i32], q: &Requant, out: &mut [i8]) {
    let [n, ih, iw, ic] = l.input;
    let [_, oh, ow, oc] = l.output();
    let [kh, kw] = l.kernel;
    let (ph, pad_w) = (l.axis(0).1, l.axis(1).1);
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for o in 0..oc {
                    let mut acc = bias[o];
                    for i in 0..kh {
                        let Some(iy) = tap(l, 0, ph, oy, i) else {
                            continue;
                        };
                        for j in 0..kw {
                            let Some(ix) = tap(l, 1, pad_w, ox, j) else {
                                continue;
                            };
                            let px = ((b * ih + iy) * iw + ix) * ic;
                            let pw = ((o * kh + i) * kw + j) * ic;
                            for (&v, &f) in x[px..px + ic].iter().zip(&w[pw..pw + ic]) {
                                acc = acc.wrapping_add((v as i32 - q.input_zero) * f as i32);
                            }
                        }
                    }
                    out[((b * oh + oy) * ow + ox) * oc + o] = q.finish(acc, o);
                }
            }
        }
    }
}

/// DEPTHWISE_CONV_2D by hand: `w` `[1, kh, kw, c * m]`, output channel `o` reading input
/// channel `o / m`.
pub fn depthwise_conv2d(l: &Conv, x: &[i8], w: &[i8], bias: &[i32], q: &Requant, out: &mut [i8]) {
    let [n, ih, iw, ic] = l.input;
    let [_, oh, ow, oc] = l.output();
    let [kh, kw] = l.kernel;
    let m = oc / ic;
    let (ph, pw) = (l.axis(0).1, l.axis(1).1);
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for o in 0..oc {
                    let c = o / m;
                    let mut acc = bias[o];
                    for i in 0..kh {
                        let Some(iy) = tap(l, 0, ph, oy, i) else {
                            continue;
                        };
                        for j in 0..kw {
                            let Some(ix) = tap(l, 1, pw, ox, j) else {
                                continue;
                            };
                            let v = x[((b * ih + iy) * iw + ix) * ic + c] as i32 - q.input_zero;
                            let f = w[(i * kw + j) * oc + o] as i32;
                            acc = acc.wrapping_add(v * f);
                        }
                    }
                    out[((b * oh + oy) * ow + ox) * oc + o] = q.finish(acc, o);
                }
            }
        }
    }
}

/// `L` pseudo-random bytes (xorshift32 from `seed`), at compile time.
pub const fn bytes<const L: usize>(seed: u32) -> [i8; L] {
    let mut out = [0i8; L];
    let mut x = seed;
    let mut i = 0;
    while i < L {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i] = (x >> 8) as u8 as i8;
        i += 1;
    }
    out
}

/// `L` biases in `-range..range` (xorshift32 from `seed`), at compile time.
pub const fn biases<const L: usize>(seed: u32, range: i32) -> [i32; L] {
    let mut out = [0i32; L];
    let mut x = seed;
    let mut i = 0;
    while i < L {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i] = (x % (2 * range as u32)) as i32 - range;
        i += 1;
    }
    out
}

/// `L` per-channel weight scales around `base`, at compile time.
pub const fn scales<const L: usize>(base: f32) -> [f32; L] {
    let mut out = [0.0f32; L];
    let mut i = 0;
    while i < L {
        out[i] = base * (1.0 + (i % 5) as f32 * 0.25);
        i += 1;
    }
    out
}

/// Each output channel's multiplier `si sw[j] / so` in `f64`, as TFLM derives them (what a
/// converter script would print as tables).
pub const fn multipliers<const L: usize>(
    input: f32,
    weights: &[f32; L],
    output: f32,
) -> [(i32, i32); L] {
    let mut out = [(0, 0); L];
    let mut j = 0;
    while j < L {
        let real = input as f64 * weights[j] as f64 / output as f64;
        out[j] = match quantize_multiplier(real, Rounding::Double) {
            Some(m) => m,
            None => panic!("a valid multiplier"),
        };
        j += 1;
    }
    out
}

/// shaped's prepared convolution for the same parameters, or a compile error.
pub const fn prepared<const L: usize>(
    input: (f32, i32),
    scales: &'static [f32; L],
    zeros: &'static [i32; L],
    output: (f32, i32),
) -> QConv2d<'static, L> {
    match QConv2d::new(
        Quant::new_const(input.0, input.1),
        PerAxis::new_const(scales, zeros),
        Quant::new_const(output.0, output.1),
        Activation::None,
        Rounding::Double,
    ) {
        Ok(op) => op,
        Err(_) => panic!("valid parameters"),
    }
}

/// The three measured layers (batch 1, int8, per-channel weights, a nonzero input zero point,
/// a bias, the clamp -128..127).
pub mod layers {
    use super::*;

    /// The input's and output's parameters of every layer: `(scale, zero point)`.
    pub const INPUT: (f32, i32) = (0.05, 12);

    /// 3x3 CONV_2D, stride 1, SAME: 24x24x16 -> 24x24x32.
    pub mod conv3x3 {
        use super::*;
        /// The shapes.
        pub const CONV: Conv = Conv {
            input: [1, 24, 24, 16],
            kernel: [3, 3],
            out_channels: 32,
            stride: [1, 1],
            dilation: [1, 1],
            same: true,
        };
        /// The output's parameters.
        pub const OUTPUT: (f32, i32) = (0.4, -3);
        /// The input.
        pub static X: [i8; 24 * 24 * 16] = bytes(0x1234_5678);
        /// The filter, `[32, 3, 3, 16]`.
        pub static W: [i8; 32 * 3 * 3 * 16] = bytes(0x9abc_def0);
        /// The bias.
        pub static B: [i32; 32] = biases(0x0bad_f00d, 20_000);
        /// The weights' scales.
        pub static SCALES: [f32; 32] = scales(0.004);
        /// The weights' zero points.
        pub static ZEROS: [i32; 32] = [0; 32];
        /// shaped's prepared convolution.
        pub const OP: QConv2d<'static, 32> = prepared(INPUT, &SCALES, &ZEROS, OUTPUT);
        /// The hand loop's multipliers.
        pub static M: [(i32, i32); 32] = multipliers(INPUT.0, &SCALES, OUTPUT.0);
    }

    /// 1x1 CONV_2D: 6x6x128 -> 6x6x128.
    pub mod conv1x1 {
        use super::*;
        /// The shapes.
        pub const CONV: Conv = Conv {
            input: [1, 6, 6, 128],
            kernel: [1, 1],
            out_channels: 128,
            stride: [1, 1],
            dilation: [1, 1],
            same: false,
        };
        /// The output's parameters.
        pub const OUTPUT: (f32, i32) = (0.4, 5);
        /// The input.
        pub static X: [i8; 6 * 6 * 128] = bytes(0x2468_ace0);
        /// The filter, `[128, 1, 1, 128]`.
        pub static W: [i8; 128 * 128] = bytes(0x1357_9bdf);
        /// The bias.
        pub static B: [i32; 128] = biases(0xfeed_beef, 20_000);
        /// The weights' scales.
        pub static SCALES: [f32; 128] = scales(0.004);
        /// The weights' zero points.
        pub static ZEROS: [i32; 128] = [0; 128];
        /// shaped's prepared convolution.
        pub const OP: QConv2d<'static, 128> = prepared(INPUT, &SCALES, &ZEROS, OUTPUT);
        /// The hand loop's multipliers.
        pub static M: [(i32, i32); 128] = multipliers(INPUT.0, &SCALES, OUTPUT.0);
    }

    /// 3x3 DEPTHWISE_CONV_2D, multiplier 1, stride 1, SAME: 48x48x8.
    pub mod depthwise3x3 {
        use super::*;
        /// The shapes.
        pub const CONV: Conv = Conv {
            input: [1, 48, 48, 8],
            kernel: [3, 3],
            out_channels: 8,
            stride: [1, 1],
            dilation: [1, 1],
            same: true,
        };
        /// The output's parameters.
        pub const OUTPUT: (f32, i32) = (0.1, -7);
        /// The input.
        pub static X: [i8; 48 * 48 * 8] = bytes(0x0f1e_2d3c);
        /// The filter, `[1, 3, 3, 8]`.
        pub static W: [i8; 3 * 3 * 8] = bytes(0x4b5a_6978);
        /// The bias.
        pub static B: [i32; 8] = biases(0xc0ff_ee11, 5_000);
        /// The weights' scales.
        pub static SCALES: [f32; 8] = scales(0.004);
        /// The weights' zero points.
        pub static ZEROS: [i32; 8] = [0; 8];
        /// shaped's prepared convolution.
        pub const OP: QConv2d<'static, 8> = prepared(INPUT, &SCALES, &ZEROS, OUTPUT);
        /// The hand loop's multipliers.
        pub static M: [(i32, i32); 8] = multipliers(INPUT.0, &SCALES, OUTPUT.0);
    }
}
