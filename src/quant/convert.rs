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
    if x.is_nan() {
        return E::saturate(0);
    }
    // Every f32 is exact in f64, and so are the floor and the difference below.
    let v = (x as f64).clamp(i32::MIN as f64, i32::MAX as f64);
    let t = v as i64; // toward zero
    let floor = if (t as f64) > v { t - 1 } else { t };
    let rest = v - floor as f64;
    let rounded = if rest > 0.5 || (rest == 0.5 && floor % 2 != 0) {
        floor + 1
    } else {
        floor
    };
    E::saturate(rounded.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
}
