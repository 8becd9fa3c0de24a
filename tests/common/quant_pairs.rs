// The all-pairs sums of quantized operations, included (`include!`) by `tests/quantized.rs` on
// the host and by `qemu-tests/tests/on_target.rs` on the Cortex-M4: both compute them with the
// same code and must find `QUANT_HASHES`, so the target's outputs equal the host's bit for bit
// (and the host's operations are held to TFLM's bytes by `tests/quantized_tflm.rs`).

/// The sums both must find.
pub const QUANT_HASHES: [u32; 8] = [
    0x090061ef, 0xc5410a04, 0x05b9d385, 0xae4e7c81, 0x6ef5c8cb, 0xda27c0b8, 0x1991ca45, 0xd3dafdc5,
];

/// FNV-1a (32 bits) of the outputs of eight prepared operations over every pair of `i8`
/// inputs (x outer, y inner), both rounding modes among them.
pub fn all_pairs_hashes() -> Result<[u32; 8], shaped::Error> {
    use shaped::quant::{Activation, QAdd, QCompare, QMul, QRequant, QSub, Quant, Rounding};
    use shaped::CompareOp;
    fn q8(scale: f32, zero_point: i32) -> Quant<i8> {
        Quant::new_const(scale, zero_point)
    }
    fn fnv(mut f: impl FnMut(i8, i8) -> u8) -> u32 {
        let mut h = 0x811c_9dc5u32;
        for x in i8::MIN..=i8::MAX {
            for y in i8::MIN..=i8::MAX {
                h = (h ^ f(x, y) as u32).wrapping_mul(0x0100_0193);
            }
        }
        h
    }
    let (a, b, o) = (q8(0.02, -5), q8(0.03, 7), q8(0.05, 3));
    let (d, s) = (Rounding::Double, Rounding::Single);
    let add1 = QAdd::new(a, b, o, Activation::None, d)?;
    let add2 = QAdd::new(a, b, o, Activation::Relu6, s)?;
    let (qa, qb, qo) = (q8(0.0078125, 0), q8(0.00390625, 10), q8(0.015625, -3));
    let add3 = QAdd::new(qa, qb, qo, Activation::None, d)?;
    let mul1 = QMul::new(q8(0.1, 0), q8(0.1, 0), q8(0.25, 0), Activation::ReluN1To1, d)?;
    let mul2 = QMul::new(q8(0.007, 12), q8(0.3, -20), q8(0.02, 1), Activation::None, s)?;
    let sub = QSub::new(a, b, o, Activation::Relu, d)?;
    let lt = QCompare::new(q8(0.5, 0), q8(0.25, 3), CompareOp::Lt, d)?;
    let to_u8 = QRequant::new(q8(0.5, 0), Quant::<u8>::new_const(0.25, 128), d);
    Ok([
        fnv(|x, y| add1.apply(x, y) as u8),
        fnv(|x, y| add2.apply(x, y) as u8),
        fnv(|x, y| add3.apply(x, y) as u8),
        fnv(|x, y| mul1.apply(x, y) as u8),
        fnv(|x, y| mul2.apply(x, y) as u8),
        fnv(|x, y| sub.apply(x, y) as u8),
        fnv(|x, y| lt.apply(x, y) as u8),
        fnv(|x, y| to_u8.apply(x) ^ y as u8),
    ])
}
