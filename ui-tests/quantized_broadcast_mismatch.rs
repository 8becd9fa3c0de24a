// Quantized tensors broadcast by the same rules as float ones: a dim mismatch is a compile
// error naming both dims.
use shaped::quant::{Activation, Quant};
use shaped::{Shape, Tensor};

fn main() {
    let q = Quant::<i8>::new(0.1, 0).unwrap();
    let a = Tensor::<i8, Shape![8, 16, 4, 4]>::splat(1).quantized(q);
    let b = Tensor::<i8, Shape![3]>::splat(1).quantized(q);
    let _ = a.add(&b, q, Activation::None);
}
