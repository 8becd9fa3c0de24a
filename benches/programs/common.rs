//! What the six programs share: deterministic pseudo-random inputs, the comparison of their
//! results, and an `erf` for the twins (Rust's `std` has none; shaped's `gelu` is the erf form).

/// A xorshift64* generator: the same inputs on every run and every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in `[-1, 1)`.
    pub fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40; // 24 bits
        bits as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// `n` values uniform in `[-scale, scale)`.
    pub fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.next_f32() * scale).collect()
    }
}

/// The largest `|a - b|` over two results of the same length; a NaN on either side is infinite.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "the results differ in length");
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let d = (x - y).abs();
            if d.is_nan() {
                f32::INFINITY
            } else {
                d
            }
        })
        .fold(0.0, f32::max)
}

/// The three versions of one program compared: shaped and ndarray each against the hand loops.
pub struct Check {
    pub program: &'static str,
    pub shaped_vs_hand: f32,
    pub ndarray_vs_hand: f32,
    pub tolerance: f32,
}

impl Check {
    pub fn new(
        program: &'static str,
        shaped: &[f32],
        ndarray: &[f32],
        hand: &[f32],
        tolerance: f32,
    ) -> Self {
        Check {
            program,
            shaped_vs_hand: max_abs_diff(shaped, hand),
            ndarray_vs_hand: max_abs_diff(ndarray, hand),
            tolerance,
        }
    }

    pub fn passes(&self) -> bool {
        self.shaped_vs_hand <= self.tolerance && self.ndarray_vs_hand <= self.tolerance
    }

    pub fn report(&self) -> String {
        format!(
            "{:<12} max |shaped - hand| {:.3e}, max |ndarray - hand| {:.3e}, tolerance {:.1e}: {}",
            self.program,
            self.shaped_vs_hand,
            self.ndarray_vs_hand,
            self.tolerance,
            if self.passes() { "ok" } else { "FAILED" }
        )
    }
}

/// erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7): what a user without a
/// math crate writes for the exact GELU.
pub fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 {
        -y
    } else {
        y
    }
}

/// GELU, erf form: `0.5 x (1 + erf(x / sqrt(2)))`.
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

#[cfg(test)]
mod tests {
    #[test]
    fn erf_matches_known_values() {
        // erf(0.5), erf(1), erf(2), rounded to f32; the formula is within 1.5e-7, and its f32
        // evaluation adds about as much again.
        for (x, e) in [
            (0.5f32, 0.520_499_9f32),
            (1.0, 0.842_700_8),
            (2.0, 0.995_322_3),
        ] {
            assert!(
                (super::erf(x) - e).abs() < 3e-7,
                "erf({x}) = {}",
                super::erf(x)
            );
            assert!((super::erf(-x) + e).abs() < 3e-7);
        }
        assert!(super::erf(0.0).abs() < 3e-7);
    }

    #[test]
    fn max_abs_diff_sees_nan() {
        assert_eq!(super::max_abs_diff(&[1.0, 2.0], &[1.0, 2.5]), 0.5);
        assert_eq!(super::max_abs_diff(&[f32::NAN], &[1.0]), f32::INFINITY);
    }
}
