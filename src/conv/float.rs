//! Convolutions and pools on floats (rules K3-K6), NHWC, in TFLite's float kernels' order:
//! each output sums its products tap by tap (kernel row, kernel column, input channel, the
//! taps outside the input skipped), adds the bias, then clamps. Each product and each sum is
//! rounded as TFLite's C++ rounds it, so the results are its bits.

use super::blocked;
use super::geometry::Geometry2d;
use super::Nhwc;
use crate::quant::Activation;

/// The float element types of the convolutions: `f32` and `f64`. Sealed.
pub trait ConvFloat:
    Copy
    + PartialOrd
    + super::blocked::Lane
    + core::ops::Add<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + private::Sealed
{
    /// 0.
    const ZERO: Self;
    /// The most negative finite value (the start of a max pool, as TFLite's `lowest()`).
    const LOWEST: Self;
    /// `n` as this type (a pool's count).
    fn from_count(n: usize) -> Self;
    /// A fused activation's bounds (K6): `[0, inf)`, `[0, 6]`, `[-1, 1]`, or none.
    fn bounds(activation: Activation) -> (Self, Self);
    /// Whether the value is finite.
    #[doc(hidden)]
    fn is_finite_value(self) -> bool;
}

mod private {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

macro_rules! conv_float {
    ($($t:ty)*) => {$(
        impl ConvFloat for $t {
            const ZERO: Self = 0.0;
            const LOWEST: Self = <$t>::MIN;
            #[inline(always)]
            fn from_count(n: usize) -> Self {
                n as $t
            }
            #[inline(always)]
            fn is_finite_value(self) -> bool {
                self.is_finite()
            }
            fn bounds(activation: Activation) -> (Self, Self) {
                match activation {
                    Activation::None => (<$t>::NEG_INFINITY, <$t>::INFINITY),
                    Activation::Relu => (0.0, <$t>::INFINITY),
                    Activation::Relu6 => (0.0, 6.0),
                    Activation::ReluN1To1 => (-1.0, 1.0),
                }
            }
        }
    )*};
}
conv_float!(f32 f64);

/// TFLite's `ActivationFunctionWithMinMax`: `min(max(x, lo), hi)` as `std::max` and
/// `std::min` compute them (a NaN passes through).
#[inline(always)]
fn clamp<T: ConvFloat>(x: T, (lo, hi): (T, T)) -> T {
    let x = if x < lo { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

/// CONV_2D (K5): `out[n, y, x, o] = act(sum over taps (i, j, c) of x[n, y*s - p + i*d, ...,
/// c] * w[o, i, j, c] + bias[o])`, the sum from 0 in tap order. The shapes have been checked.
pub(crate) fn conv2d<T: ConvFloat>(
    x: &[T],
    dims: &Nhwc,
    w: &[T],
    bias: Option<&[T]>,
    g: &Geometry2d,
    activation: Activation,
    out: &mut [T],
) {
    let bounds = T::bounds(activation);
    let (ic, oc) = (dims.in_channels, dims.out_channels);
    let [kh, kw] = g.kernel();
    if blocked::fits(kh * kw * ic) && blocked::all_finite(w) {
        let b = |o: usize| bias.map_or(T::ZERO, |b| b[o]);
        let store = |at: usize, o: usize, total: T| out[at * oc + o] = clamp(total + b(o), bounds);
        return blocked::conv2d(dims, g, |i| x[i], |i| w[i], store);
    }
    let mut at = 0;
    for n in 0..dims.batch {
        for oy in 0..g.output()[0] {
            let (y0, y1, ybase) = g.taps(0, oy);
            for ox in 0..g.output()[1] {
                let (x0, x1, xbase) = g.taps(1, ox);
                for o in 0..oc {
                    let mut total = T::ZERO;
                    for i in y0..y1 {
                        let iy = (ybase + (i * g.dilations()[0]) as isize) as usize;
                        for j in x0..x1 {
                            let ix = (xbase + (j * g.dilations()[1]) as isize) as usize;
                            let px = ((n * g.input()[0] + iy) * g.input()[1] + ix) * ic;
                            let pw = ((o * kh + i) * kw + j) * ic;
                            for (a, b) in x[px..px + ic].iter().zip(&w[pw..pw + ic]) {
                                total = total + *a * *b;
                            }
                        }
                    }
                    let b = match bias {
                        Some(b) => b[o],
                        None => T::ZERO,
                    };
                    out[at] = clamp(total + b, bounds);
                    at += 1;
                }
            }
        }
    }
}

/// DEPTHWISE_CONV_2D (K5): output channel `c * m + k` convolves input channel `c` with filter
/// channel `c * m + k` (`m` the depth multiplier), in tap order, then the bias and the clamp.
pub(crate) fn depthwise_conv2d<T: ConvFloat>(
    x: &[T],
    dims: &Nhwc,
    w: &[T],
    bias: Option<&[T]>,
    g: &Geometry2d,
    activation: Activation,
    out: &mut [T],
) {
    let bounds = T::bounds(activation);
    let (ic, oc) = (dims.in_channels, dims.out_channels);
    if ic == oc {
        let b = |o: usize| bias.map_or(T::ZERO, |b| b[o]);
        let store = |at: usize, o: usize, total: T| out[at * oc + o] = clamp(total + b(o), bounds);
        return blocked::depthwise_conv2d(dims, g, (x, w), (|v| v, |v| v), store);
    }
    let m = oc / ic.max(1);
    let kw = g.kernel()[1];
    let mut at = 0;
    for n in 0..dims.batch {
        for oy in 0..g.output()[0] {
            let (y0, y1, ybase) = g.taps(0, oy);
            for ox in 0..g.output()[1] {
                let (x0, x1, xbase) = g.taps(1, ox);
                for o in 0..oc {
                    let c = o / m;
                    let mut total = T::ZERO;
                    for i in y0..y1 {
                        let iy = (ybase + (i * g.dilations()[0]) as isize) as usize;
                        for j in x0..x1 {
                            let ix = (xbase + (j * g.dilations()[1]) as isize) as usize;
                            let px = ((n * g.input()[0] + iy) * g.input()[1] + ix) * ic;
                            total = total + x[px + c] * w[(i * kw + j) * oc + o];
                        }
                    }
                    let b = match bias {
                        Some(b) => b[o],
                        None => T::ZERO,
                    };
                    out[at] = clamp(total + b, bounds);
                    at += 1;
                }
            }
        }
    }
}

/// AVERAGE_POOL_2D (K6): the mean of the window's elements inside the input (the sum in tap
/// order, then one division by their count), clamped.
pub(crate) fn avg_pool2d<T: ConvFloat>(
    x: &[T],
    dims: &Nhwc,
    g: &Geometry2d,
    activation: Activation,
    out: &mut [T],
) {
    let bounds = T::bounds(activation);
    pool(
        x,
        dims,
        g,
        out,
        T::ZERO,
        |total, v| total + v,
        |total, count| clamp(total / T::from_count(count), bounds),
    )
}

/// MAX_POOL_2D (K6): the largest of the window's elements inside the input, clamped.
pub(crate) fn max_pool2d<T: ConvFloat>(
    x: &[T],
    dims: &Nhwc,
    g: &Geometry2d,
    activation: Activation,
    out: &mut [T],
) {
    let bounds = T::bounds(activation);
    // `std::max(max, v)`: `v` when `max < v`.
    pool(
        x,
        dims,
        g,
        out,
        T::LOWEST,
        |max, v| if max < v { v } else { max },
        |max, _| clamp(max, bounds),
    )
}

/// The pools' loop: each output element folds the window's elements inside the input, row by
/// row, with `step` from `init`, and `finish` makes the result from the fold and the count.
///
/// The plan was checked against the slices' lengths, so every index is in bounds; each access
/// is still a checked `get`, but a failed one is skipped instead of panicking: a bounds check's
/// panic formats its numbers, which kept `core::fmt` (2.2 kB) in a Cortex-M firmware built
/// without LTO (TFLM's person detection at "s", `qemu-tests/README.md`).
#[inline(always)]
pub(crate) fn pool<T: Copy, A: Copy, V>(
    x: &[T],
    dims: &Nhwc,
    g: &Geometry2d,
    out: &mut [V],
    init: A,
    step: impl Fn(A, T) -> A,
    finish: impl Fn(A, usize) -> V,
) {
    let c = dims.in_channels;
    let [ih, iw] = g.input();
    let [dy, dx] = g.dilations();
    let mut at = 0;
    for n in 0..dims.batch {
        for oy in 0..g.output()[0] {
            let (y0, y1, ybase) = g.taps(0, oy);
            for ox in 0..g.output()[1] {
                let (x0, x1, xbase) = g.taps(1, ox);
                let count = (y1 - y0) * (x1 - x0);
                for ch in 0..c {
                    let mut acc = init;
                    for i in y0..y1 {
                        let iy = (ybase + (i * dy) as isize) as usize;
                        for j in x0..x1 {
                            let ix = (xbase + (j * dx) as isize) as usize;
                            if let Some(&v) = x.get(((n * ih + iy) * iw + ix) * c + ch) {
                                acc = step(acc, v);
                            }
                        }
                    }
                    let Some(slot) = out.get_mut(at) else {
                        return;
                    };
                    *slot = finish(acc, count);
                    at += 1;
                }
            }
        }
    }
}
