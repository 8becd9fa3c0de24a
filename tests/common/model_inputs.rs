//! The test models' inputs and expected outputs (`tests/models/README.md`): inputs generated
//! by SplitMix64 seeded with `fnv1a64(name) ^ k`, never stored; the `tflite-micro`
//! interpreter's outputs read from `<name>.expected.txt`. Shared by the suite's
//! `imported_models.rs` and `interop/tests/shared_models.rs`.
#![allow(dead_code)]

use shaped::{StaticShape, Tensor};

/// FNV-1a, 64 bits.
pub fn fnv1a64(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Input `k` of model `name`, int8: the top byte of each `next()`.
pub fn int8_input<S: StaticShape>(name: &str, k: u64) -> Tensor<i8, S> {
    let mut g = SplitMix64(fnv1a64(name) ^ k);
    Tensor::from_fn(|_| (g.next() >> 56) as i8)
}

/// Input `k` of model `name`, f32: uniform in [-1, 1).
pub fn f32_input<S: StaticShape>(name: &str, k: u64) -> Tensor<f32, S> {
    let mut g = SplitMix64(fnv1a64(name) ^ k);
    Tensor::from_fn(|_| ((g.next() >> 40) as f32) / 16_777_216.0 * 2.0 - 1.0)
}

/// The data lines of an expected file: `(k, values)`, each value parsed by `parse`.
pub fn expected<T>(text: &str, parse: impl Fn(&str) -> T) -> Vec<(u64, Vec<T>)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let (k, values) = line.split_once(": ").unwrap();
            (k.parse().unwrap(), values.split(' ').map(&parse).collect())
        })
        .collect()
}

/// An int8 value of an expected file.
pub fn int8(v: &str) -> i8 {
    v.parse().unwrap()
}

/// An f32 value of an expected file: the 8 hex digits of its bits.
pub fn f32_bits(v: &str) -> u32 {
    u32::from_str_radix(v, 16).unwrap()
}
