//! A two-layer perceptron, 16 -> 32 -> 4 with ReLU between, on a batch of two inputs: each
//! layer a matrix product and a broadcast bias add, every shape checked by the compiler. The
//! Cortex-M suite (`qemu-tests/`) runs the same network without an allocator and checks the
//! same outputs.

use shaped::{Shape, Tensor};

/// Deterministic weights, so that the output can be checked anywhere.
fn weight(i: usize, j: usize, seed: usize) -> f32 {
    ((i * 7 + j * 3 + seed) % 11) as f32 * 0.1 - 0.5
}

fn main() {
    let x = Tensor::<f32, Shape![2, 16]>::from_fn(|[b, i]| ((b * 16 + i) % 5) as f32 * 0.25);
    let w1 = Tensor::<f32, Shape![16, 32]>::from_fn(|[i, j]| weight(i, j, 1));
    let b1 = Tensor::<f32, Shape![32]>::from_fn(|[j]| j as f32 * 0.01);
    let w2 = Tensor::<f32, Shape![32, 4]>::from_fn(|[i, j]| weight(i, j, 2));
    let b2 = Tensor::<f32, Shape![4]>::splat(-0.1);

    // [2, 16] x [16, 32] + [32] -> [2, 32]; a wrong inner dim or bias length does not compile.
    let hidden: Tensor<f32, Shape![2, 32]> = (x.matmul(&w1) + b1).relu();
    let y: Tensor<f32, Shape![2, 4]> = hidden.matmul(&w2) + b2;
    println!(
        "hidden units active: {} of 64",
        hidden.iter().filter(|&&h| h > 0.0).count()
    );
    println!("output, shape {:?}:\n{:.4}", y.shape(), y);
    println!("exactly: {:?}", y.as_slice());
}
