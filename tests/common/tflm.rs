//! Reading the TFLM reference files of `tests/reference/` (made by `tflm_elementwise.py` and
//! `tflm_matmul.py`): the inputs' generator, dims, parameters and activations as written there.
#![allow(dead_code)]

use shaped::quant::{Activation, Quant};

/// The inputs of a case: xorshift32 (13, 17, 5) from `seed`, the low byte of each state;
/// seed 0 is every value, -128 to 127.
pub fn xorshift_bytes(seed: u32, n: usize) -> Vec<i8> {
    if seed == 0 {
        return (i8::MIN..=i8::MAX).cycle().take(n).collect();
    }
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8 as i8
        })
        .collect()
}

/// Dims written `2x3x4`, `-` for rank 0.
pub fn dims(text: &str) -> Vec<usize> {
    if text == "-" {
        return vec![];
    }
    text.split('x').map(|d| d.parse().unwrap()).collect()
}

/// A scale written as its `f32` bits in hex.
pub fn scale(bits: &str) -> f32 {
    f32::from_bits(u32::from_str_radix(bits, 16).unwrap())
}

/// A scale (hex bits) and a zero point.
pub fn params(bits: &str, zero_point: &str) -> (f32, i32) {
    (scale(bits), zero_point.parse().unwrap())
}

pub fn q8((scale, zero_point): (f32, i32)) -> Quant<i8> {
    Quant::new(scale, zero_point).unwrap()
}

pub fn activation(name: &str) -> Activation {
    match name {
        "none" => Activation::None,
        "relu" => Activation::Relu,
        "relu6" => Activation::Relu6,
        "relu_n1_to_1" => Activation::ReluN1To1,
        other => panic!("activation {other}"),
    }
}

/// The case lines of `tflm_<op>.txt` (split at spaces, with their line numbers) and the bytes
/// of `tflm_<op>.bin`.
pub fn reference(op: &str) -> (Vec<(usize, Vec<String>)>, Vec<u8>) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/");
    let text = std::fs::read_to_string(format!("{dir}tflm_{op}.txt")).unwrap();
    let bytes = std::fs::read(format!("{dir}tflm_{op}.bin")).unwrap();
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split(' ').map(String::from).collect()))
        .collect();
    (lines, bytes)
}
