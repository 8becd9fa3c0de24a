//! The integer steps of the TFLM contract, each a function with its exact result (rules
//! Q4-Q6). They are the whole of the arithmetic: a quantized add or mul is these steps in a
//! fixed order, so matching TFLM bit for bit means matching each one, ties included.
//!
//! All of them are `const fn`, total (no input panics or overflows in Rust's sense), and
//! inline to a few instructions.
//!
//! The second half holds gemmlowp's fixed-point functions, which TFLM's int8 softmax,
//! logistic and tanh kernels are built from (rules Q20-Q22): `exp` of a negative value, the
//! reciprocal `1 / (1 + x)`, `(1 - x) / (1 + x)`, the logistic function and `tanh`. A value
//! `Q_m` (`m` integer bits) is an `i32` `r` meaning `r / 2^(31 - m)`; a `Q_0` value is in
//! `[-1, 1)` and its "one" is `i32::MAX`. Each function is the same sequence of steps as
//! gemmlowp's, each step named here with its exact result, so the value is the same integer,
//! every rounding included. Where gemmlowp's `int32` additions would overflow (they never do
//! on the inputs the kernels give), these wrap.

/// `round(a * b / 2^31)` with ties toward positive infinity, as `i32`: the high half of the
/// doubled product (Q4), gemmlowp's `SaturatingRoundingDoublingHighMul` and Arm's `VQRDMULH`.
/// The one product whose result does not fit, `i32::MIN * i32::MIN` (2^31), saturates to
/// `i32::MAX`.
///
/// Exactly: `floor((a * b + 2^30) / 2^31)` in 64 bits. (gemmlowp writes it as a nudge of
/// `2^30` or `1 - 2^30` by the product's sign and a division truncating toward zero: the same
/// value. A tie rounds up on both sides of zero: `1/2` to 1, `-1/2` to 0, `-3/2` to -1.)
#[inline(always)]
pub const fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    // |a * b| <= 2^62, so adding 2^30 cannot overflow, and the shifted value fits in i32
    // except for the product handled above.
    ((a as i64 * b as i64 + (1 << 30)) >> 31) as i32
}

/// `round(x / 2^exponent)`, ties away from zero (Q5), for `exponent` in `0..=31` (the
/// contracts never ask for more; a larger one is taken as 31). The right shift of the
/// double-rounding form.
///
/// Exactly: with `r = x mod 2^e` (the bits shifted out) and `t = 2^(e-1) - 1 + [x < 0]`, the
/// result is `(x >> e) + [r > t]`, `>>` the arithmetic shift (floor). For `x >= 0` a remainder
/// of exactly half rounds up; for `x < 0` it stays at the floor, which is the value farther
/// from zero.
#[inline(always)]
pub const fn rounding_divide_by_pot(x: i32, exponent: u32) -> i32 {
    let e = if exponent > 31 { 31 } else { exponent };
    let mask = ((1i64 << e) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + (x < 0) as i32;
    (x >> e) + (remainder > threshold) as i32
}

/// The double-rounding requantization (Q6, TFLM's default build): `x * 2^shift` scaled by the
/// `Q31` `multiplier`, as [`saturating_rounding_doubling_high_mul`] of `x` shifted left by
/// `max(shift, 0)` (wrapping, as TFLM's `int32` arithmetic does in practice), then
/// [`rounding_divide_by_pot`] by `max(-shift, 0)`. Two roundings: a tie of the first step can
/// move the second.
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_double(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left = if shift > 0 { shift as u32 } else { 0 };
    let right = if shift < 0 { shift.unsigned_abs() } else { 0 };
    let shifted = x.wrapping_mul(1i32.wrapping_shl(left));
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(shifted, multiplier),
        right,
    )
}

/// [`multiply_by_quantized_multiplier_double`] without its one saturating case: the high
/// multiply of `x * 2^max(shift, 0)` (wrapping) by `multiplier` saturates only when both are
/// `i32::MIN`, which a non-negative `multiplier` never is. So for every `multiplier >= 0` (every
/// multiplier the derivation makes, Q3: 0 or in `[2^30, 2^31)`) and every `x` and `shift` the
/// result is the general form's; for `multiplier == i32::MIN` and a shifted `x` of `i32::MIN`
/// it is `i32::MIN` where the general form gives `i32::MAX` (then divided).
///
/// A fully connected layer requantizes each output through a per-channel table whose values
/// the compiler cannot see through: the saturation test was three instructions and a branch per
/// output in each Cortex-M4 layer (`qemu-tests/code_size.sh`).
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_double_nonneg(
    x: i32,
    multiplier: i32,
    shift: i32,
) -> i32 {
    let left = if shift > 0 { shift as u32 } else { 0 };
    let right = if shift < 0 { shift.unsigned_abs() } else { 0 };
    let shifted = x.wrapping_mul(1i32.wrapping_shl(left));
    // |shifted * multiplier| <= 2^62 unless both are i32::MIN: no overflow in 64 bits.
    let high = ((shifted as i64 * multiplier as i64 + (1 << 30)) >> 31) as i32;
    rounding_divide_by_pot(high, right)
}

/// [`multiply_by_quantized_multiplier_double`] for what an add or subtract asks of it: `|x| <
/// 2^29`, a multiplier in `0..2^31` and `shift <= 0` (a real multiplier below one), with the
/// same result in fewer steps. Under those bounds the high multiply cannot saturate
/// (`x != i32::MIN`) and its result `v` has `|v| <= 2^29`, so the divide by `2^e` (`e =
/// -shift`) is `(v + 2^(e-1) - [v < 0]) >> e` with no overflow: the floor of `v / 2^e` moved
/// up by one half, less one unit below zero, which is half away from zero (Q5). A `shift`
/// below -31 is taken as -31, as the general form does.
///
/// On the Cortex-M4 this is a multiply-accumulate and five single-cycle steps, where the
/// general form's divide needs a mask, a threshold and a compare (`qemu-tests/icount.sh`).
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_double_small(
    x: i32,
    multiplier: i32,
    shift: i32,
) -> i32 {
    let e = if shift < -31 {
        31
    } else if shift > 0 {
        0
    } else {
        shift.unsigned_abs()
    };
    // |x * multiplier| < 2^60: no overflow in 64 bits, and `v` fits in 32.
    let v = ((x as i64 * multiplier as i64 + (1 << 30)) >> 31) as i32;
    let half = (1i64 << e >> 1) as i32;
    // -1 below zero when there is a remainder to round (e > 0), 0 otherwise.
    let below = (v >> 31) & -((e > 0) as i32);
    (v + half + below) >> e
}

/// [`multiply_by_quantized_multiplier_double`] for a right shift (`shift` in `-31..=-1`) and a
/// `multiplier >= 0`, for every `x`, in one 64-bit sum and a shift. With `e = -shift`, the two
/// roundings are `h = floor((x m + 2^30) / 2^31)` and then `floor((h + 2^(e-1) - [h < 0]) /
/// 2^e)` (half away from zero); an integer added inside a floor can move into it, so the result
/// is `floor((x m + 2^30 + 2^(30+e) - [h < 0] 2^31) / 2^(31+e))`, whose shift of at least 32
/// is the sum's high word shifted by `e - 1`. `[h < 0]` may be taken as `[x < 0]`: they differ
/// only where `-2^30 <= x m < 0`, where both forms give 0. No overflow: `|x m| < 2^62`.
///
/// On the Cortex-M4, a multiply-accumulate into a constant pair, two steps for `[x < 0]` and
/// a shift, where the general form's divide needs a mask, a threshold and a compare: a
/// convolution's block of outputs is requantized in fewer instructions
/// (`qemu-tests/icount_layers.sh`).
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_double_right(
    x: i32,
    multiplier: i32,
    shift: i32,
) -> i32 {
    let e = if shift < -31 {
        31
    } else if shift > -1 {
        1
    } else {
        shift.unsigned_abs()
    };
    let nudges = (1i64 << 30) + (1i64 << (30 + e));
    let sum = x as i64 * multiplier as i64 + nudges - (((x < 0) as i64) << 31);
    ((sum >> 32) as i32) >> (e - 1)
}

/// The single-rounding requantization (Q6, TFLM built with `TFLITE_SINGLE_ROUNDING`):
/// `floor((x * multiplier + 2^(30 - shift)) / 2^(31 - shift))` in 64 bits, one rounding with
/// ties toward positive infinity, for `shift` in `-31..=30` (the derivation saturates a larger
/// one to 30, Q3; a smaller one does not occur, Q3 flushes it to a zero multiplier).
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_single(x: i32, multiplier: i32, shift: i32) -> i32 {
    let shift = if shift > 30 {
        30
    } else if shift < -31 {
        -31
    } else {
        shift
    };
    let total = (31 - shift) as u32;
    let round = 1i64 << (total - 1);
    ((x as i64 * multiplier as i64 + round) >> total) as i32
}

/// `round((a + b) / 2)`, ties away from zero, as `i32` (gemmlowp's `RoundingHalfSum`, Arm's
/// `VRHADD` on its signed form): `(a + b + s) / 2` in 64 bits with `s = 1` for `a + b >= 0`,
/// else `-1`, and the division truncating toward zero. Always fits.
#[inline(always)]
pub const fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = a as i64 + b as i64;
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// `x * 2^exponent` with saturation for `exponent > 0`, and [`rounding_divide_by_pot`] by
/// `-exponent` for `exponent < 0` (gemmlowp's `SaturatingRoundingMultiplyByPOT`, and the
/// rescaling of a fixed-point value between integer-bit counts, `Rescale`). Left shifts, for
/// `exponent` in `1..=31`: with `t = 2^(31 - exponent) - 1`, `x > t` gives `i32::MAX`, `x < -t`
/// gives `i32::MIN`, and otherwise the exact `x * 2^exponent`. A larger `exponent` is taken as
/// 31, a smaller one than -31 as -31.
#[inline(always)]
pub const fn saturating_rounding_multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent == 0 {
        return x;
    }
    if exponent < 0 {
        return rounding_divide_by_pot(x, exponent.unsigned_abs());
    }
    let e = if exponent > 31 { 31 } else { exponent as u32 };
    let threshold = ((1i64 << (31 - e)) - 1) as i32;
    if x > threshold {
        i32::MAX
    } else if x < -threshold {
        i32::MIN
    } else {
        // |x| <= 2^(31 - e) - 1: the product fits.
        x << e
    }
}

/// gemmlowp's `exp(-1/8)` in `Q_0`: `round(e^(-1/8) * 2^31)`.
const EXP_MINUS_ONE_EIGHTH: i32 = 1_895_147_668;
/// gemmlowp's `1/3` in `Q_0`.
const ONE_THIRD: i32 = 715_827_883;
/// gemmlowp's `48/17` in `Q_2`, the Newton-Raphson division's start.
const FORTY_EIGHT_SEVENTEENTHS: i32 = 1_515_870_810;
/// gemmlowp's `-32/17` in `Q_2`.
const MINUS_THIRTY_TWO_SEVENTEENTHS: i32 = -1_010_580_540;
/// gemmlowp's `exp(-2^k)` in `Q_0` for `k = -2..=4`, the factors of `exp` of a negative value
/// by the bits of its integer and quarter parts.
const EXP_OF_MINUS_POWERS: [i32; 7] = [
    1_672_461_947,
    1_302_514_674,
    790_015_084,
    290_630_308,
    39_332_535,
    720_401,
    242,
];

/// `exp(a)` for `a` in `[-1/4, 0)`, `a` and the result in `Q_0` (gemmlowp's
/// `exp_on_interval_between_negative_one_quarter_and_0_excl`): the Taylor expansion around
/// `-1/8` to the fourth power, in these steps, `*` being
/// [`saturating_rounding_doubling_high_mul`] and `/ 2^k` [`rounding_divide_by_pot`]:
///
/// ```text
/// x  = a + 2^28                           (a + 1/8)
/// x2 = x * x,  x3 = x2 * x,  x4 = x2 * x2
/// t  = ((x4 / 2^2 + x3) * ONE_THIRD + x2) / 2^1
/// result = EXP_MINUS_ONE_EIGHTH + EXP_MINUS_ONE_EIGHTH * (x + t)
/// ```
///
/// with gemmlowp's constants `round(e^(-1/8) 2^31) = 1895147668` and `round(2^31 / 3) =
/// 715827883`, the additions plain (they cannot overflow for `a` in the interval).
#[inline(always)]
pub const fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    let x = a.wrapping_add(1 << 28);
    let x2 = saturating_rounding_doubling_high_mul(x, x);
    let x3 = saturating_rounding_doubling_high_mul(x2, x);
    let x4 = saturating_rounding_doubling_high_mul(x2, x2);
    let x4_over_4 = rounding_divide_by_pot(x4, 2);
    let cubic = saturating_rounding_doubling_high_mul(x4_over_4.wrapping_add(x3), ONE_THIRD);
    let t = rounding_divide_by_pot(cubic.wrapping_add(x2), 1);
    EXP_MINUS_ONE_EIGHTH.wrapping_add(saturating_rounding_doubling_high_mul(
        EXP_MINUS_ONE_EIGHTH,
        x.wrapping_add(t),
    ))
}

/// `exp(a)` for `a <= 0` in `Q_m` (`m = integer_bits`, in `0..=26`), the result in `Q_0`
/// (gemmlowp's `exp_on_negative_values`):
///
/// 1. With `q = 2^(28 - m)` (one quarter in `Q_m`): `r = (a & (q - 1)) - q`, the part of `a`
///    in `[-1/4, 0)` that leaves `a - r` a multiple of `1/4`.
/// 2. `result` = [`exp_on_interval_between_negative_one_quarter_and_0_excl`] of `r` rescaled
///    to `Q_0` ([`saturating_rounding_multiply_by_pot`] by `m`).
/// 3. With `d = r - a` (wrapping; `-(a - r)`, a multiple of `1/4` in `Q_m`), for `k = -2..=4`
///    with `m > k`: where bit `31 - m + k` of `d` is set (the `2^k` part of `-a`),
///    `result = result * exp(-2^k)` ([`saturating_rounding_doubling_high_mul`] by gemmlowp's
///    `Q_0` constant for `exp(-2^k)`).
/// 4. For `m > 5` only: `a < -32` (`a < -2^(36 - m)`) gives 0.
/// 5. `a == 0` gives `i32::MAX` (one in `Q_0`).
#[inline(always)]
pub const fn exp_on_negative_values(a: i32, integer_bits: u32) -> i32 {
    let m = if integer_bits > 26 { 26 } else { integer_bits };
    let fractional = 31 - m;
    let quarter = 1i32 << (fractional - 2);
    let r = (a & (quarter - 1)).wrapping_sub(quarter);
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        saturating_rounding_multiply_by_pot(r, m as i32),
    );
    let remainder = r.wrapping_sub(a);
    let mut k = -2i32;
    while k <= 4 {
        if (m as i32) > k {
            let bit = (fractional as i32 + k) as u32;
            if remainder & (1i32 << bit) != 0 {
                let factor = EXP_OF_MINUS_POWERS[(k + 2) as usize];
                result = saturating_rounding_doubling_high_mul(result, factor);
            }
        }
        k += 1;
    }
    if m > 5 && a < -(1i32 << (36 - m)) {
        result = 0;
    }
    if a == 0 {
        result = i32::MAX;
    }
    result
}

/// The Newton-Raphson iterations of gemmlowp's divisions, on `h`, the half denominator
/// `(1 + a) / 2` in `Q_0`: `x = 48/17 + h * (-32/17)` in `Q_2`, then three times
/// `x = x + rescale(x * (1 - h * x))` (`1` being `2^29` in `Q_2`, each `*`
/// [`saturating_rounding_doubling_high_mul`], the product of two `Q_2` values rescaled from
/// `Q_4` to `Q_2` by [`saturating_rounding_multiply_by_pot`] by 2). `x` ends near `1 / h`.
#[inline(always)]
const fn newton_reciprocal(h: i32) -> i32 {
    let mut x = FORTY_EIGHT_SEVENTEENTHS.wrapping_add(saturating_rounding_doubling_high_mul(
        h,
        MINUS_THIRTY_TWO_SEVENTEENTHS,
    ));
    let mut i = 0;
    while i < 3 {
        let hx = saturating_rounding_doubling_high_mul(h, x);
        let one_minus_hx = (1i32 << 29).wrapping_sub(hx);
        let step = saturating_rounding_doubling_high_mul(x, one_minus_hx);
        x = x.wrapping_add(saturating_rounding_multiply_by_pot(step, 2));
        i += 1;
    }
    x
}

/// `1 / (1 + a)` for `a` in `[0, 1)`, both in `Q_0` (gemmlowp's
/// `one_over_one_plus_x_for_x_in_0_1`): `h = ` [`rounding_half_sum`]`(a, i32::MAX)`, the
/// three Newton-Raphson steps of `newton_reciprocal` from `h`, giving `x` in `Q_2`, and the
/// result `x / 2` read in `Q_1` and rescaled to `Q_0`: [`saturating_rounding_multiply_by_pot`]
/// of `x` by 1.
#[inline(always)]
pub const fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    let x = newton_reciprocal(rounding_half_sum(a, i32::MAX));
    saturating_rounding_multiply_by_pot(x, 1)
}

/// `(1 - a) / (1 + a)` for `a` in `[0, 1)`, both in `Q_0` (gemmlowp's
/// `one_minus_x_over_one_plus_x_for_x_in_0_1`): as [`one_over_one_plus_x_for_x_in_0_1`] up to
/// `x` in `Q_2`, then `x - 1` (`x - 2^29`) rescaled from `Q_2` to `Q_0`
/// ([`saturating_rounding_multiply_by_pot`] by 2).
#[inline(always)]
pub const fn one_minus_x_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    let x = newton_reciprocal(rounding_half_sum(a, i32::MAX));
    saturating_rounding_multiply_by_pot(x.wrapping_sub(1 << 29), 2)
}

/// The logistic function `1 / (1 + exp(-a))` of `a` in `Q_m` (`m = integer_bits`, in
/// `0..=26`), the result in `Q_0` (gemmlowp's `logistic`): with `p` =
/// [`one_over_one_plus_x_for_x_in_0_1`]`(`[`exp_on_negative_values`]`(-|a|, m))`, the result
/// is `p` for `a > 0`, `i32::MAX - p` for `a < 0` and `2^30` (one half) for `a == 0`. `-|a|`
/// wraps for `i32::MIN`, as gemmlowp's negation does in practice.
#[inline(always)]
pub const fn logistic(a: i32, integer_bits: u32) -> i32 {
    if a == 0 {
        return 1 << 30;
    }
    let magnitude = if a > 0 { a } else { a.wrapping_neg() };
    let p = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(
        magnitude.wrapping_neg(),
        integer_bits,
    ));
    if a > 0 {
        p
    } else {
        i32::MAX.wrapping_sub(p)
    }
}

/// `tanh(a)` of `a` in `Q_m` (`m = integer_bits`, in `0..=25`), the result in `Q_0`
/// (gemmlowp's `tanh`): with `n = -|a|` and `t` =
/// [`one_minus_x_over_one_plus_x_for_x_in_0_1`]`(`[`exp_on_negative_values`]`(n, m + 1))`
/// (`exp(2n)`: `n` read with one more integer bit is `2n`), the result is `t` for `a > 0`,
/// `-t` for `a < 0` and 0 for `a == 0`.
#[inline(always)]
pub const fn tanh(a: i32, integer_bits: u32) -> i32 {
    if a == 0 {
        return 0;
    }
    let n = if a < 0 { a } else { a.wrapping_neg() };
    let t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, integer_bits + 1));
    if a < 0 {
        t.wrapping_neg()
    } else {
        t
    }
}

/// TFLM's `GetReciprocal` for a positive `x` in `Q_m` (`m = integer_bits`): `(s, b)` with
/// `1 / x ≈ s * 2^-b`, `s` in `Q_0`. With `h = ` the leading zeros of `x` (as `u32`), `b = m -
/// h` (the bits of `x` above one) and `s = ` [`one_over_one_plus_x_for_x_in_0_1`] of `(x <<
/// h) - 2^31` computed in `u32` (`x` normalized to `[1, 2)`, less one). For `x <= 0` the
/// result is what these steps give on the bits (`x` is never so in the kernels).
#[inline(always)]
pub const fn get_reciprocal(x: i32, integer_bits: u32) -> (i32, i32) {
    let bits = x as u32;
    let headroom_plus_one = bits.leading_zeros();
    let over_unit = integer_bits as i32 - headroom_plus_one as i32;
    // `x > 0` has at most 31 leading zeros; 0 has 32, and shifts out to 0.
    let normalized = if headroom_plus_one < 32 {
        bits << headroom_plus_one
    } else {
        0
    };
    let shifted_minus_one = normalized.wrapping_sub(1 << 31) as i32;
    (
        one_over_one_plus_x_for_x_in_0_1(shifted_minus_one),
        over_unit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small generator of test values from `state`.
    fn xorshift(mut state: u32) -> impl FnMut() -> u32 {
        move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        }
    }

    #[test]
    fn the_right_shift_form_is_the_double_rounding() {
        let mut next = xorshift(0x2545_f491);
        let mut xs = [
            0,
            1,
            -1,
            2,
            -2,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            1 << 30,
            -(1 << 30),
        ]
        .to_vec();
        // Miri interprets: a few random values there, the edges all the same.
        let (random, multipliers) = if cfg!(miri) { (8, 2) } else { (4000, 20) };
        xs.extend((0..random).map(|_| next() as i32));
        xs.extend((0..random).map(|_| (next() as i32) >> (next() % 31)));
        let mut ms = [0, 1, 1 << 30, (1 << 30) + 1, i32::MAX].to_vec();
        ms.extend((0..multipliers).map(|_| (next() >> 1) as i32 | 1 << 30));
        for shift in -31..=-1 {
            for &m in &ms {
                for &x in &xs {
                    assert_eq!(
                        multiply_by_quantized_multiplier_double_right(x, m, shift),
                        multiply_by_quantized_multiplier_double(x, m, shift),
                        "x {x}, multiplier {m}, shift {shift}"
                    );
                }
            }
        }
    }

    #[test]
    fn high_mul_rounds_ties_up() {
        // 2^30 * 1 / 2^31 = 1/2 exactly: up, to 1; -1/2 up, to 0.
        assert_eq!(saturating_rounding_doubling_high_mul(1 << 30, 1), 1);
        assert_eq!(saturating_rounding_doubling_high_mul(-(1 << 30), 1), 0);
        // 3/2 and -3/2: 2 and -1.
        assert_eq!(saturating_rounding_doubling_high_mul(3 << 29, 2), 2);
        assert_eq!(saturating_rounding_doubling_high_mul(-(3 << 29), 2), -1);
        // Off the ties, to nearest.
        assert_eq!(saturating_rounding_doubling_high_mul((1 << 30) - 1, 1), 0);
        assert_eq!(saturating_rounding_doubling_high_mul(-(1 << 30) - 1, 1), -1);
        assert_eq!(saturating_rounding_doubling_high_mul(-(1 << 30) + 1, 1), 0);
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
            i32::MAX
        );
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MAX),
            -i32::MAX
        );
    }

    #[test]
    fn divide_by_pot_rounds_ties_away_from_zero() {
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(6, 2), 2);
        assert_eq!(rounding_divide_by_pot(-6, 2), -2);
        assert_eq!(rounding_divide_by_pot(-7, 2), -2);
        assert_eq!(rounding_divide_by_pot(7, 0), 7);
        assert_eq!(rounding_divide_by_pot(i32::MIN, 31), -1);
        assert_eq!(rounding_divide_by_pot(i32::MAX, 31), 1);
        assert_eq!(rounding_divide_by_pot(i32::MAX, 40), 1);
    }

    /// The short form equals the general one wherever its bounds hold: every shift, ties of
    /// both steps, the ends of the range of `x` and of the multiplier.
    #[test]
    fn the_short_double_rounding_equals_the_general_one() {
        let mut xs: [i32; 24] = [
            0,
            1,
            -1,
            2,
            -2,
            3,
            -3,
            5,
            -5,
            7,
            -7,
            1 << 20,
            -(1 << 20),
            (1 << 29) - 1,
            -(1 << 29) + 1,
            12345678,
            -12345678,
            1 << 28,
            -(1 << 28),
            3 << 27,
            -(3 << 27),
            536870911,
            -536870911,
            999,
        ];
        let mut next = xorshift(0x2468_ace1);
        let multipliers = [
            0,
            1,
            1 << 30,
            (1 << 30) + 1,
            3 << 29,
            i32::MAX,
            1_431_655_765,
        ];
        // Miri interprets every step: a few rounds there, the full sweep natively.
        let rounds = if cfg!(miri) { 3 } else { 20_000 };
        for round in 0..rounds {
            if round > 0 {
                for x in xs.iter_mut() {
                    *x = (next() as i32) >> 3; // |x| < 2^29
                }
            }
            for &x in &xs {
                for shift in -40i32..=0 {
                    let m = if round == 0 {
                        multipliers[(shift.unsigned_abs() as usize) % multipliers.len()]
                    } else {
                        (next() >> 1) as i32
                    };
                    assert_eq!(
                        multiply_by_quantized_multiplier_double_small(x, m, shift),
                        multiply_by_quantized_multiplier_double(x, m, shift),
                        "x {x}, multiplier {m}, shift {shift}"
                    );
                }
            }
        }
    }

    /// The form without the saturating case equals the general one for every non-negative
    /// multiplier: every shift, the ends of `x` (`i32::MIN` shifted left included), ties.
    #[test]
    fn the_nonnegative_double_rounding_equals_the_general_one() {
        let edges = [
            0,
            1,
            -1,
            2,
            -3,
            1 << 30,
            -(1 << 30),
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
        ];
        let multipliers = [0, 1, 1 << 30, (1 << 30) + 1, 3 << 29, i32::MAX];
        let mut next = xorshift(0x1357_9bdf);
        let rounds = if cfg!(miri) { 2 } else { 5_000 };
        for round in 0..rounds {
            for shift in -40i32..=40 {
                for (i, &edge) in edges.iter().enumerate() {
                    let x = if round == 0 { edge } else { next() as i32 };
                    let m = if round == 0 {
                        multipliers[i % multipliers.len()]
                    } else {
                        (next() >> 1) as i32
                    };
                    assert_eq!(
                        multiply_by_quantized_multiplier_double_nonneg(x, m, shift),
                        multiply_by_quantized_multiplier_double(x, m, shift),
                        "x {x}, multiplier {m}, shift {shift}"
                    );
                }
            }
        }
        // The one difference, for a negative multiplier.
        assert_eq!(
            multiply_by_quantized_multiplier_double(i32::MIN, i32::MIN, 0),
            i32::MAX
        );
        assert_eq!(
            multiply_by_quantized_multiplier_double_nonneg(i32::MIN, i32::MIN, 0),
            i32::MIN
        );
    }

    #[test]
    fn half_sums_and_saturating_shifts() {
        assert_eq!(rounding_half_sum(1, 2), 2);
        assert_eq!(rounding_half_sum(-1, -2), -2);
        assert_eq!(rounding_half_sum(-1, 2), 1);
        assert_eq!(rounding_half_sum(i32::MAX, i32::MAX), i32::MAX);
        assert_eq!(rounding_half_sum(i32::MIN, i32::MIN), i32::MIN);
        assert_eq!(saturating_rounding_multiply_by_pot(3, 2), 12);
        assert_eq!(saturating_rounding_multiply_by_pot(1 << 29, 2), i32::MAX);
        assert_eq!(
            saturating_rounding_multiply_by_pot((1 << 29) - 1, 2),
            i32::MAX - 3
        );
        assert_eq!(saturating_rounding_multiply_by_pot(-(1 << 29), 2), i32::MIN);
        assert_eq!(saturating_rounding_multiply_by_pot(-5, -1), -3);
        assert_eq!(saturating_rounding_multiply_by_pot(1, 31), i32::MAX);
        assert_eq!(saturating_rounding_multiply_by_pot(0, 31), 0);
    }

    /// The fixed-point functions near the real ones (their exact bytes are TFLM's, checked by
    /// `tests/quantized_tflm_activations.rs`): within a few units of `2^-24`.
    #[test]
    fn fixed_point_functions_approximate_the_real_ones() {
        let q0 = |v: i32| v as f64 / 2f64.powi(31);
        let close = |got: f64, want: f64| assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        assert_eq!(exp_on_negative_values(0, 5), i32::MAX);
        for k in [1, 7, 100, 1 << 20, 1 << 26, 5 << 26, 15 << 26, 31 << 26] {
            let a = -k;
            close(
                q0(exp_on_negative_values(a, 5)),
                (a as f64 / 2f64.powi(26)).exp(),
            );
            close(
                q0(exp_on_negative_values(a / 2, 4)),
                (a as f64 / 2f64.powi(28)).exp(),
            );
        }
        for x in [0.0, 0.1, 0.5, 0.75, 0.999] {
            let raw = (x * 2f64.powi(31)) as i32;
            close(q0(one_over_one_plus_x_for_x_in_0_1(raw)), 1.0 / (1.0 + x));
            close(
                q0(one_minus_x_over_one_plus_x_for_x_in_0_1(raw)),
                (1.0 - x) / (1.0 + x),
            );
        }
        assert_eq!(logistic(0, 4), 1 << 30);
        assert_eq!(tanh(0, 4), 0);
        for a in [1, 1000, 1 << 24, 1 << 27, 3 << 27, 15 << 27] {
            let real = a as f64 / 2f64.powi(27);
            close(q0(logistic(a, 4)), 1.0 / (1.0 + (-real).exp()));
            close(q0(logistic(-a, 4)), 1.0 / (1.0 + real.exp()));
            close(q0(tanh(a, 4)), real.tanh());
            assert_eq!(tanh(-a, 4), -tanh(a, 4));
        }
        // 1.25 in Q_12: 1 / 1.25 = 0.8 with no bits over one.
        let (s, over) = get_reciprocal(5 << 17, 12);
        assert_eq!(over, 0);
        close(q0(s), 0.8);
        // 3.0, one bit over one: 1 / 3 = (2 / 3) * 2^-1.
        let (s, over) = get_reciprocal(3 << 19, 12);
        assert_eq!(over, 1);
        close(q0(s), 2.0 / 3.0);
    }

    #[test]
    fn the_two_requantizations_differ_on_ties() {
        // Multiplier 1/2 (2^30 in `Q31`), shift -1: x / 4.
        let (m, s) = (1 << 30, -1);
        // 10 / 4 = 2.5: double rounding away from zero gives 3 (the first step is exact);
        // single rounding ties upward gives 3 too; -10 / 4 = -2.5: -3 against -2.
        assert_eq!(multiply_by_quantized_multiplier_double(10, m, s), 3);
        assert_eq!(multiply_by_quantized_multiplier_single(10, m, s), 3);
        assert_eq!(multiply_by_quantized_multiplier_double(-10, m, s), -3);
        assert_eq!(multiply_by_quantized_multiplier_single(-10, m, s), -2);
        // Double rounding rounds twice: 3 * (2^30 + 1) / 2^31 = 1.5000000014, rounded to 2,
        // then / 2 = 1 exactly: 1; single rounding: 3 * (2^30 + 1) / 2^32 = 0.75 -> 1.
        assert_eq!(
            multiply_by_quantized_multiplier_double(3, (1 << 30) + 1, -1),
            1
        );
        assert_eq!(
            multiply_by_quantized_multiplier_single(3, (1 << 30) + 1, -1),
            1
        );
        // x = 1, multiplier 3/4, shift -1: 3/8: double: round(3/4) = 1, round(1/2) = 1;
        // single: round(0.375) = 0. The classic double-rounding difference.
        assert_eq!(multiply_by_quantized_multiplier_double(1, 3 << 29, -1), 1);
        assert_eq!(multiply_by_quantized_multiplier_single(1, 3 << 29, -1), 0);
    }
}
