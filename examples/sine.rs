//! TFLM's int8 "hello world" sine model, imported from its `.tflite` in one line: bit for bit
//! the outputs of the `tflite-micro` interpreter on the same file, all 1000 of them.
//!
//! The model (`examples/sine/sine_int8.tflite`) was trained and converted to full int8 with
//! tensorflow's converter by `examples/sine/make_model.py`, which also ran TFLM on 1000 inputs
//! (`examples/sine/expected.txt`). `include_model!` reads the file at build time and writes a
//! typed model: `Sine::predict` takes a `Tensor<i8, Shape![1, 1]>` and returns one; the weights
//! are `static`s, the layers `const`s. (`examples/sine/network.rs` is the same model written
//! by hand with shaped's layers, from the parameters the script transcribed.)
//!
//! ```sh
//! cargo run --example sine --features model
//! ```

use shaped::{Shape, Tensor};

shaped::include_model!(Sine, "examples/sine/sine_int8.tflite");

fn main() {
    let mut same = 0;
    for (i, line) in include_str!("sine/expected.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .enumerate()
    {
        let mut f = line.split(' ').map(str::parse::<f32>);
        let (x, q, want) = match (f.next(), f.next(), f.next()) {
            (Some(Ok(x)), Some(Ok(q)), Some(Ok(y))) => (x, q as i8, y as i8),
            _ => panic!("a line of three numbers: {line}"),
        };
        // The input, quantized as the model's input is (`Sine::INPUT`).
        // The output comes back quantized by `Sine::OUTPUT`.
        let y = Sine::predict(&Tensor::<i8, Shape![1, 1]>::from([[q]]));
        let got = y.values().as_slice()[0];
        assert_eq!(got, want, "x = {x}: shaped {got}, TFLM {want}");
        same += 1;
        if i % 125 == 0 {
            let real = y.dequantize().as_slice()[0];
            println!(
                "sin({x:.3}) = {:+.3}, the model says {real:+.3} (int8 {got})",
                x.sin()
            );
        }
    }
    assert_eq!(same, 1000);
    println!("{same} of 1000 outputs equal TFLM's");
    println!(
        "the intermediate tensors take {} bytes of arena, a constant",
        Sine::ARENA_BYTES
    );
}
