// A quantized tensor does not combine with a float one: quantize the float tensor first.
use shaped::quant::{Activation, Quant};
use shaped::{Shape, Tensor};

fn main() {
    let q = Quant::<i8>::new(0.1, 0).unwrap();
    let a = Tensor::<i8, Shape![4]>::splat(1).quantized(q);
    let b = Tensor::<f32, Shape![4]>::splat(1.0);
    let _ = a.add(&b, q, Activation::None);
}
