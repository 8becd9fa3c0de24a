//! TFLM's own example models, as MicroFlow publishes them (`../shared/models/`: sine, micro
//! speech and person detection), imported by `shaped::include_model!`, give the `tflite-micro`
//! interpreter's outputs on 100 generated inputs each (`tests/models/shared_models.py` wrote
//! them to `tests/models/shared_<name>.expected.txt`). The models are read where they are,
//! never committed: without them (`build.rs`) the test says it was skipped.

#[cfg(shared_models)]
mod imported {
    use shaped::model::Arena;
    use shaped::{Shape, Tensor};

    shaped::include_model!(Sine, "../../shared/models/sine.tflite");
    shaped::include_model!(Speech, "../../shared/models/speech.tflite");
    shaped::include_model!(PersonDetect, "../../shared/models/person_detect.tflite");

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

    fn expected(text: &str) -> Vec<(u64, Vec<i8>)> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|line| {
                let (k, values) = line.split_once(": ").unwrap();
                let values = values.split(' ').map(|v| v.parse().unwrap()).collect();
                (k.parse().unwrap(), values)
            })
            .collect()
    }

    macro_rules! tflm_outputs {
        ($test:ident, $model:ident, $name:literal, [$($i:literal),*] -> [$($o:literal),*]) => {
            #[test]
            fn $test() {
                let text = include_str!(concat!("../../tests/models/", $name, ".expected.txt"));
                let cases = expected(text);
                assert_eq!(cases.len(), 100);
                let mut with_io = Box::new(Arena::<{ $model::ARENA_WITH_IO_BYTES }>::new());
                for (k, want) in cases {
                    let mut g = SplitMix64(fnv1a64($name) ^ k);
                    let x = Tensor::<i8, Shape![$($i),*]>::from_fn(|_| (g.next() >> 56) as i8);
                    let y: Tensor<i8, Shape![$($o),*]> = $model::predict(&x);
                    assert_eq!(y.as_slice(), &want[..], "{} input {k}", $name);
                    $model::input_mut(&mut with_io).as_mut_slice().copy_from_slice(x.as_slice());
                    $model::run(&mut with_io);
                    assert_eq!($model::output(&with_io).as_slice(), &want[..], "{} input {k}", $name);
                }
            }
        };
    }

    tflm_outputs!(sine_gives_tflm_s_outputs, Sine, "shared_sine", [1, 1] -> [1, 1]);
    // RESHAPE of the input (`[1, 1960]` to `[1, 49, 40, 1]`: the input's own bytes), a
    // depthwise convolution of multiplier 8, FULLY_CONNECTED, SOFTMAX.
    tflm_outputs!(speech_gives_tflm_s_outputs, Speech, "shared_speech", [1, 1960] -> [1, 4]);
    // Its first layer a depthwise convolution of multiplier 8 (ours: a CONV_2D).
    tflm_outputs!(
        person_detect_gives_tflm_s_outputs,
        PersonDetect,
        "shared_person_detect",
        [1, 96, 96, 1] -> [1, 2]
    );
}

#[cfg(not(shared_models))]
#[test]
fn shared_models_are_absent() {
    eprintln!(
        "skipped: TFLM's example models are not in ../shared/models beside the repository \
         (tests/models/README.md)"
    );
}
