//! The integer steps of the TFLM contract, each a function with its exact result (rules
//! Q4-Q6). They are the whole of the arithmetic: a quantized add or mul is these steps in a
//! fixed order, so matching TFLM bit for bit means matching each one, ties included.
//!
//! All of them are `const fn`, total (no input panics or overflows in Rust's sense), and
//! inline to a few instructions.

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
