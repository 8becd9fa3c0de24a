//! The int8 models of `examples/` written by hand, as a firmware author fuses them: one loop
//! nest per layer, the requantization written out (TFLM's double rounding), the multipliers
//! and shifts worked out beforehand (here at compile time, with shaped's `const` derivation,
//! which costs no code: a converter script would print the same tables). The baselines of
//! `code_size.sh` and `icount.sh`; the `codesize` and `icount` bins check them against TFLM's
//! outputs.

use shaped::quant::multiplier::{quantize_multiplier, quantize_multiplier_below_one};
use shaped::quant::Rounding;

/// gemmlowp's `SaturatingRoundingDoublingHighMul`.
#[inline(always)]
pub fn high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    ((a as i64 * b as i64 + (1 << 30)) >> 31) as i32
}

/// gemmlowp's `RoundingDivideByPOT`.
#[inline(always)]
pub fn divide_pot(x: i32, e: i32) -> i32 {
    let mask = (1i32 << e) - 1;
    let threshold = (mask >> 1) + (x < 0) as i32;
    (x >> e) + ((x & mask) > threshold) as i32
}

/// TFLM's `MultiplyByQuantizedMultiplier`, double rounding.
#[inline(always)]
pub fn requant(x: i32, (multiplier, shift): (i32, i32)) -> i32 {
    let left = if shift > 0 { shift } else { 0 };
    let right = if shift > 0 { 0 } else { -shift };
    divide_pot(high_mul(x.wrapping_shl(left as u32), multiplier), right)
}

/// `real` as a multiplier and shift, or a compile error.
const fn multiplier(real: f64) -> (i32, i32) {
    match quantize_multiplier(real, Rounding::Double) {
        Some(m) => m,
        None => panic!("a valid multiplier"),
    }
}

/// An add's input or output multiplier (below one), or a compile error.
const fn below_one(real: f64) -> (i32, i32) {
    match quantize_multiplier_below_one(real, Rounding::Double) {
        Some(m) => m,
        None => panic!("a valid multiplier below one"),
    }
}

/// Each output channel's multiplier `si sw[j] / so`, in `f64` as TFLM derives them.
const fn per_channel<const N: usize>(
    input: f32,
    weights: &[f32; N],
    output: f32,
) -> [(i32, i32); N] {
    let mut out = [(0, 0); N];
    let mut j = 0;
    while j < N {
        out[j] = multiplier(input as f64 * weights[j] as f64 / output as f64);
        j += 1;
    }
    out
}

/// A fully connected layer by hand: `y[j] = clamp(requant(b[j] + sum (x[k] - zx) w[j][k]) + zy)`.
#[inline(always)]
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
fn fc<const IN: usize, const OUT: usize>(
    x: &[i8; IN],
    x_zero: i32,
    w: &[[i8; IN]; OUT],
    b: &[i32; OUT],
    m: &[(i32, i32); OUT],
    y_zero: i32,
    (lo, hi): (i32, i32),
    y: &mut [i8; OUT],
) {
    for j in 0..OUT {
        let mut acc = b[j];
        for k in 0..IN {
            acc = acc.wrapping_add((x[k] as i32 - x_zero) * w[j][k] as i32);
        }
        y[j] = (requant(acc, m[j]) + y_zero).max(lo).min(hi) as i8;
    }
}

/// The sine model of `examples/sine/` by hand.
pub mod sine {
    use super::*;

    #[allow(dead_code)]
    mod model {
        include!("../../examples/sine/model.rs");
    }
    use model::*;

    const M1: [(i32, i32); 16] = per_channel(L1_INPUT.0, &L1_WEIGHT_SCALES, L1_OUTPUT.0);
    const M2: [(i32, i32); 16] = per_channel(L2_INPUT.0, &L2_WEIGHT_SCALES, L2_OUTPUT.0);
    const M3: [(i32, i32); 1] = per_channel(L3_INPUT.0, &L3_WEIGHT_SCALES, L3_OUTPUT.0);

    /// The model on one int8 input: three layers, ReLU on the first two (their output zero
    /// point is the lower bound).
    #[inline(always)]
    pub fn forward(x: i8) -> i8 {
        let (mut h1, mut h2, mut y) = ([0i8; 16], [0i8; 16], [0i8; 1]);
        let relu = |zero: i32| (zero, 127);
        fc(
            &[x],
            L1_INPUT.1,
            &L1_WEIGHTS,
            &L1_BIAS,
            &M1,
            L1_OUTPUT.1,
            relu(L1_OUTPUT.1),
            &mut h1,
        );
        fc(
            &h1,
            L2_INPUT.1,
            &L2_WEIGHTS,
            &L2_BIAS,
            &M2,
            L2_OUTPUT.1,
            relu(L2_OUTPUT.1),
            &mut h2,
        );
        fc(
            &h2,
            L3_INPUT.1,
            &L3_WEIGHTS,
            &L3_BIAS,
            &M3,
            L3_OUTPUT.1,
            (-128, 127),
            &mut y,
        );
        y[0]
    }
}

/// The residual network of `examples/residual/` by hand.
pub mod residual {
    use super::*;

    #[allow(dead_code)]
    mod model {
        include!("../../examples/residual/model.rs");
    }
    use model::*;

    const M0: [(i32, i32); 16] = per_channel(OP0_IN0_QUANT.0, &OP0_IN1_SCALES, OP0_OUT_QUANT.0);
    const M1: [(i32, i32); 8] = per_channel(OP1_IN0_QUANT.0, &OP1_IN1_SCALES, OP1_OUT_QUANT.0);
    const M3: [(i32, i32); 4] = per_channel(OP3_IN0_QUANT.0, &OP3_IN1_SCALES, OP3_OUT_QUANT.0);

    /// An int8 add's multipliers (TFLM's `ADD`: inputs shifted left by 20, each scaled by
    /// its share of twice the larger scale, the sum by that over the output's).
    struct Add {
        a: (i32, i32),
        b: (i32, i32),
        out: (i32, i32),
    }

    const fn add(a: f32, b: f32, out: f32) -> Add {
        let twice_max = 2.0 * if a > b { a as f64 } else { b as f64 };
        Add {
            a: below_one(a as f64 / twice_max),
            b: below_one(b as f64 / twice_max),
            out: below_one(twice_max / ((1 << 20) as f64 * out as f64)),
        }
    }

    const SKIP: Add = add(OP2_IN0_QUANT.0, OP2_IN1_QUANT.0, OP2_OUT_QUANT.0);
    const BIAS: Add = add(OP4_IN0_QUANT.0, OP4_IN1_QUANT.0, OP4_OUT_QUANT.0);

    /// One element of an add (`a` and `b` with their zero points, into `zero`).
    #[inline(always)]
    fn add_one(op: &Add, (a, za): (i8, i32), (b, zb): (i8, i32), zero: i32) -> i8 {
        let sa = requant((a as i32 - za) << 20, op.a);
        let sb = requant((b as i32 - zb) << 20, op.b);
        (requant(sa + sb, op.out) + zero).clamp(-128, 127) as i8
    }

    /// The network on one `[1, 8]` input.
    #[inline(always)]
    pub fn forward(x: [i8; 8]) -> [i8; 4] {
        let (mut h0, mut h1, mut h3) = ([0i8; 16], [0i8; 8], [0i8; 4]);
        let relu = |zero: i32| (zero, 127);
        fc(
            &x,
            OP0_IN0_QUANT.1,
            &OP0_IN1_DATA,
            &OP0_IN2_DATA,
            &M0,
            OP0_OUT_QUANT.1,
            relu(OP0_OUT_QUANT.1),
            &mut h0,
        );
        fc(
            &h0,
            OP1_IN0_QUANT.1,
            &OP1_IN1_DATA,
            &OP1_IN2_DATA,
            &M1,
            OP1_OUT_QUANT.1,
            (-128, 127),
            &mut h1,
        );
        let mut skip = [0i8; 8];
        for k in 0..8 {
            skip[k] = add_one(
                &SKIP,
                (h1[k], OP2_IN0_QUANT.1),
                (x[k], OP2_IN1_QUANT.1),
                OP2_OUT_QUANT.1,
            );
        }
        fc(
            &skip,
            OP3_IN0_QUANT.1,
            &OP3_IN1_DATA,
            &OP3_IN2_DATA,
            &M3,
            OP3_OUT_QUANT.1,
            relu(OP3_OUT_QUANT.1),
            &mut h3,
        );
        let mut y = [0i8; 4];
        for j in 0..4 {
            y[j] = add_one(
                &BIAS,
                (h3[j], OP4_IN0_QUANT.1),
                (OP4_IN1_DATA[j], OP4_IN1_QUANT.1),
                OP4_OUT_QUANT.1,
            );
        }
        y
    }
}
