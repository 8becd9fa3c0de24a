//! A residual int8 network, bit for bit the `tflite-micro` interpreter's outputs: two fully
//! connected layers, their output added back to the input (a quantized add of tensors with
//! different scales), a third layer, and a constant bias broadcast onto the result. MicroFlow
//! has no add, so it cannot run this network.
//!
//! The model (`examples/residual/residual_int8.tflite`) was built with Keras and converted to
//! full int8 with tensorflow's converter by `examples/residual/make_model.py`, which also read
//! its parameters back into `examples/residual/model.rs` and ran TFLM on 1000 random inputs
//! (`examples/residual/expected.txt`). This checks all 1000.
//!
//! ```sh
//! cargo run --example residual
//! ```

#[path = "residual/network.rs"]
mod network;

fn main() -> Result<(), shaped::Error> {
    let mut same = 0;
    for (i, (x, want)) in network::expected().enumerate() {
        let got = network::forward(x)?;
        assert_eq!(got, want, "input {x:?}: shaped {got:?}, TFLM {want:?}");
        same += 1;
        if i % 250 == 0 {
            println!("{x:?} -> {got:?}");
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
