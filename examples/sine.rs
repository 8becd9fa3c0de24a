//! TFLM's int8 "hello world" sine model run by shaped: three fully connected layers on static
//! shapes, bit for bit the outputs of the `tflite-micro` interpreter on the same `.tflite`.
//!
//! The model (`examples/sine/sine_int8.tflite`) was trained and converted to full int8 with
//! tensorflow's converter by `examples/sine/make_model.py`, which also read its weights and
//! quantization parameters back into `examples/sine/model.rs` and ran TFLM on 1000 inputs
//! (`examples/sine/expected.txt`). This checks all 1000 and prints a few.
//!
//! ```sh
//! cargo run --example sine
//! ```

#[path = "sine/network.rs"]
mod network;

fn main() -> Result<(), shaped::Error> {
    let mut same = 0;
    for (i, (x, input, want)) in network::expected().enumerate() {
        let got = network::forward(input)?;
        assert_eq!(got, want, "x = {x}: shaped {got}, TFLM {want}");
        same += 1;
        if i % 125 == 0 {
            let y = network::OUTPUT.scale() * (got as i32 - network::OUTPUT.zero_point()) as f32;
            println!(
                "sin({x:.3}) = {:+.3}, the model says {y:+.3} (int8 {got})",
                x.sin()
            );
        }
    }
    assert_eq!(same, 1000);
    println!("{same} of 1000 outputs equal TFLM's");
    println!(
        "the activations take {} bytes, known at compile time",
        network::ACTIVATION_BYTES
    );
    Ok(())
}
