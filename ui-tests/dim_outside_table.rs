// A dim outside the compile-time table cannot be broadcast (documented limit).
use shaped::{Shape, Tensor, TensorView};

fn main() {
    let data = [0.0f32; 2049];
    let a = TensorView::<f32, Shape![2049]>::new(&data).unwrap();
    let b = Tensor::<f32, Shape![1]>::splat(1.0);
    let _ = &a + &b;
}
