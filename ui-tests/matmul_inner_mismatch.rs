use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![4, 8]>::splat(1.0);
    let _ = x.matmul(&x);
}
