//! Real multipliers to `Q31` fixed point and a power-of-two shift (rule Q3), as TFLM derives
//! them (`QuantizeMultiplier`): `frexp`, then the fraction rounded to 31 bits. Written with
//! integer operations on the `f64`'s bits, so that it runs in `const` context and on targets
//! without a floating-point unit, with the same result as TFLM's `frexp` and `round`.

use super::Rounding;

/// A real multiplier `m >= 0` as `(q, shift)` with `m ≈ q * 2^(shift - 31)`, `q` in
/// `[2^30, 2^31)` or 0 (Q3):
///
/// 1. `m == 0` gives `(0, 0)`.
/// 2. `m = f * 2^shift` with `f` in `[0.5, 1)` (`frexp`).
/// 3. `q = round(f * 2^31)`, ties away from zero; `q = 2^31` becomes `2^30` with `shift + 1`.
/// 4. `shift < -31` flushes to `(0, 0)` (every product would shift out).
/// 5. Single rounding only: `shift > 30` saturates to `(2^31 - 1, 30)`.
///
/// `None` for a negative, infinite or NaN `m`, and for subnormal ones (no scale ratio of valid
/// `f32` scales is that small, and TFLM would flush it anyway; here it is an error).
pub const fn quantize_multiplier(m: f64, rounding: Rounding) -> Option<(i32, i32)> {
    if m == 0.0 {
        return Some((0, 0));
    }
    let bits = m.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if bits >> 63 != 0 || biased == 0 || biased == 0x7ff {
        return None;
    }
    // m = 1.fraction * 2^(biased - 1023) = (mantissa / 2^53) * 2^(biased - 1022), the
    // mantissa with its implicit bit in [2^52, 2^53): f = mantissa / 2^53 is in [0.5, 1).
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    let mut shift = biased - 1022;
    // f * 2^31 = mantissa / 2^22: rounding half away from zero (f > 0) is adding half of
    // 2^22 and truncating.
    let mut q = (mantissa + (1 << 21)) >> 22;
    if q == 1 << 31 {
        q /= 2;
        shift += 1;
    }
    if shift < -31 {
        return Some((0, 0));
    }
    if let Rounding::Single = rounding {
        if shift > 30 {
            return Some((i32::MAX, 30));
        }
    }
    Some((q as i32, shift))
}

/// [`quantize_multiplier`] for a multiplier that must be in `(0, 1)` (TFLM's
/// `QuantizeMultiplierSmallerThanOneExp`, which the add derivation uses): `None` outside.
pub const fn quantize_multiplier_below_one(m: f64, rounding: Rounding) -> Option<(i32, i32)> {
    if !(m > 0.0 && m < 1.0) {
        return None;
    }
    match quantize_multiplier(m, rounding) {
        Some((q, shift)) if shift <= 0 => Some((q, shift)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_are_q31_fractions_and_shifts() {
        let d = Rounding::Double;
        assert_eq!(quantize_multiplier(0.0, d), Some((0, 0)));
        assert_eq!(quantize_multiplier(0.5, d), Some((1 << 30, 0)));
        assert_eq!(quantize_multiplier(1.0, d), Some((1 << 30, 1)));
        assert_eq!(quantize_multiplier(0.75, d), Some((3 << 29, 0)));
        assert_eq!(quantize_multiplier(3.0, d), Some((3 << 29, 2)));
        // Just below 1: the fraction rounds up to 2^31 and is renormalized.
        assert_eq!(quantize_multiplier(1.0 - 1e-12, d), Some((1 << 30, 1)));
        // 1/3: round(2^31 / 3 * 2) ... f = 2/3, q = round(2^32 / 3) = 1431655765.
        assert_eq!(quantize_multiplier(1.0 / 3.0, d), Some((1_431_655_765, -1)));
        // Tiny multipliers flush to zero; large ones saturate under single rounding only.
        assert_eq!(quantize_multiplier(1e-12, d), Some((0, 0)));
        assert_eq!(quantize_multiplier(2f64.powi(40), d), Some((1 << 30, 41)));
        assert_eq!(
            quantize_multiplier(2f64.powi(40), Rounding::Single),
            Some((i32::MAX, 30))
        );
        assert_eq!(quantize_multiplier(-1.0, d), None);
        assert_eq!(quantize_multiplier(f64::NAN, d), None);
        assert_eq!(quantize_multiplier(f64::INFINITY, d), None);
        assert_eq!(quantize_multiplier_below_one(1.0, d), None);
        assert_eq!(quantize_multiplier_below_one(0.25, d), Some((1 << 30, -1)));
    }

    #[test]
    fn multipliers_are_derived_in_const_context() {
        const M: Option<(i32, i32)> = quantize_multiplier(0.02 / 0.05, Rounding::Double);
        assert_eq!(M, Some((1_717_986_918, -1)));
    }
}
