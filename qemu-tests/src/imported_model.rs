//! The `.tflite` model a firmware imports with `shaped::include_model!`, chosen by a feature
//! `model-<name>` (one at a time), as `model::Model`, with its name, its generated input 0 as a
//! `static`, and TFLM's expected outputs. Included by the `models` and `model_outputs` bins
//! (`#[path]`). The paths are relative to this crate's directory; TFLM's own models are read
//! from `../shared/models/` beside the repository, which is not part of it.

macro_rules! imported {
    ($feature:literal, $path:literal, $name:literal, $generator:literal, $len:literal) => {
        #[cfg(feature = $feature)]
        pub mod model {
            shaped::include_model!(pub Model, $path);

            /// The name the firmware prints (its feature without `model-`).
            pub const NAME: &[u8] = $name.as_bytes();
            /// The model's name for the input generator and its expected file.
            pub const GENERATOR: &[u8] = $generator.as_bytes();
            /// The input's element count.
            pub const INPUT_LEN: usize = $len;
            /// Input 0 of the generator, built at compile time.
            pub static INPUT: [i8; $len] = qemu_tests::imported::input($generator.as_bytes(), 0);
            /// TFLM's outputs on the generated inputs (`tests/models/<name>.expected.txt`).
            pub const EXPECTED: &str =
                include_str!(concat!("../../tests/models/", $generator, ".expected.txt"));
        }
    };
}

// The project's models (tests/models/README.md).
imported!(
    "model-speech",
    "../tests/models/speech.tflite",
    "speech",
    "speech",
    1960
);
imported!(
    "model-person",
    "../tests/models/person_detection.tflite",
    "person",
    "person_detection",
    9216
);
imported!("model-kws", "../tests/models/kws.tflite", "kws", "kws", 490);
imported!(
    "model-resnet8",
    "../tests/models/resnet8.tflite",
    "resnet8",
    "resnet8",
    3072
);
imported!(
    "model-anomaly",
    "../tests/models/anomaly.tflite",
    "anomaly",
    "anomaly",
    640
);
// TFLM's own micro_speech and person_detection models, which MicroFlow measured.
imported!(
    "model-shared-speech",
    "../../shared/models/speech.tflite",
    "shared-speech",
    "shared_speech",
    1960
);
imported!(
    "model-shared-person",
    "../../shared/models/person_detect.tflite",
    "shared-person",
    "shared_person_detect",
    9216
);
