//! Models imported by `shaped::include_model!` give TFLM's outputs byte for byte: each of the
//! project's int8 models (`tests/models/README.md`: TFLM's micro_speech and person_detection
//! architectures, MLPerf Tiny's four) on its 100 generated inputs, through `predict` and
//! `predict_into`, and the sine example's model (per-tensor weights in its last layer) on the
//! 1000 inputs of `examples/sine/expected.txt`.

use shaped::model::Arena;
use shaped::{Shape, Tensor};

shaped::include_model!(pub Anomaly, "tests/models/anomaly.tflite");
shaped::include_model!(Speech, "tests/models/speech.tflite");
shaped::include_model!(Kws, "tests/models/kws.tflite");
shaped::include_model!(PersonDetection, "tests/models/person_detection.tflite");
shaped::include_model!(Vww, "tests/models/vww.tflite");
shaped::include_model!(Resnet8, "tests/models/resnet8.tflite");
shaped::include_model!(Sine, "examples/sine/sine_int8.tflite");
shaped::include_model!(Ops, "tests/models/ops.tflite");
shaped::include_model!(Ops2, "tests/models/ops2.tflite");
shaped::include_model!(SpeechF32, "tests/models/speech_f32.tflite");
shaped::include_model!(OpsF32, "tests/models/ops_f32.tflite");
shaped::include_model!(Ops2F32, "tests/models/ops2_f32.tflite");

use crate::model_inputs::{expected, f32_bits, f32_input, fnv1a64, int8, int8_input, SplitMix64};

#[test]
fn the_generator_is_the_documented_one() {
    assert_eq!(fnv1a64("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(SplitMix64(0).next(), 0xe220_a839_7b1d_cdaf);
}

/// Runs model `$model` on the 100 inputs of `tests/models/$name.expected.txt` through
/// `predict` and `predict_into` (one arena for all), each output against TFLM's.
macro_rules! tflm_outputs {
    ($test:ident, $model:ident, $name:literal, [$($i:literal),*] -> [$($o:literal),*]) => {
        #[test]
        fn $test() {
            let cases = expected(include_str!(concat!("models/", $name, ".expected.txt")), int8);
            assert_eq!(cases.len(), 100);
            let mut arena = Arena::<{ $model::ARENA_BYTES }>::new();
            let mut with_io = Box::new(Arena::<{ $model::ARENA_WITH_IO_BYTES }>::new());
            let mut out = Tensor::<i8, Shape![$($o),*]>::zeros();
            for (k, want) in cases {
                let x = int8_input::<Shape![$($i),*]>($name, k);
                let y = $model::predict(&x);
                // The output comes with its parameters.
                assert_eq!(y.quant(), $model::OUTPUT);
                let y = y.values();
                assert_eq!(y.as_slice(), &want[..], "{} input {k}", $name);
                $model::predict_into(&x, &mut out, &mut arena);
                assert_eq!(&out, y, "{} input {k}", $name);
                // The input and output in the arena too.
                $model::input_mut(&mut with_io).as_mut_slice().copy_from_slice(x.as_slice());
                $model::run(&mut with_io);
                assert_eq!($model::output(&with_io).as_slice(), y.as_slice(), "{} input {k}", $name);
            }
        }
    };
}

tflm_outputs!(anomaly_gives_tflm_s_100_outputs, Anomaly, "anomaly", [1, 640] -> [1, 640]);
tflm_outputs!(speech_gives_tflm_s_100_outputs, Speech, "speech", [1, 49, 40, 1] -> [1, 4]);
tflm_outputs!(kws_gives_tflm_s_100_outputs, Kws, "kws", [1, 49, 10, 1] -> [1, 12]);
tflm_outputs!(
    person_detection_gives_tflm_s_100_outputs,
    PersonDetection,
    "person_detection",
    [1, 96, 96, 1] -> [1, 2]
);
tflm_outputs!(vww_gives_tflm_s_100_outputs, Vww, "vww", [1, 96, 96, 3] -> [1, 2]);
tflm_outputs!(resnet8_gives_tflm_s_100_outputs, Resnet8, "resnet8", [1, 32, 32, 3] -> [1, 10]);
// TANH, LOGISTIC, int8-to-int8 QUANTIZE, CONCATENATION, a standalone RELU, PAD, MEAN over
// height and width, and a standalone RELU6 whose output parameters TFLM does not apply (Q26).
tflm_outputs!(ops2_gives_tflm_s_100_outputs, Ops2, "ops2", [1, 10, 10, 4] -> [1, 8]);

/// Runs model `$model`, of f32 input and output, on its 100 inputs, each output's bits
/// against TFLM's.
macro_rules! tflm_f32_outputs {
    ($test:ident, $model:ident, $name:literal, [$($i:literal),*] -> [$($o:literal),*]) => {
        #[test]
        fn $test() {
            let cases = expected(include_str!(concat!("models/", $name, ".expected.txt")), f32_bits);
            assert_eq!(cases.len(), 100);
            let mut with_io = Box::new(Arena::<{ $model::ARENA_WITH_IO_BYTES }>::new());
            for (k, want) in cases {
                let x = f32_input::<Shape![$($i),*]>($name, k);
                let y: Tensor<f32, Shape![$($o),*]> = $model::predict(&x);
                let bits: Vec<u32> = y.as_slice().iter().map(|v| v.to_bits()).collect();
                assert_eq!(bits, want, "{} input {k}: {:?}", $name, y.as_slice());
                $model::input_mut(&mut with_io).as_mut_slice().copy_from_slice(x.as_slice());
                $model::run(&mut with_io);
                assert_eq!($model::output(&with_io).as_slice(), y.as_slice(), "{} input {k}", $name);
            }
        }
    };
}

// QUANTIZE and DEQUANTIZE at the edges, SUB, MUL, a broadcasting ADD, both pools with partial
// windows, a depthwise multiplier of 2, a dilated VALID convolution, RELU6 on an output whose
// range is wider than [0, 6].
tflm_f32_outputs!(ops_gives_tflm_s_100_outputs, Ops, "ops", [1, 12, 12, 3] -> [1, 10]);
// The float models: TFLite's float kernels' order of every sum.
tflm_f32_outputs!(speech_f32_gives_tflm_s_100_outputs, SpeechF32, "speech_f32", [1, 49, 40, 1] -> [1, 4]);
tflm_f32_outputs!(ops_f32_gives_tflm_s_100_outputs, OpsF32, "ops_f32", [1, 12, 12, 3] -> [1, 10]);
// TFLite's float LOGISTIC, TANH, CONCATENATION, RELU, PAD, MEAN and RELU6 (S8).
tflm_f32_outputs!(ops2_f32_gives_tflm_s_100_outputs, Ops2F32, "ops2_f32", [1, 10, 10, 4] -> [1, 8]);

#[test]
fn the_models_constants_are_the_file_s() {
    // The plan's size for the intermediates (tflite/README.md) and the model's quantization
    // (tests/models/README.md).
    assert_eq!(Anomaly::ARENA_BYTES, 264);
    assert_eq!(Anomaly::INPUT.scale().to_bits(), 0x3c00_0000);
    assert_eq!(Anomaly::INPUT.zero_point(), 0);
    assert_eq!(Anomaly::OUTPUT.scale().to_bits(), 0x3cf5_b7a8);
    assert_eq!(Anomaly::OUTPUT.zero_point(), -5);
    assert_eq!(Speech::OUTPUT.scale().to_bits(), 0x3b80_0000);
    assert_eq!(Speech::OUTPUT.zero_point(), -128);
    // With the input and output in the arena, person detection's is its largest operator's
    // two tensors (48x48x8 in, 48x48x16 out), the input's bytes reused.
    assert_eq!(PersonDetection::ARENA_WITH_IO_BYTES, 55_296);
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
        assert_eq!(
            y.values().as_slice(),
            &[want.parse::<i8>().unwrap()],
            "input {q}"
        );
        count += 1;
    }
    assert_eq!(count, 1000);
}
