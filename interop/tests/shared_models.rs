//! TFLM's own example models, as MicroFlow publishes them (`../shared/models/`: sine, micro
//! speech and person detection), imported by `shaped::include_model!`, give the `tflite-micro`
//! interpreter's outputs on 100 generated inputs each (`tests/models/shared_models.py` wrote
//! them to `tests/models/shared_<name>.expected.txt`). The models are read where they are,
//! never committed: without them (`build.rs`) the test says it was skipped.

#[cfg(shared_models)]
#[path = "../../tests/common/model_inputs.rs"]
mod model_inputs;

#[cfg(shared_models)]
mod imported {
    use shaped::model::Arena;
    use shaped::{Shape, Tensor};

    shaped::include_model!(Sine, "../../shared/models/sine.tflite");
    shaped::include_model!(Speech, "../../shared/models/speech.tflite");
    shaped::include_model!(PersonDetect, "../../shared/models/person_detect.tflite");

    use super::model_inputs::{expected, int8, int8_input};

    macro_rules! tflm_outputs {
        ($test:ident, $model:ident, $name:literal, [$($i:literal),*] -> [$($o:literal),*]) => {
            #[test]
            fn $test() {
                let text = include_str!(concat!("../../tests/models/", $name, ".expected.txt"));
                let cases = expected(text, int8);
                assert_eq!(cases.len(), 100);
                let mut with_io = Box::new(Arena::<{ $model::ARENA_WITH_IO_BYTES }>::new());
                for (k, want) in cases {
                    let x = int8_input::<Shape![$($i),*]>($name, k);
                    let y: Tensor<i8, Shape![$($o),*]> = $model::predict(&x).into_parts().0;
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
