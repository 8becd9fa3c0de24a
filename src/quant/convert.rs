//! Between real values and quantized ones (rule Q10), as TFLM's `QUANTIZE` and `DEQUANTIZE`
//! compute them.

use super::params::{round_half_away, Quant, QuantElement};

/// `zero_point + round(x / scale)`, clamped to `E`'s range (Q10): the division in `f32`, the
/// rounding half away from zero. NaN gives the zero point (TFLM leaves it undefined);
/// infinities saturate.
#[inline(always)]
pub fn quantize_value<E: QuantElement>(x: f32, quant: Quant<E>) -> E {
    // NaN rounds to 0, so it gives the zero point; infinities saturate in the rounding.
    let v = round_half_away(x / quant.scale()).saturating_add(quant.zero_point() as i64);
    E::saturate(v.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
}

/// `scale * (q - zero_point)` (Q10): the product in `f64` from the `f32` scale, rounded once
/// to `f32`.
#[inline(always)]
pub fn dequantize_value<E: QuantElement>(q: E, quant: Quant<E>) -> f32 {
    (quant.scale() as f64 * (q.to_i32() - quant.zero_point()) as f64) as f32
}

/// `x` rounded to the nearest integer, ties to even, and saturated to `E`'s range (Q15: the
/// one rounding of oneDNN's integer destinations, `nearbyint` in its default mode). NaN gives
/// 0.
#[inline(always)]
pub fn saturate_round_half_even<E: QuantElement>(x: f32) -> E {
    // Clamped first (NaN to 0), so the value is within 256 of zero; there, adding 1.5 * 2^23
    // gives a float whose unit in the last place is 1, so the addition itself rounds to an
    // integer, ties to even, and that integer is the float's bits less the bits of 1.5 * 2^23.
    // Integer steps only, no float-to-int cast (whose saturating semantics kept LLVM from
    // vectorizing the store: 1.32 against 5.5 Gelem/s for the primitive's int8 add).
    const SNAP: f32 = 12_582_912.0;
    let clamped = if x.is_nan() {
        0.0
    } else {
        x.clamp(E::MIN as f32, E::MAX as f32)
    };
    let rounded = (clamped + SNAP).to_bits() as i32 - SNAP.to_bits() as i32;
    E::saturate(rounded)
}
