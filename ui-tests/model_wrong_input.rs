// An imported model's input shape is a type: a tensor of another shape does not compile.
// (`tests/ui.rs` copies `tests/models/speech.tflite` to where this case is built.)
use shaped::{Shape, Tensor};

shaped::include_model!(Speech, "speech.tflite");

fn main() {
    // micro_speech takes a [1, 49, 40, 1] spectrogram.
    let x = Tensor::<i8, Shape![1, 49, 40]>::zeros();
    let _y = Speech::predict(&x);
}
