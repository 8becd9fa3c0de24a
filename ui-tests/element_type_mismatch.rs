use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3]>::splat(1.0);
    let b = Tensor::<f64, Shape![3]>::splat(1.0);
    let _ = &a + &b;
}
