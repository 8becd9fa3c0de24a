// Logical operations are defined on bool tensors.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2]>::splat(1.0);
    let _ = a.and(&a);
}
