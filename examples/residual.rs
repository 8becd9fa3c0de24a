//! A residual int8 network imported from its `.tflite`, bit for bit the `tflite-micro`
//! interpreter's outputs: two fully connected layers, their output added back to the input (a
//! quantized add of tensors with different scales), a third layer, and a constant bias
//! broadcast onto the result. MicroFlow has no add, so it cannot run this network.
//!
//! The model (`examples/residual/residual_int8.tflite`) was built with Keras and converted to
//! full int8 with tensorflow's converter by `examples/residual/make_model.py`, which also ran
//! TFLM on 1000 random inputs (`examples/residual/expected.txt`). This checks all 1000.
//! (`examples/residual/network.rs` is the same network written by hand with shaped's layers.)
//!
//! ```sh
//! cargo run --example residual --features model
//! ```

use shaped::{Shape, Tensor};

shaped::include_model!(Residual, "examples/residual/residual_int8.tflite");

fn main() {
    let mut same = 0;
    for (i, line) in include_str!("residual/expected.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .enumerate()
    {
        let v: Vec<i8> = line.split(' ').map(|s| s.parse().unwrap()).collect();
        let (x, want) = v.split_at(8);
        let x = Tensor::<i8, Shape![1, 8]>::from_fn(|[_, j]| x[j]);
        let got = Residual::predict(&x);
        let got = got.values();
        assert_eq!(got.as_slice(), want, "input {x:?}");
        same += 1;
        if i % 250 == 0 {
            println!("{:?} -> {:?}", x.as_slice(), got.as_slice());
        }
    }
    assert_eq!(same, 1000);
    println!("{same} of 1000 outputs equal TFLM's");
    println!(
        "the intermediate tensors take {} bytes of arena, a constant",
        Residual::ARENA_BYTES
    );
}
