//! Models imported by `shaped::include_model!` give TFLM's outputs byte for byte: the int8
//! autoencoder `anomaly` (ten FULLY_CONNECTED layers, per-channel weights, the last without
//! bias) on its 100 generated inputs (`tests/models/README.md`), and the sine example's model
//! (per-tensor weights in its last layer) on the 1000 inputs of `examples/sine/expected.txt`.

use shaped::{Shape, Tensor};

shaped::include_model!(pub Anomaly, "tests/models/anomaly.tflite");
shaped::include_model!(Sine, "examples/sine/sine_int8.tflite");

/// The inputs' generator of `tests/models/README.md`.
fn fnv1a64(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[test]
fn the_generator_is_the_documented_one() {
    assert_eq!(fnv1a64("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(SplitMix64(0).next(), 0xe220_a839_7b1d_cdaf);
}

#[test]
fn anomaly_gives_tflm_s_100_outputs() {
    let expected = include_str!("models/anomaly.expected.txt");
    let mut count = 0;
    let mut arena = [0u8; Anomaly::ARENA_BYTES];
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let (k, values) = line.split_once(": ").unwrap();
        let k: u64 = k.parse().unwrap();
        let want: Vec<i8> = values.split(' ').map(|v| v.parse().unwrap()).collect();
        let mut g = SplitMix64(fnv1a64("anomaly") ^ k);
        let x = Tensor::<i8, Shape![1, 640]>::from_fn(|_| (g.next() >> 56) as i8);
        let y = Anomaly::predict(&x);
        assert_eq!(y.as_slice(), &want[..], "input {k}");
        // The arena form gives the same bytes.
        let mut out = Tensor::<i8, Shape![1, 640]>::zeros();
        Anomaly::predict_into(&x, &mut out, &mut arena);
        assert_eq!(out, y, "input {k}");
        count += 1;
    }
    assert_eq!(count, 100);
    // The plan's size for the intermediates (tflite/README.md) and the model's quantization
    // (tests/models/README.md).
    assert_eq!(Anomaly::ARENA_BYTES, 264);
    assert_eq!(Anomaly::INPUT.scale().to_bits(), 0x3c00_0000);
    assert_eq!(Anomaly::INPUT.zero_point(), 0);
    assert_eq!(Anomaly::OUTPUT.scale().to_bits(), 0x3cf5_b7a8);
    assert_eq!(Anomaly::OUTPUT.zero_point(), -5);
}

#[test]
fn sine_gives_tflm_s_1000_outputs() {
    let expected = include_str!("../examples/sine/expected.txt");
    let mut count = 0;
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let mut f = line.split(' ');
        let (_x, q, want) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        let x = Tensor::<i8, Shape![1, 1]>::from([[q.parse().unwrap()]]);
        let y = Sine::predict(&x);
        assert_eq!(y.as_slice(), &[want.parse::<i8>().unwrap()], "input {q}");
        count += 1;
    }
    assert_eq!(count, 1000);
}
